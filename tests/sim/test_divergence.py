"""Failing fast and clearly: a blown-up state stops the run within a few steps, with a message
naming the body or joint, the time and a hint that fits the integrator; the kernels' arithmetic
failures and memory needs never reach the user as Python exceptions.

Oracles: the closed-form growth of the unstable cases (an explicit step at w dt = 18 multiplies
the state by more than ten each step; a negative spring grows as e^(w t)), and the CLI contract
(SimulationError, not ZeroDivisionError or MemoryError).
"""
from __future__ import annotations

import time

import numpy as np
import pytest

from usdjoints.errors import SimulationError
from usdjoints.model import Drive, ModelBuilder
from usdjoints.sim import api


def _floating_pair(inertia=3e-4):
    """A free base carrying a rotor on a stiff drive (w dt = 18 at dt = 1e-3 for RK4)."""
    b = ModelBuilder(gravity=(0, 0, 0))
    b.add_body("/robot/base", joint_type="free", mass=1.0, inertia=np.eye(3) * 1e-2)
    b.add_body("/robot/rotor", parent="/robot/base", joint_type="revolute", joint_name="/robot/spin",
               mass=0.1, inertia=np.diag([1e-3, 1e-3, inertia]),
               drive=Drive(stiffness=1e5, damping=1e3, target_position=0.5))
    return b.build()


def test_free_base_named_as_its_body_and_rk4_hint():
    """The base's coordinates blow up with the rotor's: the message names the body, not
    "joint '/robot/base[0]'", and tells an RK4 user about the euler integrator."""
    with pytest.raises(SimulationError) as error:
        api.simulate(_floating_pair(), 1.0, 1e-3, integrator="rk4")
    message = str(error.value)
    assert message.startswith("body '/robot/base' (free base, ") or message.startswith("joint '/robot/spin'"), message
    assert "[0]" not in message
    assert "euler integrator" in message
    step = round(float(message.split("t = ")[1].split(" s")[0]) / 1e-3)
    assert step <= 5, message  # growth > 10x a step from a 1e3 rad/s^2 start: a few steps


def test_free_base_reported_as_body():
    """A free body under negative damping (d = -500 N s/m on 1 kg: the implicit step, m / (m + h d),
    doubles its speed every 1 ms step) passes the 100 m/s floor at step 7 from 1 m/s: the
    message names the body and its velocity component, not "joint '/solo/base_link[0]'"."""
    b = ModelBuilder(gravity=(0, 0, 0))
    b.add_body("/solo/base_link", joint_type="free", mass=1.0, inertia=np.eye(3) * 1e-2,
               damping=[-500.0, 0, 0, 0, 0, 0])
    model = b.build(qd_initial=np.array([1.0, 0, 0, 0, 0, 0]))
    with pytest.raises(SimulationError) as error:
        api.simulate(model, 1.0, 1e-3)
    message = str(error.value)
    assert message.startswith("body '/solo/base_link' (free base, linear velocity x) diverged at t = 0.007 s"), message


def test_euler_hint_does_not_suggest_euler():
    """Negative damping d = -0.5 N m s on I = 1e-3 kg m^2: each implicit step multiplies the
    speed by I / (I + h d) = 2, so from 1 rad/s it passes the 1000 rad/s floor at step 10. On
    Euler the hint speaks of masses, gains and dt, not of switching to Euler."""
    b = ModelBuilder(gravity=(0, 0, 0))
    b.add_body("rotor", joint_type="revolute", mass=1.0, inertia=np.diag([1.0, 1.0, 1e-3]), damping=-0.5)
    model = b.build(qd_initial=np.array([1.0]))
    with pytest.raises(SimulationError) as error:
        api.simulate(model, 1.0, 1e-3)
    message = str(error.value)
    assert message.startswith("joint 'rotor' diverged at t = 0.01 s"), message
    assert "euler" not in message.lower()
    assert "reduce dt" in message


def test_fast_start_hint_names_the_initial_velocity():
    """The same doubling rotor started at 1e5 rad/s: its bound is ten times that start, which it
    passes at step 4 (1e5 x 2^4). With no initial velocity the stage implies no speed above the
    1000 rad/s floor, so the hint names the authored start, not masses, gains and dt."""
    b = ModelBuilder(gravity=(0, 0, 0))
    b.add_body("rotor", joint_type="revolute", mass=1.0, inertia=np.diag([1.0, 1.0, 1e-3]), damping=-0.5)
    model = b.build(qd_initial=np.array([1e5]))
    with pytest.raises(SimulationError) as error:
        api.simulate(model, 1.0, 1e-3)
    message = str(error.value)
    assert message.startswith("joint 'rotor' diverged at t = 0.004 s"), message
    assert "starts with joint 'rotor' at 1e+05 rad/s (5.73e+06 deg/s)" in message, message
    assert "reduce dt" not in message


