"""Columns of the multiple-apply UsdPhysics joint APIs: drives, D6 limits and joint states.

Names carry ``<inst>`` where the instance goes (``drive:angular:physics:stiffness``). Which
instances each joint type reads is a consumer rule (:mod:`usdjoints.contract.consumers`).
Conversions apply to rotational instances only (angular, rotX, rotY, rotZ).
"""
from __future__ import annotations

from . import shared_divergences as d
from .columns import attribute
from .markers import FLT_MAX, Marker

DRIVE = "PhysicsDriveAPI"
DRIVE_COLUMNS = (
    attribute(
        DRIVE, "drive:<inst>:physics:type", "token", "none",
        ovphysx="force", usdphysics="force", page="PhysicsDriveAPI.md",
        if_absent=(
            "A force drive (gains act on the joint's effort). Only the token acceleration selects "
            "the mass-independent mode; any other token is force."
        ),
    ),
    attribute(
        DRIVE, "drive:<inst>:physics:targetPosition", "float", "rot: deg; trans: length",
        ovphysx=0.0, usdphysics=0.0, page="PhysicsDriveAPI.md", conversion="deg_to_rad",
        if_absent="The drive pulls toward position 0.",
        divergences=(d.STANDALONE_TARGET_VELOCITY_SIGN,),
    ),
    attribute(
        DRIVE, "drive:<inst>:physics:targetVelocity", "float", "rot: deg/s; trans: length/s",
        ovphysx=0.0, usdphysics=0.0, page="PhysicsDriveAPI.md", conversion="deg_to_rad",
        if_absent="The drive damps toward rest.",
        divergences=(d.STANDALONE_TARGET_VELOCITY_SIGN,),
    ),
    attribute(
        DRIVE, "drive:<inst>:physics:stiffness", "float", "rot: torque/deg; trans: force/length",
        ovphysx=0.0, usdphysics=0.0, page="PhysicsDriveAPI.md",
        conversion="angular_gain_per_deg_to_per_rad",
        if_absent="No position spring.",
        divergences=(d.ANGULAR_GAIN_PER_DEGREE,),
    ),
    attribute(
        DRIVE, "drive:<inst>:physics:damping", "float", "rot: torque*s/deg; trans: force*s/length",
        ovphysx=0.0, usdphysics=0.0, page="PhysicsDriveAPI.md",
        conversion="angular_gain_per_deg_to_per_rad",
        if_absent="No velocity damping.",
        divergences=(d.ANGULAR_GAIN_PER_DEGREE,),
    ),
    attribute(
        DRIVE, "drive:<inst>:physics:maxForce", "float", "rot: torque; trans: force",
        ovphysx=FLT_MAX, usdphysics=FLT_MAX, page="PhysicsDriveAPI.md",
        if_absent=(
            "Unlimited effort (unauthored it is inf). Without the DriveAPI instance there is no "
            "drive at all; OpenUSD's parser then reports a disabled drive with limit FLT_MAX."
        ),
        divergences=(d.DRIVE_FORCE_UNBOUNDED,),
    ),
)

LIMIT = "PhysicsLimitAPI"
LIMIT_COLUMNS = (
    attribute(
        LIMIT, "limit:<inst>:physics:low", "float", "rot axes: deg; trans axes and distance: length",
        ovphysx=0.0, usdphysics=90.0, page="PhysicsLimitAPI.md", conversion="deg_to_rad",
        if_absent=(
            "Unauthored it is -inf: no lower bound on that axis. Read only on a prim typed exactly "
            "PhysicsJoint (the D6). The axis is limited when either bound is finite and locked "
            "when low > high; without the instance the axis is free."
        ),
        divergences=(d.D6_LIMIT_ABSENT_LOCKS, d.USD_BLOCKED_LIMIT_INVERTED, d.ARTICULATION_D6_LIMITS_IGNORED),
    ),
    attribute(
        LIMIT, "limit:<inst>:physics:high", "float", "rot axes: deg; trans axes and distance: length",
        ovphysx=0.0, usdphysics=-90.0, page="PhysicsLimitAPI.md", conversion="deg_to_rad",
        if_absent="Unauthored it is inf: no upper bound on that axis. Same absent-column trap as low.",
        divergences=(d.D6_LIMIT_ABSENT_LOCKS, d.USD_BLOCKED_LIMIT_INVERTED, d.ARTICULATION_D6_LIMITS_IGNORED),
    ),
)

STATE = "PhysicsJointStateAPI"
STATE_COLUMNS = (
    attribute(
        STATE, "state:<inst>:physics:position", "float", "rot: deg; trans: length",
        ovphysx=0.0, usdphysics=Marker.NOT_READ, page="PhysicsJointStateAPI.md", conversion="deg_to_rad",
        if_absent=(
            "Initial joint position 0 when the instance is applied; without the instance the "
            "initial state follows the authored body poses."
        ),
        divergences=(d.STATE_ARTICULATION_ONLY,),
    ),
    attribute(
        STATE, "state:<inst>:physics:velocity", "float", "rot: deg/s; trans: length/s",
        ovphysx=0.0, usdphysics=Marker.NOT_READ, page="PhysicsJointStateAPI.md", conversion="deg_to_rad",
        if_absent="Initial joint velocity 0 when the instance is applied.",
        divergences=(d.STATE_ARTICULATION_ONLY,),
    ),
)
