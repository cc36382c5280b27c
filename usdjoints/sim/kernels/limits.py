"""Joint limits and velocity limits as joint-space impulses (one-sided velocity constraints).

After the velocity update of a step, every dof k gets an interval [lo_k, hi_k] its end-of-step
velocity must lie in:

* a hard position limit (finite bound, no soft-limit spring authored): the step may not carry
  the joint past the bound, v_k >= (lower - x) / h (speculative, so a joint arriving at its
  limit stops on it); a joint already outside may not go deeper, v_k >= 0;
* a velocity limit: -v_max <= v_k <= v_max;
* a distance joint (PhysicsDistanceJoint, which PhysX never makes an articulation joint: it
  stays outside the tree) is a row of its own, J = d|p_B - p_A|/dv for its two anchors, bounded
  by minDistance and maxDistance as a joint's position is by its limits.

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

import numpy as np

from . import FMA, INTERNAL, njit
from .constraints import accumulate_jacobian, project_out
from .crba import ltdl_solve, ltdl_unit_solve
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


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def _row_dot(J, k, x):
    """J_k . x [nv] for row k: x[k] for a dof's row (k < nv), the distance row J[k - nv] after."""
    nv = x.shape[0]
    if k < nv:
        return x[k]
    s = 0.0
    for d in range(nv):
        s += J[k - nv, d] * x[d]
    return s


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def _row_dot_column(J, k, C, slot):
    """J_k . C[slot] (C [rows, nv], indexed by element: a row view costs a reference count
    numba cannot prune here)."""
    nv = C.shape[1]
    if k < nv:
        return C[slot, k]
    s = 0.0
    for d in range(nv):
        s += J[k - nv, d] * C[slot, d]
    return s


