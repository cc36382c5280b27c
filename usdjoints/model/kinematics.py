"""Forward kinematics and the joint-space mass-matrix diagonal of a model, in plain numpy.

The model builder needs both once per model (the initial joint velocities, the inertia floor of
coupled joints), so it computes them here instead of loading the simulator's compiled kernels:
building a model never imports usdjoints.sim (tests/model/test_model_boundary.py checks the
import graph, and compares both against the kernels).
"""
from __future__ import annotations

import numpy as np

from .articulated import FREE, PRIMITIVE_NV, PRISMATIC, REVOLUTE, SPHERICAL
from .rotation import quat_to_matrix


def _axis_angle(axis: np.ndarray, angle: float) -> np.ndarray:
    k = np.array([[0.0, -axis[2], axis[1]], [axis[2], 0.0, -axis[0]], [-axis[1], axis[0], 0.0]])
    return np.eye(3) + np.sin(angle) * k + (1.0 - np.cos(angle)) * (k @ k)


def _cross(a, b) -> tuple:
    """a x b of two 3-vectors, the products and differences np.cross forms, without its
    per-call axis handling."""
    a0, a1, a2 = float(a[0]), float(a[1]), float(a[2])
    b0, b1, b2 = float(b[0]), float(b[1]), float(b[2])
    return (a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0)


def link_world_poses(model, q) -> tuple[np.ndarray, np.ndarray]:
    """(R_world [nlink, 3, 3], p_world [nlink, 3] [m]) of every link frame at configuration q."""
    q = np.asarray(q, dtype=float)
    n = model.nlink
    R_world, p_world = np.empty((n, 3, 3)), np.empty((n, 3))
    for i in range(n):
        kind, start = int(model.link_type[i]), int(model.link_q_start[i])
        axis = np.asarray(model.link_axis[i], dtype=float)
        if kind == REVOLUTE:
            R_J, p_J = _axis_angle(axis, float(q[start])), np.zeros(3)
        elif kind == PRISMATIC:
            R_J, p_J = np.eye(3), axis * float(q[start])
        elif kind == SPHERICAL:
            R_J, p_J = quat_to_matrix(q[start:start + 4]), np.zeros(3)
        else:  # FREE: position, then the quaternion (w, x, y, z)
            R_J, p_J = quat_to_matrix(q[start + 3:start + 7]), q[start:start + 3].copy()
        R_pj, p_pj = np.asarray(model.link_R_parent_joint[i]), np.asarray(model.link_p_parent_joint[i])
        R_jc, p_jc = np.asarray(model.link_R_joint_child[i]), np.asarray(model.link_p_joint_child[i])
        R = R_pj @ R_J @ R_jc
        p = p_pj + R_pj @ (p_J + R_J @ p_jc)
        parent = int(model.link_parent[i])
        if parent < 0:
            R_world[i], p_world[i] = R, p
        else:
            R_world[i] = R_world[parent] @ R
            p_world[i] = p_world[parent] + R_world[parent] @ p
    return R_world, p_world


def dof_world_twists(model, R_link, p_link) -> np.ndarray:
    """[nv, 6]: per dof, the world twist (w, velocity of the world origin) per unit velocity."""
    twists = np.zeros((model.nv, 6))
    for i in range(model.nlink):
        R_m = R_link[i] @ np.asarray(model.link_R_joint_child[i]).T
        p_m = p_link[i] - R_m @ np.asarray(model.link_p_joint_child[i])
        start, kind = int(model.link_v_start[i]), int(model.link_type[i])
        if kind == REVOLUTE:
            axes = [(start, R_m @ model.link_axis[i], True)]
        elif kind == PRISMATIC:
            axes = [(start, R_m @ model.link_axis[i], False)]
        elif kind == FREE:
            axes = [(start + a, R_m[:, a], False) for a in range(3)] + \
                   [(start + 3 + a, R_m[:, a], True) for a in range(3)]
        else:  # spherical: angular velocity in the moving frame
            axes = [(start + a, R_m[:, a], True) for a in range(3)]
        for dof, axis, rotational in axes:
            if rotational:
                twists[dof, :3] = axis
                twists[dof, 3:] = _cross(p_m, axis)
            else:
                twists[dof, 3:] = axis
    return twists


def mass_matrix_diagonal(model, q) -> np.ndarray:
    """diag M(q) [nv] with armature: per dof, the kinetic energy (times two) of the links it moves
    at unit velocity, w^T I_c w + m |v_O + w x c|^2 summed over its link's subtree.

    The sum over a subtree is its composite body's (Koenig): total mass M, centre g and inertia
    J about g give w^T J w + M |v_O + w x g|^2. The composites are merged from the leaves up, one
    pass in O(nlink), each child's centre offset taken from the merged centre (small numbers,
    however far the robot stands from the origin)."""
    R_link, p_link = link_world_poses(model, q)
    twists = dof_world_twists(model, R_link, p_link)
    n = model.nlink
    parent = np.asarray(model.link_parent, dtype=np.int64).reshape(n)
    masses = np.asarray(model.link_mass, dtype=float).reshape(n)
    com = np.asarray(model.link_com, dtype=float).reshape(n, 3)
    centres = p_link + np.einsum("nij,nj->ni", R_link, com)
    inertias = np.einsum("nij,njk,nlk->nil", R_link, np.asarray(model.link_inertia, dtype=float).reshape(n, 3, 3),
                         R_link)
    # per link: its subtree's mass, first moment (sum of m c) and inertia about the world origin
    # would cancel far from the origin; the merge keeps each subtree's centre and inertia about it
    total, centre, inertia = masses.copy(), centres.copy(), inertias.copy()
    for i in _leaves_first(parent):
        j = int(parent[i])
        if j < 0:
            continue
        m = total[i] + total[j]
        if m > 0.0:
            g = (total[i] * centre[i] + total[j] * centre[j]) / m
        else:
            g = centre[j]
        inertia[j] = inertia[j] + inertia[i] + _shift(total[j], centre[j] - g) + _shift(total[i], centre[i] - g)
        total[j], centre[j] = m, g
    diagonal = np.array(model.dof_armature, dtype=float).copy()
    link_of_dof = np.repeat(np.arange(n), [PRIMITIVE_NV[int(k)] for k in np.asarray(model.link_type).reshape(n)])
    starts = np.asarray(model.link_v_start, dtype=np.int64).reshape(n)
    dofs = starts[link_of_dof] + (np.arange(len(link_of_dof)) - np.searchsorted(link_of_dof, link_of_dof))
    w, v = twists[dofs, :3], twists[dofs, 3:]
    k = link_of_dof
    velocity = v + np.cross(w, centre[k])
    diagonal[dofs] += np.einsum("ni,nij,nj->n", w, inertia[k], w) + total[k] * np.einsum("ni,ni->n", velocity, velocity)
    return diagonal


def _shift(mass: float, d: np.ndarray) -> np.ndarray:
    """The inertia of a point mass at offset d (parallel axis)."""
    return mass * (float(d @ d) * np.eye(3) - np.outer(d, d))


def _leaves_first(parent: np.ndarray) -> list[int]:
    """The links in an order that puts every link before its parent."""
    children: list[list[int]] = [[] for _ in range(len(parent))]
    roots = []
    for i, j in enumerate(parent.tolist()):
        (children[j] if j >= 0 else roots).append(i)
    order, stack = [], roots[::-1]
    while stack:
        i = stack.pop()
        order.append(i)
        stack.extend(children[i])
    return order[::-1]
