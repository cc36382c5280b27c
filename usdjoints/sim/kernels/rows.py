"""The dense algebra of the limit rows (limits.py) and the bound rows (bound_rows.py): a row's
dot products, its column of H^-1 in the loops' metric, the small Cholesky solve of the
active rows, and a row's velocity intervals from its position bounds. Every helper is inlined
into its caller (kernels/__init__.py: a call in a loop that is not inlined costs the caller its
reference-count pruning)."""
from __future__ import annotations

import math

from . import FMA, INTERNAL, njit
from .constraints import project_out
from .crba import ltdl_solve, ltdl_unit_solve

# a limit row's diagonal in the loops' metric this small against its diagonal without them: the
# loops and couplings lock the row's motion (rows.inverse_column)
LOCKED_ROW = 1e-10


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def row_dot(J, k, x):
    """J_k . x [nv] for row k: x[k] for a dof's row (k < nv), the distance row J[k - nv] after."""
    nv = x.shape[0]
    if k < nv:
        return x[k]
    s = 0.0
    for d in range(nv):
        s += J[k - nv, d] * x[d]
    return s


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def row_dot_column(J, k, C, slot):
    """J_k . C[slot] (C [rows, nv], indexed by element: a row view costs a reference count
    numba cannot prune here)."""
    nv = C.shape[1]
    if k < nv:
        return C[slot, k]
    s = 0.0
    for d in range(nv):
        s += J[k - nv, d] * C[slot, d]
    return s


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def inverse_column(dof_parent, LD, J, k, C, slot, x, G, Y, A_eq, m_eq, lam_eq):
    """C[slot] <- H^-1 J_k^T from the factor crba.ltdl_factor left in LD (J_k = e_k for a dof's
    row k < nv, else the distance row J[k - nv]), projected onto the m_eq equality rows G x = 0
    (x [nv] scratch; G None: no equality rows).

    A row whose motion the equality rows lock (its diagonal J_k C[slot] down to LOCKED_ROW of
    J_k H^-1 J_k^T by the projection) gets a zero column, so its impulse is 0: the loops hold
    it. Without this, the round-off left of such a row was divided by: dm_control's CMU thumb,
    welded to the hand by a second hinge whose limit row reads an angle the weld keeps at its
    bound, took an impulse that turned the free joints beside it by 0.6 rad a step."""
    nv = x.shape[0]
    if k < nv:
        ltdl_unit_solve(dof_parent, LD, k, x)
    else:
        for d in range(nv):
            x[d] = J[k - nv, d]
        ltdl_solve(dof_parent, LD, x)
    if G is not None and m_eq > 0:
        free = row_dot(J, k, x)
        project_out(G, Y, A_eq, m_eq, x, lam_eq)
        if not row_dot(J, k, x) > LOCKED_ROW * free:
            for d in range(nv):
                x[d] = 0.0
    for d in range(nv):
        C[slot, d] = x[d]


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def cholesky_solve(A, n, b):
    """b[:n] <- A[:n, :n]^-1 b[:n] for a symmetric positive definite A (overwritten by its
    factor, see cholesky_substitute). A pivot lost to round-off (rows of H^-1 nearly dependent)
    leaves its row's impulse at zero instead of dividing by it."""
    for j in range(n):
        d = cholesky_pivot(A, j)
        if not d > 1e-14 * abs(A[j, j]) or not d > 0.0:
            for i in range(j, n):
                A[i, j] = 0.0  # the diagonal too: the row's impulse is 0
            continue
        cholesky_column(A, n, j, d)
    cholesky_substitute(A, n, b)


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def cholesky_pivot(A, j):
    """What is left of A[j, j] once columns 0..j-1 of the factor are taken out: L_jj^2, the
    pivot a caller accepts (cholesky_column) or treats as lost."""
    d = A[j, j]
    for t in range(j):
        d -= A[j, t] * A[j, t]
    return d


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def cholesky_column(A, n, j, d):
    """Column j of the factor from its accepted pivot d: 1 / L_jj on the diagonal (as
    cholesky_substitute reads it) and L[j+1:n, j] below it."""
    inverse = 1.0 / math.sqrt(d)
    A[j, j] = inverse
    for i in range(j + 1, n):
        s = A[i, j]
        for t in range(j):
            s -= A[i, t] * A[j, t]
        A[i, j] = s * inverse


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def cholesky_substitute(A, n, b):
    """b[:n] <- (L L^T)^-1 b[:n] for the Cholesky factor L in A's strict lower triangle and
    1 / L_jj on its diagonal: the two triangular solves, multiplying where they would divide
    (a division per row was a chain of dependent divisions, the limit solve's hottest
    instructions; a diagonal of 0 gives that row 0)."""
    for i in range(n):
        s = b[i]
        for t in range(i):
            s -= A[i, t] * b[t]
        b[i] = s * A[i, i]
    for i in range(n - 1, -1, -1):
        s = b[i]
        for t in range(i + 1, n):
            s -= A[t, i] * b[t]
        b[i] = s * A[i, i]


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def bound_interval(k, x, lower, upper, h, lo, hi, lo_b, hi_b):
    """Narrow row k's velocity interval [lo_k, hi_k] so that the step cannot carry x past
    [lower, upper], and set its position-only interval [lo_b, hi_b] (see the module docstring);
    True when x starts outside."""
    outside = False
    if lower > -math.inf:
        lo_b[k] = (lower - x) / h  # the correction of others may not carry it past
        if x >= lower:
            lo[k] = max(lo[k], (lower - x) / h)
        else:
            lo[k] = max(lo[k], 0.0)
            outside = True
    if upper < math.inf:
        hi_b[k] = (upper - x) / h
        if x <= upper:
            hi[k] = min(hi[k], (upper - x) / h)
        else:
            hi[k] = min(hi[k], 0.0)
            outside = True
    if lo[k] > hi[k]:  # a limit tighter than the velocity bound: the position wins
        if x >= upper:
            lo[k] = hi[k]
        else:
            hi[k] = lo[k]
    return outside
