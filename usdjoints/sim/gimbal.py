"""Gimbal lock of a D6 joint's three rotations, for the divergence message.

The model turns a D6 joint's free rotations as hinges in a row, rotX, rotY, rotZ (model/build.py;
reversed when body0 is the child). With all three free, the first and last hinge axes line up
when rotY is at +-90 degrees: the map from the hinge rates to the body's angular velocity loses
rank there, so a body turning near that pose needs hinge rates without bound (a torque-free body
spinning at 20 rad/s passes 1000 rad/s there). A run that diverges with such a joint near that
pose in its last steps is told so, and how to avoid it, instead of the masses-and-gains hint.
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

ROTATIONS = ("rotX", "rotY", "rotZ")
#: |cos(rotY)| below this (rotY within 30 degrees of +-90: the hinge rates at least twice the
#: body's angular velocity) counts as near the lock. A torque-free body started at 20 rad/s
#: about rotY with 3 rad/s about rotX never passes 76 degrees, and its semi-implicit Euler steps
#: still gain energy at each pass until the rates pass 1000 rad/s (0.72 s at dt = 1 ms).
LOCKED_COS = 0.5
#: the states before the failing step that are looked at
LAST_STATES = 20


def locking_joints(model) -> list[tuple[str, int]]:
    """(joint name, q index of its rotY) of every D6 joint whose three rotations are all free."""
    found = []
    for j, axes in enumerate(model.joint_dof_axes):
        if model.joint_types[j] != "d6" or not set(ROTATIONS) <= set(axes):
            continue
        dof = int(model.joint_v_start[j]) + list(axes).index("rotY")
        found.append((model.joint_names[j], int(model.dof_q_index[dof])))
    return found


def locked_joint(model, q_rows: np.ndarray) -> Optional[tuple[str, float]]:
    """(joint name, rotY [deg]) of a D6 joint near its lock in the last finite rows of q_rows
    [n, nq] (the states up to a divergence), or None."""
    joints = locking_joints(model)
    rows = [row for row in np.asarray(q_rows, dtype=float) if np.isfinite(row).all()][-LAST_STATES:]
    best = None
    for name, index in joints:
        for row in rows:
            angle = float(row[index])
            if abs(math.cos(angle)) < LOCKED_COS and (best is None or abs(math.cos(angle)) < best[2]):
                wrapped = math.degrees(math.remainder(angle, 2.0 * math.pi))
                best = (name, wrapped, abs(math.cos(angle)))
    return None if best is None else best[:2]


def hint(name: str, degrees: float) -> str:
    return (f"{name!r} turns its three rotations as hinges rotX, rotY, rotZ in a row, which lock at "
            f"rotY = +-90 deg, and rotY was at {degrees:.1f} deg: near the lock the hinge rates grow "
            "far beyond the body's turning and the step gains energy, at any dt; keep rotY well "
            "inside +-90 deg with a limit, or use a spherical joint (its rotation has no such lock)")
