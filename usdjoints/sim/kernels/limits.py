"""Joint limits and velocity limits as joint-space impulses (one-sided velocity constraints).

After the velocity update of a step, every dof k gets an interval [lo_k, hi_k] its end-of-step
velocity must lie in:

* a hard position limit (finite bound, no soft-limit spring authored): the step may not carry
  the joint past the bound, v_k >= (lower - x) / h (speculative, so a joint arriving at its
  limit stops on it); a joint already outside may not go deeper, v_k >= 0;
* a velocity limit: -v_max <= v_k <= v_max.

A joint outside its limit is put back on it by a second, position-only set of impulses (split
impulses, as PhysX keeps its position correction out of the velocities): a bias velocity b with
v_k + b_k = (bound - x) / h moves the positions onto the bound this step and is then dropped, so
a joint that starts outside is on its limit after the first step without being launched. The
correction acts through H^-1 on the other joints too, so the joints inside their limits are rows
of that solve as well (bound - x over h): an elbow next to a shoulder put back by 1 rad stays
within its limits instead of being swung 3 rad past them. That is
what PhysX does (measured with ovphysx, tests/sim/test_start_outside_limits_physx.py: a hinge
starting 30 deg past its limit is on it after one 1 ms step, -0.029 deg/s left). The bias acts
through H^-1 like the impulses, so to first order it moves no free base's centre of mass; the
second-order rest of a large correction (a1's calves start 0.4 rad out) is removed by moving each
free base so that its tree's centre of mass is where it was (keep_centres_of_mass).

The impulses are joint-space generalised impulses lambda_k e_k applied through the step's
inverse inertia (the factor of M + h D + h^2 K the step solved with): v' = v + H^-1 lambda.
They act between a joint's two bodies, so the robot's total momentum is kept (a clamp that
overwrote v_k would not keep it). The impulses are solved exactly (an active set on the few
rows at a bound, each pass a direct solve of their block of H^-1), so a limit driven at full
effort stops on its bound instead of where a fixed number of iterations left it.
"""
from __future__ import annotations

import math

from . import FMA, INTERNAL, njit
from .constraints import project_out
from .crba import ltdl_unit_solve
from .jcalc import FREE, PRISMATIC, REVOLUTE, SPHERICAL
from .layout import (
    DOF_LIMIT_STIFFNESS, DOF_LOWER, DOF_Q_INDEX, DOF_UPPER, DOF_VELOCITY_LIMIT, LINK_PARENT,
    LINK_Q_START, LINK_TYPE, LINK_V_START,
)

# the active-set solve changes one row per pass: a pass cap far above what a robot's few active
# rows need (a cap that is reached still leaves internal, momentum-keeping impulses)
PASSES_PER_ROW = 3
PASS_SLACK = 8
FEASIBILITY_TOLERANCE = 1e-12  # relative: a velocity this close to its bound is on it


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def _violation(value, lo, hi):
    """How far value lies outside [lo, hi] beyond round-off (0 inside): > 0 below, < 0 above."""
    tol = FEASIBILITY_TOLERANCE * (abs(value) + min(abs(lo), abs(hi)) + 1e-9)
    if value < lo - tol:
        return lo - value
    if value > hi + tol:
        return hi - value
    return 0.0


