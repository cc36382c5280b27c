"""Known disagreements between schema, producer and consumers, shared by several columns.

Each effect starts with the consumer it concerns. Pages name where the fact was recorded: the
ovphysx 0.7 contract pages (``*.md``), ``FACTS.md`` (measured on this project's machines) or
OpenUSD's parser source (``usdPhysics/parseDesc.h``), whose descriptor defaults survive when
an attribute's value is blocked.
"""
from __future__ import annotations

from .types import Divergence

USD_PARSER_PAGE = "usdPhysics/parseDesc.h"

BREAK_UNBOUNDED = Divergence(
    "note", "consumer",
    "ovphysx and usdphysics: an absent (ovphysx) or blocked (usdphysics) break limit reads as "
    "FLT_MAX while the schema fallback is inf; both mean unbreakable, PhysX maps any non-finite "
    "break limit to FLT_MAX, so no simulation differs.",
    "PhysicsJoint.md",
)
LOCAL_ROT_CTOR_FLIP = Divergence(
    "fragile", "consumer",
    "ovphysx: the joint descriptor's own constructor default is a half turn about X, not identity; "
    "it is hidden only because the base fields are always copied over it.",
    "PhysicsJoint.md",
)
QUAT_LANES = Divergence(
    "note", "producer",
    "ovphysx: USD population publishes quaternion lanes as (x, y, z, w) while USD authors "
    "(w, x, y, z); a hand-written population in USD order yields a wrong frame silently.",
    "PhysicsJoint.md",
)
USD_COLLISION_UNINITIALISED = Divergence(
    "fragile", "consumer",
    "usdphysics: the joint descriptor never initialises collisionEnabled, so a blocked value "
    "leaves whatever the memory held (true was seen on usd-core 26.11).",
    USD_PARSER_PAGE,
)
REVOLUTE_ABSENT_LOCKS = Divergence(
    "defect", "consumer",
    "ovphysx: with lowerLimit/upperLimit absent both bounds read 0 and the either-bound-finite "
    "rule turns the limit on at [0, 0]: the hinge is locked. USD population writes -inf/inf, so "
    "only hand-populated stages are hit.",
    "PhysicsRevoluteJoint.md",
)
REVOLUTE_ENABLE_RULE = Divergence(
    "fragile", "consumer",
    "ovphysx enables a revolute limit when either bound is finite, usdphysics only when both "
    "are: lowerLimit -30 with upperLimit inf is limited in ovphysx (inside an articulation it "
    "errors and locks at [0, 0]; standalone the upper bound is clamped to 180 deg) and free in "
    "usdphysics. usdjoints treats it as a true one-sided limit.",
    "FACTS.md",
)
PRISMATIC_ABSENT_LOCKS = Divergence(
    "defect", "consumer",
    "ovphysx: with lowerLimit/upperLimit absent both bounds read 0 and the limit is on at [0, 0]: "
    "the slider is locked. Hidden on USD-populated stages, which carry -inf/inf.",
    "PhysicsPrismaticJoint.md",
)
USD_BLOCKED_LIMIT_INVERTED = Divergence(
    "defect", "consumer",
    "usdphysics: a blocked bound keeps the descriptor default (lower 90, upper -90). Both blocked "
    "gives an enabled, inverted limit [90, -90]; one blocked gives a bogus finite bound.",
    USD_PARSER_PAGE,
)
CONE_ABSENT_ZERO = Divergence(
    "defect", "consumer",
    "ovphysx: absent cone angles read 0, which passes the both-non-negative rule; PhysX then "
    "rejects the zero cone as invalid and applies no swing limit. USD population writes -1 "
    "(free), hiding it on USD-populated stages.",
    "PhysicsSphericalJoint.md",
)
USD_BLOCKED_CONE = Divergence(
    "note", "consumer",
    "usdphysics: a blocked cone angle keeps the descriptor default (90 for angle 0, -90 for "
    "angle 1); a negative angle disables the cone, so blocking angle 1 frees the swing.",
    USD_PARSER_PAGE,
)
USD_BLOCKED_MIN_DISTANCE = Divergence(
    "defect", "consumer",
    "usdphysics: a blocked minDistance keeps the descriptor default 90, which is non-negative and "
    "so enables a minimum distance of 90 stage units.",
    USD_PARSER_PAGE,
)
USD_BLOCKED_MAX_DISTANCE = Divergence(
    "note", "consumer",
    "usdphysics: a blocked maxDistance keeps the descriptor default -90, which disables the "
    "maximum like the fallback -1 does.",
    USD_PARSER_PAGE,
)
RACK_RATIO_ZERO = Divergence(
    "defect", "consumer",
    "ovphysx: an absent ratio reads 0 instead of the fallback 1; the coupling degenerates and the "
    "driven joint never moves. USD population writes 1.",
    "PhysxPhysicsRackAndPinionJoint.md",
)
GEAR_RATIO_ZERO = Divergence(
    "defect", "consumer",
    "ovphysx: an absent gearRatio reads 0 instead of the fallback 1; the second hinge never "
    "turns. USD population writes 1.",
    "PhysxPhysicsGearJoint.md",
)
COUPLING_FRAMES_REPLACED = Divergence(
    "note", "consumer",
    "ovphysx: a rack or gear joint's own local frames are ignored; the runtime uses the frames of "
    "the referenced hinge/prismatic joints instead.",
    "PhysxPhysicsRackAndPinionJoint.md",
)
USD_COUPLINGS_AS_D6 = Divergence(
    "note", "consumer",
    "usdphysics: without custom joint tokens a rack or gear prim is reported as a free D6 joint "
    "(base columns only); its ratio and joint relationships are never read.",
    "FACTS.md",
)
GEAR_HINGE_NAMES = Divergence(
    "note", "consumer",
    "ovphysx: hinges authored as physxGearJoint:hinge0/1 (a spelling seen in documentation) are "
    "ignored and no gear is created; only physics:hinge0/1 are read.",
    "FACTS.md",
)
DRIVE_FORCE_UNBOUNDED = Divergence(
    "note", "consumer",
    "ovphysx reads an absent maxForce as FLT_MAX and maps inf to FLT_MAX; usdphysics reports inf "
    "when DriveAPI is applied with maxForce unauthored, FLT_MAX when it is blocked or no DriveAPI "
    "is applied. All mean unlimited.",
    "FACTS.md",
)
ANGULAR_GAIN_PER_DEGREE = Divergence(
    "note", "consumer",
    "ovphysx: rotational stiffness and damping are per degree in USD and are multiplied by "
    "180/pi for PhysX; writing per-radian gains into USD makes drives 57.3 times too weak.",
    "PhysicsDriveAPI.md",
)
STANDALONE_TARGET_VELOCITY_SIGN = Divergence(
    "note", "consumer",
    "ovphysx: on a standalone revolute joint the runtime negates the angular target velocity; "
    "inside an articulation targets are negated when body0 is not the parent link.",
    "PhysicsRevoluteJoint.md",
)
D6_LIMIT_ABSENT_LOCKS = Divergence(
    "defect", "consumer",
    "ovphysx: a PhysicsLimitAPI instance with low/high absent reads [0, 0] and locks that axis; "
    "USD population writes -inf/inf and leaves it free.",
    "PhysicsLimitAPI.md",
)
ARTICULATION_D6_LIMITS_IGNORED = Divergence(
    "note", "consumer",
    "ovphysx: inside an articulation a D6 joint becomes a spherical joint with its rotational axes "
    "free; PhysicsLimitAPI instances are not applied there.",
    "PhysicsLimitAPI.md",
)
STATE_ARTICULATION_ONLY = Divergence(
    "note", "consumer",
    "ovphysx: joint states only seed articulation joints; on a standalone joint they are ignored "
    "with a warning, and they are never read for spherical joints.",
    "PhysicsJointStateAPI.md",
)
LIMIT_RESTITUTION_UNCLAMPED = Divergence(
    "fragile", "consumer",
    "ovphysx: restitution above 1 is not clamped and produces an invalid PhysX limit.",
    "PhysxLimitAPI.md",
)
LIMIT_BOUNCE_UNCONVERTED = Divergence(
    "note", "consumer",
    "ovphysx: angular bounce thresholds are declared in deg/s but reach PhysX unconverted, where "
    "they are read as rad/s.",
    "PhysxLimitAPI.md",
)
AXIS_ZERO_CANNOT_CLEAR_SEED = Divergence(
    "fragile", "consumer",
    "ovphysx: only a strictly positive (or, for maxJointVelocity, finite) value overrides a "
    "Newton-schema seed on the same axis; an explicit 0 (or unlimited) cannot clear it.",
    "PhysxJointAxisAPI.md",
)
AXIS_VELOCITY_REWRITTEN = Divergence(
    "note", "producer",
    "ovphysx: USD population writes FLT_MAX for an unauthored maxJointVelocity instead of the "
    "fallback inf; both mean unlimited.",
    "PhysxJointAxisAPI.md",
)
ARTICULATION_STABILIZATION_COEFFICIENT = Divergence(
    "defect", "consumer",
    "ovphysx: the absent-column default uses coefficient 1e-2 where the schema states 1e-5, a "
    "factor 1000 beyond the units scaling.",
    "PhysxArticulationAPI.md",
)
ARTICULATION_THRESHOLDS_UNSCALED = Divergence(
    "defect", "",
    "ovphysx: USD population writes the raw fallbacks without units scaling and the consumer uses "
    "them as given, while an absent column gets a units-scaled default: the two paths disagree on "
    "every stage, by 1/metersPerUnit^2.",
    "PhysxArticulationAPI.md",
)
MASS_UNSET_SENTINEL = Divergence(
    "note", "consumer",
    "ovphysx: an absent column reads -1 (unset) where the schema fallback is 0; both mean "
    "'compute from geometry and density'.",
    "PhysicsMassAPI.md",
)
PRINCIPAL_AXES_IDENTITY = Divergence(
    "note", "consumer",
    "ovphysx: an absent principalAxes reads as identity while the schema fallback (0, 0, 0, 0) "
    "is the 'unset' sentinel; both end with the computed or identity frame.",
    "PhysicsMassAPI.md",
)
UNITS_ABSENT_SI = Divergence(
    "note", "consumer",
    "ovphysx: a stage without metersPerUnit is read as 1 (meters) while USD's fallback is 0.01 "
    "(centimeters); USD population always writes the resolved value, so only hand-populated "
    "stages simulate at the wrong scale.",
    "stage_units.md",
)
UP_AXIS_ABSENT_Z = Divergence(
    "note", "consumer",
    "ovphysx: a missing upAxis means Z-up while USD's fallback is Y; only the token Y selects "
    "Y-up there.",
    "stage_units.md",
)
NESTED_ROOTS_REJECTED = Divergence(
    "note", "consumer",
    "ovphysx: an articulation root inside another root's subtree is rejected with an error.",
    "PhysicsArticulationRootAPI.md",
)
