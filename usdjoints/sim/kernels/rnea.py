"""Recursive Newton-Euler: joint forces that produce a given acceleration, gravity included."""
from __future__ import annotations

from . import FMA, njit
from .jcalc import primitive_nv
from .layout import LINK_PARENT, LINK_TYPE, LINK_V_START
from .spatial import (force_transform_transpose_add, link_velocity, motion_cross, motion_transform_values,
                      rigid_inertia_times, subspace_times)


@njit(cache=True, fastmath=FMA)
def rnea(link_table, S, I6, E, r, gravity, qd, qdd, v_work, a_work, f_work, tau_out):
    """tau_out [nv] = M(q) qdd + C(q, qd) qd + g(q), without armature.

    E, r: link transforms from fk.link_transforms; S [nlink,6,6] motion subspaces and I6
    [nlink,6,6] rigid-body spatial inertias in link coordinates; gravity [3] [m/s^2] in world
    coordinates. Scratch: v_work, a_work, f_work [nlink,6]. Each link's vectors are six
    scalars while they are formed, stored once for its children and the backward pass.
    """
    nlink = link_table.shape[0]
    for i in range(nlink):
        parent = link_table[i, LINK_PARENT]
        n = primitive_nv(link_table[i, LINK_TYPE])
        v0 = link_table[i, LINK_V_START]
        j0, j1, j2, j3, j4, j5 = subspace_times(S, i, n, qd, v0)  # joint velocity S qd
        b0, b1, b2, b3, b4, b5 = subspace_times(S, i, n, qdd, v0)  # joint acceleration S qdd
        v_0, v_1, v_2, v_3, v_4, v_5 = link_velocity(E, r, i, parent, v_work, j0, j1, j2, j3, j4, j5)
        if parent < 0:  # gravity as a fictitious upward acceleration of the world
            a_0, a_1, a_2, a_3, a_4, a_5 = motion_transform_values(
                E, r, i, 0.0, 0.0, 0.0, -gravity[0], -gravity[1], -gravity[2])
        else:
            a_0, a_1, a_2, a_3, a_4, a_5 = motion_transform_values(
                E, r, i, a_work[parent, 0], a_work[parent, 1], a_work[parent, 2],
                a_work[parent, 3], a_work[parent, 4], a_work[parent, 5])
        # a = X a_parent + S qdd + v x (S qd)
        c0, c1, c2, c3, c4, c5 = motion_cross(v_0, v_1, v_2, v_3, v_4, v_5, j0, j1, j2, j3, j4, j5)
        a_0 += b0 + c0
        a_1 += b1 + c1
        a_2 += b2 + c2
        a_3 += b3 + c3
        a_4 += b4 + c4
        a_5 += b5 + c5
        # f = I a + v x* (I v)
        f_0, f_1, f_2, f_3, f_4, f_5 = rigid_inertia_times(I6, i, a_0, a_1, a_2, a_3, a_4, a_5)
        p0, p1, p2, p3, p4, p5 = rigid_inertia_times(I6, i, v_0, v_1, v_2, v_3, v_4, v_5)
        f_0 += v_1 * p2 - v_2 * p1 + v_4 * p5 - v_5 * p4
        f_1 += v_2 * p0 - v_0 * p2 + v_5 * p3 - v_3 * p5
        f_2 += v_0 * p1 - v_1 * p0 + v_3 * p4 - v_4 * p3
        f_3 += v_1 * p5 - v_2 * p4
        f_4 += v_2 * p3 - v_0 * p5
        f_5 += v_0 * p4 - v_1 * p3
        v_work[i, 0], v_work[i, 1], v_work[i, 2] = v_0, v_1, v_2
        v_work[i, 3], v_work[i, 4], v_work[i, 5] = v_3, v_4, v_5
        a_work[i, 0], a_work[i, 1], a_work[i, 2] = a_0, a_1, a_2
        a_work[i, 3], a_work[i, 4], a_work[i, 5] = a_3, a_4, a_5
        f_work[i, 0], f_work[i, 1], f_work[i, 2] = f_0, f_1, f_2
        f_work[i, 3], f_work[i, 4], f_work[i, 5] = f_3, f_4, f_5
    for i in range(nlink - 1, -1, -1):
        parent = link_table[i, LINK_PARENT]
        n = primitive_nv(link_table[i, LINK_TYPE])
        v0 = link_table[i, LINK_V_START]
        f0, f1, f2 = f_work[i, 0], f_work[i, 1], f_work[i, 2]
        f3, f4, f5 = f_work[i, 3], f_work[i, 4], f_work[i, 5]
        for c in range(n):
            tau_out[v0 + c] = (S[i, 0, c] * f0 + S[i, 1, c] * f1 + S[i, 2, c] * f2
                               + S[i, 3, c] * f3 + S[i, 4, c] * f4 + S[i, 5, c] * f5)
        if parent >= 0:
            # f_parent += X^T f
            force_transform_transpose_add(E, r, i, f0, f1, f2, f3, f4, f5, f_work, parent)
