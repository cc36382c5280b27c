"""Trajectory: the recorded result of a simulation run."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class Trajectory:
    """Recorded states. With ``n_envs > 1`` every state array gains a leading env axis.

    t [T] [s]; q [T, nq]; qd [T, nv]; body_poses [T, nbody, 7] (position [m], quaternion w x y z
    in world coordinates); joint_names / q_start / v_start per joint; body_names per body.
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    body_poses: np.ndarray
    joint_names: tuple[str, ...]
    q_start: np.ndarray
    v_start: np.ndarray
    body_names: tuple[str, ...]
    n_envs: int
