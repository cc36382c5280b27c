"""Couplings, loop closures and distance joints: the joints that are not edges of the tree, as
model arrays.

Couplings are written in the units PhysX states them in, so each row reads like its column:

* rack and pinion: pinion rate [deg/s] = ratio [deg / stage length] x rack rate [length/s], i.e.
  ``(180/pi) w - ratio v / mpu = 0``. A ratio of 0 leaves ``w = 0``: the pinion is locked and the
  rack free, which is what PhysX does with it (its rack never moves and the pinion's velocity
  stays 0, measured with ovphysx 0.7).
* gear: ``w1 + gearRatio w0 = 0`` (the second hinge turns at -gearRatio times the first; ratio 0
  locks the second hinge, as in PhysX).
* mimic (PhysxMimicJointAPI): ``q_follower + gearing q_reference + offset = 0`` with positions in
  USD units (degrees, stage lengths).

Rack and gear rows hold at the initial configuration (their offset is chosen so), as PhysX
starts them; a mimic row carries its authored offset and the initial state is projected onto it.
A coupling PhysX would not create (a missing relationship) is not created here either. A ratio,
gearing or offset that is not finite (in SI units) is refused naming its joint, as a drive's gains
are (builder._check_finite): the solve would otherwise diverge on its first step, or, for an
offset, quietly run without it.
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from ..descriptors import Diagnostic, JointDesc, StageDescription
from ..errors import InputError, UnsupportedFeature
from .. import units
from .articulated import (
    BOUND_ANGLE, BOUND_CONE, BOUND_DISTANCE, BOUND_SLIDE, DRIVE_TYPES, LOOP_D6, LOOP_TYPES, ROW_DRIVE_COLUMNS,
    ROW_DRIVE_DAMPING, ROW_DRIVE_MAX_FORCE, ROW_DRIVE_STIFFNESS, ROW_DRIVE_TARGET_POSITION,
    ROW_DRIVE_TARGET_VELOCITY, ROW_DRIVE_TYPE,
)
from .drives import drive_si
from .forest import ranges
from .rotation import quat_to_matrix

_AXES = {"X": 0, "Y": 1, "Z": 2}
_D6 = ("transX", "transY", "transZ", "rotX", "rotY", "rotZ")


def _dof(model, joint: Optional[str], axis: Optional[str], description: StageDescription):
    """(dof index, USD units per SI unit) of a scalar coordinate of ``joint``, or None."""
    j = model.joint_positions.get(joint) if joint is not None else None
    if j is None:
        return None
    kind = model.joint_types[j]
    start, n = int(model.joint_v_start[j]), int(model.joint_nv[j])
    if kind in ("revolute", "prismatic"):
        return start, (180.0 / math.pi if kind == "revolute" else 1.0 / _mpu(description))
    if kind == "d6" and axis in _D6:
        free = list(model.joint_dof_axes[j])  # the model's dof order (reversed when body0 is the child)
        if axis in free and len(free) == n:
            rotational = axis.startswith("rot")
            return start + free.index(axis), (180.0 / math.pi if rotational else 1.0 / _mpu(description))
    return None


def _mpu(description: StageDescription) -> float:
    return float(description.units.meters_per_unit.value)


def coupling_arrays(model, description: StageDescription):
    """(names, dof [n, 2], coeff [n, 2], offset [n], diagnostics) for every coupling it can build."""
    names, dofs, coeffs, offsets, notes = [], [], [], [], []
    q0 = np.asarray(model.q_initial)

    def drop(path, why):
        notes.append(Diagnostic("warning", path, f"coupling not created: {why}", "coupling-not-created"))

    for joint in description.joints:
        if not joint.enabled:
            continue
        c = joint.coupling
        if joint.type == "rack_and_pinion" and c is not None:
            if c.hinge is None or c.prismatic is None:
                drop(joint.path, "physics:hinge or physics:prismatic is missing (PhysX creates no joint)")
                continue
            a, b = _dof(model, c.hinge, None, description), _dof(model, c.prismatic, None, description)
            if a is None or b is None or model.joint_types[model.joint_index(c.hinge)] != "revolute" \
                    or model.joint_types[model.joint_index(c.prismatic)] != "prismatic":
                drop(joint.path, "its hinge must be a simulated revolute joint and its prismatic a prismatic one")
                continue
            rows = [(a[0], a[1]), (b[0], -c.ratio * b[1])]
        elif joint.type == "gear" and c is not None:
            if c.hinge0 is None or c.hinge1 is None:
                drop(joint.path, "physics:hinge0 or physics:hinge1 is missing (PhysX creates no gear)")
                continue
            a, b = _dof(model, c.hinge0, None, description), _dof(model, c.hinge1, None, description)
            if a is None or b is None or model.joint_types[model.joint_index(c.hinge0)] != "revolute" \
                    or model.joint_types[model.joint_index(c.hinge1)] != "revolute":
                drop(joint.path, "both hinges must be simulated revolute joints")
                continue
            rows = [(a[0], c.ratio), (b[0], 1.0)]
        else:
            rows = None
        if rows is not None:
            (d0, k0), (d1, k1) = rows
            _check_finite(joint.path, {"ratio": c.ratio, "ratio in SI units": k0 * k1})
            names.append(joint.path)
            dofs.append((d0, d1))
            coeffs.append((k0, k1))
            offsets.append(-(k0 * q0[model.dof_q_index[d0]] + k1 * q0[model.dof_q_index[d1]]))
            continue
        for mimic in joint.mimics:
            follower = _dof(model, joint.path, mimic.dof, description)
            reference = _dof(model, mimic.reference, mimic.reference_dof, description)
            if mimic.reference is None or follower is None or reference is None:
                drop(joint.path, f"PhysxMimicJointAPI:{mimic.dof} needs a simulated scalar joint and "
                                 "reference joint")
                continue
            _check_finite(joint.path, {f"PhysxMimicJointAPI:{mimic.dof} gearing": mimic.gearing,
                                       f"PhysxMimicJointAPI:{mimic.dof} gearing in SI units": mimic.gearing * reference[1],
                                       f"PhysxMimicJointAPI:{mimic.dof} offset": mimic.offset})
            names.append(f"{joint.path}:{mimic.dof}")
            dofs.append((follower[0], reference[0]))
            coeffs.append((follower[1], mimic.gearing * reference[1]))
            offsets.append(mimic.offset)
    return (tuple(names), np.array(dofs, dtype=np.int64).reshape(-1, 2),
            np.array(coeffs, dtype=float).reshape(-1, 2), np.array(offsets, dtype=float), notes)


def _check_finite(path: str, values: dict) -> None:
    """InputError naming the coupling's joint when one of its numbers is not finite."""
    bad = [f"{name} {float(value):g}" for name, value in values.items() if not math.isfinite(value)]
    if bad:
        raise InputError(path, f"not finite in SI units: its {bad[0]}", "author a finite value")


