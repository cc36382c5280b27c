"""Bias forces and the mass matrix in one pass, with every spatial quantity in world-aligned
coordinates whose origin is each tree's root-link origin.

In such coordinates a body's motion subspace, velocity, acceleration, force and (composite)
inertia need no link-to-link transform: velocities and accelerations add down the tree, forces
and composite inertias add up it, and a mass-matrix entry is a dot product of a column of S with
a composite force. The link transforms are turned into rotations and origins once per call; each
link's inertia and motion subspace are rotated and shifted once. Placing the origin at the root
link (not the world origin) keeps the shifted inertias of a robot far from the world origin as
well conditioned as at the origin; joint forces do not depend on the origin chosen.

Spatial vectors are (angular, linear) as in spatial.py. A rigid inertia is held as its ten
numbers: m, h = m c (3) and the rotational inertia about the origin Ibar (6, symmetric).
"""
from __future__ import annotations

import numpy as np

from . import FMA, INTERNAL, njit
from .jcalc import primitive_nv
from .layout import LINK_PARENT, LINK_TYPE, LINK_V_START
from .spatial import motion_cross

# Columns of the ten-number inertia rows in ``inertia_work``.
_M, _H0, _H1, _H2, _XX, _YY, _ZZ, _XY, _XZ, _YZ = range(10)


@njit(cache=True, fastmath=FMA)
def allocate_world_workspace(nlink, nv):
    """Scratch of bias_and_mass: rotations [nlink,3,3], origins [nlink,3], subspace columns
    [nv,6], velocity/acceleration/force [3,nlink,6], composite inertias [nlink,10]."""
    return (np.empty((nlink, 3, 3)), np.empty((nlink, 3)), np.empty((nv, 6)),
            np.empty((3, nlink, 6)), np.empty((nlink, 10)))


@njit(cache=True, fastmath=FMA)
def bias_and_mass(link_table, S, I6, E, r, gravity, armature, qd, R_work, p_work, s_work,
                  vaf_work, inertia_work, bias_out, M_out):
    """bias_and_mass_inline as one compiled call."""
    bias_and_mass_inline(link_table, S, I6, E, r, gravity, armature, qd, R_work, p_work, s_work,
                         vaf_work, inertia_work, bias_out, M_out)


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def bias_and_mass_inline(link_table, S, I6, E, r, gravity, armature, qd, R_work, p_work, s_work,
                         vaf_work, inertia_work, bias_out, M_out):
    """bias_out [nv] = C(q, qd) qd + g(q) (rnea with qdd = 0) and M_out [nv, nv] = M(q) +
    diag(armature) (crba), from the link transforms E, r of fk.link_transforms.

    Only what the tree-sparse factorisation (crba.ltdl_factor) reads is written: the diagonal
    and M[k, j] for each dof k and every dof j above it on its path to the root (j < k). Every
    other entry of M is zero for a tree and is left untouched.
    """
    forward_pass(link_table, S, I6, E, r, gravity, qd, R_work, p_work, s_work, vaf_work,
                 inertia_work)
    backward_pass(link_table, armature, s_work, vaf_work, inertia_work, bias_out, M_out)


