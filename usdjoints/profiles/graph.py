"""The articulation graph as OpenUSD's parser and PhysX walk it (pxr/usd/usdPhysics/parseUtils.cpp):
a depth-first gathering of links with each body's joints in path order, and the election of a
root per connected component. PhysX (ovphysx 0.7) elects as the parser does except where two
links tie for the centre of a floating graph: the parser takes the link its traversal reached
first, PhysX the first by path (measured: tests/oracle/test_articulation_graph_ovphysx.py).
"""
from __future__ import annotations

# weights the parser gives a link when it elects a fixed base: per joint to another link, per
# excluded joint, per joint to the world (the heaviest link, with its world joint, is the root)
LINK_WEIGHT, EXCLUDED_WEIGHT, WORLD_WEIGHT = 100, 1000, 100000


_DONE = object()  # the end of a link's neighbours (None among them is the world)


def path_key(path: str) -> tuple[str, ...]:
    """The order of SdfPath: element by element from the root."""
    return tuple(path.split("/"))


def world_joint_link(path: str, incidence):
    """The link a world joint ``path`` anchors (nothing when ``path`` is a body)."""
    for link, entries in incidence.items():
        for joint, other, _excluded in entries:
            if joint == path and other is None:
                yield link
                return


def traverse(seed: str, incidence) -> tuple[dict, list]:
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


def elect(seed: str, incidence, centre_ties: str = "reached") -> str:
    """The root elected for the component gathered from ``seed``: a link, or the world joint of
    the heaviest link. ``centre_ties``: "reached" (the parser) or "path" (PhysX)."""
    links, order = traverse(seed, incidence)
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
    return _center(links, by_path, order if centre_ties == "reached" else by_path)


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


