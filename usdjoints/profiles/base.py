"""The shape of a consumer profile: data, and the small named behaviours that read it.

Every field is a rule of one consumer, measured on that consumer or read from its source; the
profile modules give each one its reason. The walker calls the methods below and never asks for
a consumer by name.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping, Optional, Sequence

D6_INSTANCES = ("transX", "transY", "transZ", "rotX", "rotY", "rotZ", "distance")
ROTATIONAL_DOFS = frozenset({"angular", "rotX", "rotY", "rotZ", "cone"})
TRANSLATIONAL_DOFS = frozenset({"transX", "transY", "transZ", "distance", "linear"})

# Which PhysicsDriveAPI instances a joint type reads (the UsdPhysics parser and ovphysx both gate
# per instance; other instances are ignored).
DRIVE_INSTANCES = MappingProxyType({
    "d6": D6_INSTANCES, "revolute": ("angular",), "prismatic": ("linear",), "spherical": (), "fixed": (),
    "distance": (), "rack_and_pinion": (), "gear": (), "custom": (),
})
# Which PhysicsLimitAPI instances a joint type reads: only the D6; typed joints have columns.
LIMIT_INSTANCES = MappingProxyType({
    "d6": D6_INSTANCES, "revolute": (), "prismatic": (), "spherical": (), "fixed": (), "distance": (),
    "rack_and_pinion": (), "gear": (), "custom": (),
})

# PhysxJointAxisAPI:<dof> columns behind the per-dof passive values (PhysX and usdjoints read them)
PHYSX_AXIS_COLUMNS = MappingProxyType({
    "velocity_limit": "physxJointAxis:{dof}:maxJointVelocity",
    "armature": "physxJointAxis:{dof}:armature",
    "friction": "physxJointAxis:{dof}:staticFrictionEffort",
})

# one-sided revolute limit policies (see Profile.one_sided_revolute)
OPEN, DISABLE, LOCK, CLAMP = "open", "disable", "lock", "clamp"
# nested articulation root policies (see Profile.nested_roots)
REJECT_NESTED, SHARE_CLAIMED, INDEPENDENT = "reject", "claimed", "independent"
# roles a joint can have in an articulation's graph (see Profile.articulation_roles)
TREE, LOOP, EXCLUDED = "tree", "loop", "excluded"
ROLE_ORDER = (TREE, LOOP, EXCLUDED)


@dataclass(frozen=True)
class Profile:
    """One consumer's reading of a stage.

    Data fields (all consulted by the walker):

    ``name``: the consumer's name on the command line. ``title``: how messages name it.
    ``drive_instances`` / ``limit_instances``: per joint type, the API instances it reads.
    ``joint_types_read_as``: joint types it reads as another type (OpenUSD's parser reads
    couplings and custom joints as D6 joints).
    ``limit_enable_rule``: per joint type, "or" (on when either bound is a bound) or "and" (both);
    a type not listed uses "or".
    ``one_sided_revolute``: for "articulation" and "standalone" joints, what a revolute limit with
    exactly one bound becomes: ``open`` (that side stays open), ``disable`` (no limit), ``lock``
    (rejected, the hinge is locked at [0, 0]) or ``clamp`` (the open side at ``standalone_revolute_clamp``).
    ``standalone_revolute_range``: a finite bound of a revolute joint outside articulations is
    clamped to +-this [deg] (None: never clamped); inside an articulation no bound is clamped.
    ``articulation_d6_translational_drives``: whether an articulation D6 joint reads its
    translational drives.
    ``reads_unauthored_as``: "producer" (what USD population wrote) or "usd" (the schema fallback).
    ``reads_invalid_as``: "cast" (a wrongly typed value converted when it can be, else the parser
    default) or "fallback" (the schema fallback).
    ``parser_defaults_from`` / ``parser_default_overrides``: where :mod:`usdjoints.contract` finds
    this consumer's parser default of each column: the column tables' entry for that consumer,
    then these overrides keyed ``(owner, column)``.
    ``units``: the unit each quantity reaches the consumer in (:meth:`to_consumer_units`).
    ``disabled_bodies``: a body relationship reaching a rigid body with rigidBodyEnabled = false
    ``resolves`` to it, or ``skips`` it to the nearest enclosing enabled body.
    ``collider_bodies``: the topmost collider on the way up is the body when no rigid body is found.
    ``unresolved_frame``: a side that resolves to no body keeps its authored frame ``verbatim``
    in world space, or has it ``lifted`` through the target's transform.
    ``kinematic_links``: a kinematic body can be an articulation link.
    ``root_on_body_is_base``: an articulation root on a dynamic body is the user's floating base.
    ``body_root_kinematic_links``: with the root API on a dynamic body, the kinematic bodies its
    joints reach are links too (simulated as dynamic).
    ``root_on_non_link``: ``reject`` or ``accept`` a root on a disabled or kinematic body.
    ``root_on_disabled_joint``: ``reject`` or ``accept`` a root on a joint with jointEnabled = false.
    ``nested_roots``: ``reject`` a root inside another root, accept it with links already
    ``claimed`` by the outer one left to it, or gather it ``independent``ly (links shared).
    ``refuses_kinematic_articulations``: an articulation reaching a kinematic body is not built.
    ``computes_mass``: the consumer resolves each body's mass properties (authored values, else
    from its colliders' shapes and densities, else its defaults); without it only what is
    authored is reported. ``material_density``: a collider's bound PhysicsMaterialAPI density
    gives it mass when the body authors no physics:density. ``link_zero_moment_default``: an
    articulation link whose authored diagonalInertia has a zero moment beside a positive one
    keeps the consumer's default inertia, 1 stage unit about each axis (PhysX rejects the tensor).
    ``refuses_units``: stage metadata (metersPerUnit, kilogramsPerUnit) whose value, read but no
    positive finite number, makes the consumer load nothing of the stage.
    ``world_anchor_welds``: a non-fixed joint from the world to an articulation becomes its fixed base.
    ``articulation_roles``: which joints touching an articulation's links belong to it (their
    ``articulation`` index): ``tree``, ``loop`` (closing a loop; a joint with both sides on one
    body closes one), ``excluded`` (excludeFromArticulation).
    ``listed_roles``: which of them the articulation lists as its ``joints``.
    ``seeds_inside_links``: a body below a link already gathered can start a component of its own.
    ``jointless_seeds``: a body with no enabled joint under a root prim that is neither body nor
    joint is still elected a root (of an articulation of no links).
    ``joint_order``: the order a body's joints are tried in when the tree is grown: ``stage``
    order or ``path`` order (which of several joints on one body pair is the tree's, and which
    joint closes a loop, follow from it).
    ``unarticulated_types``: joint types never part of an articulation's graph (read as excluded).
    ``tree_from``: the tree of a component grows from its first body in stage order (``seed``)
    or from the root the consumer ``elect``s (the root body, the link of the world joint, the
    top of a nested chain, or the centre of the graph, ties by path).
