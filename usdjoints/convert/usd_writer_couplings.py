"""Screw and gearbox joints: couplings written as PhysX coupling joints over ordinary joints.

UsdPhysics has no screw or gear joint; PhysX has rack-and-pinion and gear joints that couple two
other joints, and usdjoints' simulator reads the same prims. So:

* Screw (SDFormat ``translation = thread_pitch · rotation`` along one axis, thread_pitch [m/rad]):
  the joint becomes three prims and one extra body. A body ``<joint>_screw_nut`` sits at the joint
  frame; ``<joint>_translation`` (a prismatic joint, parent link -> nut) and ``<joint>_rotation``
  (a revolute joint, nut -> child link) share the joint frame and axis, so the child's motion
  relative to the parent is the translation plus the rotation. ``<joint>`` itself is a
  ``PhysxPhysicsRackAndPinionJoint`` (body0 the child, body1 the nut, ``physics:hinge`` the
  rotation, ``physics:prismatic`` the translation) with ``physics:ratio = (180/π) / thread_pitch``
  [deg per m]: PhysX moves the rack at the pinion's speed [deg/s] divided by the ratio, which is
  thread_pitch [m/rad] times the rotation rate [rad/s], in SDFormat's sign. The nut gets
  1e-3 kg and 1e-6 kg·m² per axis: PhysX needs a positive mass on every body, and this one is
  small enough not to load the screw. Limits, drive and dynamics of the SDFormat axis go on the
  rotation. Measured with ovphysx 0.7: PhysX holds the rate ratio exactly (rotation/translation =
  1/thread_pitch, same sign), but its joint positions drift away from the ratio over time (its
  position correction does not follow a pinion that translates with the rack); the other orders
  tried (rotation first, rack anchored on the parent) broke the rates as well.
* Gearbox (SDFormat ``theta_child = -ratio · theta_parent``, both angles of the link relative to
  the reference body, about ``axis`` and ``axis2``): a ``PhysxPhysicsGearJoint`` between parent
  and child with ``physics:hinge0``/``hinge1`` the revolute joints that connect parent and child
  to the reference body. PhysX turns hinge1 at ``-gearRatio`` times hinge0, with each hinge's own
  position sign, so ``gearRatio = ratio · s0 · s1`` where ``s`` is -1 when the hinge's body0 is
  the geared link rather than the reference body, times -1 when its axis opposes the gearbox axis.
  The gearbox joint adds no degree of freedom; without a reference body or the two hinges it is
  dropped (reported).

Both coupling prims carry ``physics:excludeFromArticulation = true``: they constrain joints, they
are not tree edges.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from pxr import Gf, Sdf, Usd, UsdGeom, UsdPhysics

from ..units import rad_to_deg
from .ir import IDENTITY, Joint, JointAxis, JointType, Pose, RobotIR
from .report import EntryKind, Notes
from .usd_writer_joints import JointPlacement, write_joint

NUT_MASS = 1e-3  # [kg]
NUT_INERTIA = 1e-6  # [kg·m²]
RACK_TYPE = "PhysxPhysicsRackAndPinionJoint"
GEAR_TYPE = "PhysxPhysicsGearJoint"
_HINGES = (JointType.REVOLUTE, JointType.CONTINUOUS)


@dataclass(frozen=True, slots=True)
class ScrewPrims:
    """The prims one screw joint became."""

    coupling: Usd.Prim
    translation: Usd.Prim
    rotation: Usd.Prim
    nut: Sdf.Path


def write_screw(stage: Usd.Stage, place: JointPlacement, nut_path: Sdf.Path, nut_pose: Pose, robot: RobotIR,
                notes: Notes, joint_paths: dict[str, Sdf.Path]) -> ScrewPrims | None:
    """Authors the screw ``place.joint`` (see the module docstring); ``nut_pose`` in the robot frame."""
    joint = place.joint
    if joint.thread_pitch is None or joint.thread_pitch == 0.0 or not joint.axes:
        notes.add(EntryKind.DROPPED, str(joint.source), f"joint {joint.name!r}",
                  "a screw joint without a nonzero thread pitch and an axis cannot be coupled")
        return None
    axis = joint.axes[0]
    nut = UsdGeom.Xform.Define(stage, nut_path)
    nut.AddTranslateOp(UsdGeom.XformOp.PrecisionDouble).Set(Gf.Vec3d(*nut_pose.position))
    nut.AddOrientOp(UsdGeom.XformOp.PrecisionDouble).Set(Gf.Quatd(*nut_pose.orientation))
    UsdPhysics.RigidBodyAPI.Apply(nut.GetPrim())
    mass = UsdPhysics.MassAPI.Apply(nut.GetPrim())
    mass.CreateMassAttr(NUT_MASS)
    mass.CreateDiagonalInertiaAttr(Gf.Vec3f(NUT_INERTIA, NUT_INERTIA, NUT_INERTIA))
    mass.CreateCenterOfMassAttr(Gf.Vec3f(0.0))
    mass.CreatePrincipalAxesAttr(Gf.Quatf(1.0))  # OpenUSD's RigidBodyChecker wants both or neither
    nut.GetPrim().SetDisplayName(f"{joint.name} screw nut")

    nut_name = f"{joint.name}::screw_nut"
    translation = Joint(f"{joint.name}_translation", JointType.PRISMATIC, joint.parent, nut_name,
                        joint.pose_in_parent, (JointAxis(axis.xyz, source=axis.source),), joint.source)
    rotation = Joint(f"{joint.name}_rotation", JointType.REVOLUTE, nut_name, joint.child, IDENTITY, (axis,),
                     joint.source, pose_in_child=joint.pose_in_child)
    parent_path = place.path.GetParentPath()
    translation_path = parent_path.AppendChild(f"{place.path.name}_translation")
    rotation_path = parent_path.AppendChild(f"{place.path.name}_rotation")
    translation_prim = write_joint(stage, JointPlacement(translation, translation_path, place.body0, nut_path,
                                                         place.pose0, IDENTITY), robot, notes, joint_paths)
    # a screw that closes a loop keeps the nut in the tree and leaves the rotation out of it
    rotation_prim = write_joint(stage, JointPlacement(rotation, rotation_path, nut_path, place.body1,
                                                      IDENTITY, place.pose1, place.exclude_from_articulation),
                                robot, notes, joint_paths)

    coupling = stage.DefinePrim(place.path, RACK_TYPE)
    _bodies(coupling, place.body1, nut_path)
    coupling.CreateRelationship("physics:hinge").SetTargets([rotation_path])
    coupling.CreateRelationship("physics:prismatic").SetTargets([translation_path])
    coupling.CreateAttribute("physics:ratio", Sdf.ValueTypeNames.Float).Set(rad_to_deg(1.0) / joint.thread_pitch)
    coupling.CreateAttribute("physics:excludeFromArticulation", Sdf.ValueTypeNames.Bool).Set(True)
    coupling.SetCustomDataByKey("usdjoints:screw_thread_pitch_m_per_rad", float(joint.thread_pitch))
    return ScrewPrims(coupling, translation_prim, rotation_prim, nut_path)


def write_gear(stage: Usd.Stage, joint: Joint, path: Sdf.Path, robot: RobotIR, notes: Notes,
               body_paths: dict[str, Sdf.Path], joint_paths: dict[str, Sdf.Path],
               poses: dict[str, Pose]) -> Usd.Prim | None:
    """Authors the gearbox ``joint`` as a gear over its two hinges (see the module docstring)."""
    reference = joint.gearbox_reference_body
    where = str(joint.source)
    if reference is None:
        notes.add(EntryKind.DROPPED, where, f"joint {joint.name!r}",
                  "a gearbox without a reference body names no hinges to couple")
        return None
    hinges = []
    for index, link in enumerate((joint.parent, joint.child)):
        hinge = _hinge_between(robot, link, reference)
        if hinge is None or hinge.name not in joint_paths:
            notes.add(EntryKind.DROPPED, where, f"joint {joint.name!r}",
                      f"no written revolute joint connects {link!r} to the reference body {reference!r}")
            return None
        sign = 1.0 if hinge.child == link else -1.0
        if index < len(joint.axes) and joint.axes[index].xyz is not None:
            gear_axis = _world_axis(poses, joint.parent, joint.pose_in_parent, joint.axes[index].xyz)
            hinge_axis = _world_axis(poses, hinge.parent, hinge.pose_in_parent,
                                     hinge.axes[0].xyz or robot.defaults.axis)
            if sum(a * b for a, b in zip(gear_axis, hinge_axis)) < 0.0:
                sign = -sign
        hinges.append((hinge, sign))
    ratio = 1.0 if joint.gearbox_ratio is None else joint.gearbox_ratio
    gear_ratio = ratio * hinges[0][1] * hinges[1][1]
    prim = stage.DefinePrim(path, GEAR_TYPE)
    _bodies(prim, body_paths.get(joint.parent), body_paths.get(joint.child))
    prim.CreateRelationship("physics:hinge0").SetTargets([joint_paths[hinges[0][0].name]])
    prim.CreateRelationship("physics:hinge1").SetTargets([joint_paths[hinges[1][0].name]])
    prim.CreateAttribute("physics:gearRatio", Sdf.ValueTypeNames.Float).Set(float(gear_ratio))
    prim.CreateAttribute("physics:excludeFromArticulation", Sdf.ValueTypeNames.Bool).Set(True)
    prim.SetCustomDataByKey("usdjoints:gearbox_ratio", float(ratio))
    return prim


def _bodies(prim: Usd.Prim, body0: Sdf.Path | None, body1: Sdf.Path | None) -> None:
    if body0 is not None:
        prim.CreateRelationship("physics:body0").SetTargets([body0])
    if body1 is not None:
        prim.CreateRelationship("physics:body1").SetTargets([body1])


def _hinge_between(robot: RobotIR, link: str, reference: str) -> Joint | None:
    for joint in robot.joints:
        if joint.type in _HINGES and {joint.parent, joint.child} == {link, reference}:
            return joint
    return None


def _world_axis(poses: dict[str, Pose], parent: str, pose_in_parent: Pose | None, xyz) -> tuple:
    frame = poses.get(parent, IDENTITY).compose(pose_in_parent or IDENTITY)
    norm = math.sqrt(sum(v * v for v in xyz)) or 1.0
    return frame.rotate(tuple(v / norm for v in xyz))
