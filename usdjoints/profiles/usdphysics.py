"""OpenUSD's own parser, UsdPhysics.LoadUsdPhysicsFromRange (usd-core 26.11).

Each rule is checked against the parser in tests/test_usdphysics_oracle.py and
tests/walker/openusd_parsing/ (scenarios of OpenUSD's testUsdPhysicsParsing.py rebuilt as stages).
The articulation rules follow the parser's link traversal (pxr/usd/usdPhysics/parseUtils.cpp):
joints are visited in path order, and a root is elected per connected component.
"""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

from .base import DISABLE, EXCLUDED, INDEPENDENT, LOOP, TREE, Profile

# weights the parser gives a link when it elects a fixed base: per joint to another link, per
# excluded joint, per joint to the world (the heaviest link, with its world joint, is the root)
LINK_WEIGHT, EXCLUDED_WEIGHT, WORLD_WEIGHT = 100, 1000, 100000


_DONE = object()  # the end of a link's neighbours (None among them is the world)


def path_key(path: str) -> tuple[str, ...]:
    """The order of SdfPath: element by element from the root."""
    return tuple(path.split("/"))


@dataclass(frozen=True)
class ParserProfile(Profile):
    """OpenUSD's parser: a profile whose root election is the parser's own."""

    def elect_roots(self, root, root_joint, root_is_body, scopes, incidence):
        if root_is_body:
            return (root,), root  # the root API on a body: that body, floating
        if root_joint is not None:
            sides = (root_joint.side0.body, root_joint.side1.body)
            if sides[0] is None or sides[1] is None:
                # a joint to the world is the root (with neither side a body, of nothing)
                return (root,), sides[0] or sides[1]
            return (), None  # a joint between two bodies roots nothing
        prims = []
        for seed, _links in scopes:
            elected = _elect(seed, incidence)
            if elected is not None:
                prims.append(elected)
        if not prims:
            return (), None
        first = prims[0]
        for record_side in _joint_sides(first, incidence):
            return tuple(prims), record_side
        return tuple(prims), first


def _joint_sides(path: str, incidence):
    """The link a world joint ``path`` anchors (nothing when ``path`` is a body)."""
    for link, entries in incidence.items():
        for joint, other, _excluded in entries:
            if joint == path and other is None:
                yield link
                return


def _traverse(seed: str, incidence) -> tuple[dict, list]:
    """The parser's gathering from ``seed``: depth first, preorder, each link's joints in path
    order, recursing through a joint to another link unless it is excluded. Returns per link (in
    the order reached) its weight, world joint, whether it has one, and its neighbours in joint
    order (None = the world; the far side of an excluded joint included), and the order."""
    links: dict[str, dict] = {}
    order: list[str] = []

    def enter(link):
        order.append(link)
        entry = links[link] = {"weight": 0, "root_joint": None, "fixed": False, "children": []}
        return entry, iter(sorted(incidence.get(link, ()), key=lambda e: path_key(e[0])))

    if seed not in incidence:
        return links, order
    stack = [enter(seed)]
    while stack:
        entry, pending = stack[-1]
        item = next(pending, None)
        if item is None:
            stack.pop()
            continue
        joint, other, excluded = item
        entry["children"].append(other)
        if other is None:
            entry["weight"] += EXCLUDED_WEIGHT if excluded else WORLD_WEIGHT
            if not excluded:
                entry["root_joint"] = joint
                entry["fixed"] = True
        elif excluded:
            entry["weight"] += EXCLUDED_WEIGHT
        else:
            entry["weight"] += LINK_WEIGHT
            if other not in links:
                stack.append(enter(other))
    return links, order


