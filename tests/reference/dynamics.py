"""Reference kinematics and dynamics of an ArticulatedModel, link by link, with 6x6 matrices."""
from __future__ import annotations

import numpy as np

from .spatial import axis_angle, crf, crm, plucker_from_pose, quat_to_matrix, spatial_inertia

REVOLUTE, PRISMATIC, SPHERICAL, FREE = 0, 1, 2, 3


def joint_pose_and_subspace(kind, axis, qj):
    """Pose (R, p) of the moving frame in the joint frame and S in moving-frame coordinates."""
    if kind == REVOLUTE:
        return axis_angle(axis, qj[0]), np.zeros(3), np.concatenate([axis, np.zeros(3)])[:, None]
    if kind == PRISMATIC:
        return np.eye(3), axis * qj[0], np.concatenate([np.zeros(3), axis])[:, None]
    if kind == SPHERICAL:
        S = np.zeros((6, 3))
        S[:3, :] = np.eye(3)
        return quat_to_matrix(qj[:4]), np.zeros(3), S
    S = np.zeros((6, 6))
    S[3:, :3] = np.eye(3)  # linear velocity first in v
    S[:3, 3:] = np.eye(3)
    return quat_to_matrix(qj[3:7]), np.asarray(qj[:3], dtype=float), S


NQ = {REVOLUTE: 1, PRISMATIC: 1, SPHERICAL: 4, FREE: 7}
NV = {REVOLUTE: 1, PRISMATIC: 1, SPHERICAL: 3, FREE: 6}


def link_quantities(model, q):
    """Per link: X (parent -> link 6x6), S (6 x nv_i in link coordinates), I (6x6), dof indices."""
    out = []
    for i in range(model.nlink):
        kind = int(model.link_type[i])
        q0, v0 = int(model.link_q_start[i]), int(model.link_v_start[i])
        R_J, p_J, S_J = joint_pose_and_subspace(kind, model.link_axis[i], q[q0:q0 + NQ[kind]])
        X_pj = plucker_from_pose(model.link_R_parent_joint[i], model.link_p_parent_joint[i])
        X_J = plucker_from_pose(R_J, p_J)
        X_jc = plucker_from_pose(model.link_R_joint_child[i], model.link_p_joint_child[i])
        I = spatial_inertia(model.link_mass[i], model.link_com[i], model.link_inertia[i])
        out.append(dict(X=X_jc @ X_J @ X_pj, S=X_jc @ S_J, I=I,
                        dofs=np.arange(v0, v0 + NV[kind]), parent=int(model.link_parent[i])))
    return out


def link_world_poses(model, q):
    """World (R, p) of each link from composing poses (not Pluecker matrices)."""
    poses = []
    for i in range(model.nlink):
        kind = int(model.link_type[i])
        q0 = int(model.link_q_start[i])
        R_J, p_J, _ = joint_pose_and_subspace(kind, model.link_axis[i], q[q0:q0 + NQ[kind]])
        R = model.link_R_parent_joint[i] @ R_J @ model.link_R_joint_child[i]
        p = model.link_p_parent_joint[i] + model.link_R_parent_joint[i] @ (p_J + R_J @ model.link_p_joint_child[i])
        parent = int(model.link_parent[i])
        if parent >= 0:
            Rp, pp = poses[parent]
            R, p = Rp @ R, pp + Rp @ p
        poses.append((R, p))
    return poses


def _gravity_acceleration(model):
    return np.concatenate([np.zeros(3), -np.asarray(model.gravity)])


def rnea(model, q, qd, qdd):
    """tau = M qdd + C qd + g, without armature."""
    links = link_quantities(model, q)
    v, a, f = [], [], []
    for i, L in enumerate(links):
        vJ = L["S"] @ qd[L["dofs"]]
        if L["parent"] < 0:
            vp, ap = np.zeros(6), _gravity_acceleration(model)
        else:
            vp, ap = v[L["parent"]], a[L["parent"]]
        vi = L["X"] @ vp + vJ
        ai = L["X"] @ ap + L["S"] @ qdd[L["dofs"]] + crm(vi) @ vJ
        v.append(vi)
        a.append(ai)
        f.append(L["I"] @ ai + crf(vi) @ L["I"] @ vi)
    tau = np.zeros(model.nv)
    for i in reversed(range(len(links))):
        L = links[i]
        tau[L["dofs"]] = L["S"].T @ f[i]
        if L["parent"] >= 0:
            f[L["parent"]] = f[L["parent"]] + L["X"].T @ f[i]
    return tau


