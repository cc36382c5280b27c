"""A D6 joint whose body0 is the child in the tree (its body1 is welded to the world, or nearer
the root): the tree carries the inverse of the joint's motion.

Oracles, closed forms of the joint's definition: body1's joint frame in body0's is
Tx Ty Tz Rx Ry Rz over the free axes (USD's D6, as the forward case builds it), so at any
coordinates the model's forward kinematics must give that transform, with each coordinate
on the axis ``joint_dof_axes`` names; the start state read from the authored poses gives back the
coordinates the poses were made with; and the stage simulates (it was refused).
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from usdjoints import cli
from usdjoints.model.build import load_model
from usdjoints.model.rotation import quat_to_matrix
from usdjoints.sim import api

FREE = ("transX", "transY", "rotX", "rotZ")  # transZ and rotY locked: hinges, not a ball
LOCAL0 = ((0.75, 0.1, 0.0), (0.9238795, 0.0, 0.3826834, 0.0))   # on body0 (the child here)
LOCAL1 = ((-0.5, 0.0, 0.2), (0.9659258, 0.2588190, 0.0, 0.0))   # on body1 (welded to the world)


def _rot(axis: int, angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    R = np.eye(3)
    i, j = [(1, 2), (2, 0), (0, 1)][axis]
    R[i, i], R[i, j], R[j, i], R[j, j] = c, -s, s, c
    return R


def _d6_motion(values: dict) -> np.ndarray:
    """4x4 of body1's joint frame in body0's: Tx Ty Tz Rx Ry Rz."""
    M = np.eye(4)
    M[:3, 3] = [values.get("transX", 0.0), values.get("transY", 0.0), values.get("transZ", 0.0)]
    R = np.eye(3)
    for k, axis in enumerate(("rotX", "rotY", "rotZ")):
        R = R @ _rot(k, values.get(axis, 0.0))
    M[:3, :3] = R
    return M


def _pose(position, quat) -> np.ndarray:
    T = np.eye(4)
    T[:3, :3] = quat_to_matrix(np.array(quat, dtype=float))
    T[:3, 3] = position
    return T


def _stage(tmp_path, values: dict, locked=("transZ", "rotY")) -> str:
    """A (body0, the child) and B (body1, welded), A placed so that the joint is at ``values``,
    the axes ``locked`` locked."""
    B = np.eye(4)
    B[:3, 3] = (0.0, 0.0, 2.0)
    A = B @ _pose(*LOCAL1) @ np.linalg.inv(_d6_motion(values)) @ np.linalg.inv(_pose(*LOCAL0))
    w, x, y, z = (float(v) for v in _matrix_quat(A[:3, :3]))
    a0, a1, a2 = (float(v) for v in A[:3, 3])
    locks = "".join(f"""
        float limit:{a}:physics:low = 1
        float limit:{a}:physics:high = -1""" for a in locked)
    text = f"""#usda 1.0
(
    metersPerUnit = 1
    kilogramsPerUnit = 1
    upAxis = "Z"
)
def PhysicsScene "scene"
{{
}}
def Xform "A" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{{
    float physics:mass = 1
    float3 physics:diagonalInertia = (0.1, 0.2, 0.3)
    double3 xformOp:translate = ({a0!r}, {a1!r}, {a2!r})
    quatd xformOp:orient = ({w!r}, {x!r}, {y!r}, {z!r})
    uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:orient"]
}}
def Xform "B" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{{
    float physics:mass = 2
    float3 physics:diagonalInertia = (0.2, 0.2, 0.2)
    double3 xformOp:translate = (0, 0, 2)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}}