@njit(cache=True, fastmath=FMA)
def _solve_rows(dof_parent, LD, J, lo, hi, base, v, C, A, rhs, lam, x, slot_of, rows, side, G, Y,
                A_eq, m_eq, lam_eq):
    """Impulses lam making J_k (base + v) lie in [lo_k, hi_k] per row k, added to v through
    H^-1: the exact solution of the box-constrained problem min |v' - v|_H s.t. lo <=
    J (base + v') <= hi, by an active set on the Delassus matrix W = J H^-1 J^T (rows with a
    finite bound only). Row k < nv is dof k (J_k = e_k), row nv + j the distance row J[j].

    The set starts with the rows outside their bounds. Each pass solves W_AA lam_A = bound_A -
    J_A (base + v) directly (Cholesky of the small block); a row whose impulse pulls the wrong
    way (a lower bound pulling down) leaves the set, else the row the trial velocity puts
    furthest outside its bound joins it; the solve ends when neither happens. Columns are
    formed only for rows that join (C[slot] = H^-1 J_k^T by crba.ltdl_solve's operations).

    With m_eq equality rows (couplings and loop closures, G v = 0; Y, A_eq from
    constraints.factor_constraints) the metric is the constrained one: each column is projected
    onto G x = 0 (W = J P H^-1 J^T with P the H-metric projection), so the impulses keep the
    loops closed and a loop cannot carry a limited joint past its bound after the limits are
    solved. base, v, x [nv]; J [nd, nv]; lo, hi, lam, rhs [nv + nd]; C [nv + nd, nv],
    A [nv + nd, nv + nd]; slot_of, rows, side int64 [nv + nd] scratch; lam_eq [m_eq] scratch."""
    nv = v.shape[0]
    n_rows = nv + J.shape[0]
    n_act = 0
    n_cols = 0
    for k in range(n_rows):
        slot_of[k] = -1
        if lo[k] == -math.inf and hi[k] == math.inf:
            continue
        gap = _violation(_row_dot(J, k, base) + _row_dot(J, k, v), lo[k], hi[k])
        if gap != 0.0:
            rows[n_act] = k
            side[n_act] = -1 if gap > 0.0 else 1
            n_act += 1
    for a in range(n_act):
        slot_of[rows[a]] = n_cols
        _column(dof_parent, LD, J, rows[a], C, n_cols, x, G, Y, A_eq, m_eq, lam_eq)
        n_cols += 1
    for _ in range(PASSES_PER_ROW * n_rows + PASS_SLACK):
        # W_AA lam_A = bound - value, W_AA[a, b] = J_rows[a] . H^-1 J_rows[b]
        for a in range(n_act):
            ka = rows[a]
            for b in range(n_act):
                A[a, b] = _row_dot_column(J, ka, C, slot_of[rows[b]])
            rhs[a] = (lo[ka] if side[a] < 0 else hi[ka]) - (_row_dot(J, ka, base) + _row_dot(J, ka, v))
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
            size = wrong * _row_dot_column(J, ka, C, slot_of[ka])
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
        for k in range(n_rows):
            if lo[k] == -math.inf and hi[k] == math.inf:
                continue
            inside = False
            for a in range(n_act):
                if rows[a] == k:
                    inside = True
            if inside:
                continue
            value = _row_dot(J, k, base) + _row_dot(J, k, v)
            for a in range(n_act):
                value += _row_dot_column(J, k, C, slot_of[rows[a]]) * lam[a]
            gap = _violation(value, lo[k], hi[k])
            if abs(gap) > abs(join_gap):
                join, join_gap = k, gap
        if join < 0:
            break
        if slot_of[join] < 0:
            slot_of[join] = n_cols
            _column(dof_parent, LD, J, join, C, n_cols, x, G, Y, A_eq, m_eq, lam_eq)
            n_cols += 1
        rows[n_act] = join
        side[n_act] = -1 if join_gap > 0.0 else 1
        n_act += 1
    for a in range(n_act):
        slot = slot_of[rows[a]]
        for d in range(nv):
            v[d] += C[slot, d] * lam[a]


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def _column(dof_parent, LD, J, k, C, slot, x, G, Y, A_eq, m_eq, lam_eq):
    """C[slot] <- H^-1 J_k^T from the factor crba.ltdl_factor left in LD (J_k = e_k for a dof's
    row k < nv, else the distance row J[k - nv]), projected onto the m_eq equality rows G x = 0
    (x [nv] scratch)."""
    nv = x.shape[0]
    if k < nv:
        ltdl_unit_solve(dof_parent, LD, k, x)
    else:
        for d in range(nv):
            x[d] = J[k - nv, d]
        ltdl_solve(dof_parent, LD, x)
    if m_eq > 0:
        project_out(G, Y, A_eq, m_eq, x, lam_eq)
    for d in range(nv):
        C[slot, d] = x[d]


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
                   G, Y, A_eq, m_eq, lam_eq, S, I6, Rw, pw, distances, drives, J, drive_h):
    """Apply the limit impulses to v [nv] in place and write the position-only bias velocity
    [nv] (see the module docstring); returns True when the bias is not zero. LD holds the
    factor of the step's inertia; work = (lo, hi, lam, lo_b, hi_b, rhs, value, inertia [nv + nd],
    column [nv]) and iwork = (slot_of, rows, side) int64 [nv + nd] vectors (vectors, not rows of one array:
    each row view would cost a reference count per step), C [nv + nd, nv] and A [nv + nd,
    nv + nd] are scratch; lo and hi are left holding each row's velocity interval. G, Y, A_eq:
    the step's m_eq equality rows as constraints.factor_constraints left them (v is expected to
    meet them already); both solves keep them (see _solve_rows).

    distances = (link int64 [nd, 2], anchor [nd, 2, 3] [m] and frame [nd, 2, 3, 3] in the links'
    frames (world for link -1), bounds [nd, 2] = (min, max) [m | rad], -inf and inf where
    unbounded, kind int64 [nd]): the distance joints and the limits of loop-closing hinges and
    sliders, each one row J[j] [nd, nv] (scratch, see _distance_rows), bounded as a limit is, or
    None without any (numba then compiles none of it); drives [nd, ROW_DRIVE_COLUMNS] the rows'
    drives, or None when no row has one; S, I6, Rw, pw the motion subspaces, the links' spatial
    inertias and this step's link world poses (read only with bound rows). drive_h [s]: the time
    the rows' drives (drive_impulses) act over before the bounds are solved, the step h on the
    step's first call and 0 on its later calls (after the contacts), which only hold the bounds
    (a float, not a flag: numba would compile a literal True and False apart).

    Most steps of most robots have no bound active: the bounds are checked first, and the
    active-set solve (and its columns of H^-1) runs only when some velocity is outside them."""
    nv = v.shape[0]
    nd = J.shape[0]
    lo, hi, lam, lo_b, hi_b, rhs, value, inertia, column = work
    slot_of, rows, side = iwork
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
        if _bound_rows(k, q[qi], dof_table[k, DOF_LOWER], dof_table[k, DOF_UPPER], h, lo, hi,
                       lo_b, hi_b):
            outside = True
    if distances is not None:
        if _distance_rows(link_table, S, I6, Rw, pw, distances, drives, h, J, nv, lo, hi, lo_b, hi_b,
                          value, inertia):
            outside = True
        if drives is not None and drive_h > 0.0:
            drive_impulses(dof_parent, LD, J, distances[4], drives, value, inertia, drive_h, v, C, A,
                           rhs, lam, column, rows, side, G, Y, A_eq, m_eq, lam_eq)
    if outside:
        active = True
    else:
        active = False
        for k in range(nv + nd):
            if not (lo[k] <= _row_dot(J, k, v) <= hi[k]):
                active = True
                break
    if not active:  # the solve would leave every impulse at zero
        return False
    _solve_rows(dof_parent, LD, J, lo, hi, bias, v, C, A, rhs, lam, column, slot_of, rows, side,
                G, Y, A_eq, m_eq, lam_eq)  # bias is 0
    if outside:
        _solve_rows(dof_parent, LD, J, lo_b, hi_b, v, bias, C, A, rhs, lam, column, slot_of, rows,
                    side, G, Y, A_eq, m_eq, lam_eq)
        if m_eq > 0 and not _within(J, lo_b, hi_b, v, bias):
            # the loops' linearisation cannot carry the correction (a linkage at a dead point:
            # Cassie's foot four-bar at its zero pose): the tree alone moves onto the limits, at
            # most MAX_CORRECTION_TURN a step, and the step's position projection closes the
            # loops, as PhysX keeps a loop-closing joint apart from the articulation's limits
            for k in range(nv):
                bias[k] = 0.0
            _solve_rows(dof_parent, LD, J, lo_b, hi_b, v, bias, C, A, rhs, lam, column, slot_of,
                        rows, side, G, Y, A_eq, 0, lam_eq)
            cap_correction(link_table, bias, h)  # the loops' part of it is not linear in q
    return outside


