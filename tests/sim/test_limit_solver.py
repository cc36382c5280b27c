"""The limit impulses' active-set solve (sim/kernels/limits.py) against the optimality conditions
of the problem it solves: min |v' - v|_H subject to lo <= base + v' <= hi. The problem is
convex, so its KKT conditions (the oracle) identify the solution: v' - v = H^-1 lam, every
bounded velocity within its bounds, lam >= 0 only on a row at its lower bound, lam <= 0 only on
a row at its upper bound, lam = 0 on rows strictly inside."""
from __future__ import annotations

import math

import numpy as np
import pytest

from usdjoints.sim.kernels.crba import ltdl_factor
from usdjoints.sim.kernels.limits import _solve_rows, solve_unit_rows


def _tree(rng, nv):
    parent = np.full(nv, -1, dtype=np.int64)
    for i in range(1, nv):
        parent[i] = rng.integers(-1, i) if rng.random() < 0.3 else i - 1
    return parent


def _tree_spd(rng, parent):
    """An SPD matrix with the tree's sparsity (H[i, j] != 0 only for ancestors), as a mass
    matrix has: a product of random link Jacobian columns."""
    nv = parent.shape[0]
    H = np.zeros((nv, nv))
    for leaf in range(nv):
        chain = []
        j = leaf
        while j >= 0:
            chain.append(j)
            j = parent[j]
        J = rng.normal(size=(6, len(chain)))
        H[np.ix_(chain, chain)] += J.T @ J * rng.uniform(0.01, 10.0)
    return H + np.diag(rng.uniform(1e-4, 1e-2, nv))


@pytest.mark.parametrize("solver", ["columns", "primal"])
@pytest.mark.parametrize("seed", range(40))
def test_active_set_meets_the_kkt_conditions(seed, solver):
    """Both solves of a problem whose rows are all dofs' own: _solve_rows on columns of H^-1,
    solve_unit_rows on H itself."""
    rng = np.random.default_rng(seed)
    nv = int(rng.integers(1, 14))
    parent = _tree(rng, nv)
    H = _tree_spd(rng, parent)
    LD = H.copy()
    ltdl_factor(parent, LD)
    v0 = rng.normal(scale=3.0, size=nv)
    base = np.zeros(nv) if seed % 2 else rng.normal(size=nv)
    lo = np.where(rng.random(nv) < 0.6, rng.normal(size=nv) - 0.5, -math.inf)
    hi = np.where(rng.random(nv) < 0.6, lo + np.abs(rng.normal(size=nv)), math.inf)
    hi = np.where(np.isfinite(hi), hi, np.where(rng.random(nv) < 0.5, rng.normal(size=nv) + 0.5, math.inf))
    hi = np.maximum(hi, np.where(np.isfinite(lo), lo, -math.inf))
    if seed % 5 == 0:
        hi[0] = lo[0] = 0.25  # an equality row (a limit tighter than the velocity bound)
    v = v0.copy()
    scratch = [np.empty(nv) for _ in range(2)]
    C, A = np.empty((nv, nv)), np.empty((nv, nv))
    ints = [np.empty(nv, dtype=np.int64) for _ in range(3)]
    if solver == "columns":
        _solve_rows(parent, LD, np.empty((0, nv)), lo, hi, base, v, C, A, scratch[0], scratch[1],
                    np.empty(nv), *ints, np.empty((0, nv)), np.empty((0, nv)), np.empty((0, 0)), 0,
                    np.empty(0))
    else:
        solve_unit_rows(H, lo, hi, base, v, A, scratch[0], scratch[1], ints[0], ints[1])
    lam = H @ (v - v0)  # the impulse the solve applied
    value = base + v
    scale = 1e-9 * (1.0 + np.abs(v0).max() + np.abs(base).max())
    bounded = np.isfinite(lo) | np.isfinite(hi)
    assert np.all(np.abs(lam[~bounded]) < scale * np.abs(H).max())  # impulses on bounded rows only
    assert np.all(value >= lo - scale) and np.all(value <= hi + scale)
    at_lo = np.abs(value - lo) < scale
    at_hi = np.abs(value - hi) < scale
    tol = scale * np.abs(H).max() * 10
    assert np.all(lam[~at_lo] <= tol)  # no push up unless on the lower bound
    assert np.all(lam[~at_hi] >= -tol)  # no push down unless on the upper bound


