"""Columns of PhysicsJoint (the D6 and the base of every joint type) and of each typed joint.

A typed joint inherits every PhysicsJoint column; the tables here list only what each type
declares itself, and :mod:`usdjoints.contract.index` joins the two.
"""
from __future__ import annotations

from . import shared_divergences as d
from .columns import attribute, relationship
from .markers import FLT_MAX, Marker

BASE = "PhysicsJoint"
_ORIGIN = (0.0, 0.0, 0.0)
_IDENTITY = (1.0, 0.0, 0.0, 0.0)  # (w, x, y, z)


def _body(n: int):
    return relationship(
        BASE, f"physics:body{n}", page="PhysicsJoint.md",
        if_absent=(
            f"Side {n} is the world. Every consumer reads the first target only and resolves it "
            "to the nearest enclosing enabled rigid body; the local frame of a world side is a "
            "world-space frame. OpenUSD's parser makes a joint whose target prim is missing a "
            "world joint too (and that joint may become an articulation root)."
        ),
    )


def _frame(n: int) -> tuple:
    return (
        attribute(
            BASE, f"physics:localPos{n}", "point3f", "length",
            ovphysx=_ORIGIN, usdphysics=_ORIGIN, page="PhysicsJoint.md",
            if_absent=(
                f"The joint frame sits at the origin of body{n}. Lengths stay in stage units; the "
                "resolved body's world scale is multiplied into the position (bodies carry no scale "
                "in PhysX or in OpenUSD's parser)."
            ),
        ),
        attribute(
            BASE, f"physics:localRot{n}", "quatf", "none",
            ovphysx=_IDENTITY, usdphysics=_IDENTITY, page="PhysicsJoint.md",
            if_absent=(
                f"The joint frame has body{n}'s orientation. Consumers normalise the quaternion "
                f"silently. Any axis sign lives here: a reader that drops localRot{n} drops it."
            ),
            divergences=(d.LOCAL_ROT_CTOR_FLIP, d.QUAT_LANES),
        ),
    )


BASE_COLUMNS = (
    _body(0),
    _body(1),
    *_frame(0),
    *_frame(1),
    attribute(
        BASE, "physics:jointEnabled", "bool", "none",
        ovphysx=True, usdphysics=True, page="PhysicsJoint.md",
        if_absent="The joint exists. false removes it from simulation and from the articulation graph.",
    ),
    attribute(
        BASE, "physics:collisionEnabled", "bool", "none",
        ovphysx=False, usdphysics=Marker.UNDEFINED, page="PhysicsJoint.md",
        if_absent="The two jointed bodies do not collide with each other.",
        divergences=(d.USD_COLLISION_UNINITIALISED,),
    ),
    attribute(
        BASE, "physics:breakForce", "float", "mass*length/s^2",
        ovphysx=FLT_MAX, usdphysics=FLT_MAX, page="PhysicsJoint.md",
        if_absent="The joint never breaks under force.",
        divergences=(d.BREAK_UNBOUNDED,),
    ),
    attribute(
        BASE, "physics:breakTorque", "float", "mass*length^2/s^2",
        ovphysx=FLT_MAX, usdphysics=FLT_MAX, page="PhysicsJoint.md",
        if_absent="The joint never breaks under torque.",
        divergences=(d.BREAK_UNBOUNDED,),
    ),
    attribute(
        BASE, "physics:excludeFromArticulation", "bool", "none",
        ovphysx=False, usdphysics=False, page="PhysicsJoint.md",
        if_absent=(
            "The joint may join an articulation (reduced coordinates); a joint with one side on "
            "the world can anchor a fixed base. true keeps it a standalone constraint, the way to "
            "close a kinematic loop."
        ),
    ),
)


def _axis(owner: str, page: str, meaning: str):
    return attribute(
        owner, "physics:axis", "token", "none",
        ovphysx="X", usdphysics="X", page=page,
        if_absent=f"{meaning} local X of the joint frame. Only Y and Z are recognised; any other token means X.",
    )


REVOLUTE = "PhysicsRevoluteJoint"
REVOLUTE_COLUMNS = (
    _axis(REVOLUTE, "PhysicsRevoluteJoint.md", "The hinge turns about"),
    attribute(
        REVOLUTE, "physics:lowerLimit", "float", "deg",
        ovphysx=0.0, usdphysics=90.0, page="PhysicsRevoluteJoint.md", conversion="deg_to_rad",
        if_absent=(
            "Unauthored it is -inf: no lower bound. ovphysx without the column uses 0 and, with "
            "upperLimit also 0, locks the hinge. usdjoints keeps a finite bound on one side only as "
            "a one-sided limit."
        ),
        divergences=(d.REVOLUTE_ABSENT_LOCKS, d.REVOLUTE_ENABLE_RULE, d.USD_BLOCKED_LIMIT_INVERTED),
    ),
    attribute(
        REVOLUTE, "physics:upperLimit", "float", "deg",
        ovphysx=0.0, usdphysics=-90.0, page="PhysicsRevoluteJoint.md", conversion="deg_to_rad",
        if_absent="Unauthored it is inf: no upper bound. Same absent-column trap as lowerLimit.",
        divergences=(d.REVOLUTE_ABSENT_LOCKS, d.REVOLUTE_ENABLE_RULE, d.USD_BLOCKED_LIMIT_INVERTED),
    ),
)

