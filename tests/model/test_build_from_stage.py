"""Stage -> ArticulatedModel: frames, units, initial state and drive units.

Oracles: the authored body transforms themselves (forward kinematics at the initial state must
put every body where the stage does), the closed-form period of a physical pendulum, unit
invariance (the same pendulum authored in centimetres), and the natural frequency of a drive
whose gains are given per degree.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from samples import SAMPLE_STAGES
from usdjoints.model.build import load_model
from usdjoints.model.rotation import quat_to_matrix
from usdjoints.walker import walk

BUILDABLE = [p for p in SAMPLE_STAGES if p.stem in (
    "arm_articulation", "child_prim_targets", "d6_limits_drives", "fixed_world_anchor", "prismatic_basic",
    "revolute_basic", "scaled_rotated_xforms", "spherical_cone", "units_centimeters", "bad_mirrored_body",
    "bad_onesided_limit")]


def _forward_kinematics(model, q):
    from usdjoints.sim.api import forward_kinematics

    return forward_kinematics(model, q)


@pytest.mark.parametrize("path", [p for p in BUILDABLE if p.stem != "arm_articulation"], ids=lambda p: p.stem)
def test_initial_state_reproduces_authored_body_poses(path):
    """FK(q_initial) places every body where the stage authors it (float32 inputs: 1e-5 m).

    arm_articulation is left out: its PhysicsJointStateAPI positions deliberately override the pose."""
    description = walk(str(path), consumer="usdjoints")
    mpu = description.units.meters_per_unit.value
    model = load_model(str(path))
    positions, quaternions = _forward_kinematics(model, model.q_initial)
    for index, name in enumerate(model.body_names):
        body = description.body(name)
        if any(s < 0 for s in body.world_scale):
            continue  # a mirrored frame cannot be a rigid pose; the walker reports it
        expected_position = np.array(body.world_pose.position) * mpu
        assert np.allclose(positions[index], expected_position, atol=1e-5), name
        expected_rotation = quat_to_matrix(body.world_pose.orientation)
        assert np.allclose(quat_to_matrix(quaternions[index]), expected_rotation, atol=1e-5), name


PENDULUM = """#usda 1.0
(
    metersPerUnit = {mpu}
    kilogramsPerUnit = 1
    upAxis = "Z"
)
def Xform "World" {{
    def PhysicsScene "Scene" {{
        vector3f physics:gravityDirection = (0, 0, -1)
        float physics:gravityMagnitude = {gravity}
    }}
    def Sphere "Bob" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI", "PhysicsMassAPI"]) {{
        double radius = {radius}
        float physics:mass = 2
        double3 xformOp:translate = (0, 0, {minus_length})
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }}
    def PhysicsRevoluteJoint "Pivot" (prepend apiSchemas = {apis}) {{
        uniform token physics:axis = "Y"
        rel physics:body1 = </World/Bob>
        point3f physics:localPos1 = (0, 0, {length})
        {extra}
    }}
}}
"""


def _pendulum(tmp_path, mpu=1.0, extra="", apis="[\"PhysicsJointStateAPI:angular\"]", gravity=9.81):
    scale = 1.0 / mpu
    text = PENDULUM.format(mpu=mpu, radius=0.05 * scale, minus_length=-1.0 * scale, length=1.0 * scale,
                           gravity=gravity * scale, extra=extra, apis=apis)
    path = tmp_path / f"pendulum_{mpu}.usda"
    path.write_text(text)
    return path


def _period(t, angle):
    crossings = [t[i] for i in range(1, len(angle)) if angle[i - 1] > 0.0 >= angle[i]]
    return float(np.mean(np.diff(crossings)))


@pytest.mark.parametrize("mpu", [1.0, 0.01])
def test_pendulum_period_closed_form_in_any_stage_units(tmp_path, mpu):
    """T = 2 pi sqrt(I_pivot / (m g L)) for a 2 kg solid sphere (r = 5 cm) on a 1 m arm.

    Started at 2 deg, the large-amplitude correction is (1 + theta^2/16) ~ 1 + 7.6e-5; semi-implicit
    Euler at dt = 1e-4 adds O(dt^2 omega^2) ~ 1e-7: a 2e-4 relative tolerance covers both."""
    from usdjoints.sim.api import simulate

    path = _pendulum(tmp_path, mpu, extra="float state:angular:physics:position = 2")
    model = load_model(str(path))
    assert math.isclose(model.q_initial[0], math.radians(2.0))
    trajectory = simulate(model, 6.0, 1e-4)
    m, r, length, g = 2.0, 0.05, 1.0, 9.81
    inertia_pivot = 0.4 * m * r * r + m * length * length
    expected = 2 * math.pi * math.sqrt(inertia_pivot / (m * g * length))
    assert math.isclose(_period(trajectory.t, trajectory.q[:, 0]), expected, rel_tol=2e-4)


def test_angular_drive_gains_are_per_degree(tmp_path):
    """A drive of k [N m/deg] on inertia I oscillates at omega = sqrt(k * 180/pi / I) (no gravity).

    Light damping (zeta ~ 0.3%) shifts the frequency by zeta^2/2 ~ 5e-6; tolerance 1e-3."""
    from usdjoints.sim.api import simulate

    k = 0.5  # [N m/deg]
    extra = ("float drive:angular:physics:stiffness = 0.5\n        float drive:angular:physics:damping = 0.0005\n"
             "        float drive:angular:physics:targetPosition = 0")
    path = _pendulum(tmp_path, 1.0, extra=extra + "\n        float state:angular:physics:position = 10",
                     apis='["PhysicsDriveAPI:angular", "PhysicsJointStateAPI:angular"]', gravity=0.0)
    model = load_model(str(path))
    trajectory = simulate(model, 3.0, 1e-4)
    inertia_pivot = 0.4 * 2.0 * 0.05 ** 2 + 2.0 * 1.0
    expected = 2 * math.pi / math.sqrt(k * 180.0 / math.pi / inertia_pivot)
    assert math.isclose(_period(trajectory.t, trajectory.q[:, 0]), expected, rel_tol=1e-3)


def test_limits_are_hard_and_armature_is_read(tmp_path):
    """Oracle: PhysX's hard limits (no spring: dof_limit_stiffness and damping 0, the simulator
    holds the bounds with impulses) and the authored armature [kg m^2], counted once."""
    extra = ("float physics:lowerLimit = -30\n        float physics:upperLimit = 30\n"
             "        float physxJointAxis:angular:armature = 0.5")
    path = _pendulum(tmp_path, 1.0, extra=extra, apis='["PhysxJointAxisAPI:angular"]')
    model = load_model(str(path))
    assert model.dof_armature[0] == pytest.approx(0.5)
    assert model.dof_lower[0] == pytest.approx(math.radians(-30), rel=1e-6)
    assert model.dof_upper[0] == pytest.approx(math.radians(30), rel=1e-6)
    assert model.dof_limit_stiffness[0] == 0.0 and model.dof_limit_damping[0] == 0.0
    inertia = 0.4 * 2.0 * 0.05 ** 2 + 2.0 * 1.0 ** 2 + 0.5
    from usdjoints.sim.api import mass_matrix
    assert mass_matrix(model, model.q_initial)[0, 0] == pytest.approx(inertia, rel=1e-6)


def test_joint_state_overrides_the_authored_pose():
    """arm_articulation authors PhysicsJointStateAPI positions [deg / m]; they win over the pose."""
    path = next(p for p in SAMPLE_STAGES if p.stem == "arm_articulation")
    description = walk(str(path), consumer="usdjoints")
    model = load_model(str(path))
    for joint in description.joints:
        for state in joint.states:
            if state.position.authored:
                value = float(state.position.value)
                expected = math.radians(value) if state.dof == "angular" else value
                assert math.isclose(model.q_initial[model.q_slice(joint.path)][0], expected, abs_tol=1e-9)


def test_distance_joints_stay_outside_the_tree():
    """Distance joints are held as PhysX holds them, never as articulation joints: each body they
    join is a free root of its own, and the joint a row with its anchors in the links' frames and
    its bounds as the stage authors them (a negative minDistance, the schema's -1, is none).
    Oracle: sample_stages/distance_minmax.usda's authored values."""
    path = next(p for p in SAMPLE_STAGES if p.stem == "distance_minmax")
    model = load_model(str(path))
    assert model.nlink == 3 and set(model.link_type) == {model.link_type[0]}  # three free roots
    assert model.distance_names == ("/World/Rope", "/World/Leash")
    link = {name: int(model.body_link[model.body_names.index(name)]) for name in model.body_names}
    assert model.distance_link.tolist() == [[link["/World/Anchor"], link["/World/Weight"]],
                                            [link["/World/Anchor"], link["/World/Dog"]]]
    assert np.allclose(model.distance_p_link_frame[0], [[0, 0, -0.158], [0, 0, 0.1]])
    assert np.allclose(model.distance_p_link_frame[1], 0.0)
    assert model.distance_bounds.tolist() == [[0.5, 2.0], [-math.inf, 1.5]]