@njit(cache=True, fastmath=FMA)
def _solve_rows(dof_parent, LD, lo, hi, base, v, C, A, rhs, lam, slot_of, rows, side, G, Y, A_eq,
                m_eq, lam_eq):
    """Impulses lam making base + v lie in [lo, hi] per dof, added to v through H^-1: the exact
    solution of the box-constrained problem min |v' - v|_H s.t. lo <= base + v' <= hi, by an
    active set on the joint-space Delassus matrix W = H^-1 (rows with a finite bound only).

    The set starts with the rows outside their bounds. Each pass solves W_AA lam_A = bound_A -
    (base + v)_A directly (Cholesky of the small block); a row whose impulse pulls the wrong
    way (a lower bound pulling down) leaves the set, else the row the trial velocity puts
    furthest outside its bound joins it; the solve ends when neither happens. Columns of H^-1
    are formed only for rows that join (C[slot] = H^-1 e_k by crba.ltdl_solve's operations).

    With m_eq equality rows (couplings and loop closures, G v = 0; Y, A_eq from
    constraints.factor_constraints) the metric is the constrained one: each column is projected
    onto G x = 0 (W = P H^-1 with P the H-metric projection), so the impulses keep the loops
    closed and a loop cannot carry a limited joint past its bound after the limits are solved.
    lo, hi, base, v, lam, rhs [nv]; C, A [nv, nv]; slot_of, rows, side int64 [nv] scratch;
    lam_eq [m_eq] scratch."""
    nv = v.shape[0]
    n_act = 0
    n_cols = 0
    for k in range(nv):
        slot_of[k] = -1
        if lo[k] == -math.inf and hi[k] == math.inf:
            continue
        gap = _violation(base[k] + v[k], lo[k], hi[k])
        if gap != 0.0:
            rows[n_act] = k
            side[n_act] = -1 if gap > 0.0 else 1
            n_act += 1
    if n_act == 0:
        return
    for a in range(n_act):
        slot_of[rows[a]] = n_cols
        _column(dof_parent, LD, rows[a], C[n_cols], G, Y, A_eq, m_eq, lam_eq)
        n_cols += 1
    for _ in range(PASSES_PER_ROW * nv + PASS_SLACK):
        # W_AA lam_A = bound - value, W_AA[a, b] = (H^-1)[rows[a], rows[b]]
        for a in range(n_act):
            ka = rows[a]
            for b in range(n_act):
                A[a, b] = C[slot_of[rows[b]], ka]
            rhs[a] = (lo[ka] if side[a] < 0 else hi[ka]) - (base[ka] + v[ka])
        _cholesky_solve(A, n_act, rhs)
        for a in range(n_act):
            lam[a] = rhs[a]
        # a row whose impulse pulls away from its bound's side leaves the set (the worst first)
        worst = -1
        worst_size = 0.0
        for a in range(n_act):
            ka = rows[a]
            if lo[ka] == hi[ka]:
                continue  # an equality: either sign
            wrong = -lam[a] if side[a] < 0 else lam[a]
            size = wrong * C[slot_of[ka], ka]
            if wrong > 0.0 and size > worst_size:
                worst, worst_size = a, size
        if worst >= 0:
            for a in range(worst, n_act - 1):
                rows[a] = rows[a + 1]
                side[a] = side[a + 1]
            n_act -= 1
            if n_act == 0:
                break
            continue
        # the row the trial velocity puts furthest outside its bound joins the set
        join = -1
        join_gap = 0.0
        for k in range(nv):
            if lo[k] == -math.inf and hi[k] == math.inf:
                continue
            inside = False
            for a in range(n_act):
                if rows[a] == k:
                    inside = True
            if inside:
                continue
            value = base[k] + v[k]
            for a in range(n_act):
                value += C[slot_of[rows[a]], k] * lam[a]
            gap = _violation(value, lo[k], hi[k])
            if abs(gap) > abs(join_gap):
                join, join_gap = k, gap
        if join < 0:
            break
        if slot_of[join] < 0:
            slot_of[join] = n_cols
            _column(dof_parent, LD, join, C[n_cols], G, Y, A_eq, m_eq, lam_eq)
            n_cols += 1
        rows[n_act] = join
        side[n_act] = -1 if join_gap > 0.0 else 1
        n_act += 1
    for a in range(n_act):
        column = C[slot_of[rows[a]]]
        for d in range(nv):
            v[d] += column[d] * lam[a]


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def _column(dof_parent, LD, k, x, G, Y, A_eq, m_eq, lam_eq):
    """x <- H^-1 e_k from the factor crba.ltdl_factor left in LD, projected onto the m_eq
    equality rows G x = 0."""
    ltdl_unit_solve(dof_parent, LD, k, x)
    if m_eq > 0:
        project_out(G, Y, A_eq, m_eq, x, lam_eq)


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def _cholesky_solve(A, n, b):
    """b[:n] <- A[:n, :n]^-1 b[:n] for a symmetric positive definite A (overwritten by its
    factor). A pivot lost to round-off (rows of H^-1 nearly dependent) leaves its row's impulse
    at zero instead of dividing by it."""
    for j in range(n):
        d = A[j, j]
        for t in range(j):
            d -= A[j, t] * A[j, t]
        if not d > 1e-14 * abs(A[j, j]) or not d > 0.0:
            for i in range(j, n):
                A[i, j] = 0.0
            A[j, j] = math.inf
            continue
        d = math.sqrt(d)
        A[j, j] = d
        for i in range(j + 1, n):
            s = A[i, j]
            for t in range(j):
                s -= A[i, t] * A[j, t]
            A[i, j] = s / d
    for i in range(n):
        s = b[i]
        for t in range(i):
            s -= A[i, t] * b[t]
        b[i] = s / A[i, i]
    for i in range(n - 1, -1, -1):
        s = b[i]
        for t in range(i + 1, n):
            s -= A[t, i] * b[t]
        b[i] = s / A[i, i]


