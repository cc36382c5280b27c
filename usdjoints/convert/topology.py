"""The kinematic tree of a RobotIR: checks it is one tree and orders it parents-first.

Shared by both readers' outputs; every error names the joint's file:line.
"""
from __future__ import annotations

import math
from collections import deque
from itertools import zip_longest as _zip_longest
from dataclasses import dataclass

from ..errors import InputError
from .ir import Joint, JointType, RobotIR


@dataclass(frozen=True, slots=True)
class _WorldStandIn:
    name: str
    source: object


@dataclass(frozen=True, slots=True)
class Tree:
    """``root`` is the one link that is nobody's child; ``order`` lists joints parents-first."""

    root: str
    order: tuple[Joint, ...]
    parent_joint: dict  # child link name -> Joint


def build_tree(robot: RobotIR) -> Tree:
    """Checks link references, single parents, one root and no cycle; raises InputError otherwise."""
    link_names = {link.name for link in robot.links}
    world = robot.world_link
    implicit_world = world is not None and world not in link_names and any(j.parent == world for j in robot.joints)
    if implicit_world:
        link_names.add(world)  # SDFormat's world is implicit: it may have no Link entry
    parent_joint: dict[str, Joint] = {}
    children: dict[str, list[Joint]] = {}
    for joint in robot.joints:
        for role, name in (("parent", joint.parent), ("child", joint.child)):
            if name not in link_names:
                raise InputError(
                    str(joint.source),
                    f"joint {joint.name!r} names {role} link {name!r}, which is not defined",
                    "define the link or fix the name",
                )
        if joint.child in parent_joint:
            first = parent_joint[joint.child]
            raise InputError(
                str(joint.source),
                f"link {joint.child!r} is the child of joint {joint.name!r} and of {first.name!r} "
                f"({first.source}); a tree gives each link one parent",
                "remove one joint (closed loops are not expressible here)",
            )
        if joint.parent == joint.child:
            raise InputError(str(joint.source), f"joint {joint.name!r} connects link {joint.parent!r} to itself")
        parent_joint[joint.child] = joint
        children.setdefault(joint.parent, []).append(joint)

    roots = [link for link in robot.links if link.name not in parent_joint]
    if implicit_world:
        roots.insert(0, _WorldStandIn(world, robot.source))
    if not roots:
        joint = robot.joints[0]
        raise InputError(str(joint.source), "the joints form a cycle: no link is free of a parent joint",
                         "break the loop so one link is the root")
    if len(roots) > 1:
        names = ", ".join(f"{r.name!r} ({r.source})" for r in roots)
        raise InputError(str(roots[1].source), f"the robot has {len(roots)} root links: {names}",
                         "connect every link to one tree with joints")

    order: list[Joint] = []
    stack = [roots[0].name]
    while stack:
        link = stack.pop()
        for joint in reversed(children.get(link, [])):
            order.append(joint)
            stack.append(joint.child)
    if len(order) != len(robot.joints):
        reached = {j.name for j in order}
        stray = next(j for j in robot.joints if j.name not in reached)
        raise InputError(str(stray.source), f"joint {stray.name!r} is part of a cycle detached from root "
                         f"{roots[0].name!r}", "break the loop")
    return Tree(roots[0].name, tuple(order), parent_joint)


@dataclass(frozen=True, slots=True)
class Component:
    """A connected set of bodies: one articulation.

    ``root`` is the world link when a joint ties the set to the world (a fixed base), else the
    body the spanning tree grows from. ``tree`` lists the spanning tree's joints parents-first;
    a tree joint may be walked against its written direction (``reversed_joints``).
    """

    root: str
    bodies: tuple[str, ...]
    tree: tuple[Joint, ...]
    fixed_base: bool
    reversed_joints: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Forest:
    """Every body of a robot grouped into articulations, plus the joints that close loops.

    ``loop_joints`` are written with ``physics:excludeFromArticulation = true``; ``anchored``
    are joints between two anchors (world or static links), which no consumer can simulate.
    """

    components: tuple[Component, ...]
    loop_joints: tuple[Joint, ...]
    anchored: tuple[Joint, ...]
    anchors: frozenset[str]


