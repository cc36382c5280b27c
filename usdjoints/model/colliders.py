"""Collision shapes (PhysicsCollisionAPI prims) as primitive colliders fixed to model links.

Spheres, capsules, cubes and planes map to themselves (scale baked in: a sphere takes its
largest scale, a capsule's radius the largest scale across its axis). A mesh on a rigid body is
the convex hull PhysX collides (physics:approximation convexHull, and none or
meshSimplification, which PhysX promotes to convexHull on a dynamic body; convexDecomposition,
sdf and sphereFill read as the one hull too): the walker's hull vertices (at most 64, PhysX's
default hullVertexLimit) with the face planes they span. A static mesh (PhysX: a triangle mesh),
a boundingCube one, a mesh whose points span no volume, and every other gprim (cylinders, cones)
become the box of their local extent: a documented bounding primitive. A collider belongs to
the nearest rigid body at or above it; one under no simulated body is fixed in the world.

Friction and restitution come from the PhysicsMaterialAPI bound for physics
(``material:binding:physics``, else ``material:binding``) on the collider or an ancestor: the
dynamic friction is the Coulomb coefficient. Without a bound material PhysX's default material
applies (friction 0.5, restitution 0).

Which pairs may touch follows PhysX's filtering (measured with ovphysx 0.7, see
../shared/reference): colliders on one link or two static colliders never; two bodies joined by
a joint only when the joint says ``physics:collisionEnabled = true``; two links of one
articulation only when its ``physxArticulation:enabledSelfCollisions`` (else
``newton:selfCollisionEnabled``) is true, the default; never a pair that
PhysicsFilteredPairsAPI names (on a collider, a body or an articulation root, covering what is
under it); never two colliders whose PhysicsCollisionGroups filter each other (a collider's
first group counts; the scene's ``physxScene:invertCollisionGroupFilter`` turns
``physics:filteredGroups`` into the list of groups that do collide). Every filtered pair and its
reason is kept (``collision_filtered``).
"""
from __future__ import annotations

import numpy as np

from ..descriptors import ColliderDesc, Diagnostic, StageDescription
from ..errors import UnsupportedFeature
from ..walker.colliders import DEFAULT_FRICTION, DEFAULT_RESTITUTION  # noqa: F401 (PhysX's default material)
from .articulated import COLLIDER_BOX, COLLIDER_CAPSULE, COLLIDER_HULL, COLLIDER_PLANE, COLLIDER_SPHERE
from ..hull import hull_faces
from .rotation import quat_to_matrix
# Rotations taking a collider's z axis onto the stage axis X, Y or Z (cyclic permutations).
_Z_TO_AXIS = {
    "X": np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]),
    "Y": np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]),
    "Z": np.eye(3),
}


def _shape(collider: ColliderDesc, scale: np.ndarray, mpu: float):
    """(kind, size [3] [m], R_shape_in_prim, centre in prim [m]) of a collider, or None for a
    shape with nothing to bound it."""
    def number(value):
        return np.float64(value if value is not None else np.nan)

    if collider.shape == "sphere":
        r = number(collider.radius) * scale.max()
        return COLLIDER_SPHERE, np.array([r * mpu, 0.0, 0.0]), np.eye(3), np.zeros(3)
    if collider.shape == "capsule":
        axis = collider.axis or "Z"
        k = "XYZ".index(axis)
        across = np.delete(scale, k).max()
        r = number(collider.radius) * across
        half = 0.5 * number(collider.height) * scale[k]
        return COLLIDER_CAPSULE, np.array([r, half, 0.0]) * mpu, _Z_TO_AXIS[axis], np.zeros(3)
    if collider.shape == "cube":
        half = 0.5 * number(collider.size) * scale
        return COLLIDER_BOX, half * mpu, np.eye(3), np.zeros(3)
    if collider.shape == "plane":
        return COLLIDER_PLANE, np.zeros(3), _Z_TO_AXIS[collider.axis or "Z"], np.zeros(3)
    if (collider.shape == "mesh" and collider.hull is not None and collider.body is not None
            and collider.approximation not in ("boundingCube", "boundingSphere")):
        points = np.array(collider.hull, dtype=float) * scale * mpu
        lo, hi = points.min(axis=0), points.max(axis=0)
        centre = 0.5 * (lo + hi)
        if np.all(np.isfinite(points)):
            planes = hull_planes(points - centre)
            if planes is not None and np.all(np.isfinite(planes)):
                return COLLIDER_HULL, 0.5 * (hi - lo), np.eye(3), centre, (points - centre, planes)
    if collider.extent is not None:
        lo, hi = np.array(collider.extent[0], dtype=float) * scale, np.array(collider.extent[1], dtype=float) * scale
        return COLLIDER_BOX, 0.5 * (hi - lo) * mpu, np.eye(3), 0.5 * (hi + lo) * mpu
    return None