@njit(cache=True, fastmath=FMA, **INTERNAL)
def limit_impulses(link_table, dof_table, dof_parent, LD, q, h, work, iwork, C, A, v, bias,
                   G, Y, A_eq, m_eq, lam_eq):
    """Apply the limit impulses to v [nv] in place and write the position-only bias velocity
    [nv] (see the module docstring); returns True when the bias is not zero. LD holds the
    factor of the step's inertia; work [6, nv], iwork int64 [3, nv], C and A [nv, nv] are
    scratch. G, Y, A_eq: the step's m_eq equality rows as constraints.factor_constraints left
    them (v is expected to meet them already); both solves keep them (see _solve_rows).

    Most steps of most robots have no bound active: the bounds are checked first, and the
    active-set solve (and its columns of H^-1) runs only when some velocity is outside them."""
    nv = v.shape[0]
    lo, hi, lam, lo_b, hi_b, rhs = work[0], work[1], work[2], work[3], work[4], work[5]
    slot_of, rows, side = iwork[0], iwork[1], iwork[2]
    outside = False
    for k in range(nv):
        vmax = dof_table[k, DOF_VELOCITY_LIMIT]
        lo[k] = -vmax
        hi[k] = vmax
        lo_b[k] = -math.inf
        hi_b[k] = math.inf
        bias[k] = 0.0
    for i in range(link_table.shape[0]):
        kind = link_table[i, LINK_TYPE]
        if kind != REVOLUTE and kind != PRISMATIC:
            continue
        k = link_table[i, LINK_V_START]
        qi = int(dof_table[k, DOF_Q_INDEX])
        if qi < 0 or dof_table[k, DOF_LIMIT_STIFFNESS] != 0.0:
            continue  # a soft limit (spring) is a passive force instead
        x = q[qi]
        lower = dof_table[k, DOF_LOWER]
        upper = dof_table[k, DOF_UPPER]
        if lower > -math.inf:
            if x >= lower:
                lo[k] = max(lo[k], (lower - x) / h)
                lo_b[k] = (lower - x) / h  # the correction of others may not carry it past
            else:
                lo[k] = max(lo[k], 0.0)
                lo_b[k] = (lower - x) / h
                outside = True
        if upper < math.inf:
            if x <= upper:
                hi[k] = min(hi[k], (upper - x) / h)
                hi_b[k] = (upper - x) / h
            else:
                hi[k] = min(hi[k], 0.0)
                hi_b[k] = (upper - x) / h
                outside = True
        if lo[k] > hi[k]:  # a limit tighter than the velocity bound: the position wins
            if x >= upper:
                lo[k] = hi[k]
            else:
                hi[k] = lo[k]
    if outside:
        active = True
    else:
        active = False
        for k in range(nv):
            if not (lo[k] <= v[k] <= hi[k]):
                active = True
                break
    if not active:  # the solve would leave every impulse at zero
        return False
    _solve_rows(dof_parent, LD, lo, hi, bias, v, C, A, rhs, lam, slot_of, rows, side,
                G, Y, A_eq, m_eq, lam_eq)  # bias is 0
    if outside:
        _solve_rows(dof_parent, LD, lo_b, hi_b, v, bias, C, A, rhs, lam, slot_of, rows, side,
                    G, Y, A_eq, m_eq, lam_eq)
    return outside


@njit(cache=True, fastmath=FMA, **INTERNAL)
def _rotate_back(R, v, start):
    """v[start:start + 3] <- R^T v[start:start + 3]."""
    x, y, z = v[start], v[start + 1], v[start + 2]
    for a in range(3):
        v[start + a] = R[0, a] * x + R[1, a] * y + R[2, a] * z


