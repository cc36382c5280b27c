"""``<link>`` -> :class:`usdjoints.convert.ir.Link`: inertial, visuals, collisions, flags, extras.

What RobotIR has no place for is kept in ``Link.custom_data`` under ``sdformat:`` keys
(kinematic, gravity, static, velocity decay) and reported as a note, never dropped silently.
Sensors, lights, projectors and plugins become ``Link.extras`` (see extras.py).
"""
from __future__ import annotations

import math
import sys

from lxml import etree

from usdjoints.errors import InputError

from .. import ir
from ..float32 import beyond_float32, mass_underflows, overflow_message, underflow_message
from ..report import EntryKind, ReportEntry
from .extras import LINK_EXTRAS, read_extra
from .frames import FrameGraph
from .parse import child_bool, child_text, number
from .pose import Pose, parse_floats, parse_pose, where
from .scope import Decl

#: Geometry kinds RobotIR cannot carry; each is reported where it appears.
UNSUPPORTED_GEOMETRY = ("heightmap", "polyline", "ellipsoid", "cone", "image")


def to_ir_pose(pose: Pose) -> ir.Pose:
    return ir.Pose(tuple(pose.position), tuple(pose.orientation))


def source(element: etree._Element) -> ir.SourceRef:
    return ir.SourceRef(element.getroottree().docinfo.URL, element.sourceline)


def source_of(where_text: str) -> ir.SourceRef:
    """A ``file:line`` string (as :func:`pose.where` makes) -> :class:`ir.SourceRef`."""
    file, _, line = where_text.rpartition(":")
    return ir.SourceRef(file, int(line)) if line.isdigit() else ir.SourceRef(where_text)


def read_link(graph: FrameGraph, d: Decl, name: str, X_root_scope: Pose, static: bool,
              locate_mesh, model_self_collide: bool = False) -> tuple[ir.Link, list[ReportEntry]]:
    """Link ``d`` of ``graph`` named ``name`` in the robot; ``X_root_scope`` places its scope.

    ``locate_mesh(uri, element)`` returns an :class:`ir.MeshRef`.
    """
    notes: list[ReportEntry] = []
    element = d.element
    X_scope_link = graph.pose(d.name)
    custom: dict[str, object] = {}
    if static:
        custom["sdformat:static"] = True
        notes.append(ReportEntry(EntryKind.CHOICE, d.where, f"link {name}",
                                 "belongs to a static model: written without a rigid body (a static collider)"))
    if child_bool(element, "kinematic", False):
        custom["sdformat:kinematic"] = True
    if not child_bool(element, "gravity", True):
        custom["sdformat:gravity"] = False
    def origin(child: etree._Element) -> ir.Pose | None:
        """A visual/collision pose in the link frame; its relative_to names a frame of the model."""
        pose_element = child.find("pose")
        if pose_element is None:
            return None
        pose, relative_to = parse_pose(pose_element)
        if not relative_to:
            return to_ir_pose(pose)
        if relative_to == "__model__":
            relative_to = d.model_alias
        if not graph.exists(relative_to):
            raise InputError(where(pose_element), f"relative_to '{relative_to}' names no frame of the model")
        return to_ir_pose(X_scope_link.inverse().compose(graph.pose(relative_to)).compose(pose))

    _check_unique_children(element, name)
    extras = []
    for child in element:
        if isinstance(child.tag, str) and child.tag in LINK_EXTRAS:
            extra = read_extra(child, origin(child))
            extras.append(extra)
            notes.append(kept_note(extra, f"link {name}"))
    self_collide = child_text(element, "self_collide")
    velocity_decay = element.find("velocity_decay")
    if velocity_decay is not None:
        for tag in ("linear", "angular"):
            value = child_text(velocity_decay, tag)
            if value is not None:
                custom[f"sdformat:velocity_decay_{tag}"] = _float(value, velocity_decay.find(tag))

    visuals, collisions = [], []
    for visual in element.findall("visual"):
        geometry = _geometry(visual, name, locate_mesh, notes)
        visuals.append(ir.Visual(visual.get("name"), origin(visual), geometry, _material(visual), source(visual)))
    for collision in element.findall("collision"):
        geometry = _geometry(collision, name, locate_mesh, notes)
        density = child_text(collision, "density")
        collisions.append(ir.Collision(collision.get("name"), origin(collision), geometry, source(collision),
                                       surface=read_surface(collision, name, notes),
                                       density=None if density is None else _float(density, collision.find("density"))))
    link = ir.Link(name, _inertial(element, name, notes, origin), tuple(visuals), tuple(collisions), source(element),
                   pose=to_ir_pose(X_root_scope.compose(X_scope_link)), custom_data=custom,
                   static=static, kinematic=bool(custom.get("sdformat:kinematic", False)),
                   gravity=False if custom.get("sdformat:gravity") is False else None, extras=tuple(extras),
                   self_collide=model_self_collide if self_collide is None else self_collide.lower() in ("true", "1"))
    return link, notes


