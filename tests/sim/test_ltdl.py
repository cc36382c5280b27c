"""The tree-sparse L^T D L factorisation and its solves against LAPACK (numpy.linalg) on
tree-structured symmetric positive definite matrices: a chain, a branching quadruped-like tree,
and several trees side by side."""
from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from usdjoints.sim.kernels.crba import ltdl_factor, ltdl_solve, ltdl_unit_solve

TREES = {
    "chain": [-1, 0, 1, 2, 3, 4, 5, 6, 7],
    # a free base (6 dofs in a row) and four legs of three dofs
    "quadruped": [-1, 0, 1, 2, 3, 4] + [p for leg in range(4) for p in (5, 6 + 3 * leg, 7 + 3 * leg)],
    "forest": [-1, 0, 1, -1, 3, -1, 5, 5, 7],
}


@njit(cache=True)
def _unit_columns(dof_parent, LD, out):
    for k in range(LD.shape[0]):
        ltdl_unit_solve(dof_parent, LD, k, out[k])


def _tree_matrix(dof_parent, seed):
    """A random SPD matrix whose entry (i, j) is zero unless one of i, j is an ancestor of the
    other: the sparsity of a tree's joint-space inertia."""
    nv = len(dof_parent)
    related = np.eye(nv, dtype=bool)
    for i in range(nv):
        j = dof_parent[i]
        while j >= 0:
            related[i, j] = related[j, i] = True
            j = dof_parent[j]
    rng = np.random.default_rng(seed)
    B = rng.standard_normal((nv, nv))
    H = np.where(related, B @ B.T, 0.0)
    return H + (np.abs(H).sum(axis=1).max() + 1.0) * np.eye(nv)  # diagonally dominant: SPD


@pytest.mark.parametrize("name", TREES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_solves_match_lapack(name, seed):
    dof_parent = np.array(TREES[name], dtype=np.int64)
    H = _tree_matrix(dof_parent, seed)
    LD = H.copy()
    ltdl_factor(dof_parent, LD)
    b = np.random.default_rng(seed + 10).standard_normal(len(dof_parent))
    x = b.copy()
    ltdl_solve(dof_parent, LD, x)
    np.testing.assert_allclose(x, np.linalg.solve(H, b), rtol=1e-12, atol=1e-14)
    columns = np.full_like(H, np.nan)  # every entry must be written
    _unit_columns(dof_parent, LD, columns)
    np.testing.assert_allclose(columns, np.linalg.inv(H), rtol=1e-12, atol=1e-14)
