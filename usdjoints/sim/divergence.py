"""What a blown-up run tells the user: the speeds past which a state counts as diverged, and the
message naming the joint or body, the time and a hint that fits the case.

The bounds come from the run's own numbers (start and target speeds, free fall over the duration,
drives' and springs' natural frequencies times their stretch), never below floors far above what
a robot reaches, so a divergence stops a run within a few steps of leaving the stage's scale.

Gimbal lock: the model turns a D6 joint's free rotations as hinges in a row, rotX, rotY, rotZ
(model/build.py; reversed when body0 is the child). With all three free, the first and last hinge
axes line up when rotY is at +-90 degrees: the map from the hinge rates to the body's angular
velocity loses rank there, so a body turning near that pose needs hinge rates without bound (a
torque-free body spinning at 20 rad/s passes 1000 rad/s there). A run that diverges with such a
joint near that pose in its last steps is told so, and how to avoid it, instead of the
masses-and-gains hint.
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from ..model.articulated import (
    BOUND_ANGLE, BOUND_CONE, BOUND_DISTANCE, DRIVE_FORCE, DRIVE_NONE, FREE, PRISMATIC, ROW_DRIVE_STIFFNESS,
    ROW_DRIVE_TARGET_POSITION, ROW_DRIVE_TARGET_VELOCITY, ROW_DRIVE_TYPE, ArticulatedModel,
)

# Divergence: a speed past these bounds is not motion but a blown-up state. The floors sit far
# above what a robot reaches (100 m/s, 1000 rad/s); a run whose own numbers go faster (free fall
# over a long duration, fast initial or target speeds) gets ten times those instead.
DIVERGENCE_LINEAR_FLOOR = 100.0  # [m/s]
DIVERGENCE_ANGULAR_FLOOR = 1000.0  # [rad/s]
DIVERGENCE_FACTOR = 10.0


def dof_is_linear(model: ArticulatedModel) -> np.ndarray:
    linear = np.zeros(model.nv, dtype=bool)
    for i in range(model.nlink):
        kind, start = int(model.link_type[i]), int(model.link_v_start[i])
        if kind == PRISMATIC:
            linear[start] = True
        elif kind == FREE:
            linear[start:start + 3] = True
    return linear


def mass_diagonal(model: ArticulatedModel, q: np.ndarray) -> np.ndarray:
    """diag M(q) with armature, in numpy (model.kinematics; it matches the crba kernel to
    round-off): simulate's checks before the run read only the diagonal, and compiling crba for
    them alone was a tenth of simulate's first compile."""
    from ..model.kinematics import mass_matrix_diagonal

    return mass_matrix_diagonal(model, q)


def bounds(model: ArticulatedModel, duration: float, q0: np.ndarray, qd0: np.ndarray) -> tuple[float, float]:
    """(linear [m/s], angular [rad/s]) speeds past which simulate reports a divergence: ten times
    the fastest speed the run's own numbers imply (initial and target speeds, free fall over the
    duration, a spring or position drive's natural frequency times its initial stretch, the same
    of the drives of loop-closing hinges and sliders, _row_reach), and never below the floors."""
    linear = dof_is_linear(model)
    if not model.nv:
        return DIVERGENCE_LINEAR_FLOOR, DIVERGENCE_ANGULAR_FLOOR
    qd0 = np.asarray(qd0).reshape(-1, model.nv)
    q0 = np.asarray(q0).reshape(-1, model.nq)
    reach = np.abs(qd0).max(axis=0)
    driven = np.asarray(model.dof_drive_type) > 0
    reach = np.maximum(reach, np.abs(np.where(driven, model.dof_drive_target_velocity, 0.0)))
    scalar, _ = model.dof_positions(q0[0])
    if scalar.any():
        inertia = np.maximum(mass_diagonal(model, q0[0]), 1e-300)
        x = model.dof_positions(q0)[1]
        kp = np.where(driven, model.dof_drive_stiffness, 0.0)
        kp = np.where(np.asarray(model.dof_drive_type) == 1, kp / inertia, kp)  # acceleration: per inertia
        stretch = np.abs(np.where(driven, model.dof_drive_target_position, 0.0) - x).max(axis=0)
        spring = np.abs(model.dof_spring_ref - x).max(axis=0)
        implied = np.sqrt(np.abs(kp)) * stretch + np.sqrt(np.abs(model.dof_stiffness) / inertia) * spring
        reach = np.maximum(reach, np.where(scalar, implied, 0.0))
    fall = float(np.linalg.norm(model.gravity)) * duration
    row_along, row_turning = _row_reach(model, q0[0])
    turning = max(float(reach[~linear].max(initial=0.0)), row_turning)
    # a turn at that rate moves the model's points (and a free or D6 base's coordinates, which
    # follow its frame round a centre of mass away from it) at up to rate x lever arm
    along = max(float(reach[linear].max(initial=0.0)), row_along) + turning * _lever_arm(model, q0[0])
    v = max(DIVERGENCE_LINEAR_FLOOR, DIVERGENCE_FACTOR * (fall + along))
    w = max(DIVERGENCE_ANGULAR_FLOOR, DIVERGENCE_FACTOR * turning)
    return v, w


