"""Loops that hold, and the report of loops that do not.

The PR2 gripper of gazebo_models (tests/data/sdf_wild) closes five loops with hinges and couples
two screws over ten joints, on links of 0.01 to 0.7 kg. Oracle: each loop joint's own definition
in the converted stage, read with OpenUSD (its two anchors, physics:localPos0 and localPos1 on
body0 and body1, coincide), applied to the body poses the run recorded.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from pxr import Gf, Usd, UsdPhysics

import usdjoints  # noqa: F401  (registers the PhysX schemas before any stage opens)
from usdjoints.cli import main
from usdjoints.convert import convert_sdformat
from usdjoints.model.build import load_model
from usdjoints.sim import loop_gaps
from usdjoints.sim.api import forward_kinematics, simulate

GRIPPER = Path(__file__).resolve().parents[1] / "data" / "sdf_wild" / "pr2_gripper" / "model.sdf"


@pytest.fixture(scope="module")
def gripper(tmp_path_factory):
    stage = tmp_path_factory.mktemp("pr2_gripper") / "gripper.usda"
    convert_sdformat(GRIPPER, stage, floating_base=False)
    return stage, load_model(str(stage))


def _usd_anchor_gaps(stage_path, model, body_names, body_poses) -> dict[str, float]:
    """The largest distance between each loop joint's two anchors over the body poses
    [T, nbody, 7] (position, quaternion w x y z)."""
    stage = Usd.Stage.Open(str(stage_path))
    gaps = {}
    for name in model.loop_names:
        joint = UsdPhysics.Joint(stage.GetPrimAtPath(name))
        ends = []
        for rel, attr in ((joint.GetBody0Rel(), joint.GetLocalPos0Attr()),
                          (joint.GetBody1Rel(), joint.GetLocalPos1Attr())):
            ends.append((list(body_names).index(str(rel.GetTargets()[0])), Gf.Vec3d(attr.Get())))
        largest = 0.0
        for poses in body_poses:
            points = []
            for index, local in ends:
                x, y, z, w, qx, qy, qz = poses[index]
                turned = Gf.Rotation(Gf.Quatd(w, qx, qy, qz)).TransformDir(local)
                points.append(np.array([x, y, z]) + np.array(turned))
            largest = max(largest, float(np.linalg.norm(points[1] - points[0])))
        gaps[name] = largest
    return gaps


def test_the_gripper_loops_hold(gripper):
    """Measured: every anchor pair within 1e-9 m over 1 s. Before the constraint rows were
    tested for redundancy each against its own size (kernels/constraints.py), two of the loops
    opened by 15 m in 2 s while a slider fell."""
    stage, model = gripper
    assert len(model.loop_names) == 5
    trajectory = simulate(model, 1.0, 1e-3, record_every=20)
    gaps = _usd_anchor_gaps(stage, model, trajectory.body_names, trajectory.body_poses)
    assert max(gaps.values()) < 1e-6, gaps
    assert loop_gaps.loop_gaps(model, trajectory.q) == pytest.approx(list(gaps.values()), abs=1e-9)


def test_an_opened_loop_is_measured_as_the_usd_anchors_say(gripper):
    """Joint coordinates moved off the loops' manifold: loop_gaps gives each loop's anchor
    distance as the stage's joint definitions give it on the bodies' poses there
    (api.forward_kinematics)."""
    stage, model = gripper
    q = np.array(model.q_initial, dtype=float)
    q += 0.05 * np.arange(1, model.nq + 1)  # every joint turned or slid a little
    positions, quaternions = forward_kinematics(model, q)
    poses = np.concatenate([positions, quaternions], axis=1)[None]
    gaps = _usd_anchor_gaps(stage, model, model.body_names, poses)
    assert min(gaps.values()) > 1e-3
    assert loop_gaps.loop_gaps(model, q) == pytest.approx(list(gaps.values()), rel=1e-6)
    assert set(dict(loop_gaps.open_loops(model, q))) == set(model.loop_names)


def test_the_command_line_names_a_loop_that_opened(gripper, capsys, monkeypatch):
    """With the tolerance below zero every loop counts as opened: one warning line each, naming
    the joint; at the default tolerance the gripper's run prints none."""
    stage, model = gripper
    assert main(["simulate", str(stage), "--duration", "0.05"]) == 0
    assert "loop-closing joint" not in capsys.readouterr().err
    monkeypatch.setattr(loop_gaps, "OPEN_LOOP", -1.0)
    assert main(["simulate", str(stage), "--duration", "0.05"]) == 0
    lines = [line for line in capsys.readouterr().err.splitlines() if "loop-closing joint" in line]
    assert sorted(line.split(": ")[2] for line in lines) == sorted(model.loop_names)


WELDED_LOOP = """#usda 1.0
(
    metersPerUnit = 1
    kilogramsPerUnit = 1
    upAxis = "Z"
)

def Xform "World"
{
    def Cube "A" (
        prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"]
    )
    {
        float physics:mass = 1
        float3 physics:diagonalInertia = (0.2, 0.2, 0.2)
    }

    def PhysicsFixedJoint "Weld"
    {
        rel physics:body1 = </World/A>
    }

    def PhysicsRevoluteJoint "J"
    {
        rel physics:body0 = </World/A>
        rel physics:body1 = </World/A>
        point3f physics:localPos0 = (0, 0, %s)
    }
}
"""


@pytest.mark.parametrize("offset, gap", [(0, None), (1, 1.0)])
def test_a_loop_on_a_model_without_coordinates(tmp_path, capsys, offset, gap):
    """A hinge from a welded body to itself closes a loop on a model of no coordinates: the run
    has one pose, at which the loop's gap is the distance between its two anchors on that body
    (0 m, or the 1 m of localPos0). Before, the empty states [T, 0] could not be reshaped and the
    command ended in an internal error (the contract: exit 0, no traceback)."""
    stage = tmp_path / "welded_loop.usda"
    stage.write_text(WELDED_LOOP % offset)
    assert main(["simulate", str(stage), "--duration", "0.01"]) == 0
    err = capsys.readouterr().err
    assert "internal error" not in err
    opened = [line for line in err.splitlines() if "loop-closing joint" in line]
    if gap is None:
        assert opened == []
    else:
        assert len(opened) == 1 and "/World/J" in opened[0] and f"opened by {gap:g} m" in opened[0]