# a row the position-only solve leaves further than this outside its interval (relative to the
# interval's size, at least 1 rad/s | 1 m/s) was not solved: its rows were nearly dependent
UNSOLVED_ROW = 1e-6


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def _within(J, lo, hi, base, v):
    """Whether every row's J_k (base + v) lies in [lo_k, hi_k] up to UNSOLVED_ROW."""
    for k in range(lo.shape[0]):
        if lo[k] == -math.inf and hi[k] == math.inf:
            continue
        value = _row_dot(J, k, base) + _row_dot(J, k, v)
        scale = 1.0
        if lo[k] > -math.inf:
            scale = max(scale, abs(lo[k]))
        if hi[k] < math.inf:
            scale = max(scale, abs(hi[k]))
        if value < lo[k] - UNSOLVED_ROW * scale or value > hi[k] + UNSOLVED_ROW * scale:
            return False
    return True


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def _bound_rows(k, x, lower, upper, h, lo, hi, lo_b, hi_b):
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


# the kinds of bound row (model/articulated.py's BOUND_*)
BOUND_DISTANCE = 0
BOUND_ANGLE = 1
BOUND_SLIDE = 2
BOUND_CONE = 3
# a swing this small [rad] has no direction: the cone row is left out that step (well inside)
CONE_FLOOR = 1e-9
# anchors closer than this [m] give the distance no direction: the row is left out that step
DISTANCE_FLOOR = 1e-9