def PhysicsFixedJoint "Weld"
{{
    rel physics:body1 = </B>
}}
def PhysicsJoint "D6" (prepend apiSchemas = [{{schemas}}"PhysicsDriveAPI:rotZ"])
{{
    rel physics:body0 = </A>
    rel physics:body1 = </B>
    point3f physics:localPos0 = {LOCAL0[0]}
    quatf physics:localRot0 = {LOCAL0[1]}
    point3f physics:localPos1 = {LOCAL1[0]}
    quatf physics:localRot1 = {LOCAL1[1]}{locks}
    float drive:rotZ:physics:stiffness = 5
    float drive:rotZ:physics:damping = 1
}}
""".replace("{schemas}", "".join(f'"PhysicsLimitAPI:{a}", ' for a in locked))
    path = tmp_path / "d6_reversed.usda"
    path.write_text(text)
    return str(path)


def _matrix_quat(R):
    from usdjoints.model.rotation import matrix_to_quat

    return matrix_to_quat(R)


def _body(model, q, name) -> np.ndarray:
    positions, quats = api.forward_kinematics(model, q)
    b = model.body_names.index(name)
    return _pose(positions[b], quats[b])


VALUES = {"transX": 0.05, "transY": -0.08, "rotX": 0.3, "rotZ": 0.7}
BALL_VALUES = {**VALUES, "rotY": -0.5}


def test_forward_kinematics_is_the_joints_motion(tmp_path):
    model = load_model(_stage(tmp_path, {}))
    j = model.joint_index("/D6")
    axes = model.joint_dof_axes[j]
    assert sorted(axes) == sorted(FREE) and axes == tuple(reversed(FREE))
    rng = np.random.default_rng(3)
    for _ in range(5):
        values = dict(zip(FREE, rng.uniform(-0.8, 0.8, len(FREE))))
        q = np.array(model.q_initial)
        start = int(model.joint_q_start[j])
        for k, axis in enumerate(axes):
            q[start + k] = values[axis]
        F0 = _body(model, q, "/A") @ _pose(*LOCAL0)
        F1 = _body(model, q, "/B") @ _pose(*LOCAL1)
        np.testing.assert_allclose(np.linalg.inv(F0) @ F1, _d6_motion(values), atol=1e-6)


def test_start_state_gives_back_the_coordinates(tmp_path):
    model = load_model(_stage(tmp_path, VALUES))
    j = model.joint_index("/D6")
    start = int(model.joint_q_start[j])
    read = {axis: float(model.q_initial[start + k]) for k, axis in enumerate(model.joint_dof_axes[j])}
    assert read == pytest.approx(VALUES, abs=1e-6)


def test_stage_simulates(tmp_path, capsys):
    assert cli.main(["simulate", _stage(tmp_path, VALUES), "--duration", "0.2"]) == 0, capsys.readouterr().err


BALL_FREE = ("transX", "transY")  # the rotations free, unlimited and undriven: one ball joint
SPIN = {"rotX": 30.0, "rotY": -45.0, "rotZ": 60.0}  # PhysicsJointStateAPI velocities [deg/s]


def _ball_stage(tmp_path, values: dict) -> str:
    """_stage without the rotY drive, with angular joint-state velocities on the three rotations."""
    text = Path(_stage(tmp_path, values, locked=("transZ",))).read_text()
    text = text.replace(', "PhysicsDriveAPI:rotZ"', "".join(f', "PhysicsJointStateAPI:{a}"' for a in SPIN))
    text = text.replace("    float drive:rotZ:physics:stiffness = 5\n    float drive:rotZ:physics:damping = 1\n",
                        "".join(f"    float state:{a}:physics:velocity = {w}\n" for a, w in SPIN.items()))
    path = tmp_path / "d6_ball_reversed.usda"
    path.write_text(text)
    return str(path)


def test_free_rotations_turn_as_a_ball_first_when_reversed(tmp_path):
    """The D6's free, unlimited, undriven rotations are one ball joint, turned before the
    translations when body0 is the child ((T R)^-1 = R^T T^-1). Oracles: the joint's definition
    (the start state's forward kinematics gives back the authored poses) and the authored joint
    velocities (body1's angular velocity relative to body0, in body1's joint frame)."""
    from usdjoints.model.kinematics import dof_world_twists, link_world_poses

    model = load_model(_ball_stage(tmp_path, BALL_VALUES))
    j = model.joint_index("/D6")
    assert model.joint_dof_axes[j] == ("rotXYZ",) + tuple(reversed(BALL_FREE))
    assert int(model.joint_nv[j]) == 5
    q = np.array(model.q_initial)
    F0 = _body(model, q, "/A") @ _pose(*LOCAL0)
    F1 = _body(model, q, "/B") @ _pose(*LOCAL1)
    np.testing.assert_allclose(np.linalg.inv(F0) @ F1, _d6_motion(BALL_VALUES), atol=1e-6)  # float32 frames
    R, p = link_world_poses(model, q)
    twists = dof_world_twists(model, R, p)
    spin_a = twists[model.v_slice("/D6"), :3].T @ np.asarray(model.qd_initial)[model.v_slice("/D6")]
    relative = F1[:3, :3].T @ -spin_a  # B is welded: body1's turning relative to body0 is -A's
    np.testing.assert_allclose(relative, np.radians(list(SPIN.values())), atol=1e-6)
