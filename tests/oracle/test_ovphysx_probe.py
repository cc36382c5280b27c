"""Tests of the PhysX probe itself, against facts that do not depend on usdjoints.

Oracles: closed forms (a spring and a damper on a known inertia), the degree/radian identity
(180/pi), and the ovphysx 0.7 behaviours measured on this project's stages (rack and pinion,
gear, one-sided limits). The stages are in tests/data/usd (PhysX behaviour stages) and
tests/oracle/stages (drives with known dynamics).
"""
from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from ovphysx_runner import PROBE_SCRIPT

pytestmark = pytest.mark.oracle

DATA = Path(__file__).resolve().parents[1] / "data" / "usd"
STAGES = Path(__file__).resolve().parent / "stages"
DEG_PER_RAD = 57.29577951308232
# PhysX stores joint properties as float32: a value survives the round trip to ~6e-8 relative.
FLOAT32_REL = 1e-6
# Inertia of the test links about their hinge: 1/6 (cube about its centre) + 1 kg * 0.5^2 [kg m^2].
LINK_INERTIA = 5.0 / 12.0


def only_dof(report: dict, joint: str) -> dict:
    dofs = report["joints"][joint]["dofs"]
    assert len(dofs) == 1
    return dofs[0]


def messages(report: dict) -> str:
    return "\n".join(message["text"] for message in report["messages"])


def test_damping_reads_back_per_radian(ovphysx_probe):
    """Oracle: degree/radian identity. An authored 10000 N·m·s/deg reads back as 10000 * 180/pi."""
    report = ovphysx_probe(DATA / "artic_revolute_drive.usda")
    dof = only_dof(report, "/World/Hinge")
    assert dof["kind"] == "angular"
    assert dof["damping"] == pytest.approx(10000.0 * DEG_PER_RAD, rel=FLOAT32_REL)
    assert dof["stiffness"] == pytest.approx(0.0 * DEG_PER_RAD, abs=0.0)
    assert dof["drive_type"] == "force"
    assert dof["target_velocity"] == pytest.approx(math.pi / 2, rel=FLOAT32_REL)
    assert (dof["lower"], dof["upper"], dof["max_force"]) == ("-inf", "inf", "inf")
    assert report["joints"]["/World/Hinge"]["as_read"]["jointDamping"] == [[10000.0]]
    assert report["articulations"][0]["dof_joints"] == ["/World/Hinge"]


def test_stiffness_is_per_radian_in_the_dynamics(ovphysx_probe):
    """Oracle: closed form of an undamped spring, q(t) = q* (1 - cos(sqrt(k/I) t)).

    Authored k = 0.05 N·m/deg must read back as 0.05 * 180/pi, and the motion after 0.5 s must
    follow that per-radian k (read as per radian, 0.05 would move the link 50x less).
    Tolerance 1e-3 relative: PhysX integrates the drive implicitly, an error of order
    (omega dt)^2 per step, ~1e-5 here.
    """
    steps, dt = 500, 1e-3
    report = ovphysx_probe(STAGES / "artic_revolute_spring.usda", steps=steps, dt=dt)
    dof = only_dof(report, "/World/Hinge")
    assert dof["stiffness"] == pytest.approx(0.05 * DEG_PER_RAD, rel=FLOAT32_REL)
    assert dof["max_force"] == pytest.approx(50.0, rel=FLOAT32_REL)
    assert (dof["lower"], dof["upper"]) == pytest.approx((math.radians(-45), math.radians(60)), rel=FLOAT32_REL)
    omega = math.sqrt(dof["stiffness"] / LINK_INERTIA)
    expected = math.radians(10.0) * (1.0 - math.cos(omega * steps * dt))
    assert dof["position"] == pytest.approx(expected, rel=1e-3)


def test_damping_is_per_radian_in_the_dynamics(ovphysx_probe):
    """Oracle: closed form of a velocity drive from rest, w(t) = w* (1 - exp(-c t / I)).

    Tolerance 1e-3 relative: implicit drive integration, error of order c dt / I per step.
    """
    steps, dt = 500, 1e-3
    report = ovphysx_probe(STAGES / "artic_revolute_damper.usda", steps=steps, dt=dt)
    dof = only_dof(report, "/World/Hinge")
    assert dof["damping"] == pytest.approx(0.01 * DEG_PER_RAD, rel=FLOAT32_REL)
    expected = math.pi / 2 * (1.0 - math.exp(-steps * dt * dof["damping"] / LINK_INERTIA))
    assert dof["velocity"] == pytest.approx(expected, rel=1e-3)


