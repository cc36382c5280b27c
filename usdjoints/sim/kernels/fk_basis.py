"""Model constants of the revolute and prismatic fast paths of fk.link_transforms (plain numpy,
no numba)."""
from __future__ import annotations

import numpy as np


def revolute_basis(link_axis, R_parent_joint, p_parent_joint, R_joint_child, p_joint_child):
    """Per link, the constants that make a revolute link's transform linear in (sin, 1 - cos).

    With K the cross-product matrix of the unit axis, Rodrigues' R_J = 1 + s K + (1 - c) K^2, so
    R_pj R_J R_jc = P0 + s P1 + (1 - c) P2 with P_k = R_pj K^k R_jc, and the child origin
    p_pj + R_pj R_J p_jc = c0 + s c1 + (1 - c) c2 with c_k = R_pj K^k p_jc (+ p_pj for k = 0).
    Returns float64 [nlink, 4, 3, 3]: [i, k] = P_k^T for k < 3 (the parent-to-link rotation E is
    their transpose), [i, 3, k] = c_k. For a prismatic link (R_J = 1) the same P0 and c0 are its
    rotation and its origin at zero travel. Computed once per model (PackedModel).
    """
    nlink = link_axis.shape[0]
    out = np.zeros((nlink, 4, 3, 3))
    for i in range(nlink):
        x, y, z = link_axis[i]
        K = np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
        K_power = np.eye(3)
        for k in range(3):
            out[i, k] = (R_parent_joint[i] @ K_power @ R_joint_child[i]).T
            out[i, 3, k] = R_parent_joint[i] @ K_power @ p_joint_child[i]
            K_power = K_power @ K
        out[i, 3, 0] += p_parent_joint[i]
    return out