def build_forest(robot: RobotIR, anchors: frozenset[str] = frozenset(),
                 skipped: frozenset[str] = frozenset()) -> Forest:
    """Groups bodies into connected sets and picks each set's spanning tree deterministically
    (:func:`_breadth_first_forest`); then a loop-closing joint that a coupling ties (a screw, a
    mimic, a geared hinge: usdjoints couples tree joints only) trades places with a joint of its
    loop that carries nothing (no coupling, no limit, no drive that can apply a force), when there
    is one, nearest first: that joint closes the loop instead. The closure holds the same
    kinematics whichever joint it replaces. pr2's torso lift and gripper screws closed their loops,
    while the motor screw joints beside them, with no limit and effort 0, carry nothing. A file
    without a coupled loop closer keeps the breadth-first forest."""
    forest = _breadth_first_forest(robot, anchors, skipped, frozenset())
    coupled = _coupled(robot)
    if not coupled.intersection(j.name for j in forest.loop_joints):
        return forest
    carrying = coupled | _bounded_or_driven(robot)
    banned: frozenset[str] = frozenset()
    for closing in forest.loop_joints:
        if closing.name not in coupled or closing.parent in forest.anchors or closing.child in forest.anchors:
            continue
        for candidate in _loop_path(forest, closing):
            if candidate.name in carrying or candidate.parent in forest.anchors or candidate.child in forest.anchors:
                continue
            trial = _breadth_first_forest(robot, anchors, skipped, banned | {candidate.name})
            before = sum(j.name in coupled for j in forest.loop_joints)
            after = sum(j.name in coupled for j in trial.loop_joints)
            if closing.name not in {j.name for j in trial.loop_joints} and after < before:
                banned, forest = banned | {candidate.name}, trial
                break
    return forest


def _coupled(robot: RobotIR) -> set[str]:
    """Names of the joints a coupling ties, which usdjoints couples only in the tree: a screw (its
    two written halves are coupled), a mimic or mimicked joint, a hinge a gearbox couples."""
    names = set()
    geared = set()
    for joint in robot.joints:
        if joint.type is JointType.SCREW:
            names.add(joint.name)
        if joint.mimic is not None:
            names.update((joint.name, joint.mimic.reference))
        if joint.type is JointType.GEARBOX and joint.gearbox_reference_body is not None:
            geared.update({frozenset((joint.gearbox_reference_body, joint.parent)),
                           frozenset((joint.gearbox_reference_body, joint.child))})
    names.update(j.name for j in robot.joints if frozenset((j.parent, j.child)) in geared)
    return names


def _bounded_or_driven(robot: RobotIR) -> set[str]:
    """Names of the joints with a finite limit (SDFormat's +-1e16 is none) or a drive that can
    apply a force (effort above 0 with a velocity limit or a spring: the writer's damping =
    effort / velocity, stiffness = spring): a loop closer holds them too, but the tree is their home."""
    names = set()
    for joint in robot.joints:
        for axis in joint.axes:
            bounded = joint.type is not JointType.CONTINUOUS and any(
                v is not None and math.isfinite(v) and abs(v) < 1e16 for v in (axis.lower, axis.upper))
            effort = axis.effort if axis.effort is not None else robot.defaults.effort
            spring = axis.spring_stiffness not in (None, 0.0)
            damped = axis.velocity is not None and 0.0 < axis.velocity < math.inf
            if bounded or (effort is not None and effort > 0.0 and (spring or damped)):
                names.add(joint.name)
    return names


def _loop_path(forest: Forest, closing: Joint) -> list[Joint]:
    """The tree joints of the loop ``closing`` closes, nearest to its two ends first."""
    component = next((c for c in forest.components if closing.parent in c.bodies or closing.child in c.bodies), None)
    if component is None:
        return []
    parents: dict[str, tuple[Joint, str]] = {}
    for joint in component.tree:
        child, parent = ((joint.parent, joint.child) if joint.name in component.reversed_joints
                         else (joint.child, joint.parent))
        parents[child] = (joint, parent)

    def up(node):
        out = []
        while node in parents:
            joint, node = parents[node]
            out.append((joint, node))
        return out

    chain_u = [closing.parent] + [node for _, node in up(closing.parent)]
    chain_v = [closing.child] + [node for _, node in up(closing.child)]
    on_v = set(chain_v)
    common = next((node for node in chain_u if node in on_v), None)

    def side(chain):  # the tree joints from one end up to the common ancestor, nearest first
        below = chain[:chain.index(common)] if common in chain else chain
        return [parents[node][0] for node in below if node in parents]

    path = [j for pair in _zip_longest(side(chain_u), side(chain_v)) for j in pair if j is not None]
    return path


