"""Inert, immutable values the walker hands to the auditor, the model builder and the CLI.

Nothing here repairs input: a repair (normalising a quaternion, swapping bounds) happens in one
named place in the walker and leaves a :class:`Diagnostic`. Lengths are in stage units, angles in
degrees, exactly as the consumer named by :attr:`StageDescription.consumer` reads them; the model
builder converts to SI once.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, NamedTuple, Optional

from .provenance import Resolved

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]  # (w, x, y, z)
Matrix4 = tuple[tuple[float, float, float, float], ...]  # row-major, USD row-vector convention

JOINT_TYPES = (
    "revolute", "prismatic", "spherical", "fixed", "distance", "d6",
    "rack_and_pinion", "gear", "custom",
)
SEVERITIES = ("error", "warning", "info")


@dataclass(frozen=True, slots=True)
class Pose:
    """A rigid frame: ``position`` [stage length], ``orientation`` unit quaternion (w, x, y, z)."""

    position: Vec3 = (0.0, 0.0, 0.0)
    orientation: Quat = (1.0, 0.0, 0.0, 0.0)


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """Something a user should know about a prim.

    ``code`` is a short stable identifier (usdjoints.walker.codes lists the walker's);
    ``attribute`` the property of ``prim`` the diagnostic is about, when there is one (the
    auditor's findings and their SARIF locations name it). Neither is ever recovered from the
    message, whose wording may change.
    """

    severity: str
    prim: Optional[str]
    message: str
    code: str = ""
    attribute: Optional[str] = None
    related: tuple[str, ...] = ()  # other prims the diagnostic is about (the kinematic body it reaches)


@dataclass(frozen=True, slots=True)
class StageUnits:
    meters_per_unit: Resolved[float]
    kilograms_per_unit: Resolved[float]
    up_axis: Resolved[str]


@dataclass(frozen=True, slots=True)
class BodyDesc:
    """A rigid body (a prim with PhysicsRigidBodyAPI).

    ``world_pose`` is the body frame with scale removed; ``world_scale`` the scale decomposed from
    its composed transform; ``mirrored`` is true for a negative-determinant transform.
    """

    path: str
    dynamic: bool
    kinematic: bool
    enabled: bool
    world_pose: Pose
    world_scale: Vec3
    mirrored: bool
    columns: Mapping[str, Resolved] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class LimitDesc:
    """One limited degree of freedom: ``dof`` is angular, linear, cone, distance or transX..rotZ.

    Bounds [deg] for rotational dofs, [stage length] for translational ones; for ``cone`` low/high
    are coneAngle0/coneAngle1, for ``distance`` min/max distance.
    """

    dof: str
    enabled: bool
    low: float
    high: float


@dataclass(frozen=True, slots=True)
class DriveDesc:
    """A drive this consumer reads. Rotational gains are per degree, targets in degrees."""

    dof: str
    type: str  # "force" | "acceleration"
    stiffness: float
    damping: float
    max_force: float
    target_position: float
    target_velocity: float


@dataclass(frozen=True, slots=True)
class JointStateDesc:
    """PhysicsJointStateAPI:<dof>: initial position [deg or length] and velocity."""

    dof: str
    position: Resolved[float]
    velocity: Resolved[float]


@dataclass(frozen=True, slots=True)
class RackAndPinionCoupling:
    ratio: float  # [deg / stage length]
    hinge: Optional[str]
    prismatic: Optional[str]
    kind: str = "rack_and_pinion"


@dataclass(frozen=True, slots=True)
class GearCoupling:
    ratio: float
    hinge0: Optional[str]
    hinge1: Optional[str]
    kind: str = "gear"


@dataclass(frozen=True, slots=True)
class MimicCoupling:
    """PhysxMimicJointAPI:<dof>: this joint follows ``reference`` (q = -gearing*q_ref - offset as PhysX reads it)."""

    dof: str
    reference: Optional[str]
    reference_dof: Optional[str]
    gearing: float
    offset: float
    kind: str = "mimic"


Coupling = RackAndPinionCoupling | GearCoupling | MimicCoupling


class DofValue(NamedTuple):
    """One per-dof value with where it came from (a tuple: a walk makes one per value per dof).

    ``source``: ``authored`` or ``fallback`` (read from a column), ``default`` (the consumer's own
    value when nothing is read), ``not_read`` (the consumer holds no such value: ``value`` is None).
    """

    value: Optional[float]
    source: str


class DofDesc(NamedTuple):
    """One degree of freedom as a consumer holds it, in USD units (degrees, stage lengths, per-degree
    gains, deg/s). ``source`` is the joint prim it comes from (itself, or one merged into it)."""

    dof: str
    source: str
    rotational: bool
    limit_lower: DofValue
    limit_upper: DofValue
    target_ke: DofValue
    target_kd: DofValue
    effort_limit: DofValue
    velocity_limit: DofValue
    armature: DofValue
    friction: DofValue


DOF_FIELDS = ("limit_lower", "limit_upper", "target_ke", "target_kd", "effort_limit", "velocity_limit",
              "armature", "friction")


@dataclass(frozen=True, slots=True)
class JointDesc:
    """A joint as one consumer reads it.

    ``body0``/``body1`` are the resolved rigid bodies (``None`` = world). ``local_pose0/1`` are the
    frames in those bodies (or in world space for a world side) as the consumer uses them: scale
    baked in, lifted through a child-prim target, quaternion normalised.
    """

    path: str
    type: str
    schema_type: str
    enabled: bool
    exclude_from_articulation: bool
    articulation: Optional[int]
    body0: Optional[str]
    body1: Optional[str]
    body0_target: Optional[str]
    body1_target: Optional[str]
    local_pose0: Pose
    local_pose1: Pose
    axis: Optional[str]
    limits: tuple[LimitDesc, ...]
    drives: tuple[DriveDesc, ...]
    coupling: Optional[Coupling]
    mimics: tuple[MimicCoupling, ...]
    states: tuple[JointStateDesc, ...]
    columns: Mapping[str, Resolved]
    applied_schemas: tuple[str, ...] = ()  # the prim's applied API schemas (sorted), e.g. PhysicsLimitAPI:rotX
    # the consumer's per-dof view: its dofs in its order, whether it builds the joint at all, and
    # the joint it folds this one into (None: not merged)
    dofs: tuple[DofDesc, ...] = ()
    dropped: bool = False
    merged_into: Optional[str] = None


@dataclass(frozen=True, slots=True)
class ArticulationDesc:
    """An articulation: ``root`` is the prim with PhysicsArticulationRootAPI (or the elected root).

    ``links`` are body paths, ``joints`` the joint paths of its tree in breadth-first order from the
    base; ``base`` is the root link, ``fixed_base`` true when a joint ties it to the world.
    """

    root: str
    fixed_base: bool
    base: Optional[str]
    links: tuple[str, ...]
    joints: tuple[str, ...]
    loop_joints: tuple[str, ...] = ()
    anchor_joints: tuple[str, ...] = ()  # joints tying a link to the world (they fix the base)
    root_prims: tuple[str, ...] = ()  # the roots the consumer elects: a body, or the joint anchoring it


@dataclass(frozen=True, slots=True)
class SceneDesc:
    """The PhysicsScene a consumer simulates with (PhysX and usdjoints: the first one).

    ``direction`` and ``magnitude`` are the scene's columns as read (``path`` None: no scene, the
    schema fallbacks); ``gravity`` is the vector the consumer applies [stage length / s^2]: the
    direction normalised (zero: against the up axis), the magnitude (-inf: earth gravity, 9.81
    m/s^2, in stage units). It is not finite when an authored value is not.
    """

    path: Optional[str]
    direction: Resolved
    magnitude: Resolved
    gravity: Vec3
    scenes: tuple[str, ...] = ()  # every PhysicsScene of the stage, in stage order


@dataclass(frozen=True, slots=True)
class MaterialDesc:
    """The PhysicsMaterialAPI bound for physics (``path`` None: PhysX's default material)."""

    path: Optional[str]
    dynamic_friction: float
    static_friction: float
    restitution: float
    density: float  # [stage mass / stage length^3]; 0 = not given


@dataclass(frozen=True, slots=True)
class ColliderDesc:
    """A prim with PhysicsCollisionAPI.

    ``shape`` is sphere, capsule, cube, cylinder, cone, plane, mesh, points or another gprim type
    (lower case); ``radius``, ``height``, ``size`` and ``axis`` are its dimensions as read (None
    where the shape has none), ``extent`` (low, high corners, local) the authored or computed
    extent of a shape without closed-form dimensions. ``body`` is the nearest rigid body at or
    above it (None: static). ``world_pose``/``world_scale`` are its composed transform,
    ``body_pose``/``body_scale`` its transform relative to ``body`` (world when static). Scales
    are absolute values.
    """

    path: str
    shape: str
    body: Optional[str]
    enabled: bool
    world_pose: Pose
    world_scale: Vec3
    body_pose: Pose
    body_scale: Vec3
    radius: Optional[float]
    height: Optional[float]
    size: Optional[float]
    axis: Optional[str]
    extent: Optional[tuple[Vec3, Vec3]]
    material: MaterialDesc
    group: Optional[str] = None  # the first PhysicsCollisionGroup whose colliders collection includes it
    # a mesh's physics:approximation token as authored (None: unauthored, the schema's "none")
    approximation: Optional[str] = None
    # a mesh's convex hull vertices (local, unscaled; at most HULL_VERTEX_LIMIT): its points'
    # support points in a fixed set of directions (walker/colliders.py), None for other shapes
    hull: Optional[tuple[Vec3, ...]] = None


@dataclass(frozen=True, slots=True)
class CollisionFilters:
    """What stops two colliders from touching, beyond joints and articulations (model/colliders.py).

    ``filtered_pairs``: PhysicsFilteredPairsAPI (prim, target) pairs, each covering what is under
    both; ``groups``: each PhysicsCollisionGroup with the groups its filteredGroups names;
    ``inverted``: the scene's physxScene:invertCollisionGroupFilter; ``self_collisions``: per
    articulation root, physxArticulation:enabledSelfCollisions (else newton:selfCollisionEnabled).
    """

    filtered_pairs: tuple[tuple[str, str], ...] = ()
    groups: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    inverted: bool = False
    self_collisions: Mapping[str, bool] = field(default_factory=dict)


MASS_SOURCES = ("authored", "density", "shapes", "default", "unset")


@dataclass(frozen=True, slots=True)
class MassDesc:
    """A body's mass properties as one consumer resolves them, in SI units [kg, m, kg m^2].

    ``source`` says where the mass came from: ``authored`` (physics:mass), ``density`` (the
    colliders' volume at an authored density: the body's physics:density, else, for consumers
    that read it, a collider's material density), ``shapes`` (the colliders at PhysX's default
    density, 1000 kg/m^3), ``default`` (nothing gives one: PhysX's 1 stage mass unit), or
    ``unset`` (OpenUSD's parser computes none). ``inertia_source`` likewise (``default``: the
    0.1 m sphere PhysX uses; ``rejected``: an articulation link's authored diagonal has a zero
    moment, which PhysX rejects, and the link keeps PhysX's default, 1 stage unit about each
    axis). ``inertia`` is the 3x3 tensor about ``center_of_mass`` in body axes.
    Values may be non-finite (huge units or dimensions); the model builder refuses them.
    ``stand_in``: the mass only stands in for none (customData usdjoints:massStandIn).
    ``densities``: per collider that gave mass, (collider path, density [kg/m^3], origin): origin
    ``body`` (its physics:density), the bound material's path, or ``default``.
    """

    mass: float
    center_of_mass: Vec3
    inertia: tuple[Vec3, Vec3, Vec3]
    source: str
    inertia_source: str
    colliders: tuple[str, ...] = ()  # the colliders that gave it mass
    authored_diagonal: Optional[Vec3] = None  # physics:diagonalInertia as authored [stage units]
    stand_in: bool = False
    densities: tuple[tuple[str, float, str], ...] = ()

    @property
    def defaulted(self) -> tuple[str, ...]:
        return tuple(name for name, source in (("mass", self.source), ("inertia", self.inertia_source))
                     if source == "default")


@dataclass(frozen=True, slots=True)
class SyntheticJointDesc:
    """A joint the consumer creates itself: ``body1`` is the body it frees or holds (``body0`` the
    world when None)."""

    type: str  # "free"
    body0: Optional[str]
    body1: str
    reason: str
    dofs: tuple[DofDesc, ...] = ()


@dataclass(frozen=True, slots=True)
class StageDescription:
    stage: str
    consumer: str
    units: StageUnits
    bodies: tuple[BodyDesc, ...]
    articulations: tuple[ArticulationDesc, ...]
    joints: tuple[JointDesc, ...]
    diagnostics: tuple[Diagnostic, ...]
    scene: Optional[SceneDesc] = None
    colliders: tuple[ColliderDesc, ...] = ()
    collision_filters: CollisionFilters = field(default_factory=CollisionFilters)
    masses: Mapping[str, MassDesc] = field(default_factory=dict)  # body path -> its mass properties
    # joints the consumer adds that no prim authors (Newton's free joint on a floating base)
    synthetic_joints: tuple[SyntheticJointDesc, ...] = ()
    _by_path: dict = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self):
        # lookups by path are constant time; the index is derived, never passed in
        index = {joint.path: joint for joint in self.joints}
        index.update({("body", body.path): body for body in self.bodies})
        object.__setattr__(self, "_by_path", index)

    def joint(self, path: str) -> JointDesc:
        try:
            return self._by_path[path]
        except KeyError:
            raise KeyError(path) from None

    def mass(self, path: str) -> MassDesc:
        try:
            return self.masses[path]
        except KeyError:
            raise KeyError(path) from None

    def body(self, path: str) -> BodyDesc:
        try:
            return self._by_path[("body", path)]
        except KeyError:
            raise KeyError(path) from None
