"""Recursive Newton-Euler: joint forces that produce a given acceleration, gravity included."""
from __future__ import annotations

from numba import njit

from .jcalc import primitive_nv
from .layout import LINK_PARENT, LINK_TYPE, LINK_V_START
from .spatial import cross_force, cross_motion, force_transform_transpose, mat6_vec, motion_transform


@njit(cache=True)
def rnea(link_table, S, I6, E, r, gravity, qd, qdd, v_work, a_work, f_work, tmp_work, tau_out):
    """tau_out [nv] = M(q) qdd + C(q, qd) qd + g(q), without armature.

    E, r: link transforms from fk.link_transforms; S [nlink,6,6] motion subspaces and I6
    [nlink,6,6] spatial inertias in link coordinates; gravity [3] [m/s^2] in world coordinates.
    Scratch: v_work, a_work, f_work [nlink,6], tmp_work [3,6].
    """
    nlink = link_table.shape[0]
    a_world = tmp_work[0]
    vJ = tmp_work[1]
    t = tmp_work[2]
    for k in range(3):
        a_world[k] = 0.0
        a_world[3 + k] = -gravity[k]  # gravity as a fictitious upward acceleration of the world
    for i in range(nlink):
        parent = link_table[i, LINK_PARENT]
        n = primitive_nv(link_table[i, LINK_TYPE])
        v0 = link_table[i, LINK_V_START]
        for k in range(6):
            s_v = 0.0
            s_a = 0.0
            for c in range(n):
                s_v += S[i, k, c] * qd[v0 + c]
                s_a += S[i, k, c] * qdd[v0 + c]
            vJ[k] = s_v
            a_work[i, k] = s_a
        if parent < 0:
            for k in range(6):
                v_work[i, k] = vJ[k]
            motion_transform(E[i], r[i], a_world, t)
        else:
            motion_transform(E[i], r[i], v_work[parent], t)
            for k in range(6):
                v_work[i, k] = t[k] + vJ[k]
            motion_transform(E[i], r[i], a_work[parent], t)
        for k in range(6):
            a_work[i, k] += t[k]
        cross_motion(v_work[i], vJ, t)
        for k in range(6):
            a_work[i, k] += t[k]
        mat6_vec(I6[i], a_work[i], f_work[i])
        mat6_vec(I6[i], v_work[i], vJ)
        cross_force(v_work[i], vJ, t)
        for k in range(6):
            f_work[i, k] += t[k]
    for i in range(nlink - 1, -1, -1):
        parent = link_table[i, LINK_PARENT]
        n = primitive_nv(link_table[i, LINK_TYPE])
        v0 = link_table[i, LINK_V_START]
        for c in range(n):
            s = 0.0
            for k in range(6):
                s += S[i, k, c] * f_work[i, k]
            tau_out[v0 + c] = s
        if parent >= 0:
            force_transform_transpose(E[i], r[i], f_work[i], t)
            for k in range(6):
                f_work[parent, k] += t[k]
