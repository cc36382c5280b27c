"""RobotIR: the format-neutral robot that the URDF and SDFormat readers produce and the USD writer reads.

Conventions shared by every reader and the writer:

* Lengths [m], masses [kg], angles [rad], inertia [kg·m²]; quaternions are ``(w, x, y, z)``.
* ``None`` means "not written in the source file". A reader never fills in a spec default: the
  format's defaults live in :class:`SpecDefaults` (one instance per format, carried by the robot),
  so the writer can apply them in one place and report each one it used.
* Every element carries a :class:`SourceRef` (file and line) so messages can point at the source.
* Frames: a joint has a frame; ``Joint.pose_in_parent`` places it in the parent link frame and
  ``Joint.pose_in_child`` places it in the child link frame (identity for URDF, where the child
  link frame *is* the joint frame). Joint axes are unit-free directions in the joint frame, any sign.
  Visual, collision and inertial origins are in their link frame. ``Link.pose`` is the link frame
  in the model frame when the format states it (SDFormat); ``None`` lets the writer place the link
  by forward kinematics at q = 0 (URDF).
* ``RobotIR.world_link`` names the link that stands for the world (URDF's conventional ``world``
  root, SDFormat's implicit ``world``); it is never written as a body, and joints whose parent is it
  anchor their child to the world (body0 absent).
"""
from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from typing import Mapping

from .report import ReportEntry

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]  # (w, x, y, z)


@dataclass(frozen=True, slots=True)
class SourceRef:
    """Where an element was read: a file path and a 1-based line (``None`` when unknown)."""

    file: str
    line: int | None = None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}" if self.line is not None else self.file


@dataclass(frozen=True, slots=True)
class Pose:
    """A rigid transform: ``position`` [m] then ``orientation`` (w, x, y, z), child expressed in parent.

    ``a.compose(b)`` is a∘b: a point p in b's child frame maps to ``a.apply(b.apply(p))``.
    """

    position: Vec3 = (0.0, 0.0, 0.0)
    orientation: Quat = (1.0, 0.0, 0.0, 0.0)

    @staticmethod
    def from_xyz_rpy(xyz: Vec3, rpy: Vec3) -> "Pose":
        """URDF/SDFormat fixed-axis roll-pitch-yaw [rad]: R = Rz(yaw) · Ry(pitch) · Rx(roll)."""
        return Pose(tuple(float(v) for v in xyz), quat_from_rpy(rpy))

    def compose(self, other: "Pose") -> "Pose":
        rotated = quat_rotate(self.orientation, other.position)
        position = tuple(p + r for p, r in zip(self.position, rotated))
        return Pose(position, quat_normalised(quat_multiply(self.orientation, other.orientation)))

    def inverse(self) -> "Pose":
        conjugate = quat_conjugate(self.orientation)
        moved = quat_rotate(conjugate, self.position)
        return Pose(tuple(-v for v in moved), conjugate)

    def apply(self, point: Vec3) -> Vec3:
        rotated = quat_rotate(self.orientation, point)
        return tuple(p + r for p, r in zip(self.position, rotated))

    def rotate(self, vector: Vec3) -> Vec3:
        return quat_rotate(self.orientation, vector)


IDENTITY = Pose()


def quat_from_rpy(rpy: Vec3) -> Quat:
    """Quaternion (w, x, y, z) of the fixed-axis rotation Rz(yaw) · Ry(pitch) · Rx(roll) [rad]."""
    roll, pitch, yaw = (float(v) * 0.5 for v in rpy)
    cr, sr = math.cos(roll), math.sin(roll)
    cp, sp = math.cos(pitch), math.sin(pitch)
    cy, sy = math.cos(yaw), math.sin(yaw)
    return (
        cr * cp * cy + sr * sp * sy,
        sr * cp * cy - cr * sp * sy,
        cr * sp * cy + sr * cp * sy,
        cr * cp * sy - sr * sp * cy,
    )


