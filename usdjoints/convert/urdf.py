"""URDF -> RobotIR: parses with lxml, keeps each element's line and leaves unwritten values as None.

Follows the URDF specification (and urdfdom where the specification is silent): joint origins are
parent-to-joint transforms, the child link frame is the joint frame, axes are in the joint frame.
Structural errors (bad XML, unknown links, cycles, two roots, NaN, a zero axis on a moving joint,
an unknown joint type, a negative mass) raise :class:`~usdjoints.errors.InputError` with file:line.
"""
from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Mapping, Sequence

from lxml import etree

from ..errors import InputError
from .ir import (
    Box, Capsule, Collision, Cylinder, Inertia, Inertial, Joint, JointAxis, JointType, Link, Material,
    MeshRef, Mimic, Pose, RobotIR, SourceRef, SpecDefaults, Sphere, Visual,
)
from .report import EntryKind, ReportEntry
from .resolve import ResourceLocator
from .topology import build_tree

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
_KNOWN_ROBOT_CHILDREN = {"link", "joint", "material"}


def read_urdf(
    path: str | os.PathLike,
    *,
    packages: Mapping[str, str] | None = None,
    resource_paths: Sequence[str] | None = None,
) -> RobotIR:
    """Reads a URDF file into a RobotIR (see :mod:`usdjoints.convert.ir` for the conventions)."""
    file = str(path)
    try:
        tree = etree.parse(file, etree.XMLParser(remove_comments=True, resolve_entities=False))
    except OSError as error:
        raise InputError(file, f"cannot read the file: {error}") from error
    except etree.XMLSyntaxError as error:
        line = error.lineno if error.lineno else None
        raise InputError(str(SourceRef(file, line)), f"not well-formed XML: {error.msg}",
                         "fix the XML syntax") from error
    reader = _Reader(file, ResourceLocator(str(Path(file).resolve().parent), dict(packages or {}),
                                           tuple(resource_paths or ())))
    robot = reader.robot(tree.getroot())
    build_tree(robot)  # raises on unknown links, several parents, several roots, cycles
    return robot


