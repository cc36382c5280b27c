"""The joints' spanning forest: which joints the tree carries and which close loops.

Each connected set of dynamic bodies is one tree, rooted where a joint ties it to the world (fixed
base) or, when none does, at its articulation's base (or first body) on a free joint; the tree
grows breadth first, and a joint that meets a body already in the tree closes a loop.

Which joint of a loop closes it does not change the motion: the closure holds the same
kinematics whichever joint it replaces. It changes what the simulator keeps, since it simulates
the drives and limits of tree joints only, and couples tree joints only. So a loop-closing joint
that carries a drive, an enabled limit or a coupling trades places with a joint of its loop that
carries none, when there is one: that joint closes the loop instead and nothing is dropped. A
stage with no such joint in a loop gets the breadth-first forest unchanged.
"""
from __future__ import annotations

from collections import defaultdict, deque
from typing import Optional

from ..descriptors import JointDesc, StageDescription

_WORLD = ""  # the world as a node of a fixed-base component (no prim path is empty)


def coupled_joints(description: StageDescription) -> set[str]:
    """Paths of the joints a rack-and-pinion, gear or mimic joint couples (each must be in the tree)."""
    paths = set()
    for joint in description.joints:
        if not joint.enabled:
            continue
        for name in ("hinge", "prismatic", "hinge0", "hinge1"):
            target = getattr(joint.coupling, name, None)
            if target:
                paths.add(target)
        for mimic in joint.mimics:
            paths.add(joint.path)
            if mimic.reference:
                paths.add(mimic.reference)
    return paths


def carries(joint: JointDesc, coupled: set[str]) -> bool:
    """Whether ``joint`` carries what only the tree simulates: a drive, an enabled limit (a D6's
    locked axes are what a closure holds, so they do not count) or a coupling."""
    return joint.path in coupled or bool(joint.drives) or bool(ranges(joint))


def ranges(joint: JointDesc) -> list:
    """The enabled limits of ``joint`` that bound a motion: a D6's locked axes (low > high) are
    what a closure holds, not ranges."""
    return [l for l in joint.limits
            if l.enabled and not (joint.type == "d6" and l.dof != "distance" and l.low > l.high)]


def spanning_forest(description: StageDescription, joints: list[JointDesc], dynamic: dict):
    """(body, joint or None for a free root, parent body or None) in topological order, and the
    paths of the joints left out because they close loops."""
    ends = {}
    adjacency = defaultdict(list)
    anchors = {}
    for joint in joints:
        b0 = joint.body0 if joint.body0 in dynamic else None
        b1 = joint.body1 if joint.body1 in dynamic else None
        if b0 and b1:
            adjacency[b0].append((joint, b1))
            adjacency[b1].append((joint, b0))
            ends[joint.path] = (b0, b1)
        else:
            anchors.setdefault(b0 or b1, []).append(joint)
            ends[joint.path] = (b0 or b1, _WORLD)
    preferred = [a.base for a in description.articulations if a.base in dynamic]
    order = preferred + [b.path for b in description.bodies if b.path in dynamic]
    coupled = coupled_joints(description)
    tree, loops, seen = [], [], set()
    for start in order:
        if start in seen:
            continue
        members = _component(start, adjacency)
        seen.update(members)
        anchored = [b for b in members if b in anchors]
        bodies = {body: adjacency[body] for body in members}
        if anchored:  # the world is a node of this component, its joints the anchors
            graph = {body: list(adjacency[body]) for body in members}
            for body in anchored:
                for joint in anchors[body]:
                    graph[body].append((joint, _WORLD))
                    graph.setdefault(_WORLD, []).append((joint, body))
            root, base = _WORLD, anchored[0]
            # the tree hangs from the first body's first anchor; every other anchor closes a loop
            in_tree = {anchors[base][0].path: anchors[base][0], **_breadth_first_edges(bodies, base)}
        else:
            graph, root = bodies, members[0]
            in_tree = _breadth_first_edges(graph, root)
        component = {joint.path: joint for body in graph for joint, _ in graph[body]}
        for path, joint in component.items():
            if path not in in_tree and carries(joint, coupled):
                _trade_places(joint, in_tree, graph, root, ends, coupled)
        tree.extend(_tree_entries(graph, root, in_tree))
        loops.extend(path for path in component if path not in in_tree)
    return tree, set(loops)


def _component(start: str, adjacency) -> list[str]:
    members, queue, seen = [], deque([start]), {start}
    while queue:
        body = queue.popleft()
        members.append(body)
        for _, other in adjacency[body]:
            if other not in seen:
                seen.add(other)
                queue.append(other)
    return members


def _breadth_first_edges(graph, root: str) -> dict[str, JointDesc]:
    """{joint path: joint} of the breadth-first tree of ``graph`` from ``root``."""
    edges, seen, queue = {}, {root}, deque([root])
    while queue:
        node = queue.popleft()
        for joint, other in graph[node]:
            if joint.path in edges or other in seen:
                continue
            seen.add(other)
            edges[joint.path] = joint
            queue.append(other)
    return edges


def _parents(graph, root: str, in_tree) -> dict[str, tuple[Optional[JointDesc], Optional[str]]]:
    """{node: (joint to its parent, parent)} of the tree ``in_tree`` rooted at ``root``."""
    parents, queue = {root: (None, None)}, deque([root])
    while queue:
        node = queue.popleft()
        for joint, other in graph[node]:
            if joint.path in in_tree and other not in parents:
                parents[other] = (joint, node)
                queue.append(other)
    return parents


def _trade_places(closing: JointDesc, in_tree: dict, graph, root: str, ends, coupled) -> None:
    """Put ``closing`` in the tree in place of the joint nearest to it on its loop that carries
    nothing, if there is one (``in_tree`` is updated)."""
    parents = _parents(graph, root, in_tree)
    u, v = ends[closing.path]
    up_u, up_v = _path_up(u, parents), _path_up(v, parents)
    on_v = {node for node, _ in up_v}
    path = []  # the tree joints from u and then from v up to their common ancestor, nearest first
    for node, joint in up_u:
        if node in on_v:
            break
        path.append(joint)
    common = next((node for node, _ in up_u if node in on_v), None)
    for node, joint in up_v:
        if node == common:
            break
        path.append(joint)
    for joint in path:
        if joint is not None and not carries(joint, coupled):
            del in_tree[joint.path]
            in_tree[closing.path] = closing
            return


def _path_up(node: str, parents) -> list[tuple[str, Optional[JointDesc]]]:
    """[(node, joint to its parent)] from ``node`` up to the root."""
    out = []
    while node is not None:
        joint, parent = parents[node]
        out.append((node, joint))
        node = parent
    return out


def _tree_entries(graph, root: str, in_tree):
    """The tree as (body, joint or None, parent body or None), parents first, in breadth-first order."""
    entries = [] if root == _WORLD else [(root, None, None)]
    for node, (joint, parent) in _parents(graph, root, in_tree).items():
        if node == root:
            continue
        entries.append((node, joint, None if parent == _WORLD else parent))
    return entries
