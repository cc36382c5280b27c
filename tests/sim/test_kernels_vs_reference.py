"""Kernels against the plain-numpy references in tests/reference on seeded random trees.

Oracle: tests/reference/dynamics.py (dense 6x6 Featherstone recursions written for clarity) and
numpy.linalg for the factorisation. Trees mix free, revolute, prismatic, spherical, D6 and fixed
joints with random joint frames, joint-to-child offsets, inertias and armature.
"""
import numpy as np
import pytest

from reference import dynamics as ref
from reference.random_models import random_state, random_tree
from reference.spatial import quat_to_matrix
from usdjoints.sim import api

# float64 round-off accumulated through ~20 links and 6x6 products stays far below this.
RTOL = 1e-11
SEEDS = range(6)


def _close(actual, expected):
    scale = max(1.0, float(np.max(np.abs(expected))))
    assert np.max(np.abs(actual - expected)) <= RTOL * scale


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("free_base", [True, False])
def test_dynamics_match_reference(seed, free_base):
    model = random_tree(seed, n_bodies=9, free_base=free_base)
    rng = np.random.default_rng(1000 + seed)
    for _ in range(3):
        q, qd, qdd, tau = random_state(model, rng)
        _close(api.inverse_dynamics(model, q, qd, qdd),
               ref.rnea(model, q, qd, qdd) + model.dof_armature * qdd)
        _close(api.mass_matrix(model, q), ref.crba(model, q))
        _close(api.forward_dynamics(model, q, qd, tau), ref.aba(model, q, qd, tau))


@pytest.mark.parametrize("seed", SEEDS)
def test_body_poses_match_reference(seed):
    """Bodies welded by fixed joints ride on their link at a constant offset."""
    model = random_tree(seed, n_bodies=9)
    q, _, _, _ = random_state(model, np.random.default_rng(seed))
    positions, quats = api.forward_kinematics(model, q)
    links = ref.link_world_poses(model, q)
    for b in range(model.nbody):
        R_link, p_link = links[model.body_link[b]]
        R_expected = R_link @ model.body_R_link[b]
        np.testing.assert_allclose(positions[b], p_link + R_link @ model.body_p_link[b], atol=1e-12)
        np.testing.assert_allclose(quat_to_matrix(quats[b]), R_expected, atol=1e-12)
        assert quats[b][0] >= 0.0


@pytest.mark.parametrize("seed", SEEDS)
def test_ltdl_solves_like_dense(seed):
    """Oracle: numpy.linalg.solve on the same matrix; LTDL must follow the tree sparsity."""
    from usdjoints.sim.kernels.crba import ltdl_factor, ltdl_solve

    model = random_tree(seed, n_bodies=9)
    q, _, _, b = random_state(model, np.random.default_rng(seed))
    M = api.mass_matrix(model, q)
    factor = M.copy()
    x = b.copy()
    ltdl_factor(model.dof_parent, factor)
    ltdl_solve(model.dof_parent, factor, x)
    # M is well conditioned (cond < 1e5 here): solve error is round-off times the condition number.
    np.testing.assert_allclose(x, np.linalg.solve(M, b), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("seed", SEEDS[:3])
@pytest.mark.parametrize("free_base, offsets", [(True, True), (True, False), (False, True)])
def test_fused_forward_dynamics_matches_reference(seed, free_base, offsets):
    """aba_from_q (the link transforms and ABA in one compiled call, the benchmarks' entry)
    against the reference ABA. A free base without a joint-to-child offset has unit subspace
    columns (ABA's entry-picking root path); with a random offset it takes the general one."""
    from usdjoints.sim.kernels.aba import aba_from_q
    from usdjoints.sim.packed import pack

    model = random_tree(seed, n_bodies=9, free_base=free_base, joint_child_offsets=offsets)
    k = pack(model)
    nl, nv = model.nlink, model.nv
    rng = np.random.default_rng(2000 + seed)
    for _ in range(2):
        q, qd, _, tau = random_state(model, rng)
        out = np.empty(nv)
        aba_from_q(k.link_table, k.link_axis, k.R_parent_joint, k.p_parent_joint, k.R_joint_child,
                   k.p_joint_child, k.revolute_basis, k.S, k.I6, k.armature, k.gravity, q, qd,
                   tau, np.empty((nl, 3, 3)), np.empty((nl, 3)), np.empty((3, 3)), np.empty(3),
                   np.empty((nl, 6)), np.empty((nl, 6)), np.empty((nl, 6)), np.empty((nl, 6, 6)),
                   np.empty((nl, 6, 6)), np.empty((nl, 6, 6)), np.empty(nv), np.empty((6, 12)),
                   out)
        _close(out, ref.aba(model, q, qd, tau))