def test_linear_dof_is_not_converted(ovphysx_probe):
    """Oracle: the authored values. A prismatic DOF keeps stage units, so nothing is scaled."""
    report = ovphysx_probe(STAGES / "artic_prismatic_drive.usda")
    dof = only_dof(report, "/World/Slider")
    assert dof["kind"] == "linear"
    assert (dof["lower"], dof["upper"]) == pytest.approx((-0.5, 0.25), rel=FLOAT32_REL)
    assert (dof["stiffness"], dof["damping"], dof["max_force"]) == pytest.approx((100.0, 5.0, 20.0), rel=FLOAT32_REL)
    assert dof["target_position"] == pytest.approx(0.1, rel=FLOAT32_REL)
    assert dof["drive_type"] == "acceleration"


def test_one_sided_limit_in_an_articulation_is_locked(ovphysx_probe):
    """Oracle: ovphysx 0.7 fact. Only lowerLimit authored: PhysX rejects the pair and the DOF
    reads back locked at [0, 0]; the joint holds still against a -90 deg/s drive (1e-3 rad:
    a locked DOF only drifts by solver error)."""
    report = ovphysx_probe(DATA / "artic_onesided_limit.usda", steps=60)
    locked = only_dof(report, "/World/OneSided")
    assert (locked["lower"], locked["upper"]) == (0.0, 0.0)
    assert abs(locked["position"]) < 1e-3
    assert "lowLimit must be <= highLimit" in messages(report)
    reversed_joint = only_dof(report, "/World/Reversed")
    expected = (math.radians(-10.0), math.radians(20.0))
    assert (reversed_joint["lower"], reversed_joint["upper"]) == pytest.approx(expected, rel=FLOAT32_REL)


def test_one_sided_limit_outside_an_articulation_is_active(ovphysx_probe):
    """Oracle: ovphysx 0.7 fact. Standalone, the same limit is active (upper clamped to 180
    deg): driven at -90 deg/s for 1 s the pinion stops at -30 deg (1e-3 rad: contact slop)."""
    report = ovphysx_probe(DATA / "standalone_limit_up_unset.usda", steps=60)
    hinge = report["joints"]["/World/Hinge"]
    assert hinge["articulated"] is False
    assert hinge["displacement"] == pytest.approx(math.radians(-30.0), abs=1e-3)
    assert "clamped to 180 degrees" in messages(report)


def test_rack_ratio_90_moves_one_length_per_90_degrees(ovphysx_probe):
    """Oracle: ovphysx 0.7 fact. Ratio 90 [deg/length], pinion at 90 deg/s: rack at 1 length/s.
    Tolerance 1e-3: the drive settles to its target within the first steps."""
    report = ovphysx_probe(DATA / "rpd_ratio_90.usda", steps=30)
    rack = report["couplings"]["/World/RackAndPinion"]
    assert rack["hinge_rate"] == pytest.approx(math.pi / 2, rel=1e-3)
    assert rack["prismatic_rate"] == pytest.approx(1.0, rel=1e-3)
    assert rack["rate_ratio"] == pytest.approx(math.radians(90.0), rel=1e-3)
    assert rack["mean_rate_ratio"] == pytest.approx(math.radians(90.0), rel=1e-3)


def test_rack_ratio_unauthored_gets_one(ovphysx_probe):
    """Oracle: ovphysx 0.7 fact. USD population writes ratio 1 [deg/length] when unauthored.

    Checked on the velocities (tolerance 1e-3: solver precision). The poses do not follow that
    ratio here: the pinion's pose keeps its drive's 90 deg/s while its reported velocity starts
    near zero, so mean_rate_ratio drifts; the probe reports both and this pins the difference.
    """
    report = ovphysx_probe(DATA / "rpd_ratio_unauthored.usda", steps=30)
    rack = report["couplings"]["/World/RackAndPinion"]
    assert rack["rate_ratio"] == pytest.approx(math.radians(1.0), rel=1e-3)
    assert rack["hinge_mean_rate"] == pytest.approx(math.pi / 2, rel=1e-3)
    assert rack["mean_rate_ratio"] > 2.0 * math.radians(1.0)


