"""Physics identities on seeded random trees (the RigidBodyDynamics.jl checks).

Oracles: kinetic energy from world-frame body velocities (tests/reference), ID(FD(tau)) = tau,
M symmetric positive definite, dM/dt - 2C skew-symmetric, and the power balance
d(KE)/dt = v^T (tau - g(q)) under forward dynamics.
"""
import numpy as np
import pytest

from reference import dynamics as ref
from reference.random_models import random_state, random_tree
from usdjoints.sim import api

SEEDS = range(5)


@pytest.mark.parametrize("seed", SEEDS)
def test_kinetic_energy_equals_half_vMv(seed):
    model = random_tree(seed)
    q, qd, _, _ = random_state(model, np.random.default_rng(seed))
    M = api.mass_matrix(model, q)
    # both sides sum O(10) products of O(1) numbers: round-off level.
    assert abs(0.5 * qd @ M @ qd - ref.kinetic_energy(model, q, qd)) < 1e-12 * (1 + abs(qd @ M @ qd))


@pytest.mark.parametrize("seed", SEEDS)
def test_inverse_of_forward_dynamics_is_identity(seed):
    model = random_tree(seed)
    q, qd, _, tau = random_state(model, np.random.default_rng(seed))
    qdd = api.forward_dynamics(model, q, qd, tau)
    # cond(M) < 1e5 on these trees: ABA then RNEA loses at most that factor of eps.
    np.testing.assert_allclose(api.inverse_dynamics(model, q, qd, qdd), tau, atol=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_mass_matrix_symmetric_positive_definite(seed):
    model = random_tree(seed, armature=False)
    q, _, _, _ = random_state(model, np.random.default_rng(seed))
    M = api.mass_matrix(model, q)
    np.testing.assert_array_equal(M, M.T)  # the kernel writes both triangles from one value
    assert np.linalg.eigvalsh(M).min() > 0.0


def _coriolis_matrix(model, q, qd):
    """Christoffel C = 1/2 dc/dv, with c(v) = C(q, v) v quadratic in v: a central difference
    with unit step is exact up to round-off."""
    zero = np.zeros(model.nv)
    c = lambda v: api.inverse_dynamics(model, q, v, zero) - api.inverse_dynamics(model, q, zero, zero)
    C = np.zeros((model.nv, model.nv))
    for j in range(model.nv):
        e = np.zeros(model.nv)
        e[j] = 1.0
        C[:, j] = 0.5 * (c(qd + e) - c(qd - e)) / 2.0
    return C


@pytest.mark.parametrize("seed", SEEDS)
def test_mdot_minus_2c_is_skew(seed):
    """Holds for true generalised coordinates, so the tree uses revolute, prismatic and D6
    joints only (quaternion joints use body angular velocity, a quasi-velocity)."""
    model = random_tree(seed, free_base=False, kinds=("revolute", "prismatic", "d6", "fixed"))
    rng = np.random.default_rng(seed)
    q, qd, _, _ = random_state(model, rng)
    h = 1e-6
    Mdot = (api.mass_matrix(model, q + h * qd) - api.mass_matrix(model, q - h * qd)) / (2 * h)
    N = Mdot - 2 * _coriolis_matrix(model, q, qd)
    # central difference: O(h^2) truncation plus eps/h ~ 1e-10 round-off on O(10) entries.
    assert np.max(np.abs(N + N.T)) < 1e-7 * max(1.0, np.max(np.abs(Mdot)))


@pytest.mark.parametrize("seed", SEEDS)
def test_power_balance_under_forward_dynamics(seed):
    """d/dt (1/2 v^T M v) = v^T (tau - g(q)) along the motion, quaternion joints included."""
    model = random_tree(seed)
    q, qd, _, tau = random_state(model, np.random.default_rng(seed))
    qdd = api.forward_dynamics(model, q, qd, tau)
    g = api.inverse_dynamics(model, q, np.zeros(model.nv), np.zeros(model.nv))

    def ke(sign, h):
        qs = api.integrate_configuration(model, q, qd, sign * h)
        vs = qd + sign * h * qdd
        return 0.5 * vs @ api.mass_matrix(model, qs) @ vs

    h = 1e-5
    rate = (ke(1, h) - ke(-1, h)) / (2 * h)
    expected = qd @ (tau - g)
    # central difference of a smooth function: O(h^2) ~ 1e-10 plus round-off eps*KE/h ~ 1e-10.
    assert abs(rate - expected) < 1e-6 * (1 + abs(expected))
