"""Seeded random kinematic trees and states for identity and cross-implementation tests."""
from __future__ import annotations

import numpy as np

from usdjoints.model import D6_AXES, ModelBuilder


def random_rotation(rng):
    quat = rng.normal(size=4)
    w, x, y, z = quat / np.linalg.norm(quat)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def random_inertia(rng):
    """A physically valid inertia about the com (principal moments obey the triangle rule)."""
    principal = rng.uniform(0.05, 1.0, size=3)
    principal[2] = rng.uniform(abs(principal[0] - principal[1]) + 0.01, principal[0] + principal[1])
    R = random_rotation(rng)
    return R @ np.diag(principal) @ R.T


def random_tree(seed, n_bodies=8, free_base=True, kinds=("revolute", "prismatic", "spherical", "d6", "fixed"),
                armature=True, joint_child_offsets=True, depth_first=False):
    """A tree with a free (or revolute) root and random joints, frames, inertias and armature.

    ``depth_first`` adds the bodies in depth-first order (every subtree's dofs contiguous), which
    pinocchio's CRBA assumes; otherwise bodies come in the order drawn (topological only).
    """
    rng = np.random.default_rng(seed)
    gravity = rng.normal(size=3) * 3.0 + np.array([0.0, 0.0, -9.81])
    parents = [-1] + [int(rng.integers(i)) for i in range(1, n_bodies)]
    specs = []
    for i in range(n_bodies):
        if i == 0:
            kind = "free" if free_base else "revolute"
        else:
            kind = kinds[rng.integers(len(kinds))] if i > 1 else "revolute"
        d6 = tuple(a for a in D6_AXES if rng.random() < 0.5) or ("rotY",) if kind == "d6" else ()
        axis = rng.normal(size=3)
        nv = {"revolute": 1, "prismatic": 1, "spherical": 3, "free": 6, "d6": len(d6), "fixed": 0}[kind]
        extra = {"armature": rng.uniform(0.0, 0.2, size=nv)} if armature and nv else {}
        specs.append(dict(
            parent=None if parents[i] < 0 else f"b{parents[i]}", joint_type=kind,
            mass=rng.uniform(0.5, 3.0), com=rng.normal(size=3) * 0.2, inertia=random_inertia(rng),
            R_parent_joint=random_rotation(rng), p_parent_joint=rng.normal(size=3) * 0.5,
            R_joint_child=random_rotation(rng) if joint_child_offsets else None,
            p_joint_child=rng.normal(size=3) * 0.3 if joint_child_offsets else (0, 0, 0),
            axis=axis / np.linalg.norm(axis), d6_axes=d6, **extra))
    order = list(range(n_bodies))
    if depth_first:
        order, stack = [], [0]
        while stack:
            i = stack.pop()
            order.append(i)
            stack.extend(sorted((c for c in range(n_bodies) if parents[c] == i), reverse=True))
    b = ModelBuilder(gravity=gravity)
    for i in order:
        b.add_body(f"b{i}", **specs[i])
    return b.build()


def random_state(model, rng):
    """(q, qd, qdd, tau) with unit quaternions."""
    q = rng.normal(size=model.nq)
    for i in range(model.nlink):
        kind, s = int(model.link_type[i]), int(model.link_q_start[i])
        if kind == 2:
            q[s:s + 4] /= np.linalg.norm(q[s:s + 4])
        elif kind == 3:
            q[s + 3:s + 7] /= np.linalg.norm(q[s + 3:s + 7])
    return q, rng.normal(size=model.nv), rng.normal(size=model.nv), rng.normal(size=model.nv)
