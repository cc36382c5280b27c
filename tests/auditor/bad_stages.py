"""The bad sample stages (sample_stages/bad/<rule-id>.usda) and where each must trigger its rule.

The stage files are the one source of truth for the mistakes: each reads like the slip a user
would make, and its layer ``doc`` names the rule. This module only says where the finding must
land: ``EXPECTED[rule_id] = (prim, attribute)`` (``None`` prim = the stage itself).
"""
from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BAD_DIR = REPO / "sample_stages" / "bad"
CLEAN_DIR = REPO / "sample_stages" / "clean"

EXPECTED: dict[str, tuple[str | None, str | None]] = {
    'default-coupling-ratio': ('/World/R', 'physics:ratio'),
    'default-joint-limits': ('/World/J', 'physics:lowerLimit'),
    'default-d6-limit': ('/World/D6', 'limit:rotX:physics:high'),
    'default-cone-angle': ('/World/Ball', 'physics:coneAngle0Limit'),
    'default-stage-units': (None, 'metersPerUnit'),
    'limit-enable-disagreement': ('/World/J', 'physics:lowerLimit'),
    'locked-hinge': ('/World/Robot/J', 'physics:upperLimit'),
    'one-sided-limit': ('/World/J', 'physics:lowerLimit'),
    'articulation-d6-limit': ('/World/Robot/D6', None),
    'unread-drive-instance': ('/World/J', 'drive:linear:physics:stiffness'),
    'nameless-instance': ('/World/J', None),
    'unread-limit-instance': ('/World/J', 'limit:rotX:physics:low'),
    'articulation-d6-drive': ('/World/Robot/D6', None),
    'cone-one-angle': ('/World/Ball', 'physics:coneAngle1Limit'),
    'coupling-missing-relationship': ('/World/G', 'physics:hinge0'),
    'coupling-misspelt-relationship': ('/World/G', 'physxGearJoint:hinge0'),
    'coupling-zero-ratio': ('/World/R', 'physics:ratio'),
    'coupling-wrong-target': ('/World/G', 'physics:hinge0'),
    'mimic-reference': ('/World/Robot/J', 'physxMimicJoint:rotZ:referenceJoint'),
    'coupling-unseen': ('/World/G', None),
    'dangling-body': ('/World/J', 'physics:body1'),
    'target-not-body': ('/World/J', 'physics:body1'),
    'same-body': ('/World/J', None),
    'mirrored-body': ('/World/B', None),
    'non-link-in-articulation': ('/World/Robot/B', 'physics:kinematicEnabled'),
    'several-body-targets': ('/World/J', 'physics:body1'),
    'no-body': ('/World/J', None),
    'articulation-loop': ('/World/Robot/CA', 'physics:excludeFromArticulation'),
    'nested-root': ('/World/Robot/Inner', None),
    'welded-anchor': ('/World/Robot/Mount', None),
    'root-on-non-link': ('/World/A', None),
    'kinematic-link': ('/World/Base', 'physics:kinematicEnabled'),
    'empty-articulation': ('/World/Robot', None),
    'disabled-joint-cuts-links': ('/World/Robot/BC', 'physics:jointEnabled'),
    'root-elected-elsewhere': ('/World/B', None),
    'lower-above-upper': ('/World/J', 'physics:lowerLimit'),
    'min-above-max': ('/World/D', 'physics:minDistance'),
    'revolute-limit-beyond-turn': ('/World/J', 'physics:lowerLimit'),
    'limit-looks-radians': ('/World/J', 'physics:lowerLimit'),
    'non-unit-quaternion': ('/World/J', 'physics:localRot0'),
    'non-finite-value': ('/World/J', 'physics:localPos0'),
    'schema-type-mismatch': ('/World/J', 'physics:localPos0'),
    'invalid-value-type': ('/World/J', 'physics:localPos0'),
    'invalid-xform-op': ('/World/B', None),
    'not-a-joint': ('/World/Rope', None),
    'angular-gain-per-radian': ('/World/J', 'drive:angular:physics:stiffness'),
    'units-look-metres': (None, 'metersPerUnit'),
    'articulation-refused': ('/World/Robot', None),
    'target-child-prim': ('/World/J', 'physics:body1'),
    'invalid-stage-units': (None, None),
    'dynamic-body-without-mass': ('/World/Crate', None),
    'collider-without-volume': ('/World/Box/Shape', None),
    'tiny-mass': ('/World/Pin', 'physics:mass'),
    'inertia-not-physical': ('/World/Link', 'physics:diagonalInertia'),
    'mesh-scale-units': ('/World/Link/Shell', None),
    'primitive-size-units': ('/World/Link/Box', None),
    # Newton's reading (usdjoints.auditor.rules_newton); each stage is a generated Newton probe stage
    # (tests/oracle/newton_stages.py) whose reading Newton itself confirms in tests/oracle.
    'newton-refuses-stage': ('/World/R/j2', None),
    'newton-joint-dropped': ('/World/R/j', None),
    'newton-merged': ('/World/R/jy', None),
    'newton-d6-axis-locked': ('/World/R/j', None),
    'newton-acceleration-drive': ('/World/R/j', None),
    'newton-cone-ignored': ('/World/R/j', 'physics:coneAngle0Limit'),
    'newton-flipped': ('/World/R/weld', 'physics:body1'),
    'newton-nested-root': ('/World/R/L1', None),
    'newton-unpredicted': ('/World/R/j', 'physics:excludeFromArticulation'),
    'newton-mimic-skipped': ('/World/R/j2', None),
    'newton-units-ignored': (None, 'metersPerUnit'),
    'physx-newton-dofs': ('/World/R/j', None),
    'physx-newton-gains': ('/World/R/j', 'drive:rotZ:physics:stiffness'),
    'physx-newton-limits': ('/World/R/j', None),
    'physx-newton-passive': ('/World/R/j', None),
}


def bad_stage(rule_id: str) -> Path:
    """The bad stage of one rule."""
    return BAD_DIR / f"{rule_id}.usda"
