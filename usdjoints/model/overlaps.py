"""Which collision pairs already overlap at a model's initial state, in plain numpy.

The same contact tests the simulator's narrow phase makes (usdjoints/sim/kernels/contact.py):
a sphere or each end sphere of a capsule against a box (or a capsule's core segments against
each other), each corner of one box inside the other, corners or end spheres below a plane.
The model builder uses it to drop pairs of bounding boxes that overlap from the start
(colliders.without_start_overlaps) without importing the simulator; tests compare it with the
kernels' depths.
"""
from __future__ import annotations

import numpy as np

from .articulated import COLLIDER_BOX, COLLIDER_CAPSULE, COLLIDER_PLANE, COLLIDER_SPHERE
from .kinematics import link_world_poses


def _ends(R, p, size, kind):
    half = size[1] if kind == COLLIDER_CAPSULE else 0.0
    return [p - half * R[:, 2], p + half * R[:, 2]] if kind == COLLIDER_CAPSULE else [p]


def _corners(R, p, half):
    return [p + R @ (half * np.array([1.0 if (k >> a) & 1 else -1.0 for a in range(3)])) for k in range(8)]


def _sphere_box(centre, radius, R, p, half) -> float:
    local = R.T @ (centre - p)
    clamped = np.clip(local, -half, half)
    if np.any(np.abs(local) > half):
        return radius - float(np.linalg.norm(R @ (local - clamped)))
    return radius + float(np.min(half - np.abs(local)))


def _point_in_box(point, R, p, half) -> float:
    local = R.T @ (point - p)
    if np.any(np.abs(local) > half):
        return -np.inf
    return float(np.min(half - np.abs(local)))


def _segment_distance(p0, p1, q0, q1) -> float:
    d1, d2, r = p1 - p0, q1 - q0, p0 - q0
    a, e, f = float(d1 @ d1), float(d2 @ d2), float(d2 @ r)
    if a <= 1e-18 and e <= 1e-18:
        return float(np.linalg.norm(p0 - q0))
    if a <= 1e-18:
        s, t = 0.0, np.clip(f / e, 0.0, 1.0)
    else:
        c = float(d1 @ r)
        if e <= 1e-18:
            s, t = np.clip(-c / a, 0.0, 1.0), 0.0
        else:
            b = float(d1 @ d2)
            denom = a * e - b * b
            s = np.clip((b * f - c * e) / denom, 0.0, 1.0) if denom > 1e-18 else 0.5
            t = (b * s + f) / e
            if t < 0.0:
                s, t = np.clip(-c / a, 0.0, 1.0), 0.0
            elif t > 1.0:
                s, t = np.clip((b - c) / a, 0.0, 1.0), 1.0
    return float(np.linalg.norm((p0 + d1 * s) - (q0 + d2 * t)))


def pair_depth(ti, Ri, pi, si, tj, Rj, pj, sj) -> float:
    """The deepest penetration [m] of two colliders (<= 0: apart)."""
    if ti > tj:
        ti, Ri, pi, si, tj, Rj, pj, sj = tj, Rj, pj, sj, ti, Ri, pi, si
    if tj <= COLLIDER_CAPSULE:
        a, b = _ends(Ri, pi, si, ti), _ends(Rj, pj, sj, tj)
        distance = _segment_distance(a[0], a[-1], b[0], b[-1])
        return si[0] + sj[0] - distance
    if tj == COLLIDER_BOX and ti <= COLLIDER_CAPSULE:
        return max(_sphere_box(end, si[0], Rj, pj, sj) for end in _ends(Ri, pi, si, ti))
    if tj == COLLIDER_BOX:
        return max(max(_point_in_box(c, Rj, pj, sj) for c in _corners(Ri, pi, si)),
                   max(_point_in_box(c, Ri, pi, si) for c in _corners(Rj, pj, sj)))
    if tj == COLLIDER_PLANE and ti != COLLIDER_PLANE:
        normal = Rj[:, 2]
        points = _corners(Ri, pi, si) if ti == COLLIDER_BOX else _ends(Ri, pi, si, ti)
        radius = 0.0 if ti == COLLIDER_BOX else si[0]
        return max(radius - float(normal @ (x - pj)) for x in points)
    return -np.inf


def collider_world_poses(model) -> tuple[np.ndarray, np.ndarray]:
    """(R [ncollider, 3, 3], p [ncollider, 3] [m]) of every collider at the initial state."""
    R_link, p_link = link_world_poses(model, model.q_initial)
    n = len(model.collider_names)
    R_c, p_c = np.empty((n, 3, 3)), np.empty((n, 3))
    for c in range(n):
        link = int(model.collider_link[c])
        if link < 0:
            R_c[c], p_c[c] = model.collider_R_link[c], model.collider_p_link[c]
        else:
            R_c[c] = R_link[link] @ model.collider_R_link[c]
            p_c[c] = p_link[link] + R_link[link] @ model.collider_p_link[c]
    return R_c, p_c


def reach_radii(model) -> np.ndarray:
    """Per collider [m], the radius about its frame's origin of a sphere holding every point the
    tests above take as inside it (inf for a plane): two colliders farther apart than the sum
    of their radii cannot overlap."""
    kinds = np.asarray(model.collider_type)
    sizes = np.asarray(model.collider_size, dtype=float)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.where(kinds == COLLIDER_SPHERE, sizes[:, 0],
                        np.where(kinds == COLLIDER_CAPSULE, sizes[:, 0] + sizes[:, 1],
                                 np.where(kinds == COLLIDER_BOX, np.linalg.norm(sizes, axis=1), np.inf)))


def start_contact_depths(model) -> np.ndarray:
    """The deepest penetration [m] of each collision pair at the model's initial state, [npair]."""
    R_c, p_c = collider_world_poses(model)
    kinds = np.asarray(model.collider_type)
    sizes = np.asarray(model.collider_size, dtype=float)
    return np.array([pair_depth(int(kinds[a]), R_c[a], p_c[a], sizes[a], int(kinds[b]), R_c[b], p_c[b], sizes[b])
                     for a, b in np.asarray(model.collision_pairs)], dtype=float)