#: children of a link that libsdformat loads as a uniquely named set ("visual with name[v] already exists");
#: 12.3 does not check projectors yet, its later releases do
UNIQUE_CHILDREN = ("visual", "collision", "sensor", "light", "particle_emitter", "projector")


def _check_unique_children(link: etree._Element, name: str) -> None:
    """A visual (collision, sensor...) without a name, or two of one link sharing a name: an
    error, at the nameless or the second one (the specification requires the name attribute)."""
    seen: dict[tuple[str, str], etree._Element] = {}
    for child in link:
        if not isinstance(child.tag, str) or child.tag not in UNIQUE_CHILDREN:
            continue
        if not child.get("name"):
            raise InputError(where(child), f"link {name}: <{child.tag}> has no name attribute")
        first = seen.setdefault((child.tag, child.get("name")), child)
        if first is not child:
            raise InputError(where(child), f"link {name}: {child.tag} name '{child.get('name')}' is already "
                             f"used by the {child.tag} at line {first.sourceline}",
                             f"the {child.tag}s of a link need unique names")


def _inertial(link: etree._Element, name: str, notes: list[ReportEntry], origin) -> ir.Inertial:
    """The link's <inertial>; without one, the element's defaults (mass 1 kg, unit inertia at the
    link origin), which libsdformat gives such a link (its reference dumps: mass 1) and Gazebo
    simulates. (A URDF link without one is massless to urdfdom: that reader returns None.)"""
    element = link.find("inertial")
    if element is None:
        return ir.Inertial(None, None, None, source(link))
    if element.get("auto", "false").strip().lower() in ("true", "1"):
        notes.append(ReportEntry(EntryKind.WARNING, where(element), f"link {name}",
                                 "inertial auto='true' is not computed from collisions; the written or default values are used"))
    mass_text = child_text(element, "mass")
    inertia = None
    inertia_element = element.find("inertia")
    if inertia_element is not None:
        values = {}
        for tag, default in (("ixx", 1.0), ("iyy", 1.0), ("izz", 1.0), ("ixy", 0.0), ("ixz", 0.0), ("iyz", 0.0)):
            text = child_text(inertia_element, tag)
            values[tag] = default if text is None else _finite_float(text, inertia_element.find(tag))
        inertia = ir.Inertia(**values)
    for extra in ("fluid_added_mass",):
        if element.find(extra) is not None:
            notes.append(ReportEntry(EntryKind.DROPPED, where(element.find(extra)), f"link {name}",
                                     f"<{extra}> has no UsdPhysics equivalent"))
    mass = None if mass_text is None else _finite_float(mass_text, element.find("mass"))
    if mass is not None and mass < 0.0:  # libsdformat: an invalid inertial; the URDF reader refuses it too
        raise InputError(where(element.find("mass")), f"link {name!r} has negative mass {mass:g}", "a mass is >= 0 [kg]")
    if mass is not None and mass_underflows(mass):
        raise InputError(where(element.find("mass")), f"link {name!r}: {underflow_message(mass)}")
    if inertia is not None and not _physical_inertia(inertia):
        values = " ".join(repr(getattr(inertia, k)) for k in ("ixx", "iyy", "izz", "ixy", "ixz", "iyz"))
        # libsdformat refuses the file ("A link named L has invalid inertia"), Gazebo with it; it is
        # converted as given, as the URDF reader converts such moments: example-robot-data's cassie.sdf
        # has two such links (1e-6 kg m^2 reference frames), PhysX and pinocchio take them
        notes.append(ReportEntry(EntryKind.WARNING, where(inertia_element), f"link {name}",
                                 f"inertia ixx iyy izz ixy ixz iyz = {values} is not positive semi-definite or "
                                 "breaks the triangle inequality (a missing diagonal entry is 1): libsdformat "
                                 "refuses the file for it ('invalid inertia'); converted as given"))
    return ir.Inertial(mass, origin(element), inertia, source(element))


