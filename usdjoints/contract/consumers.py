"""The consumer profiles: how PhysX (ovphysx 0.7), OpenUSD's own parser, our simulator and Newton
read the joints of a stage.

Each profile is data the walker consults; the rules are measured or read from the consumer's
source, and each carries a one-line reason.
"""
from __future__ import annotations

from types import MappingProxyType

from .types import ConsumerProfile

D6_INSTANCES = ("transX", "transY", "transZ", "rotX", "rotY", "rotZ", "distance")
ROTATIONAL_DOFS = frozenset({"angular", "rotX", "rotY", "rotZ", "cone"})

# Which PhysicsDriveAPI instances a joint type reads: the same on all three consumers (the
# UsdPhysics parser and ovphysx both gate per instance; other instances are ignored).
_DRIVE_INSTANCES = MappingProxyType({
    "d6": D6_INSTANCES,
    "revolute": ("angular",),
    "prismatic": ("linear",),
    "spherical": (),
    "fixed": (),
    "distance": (),
    "rack_and_pinion": (),
    "gear": (),
    "custom": (),
})

# Which PhysicsLimitAPI instances a joint type reads: only the D6; typed joints have columns.
_LIMIT_INSTANCES = MappingProxyType({
    "d6": D6_INSTANCES,
    "revolute": (), "prismatic": (), "spherical": (), "fixed": (), "distance": (),
    "rack_and_pinion": (), "gear": (), "custom": (),
})

# PhysxJointAxisAPI:<dof> columns behind the per-dof passive values (PhysX and usdjoints read them).
_PHYSX_AXIS_COLUMNS = MappingProxyType({
    "velocity_limit": "physxJointAxis:{dof}:maxJointVelocity",
    "armature": "physxJointAxis:{dof}:armature",
    "friction": "physxJointAxis:{dof}:staticFrictionEffort",
})

OVPHYSX = ConsumerProfile(
    name="ovphysx",
    description="PhysX through ovphysx 0.7: reads what USD population writes (the resolved USD value).",
    limit_enable_rule="or",
    drive_instances=_DRIVE_INSTANCES,
    limit_instances=_LIMIT_INSTANCES,
    reads_unauthored_as="producer",
    notes=(
        "A revolute/prismatic/D6 limit is on when either bound is finite and inside +-0.5e38.",
        "Inside an articulation a revolute limit with one infinite bound is rejected and the hinge is locked at [0, 0].",
        "Standalone, an infinite revolute bound is clamped to +-180 deg.",
        "Articulation D6 joints apply no limits and ignore translational drives.",
        "Body relationships resolve to the nearest enclosing enabled rigid body; a side with none is the world and its frame is used verbatim.",
        "Rotational gains are multiplied by 180/pi and targets converted to radians when read.",
    ),
    dof_columns=_PHYSX_AXIS_COLUMNS,
    articulation_d6_rotational_only=True,
)

USDPHYSICS = ConsumerProfile(
    name="usdphysics",
    description="OpenUSD's own parser, UsdPhysics.LoadUsdPhysicsFromRange.",
    limit_enable_rule="and",  # for revolute only; prismatic and D6 use "or" (see limits.py)
    drive_instances=_DRIVE_INSTANCES,
    limit_instances=_LIMIT_INSTANCES,
    reads_unauthored_as="usd",
    notes=(
        "A revolute limit is on only when both bounds are finite; prismatic and D6 limits when either is.",
        "Body relationships resolve to the nearest ancestor with PhysicsRigidBodyAPI, enabled or not, else the topmost collider.",
        "A frame on a non-body target is lifted through the target's transform into the body (or world) frame.",
        "PhysX rack-and-pinion and gear joints are reported as D6 joints unless custom joint tokens are given.",
    ),
)

USDJOINTS = ConsumerProfile(
    name="usdjoints",
    description="The usdjoints simulator: the USD value, with one-sided limits taken as one-sided.",
    limit_enable_rule="or",
    drive_instances=_DRIVE_INSTANCES,
    limit_instances=_LIMIT_INSTANCES,
    reads_unauthored_as="usd",
    notes=(
        "A limit is on when either bound is finite; an infinite bound leaves that side open.",
        "Body relationships resolve to the nearest enclosing enabled rigid body; frames on other targets are lifted through the target.",
    ),
    dof_columns=_PHYSX_AXIS_COLUMNS,
)

NEWTON = ConsumerProfile(
    name="newton",
    description="Newton 1.8 (ModelBuilder.add_usd): OpenUSD's parser, then Newton's own rules, by degree of freedom.",
    limit_enable_rule="or",  # typed joints keep each finite bound; D6 axes follow the parser's limit
    drive_instances=_DRIVE_INSTANCES,
    limit_instances=_LIMIT_INSTANCES,
    reads_unauthored_as="usd",
    notes=(
        "Joints, bodies and limits are read through OpenUSD's parser; stage units are not applied.",
        "An infinite revolute or prismatic bound becomes 1e10 (rad or m); a one-sided limit stays one-sided.",
        "A D6 axis is a dof only with a PhysicsLimitAPI and low < high; other axes are locked and their drives dropped.",
        "Revolute and prismatic joints sharing a body pair become one D6 named after the first by path.",
        "The world is always the parent; a floating base or a lone body gets a free joint.",
        "Disabled, gear and rack-and-pinion joints are not built; several other shapes make Newton refuse the stage.",
        "Armature, friction and velocity limit come from newton:* attributes only (PhysxJointAxisAPI is not read).",
    ),
    reads_through="usdphysics",
    refine="usdjoints.walker.newton:refine",
)

PROFILES = MappingProxyType({p.name: p for p in (OVPHYSX, USDPHYSICS, USDJOINTS, NEWTON)})


def profile(name: str) -> ConsumerProfile:
    from ..errors import UsageError

    try:
        return PROFILES[name]
    except KeyError:
        raise UsageError(f"unknown consumer {name!r}: choose one of {', '.join(PROFILES)}") from None
