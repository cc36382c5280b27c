"""Contact: soft, mass-normalised normal impulses with Coulomb friction from PhysicsMaterialAPI.

Oracles: energy (a drop never ends above its start energy), Coulomb's law (a sliding block
decelerates at mu g; a block on a slope slides if and only if tan(theta) > mu), and rest (the
penetration of a resting body is bounded and does not drift).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import usdjoints  # noqa: F401  (registers the PhysX schemas before any stage opens)
from usdjoints.model.build import load_model
from usdjoints.sim.api import simulate

STAGE = """#usda 1.0
(
    metersPerUnit = 1
    kilogramsPerUnit = 1
    upAxis = "Z"
)
def PhysicsScene "scene"
{{
    vector3f physics:gravityDirection = ({gx}, {gy}, {gz})
    float physics:gravityMagnitude = 9.81
}}
def Material "Rubber" (prepend apiSchemas = ["PhysicsMaterialAPI"])
{{
    float physics:staticFriction = {mu}
    float physics:dynamicFriction = {mu}
    float physics:restitution = 0
}}
def Plane "Ground" (prepend apiSchemas = ["PhysicsCollisionAPI", "MaterialBindingAPI"])
{{
    uniform token axis = "Z"
    rel material:binding:physics = </Rubber>
}}
def {shape} "Body" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI", "PhysicsCollisionAPI", "MaterialBindingAPI"])
{{
    float physics:mass = 1
    {size}
    rel material:binding:physics = </Rubber>
    double3 xformOp:translate = (0, 0, {z})
    uniform token[] xformOpOrder = ["xformOp:translate"]
}}
"""
G = 9.81
DT = 1e-3


def _model(tmp_path, shape="Cube", size="double size = 0.2", z=0.1, mu=0.5, gravity=(0.0, 0.0, -1.0)):
    path = tmp_path / f"{shape}_{z}_{mu}.usda"
    path.write_text(STAGE.format(shape=shape, size=size, z=z, mu=mu, gx=gravity[0], gy=gravity[1], gz=gravity[2]))
    return load_model(str(path))


def _energy(model, trajectory):
    """Kinetic + potential energy [J] of the free unit-mass body (velocity in body axes)."""
    from usdjoints.sim.api import mass_matrix

    kinetic = np.array([0.5 * v @ mass_matrix(model, q) @ v for q, v in zip(trajectory.q, trajectory.qd)])
    return kinetic + G * trajectory.body_poses[:, 0, 2]


def test_materials_and_colliders_are_read(tmp_path):
    model = _model(tmp_path, mu=0.3)
    assert set(model.collider_names) == {"/Ground", "/Body"}
    assert np.allclose(model.collider_friction, 0.3)
    assert len(model.collision_pairs) == 1


def test_dropped_ball_comes_to_rest_without_gaining_energy(tmp_path):
    """Energy never rises above its start (1e-6 J: rounding); the ball ends at rest on the plane
    within 1 mm, and stays (no drift between 2 s and 3 s)."""
    radius = 0.1
    model = _model(tmp_path, shape="Sphere", size=f"double radius = {radius}", z=1.0)
    trajectory = simulate(model, 3.0, DT)
    energy = _energy(model, trajectory)
    assert energy.max() <= energy[0] + 1e-6
    height = trajectory.body_poses[:, 0, 2]
    assert height.min() > radius - 0.01  # the impact at 4.4 m/s sinks < 1 cm into the soft contact
    assert abs(height[-1] - radius) <= 1e-3
    assert abs(height[-1] - height[2000]) <= 1e-6
    assert np.abs(trajectory.qd[-1]).max() < 1e-3


def test_dropped_box_rests_without_drift(tmp_path):
    """A box dropped flat from 0.3 m: penetration <= 1 mm at rest, no drift over 10 s."""
    model = _model(tmp_path, z=0.3)
    trajectory = simulate(model, 10.0, DT, record_every=100)
    height = trajectory.body_poses[:, 0, 2]
    assert np.all(height[20:] >= 0.1 - 1e-3)
    assert np.ptp(height[20:]) <= 1e-6
    assert np.abs(trajectory.body_poses[20:, 0, :2]).max() <= 1e-6


def test_sliding_box_decelerates_at_mu_g(tmp_path):
    """Coulomb: a box sliding on its face loses mu g of speed per second until it stops; the
    slope over 0.2 s matches to 1e-5 (measured 8e-8: the normal load settles to m g at once)."""
    mu = 0.3
    model = _model(tmp_path, mu=mu)
    q0 = model.q_initial.copy()
    q0[2] = 0.1
    qd0 = np.zeros(model.nv)
    qd0[0] = 2.0
    trajectory = simulate(model, 1.0, DT, q0=q0, qd0=qd0)
    speed = trajectory.qd[:, 0]
    window = slice(100, 300)
    slope = np.polyfit(trajectory.t[window], speed[window], 1)[0]
    assert slope == pytest.approx(-mu * G, rel=1e-5)
    assert speed[-1] == pytest.approx(0.0, abs=1e-6)  # 2 m/s at 2.94 m/s^2 stops at 0.68 s and stays


@pytest.mark.parametrize("degrees, slides", [(20.0, False), (35.0, True)])
def test_block_on_slope_slides_iff_tan_theta_exceeds_mu(tmp_path, degrees, slides):
    """A slope of angle theta is gravity tilted by theta: with mu = 0.5 the block holds at 20 deg
    (tan 0.36) and slides at 35 deg (tan 0.70), accelerating at g (sin - mu cos)."""
    theta = math.radians(degrees)
    mu = 0.5
    model = _model(tmp_path, mu=mu, gravity=(math.sin(theta), 0.0, -math.cos(theta)))
    trajectory = simulate(model, 1.0, DT)
    x = trajectory.body_poses[:, 0, 0]
    if slides:
        expected = G * (math.sin(theta) - mu * math.cos(theta))
        assert trajectory.qd[-1, 0] == pytest.approx(expected * 1.0, rel=1e-5)  # measured 7e-8
    else:
        assert abs(x[-1] - x[0]) < 1e-4


@pytest.mark.parametrize("degrees, rolls", [(30.0, True), (70.0, False)])
def test_ball_on_slope_rolls_or_slides_as_coulomb_says(tmp_path, degrees, rolls):
    """A solid ball (I = 2/5 m r^2) on a slope of angle theta rolls without slipping, at
    a = 5/7 g sin(theta), while the friction it needs (2/7 m g sin) is within mu m g cos, that is
    while tan(theta) <= 7/2 mu; past that it slides at g (sin - mu cos). With mu = 0.5: rolling
    at 30 deg (a sticking contact, which the solve finds in one direct step), sliding at 70 deg
    (the sweeps), its spin growing at 5/2 mu g cos(theta) / r. Oracle: the closed forms, to 1e-5
    of the speed and spin after 0.5 s."""
    theta = math.radians(degrees)
    mu = 0.5
    model = _model(tmp_path, shape="Sphere", size="double radius = 0.1", mu=mu,
                   gravity=(math.sin(theta), 0.0, -math.cos(theta)))
    trajectory = simulate(model, 0.5, DT)
    if rolls:
        expected = 5.0 / 7.0 * G * math.sin(theta)
    else:
        expected = G * (math.sin(theta) - mu * math.cos(theta))
    speed = float(np.linalg.norm(trajectory.qd[-1, :3]))  # in the turning body's axes: its length
    assert speed == pytest.approx(expected * 0.5, rel=1e-5)
    spin = trajectory.qd[-1, 4]  # about y, which the ball turns about and so keeps
    if rolls:
        assert spin * 0.1 == pytest.approx(speed, rel=1e-6)  # no slip: v = w r
    else:  # the friction force mu m g cos spins it up: w r = 5/2 mu g cos t, slower than it slides
        assert spin * 0.1 == pytest.approx(2.5 * mu * G * math.cos(theta) * 0.5, rel=1e-5)


def test_batched_envs_with_contact_match_single_runs(tmp_path):
    """Envs are independent: four drops from different heights equal four single runs."""
    model = _model(tmp_path, shape="Sphere", size="double radius = 0.1", z=0.5)
    q0 = np.tile(model.q_initial, (4, 1))
    q0[:, 2] = [0.3, 0.5, 0.7, 0.9]
    batch = simulate(model, 1.0, DT, q0=q0, n_envs=4, record_every=50)
    for e in range(4):
        single = simulate(model, 1.0, DT, q0=q0[e], record_every=50)
        assert np.array_equal(batch.q[e], single.q)
