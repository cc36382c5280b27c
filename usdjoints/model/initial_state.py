"""The state a simulation starts from: joint positions follow the authored body transforms, as
in PhysX (q = 0 where a joint's two frames coincide); PhysicsJointStateAPI overrides them where
authored; joint velocities follow the bodies' PhysicsRigidBodyAPI velocities.
"""
from __future__ import annotations

import math

import numpy as np

from .. import units
from ..errors import InputError
from .builder import D6_BALL
from .rotation import (
    angle_about, intrinsic_xyz_angles, matrix_to_quat, quat_to_matrix, quat_to_rotation_vector,
    rotation_vector_to_quat,
)

_AXES = {"X": 0, "Y": 1, "Z": 2}
_D6 = ("transX", "transY", "transZ", "rotX", "rotY", "rotZ")
_ROTATIONS = _D6[3:]


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
            axes = _dof_axes(model, joint)
            angles = intrinsic_xyz_angles(R)
            values = []
            for a in axes:
                if a == D6_BALL:
                    # authored rotation states are the rotation vector's components (as PhysX
                    # reads them); the tree's ball is body1's rotation in body0's, or its inverse
                    # when reversed
                    R = _ball_rotation(joint, R)
                    values.extend(matrix_to_quat(R if child_is_body1 else R.T))
                elif a.startswith("trans"):
                    values.append(p[_D6.index(a)])
                else:
                    values.append(angles[_D6.index(a) - 3])
            q[sl] = values
        _apply_states(q, sl, joint, mpu, "position", model)
    return q


def _finite_frames(joint) -> bool:
    """Whether both of a joint's local poses (position and orientation) are finite."""
    return all(np.all(np.isfinite(np.asarray(pose.position, dtype=float)))
               and np.all(np.isfinite(np.asarray(pose.orientation, dtype=float)))
               for pose in (joint.local_pose0, joint.local_pose1))


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
        if not np.all(np.isfinite(columns)):
            # a joint's twist is formed through every frame between it and the root: blame the first
            # joint, fixed ones included, whose own frame holds a value that is not finite
            culprit = next((j for _, j, _ in tree if j is not None and not _finite_frames(j)), joint)
            frames = ", ".join(f"physics:localPos{side} = ({', '.join(f'{float(v):g}' for v in pose.position)})"
                               for side, pose in ((0, culprit.local_pose0), (1, culprit.local_pose1)))
            raise InputError(culprit.path, f"its frame is not finite in SI units ({frames}; or its bodies' "
                             f"transforms, metersPerUnit {mpu:g})")
        if not np.all(np.isfinite(relative)):
            raise InputError(joint.path, "its bodies' velocities are not finite in SI units (physics:velocity, "
                             f"physics:angularVelocity, or their transforms; metersPerUnit {mpu:g})")
        if np.any(relative != 0.0):
            qd[sl] = np.linalg.lstsq(columns, relative, rcond=None)[0]
        _apply_states(qd, sl, joint, mpu, "velocity", model, reversed_=joint.body1 != child)
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


def _ball_rotation(joint, R: np.ndarray) -> np.ndarray:
    """The start rotation of a D6 ball whose pose gives ``R`` (body1's joint frame in body0's):
    R itself, or, where PhysicsJointStateAPI positions are authored on rotX, rotY or rotZ, the
    rotation whose rotation vector has those components, the others kept from R's. ovphysx 0.7
    starts a D6 ball with states (30, -25, 50) deg on the rotation whose rotation vector is
    (30, -25, 50) deg (tests/sim/test_d6_ball_limits.py), as it reads a spherical joint's
    positions."""
    vector = quat_to_rotation_vector(matrix_to_quat(R))
    authored = False
    for state in joint.states:
        if state.dof in _ROTATIONS and state.position.authored:
            value = units.deg_to_rad(float(state.position.value))
            if math.isfinite(value):
                vector[_ROTATIONS.index(state.dof)] = value
                authored = True
    return quat_to_matrix(rotation_vector_to_quat(vector)) if authored else R


def _slots(model, joint, field: str) -> dict:
    """{dof label: index in the joint's slice of q (field "position") or qd ("velocity")}. A D6
    ball's coordinates (its rotation states are read by _ball_rotation) have none; its three
    velocities are rotX, rotY, rotZ (angular velocity components in the moving frame, as PhysX's
    spherical joint velocities are)."""
    slots, k = {}, 0
    for a in _dof_axes(model, joint):
        if a == D6_BALL:
            if field == "velocity":
                slots.update({r: k + i for i, r in enumerate(_ROTATIONS)})
            k += 4 if field == "position" else 3
        else:
            slots[a] = k
            k += 1
    return slots


def _dof_axes(model, joint) -> tuple[str, ...]:
    """The D6 axis of each of ``joint``'s dofs, in the model's dof order."""
    return model.joint_dof_axes[model.joint_index(joint.path)]


def _apply_states(vector, sl, joint, mpu: float, field: str, model, reversed_: bool = False) -> None:
    """Overwrite coordinates with authored PhysicsJointStateAPI values [deg or stage length].
    ``reversed_``: body0 is the tree's child (a D6 ball's velocities are then turned, below)."""
    if not joint.states or joint.type == "spherical":
        return
    ball = None
    if field == "velocity" and reversed_ and joint.type == "d6" and D6_BALL in _dof_axes(model, joint):
        # the tree's ball turns the inverse rotation R^T (R: body1's joint frame in body0's),
        # whose angular velocity in its moving frame is -R w for body1's w: the states are w's
        slots = _slots(model, joint, field)
        k = sl.start + slots["rotX"]
        start = int(model.joint_q_start[model.joint_index(joint.path)]) + list(_dof_axes(model, joint)).index(D6_BALL)
        R = quat_to_matrix(np.asarray(model.q_initial[start:start + 4], dtype=float)).T
        ball = (k, R)
        vector[k:k + 3] = -R.T @ vector[k:k + 3]
    if joint.type in ("revolute", "prismatic"):
        slots = {"angular" if joint.type == "revolute" else "linear": 0}
    else:
        slots = _slots(model, joint, field)
    for state in joint.states:
        resolved = getattr(state, field)
        if not resolved.authored or state.dof not in slots:
            continue
        value = float(resolved.value)
        rotational = state.dof in ("angular", "rotX", "rotY", "rotZ")
        converted = units.deg_to_rad(value) if rotational else value * mpu
        if math.isfinite(converted):
            vector[sl.start + slots[state.dof]] = converted
    if ball is not None:
        k, R = ball
        vector[k:k + 3] = -R @ vector[k:k + 3]