def _row_reach(model: ArticulatedModel, q: np.ndarray) -> tuple[float, float]:
    """(linear [m/s], angular [rad/s]): the fastest speed a drive of a loop-closing slider or
    hinge (a bound row, model.distance_*) implies, its target speed or its natural frequency
    times its initial stretch. An acceleration drive's frequency is sqrt(kp) (PhysX scales its
    gains by the row's inertia); a force drive's is sqrt(kp / m) with m the row's inertia seen
    from its two links as free bodies (_free_response), which the rest of the articulation only
    adds to: an upper bound on the frequency."""
    linear, angular = 0.0, 0.0
    drives = np.asarray(model.distance_drive, dtype=float).reshape(-1, 6)
    if not drives.shape[0] or not (drives[:, ROW_DRIVE_TYPE] != DRIVE_NONE).any():
        return linear, angular
    from ..model.kinematics import link_world_poses

    R, p = link_world_poses(model, q)
    for j in range(drives.shape[0]):
        kind, drive = int(model.distance_kind[j]), drives[j]
        if int(drive[ROW_DRIVE_TYPE]) == DRIVE_NONE or kind in (BOUND_DISTANCE, BOUND_CONE):
            continue
        ends, axes, response = [], [], 0.0
        for side in range(2):
            link = int(model.distance_link[j, side])
            anchor = np.asarray(model.distance_p_link_frame[j, side], dtype=float)
            frame = np.asarray(model.distance_R_link_frame[j, side], dtype=float)
            ends.append(anchor if link < 0 else p[link] + R[link] @ anchor)
            axes.append(frame if link < 0 else R[link] @ frame)
        axis = axes[0][:, 0]
        angular_row = kind == BOUND_ANGLE
        for side in range(2):
            link = int(model.distance_link[j, side])
            if link >= 0:
                response += _free_response(model, link, R[link], p[link], ends[side], axis, angular_row)
        if angular_row:
            value = math.atan2(float(axes[0][:, 2] @ axes[1][:, 1]), float(axes[0][:, 1] @ axes[1][:, 1]))
        else:
            value = float(axis @ (ends[1] - ends[0]))
        kp = abs(float(drive[ROW_DRIVE_STIFFNESS]))
        if int(drive[ROW_DRIVE_TYPE]) == DRIVE_FORCE:
            kp *= response
        stretch = abs(float(drive[ROW_DRIVE_TARGET_POSITION]) - value)
        speed = abs(float(drive[ROW_DRIVE_TARGET_VELOCITY])) + math.sqrt(kp) * stretch
        if not math.isfinite(speed):
            continue  # a link with no inertia on the row: no bound from it
        if angular_row:
            angular = max(angular, speed)
        else:
            linear = max(linear, speed)
    return linear, angular


def _free_response(model: ArticulatedModel, link: int, R: np.ndarray, p: np.ndarray, anchor: np.ndarray,
                   axis: np.ndarray, angular: bool) -> float:
    """The inverse inertia [1/kg | 1/(kg m^2)] that ``link`` alone, as a free body, shows to a
    unit force along ``axis`` at ``anchor`` (or a unit torque about it), world coordinates: inf
    when it has no mass or no inertia. The step's kernels compute the same in
    kernels/bound_rows._free_inertia; this check runs before any kernel is compiled, so it is
    numpy (as mass_diagonal is)."""
    mass = float(model.link_mass[link])
    centre = p + R @ np.asarray(model.link_com[link], dtype=float)
    inertia = R @ np.asarray(model.link_inertia[link], dtype=float) @ R.T
    torque = axis if angular else np.cross(anchor - centre, axis)
    if not mass > 0.0:
        return math.inf
    try:
        turn = float(torque @ np.linalg.solve(inertia, torque)) if torque @ torque > 0.0 else 0.0
    except np.linalg.LinAlgError:
        return math.inf
    return turn if angular else 1.0 / mass + turn


def _lever_arm(model: ArticulatedModel, q: np.ndarray) -> float:
    """Twice the largest distance [m] of a link origin or centre of mass from its tree's root
    link origin at q: a bound on the distance between two points of one tree."""
    from ..model.kinematics import link_world_poses

    R, p = link_world_poses(model, q)
    root = np.arange(model.nlink)
    for i in range(model.nlink):
        parent = int(model.link_parent[i])
        if parent >= 0:
            root[i] = root[parent]
    com = p + np.einsum("nij,nj->ni", R, np.asarray(model.link_com, dtype=float).reshape(-1, 3))
    reach = np.concatenate([np.linalg.norm(p - p[root], axis=1), np.linalg.norm(com - p[root], axis=1)])
    return 2.0 * float(reach.max(initial=0.0))