@njit(cache=True, fastmath=FMA, **INTERNAL)
def _distance_rows(link_table, S, I6, Rw, pw, distances, drives, h, J, nv, lo, hi, lo_b, hi_b,
                   values, inertia):
    """Each bound row's J[j], its value at values[nv + j] (nan for a row left out this step) and
    its intervals at rows nv + j (see limit_impulses); True when some row starts outside its
    bounds. A row with an acceleration drive (drives, or None) gets its free-body inertia at
    inertia[nv + j] (_free_inertia). A row is, by its kind (model/articulated.py BOUND_*), a distance joint's anchor
    distance, a loop-closing hinge's angle (the rotation of side 1's frame about side 0's x axis,
    the hinge axis), a loop-closing slider's travel (side 1's anchor along side 0's x axis) or a
    spherical joint's swing (of side 1's x axis from side 0's, its bounds the cone's half-angles
    about side 0's y and z axes)."""
    dist_link, dist_anchor, dist_frame, dist_bounds, dist_kind = distances
    ends = np.empty((3, 3))  # anchor A, anchor B, the row's unit direction (world)
    M6 = np.empty((6, 7))    # a link's spatial inertia and a right-hand side (_free_inertia)
    axes = np.empty((2, 3, 3))  # each side's frame in the world (columns: its x, y, z axes)
    outside = False
    for j in range(J.shape[0]):
        k = nv + j
        lo[k] = -math.inf
        hi[k] = math.inf
        lo_b[k] = -math.inf
        hi_b[k] = math.inf
        values[k] = math.nan
        for d in range(nv):
            J[j, d] = 0.0
        kind = dist_kind[j]
        for side in range(2):
            link = dist_link[j, side]
            for a in range(3):
                value = dist_anchor[j, side, a]
                if link >= 0:
                    value = pw[link, a]
                    for b in range(3):
                        value += Rw[link, a, b] * dist_anchor[j, side, b]
                ends[side, a] = value
                if kind == BOUND_DISTANCE:
                    continue  # a distance row reads no frame
                for c in range(3):
                    frame = dist_frame[j, side, a, c]
                    if link >= 0:
                        frame = 0.0
                        for b in range(3):
                            frame += Rw[link, a, b] * dist_frame[j, side, b, c]
                    axes[side, a, c] = frame
        if kind == BOUND_CONE:
            # the swing of side 1's x axis from side 0's: its angle, about the unit axis a0 x a1
            cos_swing = 0.0
            for a in range(3):
                cos_swing += axes[0, a, 0] * axes[1, a, 0]
            ends[2, 0] = axes[0, 1, 0] * axes[1, 2, 0] - axes[0, 2, 0] * axes[1, 1, 0]
            ends[2, 1] = axes[0, 2, 0] * axes[1, 0, 0] - axes[0, 0, 0] * axes[1, 2, 0]
            ends[2, 2] = axes[0, 0, 0] * axes[1, 1, 0] - axes[0, 1, 0] * axes[1, 0, 0]
            sin_swing = math.sqrt(ends[2, 0] * ends[2, 0] + ends[2, 1] * ends[2, 1] + ends[2, 2] * ends[2, 2])
            if not sin_swing > CONE_FLOOR:
                continue
            for a in range(3):
                ends[2, a] /= sin_swing
            value = math.atan2(sin_swing, cos_swing)
            # the elliptical cone's half-angle about this swing axis (side 0's y and z components),
            # as PhysX bounds the swing: tan(angle / 4) within the ellipse of tan(half-angle / 4)
            n_y = ends[2, 0] * axes[0, 0, 1] + ends[2, 1] * axes[0, 1, 1] + ends[2, 2] * axes[0, 2, 1]
            n_z = ends[2, 0] * axes[0, 0, 2] + ends[2, 1] * axes[0, 1, 2] + ends[2, 2] * axes[0, 2, 2]
            t_y = n_y / math.tan(0.25 * dist_bounds[j, 0])
            t_z = n_z / math.tan(0.25 * dist_bounds[j, 1])
            bound = 4.0 * math.atan(1.0 / math.sqrt(t_y * t_y + t_z * t_z))
            accumulate_jacobian(link_table, S, Rw, pw, dist_link[j, 1], ends[1], ends[2], True, 1.0, J[j])
            accumulate_jacobian(link_table, S, Rw, pw, dist_link[j, 0], ends[0], ends[2], True, -1.0, J[j])
            values[k] = value
            if _bound_rows(k, value, -math.inf, bound, h, lo, hi, lo_b, hi_b):
                outside = True
            continue
        if kind == BOUND_DISTANCE:
            length = 0.0
            for a in range(3):
                ends[2, a] = ends[1, a] - ends[0, a]
                length += ends[2, a] * ends[2, a]
            value = math.sqrt(length)
            if not value > DISTANCE_FLOOR:
                continue
            for a in range(3):
                ends[2, a] /= value
        else:
            for a in range(3):
                ends[2, a] = axes[0, a, 0]
        if kind == BOUND_ANGLE:
            # side 1's y axis in side 0's (y, z) plane: cos and sin of the hinge angle
            cos_y = axes[0, 0, 1] * axes[1, 0, 1] + axes[0, 1, 1] * axes[1, 1, 1] + axes[0, 2, 1] * axes[1, 2, 1]
            sin_y = axes[0, 0, 2] * axes[1, 0, 1] + axes[0, 1, 2] * axes[1, 1, 1] + axes[0, 2, 2] * axes[1, 2, 1]
            value = math.atan2(sin_y, cos_y)
            accumulate_jacobian(link_table, S, Rw, pw, dist_link[j, 1], ends[1], ends[2], True, 1.0, J[j])
            accumulate_jacobian(link_table, S, Rw, pw, dist_link[j, 0], ends[0], ends[2], True, -1.0, J[j])
        else:
            if kind == BOUND_SLIDE:
                value = 0.0
                for a in range(3):
                    value += ends[2, a] * (ends[1, a] - ends[0, a])
            accumulate_jacobian(link_table, S, Rw, pw, dist_link[j, 1], ends[1], ends[2], False, 1.0, J[j])
            accumulate_jacobian(link_table, S, Rw, pw, dist_link[j, 0], ends[0], ends[2], False, -1.0, J[j])
        values[k] = value
        if drives is not None:
            if int(drives[j, ROW_DRIVE_TYPE]) == DRIVE_ACCELERATION:
                inertia[k] = _free_inertia(I6, Rw, pw, dist_link[j], ends, kind == BOUND_ANGLE, M6)
        if _bound_rows(k, value, dist_bounds[j, 0], dist_bounds[j, 1], h, lo, hi, lo_b, hi_b):
            outside = True
    return outside


