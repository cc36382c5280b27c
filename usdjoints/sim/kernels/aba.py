"""Articulated-body algorithm: joint accelerations from joint forces, gravity included."""
from __future__ import annotations

from . import FMA, INTERNAL, njit
from .fk import link_transforms_inline
from .jcalc import primitive_nv
from .layout import LINK_PARENT, LINK_TYPE, LINK_UNIT_ROW, LINK_V_START
from .spatial import (congruence_add, force_transform_transpose_add, link_velocity, motion_cross,
                      motion_transform_values, rigid_inertia_times, small_inverse, subspace_times)


@njit(cache=True, fastmath=FMA)
def _articulated_step(IA, U, Dinv, n):
    """IA <- IA - U Dinv U^T (the inertia the joint's motion leaves to the parent)."""
    for a in range(6):
        for b in range(6):
            s = 0.0
            for c in range(n):
                w = 0.0
                for d in range(n):
                    w += Dinv[c, d] * U[b, d]
                s += U[a, c] * w
            IA[a, b] -= s


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def _inertia_times(IA, i, x0, x1, x2, x3, x4, x5):
    """IA[i] x as six scalars for a general (articulated) 6x6 inertia."""
    return ((IA[i, 0, 0] * x0 + IA[i, 0, 1] * x1 + IA[i, 0, 2] * x2
             + IA[i, 0, 3] * x3 + IA[i, 0, 4] * x4 + IA[i, 0, 5] * x5),
            (IA[i, 1, 0] * x0 + IA[i, 1, 1] * x1 + IA[i, 1, 2] * x2
             + IA[i, 1, 3] * x3 + IA[i, 1, 4] * x4 + IA[i, 1, 5] * x5),
            (IA[i, 2, 0] * x0 + IA[i, 2, 1] * x1 + IA[i, 2, 2] * x2
             + IA[i, 2, 3] * x3 + IA[i, 2, 4] * x4 + IA[i, 2, 5] * x5),
            (IA[i, 3, 0] * x0 + IA[i, 3, 1] * x1 + IA[i, 3, 2] * x2
             + IA[i, 3, 3] * x3 + IA[i, 3, 4] * x4 + IA[i, 3, 5] * x5),
            (IA[i, 4, 0] * x0 + IA[i, 4, 1] * x1 + IA[i, 4, 2] * x2
             + IA[i, 4, 3] * x3 + IA[i, 4, 4] * x4 + IA[i, 4, 5] * x5),
            (IA[i, 5, 0] * x0 + IA[i, 5, 1] * x1 + IA[i, 5, 2] * x2
             + IA[i, 5, 3] * x3 + IA[i, 5, 4] * x4 + IA[i, 5, 5] * x5))


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def _ldlt(A, i, n):
    """In place, A[i, :n, :n] (symmetric positive-definite, lower triangle read) <- A = L D L^T
    with L unit lower-triangular in the strict lower triangle and 1/D on the diagonal: no square
    roots, and the solve multiplies where it would divide (the dependent divisions of a 6x6
    dominated a free base's cost)."""
    for c in range(n):
        d = A[i, c, c]
        for k in range(c):
            d -= A[i, c, k] * A[i, c, k] * A[i, k, k]
        inv = 1.0 / d
        for a in range(c + 1, n):
            t = A[i, a, c]
            for k in range(c):
                t -= A[i, a, k] * A[i, c, k] * A[i, k, k]
            A[i, a, c] = t * inv
        A[i, c, c] = d
        # D stays in place while the columns to the right read it; inverted once they are done
    for c in range(n):
        A[i, c, c] = 1.0 / A[i, c, c]


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def _ldlt_solve(A, i, n, x, start):
    """In place, x[start:start+n] <- (L D L^T)^-1 x[start:start+n] for the factor of _ldlt."""
    for a in range(n):
        t = x[start + a]
        for k in range(a):
            t -= A[i, a, k] * x[start + k]
        x[start + a] = t
    for a in range(n):
        x[start + a] *= A[i, a, a]
    for a in range(n - 1, -1, -1):
        t = x[start + a]
        for k in range(a + 1, n):
            t -= A[i, k, a] * x[start + k]
        x[start + a] = t


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def _unit_rows(S, i, n, rows_out, start):
    """True when each of link i's n subspace columns is a unit vector (one entry 1, the rest 0);
    then rows_out[start + c] is the row of column c's 1 (as a float), else rows_out[start] is -1."""
    for c in range(n):
        row = -1
        for a in range(6):
            x = S[i, a, c]
            if x == 1.0 and row < 0:
                row = a
            elif x != 0.0:
                rows_out[start] = -1.0
                return False
        if row < 0:
            rows_out[start] = -1.0
            return False
        rows_out[start + c] = row
    return True


