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
    at unit velocity, w^T I_c w + m |v_O + w x c|^2 summed over its link's subtree."""
    R_link, p_link = link_world_poses(model, q)
    twists = dof_world_twists(model, R_link, p_link)
    n = model.nlink
    children: list[list[int]] = [[] for _ in range(n)]
    for i in range(n):
        if int(model.link_parent[i]) >= 0:
            children[int(model.link_parent[i])].append(i)
    masses = np.asarray(model.link_mass, dtype=float)
    centres = np.array([p_link[i] + R_link[i] @ model.link_com[i] for i in range(n)]).reshape(n, 3)
    inertias = np.array([R_link[i] @ model.link_inertia[i] @ R_link[i].T for i in range(n)]).reshape(n, 3, 3)
    diagonal = np.array(model.dof_armature, dtype=float).copy()
    for i in range(n):
        subtree, stack = [], [i]
        while stack:
            k = stack.pop()
            subtree.append(k)
            stack.extend(children[k])
        start = int(model.link_v_start[i])
        for dof in range(start, start + PRIMITIVE_NV[int(model.link_type[i])]):
            w, v = twists[dof, :3], twists[dof, 3:]
            for k in subtree:
                velocity = v + np.cross(w, centres[k])
                diagonal[dof] += float(w @ inertias[k] @ w) + masses[k] * float(velocity @ velocity)
    return diagonal
