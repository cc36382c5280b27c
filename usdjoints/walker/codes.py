"""Every diagnostic code the walker emits, with the severities it is emitted at.

A code is the stable identifier of a :class:`~usdjoints.descriptors.Diagnostic`; the auditor
maps each to one rule (tests/auditor/test_codes.py checks that every code here has a rule whose
listed severity is this one, and that the walker's sources use no code missing from here).
"""
from __future__ import annotations

# walker: authoring and values
INVALID_VALUE_TYPE = "invalid-value-type"
INVALID_XFORM_OP = "invalid-xform-op"
INVALID_STAGE_UNITS = "invalid-stage-units"
NOT_A_JOINT = "not-a-joint"
NON_FINITE = "non-finite"
NON_UNIT_QUATERNION = "non-unit-quaternion"
SEVERAL_TARGETS = "several-targets"
UNKNOWN_COUPLING_RELATIONSHIP = "unknown-coupling-relationship"
# bodies
DANGLING_BODY = "dangling-body"
TARGET_NOT_BODY = "target-not-body"
TARGET_CHILD_PRIM = "target-child-prim"
SAME_BODY = "same-body"
NO_BODY = "no-body"
MIRRORED_BODY = "mirrored-body"
# limits, drives, couplings
ONE_SIDED_LIMIT = "one-sided-limit"
LOCKED_HINGE = "locked-hinge"
LIMIT_BEYOND_TURN = "limit-beyond-turn"
ARTICULATION_D6_DRIVE = "articulation-d6-drive"
UNREAD_INSTANCE = "unread-instance"
NAMELESS_INSTANCE = "nameless-instance"
COUPLING_MISSING_RELATIONSHIP = "coupling-missing-relationship"
COUPLING_ZERO_RATIO = "coupling-zero-ratio"
COUPLING_UNSEEN = "coupling-unseen"
# articulations
ARTICULATION_LOOP = "articulation-loop"
ARTICULATION_REFUSED = "articulation-refused"
EMPTY_ARTICULATION = "empty-articulation"
NESTED_ROOT = "nested-root"
ROOT_ON_NON_LINK = "root-on-non-link"
WELDED_ANCHOR = "welded-anchor"
KINEMATIC_LINK = "kinematic-link"
# mass and colliders (walker/mass.py, walker/scene.py)
COLLIDER_NO_MASS = "collider-no-mass"
NO_MASS_NO_COLLIDER = "no-mass-no-collider"
# Newton's reading (walker/newton.py, walker/newton_mimics.py)
NEWTON_REFUSES_STAGE = "newton-refuses-stage"
NEWTON_UNITS_IGNORED = "newton-units-ignored"
NEWTON_JOINT_DROPPED = "newton-joint-dropped"
NEWTON_FLIPPED = "newton-flipped"
NEWTON_ACCELERATION_DRIVE = "newton-acceleration-drive"
NEWTON_CONE_IGNORED = "newton-cone-ignored"
NEWTON_MERGED = "newton-merged"
NEWTON_NESTED_ROOT = "newton-nested-root"
NEWTON_UNPREDICTED = "newton-unpredicted"
NEWTON_MIMIC_SKIPPED = "newton-mimic-skipped"
NEWTON_D6_AXIS_LOCKED = "newton-d6-axis-locked"
SEVERITY: dict[str, tuple[str, ...]] = {  # code -> the severities it is emitted at, worst first
    INVALID_VALUE_TYPE: ("error",), INVALID_XFORM_OP: ("error",), INVALID_STAGE_UNITS: ("error",), NOT_A_JOINT: ("error",),
    NON_FINITE: ("error",), NON_UNIT_QUATERNION: ("warning",), SEVERAL_TARGETS: ("warning",),
    UNKNOWN_COUPLING_RELATIONSHIP: ("error",),
    DANGLING_BODY: ("error",), TARGET_NOT_BODY: ("warning",), TARGET_CHILD_PRIM: ("info",), SAME_BODY: ("error",),
    NO_BODY: ("warning",), MIRRORED_BODY: ("warning",),
    ONE_SIDED_LIMIT: ("warning",), LOCKED_HINGE: ("error",), LIMIT_BEYOND_TURN: ("warning",),
    ARTICULATION_D6_DRIVE: ("warning",), UNREAD_INSTANCE: ("warning",), NAMELESS_INSTANCE: ("warning",),
    COUPLING_MISSING_RELATIONSHIP: ("error",),
    COUPLING_ZERO_RATIO: ("error",), COUPLING_UNSEEN: ("info",),
    ARTICULATION_LOOP: ("error",), ARTICULATION_REFUSED: ("error",), EMPTY_ARTICULATION: ("warning",),
    NESTED_ROOT: ("error", "warning"), ROOT_ON_NON_LINK: ("error",), WELDED_ANCHOR: ("error",), KINEMATIC_LINK: ("warning",),
    COLLIDER_NO_MASS: ("warning",), NO_MASS_NO_COLLIDER: ("warning",),
    NEWTON_REFUSES_STAGE: ("error",), NEWTON_UNITS_IGNORED: ("warning",), NEWTON_JOINT_DROPPED: ("warning", "info"),
    NEWTON_FLIPPED: ("info",), NEWTON_ACCELERATION_DRIVE: ("warning",), NEWTON_CONE_IGNORED: ("warning",),
    NEWTON_MERGED: ("info",), NEWTON_NESTED_ROOT: ("warning",), NEWTON_UNPREDICTED: ("warning",),
    NEWTON_MIMIC_SKIPPED: ("warning",), NEWTON_D6_AXIS_LOCKED: ("warning",),
}
ALL: frozenset[str] = frozenset(SEVERITY)
