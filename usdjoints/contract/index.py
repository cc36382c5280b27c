"""The contract tables joined into lookups: owners, inheritance, instance names, resolved defaults.

Built once on first use; every query afterwards is a dict lookup (the walker asks for a parser
default per column per joint).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Optional

from ..errors import UsageError
from . import articulation, bodies, joint_apis, joints, physx_joint_apis, stage
from .markers import Marker
from .registry import raw_fallback
from .types import ColumnSpec, Divergence, Producer

#: Owner -> the columns it declares itself, in display order.
OWN_COLUMNS: dict[str, tuple[ColumnSpec, ...]] = {
    joints.BASE: joints.BASE_COLUMNS,
    **joints.TYPED_JOINTS,
    joint_apis.DRIVE: joint_apis.DRIVE_COLUMNS,
    joint_apis.LIMIT: joint_apis.LIMIT_COLUMNS,
    joint_apis.STATE: joint_apis.STATE_COLUMNS,
    physx_joint_apis.PHYSX_LIMIT: physx_joint_apis.PHYSX_LIMIT_COLUMNS,
    physx_joint_apis.JOINT_AXIS: physx_joint_apis.JOINT_AXIS_COLUMNS,
    physx_joint_apis.MIMIC: physx_joint_apis.MIMIC_COLUMNS,
    articulation.ROOT: articulation.ROOT_COLUMNS,
    articulation.PHYSX_ARTICULATION: articulation.PHYSX_ARTICULATION_COLUMNS,
    bodies.RIGID_BODY: bodies.RIGID_BODY_COLUMNS,
    bodies.MASS: bodies.MASS_COLUMNS,
    stage.STAGE: stage.STAGE_COLUMNS,
}

#: Typed joint -> the type whose columns it inherits.
PARENT: dict[str, str] = {name: joints.BASE for name in joints.TYPED_JOINTS}

_ALL: dict[str, tuple[ColumnSpec, ...]] = {
    owner: (OWN_COLUMNS[PARENT[owner]] if owner in PARENT else ()) + own
    for owner, own in OWN_COLUMNS.items()
}
_BY_NAME: dict[tuple[str, str], ColumnSpec] = {
    (owner, spec.name): spec for owner, specs in _ALL.items() for spec in specs
}
_TEMPLATES: dict[str, tuple[tuple[str, str, str], ...]] = {
    owner: tuple(
        (spec.name, *spec.name.split("<inst>", 1)) for spec in specs if spec.multiple_apply
    )
    for owner, specs in _ALL.items()
}
_resolved_defaults: dict[tuple[str, str, str], Any] = {}


def known_owners() -> tuple[str, ...]:
    """Every type, API and block the contract covers (``"stage"`` for the stage units)."""
    return tuple(_ALL)


def _check_owner(owner: str) -> None:
    if owner not in _ALL:
        raise UsageError(f"unknown type or API {owner!r}; known: {', '.join(_ALL)}")


def columns_for(type_or_api: str) -> tuple[ColumnSpec, ...]:
    """Every column of a type or API; a typed joint lists the inherited PhysicsJoint columns first."""
    _check_owner(type_or_api)
    return _ALL[type_or_api]


@lru_cache(maxsize=4096)
def _split_instance(owner: str, name: str) -> tuple[str, Optional[str]]:
    """``drive:angular:physics:stiffness`` -> (``drive:<inst>:physics:stiffness``, ``angular``)."""
    for template, prefix, suffix in _TEMPLATES.get(owner, ()):
        middle_end = len(name) - len(suffix)
        if name.startswith(prefix) and name.endswith(suffix) and middle_end > len(prefix):
            instance = name[len(prefix):middle_end]
            if ":" not in instance:
                return template, instance
    return name, None


def column(owner_or_type: str, name: str) -> ColumnSpec:
    """The column ``name`` of a type or API; a concrete instance name finds its template."""
    spec = _BY_NAME.get((owner_or_type, name))
    if spec is not None:
        return spec
    _check_owner(owner_or_type)
    template, _ = _split_instance(owner_or_type, name)
    spec = _BY_NAME.get((owner_or_type, template))
    if spec is None:
        raise UsageError(f"{owner_or_type} has no column {name!r}; `usdjoints columns {owner_or_type}` lists them")
    return spec


def _resolve(value: Any, spec: ColumnSpec) -> Any:
    if value is Marker.FALLBACK or value is Producer.RESOLVED:
        return raw_fallback(spec.owner, spec.name)
    if value is Producer.NOT_WRITTEN:
        return None
    return value


def parser_default(consumer: str, type_or_api: str, name: str) -> Any:
    """What ``consumer`` uses when the column is absent; schema-fallback rules resolved live.

    Returns a value, None (no target / feature absent), a :class:`Marker` (NOT_READ,
    NOT_RECORDED, UNDEFINED) or a :class:`UnitsScaled` (evaluate with ``.at(metersPerUnit)``).
    """
    key = (consumer, type_or_api, name)
    try:
        return _resolved_defaults[key]
    except KeyError:
        pass
    from ..profiles import PROFILES

    if consumer not in PROFILES:
        raise UsageError(f"unknown consumer {consumer!r}; known: {', '.join(PROFILES)}")
    spec = column(type_or_api, name)
    chosen = PROFILES[consumer]
    overrides = chosen.parser_default_overrides
    if (spec.owner, spec.name) in overrides:
        value = _resolve(overrides[(spec.owner, spec.name)], spec)
    else:
        value = _resolve(spec.parser_defaults[chosen.parser_default_key()], spec)
    _resolved_defaults[key] = value
    return value


def producer_value(type_or_api: str, name: str, instance: Optional[str] = None) -> Any:
    """What USD population writes for an unauthored column (None: it writes nothing).

    ``instance`` is accepted for symmetry with concrete names; every instance of a
    multiple-apply API shares the template's fallback.
    """
    spec = column(type_or_api, name if instance is None else name.replace("<inst>", instance))
    return _resolve(spec.producer, spec)


def divergences(type_or_api: Optional[str] = None) -> tuple[tuple[ColumnSpec, Divergence], ...]:
    """(column, divergence) pairs of one type or API (inherited columns included) or of all."""
    if type_or_api is None:
        specs = [spec for own in OWN_COLUMNS.values() for spec in own]
    else:
        specs = list(columns_for(type_or_api))
    return tuple((spec, div) for spec in specs for div in spec.divergences)
