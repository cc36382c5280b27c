"""Reading a prim's columns with their provenance.

Reading splits in two. :class:`Signatures` reads what a prim authors once (consumer-independent:
values, blocks, time samples, relationship targets) into a :class:`RawColumns`; a
:class:`ColumnView` then dresses those raw values as :class:`Resolved` columns for one consumer.
Many prims share a schema signature (type name plus applied API schemas), so the per-column facts
(owner, raw fallback, producer value, each consumer's parser default) are worked out once per
signature.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, NamedTuple

from pxr import Gf

from .. import contract
from ..contract.registry import to_python as _to_python_general
from ..provenance import Resolved, Source

_PLAIN = (float, bool, str, int, type(None))
_VECTORS = (Gf.Vec3f, Gf.Vec3d, Gf.Vec2f, Gf.Vec2d, Gf.Vec4f, Gf.Vec4d)  # float and double: a buffer
_HALF_VECTORS = (Gf.Vec3h, Gf.Vec2h, Gf.Vec4h)  # half floats: Python's buffers do not read them
_QUATERNIONS = (Gf.Quatf, Gf.Quatd, Gf.Quath)
_IGNORED = frozenset({"proxyPrim", "purpose", "visibility", "xformOpOrder"})
BLOCKED = object()  # a raw value: an opinion blocks the attribute
_new_resolved = tuple.__new__
_AUTHORED = Source.AUTHORED


def to_python(value):
    """Plain Python for the value types joint columns hold; anything else goes the general way."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind in _VECTORS:
        # through the buffer in one call: iterating a Gf vector costs fifty times more
        return tuple(memoryview(value).tolist())
    if kind in _HALF_VECTORS:
        return tuple(float(value[i]) for i in range(len(value)))
    if kind in _QUATERNIONS:
        imaginary = value.GetImaginary()
        return (value.GetReal(), imaginary[0], imaginary[1], imaginary[2])
    return _to_python_general(value)


@dataclass(frozen=True, slots=True)
class ColumnInfo:
    """What a column is for one schema signature, whoever reads it."""

    name: str
    owner: str
    is_relationship: bool
    fallback: object
    producer: object


class RawColumns(NamedTuple):
    """What one prim authors: ``values`` name -> (value or BLOCKED, time_sampled); ``targets``
    name -> relationship targets; ``authored`` every authored property name."""

    signature: tuple
    values: dict
    targets: dict
    authored: frozenset


class Signatures:
    """Column infos per schema signature, and the consumer-independent read of a prim."""

    def __init__(self, stage=None):
        self._infos: dict[tuple, Mapping[str, ColumnInfo]] = {}
        # When no layer the stage uses holds a time sample, no attribute can have one: skip asking.
        self._may_have_samples = stage is None or any(
            layer.ListAllTimeSamples() for layer in stage.GetUsedLayers())

    def infos(self, signature: tuple) -> Mapping[str, ColumnInfo]:
        return self._infos[signature]

    def read(self, prim, type_name: str, applied: tuple[str, ...]) -> RawColumns:
        signature = (type_name, applied)
        infos = self._infos.get(signature)
        if infos is None:
            infos = self._infos[signature] = _build_infos(prim, type_name, applied)
        authored = frozenset(prim.GetAuthoredPropertyNames())
        values, targets = {}, {}
        for name in authored.intersection(infos):
            if infos[name].is_relationship:
                targets[name] = tuple(str(t) for t in prim.GetRelationship(name).GetTargets())
            else:
                attribute = prim.GetAttribute(name)
                value = attribute.Get()
                sampled = self._may_have_samples and attribute.GetNumTimeSamples() > 0
                values[name] = (BLOCKED if value is None else to_python(value), sampled)
        return RawColumns(signature, values, targets, authored)


def _build_infos(prim, type_name: str, applied: tuple[str, ...]) -> Mapping[str, ColumnInfo]:
    definition = prim.GetPrimDefinition()
    owners = _owner_by_property(applied)
    known = frozenset(contract.known_owners())
    infos = {}
    for name in definition.GetPropertyNames():
        owner = owners.get(name, type_name)
        if owner not in known or name in _IGNORED:
            continue  # not a column of the joint contract (geometry, imaging, other APIs)
        is_relationship = definition.GetSchemaRelationshipSpec(name) is not None
        fallback = None if is_relationship else to_python(definition.GetAttributeFallbackValue(name))
        infos[name] = ColumnInfo(name, owner, is_relationship, fallback, contract.producer_value(owner, name))
    return infos


def _owner_by_property(applied: tuple[str, ...]) -> dict[str, str]:
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


class ColumnView:
    """The raw columns of prims as one consumer resolves them."""

    def __init__(self, signatures: Signatures, consumer: str):
        self.signatures = signatures
        self.consumer = consumer
        self._defaults: dict[tuple, dict[str, object]] = {}
        self._unauthored: dict[tuple, dict[str, Resolved]] = {}

    def _prepare(self, signature: tuple) -> None:
        defaults, unauthored = {}, {}
        for name, info in self.signatures.infos(signature).items():
            default = contract.parser_default(self.consumer, info.owner, name)
            defaults[name] = default
            if info.is_relationship:
                unauthored[name] = Resolved(None, Source.MISSING, None, default, info.producer)
            else:
                unauthored[name] = Resolved(info.fallback, Source.FALLBACK, info.fallback, default, info.producer)
        self._defaults[signature] = defaults
        self._unauthored[signature] = unauthored

    def columns(self, raw: RawColumns) -> dict[str, Resolved]:
        """Every column with provenance: unauthored ones shared, authored ones dressed."""
        signature = raw.signature
        if signature not in self._unauthored:
            self._prepare(signature)
        columns = dict(self._unauthored[signature])
        if not raw.values and not raw.targets:
            return columns
        defaults = self._defaults[signature]
        infos = self.signatures.infos(signature)
        for name, (value, time_sampled) in raw.values.items():
            info = infos[name]
            default = defaults[name]
            if value is BLOCKED:
                columns[name] = Resolved(default, Source.BLOCKED, info.fallback, default, info.producer)
            else:
                # the hot path (every authored value, every consumer): build the tuple directly
                columns[name] = _new_resolved(Resolved, (value, _AUTHORED, info.fallback, default, info.producer,
                                                         time_sampled))
        for name, targets in raw.targets.items():
            default = defaults[name]
            if targets:
                columns[name] = Resolved(targets[0], Source.AUTHORED, None, default, infos[name].producer)
            else:
                columns[name] = Resolved(default, Source.BLOCKED, None, default, infos[name].producer)
        return columns


def extra_physics_columns(authored: frozenset[str], columns: Mapping[str, Resolved]) -> tuple[str, ...]:
    """Authored ``physics:``/``drive:``/``limit:`` properties that no applied schema declares."""
    unknown = authored.difference(columns.keys())
    if not unknown:
        return ()
    prefixes = ("physics:", "drive:", "limit:", "state:", "physx")
    return tuple(sorted(n for n in unknown if n.startswith(prefixes)))
