"""Joint limits and drives as each consumer reads them.

Values stay in USD units (degrees, stage lengths, per-degree gains); the consumer rules decide
which instances are read and whether a limit is enabled.
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Mapping

from ..profiles import PROFILES
from ..profiles.base import CLAMP, DISABLE, LOCK
from ..descriptors import Diagnostic, DriveDesc, LimitDesc
from ..provenance import Resolved

# Both parsers treat a bound beyond +-0.5e38 as "no bound" (a float sentinel for infinity).
SENTINEL = 0.5e38


def is_bound(value: float, upper: bool) -> bool:
    """A bound that limits motion: finite and inside the sentinel."""
    if value is None or not math.isfinite(value):
        return False
    return value < SENTINEL if upper else value > -SENTINEL


def typed_limits(joint_type: str, columns: Mapping[str, Resolved], consumer: str, in_articulation: bool,
                 path: str) -> tuple[tuple[LimitDesc, ...], tuple[Diagnostic, ...]]:
    """Limits of revolute, prismatic, spherical and distance joints."""
    diagnostics: list[Diagnostic] = []
    if joint_type in ("revolute", "prismatic"):
        low = float(columns["physics:lowerLimit"].value)
        high = float(columns["physics:upperLimit"].value)
        dof = "angular" if joint_type == "revolute" else "linear"
        profile = PROFILES[consumer]
        enabled = profile.limit_enabled(joint_type, is_bound(low, False), is_bound(high, True))
        one_sided = is_bound(low, False) != is_bound(high, True)
        if joint_type == "revolute" and one_sided:
            low, high, enabled = _one_sided_revolute(low, high, enabled, profile, in_articulation, path, diagnostics)
        if joint_type == "revolute" and enabled and profile.clamps_standalone_revolute(in_articulation):
            low, high = _clamp_half_turn(low, high, profile.standalone_revolute_range, profile.title, path,
                                         diagnostics)
        return (LimitDesc(dof, enabled, low, high),), tuple(diagnostics)
    if joint_type == "spherical":
        angle0 = float(columns["physics:coneAngle0Limit"].value)
        angle1 = float(columns["physics:coneAngle1Limit"].value)
        enabled = math.isfinite(angle0) and math.isfinite(angle1) and angle0 >= 0.0 and angle1 >= 0.0
        return (LimitDesc("cone", enabled, angle0, angle1),), ()
    if joint_type == "distance":
        low = float(columns["physics:minDistance"].value)
        high = float(columns["physics:maxDistance"].value)
        return (LimitDesc("distance", low >= 0.0 or high >= 0.0, low, high),), ()
    return (), ()


def _one_sided_revolute(low, high, enabled, profile, in_articulation, path, diagnostics):
    """A revolute limit with exactly one bound, by the profile's one-sided policy."""
    policy = profile.one_sided_revolute_policy(in_articulation)
    who = profile.title
    if policy == DISABLE:
        diagnostics.append(Diagnostic(
            "warning", path, f"revolute limit has one finite bound: {who} calls it disabled", "one-sided-limit",
            attribute="physics:lowerLimit"))
        return low, high, False
    if policy == LOCK:
        diagnostics.append(Diagnostic(
            "error", path,
            f"revolute limit [{low}, {high}] has one infinite bound inside an articulation: {who} rejects it "
            "(lowLimit must be <= highLimit) and locks the hinge at [0, 0]", "locked-hinge",
            attribute="physics:upperLimit" if high == float("inf") else "physics:lowerLimit"))
        return 0.0, 0.0, True
    if policy == CLAMP:
        clamp = profile.standalone_revolute_clamp
        clamped_low = low if is_bound(low, False) else -clamp
        clamped_high = high if is_bound(high, True) else clamp
        diagnostics.append(Diagnostic(
            "warning", path, f"revolute limit has one infinite bound: {who} clamps it to "
            f"[{clamped_low}, {clamped_high}] deg", "one-sided-limit",
            attribute="physics:lowerLimit"))
        return clamped_low, clamped_high, True
    return low, high, enabled