def _breadth_first_forest(robot: RobotIR, anchors: frozenset[str], skipped: frozenset[str],
                          banned: frozenset[str]) -> Forest:
    """Groups bodies into connected sets and picks each set's spanning tree deterministically.

    ``anchors`` are links that are not dynamic bodies (the world link, links of static models):
    joints to them tie a set to the world instead of joining sets. ``skipped`` joints (floating
    joints, welds dropped on request) connect nothing. The tree is a breadth-first search from the
    world (the first world joint in file order wins) or, for a free set, from its first link in
    file order that is no joint's child; neighbours are visited in file order, so the same file
    always closes its loops with the same joints: each joint the search meets after both its
    links were reached. ``banned`` joints never join a tree: each closes a loop.
    """
    link_names = [link.name for link in robot.links]
    known = set(link_names)
    world = robot.world_link
    if world is not None:
        known.add(world)
    anchors = frozenset(anchors | ({world} if world is not None else set()))
    edges: list[Joint] = []
    anchored: list[Joint] = []
    for joint in robot.joints:
        for role, name in (("parent", joint.parent), ("child", joint.child)):
            if name not in known:
                raise InputError(str(joint.source), f"joint {joint.name!r} names {role} link {name!r}, "
                                 "which is not defined", "define the link or fix the name")
        if joint.parent == joint.child:
            raise InputError(str(joint.source), f"joint {joint.name!r} connects link {joint.parent!r} to itself")
        if joint.name in skipped:
            continue
        if joint.parent in anchors and joint.child in anchors:
            anchored.append(joint)
        else:
            edges.append(joint)

    incident: dict[str, list[Joint]] = {}
    for joint in edges:
        incident.setdefault(joint.parent, []).append(joint)
        incident.setdefault(joint.child, []).append(joint)
    children = {j.child for j in edges if j.parent not in anchors}
    bodies = [name for name in link_names if name not in anchors]

    reached: set[str] = set()
    used: set[str] = set()
    components: list[Component] = []
    # fixed-base sets first, grown from the world through its joints in file order
    for joint in edges:
        if joint.parent in anchors or joint.child in anchors:
            start = joint.child if joint.parent in anchors else joint.parent
            if start not in reached:
                components.append(_grow(start, joint, incident, anchors, reached, used, fixed=True,
                                        root=joint.parent if joint.parent in anchors else joint.child,
                                        banned=banned))
    position: dict[str, int] = {}
    for index, name in enumerate(link_names):
        position.setdefault(name, index)  # the first occurrence, as list.index finds it
    for name in sorted(bodies, key=lambda n: (n in children, position[n])):
        if name not in reached:
            components.append(_grow(name, None, incident, anchors, reached, used, fixed=False, root=name,
                                    banned=banned))
    components.sort(key=lambda c: min(position[b] for b in c.bodies))
    loops = tuple(j for j in edges if j.name not in used)
    return Forest(tuple(components), loops, tuple(anchored), anchors)


def _grow(start: str, entry: Joint | None, incident, anchors, reached: set, used: set, *, fixed: bool,
          root: str, banned: frozenset[str] = frozenset()) -> Component:
    order: list[Joint] = []
    reversed_joints: set[str] = set()
    if entry is not None:
        order.append(entry)
        used.add(entry.name)
        if entry.child in anchors:
            reversed_joints.add(entry.name)
    members = [start]
    reached.add(start)
    queue = deque([start])  # breadth first; a list's pop(0) made a star of N links O(N²)
    while queue:
        link = queue.popleft()
        for joint in incident.get(link, ()):
            if joint.name in used or joint.name in banned:
                continue
            other = joint.child if joint.parent == link else joint.parent
            if other in anchors or other in reached:
                continue  # a second tie to the world or a loop: closed outside the tree
            used.add(joint.name)
            order.append(joint)
            if joint.child == link:
                reversed_joints.add(joint.name)
            reached.add(other)
            members.append(other)
            queue.append(other)
    return Component(root, tuple(members), tuple(order), fixed, frozenset(reversed_joints))


def refuse_mimic_cycles(joints) -> None:
    """An InputError when a joint's axis mimics itself through other mimic joints: the chain of
    leaders from it comes back to it, and none of them moves on its own (URDF and SDFormat alike
    give each joint at most one mimic; an SDFormat leader axis is kept in the joint's
    ``sdformat:mimic_leader_axis``)."""
    mimics = {}
    for joint in joints:
        if joint.mimic is not None:
            leader_axis = int((joint.custom_data or {}).get("sdformat:mimic_leader_axis", 0) or 0)
            mimics[(joint.name, joint.mimic.axis_index)] = ((joint.mimic.reference, leader_axis), joint.mimic.source)
    done: set = set()
    for start in mimics:
        chain, node = [], start
        while node in mimics and node not in done and node not in chain:
            chain.append(node)
            node = mimics[node][0]
        done.update(chain)
        if node in chain:
            cycle = chain[chain.index(node):] + [node]
            raise InputError(str(mimics[node][1]), "mimic joints form a cycle (" + " mimics ".join(
                repr(name) for name, _ in cycle) + "): none follows a joint that moves on its own",
                "remove the mimic of one joint of the cycle")
