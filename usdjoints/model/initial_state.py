"""The state a simulation starts from: joint positions follow the authored body transforms, as
in PhysX (q = 0 where a joint's two frames coincide); PhysicsJointStateAPI overrides them where
authored; a free root starts with its PhysicsRigidBodyAPI velocities.
"""
from __future__ import annotations

import math

import numpy as np

from .. import units
from .rotation import angle_about, intrinsic_xyz_angles, matrix_to_quat, quat_to_matrix

_AXES = {"X": 0, "Y": 1, "Z": 2}
_D6 = ("transX", "transY", "transZ", "rotX", "rotY", "rotZ")


def _world(pose, mpu):
    return quat_to_matrix(pose.orientation), np.array(pose.position, dtype=float) * mpu


def joint_motion(joint, child: str, parent, bodies: dict, mpu: float):
    """(R, p) of the child side's joint frame in the parent side's joint frame [m]."""
    child_is_body1 = joint.body1 == child
    parent_local, child_local = (joint.local_pose0, joint.local_pose1) if child_is_body1 else \
        (joint.local_pose1, joint.local_pose0)
    R_pj, p_pj = _world(parent_local, mpu)
    if parent is not None:
        R_wp, p_wp = _world(bodies[parent].world_pose, mpu)
        R_pj, p_pj = R_wp @ R_pj, R_wp @ p_pj + p_wp
    R_cj, p_cj = _world(child_local, mpu)
    R_wc, p_wc = _world(bodies[child].world_pose, mpu)
    R_wm, p_wm = R_wc @ R_cj, R_wc @ p_cj + p_wc
    return R_pj.T @ R_wm, R_pj.T @ (p_wm - p_pj), child_is_body1


def initial_q(model, free_roots: dict, tree, description, mpu: float) -> np.ndarray:
    bodies = {b.path: b for b in description.bodies}
    q = model.neutral_configuration()
    for name, value in free_roots.items():
        q[model.q_slice(name)] = value
    for child, joint, parent in tree:
        if joint is None or joint.type == "fixed":
            continue
        R, p, child_is_body1 = joint_motion(joint, child, parent, bodies, mpu)
        sign = 1.0 if child_is_body1 else -1.0
        sl = model.q_slice(joint.path)
        if joint.type == "revolute":
            axis = np.eye(3)[_AXES[joint.axis or "X"]] * sign
            q[sl] = angle_about(R, axis)
        elif joint.type == "prismatic":
            axis = np.eye(3)[_AXES[joint.axis or "X"]] * sign
            q[sl] = float(p @ axis)
        elif joint.type == "spherical":
            q[sl] = matrix_to_quat(R)
        elif joint.type == "d6":
            free = [a for a in _D6 if _d6_is_free(joint, a)]
            angles = intrinsic_xyz_angles(R)
            values = [p[_D6.index(a)] if a.startswith("trans") else angles[_D6.index(a) - 3] for a in free]
            q[sl] = values
        _apply_states(q, sl, joint, mpu, "position")
    return q


def initial_qd(model, tree, description, dynamic: dict, mpu: float) -> np.ndarray:
    qd = np.zeros(model.nv)
    for child, joint, parent in tree:
        if joint is None:
            body = dynamic[child]
            R = quat_to_matrix(body.world_pose.orientation)
            velocity = np.array(body.columns["physics:velocity"].value, dtype=float) * mpu
            angular = np.radians(np.array(body.columns["physics:angularVelocity"].value, dtype=float))
            qd[model.v_slice(child)] = np.concatenate([R.T @ velocity, R.T @ angular])
        elif joint.type != "fixed":
            _apply_states(qd, model.v_slice(joint.path), joint, mpu, "velocity")
    return qd


def _d6_is_free(joint, axis: str) -> bool:
    return not any(l.dof == axis and l.low > l.high for l in joint.limits)


def _apply_states(vector, sl, joint, mpu: float, field: str) -> None:
    """Overwrite coordinates with authored PhysicsJointStateAPI values [deg or stage length]."""
    if not joint.states or joint.type == "spherical":
        return
    if joint.type in ("revolute", "prismatic"):
        order = ["angular" if joint.type == "revolute" else "linear"]
    else:
        order = [a for a in _D6 if _d6_is_free(joint, a)]
    for state in joint.states:
        resolved = getattr(state, field)
        if not resolved.authored or state.dof not in order:
            continue
        value = float(resolved.value)
        rotational = state.dof in ("angular", "rotX", "rotY", "rotZ")
        converted = units.deg_to_rad(value) if rotational else value * mpu
        if math.isfinite(converted):
            vector[sl.start + order.index(state.dof)] = converted