PRISMATIC = "PhysicsPrismaticJoint"
PRISMATIC_COLUMNS = (
    _axis(PRISMATIC, "PhysicsPrismaticJoint.md", "The slider moves along"),
    attribute(
        PRISMATIC, "physics:lowerLimit", "float", "length",
        ovphysx=0.0, usdphysics=90.0, page="PhysicsPrismaticJoint.md",
        if_absent=(
            "Unauthored it is -inf: no lower bound. ovphysx without the column uses 0 and locks the "
            "slider. Every consumer enables a prismatic limit when either bound is finite."
        ),
        divergences=(d.PRISMATIC_ABSENT_LOCKS, d.USD_BLOCKED_LIMIT_INVERTED),
    ),
    attribute(
        PRISMATIC, "physics:upperLimit", "float", "length",
        ovphysx=0.0, usdphysics=-90.0, page="PhysicsPrismaticJoint.md",
        if_absent="Unauthored it is inf: no upper bound. Same absent-column trap as lowerLimit.",
        divergences=(d.PRISMATIC_ABSENT_LOCKS, d.USD_BLOCKED_LIMIT_INVERTED),
    ),
)

SPHERICAL = "PhysicsSphericalJoint"
SPHERICAL_COLUMNS = (
    _axis(SPHERICAL, "PhysicsSphericalJoint.md", "The cone opens around"),
    attribute(
        SPHERICAL, "physics:coneAngle0Limit", "float", "deg",
        ovphysx=0.0, usdphysics=90.0, page="PhysicsSphericalJoint.md", conversion="deg_to_rad",
        if_absent=(
            "Unauthored it is -1: the swing is free. The cone is on only when both half-angles are "
            "finite and non-negative (every consumer)."
        ),
        divergences=(d.CONE_ABSENT_ZERO, d.USD_BLOCKED_CONE),
    ),
    attribute(
        SPHERICAL, "physics:coneAngle1Limit", "float", "deg",
        ovphysx=0.0, usdphysics=-90.0, page="PhysicsSphericalJoint.md", conversion="deg_to_rad",
        if_absent="Unauthored it is -1: the swing is free. See coneAngle0Limit.",
        divergences=(d.CONE_ABSENT_ZERO, d.USD_BLOCKED_CONE),
    ),
)

FIXED = "PhysicsFixedJoint"
FIXED_COLUMNS: tuple = ()

DISTANCE = "PhysicsDistanceJoint"
DISTANCE_COLUMNS = (
    attribute(
        DISTANCE, "physics:minDistance", "float", "length",
        ovphysx=-1.0, usdphysics=90.0, page="PhysicsDistanceJoint.md",
        if_absent="No minimum distance: a bound is on only when it is non-negative.",
        divergences=(d.USD_BLOCKED_MIN_DISTANCE,),
    ),
    attribute(
        DISTANCE, "physics:maxDistance", "float", "length",
        ovphysx=-1.0, usdphysics=-90.0, page="PhysicsDistanceJoint.md",
        if_absent="No maximum distance.",
        divergences=(d.USD_BLOCKED_MAX_DISTANCE,),
    ),
)

RACK = "PhysxPhysicsRackAndPinionJoint"
RACK_COLUMNS = (
    attribute(
        RACK, "physics:ratio", "float", "deg/length",
        ovphysx=0.0, usdphysics=Marker.NOT_READ, page="PhysxPhysicsRackAndPinionJoint.md",
        if_absent=(
            "Unauthored it is 1: the rack moves one length unit per degree of pinion rotation "
            "(rack speed = pinion speed / ratio). ovphysx without the column uses 0 and the "
            "coupling locks."
        ),
        divergences=(d.RACK_RATIO_ZERO, d.COUPLING_FRAMES_REPLACED, d.USD_COUPLINGS_AS_D6),
    ),
    relationship(
        RACK, "physics:hinge", page="PhysxPhysicsRackAndPinionJoint.md", usdphysics=Marker.NOT_READ,
        if_absent="No pinion joint: ovphysx logs an error and creates no coupling.",
    ),
    relationship(
        RACK, "physics:prismatic", page="PhysxPhysicsRackAndPinionJoint.md", usdphysics=Marker.NOT_READ,
        if_absent="No rack joint: ovphysx creates no coupling.",
    ),
)

GEAR = "PhysxPhysicsGearJoint"
GEAR_COLUMNS = (
    attribute(
        GEAR, "physics:gearRatio", "float", "none",
        ovphysx=0.0, usdphysics=Marker.NOT_READ, page="PhysxPhysicsGearJoint.md",
        if_absent=(
            "Unauthored it is 1. The second hinge turns at -gearRatio times the first. ovphysx "
            "without the column uses 0 and the second hinge never moves."
        ),
        divergences=(d.GEAR_RATIO_ZERO, d.COUPLING_FRAMES_REPLACED, d.USD_COUPLINGS_AS_D6),
    ),
    relationship(
        GEAR, "physics:hinge0", page="PhysxPhysicsGearJoint.md", usdphysics=Marker.NOT_READ,
        if_absent="No first hinge: ovphysx logs an error and creates no gear.",
        divergences=(d.GEAR_HINGE_NAMES,),
    ),
    relationship(
        GEAR, "physics:hinge1", page="PhysxPhysicsGearJoint.md", usdphysics=Marker.NOT_READ,
        if_absent="No second hinge: ovphysx creates no gear.",
        divergences=(d.GEAR_HINGE_NAMES,),
    ),
)

#: Typed joint -> its own columns; each inherits :data:`BASE_COLUMNS`.
TYPED_JOINTS = {
    REVOLUTE: REVOLUTE_COLUMNS,
    PRISMATIC: PRISMATIC_COLUMNS,
    SPHERICAL: SPHERICAL_COLUMNS,
    FIXED: FIXED_COLUMNS,
    DISTANCE: DISTANCE_COLUMNS,
    RACK: RACK_COLUMNS,
    GEAR: GEAR_COLUMNS,
}