def _clamp_half_turn(low, high, turn, who, path, diagnostics):
    """A standalone revolute joint's finite bounds beyond +-``turn`` deg, clamped to it: one
    diagnostic per bound, naming its column."""
    bounds = []
    for name, value, upper in (("physics:lowerLimit", low, False), ("physics:upperLimit", high, True)):
        if is_bound(value, upper) and abs(value) > turn:
            clamped = math.copysign(turn, value)
            diagnostics.append(Diagnostic(
                "warning", path, f"{name} = {value:g} deg on a joint outside articulations: {who} clamps it to "
                f"{clamped:g} deg, where it does not hold (the hinge turns on past it)", "limit-beyond-turn",
                attribute=name))
            value = clamped
        bounds.append(value)
    return bounds[0], bounds[1]


def d6_limits(applied: frozenset[str], columns: Mapping[str, Resolved], consumer: str, in_articulation: bool,
              path: str) -> tuple[tuple[LimitDesc, ...], tuple[Diagnostic, ...]]:
    """PhysicsLimitAPI:<inst> on a D6, in the fixed instance order the parsers use."""
    limits = []
    diagnostics: list[Diagnostic] = []
    for instance in PROFILES[consumer].limit_instances["d6"]:
        if f"PhysicsLimitAPI:{instance}" not in applied:
            continue
        low = float(columns[f"limit:{instance}:physics:low"].value)
        high = float(columns[f"limit:{instance}:physics:high"].value)
        # PhysX keeps rotational D6 limits inside articulations (measured: rotX [-10, 10] reads back
        # as authored) and locks every translation; the auditor reports the translations.
        enabled = PROFILES[consumer].limit_enabled("d6", is_bound(low, False), is_bound(high, True))
        limits.append(LimitDesc(instance, enabled, low, high))
    return tuple(limits), tuple(diagnostics)


def drives(joint_type: str, applied: frozenset[str], columns: Mapping[str, Resolved], consumer: str,
           in_articulation: bool, path: str) -> tuple[tuple[DriveDesc, ...], tuple[Diagnostic, ...]]:
    """The PhysicsDriveAPI instances this joint type reads, in the parsers' order."""
    result = []
    diagnostics: list[Diagnostic] = []
    profile = PROFILES[consumer]
    for instance in profile.drive_instances.get(joint_type, ()):
        if f"PhysicsDriveAPI:{instance}" not in applied:
            continue
        if not profile.reads_drive(joint_type, instance, in_articulation):
            diagnostics.append(Diagnostic(
                "warning", path, f"PhysicsDriveAPI:{instance} is ignored: articulation D6 joints have only "
                f"rotational axes in {profile.title}", "articulation-d6-drive"))
            continue
        prefix = f"drive:{instance}:physics:"
        result.append(DriveDesc(
            dof=instance,
            type=str(columns[prefix + "type"].value),
            stiffness=float(columns[prefix + "stiffness"].value),
            damping=float(columns[prefix + "damping"].value),
            max_force=float(columns[prefix + "maxForce"].value),
            target_position=float(columns[prefix + "targetPosition"].value),
            target_velocity=float(columns[prefix + "targetVelocity"].value),
        ))
    return tuple(result), tuple(diagnostics)


@lru_cache(maxsize=None)
def unread_instances(joint_type: str, applied: frozenset[str], consumer: str) -> tuple[str, ...]:
    """Drive and limit instances applied to the prim that this joint type does not read."""
    profile = PROFILES[consumer]
    read = {f"PhysicsDriveAPI:{i}" for i in profile.drive_instances.get(joint_type, ())}
    read |= {f"PhysicsLimitAPI:{i}" for i in profile.limit_instances.get(joint_type, ())}
    return tuple(sorted(s for s in applied if s.startswith(("PhysicsDriveAPI:", "PhysicsLimitAPI:")) and s not in read))