@pytest.mark.parametrize("seed", range(40))
def test_the_primal_solve_does_not_depend_on_its_guess_of_the_held_rows(seed):
    """solve_unit_rows starts from a guess of the rows at a bound (the last step's set in the
    step loop). The problem is strictly convex, so its solution is unique: every guess (none,
    a random one, any integers, the set a solve of the same problem ended with) gives the same
    velocity, and that set again."""
    rng = np.random.default_rng(500 + seed)
    nv = int(rng.integers(1, 14))
    H = _tree_spd(rng, _tree(rng, nv))
    v0 = rng.normal(scale=3.0, size=nv)
    base = rng.normal(size=nv) if seed % 2 else np.zeros(nv)
    lo = np.where(rng.random(nv) < 0.7, rng.normal(size=nv) - 0.5, -math.inf)
    hi = np.where(rng.random(nv) < 0.7, np.where(np.isfinite(lo), lo, -1.0) + np.abs(rng.normal(size=nv)), math.inf)

    def solve(guess):
        v = v0.copy()
        state = np.array(guess, dtype=np.int64)
        solve_unit_rows(H, lo, hi, base, v, np.empty((nv, nv)), np.empty(nv), np.empty(nv), state,
                        np.empty(nv, dtype=np.int64))
        return v, state

    v_none, held = solve(np.zeros(nv))
    scale = 1e-9 * (1.0 + np.abs(v0).max() + np.abs(base).max())
    for guess in (rng.integers(-1, 2, nv), rng.integers(-5, 6, nv), held):
        v, state = solve(guess)
        np.testing.assert_allclose(v, v_none, rtol=0, atol=scale)
        assert np.array_equal(state, held)


