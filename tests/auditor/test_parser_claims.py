"""The auditor's claims about OpenUSD's own physics parser, shown in its descriptors.

Oracle: ``UsdPhysics.UsdPhysicsLoadStageFromPrimRange`` (usd-core), normalised by
tests/usdphysics_oracle.py, run on each rule's bad stage in sample_stages/bad.
"""
from __future__ import annotations

import math
import sys

import pytest

import usdjoints  # noqa: F401  (PhysX schemas before any stage is opened)
from bad_stages import bad_stage
from tests_paths import REPO
from usdjoints.auditor import audit

sys.path.insert(0, str(REPO / "tests"))
from usdphysics_oracle import PHYSX_COUPLING_TYPES, parse_with_usdphysics  # noqa: E402


def _parse(rule_id, custom_tokens=PHYSX_COUPLING_TYPES):
    from pxr import Usd

    return parse_with_usdphysics(Usd.Stage.Open(str(bad_stage(rule_id))), custom_tokens)


@pytest.mark.parametrize("rule_id", ["limit-enable-disagreement", "one-sided-limit"])
def test_one_sided_revolute_limit_is_off_for_the_parser(rule_id):
    """AND rule: lowerLimit -30 with upperLimit inf is a disabled limit for OpenUSD's parser, as
    limit-enable-disagreement says (PhysX enables it: tests/oracle/test_audit_claims.py)."""
    (limit,) = _parse(rule_id)["joints"]["/World/J"]["limits"]
    assert (limit["enabled"], limit["low"], limit["high"]) == (False, -30.0, math.inf)
    finding = audit(bad_stage(rule_id)).by_rule("limit-enable-disagreement")[0]
    assert finding.message.endswith("off for usdphysics")


def test_cone_with_one_angle_is_off():
    (limit,) = _parse("cone-one-angle")["joints"]["/World/Ball"]["limits"]
    assert (limit["enabled"], limit["low"], limit["high"]) == (False, 30.0, -1.0)


def test_linear_drive_on_a_revolute_is_dropped():
    assert _parse("unread-drive-instance")["joints"]["/World/J"]["drives"] == []


def test_limit_instance_on_a_revolute_is_not_read():
    """PhysicsLimitAPI:rotX [-5, 5] on a revolute: the parser keeps only the free angular limit."""
    assert [l["dof"] for l in _parse("unread-limit-instance")["joints"]["/World/J"]["limits"]] == ["angular"]
    assert _parse("unread-limit-instance")["joints"]["/World/J"]["limits"][0]["enabled"] is False


def test_gear_is_a_free_d6_without_custom_tokens():
    joint = _parse("coupling-unseen", custom_tokens=())["joints"]["/World/G"]
    assert joint["type"] == "d6" and joint["limits"] == [] and joint["drives"] == []


def test_misspelt_joint_type_is_no_joint():
    assert "/World/Rope" not in _parse("not-a-joint")["joints"]


def test_non_unit_quaternion_is_normalised_silently():
    assert _parse("non-unit-quaternion")["joints"]["/World/J"]["local_pose0"]["orientation"] == [1.0, 0.0, 0.0, 0.0]


def test_dangling_target_is_the_world():
    joint = _parse("dangling-body")["joints"]["/World/J"]
    assert joint["body1"] is None and joint["body1_target"] == "/World/Missing"


def test_target_without_rigid_body_is_the_world():
    assert _parse("target-not-body")["joints"]["/World/J"]["body1"] is None


def test_only_the_first_body_target_counts():
    assert _parse("several-body-targets")["joints"]["/World/J"]["body1"] == "/World/B"


def test_mistyped_attribute_is_still_read():
    """schema-type-mismatch is info: float3 physics:localPos0 = (0.5, 0, 0) reads as authored
    (PhysX reads it too: the two bodies end 0.5 apart in tests/oracle/test_audit_claims.py)."""
    assert _parse("schema-type-mismatch")["joints"]["/World/J"]["local_pose0"]["position"] == [0.5, 0.0, 0.0]
    assert audit(bad_stage("schema-type-mismatch")).by_rule("schema-type-mismatch")[0].severity == "info"


def test_d6_limit_in_articulation_is_read_by_the_parser():
    (limit,) = _parse("articulation-d6-limit")["joints"]["/World/Robot/D6"]["limits"]
    assert (limit["dof"], limit["enabled"], limit["low"], limit["high"]) == ("rotX", True, -10.0, 10.0)