def hull_planes(points: np.ndarray):
    """The face planes [nface, 4] (n, d: n . x <= d inside, |n| = 1) of the convex hull of a few
    points [m] (at most the walker's 64), from hull.hull_faces. Coplanar faces share one plane.
    None when they span no volume."""
    found = hull_faces(points)
    if found is None:
        return None
    faces, tol = found
    planes = np.array([[*f[3], f[3] @ points[f[0]]] for f in faces])
    # every vertex on the inner side of every plane (round-off aside): the hull is closed
    planes[:, 3] = np.max(points @ planes[:, :3].T, axis=0)
    _, first = np.unique(np.round(planes / np.array([1e-7, 1e-7, 1e-7, max(tol, 1e-12)])), axis=0,
                         return_index=True)
    return planes[np.sort(first)]


def collider_arrays(description: StageDescription, model, joints) -> tuple[dict, list, list]:
    """Collider arrays (see ArticulatedModel), diagnostics, and per collider whether its box only
    bounds a mesh (or another gprim); ``joints`` are the joints whose bodies do not collide with
    each other unless they enable it. A shape whose dimensions are negative, not finite or
    overflow in metres is not simulated, with a ``collider-unsupported`` warning."""
    mpu = float(description.units.meters_per_unit.value)
    bodies = {b.path: b for b in description.bodies}
    rows, notes = [], []
    for collider in description.colliders:
        if not collider.enabled:
            continue
        body = collider.body
        scale = np.array(collider.world_scale, dtype=float)
        R_world = quat_to_matrix(collider.world_pose.orientation)
        with np.errstate(over="ignore", invalid="ignore"):
            p_world = np.array(collider.world_pose.position, dtype=float) * mpu
            shape = _shape(collider, scale, mpu)
        if shape is None:
            notes.append(Diagnostic("warning", collider.path, "collider shape not simulated", "collider-unsupported"))
            continue
        if not (np.all(np.isfinite(shape[1])) and np.all(shape[1] >= 0.0) and np.all(np.isfinite(shape[3]))):
            notes.append(Diagnostic("warning", collider.path, "collider shape not simulated: its size, "
                                    "radius, height or extent is negative, not finite or too large",
                                    "collider-unsupported"))
            continue
        kind, size, R_shape, centre = shape[:4]
        hull = shape[4] if len(shape) > 4 else None
        R_world, p_world = R_world @ R_shape, p_world + R_world @ centre
        b = model.body_positions.get(body) if body is not None else None
        if b is not None:
            world = bodies[body].world_pose
            R_wb = quat_to_matrix(world.orientation)
            p_wb = np.array(world.position, dtype=float) * mpu
            R_bc, p_bc = R_wb.T @ R_world, R_wb.T @ (p_world - p_wb)
            R_lb, p_lb = np.asarray(model.body_R_link[b]), np.asarray(model.body_p_link[b])
            link, R, p = int(model.body_link[b]), R_lb @ R_bc, p_lb + R_lb @ p_bc
        else:
            link, R, p = -1, R_world, p_world
        material = collider.material
        approximate = kind == COLLIDER_BOX and collider.shape != "cube"
        rows.append((collider.path, kind, link, R, p, size, material.dynamic_friction, material.restitution, body,
                     approximate, collider.group, hull))
    pairs, filtered, articulation = _filter_pairs(description, model, joints, rows)
    n = len(rows)
    hull_rows, hull_index = [np.zeros((0, 4))], np.zeros((n, 4), dtype=np.int64)
    filled = 0
    for c, row in enumerate(rows):
        if row[11] is not None:
            vertices, planes = row[11]
            hull_index[c] = (filled, len(vertices), filled + len(vertices), len(planes))
            hull_rows += [np.column_stack([vertices, np.zeros(len(vertices))]), planes]
            filled += len(vertices) + len(planes)
    return dict(
        collider_names=tuple(r[0] for r in rows),
        collider_type=np.array([r[1] for r in rows], dtype=np.int64),
        collider_link=np.array([r[2] for r in rows], dtype=np.int64),
        collider_R_link=np.array([r[3] for r in rows], dtype=float).reshape(n, 3, 3),
        collider_p_link=np.array([r[4] for r in rows], dtype=float).reshape(n, 3),
        collider_size=np.array([r[5] for r in rows], dtype=float).reshape(n, 3),
        collider_hull_rows=np.concatenate(hull_rows),
        collider_hull_index=hull_index,
        collider_friction=np.array([r[6] for r in rows], dtype=float),
        collider_restitution=np.array([r[7] for r in rows], dtype=float),
        collider_articulation=articulation,
        collision_pairs=np.array(pairs, dtype=np.int64).reshape(-1, 2),
        collision_filtered=tuple(filtered),
    ), notes, [r[9] for r in rows]


