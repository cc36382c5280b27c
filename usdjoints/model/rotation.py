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


def quat_to_rotation_vector(q) -> np.ndarray:
    """Rotation vector [rad] (angle times unit axis, angle in [0, pi]) of quaternions (w, x, y, z)
    [..., 4]: the shorter of the two rotations each names, [..., 3]. The numpy twin of the
    simulator's kernels/jcalc.ball_coordinate."""
    q = np.asarray(q, dtype=float)
    q = np.where(q[..., :1] < 0.0, -q, q)
    w, xyz = q[..., 0], q[..., 1:]
    s = np.linalg.norm(xyz, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(s < 1e-12, np.where(w > 0.0, 2.0 / w, 0.0), 2.0 * np.arctan2(s, w) / s)
    return xyz * scale[..., None]


def rotation_vector_to_quat(v) -> np.ndarray:
    """Unit quaternion (w, x, y, z) of the rotation by |v| [rad] about v / |v|."""
    v = np.asarray(v, dtype=float).reshape(3)
    angle = float(np.linalg.norm(v))
    if angle < 1e-12:
        return np.array([1.0, 0.5 * v[0], 0.5 * v[1], 0.5 * v[2]]) / math.sqrt(1.0 + 0.25 * angle * angle)
    return np.concatenate([[math.cos(0.5 * angle)], v / angle * math.sin(0.5 * angle)])
