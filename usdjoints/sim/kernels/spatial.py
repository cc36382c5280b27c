"""Spatial (6-D) algebra in Featherstone's convention: vectors are (angular, linear).

A coordinate transform X from frame a to frame b is held as (E, r): E rotates a-coordinates into
b-coordinates and r is b's origin in a-coordinates [m]. Only what the dynamics kernels need is
here; every function writes into its last argument and allocates nothing.
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def motion_transform(E, r, m, out):
    """out = X m for a motion vector m (out must not alias m)."""
    vx = m[3] - (r[1] * m[2] - r[2] * m[1])
    vy = m[4] - (r[2] * m[0] - r[0] * m[2])
    vz = m[5] - (r[0] * m[1] - r[1] * m[0])
    for k in range(3):
        out[k] = E[k, 0] * m[0] + E[k, 1] * m[1] + E[k, 2] * m[2]
        out[3 + k] = E[k, 0] * vx + E[k, 1] * vy + E[k, 2] * vz


@njit(cache=True)
def motion_transform_values(E, r, m0, m1, m2, m3, m4, m5):
    """X m as six scalars (kept in registers by the caller, unlike an array round trip)."""
    vx = m3 - (r[1] * m2 - r[2] * m1)
    vy = m4 - (r[2] * m0 - r[0] * m2)
    vz = m5 - (r[0] * m1 - r[1] * m0)
    return (E[0, 0] * m0 + E[0, 1] * m1 + E[0, 2] * m2,
            E[1, 0] * m0 + E[1, 1] * m1 + E[1, 2] * m2,
            E[2, 0] * m0 + E[2, 1] * m1 + E[2, 2] * m2,
            E[0, 0] * vx + E[0, 1] * vy + E[0, 2] * vz,
            E[1, 0] * vx + E[1, 1] * vy + E[1, 2] * vz,
            E[2, 0] * vx + E[2, 1] * vy + E[2, 2] * vz)


@njit(cache=True)
def rigid_inertia_times(I, x0, x1, x2, x3, x4, x5):
    """I x as six scalars for a rigid-body inertia I = [[Ibar, hx], [hx^T, m 1]]:
    (Ibar w + h x v, m v - h x w) with x = (w, v)."""
    m = I[3, 3]
    h0, h1, h2 = I[2, 4], I[0, 5], I[1, 3]
    return (I[0, 0] * x0 + I[0, 1] * x1 + I[0, 2] * x2 + (h1 * x5 - h2 * x4),
            I[1, 0] * x0 + I[1, 1] * x1 + I[1, 2] * x2 + (h2 * x3 - h0 * x5),
            I[2, 0] * x0 + I[2, 1] * x1 + I[2, 2] * x2 + (h0 * x4 - h1 * x3),
            m * x3 - (h1 * x2 - h2 * x1),
            m * x4 - (h2 * x0 - h0 * x2),
            m * x5 - (h0 * x1 - h1 * x0))


@njit(cache=True)
def force_transform_transpose(E, r, f, out):
    """out = X^T f: a force in b-coordinates re-expressed in a-coordinates (no aliasing)."""
    for k in range(3):
        out[k] = E[0, k] * f[0] + E[1, k] * f[1] + E[2, k] * f[2]
        out[3 + k] = E[0, k] * f[3] + E[1, k] * f[4] + E[2, k] * f[5]
    fx, fy, fz = out[3], out[4], out[5]
    out[0] += r[1] * fz - r[2] * fy
    out[1] += r[2] * fx - r[0] * fz
    out[2] += r[0] * fy - r[1] * fx


@njit(cache=True)
def _rotate_block(E, I, row, col, work, out_row, out_col):
    """work[out_row:+3, out_col:+3] = E^T B E for the 3x3 block B = I[row:+3, col:+3]; work's
    rows 3..5, columns 0..2 hold the intermediate B E (the out block must be elsewhere)."""
    for a in range(3):
        for b in range(3):
            work[3 + a, b] = I[row + a, col] * E[0, b] + I[row + a, col + 1] * E[1, b] + I[row + a, col + 2] * E[2, b]
    for a in range(3):
        for b in range(3):
            work[out_row + a, out_col + b] = E[0, a] * work[3, b] + E[1, a] * work[4, b] + E[2, a] * work[5, b]


@njit(cache=True)
def congruence_add(E, r, I, work, out):
    """out += X^T I X for the motion transform X of (E, r) and a symmetric 6x6 I (work: 6x6
    scratch): the inertia I, held in b-coordinates, re-expressed in a-coordinates.

    With X = diag(E, E) [[1, 0], [-rx, 1]], the rotated blocks A, B, C of E^T-rotated I give
    [[A - B rx + rx B^T - rx C rx, B + rx C], [(B + rx C)^T, C]]: 3x3 products only, so it costs
    a third of the dense 6x6 congruence.
    """
    _rotate_block(E, I, 3, 3, work, 0, 3)          # C into the top-right block for now
    for a in range(3):
        for b in range(3):
            out[3 + a, 3 + b] += work[a, 3 + b]
    for a in range(3):                              # rx C -> rows 3..5, columns 3..5
        a1 = (a + 1) % 3
        a2 = (a + 2) % 3
        for b in range(3):
            work[3 + a, 3 + b] = r[a1] * work[a2, 3 + b] - r[a2] * work[a1, 3 + b]
    # rx C rx is symmetric; the top-left gets -(rx C rx), kept in rows 0..2, columns 3..5
    for a in range(3):
        for b in range(3):
            b1 = (b + 1) % 3
            b2 = (b + 2) % 3
            work[a, 3 + b] = work[3 + a, 3 + b1] * r[b2] - work[3 + a, 3 + b2] * r[b1]
    for a in range(3):
        for b in range(3):
            out[a, b] -= work[a, 3 + b]
    _rotate_block(E, I, 0, 3, work, 0, 3)           # B (C's top-right copy is no longer needed)
    for a in range(3):
        for b in range(3):
            t = work[a, 3 + b] + work[3 + a, 3 + b]  # B + rx C
            out[a, 3 + b] += t
            out[3 + b, a] += t
    for a in range(3):                              # B rx -> rows 3..5, columns 3..5
        for b in range(3):
            b1 = (b + 1) % 3
            b2 = (b + 2) % 3
            work[3 + a, 3 + b] = work[a, 3 + b1] * r[b2] - work[a, 3 + b2] * r[b1]
    _rotate_block(E, I, 0, 0, work, 0, 0)           # A
    for a in range(3):
        for b in range(3):
            out[a, b] += work[a, b] - work[3 + a, 3 + b] - work[3 + b, 3 + a]


@njit(cache=True)
def rigid_inertia_add(E, r, I, out):
    """out += X^T I X for a rigid-body spatial inertia I = [[Ibar, hx], [hx^T, m 1]] (about
    b's origin, b-coordinates): the same body about a's origin in a-coordinates.

    With h' = E^T h, the result is the rigid inertia of mass m, first moment h' + m r and
    rotational inertia E^T Ibar E + m (|r|^2 1 - r r^T) - (h' r^T + r h'^T) + 2 (r . h') 1,
    a tenth of the work of the dense congruence. Ibar is read from its upper triangle.
    """
    m = I[3, 3]
    h0, h1, h2 = I[2, 4], I[0, 5], I[1, 3]
    i00, i01, i02, i11, i12, i22 = I[0, 0], I[0, 1], I[0, 2], I[1, 1], I[1, 2], I[2, 2]
    r0, r1, r2 = r[0], r[1], r[2]
    g0 = E[0, 0] * h0 + E[1, 0] * h1 + E[2, 0] * h2
    g1 = E[0, 1] * h0 + E[1, 1] * h1 + E[2, 1] * h2
    g2 = E[0, 2] * h0 + E[1, 2] * h1 + E[2, 2] * h2
    rr = r0 * r0 + r1 * r1 + r2 * r2
    rg = r0 * g0 + r1 * g1 + r2 * g2
    diagonal = m * rr + 2.0 * rg
    for b in range(3):
        # column b of Ibar E
        e0, e1, e2 = E[0, b], E[1, b], E[2, b]
        c0 = i00 * e0 + i01 * e1 + i02 * e2
        c1 = i01 * e0 + i11 * e1 + i12 * e2
        c2 = i02 * e0 + i12 * e1 + i22 * e2
        gb = g0 if b == 0 else (g1 if b == 1 else g2)
        rb = r0 if b == 0 else (r1 if b == 1 else r2)
        for a in range(b, 3):
            ga = g0 if a == 0 else (g1 if a == 1 else g2)
            ra = r0 if a == 0 else (r1 if a == 1 else r2)
            v = E[0, a] * c0 + E[1, a] * c1 + E[2, a] * c2 - m * ra * rb - (ga * rb + ra * gb)
            if a == b:
                v += diagonal
                out[a, a] += v
            else:
                out[a, b] += v
                out[b, a] += v
    p0 = g0 + m * r0
    p1 = g1 + m * r1
    p2 = g2 + m * r2
    # hx block (top right) and its transpose (bottom left)
    out[0, 4] -= p2
    out[0, 5] += p1
    out[1, 3] += p2
    out[1, 5] -= p0
    out[2, 3] -= p1
    out[2, 4] += p0
    out[4, 0] -= p2
    out[5, 0] += p1
    out[3, 1] += p2
    out[5, 1] -= p0
    out[3, 2] -= p1
    out[4, 2] += p0
    for a in range(3):
        out[3 + a, 3 + a] += m


@njit(cache=True)
def cross_motion(v, m, out):
    """out = v x m (motion cross product)."""
    out[0] = v[1] * m[2] - v[2] * m[1]
    out[1] = v[2] * m[0] - v[0] * m[2]
    out[2] = v[0] * m[1] - v[1] * m[0]
    out[3] = v[1] * m[5] - v[2] * m[4] + v[4] * m[2] - v[5] * m[1]
    out[4] = v[2] * m[3] - v[0] * m[5] + v[5] * m[0] - v[3] * m[2]
    out[5] = v[0] * m[4] - v[1] * m[3] + v[3] * m[1] - v[4] * m[0]


@njit(cache=True)
def cross_force(v, f, out):
    """out = v x* f (force cross product)."""
    out[0] = v[1] * f[2] - v[2] * f[1] + v[4] * f[5] - v[5] * f[4]
    out[1] = v[2] * f[0] - v[0] * f[2] + v[5] * f[3] - v[3] * f[5]
    out[2] = v[0] * f[1] - v[1] * f[0] + v[3] * f[4] - v[4] * f[3]
    out[3] = v[1] * f[5] - v[2] * f[4]
    out[4] = v[2] * f[3] - v[0] * f[5]
    out[5] = v[0] * f[4] - v[1] * f[3]


@njit(cache=True)
def mat6_vec(A, x, out):
    for a in range(6):
        s = 0.0
        for k in range(6):
            s += A[a, k] * x[k]
        out[a] = s


@njit(cache=True)
def small_inverse(A, n, out):
    """out[:n, :n] = inverse of the symmetric positive-definite A[:n, :n] by Gauss-Jordan."""
    if n == 1:
        out[0, 0] = 1.0 / A[0, 0]
        return
    work = np.empty((6, 12))
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
            out[a, b] = work[a, n + b]
