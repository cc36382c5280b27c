"""Acceptance: motion of the sample stages in sample_stages/sim against closed forms, each read
through load_model (so unit conversion, joint frames and initial states are part of what is
checked). tests/sim_stages.py writes the stages and holds their parameters.

Oracles: the exact pendulum period (complete elliptic integral K), energy conservation, the log
decrement of a damped oscillator, free-fall kinematics and conservation of angular momentum, the
gyroscopic precession rate m g l / (I3 w3), the step response of a second-order system, and the
hard limit holding an arm on its bound against gravity.
Stage values are chosen to be exact in float32 where it matters, else the float32 rounding
(~6e-8 relative) is far below each tolerance.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import sim_stages
from sim_stages import DAMPED, FREE_BODY, SOFT_LIMIT, STEP, TOP
from usdjoints.model.build import load_model
from usdjoints.sim import api

def _sample(name):
    """The sample stage sample_stages/sim/<name>.usda (test_sample_stages.py keeps it current)."""
    return load_model(sim_stages.path(name))


def _elliptic_k(k):
    """Complete elliptic integral of the first kind, by the arithmetic-geometric mean."""
    a, b = 1.0, math.sqrt(1.0 - k * k)
    while abs(a - b) > 1e-16:
        a, b = 0.5 * (a + b), math.sqrt(a * b)
    return math.pi / (2.0 * a)


def _upward_crossings(t, x):
    i = np.nonzero((x[:-1] < 0.0) & (x[1:] >= 0.0))[0]
    return t[i] - x[i] * (t[i + 1] - t[i]) / (x[i + 1] - x[i])


def _rotation(quat):
    w, x, y, z = quat
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


# ---------------------------------------------------------------------------------------------
def test_large_amplitude_pendulum_period():
    """Oracle: T = 4 sqrt(I / (m g L)) K(sin(theta0 / 2)) at theta0 = 120 deg [s]."""
    model = _sample("pendulum_120deg")
    assert model.q_initial[0] == pytest.approx(math.radians(120), abs=1e-7)
    g = float(np.linalg.norm(model.gravity))
    tr = api.simulate(model, 15.0, 1e-3, integrator="rk4")
    period = np.mean(np.diff(_upward_crossings(tr.t, tr.q[:, 0])))
    expected = 4.0 * math.sqrt((0.001 + 1.0) / (g * 1.0)) * _elliptic_k(math.sin(math.radians(60)))
    print(f"\npendulum 120 deg: period {period:.9f} s vs elliptic {expected:.9f} s "
          f"(rel {abs(period / expected - 1):.1e})")
    # RK4 at w dt = 3e-3 has ~1e-11 phase error per period; linear interpolation of a crossing
    # where q'' = 0 is exact to third order; float32 inertia 1e-3 rounds at 5e-11 relative.
    assert abs(period / expected - 1.0) < 1e-7


# ---------------------------------------------------------------------------------------------
def _energy(model, tr):
    """Kinetic 1/2 v'Mv plus potential -m g.x of each body's centre of mass [J]."""
    out = []
    for q, qd, poses in zip(tr.q, tr.qd, tr.body_poses):
        potential = 0.0
        for b, link in enumerate(model.body_link):
            com = poses[b, :3] + _rotation(poses[b, 3:]) @ model.link_com[link]
            potential -= model.link_mass[link] * model.gravity @ com
        out.append(0.5 * qd @ api.mass_matrix(model, q) @ qd + potential)
    return np.array(out)


def _energy_drift(model, integrator, dt):
    tr = api.simulate(model, 10.0, dt, integrator=integrator, record_every=int(round(0.01 / dt)))
    e = _energy(model, tr)
    # relative to the swing energy: the energy above the hanging rest state (bobs at z = -1, -2)
    rest = float(np.linalg.norm(model.gravity)) * (1.0 * -1.0 + 1.0 * -2.0)
    return float(np.max(np.abs(e - e[0])) / (e[0] - rest))


def test_double_pendulum_energy_rk4():
    """Oracle: energy conservation; RK4 at dt = 1e-3 over 10 s drifts <= 1e-8 of the swing."""
    drift = _energy_drift(_sample("double_pendulum"), "rk4", 1e-3)
    print(f"\ndouble pendulum 10 s, rk4 dt=1e-3: energy drift {drift:.2e}")
    assert drift <= 1e-8


def test_double_pendulum_energy_euler_first_order():
    """Oracle: energy conservation; semi-implicit Euler's energy error is first order in dt
    (<= 2e-2 at dt = 1e-3, and halving dt halves it: ratio within [1.6, 2.5])."""
    model = _sample("double_pendulum")
    coarse = _energy_drift(model, "euler", 1e-3)
    fine = _energy_drift(model, "euler", 5e-4)
    print(f"\ndouble pendulum 10 s, euler: drift {coarse:.2e} at dt=1e-3, {fine:.2e} at 5e-4, "
          f"ratio {coarse / fine:.2f}")
    assert coarse <= 2e-2
    assert 1.6 < coarse / fine < 2.5


# ---------------------------------------------------------------------------------------------
def test_damped_oscillator_log_decrement():
    """Oracle: delta = 2 pi zeta / sqrt(1 - zeta^2), zeta = c / (2 sqrt(k I)): the log ratio of
    successive peaks of a drive spring (k) damped by PhysxJointAxisAPI viscous friction (c)."""
    inertia = DAMPED["inertia"]
    k, c = math.degrees(DAMPED["k_deg"]), math.degrees(DAMPED["c_deg"])  # per radian, as PhysX reads them
    model = _sample("damped_oscillator")
    assert model.dof_damping[0] == pytest.approx(c, rel=1e-6)
    tr = api.simulate(model, 8.0, 1e-3, integrator="rk4")
    x = tr.q[:, 0]
    i = np.nonzero((x[1:-1] > x[:-2]) & (x[1:-1] >= x[2:]))[0] + 1
    # parabola through the three samples around each maximum gives the peak height
    peaks = x[i] + (x[i + 1] - x[i - 1]) ** 2 / (8.0 * (2.0 * x[i] - x[i - 1] - x[i + 1]))
    measured = np.log(peaks[:-1] / peaks[1:])
    zeta = c / (2.0 * math.sqrt(k * inertia))
    expected = 2.0 * math.pi * zeta / math.sqrt(1.0 - zeta * zeta)
    print(f"\ndamped oscillator: log decrement {measured.mean():.8f} vs {expected:.8f} "
          f"over {len(measured)} periods (zeta {zeta:.4f})")
    # RK4 at w dt = 4e-3 is exact to ~1e-11; the parabolic peak is off by ~(w dt)^2 zeta / 12 of
    # the height, which cancels in the ratio to ~1e-7 of delta.
    assert np.max(np.abs(measured / expected - 1.0)) < 1e-5


# ---------------------------------------------------------------------------------------------
def test_free_body_parabola_and_angular_momentum():
    """Oracles: x(t) = x0 + v0 t + g t^2 / 2 for the centre of mass; L = R I w constant in the
    world for a torque-free asymmetric body (spun about an axis that is not principal)."""
    model = _sample("free_body")
    assert model.joint_types == ("free",)
    tr = api.simulate(model, 2.0, 1e-3, integrator="rk4", record_every=100)
    g = model.gravity
    expected = (np.array(FREE_BODY["position"]) + np.outer(tr.t, FREE_BODY["velocity"])
                + 0.5 * np.outer(tr.t ** 2, g))
    position_error = np.max(np.abs(tr.body_poses[:, 0, :3] - expected))
    inertia = np.diag(FREE_BODY["inertia"])
    momenta = []
    for pose, qd in zip(tr.body_poses[:, 0], tr.qd):
        momenta.append(_rotation(pose[3:]) @ inertia @ qd[3:])  # body-frame angular velocity
    momenta = np.array(momenta)
    L0 = np.deg2rad(FREE_BODY["angular_velocity_deg"])  # authored world angular velocity ...
    R0 = _rotation(FREE_BODY["orient"])
    L0 = R0 @ inertia @ R0.T @ L0  # ... times the world inertia at t = 0
    momentum_error = np.max(np.abs(momenta - L0)) / np.linalg.norm(L0)
    print(f"\nfree body 2 s: parabola max error {position_error:.1e} m, "
          f"angular momentum drift {momentum_error:.1e} (relative)")
    # RK4 integrates a quadratic exactly: round-off only.
    assert position_error < 1e-9
    # |w| = 4.1 rad/s, w dt = 4e-3: RK4's local error ~(w dt)^5 / 120 per step, 2000 steps
    assert momentum_error < 1e-8


# ---------------------------------------------------------------------------------------------
def test_spinning_top_precession_rate():
    """Oracle: a fast symmetric top precesses at Omega = m g l / (I3 w3) (gyroscopic
    approximation). Spherical joint at the tip to the world, tilted 30 deg, spun at 200 rad/s
    about its axis plus Omega about the vertical, both authored as the body's
    physics:angularVelocity [deg/s, world] and read from the stage."""
    mass, l, i1, i3, w3 = TOP["mass"], TOP["length"], TOP["i1"], TOP["i3"], TOP["spin"]
    tilt = math.radians(TOP["tilt_deg"])
    omega = sim_stages.top_precession_rate()
    model = _sample("spinning_top")
    assert model.joint_types == ("spherical",)
    assert float(np.linalg.norm(model.gravity)) == pytest.approx(9.81)
    # the spherical joint's velocity is the angular velocity in the moving (body) frame; float32
    # storage of the authored vector leaves ~1e-7 relative
    expected = np.array([0.0, 0.0, w3]) + _rotation(model.q_initial[:4]).T @ np.array([0.0, 0.0, omega])
    np.testing.assert_allclose(model.qd_initial, expected, rtol=0, atol=1e-7 * w3)
    tr = api.simulate(model, 4.0, 2.5e-4, integrator="rk4", record_every=40)
    axes = np.array([_rotation(p[0, 3:])[:, 2] for p in tr.body_poses[:, None, 0]])
    azimuth = np.unwrap(np.arctan2(axes[:, 1], axes[:, 0]))
    rate = np.polyfit(tr.t, azimuth, 1)[0]
    # the approximation drops the I1' Omega cos(theta) term of m g l = Omega (I3 w3 - I1' Omega
    # cos theta): that relative size, doubled, plus the small nutation started by the tilt
    i1_pivot = i1 + mass * l * l
    tolerance = 2.0 * i1_pivot * omega * math.cos(tilt) / (i3 * w3) + 1e-4
    print(f"\nspinning top: precession {rate:.6f} rad/s vs m g l / (I3 w3) = {omega:.6f} "
          f"(rel {abs(rate / omega - 1):.1e}, tolerance {tolerance:.1e})")
    assert abs(rate / omega - 1.0) < tolerance


def test_top_spun_by_authored_angular_velocity(tmp_path):
    """Oracle: the authored body angular velocity [deg/s, world] expressed in the moving frame
    is the spherical joint's initial velocity (its joint frame is the world)."""
    body = sim_stages.body("Top", 1, (0.005, 0.005, 0.01), com=(0, 0, 0.125),
                           extra="        vector3f physics:angularVelocity = (0, 0, 11459.156)\n")
    joint = """    def PhysicsSphericalJoint "Tip"
    {
        rel physics:body1 = </World/Top>
    }
"""
    path = tmp_path / "top.usda"
    path.write_text(sim_stages.stage(body + joint))
    model = load_model(path)
    np.testing.assert_allclose(model.qd_initial, [0.0, 0.0, 200.0], rtol=1e-6)


# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("integrator, dt, atol", [
    ("rk4", 1e-3, 1e-8),  # (w dt)^4 with w = 20 rad/s: ~1e-10 of the 30 deg step
    ("euler", 1e-4, 2e-3),  # implicit drive: first order, ~ w dt x step = 1e-3 rad
])
def test_position_drive_step_response(integrator, dt, atol):
    """Oracle: q(t) = A (1 - e^(-zeta w t) (cos(wd t) + zeta w / wd sin(wd t))), the step
    response of I q'' + c q' + k q = k A, for a drive from rest at 0 to a 30 deg target [rad]."""
    inertia = STEP["inertia"]
    k, c = math.degrees(STEP["k_deg"]), math.degrees(STEP["c_deg"])
    model = _sample("position_drive_step")
    tr = api.simulate(model, 1.5, dt, integrator=integrator)
    w = math.sqrt(k / inertia)
    zeta = c / (2.0 * math.sqrt(k * inertia))
    wd = w * math.sqrt(1.0 - zeta * zeta)
    A = math.radians(STEP["target_deg"])
    expected = A * (1.0 - np.exp(-zeta * w * tr.t) * (np.cos(wd * tr.t) + zeta * w / wd * np.sin(wd * tr.t)))
    error = float(np.max(np.abs(tr.q[:, 0] - expected)))
    print(f"\nposition drive step ({integrator}, dt={dt:g}): w {w:.3f} rad/s, zeta {zeta:.3f}, "
          f"max |q - closed form| {error:.1e} rad")
    assert error < atol


# ---------------------------------------------------------------------------------------------
def test_limit_holds_the_arm_on_its_bound():
    """Oracle: the hard limit's discrete closed form. A horizontal arm pressed by gravity onto its
    upper limit at 0 deg: the limit impulse (sim/kernels/limits.py) lets no step carry the joint
    past the bound (v' >= (upper - q) / dt exactly), so the arm rests on it: q = upper and
    qd = 0 to round-off, with no excursion past it at any step."""
    model = _sample("soft_limit")
    assert model.q_initial[0] == pytest.approx(0.0, abs=1e-7)
    assert model.dof_limit_stiffness[0] == 0.0  # hard: no spring unless a model asks for one
    tr = api.simulate(model, 1.0, 1e-3)
    upper = float(model.dof_upper[0])
    over = float(np.max(tr.q[:, 0] - upper))  # positive q turns +x towards -z: into the limit
    print(f"\nlimit: worst excursion past the bound {over:.1e} rad, final |qd| {abs(tr.qd[-1, 0]):.1e}")
    assert over < 1e-12
    assert abs(tr.q[-1, 0] - upper) < 1e-12 and abs(tr.qd[-1, 0]) < 1e-12
