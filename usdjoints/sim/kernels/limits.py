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

The contacts' own position-only push apart of overlaps (contact_solve.py) is held by the same
position rows (hold_push): no joint ends the step past its limit because of it, as PhysX keeps
an articulation's joint limits during its position correction.

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
from .bound_rows import distance_rows, drive_impulses
from .correction import cap_correction
from .jcalc import dof_position
from .layout import DOF_LIMIT_STIFFNESS, DOF_LOWER, DOF_UPPER, DOF_VELOCITY_LIMIT
from .rows import bound_interval, cholesky_solve, inverse_column, row_dot, row_dot_column

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
    formed only for rows that join (C[slot] = H^-1 J_k^T, rows.inverse_column).

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
        gap = _violation(row_dot(J, k, base) + row_dot(J, k, v), lo[k], hi[k])
        if gap != 0.0:
            rows[n_act] = k
            side[n_act] = -1 if gap > 0.0 else 1
            n_act += 1
    for a in range(n_act):
        slot_of[rows[a]] = n_cols
        inverse_column(dof_parent, LD, J, rows[a], C, n_cols, x, G, Y, A_eq, m_eq, lam_eq)
        n_cols += 1
    for _ in range(PASSES_PER_ROW * n_rows + PASS_SLACK):
        # W_AA lam_A = bound - value, W_AA[a, b] = J_rows[a] . H^-1 J_rows[b]
        for a in range(n_act):
            ka = rows[a]
            for b in range(n_act):
                A[a, b] = row_dot_column(J, ka, C, slot_of[rows[b]])
            rhs[a] = (lo[ka] if side[a] < 0 else hi[ka]) - (row_dot(J, ka, base) + row_dot(J, ka, v))
        cholesky_solve(A, n_act, rhs)
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
            size = wrong * row_dot_column(J, ka, C, slot_of[ka])
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
            value = row_dot(J, k, base) + row_dot(J, k, v)
            for a in range(n_act):
                value += row_dot_column(J, k, C, slot_of[rows[a]]) * lam[a]
            gap = _violation(value, lo[k], hi[k])
            if abs(gap) > abs(join_gap):
                join, join_gap = k, gap
        if join < 0:
            break
        if slot_of[join] < 0:
            slot_of[join] = n_cols
            inverse_column(dof_parent, LD, J, join, C, n_cols, x, G, Y, A_eq, m_eq, lam_eq)
            n_cols += 1
        rows[n_act] = join
        side[n_act] = -1 if join_gap > 0.0 else 1
        n_act += 1
    for a in range(n_act):
        slot = slot_of[rows[a]]
        for d in range(nv):
            v[d] += C[slot, d] * lam[a]


@njit(cache=True, fastmath=FMA)
def solve_unit_rows(H, lo, hi, base, v, A, rhs, delta, state, free):
    """_solve_rows' problem when every row is a dof's own (no distance or bound row, no
    coupling or loop): min |v' - v|_H s.t. lo <= base + v' <= hi, by an active set on H itself
    (the unfactored M + h D + h^2 K [nv, nv]) instead of on columns of H^-1. With the rows at a
    bound (state[k] = -1 lower, +1 upper) fixed there, the free dofs F move by delta_F solving
    H_FF delta_F = -H_FA delta_A; a fixed row's impulse is (H delta)_k. As in _solve_rows, the
    set starts with the rows outside their bounds; a row whose impulse pulls away from its
    bound leaves it (the worst first), else the free row furthest outside joins it. The result
    is the same exact solution, at the cost of a Cholesky of the free block per pass (a few
    hundred flops for a 9-dof arm) instead of a column of H^-1 per row. A [nv, nv], rhs, delta
    [nv] and free (int64) [nv] are scratch; v is updated in place.

    state (int64) [nv] holds on entry a guess of the rows at a bound (0 everywhere, or the last
    step's set: a row the last solve held at a finite bound starts there again unless it is now
    outside the other one) and on return the set the solve ended with. The solution does not
    depend on the guess, only the passes it takes: a joint held at its velocity limit by the
    joints around it, not by its own drive, stays held from step to step, where a start from
    the violated rows alone would find it again with a second pass each step."""
    nv = v.shape[0]
    for k in range(nv):
        guess = state[k]
        state[k] = 0
        if lo[k] == -math.inf and hi[k] == math.inf:
            continue
        gap = _violation(base[k] + v[k], lo[k], hi[k])
        if gap > 0.0:
            state[k] = -1
        elif gap < 0.0:
            state[k] = 1
        elif guess == -1 and lo[k] != -math.inf:
            state[k] = -1
        elif guess == 1 and hi[k] != math.inf:
            state[k] = 1
    for _ in range(PASSES_PER_ROW * nv + PASS_SLACK):
        n_free = 0
        for k in range(nv):
            if state[k] == 0:
                free[n_free] = k
                n_free += 1
                delta[k] = 0.0
            else:
                delta[k] = (lo[k] if state[k] < 0 else hi[k]) - base[k] - v[k]
        for a in range(n_free):
            ka = free[a]
            s = 0.0
            for k in range(nv):
                if state[k] != 0:
                    s -= H[ka, k] * delta[k]
            rhs[a] = s
            for b in range(n_free):
                A[a, b] = H[ka, free[b]]
        cholesky_solve(A, n_free, rhs)
        for a in range(n_free):
            delta[free[a]] = rhs[a]
        # a row whose impulse pulls away from its bound's side leaves the set (the worst first)
        worst = -1
        worst_size = 0.0
        for k in range(nv):
            if state[k] == 0 or lo[k] == hi[k]:  # free, or an equality: either sign
                continue
            impulse = 0.0
            for j in range(nv):
                impulse += H[k, j] * delta[j]
            wrong = -impulse if state[k] < 0 else impulse
            size = wrong / H[k, k]
            if wrong > 0.0 and size > worst_size:
                worst, worst_size = k, size
        if worst >= 0:
            state[worst] = 0
            continue
        # the free row the trial velocity puts furthest outside its bound joins the set
        join = -1
        join_gap = 0.0
        for a in range(n_free):
            k = free[a]
            if lo[k] == -math.inf and hi[k] == math.inf:
                continue
            gap = _violation(base[k] + v[k] + delta[k], lo[k], hi[k])
            if abs(gap) > abs(join_gap):
                join, join_gap = k, gap
        if join < 0:
            break
        state[join] = -1 if join_gap > 0.0 else 1
    for k in range(nv):
        v[k] += delta[k]


