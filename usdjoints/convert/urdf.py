"""URDF -> RobotIR: parses with lxml, keeps each element's line and leaves unwritten values as None.

Follows the URDF specification (and urdfdom where the specification is silent): joint origins are
parent-to-joint transforms, the child link frame is the joint frame, axes are in the joint frame.
Structural errors (bad XML, unknown links, cycles, two roots, NaN, a zero axis on a moving joint,
an unknown joint type, a negative mass) raise :class:`~usdjoints.errors.InputError` with file:line.

XML is read as urdfdom's parser (tinyxml2) reads it (:mod:`usdjoints.convert.urdf_xml`).
``<robot version>`` must be 1.0, 1.1 or 1.2 when written, as urdfdom requires.

Every element and attribute is accounted for: the reader records what it reads, and whatever it
did not read is listed in the report as dropped with its file:line (:data:`URDF_ELEMENTS` says
which elements and attributes of the URDF specification are converted and which are dropped).
"""
from __future__ import annotations

import dataclasses
import math
import os
import re
from pathlib import Path
from typing import Mapping, Sequence

from ..errors import InputError
from .float32 import beyond_float32, mass_underflows, overflow_message, underflow_message
from .ir import (
    Box, Capsule, Collision, Cylinder, Inertia, Inertial, Joint, JointAxis, JointType, Link, Material,
    MeshRef, Mimic, Pose, RobotIR, SourceRef, SpecDefaults, Sphere, Visual,
)
from .report import EntryKind, ReportEntry
from .resolve import ResourceLocator, ResourceRefused
from .topology import build_tree
from .urdf_xml import parse_xml

URDF_DEFAULTS = SpecDefaults(
    format="urdf",
    axis=(1.0, 0.0, 0.0),
    mass=0.0,
    inertia=Inertia(0.0, 0.0, 0.0),
    lower=0.0,
    upper=0.0,
    effort=None,  # required by urdfdom; a file without it gets no force cap (reported)
    velocity=None,
    damping=0.0,
    friction=0.0,
    mimic_multiplier=1.0,
    mimic_offset=0.0,
)

WORLD_LINK_NAME = "world"

_JOINT_TYPES = {
    "revolute": JointType.REVOLUTE,
    "continuous": JointType.CONTINUOUS,
    "prismatic": JointType.PRISMATIC,
    "fixed": JointType.FIXED,
    "floating": JointType.FLOATING,
    "planar": JointType.PLANAR,
}
_MOVING = {JointType.REVOLUTE, JointType.CONTINUOUS, JointType.PRISMATIC, JointType.PLANAR}

_ORIGIN = frozenset({"xyz", "rpy"})
_SHAPES = {
    "box": frozenset({"size"}),
    "cylinder": frozenset({"radius", "length"}),
    "sphere": frozenset({"radius"}),
    "mesh": frozenset({"filename", "scale"}),
    "capsule": frozenset({"radius", "length"}),  # not in urdfdom; read by pybullet and Isaac's importer
}


def _shape_elements(prefix: str) -> dict[str, frozenset[str]]:
    table = {f"{prefix}/geometry": frozenset()}
    table.update({f"{prefix}/geometry/{tag}": attributes for tag, attributes in _SHAPES.items()})
    return table


