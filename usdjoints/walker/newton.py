"""Newton 1.8's reading of a stage (``newton.ModelBuilder().add_usd(path)``), from OpenUSD's parser's.

Newton reads joints through OpenUSD's parser and then applies its own rules; each rule below was
measured on generated stages read back through ``add_usd`` and ``finalize(device="cpu")`` (see
``tests/oracle/newton_stages.py``, compared in ``tests/oracle/test_walk_vs_newton.py``). Values stay in USD
units: a rotational dof in degrees, gains per degree, speeds in deg/s. Newton's own sentinels are
given in those units too, so that ``1e10`` rad (Newton's "no limit") is ``1e10 * 180 / pi`` degrees.
"""
from __future__ import annotations

import dataclasses
import math
from collections import defaultdict
from typing import Optional

import numpy as np

from ..descriptors import (Diagnostic, DofDesc, DofValue, JointDesc, LimitDesc, StageDescription,
                           SyntheticJointDesc)
from .dofs import D6_AXES, DISTANCE_DOFS, ROTATIONAL, SPHERICAL_AXES, default
from .joints import JOINT_TYPE_BY_SCHEMA
from .newton_mimics import newton_mimics

RAD_TO_DEG = 180.0 / math.pi
# Newton's model units: "no limit" and the default effort and speed limits (per rad for angular dofs).
UNLIMITED = 1e10
DEFAULT_EFFORT = 1e6
DEFAULT_VELOCITY = 1e6
MERGEABLE = frozenset({"revolute", "prismatic"})
# The order OpenUSD's parser returns joints of each type in (UsdPhysics.ObjectType), which is the
# order Newton meets joints outside any articulation in.
_TYPE_ORDER = {"fixed": 0, "revolute": 1, "prismatic": 2, "spherical": 3, "distance": 4, "d6": 5, "custom": 6}
# Diagnostic codes of the parser's reading that Newton's reading replaces.
_PARSER_ONLY_CODES = frozenset({"one-sided-limit", "coupling-unseen"})

REFUSED = "newton-refuses-stage"


def _unlimited(rotational: bool) -> float:
    return UNLIMITED * RAD_TO_DEG if rotational else UNLIMITED


def _velocity_default(rotational: bool) -> DofValue:
    return default(DEFAULT_VELOCITY * RAD_TO_DEG if rotational else DEFAULT_VELOCITY)


class _NewtonAttributes:
    """``newton:armature``, ``newton:friction`` and ``newton:velocityLimit`` of joint prims."""

    def __init__(self, stage):
        self.stage = stage
        self._cache: dict[str, dict] = {}

    def get(self, path: str) -> dict:
        cached = self._cache.get(path)
        if cached is None:
            cached = self._cache[path] = self._read(path)
        return cached

    def _read(self, path: str) -> dict:
        out = {}
        prim = self.stage.GetPrimAtPath(path)
        for key, name in (("armature", "newton:armature"), ("friction", "newton:friction"),
                          ("velocity_limit", "newton:velocityLimit")):
            attr = prim.GetAttribute(name) if prim else None
            if attr and attr.HasAuthoredValue():
                number = attr.Get()
                try:
                    number = float(number)
                except (TypeError, ValueError):
                    continue
                if key == "velocity_limit" and number == math.inf:
                    continue  # Newton reads +inf as "unset": its default speed limit applies
                out[key] = DofValue(number, "authored")
        return out


def _bound(number: float, column, rotational: bool, upper: bool) -> DofValue:
    if math.isfinite(number):
        source = "default"
        if column is not None and column.value is not None and float(column.value) == number:
            source = str(column.source)
        return DofValue(number, source)
    return default(_unlimited(rotational) * (1.0 if upper else -1.0))


def _passive(attrs: dict, rotational: bool, reads_velocity: bool = True) -> dict:
    velocity = attrs.get("velocity_limit") if reads_velocity else None
    return {
        "armature": attrs.get("armature", default(0.0)),
        "friction": attrs.get("friction", default(0.0)),
        "velocity_limit": velocity if velocity is not None else _velocity_default(rotational),
    }


def _drive_values(joint: JointDesc, name: str, undriven_effort: float):
    drive = next((d for d in joint.drives if d.dof == name), None)
    if drive is None:
        return default(0.0), default(0.0), default(undriven_effort), None
    prefix = f"drive:{name}:physics:"
    columns = joint.columns

    def of(number, column_name):
        column = columns.get(prefix + column_name)
        source = str(column.source) if column is not None else "default"
        return DofValue(float(number), source)

    return of(drive.stiffness, "stiffness"), of(drive.damping, "damping"), of(drive.max_force, "maxForce"), drive