def _side_frame(model, description: StageDescription, body: Optional[str], pose, mpu: float):
    """(link, R_link_frame, p_link_frame [m]) of a joint frame given in ``body`` (None = world)."""
    R = quat_to_matrix(pose.orientation)
    p = np.array(pose.position, dtype=float) * mpu
    b = model.body_positions.get(body) if body is not None else None
    if b is not None:
        R_lb, p_lb = np.asarray(model.body_R_link[b]), np.asarray(model.body_p_link[b])
        return int(model.body_link[b]), R_lb @ R, p_lb + R_lb @ p
    if body is not None:  # a static or kinematic body: its frame is fixed in the world
        world = description.body(body).world_pose
        R_wb = quat_to_matrix(world.orientation)
        return -1, R_wb @ R, np.array(world.position, dtype=float) * mpu + R_wb @ p
    return -1, R, p


#: the D6 joints whose free axes make one of the loop types: (free axes) -> (type, axis)
_D6_LOOPS = {(): ("fixed", None), ("rotX", "rotY", "rotZ"): ("spherical", None),
             **{(f"rot{a}",): ("revolute", a) for a in "XYZ"}, **{(f"trans{a}",): ("prismatic", a) for a in "XYZ"}}


def _loop_kind(joint: JointDesc) -> tuple[str | None, str | None]:
    """(loop type, axis) a loop-closing joint is held as; (None, None) for a D6 with every axis
    free (no constraint). A D6 whose free axes (those PhysicsLimitAPI does not lock) are none,
    one, or the three rotations holds as a weld, a hinge or slider on that axis, or a ball; any
    other D6 is ("d6", its mask of locked axes), held as the tree holds a D6 (kernels/constraints.py
    LOOP_D6)."""
    if joint.type in LOOP_TYPES:
        return joint.type, joint.axis
    if joint.type == "d6":
        locked = {l.dof for l in joint.limits if l.dof != "distance" and l.low > l.high}
        free = tuple(a for a in _D6 if a not in locked)
        if free == _D6:
            return None, None
        if free in _D6_LOOPS:
            return _D6_LOOPS[free]
        return "d6", sum(1 << i for i, a in enumerate(_D6) if a in locked)
    raise UnsupportedFeature(f"{joint.path}: a {joint.type} joint closing a loop (or excluded from "
                             "the articulation) is not simulated; use a revolute, prismatic, "
                             "spherical or fixed joint, or disable it")


