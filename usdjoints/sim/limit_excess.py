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
    PAST_ANGLE or PAST_LENGTH at some recorded state after the first (for a dof that starts
    outside its limits: after it first came back, or at the end if it never did); worst first. ``q``
    [..., T, nq] (envs may lead), ``t`` [T] the recorded times."""
    if not model.nv:
        return []
    states = np.asarray(q, dtype=np.float64)
    states = states.reshape(-1, states.shape[-2], model.nq)  # [env, T, nq]
    times = np.asarray(t, dtype=np.float64)
    if states.shape[1] < 2:
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
        bound = PAST_LENGTH if linear[k] else PAST_ANGLE
        past = _after_return(past, bound)
        worst = np.unravel_index(int(np.argmax(past)), past.shape)
        value = float(past[worst])
        if value > bound:
            found.append((dof_label(model, k), value * 1e3 if linear[k] else math.degrees(value),
                          "mm" if linear[k] else "deg", float(times[worst[1]])))
    found.sort(key=lambda item: -item[1])
    return found


def _after_return(past: np.ndarray, bound: float) -> np.ndarray:
    """``past`` [env, T] (a dof's distance past its limits at each recorded state) with the
    states that do not count set to 0: the start, and for a dof that starts outside its limits,
    every state until it first comes within ``bound`` of them (the step brings it back, at most
    correction.MAX_CORRECTION_TURN a step: menagerie's Cassie starts 50 deg outside); one that never
    comes back counts at its last state only."""
    counted = past.copy()
    counted[:, 0] = 0.0
    for env in np.flatnonzero(past[:, 0] > bound):
        within = np.flatnonzero(past[env] <= bound)
        if within.size:
            counted[env, :within[0]] = 0.0
        else:
            counted[env, :-1] = 0.0
    return counted
