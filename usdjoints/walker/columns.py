"""Reading a prim's columns with their provenance.

Many prims share a schema signature (type name plus applied API schemas), so the expensive part
of a column (its owner, raw fallback, producer value and parser default) is worked out once per
signature; per prim only the authored columns are read from USD.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, NamedTuple, Optional

from .. import contract
from ..provenance import Resolved, Source
from pxr import Gf

from ..contract.registry import to_python as _to_python_general

_PLAIN = (float, bool, str, int, type(None))
_VECTORS = (Gf.Vec3f, Gf.Vec3d, Gf.Vec3h, Gf.Vec2f, Gf.Vec2d, Gf.Vec4f, Gf.Vec4d)
_QUATERNIONS = (Gf.Quatf, Gf.Quatd, Gf.Quath)


def to_python(value):
    """Plain Python for the value types joint columns hold; anything else goes the general way."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind in _VECTORS:
        # indexing: iterating a Gf vector from Python costs ten times more
        return tuple(value[i] for i in range(len(value))) if len(value) != 3 else (value[0], value[1], value[2])
    if kind in _QUATERNIONS:
        imaginary = value.GetImaginary()
        return (value.GetReal(), imaginary[0], imaginary[1], imaginary[2])
    return _to_python_general(value)

_IGNORED = frozenset({"proxyPrim", "purpose", "visibility", "xformOpOrder"})


@dataclass(frozen=True, slots=True)
class ColumnInfo:
    """What a column is for one schema signature: its owner and its unauthored resolution."""

    name: str
    owner: str
    is_relationship: bool
    unauthored: Resolved  # shared by every prim of the signature that leaves it unauthored
    parser_default: object
    fallback: object
    producer: object


class ColumnRead(NamedTuple):
    """The columns of one prim, the names it authors, and relationships with several targets."""

    columns: dict
    authored: frozenset
    several_targets: tuple


class ColumnTable:
    """Column infos per schema signature, for one consumer."""

    def __init__(self, consumer: str):
        self.consumer = consumer
        self._by_signature: dict[tuple, Mapping[str, ColumnInfo]] = {}
        self._unauthored: dict[tuple, dict[str, Resolved]] = {}

    def infos(self, prim, type_name: str, applied: tuple[str, ...]) -> Mapping[str, ColumnInfo]:
        key = (type_name, applied)
        infos = self._by_signature.get(key)
        if infos is None:
            infos = self._build(prim, type_name, applied)
            self._by_signature[key] = infos
            self._unauthored[key] = {name: info.unauthored for name, info in infos.items()}
        return infos

    def read(self, prim, type_name: str, applied: tuple[str, ...]) -> ColumnRead:
        """Every column of ``prim`` with provenance: unauthored ones shared, authored ones read."""
        infos = self.infos(prim, type_name, applied)
        columns = dict(self._unauthored[(type_name, applied)])
        authored = frozenset(prim.GetAuthoredPropertyNames())
        several = []
        for name in authored.intersection(infos):
            info = infos[name]
            if info.is_relationship:
                targets = prim.GetRelationship(name).GetTargets()
                if len(targets) > 1:
                    several.append(name)
                if targets:
                    columns[name] = Resolved(str(targets[0]), Source.AUTHORED, None, info.parser_default,
                                             info.producer)
                else:
                    columns[name] = Resolved(info.parser_default, Source.BLOCKED, None, info.parser_default,
                                             info.producer)
            else:
                columns[name] = read_attribute(prim.GetAttribute(name), info)
        return ColumnRead(columns, authored, tuple(several))

    def _build(self, prim, type_name: str, applied: tuple[str, ...]) -> Mapping[str, ColumnInfo]:
        definition = prim.GetPrimDefinition()
        owners = _owner_by_property(type_name, applied)
        known = frozenset(contract.known_owners())
        infos = {}
        for name in definition.GetPropertyNames():
            owner = owners.get(name, type_name)
            if owner not in known or name in _IGNORED:
                continue  # not a column of the joint contract (geometry, imaging, other APIs)
            is_relationship = definition.GetSchemaRelationshipSpec(name) is not None
            fallback = None if is_relationship else to_python(definition.GetAttributeFallbackValue(name))
            parser_default = contract.parser_default(self.consumer, owner, name)
            producer = contract.producer_value(owner, name)
            if is_relationship:
                unauthored = Resolved(None, Source.MISSING, None, parser_default, producer)
            else:
                unauthored = Resolved(fallback, Source.FALLBACK, fallback, parser_default, producer)
            infos[name] = ColumnInfo(name, owner, is_relationship, unauthored, parser_default, fallback, producer)
        return infos


def _owner_by_property(type_name: str, applied: tuple[str, ...]) -> dict[str, str]:
    """Map each property name of the applied API schemas to its API's schema name."""
    from pxr import Usd

    registry = Usd.SchemaRegistry()
    owners: dict[str, str] = {}
    for schema in applied:
        api, _, instance = schema.partition(":")
        definition = registry.FindAppliedAPIPrimDefinition(api)
        if definition is None:
            continue
        for template in definition.GetPropertyNames():
            name = template.replace("__INSTANCE_NAME__", instance) if instance else template
            owners[name] = api
    return owners


def read_attribute(attribute, info: ColumnInfo) -> Resolved:
    """An authored attribute: its value at default time, or the parser default when blocked."""
    value = attribute.Get()
    time_sampled = attribute.GetNumTimeSamples() > 0
    if value is None:
        return Resolved(info.parser_default, Source.BLOCKED, info.fallback, info.parser_default, info.producer)
    return Resolved(to_python(value), Source.AUTHORED, info.fallback, info.parser_default, info.producer,
                    time_sampled)


def extra_physics_columns(authored: frozenset[str], columns: Mapping[str, Resolved]) -> tuple[str, ...]:
    """Authored ``physics:``/``drive:``/``limit:`` properties that no applied schema declares."""
    unknown = authored.difference(columns.keys())
    if not unknown:
        return ()
    prefixes = ("physics:", "drive:", "limit:", "state:", "physx")
    return tuple(sorted(n for n in unknown if n.startswith(prefixes)))