_AXIS = "xyz"


def dof_label(model: ArticulatedModel, dof: int) -> str:
    """What a user knows the dof by: a free base is its body, a multi-dof joint's dof a component."""
    j = int(model.dof_joint[dof])
    name, kind, k = model.joint_names[j], model.joint_types[j], dof - int(model.joint_v_start[j])
    if kind == "free":
        part = "linear" if k < 3 else "angular"
        return f"body {name!r} (free base, {part} velocity {_AXIS[k % 3]})"
    if kind == "spherical":
        return f"joint {name!r} (spherical, angular velocity {_AXIS[k]})"
    if int(model.joint_nv[j]) > 1:
        return f"joint {name!r} (dof {k})"
    return f"joint {name!r}"


def fast_start(model: ArticulatedModel, duration: float, q0: np.ndarray,
               qd0: np.ndarray) -> Optional[tuple[int, float]]:
    """(dof, speed [m/s | rad/s]) of the initial velocity (qd0 [nv], one env's) furthest past
    the bounds the run would have with every initial velocity zero, i.e. past ten times every
    speed its gravity, drives and springs imply; None when none is past them."""
    qd0 = np.asarray(qd0, dtype=float).reshape(-1)
    if not model.nv or not np.isfinite(qd0).all():
        return None
    v, w = bounds(model, duration, q0, np.zeros_like(qd0))
    over = np.abs(qd0) / np.where(dof_is_linear(model), v, w)
    k = int(np.argmax(over))
    return (k, float(qd0[k])) if over[k] > 1.0 else None


def fast_start_hint(model: ArticulatedModel, dof: int, speed: float) -> str:
    if dof_is_linear(model)[dof]:
        value = f"{speed:.3g} m/s"
    else:
        value = f"{speed:.3g} rad/s ({math.degrees(speed):.3g} deg/s)"
    return (f"the run starts with {dof_label(model, dof)} at {value}, more than ten times any speed "
            "the stage's gravity, drives and springs imply: check the authored initial velocities "
            "(physics:velocity, physics:angularVelocity, the joint state's velocity)")


def message(model, dof: int, time: float, integrator: str, speed_bounds, env: str, locked=None,
            fast=None) -> str:
    """The divergence message; ``locked`` = (joint, rotY [deg]) from locked_joint, or None;
    ``fast`` = (dof, speed) from fast_start, or None."""
    linear = bool(dof_is_linear(model)[dof])
    bound = f"{speed_bounds[0]:.3g} m/s" if linear else f"{speed_bounds[1]:.3g} rad/s"
    if locked is not None:
        hint = lock_hint(*locked)
    elif fast is not None:
        hint = fast_start_hint(model, *fast)
    elif integrator == "rk4":
        hint = ("RK4 treats drives, springs and limits explicitly: use the euler integrator (implicit "
                "there) or a smaller dt")
    else:
        hint = ("check the masses and inertias near it (a link far lighter than the gains or contacts "
                "acting on it), its limits and gains, or reduce dt")
    return (f"{dof_label(model, dof)} diverged at t = {time:.6g} s{env}: its velocity became "
            f"non-finite or passed {bound}, far beyond this stage's motion; {hint}")


ROTATIONS = ("rotX", "rotY", "rotZ")
#: |cos(rotY)| below this (rotY within 30 degrees of +-90: the hinge rates at least twice the
#: body's angular velocity) counts as near the lock. A torque-free body started at 20 rad/s
#: about rotY with 3 rad/s about rotX never passes 76 degrees, and its semi-implicit Euler steps
#: still gain energy at each pass until the rates pass 1000 rad/s (0.72 s at dt = 1 ms).
LOCKED_COS = 0.5
#: the states before the failing step that are looked at
LAST_STATES = 20


def locking_joints(model) -> list[tuple[str, int]]:
    """(joint name, q index of its rotY) of every D6 joint turning its three rotations as hinges
    in a row (ModelBuilder's d6_axes with all three and no d6_ball; a stage's D6 turns them as a
    ball)."""
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


def lock_hint(name: str, degrees: float) -> str:
    return (f"{name!r} turns its three rotations as hinges rotX, rotY, rotZ in a row, which lock at "
            f"rotY = +-90 deg, and rotY was at {degrees:.1f} deg: near the lock the hinge rates grow "
            "far beyond the body's turning and the step gains energy, at any dt; keep rotY well "
            "inside +-90 deg with a limit, or use a spherical joint (its rotation has no such lock)")
