"""Principal axes and moments of an inertia tensor, as PhysicsMassAPI stores them."""
from __future__ import annotations

import math

import numpy as np

from .ir import Inertia, Quat


def inertia_matrix(inertia: Inertia) -> np.ndarray:
    """The symmetric 3x3 tensor [kg·m²]."""
    return np.array([
        [inertia.ixx, inertia.ixy, inertia.ixz],
        [inertia.ixy, inertia.iyy, inertia.iyz],
        [inertia.ixz, inertia.iyz, inertia.izz],
    ])


def principal_axes(tensor: np.ndarray) -> tuple[tuple[float, float, float], Quat]:
    """Eigen-decomposition ``tensor = R · diag(moments) · Rᵀ`` with R a proper rotation.

    Returns the moments [kg·m²] and R as a quaternion (w, x, y, z). An eigenvector matrix may
    be a reflection (det -1); flipping one column makes it a rotation without changing the tensor.
    """
    moments, vectors = np.linalg.eigh(tensor)
    if np.linalg.det(vectors) < 0.0:
        vectors[:, 2] = -vectors[:, 2]
    return tuple(float(m) for m in moments), matrix_to_quat(vectors)


def matrix_to_quat(rotation: np.ndarray) -> Quat:
    """A proper rotation matrix -> unit quaternion (w, x, y, z), numerically stable branch choice."""
    m = rotation
    trace = m[0, 0] + m[1, 1] + m[2, 2]
    if trace > 0.0:
        s = 2.0 * math.sqrt(1.0 + trace)
        q = (0.25 * s, (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s)
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = 2.0 * math.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2])
        q = ((m[2, 1] - m[1, 2]) / s, 0.25 * s, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s)
    elif m[1, 1] > m[2, 2]:
        s = 2.0 * math.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2])
        q = ((m[0, 2] - m[2, 0]) / s, (m[0, 1] + m[1, 0]) / s, 0.25 * s, (m[1, 2] + m[2, 1]) / s)
    else:
        s = 2.0 * math.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1])
        q = ((m[1, 0] - m[0, 1]) / s, (m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, 0.25 * s)
    norm = math.sqrt(sum(v * v for v in q))
    return tuple(float(v / norm) for v in q)


def quat_to_matrix(q: Quat) -> np.ndarray:
    w, x, y, z = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])