def _elect(seed: str, incidence) -> str:
    """The root the parser elects for the component gathered from ``seed``."""
    links, order = _traverse(seed, incidence)
    by_path = sorted(links, key=path_key)  # the parser keeps links in a path-ordered map
    if any(links[link]["fixed"] for link in by_path):
        chosen, largest = None, 0
        for link in by_path:
            entry = links[link]
            candidate = entry["root_joint"] or link
            if entry["weight"] > largest:
                chosen, largest = candidate, entry["weight"]
            elif entry["weight"] == largest:
                chosen = _earlier(chosen, candidate, order)
        return chosen
    if all(link == seed or link.startswith(seed + "/") for link in links):
        return seed  # bodies nested under the first: the top of the chain (also a lone body)
    return _center(links, by_path, order)


def _earlier(current, candidate, order):
    """The parser's tie-break: ``candidate`` replaces ``current`` when it is reached first
    (a joint path is never in ``order``, so it neither wins nor loses by order)."""
    for path in order:
        if path == current:
            return current
        if path == candidate:
            current = candidate
    return current


def _center(links: dict, by_path: list, order: list) -> str:
    """The link whose farthest link is nearest, distances taken along the parser's depth-first
    walk of neighbours (not shortest paths); ties: more neighbours, then reached first."""
    best, best_distance, best_children = None, None, -1
    for start in by_path:
        distance = {start: 0}
        stack = [(start, iter(links[start]["children"]))]
        while stack:
            link, pending = stack[-1]
            child = next(pending, _DONE)
            if child is _DONE:
                stack.pop()
                continue
            if child in links and child not in distance:  # None, the world, is no link
                distance[child] = distance[link] + 1
                stack.append((child, iter(links[child]["children"])))
        longest = max(distance.values())
        children = len(links[start]["children"])
        if best_distance is None or longest < best_distance:
            best, best_distance, best_children = start, longest, children
        elif longest == best_distance:
            if children > best_children:
                best, best_children = start, children
            elif children == best_children:
                best = _earlier(best, start, order)
    return best


PROFILE = ParserProfile(
    name="usdphysics",
    title="OpenUSD's parser",
    description="OpenUSD's own parser, UsdPhysics.LoadUsdPhysicsFromRange.",
    # unknown joint types (PhysX couplings, custom joints) are reported as free D6 joints
    joint_types_read_as=MappingProxyType({"rack_and_pinion": "d6", "gear": "d6", "custom": "d6"}),
    limit_enable_rule=MappingProxyType({"revolute": "and"}),  # prismatic and D6: either bound
    one_sided_revolute=MappingProxyType({"articulation": DISABLE, "standalone": DISABLE}),
    reads_unauthored_as="usd",
    reads_invalid_as="fallback",
    # a disabled body is passed over for the nearest enabled one above it (usd-core 26.11)
    disabled_bodies="skips",
    collider_bodies=True,  # no enabled rigid body on the way up: the topmost collider is the body
    unresolved_frame="lifted",
    kinematic_links=True,
    root_on_body_is_base=False,
    root_on_non_link="accept",
    nested_roots=INDEPENDENT,  # each root is gathered on its own: nested roots share links
    refuses_kinematic_articulations=False,
    world_anchor_welds=False,
    # every enabled joint touching a link is the articulation's, excluded and loop-closing ones too
    articulation_roles=frozenset({TREE, LOOP, EXCLUDED}),
    listed_roles=frozenset({TREE, LOOP, EXCLUDED}),
    seeds_inside_links=False,  # the parser prunes the subtree of a link from its search for seeds
    jointless_seeds=True,
    notes=(
        "A revolute limit is on only when both bounds are finite; prismatic and D6 limits when either is.",
        "Body relationships resolve to the nearest enabled rigid body above the target, else the topmost collider.",
        "A frame on a non-body target is lifted through the target's transform into the body (or world) frame.",
        "PhysX rack-and-pinion and gear joints are reported as D6 joints unless custom joint tokens are given.",
        "An articulation lists every enabled joint touching its links; a floating one is rooted at the "
        "top of a nested chain or at the centre of its graph.",
    ),
)
