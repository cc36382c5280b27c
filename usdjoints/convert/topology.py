"""The kinematic tree of a RobotIR: checks it is one tree and orders it parents-first.

Shared by both readers' outputs; every error names the joint's file:line.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import InputError
from .ir import Joint, RobotIR


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
