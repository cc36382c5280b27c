"""What the writer will author before it authors anything: articulations, bases, loops, link poses.

Base policy: a connected set of bodies is fixed-base when a joint ties it to the world (the world
link, or a link of a static model); otherwise floating. ``floating_base`` overrides for every set:
True drops fixed joints to the world (reported), False welds each floating set's root to the world
with a new fixed joint. A floating joint is no joint (its child is a free body). A gearbox joint
adds no degree of freedom (it couples two hinges), so it never joins sets. A joint the spanning
tree does not use closes a loop: it is written with ``physics:excludeFromArticulation = true``
and reported, naming the loop it closes.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from .ir import IDENTITY, Joint, JointType, Pose, RobotIR
from .report import EntryKind, Notes
from .topology import Component, Forest, build_forest

WELD_NAME = "world_weld"


@dataclass(frozen=True, slots=True)
class BasePlan:
    """``components`` are the articulations to write (welds included); ``excluded`` the loop closers."""

    components: tuple[Component, ...]
    skipped_joints: frozenset[str]  # joints not written as joints (floating, dropped welds, anchored)
    excluded: frozenset[str]  # joints written with excludeFromArticulation
    welds: tuple[Joint, ...]  # fixed joints to the world that the file does not have
    forest: Forest

    @property
    def fixed_base(self) -> bool:
        """The first articulation's base (the one a single-robot file has)."""
        return bool(self.components) and self.components[0].fixed_base


def plan_base(robot: RobotIR, floating_base: bool | None, notes: Notes) -> BasePlan:
    world = robot.world_link or "world"
    anchors = frozenset(link.name for link in robot.links if link.static)
    skipped = {j.name for j in robot.joints if j.type in (JointType.FLOATING, JointType.GEARBOX)}
    if floating_base:
        for joint in robot.joints:
            if joint.type is JointType.FIXED and world in (joint.parent, joint.child):
                skipped.add(joint.name)
                notes.add(EntryKind.DROPPED, str(joint.source), f"joint {joint.name!r}",
                          "weld to the world not written (floating base requested)")
            elif joint.type not in (JointType.FLOATING, JointType.GEARBOX) and world in (joint.parent, joint.child):
                notes.add(EntryKind.WARNING, str(joint.source), f"joint {joint.name!r}",
                          f"a {joint.type.name.lower()} joint to the world: kept, so the model stays held to "
                          "the world although a floating base was requested")
    forest = build_forest(robot, anchors, frozenset(skipped))
    components, welds = [], []
    for component in forest.components:
        if floating_base is False and not component.fixed_base:
            root_link = robot.link(component.root)
            # the weld holds the root where it is: its frame is the root's frame in the world
            X_world_root = (robot.pose or IDENTITY).compose(root_link.pose or IDENTITY)
            weld = Joint(WELD_NAME, JointType.FIXED, world, component.root, X_world_root, (), robot.source)
            notes.add(EntryKind.CHOICE, str(robot.source), f"link {component.root!r}",
                      "welded to the world (fixed base requested)")
            welds.append(weld)
            component = replace(component, root=world, tree=(weld,) + component.tree, fixed_base=True)
        components.append(component)
    tree_joints = {j.name for c in components for j in c.tree}
    for joint in robot.joints:
        if joint.type is JointType.FLOATING and world not in (joint.parent, joint.child):
            notes.add(EntryKind.WARNING, str(joint.source), f"joint {joint.name!r}",
                      "a floating joint inside the tree: its child becomes a free body")
    for joint in forest.anchored:
        skipped.add(joint.name)
        notes.add(EntryKind.DROPPED, str(joint.source), f"joint {joint.name!r}",
                  f"connects {joint.parent!r} and {joint.child!r}, neither of which can move (world or static)")
    for joint in forest.loop_joints:
        notes.add(EntryKind.CHOICE, str(joint.source), f"joint {joint.name!r}",
                  f"closes a loop between {joint.parent!r} and {joint.child!r}: written with "
                  "physics:excludeFromArticulation = true (the articulation keeps the spanning tree)")
    excluded = frozenset(j.name for j in forest.loop_joints) - tree_joints
    return BasePlan(tuple(components), frozenset(skipped), excluded, tuple(welds), forest)


def link_poses(robot: RobotIR, plan: BasePlan) -> dict[str, Pose]:
    """Each link frame in the model frame at q = 0 (stated poses win over forward kinematics)."""
    stated = {link.name: link.pose for link in robot.links if link.pose is not None}
    world_in_model = robot.pose.inverse() if robot.pose else IDENTITY
    poses = dict(stated)
    if robot.world_link is not None:
        poses.setdefault(robot.world_link, world_in_model)
    poses.setdefault("world", world_in_model)
    for name in plan.forest.anchors:
        poses.setdefault(name, IDENTITY)
    for component in plan.components:
        poses.setdefault(component.root, IDENTITY)
        for joint in component.tree:
            parent_to_joint = joint.pose_in_parent or IDENTITY
            child_to_joint = joint.pose_in_child or IDENTITY
            if joint.name in component.reversed_joints:
                if joint.parent not in poses:
                    poses[joint.parent] = poses[joint.child].compose(child_to_joint).compose(parent_to_joint.inverse())
            elif joint.child not in poses:
                poses[joint.child] = poses[joint.parent].compose(parent_to_joint).compose(child_to_joint.inverse())
    for link in robot.links:
        poses.setdefault(link.name, IDENTITY)  # a link no joint reaches sits at the model origin
    return poses
