"""Motion against closed forms: pendulum periods, double-pendulum energy, a damped oscillator's
log decrement, a free body's parabola and angular momentum. Each tolerance is derived from the
integrator's order and step.
"""
import math

import numpy as np
import pytest

from usdjoints.model import ModelBuilder
from usdjoints.sim import api

G = 9.81


def _pendulum(length=1.0, mass=1.0, inertia_com=1e-3):
    b = ModelBuilder(gravity=(0.0, 0.0, -G))
    b.add_body("bob", joint_type="revolute", axis=(0, 1, 0), mass=mass, com=(0, 0, -length),
               inertia=np.eye(3) * inertia_com)
    return b.build(), inertia_com + mass * length ** 2


def _elliptic_k(k):
    """Complete elliptic integral of the first kind by the arithmetic-geometric mean."""
    a, b = 1.0, math.sqrt(1.0 - k * k)
    while abs(a - b) > 1e-16:
        a, b = 0.5 * (a + b), math.sqrt(a * b)
    return math.pi / (2.0 * a)


def _upward_crossings(t, x):
    idx = np.nonzero((x[:-1] < 0.0) & (x[1:] >= 0.0))[0]
    return t[idx] - x[idx] * (t[idx + 1] - t[idx]) / (x[idx + 1] - x[idx])


@pytest.mark.parametrize("amplitude, integrator, rtol", [
    # semi-implicit Euler is symplectic: its period error is (w dt)^2 / 24 = 4e-7 at w = 3.1 rad/s
    (0.01, "euler", 2e-6),
    # RK4: O((w dt)^4) phase error; what is left is the linear interpolation of the crossings
    (2.0, "rk4", 1e-8),
])
def test_pendulum_period(amplitude, integrator, rtol):
    """Oracle: T = 4 sqrt(I / (m g L)) K(sin(theta0 / 2)), the exact period at any amplitude."""
    model, inertia_pivot = _pendulum()
    tr = api.simulate(model, 12.0, 1e-3, integrator=integrator, q0=[amplitude])
    crossings = _upward_crossings(tr.t, tr.q[:, 0])
    period = np.mean(np.diff(crossings))
    expected = 4.0 * math.sqrt(inertia_pivot / (1.0 * G * 1.0)) * _elliptic_k(math.sin(amplitude / 2))
    assert abs(period / expected - 1.0) < rtol


def _double_pendulum():
    """The textbook case: two 1 kg bobs on 1 m massless rods (tiny inertia keeps M regular)."""
    b = ModelBuilder(gravity=(0.0, 0.0, -G))
    b.add_body("upper", joint_type="revolute", axis=(0, 1, 0), mass=1.0, com=(0, 0, -1.0),
               inertia=np.eye(3) * 1e-6)
    b.add_body("lower", parent="upper", joint_type="revolute", axis=(0, 1, 0),
               p_parent_joint=(0, 0, -1.0), mass=1.0, com=(0, 0, -1.0), inertia=np.eye(3) * 1e-6)
    return b.build(q_initial=[1.2, -0.6])


def _energy(model, tr):
    """Kinetic from the mass matrix, potential from the recorded body poses."""
    energies = []
    for q, qd, poses in zip(tr.q, tr.qd, tr.body_poses):
        potential = 0.0
        for b, link in enumerate(model.body_link):
            w, x, y, z = poses[b, 3:]
            R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                          [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                          [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
            com = poses[b, :3] + R @ model.link_com[link]
            potential -= model.link_mass[link] * model.gravity @ com
        energies.append(0.5 * qd @ api.mass_matrix(model, q) @ qd + potential)
    return np.array(energies)


def _swing_energy_drift(integrator, dt):
    model = _double_pendulum()
    tr = api.simulate(model, 10.0, dt, integrator=integrator, record_every=int(round(0.01 / dt)))
    energy = _energy(model, tr)
    rest = api.simulate(model, 0.0, dt, q0=[0.0, 0.0])
    swing = energy[0] - _energy(model, rest)[0]
    return np.max(np.abs(energy - energy[0])) / swing


def test_double_pendulum_energy_rk4():
    """Oracle: energy conservation. RK4 at dt = 1e-3 drifts O(dt^4) per unit time (~1e-11)."""
    assert _swing_energy_drift("rk4", 1e-3) < 1e-8


def test_double_pendulum_energy_euler_first_order():
    """Oracle: energy conservation. Symplectic Euler keeps a bounded O(dt) energy error."""
    coarse = _swing_energy_drift("euler", 1e-3)
    fine = _swing_energy_drift("euler", 5e-4)
    assert coarse < 2e-2
    assert 1.6 < coarse / fine < 2.5  # first order: halving dt halves the error


def test_damped_oscillator_log_decrement():
    """Oracle: successive peaks of x'' + 2 zeta w x' + w^2 x = 0 shrink by
    exp(2 pi zeta / sqrt(1 - zeta^2))."""
    inertia, stiffness, zeta = 0.5, 50.0, 0.05
    damping = 2 * zeta * math.sqrt(stiffness * inertia)
    b = ModelBuilder(gravity=(0, 0, 0))
    b.add_body("rotor", joint_type="revolute", mass=1.0, inertia=np.diag([0.1, 0.1, inertia]),
               stiffness=stiffness, damping=damping)
    tr = api.simulate(b.build(q_initial=[0.3]), 6.0, 1e-3, integrator="rk4")
    x = tr.q[:, 0]
    peaks = []
    for i in np.nonzero((x[1:-1] > x[:-2]) & (x[1:-1] >= x[2:]))[0] + 1:
        a, c, bb = x[i - 1], x[i + 1], x[i]
        peaks.append(bb - 0.125 * (c - a) ** 2 / (a - 2 * bb + c))  # parabola through 3 samples
    decrements = np.log(np.array(peaks[:-1]) / np.array(peaks[1:]))
    expected = 2 * math.pi * zeta / math.sqrt(1 - zeta ** 2)
    # RK4 amplitude error O((w dt)^4) = 1e-8; parabolic peak error O((w dt)^3) = 1e-6 of a peak.
    np.testing.assert_allclose(decrements, expected, rtol=1e-4)


def test_free_body_parabola_and_angular_momentum():
    """Oracle: the com of a free body follows p0 + v0 t + g t^2 / 2 and its angular momentum
    about the com, R I w, stays constant (torque-free: gravity acts at the com)."""
    inertia = np.diag([0.1, 0.2, 0.3])
    com = np.array([0.1, -0.2, 0.05])
    b = ModelBuilder(gravity=(0, 0, -G))
    b.add_body("brick", joint_type="free", mass=2.0, com=com, inertia=inertia)
    model = b.build()
    omega = np.array([0.3, 2.0, 0.1])
    v_origin = np.array([1.0, 0.0, 3.0])
    tr = api.simulate(model, 2.0, 1e-3, integrator="rk4", qd0=np.concatenate([v_origin, omega]),
                      record_every=10)
    v_com0 = v_origin + np.cross(omega, com)  # identity start: body and world axes agree
    for t, q, qd in zip(tr.t, tr.q, tr.qd):
        w, x, y, z = q[3:]
        R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                      [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                      [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
        expected = com + v_com0 * t + 0.5 * np.array([0, 0, -G]) * t * t
        # RK4 global error O(dt^4) times the spin rate: ~1e-12 m over 2 s.
        np.testing.assert_allclose(q[:3] + R @ com, expected, atol=1e-9)
        np.testing.assert_allclose(R @ inertia @ qd[3:], inertia @ omega, atol=1e-9)
