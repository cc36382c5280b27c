"""A joint that starts outside its limits: what PhysX does with it, and what usdjoints does.

Oracle: ovphysx 0.7 on the CPU, run on the same stage (a 1 kg arm on a hinge limited to
[-10, 10] deg, starting at 40 deg at rest, no gravity, no body damping, no sleeping).

Measured: PhysX puts the joint on its limit within the first 1 ms step (40 -> 10.00004 deg) and
keeps almost no speed from the correction (-0.029 deg/s reported after the step). usdjoints does
the same (sim/kernels/limits.py: a position-only correction onto the bound in the first step,
dropped from the velocities): on the limit after one step, at rest.
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "oracle"))
from ovphysx_runner import ovphysx_available, run_ovphysx_probe  # noqa: E402

pytestmark = [pytest.mark.oracle]

DT = 1e-3
START, UPPER = 40.0, 10.0  # [deg]
STAGE = """#usda 1.0
(
    metersPerUnit = 1
    kilogramsPerUnit = 1
    upAxis = "Z"
)
def PhysicsScene "scene"
{
    float physics:gravityMagnitude = 0
}
def Xform "Robot" (prepend apiSchemas = ["PhysicsArticulationRootAPI", "PhysxArticulationAPI"])
{
    float physxArticulation:sleepThreshold = 0
    float physxArticulation:stabilizationThreshold = 0
    def PhysicsFixedJoint "Anchor"
    {
        rel physics:body1 = </Robot/Base>
    }
    def Xform "Base" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI", "PhysxRigidBodyAPI"])
    {
        float physics:mass = 1
        float3 physics:diagonalInertia = (0.01, 0.01, 0.01)
        float physxRigidBody:angularDamping = 0
        float physxRigidBody:linearDamping = 0
    }
    def Xform "Arm" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI", "PhysxRigidBodyAPI"])
    {
        float physics:mass = 1
        float3 physics:diagonalInertia = (0.01, 0.01, 0.01)
        point3f physics:centerOfMass = (0.5, 0, 0)
        float physxRigidBody:angularDamping = 0
        float physxRigidBody:linearDamping = 0
    }
    def PhysicsRevoluteJoint "Hinge" (prepend apiSchemas = ["PhysicsJointStateAPI:angular"])
    {
        uniform token physics:axis = "Z"
        rel physics:body0 = </Robot/Base>
        rel physics:body1 = </Robot/Arm>
        float physics:lowerLimit = -10
        float physics:upperLimit = 10
        float state:angular:physics:position = 40
        float state:angular:physics:velocity = 0
    }
}
"""


@pytest.fixture(scope="module")
def stage_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("outside") / "hinge_outside.usda"
    path.write_text(STAGE)
    return path


def test_physx_puts_the_joint_on_its_limit_in_one_step(stage_path):
    if not ovphysx_available():
        pytest.skip("ovphysx is not installed")
    row = run_ovphysx_probe(stage_path, steps=1, dt=DT)["joints"]["/Robot/Hinge"]["dofs"][0]
    assert math.degrees(row["position_initial"]) == pytest.approx(START, abs=1e-4)
    print(f"\nPhysX after one step: {math.degrees(row['position']):.5f} deg, "
          f"{math.degrees(row['velocity']):.4f} deg/s")
    assert abs(math.degrees(row["position"]) - UPPER) < 1e-3
    assert abs(math.degrees(row["velocity"])) < 1.0


def _ours(stage_path, steps):
    from usdjoints.model.build import load_model
    from usdjoints.sim import api

    model = load_model(str(stage_path))
    trajectory = api.simulate(model, steps * DT, DT, record_every=1)
    return [math.degrees(v) for v in trajectory.q[:, 0]], [math.degrees(v) for v in trajectory.qd[:, 0]]


def test_usdjoints_brings_it_back_without_launching(stage_path):
    """Monotone return, never past the limit into the range by more than 0.5 deg, no speed kept
    from the correction (PhysX keeps -0.029 deg/s), on the limit from the first step on."""
    q, qd = _ours(stage_path, 400)
    assert all(b <= a + 1e-9 for a, b in zip(q, q[1:]))
    assert min(q) > UPPER - 0.5
    assert max(abs(v) for v in qd) < 1.0
    assert max(abs(v - UPPER) for v in q[1:]) < 1e-3


def test_usdjoints_is_on_the_limit_after_one_step_as_physx(stage_path):
    q, qd = _ours(stage_path, 1)
    assert abs(q[1] - UPPER) < 1e-3
    assert abs(qd[1]) < 1.0