@njit(cache=True, fastmath=FMA, **INTERNAL)
def _free_inertia(I6, Rw, pw, links, ends, angular, M6):
    """1 / (sum over the row's two links of j^T I6^-1 j): the inertia a bound row (direction
    ends[2] at the anchors ends[0], ends[1], world) sees from its two links as free bodies, the
    rest of the articulation ignored; 0 when a link has no invertible inertia. j is the row in the
    link's coordinates, angular part first as I6: (a, 0) for a hinge's angle, (d x a, a) for a
    translation at the anchor d from the link's origin. This is the scale PhysX gives an
    acceleration drive of a joint outside the articulation (measured with ovphysx 0.7, see
    tests/sim/test_loop_drives.py)."""
    response = 0.0
    for side in range(2):
        link = links[side]
        if link < 0:
            continue  # the world moves nothing
        a = np.empty(3)
        d = np.empty(3)
        for c in range(3):
            a[c] = 0.0
            d[c] = 0.0
            for b in range(3):
                a[c] += Rw[link, b, c] * ends[2, b]
                d[c] += Rw[link, b, c] * (ends[side, b] - pw[link, b])
        for r in range(6):
            for c in range(6):
                M6[r, c] = I6[link, r, c]
        if angular:
            for c in range(3):
                M6[c, 6] = a[c]
                M6[3 + c, 6] = 0.0
        else:
            M6[0, 6] = d[1] * a[2] - d[2] * a[1]
            M6[1, 6] = d[2] * a[0] - d[0] * a[2]
            M6[2, 6] = d[0] * a[1] - d[1] * a[0]
            for c in range(3):
                M6[3 + c, 6] = a[c]
        j = np.empty(6)
        for r in range(6):
            j[r] = M6[r, 6]
        for c in range(6):  # Gaussian elimination (I6 is symmetric positive definite)
            pivot = M6[c, c]
            if not pivot > 1e-300:
                return 0.0
            for r in range(c + 1, 6):
                factor = M6[r, c] / pivot
                for b in range(c, 7):
                    M6[r, b] -= factor * M6[c, b]
        for r in range(5, -1, -1):
            x = M6[r, 6]
            for b in range(r + 1, 6):
                x -= M6[r, b] * M6[b, 6]
            M6[r, 6] = x / M6[r, r]
        for r in range(6):
            response += j[r] * M6[r, 6]
    return 1.0 / response if response > 0.0 and math.isfinite(response) else 0.0


