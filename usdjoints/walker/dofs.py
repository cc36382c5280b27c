"""The per-dof view of a joint: the degrees of freedom a consumer builds for it, in its order.

Values stay in USD units (degrees, stage lengths, per-degree gains, deg/s) and carry where they
came from. This module holds the reading shared by the consumers that keep one joint per prim
(PhysX, OpenUSD's parser, usdjoints); a consumer with its own rules (Newton) replaces it in its
profile's refinement.
"""
from __future__ import annotations

import math
from typing import Optional

from ..profiles.base import Profile as ConsumerProfile
from ..descriptors import DofDesc, DofValue, JointDesc, StageDescription
from ..provenance import Resolved

D6_AXES = ("transX", "transY", "transZ", "rotX", "rotY", "rotZ")
SPHERICAL_AXES = ("rotX", "rotY", "rotZ")
# A distance joint leaves all six relative motions free; its first dof is the distance itself.
DISTANCE_DOFS = ("distance", "linear1", "linear2", "rotX", "rotY", "rotZ")
ROTATIONAL = frozenset({"angular", "rotX", "rotY", "rotZ"})

NOT_READ = DofValue(None, "not_read")


def value(resolved: Optional[Resolved], default: Optional[float] = None) -> DofValue:
    """A column as a dof value; ``default`` (source "default") when the column is absent."""
    if resolved is None or resolved.value is None:
        return DofValue(default, "default") if default is not None else NOT_READ
    return DofValue(float(resolved.value), str(resolved.source))


def default(number: float) -> DofValue:
    return DofValue(number, "default")


def joint_dropped(joint: JointDesc) -> bool:
    """A joint no consumer builds: disabled, or with the world on both sides."""
    return not joint.enabled or (joint.body0 is None and joint.body1 is None)


def dof_names(joint: JointDesc, profile: ConsumerProfile) -> tuple[str, ...]:
    """The dofs of ``joint`` for a consumer that keeps one joint per prim."""
    if joint.type == "revolute":
        return ("angular",)
    if joint.type == "prismatic":
        return ("linear",)
    if joint.type == "spherical":
        return SPHERICAL_AXES
    if joint.type == "distance":
        return DISTANCE_DOFS
    if joint.type == "d6":
        locked = {limit.dof for limit in joint.limits if limit.enabled and limit.low > limit.high}
        axes = [axis for axis in D6_AXES if axis not in locked]
        if not profile.articulation_d6_translational_drives and joint.articulation is not None:
            # the consumer's articulation D6 joints have rotational axes only (PhysX)
            axes = [axis for axis in axes if axis.startswith("rot")]
        return tuple(axes)
    return ()  # fixed, couplings and custom joints add no dof of their own


def generic_dof(joint: JointDesc, name: str, profile: ConsumerProfile) -> DofDesc:
    """One dof of a joint as PhysX, OpenUSD's parser or usdjoints hold it."""
    columns = joint.columns
    rotational = name in ROTATIONAL
    lower, upper = default(-math.inf), default(math.inf)
    limit_dof = {"angular": "angular", "linear": "linear"}.get(name, name)
    if joint.type == "spherical":
        lower = upper = NOT_READ  # a cone limit bounds no single axis
    for limit in joint.limits:
        if limit.dof != limit_dof or not limit.enabled:
            continue
        if joint.type in ("revolute", "prismatic"):
            low_col, high_col = columns.get("physics:lowerLimit"), columns.get("physics:upperLimit")
        elif joint.type == "distance":
            low_col, high_col = columns.get("physics:minDistance"), columns.get("physics:maxDistance")
        else:
            low_col = columns.get(f"limit:{name}:physics:low")
            high_col = columns.get(f"limit:{name}:physics:high")
        lower = _bound(limit.low, low_col)
        upper = _bound(limit.high, high_col)
    drive = next((d for d in joint.drives if d.dof == name), None)
    if drive is not None:
        prefix = f"drive:{name}:physics:"
        ke = _bound(drive.stiffness, columns.get(prefix + "stiffness"))
        kd = _bound(drive.damping, columns.get(prefix + "damping"))
        effort = _bound(drive.max_force, columns.get(prefix + "maxForce"))
    else:
        ke, kd, effort = default(0.0), default(0.0), default(math.inf)
    passive = {}
    for field_name, fallback in (("velocity_limit", math.inf), ("armature", 0.0), ("friction", 0.0)):
        template = profile.dof_columns.get(field_name)
        if template is None:
            passive[field_name] = NOT_READ
        else:
            passive[field_name] = value(columns.get(template.format(dof=name)), fallback)
    return DofDesc(name, joint.path, rotational, lower, upper, ke, kd, effort, **passive)


