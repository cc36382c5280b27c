"""A screw joint that closes a loop keeps its coupling: the converter lets a joint of the loop
that carries nothing close it instead (pr2's torso lift: a lift on a prismatic joint, its motor
screw on a revolute joint with no limit and effort 0, the two tied by a screw joint).

Oracle: the closed form of the one-dof mechanism. The screw link turns about the base's axis and
the lift slides along it, tied by x = p theta (p = -1 / thread_pitch = 0.01 m/rad): the kinetic
energy is (m + I / p^2) xdot^2 / 2, gravity acts on the lift, so x(t) = -a t^2 / 2 with
a = m g / (m + I / p^2) = 1.635 m/s^2 (m = 2 kg, I = 1e-3 kg m^2), against the lift's free fall
at g when the screw closed the loop uncoupled (usdjoints couples tree joints only, and the
motor screw joint has nothing only the tree simulates). Semi-implicit Euler is a dt t / 2 off the
parabola (4e-4 m at 0.5 s).
"""
from __future__ import annotations

import numpy as np
import pytest
from pxr import Usd, UsdPhysics

from usdjoints.convert import convert_sdformat
from usdjoints.model.build import load_model

LIFT = """<?xml version="1.0"?>
<sdf version="1.6">
  <model name="lift">
    <link name="base"><inertial><mass>10</mass><inertia><ixx>1</ixx><iyy>1</iyy><izz>1</izz></inertia></inertial></link>
    <link name="lift"><pose>0 0 0.5 0 0 0</pose>
      <inertial><mass>2</mass><inertia><ixx>0.1</ixx><iyy>0.1</iyy><izz>0.1</izz></inertia></inertial></link>
    <link name="screw">
      <inertial><mass>0.1</mass><inertia><ixx>0.001</ixx><iyy>0.001</iyy><izz>0.001</izz></inertia></inertial></link>
    <joint name="world_weld" type="fixed"><parent>world</parent><child>base</child></joint>
    <joint name="lift_joint" type="prismatic"><parent>base</parent><child>lift</child>
      <axis><xyz>0 0 1</xyz><limit><lower>-0.3</lower><upper>0.3</upper><effort>100</effort></limit></axis></joint>
    <joint name="motor_screw_joint" type="revolute"><parent>base</parent><child>screw</child>
      <axis><xyz>0 0 1</xyz><limit><lower>-1e16</lower><upper>1e16</upper><effort>0</effort><velocity>4</velocity></limit>
      </axis></joint>
    <joint name="screw_lift" type="screw"><parent>lift</parent><child>screw</child><thread_pitch>-100</thread_pitch>
      <axis><xyz>0 0 1</xyz></axis></joint>
  </model>
</sdf>
"""


@pytest.fixture(scope="module")
def lift(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lift")
    (folder / "lift.sdf").write_text(LIFT)
    out = folder / "lift.usda"
    convert_sdformat(folder / "lift.sdf", out)
    return out


def test_the_free_motor_joint_closes_the_loop(lift):
    stage = Usd.Stage.Open(str(lift))
    excluded = sorted(p.GetName() for p in stage.Traverse()
                      if (p.IsA(UsdPhysics.RevoluteJoint) or p.IsA(UsdPhysics.PrismaticJoint))
                      and UsdPhysics.Joint(p).GetExcludeFromArticulationAttr().Get())
    assert excluded == ["motor_screw_joint"]
    model = load_model(str(lift))
    assert model.coupling_names == ("/lift/joints/screw_lift",)


def test_the_lift_descends_as_the_screw_lets_it(lift):
    from usdjoints.sim import api

    model = load_model(str(lift))
    trajectory = api.simulate(model, 0.5, 1e-3, record_every=50)
    x = np.asarray(trajectory.q)[:, model.q_slice("/lift/joints/lift_joint")][:, 0]
    t = np.asarray(trajectory.t)
    a = 2 * 9.81 / (2 + 1e-3 / 0.01 ** 2)
    assert np.max(np.abs(x - (x[0] - a * t ** 2 / 2))) < 2e-3