def quat_multiply(a: Quat, b: Quat) -> Quat:
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (
        aw * bw - ax * bx - ay * by - az * bz,
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
    )


def quat_conjugate(q: Quat) -> Quat:
    return (q[0], -q[1], -q[2], -q[3])


def quat_normalised(q: Quat) -> Quat:
    norm = math.sqrt(sum(v * v for v in q))
    return tuple(v / norm for v in q)


def quat_rotate(q: Quat, v: Vec3) -> Vec3:
    """Rotate vector ``v`` by unit quaternion ``q``."""
    w, x, y, z = q
    # t = 2 q_vec × v ; v' = v + w t + q_vec × t  (the standard two-cross-product form)
    tx = 2.0 * (y * v[2] - z * v[1])
    ty = 2.0 * (z * v[0] - x * v[2])
    tz = 2.0 * (x * v[1] - y * v[0])
    return (
        v[0] + w * tx + (y * tz - z * ty),
        v[1] + w * ty + (z * tx - x * tz),
        v[2] + w * tz + (x * ty - y * tx),
    )


class JointType(str, enum.Enum):
    """Joint kinds of both formats. The writer states, per kind, what it writes or drops."""

    REVOLUTE = "revolute"
    CONTINUOUS = "continuous"  # a revolute without position limits
    PRISMATIC = "prismatic"
    FIXED = "fixed"
    FLOATING = "floating"  # six free DOF: written as no joint (a free body)
    PLANAR = "planar"  # translation in the plane normal to axis 0 plus rotation about it
    BALL = "ball"
    UNIVERSAL = "universal"  # rotation about axes[0] then axes[1]
    REVOLUTE2 = "revolute2"
    SCREW = "screw"
    GEARBOX = "gearbox"


# Shape kinds --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Box:
    size: Vec3 | None  # full edge lengths [m]


@dataclass(frozen=True, slots=True)
class Cylinder:
    """Axis along the local Z axis, centred on the origin."""

    radius: float | None  # [m]
    length: float | None  # [m]


@dataclass(frozen=True, slots=True)
class Sphere:
    radius: float | None  # [m]


@dataclass(frozen=True, slots=True)
class Capsule:
    """Axis along local Z; ``length`` is the cylindrical part between the two hemisphere centres."""

    radius: float | None  # [m]
    length: float | None  # [m]


@dataclass(frozen=True, slots=True)
class Plane:
    normal: Vec3 | None
    size: tuple[float, float] | None  # [m]


@dataclass(frozen=True, slots=True)
class MeshRef:
    """A mesh file as written (``uri``) plus the reader's resolution of it.

    ``path`` is the absolute file found on disk, or ``None`` when none was found; ``searched``
    lists the places tried so a report can say where it looked.
    """

    uri: str
    path: str | None
    scale: Vec3 | None
    searched: tuple[str, ...] = ()


Geometry = Box | Cylinder | Sphere | Capsule | Plane | MeshRef


@dataclass(frozen=True, slots=True)
class Material:
    """A display material. ``rgba`` components are in [0, 1]; ``texture`` is a resolved path or URI."""

    name: str | None
    rgba: tuple[float, float, float, float] | None = None
    texture: str | None = None
    source: SourceRef | None = None


@dataclass(frozen=True, slots=True)
class Visual:
    name: str | None
    origin: Pose | None  # in the link frame; None = not written
    geometry: Geometry | None  # None: the geometry element was missing or of an unknown kind
    material: Material | None  # inline or resolved from RobotIR.materials by the reader
    source: SourceRef


@dataclass(frozen=True, slots=True)
class Collision:
    name: str | None
    origin: Pose | None  # in the link frame; None = not written
    geometry: Geometry | None
    source: SourceRef
    surface: "SurfaceInfo | None" = None
    density: float | None = None  # [kg/m³] when written (mass from colliders)


