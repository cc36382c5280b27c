"""An articulation link whose authored diagonal inertia has a zero moment beside positive ones is
read as PhysX reads it: PhysX rejects the tensor and the link keeps its default inertia.

Oracle: ovphysx 0.7 (CPU) on the same converted stage, and the closed form of the swing. A URDF
pendulum (fixed base; a 1 kg arm whose centre of mass is 0.1 m off a horizontal X hinge, with the
converter's damping-only drive d = effort / velocity = 0.1 N m s/rad) is converted by usdjoints.
Its arm's inertia is (0, 0.001, 0.001): zero about the hinge. Measured: ovphysx logs
"PxRigidBody::setMassSpaceInertiaTensor(): components must be > 0 for articulations" and the hinge
is at -0.004834 rad after 100 steps of 1 ms, the swing of I = 1 + m r^2 = 1.01 kg m^2 (PhysX's
default (1, 1, 1) about the centre of mass): with the zero kept (I = m r^2 = 0.01) it is
-0.359 rad (measured with (1e-9, 0.001, 0.001)). usdjoints kept the zero and refused the stage
(singular mass matrix); it now keeps PhysX's default, with a warning.

Outside an articulation PhysX reads the zero moment as an infinite one (its inverse inertia is
0): a free brick with (1, 1, 0) stops turning about z at its first step. usdjoints does not
simulate that lock; it keeps the zero, names it in a warning, and refuses the run when the body
then has a motion with no inertia.
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from usdjoints import cli, walk
from usdjoints.model.build import load_model
from usdjoints.sim import api

REPO = Path(__file__).resolve().parents[2]

URDF = """<robot name="p">
  <link name="base"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="arm"><inertial><origin xyz="0 0.1 0"/><mass value="1"/>
    <inertia ixx="0" iyy="0.001" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="j" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="1 0 0"/>
    <limit lower="-3" upper="3" effort="10" velocity="100"/></joint>