# a rotation taking x to each axis: a loop hinge's or slider's frames turned so that its axis is x
_TO_AXIS = {"X": np.eye(3), "Y": np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]),
            "Z": np.array([[0.0, 0.0, -1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])}
#: the loop types whose limit a bound row holds: loop type -> (limit dof, D6 axis prefix, bound kind)
_LOOP_LIMITS = {"revolute": ("angular", "rot", BOUND_ANGLE), "prismatic": ("linear", "trans", BOUND_SLIDE)}


def _loop_dof(joint: JointDesc, loop_kind: str, axis: Optional[str]) -> str:
    """The limit and drive dof of a loop-closing hinge or slider (a D6's one free axis)."""
    dof, prefix, _ = _LOOP_LIMITS[loop_kind]
    return prefix + (axis or "X") if joint.type == "d6" else dof


def _loop_limit(joint: JointDesc, loop_kind: str, axis: Optional[str], mpu: float):
    """(bound kind, lower, upper) [rad | m] of the enabled limit of a loop-closing hinge or
    slider (a revolute or prismatic joint, or a D6 whose one free axis makes it one), or None."""
    kind = _LOOP_LIMITS[loop_kind][2]
    dof = _loop_dof(joint, loop_kind, axis)
    limit = next((l for l in joint.limits if l.dof == dof and l.enabled), None)
    if limit is None:
        return None
    to_si = units.deg_to_rad if kind == BOUND_ANGLE else (lambda x: x * mpu)
    lower = to_si(limit.low) if math.isfinite(limit.low) else -math.inf
    upper = to_si(limit.high) if math.isfinite(limit.high) else math.inf
    if lower == -math.inf and upper == math.inf:
        return None
    return kind, lower, upper


def _loop_drive(joint: JointDesc, loop_kind: str, axis: Optional[str], mpu: float, kpu: float):
    """The row drive (ROW_DRIVE_* columns, SI) of a loop-closing hinge's or slider's drive on its
    axis, or None when it has none or one that exerts nothing (no stiffness and no damping).
    PhysX drives such a joint (a maximal-coordinate joint outside the articulation) as it drives
    an articulation joint: force = stiffness (target - position) + damping (target velocity -
    velocity), bounded by maxForce."""
    dof = _loop_dof(joint, loop_kind, axis)
    drive = next((d for d in joint.drives if d.dof == dof), None)
    if drive is None:
        return None
    si = drive_si(drive, _LOOP_LIMITS[loop_kind][2] == BOUND_ANGLE, mpu, kpu)
    if not (si.stiffness > 0.0 or si.damping > 0.0):
        return None
    row = np.zeros(ROW_DRIVE_COLUMNS)
    row[ROW_DRIVE_TYPE] = DRIVE_TYPES[si.type]
    row[ROW_DRIVE_STIFFNESS] = si.stiffness
    row[ROW_DRIVE_DAMPING] = si.damping
    row[ROW_DRIVE_MAX_FORCE] = si.max_force
    row[ROW_DRIVE_TARGET_POSITION] = si.target_position
    row[ROW_DRIVE_TARGET_VELOCITY] = si.target_velocity
    return row


