"""How far a run's loop-closing joints opened. The step holds each loop by projection, but a
mechanism whose loops, couplings and limits cannot all hold at once (SDFormat's PR2 gripper: five
loop hinges and a screw over ten joints) keeps only what it can; the command line reports the
loops that opened instead of leaving the run silent."""
from __future__ import annotations

import numpy as np

from ..model.articulated import LOOP_D6, PRISMATIC, ArticulatedModel
from .packed import pack

#: a loop's anchors farther apart than this [m] at a recorded state: the loop did not hold
#: (the projection closes a loop that can close to 1e-12 m)
OPEN_LOOP = 1e-3


def loop_gaps(model: ArticulatedModel, q: np.ndarray) -> np.ndarray:
    """The largest gap [m] of each loop-closing joint over the states ``q`` [..., nq] (any
    leading axes: samples, envs): the distance between its two anchors along the directions the
    joint locks (all three for a hinge, ball or weld; across the axis for a slider; a D6's
    locked translations, in its frame A). Shape [nloop]."""
    nloop = int(np.asarray(model.loop_type).shape[0])
    gaps = np.zeros(nloop)
    if nloop == 0:
        return gaps
    pm = pack(model)
    q = np.asarray(q, dtype=np.float64)
    # a model without coordinates (its loops close on welded or static bodies) has one pose
    states = q.reshape(-1, model.nq) if model.nq else np.zeros((1, 0))
    for state in states:
        Rw, pw = pm.link_world_poses(np.ascontiguousarray(state))
        for i in range(nloop):
            frames = []
            for side in range(2):
                link = int(model.loop_link[i, side])
                R_local, p_local = model.loop_R_link_frame[i, side], model.loop_p_link_frame[i, side]
                if link < 0:
                    frames.append((R_local, p_local))
                else:
                    frames.append((Rw[link] @ R_local, Rw[link] @ p_local + pw[link]))
            (RA, pA), (_, pB) = frames
            e = pB - pA
            kind = int(model.loop_type[i])
            if kind == PRISMATIC:
                axis = RA @ model.loop_axis[i]
                e = e - np.dot(e, axis) * axis
            elif kind >= LOOP_D6:
                locked = [a for a in range(3) if (kind - LOOP_D6) >> a & 1]
                e = RA[:, locked].T @ e
            gap = float(np.linalg.norm(e))
            if not gap <= gaps[i]:  # NaN too
                gaps[i] = gap
    return gaps


def open_loops(model: ArticulatedModel, q: np.ndarray, tolerance: float | None = None) -> list[tuple[str, float]]:
    """(loop joint path, largest gap [m]) of every loop that opened beyond ``tolerance``
    (OPEN_LOOP when None) over the states ``q`` (see loop_gaps)."""
    tolerance = OPEN_LOOP if tolerance is None else tolerance
    gaps = loop_gaps(model, q)
    return [(name, float(gap)) for name, gap in zip(model.loop_names, gaps) if not gap <= tolerance]