@njit(cache=True, fastmath=FMA, **INTERNAL)
def limit_impulses(link_table, dof_table, dof_parent, LD, H, q, h, work, iwork, C, A, v, bias,
                   G, Y, A_eq, m_eq, lam_eq, S, I6, Rw, pw, distances, drives, J, drive_h) -> bool:
    """Apply the limit impulses to v [nv] in place and write the position-only bias velocity
    [nv] (see the module docstring); returns True when the bias is not zero. LD holds the
    factor of the step's inertia, H [nv, nv] that inertia itself (or [0, 0] when not kept: the
    solve then works on LD's columns alone, _solve_rows); work = (lo, hi, lam, lo_b, hi_b, rhs, value, inertia [nv + nd],
    column [nv]) and iwork = (slot_of, rows, side) int64 [nv + nd] vectors (vectors, not rows of one array:
    each row view would cost a reference count per step) and gap float64 [nv]; side carries over
    from call to call the rows the last solve held at a bound (solve_unit_rows' guess; zeros
    before an env's first step, and any values are safe), gap how far outside its limits each
    joint was after the last step's correction by the tree alone (_drop_stalled; inf before an
    env's first step), C [nv + nd, nv] and A [nv + nd,
    nv + nd] are scratch; lo and hi are left holding each row's velocity interval. G, Y, A_eq:
    the step's m_eq equality rows as constraints.factor_constraints left them (v is expected to
    meet them already); both solves keep them (see limits._solve_rows). G is None on a model
    without couplings or loops (Y and A_eq are then not read).

    distances = (link int64 [nd, 2], anchor [nd, 2, 3] [m] and frame [nd, 2, 3, 3] in the links'
    frames (world for link -1), bounds [nd, 2] = (min, max) [m | rad], -inf and inf where
    unbounded, kind int64 [nd]): the distance joints and the limits of loop-closing hinges and
    sliders, each one row J[j] [nd, nv] (scratch, see bound_rows.distance_rows), bounded as a limit is, or
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
    slot_of, rows, side, gap = iwork
    outside = False
    for k in range(nv):
        vmax = dof_table[k, DOF_VELOCITY_LIMIT]
        lo[k] = -vmax
        hi[k] = vmax
        lo_b[k] = -math.inf
        hi_b[k] = math.inf
        bias[k] = 0.0
    for k in range(nv):
        if dof_table[k, DOF_LIMIT_STIFFNESS] != 0.0:
            continue  # a soft limit (spring) is a passive force instead
        lower = dof_table[k, DOF_LOWER]
        upper = dof_table[k, DOF_UPPER]
        if lower == -math.inf and upper == math.inf:
            continue
        placed, x = dof_position(dof_table, q, k)  # a ball's dof: its unit row is PhysX's motion axis
        if placed and bound_interval(k, x, lower, upper, h, lo, hi, lo_b, hi_b):
            outside = True
    if distances is not None:
        if distance_rows(link_table, S, I6, Rw, pw, distances, drives, h, J, nv, lo, hi, lo_b, hi_b,
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
            if not (lo[k] <= row_dot(J, k, v) <= hi[k]):
                active = True
                break
    if not active:  # the solve would leave every impulse at zero
        for k in range(nv):
            side[k] = 0  # and the next step's solve starts from no row held
            gap[k] = math.inf
        return False
    if distances is None and G is None:
        # every row a dof's own, known at compile time (no bound row; no coupling or loop, whose
        # rows the step loop then passes as None): numba prunes the rest, so the variant most
        # robots use compiles without the general solve
        _unit_rows(H, lo, hi, lo_b, hi_b, bias, v, A, rhs, column, side, rows, slot_of, outside)
        return outside
    if nd == 0 and m_eq == 0 and H.shape[0] == nv:  # every row a dof's own: the primal solve
        _unit_rows(H, lo, hi, lo_b, hi_b, bias, v, A, rhs, column, side, rows, slot_of, outside)
        return outside
    _solve_rows(dof_parent, LD, J, lo, hi, bias, v, C, A, rhs, lam, column, slot_of, rows, side,
                G, Y, A_eq, m_eq, lam_eq)  # bias is 0
    if outside:
        _solve_rows(dof_parent, LD, J, lo_b, hi_b, v, bias, C, A, rhs, lam, column, slot_of, rows,
                    side, G, Y, A_eq, m_eq, lam_eq)
        if m_eq > 0 and not _within(J, lo_b, hi_b, v, bias):
            # the loops' linearisation cannot carry the correction (a linkage at a dead point:
            # Cassie's foot four-bar at its zero pose): the tree alone moves onto the limits, at
            # most MAX_CORRECTION_TURN a step, and the step's position projection closes the
            # loops, as PhysX keeps a loop-closing joint apart from the articulation's limits.
            # A joint the projection puts back where it was (its limit and the loops cannot
            # both hold: cassie_reduced's feet) is left out of it: moved and moved back every
            # step, it made the other joints of its loop gain 90 J in 0.1 s
            for k in range(nv):
                bias[k] = 0.0
            if not _drop_stalled(dof_table, q, lo_b, hi_b, gap, drive_h > 0.0):
                return False
            _solve_rows(dof_parent, LD, J, lo_b, hi_b, v, bias, C, A, rhs, lam, column, slot_of,
                        rows, side, G, Y, A_eq, 0, lam_eq)
            cap_correction(link_table, bias, h)  # the loops' part of it is not linear in q
            return True
    for k in range(nv):
        gap[k] = math.inf
    return outside


@njit(cache=True, fastmath=FMA, **INTERNAL)
def hold_push(dof_parent, LD, H, work, iwork, C, A, v, bias, push, push_work, G, Y, A_eq, m_eq,
              lam_eq, distances, J) -> None:
    """Keep a position-only push (the contacts' push apart of overlaps, contact_solve.py) from
    carrying a joint past its hard limit or a bound row past its bound, as the limits' own
    position-only rows hold the joints the limit correction moves: the step moves the positions
    by h (v + bias + push), and each row with a position bound must end within it or, when the
    step leaves it outside without the push, no further out. The push is changed by the limit
    solve's least change, min |push' - push|_H (joint-space impulses through H^-1, in the loops'
    metric), so a self-contact's push stays internal and a free base's momentum is kept, where a
    clip of the limited dofs alone would move the rest of the robot with nothing opposing it.
    The contacts' own joint rows (swept a bounded number of times, without the bound rows) let
    the 24 overlapping spine capsules of a converted MJCF rodent turn its joints up to 43 deg
    past their limits.

    Model: dof_parent; distances (limit_impulses' bound rows, or None).
    Data in: LD, H, work, iwork, J as limit_impulses left them this step (the position-only
    intervals lo_b, hi_b; the bound rows J [nd, nv]); v [nv] the velocity the step moves the
    positions by (zeros when they have moved already: RK4); bias [nv] the limits' position-only
    bias (zeros when none); the equality rows G, Y, A_eq, m_eq (G None without couplings or
    loops).
    Data out: push [nv], in place.
    Scratch: C, A (limit_impulses'), push_work = (lo, hi [nv + nd], base [nv]), lam_eq [m_eq];
    iwork's side is left alone where it carries limit_impulses' guess."""
    nv = v.shape[0]
    nd = J.shape[0]
    lo, hi, base = push_work
    lam, lo_b, hi_b, rhs, column = work[2], work[3], work[4], work[5], work[8]
    slot_of, rows, side = iwork[0], iwork[1], iwork[2]
    for k in range(nv):
        base[k] = v[k] + bias[k]
    outside = False
    for k in range(nv + nd):
        reached = row_dot(J, k, base)  # h times the row's motion this step without the push
        lo[k] = min(lo_b[k], reached)
        hi[k] = max(hi_b[k], reached)
        if _violation(reached + row_dot(J, k, push), lo[k], hi[k]) != 0.0:
            outside = True
    if not outside:
        return
    if distances is None and G is None:  # every row a dof's own, known at compile time
        _hold_unit_rows(H, lo, hi, base, push, A, rhs, column, slot_of, rows)
        return
    if nd == 0 and m_eq == 0 and H.shape[0] == nv:
        _hold_unit_rows(H, lo, hi, base, push, A, rhs, column, slot_of, rows)
        return
    _solve_rows(dof_parent, LD, J, lo, hi, base, push, C, A, rhs, lam, column, slot_of, rows, side,
                G, Y, A_eq, m_eq, lam_eq)


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def _hold_unit_rows(H, lo, hi, base, push, A, rhs, column, held, free):
    """hold_push's solve when every row is a dof's own, from no row held."""
    for k in range(push.shape[0]):
        held[k] = 0
    solve_unit_rows(H, lo, hi, base, push, A, rhs, column, held, free)


# the tree-alone correction of a joint outside its limit goes on while each step takes it at
# least this share of the way closer to the limit
STALLED = 0.99


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def _drop_stalled(dof_table, q, lo_b, hi_b, gap, first) -> bool:
    """Leave out of the tree-alone correction (limit_impulses) each joint outside its limits that
    is no closer to them than after the last step's correction (gap [nv], kept from call to call:
    each joint's distance outside then, negative for a joint left out, inf when it was not
    corrected), and keep the distances for the next step. Whether some joint outside is still
    corrected.

    Only a step's first call (``first``) measures and keeps the distances; a later call of the
    same step (after the contacts) leaves out the joints the first left out. q has not moved
    between the two: measured again, every joint looked stalled, and a robot with loops and
    contacts whose joints start outside their limits (menagerie's Cassie) never came back."""
    any_left = False
    for k in range(gap.shape[0]):
        lower = dof_table[k, DOF_LOWER]
        upper = dof_table[k, DOF_UPPER]
        placed, x = dof_position(dof_table, q, k)
        distance = 0.0
        if placed and dof_table[k, DOF_LIMIT_STIFFNESS] == 0.0:
            distance = max(lower - x, x - upper, 0.0)
        if distance == 0.0:
            if first:
                gap[k] = math.inf
            continue
        if first:
            stalled = distance > STALLED * abs(gap[k])
            gap[k] = -distance if stalled else distance
        else:
            stalled = gap[k] < 0.0
        if stalled:
            lo_b[k] = -math.inf
            hi_b[k] = math.inf
        else:
            any_left = True
    return any_left


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def _unit_rows(H, lo, hi, lo_b, hi_b, bias, v, A, rhs, column, held, free, bias_held, outside):
    """limit_impulses' solves when every row is a dof's own: the velocity rows from the rows
    held last time (``held``, kept from call to call), then, when a joint is outside its limits,
    the position-only rows from none held."""
    solve_unit_rows(H, lo, hi, bias, v, A, rhs, column, held, free)  # bias is 0
    if outside:
        for k in range(v.shape[0]):
            bias_held[k] = 0
        solve_unit_rows(H, lo_b, hi_b, v, bias, A, rhs, column, bias_held, free)


# a row the position-only solve leaves further than this outside its interval (relative to the
# interval's size, at least 1 rad/s | 1 m/s) was not solved: its rows were nearly dependent
UNSOLVED_ROW = 1e-6


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def _within(J, lo, hi, base, v):
    """Whether every row's J_k (base + v) lies in [lo_k, hi_k] up to UNSOLVED_ROW."""
    for k in range(lo.shape[0]):
        if lo[k] == -math.inf and hi[k] == math.inf:
            continue
        value = row_dot(J, k, base) + row_dot(J, k, v)
        scale = 1.0
        if lo[k] > -math.inf:
            scale = max(scale, abs(lo[k]))
        if hi[k] < math.inf:
            scale = max(scale, abs(hi[k]))
        if value < lo[k] - UNSOLVED_ROW * scale or value > hi[k] + UNSOLVED_ROW * scale:
            return False
    return True
