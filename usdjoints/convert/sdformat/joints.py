"""``<joint>`` -> :class:`usdjoints.convert.ir.Joint` for the nine SDFormat joint types.

Frames: the joint frame J is resolved in the scope (see frames.py); the IR gets
``pose_in_parent = X_parent_J`` and ``pose_in_child = X_child_J`` and axis directions in J.

Types, and what the writer is told (RobotIR kinds; ``custom_data`` for what RobotIR lacks):

* revolute, continuous, prismatic, fixed: one to one.
* ball: no axis; a written ``<axis><limit>`` is reported (SDFormat gives ball joints no cone).
* universal, revolute2: two rotational axes (axis, axis2), each with its limits and dynamics.
* screw: one axis; ``thread_pitch`` [m/rad] is the translation per radian of rotation about the
  axis, positive for a right-handed thread: ``screw_thread_pitch`` [m/rev] / 2π when written
  (1.10+), else ``-1 / thread_pitch`` (the older element, in rad/m, positive = left-handed),
  else the default screw_thread_pitch of 1 m/rev.
* gearbox: ``custom_data["sdformat:gearbox_ratio"]`` (default 1) and
  ``["sdformat:gearbox_reference_body"]`` (the link both geared hinges share);
  SDFormat states ``theta_child = -ratio * theta_parent`` with both angles measured from the
  reference body, about axis and axis2.
"""
from __future__ import annotations

import math

from usdjoints.errors import InputError

from .. import ir
from ..report import EntryKind, ReportEntry
from .axes import SdfAxis, _number, read_axis
from .extras import JOINT_EXTRAS, element_pose, read_extra
from .frames import FrameGraph, fixed_model_frame
from .links import kept_note, source, source_of, to_ir_pose
from .parse import child_text
from .pose import Pose, where
from .scope import Decl

JOINT_TYPES = {
    "revolute": ir.JointType.REVOLUTE,
    "continuous": ir.JointType.CONTINUOUS,
    "prismatic": ir.JointType.PRISMATIC,
    "fixed": ir.JointType.FIXED,
    "ball": ir.JointType.BALL,
    "universal": ir.JointType.UNIVERSAL,
    "revolute2": ir.JointType.REVOLUTE2,
    "screw": ir.JointType.SCREW,
    "gearbox": ir.JointType.GEARBOX,
}
_AXIS_COUNT = {
    ir.JointType.FIXED: 0, ir.JointType.BALL: 0,
    ir.JointType.UNIVERSAL: 2, ir.JointType.REVOLUTE2: 2, ir.JointType.GEARBOX: 2,
}


def screw_thread_pitch_m_per_rad(joint: Decl) -> float:
    """Translation along the axis per radian of rotation [m/rad]; right-handed thread > 0."""
    new = _finite(joint, "screw_thread_pitch")
    if new is not None:
        return new / (2.0 * math.pi)
    value = _finite(joint, "thread_pitch")
    if value is not None:
        if value == 0.0:
            raise InputError(joint.where, f"screw joint '{joint.name}' has thread_pitch 0 (no translation per turn is defined)")
        return -1.0 / value
    return 1.0 / (2.0 * math.pi)


def _finite(joint: Decl, tag: str) -> float | None:
    """A pitch element's one finite number (libsdformat refuses a double it cannot parse)."""
    value = _number(joint.element, tag, None)
    if value is not None and not math.isfinite(value):
        raise InputError(where(joint.element.find(tag)), f"<{tag}> of screw joint '{joint.name}' is not finite")
    return value


