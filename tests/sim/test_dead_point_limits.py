"""A closed linkage at a dead point whose limited joints start outside their limits.

Cassie's foot (example-robot-data's cassie*.sdf) is a parallelogram four-bar: crank and foot
hinge on the tarsus, a plantar rod between them closed by a ball. At the zero pose all four hinge
lines lie in one plane through one line (a dead point), and crank and foot start at 0, outside
their [-140, -35] deg limits. There the loops' linearisation has a spurious mode (it lets the
crank and foot turn in any ratio), so a correction solved in the loops' metric alone asked a hip
to turn by 2e9 rad. The simulator then moves the tree alone onto the limits and lets the step's
position projection close the loop.

Oracles:
* the linkage's geometry: at rest under gravity it hangs against a stop (the foot on -35 deg), with
  the loop closed and the crank inside its limits, on the parallelogram's branch;
* ovphysx 0.7 on the same stage (the ball excluded from the articulation, so PhysX builds the same
  tree): after 2 s at 1 ms, crank -36.133 deg, foot -35.000 deg, rod 36.311 deg; usdjoints gives
  the same to 1e-3 deg. Before this, usdjoints left the foot at +45.9 deg, 81 deg past its limit.
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from usdjoints.model.build import load_model
from usdjoints.sim import api

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "oracle"))
from ovphysx_runner import ovphysx_available, run_ovphysx_probe  # noqa: E402

CRANK, ROD = 0.055, 0.35  # [m]: crank and foot arm, rod and the two hinges' distance
# [m] the ball's offset from the hinges' line: the parallelogram is 1.1 mm off true, as
# Cassie's right foot is (its arms differ by 1.1 mm); on the line exactly, the old correction
# happened to work
OFFSET = 0.0011
LOWER, UPPER = -140.0, -35.0  # [deg]


def _body(name: str, mass: float, com_z: float, inertia: tuple) -> str:
    return f"""
    def Xform "{name}" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI", "PhysxRigidBodyAPI"])
    {{
        float physics:mass = {mass}
        point3f physics:centerOfMass = (0, 0, {com_z})
        float3 physics:diagonalInertia = {inertia}
        float physxRigidBody:angularDamping = 0
        float physxRigidBody:linearDamping = 0
    }}"""


def _joint(kind: str, name: str, body0: str, body1: str, z0: float, z1: float, extra: str = "",
           x: float = 0.0) -> str:
    return f"""
    def {kind} "{name}"
    {{{extra}
        rel physics:body0 = </Robot/{body0}>
        rel physics:body1 = </Robot/{body1}>
        point3f physics:localPos0 = ({x}, 0, {z0})
        point3f physics:localPos1 = ({x}, 0, {z1})
    }}"""


HINGE = '\n        uniform token physics:axis = "Y"'
LIMITED = HINGE + f"\n        float physics:lowerLimit = {LOWER}\n        float physics:upperLimit = {UPPER}"
STAGE = f"""#usda 1.0
(
    metersPerUnit = 1
    kilogramsPerUnit = 1
    upAxis = "Z"
)
def PhysicsScene "scene"
{{
}}
def Xform "Robot" (prepend apiSchemas = ["PhysicsArticulationRootAPI", "PhysxArticulationAPI"])
{{
    float physxArticulation:sleepThreshold = 0
    float physxArticulation:stabilizationThreshold = 0
    def PhysicsFixedJoint "anchor"
    {{
        rel physics:body1 = </Robot/tarsus>
    }}{_body("tarsus", 0.78, -0.2, (0.0136, 0.0136, 0.0004))}{_body("crank", 0.126, -CRANK / 2, (6.3e-5, 4.9e-5, 2.7e-5))}{_body("rod", 0.1186, -ROD / 2, (0.00177, 0.00177, 2.8e-6))}{_body("foot", 0.15, -CRANK / 2, (1.7e-4, 1.7e-4, 3.3e-4))}{_joint("PhysicsRevoluteJoint", "crank_joint", "tarsus", "crank", 0, 0, LIMITED)}{_joint("PhysicsRevoluteJoint", "rod_joint", "crank", "rod", -CRANK, 0, HINGE)}{_joint("PhysicsRevoluteJoint", "foot_joint", "tarsus", "foot", -ROD, 0, LIMITED)}{_joint("PhysicsSphericalJoint", "closure", "rod", "foot", -ROD, -CRANK, chr(10) + "        bool physics:excludeFromArticulation = true", OFFSET)}
}}
"""
NAMES = ("/Robot/crank_joint", "/Robot/foot_joint", "/Robot/rod_joint")
# a box resting on a static block 3 m away: the step has a contact, so the limits are solved a
# second time after it (integrate.simulate_envs), and the robot must move exactly as without it
BOX_ON_BLOCK = """
def Cube "block" (prepend apiSchemas = ["PhysicsCollisionAPI"])
{
    double size = 1
    double3 xformOp:translate = (3, 0, -1.5)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}
def Cube "box" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI", "PhysicsMassAPI"])
{
    double size = 0.1
    float physics:mass = 1
    double3 xformOp:translate = (3, 0, -0.95)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}
"""


@pytest.fixture(scope="module")
def stage_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("dead_point") / "dead_point.usda"
    path.write_text(STAGE)
    return path


@pytest.fixture(scope="module")
def trajectory(stage_path):
    model = load_model(stage_path)
    assert model.joint_names == NAMES
    return model, api.simulate(model, 2.0, 1e-3)


@pytest.fixture(scope="module")
def trajectory_beside_a_contact(tmp_path_factory):
    """The linkage beside a box resting on a block. The limits' second solve of a step (after
    the contacts) measured the joints outside their limits again, found them no closer than the
    first solve had (q does not move between the two) and left every one of them out: the
    joints stayed outside their limits for the whole run (menagerie's Cassie, 30 to 50 deg)."""
    path = tmp_path_factory.mktemp("dead_point_contact") / "dead_point_contact.usda"
    path.write_text(STAGE + BOX_ON_BLOCK)
    model = load_model(path)
    assert model.joint_names[:3] == NAMES
    return model, api.simulate(model, 2.0, 1e-3)


@pytest.mark.parametrize("which", ["alone", "beside a contact"])
def test_limits_are_reached_without_launching(which, trajectory, trajectory_beside_a_contact):
    model, tr = trajectory if which == "alone" else trajectory_beside_a_contact
    crank, foot, rod = np.degrees(tr.q[-1][:3])
    assert foot == pytest.approx(UPPER, abs=0.5)  # hangs against its stop
    assert LOWER - 0.5 <= crank <= UPPER + 0.5  # closed on the parallelogram's branch, not the
    assert 30.0 < rod < 40.0  # crossed one (where the old correction left the foot at +46 deg)
    assert np.abs(tr.qd[:, :3]).max() < 1e-2  # the correction is position only: nothing is thrown
    _, residual = api.constraint_jacobian(model, tr.q[-1])
    assert np.abs(residual).max() < 1e-9


@pytest.mark.oracle
@pytest.mark.skipif(not ovphysx_available(), reason="ovphysx is not installed")
def test_final_pose_agrees_with_physx(stage_path, trajectory):
    _, tr = trajectory
    report = run_ovphysx_probe(stage_path, steps=2000, dt=1e-3)
    physx = [report["joints"][name]["dofs"][0]["position"] for name in NAMES]
    np.testing.assert_allclose(tr.q[-1], physx, atol=1e-2)