def _dropped(joint: JointDesc, simulated: bool) -> Optional[str]:
    """What a loop-closing joint carries that the simulator drops, or None: a hinge's or
    slider's limit and drive on its axis are simulated (``simulated``), a ball's or D6's not."""
    if simulated:
        return None
    dropped_limits = bool(ranges(joint))
    if joint.drives and dropped_limits:
        return "drives and limits"
    return "drives" if joint.drives else "limits" if dropped_limits else None


def loop_arrays(model, description: StageDescription, loop_joints: list[JointDesc]):
    """Loop-closure arrays (see ArticulatedModel) for joints left out of the tree, and the bound
    rows of the limits and drives of loop-closing hinges and sliders (see bound_arrays)."""
    mpu = _mpu(description)
    kpu = float(description.units.kilograms_per_unit.value)
    types, links, Rs, ps, axes, notes = [], [], [], [], [], []
    kept, bounds = [], []
    for joint in loop_joints:
        kind, axis = _loop_kind(joint)
        limit = drive = None
        if kind in _LOOP_LIMITS:  # a bound row, or nothing (no drive, both bounds infinite)
            limit = _loop_limit(joint, kind, axis, mpu)
            drive = _loop_drive(joint, kind, axis, mpu, kpu)
        dropped = _dropped(joint, kind in _LOOP_LIMITS or (kind == "spherical" and not joint.drives
                                                             and cone_limit(joint) is not None))
        if dropped:
            notes.append(Diagnostic("warning", joint.path, f"{dropped} of a loop-closing joint are not "
                                    "simulated", "loop-joint-drive-ignored"))
        if kind is None:  # a D6 with every axis free holds nothing
            continue
        la, Ra, pa = _side_frame(model, description, joint.body0, joint.local_pose0, mpu)
        lb, Rb, pb = _side_frame(model, description, joint.body1, joint.local_pose1, mpu)
        if limit is not None or drive is not None:
            turn = _TO_AXIS[axis or "X"]
            interval = limit[1:] if limit is not None else (-math.inf, math.inf)
            bounds.append((joint.path, (la, lb), (pa, pb), (Ra @ turn, Rb @ turn), interval,
                           _LOOP_LIMITS[kind][2], drive))
        types.append(LOOP_D6 + axis if kind == "d6" else LOOP_TYPES[kind])
        links.append((la, lb))
        Rs.append((Ra, Rb))
        ps.append((pa, pb))
        axes.append(np.eye(3)[_AXES.get(axis if isinstance(axis, str) else "X", 0)])
        kept.append(joint.path)
    n = len(types)
    return dict(loop_names=tuple(kept),
                loop_type=np.array(types, dtype=np.int64),
                loop_link=np.array(links, dtype=np.int64).reshape(n, 2),
                loop_R_link_frame=np.array(Rs, dtype=float).reshape(n, 2, 3, 3),
                loop_p_link_frame=np.array(ps, dtype=float).reshape(n, 2, 3),
                loop_axis=np.array(axes, dtype=float).reshape(n, 3)), bounds, notes


