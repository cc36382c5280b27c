"""Equality constraints on the tree: couplings (linear in q) and loop closures (nonlinear).

Each constraint row r has a residual c_r(q) and a Jacobian row G_r with c_r' = G_r v. The step
keeps them exact by projection in the metric of the step's inertia H (M + h D + h^2 K):

* velocity: v <- v - H^-1 G^T (G H^-1 G^T)^-1 G v, the KKT solution of the constrained step;
* position: Newton steps q <- q (+) -H^-1 G^T (G H^-1 G^T)^-1 c(q) until |c| < POSITION_TOLERANCE
  (one step is exact for couplings, which are linear); a step turning a joint by more than
  MAX_NEWTON_TURN is scaled down to it (projection.enforce_constraints).

Redundant rows (a planar loop closed by a hinge has 5 rows but rank 2) are dropped where the
dense factorisation of G H^-1 G^T meets a pivot below REDUNDANT_PIVOT of the row's own diagonal
(the part of the row the rows before it do not span, relative to the row), or a row of round-off
(ROUND_OFF_ROW), so consistent systems are solved exactly. With REDUNDANT_PIVOT of the largest
diagonal instead, rows on heavy links were dropped beside rows through lighter links (the PR2
gripper of gazebo_models, links of 0.01 to 0.7 kg: its five loops opened by up to 15 m in 2 s). Loop rows use world axes: position rows for the joint's
constrained translations, rotation rows for its constrained rotations.
"""
from __future__ import annotations

import math

import numpy as np

from . import FMA, INTERNAL, njit
from .crba import ltdl_solve
from .jcalc import primitive_nv
from .layout import DOF_Q_INDEX, LINK_PARENT, LINK_TYPE, LINK_V_START

LOOP_REVOLUTE = 0
LOOP_PRISMATIC = 1
LOOP_SPHERICAL = 2
LOOP_FIXED = 4
# a D6 whose locked axes make none of the types above: LOOP_D6 + its mask of locked axes (bit a
# for axis a of transX, transY, transZ, rotX, rotY, rotZ), held as the tree holds a D6, Tx Ty Tz
# Rx Ry Rz over its free axes: a locked translation keeps B's origin off A's axis at 0, and the
# free rotations turn as hinges in that order (two free ones keep A's first axis normal to B's
# second, one keeps its axis shared, none is a weld); model/articulated.py's LOOP_D6
LOOP_D6 = 8
REDUNDANT_PIVOT = 1e-10
# a pivot this small against the largest diagonal is a row of round-off (a hinge loop's rows
# across an axis the loop leaves free: entries of 1e-17), not a constraint: such rows are dropped
# too. Rows of real constraints differ by the links' inverse inertias, 1e10 and more apart on a
# gripper of 10 g fingers beside a kg-scale body, far above it.
ROUND_OFF_ROW = 1e-24
POSITION_TOLERANCE = 1e-12  # [rad | m]
POSITION_ITERATIONS = 8
# the largest turn [rad] of one joint in one Newton step of the position projection: beyond it
# the linear step is no guide (the loops' rows nearly dependent), and is scaled down to it
MAX_NEWTON_TURN = 1.0
CAPPED_ITERATIONS = 8  # capped steps allowed on top of POSITION_ITERATIONS


@njit(cache=True, fastmath=FMA)
def constraint_row_count(coupling_dof, loop_type):
    """Upper bound on the rows: one per coupling, up to six per loop."""
    return coupling_dof.shape[0] + 6 * loop_type.shape[0]


@njit(cache=True, fastmath=FMA, **INTERNAL)
def accumulate_jacobian(link_table, S, Rw, pw, link, point, direction, angular, scale, row):
    """row += scale * d(direction . velocity)/dv for a point [m] (or the angular velocity when
    ``angular``) fixed to ``link``; world coordinates throughout."""
    j = link
    while j >= 0:
        n = primitive_nv(link_table[j, LINK_TYPE])
        v0 = link_table[j, LINK_V_START]
        for c in range(n):
            wx = Rw[j, 0, 0] * S[j, 0, c] + Rw[j, 0, 1] * S[j, 1, c] + Rw[j, 0, 2] * S[j, 2, c]
            wy = Rw[j, 1, 0] * S[j, 0, c] + Rw[j, 1, 1] * S[j, 1, c] + Rw[j, 1, 2] * S[j, 2, c]
            wz = Rw[j, 2, 0] * S[j, 0, c] + Rw[j, 2, 1] * S[j, 1, c] + Rw[j, 2, 2] * S[j, 2, c]
            if angular:
                value = direction[0] * wx + direction[1] * wy + direction[2] * wz
            else:
                lx = Rw[j, 0, 0] * S[j, 3, c] + Rw[j, 0, 1] * S[j, 4, c] + Rw[j, 0, 2] * S[j, 5, c]
                ly = Rw[j, 1, 0] * S[j, 3, c] + Rw[j, 1, 1] * S[j, 4, c] + Rw[j, 1, 2] * S[j, 5, c]
                lz = Rw[j, 2, 0] * S[j, 3, c] + Rw[j, 2, 1] * S[j, 4, c] + Rw[j, 2, 2] * S[j, 5, c]
                dx = point[0] - pw[j, 0]
                dy = point[1] - pw[j, 1]
                dz = point[2] - pw[j, 2]
                lx += wy * dz - wz * dy
                ly += wz * dx - wx * dz
                lz += wx * dy - wy * dx
                value = direction[0] * lx + direction[1] * ly + direction[2] * lz
            row[v0 + c] += scale * value
        j = link_table[j, LINK_PARENT]