@dataclass(frozen=True, slots=True)
class Inertia:
    """The inertia tensor about the centre of mass, in the inertial frame [kg·m²]."""

    ixx: float
    iyy: float
    izz: float
    ixy: float = 0.0
    ixz: float = 0.0
    iyz: float = 0.0


@dataclass(frozen=True, slots=True)
class Inertial:
    mass: float | None  # [kg]
    origin: Pose | None  # inertial frame (centre of mass) in the link frame
    inertia: Inertia | None
    source: SourceRef


@dataclass(frozen=True, slots=True)
class CameraInfo:
    """What a camera sensor says about its image: fields as written, None = not written."""

    horizontal_fov: float | None = None  # [rad]
    width: int | None = None  # [px]
    height: int | None = None  # [px]
    near: float | None = None  # [m]
    far: float | None = None  # [m]


@dataclass(frozen=True, slots=True)
class LightInfo:
    """A light source: ``kind`` is point, directional or spot; colours in [0, 1]."""

    kind: str
    diffuse: tuple[float, float, float, float] | None = None
    intensity: float | None = None
    range: float | None = None  # [m], attenuation range
    direction: Vec3 | None = None  # in the light frame (directional and spot lights)
    spot_inner: float | None = None  # [rad]
    spot_outer: float | None = None  # [rad]
    cast_shadows: bool | None = None


@dataclass(frozen=True, slots=True)
class Extra:
    """An element with no physics meaning (sensor, light, projector, plugin, ...), kept for a round trip.

    ``pose`` places it in the frame of the link it is written under (None = coincident), ``xml``
    is the element's full XML text, so a writer back to the source format could restore it.
    ``camera``/``light`` are filled when the element maps onto a USD camera or light.
    """

    tag: str
    name: str
    type: str
    pose: Pose | None
    xml: str
    source: SourceRef
    owner: str = ""  # the joint a joint sensor belongs to ("" for link and world elements)
    camera: CameraInfo | None = None
    light: LightInfo | None = None


@dataclass(frozen=True, slots=True)
class SurfaceInfo:
    """A collider's contact surface: Coulomb friction (mu, mu2 directions), restitution, collide bits."""

    static_friction: float | None = None
    dynamic_friction: float | None = None
    restitution: float | None = None
    collide_without_contact: bool = False
    collide_bitmask: int | None = None
    source: SourceRef | None = None


@dataclass(frozen=True, slots=True)
class Link:
    name: str
    inertial: Inertial | None
    visuals: tuple[Visual, ...]
    collisions: tuple[Collision, ...]
    source: SourceRef
    pose: Pose | None = None  # link frame in the model frame when the format states it
    custom_data: Mapping[str, object] = field(default_factory=dict)
    static: bool = False  # part of a static model: never moves, written without a rigid body
    kinematic: bool = False  # moved by its pose only (PhysicsRigidBodyAPI kinematicEnabled)
    gravity: bool | None = None  # False: gravity does not act on it; None = not written
    extras: tuple[Extra, ...] = ()  # sensors, lights, plugins... kept under the link prim
    self_collide: bool | None = None  # SDFormat self_collide (link or model); None = not written


@dataclass(frozen=True, slots=True)
class JointAxis:
    """One degree of freedom of a joint. Angles [rad]; linear values [m], [N], [m/s]."""

    xyz: Vec3 | None  # direction in the joint frame, any length and sign; None = not written
    lower: float | None = None  # [rad] or [m]
    upper: float | None = None
    effort: float | None = None  # [N·m] or [N]
    velocity: float | None = None  # [rad/s] or [m/s]
    damping: float | None = None  # [N·m·s/rad] or [N·s/m]
    friction: float | None = None  # static friction [N·m] or [N]
    spring_stiffness: float | None = None  # [N·m/rad] or [N/m]
    spring_reference: float | None = None  # [rad] or [m]
    source: SourceRef | None = None