def distance_arrays(model, description: StageDescription, distance_joints: list[JointDesc]):
    """Distance joints' bound rows (see bound_arrays) and notes. A bound is read as PhysX reads it:
    minDistance and maxDistance hold only when not negative (the schema's -1 is "no bound"); a
    joint with neither holds nothing and is left out. Bounds in metres."""
    mpu = _mpu(description)
    rows, notes = [], []
    for joint in distance_joints:
        limit = next((l for l in joint.limits if l.dof == "distance" and l.enabled), None)
        low, high = (limit.low, limit.high) if limit is not None else (-1.0, -1.0)
        lower = low * mpu if low >= 0.0 else -math.inf
        upper = high * mpu if high >= 0.0 else math.inf
        if joint.drives:
            notes.append(Diagnostic("warning", joint.path, "drives of a distance joint are not simulated "
                                    "(PhysX reads none)", "loop-joint-drive-ignored"))
        if lower == -math.inf and upper == math.inf:
            notes.append(Diagnostic("info", joint.path, "a distance joint with no minDistance or maxDistance "
                                    "(both negative or unauthored) holds nothing", "distance-unbounded"))
            continue
        if lower == math.inf:
            raise UnsupportedFeature(f"{joint.path}: its minDistance {low:g} is not finite in metres "
                                     f"(metersPerUnit {mpu:g})")
        if lower > upper:
            # measured with ovphysx 0.7: minDistance 1.5, maxDistance 1 holds a rod at 1 (2.5 %
            # over, PhysX's own give), against gravity pushing it shorter
            notes.append(Diagnostic("warning", joint.path, f"minDistance {low:g} is above maxDistance {high:g}: "
                                    "held at maxDistance, as PhysX holds it", "distance-min-above-max"))
            lower = upper
        la, _, pa = _side_frame(model, description, joint.body0, joint.local_pose0, mpu)
        lb, _, pb = _side_frame(model, description, joint.body1, joint.local_pose1, mpu)
        rows.append((joint.path, (la, lb), (pa, pb), (np.eye(3), np.eye(3)), (lower, upper), BOUND_DISTANCE,
                     None))
    return rows, notes


def cone_limit(joint: JointDesc):
    """(half-angle about y, about z) [rad] of a spherical joint's enabled cone limit that PhysX
    applies (each angle in (0, 180) deg: PxJointLimitCone refuses others), or None."""
    if joint.type != "spherical":
        return None
    limit = next((l for l in joint.limits if l.dof == "cone" and l.enabled), None)
    if limit is None or not (0.0 < limit.low < 180.0 and 0.0 < limit.high < 180.0):
        return None
    return units.deg_to_rad(limit.low), units.deg_to_rad(limit.high)


def cone_rows(model, description: StageDescription, joints: list[JointDesc]):
    """The bound rows (see bound_arrays) of the cone limits of spherical joints, in the tree or
    closing a loop: the swing of body1's cone axis (its frame's ``physics:axis``) away from
    body0's, within the elliptical cone whose half-angles coneAngle0Limit and coneAngle1Limit
    bound the swing toward body0's frame's next two axes (measured with ovphysx 0.7 on a
    standalone ball joint about X: coneAngle0 limits the swing toward Z, coneAngle1 toward Y, and
    equal angles hold a rod on a circular cone)."""
    mpu = _mpu(description)
    rows = []
    for joint in joints:
        cone = cone_limit(joint)
        if cone is None:
            continue
        la, Ra, pa = _side_frame(model, description, joint.body0, joint.local_pose0, mpu)
        lb, Rb, pb = _side_frame(model, description, joint.body1, joint.local_pose1, mpu)
        turn = _TO_AXIS[joint.axis if joint.axis in _TO_AXIS else "X"]
        rows.append((joint.path, (la, lb), (pa, pb), (Ra @ turn, Rb @ turn), cone, BOUND_CONE, None))
    return rows


def bound_arrays(rows) -> dict:
    """The bound-row arrays of ArticulatedModel (distance_*) from rows (name, (link 0, link 1),
    (anchor 0, anchor 1) [m], (frame 0, frame 1), (lower, upper) [m | rad], BOUND_* kind, drive
    (ROW_DRIVE_* columns, or None))."""
    n = len(rows)
    names, links, anchors, frames, bounds, kinds, drives = zip(*rows) if rows else ((),) * 7
    drives = [np.zeros(ROW_DRIVE_COLUMNS) if d is None else d for d in drives]
    return dict(distance_names=tuple(names),
                distance_link=np.array(links, dtype=np.int64).reshape(n, 2),
                distance_p_link_frame=np.array(anchors, dtype=float).reshape(n, 2, 3),
                distance_R_link_frame=np.array(frames, dtype=float).reshape(n, 2, 3, 3),
                distance_bounds=np.array(bounds, dtype=float).reshape(n, 2),
                distance_kind=np.array(kinds, dtype=np.int64).reshape(n),
                distance_drive=np.array(drives, dtype=float).reshape(n, ROW_DRIVE_COLUMNS))