@njit(cache=True, fastmath=FMA, **INTERNAL)
def _frame_world(Rw, pw, link, R_lf, p_lf, R_out, p_out):
    for a in range(3):
        if link < 0:
            p_out[a] = p_lf[a]
            for b in range(3):
                R_out[a, b] = R_lf[a, b]
        else:
            s = pw[link, a]
            for k in range(3):
                s += Rw[link, a, k] * p_lf[k]
            p_out[a] = s
            for b in range(3):
                s = 0.0
                for k in range(3):
                    s += Rw[link, a, k] * R_lf[k, b]
                R_out[a, b] = s


@njit(cache=True, fastmath=FMA, **INTERNAL)
def _perpendicular_pair(a, d1, d2):
    """Two unit vectors completing the unit vector a to an orthonormal basis."""
    if abs(a[0]) < 0.9:
        t0, t1, t2 = 1.0, 0.0, 0.0
    else:
        t0, t1, t2 = 0.0, 1.0, 0.0
    d1[0] = a[1] * t2 - a[2] * t1
    d1[1] = a[2] * t0 - a[0] * t2
    d1[2] = a[0] * t1 - a[1] * t0
    n = math.sqrt(d1[0] ** 2 + d1[1] ** 2 + d1[2] ** 2)
    for k in range(3):
        d1[k] /= n
    d2[0] = a[1] * d1[2] - a[2] * d1[1]
    d2[1] = a[2] * d1[0] - a[0] * d1[2]
    d2[2] = a[0] * d1[1] - a[1] * d1[0]


@njit(cache=True, fastmath=FMA, **INTERNAL)
def _add_row(link_table, S, Rw, pw, la, lb, pa, pb, direction, angular, residual, G, c, m):
    for k in range(G.shape[1]):
        G[m, k] = 0.0
    accumulate_jacobian(link_table, S, Rw, pw, lb, pb, direction, angular, 1.0, G[m])
    accumulate_jacobian(link_table, S, Rw, pw, la, pa, direction, angular, -1.0, G[m])
    c[m] = residual
    return m + 1