# The two passes are kernels of their own: numba's reference-count pruning gives up on a
# function holding both loops, and each of its array arguments would then cost an atomic
# increment and decrement on every call.
@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def forward_pass(link_table, S, I6, E, r, gravity, qd, R_work, p_work, s_work, vaf_work,
                 inertia_work):
    """Root to leaves: each link's rotation and origin (R_work, p_work), its inertia
    (inertia_work) and subspace columns (s_work) in world-aligned coordinates, and its velocity,
    acceleration (qdd = 0, gravity as the world accelerating up) and force (vaf_work)."""
    nlink = link_table.shape[0]
    for i in range(nlink):
        parent = link_table[i, LINK_PARENT]
        # the link's rotation R (link -> world) and origin p relative to its tree's root link;
        # arrays are indexed in place (a view per link would cost a reference count each)
        if parent < 0:
            for a in range(3):
                p_work[i, a] = 0.0
                for b in range(3):
                    R_work[i, a, b] = E[i, b, a]
        else:
            for a in range(3):
                p_work[i, a] = (p_work[parent, a] + R_work[parent, a, 0] * r[i, 0]
                                + R_work[parent, a, 1] * r[i, 1] + R_work[parent, a, 2] * r[i, 2])
                for b in range(3):
                    R_work[i, a, b] = (R_work[parent, a, 0] * E[i, b, 0] + R_work[parent, a, 1] * E[i, b, 1]
                                       + R_work[parent, a, 2] * E[i, b, 2])
        p0, p1, p2 = p_work[i, 0], p_work[i, 1], p_work[i, 2]
        r00, r01, r02 = R_work[i, 0, 0], R_work[i, 0, 1], R_work[i, 0, 2]
        r10, r11, r12 = R_work[i, 1, 0], R_work[i, 1, 1], R_work[i, 1, 2]
        r20, r21, r22 = R_work[i, 2, 0], R_work[i, 2, 1], R_work[i, 2, 2]
        # the inertia: h_w = R h + m p; Ibar_w = R Ibar R^T + m (|p|^2 1 - p p^T)
        #              + 2 (p.g) 1 - p g^T - g p^T with g = R h
        m = I6[i, 3, 3]
        hl0, hl1, hl2 = I6[i, 2, 4], I6[i, 0, 5], I6[i, 1, 3]
        g0 = r00 * hl0 + r01 * hl1 + r02 * hl2
        g1 = r10 * hl0 + r11 * hl1 + r12 * hl2
        g2 = r20 * hl0 + r21 * hl1 + r22 * hl2
        i00, i01, i02 = I6[i, 0, 0], I6[i, 0, 1], I6[i, 0, 2]
        i11, i12, i22 = I6[i, 1, 1], I6[i, 1, 2], I6[i, 2, 2]
        # T = R Ibar (Ibar symmetric), then the six entries of T R^T
        t00 = r00 * i00 + r01 * i01 + r02 * i02
        t01 = r00 * i01 + r01 * i11 + r02 * i12
        t02 = r00 * i02 + r01 * i12 + r02 * i22
        t10 = r10 * i00 + r11 * i01 + r12 * i02
        t11 = r10 * i01 + r11 * i11 + r12 * i12
        t12 = r10 * i02 + r11 * i12 + r12 * i22
        t20 = r20 * i00 + r21 * i01 + r22 * i02
        t21 = r20 * i01 + r21 * i11 + r22 * i12
        t22 = r20 * i02 + r21 * i12 + r22 * i22
        pp2 = p0 * p0 + p1 * p1 + p2 * p2
        pg2 = 2.0 * (p0 * g0 + p1 * g1 + p2 * g2)
        Jxx = t00 * r00 + t01 * r01 + t02 * r02 + m * (pp2 - p0 * p0) + pg2 - 2.0 * p0 * g0
        Jyy = t10 * r10 + t11 * r11 + t12 * r12 + m * (pp2 - p1 * p1) + pg2 - 2.0 * p1 * g1
        Jzz = t20 * r20 + t21 * r21 + t22 * r22 + m * (pp2 - p2 * p2) + pg2 - 2.0 * p2 * g2
        Jxy = t00 * r10 + t01 * r11 + t02 * r12 - m * p0 * p1 - p0 * g1 - g0 * p1
        Jxz = t00 * r20 + t01 * r21 + t02 * r22 - m * p0 * p2 - p0 * g2 - g0 * p2
        Jyz = t10 * r20 + t11 * r21 + t12 * r22 - m * p1 * p2 - p1 * g2 - g1 * p2
        h0, h1, h2 = g0 + m * p0, g1 + m * p1, g2 + m * p2
        inertia_work[i, _M] = m
        inertia_work[i, _H0] = h0
        inertia_work[i, _H1] = h1
        inertia_work[i, _H2] = h2
        inertia_work[i, _XX] = Jxx
        inertia_work[i, _YY] = Jyy
        inertia_work[i, _ZZ] = Jzz
        inertia_work[i, _XY] = Jxy
        inertia_work[i, _XZ] = Jxz
        inertia_work[i, _YZ] = Jyz
        # the joint's subspace columns, and the joint velocity S qd
        n = primitive_nv(link_table[i, LINK_TYPE])
        d0 = link_table[i, LINK_V_START]
        j0 = j1 = j2 = j3 = j4 = j5 = 0.0
        for c in range(n):
            sa0, sa1, sa2 = S[i, 0, c], S[i, 1, c], S[i, 2, c]
            sl0, sl1, sl2 = S[i, 3, c], S[i, 4, c], S[i, 5, c]
            w0 = r00 * sa0 + r01 * sa1 + r02 * sa2
            w1 = r10 * sa0 + r11 * sa1 + r12 * sa2
            w2 = r20 * sa0 + r21 * sa1 + r22 * sa2
            u0 = r00 * sl0 + r01 * sl1 + r02 * sl2 + (p1 * w2 - p2 * w1)
            u1 = r10 * sl0 + r11 * sl1 + r12 * sl2 + (p2 * w0 - p0 * w2)
            u2 = r20 * sl0 + r21 * sl1 + r22 * sl2 + (p0 * w1 - p1 * w0)
            k = d0 + c
            s_work[k, 0] = w0
            s_work[k, 1] = w1
            s_work[k, 2] = w2
            s_work[k, 3] = u0
            s_work[k, 4] = u1
            s_work[k, 5] = u2
            x = qd[k]
            j0 += w0 * x
            j1 += w1 * x
            j2 += w2 * x
            j3 += u0 * x
            j4 += u1 * x
            j5 += u2 * x
        # v = v_parent + S qd; a = a_parent + v x (S qd); gravity as the world accelerating up
        if parent < 0:
            v0, v1, v2, v3, v4, v5 = j0, j1, j2, j3, j4, j5
            a0, a1, a2 = 0.0, 0.0, 0.0
            a3, a4, a5 = -gravity[0], -gravity[1], -gravity[2]
        else:
            v0 = vaf_work[0, parent, 0] + j0
            v1 = vaf_work[0, parent, 1] + j1
            v2 = vaf_work[0, parent, 2] + j2
            v3 = vaf_work[0, parent, 3] + j3
            v4 = vaf_work[0, parent, 4] + j4
            v5 = vaf_work[0, parent, 5] + j5
            a0, a1, a2 = vaf_work[1, parent, 0], vaf_work[1, parent, 1], vaf_work[1, parent, 2]
            a3, a4, a5 = vaf_work[1, parent, 3], vaf_work[1, parent, 4], vaf_work[1, parent, 5]
        c0, c1, c2, c3, c4, c5 = motion_cross(v0, v1, v2, v3, v4, v5, j0, j1, j2, j3, j4, j5)
        a0 += c0
        a1 += c1
        a2 += c2
        a3 += c3
        a4 += c4
        a5 += c5
        # f = I a + v x* (I v)
        f0 = Jxx * a0 + Jxy * a1 + Jxz * a2 + (h1 * a5 - h2 * a4)
        f1 = Jxy * a0 + Jyy * a1 + Jyz * a2 + (h2 * a3 - h0 * a5)
        f2 = Jxz * a0 + Jyz * a1 + Jzz * a2 + (h0 * a4 - h1 * a3)
        f3 = m * a3 - (h1 * a2 - h2 * a1)
        f4 = m * a4 - (h2 * a0 - h0 * a2)
        f5 = m * a5 - (h0 * a1 - h1 * a0)
        q0 = Jxx * v0 + Jxy * v1 + Jxz * v2 + (h1 * v5 - h2 * v4)
        q1 = Jxy * v0 + Jyy * v1 + Jyz * v2 + (h2 * v3 - h0 * v5)
        q2 = Jxz * v0 + Jyz * v1 + Jzz * v2 + (h0 * v4 - h1 * v3)
        q3 = m * v3 - (h1 * v2 - h2 * v1)
        q4 = m * v4 - (h2 * v0 - h0 * v2)
        q5 = m * v5 - (h0 * v1 - h1 * v0)
        f0 += v1 * q2 - v2 * q1 + v4 * q5 - v5 * q4
        f1 += v2 * q0 - v0 * q2 + v5 * q3 - v3 * q5
        f2 += v0 * q1 - v1 * q0 + v3 * q4 - v4 * q3
        f3 += v1 * q5 - v2 * q4
        f4 += v2 * q3 - v0 * q5
        f5 += v0 * q4 - v1 * q3
        vaf_work[0, i, 0], vaf_work[0, i, 1], vaf_work[0, i, 2] = v0, v1, v2
        vaf_work[0, i, 3], vaf_work[0, i, 4], vaf_work[0, i, 5] = v3, v4, v5
        vaf_work[1, i, 0], vaf_work[1, i, 1], vaf_work[1, i, 2] = a0, a1, a2
        vaf_work[1, i, 3], vaf_work[1, i, 4], vaf_work[1, i, 5] = a3, a4, a5
        vaf_work[2, i, 0], vaf_work[2, i, 1], vaf_work[2, i, 2] = f0, f1, f2
        vaf_work[2, i, 3], vaf_work[2, i, 4], vaf_work[2, i, 5] = f3, f4, f5


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def backward_pass(link_table, armature, s_work, vaf_work, inertia_work, bias_out, M_out):
    """Leaves to root: the bias forces (bias_out) and the mass-matrix rows (M_out) from the
    forces and inertias that forward_pass left, each added into its parent's."""
    nlink = link_table.shape[0]
    nv = M_out.shape[0]
    for i in range(nlink - 1, -1, -1):
        parent = link_table[i, LINK_PARENT]
        n = primitive_nv(link_table[i, LINK_TYPE])
        d0 = link_table[i, LINK_V_START]
        m, h0 = inertia_work[i, _M], inertia_work[i, _H0]
        h1, h2 = inertia_work[i, _H1], inertia_work[i, _H2]
        Jxx, Jyy, Jzz = inertia_work[i, _XX], inertia_work[i, _YY], inertia_work[i, _ZZ]
        Jxy, Jxz, Jyz = inertia_work[i, _XY], inertia_work[i, _XZ], inertia_work[i, _YZ]
        for c in range(n):
            k = d0 + c
            w0, w1, w2 = s_work[k, 0], s_work[k, 1], s_work[k, 2]
            u0, u1, u2 = s_work[k, 3], s_work[k, 4], s_work[k, 5]
            bias_out[k] = (w0 * vaf_work[2, i, 0] + w1 * vaf_work[2, i, 1] + w2 * vaf_work[2, i, 2]
                           + u0 * vaf_work[2, i, 3] + u1 * vaf_work[2, i, 4] + u2 * vaf_work[2, i, 5])
            # the composite force Ic S[:, c], dotted with every column at and above this link
            # (row k of M: column c of M is row c's transpose)
            F0 = Jxx * w0 + Jxy * w1 + Jxz * w2 + (h1 * u2 - h2 * u1)
            F1 = Jxy * w0 + Jyy * w1 + Jyz * w2 + (h2 * u0 - h0 * u2)
            F2 = Jxz * w0 + Jyz * w1 + Jzz * w2 + (h0 * u1 - h1 * u0)
            F3 = m * u0 - (h1 * w2 - h2 * w1)
            F4 = m * u1 - (h2 * w0 - h0 * w2)
            F5 = m * u2 - (h0 * w1 - h1 * w0)
            for e in range(d0, d0 + c + 1):
                M_out[k, e] = (s_work[e, 0] * F0 + s_work[e, 1] * F1 + s_work[e, 2] * F2
                               + s_work[e, 3] * F3 + s_work[e, 4] * F4 + s_work[e, 5] * F5)
            j = parent
            while j >= 0:
                dj = link_table[j, LINK_V_START]
                for e in range(dj, dj + primitive_nv(link_table[j, LINK_TYPE])):
                    M_out[k, e] = (s_work[e, 0] * F0 + s_work[e, 1] * F1 + s_work[e, 2] * F2
                                   + s_work[e, 3] * F3 + s_work[e, 4] * F4 + s_work[e, 5] * F5)
                j = link_table[j, LINK_PARENT]
        if parent >= 0:
            for a in range(6):
                vaf_work[2, parent, a] += vaf_work[2, i, a]
            for a in range(10):
                inertia_work[parent, a] += inertia_work[i, a]
    for k in range(nv):
        M_out[k, k] += armature[k]
