"""The joint primitives, in one place: their codes, their coordinate and velocity counts, and their
motion subspaces. Plain Python and numpy: the model builder reads it, and the simulator's
kernels (usdjoints/sim/kernels/jcalc.py) read the same tables.

A free joint's velocity is its linear velocity in the moving frame first, then its angular
velocity (pinocchio's order); a spherical joint's is its angular velocity in the moving frame.
"""
from __future__ import annotations

import numpy as np

REVOLUTE = 0
PRISMATIC = 1
SPHERICAL = 2
FREE = 3
PRIMITIVE_NAMES = ("revolute", "prismatic", "spherical", "free")
PRIMITIVE_NQ = (1, 1, 4, 7)  # a spherical joint's quaternion (w, x, y, z); a free joint's position, then its quaternion
PRIMITIVE_NV = (1, 1, 3, 6)


def motion_subspace(kind: int, axis: np.ndarray, E: np.ndarray, r: np.ndarray) -> np.ndarray:
    """S [6, 6] of a primitive in the coordinates of a link whose moving frame has rotation ``E``
    (moving-frame coordinates to link coordinates) and origin ``r`` [m] in the link: spatial rows
    (angular, linear), one column per velocity (the first PRIMITIVE_NV[kind], the rest zero).
    ``axis`` is a revolute or prismatic joint's unit axis in the moving frame."""
    if kind == REVOLUTE:
        angular, linear = [axis], []
    elif kind == PRISMATIC:
        angular, linear = [], [axis]
    elif kind == SPHERICAL:
        angular, linear = list(np.eye(3)), []
    else:
        angular, linear = list(np.eye(3)), list(np.eye(3))
    S = np.zeros((6, 6))
    column = 0
    for a in linear:
        S[3:, column] = E @ a
        column += 1
    for a in angular:
        S[:3, column] = E @ a
        S[3:, column] = E @ (-np.cross(r, a))
        column += 1
    return S
