"""PhysX (ovphysx 0.7, CPU) reads converted robots as the URDF describes them.

Oracle: ovphysx, run in a child process by tests/oracle/ovphysx_probe.py (PhysX brings its own USD
and process-wide state). Expected values are read from the URDF text with lxml.
"""
from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from lxml import etree
from pxr import Usd

from samples import robots_dir
from usdjoints.convert import convert_urdf

pytestmark = pytest.mark.oracle

TESTS = Path(__file__).resolve().parents[1]
PROBE = TESTS / "oracle" / "ovphysx_probe.py"
ROBOTS = {
    "ur5": "ur_description/urdf/ur5_robot.urdf",
    "solo12": "solo_description/robots/solo12.urdf",
    "panda": "panda_description/urdf/panda.urdf",
}


def probe(stage: Path, steps: int = 0) -> dict:
    if importlib.util.find_spec("ovphysx") is None or not PROBE.is_file():
        pytest.skip("ovphysx (extra oracle) or its probe is not available")
    done = subprocess.run([sys.executable, str(PROBE), str(stage), "--steps", str(steps)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


@pytest.mark.parametrize("name", sorted(ROBOTS))
def test_physx_reads_one_articulation_with_the_urdf_limits(tmp_path, name):
    """One articulation, the URDF's joint count and base kind; limits [rad or m] and max forces."""
    urdf = robots_dir() / ROBOTS[name]
    out = tmp_path / f"{name}.usda"
    report = convert_urdf(urdf, out)
    physx = probe(out)
    (articulation,) = physx["articulations"]
    joints = etree.parse(str(urdf)).getroot().findall("joint")
    assert articulation["fixed_base"] == report.fixed_base
    # PhysX counts the joints between links; a fixed base's weld to the world becomes the fixed root
    assert articulation["joint_count"] == len(joints) - (1 if report.fixed_base else 0)
    assert articulation["link_count"] == report.body_count
    moving = {j.get("name"): j for j in joints if j.get("type") in ("revolute", "prismatic", "continuous")}
    assert articulation["dof_count"] == len(moving)
    for path, joint in physx["joints"].items():
        element = moving.get(path.rsplit("/", 1)[1])
        if element is None:
            continue
        (dof,) = joint["dofs"]
        limit = element.find("limit")
        if element.get("type") != "continuous":
            # float32 storage in degrees, converted back: ~1e-7 relative
            assert dof["lower"] == pytest.approx(float(limit.get("lower", 0)), rel=1e-6, abs=1e-7), path
            assert dof["upper"] == pytest.approx(float(limit.get("upper", 0)), rel=1e-6, abs=1e-7), path
        assert dof["max_force"] == pytest.approx(float(limit.get("effort")), rel=1e-6), path
        assert dof["max_velocity"] == pytest.approx(float(limit.get("velocity")), rel=1e-6), path


def test_mimic_follower_tracks_multiplier_and_offset_in_physx(tmp_path):
    """After the reference settles, q_follow = 0.5·q_ref + 0.1 rad as the URDF <mimic> says."""
    out = tmp_path / "mimic_pair.usda"
    convert_urdf(TESTS / "data" / "urdf" / "mimic_pair.urdf", out)
    stage = Usd.Stage.Open(str(out))
    reference = stage.GetPrimAtPath("/mimic_pair/joints/ref")
    reference.GetAttribute("drive:angular:physics:stiffness").Set(50.0)  # [N·m/deg]
    reference.GetAttribute("drive:angular:physics:damping").Set(5.0)
    reference.GetAttribute("drive:angular:physics:targetPosition").Set(30.0)  # [deg]
    stage.Save()
    physx = probe(out, steps=300)
    q = {path.rsplit("/", 1)[1]: joint["dofs"][0]["position"] for path, joint in physx["joints"].items()
         if joint.get("dofs")}
    assert q["ref"] == pytest.approx(math.radians(30.0), abs=5e-3)  # the drive settles within 0.3°
    # PhysX solves the coupling as a stiff constraint: 1e-5 rad is far below any sign or unit error
    assert q["follow"] == pytest.approx(0.5 * q["ref"] + 0.1, abs=1e-5)
