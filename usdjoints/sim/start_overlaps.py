"""The overlaps a robot's colliders start in, and the ones the simulation holds instead of
pushing apart (the first step's limit correction included)."""
from __future__ import annotations

import numpy as np

from ..model.articulated import PRISMATIC, REVOLUTE, SPHERICAL, ArticulatedModel
from ..model.rotation import rotation_vector_to_quat
from .packed import pack


def start_contact_depths(model: ArticulatedModel, which=None, q=None) -> np.ndarray:
    """The deepest penetration [m] of each collision pair at configuration ``q`` (the model's
    initial state when None; <= 0: apart), shape [npair]; with ``which`` (pair indices) only
    those pairs', the others -inf."""
    from .kernels.contact import (
        bounding_radii, collider_world_poses, detect_contacts, detect_workspace, max_contacts,
    )

    pm = pack(model)
    q = model.q_initial if q is None else q
    Rw, pw = pm.link_world_poses(np.array(q, dtype=np.float64, order="C"))
    n = pm.col_type.shape[0]
    Rc, pc = np.empty((n, 3, 3)), np.empty((n, 3))
    collider_world_poses(pm.col_link, pm.col_R, pm.col_p, Rw, pw, Rc, pc)
    radius = np.empty(n)
    bounding_radii(pm.col_type, pm.col_size, radius)
    depth = np.full(pm.pairs.shape[0], -np.inf)
    scratch = detect_workspace(pm.col_type, pm.col_hull_index)
    indices = range(pm.pairs.shape[0]) if which is None else [int(p) for p in which]
    for p in indices:  # one pair at a time: the contact buffer's cap cannot hide one
        pair = np.ascontiguousarray(pm.pairs[p:p + 1])
        room = max_contacts(pm.col_type, pair)
        pair_of, points, normals, depths = (np.empty(room, dtype=np.int64), np.empty((room, 3)),
                                            np.empty((room, 3)), np.empty(room))
        count = detect_contacts(pm.col_type, pm.col_size, radius, pm.col_hull_rows, pm.col_hull_index, Rc, pc,
                                pair, np.zeros(1), 0.0, scratch,
                                pair_of, points, normals, depths)
        if count:
            depth[p] = depths[:count].max()
    return depth


def within_limits(model: ArticulatedModel, q) -> np.ndarray:
    """``q`` with every hard-limited revolute and prismatic coordinate, and ball joint rotation
    vector component (ArticulatedModel.dof_positions), moved onto its limit when it lies outside: where the first step's position-only correction puts such joints
    (kernels/limits.py)."""
    q = np.array(q, dtype=np.float64)
    _, x = model.dof_positions(q)
    hard = np.asarray(model.dof_limit_stiffness) == 0.0  # a soft limit: a spring, not a correction
    for i in range(model.nlink):
        kind = int(model.link_type[i])
        v, k = int(model.link_v_start[i]), int(model.link_q_start[i])
        if kind in (REVOLUTE, PRISMATIC) and hard[v]:
            q[k] = min(max(q[k], model.dof_lower[v]), model.dof_upper[v])
        elif kind == SPHERICAL and hard[v:v + 3].any():
            dofs = slice(v, v + 3)
            held = np.where(hard[dofs], np.clip(x[dofs], model.dof_lower[dofs], model.dof_upper[dofs]), x[dofs])
            if not np.array_equal(held, x[dofs]):
                q[k:k + 4] = rotation_vector_to_quat(held)
    return q


def joined_through_bare_links(model: ArticulatedModel, pairs: np.ndarray) -> np.ndarray:
    """For each collider pair, whether its two links are joined in their tree through one or
    more links between them and none of those carries a collider."""
    parent = np.asarray(model.link_parent)
    link = np.asarray(model.collider_link)
    dressed = set(int(l) for l in link if l >= 0)
    out = np.zeros(len(pairs), dtype=bool)
    for p, (ca, cb) in enumerate(pairs):
        la, lb = int(link[ca]), int(link[cb])
        if la < 0 or lb < 0 or la == lb:
            continue
        up_a = [la]
        while parent[up_a[-1]] >= 0:
            up_a.append(int(parent[up_a[-1]]))
        between, j = [], lb
        while j >= 0 and j not in up_a:
            between.append(j)
            j = int(parent[j])
        if j < 0:
            continue  # two trees
        between = between[1:] + up_a[1:up_a.index(j)] + ([j] if j not in (la, lb) else [])
        out[p] = bool(between) and not any(b in dressed for b in between)
    return out


def held_start_overlaps(model: ArticulatedModel) -> np.ndarray:
    """Per collision pair [npair] [m], the overlap the simulation keeps instead of pushing apart:
    the start depth of a pair of one robot (two links of one tree or of one articulation, a
    fixed base's body among them) with a convex hull in it that already overlaps at the model's
    initial state, or once the first step has put the joints that start outside their limits
    on them (the deeper of the two); 0 for every other pair.

    PhysX (measured with ovphysx 0.7 on solo12, see tests/sim/test_self_collision_physx.py)
    pushes such an overlap at maxDepenetrationVelocity, but one between a base and a leg at the
    hip cannot be undone by any joint motion: the push goes on for the whole run and throws the
    joints (3.3 rad in 0.2 s) while the robot's energy grows from nothing. usdjoints keeps the
    pair in contact at its start depth instead: it reports the same pairs in contact, and
    contacts do no work (a robot's undriven energy does not rise and its centre of mass stays on
    free fall); a deeper overlap is still pushed back to the start depth. Primitive shapes
    authored to overlap are pushed apart, as PhysX pushes them (tests/model/test_collision_filters.py),
    unless their links are joined only through links that carry no collider: a URDF's chain of
    dummy links standing for one multi-axis joint (bullet3's humanoid: a thigh's capsule and the
    pelvis overlap around the hip's three hinges). Measured with ovphysx 0.7 on that humanoid,
    PhysX's push leaves the torso within 0.1 m of free fall after 0.5 s; pushed apart by a
    position-only correction, shapes concentric at the joint asked the hinges to turn by
    thousands of radians in the first step."""
    from ..model.articulated import COLLIDER_HULL
    from ..model.colliders import pairs_in_one_tree

    pairs = np.asarray(model.collision_pairs).reshape(-1, 2)
    allowance = np.zeros(len(pairs))
    kinds = np.asarray(model.collider_type)
    hull = (kinds[pairs[:, 0]] == COLLIDER_HULL) | (kinds[pairs[:, 1]] == COLLIDER_HULL)
    hull |= joined_through_bare_links(model, pairs)
    if not hull.any():
        return allowance
    same_tree = pairs_in_one_tree(model, pairs)
    articulation = np.asarray(model.collider_articulation)
    if len(articulation) == len(kinds):  # a fixed base's body is the world's link, -1, but one of the links
        aa, ab = articulation[pairs[:, 0]], articulation[pairs[:, 1]]
        same_tree |= (aa >= 0) & (aa == ab)
    same_tree &= hull
    if not same_tree.any():
        return allowance
    which = np.flatnonzero(same_tree)
    depth = start_contact_depths(model, which)
    corrected = within_limits(model, model.q_initial)
    if not np.array_equal(corrected, model.q_initial):
        depth = np.maximum(depth, start_contact_depths(model, which, corrected))
    held = same_tree & (depth > 0.0)
    allowance[held] = depth[held]
    return allowance
