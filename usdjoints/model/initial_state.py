"""The state a simulation starts from: joint positions follow the authored body transforms, as
in PhysX (q = 0 where a joint's two frames coincide); PhysicsJointStateAPI overrides them where
authored; joint velocities follow the bodies' PhysicsRigidBodyAPI velocities.
"""
from __future__ import annotations

import math

import numpy as np

from .. import units
from ..errors import InputError
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
            if not child_is_body1:  # the coordinates are those of body1's frame in body0's
                R, p = R.T, -R.T @ p
            angles = intrinsic_xyz_angles(R)
            q[sl] = [p[_D6.index(a)] if a.startswith("trans") else angles[_D6.index(a) - 3]
                     for a in _dof_axes(model, joint)]
        _apply_states(q, sl, joint, mpu, "position", model)
    return q


def initial_qd(model, tree, description, dynamic: dict, mpu: float) -> np.ndarray:
    """Joint velocities [nv] from the bodies' authored PhysicsRigidBodyAPI velocities.

    The authored linear velocity [length/s] is taken as that of the body's origin and, with the
    angular velocity [deg/s], in world coordinates. Walking the tree from the roots, each joint
    takes the part of its body's twist relative to the parent's (already reduced) twist that its
    motion subspace can carry: a least-squares projection, exact when the authored velocities
    are consistent with the joints. PhysicsJointStateAPI velocities, where authored, override it.
    ``model.q_initial`` must already hold the initial positions.
    """
    qd = np.zeros(model.nv)
    from .kinematics import dof_world_twists

    R_link, p_link = _link_world_poses(model)
    dof_twists = dof_world_twists(model, R_link, p_link)  # [nv, 6]: each dof's world twist
    twists: dict[str, np.ndarray] = {}  # body -> world twist (w, velocity of the world origin)
    for child, joint, parent in tree:
        body = dynamic[child]
        R, origin = _world(body.world_pose, mpu)
        velocity = np.array(body.columns["physics:velocity"].value, dtype=float) * mpu
        angular = np.radians(np.array(body.columns["physics:angularVelocity"].value, dtype=float))
        for name, value in (("physics:velocity", velocity), ("physics:angularVelocity", angular)):
            if not np.all(np.isfinite(value)):
                raise InputError(child, f"{name} is {tuple(value.tolist())} in SI units: not finite")
        authored = np.concatenate([angular, velocity - _cross(angular, origin)])
        if joint is None:
            qd[model.v_slice(child)] = np.concatenate([R.T @ velocity, R.T @ angular])
            twists[child] = authored
            continue
        base = twists[parent] if parent is not None else np.zeros(6)
        if joint.type == "fixed":
            twists[child] = base
            continue
        sl = model.v_slice(joint.path)
        columns = dof_twists[sl].T
        relative = authored - base
        if not (np.all(np.isfinite(columns)) and np.all(np.isfinite(relative))):
            raise InputError(joint.path, "its frame or its bodies' velocities are not finite in SI units "
                             "(physics:localPos0/1, the bodies' transforms or velocities)")
        if np.any(relative != 0.0):
            qd[sl] = np.linalg.lstsq(columns, relative, rcond=None)[0]
        _apply_states(qd, sl, joint, mpu, "velocity", model)
        twists[child] = base + columns @ qd[sl]
    return qd


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.cross`` of two 3-vectors with numpy's own products and differences (the same
    rounding), without its general-shape machinery: once per body on large robots."""
    a0, a1, a2 = a.tolist()
    b0, b1, b2 = b.tolist()
    return np.array([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0])


def _link_world_poses(model):
    from .kinematics import link_world_poses

    return link_world_poses(model, model.q_initial)


def _dof_axes(model, joint) -> tuple[str, ...]:
    """The D6 axis of each of ``joint``'s dofs, in the model's dof order."""
    return model.joint_dof_axes[model.joint_index(joint.path)]


def _apply_states(vector, sl, joint, mpu: float, field: str, model) -> None:
    """Overwrite coordinates with authored PhysicsJointStateAPI values [deg or stage length]."""
    if not joint.states or joint.type == "spherical":
        return
    if joint.type in ("revolute", "prismatic"):
        order = ["angular" if joint.type == "revolute" else "linear"]
    else:
        order = list(_dof_axes(model, joint))
    for state in joint.states:
        resolved = getattr(state, field)
        if not resolved.authored or state.dof not in order:
            continue
        value = float(resolved.value)
        rotational = state.dof in ("angular", "rotX", "rotY", "rotZ")
        converted = units.deg_to_rad(value) if rotational else value * mpu
        if math.isfinite(converted):
            vector[sl.start + order.index(state.dof)] = converted
