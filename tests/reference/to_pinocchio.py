"""Build the pinocchio model equivalent to an ArticulatedModel (pinocchio's joint frame is our
moving frame, so each joint-to-child offset moves into the inertia and the next placement)."""
from __future__ import annotations

import numpy as np


def to_pinocchio(model):
    import pinocchio as pin

    pm = pin.Model()
    pm.gravity = pin.Motion(np.concatenate([model.gravity, np.zeros(3)]))
    for i in range(model.nlink):
        parent = int(model.link_parent[i])
        T_pj = pin.SE3(model.link_R_parent_joint[i], model.link_p_parent_joint[i])
        if parent >= 0:
            T_pj = pin.SE3(model.link_R_joint_child[parent], model.link_p_joint_child[parent]) * T_pj
        kind = int(model.link_type[i])
        axis = np.asarray(model.link_axis[i], dtype=float)
        joint = [pin.JointModelRevoluteUnaligned(axis), pin.JointModelPrismaticUnaligned(axis),
                 pin.JointModelSpherical(), pin.JointModelFreeFlyer()][kind]
        jid = pm.addJoint(parent + 1, joint, T_pj, model.link_names[i])
        R_jc, p_jc = model.link_R_joint_child[i], model.link_p_joint_child[i]
        inertia = pin.Inertia(float(model.link_mass[i]), R_jc @ model.link_com[i] + p_jc,
                              R_jc @ model.link_inertia[i] @ R_jc.T)
        pm.appendBodyToJoint(jid, inertia, pin.SE3.Identity())
    pm.armature = np.asarray(model.dof_armature, dtype=float).copy()
    return pm


def q_to_pinocchio(model, q):
    """Our quaternions are (w, x, y, z); pinocchio stores (x, y, z, w)."""
    out = np.array(q, dtype=float)
    for i in range(model.nlink):
        kind, s = int(model.link_type[i]), int(model.link_q_start[i])
        start = s if kind == 2 else s + 3 if kind == 3 else None
        if start is not None:
            out[start:start + 4] = np.roll(q[start:start + 4], -1)
    return out