def crba(model, q):
    """Mass matrix with armature on the diagonal."""
    links = link_quantities(model, q)
    Ic = [L["I"].copy() for L in links]
    for i in reversed(range(len(links))):
        p = links[i]["parent"]
        if p >= 0:
            Ic[p] = Ic[p] + links[i]["X"].T @ Ic[i] @ links[i]["X"]
    M = np.zeros((model.nv, model.nv))
    for i, L in enumerate(links):
        F = Ic[i] @ L["S"]
        M[np.ix_(L["dofs"], L["dofs"])] = L["S"].T @ F
        j = i
        while links[j]["parent"] >= 0:
            F = links[j]["X"].T @ F
            j = links[j]["parent"]
            block = links[j]["S"].T @ F
            M[np.ix_(links[j]["dofs"], L["dofs"])] = block
            M[np.ix_(L["dofs"], links[j]["dofs"])] = block.T
    return M + np.diag(model.dof_armature)


def aba(model, q, qd, tau):
    """Forward dynamics with armature, by the articulated-body recursion."""
    links = link_quantities(model, q)
    n = len(links)
    v, c, IA, pA = [None] * n, [None] * n, [None] * n, [None] * n
    for i, L in enumerate(links):
        vJ = L["S"] @ qd[L["dofs"]]
        v[i] = vJ if L["parent"] < 0 else L["X"] @ v[L["parent"]] + vJ
        c[i] = crm(v[i]) @ vJ
        IA[i] = L["I"].copy()
        pA[i] = crf(v[i]) @ L["I"] @ v[i]
    U, Dinv, u = [None] * n, [None] * n, [None] * n
    for i in reversed(range(n)):
        L = links[i]
        U[i] = IA[i] @ L["S"]
        D = L["S"].T @ U[i] + np.diag(model.dof_armature[L["dofs"]])
        Dinv[i] = np.linalg.inv(D)
        u[i] = tau[L["dofs"]] - L["S"].T @ pA[i]
        p = L["parent"]
        if p >= 0:
            Ia = IA[i] - U[i] @ Dinv[i] @ U[i].T
            pa = pA[i] + Ia @ c[i] + U[i] @ Dinv[i] @ u[i]
            IA[p] = IA[p] + L["X"].T @ Ia @ L["X"]
            pA[p] = pA[p] + L["X"].T @ pa
    qdd = np.zeros(model.nv)
    a = [None] * n
    for i, L in enumerate(links):
        ap = _gravity_acceleration(model) if L["parent"] < 0 else a[L["parent"]]
        a_prime = L["X"] @ ap + c[i]
        qdd[L["dofs"]] = Dinv[i] @ (u[i] - U[i].T @ a_prime)
        a[i] = a_prime + L["S"] @ qdd[L["dofs"]]
    return qdd


def kinetic_energy(model, q, qd):
    """Sum over links of 1/2 m |v_com|^2 + 1/2 w^T I_com w, from world-frame body velocities."""
    links = link_quantities(model, q)
    poses = link_world_poses(model, q)
    energy = 0.0
    v = []
    for i, L in enumerate(links):
        vJ = L["S"] @ qd[L["dofs"]]
        v.append(vJ if L["parent"] < 0 else L["X"] @ v[L["parent"]] + vJ)
        R, _ = poses[i]
        omega_world = R @ v[i][:3]
        v_origin_world = R @ v[i][3:]
        v_com_world = v_origin_world + np.cross(omega_world, R @ model.link_com[i])
        I_world = R @ model.link_inertia[i] @ R.T
        energy += 0.5 * model.link_mass[i] * v_com_world @ v_com_world + 0.5 * omega_world @ I_world @ omega_world
    return energy + 0.5 * qd @ (model.dof_armature * qd)