SPINNING_TOP = """#usda 1.0
(
    metersPerUnit = 1
    kilogramsPerUnit = 1
    upAxis = "Z"
)
def PhysicsScene "scene"
{
}
def Xform "Top" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{
    float physics:mass = 1.0
    float3 physics:diagonalInertia = (0.005, 0.005, 0.01)
    point3f physics:centerOfMass = (0, 0, 0.125)
    quatd xformOp:orient = (0.9659258262890683, 0.25881904510252074, 0, 0)
    uniform token[] xformOpOrder = ["xformOp:orient"]
    vector3f physics:angularVelocity = (0, 1e38, 0)
}
def PhysicsSphericalJoint "Tip"
{
    rel physics:body1 = </Top>
}
"""


def test_absurd_authored_spin_is_named(tmp_path):
    """A top tilted 30 deg on a ball joint, authored to spin at 1e38 deg/s about the world's y
    (a value a fuzzer found), blows up at the first step; the hint points at that authored
    velocity: 1e38 deg/s x cos 30 deg about the tilted frame's y, in rad/s."""
    from usdjoints.model.build import load_model

    path = tmp_path / "top.usda"
    path.write_text(SPINNING_TOP)
    with pytest.raises(SimulationError) as error:
        api.simulate(load_model(path), 0.1, 1e-3)
    message = str(error.value)
    assert "joint '/Tip' (spherical, angular velocity y) at 1.51e+36 rad/s" in message, message
    assert "check the authored initial velocities" in message


def test_singular_mass_matrix_is_a_simulation_error():
    """A hinge turning a point mass on its axis moves no inertia: M = 0 cannot be solved. The
    kernels' division by zero becomes SimulationError naming the cause."""
    b = ModelBuilder(gravity=(0, 0, -9.81))
    b.add_body("point", joint_type="revolute", mass=1.0)
    with pytest.raises(SimulationError, match="mass matrix is singular"):
        api.simulate(b.build(), 0.01, 1e-3)


def test_pile_of_boxes_needs_bounded_memory(tmp_path):
    """30 overlapping free cubes make 435 box pairs, 16 points each: a contact buffer sized for
    all of them is [20880, 20880] doubles (3.5 GB) and raised MemoryError. The buffer is capped
    (contact.MAX_CONTACTS) and three steps take well under a few seconds."""
    from usdjoints.model.build import load_model

    cubes = "".join(f"""
def Cube "c{i}" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])
{{
    double size = 0.1
    double3 xformOp:translate = ({0.001 * i}, 0, {0.002 * i})
    uniform token[] xformOpOrder = ["xformOp:translate"]
}}
""" for i in range(30))
    stage = tmp_path / "pile.usda"
    stage.write_text('#usda 1.0\n(\n    metersPerUnit = 1\n    upAxis = "Z"\n)\n' + cubes)
    model = load_model(str(stage))
    assert len(model.collision_pairs) == 435
    api.simulate(model, 0.0, 1e-3)  # kernels loaded
    started = time.perf_counter()
    trajectory = api.simulate(model, 0.003, 1e-3)
    assert time.perf_counter() - started < 5.0
    assert np.all(np.isfinite(trajectory.q))


def _offset_hub():
    """A hub whose frame origin is 3 m from its centre of mass, carrying at its centre of mass a
    flywheel that a velocity drive spins up to 80 rad/s within a step: the hub turns back, and
    its origin (the free base's coordinates) circles the centre of mass at over 100 m/s."""
    b = ModelBuilder(gravity=(0, 0, 0))
    b.add_body("/robot/hub", joint_type="free", mass=1.0, com=(3.0, 0.0, 0.0), inertia=np.eye(3) * 1e-2)
    b.add_body("/robot/wheel", parent="/robot/hub", joint_type="revolute", joint_name="/robot/spin",
               mass=1.0, inertia=np.eye(3) * 5e-2, p_parent_joint=(3.0, 0.0, 0.0),
               drive=Drive(stiffness=0.0, damping=573.0, target_velocity=80.0))
    return b.build()


def test_a_fast_turn_far_from_the_centre_of_mass_is_motion_not_divergence():
    """The divergence bound on a linear coordinate counts the turn rates the stage implies times
    the model's lever arm. Oracle: momentum conservation (no gravity, no external force): the
    system's centre of mass stays where it started, while the hub's origin moves at > 100 m/s."""
    model = _offset_hub()
    run = api.simulate(model, 0.2, 1e-3)
    hub, wheel = run.body_poses[:, 0], run.body_poses[:, 1]
    w, x, y, z = hub[:, 3], hub[:, 4], hub[:, 5], hub[:, 6]
    hub_com = hub[:, :3] + 3.0 * np.stack([1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y)], axis=1)
    com = 0.5 * (hub_com + wheel[:, :3])
    np.testing.assert_allclose(com, np.broadcast_to(com[0], com.shape), atol=1e-9)
    speed = np.linalg.norm(np.diff(hub[:, :3], axis=0), axis=1) / 1e-3
    assert speed.max() > 100.0