def _physical_inertia(inertia: ir.Inertia) -> bool:
    """libsdformat's test of a link's inertia, which refuses the file ("A link named L has invalid
    inertia"): gz-math's MassMatrix3::IsValid, step for step in doubles. The leading minors of the
    tensor are >= 0 and its principal moments are >= 0, each at most the sum of the other two, all
    within 10 machine epsilons times half the trace (values within the 32-bit float range, read
    before, keep every product finite). The moments are the diagonal when no product of inertia
    is further from 0 than 1e-6 times the largest diagonal entry, else Kronenburg's closed form."""
    xx, yy, zz, xy, xz, yz = inertia.ixx, inertia.iyy, inertia.izz, inertia.ixy, inertia.ixz, inertia.iyz

    def epsilon(moments):
        return 10.0 * sys.float_info.epsilon * (0.5 * abs(sum(moments)))

    e = epsilon((xx, yy, zz))
    determinant = (zz * yy - yz * yz) * xx - (zz * xy - xz * yz) * xy + (yz * xy - xz * yy) * xz
    if not (xx + e >= 0 and xx * yy - xy * xy + e >= 0 and determinant + e >= 0):
        return False
    tol = 1e-6 * max(xx, yy, zz)
    if all(abs(v) <= tol for v in (xy, xz, yz)):
        moments = (xx, yy, zz)
    else:
        b = xx + yy + zz
        c = xx * yy - xy * xy + xx * zz - xz * xz + yy * zz - yz * yz
        d = xx * yz * yz + yy * xz * xz + zz * xy * xy - xx * yy * zz - 2 * xy * xz * yz
        p = b * b - 3 * c
        if p < tol * tol:
            moments = (b / 3.0,) * 3
        else:
            q = 2 * b ** 3 - 9 * b * c - 27 * d
            delta = math.acos(min(max(0.5 * q / p ** 1.5, -1.0), 1.0))
            moments = tuple((b + 2 * math.sqrt(p) * math.cos((delta + k) / 3.0)) / 3.0
                            for k in (0.0, 2 * math.pi, -2 * math.pi))
    e = epsilon(moments)
    m0, m1, m2 = moments
    return bool(m0 + e >= 0 and m1 + e >= 0 and m2 + e >= 0 and m0 + m1 + e >= m2 and m1 + m2 + e >= m0
                and m2 + m0 + e >= m1)


def _finite_float(text: str, element: etree._Element) -> float:
    """A mass or inertia value: non-finite is refused, as the URDF reader refuses it (no consumer
    can integrate an infinite or NaN mass, and the principal axes of such a tensor do not exist)."""
    value = _float(text, element)
    if not math.isfinite(value):
        raise InputError(where(element), f"<{element.tag}> holds '{text}', which is not finite", "write a finite number")
    if beyond_float32((value,)):
        raise InputError(where(element), overflow_message(f"<{element.tag}>"))
    return value


def _float(text: str, element: etree._Element) -> float:
    try:
        return number(text)
    except ValueError as e:
        raise InputError(where(element), f"<{element.tag}> holds '{text}', which is not a number") from e