def _bound(number: float, column: Optional[Resolved]) -> DofValue:
    """A value the walker resolved, labelled with its column's source when it is that column's value."""
    if column is not None and column.value is not None and _same(column.value, number):
        return DofValue(float(number), str(column.source))
    return DofValue(float(number), "default")


def _same(a, b) -> bool:
    try:
        return float(a) == float(b) or (math.isnan(float(a)) and math.isnan(float(b)))
    except (TypeError, ValueError):
        return False


def with_generic_dofs(description: StageDescription, profile: ConsumerProfile) -> StageDescription:
    """Fill every joint's per-dof view of the description the walker is building, the
    one-joint-per-prim way, and return it.

    Joints that read alike (same type, limits, drives, articulation membership and passive columns)
    share one computed view: a stage of repeated joints pays for one of each."""
    cache: dict = {}
    templates = tuple(profile.dof_columns.values())
    for joint in description.joints:
        dropped = joint_dropped(joint)
        if dropped:
            _with_view(joint, (), True)
            continue
        columns = joint.columns
        names = list(_limit_columns(joint.type))
        for limit in joint.limits:
            names += (f"limit:{limit.dof}:physics:low", f"limit:{limit.dof}:physics:high")
        for drive in joint.drives:
            names += (f"drive:{drive.dof}:physics:stiffness", f"drive:{drive.dof}:physics:damping",
                      f"drive:{drive.dof}:physics:maxForce")
        names += [t.format(dof=d) for t in templates for d in _column_dofs(joint.type)]
        key = (joint.type, joint.limits, joint.drives, joint.articulation is None,
               tuple(_column_key(columns, name) for name in names))
        dofs = cache.get(key)
        if dofs is None:
            dofs = cache[key] = tuple(generic_dof(joint, name, profile) for name in dof_names(joint, profile))
        if dofs and dofs[0].source != joint.path:
            dofs = tuple(d._replace(source=joint.path) for d in dofs)
        _with_view(joint, dofs, False)
    return description


def _column_key(columns, name: str):
    column = columns.get(name)
    return None if column is None else (column.value, column.source)


def _limit_columns(joint_type: str) -> tuple[str, ...]:
    if joint_type in ("revolute", "prismatic"):
        return ("physics:lowerLimit", "physics:upperLimit")
    if joint_type == "distance":
        return ("physics:minDistance", "physics:maxDistance")
    return ()


def _column_dofs(joint_type: str) -> tuple[str, ...]:
    return {"revolute": ("angular",), "prismatic": ("linear",), "spherical": SPHERICAL_AXES,
            "distance": DISTANCE_DOFS, "d6": D6_AXES}.get(joint_type, ())


def _with_view(joint: JointDesc, dofs, dropped: bool) -> JointDesc:
    """``joint`` with its per-dof view set. The walker calls this while it still builds the
    description (each JointDesc is new and not yet shared), so the fields are set in place rather
    than by copying the descriptor: a copy per joint cost a tenth of a walk."""
    object.__setattr__(joint, "dofs", dofs)
    object.__setattr__(joint, "dropped", dropped)
    object.__setattr__(joint, "merged_into", None)
    return joint


def dof_json(dof: DofDesc) -> dict:
    out = {"dof": dof.dof, "source": dof.source, "rotational": dof.rotational}
    for name in ("limit_lower", "limit_upper", "target_ke", "target_kd", "effort_limit", "velocity_limit",
                 "armature", "friction"):
        item = getattr(dof, name)
        out[name] = {"value": item.value, "source": item.source}
    return out
