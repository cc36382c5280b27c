"""Passive forces, limits, drives and the step loop: closed forms, exact discrete values of the
Euler update where a force is constant, and the failure paths."""
import math

import numpy as np
import pytest

from usdjoints.errors import SimulationError, UsageError
from usdjoints.model import Drive, ModelBuilder
from usdjoints.sim import api


def _rotor(inertia=1.0, **joint):
    """One revolute joint about z, com on the axis, no gravity: M = [inertia]."""
    b = ModelBuilder(gravity=(0, 0, 0))
    b.add_body("rotor", joint_type="revolute", mass=1.0, inertia=np.diag([1.0, 1.0, inertia]), **joint)
    return b.build()


def test_stiff_drive_on_light_link_settles_with_implicit_euler():
    """Oracle: the drive's fixed point q = target. Stiffness 1e5 and damping 1e3 on 3e-4 kg m^2
    are ~80x / 1500x past the explicit stability bound at dt = 1e-3; the implicit step is
    unconditionally stable for a linear spring-damper, so it must settle."""
    model = _rotor(inertia=3e-4, drive=Drive(stiffness=1e5, damping=1e3, target_position=0.5))
    tr = api.simulate(model, 1.0, 1e-3)
    assert np.all(np.isfinite(tr.q))
    assert np.max(tr.q[:, 0]) <= 0.5 + 1e-9  # overdamped (zeta = 91): no overshoot
    assert abs(tr.q[-1, 0] - 0.5) < 1e-9 and abs(tr.qd[-1, 0]) < 1e-9


def test_explicit_rk4_diverges_on_stiff_drive_and_names_the_joint():
    """The same drive under explicit RK4 (w dt = 18 >> 2.8) must stop with SimulationError."""
    model = _rotor(inertia=3e-4, drive=Drive(stiffness=1e5, damping=1e3, target_position=0.5))
    with pytest.raises(SimulationError, match=r"joint 'rotor' diverged at t = "):
        api.simulate(model, 1.0, 1e-3, integrator="rk4")


def _step_response(t, inertia, stiffness, damping, target):
    w = math.sqrt(stiffness / inertia)
    zeta = damping / (2 * math.sqrt(stiffness * inertia))
    wd = w * math.sqrt(1 - zeta ** 2)
    return target * (1 - np.exp(-zeta * w * t) * (np.cos(wd * t) + zeta / math.sqrt(1 - zeta ** 2) * np.sin(wd * t)))


@pytest.mark.parametrize("drive_type, inertia", [("force", 2.0), ("acceleration", 2.0), ("acceleration", 0.3)])
def test_position_drive_step_response(drive_type, inertia):
    """Oracle: I x'' = k (x* - x) - d x' from rest (underdamped closed form). An acceleration
    drive scales its gains by the joint's inertia, so its response has I = 1 whatever the link."""
    k, d, target = 100.0, 4.0, 0.7
    model = _rotor(inertia=inertia, drive=Drive(type=drive_type, stiffness=k, damping=d, target_position=target))
    tr = api.simulate(model, 2.0, 1e-3, integrator="rk4")
    effective = inertia if drive_type == "force" else 1.0
    # RK4 at w dt <= 7e-3: global error ~ (w dt)^4 w t / 120, far below 1e-8 rad.
    np.testing.assert_allclose(tr.q[:, 0], _step_response(tr.t, effective, k, d, target), atol=1e-8)


def test_effort_limit_clamps_the_drive():
    """Oracle: while saturated the drive is a constant torque tau_max, so Euler gives exactly
    v_n = n dt tau_max / I."""
    inertia, tau_max, dt = 2.0, 3.0, 1e-3
    model = _rotor(inertia=inertia, drive=Drive(stiffness=1e4, target_position=1.0), effort_limit=tau_max)
    tr = api.simulate(model, 0.05, dt)
    n = np.arange(len(tr.t))
    np.testing.assert_allclose(tr.qd[:, 0], n * dt * tau_max / inertia, rtol=1e-12, atol=1e-15)


def test_max_force_clamps_the_drive():
    inertia, dt = 2.0, 1e-3
    model = _rotor(inertia=inertia, drive=Drive(stiffness=1e4, target_position=1.0, max_force=0.5))
    tr = api.simulate(model, 0.05, dt)
    np.testing.assert_allclose(tr.qd[:, 0], np.arange(len(tr.t)) * dt * 0.5 / inertia, rtol=1e-12)


def test_saturated_stiff_drive_on_light_link_does_not_overshoot():
    """Oracle: a velocity drive clamped by maxForce accelerates at exactly bound / I while
    saturated (v_n = n dt bound / I under Euler), then settles on its target speed without ever
    passing it. The drive's damping (1e3 N m s) is 800x the link's inertia over dt: deciding
    saturation on the start-of-step force would fling the link ~70 rad/s past the target."""
    inertia, dt, bound, target = 5e-3, 4e-3, 0.5, 1.5708
    model = _rotor(inertia=inertia, drive=Drive(damping=1e3, target_velocity=target, max_force=bound))
    tr = api.simulate(model, 0.2, dt)
    speed = tr.qd[:, 0]
    # saturated while the implicit end-of-step force 1e3 (target - v) I / (I + dt 1e3) > bound
    saturated = int(np.argmax(target - speed < bound * (inertia + dt * 1e3) / (inertia * 1e3)))
    assert saturated >= 3
    n = np.arange(saturated)
    np.testing.assert_allclose(speed[:saturated], n * dt * bound / inertia, rtol=1e-12, atol=1e-15)
    assert np.max(speed) <= target + 1e-12  # the implicit branch lands on, never past, the target
    assert abs(speed[-1] - target) < 1e-9


