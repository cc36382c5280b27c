"""How far a run's joints went past their hard limits. The step holds every limit it can (a
limit driven at full effort stays within 0.5 deg), but a mechanism whose loops, couplings,
contacts and limits cannot all hold at once keeps only what it can (a converted MJCF rodent ended
34 deg past a limit). The command line reports such joints instead of leaving the run silent.
"""
from __future__ import annotations

import math

import numpy as np

from ..model.articulated import ArticulatedModel
from .divergence import dof_is_linear, dof_label

#: past a hard limit by more than this at a recorded state (after the start, which the first
#: step brings back), the limit did not hold: the simulator's own bound on a held limit
PAST_ANGLE = math.radians(0.5)  # [rad]
PAST_LENGTH = 0.5e-3  # [m]
#: the joints the command line names one by one (worst first); the rest are counted
SHOWN_LIMITS_PASSED = 5


def limits_passed(model: ArticulatedModel, q: np.ndarray,
                   t: np.ndarray) -> list[tuple[str, float, str, float]]:
    """(dof label, largest distance past its hard limit, its unit "deg" or "mm", time [s]) of
    each hinge or slider dof that went past a hard limit (no soft-limit spring) by more than
    PAST_ANGLE or PAST_LENGTH at some recorded state after the first; worst first. ``q``
    [..., T, nq] (envs may lead), ``t`` [T] the recorded times."""
    if not model.nv:
        return []
    states = np.asarray(q, dtype=np.float64)
    states = states.reshape(-1, states.shape[-2], model.nq)[:, 1:]  # [env, T - 1, nq]
    times = np.asarray(t, dtype=np.float64)[1:]
    if not states.shape[1]:
        return []
    linear = dof_is_linear(model)
    found = []
    for k in range(model.nv):
        index = int(model.dof_q_index[k])
        lower, upper = float(model.dof_lower[k]), float(model.dof_upper[k])
        soft = float(model.dof_limit_stiffness[k]) != 0.0
        if index < 0 or soft or (lower == -math.inf and upper == math.inf):
            continue
        x = states[:, :, index]
        with np.errstate(invalid="ignore"):
            past = np.maximum(np.maximum(lower - x, x - upper), 0.0)
        worst = np.unravel_index(int(np.argmax(past)), past.shape)
        value = float(past[worst])
        if value > (PAST_LENGTH if linear[k] else PAST_ANGLE):
            found.append((dof_label(model, k), value * 1e3 if linear[k] else math.degrees(value),
                          "mm" if linear[k] else "deg", float(times[worst[1]])))
    found.sort(key=lambda item: -item[1])
    return found
