"""Mass properties of rigidly attached bodies: how a fixed joint disappears from the tree."""
from __future__ import annotations

import numpy as np


def merge_rigidly_attached(mass_a: float, com_a, inertia_a, mass_b: float, com_b, inertia_b,
                           R_a_b, p_a_b) -> tuple[float, np.ndarray, np.ndarray]:
    """Mass properties of body ``a`` with body ``b`` welded to it, in ``a``'s frame.

    ``com_*`` [m] are in each body's own frame, ``inertia_*`` [kg m^2] about each com in that
    body's axes; ``(R_a_b, p_a_b)`` places ``b`` in ``a``. Returns (mass [kg], com [m] in ``a``,
    inertia [kg m^2] about the combined com in ``a``'s axes), by the parallel-axis theorem.
    """
    R_a_b = np.asarray(R_a_b, dtype=float)
    com_b_in_a = R_a_b @ np.asarray(com_b, dtype=float) + np.asarray(p_a_b, dtype=float)
    com_a = np.asarray(com_a, dtype=float)
    mass = float(mass_a) + float(mass_b)
    if mass <= 0.0:
        return 0.0, np.zeros(3), np.zeros((3, 3))
    com = (mass_a * com_a + mass_b * com_b_in_a) / mass
    inertia = (np.asarray(inertia_a, dtype=float) + _shift(mass_a, com_a - com)
               + R_a_b @ np.asarray(inertia_b, dtype=float) @ R_a_b.T + _shift(mass_b, com_b_in_a - com))
    return mass, com, inertia


def _shift(mass: float, d: np.ndarray) -> np.ndarray:
    """Parallel-axis term: inertia of a point mass ``mass`` at offset ``d`` [kg m^2]."""
    return mass * (float(d @ d) * np.eye(3) - np.outer(d, d))