# the kinds of row drive and their columns (model/articulated.py's DRIVE_* and ROW_DRIVE_*)
DRIVE_NONE = 0
DRIVE_ACCELERATION = 2
ROW_DRIVE_TYPE = 0
ROW_DRIVE_STIFFNESS = 1
ROW_DRIVE_DAMPING = 2
ROW_DRIVE_MAX_FORCE = 3
ROW_DRIVE_TARGET_POSITION = 4
ROW_DRIVE_TARGET_VELOCITY = 5


@njit(cache=True, fastmath=FMA, **INTERNAL)
def drive_impulses(dof_parent, LD, J, kind, drive, values, inertia, h, v, C, A, rhs, lam, x, rows,
                   fixed, G, Y, A_eq, m_eq, lam_eq):
    """Apply the drives of the bound rows (loop-closing hinges and sliders, drive [nd,
    ROW_DRIVE_COLUMNS], kind [nd] their BOUND_*) to v [nv] as impulses lam_j J[j]^T through H^-1, integrated implicitly as
    the tree's drives are: row j's force f = kp (target - x_end) + kd (target_v - u_end) at the
    step's end, x_end = x + h u_end, u = J[j] v, is the impulse lam = h f = (b - u_end) / gamma
    with gamma = 1 / (h (kd + h kp)) and b = (kp (target - x) + kd target_v) / (kd + h kp): the
    rows' impulses solve (W + diag(gamma)) lam = b - J v, W = J H^-1 J^T in the loops' metric, so
    any stiffness and damping is stable at any step. A hinge's spring, as PhysX's D6 drive, pulls
    with kp 2 sin(e / 2) for the angle error e = target - x taken the short way round (measured
    with ovphysx 0.7: a weak drive rests where that error holds the rod, not where e does; see
    tests/sim/test_loop_drives.py), linearised as kp cos(e / 2) for the implicit step. An acceleration drive's gains are scaled by
    the row's free-body inertia, inertia[nv + j] (_free_inertia, as PhysX scales them). |lam| <= h maxForce: a row
    over its bound is held at it and the others solved again (at most once per row). values
    [nv + nd] the rows' positions (_distance_rows; nan: row left out this step); C, A, rhs, lam,
    x, rows and fixed (int64) are scratch, as in _solve_rows."""
    nv = v.shape[0]
    n = 0
    for j in range(J.shape[0]):
        if int(drive[j, ROW_DRIVE_TYPE]) != DRIVE_NONE and not math.isnan(values[nv + j]):
            rows[n] = nv + j
            n += 1
    if n == 0:
        return
    for a in range(n):
        _column(dof_parent, LD, J, rows[a], C, a, x, G, Y, A_eq, m_eq, lam_eq)
        fixed[a] = 0
    for _ in range(n + 1):
        for a in range(n):
            ka = rows[a]
            j = ka - nv
            kp = drive[j, ROW_DRIVE_STIFFNESS]
            kd = drive[j, ROW_DRIVE_DAMPING]
            if int(drive[j, ROW_DRIVE_TYPE]) == DRIVE_ACCELERATION:
                kp *= inertia[ka]
                kd *= inertia[ka]
            error = drive[j, ROW_DRIVE_TARGET_POSITION] - values[ka]
            slope = 1.0  # d error / d (target - x)
            if kind[j] == BOUND_ANGLE:  # PhysX's quaternion error, the short way round
                error -= 2.0 * math.pi * math.floor(error / (2.0 * math.pi) + 0.5)
                slope = math.cos(0.5 * error)
                error = 2.0 * math.sin(0.5 * error)
            force = kp * error + kd * drive[j, ROW_DRIVE_TARGET_VELOCITY]
            denominator = kd + h * kp * slope
            if fixed[a] == 0 and not denominator > 0.0:
                # nothing to integrate implicitly (a hinge half a turn from its undamped
                # target): the start-of-step force, held as a known impulse
                bound = h * drive[j, ROW_DRIVE_MAX_FORCE]
                lam[a] = min(max(h * force, -bound), bound)
                fixed[a] = 2
            if fixed[a] != 0:  # a known impulse (held at its bound, or explicit)
                for b in range(n):
                    A[a, b] = 0.0
                A[a, a] = 1.0
                rhs[a] = lam[a]
                continue
            for b in range(n):
                A[a, b] = _row_dot_column(J, ka, C, b)
            A[a, a] += 1.0 / (h * denominator)
            rhs[a] = force / denominator - _row_dot(J, ka, v)
        for a in range(n):  # the held rows' impulses move the others
            if fixed[a] != 0:
                continue
            for b in range(n):
                if fixed[b] != 0:
                    rhs[a] -= _row_dot_column(J, rows[a], C, b) * lam[b]
        for a in range(n):
            if fixed[a] != 0:
                for b in range(n):
                    if fixed[b] == 0:
                        A[b, a] = 0.0
        _cholesky_solve(A, n, rhs)
        held = False
        for a in range(n):
            if fixed[a] != 0:
                continue
            bound = h * drive[rows[a] - nv, ROW_DRIVE_MAX_FORCE]
            if abs(rhs[a]) > bound:
                lam[a] = bound if rhs[a] > 0.0 else -bound
                fixed[a] = 1
                held = True
            else:
                lam[a] = rhs[a]
        if not held:
            break
    for a in range(n):
        for d in range(nv):
            v[d] += C[a, d] * lam[a]