# Every element of the URDF specification (ROS wiki urdf/XML and urdfdom's parser), by path:
# the attributes read into the model, or, for an element that is not converted, why. What the
# writer cannot author from a value read (a texture, a continuous joint's limits) it reports
# itself. Elements and attributes outside this table are reported as "not a URDF element".
CONVERTED_ELEMENTS: dict[str, frozenset[str]] = {
    "robot": frozenset({"name", "version"}),
    "robot/material": frozenset({"name"}),
    "robot/material/color": frozenset({"rgba"}),
    "robot/material/texture": frozenset({"filename"}),
    "robot/link": frozenset({"name"}),
    "robot/link/inertial": frozenset(),
    "robot/link/inertial/origin": _ORIGIN,
    "robot/link/inertial/mass": frozenset({"value"}),
    "robot/link/inertial/inertia": frozenset({"ixx", "ixy", "ixz", "iyy", "iyz", "izz"}),
    "robot/link/visual": frozenset({"name"}),
    "robot/link/visual/origin": _ORIGIN,
    **_shape_elements("robot/link/visual"),
    "robot/link/visual/material": frozenset({"name"}),
    "robot/link/visual/material/color": frozenset({"rgba"}),
    "robot/link/visual/material/texture": frozenset({"filename"}),
    "robot/link/collision": frozenset({"name"}),
    "robot/link/collision/origin": _ORIGIN,
    **_shape_elements("robot/link/collision"),
    "robot/joint": frozenset({"name", "type"}),
    "robot/joint/origin": _ORIGIN,
    "robot/joint/parent": frozenset({"link"}),
    "robot/joint/child": frozenset({"link"}),
    "robot/joint/axis": frozenset({"xyz"}),
    "robot/joint/limit": frozenset({"lower", "upper", "effort", "velocity"}),
    "robot/joint/dynamics": frozenset({"damping", "friction"}),
    "robot/joint/mimic": frozenset({"joint", "multiplier", "offset"}),
    # kept as the joint prim's customData urdf:safety_controller / urdf:calibration
    "robot/joint/safety_controller": frozenset({"soft_lower_limit", "soft_upper_limit", "k_position",
                                                "k_velocity"}),
    "robot/joint/calibration": frozenset({"rising", "falling", "reference_position"}),
}
DROPPED_ELEMENTS: dict[str, str] = {
    "robot/transmission": "a ros_control transmission (actuators, reductions, hardware interfaces); "
                          "UsdPhysics has no actuator model; not converted",
    "robot/gazebo": "a Gazebo extension block (plugins, sensors, friction and solver settings for Gazebo); "
                    "not converted",
    "robot/sensor": "a urdfdom sensor (camera or ray); not converted",
}
# a value xacro would have replaced (${expression}, $(arg x), $(find pkg)): the file is a xacro source
_XACRO_EXPRESSION = re.compile(r"\$\{|\$\(")
XACRO_HINT = "the file holds xacro expressions; expand it with xacro first: xacro robot.urdf.xacro > robot.urdf"
_URDF_VERSION = re.compile(r"([0-9]+)\.([0-9]+)$")
_URDF_VERSIONS = ((1, 0), (1, 2))  # the versions urdfdom reads


def read_urdf(
    path: str | os.PathLike,
    *,
    packages: Mapping[str, str] | None = None,
    resource_paths: Sequence[str] | None = None,
    confine: bool = False,
) -> RobotIR:
    """Reads a URDF file into a RobotIR (see :mod:`usdjoints.convert.ir` for the conventions).

    ``confine``: meshes are read only from inside the file's folder, the ``packages`` folders and
    the ``resource_paths`` (see :mod:`usdjoints.convert.resolve`); any other is refused.
    """
    file = str(path)
    root, xml_notes = parse_xml(file)
    reader = _Reader(file, ResourceLocator(str(Path(file).resolve().parent), dict(packages or {}),
                                           tuple(resource_paths or ()), confine=confine))
    reader.notes.extend(xml_notes)
    try:
        robot = reader.robot(root)
    except _Unparsed as error:  # refused outside a link's shapes: a plain InputError to the caller
        raise InputError(error.where, error.message, error.hint) from None
    build_tree(robot)  # raises on unknown links, several parents, several roots, cycles
    return robot


def _tag(element) -> str:
    tag = element.tag
    if tag.startswith("{"):
        namespace, _, local = tag[1:].partition("}")
        return f"{local} (namespace {namespace})"
    return tag


# unread attributes of one element reported one by one; the rest in one entry (libxml2 finds an
# attribute's value by scanning the element's attributes, so listing each of 100,000 took minutes)
LISTED_ATTRIBUTES = 100

class _Unparsed(InputError):
    """A value urdfdom cannot parse (a wrong count of numbers, text that is no number, nan, inf or
    a number beyond double range, a missing attribute): refused in a joint, the robot or an
    inertial; a link's visual or collision holding one is dropped, as urdfdom drops it."""


