"""A joint the tree walks from its child to its parent (an SDFormat link that is the child of two
joints: gazebo_models' turtlebot rack, pr2's gripper links) is written with body0 the tree's parent,
and its coordinate stays the file's.

Oracles:
* Newton 1.8 (``ModelBuilder.add_usd``, tests/oracle/newton_probe.py; skipped without the
  oracle-newton extra) reads the stage; it refused it ('the joint points from child to parent')
  when body0 was the file's parent;
* SDFormat's joint coordinate (a closed form of the body poses): the angle of the child link
  (``upper``) about the axis relative to the parent link (``lower``), which the simulated
  coordinate of the joint equals at every sample, and its limits are the file's [-0.5, 1.0] rad.
"""
from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from pxr import Usd, UsdPhysics

from usdjoints.convert import convert_sdformat
from usdjoints.model.build import load_model
from usdjoints.model.rotation import quat_to_matrix

TESTS = Path(__file__).resolve().parents[1]
NEWTON_PROBE = TESTS / "oracle" / "newton_probe.py"

SDF = """<?xml version="1.0"?>
<sdf version="1.6">
  <model name="arm">
    <link name="base"><inertial><mass>5</mass><inertia><ixx>1</ixx><iyy>1</iyy><izz>1</izz></inertia></inertial></link>
    <link name="upper"><pose>0 0 -0.5 0 0 0</pose>
      <inertial><mass>1</mass><inertia><ixx>0.02</ixx><iyy>0.02</iyy><izz>0.02</izz></inertia></inertial></link>
    <link name="lower"><pose>0 0 -1 0 0 0</pose>
      <inertial><pose>0.3 0 0 0 0 0</pose><mass>1</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial></link>
    <joint name="weld" type="fixed"><parent>world</parent><child>base</child></joint>
    <joint name="shoulder" type="revolute"><parent>base</parent><child>upper</child>
      <axis><xyz>1 0 0</xyz><limit><lower>0</lower><upper>0</upper></limit></axis></joint>
    <joint name="elbow" type="revolute"><parent>lower</parent><child>upper</child><pose>0 0 0.5 0 0 0</pose>
      <axis><xyz>0 1 0</xyz><limit><lower>-0.5</lower><upper>1.0</upper><effort>0</effort></limit></axis></joint>
  </model>
</sdf>
"""


@pytest.fixture(scope="module")
def arm(tmp_path_factory):
    folder = tmp_path_factory.mktemp("arm")
    (folder / "arm.sdf").write_text(SDF)
    out = folder / "arm.usda"
    convert_sdformat(folder / "arm.sdf", out)
    return out


def test_body0_is_the_tree_parent_and_the_limits_are_the_files(arm):
    stage = Usd.Stage.Open(str(arm))
    elbow = UsdPhysics.RevoluteJoint(stage.GetPrimAtPath("/arm/joints/elbow"))
    assert [str(t) for t in elbow.GetBody0Rel().GetTargets()] == ["/arm/upper"]
    assert [str(t) for t in elbow.GetBody1Rel().GetTargets()] == ["/arm/lower"]
    assert elbow.GetLowerLimitAttr().Get() == pytest.approx(math.degrees(-0.5), abs=1e-4)
    assert elbow.GetUpperLimitAttr().Get() == pytest.approx(math.degrees(1.0), abs=1e-4)


def test_the_coordinate_is_the_childs_angle_about_the_axis_from_the_parent(arm):
    from usdjoints.sim import api

    model = load_model(str(arm))
    trajectory = api.simulate(model, 1.0, 1e-3, record_every=20)
    q = np.asarray(trajectory.q)[:, model.q_slice("/arm/joints/elbow")][:, 0]
    positions = []
    for row in np.asarray(trajectory.q):
        _, quats = api.forward_kinematics(model, row)
        R = {path: quat_to_matrix(quats[model.body_positions[path]]) for path in ("/arm/upper", "/arm/lower")}
        relative = R["/arm/lower"].T @ R["/arm/upper"]  # the child's rotation in the parent's frame
        positions.append(math.atan2(relative[0, 2], relative[0, 0]))  # about the parent's +Y
    assert np.ptp(q) > 0.5  # the lower link swings
    assert np.max(np.abs(q - np.asarray(positions))) < 1e-9
    assert -0.5 - 1e-3 <= q.min() and q.max() <= 1.0 + 1e-3


@pytest.mark.oracle
def test_newton_reads_the_stage(arm):
    if importlib.util.find_spec("newton") is None or not NEWTON_PROBE.is_file():
        pytest.skip("Newton (extra oracle-newton) is not installed")
    done = subprocess.run([sys.executable, str(NEWTON_PROBE), str(arm)], capture_output=True, text=True,
                          timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report.get("refused") is None, report
    (elbow,) = [j for j in report["joints"] if j.get("label", j.get("name", "")).endswith("elbow")]
    assert elbow["parent"] == "/arm/upper" and elbow["child"] == "/arm/lower"
    assert [(d["limit_lower"], d["limit_upper"]) for d in elbow["dofs"]] == [
        (pytest.approx(-0.5, abs=1e-6), pytest.approx(1.0, abs=1e-6))]