def _free_dof(name: str, source: str, rotational: bool, attrs: dict, effort: float,
              reads_velocity: bool = True) -> DofDesc:
    limit = _unlimited(rotational)
    return DofDesc(name, source, rotational, default(-limit), default(limit), default(0.0), default(0.0),
                   default(effort), **_passive(attrs, rotational, reads_velocity))


def _typed_dof(joint: JointDesc, attrs: dict, undriven_effort: float) -> DofDesc:
    """The dof of a revolute or prismatic joint (alone, or merged into a D6)."""
    rotational = joint.type == "revolute"
    name = "angular" if rotational else "linear"
    columns = joint.columns
    low = float(columns["physics:lowerLimit"].value)
    high = float(columns["physics:upperLimit"].value)
    ke, kd, effort, _ = _drive_values(joint, name, undriven_effort)
    return DofDesc(name, joint.path, rotational,
                   _bound(low, columns.get("physics:lowerLimit"), rotational, False),
                   _bound(high, columns.get("physics:upperLimit"), rotational, True),
                   ke, kd, effort, **_passive(attrs, rotational))


def _d6_dofs(joint: JointDesc, attrs: dict, notes: list) -> tuple[DofDesc, ...]:
    """Axes with a PhysicsLimitAPI whose bounds leave room (low < high), translations first."""
    limits = {limit.dof: limit for limit in joint.limits}
    dofs = []
    for axis in D6_AXES:
        limit = limits.get(axis)
        if limit is None:
            continue
        rotational = axis in ROTATIONAL
        if limit.enabled:
            lower = _bound(limit.low, joint.columns.get(f"limit:{axis}:physics:low"), rotational, False)
            upper = _bound(limit.high, joint.columns.get(f"limit:{axis}:physics:high"), rotational, True)
            free = limit.low < limit.high
        else:
            # a disabled limit takes Newton's "no limit", which it converts as if it were degrees
            lower, upper = default(-UNLIMITED), default(UNLIMITED)
            free = True
        if not free:
            continue
        ke, kd, effort, _ = _drive_values(joint, axis, math.inf)
        dofs.append(DofDesc(axis, joint.path, rotational, lower, upper, ke, kd, effort,
                            **_passive(attrs, rotational)))
    kept = {dof.dof for dof in dofs}
    for drive in joint.drives:
        if drive.dof not in kept:
            notes.append(Diagnostic(
                "warning", joint.path, f"PhysicsDriveAPI:{drive.dof} is dropped: Newton builds a D6 axis only "
                "where a PhysicsLimitAPI leaves it room (low < high), and locks the others", "newton-d6-axis-locked"))
    return tuple(dofs)


def _spherical_dofs(joint: JointDesc, attrs: dict) -> tuple[DofDesc, ...]:
    return tuple(_free_dof(axis, joint.path, True, attrs, DEFAULT_EFFORT, reads_velocity=False)
                 for axis in SPHERICAL_AXES)


def _distance_dofs(joint: JointDesc, attrs: dict) -> tuple[DofDesc, ...]:
    columns = joint.columns
    dofs = []
    for index, name in enumerate(DISTANCE_DOFS):
        rotational = name in ROTATIONAL
        dof = _free_dof(name, joint.path, rotational, attrs, DEFAULT_EFFORT)
        if index == 0:
            def side(column_name):
                column = columns.get(column_name)
                number = float(column.value)
                return DofValue(number, str(column.source)) if number >= 0.0 else DofValue(-1.0, "default")
            dof = dof._replace(limit_lower=side("physics:minDistance"), limit_upper=side("physics:maxDistance"))
        dofs.append(dof)
    return tuple(dofs)


def _path_key(path: str):
    """Sdf path order: element by element (the order Newton meets the parser's joints in)."""
    return tuple(path.split("/"))


def _newton_sides(joint: JointDesc, disabled_bodies: set) -> tuple[Optional[str], Optional[str], bool]:
    """(parent, child, flipped): a disabled body is the world; the world is always the parent."""
    body0 = None if joint.body0 in disabled_bodies else joint.body0
    body1 = None if joint.body1 in disabled_bodies else joint.body1
    if body1 is None and body0 is not None:
        return None, body0, True
    return body0, body1, False


class _Components:
    """Union-find over bodies and the world (None)."""

    def __init__(self):
        self.parent: dict = {}

    def find(self, node):
        self.parent.setdefault(node, node)
        while self.parent[node] != node:
            self.parent[node] = self.parent[self.parent[node]]
            node = self.parent[node]
        return node

    def union(self, a, b) -> bool:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return False
        self.parent[ra] = rb
        return True


