"""Rotation conversions shared by the model builder: quaternions are (w, x, y, z)."""
from __future__ import annotations

import math

import numpy as np


def quat_to_matrix(q) -> np.ndarray:
    """Rotation matrix of a quaternion (w, x, y, z), normalised first."""
    w, x, y, z = (float(c) for c in q)
    n = math.sqrt(w * w + x * x + y * y + z * z) or 1.0
    w, x, y, z = w / n, x / n, y / n, z / n
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def matrix_to_quat(R: np.ndarray) -> np.ndarray:
    """Unit quaternion (w, x, y, z) of a rotation matrix, w >= 0."""
    trace = float(np.trace(R))
    if trace > 0.0:
        s = math.sqrt(trace + 1.0) * 2.0
        q = np.array([0.25 * s, (R[2, 1] - R[1, 2]) / s, (R[0, 2] - R[2, 0]) / s, (R[1, 0] - R[0, 1]) / s])
    else:
        i = int(np.argmax(np.diag(R)))
        j, k = (i + 1) % 3, (i + 2) % 3
        s = math.sqrt(max(1.0 + R[i, i] - R[j, j] - R[k, k], 0.0)) * 2.0
        q = np.zeros(4)
        q[0] = (R[k, j] - R[j, k]) / s
        q[1 + i] = 0.25 * s
        q[1 + j] = (R[j, i] + R[i, j]) / s
        q[1 + k] = (R[k, i] + R[i, k]) / s
    q = q / np.linalg.norm(q)
    return -q if q[0] < 0.0 else q


def angle_about(R: np.ndarray, axis: np.ndarray) -> float:
    """The rotation angle [rad] of ``R`` about unit ``axis``, in (-pi, pi]."""
    q = matrix_to_quat(R)
    return 2.0 * math.atan2(float(q[1:] @ axis), float(q[0]))


def intrinsic_xyz_angles(R: np.ndarray) -> np.ndarray:
    """Angles (a, b, c) [rad] with R = Rx(a) Ry(b) Rz(c)."""
    b = math.asin(max(-1.0, min(1.0, float(R[0, 2]))))
    a = math.atan2(-float(R[1, 2]), float(R[2, 2]))
    c = math.atan2(-float(R[0, 1]), float(R[0, 0]))
    return np.array([a, b, c])


def intrinsic_xyz_matrix(angles) -> np.ndarray:
    """R = Rx(a) Ry(b) Rz(c) for angles (a, b, c) [rad]: the inverse of intrinsic_xyz_angles."""
    R = np.eye(3)
    for k, angle in enumerate(angles):
        c, s = math.cos(angle), math.sin(angle)
        turn = np.eye(3)
        i, j = [(1, 2), (2, 0), (0, 1)][k]
        turn[i, i], turn[i, j], turn[j, i], turn[j, j] = c, -s, s, c
        R = R @ turn
    return R