def read_joint(graph: FrameGraph, d: Decl, name: str, prefix: str, X_root_scope: Pose,
               link_pose) -> tuple[ir.Joint, list[ReportEntry], tuple[ir.Extra, ...]]:
    """Joint ``d`` of ``graph``; ``prefix`` scopes link names; ``link_pose(name)`` = X_root_link.

    The third value holds the joint's sensors and plugins, placed in the child link's frame."""
    notes: list[ReportEntry] = []
    kind = d.element.get("type", "")
    joint_type = JOINT_TYPES.get(kind)
    if joint_type is None:
        raise InputError(d.where, f"joint '{d.name}' has unknown type '{kind}'",
                         f"use one of {', '.join(JOINT_TYPES)}")
    parent_body, child_body = graph.joint_bodies(d)
    parent = "world" if parent_body == "world" else prefix + parent_body
    child = prefix + child_body
    X_root_joint = X_root_scope.compose(graph.pose(d.name))
    X_root_parent = link_pose(parent)
    pose_in_parent = X_root_parent.inverse().compose(X_root_joint)
    pose_in_child = link_pose(child).inverse().compose(X_root_joint)

    wanted = _AXIS_COUNT.get(joint_type, 1)
    axes = []
    read = (read_axis(graph, d, "axis"), read_axis(graph, d, "axis2"))  # each read once: it parses
    for index, tag in enumerate(("axis", "axis2")):
        axis = read[index]
        if axis is None:
            if index < wanted and joint_type is not ir.JointType.GEARBOX:
                axis = _default_axis(graph, d, tag)
            else:
                continue
        if index >= wanted:
            if axis.lower is not None or axis.upper is not None:
                notes.append(ReportEntry(EntryKind.DROPPED, axis.where, f"joint {name}",
                                         f"<{tag}> of a {kind} joint is ignored (it has {wanted} axes)"))
            continue
        axes.append(_ir_axis(axis, graph.pose(d.name)))

    custom: dict[str, object] = {}
    mimic = None
    for index, axis in enumerate(read):
        if axis is None or axis.mimic is None:
            continue
        m = axis.mimic
        multiplier = 1.0 if m.multiplier is None else m.multiplier
        reference = 0.0 if m.reference is None else m.reference
        offset = 0.0 if m.offset is None else m.offset
        # follower = k (leader - reference) + offset = k leader + (offset - k reference)
        written = m.offset is not None or m.reference is not None
        mimic = ir.Mimic(prefix + m.joint, m.multiplier, offset - multiplier * reference if written else None,
                         source_of(m.where), axis_index=index)
        if m.axis != 0:
            custom["sdformat:mimic_leader_axis"] = m.axis
    for index, axis in enumerate(read):
        if axis is not None and (axis.limit_stiffness is not None or axis.limit_dissipation is not None):
            custom[f"sdformat:axis{index}_limit_stiffness"] = axis.limit_stiffness
            custom[f"sdformat:axis{index}_limit_dissipation"] = axis.limit_dissipation
            notes.append(ReportEntry(EntryKind.WARNING, axis.where, f"joint {name}",
                                     "limit stiffness/dissipation kept as custom data: UsdPhysics limits are hard"))

    thread_pitch = None
    gearbox_ratio = gearbox_reference = None
    if joint_type is ir.JointType.SCREW:
        thread_pitch = screw_thread_pitch_m_per_rad(d)
    if joint_type is ir.JointType.GEARBOX:
        gearbox_ratio = _number(d.element, "gearbox_ratio", 1.0)
        if not math.isfinite(gearbox_ratio):
            raise InputError(where(d.element.find("gearbox_ratio")),
                             f"<gearbox_ratio> of joint '{d.name}' is {gearbox_ratio}: a gear ratio is a finite number")
        custom["sdformat:gearbox_ratio"] = gearbox_ratio
        reference = child_text(d.element, "gearbox_reference_body")
        if reference is None or reference == "__default__":
            notes.append(ReportEntry(EntryKind.WARNING, d.where, f"joint {name}",
                                     "gearbox without <gearbox_reference_body>: its gear cannot name two hinges"))
        elif not graph.exists(reference):
            raise InputError(d.where, f"gearbox_reference_body '{reference}' of joint '{d.name}' names no link")
        else:
            body = graph.body(reference)
            gearbox_reference = "world" if body == "world" or fixed_model_frame(body) else prefix + body
            custom["sdformat:gearbox_reference_body"] = gearbox_reference
    extras = []
    X_child_joint = pose_in_child
    for element in d.element:
        if not (isinstance(element.tag, str) and element.tag in JOINT_EXTRAS):
            continue
        own, relative_to = element_pose(element)
        # placed in the child link, which carries the joint frame as it moves
        if relative_to:
            if relative_to == "__model__":
                relative_to = d.model_alias
            if not graph.exists(relative_to):
                raise InputError(where(element.find("pose")), f"relative_to '{relative_to}' names no frame of the model")
            X_child_frame = link_pose(child).inverse().compose(X_root_scope.compose(graph.pose(relative_to)))
        else:
            X_child_frame = X_child_joint
        pose = to_ir_pose(X_child_frame).compose(own or ir.IDENTITY)
        extra = read_extra(element, pose, owner=name)
        extras.append(extra)
        notes.append(kept_note(extra, f"joint {name}"))
    initial = tuple(_number(d.element, f"{tag}/initial_position", None) for tag in ("axis", "axis2")[:len(axes)])

    joint = ir.Joint(name, joint_type, parent, child, to_ir_pose(pose_in_parent), tuple(axes), source(d.element),
                     pose_in_child=to_ir_pose(pose_in_child), mimic=mimic, thread_pitch=thread_pitch,
                     gearbox_ratio=gearbox_ratio, gearbox_reference_body=gearbox_reference, custom_data=custom,
                     initial_positions=initial if any(v is not None for v in initial) else ())
    return joint, notes, tuple(extras)


def _default_axis(graph: FrameGraph, d: Decl, tag: str) -> SdfAxis:
    """An axis the file leaves out: the spec's direction in the joint frame, nothing else written."""
    xyz = (0.0, 0.0, 1.0) if tag == "axis" else (0.0, 1.0, 0.0)
    return SdfAxis(graph.pose(d.name).rotate(xyz), None, None, None, None, None, None, None, None, None, None,
                   None, d.where)


def _ir_axis(axis: SdfAxis, X_scope_joint: Pose) -> ir.JointAxis:
    xyz_in_joint = X_scope_joint.inverse().rotate(axis.xyz)
    return ir.JointAxis(
        xyz=tuple(xyz_in_joint), lower=axis.lower, upper=axis.upper, effort=axis.effort,
        velocity=axis.velocity, damping=axis.damping, friction=axis.friction,
        spring_stiffness=axis.spring_stiffness, spring_reference=axis.spring_reference,
        source=source_of(axis.where),
    )
