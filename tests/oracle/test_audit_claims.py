"""The auditor's PhysX claims, measured: each bad stage of a PhysX hazard rule, run in ovphysx 0.7
on the CPU, shows the effect its finding states.

Oracle: ovphysx (the real PhysX runtime) through the probe (ovphysx_probe.py), 30 steps of
1/60 s = 0.5 s. Drives in the stages turn a hinge at 90 deg/s = pi/2 rad/s (damping 10000 per
deg), so "moves" means about pi/4 rad of travel and "never moves" means none.
"""
from __future__ import annotations

import math
from pathlib import Path

import pytest

pytestmark = pytest.mark.oracle

REPO = Path(__file__).resolve().parents[2]
BAD = REPO / "sample_stages" / "bad"
CLEAN = REPO / "sample_stages" / "clean"
STEPS = 30
DT = 1.0 / 60.0
QUARTER_TURN_IN_HALF_SECOND = math.pi / 4  # [rad] a 90 deg/s hinge over 0.5 s
# Solver slack: a velocity drive reaches its target within a step; joints hold to well under a mrad.
TRAVEL_TOL = 0.02  # [rad]
STILL_TOL = 1e-3  # [rad or length]
# Free fall over 0.5 s from z = 1: 1 - g t^2 / 2 = -0.226 [m]; a body held anywhere stays above 0.
FREE_FALL_Z = 1.0 - 0.5 * 9.81 * 0.25


def _run(probe, name, folder=BAD):
    return probe(folder / f"{name}.usda", steps=STEPS, dt=DT)


def _messages(report):
    return " | ".join(m["text"] for m in report["messages"])


def _final_z(report, body):
    return report["bodies"][body]["final"]["position"][2]


def test_locked_hinge(ovphysx_probe):
    """A one-sided revolute limit inside an articulation is locked at [0, 0] by PhysX: driven at
    -90 deg/s, the hinge does not move."""
    report = _run(ovphysx_probe, "locked-hinge")
    (dof,) = report["joints"]["/World/Robot/J"]["dofs"]
    assert (dof["lower"], dof["upper"]) == (0.0, 0.0)
    assert abs(dof["position"]) < STILL_TOL and dof["drive_type"] == "force"
    assert "lowLimit must be <= highLimit" in _messages(report)


@pytest.mark.parametrize("name", ["one-sided-limit", "limit-enable-disagreement"])
def test_standalone_one_sided_limit_is_active(ovphysx_probe, name):
    """Outside an articulation the same limit is on for PhysX (OR rule): driven at -90 deg/s the
    hinge stops at exactly the authored -30 deg, and the missing side is clamped to 180 deg."""
    report = _run(ovphysx_probe, name)
    joint = report["joints"]["/World/J"]
    assert joint["displacement"] == pytest.approx(-math.radians(30), abs=STILL_TOL)
    assert "clamped to 180 degrees" in _messages(report)


def test_welded_anchor_never_moves(ovphysx_probe):
    """A driven revolute joint from the world to the base link becomes the fixed base: it has no
    DOF in the articulation and does not turn."""
    report = _run(ovphysx_probe, "welded-anchor")
    (articulation,) = report["articulations"]
    assert articulation["fixed_base"] and articulation["dof_joints"] == ["/World/Robot/J"]
    mount = report["joints"]["/World/Robot/Mount"]
    assert mount["articulated"] is False and abs(mount["displacement"]) < STILL_TOL


@pytest.mark.parametrize("name", ["coupling-missing-relationship", "coupling-misspelt-relationship"])
def test_gear_without_schema_relationships_couples_nothing(ovphysx_probe, name):
    """No physics:hinge0/hinge1 (absent, or under physxGearJoint:* names): PhysX creates no gear;
    the driven first hinge turns, the second never moves."""
    report = _run(ovphysx_probe, name)
    joints = report["joints"]
    assert joints["/World/H0"]["displacement"] == pytest.approx(QUARTER_TURN_IN_HALF_SECOND, abs=TRAVEL_TOL)
    assert abs(joints["/World/H1"]["displacement"]) < STILL_TOL
    assert "Cannot simulate gear joint (/World/G)" in _messages(report)


def test_zero_ratio_rack_never_moves(ovphysx_probe):
    """Ratio 0: the pinion is driven, the rack stays put."""
    coupling = _run(ovphysx_probe, "coupling-zero-ratio")["couplings"]["/World/R"]
    assert coupling["hinge_mean_rate"] > 1.0  # [rad/s] the pinion's pose turns (about pi/2)
    assert coupling["prismatic_mean_rate"] == 0.0 and coupling["prismatic_rate"] == 0.0