@njit(cache=True, fastmath=FMA, **INTERNAL)
def transport_velocity(link_table, bias, h, R, v):
    """Keep the world meaning of the body-frame velocities of free and spherical joints when
    the position-only bias turns them by exp(h w_bias): v <- R^T v. Without it a falling base
    turned by the bias would carry its fall speed off sideways (momentum not kept). R [3, 3] is
    scratch."""
    for i in range(link_table.shape[0]):
        kind = link_table[i, LINK_TYPE]
        if kind != FREE and kind != SPHERICAL:
            continue
        v0 = link_table[i, LINK_V_START]
        w0 = v0 + 3 if kind == FREE else v0
        wx, wy, wz = h * bias[w0], h * bias[w0 + 1], h * bias[w0 + 2]
        angle = math.sqrt(wx * wx + wy * wy + wz * wz)
        if angle == 0.0:
            continue
        x, y, z = wx / angle, wy / angle, wz / angle
        c, s = math.cos(angle), math.sin(angle)
        t = 1.0 - c
        R[0, 0], R[0, 1], R[0, 2] = c + x * x * t, x * y * t - z * s, x * z * t + y * s
        R[1, 0], R[1, 1], R[1, 2] = y * x * t + z * s, c + y * y * t, y * z * t - x * s
        R[2, 0], R[2, 1], R[2, 2] = z * x * t - y * s, z * y * t + x * s, c + z * z * t
        if kind == FREE:
            _rotate_back(R, v, v0)
        _rotate_back(R, v, w0)


@njit(cache=True, fastmath=FMA, **INTERNAL)
def has_free_root(link_table):
    """True when some tree of the model is rooted on a free joint."""
    for i in range(link_table.shape[0]):
        if link_table[i, LINK_PARENT] < 0 and link_table[i, LINK_TYPE] == FREE:
            return True
    return False


@njit(cache=True, fastmath=FMA, **INTERNAL)
def tree_centres_of_mass(link_table, I6, Rw, pw, root_of, out):
    """Per tree, the mass-weighted sum of its links' world centres of mass and its mass:
    out[root] = (sum m c [kg m], sum m [kg]) on each root link's row, zeros elsewhere. Rw, pw
    are fk.link_world_poses' output; I6 the spatial inertias at the link origins (m c read from
    their off-diagonal block); root_of int64 [nlink] is scratch."""
    for i in range(link_table.shape[0]):
        for a in range(4):
            out[i, a] = 0.0
        parent = link_table[i, LINK_PARENT]
        root = i if parent < 0 else root_of[parent]
        root_of[i] = root
        m = I6[i, 3, 3]
        if m == 0.0:
            continue
        # I6[:3, 3:] = m [c]x: m c = (I6[2, 4], I6[0, 5], I6[1, 3]) in link axes
        mc0, mc1, mc2 = I6[i, 2, 4], I6[i, 0, 5], I6[i, 1, 3]
        for a in range(3):
            out[root, a] += m * pw[i, a] + Rw[i, a, 0] * mc0 + Rw[i, a, 1] * mc1 + Rw[i, a, 2] * mc2
        out[root, 3] += m


@njit(cache=True, fastmath=FMA, **INTERNAL)
def keep_centres_of_mass(link_table, R_pj, before, after, q):
    """Translate every free root so that its tree's centre of mass is back where `before`
    (tree_centres_of_mass before the position-only correction) had it; `after` is the same
    sum after the correction. A free root's origin moves by R_pj times its position
    coordinates' change, the whole tree with it."""
    for i in range(link_table.shape[0]):
        if link_table[i, LINK_PARENT] >= 0 or link_table[i, LINK_TYPE] != FREE:
            continue
        m = before[i, 3]
        if not m > 0.0:
            continue
        d0 = (before[i, 0] - after[i, 0]) / m
        d1 = (before[i, 1] - after[i, 1]) / m
        d2 = (before[i, 2] - after[i, 2]) / m
        q0 = link_table[i, LINK_Q_START]
        for a in range(3):  # R_pj^T d
            q[q0 + a] += R_pj[i, 0, a] * d0 + R_pj[i, 1, a] * d1 + R_pj[i, 2, a] * d2
