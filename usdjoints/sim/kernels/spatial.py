"""Spatial (6-D) algebra in Featherstone's convention: vectors are (angular, linear).

A coordinate transform X from frame a to frame b is held as (E, r): E rotates a-coordinates into
b-coordinates and r is b's origin in a-coordinates [m]. Only what the dynamics kernels need is
here; each helper returns scalars or adds into an array it is given, and allocates nothing.
"""
from __future__ import annotations

from . import FMA, INTERNAL, njit


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def motion_transform_values(E, r, i, m0, m1, m2, m3, m4, m5):
    """X_i m as six scalars for link i's transform (E[i], r[i]), kept in registers by the caller.

    The per-link helpers below take the stacked arrays and an index rather than E[i]: in
    compiled loops a view costs a reference-count round trip per use."""
    vx = m3 - (r[i, 1] * m2 - r[i, 2] * m1)
    vy = m4 - (r[i, 2] * m0 - r[i, 0] * m2)
    vz = m5 - (r[i, 0] * m1 - r[i, 1] * m0)
    return (E[i, 0, 0] * m0 + E[i, 0, 1] * m1 + E[i, 0, 2] * m2,
            E[i, 1, 0] * m0 + E[i, 1, 1] * m1 + E[i, 1, 2] * m2,
            E[i, 2, 0] * m0 + E[i, 2, 1] * m1 + E[i, 2, 2] * m2,
            E[i, 0, 0] * vx + E[i, 0, 1] * vy + E[i, 0, 2] * vz,
            E[i, 1, 0] * vx + E[i, 1, 1] * vy + E[i, 1, 2] * vz,
            E[i, 2, 0] * vx + E[i, 2, 1] * vy + E[i, 2, 2] * vz)


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def subspace_times(S, i, n, x, start):
    """S[i][:, :n] x[start:start + n] as six scalars: a joint's spatial velocity (or
    acceleration) from its n dof rates."""
    s0 = s1 = s2 = s3 = s4 = s5 = 0.0
    for c in range(n):
        w = x[start + c]
        s0 += S[i, 0, c] * w
        s1 += S[i, 1, c] * w
        s2 += S[i, 2, c] * w
        s3 += S[i, 3, c] * w
        s4 += S[i, 4, c] * w
        s5 += S[i, 5, c] * w
    return s0, s1, s2, s3, s4, s5


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def link_velocity(E, r, i, parent, v_parent, j0, j1, j2, j3, j4, j5):
    """The forward velocity pass's step, v_i = X_i v_parent + S_i qd_i, as six scalars; j is the
    joint velocity S_i qd_i and v_parent [nlink, 6] the velocities already formed (a root link,
    parent < 0, moves with its joint alone)."""
    if parent < 0:
        return j0, j1, j2, j3, j4, j5
    x0, x1, x2, x3, x4, x5 = motion_transform_values(
        E, r, i, v_parent[parent, 0], v_parent[parent, 1], v_parent[parent, 2],
        v_parent[parent, 3], v_parent[parent, 4], v_parent[parent, 5])
    return x0 + j0, x1 + j1, x2 + j2, x3 + j3, x4 + j4, x5 + j5


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def motion_cross(v0, v1, v2, v3, v4, v5, j0, j1, j2, j3, j4, j5):
    """v x j for two motion vectors, as six scalars (the velocity-product acceleration
    v x (S qd) of the forward pass)."""
    return (v1 * j2 - v2 * j1,
            v2 * j0 - v0 * j2,
            v0 * j1 - v1 * j0,
            v1 * j5 - v2 * j4 + v4 * j2 - v5 * j1,
            v2 * j3 - v0 * j5 + v5 * j0 - v3 * j2,
            v0 * j4 - v1 * j3 + v3 * j1 - v4 * j0)


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def rigid_inertia_times(I, i, x0, x1, x2, x3, x4, x5):
    """I[i] x as six scalars for a rigid-body inertia I[i] = [[Ibar, hx], [hx^T, m 1]]:
    (Ibar w + h x v, m v - h x w) with x = (w, v)."""
    m = I[i, 3, 3]
    h0, h1, h2 = I[i, 2, 4], I[i, 0, 5], I[i, 1, 3]
    return (I[i, 0, 0] * x0 + I[i, 0, 1] * x1 + I[i, 0, 2] * x2 + (h1 * x5 - h2 * x4),
            I[i, 1, 0] * x0 + I[i, 1, 1] * x1 + I[i, 1, 2] * x2 + (h2 * x3 - h0 * x5),
            I[i, 2, 0] * x0 + I[i, 2, 1] * x1 + I[i, 2, 2] * x2 + (h0 * x4 - h1 * x3),
            m * x3 - (h1 * x2 - h2 * x1),
            m * x4 - (h2 * x0 - h0 * x2),
            m * x5 - (h0 * x1 - h1 * x0))


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def force_transform_transpose_add(E, r, i, f0, f1, f2, f3, f4, f5, out, j):
    """out[j] += X_i^T f for a force given as scalars (the per-link step of every backward pass)."""
    l0 = E[i, 0, 0] * f3 + E[i, 1, 0] * f4 + E[i, 2, 0] * f5
    l1 = E[i, 0, 1] * f3 + E[i, 1, 1] * f4 + E[i, 2, 1] * f5
    l2 = E[i, 0, 2] * f3 + E[i, 1, 2] * f4 + E[i, 2, 2] * f5
    out[j, 0] += E[i, 0, 0] * f0 + E[i, 1, 0] * f1 + E[i, 2, 0] * f2 + (r[i, 1] * l2 - r[i, 2] * l1)
    out[j, 1] += E[i, 0, 1] * f0 + E[i, 1, 1] * f1 + E[i, 2, 1] * f2 + (r[i, 2] * l0 - r[i, 0] * l2)
    out[j, 2] += E[i, 0, 2] * f0 + E[i, 1, 2] * f1 + E[i, 2, 2] * f2 + (r[i, 0] * l1 - r[i, 1] * l0)
    out[j, 3] += l0
    out[j, 4] += l1
    out[j, 5] += l2


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def _rotated_block(E, i, I, k, row, col):
    """E^T B E for the 3x3 block B = I[k, row:row+3, col:col+3], as nine scalars (row-major)."""
    b00, b01, b02 = I[k, row + 0, col], I[k, row + 0, col + 1], I[k, row + 0, col + 2]
    b10, b11, b12 = I[k, row + 1, col], I[k, row + 1, col + 1], I[k, row + 1, col + 2]
    b20, b21, b22 = I[k, row + 2, col], I[k, row + 2, col + 1], I[k, row + 2, col + 2]
    t00 = b00 * E[i, 0, 0] + b01 * E[i, 1, 0] + b02 * E[i, 2, 0]
    t01 = b00 * E[i, 0, 1] + b01 * E[i, 1, 1] + b02 * E[i, 2, 1]
    t02 = b00 * E[i, 0, 2] + b01 * E[i, 1, 2] + b02 * E[i, 2, 2]
    t10 = b10 * E[i, 0, 0] + b11 * E[i, 1, 0] + b12 * E[i, 2, 0]
    t11 = b10 * E[i, 0, 1] + b11 * E[i, 1, 1] + b12 * E[i, 2, 1]
    t12 = b10 * E[i, 0, 2] + b11 * E[i, 1, 2] + b12 * E[i, 2, 2]
    t20 = b20 * E[i, 0, 0] + b21 * E[i, 1, 0] + b22 * E[i, 2, 0]
    t21 = b20 * E[i, 0, 1] + b21 * E[i, 1, 1] + b22 * E[i, 2, 1]
    t22 = b20 * E[i, 0, 2] + b21 * E[i, 1, 2] + b22 * E[i, 2, 2]
    return (E[i, 0, 0] * t00 + E[i, 1, 0] * t10 + E[i, 2, 0] * t20,
            E[i, 0, 0] * t01 + E[i, 1, 0] * t11 + E[i, 2, 0] * t21,
            E[i, 0, 0] * t02 + E[i, 1, 0] * t12 + E[i, 2, 0] * t22,
            E[i, 0, 1] * t00 + E[i, 1, 1] * t10 + E[i, 2, 1] * t20,
            E[i, 0, 1] * t01 + E[i, 1, 1] * t11 + E[i, 2, 1] * t21,
            E[i, 0, 1] * t02 + E[i, 1, 1] * t12 + E[i, 2, 1] * t22,
            E[i, 0, 2] * t00 + E[i, 1, 2] * t10 + E[i, 2, 2] * t20,
            E[i, 0, 2] * t01 + E[i, 1, 2] * t11 + E[i, 2, 2] * t21,
            E[i, 0, 2] * t02 + E[i, 1, 2] * t12 + E[i, 2, 2] * t22)


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def congruence_add(E, r, i, I, j):
    """I[j] += X_i^T I[i] X_i for the motion transform X_i of (E[i], r[i]) and symmetric 6x6
    inertias: link i's articulated inertia re-expressed in its parent j's coordinates.

    With X = diag(E, E) [[1, 0], [-rx, 1]] and A, B, C the blocks of I rotated by E, the result
    is [[A - Z - Z^T, B + Q], [(B + Q)^T, C]] with Q = rx C and Z = (B + Q / 2) rx: 3x3 products
    on scalars, a third of the work of the dense 6x6 congruence and no memory round trips.
    """
    a00, a01, a02, a10, a11, a12, a20, a21, a22 = _rotated_block(E, i, I, i, 0, 0)
    b00, b01, b02, b10, b11, b12, b20, b21, b22 = _rotated_block(E, i, I, i, 0, 3)
    c00, c01, c02, c10, c11, c12, c20, c21, c22 = _rotated_block(E, i, I, i, 3, 3)
    r0, r1, r2 = r[i, 0], r[i, 1], r[i, 2]
    q00 = r1 * c20 - r2 * c10
    q01 = r1 * c21 - r2 * c11
    q02 = r1 * c22 - r2 * c12
    q10 = r2 * c00 - r0 * c20
    q11 = r2 * c01 - r0 * c21
    q12 = r2 * c02 - r0 * c22
    q20 = r0 * c10 - r1 * c00
    q21 = r0 * c11 - r1 * c01
    q22 = r0 * c12 - r1 * c02
    y00 = b00 + 0.5 * q00
    y01 = b01 + 0.5 * q01
    y02 = b02 + 0.5 * q02
    y10 = b10 + 0.5 * q10
    y11 = b11 + 0.5 * q11
    y12 = b12 + 0.5 * q12
    y20 = b20 + 0.5 * q20
    y21 = b21 + 0.5 * q21
    y22 = b22 + 0.5 * q22
    z00 = y01 * r2 - y02 * r1
    z01 = y02 * r0 - y00 * r2
    z02 = y00 * r1 - y01 * r0
    z10 = y11 * r2 - y12 * r1
    z11 = y12 * r0 - y10 * r2
    z12 = y10 * r1 - y11 * r0
    z20 = y21 * r2 - y22 * r1
    z21 = y22 * r0 - y20 * r2
    z22 = y20 * r1 - y21 * r0
    I[j, 0, 0] += a00 - 2.0 * z00
    s = a01 - z01 - z10
    I[j, 0, 1] += s
    I[j, 1, 0] += s
    s = a02 - z02 - z20
    I[j, 0, 2] += s
    I[j, 2, 0] += s
    I[j, 1, 1] += a11 - 2.0 * z11
    s = a12 - z12 - z21
    I[j, 1, 2] += s
    I[j, 2, 1] += s
    I[j, 2, 2] += a22 - 2.0 * z22
    s = b00 + q00
    I[j, 0, 3] += s
    I[j, 3, 0] += s
    s = b01 + q01
    I[j, 0, 4] += s
    I[j, 4, 0] += s
    s = b02 + q02
    I[j, 0, 5] += s
    I[j, 5, 0] += s
    s = b10 + q10
    I[j, 1, 3] += s
    I[j, 3, 1] += s
    s = b11 + q11
    I[j, 1, 4] += s
    I[j, 4, 1] += s
    s = b12 + q12
    I[j, 1, 5] += s
    I[j, 5, 1] += s
    s = b20 + q20
    I[j, 2, 3] += s
    I[j, 3, 2] += s
    s = b21 + q21
    I[j, 2, 4] += s
    I[j, 4, 2] += s
    s = b22 + q22
    I[j, 2, 5] += s
    I[j, 5, 2] += s
    I[j, 3, 3] += c00
    I[j, 3, 4] += c01
    I[j, 3, 5] += c02
    I[j, 4, 3] += c10
    I[j, 4, 4] += c11
    I[j, 4, 5] += c12
    I[j, 5, 3] += c20
    I[j, 5, 4] += c21
    I[j, 5, 5] += c22


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def rigid_inertia_add(E, r, i, I, j):
    """I[j] += X_i^T I[i] X_i for a rigid-body spatial inertia I[i] = [[Ibar, hx], [hx^T, m 1]]
    (about link i's origin, in its coordinates): the same body about the parent j's origin.

    With h' = E^T h, the result is the rigid inertia of mass m, first moment h' + m r and
    rotational inertia E^T Ibar E + m (|r|^2 1 - r r^T) - (h' r^T + r h'^T) + 2 (r . h') 1,
    a tenth of the work of the dense congruence. Ibar is read from its upper triangle.
    """
    m = I[i, 3, 3]
    h0, h1, h2 = I[i, 2, 4], I[i, 0, 5], I[i, 1, 3]
    i00, i01, i02, i11, i12, i22 = I[i, 0, 0], I[i, 0, 1], I[i, 0, 2], I[i, 1, 1], I[i, 1, 2], I[i, 2, 2]
    r0, r1, r2 = r[i, 0], r[i, 1], r[i, 2]
    g0 = E[i, 0, 0] * h0 + E[i, 1, 0] * h1 + E[i, 2, 0] * h2
    g1 = E[i, 0, 1] * h0 + E[i, 1, 1] * h1 + E[i, 2, 1] * h2
    g2 = E[i, 0, 2] * h0 + E[i, 1, 2] * h1 + E[i, 2, 2] * h2
    rr = r0 * r0 + r1 * r1 + r2 * r2
    rg = r0 * g0 + r1 * g1 + r2 * g2
    diagonal = m * rr + 2.0 * rg
    for b in range(3):
        # column b of Ibar E
        e0, e1, e2 = E[i, 0, b], E[i, 1, b], E[i, 2, b]
        c0 = i00 * e0 + i01 * e1 + i02 * e2
        c1 = i01 * e0 + i11 * e1 + i12 * e2
        c2 = i02 * e0 + i12 * e1 + i22 * e2
        gb = g0 if b == 0 else (g1 if b == 1 else g2)
        rb = r0 if b == 0 else (r1 if b == 1 else r2)
        for a in range(b, 3):
            ga = g0 if a == 0 else (g1 if a == 1 else g2)
            ra = r0 if a == 0 else (r1 if a == 1 else r2)
            v = E[i, 0, a] * c0 + E[i, 1, a] * c1 + E[i, 2, a] * c2 - m * ra * rb - (ga * rb + ra * gb)
            if a == b:
                v += diagonal
                I[j, a, a] += v
            else:
                I[j, a, b] += v
                I[j, b, a] += v
    p0 = g0 + m * r0
    p1 = g1 + m * r1
    p2 = g2 + m * r2
    # hx block (top right) and its transpose (bottom left)
    I[j, 0, 4] -= p2
    I[j, 0, 5] += p1
    I[j, 1, 3] += p2
    I[j, 1, 5] -= p0
    I[j, 2, 3] -= p1
    I[j, 2, 4] += p0
    I[j, 4, 0] -= p2
    I[j, 5, 0] += p1
    I[j, 3, 1] += p2
    I[j, 5, 1] -= p0
    I[j, 3, 2] -= p1
    I[j, 4, 2] += p0
    for a in range(3):
        I[j, 3 + a, 3 + a] += m


@njit(cache=True, fastmath=FMA)
def small_inverse(A, n, work):
    """In place, A[:n, :n] <- its inverse (symmetric positive-definite, by Gauss-Jordan);
    work [6, 12] is scratch."""
    if n == 1:
        A[0, 0] = 1.0 / A[0, 0]
        return
    for a in range(n):
        for b in range(n):
            work[a, b] = A[a, b]
            work[a, n + b] = 1.0 if a == b else 0.0
    for c in range(n):
        pivot = work[c, c]
        for b in range(2 * n):
            work[c, b] /= pivot
        for a in range(n):
            if a != c:
                factor = work[a, c]
                if factor != 0.0:
                    for b in range(2 * n):
                        work[a, b] -= factor * work[c, b]
    for a in range(n):
        for b in range(n):
            A[a, b] = work[a, n + b]