</robot>
"""
DURATION = 0.1  # [s]
MASS, ARM, DAMPING, G = 1.0, 0.1, 0.1, 9.81  # [kg, m, N m s/rad, m/s^2]


def _stage(tmp_path) -> Path:
    urdf = tmp_path / "p.urdf"
    urdf.write_text(URDF)
    stage = tmp_path / "p.usda"
    assert cli.main(["convert", str(urdf), "-o", str(stage), "--fixed-base"]) == 0
    return stage


def _swing(inertia: float) -> float:
    """The hinge angle [rad] at DURATION from rest under the constant torque -m g r (the angle
    stays below 0.3 deg, where cos is 1 to 1e-5) and the damping: I a = -m g r - d w."""
    torque = MASS * G * ARM
    tau = inertia / DAMPING
    return -(torque / DAMPING) * (DURATION - tau * (1.0 - math.exp(-DURATION / tau)))


def test_link_keeps_physx_default_inertia(tmp_path, capsys):
    stage = _stage(tmp_path)
    for consumer in ("ovphysx", "usdjoints"):
        mass = walk(str(stage), consumer=consumer).mass("/p/arm")
        assert mass.inertia_source == "rejected", consumer
        assert np.allclose(mass.inertia, np.eye(3)), consumer
    jsonschema = pytest.importorskip("jsonschema")
    from usdjoints.jsonio import to_jsonable
    from usdjoints.schemas import load
    from usdjoints.walker.render import walk_json

    jsonschema.validate(to_jsonable(walk_json(walk(str(stage), consumer="ovphysx"))), load("walk"))
    parser = walk(str(stage), consumer="usdphysics").mass("/p/arm")
    assert parser.inertia_source == "authored" and parser.inertia[0][0] == 0.0
    model = load_model(str(stage))
    assert any(d.code == "inertia-rejected" and d.prim == "/p/arm" for d in model.diagnostics)
    arm = model.link_inertia[int(model.body_link[model.body_names.index("/p/arm")])]
    assert np.allclose(arm, np.eye(3))
    assert cli.main(["simulate", str(stage), "--duration", "0.01"]) == 0, capsys.readouterr().err
    capsys.readouterr()
    cli.main(["audit", str(stage)])  # the auditor still reports the zero moment, and what PhysX does
    finding = [line for line in capsys.readouterr().out.splitlines() if "[inertia-not-physical]" in line]
    assert len(finding) == 1 and "PhysX rejects it on this articulation link" in finding[0], finding


def test_swing_is_the_default_inertias(tmp_path):
    """Semi-implicit Euler's n (n + 1) / 2 steps of displacement put it 1 % past the continuous
    swing at n = 100; the zero moment kept would swing 70 times further."""
    model = load_model(str(_stage(tmp_path)))
    q = api.simulate(model, DURATION, 1e-3).q[-1, 0]
    assert q == pytest.approx(_swing(1.0 + MASS * ARM ** 2), rel=2e-2)
    assert abs(q) < abs(_swing(MASS * ARM ** 2)) / 50


@pytest.mark.oracle
def test_swing_matches_physx(tmp_path):
    sys.path.insert(0, str(REPO / "tests" / "oracle"))
    from ovphysx_runner import ovphysx_available, run_ovphysx_probe

    if not ovphysx_available():
        pytest.skip("ovphysx is not installed (pip install usdjoints[oracle])")
    stage = _stage(tmp_path)
    report = run_ovphysx_probe(stage, steps=100, dt=1e-3)
    physx = report["joints"]["/p/joints/j"]["dofs"][0]["position"]
    assert any("components must be > 0 for articulations" in m["text"] for m in report["messages"])
    ours = api.simulate(load_model(str(stage)), DURATION, 1e-3).q[-1, 0]
    print(f"\nhinge after {DURATION} s: PhysX {physx:.6f} rad, usdjoints {ours:.6f} rad")
    assert ours == pytest.approx(physx, rel=2e-2)


SPINNING_BRICK = """#usda 1.0
(
    metersPerUnit = 1
    kilogramsPerUnit = 1
    upAxis = "Z"
)
def PhysicsScene "scene"
{
}
def Xform "Brick" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{
    float physics:mass = 1
    float3 physics:diagonalInertia = (1, 1, 0)
    vector3f physics:angularVelocity = (17.188733853924695, 28.64788975654116, 40.10704565915762)
}
"""


def test_free_body_zero_moment_is_named(tmp_path):
    """Outside an articulation PhysX keeps the zero moment as an infinite one (below); usdjoints
    keeps it zero, says so before it refuses the run (a free body turning about that axis moves
    no inertia)."""
    from usdjoints.errors import SimulationError

    stage = tmp_path / "brick.usda"
    stage.write_text(SPINNING_BRICK)
    model = load_model(str(stage))
    assert [d.code for d in model.diagnostics if d.prim == "/Brick"] == ["inertia-zero-moment"]
    with pytest.raises(SimulationError, match="body '/Brick' .* moves no mass or inertia"):
        api.simulate(model, 0.01, 1e-3)


@pytest.mark.oracle
def test_free_body_zero_moment_is_locked_by_physx(tmp_path):
    """The warning's claim, measured: the brick authored to spin at (0.3, 0.5, 0.7) rad/s stops
    turning about its zero-moment axis at once, and keeps the other two rates (less PhysX's default
    angular damping, 0.05 1/s, 0.5 % in 0.1 s)."""
    sys.path.insert(0, str(REPO / "tests" / "oracle"))
    from ovphysx_runner import ovphysx_available, run_ovphysx_probe

    if not ovphysx_available():
        pytest.skip("ovphysx is not installed (pip install usdjoints[oracle])")
    stage = tmp_path / "brick.usda"
    stage.write_text(SPINNING_BRICK)
    w = run_ovphysx_probe(stage, steps=100, dt=1e-3)["bodies"]["/Brick"]["final"]["angular_velocity"]
    assert abs(w[2]) < 1e-6, w
    assert w[0] == pytest.approx(0.3, rel=1e-2) and w[1] == pytest.approx(0.5, rel=1e-2), w
