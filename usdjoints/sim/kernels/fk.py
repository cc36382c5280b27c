"""Forward kinematics: link transforms from q, then world poses of links and bodies."""
from __future__ import annotations

import numpy as np

from . import FMA, INTERNAL, njit
from .jcalc import PRISMATIC, REVOLUTE, joint_motion_pose, rotation_to_quat
from .layout import LINK_PARENT, LINK_Q_START, LINK_TYPE
from .trig import sin_cos


@njit(cache=True, fastmath=FMA)
def link_transforms(link_table, link_axis, R_parent_joint, p_parent_joint, R_joint_child,
                    p_joint_child, revolute_basis, q, R_J_work, p_J_work, E_out, r_out):
    """link_transforms_inline as one compiled call (every site but the step's own)."""
    link_transforms_inline(link_table, link_axis, R_parent_joint, p_parent_joint, R_joint_child,
                           p_joint_child, revolute_basis, q, R_J_work, p_J_work, E_out, r_out)


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def link_transforms_inline(link_table, link_axis, R_parent_joint, p_parent_joint, R_joint_child,
                           p_joint_child, revolute_basis, q, R_J_work, p_J_work, E_out, r_out):
    """Per link, the parent-to-link coordinate transform (E_out [nlink,3,3], r_out [nlink,3]):
    E rotates parent coordinates into link coordinates, r is the link origin in the parent [m].
    Revolute and prismatic links (the common cases) combine the constants of
    fk_basis.revolute_basis [nlink,4,3,3] (a prismatic link reads its constant rotation P0 and
    origin c0 there)."""
    nlink = link_table.shape[0]
    for i in range(nlink):
        kind = link_table[i, LINK_TYPE]
        if kind == REVOLUTE:
            # indexed in place: a view per link would cost a reference count each
            angle = q[link_table[i, LINK_Q_START]]
            s, c = sin_cos(angle)
            t = 1.0 - c
            for a in range(3):
                r_out[i, a] = (revolute_basis[i, 3, 0, a] + s * revolute_basis[i, 3, 1, a]
                               + t * revolute_basis[i, 3, 2, a])
                for b in range(3):
                    E_out[i, a, b] = (revolute_basis[i, 0, a, b] + s * revolute_basis[i, 1, a, b]
                                      + t * revolute_basis[i, 2, a, b])
            continue
        if kind == PRISMATIC:
            # the rotation is the basis' constant P0; the origin slides along R_pj axis
            x = q[link_table[i, LINK_Q_START]]
            for a in range(3):
                r_out[i, a] = revolute_basis[i, 3, 0, a] + x * (
                    R_parent_joint[i, a, 0] * link_axis[i, 0] + R_parent_joint[i, a, 1] * link_axis[i, 1]
                    + R_parent_joint[i, a, 2] * link_axis[i, 2])
                for b in range(3):
                    E_out[i, a, b] = revolute_basis[i, 0, a, b]
            continue
        general_link_transform(link_table, link_axis, R_parent_joint, p_parent_joint, R_joint_child,
                               p_joint_child, q, i, R_J_work, p_J_work, E_out, r_out)