@njit(cache=True, fastmath=FMA)
def aba(link_table, S, I6, E, r, armature, gravity, qd, tau, v_work, c_work, pA_work, IA_work,
        U_work, Dinv_work, u_work, inverse_work, qdd_out):
    """aba_inline as one compiled call."""
    aba_inline(link_table, S, I6, E, r, armature, gravity, qd, tau, v_work, c_work, pA_work,
               IA_work, U_work, Dinv_work, u_work, inverse_work, qdd_out)


@njit(cache=True, fastmath=FMA)
def aba_from_q(link_table, link_axis, R_pj, p_pj, R_jc, p_jc, basis, S, I6, armature, gravity, q,
               qd, tau, E_work, r_work, R3_work, p3_work, v_work, c_work, pA_work, IA_work, U_work,
               Dinv_work, u_work, inverse_work, qdd_out):
    """The forward dynamics of configuration q in one compiled call, as pinocchio's aba: the
    link transforms (fk.link_transforms into E_work [nlink,3,3], r_work [nlink,3]; R3_work
    [3,3], p3_work [3] its scratch), then aba_inline on them. Both are inlined here, so a caller
    pays one call and no allocation (every scratch array is the caller's)."""
    link_transforms_inline(link_table, link_axis, R_pj, p_pj, R_jc, p_jc, basis, q, R3_work,
                           p3_work, E_work, r_work)
    aba_inline(link_table, S, I6, E_work, r_work, armature, gravity, qd, tau, v_work, c_work,
               pA_work, IA_work, U_work, Dinv_work, u_work, inverse_work, qdd_out)


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def aba_inline(link_table, S, I6, E, r, armature, gravity, qd, tau, v_work, c_work, pA_work,
               IA_work, U_work, Dinv_work, u_work, inverse_work, qdd_out):
    """qdd_out [nv] = (M + diag(armature))^-1 (tau - C(q, qd) qd - g(q)).

    I6 are rigid-body spatial inertias. Scratch: v_work, c_work, pA_work [nlink,6]; IA_work,
    U_work, Dinv_work [nlink,6,6]; u_work [nv]; inverse_work [6,12]. Spatial vectors are
    formed in scalars and stored once; one-dof joints (the common case) take a scalar path.
    """
    nlink = link_table.shape[0]
    # arrays are indexed in place: a view per link would cost a reference count each
    for i in range(nlink):
        parent = link_table[i, LINK_PARENT]
        n = primitive_nv(link_table[i, LINK_TYPE])
        v0 = link_table[i, LINK_V_START]
        j0, j1, j2, j3, j4, j5 = subspace_times(S, i, n, qd, v0)  # joint velocity S qd
        x0, x1, x2, x3, x4, x5 = link_velocity(E, r, i, parent, v_work, j0, j1, j2, j3, j4, j5)
        v_work[i, 0], v_work[i, 1], v_work[i, 2] = x0, x1, x2
        v_work[i, 3], v_work[i, 4], v_work[i, 5] = x3, x4, x5
        # c = v x (S qd)
        (c_work[i, 0], c_work[i, 1], c_work[i, 2], c_work[i, 3], c_work[i, 4],
         c_work[i, 5]) = motion_cross(x0, x1, x2, x3, x4, x5, j0, j1, j2, j3, j4, j5)
        p0, p1, p2, p3, p4, p5 = rigid_inertia_times(I6, i, x0, x1, x2, x3, x4, x5)
        # pA = v x* (I v)
        pA_work[i, 0] = x1 * p2 - x2 * p1 + x4 * p5 - x5 * p4
        pA_work[i, 1] = x2 * p0 - x0 * p2 + x5 * p3 - x3 * p5
        pA_work[i, 2] = x0 * p1 - x1 * p0 + x3 * p4 - x4 * p3
        pA_work[i, 3] = x1 * p5 - x2 * p4
        pA_work[i, 4] = x2 * p3 - x0 * p5
        pA_work[i, 5] = x0 * p4 - x1 * p3
        for a in range(6):
            for b in range(6):
                IA_work[i, a, b] = I6[i, a, b]
    for i in range(nlink - 1, -1, -1):
        parent = link_table[i, LINK_PARENT]
        n = primitive_nv(link_table[i, LINK_TYPE])
        v0 = link_table[i, LINK_V_START]
        if n == 1:
            # one dof, the common case: U = IA s, D, u and the update in scalars and one pass
            k = link_table[i, LINK_UNIT_ROW]
            if k >= 0:  # s is the unit vector e_k: U is IA's column k, D and u entries k
                U0, U1, U2 = IA_work[i, 0, k], IA_work[i, 1, k], IA_work[i, 2, k]
                U3, U4, U5 = IA_work[i, 3, k], IA_work[i, 4, k], IA_work[i, 5, k]
                d = 1.0 / (armature[v0] + IA_work[i, k, k])
                u = tau[v0] - pA_work[i, k]
            else:
                s0, s1, s2 = S[i, 0, 0], S[i, 1, 0], S[i, 2, 0]
                s3, s4, s5 = S[i, 3, 0], S[i, 4, 0], S[i, 5, 0]
                U0, U1, U2, U3, U4, U5 = _inertia_times(IA_work, i, s0, s1, s2, s3, s4, s5)
                d = 1.0 / (armature[v0] + s0 * U0 + s1 * U1 + s2 * U2 + s3 * U3 + s4 * U4
                           + s5 * U5)
                u = tau[v0] - (s0 * pA_work[i, 0] + s1 * pA_work[i, 1] + s2 * pA_work[i, 2]
                               + s3 * pA_work[i, 3] + s4 * pA_work[i, 4] + s5 * pA_work[i, 5])
            U_work[i, 0, 0], U_work[i, 1, 0], U_work[i, 2, 0] = U0, U1, U2
            U_work[i, 3, 0], U_work[i, 4, 0], U_work[i, 5, 0] = U3, U4, U5
            Dinv_work[i, 0, 0] = d
            u_work[v0] = u
            if parent < 0:
                continue
            # Ia = IA - U U^T / D (symmetric: the upper triangle, mirrored)
            for a in range(6):
                ua = U_work[i, a, 0] * d
                for b in range(a, 6):
                    x = IA_work[i, a, b] - ua * U_work[i, b, 0]
                    IA_work[i, a, b] = x
                    IA_work[i, b, a] = x
            # pa = pA + Ia c + U u / D, carried to the parent with Ia
            w = d * u
            f0, f1, f2, f3, f4, f5 = _inertia_times(IA_work, i, c_work[i, 0], c_work[i, 1],
                                                    c_work[i, 2], c_work[i, 3], c_work[i, 4],
                                                    c_work[i, 5])
            f0 += pA_work[i, 0] + U0 * w
            f1 += pA_work[i, 1] + U1 * w
            f2 += pA_work[i, 2] + U2 * w
            f3 += pA_work[i, 3] + U3 * w
            f4 += pA_work[i, 4] + U4 * w
            f5 += pA_work[i, 5] + U5 * w
            force_transform_transpose_add(E, r, i, f0, f1, f2, f3, f4, f5, pA_work, parent)
            congruence_add(E, r, i, IA_work, parent)
            continue
        if parent < 0:
            # a multi-dof root (a free base): only D is needed here, its lower triangle, which a
            # L D L^T factor then replaces; pass 3 forms the right-hand side from IA and pA
            # directly (U and u are never formed, so u_work holds the unit rows below)
            if _unit_rows(S, i, n, u_work, v0):
                # S's columns are unit vectors (a free or spherical joint's usual subspace):
                # S^T IA S picks entries of IA, the same values the products give
                for c in range(n):
                    pc = int(u_work[v0 + c])
                    for a in range(c, n):
                        Dinv_work[i, a, c] = IA_work[i, int(u_work[v0 + a]), pc]
                    Dinv_work[i, c, c] += armature[v0 + c]
            else:
                for c in range(n):
                    t0, t1, t2, t3, t4, t5 = _inertia_times(IA_work, i, S[i, 0, c], S[i, 1, c],
                                                            S[i, 2, c], S[i, 3, c], S[i, 4, c],
                                                            S[i, 5, c])
                    for a in range(c, n):
                        Dinv_work[i, a, c] = (S[i, 0, a] * t0 + S[i, 1, a] * t1 + S[i, 2, a] * t2
                                              + S[i, 3, a] * t3 + S[i, 4, a] * t4
                                              + S[i, 5, a] * t5)
                    Dinv_work[i, c, c] += armature[v0 + c]
            _ldlt(Dinv_work, i, n)
            continue
        for c in range(n):
            t0, t1, t2, t3, t4, t5 = _inertia_times(IA_work, i, S[i, 0, c], S[i, 1, c], S[i, 2, c],
                                                    S[i, 3, c], S[i, 4, c], S[i, 5, c])
            U_work[i, 0, c], U_work[i, 1, c], U_work[i, 2, c] = t0, t1, t2
            U_work[i, 3, c], U_work[i, 4, c], U_work[i, 5, c] = t3, t4, t5
        for a in range(n):
            for c in range(n):
                Dinv_work[i, a, c] = (S[i, 0, a] * U_work[i, 0, c] + S[i, 1, a] * U_work[i, 1, c]
                                      + S[i, 2, a] * U_work[i, 2, c] + S[i, 3, a] * U_work[i, 3, c]
                                      + S[i, 4, a] * U_work[i, 4, c] + S[i, 5, a] * U_work[i, 5, c])
            Dinv_work[i, a, a] += armature[v0 + a]
            u_work[v0 + a] = tau[v0 + a] - (S[i, 0, a] * pA_work[i, 0] + S[i, 1, a] * pA_work[i, 1]
                                            + S[i, 2, a] * pA_work[i, 2] + S[i, 3, a] * pA_work[i, 3]
                                            + S[i, 4, a] * pA_work[i, 4] + S[i, 5, a] * pA_work[i, 5])
        # a multi-dof joint below the root (spherical): D is inverted, its inverse carried up
        small_inverse(Dinv_work[i], n, inverse_work)
        # Ia = IA - U Dinv U^T;  pa = pA + Ia c + U Dinv u
        _articulated_step(IA_work[i], U_work[i], Dinv_work[i], n)
        f0, f1, f2 = pA_work[i, 0], pA_work[i, 1], pA_work[i, 2]
        f3, f4, f5 = pA_work[i, 3], pA_work[i, 4], pA_work[i, 5]
        for a in range(n):
            w = 0.0
            for b in range(n):
                w += Dinv_work[i, a, b] * u_work[v0 + b]
            f0 += U_work[i, 0, a] * w
            f1 += U_work[i, 1, a] * w
            f2 += U_work[i, 2, a] * w
            f3 += U_work[i, 3, a] * w
            f4 += U_work[i, 4, a] * w
            f5 += U_work[i, 5, a] * w
        g0, g1, g2, g3, g4, g5 = _inertia_times(IA_work, i, c_work[i, 0], c_work[i, 1], c_work[i, 2],
                                                c_work[i, 3], c_work[i, 4], c_work[i, 5])
        f0 += g0
        f1 += g1
        f2 += g2
        f3 += g3
        f4 += g4
        f5 += g5
        # pA_parent += X^T pa;  IA_parent += X^T Ia X
        force_transform_transpose_add(E, r, i, f0, f1, f2, f3, f4, f5, pA_work, parent)
        congruence_add(E, r, i, IA_work, parent)
    # pass 3 reuses v_work as the link accelerations
    for i in range(nlink):
        parent = link_table[i, LINK_PARENT]
        n = primitive_nv(link_table[i, LINK_TYPE])
        v0 = link_table[i, LINK_V_START]
        if parent < 0:  # gravity as a fictitious upward acceleration of the world
            a0, a1, a2, a3, a4, a5 = motion_transform_values(E, r, i, 0.0, 0.0, 0.0,
                                                             -gravity[0], -gravity[1], -gravity[2])
        else:
            a0, a1, a2, a3, a4, a5 = motion_transform_values(
                E, r, i, v_work[parent, 0], v_work[parent, 1], v_work[parent, 2],
                v_work[parent, 3], v_work[parent, 4], v_work[parent, 5])
        a0 += c_work[i, 0]
        a1 += c_work[i, 1]
        a2 += c_work[i, 2]
        a3 += c_work[i, 3]
        a4 += c_work[i, 4]
        a5 += c_work[i, 5]
        if n > 1 and parent < 0:
            # D qdd = tau - S^T (pA + IA a)
            w0, w1, w2, w3, w4, w5 = _inertia_times(IA_work, i, a0, a1, a2, a3, a4, a5)
            w0 += pA_work[i, 0]
            w1 += pA_work[i, 1]
            w2 += pA_work[i, 2]
            w3 += pA_work[i, 3]
            w4 += pA_work[i, 4]
            w5 += pA_work[i, 5]
            if u_work[v0] >= 0.0:  # unit columns (pass 2): S^T w picks entries of w
                for b in range(n):
                    row = int(u_work[v0 + b])
                    w = (w0 if row == 0 else w1 if row == 1 else w2 if row == 2 else
                         w3 if row == 3 else w4 if row == 4 else w5)
                    qdd_out[v0 + b] = tau[v0 + b] - w
            else:
                for b in range(n):
                    qdd_out[v0 + b] = tau[v0 + b] - (
                        S[i, 0, b] * w0 + S[i, 1, b] * w1 + S[i, 2, b] * w2
                        + S[i, 3, b] * w3 + S[i, 4, b] * w4 + S[i, 5, b] * w5)
            _ldlt_solve(Dinv_work, i, n, qdd_out, v0)
        else:
            for a in range(n):
                w = 0.0
                for b in range(n):
                    w += Dinv_work[i, a, b] * (u_work[v0 + b] - (
                        U_work[i, 0, b] * a0 + U_work[i, 1, b] * a1 + U_work[i, 2, b] * a2
                        + U_work[i, 3, b] * a3 + U_work[i, 4, b] * a4 + U_work[i, 5, b] * a5))
                qdd_out[v0 + a] = w
        for k in range(n):
            w = qdd_out[v0 + k]
            a0 += S[i, 0, k] * w
            a1 += S[i, 1, k] * w
            a2 += S[i, 2, k] * w
            a3 += S[i, 3, k] * w
            a4 += S[i, 4, k] * w
            a5 += S[i, 5, k] * w
        v_work[i, 0], v_work[i, 1], v_work[i, 2] = a0, a1, a2
        v_work[i, 3], v_work[i, 4], v_work[i, 5] = a3, a4, a5
