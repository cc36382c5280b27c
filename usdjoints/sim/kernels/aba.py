"""Articulated-body algorithm: joint accelerations from joint forces, gravity included."""
from __future__ import annotations

from numba import njit

from .jcalc import primitive_nv
from .layout import LINK_PARENT, LINK_TYPE, LINK_V_START
from .spatial import (
    congruence_add, cross_force, cross_motion, force_transform_transpose, mat6_vec,
    motion_transform, small_inverse,
)


@njit(cache=True)
def aba(link_table, S, I6, E, r, armature, gravity, qd, tau, v_work, c_work, pA_work, IA_work,
        U_work, Dinv_work, u_work, X_work, tmp_work, qdd_out):
    """qdd_out [nv] = (M + diag(armature))^-1 (tau - C(q, qd) qd - g(q)).

    Scratch: v_work, c_work, pA_work [nlink,6]; IA_work, U_work, Dinv_work [nlink,6,6];
    u_work [nv]; X_work [3,6,6]; tmp_work [3,6].
    """
    nlink = link_table.shape[0]
    vJ = tmp_work[0]
    t = tmp_work[1]
    t2 = tmp_work[2]
    for i in range(nlink):
        parent = link_table[i, LINK_PARENT]
        n = primitive_nv(link_table[i, LINK_TYPE])
        v0 = link_table[i, LINK_V_START]
        for k in range(6):
            s = 0.0
            for c in range(n):
                s += S[i, k, c] * qd[v0 + c]
            vJ[k] = s
        if parent < 0:
            for k in range(6):
                v_work[i, k] = vJ[k]
        else:
            motion_transform(E[i], r[i], v_work[parent], t)
            for k in range(6):
                v_work[i, k] = t[k] + vJ[k]
        cross_motion(v_work[i], vJ, c_work[i])
        for a in range(6):
            for b in range(6):
                IA_work[i, a, b] = I6[i, a, b]
        mat6_vec(I6[i], v_work[i], t)
        cross_force(v_work[i], t, pA_work[i])
    for i in range(nlink - 1, -1, -1):
        parent = link_table[i, LINK_PARENT]
        n = primitive_nv(link_table[i, LINK_TYPE])
        v0 = link_table[i, LINK_V_START]
        IA = IA_work[i]
        U = U_work[i]
        D = X_work[2]
        for k in range(6):
            for c in range(n):
                s = 0.0
                for m in range(6):
                    s += IA[k, m] * S[i, m, c]
                U[k, c] = s
        for a in range(n):
            for c in range(n):
                s = 0.0
                for k in range(6):
                    s += S[i, k, a] * U[k, c]
                D[a, c] = s
            D[a, a] += armature[v0 + a]
            s = tau[v0 + a]
            for k in range(6):
                s -= S[i, k, a] * pA_work[i, k]
            u_work[v0 + a] = s
        small_inverse(D, n, Dinv_work[i])
        if parent >= 0:
            Dinv = Dinv_work[i]
            # Ia = IA - U Dinv U^T ; pa = pA + Ia c + U Dinv u
            for a in range(n):
                s = 0.0
                for b in range(n):
                    s += Dinv[a, b] * u_work[v0 + b]
                t2[a] = s
            for a in range(6):
                for b in range(6):
                    s = 0.0
                    for c in range(n):
                        w = 0.0
                        for d in range(n):
                            w += Dinv[c, d] * U[b, d]
                        s += U[a, c] * w
                    IA[a, b] -= s
            mat6_vec(IA, c_work[i], t)
            for a in range(6):
                s = pA_work[i, a] + t[a]
                for c in range(n):
                    s += U[a, c] * t2[c]
                t[a] = s
            force_transform_transpose(E[i], r[i], t, vJ)
            for k in range(6):
                pA_work[parent, k] += vJ[k]
            congruence_add(E[i], r[i], IA, X_work[0], IA_work[parent])
    a_world = t2
    for k in range(3):
        a_world[k] = 0.0
        a_world[3 + k] = -gravity[k]
    # pass 3 reuses v_work as the link accelerations
    for i in range(nlink):
        parent = link_table[i, LINK_PARENT]
        n = primitive_nv(link_table[i, LINK_TYPE])
        v0 = link_table[i, LINK_V_START]
        if parent < 0:
            motion_transform(E[i], r[i], a_world, t)
        else:
            motion_transform(E[i], r[i], v_work[parent], t)
        for k in range(6):
            t[k] += c_work[i, k]
        U = U_work[i]
        Dinv = Dinv_work[i]
        for a in range(n):
            s = u_work[v0 + a]
            for k in range(6):
                s -= U[k, a] * t[k]
            vJ[a] = s
        for a in range(n):
            s = 0.0
            for b in range(n):
                s += Dinv[a, b] * vJ[b]
            qdd_out[v0 + a] = s
        for k in range(6):
            s = t[k]
            for c in range(n):
                s += S[i, k, c] * qdd_out[v0 + c]
            v_work[i, k] = s
