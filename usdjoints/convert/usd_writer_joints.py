"""Authors one IR joint as a UsdPhysics joint prim: frames, limits, drive, PhysX axis data, mimic.

Authoring policy (why each value is what it is):

* Frames: every joint is written with the token axis X and local rotations that turn X onto the
  IR axis, so any direction and sign survives. ``localPos0/localRot0`` is the joint frame in body0
  (the parent link), ``localPos1/localRot1`` the joint frame in body1 (the child link).
* Limits are written in UsdPhysics units (angles [deg], lengths [m]). A continuous joint gets
  -inf/+inf written explicitly, never 0/0 (which would lock it).
* Every actuated axis gets a PhysicsDriveAPI (``angular`` or ``linear``; D6 axes by name) so the
  stage can be driven without edits. Default gains: stiffness 0 (no position servo the source did
  not ask for) and damping = effort / velocity limit, the velocity gain at which a velocity error
  as large as the velocity limit asks for exactly the effort limit; the drive then tracks velocity
  targets within the source's own envelope. Without both limits the damping is 0 (reported).
  maxForce is the effort limit.
* ``<dynamics>`` damping becomes PhysxJointAxisAPI viscousFrictionCoefficient (angular: per degree,
  since PhysX multiplies it by 180/π), friction becomes both static and dynamic friction efforts;
  the velocity limit becomes maxJointVelocity (angular: [deg/s]).
* Mimic: PhysX enforces ``q_follower + gearing · q_reference + offset = 0`` with positions in USD
  units (degrees for angular joints; measured with ovphysx 0.7: an offset written as 0.1 moved a
  revolute follower by 0.1°). The IR's ``q = multiplier · q_reference + offset`` [rad or m] gives
  ``gearing = -multiplier · c_follower / c_reference`` and ``offset = -offset · c_follower`` where
  ``c`` is 180/π for an angular joint and 1 for a linear one. PhysX requires the reference joint
  to have finite limits (a continuous reference is reported).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from pxr import Gf, Sdf, Usd, UsdPhysics

from ..units import angular_gain_per_rad_to_per_deg, rad_to_deg
from .ir import Joint, JointAxis, JointType, Pose, Quat, RobotIR, quat_multiply
from .mass import matrix_to_quat
from .report import EntryKind, Notes
from . import usd_writer_specs as specs

_ANGULAR_TYPES = {JointType.REVOLUTE, JointType.CONTINUOUS}
_LOCK = (1.0, -1.0)  # low > high locks a D6 axis


@dataclass(frozen=True, slots=True)
class JointPlacement:
    """Where a joint goes: its prim path and the body prims it connects (``None`` = the world)."""

    joint: Joint
    path: Sdf.Path
    body0: Sdf.Path | None
    body1: Sdf.Path | None  # None only when the child link cannot move (static)
    pose0: Pose  # joint frame in body0 (or in the world when body0 is None)
    pose1: Pose  # joint frame in body1
    exclude_from_articulation: bool = False  # the joint closes a loop


def rotation_x_onto(axis) -> Quat:
    """The shortest rotation taking +X onto the direction ``axis`` (180° about Z for -X)."""
    ax, ay, az = axis
    norm = math.hypot(ax, ay, az)  # the readers give a finite nonzero axis; hypot cannot overflow
    ax, ay, az = ax / norm, ay / norm, az / norm
    if ax < -1.0 + 1e-12:
        return (0.0, 0.0, 0.0, 1.0)
    # half-way quaternion between x and a: w = 1 + x·a, vector part = x × a = (0, -az, ay)
    w, y, z = 1.0 + ax, -az, ay
    n = math.sqrt(w * w + y * y + z * z)
    return (w / n, 0.0, y / n, z / n)


def frame_from_two_axes(first, second) -> Quat | None:
    """A rotation whose X is ``first`` and Y is ``second``; None unless they are orthogonal."""
    a = np.asarray(first, float) / np.linalg.norm(first)
    b = np.asarray(second, float) / np.linalg.norm(second)
    if abs(float(a @ b)) > 1e-9:
        return None
    return matrix_to_quat(np.column_stack([a, b, np.cross(a, b)]))


def _gf_quat(q: Quat) -> Gf.Quatf:
    return Gf.Quatf(float(q[0]), Gf.Vec3f(float(q[1]), float(q[2]), float(q[3])))


def _axis_direction(axis: JointAxis, robot: RobotIR, notes: Notes, joint: Joint):
    if axis.xyz is None:
        notes.add(EntryKind.DEFAULT, str(joint.source), f"joint {joint.name!r} axis",
                  f"not written; the {robot.defaults.format} default {robot.defaults.axis} is used")
        return robot.defaults.axis
    return axis.xyz


def write_joint(stage: Usd.Stage, place: JointPlacement, robot: RobotIR, notes: Notes,
                joint_paths: dict[str, Sdf.Path]) -> Usd.Prim | None:
    """Defines the joint prim; returns None (with a report entry) for kinds not expressible."""
    joint = place.joint
    kind = joint.type
    frame_rotation: Quat = (1.0, 0.0, 0.0, 0.0)
    if kind in _ANGULAR_TYPES or kind in (JointType.PRISMATIC, JointType.PLANAR):
        frame_rotation = rotation_x_onto(_axis_direction(joint.axes[0], robot, notes, joint))
    if kind in _ANGULAR_TYPES:
        usd_joint = UsdPhysics.RevoluteJoint.Define(stage, place.path)
    elif kind is JointType.PRISMATIC:
        usd_joint = UsdPhysics.PrismaticJoint.Define(stage, place.path)
    elif kind is JointType.FIXED:
        usd_joint = UsdPhysics.FixedJoint.Define(stage, place.path)
    elif kind is JointType.BALL:
        usd_joint = UsdPhysics.SphericalJoint.Define(stage, place.path)
    elif kind is JointType.PLANAR:
        usd_joint = UsdPhysics.Joint.Define(stage, place.path)
    elif kind in (JointType.UNIVERSAL, JointType.REVOLUTE2) and len(joint.axes) == 2:
        directions = [_axis_direction(a, robot, notes, joint) for a in joint.axes]
        frame = frame_from_two_axes(*directions)
        if frame is None:
            notes.add(EntryKind.DROPPED, str(joint.source), f"joint {joint.name!r}",
                      f"a {kind.value} joint whose two axes are not orthogonal has no UsdPhysics form")
            return None
        frame_rotation = frame
        usd_joint = UsdPhysics.Joint.Define(stage, place.path)
    else:
        notes.add(EntryKind.DROPPED, str(joint.source), f"joint {joint.name!r}",
                  f"{kind.value} joints have no UsdPhysics form; the child is left unconnected")
        return None

    prim = usd_joint.GetPrim()
    if place.body0 is not None:
        usd_joint.CreateBody0Rel().SetTargets([place.body0])
    if place.body1 is not None:
        usd_joint.CreateBody1Rel().SetTargets([place.body1])
    if place.exclude_from_articulation:
        usd_joint.CreateExcludeFromArticulationAttr(True)
    usd_joint.CreateLocalPos0Attr(Gf.Vec3f(*place.pose0.position))  # the schema's type is float3
    usd_joint.CreateLocalRot0Attr(_gf_quat(quat_multiply(place.pose0.orientation, frame_rotation)))
    usd_joint.CreateLocalPos1Attr(Gf.Vec3f(*place.pose1.position))
    usd_joint.CreateLocalRot1Attr(_gf_quat(quat_multiply(place.pose1.orientation, frame_rotation)))
    if kind in _ANGULAR_TYPES or kind is JointType.PRISMATIC:
        usd_joint.CreateAxisAttr(UsdPhysics.Tokens.x)
        _write_single_axis(prim, usd_joint, joint, robot, notes)
    elif kind is JointType.BALL:
        usd_joint.CreateAxisAttr(UsdPhysics.Tokens.x)
    elif kind is JointType.PLANAR:
        _write_planar(prim, joint, robot, notes)
    elif kind in (JointType.UNIVERSAL, JointType.REVOLUTE2):
        _write_two_rotations(prim, joint, robot, notes)
    if joint.mimic is not None:
        _write_mimic(prim, joint, robot, notes, joint_paths)
    if joint.custom_data:
        for key, value in joint.custom_data.items():
            prim.SetCustomDataByKey(key, _custom_value(value))
    return prim


#: Joint kinds written by write_joint_specs, with their prim types.
_SPEC_TYPES = {JointType.REVOLUTE: "PhysicsRevoluteJoint", JointType.CONTINUOUS: "PhysicsRevoluteJoint",
               JointType.PRISMATIC: "PhysicsPrismaticJoint", JointType.FIXED: "PhysicsFixedJoint",
               JointType.BALL: "PhysicsSphericalJoint"}


def specs_writable(joint: Joint) -> bool:
    """Whether :func:`write_joint_specs` writes this joint (else :func:`write_joint` does)."""
    return joint.type in _SPEC_TYPES and joint.mimic is None and not joint.custom_data


def write_joint_specs(batch, place: JointPlacement, robot: RobotIR, notes: Notes) -> Sdf.PrimSpec:
    """:func:`write_joint` for a joint :func:`specs_writable` accepts, authored as Sdf specs
    (usd_writer_specs) into ``batch`` (a BatchedStage); the same specs, report entries and order."""
    joint = place.joint
    kind = joint.type
    frame_rotation: Quat = (1.0, 0.0, 0.0, 0.0)
    single = kind in _ANGULAR_TYPES or kind is JointType.PRISMATIC
    if single:
        frame_rotation = rotation_x_onto(_axis_direction(joint.axes[0], robot, notes, joint))
    spec = batch.author(place.path, _SPEC_TYPES[kind])
    if place.body0 is not None:
        specs.relationship(spec, "physics:body0", [place.body0])
    if place.body1 is not None:
        specs.relationship(spec, "physics:body1", [place.body1])
    if place.exclude_from_articulation:
        specs.attribute(spec, "physics:excludeFromArticulation", True)
    specs.attribute(spec, "physics:localPos0", Gf.Vec3f(*place.pose0.position))
    specs.attribute(spec, "physics:localRot0", _gf_quat(quat_multiply(place.pose0.orientation, frame_rotation)))
    specs.attribute(spec, "physics:localPos1", Gf.Vec3f(*place.pose1.position))
    specs.attribute(spec, "physics:localRot1", _gf_quat(quat_multiply(place.pose1.orientation, frame_rotation)))
    if kind is JointType.BALL:
        specs.attribute(spec, "physics:axis", UsdPhysics.Tokens.x)
    if not single:
        return spec
    specs.attribute(spec, "physics:axis", UsdPhysics.Tokens.x)
    axis = joint.axes[0]
    angular = kind in _ANGULAR_TYPES
    lower, upper = _single_axis_limits(joint, robot, notes)
    specs.attribute(spec, "physics:lowerLimit", lower)
    specs.attribute(spec, "physics:upperLimit", upper)
    instance = "angular" if angular else "linear"
    schemas = [f"PhysicsDriveAPI:{instance}"]
    for name, value in drive_values(axis, angular, robot, notes, joint).items():
        specs.attribute(spec, f"drive:{instance}:physics:{name}", value if name == "type" else float(value),
                        instance)
    values = axis_property_values(axis, angular, robot, notes, joint)
    if values:
        schemas.append(f"PhysxJointAxisAPI:{instance}")
        for name, value in values.items():
            specs.attribute(spec, f"physxJointAxis:{instance}:{name}", value, instance)
    position = _initial_position(instance, joint, 0, angular, notes)
    if position is not None:
        schemas.append(f"PhysicsJointStateAPI:{instance}")
        specs.attribute(spec, f"state:{instance}:physics:position", position, instance)
        specs.attribute(spec, f"state:{instance}:physics:velocity", 0.0, instance)
    specs.apply_schemas(spec, schemas)
    return spec


def _custom_value(value):
    if isinstance(value, dict):
        return {k: _custom_value(v) for k, v in value.items() if v is not None}
    return value


def _limit(axis: JointAxis, robot: RobotIR, notes: Notes, joint: Joint) -> tuple[float, float]:
    lower, upper = axis.lower, axis.upper
    for name, value, default in (("lower", lower, robot.defaults.lower), ("upper", upper, robot.defaults.upper)):
        if value is None:
            notes.add(EntryKind.DEFAULT, str(axis.source or joint.source), f"joint {joint.name!r} limit {name}",
                      f"not written; the {robot.defaults.format} default {default} is used")
    lower = robot.defaults.lower if lower is None else lower
    upper = robot.defaults.upper if upper is None else upper
    if lower > upper:
        notes.add(EntryKind.WARNING, str(axis.source or joint.source), f"joint {joint.name!r} limits",
                  f"lower {lower} > upper {upper}: consumers lock or reject this joint")
    return lower, upper


def _single_axis_limits(joint: Joint, robot: RobotIR, notes: Notes) -> tuple[float, float]:
    """lowerLimit and upperLimit of a revolute, continuous or prismatic joint [deg or m]."""
    axis = joint.axes[0]
    if joint.type is JointType.CONTINUOUS:
        if axis.lower is not None or axis.upper is not None:
            notes.add(EntryKind.DROPPED, str(axis.source or joint.source), f"joint {joint.name!r} limit",
                      "a continuous joint has no position limits; lower/upper ignored")
        lower, upper = -math.inf, math.inf
    else:
        lower, upper = _limit(axis, robot, notes, joint)
    to_usd = rad_to_deg if joint.type in _ANGULAR_TYPES else float
    return to_usd(lower), to_usd(upper)


def _write_single_axis(prim, usd_joint, joint: Joint, robot: RobotIR, notes: Notes) -> None:
    axis = joint.axes[0]
    angular = joint.type in _ANGULAR_TYPES
    lower, upper = _single_axis_limits(joint, robot, notes)
    usd_joint.CreateLowerLimitAttr(lower)
    usd_joint.CreateUpperLimitAttr(upper)
    instance = "angular" if angular else "linear"
    _write_drive(prim, instance, axis, angular, robot, notes, joint)
    _write_axis_properties(prim, instance, axis, angular, robot, notes, joint)
    _write_initial_position(prim, instance, joint, 0, angular, notes)


def _write_drive(prim, instance: str, axis: JointAxis, angular: bool, robot: RobotIR, notes: Notes,
                 joint: Joint) -> None:
    drive = UsdPhysics.DriveAPI.Apply(prim, instance)
    create = {"type": drive.CreateTypeAttr, "stiffness": drive.CreateStiffnessAttr,
              "maxForce": drive.CreateMaxForceAttr, "targetPosition": drive.CreateTargetPositionAttr,
              "damping": drive.CreateDampingAttr}
    for name, value in drive_values(axis, angular, robot, notes, joint).items():
        create[name](value)


def drive_values(axis: JointAxis, angular: bool, robot: RobotIR, notes: Notes, joint: Joint) -> dict:
    """The PhysicsDriveAPI attributes of one axis (``drive:<instance>:physics:<name>``), in the
    order they are first authored, with their report entries."""
    values: dict = {"type": UsdPhysics.Tokens.force, "stiffness": 0.0}
    where = str(axis.source or joint.source)
    effort = axis.effort if axis.effort is not None else robot.defaults.effort
    velocity = axis.velocity if axis.velocity is not None else robot.defaults.velocity
    if axis.effort is None:
        notes.add(EntryKind.DEFAULT, where, f"joint {joint.name!r} effort",
                  "not written; the drive force is left unlimited")
    if effort is not None:
        values["maxForce"] = float(effort)
        if effort == 0.0:
            notes.add(EntryKind.WARNING, where, f"joint {joint.name!r} effort",
                      "is 0: the drive can apply no force")
    if axis.spring_stiffness is not None and axis.spring_stiffness != 0.0:
        # a spring pulls toward its reference: PhysX's drive force is k (target - q) + d (v* - v)
        reference = axis.spring_reference or 0.0
        stiffness = axis.spring_stiffness
        values["stiffness"] = angular_gain_per_rad_to_per_deg(stiffness) if angular else stiffness
        values["targetPosition"] = rad_to_deg(reference) if angular else reference
        notes.add(EntryKind.CHOICE, where, f"joint {joint.name!r} spring",
                  f"spring_stiffness {stiffness} and spring_reference {reference} written as the drive's "
                  "stiffness and target position")
        if effort is not None and math.isfinite(effort):
            notes.add(EntryKind.WARNING, where, f"joint {joint.name!r} spring",
                      f"the drive's maxForce (effort {effort}) also caps the spring force, which SDFormat does not")
    elif axis.spring_reference is not None:
        notes.add(EntryKind.DROPPED, where, f"joint {joint.name!r} spring_reference",
                  "a spring reference without stiffness exerts no force")
    if effort and velocity and 0.0 < effort < math.inf and 0.0 < velocity < math.inf:
        damping = effort / velocity
        values["damping"] = angular_gain_per_rad_to_per_deg(damping) if angular else damping
    else:
        values["damping"] = 0.0
        notes.add(EntryKind.CHOICE, where, f"joint {joint.name!r} drive",
                  "damping 0 (no effort and velocity limits to scale it from): set gains before driving")
    return values


def _write_axis_properties(prim, instance: str, axis: JointAxis, angular: bool, robot: RobotIR,
                           notes: Notes, joint: Joint) -> None:
    values = axis_property_values(axis, angular, robot, notes, joint)
    if not values:
        return
    prim.AddAppliedSchema(f"PhysxJointAxisAPI:{instance}")
    for name, value in values.items():
        prim.CreateAttribute(f"physxJointAxis:{instance}:{name}", Sdf.ValueTypeNames.Float).Set(value)


def axis_property_values(axis: JointAxis, angular: bool, robot: RobotIR, notes: Notes,
                         joint: Joint) -> dict[str, float]:
    """The PhysxJointAxisAPI attributes of one axis (``physxJointAxis:<instance>:<name>``), with
    their report entries; empty when none is written."""
    values: dict[str, float] = {}
    where = str(axis.source or joint.source)
    if axis.velocity is not None:
        if axis.velocity > 0.0:
            values["maxJointVelocity"] = rad_to_deg(axis.velocity) if angular else axis.velocity
        else:
            notes.add(EntryKind.WARNING, where, f"joint {joint.name!r} velocity",
                      f"limit {axis.velocity} would freeze the joint; written as unlimited")
    elif robot.defaults.velocity is None:
        notes.add(EntryKind.DEFAULT, where, f"joint {joint.name!r} velocity", "not written; left unlimited")
    damping = axis.damping if axis.damping is not None else robot.defaults.damping
    friction = axis.friction if axis.friction is not None else robot.defaults.friction
    if damping:
        values["viscousFrictionCoefficient"] = angular_gain_per_rad_to_per_deg(damping) if angular else damping
    if friction:
        values["staticFrictionEffort"] = friction
        values["dynamicFrictionEffort"] = friction
    return {name: float(value) for name, value in values.items()}


def _write_initial_position(prim, instance: str, joint: Joint, index: int, angular: bool, notes: Notes) -> None:
    """SDFormat ``initial_position`` as PhysX joint state (the articulation starts there)."""
    position = _initial_position(instance, joint, index, angular, notes)
    if position is None:
        return
    prim.AddAppliedSchema(f"PhysicsJointStateAPI:{instance}")
    prim.CreateAttribute(f"state:{instance}:physics:position", Sdf.ValueTypeNames.Float, custom=False).Set(position)
    prim.CreateAttribute(f"state:{instance}:physics:velocity", Sdf.ValueTypeNames.Float, custom=False).Set(0.0)


def _initial_position(instance: str, joint: Joint, index: int, angular: bool, notes: Notes) -> float | None:
    """The joint state position of axis ``index`` [deg or m], None when not written."""
    if index >= len(joint.initial_positions) or joint.initial_positions[index] is None:
        return None
    value = joint.initial_positions[index]
    notes.add(EntryKind.CHOICE, str(joint.source), f"joint {joint.name!r} initial_position",
              f"{value} written as joint state {instance} (bodies are placed at q = 0)")
    return float(rad_to_deg(value) if angular else value)


def _write_planar(prim, joint: Joint, robot: RobotIR, notes: Notes) -> None:
    """Free: rotation about the normal (X) and translation in the plane (Y, Z); the rest locked."""
    for instance in ("transX", "rotY", "rotZ"):
        limit = UsdPhysics.LimitAPI.Apply(prim, instance)
        limit.CreateLowAttr(_LOCK[0])
        limit.CreateHighAttr(_LOCK[1])
    axis = joint.axes[0]
    _write_drive(prim, "rotX", axis, True, robot, notes, joint)
    for instance in ("transY", "transZ"):
        _write_drive(prim, instance, axis, False, robot, notes, joint)
    notes.add(EntryKind.WARNING, str(joint.source), f"joint {joint.name!r}",
              "planar joints become a D6 joint; PhysX articulations ignore D6 translation axes")


def _write_two_rotations(prim, joint: Joint, robot: RobotIR, notes: Notes) -> None:
    for instance in ("transX", "transY", "transZ", "rotZ"):
        limit = UsdPhysics.LimitAPI.Apply(prim, instance)
        limit.CreateLowAttr(_LOCK[0])
        limit.CreateHighAttr(_LOCK[1])
    for instance, axis in zip(("rotX", "rotY"), joint.axes):
        lower = -math.inf if axis.lower is None else axis.lower
        upper = math.inf if axis.upper is None else axis.upper
        limit = UsdPhysics.LimitAPI.Apply(prim, instance)
        limit.CreateLowAttr(rad_to_deg(lower))
        limit.CreateHighAttr(rad_to_deg(upper))
        _write_drive(prim, instance, axis, True, robot, notes, joint)
        _write_axis_properties(prim, instance, axis, True, robot, notes, joint)
    for index, instance in enumerate(("rotX", "rotY")):
        _write_initial_position(prim, instance, joint, index, True, notes)


def _write_mimic(prim, joint: Joint, robot: RobotIR, notes: Notes, joint_paths: dict[str, Sdf.Path]) -> None:
    mimic = joint.mimic
    reference = joint_paths.get(mimic.reference)
    if joint.type not in (_ANGULAR_TYPES | {JointType.PRISMATIC}):
        notes.add(EntryKind.DROPPED, str(mimic.source), f"joint {joint.name!r} mimic",
                  f"a {joint.type.value} joint has no position to couple")
        return
    if reference is None or robot.joint(mimic.reference).type not in (_ANGULAR_TYPES | {JointType.PRISMATIC}):
        notes.add(EntryKind.DROPPED, str(mimic.source), f"joint {joint.name!r} mimic",
                  f"the reference joint {mimic.reference!r} is not a written single-axis joint")
        return
    if robot.joint(mimic.reference).type is JointType.CONTINUOUS:
        notes.add(EntryKind.WARNING, str(mimic.source), f"joint {joint.name!r} mimic",
                  f"reference {mimic.reference!r} is continuous: PhysX ignores a mimic whose reference has no limits")
    multiplier = robot.defaults.mimic_multiplier if mimic.multiplier is None else mimic.multiplier
    offset = robot.defaults.mimic_offset if mimic.offset is None else mimic.offset
    for name, value in (("multiplier", mimic.multiplier), ("offset", mimic.offset)):
        if value is None:
            notes.add(EntryKind.DEFAULT, str(mimic.source), f"joint {joint.name!r} mimic {name}",
                      f"not written; the {robot.defaults.format} default is used")
    reference_joint = robot.joint(mimic.reference)
    # PhysX relates the two positions in USD units (degrees for angular axes, metres for linear)
    follower_scale = rad_to_deg(1.0) if joint.type in _ANGULAR_TYPES else 1.0
    reference_scale = rad_to_deg(1.0) if reference_joint.type in _ANGULAR_TYPES else 1.0
    gearing = -multiplier * follower_scale / reference_scale
    offset_usd = -offset * follower_scale
    instance = "rotX"  # every written joint uses the token axis X
    prim.AddAppliedSchema(f"PhysxMimicJointAPI:{instance}")
    prefix = f"physxMimicJoint:{instance}"
    prim.CreateRelationship(f"{prefix}:referenceJoint").SetTargets([reference])
    prim.CreateAttribute(f"{prefix}:referenceJointAxis", Sdf.ValueTypeNames.Token, custom=False,
                         variability=Sdf.VariabilityUniform).Set("rotX")
    prim.CreateAttribute(f"{prefix}:gearing", Sdf.ValueTypeNames.Float).Set(float(gearing))
    prim.CreateAttribute(f"{prefix}:offset", Sdf.ValueTypeNames.Float).Set(float(offset_usd))