def _geometry(parent: etree._Element, link: str, locate_mesh, notes: list[ReportEntry]) -> ir.Geometry | None:
    geometry = parent.find("geometry")
    shape = None if geometry is None else next((c for c in geometry if isinstance(c.tag, str)), None)
    if shape is None:
        notes.append(ReportEntry(EntryKind.DROPPED, where(parent), f"link {link}",
                                 f"{parent.tag} '{parent.get('name', '')}' has no geometry"))
        return None
    tag = shape.tag
    if tag == "box":
        size = shape.find("size")
        return ir.Box(None if size is None else parse_floats(size, 3))
    if tag == "sphere":
        return ir.Sphere(_optional(shape, "radius"))
    if tag == "cylinder":
        return ir.Cylinder(_optional(shape, "radius"), _optional(shape, "length"))
    if tag == "capsule":
        return ir.Capsule(_optional(shape, "radius"), _optional(shape, "length"))
    if tag == "plane":
        normal, size = shape.find("normal"), shape.find("size")
        direction = None if normal is None else parse_floats(normal, 3)
        if direction is not None and not (all(math.isfinite(c) for c in direction) and math.hypot(*direction) > 0.0):
            raise InputError(where(normal), f"the plane normal '{(normal.text or '').strip()}' is not a finite nonzero "
                             "direction", "give a nonzero normal")
        return ir.Plane(direction,
                        None if size is None else parse_floats(size, 2))
    if tag == "mesh":
        uri = child_text(shape, "uri")
        if uri is None:
            raise InputError(where(shape), "<mesh> has no <uri>")
        scale = shape.find("scale")
        if shape.find("submesh") is not None:
            notes.append(ReportEntry(EntryKind.WARNING, where(shape), f"link {link}",
                                     "<submesh> selection is not applied: the whole mesh file is referenced"))
        return locate_mesh(uri, shape, None if scale is None else parse_floats(scale, 3))
    kept = "" if tag not in UNSUPPORTED_GEOMETRY else " (no RobotIR shape for it yet)"
    notes.append(ReportEntry(EntryKind.DROPPED, where(shape), f"link {link}",
                             f"{parent.tag} '{parent.get('name', '')}': <{tag}> geometry is not converted{kept}"))
    if parent.tag == "collision":  # the physics changes: what this shape would touch, the link passes through
        notes.append(ReportEntry(EntryKind.WARNING, where(shape), f"link {link}",
                                 f"collision '{parent.get('name', '')}': <{tag}> geometry is not converted; "
                                 "the link has no collider for it"))
    return None


def _optional(shape: etree._Element, tag: str) -> float | None:
    text = child_text(shape, tag)
    return None if text is None else _float(text, shape.find(tag))


def _material(visual: etree._Element) -> ir.Material | None:
    material = visual.find("material")
    if material is None:
        return None
    diffuse = material.find("diffuse")
    if diffuse is None:
        return ir.Material(None, source=source(material))
    values = parse_floats(diffuse, None)
    if len(values) not in (3, 4):
        raise InputError(where(diffuse), "<diffuse> needs 3 or 4 numbers")
    rgba = tuple(values) + ((1.0,) if len(values) == 3 else ())
    return ir.Material(None, rgba=rgba, source=source(material))


def kept_note(extra: ir.Extra, element: str) -> ReportEntry:
    """The report line of an element kept in the stage (as a camera, a light or its XML)."""
    label = f"<{extra.tag}> '{extra.name}'" + (f" ({extra.type})" if extra.type else "")
    holder = "a USD camera" if extra.camera else ("a UsdLux light" if extra.light else "a prim")
    return ReportEntry(EntryKind.KEPT, str(extra.source), element,
                       f"{label} written as {holder} with its XML in the string attribute sdformat:xml")


def read_surface(collision: etree._Element, link: str, notes: list[ReportEntry]) -> ir.SurfaceInfo | None:
    """``collision/surface``: Coulomb friction, restitution and the contact flags PhysX can hold."""
    surface = collision.find("surface")
    if surface is None:
        return None
    mu = _surface_number(surface, "friction/ode/mu")
    mu2 = _surface_number(surface, "friction/ode/mu2")
    if mu is None:
        mu = _surface_number(surface, "friction/bullet/friction")
        mu2 = _surface_number(surface, "friction/bullet/friction2")
    if mu is not None and mu2 is not None and mu2 != mu:
        notes.append(ReportEntry(EntryKind.WARNING, where(surface), f"link {link}",
                                 f"friction mu {mu} and mu2 {mu2} differ: PhysX friction is isotropic, mu is used"))
    restitution = _surface_number(surface, "bounce/restitution_coefficient")
    contact = surface.find("contact")
    without_contact = contact is not None and child_bool(contact, "collide_without_contact", False)
    bitmask_text = child_text(contact, "collide_bitmask") if contact is not None else None
    bitmask = None
    if bitmask_text is not None:
        try:
            bitmask = int(bitmask_text, 0)
        except ValueError as e:
            raise InputError(where(contact.find("collide_bitmask")),
                             f"<collide_bitmask> holds '{bitmask_text}', which is not an integer") from e
    return ir.SurfaceInfo(static_friction=mu, dynamic_friction=mu, restitution=restitution,
                          collide_without_contact=without_contact, collide_bitmask=bitmask, source=source(surface))


def _surface_number(surface: etree._Element, path: str) -> float | None:
    text = child_text(surface, path)
    return None if text is None else _float(text, surface.find(path))