class _Reader:
    def __init__(self, file: str, locator: ResourceLocator):
        self.file = file
        self.locator = locator
        self.notes: list[ReportEntry] = []
        # every element the reader took, with the attributes it read (the rest is reported)
        self.used: dict[object, set[str]] = {}

    # -- helpers ---------------------------------------------------------------------------------

    def where(self, element) -> SourceRef:
        return SourceRef(self.file, element.sourceline)

    def error(self, element, message: str, hint: str | None = None) -> InputError:
        return InputError(str(self.where(element)), message, hint)

    def note(self, kind: EntryKind, element, what: str, message: str) -> None:
        self.notes.append(ReportEntry(kind, str(self.where(element)), what, message))

    def take(self, element):
        if element is not None and element not in self.used:
            self.used[element] = set()
        return element

    def child(self, parent, tag: str):
        return self.take(parent.find(tag))

    def children(self, parent, tag: str) -> list:
        found = parent.findall(tag)
        for element in found:
            self.take(element)
        return found

    def get(self, element, attribute: str) -> str | None:
        self.used[element].add(attribute)
        return element.get(attribute)

    def floats(self, element, attribute: str, count: int) -> tuple[float, ...] | None:
        text = self.get(element, attribute)
        if text is None:
            return None
        parts = text.split()
        try:  # urdfdom reads with an istringstream: Python's digit separators ("1_000") are no number,
            # nor is anything beyond ASCII (Python's float reads "\u0661" and splits at a no-break space)
            values = tuple(float(p) for p in parts if "_" not in p) if text.isascii() else ()
        except ValueError:
            values = ()
        if len(values) != count:
            hint = XACRO_HINT if _XACRO_EXPRESSION.search(text) else None
            raise _Unparsed(str(self.where(element)), f"<{element.tag} {attribute}={text!r}> needs {count} "
                            f"number{'s' if count != 1 else ''}", hint)
        if not all(math.isfinite(v) for v in values):  # nor can urdfdom's istringstream read nan, inf, 1e400
            raise _Unparsed(str(self.where(element)), f"<{element.tag} {attribute}={text!r}> is not finite",
                            "write finite numbers")
        if beyond_float32(values):
            raise self.error(element, overflow_message(f"<{element.tag} {attribute}={text!r}>"))
        return values

    def scalar(self, element, attribute: str) -> float | None:
        values = self.floats(element, attribute, 1)
        return None if values is None else values[0]

    def required(self, element, attribute: str) -> str:
        value = self.get(element, attribute)
        if value is None:
            raise _Unparsed(str(self.where(element)), f"<{element.tag}> needs the attribute {attribute!r}")
        if value == "":
            raise _Unparsed(str(self.where(element)), f"<{element.tag}> has an empty {attribute!r} attribute")
        return value

    def origin(self, parent) -> Pose | None:
        element = self.child(parent, "origin")
        if element is None:
            return None
        xyz = self.floats(element, "xyz", 3) or (0.0, 0.0, 0.0)
        rpy = self.floats(element, "rpy", 3) or (0.0, 0.0, 0.0)
        return Pose.from_xyz_rpy(xyz, rpy)

    def resolve(self, element, uri: str):
        try:
            return self.locator.resolve(uri)
        except ResourceRefused as error:
            raise self.error(element, str(error)) from error

    # -- elements --------------------------------------------------------------------------------

    def robot(self, root) -> RobotIR:
        if root.tag != "robot":
            raise self.error(root, f"the root element is <{root.tag}>, not <robot>", "is this a URDF file?")
        self.take(root)
        version = self.get(root, "version")
        if version is not None:
            match = _URDF_VERSION.match(version)
            number = (int(match.group(1)), int(match.group(2))) if match else None
            if number is None or not _URDF_VERSIONS[0] <= number <= _URDF_VERSIONS[1]:
                raise self.error(root, f"<robot version={version!r}>: URDF versions are 1.0 to 1.2, "
                                       "written as x.y (urdfdom rejects this file)",
                                 "remove the attribute or write 1.0")
        name = self.get(root, "name")
        if not name:
            name = Path(self.file).stem
            self.note(EntryKind.WARNING, root, "<robot>",
                      f"has no name (urdfdom rejects such a file); the file's name {name!r} is used")
        materials = {}
        for element in self.children(root, "material"):
            material = self.material(element)
            if material.name:
                materials[material.name] = material
        links, seen = [], {}
        for element in self.children(root, "link"):
            link = self.link(element, materials)
            if link.name in seen:
                raise self.error(element, f"link {link.name!r} is defined twice (first at {seen[link.name]})")
            seen[link.name] = link.source
            links.append(link)
        if not links:
            raise self.error(root, "the robot has no <link>")
        joints, joint_seen = [], {}
        for element in self.children(root, "joint"):
            joint = self.joint(element)
            if joint.name in joint_seen:
                raise self.error(element, f"joint {joint.name!r} is defined twice (first at {joint_seen[joint.name]})")
            joint_seen[joint.name] = joint.source
            joints.append(joint)
        for index, joint in enumerate(joints):
            if joint.mimic is not None and joint.mimic.reference not in joint_seen:
                # urdfdom (and so pinocchio) loads such a file: the joint is kept, free
                self.notes.append(ReportEntry(
                    EntryKind.WARNING, str(joint.mimic.source), f"joint {joint.name!r} mimic",
                    f"mimics {joint.mimic.reference!r}, which is not a joint; written without the coupling"))
                joints[index] = dataclasses.replace(joint, mimic=None)
        self.account(root, "robot")
        world = WORLD_LINK_NAME if any(link.name == WORLD_LINK_NAME for link in links) else None
        if world is not None and not any(j.child == world for j in joints):
            world_link = next(link for link in links if link.name == world)
            if world_link.inertial or world_link.visuals or world_link.collisions:
                self.notes.append(ReportEntry(EntryKind.DROPPED, str(world_link.source), "link 'world'",
                                              "the root link named 'world' stands for the world frame; "
                                              "its inertial and geometry are not written"))
        else:
            world = None
        return RobotIR(
            name=name, links=tuple(links), joints=tuple(joints), source=self.where(root),
            defaults=URDF_DEFAULTS, world_link=world, materials=materials, notes=tuple(self.notes),
        )

    def account(self, element, path: str) -> None:
        """Reports, as dropped with file:line, every element and attribute the reader did not take."""
        used = self.used.get(element)
        if used is None:
            self.note(EntryKind.DROPPED, element, f"<{_tag(element)}>",
                      self.named(element) + self.drop_reason(element, path))
            return
        unread = [attribute for attribute in element.keys() if attribute not in used]
        for attribute in unread[:LISTED_ATTRIBUTES]:
            known = attribute in CONVERTED_ELEMENTS.get(path, ())
            why = ("not used here; not converted" if known
                   else f"is not a URDF attribute of <{element.tag}>; not converted")
            self.note(EntryKind.DROPPED, element, f"<{element.tag} {attribute}={element.get(attribute)!r}>", why)
        if len(unread) > LISTED_ATTRIBUTES:
            self.note(EntryKind.DROPPED, element, f"<{element.tag}> {len(unread) - LISTED_ATTRIBUTES} more attributes",
                      "not URDF attributes of this element; not converted")
        if element.text and element.text.strip():
            self.note(EntryKind.DROPPED, element, f"<{element.tag}> text",
                      f"{element.text.strip()[:40]!r}: URDF elements hold no text; not converted")
        for child in element:
            if isinstance(child.tag, str):
                self.account(child, f"{path}/{child.tag}")

    @staticmethod
    def named(element) -> str:
        for key in ("name", "reference"):
            if element.get(key) is not None:
                return f"{key}={element.get(key)!r}: "
        return ""

    def drop_reason(self, element, path: str) -> str:
        if path in DROPPED_ELEMENTS:
            return DROPPED_ELEMENTS[path]
        if path in CONVERTED_ELEMENTS:
            parent = element.getparent()
            if parent is not None and parent.find(element.tag) is not element:
                return (f"a further <{element.tag}> in <{parent.tag}>: only the first is read, as urdfdom "
                        "reads it; not converted")
            if parent is not None and parent.tag == "geometry":
                return "a further shape in <geometry>: only the first is read, as urdfdom reads it; not converted"
            if parent is not None and parent.tag == "joint":
                return f"a {parent.get('type')} joint has no {element.tag}; not converted"
            return "not used here; not converted"
        return f"is not a URDF element here ({path.replace('/', ' > ')}); not converted"

    def material(self, element) -> Material:
        self.take(element)
        name = self.get(element, "name")
        color = self.child(element, "color")
        rgba = self.floats(color, "rgba", 4) if color is not None else None
        texture_element = self.child(element, "texture")
        texture = None
        if texture_element is not None and self.get(texture_element, "filename"):
            uri = texture_element.get("filename")
            try:  # a texture is named in the report, never read: a refused one keeps its URI
                found = self.locator.resolve(uri)
            except ResourceRefused:
                found = None
            texture = (found.path if found is not None else None) or uri
        return Material(name, rgba, texture, self.where(element))

    def link(self, element, materials: Mapping[str, Material]) -> Link:
        name = self.required(element, "name")
        inertial_element = self.child(element, "inertial")
        inertial = self.inertial(inertial_element, name) if inertial_element is not None else None
        # urdfdom stops reading a link's shapes at the first visual or collision it cannot parse
        # and keeps the link (its parseLink's false is not checked): measured through pinocchio,
        # a failed visual leaves the link no visuals and no collisions, a failed collision no
        # collisions; the inertial and the joints stay
        visuals, collisions = (), ()
        try:
            visuals = tuple(self.visual(v, materials) for v in self.children(element, "visual"))
        except _Unparsed as error:
            self.note(EntryKind.WARNING, element, f"link {name!r} <visual>", f"{error.where}: {error.message}: "
                      "urdfdom stops reading the link's shapes there: its visuals and collisions are dropped")
            return Link(name, inertial, (), (), self.where(element))
        try:
            collisions = tuple(
                Collision(self.get(c, "name"), self.origin(c), self.geometry(c), self.where(c))
                for c in self.children(element, "collision")
            )
        except _Unparsed as error:
            self.note(EntryKind.WARNING, element, f"link {name!r} <collision>", f"{error.where}: {error.message}: "
                      "urdfdom stops reading the link's shapes there: its collisions are dropped")
        return Link(name, inertial, visuals, collisions, self.where(element))

    def inertial(self, element, link_name: str) -> Inertial:
        mass_element = self.child(element, "mass")
        mass = self.scalar(mass_element, "value") if mass_element is not None else None
        if mass is not None and mass < 0.0:
            raise self.error(mass_element, f"link {link_name!r} has negative mass {mass}", "a mass is >= 0 [kg]")
        if mass is not None and mass_underflows(mass):
            raise self.error(mass_element, f"link {link_name!r}: {underflow_message(mass)}")
        inertia_element = self.child(element, "inertia")
        inertia = None
        if inertia_element is not None:
            values = {}
            for key in ("ixx", "iyy", "izz", "ixy", "ixz", "iyz"):
                value = self.scalar(inertia_element, key)
                if value is None:
                    raise self.error(inertia_element, f"<inertia> of link {link_name!r} lacks {key!r}",
                                     "write all six of ixx ixy ixz iyy iyz izz")
                values[key] = value
            inertia = Inertia(**values)
        return Inertial(mass, self.origin(element), inertia, self.where(element))

    def visual(self, element, materials: Mapping[str, Material]) -> Visual:
        material_element = self.child(element, "material")
        material = None
        if material_element is not None:
            inline = self.material(material_element)
            if inline.rgba is None and inline.texture is None and inline.name in materials:
                material = materials[inline.name]
            elif inline.rgba is None and inline.texture is None:
                self.note(EntryKind.DROPPED, material_element, f"material {inline.name!r}",
                          "names no color or texture and no top-level material of that name")
            else:
                material = inline
        return Visual(self.get(element, "name"), self.origin(element), self.geometry(element), material,
                      self.where(element))

    def geometry(self, parent):
        element = self.child(parent, "geometry")
        if element is None:
            self.note(EntryKind.DROPPED, parent, f"<{parent.tag}>", "has no <geometry>")
            return None
        shapes = [child for child in element if isinstance(child.tag, str)]
        if not shapes:
            self.note(EntryKind.DROPPED, element, "<geometry>", "is empty")
            return None
        shape = shapes[0]  # urdfdom reads the first child element; the others are reported
        if shape.tag not in _SHAPES:
            return None  # reported by account() as not a URDF geometry kind
        self.take(shape)
        if shape.tag == "box":
            return Box(self.floats(shape, "size", 3))
        if shape.tag == "cylinder":
            return Cylinder(self.scalar(shape, "radius"), self.scalar(shape, "length"))
        if shape.tag == "sphere":
            return Sphere(self.scalar(shape, "radius"))
        if shape.tag == "capsule":
            return Capsule(self.scalar(shape, "radius"), self.scalar(shape, "length"))
        uri = self.required(shape, "filename")
        found = self.resolve(shape, uri)
        return MeshRef(uri, found.path, self.floats(shape, "scale", 3), found.searched)

    def joint(self, element) -> Joint:
        name = self.required(element, "name")
        type_name = self.required(element, "type")
        if type_name not in _JOINT_TYPES:
            raise self.error(element, f"joint {name!r} has unknown type {type_name!r}",
                             f"use one of {', '.join(_JOINT_TYPES)}")
        joint_type = _JOINT_TYPES[type_name]
        parent = self.child(element, "parent")
        child = self.child(element, "child")
        if parent is None or child is None:
            raise self.error(element, f"joint {name!r} needs <parent link=...> and <child link=...>")
        axis = self.axis(element, name, joint_type)
        mimic_element = self.child(element, "mimic")
        mimic = None
        if mimic_element is not None:
            # urdfdom takes joint="" as a name like any other (check_urdf loads it): it names no
            # joint, and the coupling is dropped with the warning of any unknown joint
            reference = self.get(mimic_element, "joint")
            if reference is None:
                reference = self.required(mimic_element, "joint")  # refused: urdfdom's parse fails
            mimic = Mimic(reference, self.scalar(mimic_element, "multiplier"),
                          self.scalar(mimic_element, "offset"), self.where(mimic_element))
        custom: dict[str, object] = {}
        for tag in ("safety_controller", "calibration"):
            extra = self.child(element, tag)
            if extra is not None:
                known = CONVERTED_ELEMENTS[f"robot/joint/{tag}"]
                custom[f"urdf:{tag}"] = {key: self.scalar(extra, key) for key in extra.attrib if key in known}
        return Joint(
            name=name, type=joint_type, parent=self.required(parent, "link"), child=self.required(child, "link"),
            pose_in_parent=self.origin(element), axes=(axis,) if axis is not None else (),
            source=self.where(element), mimic=mimic, custom_data=custom,
        )

    def axis(self, element, name: str, joint_type: JointType) -> JointAxis | None:
        if joint_type not in _MOVING:
            return None
        axis_element = self.child(element, "axis")
        xyz = self.floats(axis_element, "xyz", 3) if axis_element is not None else None
        if xyz is not None and math.sqrt(sum(v * v for v in xyz)) < 1e-12:
            raise self.error(axis_element, f"joint {name!r} has a zero axis", "write a nonzero direction")
        limit = self.child(element, "limit")
        dynamics = self.child(element, "dynamics")
        lower = upper = effort = velocity = None
        if limit is not None:
            lower, upper = self.scalar(limit, "lower"), self.scalar(limit, "upper")
            effort, velocity = self.scalar(limit, "effort"), self.scalar(limit, "velocity")
            if effort is not None and effort < 0.0:  # files written for Gazebo write -1: "no limit" in SDFormat
                self.note(EntryKind.WARNING, limit, f"joint {name!r} effort",
                          f"negative effort limit {effort} read as no limit, as SDFormat (Gazebo) reads a negative effort")
                effort = None
        elif joint_type in (JointType.REVOLUTE, JointType.PRISMATIC):
            self.note(EntryKind.WARNING, element, f"joint {name!r}",
                      f"a {joint_type.value} joint without <limit> (the URDF spec requires one); "
                      "written without position limits, force cap or velocity limit")
        damping = friction = None
        if dynamics is not None:
            damping, friction = self.scalar(dynamics, "damping"), self.scalar(dynamics, "friction")
        return JointAxis(xyz, lower, upper, effort, velocity, damping, friction,
                         source=self.where(axis_element if axis_element is not None else element))