@njit(cache=True, fastmath=FMA)
def constraint_rows(link_table, S, dof_table, coupling_dof, coupling_coeff, coupling_offset,
                    loop_type, loop_link, loop_R, loop_p, loop_axis, q, Rw, pw, G_out, c_out):
    """Fill G_out [rows, nv] and c_out [rows] at q (Rw, pw: link world poses at q); returns the
    number of rows used."""
    nv = G_out.shape[1]
    m = 0
    for i in range(coupling_dof.shape[0]):
        for k in range(nv):
            G_out[m, k] = 0.0
        d0 = coupling_dof[i, 0]
        d1 = coupling_dof[i, 1]
        G_out[m, d0] += coupling_coeff[i, 0]
        G_out[m, d1] += coupling_coeff[i, 1]
        q0 = int(dof_table[d0, DOF_Q_INDEX])
        q1 = int(dof_table[d1, DOF_Q_INDEX])
        c_out[m] = coupling_coeff[i, 0] * q[q0] + coupling_coeff[i, 1] * q[q1] + coupling_offset[i]
        m += 1
    if loop_type.shape[0] == 0:
        return m  # couplings alone: no scratch to allocate, no world poses read
    RA = np.empty((3, 3))
    RB = np.empty((3, 3))
    pA = np.empty(3)
    pB = np.empty(3)
    axis = np.empty(3)
    axisB = np.empty(3)
    d1v = np.empty(3)
    d2v = np.empty(3)
    e = np.empty(3)
    unit = np.zeros(3)
    W = np.empty((3, 3))
    for i in range(loop_type.shape[0]):
        kind = loop_type[i]
        la = loop_link[i, 0]
        lb = loop_link[i, 1]
        _frame_world(Rw, pw, la, loop_R[i, 0], loop_p[i, 0], RA, pA)
        _frame_world(Rw, pw, lb, loop_R[i, 1], loop_p[i, 1], RB, pB)
        for a in range(3):
            axis[a] = RA[a, 0] * loop_axis[i, 0] + RA[a, 1] * loop_axis[i, 1] + RA[a, 2] * loop_axis[i, 2]
            axisB[a] = RB[a, 0] * loop_axis[i, 0] + RB[a, 1] * loop_axis[i, 1] + RB[a, 2] * loop_axis[i, 2]
            e[a] = pB[a] - pA[a]
        if kind >= LOOP_D6:
            m = _d6_rows(link_table, S, Rw, pw, la, lb, RA, RB, pA, pB, e, kind - LOOP_D6, axis,
                         axisB, d1v, d2v, unit, W, G_out, c_out, m)
            continue
        if kind == LOOP_PRISMATIC:
            _perpendicular_pair(axis, d1v, d2v)  # (a hinge's rows find theirs in _shared_axis_rows)
            # measured at B's origin on both sides, so A's rotation carrying the axis is included
            m = _add_row(link_table, S, Rw, pw, la, lb, pB, pB, d1v, False,
                         d1v[0] * e[0] + d1v[1] * e[1] + d1v[2] * e[2], G_out, c_out, m)
            m = _add_row(link_table, S, Rw, pw, la, lb, pB, pB, d2v, False,
                         d2v[0] * e[0] + d2v[1] * e[1] + d2v[2] * e[2], G_out, c_out, m)
        else:
            for a in range(3):
                for b in range(3):
                    unit[b] = 0.0
                unit[a] = 1.0
                m = _add_row(link_table, S, Rw, pw, la, lb, pA, pB, unit, False, e[a], G_out,
                             c_out, m)
        if kind == LOOP_REVOLUTE:
            m = _shared_axis_rows(link_table, S, Rw, pw, la, lb, pA, pB, axis, axisB, d1v, d2v,
                                  G_out, c_out, m)
        elif kind == LOOP_PRISMATIC or kind == LOOP_FIXED:
            m = _weld_rotation_rows(link_table, S, Rw, pw, la, lb, RA, RB, pA, pB, e, unit, W,
                                    G_out, c_out, m)
    return m


@njit(cache=True, fastmath=FMA, **INTERNAL)
def _shared_axis_rows(link_table, S, Rw, pw, la, lb, pA, pB, axis, axisB, d1v, d2v, G, c, m):
    """The two rotation rows keeping B's axisB along A's axis (world unit vectors)."""
    _perpendicular_pair(axis, d1v, d2v)
    cx = axis[1] * axisB[2] - axis[2] * axisB[1]
    cy = axis[2] * axisB[0] - axis[0] * axisB[2]
    cz = axis[0] * axisB[1] - axis[1] * axisB[0]
    m = _add_row(link_table, S, Rw, pw, la, lb, pA, pB, d1v, True,
                 d1v[0] * cx + d1v[1] * cy + d1v[2] * cz, G, c, m)
    return _add_row(link_table, S, Rw, pw, la, lb, pA, pB, d2v, True,
                    d2v[0] * cx + d2v[1] * cy + d2v[2] * cz, G, c, m)


@njit(cache=True, fastmath=FMA, **INTERNAL)
def _weld_rotation_rows(link_table, S, Rw, pw, la, lb, RA, RB, pA, pB, e, unit, W, G, c, m):
    """The three rotation rows of a weld: the small-angle rotation of B relative to A in world
    axes, vee(R_B R_A^T - R_A R_B^T) / 2."""
    for a in range(3):
        for b in range(3):
            s = 0.0
            for k in range(3):
                s += RB[a, k] * RA[b, k]
            W[a, b] = s
    e[0] = 0.5 * (W[2, 1] - W[1, 2])
    e[1] = 0.5 * (W[0, 2] - W[2, 0])
    e[2] = 0.5 * (W[1, 0] - W[0, 1])
    for a in range(3):
        for b in range(3):
            unit[b] = 0.0
        unit[a] = 1.0
        m = _add_row(link_table, S, Rw, pw, la, lb, pA, pB, unit, True, e[a], G, c, m)
    return m