def refine(description: StageDescription, stage, bodies) -> StageDescription:
    """The parser's reading of ``description`` turned into Newton's."""
    attributes = _NewtonAttributes(stage)
    notes: list[Diagnostic] = [d for d in description.diagnostics if d.code not in _PARSER_ONLY_CODES]
    disabled_bodies = {b.path for b in description.bodies if not b.enabled}
    kinematic = {b.path for b in description.bodies if b.kinematic and b.enabled}
    refused: list[Diagnostic] = []
    meters_per_unit = description.units.meters_per_unit.value
    if meters_per_unit != 1.0:
        notes.append(Diagnostic("warning", None, f"metersPerUnit is {meters_per_unit:g}: Newton applies no stage "
                                "units and reads every length as metres", "newton-units-ignored",
                                attribute="metersPerUnit"))

    def refuse(prim, message):
        refused.append(Diagnostic("error", prim, f"Newton refuses the whole stage: {message}", "newton-refuses-stage"))

    order = sorted(description.joints, key=lambda j: _path_key(j.path))
    sides: dict[str, tuple] = {}
    built: list[JointDesc] = []
    dropped: set[str] = set()
    for joint in order:
        schema_kind = JOINT_TYPE_BY_SCHEMA.get(joint.schema_type)
        if schema_kind in ("rack_and_pinion", "gear"):
            dropped.add(joint.path)
            notes.append(Diagnostic("warning", joint.path, f"Newton does not build {schema_kind.replace('_', '-')} "
                                    "joints: the coupling is lost", "newton-joint-dropped"))
            continue
        parent, child, flipped = _newton_sides(joint, disabled_bodies)
        if not joint.enabled:
            dropped.add(joint.path)
            notes.append(Diagnostic("info", joint.path, "the joint is disabled: Newton does not build it",
                                    "newton-joint-dropped"))
            continue
        if child is None:
            dropped.add(joint.path)
            continue  # no body on either side: nothing to build (the parser's reading says so already)
        if parent is not None and parent == child:
            refuse(joint.path, f"both sides resolve to the same body {child}")
            continue
        sides[joint.path] = (parent, child, flipped)
        built.append(joint)
        if flipped:
            notes.append(Diagnostic("info", joint.path, "the world is on physics:body1: Newton makes the world the "
                                    "parent and swaps the joint's frames", "newton-flipped",
                                    attribute="physics:body1"))
        if any(d.type == "acceleration" for d in joint.drives):
            notes.append(Diagnostic("warning", joint.path, "Newton reads an acceleration drive as a force drive: "
                                    "the same gains act on a body of any mass", "newton-acceleration-drive"))
        if joint.type == "spherical" and any(limit.enabled for limit in joint.limits):
            notes.append(Diagnostic("warning", joint.path, "Newton ignores spherical cone limits: the joint swings "
                                    "freely", "newton-cone-ignored", attribute="physics:coneAngle0Limit"))

    # Articulations as the parser gathers them; a joint the parser leaves outside any is standalone.
    tree = [j for j in built if not j.exclude_from_articulation]
    for joint in tree:
        parent, child, _ = sides[joint.path]
        if joint.articulation is None and parent is not None:
            refuse(joint.path, "a joint between two bodies outside any articulation (Newton finds it belongs "
                   "to no articulation)")

    # Joints on one (parent, child) pair inside an articulation become one D6, named after the first
    # in the parser's articulation order (by path). Joints outside any articulation are grouped by
    # their authored (body0, body1) in the parser's order (by joint type, then stage order) and
    # merged only when every one of them can be.
    stage_order = {joint.path: index for index, joint in enumerate(description.joints)}
    groups: dict[tuple, list[JointDesc]] = defaultdict(list)
    for joint in tree:
        parent, child, _ = sides[joint.path]
        if joint.articulation is None:
            groups[("standalone", joint.body0, joint.body1)].append(joint)
        else:
            groups[(joint.articulation, parent, child)].append(joint)
    merged_into: dict[str, str] = {}
    representatives: list[JointDesc] = []
    for key, members in groups.items():
        standalone = key[0] == "standalone"
        if standalone:
            members.sort(key=lambda j: (_TYPE_ORDER.get(j.type, len(_TYPE_ORDER)), stage_order[j.path]))
        if len(members) == 1 or (standalone and any(m.type not in MERGEABLE for m in members)):
            representatives.extend(members)
            continue
        representatives.append(members[0])
        bad = next((m for m in members if m.type not in MERGEABLE), None)
        if bad is not None:
            refuse(bad.path, f"it shares its bodies with {', '.join(m.path for m in members if m is not bad)} and "
                   f"a {bad.type} joint cannot be merged into a D6 (only revolute and prismatic joints can)")
            continue
        for member in members[1:]:
            merged_into[member.path] = members[0].path
            notes.append(Diagnostic("info", member.path, f"Newton merges this joint into the D6 {members[0].path} "
                                    "(the joints share one body pair)", "newton-merged"))

    # Graph checks per articulation: cycles, several roots, reversed joints, kinematic children.
    by_articulation: dict = defaultdict(list)
    for joint in representatives:
        by_articulation[joint.articulation].append(joint)
    for index, joints in by_articulation.items():
        if index is None:
            continue
        components = _Components()
        for joint in joints:
            parent, child, _ = sides[joint.path]
            if not components.union(parent, child):
                refuse(joint.path, "it closes a loop and is not excluded from the articulation (Newton finds a "
                       "cycle in the joint graph)")
        nodes = {n for j in joints for n in sides[j.path][:2]}
        groups_of = defaultdict(set)
        for node in nodes:
            groups_of[components.find(node)].add(node)
        if len(groups_of) > 1:
            root_prim = description.articulations[index].root
            refuse(root_prim, f"the articulation has {len(groups_of)} separate parts (Newton finds multiple roots "
                   "in the joint graph)")
        children = {sides[j.path][1] for j in joints}
        for members in groups_of.values():
            root = None if None in members else next(
                (sides[j.path][0] for j in joints if sides[j.path][0] in members and sides[j.path][0] not in children),
                None)
            _check_directions(joints, sides, members, root, refuse)
        for joint in joints:
            parent, child, _ = sides[joint.path]
            if parent is not None and child in kinematic:
                refuse(child, f"the kinematic body is attached to the body {parent} by {joint.path}: only "
                       "root bodies may be kinematic")

    # Nested articulation roots: the parser hands the same joints to each root, and Newton builds each.
    shared_links = defaultdict(list)
    for index, art in enumerate(description.articulations):
        for link in art.links:
            shared_links[link].append(index)
    for link, owners in shared_links.items():
        if len(owners) > 1:
            notes.append(Diagnostic("warning", description.articulations[owners[-1]].root,
                                    f"{link} is a link of {len(owners)} articulation roots: Newton builds its "
                                    "joints once per root", "newton-nested-root"))
            break

    # A body of an articulation that only excluded joints reach is not loaded: Newton then builds
    # the excluded joint on other bodies (measured: world -> the base link), which is not predicted.
    reached = {body for joint in tree for body in sides[joint.path][:2] if body is not None}
    links = {link for art in description.articulations for link in art.links}
    unloaded: set[str] = set()
    for joint in built:
        ends = [b for b in sides[joint.path][:2] if b is not None]
        if not joint.exclude_from_articulation or not any(b in links for b in ends):
            continue
        for body in ends:
            if body not in reached:
                unloaded.add(body)
                notes.append(Diagnostic(
                    "warning", joint.path, f"{body} is reached only through this excluded joint: Newton loads no body "
                    "for it and builds the joint on other bodies (its reading of this joint is not predicted)",
                    "newton-unpredicted", attribute="physics:excludeFromArticulation"))

    member_order = {m.path: i for members in groups.values() for i, m in enumerate(members)}
    merged_reps = set(merged_into.values())
    members_of: dict[str, list[JointDesc]] = defaultdict(list)
    for joint in description.joints:
        if joint.path in merged_into:
            members_of[merged_into[joint.path]].append(joint)
    newton_type = {j.path: ("d6" if j.path in merged_reps else j.type) for j in built}
    mimics = newton_mimics(stage, built, merged_into, newton_type, refuse, notes)

    # The per-dof view.
    joints_out = []
    for joint in description.joints:
        path = joint.path
        if path in dropped:
            joints_out.append(dataclasses.replace(joint, dofs=(), dropped=True, merged_into=None,
                                                  type=JOINT_TYPE_BY_SCHEMA.get(joint.schema_type, joint.type)))
            continue
        if path not in sides:
            joints_out.append(dataclasses.replace(joint, dofs=(), dropped=True, merged_into=None))
            continue
        parent, child, flipped = sides[path]
        changes = {"body0": parent, "body1": child, "dropped": False, "merged_into": merged_into.get(path),
                   "limits": _limits(joint)}
        if flipped:
            changes.update(local_pose0=joint.local_pose1, local_pose1=joint.local_pose0,
                           body0_target=joint.body1_target, body1_target=joint.body0_target)
        attrs = attributes.get(path)
        if path in merged_into:
            changes["dofs"] = ()
        else:
            members = members_of.get(path)
            if members:
                group = [joint] + sorted(members, key=lambda j: member_order[j.path])
                linear = [j for j in group if j.type == "prismatic"]
                angular = [j for j in group if j.type == "revolute"]
                changes["dofs"] = tuple(_typed_dof(j, attributes.get(j.path), math.inf) for j in linear + angular)
                changes["type"] = "d6"
            else:
                changes["dofs"] = _dofs(joint, attrs, notes)
        changes["mimics"] = mimics.get(path, ())
        joints_out.append(dataclasses.replace(joint, **changes))

    # Free joints: every loaded body that is no joint's child.
    children = {sides[j.path][1] for j in built}
    synthetic = []
    colliders = getattr(bodies, "colliders", set())
    for body in description.bodies:
        if not body.enabled or body.path in children or body.path in unloaded:
            continue
        if not _has_mass_or_shape(body, colliders, description.colliders):
            continue  # measured: a body with neither mass nor collider gets no joint at all
        reason = "floating base" if any(sides[j.path][0] == body.path for j in built) else "lone body"
        synthetic.append(SyntheticJointDesc(
            "free", None, body.path, f"Newton adds a free joint ({reason})",
            tuple(_free_dof(name, body.path, name.startswith("rot"), {}, DEFAULT_EFFORT) for name in D6_AXES)))
    # A joint merged into a D6 closes no loop for Newton.
    notes = [d for d in notes if not (d.code == "articulation-loop" and d.prim in merged_into)]
    articulations = tuple(dataclasses.replace(a, loop_joints=tuple(j for j in a.loop_joints if j not in merged_into))
                          for a in description.articulations)
    return dataclasses.replace(description, consumer="newton", joints=tuple(joints_out), articulations=articulations,
                               diagnostics=tuple(notes + refused), synthetic_joints=tuple(synthetic))