def test_gear_on_a_prismatic_target_couples_nothing(ovphysx_probe):
    """A gear whose hinge0 is a prismatic joint: driving hinge1 never moves the slide."""
    report = _run(ovphysx_probe, "coupling-wrong-target")
    assert report["joints"]["/World/H1"]["displacement"] == pytest.approx(QUARTER_TURN_IN_HALF_SECOND, abs=TRAVEL_TOL)
    assert abs(report["joints"]["/World/P"]["displacement"]) < STILL_TOL


def test_unauthored_ratio_is_populated_as_one(ovphysx_probe):
    """default-coupling-ratio says USD population writes 1 [deg per length]: the rack turns at
    pinion rate / (1 deg) per length, i.e. a rate ratio of pi/180 rad per length."""
    coupling = _run(ovphysx_probe, "default-coupling-ratio")["couplings"]["/World/R"]
    assert coupling["rate_ratio"] == pytest.approx(math.radians(1.0), rel=1e-3)  # solver residual


def test_unauthored_stage_units_are_populated_as_usd_fallbacks(ovphysx_probe):
    """default-stage-units: population writes USD's fallbacks (Y up, centimetres), so gravity pulls
    along -Y at 981 units/s^2: the body falls 981 * 0.5^2 / 2 = 122.6 units along Y."""
    report = _run(ovphysx_probe, "default-stage-units")
    position = report["bodies"]["/World/A"]["final"]["position"]
    assert position[1] == pytest.approx(-0.5 * 981.0 * 0.25, rel=0.01)  # explicit Euler vs closed form
    assert position[2] == pytest.approx(1.0, abs=STILL_TOL)


@pytest.mark.parametrize("name", ["dangling-body", "target-not-body"])
def test_missing_side_is_the_world(ovphysx_probe, name):
    """A body1 that is missing or no rigid body makes that side the world: body A is held at the
    joint's world frame (the origin) instead of falling."""
    report = _run(ovphysx_probe, name)
    assert _final_z(report, "/World/A") == pytest.approx(0.0, abs=STILL_TOL)


def test_same_body_joint_constrains_nothing(ovphysx_probe):
    report = _run(ovphysx_probe, "same-body")
    assert _final_z(report, "/World/A") == pytest.approx(FREE_FALL_Z, abs=0.01)  # Euler step error
    assert "between a body and itself" in _messages(report)


def test_several_targets_only_the_first_counts(ovphysx_probe):
    """body1 = [B, C]: B is jointed to A, C falls freely."""
    report = _run(ovphysx_probe, "several-body-targets")
    a, b = (report["bodies"][p]["final"]["position"] for p in ("/World/A", "/World/B"))
    assert a == pytest.approx(b, abs=STILL_TOL)
    assert _final_z(report, "/World/C") == pytest.approx(FREE_FALL_Z, abs=0.01)


def test_no_body_joint_is_not_created(ovphysx_probe):
    assert "no bodies defined at body0 and body1" in _messages(_run(ovphysx_probe, "no-body"))


def test_articulation_loop_is_refused(ovphysx_probe):
    report = _run(ovphysx_probe, "articulation-loop")
    assert "closed articulation, which is not supported" in _messages(report)
    assert report["joints"]["/World/Robot/CA"]["articulated"] is False


def test_nested_root_is_rejected(ovphysx_probe):
    report = _run(ovphysx_probe, "nested-root")
    assert [a["root"] for a in report["articulations"]] == ["/World/Robot"]
    assert "Nested articulation roots are not allowed" in _messages(report)


def test_root_on_kinematic_body_builds_no_articulation(ovphysx_probe):
    report = _run(ovphysx_probe, "root-on-non-link")
    assert report["articulations"] == []
    assert "ArticulationRootAPI on a kinematic rigid body not allowed" in _messages(report)


def test_kinematic_body_in_articulation_builds_none(ovphysx_probe):
    """non-link-in-articulation: PhysX refuses the articulation and keeps the joints standalone."""
    report = _run(ovphysx_probe, "non-link-in-articulation")
    assert report["articulations"] == []
    assert report["joints"]["/World/Robot/J"]["articulated"] is False
    assert "Articulations with kinematic bodies are not supported" in _messages(report)


def test_empty_articulation_builds_none(ovphysx_probe):
    report = _run(ovphysx_probe, "empty-articulation")
    assert report["articulations"] == []
    assert _final_z(report, "/World/Robot/A") == pytest.approx(FREE_FALL_Z, abs=0.01)


