"""The exact solve of the contact rows when no contact slides (contact_solve.py runs it before
its Gauss-Seidel sweeps): an active set on the normal rows with every friction pair sticking,
each pass one Cholesky of W + R."""
from __future__ import annotations

import math

from . import FMA, INTERNAL, njit
from .rows import cholesky_column, cholesky_pivot, cholesky_substitute

# A pivot of the direct solve (direct_solve) below this fraction of its diagonal: the rows are nearly
# dependent (two contacts one link can only take together), and the sweeps solve instead
PIVOT_LOST = 1e-10


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def _cholesky(A, n, b):
    """b[:n] <- A[:n, :n]^-1 b[:n] for a symmetric positive definite A (its lower triangle read,
    then overwritten by its factor); False, with A and b spoilt, when a pivot falls below
    PIVOT_LOST of its diagonal (rows nearly dependent)."""
    for j in range(n):
        d = cholesky_pivot(A, j)
        if not d > PIVOT_LOST * A[j, j]:
            return False
        cholesky_column(A, n, j, d)
    cholesky_substitute(A, n, b)
    return True


@njit(cache=True, fastmath=FMA, **INTERNAL)
def direct_solve(W, diag, reg, target, mu, floor, friction, n_c, u, lam, A, b, idx, active):
    """The rows' exact solution when no contact slides, in the Delassus space (u [rows] the
    rows' velocities without impulses): an active set on the normal rows, a contact whose
    impulse would pull leaving it, with the friction pair of every contact in it sticking (its
    tangent velocities zero). Each pass is one Cholesky of W + R on the rows in the set. That is
    the fixed point the sweeps converge to: a normal row in the set at its target (u + R lam =
    target), one out of it at zero impulse, a sticking pair at zero slip.

    True, with lam set, when the answer holds everything the sweeps ask: every normal impulse
    >= 0, every friction impulse inside its disc (mu times the normal one), every contact left
    out moving apart no slower than its target. False (lam spoilt) when a contact slides or the
    rows are nearly dependent: the sweeps then solve. A [n, n], b [n], idx int64 [n] and
    active bool [n] are scratch, n >= 3 n_c."""
    rows = 3 * n_c
    for c in range(n_c):
        rn = 3 * c
        on = diag[rn] > floor and target[rn] > -math.inf
        stick = on and friction and mu[c] > 0.0 and diag[rn + 1] > floor and diag[rn + 2] > floor
        active[rn] = on
        active[rn + 1] = stick
        active[rn + 2] = stick
    for _ in range(n_c + 1):
        n = 0
        for r in range(rows):
            if active[r]:
                idx[n] = r
                n += 1
        for a in range(n):
            ra = idx[a]
            for c in range(a + 1):
                A[a, c] = W[ra, idx[c]]
            A[a, a] += reg[ra]
            b[a] = (target[ra] if ra % 3 == 0 else 0.0) - u[ra]
        if not _cholesky(A, n, b):
            return False
        for r in range(rows):
            lam[r] = 0.0
        for a in range(n):
            lam[idx[a]] = b[a]
        dropped = False
        for c in range(n_c):
            rn = 3 * c
            if active[rn] and lam[rn] < 0.0:
                active[rn] = False
                active[rn + 1] = False
                active[rn + 2] = False
                dropped = True
        if not dropped:
            break
    for c in range(n_c):
        rn = 3 * c
        if active[rn + 1]:
            if math.sqrt(lam[rn + 1] ** 2 + lam[rn + 2] ** 2) > mu[c] * lam[rn]:
                return False  # it slides
        elif active[rn]:
            continue
        elif diag[rn] > floor and target[rn] > -math.inf:
            value = u[rn]
            for r in range(rows):
                if lam[r] != 0.0:
                    value += W[rn, r] * lam[r]
            if value < target[rn] - 1e-9 * (1.0 + abs(target[rn])):
                return False  # a contact left out would approach faster than its target
    return True