def _has_mass_or_shape(body, colliders, described=()) -> bool:
    """Whether Newton gives ``body`` a free joint: it has a positive mass, or a collider that gives
    it one (measured: a density with only a zero-size cube collider gets no joint, as a body with
    neither mass nor collider)."""
    column = body.columns.get("physics:mass")
    try:
        if column is not None and column.value is not None and float(column.value) > 0.0:
            return True
    except (TypeError, ValueError):
        pass
    prefix = body.path + "/"
    mine = [c for c in colliders if c == body.path or c.startswith(prefix)]
    shapes = {c.path: c for c in described}
    return any(c not in shapes or _gives_volume(shapes[c]) for c in mine)


def _gives_volume(collider) -> bool:
    """A collider shape of positive finite volume (shapes without closed-form dimensions count)."""
    from .mass import _solid

    solid = _solid(collider, np.abs(np.array(collider.body_scale, dtype=float)))
    if solid is None:
        return True
    volume = solid[0]
    return bool(np.isfinite(volume) and volume > 0.0)


def _check_directions(joints, sides, members, root, refuse) -> None:
    """Walk the part holding ``root`` from it: a joint entered from its child side is reversed."""
    adjacency = defaultdict(list)
    for joint in joints:
        parent, child, _ = sides[joint.path]
        if parent in members:
            adjacency[parent].append(joint)
            adjacency[child].append(joint)
    seen = {root}
    stack = [root]
    used = set()
    while stack:
        node = stack.pop()
        for joint in adjacency[node]:
            if joint.path in used:
                continue
            used.add(joint.path)
            parent, child, _ = sides[joint.path]
            other = child if node == parent else parent
            if node == child and parent != child:
                refuse(joint.path, "the joint points from child to parent (Newton reports a reversed joint: "
                       "physics:body0 must be the parent)")
            if other not in seen:
                seen.add(other)
                stack.append(other)


def _limits(joint: JointDesc) -> tuple[LimitDesc, ...]:
    """The limits Newton applies: a revolute keeps each finite bound (the parser calls a one-sided
    limit disabled)."""
    if joint.type != "revolute":
        return joint.limits
    return tuple(LimitDesc(l.dof, math.isfinite(l.low) or math.isfinite(l.high), l.low, l.high)
                 for l in joint.limits)


def _dofs(joint: JointDesc, attrs: dict, notes: list) -> tuple[DofDesc, ...]:
    if joint.type in MERGEABLE:
        return (_typed_dof(joint, attrs, DEFAULT_EFFORT),)
    if joint.type == "d6":
        return _d6_dofs(joint, attrs, notes)
    if joint.type == "spherical":
        return _spherical_dofs(joint, attrs)
    if joint.type == "distance":
        return _distance_dofs(joint, attrs)
    return ()