def test_disabled_joint_cuts_a_link_off(ovphysx_probe):
    report = _run(ovphysx_probe, "disabled-joint-cuts-links")
    assert report["articulations"][0]["dof_joints"] == ["/World/Robot/AB"]
    assert report["bodies"]["/World/Robot/C"]["final"]["articulation_link"] is False
    assert _final_z(report, "/World/Robot/C") == pytest.approx(FREE_FALL_Z, abs=0.01)


def test_root_on_a_body_gives_a_floating_base(ovphysx_probe):
    """root-elected-elsewhere: the root API on body B of a tree welded to the world gives a
    floating-base articulation rooted at B; the weld is no articulation joint."""
    (articulation,) = _run(ovphysx_probe, "root-elected-elsewhere")["articulations"]
    assert articulation["root"] == "/World/B" and articulation["fixed_base"] is False


def test_d6_in_articulation_keeps_rotation_limits_and_locks_translation(ovphysx_probe):
    """articulation-d6-limit: the rotX limit is kept as authored, the translations are dropped."""
    report = _run(ovphysx_probe, "articulation-d6-limit")
    dofs = report["joints"]["/World/Robot/D6"]["dofs"]
    assert len(dofs) == 3  # rotX, rotY, rotZ: no translation row
    assert report["joints"]["/World/Robot/D6"]["as_read"]["jointLimit"][0] == [-10.0, 10.0]
    assert "Translation DOF is expected to be locked" in _messages(report)


def test_d6_linear_drive_in_articulation_is_ignored(ovphysx_probe):
    report = _run(ovphysx_probe, "articulation-d6-drive")
    assert all(d["drive_type"] == "none" for d in report["joints"]["/World/Robot/D6"]["dofs"])
    assert "Linear drives on articulation D6 joints are not supported" in _messages(report)


def test_standalone_revolute_beyond_half_turn_is_clamped(ovphysx_probe):
    messages = _messages(_run(ovphysx_probe, "revolute-limit-beyond-turn"))
    assert "Lower angle limit on a revolute D6 joint was clamped to -180" in messages
    assert "Upper angle limit on a revolute D6 joint was clamped to 180" in messages


def test_inverted_bounds_are_invalid(ovphysx_probe):
    assert "limit invalid" in _messages(_run(ovphysx_probe, "lower-above-upper"))


def test_nan_frame_drops_the_joint(ovphysx_probe):
    """non-finite-value: a NaN localPos0 is no valid frame, no joint: both bodies fall apart freely."""
    report = _run(ovphysx_probe, "non-finite-value")
    assert "local frame 0 is not a valid transform" in _messages(report)
    for body in ("/World/A", "/World/B"):
        assert _final_z(report, body) == pytest.approx(FREE_FALL_Z, abs=0.01)


def test_mimic_with_unresolved_reference_is_dropped(ovphysx_probe):
    assert "points to a non existing prim" in _messages(_run(ovphysx_probe, "mimic-reference"))


def test_not_a_joint_joins_nothing(ovphysx_probe):
    """DistancePhysicsJoint (a typo) is no joint for PhysX: A and B fall apart freely."""
    report = _run(ovphysx_probe, "not-a-joint")
    assert not report["joints"]
    assert _final_z(report, "/World/A") == pytest.approx(FREE_FALL_Z, abs=0.01)


def test_clean_couplings_move_as_authored(ovphysx_probe):
    """The clean rack (90 deg per metre) and gear (ratio 2) couple at the authored ratios."""
    rack = _run(ovphysx_probe, "rack_pinion_driven", CLEAN)["couplings"]["/World/RackAndPinion"]
    assert rack["rate_ratio"] == pytest.approx(math.pi / 2, rel=1e-3)  # solver residual
    gear = _run(ovphysx_probe, "gear_driven", CLEAN)["couplings"]["/World/Gear"]
    assert gear["rate_ratio"] == pytest.approx(-2.0, rel=1e-3)


@pytest.mark.parametrize("name", ["arm_welded_limits", "four_bar_excluded"])
def test_clean_articulations_load_without_errors(ovphysx_probe, name):
    report = _run(ovphysx_probe, name, CLEAN)
    assert report["articulations"] and report["articulations"][0]["fixed_base"]
    assert not [m for m in report["messages"] if m["severity"] == "error"]


def test_mistyped_local_pos_is_read_by_physx(ovphysx_probe):
    """schema-type-mismatch is info: float3 physics:localPos0 = (0.5, 0, 0) holds B 0.5 from A."""
    report = _run(ovphysx_probe, "schema-type-mismatch")
    a, b = (report["bodies"][p]["final"]["position"] for p in ("/World/A", "/World/B"))
    assert math.dist(a, b) == pytest.approx(0.5, abs=STILL_TOL)
