"""An acceleration drive scales its gains by the inertia its joint shows to its own force with
every other joint free, 1 / (M^-1)_kk (sim/kernels/passive.py drive_inertia).

Oracles: the closed form of that rule (the driven joint of an arm at rest accelerates at exactly
k (x* - x), whatever the other links: the "inertia-invariant" drive), and ovphysx 0.7 on the same
stage: a two-link arm, no gravity, a drive on the shoulder or on the elbow with the other joint
free, 100 steps of 1 ms. PhysX and usdjoints agree to 0.4 % there, as closely as for a force drive
on the same arm; scaling by M_kk instead moved the driven joint twice (shoulder) or 1.9 times
(elbow) as far as PhysX does.
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from usdjoints.model import Drive, ModelBuilder
from usdjoints.model.build import load_model
from usdjoints.sim import api

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "oracle"))
from ovphysx_runner import ovphysx_available, run_ovphysx_probe  # noqa: E402

STIFFNESS_PER_DEGREE = 1.0
DAMPING_PER_DEGREE = 0.2
TARGET_DEGREES = 20.0


def _arm_stage(driven: str, drive_type: str) -> str:
    def joint(name, body0, body1, pos0):
        api_schemas = ' (prepend apiSchemas = ["PhysicsDriveAPI:angular"])' if name == driven else ""
        drive = (f"""
            float drive:angular:physics:damping = {DAMPING_PER_DEGREE}
            float drive:angular:physics:stiffness = {STIFFNESS_PER_DEGREE}
            float drive:angular:physics:targetPosition = {TARGET_DEGREES}
            uniform token drive:angular:physics:type = "{drive_type}\"""" if name == driven else "")
        return f"""
        def PhysicsRevoluteJoint "{name}"{api_schemas}
        {{
            uniform token physics:axis = "Z"
            rel physics:body0 = </World/arm/{body0}>
            rel physics:body1 = </World/arm/{body1}>
            point3f physics:localPos0 = {pos0}
            point3f physics:localPos1 = (0, 0, 0){drive}
        }}"""

    def body(name, translate, com, inertia):
        return f"""
        def Xform "{name}" (apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI", "PhysxRigidBodyAPI"])
        {{
            double3 xformOp:translate = {translate}
            uniform token[] xformOpOrder = ["xformOp:translate"]
            float physics:mass = 1
            point3f physics:centerOfMass = {com}
            float3 physics:diagonalInertia = ({inertia}, {inertia}, {inertia})
            float physxRigidBody:angularDamping = 0
            float physxRigidBody:linearDamping = 0
        }}"""

    return f"""#usda 1.0
(
    defaultPrim = "World"
    metersPerUnit = 1
    kilogramsPerUnit = 1
    upAxis = "Z"
)
def Xform "World"
{{
    def PhysicsScene "physicsScene"
    {{
        vector3f physics:gravityDirection = (0, 0, -1)
        float physics:gravityMagnitude = 0
    }}
    def Xform "arm" (apiSchemas = ["PhysicsArticulationRootAPI", "PhysxArticulationAPI"])
    {{
        bool physxArticulation:enabledSelfCollisions = 0
        float physxArticulation:sleepThreshold = 0
        float physxArticulation:stabilizationThreshold = 0
        def PhysicsFixedJoint "root"
        {{
            rel physics:body1 = </World/arm/base>
        }}{body("base", (0, 0, 0), (0, 0, 0), 0.01)}{joint("shoulder", "base", "upper", (0, 0, 0))}\
{body("upper", (0, 0, 0), (0.2, 0, 0), 0.001)}{joint("elbow", "upper", "fore", (0.4, 0, 0))}\
{body("fore", (0.4, 0, 0), (0.2, 0, 0), 0.001)}
    }}
}}
"""


def test_driven_joint_accelerates_at_the_gain_whatever_the_links():
    """Oracle: with the drive's gains times 1 / (M^-1)_kk, the joint's own acceleration from rest
    is (M^-1)_kk times that force: k (x* - x0), for a drive on the elbow of an arm whose shoulder
    is free (M_kk would give k (x* - x0) M_kk (M^-1)_kk, 8.9 times as much here)."""
    k, target = 50.0, 0.3
    b = ModelBuilder(gravity=(0, 0, 0))
    b.add_body("upper", joint_type="revolute", axis=(0, 0, 1), mass=1.0, com=(0.2, 0, 0),
               inertia=np.eye(3) * 1e-3)
    b.add_body("fore", parent="upper", joint_type="revolute", axis=(0, 0, 1), p_parent_joint=(0.4, 0, 0),
               mass=1.0, com=(0.2, 0, 0), inertia=np.eye(3) * 1e-3,
               drive=Drive(type="acceleration", stiffness=k, target_position=target))
    dt = 1e-6
    trajectory = api.simulate(b.build(), dt, dt, integrator="rk4")
    acceleration = trajectory.qd[1, 1] / dt
    assert acceleration == pytest.approx(k * target, rel=1e-4)


@pytest.mark.oracle
@pytest.mark.skipif(not ovphysx_available(), reason="ovphysx is not installed (extra `oracle`)")
@pytest.mark.parametrize("driven", ["shoulder", "elbow"])
@pytest.mark.parametrize("drive_type", ["acceleration", "force"])
def test_arm_drive_moves_as_physx_moves_it(tmp_path, driven, drive_type):
    stage = tmp_path / f"{driven}_{drive_type}.usda"
    stage.write_text(_arm_stage(driven, drive_type))
    steps, dt = 100, 1e-3
    report = run_ovphysx_probe(stage, steps=steps, dt=dt)
    physx = {path.rsplit("/", 1)[-1]: joint["dofs"][0]["position"] for path, joint in report["joints"].items()
             if joint.get("dofs")}
    model = load_model(stage)
    trajectory = api.simulate(model, steps * dt, dt)
    ours = {name.rsplit("/", 1)[-1]: float(trajectory.q[-1, model.q_slice(name).start]) for name in model.joint_names}
    print(f"\n{driven} {drive_type}: PhysX {physx}, usdjoints {ours}")
    assert set(ours) == set(physx) == {"shoulder", "elbow"}
    for name in ours:
        assert ours[name] == pytest.approx(physx[name], rel=1e-2), name
    assert abs(physx[driven]) > math.radians(1.0)  # the drive moved it: the comparison says something