def _covering(path: str) -> list[str]:
    """The path and its ancestors: a filter or a group naming any of them covers the prim."""
    out = [path]
    while "/" in path.strip("/"):
        path = path.rsplit("/", 1)[0]
        out.append(path)
    return out


_JOINTED = "jointed bodies (the joint's physics:collisionEnabled is not true)"
_NO_SELF = "links of one articulation with enabledSelfCollisions = false"
_PAIRS_API = "PhysicsFilteredPairsAPI"
_GROUPS = "PhysicsCollisionGroup filteredGroups"
_REASONS = (None, _JOINTED, _NO_SELF, _PAIRS_API, _GROUPS)  # by code; a lower code wins
# The most collider pairs the contact model holds (about 11,600 colliders on distinct bodies): 1 GiB
# of pair indices, and a step that tests each pair; a chain of 40,000 links would ask for 800
# million pairs (13 GB) before its first step.
MAX_COLLIDER_PAIRS = 1 << 26


def _filter_pairs(description, model, joints, rows):
    """(pairs that may collide [npair, 2], [(collider a, collider b, reason)] for the filtered
    ones, both in the order of (i, j), i < j; per collider the index of the articulation its
    body is a link of, -1 for none). The pair list holds every pair that may ever
    touch (the simulator re-tests each pair's distance at every step), so it grows as the square
    of the colliders; each rule is a lookup per collider and one vector operation per row, never
    a Python test per pair."""
    filters = description.collision_filters
    link_of = {name: int(model.body_link[i]) for i, name in enumerate(model.body_names)}
    jointed: dict[int, set] = {}  # link -> the links it is jointed to without collisionEnabled
    for joint in joints:
        # the world is no actor: a world-anchored joint filters nothing
        if joint.body0 in link_of and joint.body1 in link_of:
            column = joint.columns.get("physics:collisionEnabled")
            if column is not None and column.value:
                continue
            a, b = link_of[joint.body0], link_of[joint.body1]
            jointed.setdefault(a, set()).add(b)
            jointed.setdefault(b, set()).add(a)
    articulation_of, self_collides = {}, []
    for k, articulation in enumerate(description.articulations):
        self_collides.append(filters.self_collisions.get(articulation.root, True))
        for body in articulation.links:
            articulation_of.setdefault(body, k)
    # PhysicsFilteredPairsAPI: prim -> the prims it does not collide with (both ways)
    filtered_with: dict[str, set] = {}
    for a, b in filters.filtered_pairs:
        filtered_with.setdefault(a, set()).add(b)
        filtered_with.setdefault(b, set()).add(a)

    n = len(rows)
    links = np.array([r[2] for r in rows], dtype=np.int64)
    planes = np.array([r[1] == COLLIDER_PLANE for r in rows], dtype=bool)
    articulation = np.array([articulation_of.get(r[8], -1) for r in rows], dtype=np.int64)

    # the prims whose filters cover a collider: itself, its ancestors, its articulation's root;
    # covered[prim] lists the colliders a filter naming that prim covers
    reach = [set() for _ in range(n)]  # per collider: the prims its filters name
    covered: dict[str, list] = {}
    if filtered_with:
        named = set().union(*filtered_with.values())
        for i, row in enumerate(rows):
            owners = set(_covering(row[0]))
            if articulation[i] >= 0:
                owners.add(description.articulations[int(articulation[i])].root)
            for owner in owners:
                reach[i] |= filtered_with.get(owner, set())
                if owner in named:
                    covered.setdefault(owner, []).append(i)

    group_names, inverted = filters.groups, filters.inverted
    group_index: dict[str, int] = {}
    for r in rows:
        if r[10] is not None:
            group_index.setdefault(r[10], len(group_index))
    group = np.array([-1 if r[10] is None else group_index[r[10]] for r in rows], dtype=np.int64)
    # per group: the groups it names or that name it (PhysicsCollisionGroup filteredGroups)
    naming = {g: set() for g in range(len(group_index))}
    for name, g in group_index.items():
        for other in group_names.get(name, ()):
            h = group_index.get(other)
            if h is not None:
                naming[g].add(h)
                naming[h].add(g)

    pair_rows, filtered, examined = [], [], 0
    for i in range(n - 1):
        js = np.arange(i + 1, n, dtype=np.int64)
        # one rigid link (or the static world), or two planes: nothing to report
        js = js[(links[js] != links[i]) & ~(planes[js] & planes[i])]
        if not len(js):
            continue
        examined += len(js)
        if examined > MAX_COLLIDER_PAIRS:
            raise UnsupportedFeature(
                f"{n} colliders make more than {MAX_COLLIDER_PAIRS:,} pairs of colliders on different bodies; "
                "the contact model tests every pair at every step and holds at most that many: load the "
                "model without contact (contact=False, simulate --no-contact)")
        code = np.zeros(len(js), dtype=np.int64)
        if group[i] >= 0:
            names = np.isin(group[js], list(naming[int(group[i])]))
            code[(group[js] >= 0) & (names != inverted)] = 4
        if reach[i]:
            hit = np.zeros(n, dtype=bool)
            for prim in reach[i]:
                hit[covered.get(prim, [])] = True
            code[hit[js]] = 3
        if articulation[i] >= 0 and not self_collides[int(articulation[i])]:
            code[articulation[js] == articulation[i]] = 2
        partners = jointed.get(int(links[i]))
        if partners:
            code[np.isin(links[js], list(partners))] = 1
        keep = js[code == 0]
        pair_rows.append(np.stack([np.full(len(keep), i, dtype=np.int64), keep], axis=1))
        for k in np.flatnonzero(code):
            filtered.append((rows[i][0], rows[int(js[k])][0], _REASONS[int(code[k])]))
    pairs = np.concatenate(pair_rows) if pair_rows else np.zeros((0, 2), dtype=np.int64)
    return pairs, filtered, articulation