@pytest.mark.parametrize("seed", range(30))
def test_active_set_with_loop_rows_meets_the_kkt_conditions(seed):
    """With equality rows G v = 0 (loop closures, couplings) the solve is
    min |v' - v|_H s.t. G v' = 0, lo <= v' <= hi. KKT: H (v' - v) = lam + G^T mu with lam on
    rows at a bound only and signed as above, G v' = 0, v' within its bounds. The bounds are
    placed around a point that meets G, so the problem is feasible."""
    from usdjoints.sim.kernels.constraints import factor_constraints

    rng = np.random.default_rng(1000 + seed)
    nv = int(rng.integers(3, 14))
    m = int(rng.integers(1, nv // 2 + 1))
    parent = _tree(rng, nv)
    H = _tree_spd(rng, parent)
    LD = H.copy()
    ltdl_factor(parent, LD)
    G = rng.normal(size=(m, nv))
    Hi = np.linalg.inv(H)

    def project(x):
        return x - Hi @ G.T @ np.linalg.solve(G @ Hi @ G.T, G @ x)

    v0 = project(rng.normal(scale=3.0, size=nv))
    feasible = project(rng.normal(size=nv))
    bounded = rng.random(nv) < 0.6
    lo = np.where(bounded & (rng.random(nv) < 0.8), feasible - rng.uniform(0.0, 1.0, nv), -math.inf)
    hi = np.where(bounded & (rng.random(nv) < 0.8), feasible + rng.uniform(0.0, 1.0, nv), math.inf)
    bounded = np.isfinite(lo) | np.isfinite(hi)
    Y, A_eq = np.empty((m, nv)), np.empty((m, m))
    factor_constraints(parent, LD, G, m, Y, A_eq)
    v = v0.copy()
    scratch = [np.empty(nv) for _ in range(2)]
    C, A = np.empty((nv, nv)), np.empty((nv, nv))
    ints = [np.empty(nv, dtype=np.int64) for _ in range(3)]
    _solve_rows(parent, LD, np.empty((0, nv)), lo, hi, np.zeros(nv), v, C, A, scratch[0],
                scratch[1], np.empty(nv), *ints, G, Y, A_eq, m, np.empty(m))
    scale = 1e-8 * (1.0 + np.abs(v0).max())
    assert np.all(np.abs(G @ v) < scale * np.abs(G).max() * nv)  # the loops stay closed
    assert np.all(v >= lo - scale) and np.all(v <= hi + scale)
    # the impulse is limit impulses on rows at a bound plus a loop reaction G^T mu
    at_lo = np.abs(v - lo) < scale
    at_hi = np.abs(v - hi) < scale
    active = at_lo | at_hi
    basis = np.hstack([np.eye(nv)[:, active], G.T])
    split, *_ = np.linalg.lstsq(basis, H @ (v - v0), rcond=None)
    assert np.allclose(basis @ split, H @ (v - v0), atol=scale * np.abs(H).max() * 100)
    if np.linalg.matrix_rank(basis) == basis.shape[1]:  # the split is unique: check its signs
        lam = np.zeros(nv)
        lam[active] = split[:int(active.sum())]
        tol = scale * np.abs(H).max() * 100
        assert np.all(lam[~at_lo] <= tol)  # no push up unless on the lower bound
        assert np.all(lam[~at_hi] >= -tol)  # no push down unless on the upper bound


@pytest.mark.parametrize("seed", range(30))
def test_active_set_with_general_rows_meets_the_kkt_conditions(seed):
    """Distance joints add rows J_j beyond the dofs' unit rows: the solve is then
    min |v' - v|_H s.t. lo <= R (base + v') <= hi with R = [I; J]. KKT: H (v' - v) = R^T lam,
    every bounded row within its bounds, lam >= 0 only on a row at its lower bound, <= 0 only
    at its upper bound. The bounds are placed around a feasible point."""
    rng = np.random.default_rng(2000 + seed)
    nv = int(rng.integers(1, 12))
    nd = int(rng.integers(1, 4))
    parent = _tree(rng, nv)
    H = _tree_spd(rng, parent)
    LD = H.copy()
    ltdl_factor(parent, LD)
    J = rng.normal(size=(nd, nv))
    R = np.vstack([np.eye(nv), J])
    n = nv + nd
    v0 = rng.normal(scale=3.0, size=nv)
    base = np.zeros(nv) if seed % 2 else rng.normal(size=nv)
    feasible = R @ (base + rng.normal(size=nv))
    bounded = rng.random(n) < np.r_[np.full(nv, 0.4), np.full(nd, 1.0)]
    lo = np.where(bounded & (rng.random(n) < 0.7), feasible - rng.uniform(0.0, 1.0, n), -math.inf)
    hi = np.where(bounded & (rng.random(n) < 0.7), feasible + rng.uniform(0.0, 1.0, n), math.inf)
    v = v0.copy()
    C, A = np.empty((n, nv)), np.empty((n, n))
    ints = [np.empty(n, dtype=np.int64) for _ in range(3)]
    _solve_rows(parent, LD, J, lo, hi, base, v, C, A, np.empty(n), np.empty(n), np.empty(nv),
                *ints, np.empty((0, nv)), np.empty((0, nv)), np.empty((0, 0)), 0, np.empty(0))
    value = R @ (base + v)
    scale = 1e-8 * (1.0 + np.abs(v0).max() + np.abs(base).max()) * (1.0 + np.abs(J).max())
    assert np.all(value >= lo - scale) and np.all(value <= hi + scale)
    at_lo = np.abs(value - lo) < scale
    at_hi = np.abs(value - hi) < scale
    active = at_lo | at_hi
    split, *_ = np.linalg.lstsq(R[active].T, H @ (v - v0), rcond=None)
    assert np.allclose(R[active].T @ split, H @ (v - v0), atol=scale * np.abs(H).max() * 100)
    if np.linalg.matrix_rank(R[active]) == int(active.sum()):  # a unique split: its signs
        lam = np.zeros(n)
        lam[active] = split
        tol = scale * np.abs(H).max() * 100
        assert np.all(lam[~at_lo] <= tol)
        assert np.all(lam[~at_hi] >= -tol)
