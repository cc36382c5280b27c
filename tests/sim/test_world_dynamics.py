"""The one-pass world-frame bias and mass matrix against the plain-numpy references.

Oracle: tests/reference/dynamics.py (dense 6x6 Featherstone recursions in link coordinates):
bias = rnea(q, qd, 0) and M = crba(q) (armature included). Trees mix free, revolute, prismatic,
spherical, D6 and fixed joints; one set is carried 1 km from the world origin, where the
root-link origin of the kernel's coordinates keeps the result as accurate as near the origin.
"""
import numpy as np
import pytest

from reference import dynamics as ref
from reference.random_models import random_state, random_tree
from usdjoints.sim.packed import pack

# float64 round-off through ~10 links and 6x6 products stays far below this.
RTOL = 1e-11


def _bias_and_mass(model, q, qd):
    from usdjoints.sim.kernels.fk import link_transforms
    from usdjoints.sim.kernels.world_dynamics import allocate_world_workspace, bias_and_mass

    pm = pack(model)
    nl, nv = pm.link_table.shape[0], pm.nv
    E, r = np.empty((nl, 3, 3)), np.empty((nl, 3))
    link_transforms(pm.link_table, pm.link_axis, pm.R_parent_joint, pm.p_parent_joint,
                    pm.R_joint_child, pm.p_joint_child, pm.revolute_basis, q, np.empty((3, 3)),
                    np.empty(3), E, r)
    bias, M = np.empty(nv), np.full((nv, nv), np.nan)
    bias_and_mass(pm.link_table, pm.S, pm.I6, E, r, pm.gravity, pm.armature, qd,
                  *allocate_world_workspace(nl, nv), bias, M)
    # the kernel writes the entries the tree-sparse factorisation reads: row k, columns k and
    # every dof on k's path to the root; mirror them and zero the rest, which must be zero
    path = np.zeros((nv, nv), dtype=bool)
    for k in range(nv):
        j = k
        while j >= 0:
            path[k, j] = True
            j = pm.dof_parent[j]
    assert np.isfinite(M[path]).all()
    full = np.where(path, M, 0.0)
    return bias, full + np.tril(full, -1).T


def _close(actual, expected):
    scale = max(1.0, float(np.max(np.abs(expected))))
    assert np.max(np.abs(actual - expected)) <= RTOL * scale


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("free_base", [True, False])
def test_bias_and_mass_match_reference(seed, free_base):
    model = random_tree(seed, n_bodies=9, free_base=free_base)
    rng = np.random.default_rng(2000 + seed)
    for _ in range(3):
        q, qd, _, _ = random_state(model, rng)
        bias, M = _bias_and_mass(model, q, qd)
        _close(bias, ref.rnea(model, q, qd, np.zeros(model.nv)))
        _close(M, ref.crba(model, q))  # the reference adds the armature


@pytest.mark.parametrize("seed", range(3))
def test_far_from_origin_keeps_accuracy(seed):
    """A free base 1 km away: the same relative accuracy as at the origin (the coordinates'
    origin is the root link's, so no m |p|^2 ~ 1e6 terms cancel)."""
    model = random_tree(seed, n_bodies=9, free_base=True)
    rng = np.random.default_rng(3000 + seed)
    q, qd, _, _ = random_state(model, rng)
    q[:3] += 1000.0
    bias, M = _bias_and_mass(model, q, qd)
    _close(bias, ref.rnea(model, q, qd, np.zeros(model.nv)))
    _close(M, ref.crba(model, q))  # the reference adds the armature
