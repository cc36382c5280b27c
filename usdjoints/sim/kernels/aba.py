"""Articulated-body algorithm: joint accelerations from joint forces, gravity included."""
from __future__ import annotations

from numba import njit

from .jcalc import primitive_nv
from .layout import LINK_PARENT, LINK_TYPE, LINK_V_START
from .spatial import (congruence_add, force_transform_transpose_add, motion_transform_values,
                      rigid_inertia_times, small_inverse)


@njit(cache=True)
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


@njit(cache=True)
def aba(link_table, S, I6, E, r, armature, gravity, qd, tau, v_work, c_work, pA_work, IA_work,
        U_work, Dinv_work, u_work, inverse_work, qdd_out):
    """qdd_out [nv] = (M + diag(armature))^-1 (tau - C(q, qd) qd - g(q)).

    I6 are rigid-body spatial inertias. Scratch: v_work, c_work, pA_work [nlink,6]; IA_work,
    U_work, Dinv_work [nlink,6,6]; u_work [nv]; inverse_work [6,12]. Spatial vectors are
    formed in scalars and stored once; one-dof joints (the common case) take a scalar path.
    """
    nlink = link_table.shape[0]
    for i in range(nlink):
        parent = link_table[i, LINK_PARENT]
        n = primitive_nv(link_table[i, LINK_TYPE])
        v0 = link_table[i, LINK_V_START]
        j0 = j1 = j2 = j3 = j4 = j5 = 0.0  # joint velocity S qd
        for c in range(n):
            w = qd[v0 + c]
            j0 += S[i, 0, c] * w
            j1 += S[i, 1, c] * w
            j2 += S[i, 2, c] * w
            j3 += S[i, 3, c] * w
            j4 += S[i, 4, c] * w
            j5 += S[i, 5, c] * w
        if parent < 0:
            x0, x1, x2, x3, x4, x5 = j0, j1, j2, j3, j4, j5
        else:
            vp = v_work[parent]
            x0, x1, x2, x3, x4, x5 = motion_transform_values(E[i], r[i], vp[0], vp[1], vp[2],
                                                             vp[3], vp[4], vp[5])
            x0 += j0
            x1 += j1
            x2 += j2
            x3 += j3
            x4 += j4
            x5 += j5
        v = v_work[i]
        v[0], v[1], v[2], v[3], v[4], v[5] = x0, x1, x2, x3, x4, x5
        c = c_work[i]  # v x (S qd)
        c[0] = x1 * j2 - x2 * j1
        c[1] = x2 * j0 - x0 * j2
        c[2] = x0 * j1 - x1 * j0
        c[3] = x1 * j5 - x2 * j4 + x4 * j2 - x5 * j1
        c[4] = x2 * j3 - x0 * j5 + x5 * j0 - x3 * j2
        c[5] = x0 * j4 - x1 * j3 + x3 * j1 - x4 * j0
        p0, p1, p2, p3, p4, p5 = rigid_inertia_times(I6[i], x0, x1, x2, x3, x4, x5)
        pA = pA_work[i]  # v x* (I v)
        pA[0] = x1 * p2 - x2 * p1 + x4 * p5 - x5 * p4
        pA[1] = x2 * p0 - x0 * p2 + x5 * p3 - x3 * p5
        pA[2] = x0 * p1 - x1 * p0 + x3 * p4 - x4 * p3
        pA[3] = x1 * p5 - x2 * p4
        pA[4] = x2 * p3 - x0 * p5
        pA[5] = x0 * p4 - x1 * p3
        for a in range(6):
            for b in range(6):
                IA_work[i, a, b] = I6[i, a, b]
    for i in range(nlink - 1, -1, -1):
        parent = link_table[i, LINK_PARENT]
        n = primitive_nv(link_table[i, LINK_TYPE])
        v0 = link_table[i, LINK_V_START]
        IA = IA_work[i]
        U = U_work[i]
        Dinv = Dinv_work[i]
        pA = pA_work[i]
        for k in range(6):
            for c in range(n):
                U[k, c] = (IA[k, 0] * S[i, 0, c] + IA[k, 1] * S[i, 1, c] + IA[k, 2] * S[i, 2, c]
                           + IA[k, 3] * S[i, 3, c] + IA[k, 4] * S[i, 4, c] + IA[k, 5] * S[i, 5, c])
        for a in range(n):
            for c in range(n):
                Dinv[a, c] = (S[i, 0, a] * U[0, c] + S[i, 1, a] * U[1, c] + S[i, 2, a] * U[2, c]
                              + S[i, 3, a] * U[3, c] + S[i, 4, a] * U[4, c] + S[i, 5, a] * U[5, c])
            Dinv[a, a] += armature[v0 + a]
            u_work[v0 + a] = tau[v0 + a] - (S[i, 0, a] * pA[0] + S[i, 1, a] * pA[1]
                                            + S[i, 2, a] * pA[2] + S[i, 3, a] * pA[3]
                                            + S[i, 4, a] * pA[4] + S[i, 5, a] * pA[5])
        if n == 1:  # D was formed in Dinv's slot
            Dinv[0, 0] = 1.0 / Dinv[0, 0]
        else:
            small_inverse(Dinv, n, inverse_work)
        if parent < 0:
            continue
        # Ia = IA - U Dinv U^T;  pa = pA + Ia c + U Dinv u
        if n == 1:
            d = Dinv[0, 0]
            for a in range(6):
                ua = U[a, 0] * d
                for b in range(6):
                    IA[a, b] -= ua * U[b, 0]
        else:
            _articulated_step(IA, U, Dinv, n)
        c = c_work[i]
        f0, f1, f2, f3, f4, f5 = pA[0], pA[1], pA[2], pA[3], pA[4], pA[5]
        for a in range(n):
            w = 0.0
            for b in range(n):
                w += Dinv[a, b] * u_work[v0 + b]
            f0 += U[0, a] * w
            f1 += U[1, a] * w
            f2 += U[2, a] * w
            f3 += U[3, a] * w
            f4 += U[4, a] * w
            f5 += U[5, a] * w
        f0 += IA[0, 0] * c[0] + IA[0, 1] * c[1] + IA[0, 2] * c[2] + IA[0, 3] * c[3] + IA[0, 4] * c[4] + IA[0, 5] * c[5]
        f1 += IA[1, 0] * c[0] + IA[1, 1] * c[1] + IA[1, 2] * c[2] + IA[1, 3] * c[3] + IA[1, 4] * c[4] + IA[1, 5] * c[5]
        f2 += IA[2, 0] * c[0] + IA[2, 1] * c[1] + IA[2, 2] * c[2] + IA[2, 3] * c[3] + IA[2, 4] * c[4] + IA[2, 5] * c[5]
        f3 += IA[3, 0] * c[0] + IA[3, 1] * c[1] + IA[3, 2] * c[2] + IA[3, 3] * c[3] + IA[3, 4] * c[4] + IA[3, 5] * c[5]
        f4 += IA[4, 0] * c[0] + IA[4, 1] * c[1] + IA[4, 2] * c[2] + IA[4, 3] * c[3] + IA[4, 4] * c[4] + IA[4, 5] * c[5]
        f5 += IA[5, 0] * c[0] + IA[5, 1] * c[1] + IA[5, 2] * c[2] + IA[5, 3] * c[3] + IA[5, 4] * c[4] + IA[5, 5] * c[5]
        # pA_parent += X^T pa
        Ei = E[i]
        ri = r[i]
        force_transform_transpose_add(Ei, ri, f0, f1, f2, f3, f4, f5, pA_work[parent])
        congruence_add(Ei, ri, IA, IA_work[parent])
    # pass 3 reuses v_work as the link accelerations
    for i in range(nlink):
        parent = link_table[i, LINK_PARENT]
        n = primitive_nv(link_table[i, LINK_TYPE])
        v0 = link_table[i, LINK_V_START]
        if parent < 0:  # gravity as a fictitious upward acceleration of the world
            a0, a1, a2, a3, a4, a5 = motion_transform_values(E[i], r[i], 0.0, 0.0, 0.0,
                                                             -gravity[0], -gravity[1], -gravity[2])
        else:
            ap = v_work[parent]
            a0, a1, a2, a3, a4, a5 = motion_transform_values(E[i], r[i], ap[0], ap[1], ap[2],
                                                             ap[3], ap[4], ap[5])
        c = c_work[i]
        a0 += c[0]
        a1 += c[1]
        a2 += c[2]
        a3 += c[3]
        a4 += c[4]
        a5 += c[5]
        U = U_work[i]
        Dinv = Dinv_work[i]
        for a in range(n):
            w = 0.0
            for b in range(n):
                w += Dinv[a, b] * (u_work[v0 + b] - (U[0, b] * a0 + U[1, b] * a1 + U[2, b] * a2
                                                     + U[3, b] * a3 + U[4, b] * a4 + U[5, b] * a5))
            qdd_out[v0 + a] = w
        for k in range(n):
            w = qdd_out[v0 + k]
            a0 += S[i, 0, k] * w
            a1 += S[i, 1, k] * w
            a2 += S[i, 2, k] * w
            a3 += S[i, 3, k] * w
            a4 += S[i, 4, k] * w
            a5 += S[i, 5, k] * w
        a = v_work[i]
        a[0], a[1], a[2], a[3], a[4], a[5] = a0, a1, a2, a3, a4, a5