def test_velocity_limit_is_enforced():
    """The limit is a joint-space impulse that puts v on the bound (to round-off)."""
    model = _rotor(drive=Drive(stiffness=1e3, damping=10.0, target_position=1.0), velocity_limit=0.25)
    tr = api.simulate(model, 1.0, 1e-3)
    assert np.max(np.abs(tr.qd[:, 0])) <= 0.25 * (1.0 + 1e-12)
    assert np.isclose(tr.qd[100, 0], 0.25)  # reached and held at the bound


def test_soft_limit_steady_penetration():
    """Oracle: at rest a constant torque tau against a soft limit of stiffness k sits tau / k
    past the bound. The torque is a saturated velocity drive (constant 20 N m)."""
    tau, k_limit, upper = 20.0, 1e4, 0.5
    model = _rotor(upper=upper, limit_stiffness=k_limit, limit_damping=50.0,
                   drive=Drive(damping=100.0, target_velocity=10.0, max_force=tau))
    tr = api.simulate(model, 3.0, 1e-3)
    # the steady state is an exact fixed point of the Euler update; 1e-9 leaves the decay tail.
    assert abs(tr.q[-1, 0] - (upper + tau / k_limit)) < 1e-9


def test_limit_damping_only_resists_deeper_motion():
    """Seed 001: the limit damper is gated. Leaving the limit, only the spring acts."""
    from usdjoints.sim.kernels.passive import passive_forces
    from usdjoints.sim.packed import pack

    model = _rotor(upper=0.5, limit_stiffness=100.0, limit_damping=7.0)
    table = pack(model).dof_table
    M = np.eye(1)
    tau, K, D = np.empty(1), np.empty(1), np.empty(1)
    passive_forces(table, np.array([0.6]), np.array([-2.0]), M, np.ones(1), 0.0, tau, K, D)  # moving out
    assert tau[0] == pytest.approx(-100.0 * 0.1) and D[0] == 0.0
    passive_forces(table, np.array([0.6]), np.array([2.0]), M, np.ones(1), 0.0, tau, K, D)   # moving deeper
    assert tau[0] == pytest.approx(-100.0 * 0.1 - 7.0 * 2.0) and D[0] == 7.0


def test_dry_friction_stops_a_sliding_block():
    """Oracle: Coulomb friction F decelerates a block m at F/m: it stops after m v0 / F [s]
    having slid m v0^2 / (2F) [m]."""
    mass, friction, v0 = 2.0, 3.0, 1.5
    b = ModelBuilder(gravity=(0, 0, 0))
    b.add_body("block", joint_type="prismatic", axis=(1, 0, 0), mass=mass, inertia=np.eye(3),
               friction_loss=friction)
    tr = api.simulate(b.build(qd_initial=[v0]), 2.0, 1e-3)
    # semi-implicit Euler lags by v0 dt / 2 = 7.5e-4 m; regularisation adds ~1e-6 m of creep.
    assert abs(tr.q[-1, 0] - mass * v0 ** 2 / (2 * friction)) < 1e-3
    assert abs(tr.qd[-1, 0]) < 1e-6


def test_damping_and_spring_decay_with_implicit_euler():
    """A critically damped spring must not overshoot under the implicit step at large dt."""
    model = _rotor(inertia=1e-3, stiffness=1e4, damping=2 * math.sqrt(1e4 * 1e-3), spring_ref=0.2)
    tr = api.simulate(model, 0.5, 1e-2)
    assert np.max(tr.q[:, 0]) <= 0.2 + 1e-12 and abs(tr.q[-1, 0] - 0.2) < 1e-6


def test_batched_envs_match_single_runs_exactly():
    """Envs are independent and the step is deterministic: batching changes no bit."""
    b = ModelBuilder(gravity=(0, 0, -9.81))
    b.add_body("base", joint_type="free", mass=1.0, inertia=np.eye(3) * 0.1)
    b.add_body("arm", parent="base", joint_type="spherical", p_parent_joint=(0, 0, 0.3), mass=0.5,
               com=(0, 0, 0.2), inertia=np.eye(3) * 0.01, damping=0.1)
    model = b.build()
    rng = np.random.default_rng(0)
    qd0 = rng.normal(size=(3, model.nv))
    batch = api.simulate(model, 0.2, 1e-3, qd0=qd0, n_envs=3, integrator="rk4")
    assert batch.q.shape == (3, 201, model.nq) and batch.body_poses.shape == (3, 201, 2, 7)
    for e in range(3):
        single = api.simulate(model, 0.2, 1e-3, qd0=qd0[e], integrator="rk4")
        np.testing.assert_array_equal(batch.q[e], single.q)
        np.testing.assert_array_equal(batch.body_poses[e], single.body_poses)


def test_bad_arguments_are_usage_errors():
    model = _rotor()
    with pytest.raises(UsageError, match="dt"):
        api.simulate(model, 1.0, -1e-3)
    with pytest.raises(UsageError, match="integrator"):
        api.simulate(model, 1.0, 1e-3, integrator="verlet")
    with pytest.raises(UsageError, match=r"q0 must have shape \(1,\)"):
        api.simulate(model, 1.0, 1e-3, q0=[0.0, 1.0])
    with pytest.raises(UsageError, match="non-finite"):
        api.forward_dynamics(model, [np.nan], [0.0], [0.0])