@njit(cache=True, fastmath=FMA, **INTERNAL)
def _d6_rows(link_table, S, Rw, pw, la, lb, RA, RB, pA, pB, e, locked, axis, axisB, d1v, d2v, unit,
             W, G, c, m):
    """The rows of a LOOP_D6 closure with ``locked`` its mask of locked axes (e = pB - pA)."""
    bit = 1
    free = 0
    first = -1
    second = -1
    for a in range(6):
        if (locked // bit) % 2 == 1:
            if a < 3:  # B's origin on A's axis a: measured at B's origin on both sides
                for k in range(3):
                    axis[k] = RA[k, a]
                m = _add_row(link_table, S, Rw, pw, la, lb, pB, pB, axis, False,
                             axis[0] * e[0] + axis[1] * e[1] + axis[2] * e[2], G, c, m)
        elif a >= 3:
            free += 1
            if first < 0:
                first = a - 3
            else:
                second = a - 3
        bit *= 2
    if free == 0:
        return _weld_rotation_rows(link_table, S, Rw, pw, la, lb, RA, RB, pA, pB, e, unit, W, G, c, m)
    if free == 1:
        for k in range(3):
            axis[k] = RA[k, first]
            axisB[k] = RB[k, first]
        return _shared_axis_rows(link_table, S, Rw, pw, la, lb, pA, pB, axis, axisB, d1v, d2v, G, c, m)
    if free == 2:
        # A's first free axis a stays normal to B's second b: c = a . b, c' = (b x a) . (wB - wA)
        for k in range(3):
            axis[k] = RA[k, first]
            axisB[k] = RB[k, second]
        unit[0] = axisB[1] * axis[2] - axisB[2] * axis[1]
        unit[1] = axisB[2] * axis[0] - axisB[0] * axis[2]
        unit[2] = axisB[0] * axis[1] - axisB[1] * axis[0]
        m = _add_row(link_table, S, Rw, pw, la, lb, pA, pB, unit, True,
                     axis[0] * axisB[0] + axis[1] * axisB[1] + axis[2] * axisB[2], G, c, m)
    return m


@njit(cache=True, fastmath=FMA)
def factor_constraints(dof_parent, LD, G, m, Y_out, A_out):
    """Y_out[r] = H^-1 G[r] (H factored in LD), A_out = G H^-1 G^T factored in place as a dense
    L D L^T whose redundant pivots are marked 0 (their multipliers stay 0)."""
    nv = G.shape[1]
    for r in range(m):
        for k in range(nv):
            Y_out[r, k] = G[r, k]
        ltdl_solve(dof_parent, LD, Y_out[r])
    largest = 0.0
    for a in range(m):
        for b in range(a + 1):
            s = 0.0
            for k in range(nv):
                s += G[a, k] * Y_out[b, k]
            A_out[a, b] = s
            A_out[b, a] = s
        largest = max(largest, A_out[a, a])
    for j in range(m):
        d = A_out[j, j]
        for k in range(j):
            d -= A_out[j, k] * A_out[j, k] * A_out[k, k]
        if d <= REDUNDANT_PIVOT * A_out[j, j] or d <= ROUND_OFF_ROW * largest:
            A_out[j, j] = 0.0
            for i in range(j + 1, m):
                A_out[i, j] = 0.0
            continue
        A_out[j, j] = d
        for i in range(j + 1, m):
            s = A_out[i, j]
            for k in range(j):
                s -= A_out[i, k] * A_out[j, k] * A_out[k, k]
            A_out[i, j] = s / d


@njit(cache=True, fastmath=FMA, **INTERNAL)
def solve_factored(A, m, x):
    """x <- A^-1 x with A from factor_constraints (redundant components set to 0)."""
    for i in range(m):
        for k in range(i):
            x[i] -= A[i, k] * x[k]
    for i in range(m):
        x[i] = x[i] / A[i, i] if A[i, i] > 0.0 else 0.0
    for i in range(m - 1, -1, -1):
        for k in range(i + 1, m):
            x[i] -= A[k, i] * x[k]


@njit(cache=True, fastmath=FMA, **INTERNAL)
def project_out(G, Y, A, m, x, lam_work):
    """x <- x - Y^T A^-1 G x: the H-metric projection onto G x = 0 (x may be a velocity or an
    acceleration)."""
    nv = x.shape[0]
    for r in range(m):
        s = 0.0
        for k in range(nv):
            s += G[r, k] * x[k]
        lam_work[r] = s
    solve_factored(A, m, lam_work)
    for r in range(m):
        for k in range(nv):
            x[k] -= Y[r, k] * lam_work[r]


@njit(cache=True, fastmath=FMA, **INTERNAL)
def constraint_error(c, m):
    worst = 0.0
    for r in range(m):
        worst = max(worst, abs(c[r]))
    return worst