``dof_columns``: for the per-dof view, the column each passive dof value (``velocity_limit``,
    ``armature``, ``friction``) is read from, ``{dof}`` standing for the dof name; a value with no
    entry is one the consumer does not hold.
    ``reads_through`` / ``refine``: a consumer that reads a stage through another consumer's
    reading (Newton reads OpenUSD's parser's) names it, and ``refine`` ("module:function") turns
    that StageDescription into its own: ``refine(description, stage, bodies)``.
    """

    name: str
    title: str
    description: str
    drive_instances: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: DRIVE_INSTANCES)
    limit_instances: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: LIMIT_INSTANCES)
    joint_types_read_as: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    limit_enable_rule: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    one_sided_revolute: Mapping[str, str] = field(
        default_factory=lambda: MappingProxyType({"articulation": OPEN, "standalone": OPEN}))
    standalone_revolute_clamp: float = 180.0
    standalone_revolute_range: Optional[float] = None
    articulation_d6_translational_drives: bool = True
    reads_unauthored_as: str = "usd"
    reads_invalid_as: str = "fallback"
    parser_defaults_from: Optional[str] = None
    parser_default_overrides: Mapping[tuple[str, str], Any] = field(default_factory=lambda: MappingProxyType({}))
    units: Mapping[str, str] = field(
        default_factory=lambda: MappingProxyType({"angle": "deg", "angular_gain": "per deg", "length": "stage"}))
    disabled_bodies: str = "skips"
    collider_bodies: bool = False
    unresolved_frame: str = "lifted"
    kinematic_links: bool = False
    root_on_body_is_base: bool = False
    body_root_kinematic_links: bool = False
    root_on_non_link: str = "reject"
    root_on_disabled_joint: str = "accept"
    nested_roots: str = SHARE_CLAIMED
    refuses_kinematic_articulations: bool = False
    world_anchor_welds: bool = False
    refuses_units: frozenset = frozenset()
    computes_mass: bool = True
    material_density: bool = False
    link_zero_moment_default: bool = False
    articulation_roles: frozenset = frozenset({TREE, LOOP})
    listed_roles: frozenset = frozenset({TREE})
    seeds_inside_links: bool = True
    jointless_seeds: bool = False
    joint_order: str = "stage"
    unarticulated_types: frozenset = frozenset()
    tree_from: str = "seed"
    dof_columns: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    reads_through: Optional[str] = None
    refine: Optional[str] = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    # -- joints -------------------------------------------------------------------------------
    def joint_type(self, schema_joint_type: str) -> str:
        """The joint type this consumer sees for a prim whose schema gives ``schema_joint_type``."""
        return self.joint_types_read_as.get(schema_joint_type, schema_joint_type)

    # -- limits -------------------------------------------------------------------------------
    def limit_enabled(self, joint_type: str, lower_is_bound: bool, upper_is_bound: bool) -> bool:
        if self.limit_enable_rule.get(joint_type, "or") == "and":
            return lower_is_bound and upper_is_bound
        return lower_is_bound or upper_is_bound

    def one_sided_revolute_policy(self, in_articulation: bool) -> str:
        return self.one_sided_revolute["articulation" if in_articulation else "standalone"]

    def clamps_standalone_revolute(self, in_articulation: bool) -> bool:
        return not in_articulation and self.standalone_revolute_range is not None

    def reads_drive(self, joint_type: str, instance: str, in_articulation: bool) -> bool:
        """Whether an applied PhysicsDriveAPI:<instance> the joint type declares is read."""
        if in_articulation and joint_type == "d6" and instance in TRANSLATIONAL_DOFS:
            return self.articulation_d6_translational_drives
        return True

    # -- columns ------------------------------------------------------------------------------
    def parser_default_key(self) -> str:
        """The consumer whose entry in the column tables holds this one's parser defaults."""
        return self.parser_defaults_from or self.name

    def to_consumer_units(self, quantity: str, value: float, meters_per_unit: float = 1.0) -> float:
        """``value`` of ``quantity`` (angle [deg], angular_gain [per deg], length [stage]) as the
        consumer holds it, in the units of :attr:`units`."""
        from .. import units as u

        unit = self.units.get(quantity)
        if quantity == "angle":
            return value if unit == "deg" else u.deg_to_rad(value)
        if quantity == "angular_gain":
            return value if unit == "per deg" else u.angular_gain_per_deg_to_per_rad(value)
        if quantity == "length":
            return value if unit == "stage" else u.length_to_meters(value, meters_per_unit)
        raise ValueError(f"no unit rule for {quantity!r}")

    # -- bodies -------------------------------------------------------------------------------
    def body_rule(self) -> tuple:
        """What decides where a relationship to a non-body or disabled-body target lands: two
        consumers with the same rule resolve every side alike (the walker shares the result)."""
        return (self.disabled_bodies, self.collider_bodies, self.unresolved_frame)

    def resolve_body(self, prim, records: Mapping, colliders, pseudo_root) -> Optional[str]:
        """The body ``prim`` belongs to (None = the world): the nearest enclosing rigid body this
        consumer takes (see ``disabled_bodies``), else, with ``collider_bodies``, the topmost collider."""
        collider = None
        while prim and prim != pseudo_root:
            path = str(prim.GetPath())
            record = records.get(path)
            if record is not None and (record.enabled or self.disabled_bodies == "resolves"):
                return path
            if self.collider_bodies and path in colliders:
                collider = path
            prim = prim.GetParent()
        return collider

    def is_link(self, record) -> bool:
        """Whether the body ``record`` (a BodyRecord or None) can be an articulation link."""
        if record is None or not record.enabled:
            return False
        return self.kinematic_links or not record.kinematic

    # -- articulations ------------------------------------------------------------------------
    def accepts_root_on(self, record) -> bool:
        """Whether a root on the body ``record`` (None: not on a body) is taken."""
        if record is None or self.root_on_non_link == "accept":
            return True
        return record.enabled and not record.kinematic

    def accepts_root_on_joint(self, record) -> bool:
        """Whether a root on the joint ``record`` (a JointRecord) is taken."""
        return record.enabled or self.root_on_disabled_joint == "accept"

    def order_body_joints(self, joints: Sequence) -> Sequence:
        """The order in which the graph pass tries the joints (JointRecords) of one body."""
        if self.joint_order == "path":
            from .graph import path_key

            return sorted(joints, key=lambda joint: path_key(joint.path))
        return joints

    def articulates(self, joint_type: str) -> bool:
        """Whether a joint of ``joint_type`` can join an articulation's graph."""
        return joint_type not in self.unarticulated_types

    def tree_start(self, seed: str, root: str, root_is_body: bool, incidence) -> str:
        """The link a component's tree grows from (``incidence`` as for :meth:`elect_roots`)."""
        if self.tree_from == "seed":
            return seed
        from .graph import elect, world_joint_link

        if root_is_body and root in incidence:
            return root
        elected = elect(seed, incidence, centre_ties="path")
        if elected in incidence:
            return elected
        return next(world_joint_link(elected, incidence), seed)

    def articulation_joints(self, roles: Mapping[str, Sequence[str]]) -> list[str]:
        """The joints that belong to an articulation, from its joints by role, in role order."""
        return [path for role in ROLE_ORDER if role in self.articulation_roles for path in roles.get(role, ())]

    def listed_joints(self, roles: Mapping[str, Sequence[str]]) -> list[str]:
        """The joints an articulation lists as its ``joints``, in role order."""
        return [path for role in ROLE_ORDER if role in self.listed_roles for path in roles.get(role, ())]

    def elect_roots(self, root: str, root_joint, root_is_body: bool, scopes, incidence):
        """``(root prims, base link)`` this consumer elects for articulation ``root``, or None to
        keep the walker's reading (the root body, else the first link anchored to the world, else
        the first link). ``root_joint`` is the JointRecord when the root API is on a joint;
        ``scopes`` lists (seed body, its links in the order gathered); ``incidence`` maps each link
        to its enabled joints as (path, other link or None, excluded)."""
        return None