def without_start_overlaps(model, approximate: list[bool]):
    """``model`` without the pairs of bounding boxes that already overlap at its initial state
    on two links of one tree. A box bounding a mesh is larger than the hull PhysX collides, so
    links that fit together (a leg beside its base) overlap as boxes where PhysX sees no
    contact; pushing them apart from the first step is not what the stage describes. A convex
    hull is the shape PhysX collides, not a bound: its pairs are kept (the simulation holds a
    hull pair's start overlap instead: sim/start_overlaps.py held_start_overlaps)."""
    import dataclasses

    pairs = np.asarray(model.collision_pairs)
    if not len(pairs) or not any(approximate) or not model.nlink:
        return model
    from .overlaps import collider_world_poses, pair_depth, reach_radii

    same_tree = pairs_in_one_tree(model, pairs)
    box = np.asarray(approximate, dtype=bool)
    candidates = np.flatnonzero(same_tree & (box[pairs[:, 0]] | box[pairs[:, 1]]))
    if not len(candidates):
        return model
    # only pairs whose bounding spheres meet can overlap: the others need no narrow test
    R_c, p_c = collider_world_poses(model)
    radius = reach_radii(model)
    a, b = pairs[candidates, 0], pairs[candidates, 1]
    with np.errstate(invalid="ignore", over="ignore"):
        apart = np.linalg.norm(p_c[a] - p_c[b], axis=1) > (radius[a] + radius[b]) * (1.0 + 1e-6) + 1e-9
    candidates = candidates[~apart]
    kinds = np.asarray(model.collider_type)
    sizes = np.asarray(model.collider_size, dtype=float)
    drop, dropped = np.zeros(len(pairs), dtype=bool), []
    for k in candidates:
        i, j = int(pairs[k, 0]), int(pairs[k, 1])
        depth = pair_depth(int(kinds[i]), R_c[i], p_c[i], sizes[i], int(kinds[j]), R_c[j], p_c[j], sizes[j])
        if depth > 0.0:
            drop[k] = True
            dropped.append((model.collider_names[i], model.collider_names[j],
                            f"bounding boxes of one robot overlapping by {depth:.3g} m at the start"))
    if not dropped:
        return model
    return dataclasses.replace(model, collision_pairs=pairs[~drop].reshape(-1, 2),
                               collision_filtered=model.collision_filtered + tuple(dropped))


def pairs_in_one_tree(model, pairs):
    """For each collider pair (rows of ``pairs``), whether both colliders are on links of the
    same kinematic tree (the world's colliders, link -1, are on none)."""
    root = np.arange(model.nlink, dtype=np.int64)
    parent = np.asarray(model.link_parent)
    for i in range(model.nlink):
        if parent[i] >= 0:
            root[i] = root[parent[i]]
    link = np.asarray(model.collider_link)
    la, lb = link[pairs[:, 0]], link[pairs[:, 1]]
    return (la >= 0) & (lb >= 0) & (root[np.maximum(la, 0)] == root[np.maximum(lb, 0)])