class _Reader:
    def __init__(self, file: str, locator: ResourceLocator):
        self.file = file
        self.locator = locator
        self.notes: list[ReportEntry] = []

    # -- helpers ---------------------------------------------------------------------------------

    def where(self, element) -> SourceRef:
        return SourceRef(self.file, element.sourceline)

    def error(self, element, message: str, hint: str | None = None) -> InputError:
        return InputError(str(self.where(element)), message, hint)

    def note(self, kind: EntryKind, element, what: str, message: str) -> None:
        self.notes.append(ReportEntry(kind, str(self.where(element)), what, message))

    def floats(self, element, attribute: str, count: int) -> tuple[float, ...] | None:
        text = element.get(attribute)
        if text is None:
            return None
        parts = text.split()
        try:
            values = tuple(float(p) for p in parts)
        except ValueError:
            values = ()
        if len(values) != count:
            raise self.error(element, f"<{element.tag} {attribute}={text!r}> needs {count} numbers")
        if not all(math.isfinite(v) for v in values):
            raise self.error(element, f"<{element.tag} {attribute}={text!r}> is not finite",
                             "write finite numbers")
        return values

    def scalar(self, element, attribute: str) -> float | None:
        values = self.floats(element, attribute, 1)
        return None if values is None else values[0]

    def required(self, element, attribute: str) -> str:
        value = element.get(attribute)
        if value is None or value == "":
            raise self.error(element, f"<{element.tag}> needs the attribute {attribute!r}")
        return value

    def origin(self, parent) -> Pose | None:
        element = parent.find("origin")
        if element is None:
            return None
        xyz = self.floats(element, "xyz", 3) or (0.0, 0.0, 0.0)
        rpy = self.floats(element, "rpy", 3) or (0.0, 0.0, 0.0)
        return Pose.from_xyz_rpy(xyz, rpy)

    # -- elements --------------------------------------------------------------------------------

    def robot(self, root) -> RobotIR:
        if root.tag != "robot":
            raise self.error(root, f"the root element is <{root.tag}>, not <robot>", "is this a URDF file?")
        name = root.get("name") or Path(self.file).stem
        materials = {}
        for element in root.findall("material"):
            material = self.material(element)
            if material.name:
                materials[material.name] = material
        links, seen = [], {}
        for element in root.findall("link"):
            link = self.link(element, materials)
            if link.name in seen:
                raise self.error(element, f"link {link.name!r} is defined twice (first at {seen[link.name]})")
            seen[link.name] = link.source
            links.append(link)
        if not links:
            raise self.error(root, "the robot has no <link>")
        joints, joint_seen = [], {}
        for element in root.findall("joint"):
            joint = self.joint(element)
            if joint.name in joint_seen:
                raise self.error(element, f"joint {joint.name!r} is defined twice (first at {joint_seen[joint.name]})")
            joint_seen[joint.name] = joint.source
            joints.append(joint)
        for joint in joints:
            if joint.mimic is not None and joint.mimic.reference not in joint_seen:
                raise InputError(str(joint.mimic.source),
                                 f"joint {joint.name!r} mimics {joint.mimic.reference!r}, which is not a joint")
        for element in root:
            if isinstance(element.tag, str) and element.tag not in _KNOWN_ROBOT_CHILDREN:
                self.note(EntryKind.DROPPED, element, f"<{element.tag}>",
                          "not part of the kinematic or physical model; not converted")
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

    def material(self, element) -> Material:
        color = element.find("color")
        rgba = self.floats(color, "rgba", 4) if color is not None else None
        texture_element = element.find("texture")
        texture = None
        if texture_element is not None and texture_element.get("filename"):
            found = self.locator.resolve(texture_element.get("filename"))
            texture = found.path or texture_element.get("filename")
        return Material(element.get("name"), rgba, texture, self.where(element))

    def link(self, element, materials: Mapping[str, Material]) -> Link:
        name = self.required(element, "name")
        inertial_element = element.find("inertial")
        inertial = self.inertial(inertial_element, name) if inertial_element is not None else None
        visuals = tuple(self.visual(v, materials) for v in element.findall("visual"))
        collisions = tuple(
            Collision(c.get("name"), self.origin(c), self.geometry(c), self.where(c))
            for c in element.findall("collision")
        )
        return Link(name, inertial, visuals, collisions, self.where(element))

    def inertial(self, element, link_name: str) -> Inertial:
        mass_element = element.find("mass")
        mass = self.scalar(mass_element, "value") if mass_element is not None else None
        if mass is not None and mass < 0.0:
            raise self.error(mass_element, f"link {link_name!r} has negative mass {mass}", "a mass is >= 0 [kg]")
        inertia_element = element.find("inertia")
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
        material_element = element.find("material")
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
        return Visual(element.get("name"), self.origin(element), self.geometry(element), material,
                      self.where(element))

    def geometry(self, parent):
        element = parent.find("geometry")
        if element is None:
            self.note(EntryKind.DROPPED, parent, f"<{parent.tag}>", "has no <geometry>")
            return None
        shapes = [child for child in element if isinstance(child.tag, str)]
        if not shapes:
            self.note(EntryKind.DROPPED, element, "<geometry>", "is empty")
            return None
        shape = shapes[0]
        if shape.tag == "box":
            return Box(self.floats(shape, "size", 3))
        if shape.tag == "cylinder":
            return Cylinder(self.scalar(shape, "radius"), self.scalar(shape, "length"))
        if shape.tag == "sphere":
            return Sphere(self.scalar(shape, "radius"))
        if shape.tag == "capsule":
            return Capsule(self.scalar(shape, "radius"), self.scalar(shape, "length"))
        if shape.tag == "mesh":
            uri = self.required(shape, "filename")
            found = self.locator.resolve(uri)
            return MeshRef(uri, found.path, self.floats(shape, "scale", 3), found.searched)
        self.note(EntryKind.DROPPED, shape, f"<{shape.tag}>", "is not a URDF geometry kind")
        return None

    def joint(self, element) -> Joint:
        name = self.required(element, "name")
        type_name = self.required(element, "type")
        if type_name not in _JOINT_TYPES:
            raise self.error(element, f"joint {name!r} has unknown type {type_name!r}",
                             f"use one of {', '.join(_JOINT_TYPES)}")
        joint_type = _JOINT_TYPES[type_name]
        parent = element.find("parent")
        child = element.find("child")
        if parent is None or child is None:
            raise self.error(element, f"joint {name!r} needs <parent link=...> and <child link=...>")
        axis = self.axis(element, name, joint_type)
        mimic_element = element.find("mimic")
        mimic = None
        if mimic_element is not None:
            mimic = Mimic(self.required(mimic_element, "joint"), self.scalar(mimic_element, "multiplier"),
                          self.scalar(mimic_element, "offset"), self.where(mimic_element))
        custom: dict[str, object] = {}
        for tag in ("safety_controller", "calibration"):
            extra = element.find(tag)
            if extra is not None:
                custom[f"urdf:{tag}"] = {key: self.scalar(extra, key) for key in extra.attrib}
        return Joint(
            name=name, type=joint_type, parent=self.required(parent, "link"), child=self.required(child, "link"),
            pose_in_parent=self.origin(element), axes=(axis,) if axis is not None else (),
            source=self.where(element), mimic=mimic, custom_data=custom,
        )

    def axis(self, element, name: str, joint_type: JointType) -> JointAxis | None:
        if joint_type not in _MOVING:
            return None
        axis_element = element.find("axis")
        xyz = self.floats(axis_element, "xyz", 3) if axis_element is not None else None
        if xyz is not None and math.sqrt(sum(v * v for v in xyz)) < 1e-12:
            raise self.error(axis_element, f"joint {name!r} has a zero axis", "write a nonzero direction")
        limit = element.find("limit")
        dynamics = element.find("dynamics")
        lower = upper = effort = velocity = None
        if limit is not None:
            lower, upper = self.scalar(limit, "lower"), self.scalar(limit, "upper")
            effort, velocity = self.scalar(limit, "effort"), self.scalar(limit, "velocity")
        elif joint_type in (JointType.REVOLUTE, JointType.PRISMATIC):
            self.note(EntryKind.WARNING, element, f"joint {name!r}",
                      f"a {joint_type.value} joint without <limit> (the URDF spec requires one); "
                      "written without position limits, force cap or velocity limit")
        damping = friction = None
        if dynamics is not None:
            damping, friction = self.scalar(dynamics, "damping"), self.scalar(dynamics, "friction")
        return JointAxis(xyz, lower, upper, effort, velocity, damping, friction,
                         source=self.where(axis_element if axis_element is not None else element))
