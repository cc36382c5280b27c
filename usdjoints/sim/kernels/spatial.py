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
def transform_matrix(E, r, X_out):
    """The 6x6 motion transform matrix of (E, r)."""
    for a in range(6):
        for b in range(6):
            X_out[a, b] = 0.0
    for a in range(3):
        for b in range(3):
            X_out[a, b] = E[a, b]
            X_out[3 + a, 3 + b] = E[a, b]
    # lower-left block: -E rx
    for a in range(3):
        X_out[3 + a, 0] = -(E[a, 1] * r[2] - E[a, 2] * r[1])
        X_out[3 + a, 1] = -(E[a, 2] * r[0] - E[a, 0] * r[2])
        X_out[3 + a, 2] = -(E[a, 0] * r[1] - E[a, 1] * r[0])


@njit(cache=True)
def congruence_add(X, I, work, out):
    """out += X^T I X for a 6x6 X and symmetric I (work: 6x6 scratch)."""
    for a in range(6):
        for b in range(6):
            s = 0.0
            for k in range(6):
                s += I[a, k] * X[k, b]
            work[a, b] = s
    for a in range(6):
        for b in range(a, 6):
            s = 0.0
            for k in range(6):
                s += X[k, a] * work[k, b]
            out[a, b] += s
            if b != a:
                out[b, a] += s


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