# A kernel of its own: beside the loop above, numba's reference-count pruning would give up on
# link_transforms_inline, and each of its arrays would then cost an atomic count on every call.
@njit(cache=True, fastmath=FMA, **INTERNAL)
def general_link_transform(link_table, link_axis, R_parent_joint, p_parent_joint, R_joint_child,
                           p_joint_child, q, i, R_J_work, p_J_work, E_out, r_out):
    """E_out[i], r_out[i] of a spherical or free link (any primitive): the pose of the link in
    its parent, T_pj * T_J(q) * T_jc."""
    joint_motion_pose(link_table[i, LINK_TYPE], link_axis, i, q, link_table[i, LINK_Q_START],
                      R_J_work, p_J_work)
    for a in range(3):
        t = p_J_work[a]
        for k in range(3):
            t += R_J_work[a, k] * p_joint_child[i, k]
        p_J_work[a] = t  # reused as the child origin in the joint frame
    for a in range(3):
        s = p_parent_joint[i, a]
        for k in range(3):
            s += R_parent_joint[i, a, k] * p_J_work[k]
        r_out[i, a] = s
    # R_J Rjc, one column at a time, then Rpj times it: 54 products instead of 243
    for b in range(3):
        t0 = (R_J_work[0, 0] * R_joint_child[i, 0, b] + R_J_work[0, 1] * R_joint_child[i, 1, b]
              + R_J_work[0, 2] * R_joint_child[i, 2, b])
        t1 = (R_J_work[1, 0] * R_joint_child[i, 0, b] + R_J_work[1, 1] * R_joint_child[i, 1, b]
              + R_J_work[1, 2] * R_joint_child[i, 2, b])
        t2 = (R_J_work[2, 0] * R_joint_child[i, 0, b] + R_J_work[2, 1] * R_joint_child[i, 1, b]
              + R_J_work[2, 2] * R_joint_child[i, 2, b])
        for a in range(3):
            E_out[i, b, a] = (R_parent_joint[i, a, 0] * t0 + R_parent_joint[i, a, 1] * t1
                              + R_parent_joint[i, a, 2] * t2)  # transposed


@njit(cache=True, fastmath=FMA)
def link_world_poses(link_table, E, r, R_world_out, p_world_out):
    """World pose of each link (R_world_out [nlink,3,3], p_world_out [nlink,3] [m])."""
    nlink = link_table.shape[0]
    for i in range(nlink):
        parent = link_table[i, LINK_PARENT]
        if parent < 0:
            for a in range(3):
                p_world_out[i, a] = r[i, a]
                for b in range(3):
                    R_world_out[i, a, b] = E[i, b, a]
        else:
            for a in range(3):
                s = p_world_out[parent, a]
                for k in range(3):
                    s += R_world_out[parent, a, k] * r[i, k]
                p_world_out[i, a] = s
                for b in range(3):
                    s = 0.0
                    for k in range(3):
                        s += R_world_out[parent, a, k] * E[i, b, k]
                    R_world_out[i, a, b] = s


@njit(cache=True, fastmath=FMA, **INTERNAL)
def body_world_poses(body_link, body_R_link, body_p_link, R_link_world, p_link_world,
                     R_work, pose_out):
    """Each body's world pose as (x, y, z, qw, qx, qy, qz), pose_out [nbody, 7]."""
    for b in range(body_link.shape[0]):
        link = body_link[b]
        if link < 0:
            for a in range(3):
                pose_out[b, a] = body_p_link[b, a]
                for c in range(3):
                    R_work[a, c] = body_R_link[b, a, c]
        else:
            for a in range(3):
                s = p_link_world[link, a]
                for k in range(3):
                    s += R_link_world[link, a, k] * body_p_link[b, k]
                pose_out[b, a] = s
                for c in range(3):
                    s = 0.0
                    for k in range(3):
                        s += R_link_world[link, a, k] * body_R_link[b, k, c]
                    R_work[a, c] = s
        rotation_to_quat(R_work, pose_out[b, 3:7])


@njit(cache=True, fastmath=FMA)
def forward_kinematics(link_table, link_axis, R_parent_joint, p_parent_joint, R_joint_child,
                       p_joint_child, revolute_basis, body_link, body_R_link, body_p_link, q, pose_out):
    """Body world poses [nbody, 7] for configuration q (allocates its own scratch)."""
    nlink = link_table.shape[0]
    E = np.empty((nlink, 3, 3))
    r = np.empty((nlink, 3))
    Rw = np.empty((nlink, 3, 3))
    pw = np.empty((nlink, 3))
    R3 = np.empty((3, 3))
    p3 = np.empty(3)
    link_transforms(link_table, link_axis, R_parent_joint, p_parent_joint, R_joint_child,
                    p_joint_child, revolute_basis, q, R3, p3, E, r)
    link_world_poses(link_table, E, r, Rw, pw)
    body_world_poses(body_link, body_R_link, body_p_link, Rw, pw, R3, pose_out)