# the largest turn [rad] of one joint in one step of the position-only correction: the bias is
# a linearisation, good for the 0.5 rad a joint starting past its limit asks (PhysX puts such a
# hinge back in one step), while a distance joint starting metres outside may ask a short link
# to turn by many radians, which the linear step would overshoot into a larger error each step
MAX_CORRECTION_TURN = 0.6


@njit(cache=True, fastmath=FMA, **INTERNAL)
def cap_correction(link_table, bias, h):
    """Scale the position-only bias [nv] (in place) so that no joint turns by more than
    MAX_CORRECTION_TURN in the step h: the rest of a large correction is left to the next steps."""
    cap_turn(link_table, bias, h, MAX_CORRECTION_TURN)


@njit(cache=True, fastmath=FMA, **INTERNAL)
def cap_turn(link_table, x, h, turn):
    """Scale the joint-space rate x [nv] (in place) so that no joint turns by more than ``turn``
    [rad] in the time h (a hinge by its angle, a ball or free joint by its rotation vector's
    length); returns whether it scaled x."""
    largest = 0.0
    for i in range(link_table.shape[0]):
        kind = link_table[i, LINK_TYPE]
        v0 = link_table[i, LINK_V_START]
        if kind == REVOLUTE:
            largest = max(largest, abs(x[v0]))
        elif kind == SPHERICAL or kind == FREE:
            w0 = v0 if kind == SPHERICAL else v0 + 3
            largest = max(largest, math.sqrt(x[w0] ** 2 + x[w0 + 1] ** 2 + x[w0 + 2] ** 2))
    if h * largest > turn:
        scale = turn / (h * largest)
        for k in range(x.shape[0]):
            x[k] *= scale
        return True
    return False


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
