"""A lone free body spinning in flight under semi-implicit Euler (the command line's default).

Oracles (conservation laws and the Euler step's own closed form):
* its linear momentum changes by exactly m g dt a step: the centre of mass' velocity after n
  steps is u_0 + g n dt to round-off, however fast it spins (the free joint's velocity is in
  body axes; stepping that frame's rotation term explicitly grew |u| by a factor
  sqrt(1 + dt^2 |w|^2) a step, m dt^2 |w x u|^2 / 2 of kinetic energy: mjc_quadruped's
  ball gained 0.067 J a step, 3.1 J in all);
* a body whose centre of mass is its origin and whose inertia is isotropic has a constant
  rotation energy, and semi-implicit Euler's free fall loses m g^2 dt^2 / 2 a step: so its
  energy never rises, and after n steps it is exactly E_0 - n m g^2 dt^2 / 2 to round-off.
"""
import numpy as np
import pytest

from usdjoints.model import ModelBuilder
from usdjoints.sim import api

G = 9.81
DT = 1e-3


def _quat_matrix(q):
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def _body(com, inertia, mass=2.0):
    b = ModelBuilder(gravity=(0, 0, -G))
    b.add_body("ball", joint_type="free", mass=mass, com=com, inertia=inertia)
    return b.build()


@pytest.mark.parametrize("com", [(0.0, 0.0, 0.0), (0.1, -0.2, 0.05)])
def test_spinning_body_keeps_its_linear_momentum(com):
    com = np.array(com)
    model = _body(com, np.diag([0.1, 0.2, 0.3]))
    omega = np.array([0.3, 24.0, 0.7])
    v_origin = np.array([-3.9, 0.2, 0.7])
    tr = api.simulate(model, 1.0, DT, qd0=np.concatenate([v_origin, omega]), record_every=10)
    u0 = v_origin + np.cross(omega, com)  # identity start: body and world axes agree
    for t, q, qd in zip(tr.t, tr.q, tr.qd):
        R = _quat_matrix(q[3:])
        u = R @ (qd[:3] + np.cross(qd[3:], com))
        n = round(t / DT)
        np.testing.assert_allclose(u, u0 + np.array([0, 0, -G]) * n * DT, atol=1e-9)


def test_centred_spinning_body_loses_energy_as_free_fall_does():
    mass, inertia = 14.1, 0.3
    model = _body((0.0, 0.0, 0.0), np.eye(3) * inertia, mass)
    omega = np.array([-0.7, -24.4, 0.7])
    v = np.array([-3.9, 0.16, 0.69])
    tr = api.simulate(model, 1.0, DT, qd0=np.concatenate([v, omega]), record_every=1)
    energy = np.array([0.5 * mass * qd[:3] @ qd[:3] + 0.5 * inertia * qd[3:] @ qd[3:] + mass * G * q[2]
                       for q, qd in zip(tr.q, tr.qd)])
    steps = np.arange(len(energy))
    # free fall under semi-implicit Euler: v_n = v_0 + g n dt, z_n = z_0 + dt sum v_k, so
    # E_n = E_0 - n m g^2 dt^2 / 2; the rotation energy is constant (isotropic, torque-free)
    np.testing.assert_allclose(energy, energy[0] - steps * mass * G * G * DT * DT / 2, rtol=0, atol=1e-9 * energy[0])
    assert np.all(np.diff(energy) <= 0.0)