@dataclass(frozen=True, slots=True)
class Mimic:
    """``q_joint = multiplier · q_reference + offset`` on axis ``axis_index`` of the mimicking joint."""

    reference: str  # name of the joint being mimicked
    multiplier: float | None
    offset: float | None  # [rad] or [m]
    source: SourceRef
    axis_index: int = 0


@dataclass(frozen=True, slots=True)
class Joint:
    name: str
    type: JointType
    parent: str  # link name (may be RobotIR.world_link)
    child: str
    pose_in_parent: Pose | None  # joint frame in the parent link frame; None = not written
    axes: tuple[JointAxis, ...]  # 0 (fixed, floating, ball), 1 (revolute, prismatic, planar), 2
    source: SourceRef
    pose_in_child: Pose | None = None  # joint frame in the child link frame; None = coincident
    mimic: Mimic | None = None
    thread_pitch: float | None = None  # screw joints: translation per rotation [m/rad], SDFormat's sign
    gearbox_ratio: float | None = None  # gearbox joints: theta_child = -ratio * theta_parent
    gearbox_reference_body: str | None = None  # the link both geared hinges connect to
    custom_data: Mapping[str, object] = field(default_factory=dict)  # e.g. safety_controller
    initial_positions: tuple[float | None, ...] = ()  # per axis [rad] or [m]; None = not written


@dataclass(frozen=True, slots=True)
class Frame:
    """A named frame attached to a link (SDFormat ``<frame>``), pose in that link's frame."""

    name: str
    attached_to: str
    pose: Pose
    source: SourceRef


@dataclass(frozen=True, slots=True)
class WorldInfo:
    """What a world says about the scene: gravity [m/s²] as a vector, the step size [s], extras."""

    gravity: Vec3 | None = None
    max_step_size: float | None = None
    real_time_factor: float | None = None
    physics_type: str | None = None
    extras: tuple[Extra, ...] = ()
    source: SourceRef | None = None


@dataclass(frozen=True, slots=True)
class SpecDefaults:
    """A format's documented value for each element left unwritten; the writer applies them."""

    format: str  # "urdf" or "sdformat"
    axis: Vec3
    mass: float
    inertia: Inertia
    lower: float
    upper: float
    effort: float | None  # None: the spec says "unlimited"
    velocity: float | None
    damping: float
    friction: float
    mimic_multiplier: float
    mimic_offset: float
    mesh_scale: Vec3 = (1.0, 1.0, 1.0)


@dataclass(frozen=True, slots=True)
class RobotIR:
    """One robot (a URDF ``<robot>`` or an SDFormat ``<model>``) as read, before any default is applied."""

    name: str
    links: tuple[Link, ...]
    joints: tuple[Joint, ...]
    source: SourceRef
    defaults: SpecDefaults
    world_link: str | None = None
    pose: Pose | None = None  # model frame in the world
    frames: tuple[Frame, ...] = ()
    materials: Mapping[str, Material] = field(default_factory=dict)
    notes: tuple[ReportEntry, ...] = ()  # what the reader dropped or warns about, for the report
    world: WorldInfo | None = None  # the scene settings of an SDFormat world (None: the writer's defaults)
    extras: tuple[Extra, ...] = ()  # model- and world-level plugins, lights...: kept under the robot prim
    # name -> first link / joint of that name, built on first look-up (the writer looks up per joint)
    _index: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def link(self, name: str) -> Link:
        return self._lookup("links", self.links, name)

    def joint(self, name: str) -> Joint:
        return self._lookup("joints", self.joints, name)

    def _lookup(self, kind: str, items, name: str):
        index = self._index.get(kind)
        if index is None:
            index = self._index[kind] = {}
            for item in items:
                index.setdefault(item.name, item)  # the first of a name, as a search in order finds
        try:
            return index[name]
        except KeyError:
            raise KeyError(name) from None
