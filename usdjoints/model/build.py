"""StageDescription -> ArticulatedModel: the boundary where a stage becomes arrays.

Every unit conversion happens here, once: stage lengths and masses to SI, degrees to radians,
per-degree gains to per-radian. Joints become a forest (forest.py): each connected set of dynamic
bodies is one tree, rooted where a joint ties it to the world (fixed base) or, when none does, at
its articulation's base (or first body) on a free joint. Joints marked excludeFromArticulation, and
joints that close a loop, become loop-closure constraints; rack-and-pinion, gear and mimic
joints become couplings and distance joints rows of their own outside the tree, as PhysX never
articulates them (constraints.py); collision shapes become colliders (colliders.py). What the
simulator does not handle (custom joints) is rejected here with a message naming the prims.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Optional

import numpy as np

from .. import units
from ..args import bool_arg
from ..descriptors import Diagnostic, JointDesc, StageDescription
from ..errors import InputError, UnsupportedFeature
from .builder import ModelBuilder
from .colliders import collider_arrays, without_start_overlaps
from .drives import drive_si, is_rotational
from .constraints import bound_arrays, cone_limit, cone_rows, coupling_arrays, distance_arrays, loop_arrays
from .forest import spanning_forest
from .initial_state import initial_q, initial_qd
from ..walker.mass import zero_moment
from .mass import _shown, body_mass_properties
from .rotation import matrix_to_quat, quat_to_matrix

# Joint limits are hard, as PhysX's: the simulator holds them with joint-space impulses
# (sim/kernels/limits.py); dof_limit_stiffness stays 0 unless a model asks for a soft limit.
STANDARD_GRAVITY = 9.81  # [m/s^2]
_AXES = {"X": np.array([1.0, 0.0, 0.0]), "Y": np.array([0.0, 1.0, 0.0]), "Z": np.array([0.0, 0.0, 1.0])}
_D6_TRANSLATIONS = ("transX", "transY", "transZ")
_D6_ROTATIONS = ("rotX", "rotY", "rotZ")
_SIMULATED_TYPES = ("revolute", "prismatic", "spherical", "fixed", "d6")
_COUPLING_TYPES = ("rack_and_pinion", "gear")


def load_model(stage_or_path, *, contact: bool = True) -> "ArticulatedModel":  # noqa: F821
    """Walk a stage (or path) as usdjoints reads it and build its model (``contact=False``
    leaves the colliders out)."""
    from ..walker import walk
    from ..walker.stage_io import open_stage

    contact = bool_arg(contact, "contact")
    stage = open_stage(stage_or_path)
    return build_model(walk(stage, consumer="usdjoints"), contact=contact)


def build_model(description: StageDescription, stage=None, *, contact: bool = True) -> "ArticulatedModel":  # noqa: F821
    """The model of a description made with consumer='usdjoints'; it reads no stage (``stage``
    is accepted for callers of the earlier signature and not used)."""
    if description.consumer != "usdjoints":
        raise ValueError("build_model needs a walk made with consumer='usdjoints'")
    mpu = float(description.units.meters_per_unit.value)
    kpu = float(description.units.kilograms_per_unit.value)
    dynamic = {b.path: b for b in description.bodies if b.enabled and not b.kinematic}
    joints = [j for j in description.joints if j.enabled and (j.body0 in dynamic or j.body1 in dynamic)
              and j.type not in _COUPLING_TYPES]
    if not dynamic:  # PhysX steps such a stage (a ground, static props): nothing moves
        note = Diagnostic("warning", description.stage or "/", "no dynamic rigid body: nothing moves "
                          "(apply PhysicsRigidBodyAPI to the prims that should move)", "nothing-dynamic")
        return dataclasses.replace(ModelBuilder(gravity=_gravity(description, mpu)).build(),
                                   diagnostics=(note,))
    distance_joints = [j for j in joints if j.type == "distance"]
    joints = [j for j in joints if j.type != "distance"]
    _reject_unsupported(joints, dynamic)

    tree, loop_paths = spanning_forest(description, [j for j in joints if not j.exclude_from_articulation],
                                       dynamic)
    loop_joints = [j for j in joints if j.exclude_from_articulation or j.path in loop_paths]
    builder = ModelBuilder(gravity=_gravity(description, mpu))
    hinged = _mimicked_rotations(description)
    q0_parts: dict[str, np.ndarray] = {}
    mass_notes: list[Diagnostic] = []
    for body_path, joint, parent in tree:
        body = dynamic[body_path]
        described = description.mass(body_path)
        mass = body_mass_properties(body_path, described, mpu, kpu)
        if mass.defaulted:
            made_up = " and ".join(f"{name} {value}" for name, value in (
                ("mass", f"{mass.mass:.6g} kg"), ("inertia", f"{mass.inertia[0, 0]:.6g} kg m^2 (small sphere)"))
                if name in mass.defaulted)
            mass_notes.append(Diagnostic(
                "warning", body_path, f"nothing gives this body its {' or '.join(mass.defaulted)}: "
                f"{made_up} as PhysX uses", "mass-defaulted"))
        if described.inertia_source == "rejected":
            mass_notes.append(Diagnostic(
                "warning", body_path, f"physics:diagonalInertia {_shown(described.authored_diagonal)} has a "
                "zero moment, which PhysX "
                "rejects on an articulation link (\"components must be > 0 for articulations\"): the link "
                f"keeps PhysX's default, 1 stage unit ({mass.inertia[0, 0]:.6g} kg m^2) about each axis, and "
                "is simulated so", "inertia-rejected"))
        elif described.inertia_source == "authored" and zero_moment(described.authored_diagonal):
            mass_notes.append(Diagnostic(
                "warning", body_path, f"physics:diagonalInertia {_shown(described.authored_diagonal)} has a "
                "zero moment: PhysX locks "
                "the rotation of a rigid body outside an articulation about that axis; usdjoints keeps the "
                "moment zero, and refuses the run if a joint then moves no inertia", "inertia-zero-moment"))
        if joint is not None and parent is not None and joint.type == "fixed" and described.stand_in:
            mass = dataclasses.replace(mass, mass=0.0, com=np.zeros(3), inertia=np.zeros((3, 3)))
        R_world_body = quat_to_matrix(body.world_pose.orientation)
        with np.errstate(over="ignore", invalid="ignore"):
            p_world_body = np.array(body.world_pose.position, dtype=float) * mpu
        if not (np.all(np.isfinite(p_world_body)) and np.all(np.isfinite(R_world_body))):
            raise InputError(body_path, f"its world transform is not finite in metres (its or its ancestors' "
                             f"xformOp values, metersPerUnit {mpu:g}): nothing to simulate")
        if joint is None:  # a free root
            builder.add_body(body_path, parent=None, joint_type="free", joint_name=body_path,
                             mass=mass.mass, com=mass.com, inertia=mass.inertia)
            q0_parts[body_path] = np.concatenate([p_world_body, matrix_to_quat(R_world_body)])
            continue
        args, q0 = _joint_arguments(joint, body_path, parent, dynamic, mpu, kpu, joint.path in hinged)
        builder.add_body(body_path, parent=parent, joint_name=joint.path, mass=mass.mass, com=mass.com,
                         inertia=mass.inertia, **args)
        if q0 is not None:
            q0_parts[joint.path] = q0
    model = builder.build()
    model = dataclasses.replace(model, q_initial=initial_q(model, q0_parts, tree, description, mpu))
    model = dataclasses.replace(model, qd_initial=initial_qd(model, tree, description, dynamic, mpu))
    names, dofs, coeffs, offsets, notes = coupling_arrays(model, description)
    loops, loop_bounds, loop_notes = loop_arrays(model, description, loop_joints)
    distance_rows, distance_notes = distance_arrays(model, description, distance_joints)
    spherical = [j for j in joints if j.type == "spherical"]
    cone_notes = [_cone_note(j) for j in spherical if cone_limit(j) is None and _cone_enabled(j)]
    distances = bound_arrays(distance_rows + loop_bounds + cone_rows(model, description, spherical))
    colliders, collider_notes, approximate = ({}, [], []) if not contact else collider_arrays(
        description, model, [j for j in description.joints if j.enabled])
    model = dataclasses.replace(model, coupling_names=names, coupling_dof=dofs, coupling_coeff=coeffs,
                                coupling_offset=offsets, **loops, **distances, **colliders,
                                diagnostics=tuple(_read_notes(description, contact) + mass_notes + notes
                                                  + loop_notes + distance_notes + cone_notes
                                                  + collider_notes))
    return without_start_overlaps(_with_coupled_inertia(model), approximate)


# A body whose mass only stands in for none (URDF converter: customData usdjoints:massStandIn,
# MassDesc.stand_in): welded to a parent it needs no mass of its own, so dropping the stand-in
# keeps the source's dynamics exactly.


def _read_notes(description: StageDescription, contact: bool) -> list[Diagnostic]:
    """The walk's diagnostics on what the model reads beyond the joints (the scene, the colliders'
    shapes and materials): a wrongly typed value read as its fallback, a collider without volume."""
    prims = {c.path for c in description.colliders} | {c.material.path for c in description.colliders
                                                       if c.material.path}
    if description.scene is not None and description.scene.path:
        prims.add(description.scene.path)
    return [d for d in description.diagnostics if d.prim in prims
            and d.code in ("invalid-value-type", "collider-no-mass")]


def _cone_enabled(joint: JointDesc) -> bool:
    return any(l.dof == "cone" and l.enabled for l in joint.limits)


def _cone_note(joint: JointDesc) -> Diagnostic:
    limit = next(l for l in joint.limits if l.dof == "cone" and l.enabled)
    return Diagnostic("warning", joint.path, f"its cone limit ({limit.low:g} and {limit.high:g} deg) is not one "
                      "PhysX applies (each half-angle needs 0 < angle < 180 deg): the joint swings freely",
                      "spherical-cone-not-simulated")


def _reject_unsupported(joints: list[JointDesc], dynamic: dict) -> None:
    problems = []
    for joint in joints:
        if joint.type not in _SIMULATED_TYPES:
            problems.append(f"{joint.path} ({joint.type} joint)")
    if problems:
        raise UnsupportedFeature(
            "the simulator does not handle these joints yet: " + ", ".join(problems)
            + "; remove or disable them (physics:jointEnabled = false) to simulate the rest")


def _pose(pose, mpu: float):
    return quat_to_matrix(pose.orientation), np.array(pose.position, dtype=float) * mpu


def _joint_arguments(joint: JointDesc, child: str, parent: Optional[str], dynamic, mpu: float, kpu: float,
                     hinged: bool = False):
    """ModelBuilder arguments for ``joint`` carrying ``child`` from ``parent`` (None = world);
    ``hinged``: a D6 whose rotations a mimic coupling names turns them as hinges, whatever they
    are (_mimicked_rotations)."""
    child_is_body1 = joint.body1 == child
    parent_pose, child_pose = (joint.local_pose0, joint.local_pose1) if child_is_body1 else \
        (joint.local_pose1, joint.local_pose0)
    R_pj, p_pj = _pose(parent_pose, mpu)
    R_cj, p_cj = _pose(child_pose, mpu)
    sign = 1.0 if child_is_body1 else -1.0
    with np.errstate(invalid="ignore", over="ignore"):  # a frame that is not finite is refused later, by name
        p_joint_child = -R_cj.T @ p_cj
    args = dict(R_parent_joint=R_pj, p_parent_joint=p_pj, R_joint_child=R_cj.T, p_joint_child=p_joint_child)
    if joint.type == "fixed":
        args["joint_type"] = "fixed"
        return args, None
    if joint.type == "spherical":
        args["joint_type"] = "spherical"
        args.update(_passive(joint, ("rotX", "rotY", "rotZ"), mpu, kpu))
        return args, None
    if joint.type in ("revolute", "prismatic"):
        axis = sign * _AXES[joint.axis or "X"]
        dof = "angular" if joint.type == "revolute" else "linear"
        args.update(joint_type=joint.type, axis=axis)
        args.update(_limits_and_drives(joint, (dof,), mpu, kpu))
        args.update(_passive(joint, (dof,), mpu, kpu))
        return args, None
    free = _d6_free_axes(joint)
    # body0 the child: the tree carries the inverse motion, the axes in reverse order with the
    # same coordinates (ModelBuilder's d6_reversed), so limits and drives keep their meaning
    order = free if child_is_body1 else tuple(reversed(free))
    ball = _d6_ball(free) and not hinged
    if ball:  # the ball's three dofs keep rotX, rotY, rotZ's order; first when reversed
        moves = tuple(a for a in order if a in _D6_TRANSLATIONS)
        order = moves + _D6_ROTATIONS if child_is_body1 else _D6_ROTATIONS + moves
    args.update(joint_type="d6", d6_axes=free, d6_reversed=not child_is_body1, d6_ball=ball)
    if free:
        args.update(_limits_and_drives(joint, order, mpu, kpu))
        args.update(_passive(joint, order, mpu, kpu))
        if ball and not child_is_body1:
            _turn_ball_back(args, order)
    return args, None


def _turn_ball_back(args: dict, order: tuple[str, ...]) -> None:
    """The limits and drives of a reversed D6 ball (body0 the child) in the ball's coordinates.
    The tree turns the inverse rotation, whose rotation vector is the joint's negated (the axis
    is the same in both frames) and whose angular velocity is, to first order, the joint's
    negated: a limit [low, high] becomes [-high, -low] and a drive keeps its gains with its
    targets negated."""
    for k, dof in enumerate(order):
        if dof not in _D6_ROTATIONS:
            continue
        args["lower"][k], args["upper"][k] = -args["upper"][k], -args["lower"][k]
        drive = args["drive"][k]
        if drive is not None:
            args["drive"][k] = dataclasses.replace(drive, target_position=-drive.target_position,
                                                   target_velocity=-drive.target_velocity)


def _d6_ball(free: tuple[str, ...]) -> bool:
    """Whether the D6's rotations turn as one ball joint: rotX, rotY and rotZ all free. PhysX
    makes such a joint spherical, whose rotation has no lock, and reads its three positions as
    the components of the rotation vector, on which its per-axis limits and drives act
    (ArticulatedModel.dof_positions). Three hinges in a row lock at rotY = +-90 deg, where a body
    turning near that pose needs hinge rates without bound (sim/divergence.py)."""
    return set(_D6_ROTATIONS) <= set(free)


def _mimicked_rotations(description: StageDescription) -> set[str]:
    """The D6 joints a PhysxMimicJointAPI names by a rotation axis, as the follower or as the
    reference. A coupling row holds scalar coordinates (model/constraints.py), so such a D6 keeps
    its rotations as hinges rotX, rotY, rotZ rather than one ball."""
    d6 = {j.path for j in description.joints if j.type == "d6"}
    named = set()
    for joint in description.joints:
        for mimic in joint.mimics:
            if joint.path in d6 and mimic.dof in _D6_ROTATIONS:
                named.add(joint.path)
            if mimic.reference in d6 and mimic.reference_dof in _D6_ROTATIONS:
                named.add(mimic.reference)
    return named


def _d6_free_axes(joint: JointDesc) -> tuple[str, ...]:
    """A D6 axis is free unless PhysicsLimitAPI locks it (low > high)."""
    locked = {l.dof for l in joint.limits if l.dof != "distance" and l.low > l.high}
    return tuple(a for a in _D6_TRANSLATIONS + _D6_ROTATIONS if a not in locked)


def _limits_and_drives(joint: JointDesc, dofs: tuple[str, ...], mpu: float, kpu: float) -> dict:
    limits = {l.dof: l for l in joint.limits}
    drives = {d.dof: d for d in joint.drives}
    lower, upper, drive_list = [], [], []
    for dof in dofs:
        limit = limits.get(dof)
        rotational = is_rotational(dof)
        if limit is not None and limit.enabled:
            to_si = units.deg_to_rad if rotational else (lambda x: x * mpu)
            lower.append(to_si(limit.low) if math.isfinite(limit.low) else -math.inf)
            upper.append(to_si(limit.high) if math.isfinite(limit.high) else math.inf)
        else:
            lower.append(-math.inf)
            upper.append(math.inf)
        drive = drives.get(dof)
        drive_list.append(None if drive is None else drive_si(drive, rotational, mpu, kpu))
    return {"lower": lower, "upper": upper, "drive": drive_list}


def _passive(joint: JointDesc, dofs: tuple[str, ...], mpu: float, kpu: float) -> dict:
    """PhysxJointAxisAPI armature, viscous and static friction and speed limit, per dof."""
    out = {"armature": [], "damping": [], "friction_loss": [], "velocity_limit": []}
    for dof in dofs:
        prefix = f"physxJointAxis:{dof}:"
        rotational = is_rotational(dof)

        def column(name, default=0.0):
            resolved = joint.columns.get(prefix + name)
            return default if resolved is None or resolved.value is None else float(resolved.value)

        armature = column("armature")
        viscous = column("viscousFrictionCoefficient")
        friction = column("staticFrictionEffort")
        speed = column("maxJointVelocity", math.inf)
        if rotational:
            out["armature"].append(units.rotational_inertia_to_si(armature, mpu, kpu))
            out["damping"].append(units.angular_gain_to_si(viscous, mpu, kpu))
            out["friction_loss"].append(units.torque_to_newton_meters(friction, mpu, kpu))
            out["velocity_limit"].append(units.deg_to_rad(speed) if math.isfinite(speed) else math.inf)
        else:
            out["armature"].append(armature * kpu)
            out["damping"].append(units.linear_stiffness_to_si(viscous, kpu))
            out["friction_loss"].append(units.force_to_newtons(friction, mpu, kpu))
            out["velocity_limit"].append(speed * mpu if math.isfinite(speed) else math.inf)
    return out


def _gravity(description: StageDescription, mpu: float) -> np.ndarray:
    """Gravity [m/s^2] from the description's scene (the first PhysicsScene), else standard
    gravity against the up axis. A wrongly typed value was read as the schema fallback: direction
    (0, 0, 0), that is against the up axis, and magnitude -inf, that is standard gravity. A
    direction or magnitude that is not finite gives no gravity to simulate with: an InputError
    naming the scene and the attribute."""
    direction = -_AXES.get(description.units.up_axis.value, _AXES["Z"])
    magnitude = STANDARD_GRAVITY
    scene = description.scene
    if scene is not None and scene.path is not None:
        authored = np.array(scene.direction.value, dtype=float).reshape(3)
        if not np.all(np.isfinite(authored)):
            raise InputError(scene.path, f"physics:gravityDirection is {tuple(authored.tolist())}: not finite")
        with np.errstate(over="ignore"):
            norm = float(np.linalg.norm(authored))
        if norm > 0.0 and math.isfinite(norm):
            direction = authored / norm
        elif norm > 0.0:  # finite components whose norm overflows: scale first
            scaled = authored / np.abs(authored).max()
            direction = scaled / np.linalg.norm(scaled)
        value = float(scene.magnitude.value)
        if value > -0.5e38 or math.isnan(value):  # -inf is the schema's "earth gravity in stage units"
            with np.errstate(over="ignore"):
                magnitude = float(np.float64(value) * mpu)
            if not math.isfinite(magnitude):
                raise InputError(scene.path, f"physics:gravityMagnitude is {value:g} stage units, {magnitude:g} "
                                 "m/s^2: not finite")
    return direction * magnitude


# A coupled dof whose body has no inertia (mass authored, no shapes, no diagonalInertia) is still
# determined through its coupling, but the step solves with the tree's inertia: give it this much
# of the largest diagonal as armature, a change far below the coupling's 1e-9 tolerance.
COUPLED_MIN_INERTIA = 1e-9


def _with_coupled_inertia(model):
    if not len(model.coupling_dof):
        return model
    from .kinematics import mass_matrix_diagonal

    diagonal = mass_matrix_diagonal(model, model.q_initial)
    floor = COUPLED_MIN_INERTIA * max(float(diagonal.max()), 1.0)
    armature = np.array(model.dof_armature, dtype=float)
    notes = []
    for dof in sorted(set(int(d) for d in np.ravel(model.coupling_dof))):
        if diagonal[dof] < floor:
            armature[dof] += floor
            notes.append(Diagnostic("warning", model.joint_names[int(model.dof_joint[dof])],
                                    f"coupled joint moves a body without inertia; armature {floor:.3g} added",
                                    "coupled-without-inertia"))
    if not notes:
        return model
    return dataclasses.replace(model, dof_armature=armature, diagnostics=model.diagnostics + tuple(notes))
