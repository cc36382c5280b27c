"""Reading a prim's columns with their provenance.

Many prims share a schema signature (type name plus applied API schemas), so the expensive part
of a column (its owner, raw fallback, producer value and parser default) is worked out once per
signature; per prim only the authored columns are read from USD.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Optional

from .. import contract
from ..provenance import Resolved, Source
from ..contract.registry import to_python

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


class ColumnTable:
    """Column infos per schema signature, for one consumer."""

    def __init__(self, consumer: str):
        self.consumer = consumer
        self._by_signature: dict[tuple, Mapping[str, ColumnInfo]] = {}

    def infos(self, prim, type_name: str, applied: tuple[str, ...]) -> Mapping[str, ColumnInfo]:
        key = (type_name, applied)
        infos = self._by_signature.get(key)
        if infos is None:
            infos = self._build(prim, type_name, applied)
            self._by_signature[key] = infos
        return infos

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


def read_columns(prim, infos: Mapping[str, ColumnInfo], authored: frozenset[str]) -> dict[str, Resolved]:
    """Every column of ``prim`` with provenance; authored ones are read, others shared."""
    columns = {}
    for name, info in infos.items():
        if name not in authored:
            columns[name] = info.unauthored
        elif info.is_relationship:
            targets = prim.GetRelationship(name).GetTargets()
            value = str(targets[0]) if targets else None
            source = Source.AUTHORED if targets else Source.BLOCKED
            columns[name] = Resolved(value if targets else info.parser_default, source,
                                     None, info.parser_default, info.producer)
        else:
            columns[name] = read_attribute(prim.GetAttribute(name), info)
    return columns


def read_attribute(attribute, info: ColumnInfo) -> Resolved:
    """An authored attribute: its value at default time, or the parser default when blocked."""
    value = attribute.Get()
    time_sampled = attribute.GetNumTimeSamples() > 0
    if value is None:
        return Resolved(info.parser_default, Source.BLOCKED, info.fallback, info.parser_default, info.producer)
    return Resolved(to_python(value), Source.AUTHORED, info.fallback, info.parser_default, info.producer,
                    time_sampled)


def extra_physics_columns(prim, infos: Mapping[str, ColumnInfo], authored: frozenset[str]) -> tuple[str, ...]:
    """Authored ``physics:``/``drive:``/``limit:`` properties that no applied schema declares."""
    unknown = authored.difference(infos.keys())
    if not unknown:
        return ()
    prefixes = ("physics:", "drive:", "limit:", "state:", "physx")
    return tuple(sorted(n for n in unknown if n.startswith(prefixes)))


def get_value(columns: Mapping[str, Resolved], name: str, default=None):
    resolved: Optional[Resolved] = columns.get(name)
    return default if resolved is None else resolved.value