def test_rack_ratio_zero_locks_the_rack(ovphysx_probe):
    """Oracle: ovphysx 0.7 fact. Ratio 0 locks the coupling: the rack never moves and the
    pinion's reported velocity stays near zero (1e-3 rad/s: solver residue) against its drive."""
    report = ovphysx_probe(DATA / "rpd_ratio_0.usda", steps=30)
    rack = report["couplings"]["/World/RackAndPinion"]
    assert rack["prismatic_mean_rate"] == 0.0
    assert abs(rack["hinge_rate"]) < 1e-3
    assert rack["rate_ratio"] is None


def test_rack_without_hinge_is_not_created(ovphysx_probe):
    """Oracle: ovphysx 0.7 behaviour. No hinge relationship: no coupling, the rack stays put."""
    report = ovphysx_probe(DATA / "rpd_no_hinge_rel.usda", steps=30)
    rack = report["couplings"]["/World/RackAndPinion"]
    assert rack["hinge"] is None and rack["prismatic_mean_rate"] == pytest.approx(0.0, abs=1e-9)
    assert report["joints"]["/World/Hinge"]["mean_rate"] == pytest.approx(math.pi / 2, rel=1e-3)
    assert "Cannot simulate gear joint" in messages(report)


@pytest.mark.parametrize(("stage", "ratio"), [("gear_ratio_2.usda", -2.0), ("gear_ratio_unauthored.usda", -1.0)])
def test_gear_turns_the_second_hinge_at_minus_ratio(ovphysx_probe, stage, ratio):
    """Oracle: ovphysx 0.7 fact. The second hinge turns at -gearRatio times the first (an
    unauthored gearRatio is populated as 1). Tolerance 1e-3: solver precision."""
    report = ovphysx_probe(DATA / stage, steps=30)
    gear = report["couplings"]["/World/Gear"]
    assert gear["rate_ratio"] == pytest.approx(ratio, rel=1e-3)
    assert gear["mean_rate_ratio"] == pytest.approx(ratio, rel=1e-3)


def test_gear_with_doc_relationship_names_is_dropped(ovphysx_probe):
    """Oracle: ovphysx 0.7 fact. physxGearJoint:hinge0/1 are not the schema's names: no gear,
    the second hinge stays at rest while the first is driven."""
    report = ovphysx_probe(DATA / "gear_docs_relnames.usda", steps=30)
    assert report["joints"]["/World/Hinge1"]["mean_rate"] == pytest.approx(0.0, abs=1e-9)
    assert report["joints"]["/World/Hinge0"]["mean_rate"] == pytest.approx(math.pi / 2, rel=1e-3)
    assert report["couplings"]["/World/Gear"]["rate_ratio"] is None


def test_unwrapped_displacement_past_half_a_turn(ovphysx_probe):
    """Oracle: identity displacement = rate * time for a hinge held at 180 deg/s by the gear:
    over 2 s it turns -2 pi, which a single start/end comparison would read as 0."""
    report = ovphysx_probe(DATA / "gear_ratio_2.usda", steps=120)
    assert report["joints"]["/World/Hinge1"]["displacement"] == pytest.approx(-2.0 * math.pi, rel=1e-3)


def test_report_is_strict_json(ovphysx_probe):
    """Oracle: RFC 8259. No bare Infinity/NaN; quaternions are unit [w, x, y, z]."""
    report = ovphysx_probe(DATA / "artic_revolute_drive.usda")
    text = json.dumps(report)

    def reject(constant):
        raise AssertionError(f"non-standard JSON constant {constant}")

    json.loads(text, parse_constant=reject)
    assert report["schema"] == "usdjoints.ovphysx_probe/1"
    for body in report["bodies"].values():
        assert sum(c * c for c in body["final"]["orientation"]) == pytest.approx(1.0, abs=1e-6)
    assert report["bodies"]["/World/Base"]["final"]["orientation"] == [1.0, 0.0, 0.0, 0.0]


def test_unreadable_stage_is_a_usage_error(tmp_path):
    """Oracle: OpenUSD's parser rejects the layer; the probe exits 2 with one line on stderr."""
    broken = tmp_path / "broken.usda"
    broken.write_text('#usda 1.0\ndef Xform "W" {\n    float x =\n}\n')
    done = subprocess.run([sys.executable, str(PROBE_SCRIPT), str(broken)], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and "broken.usda" in done.stderr
