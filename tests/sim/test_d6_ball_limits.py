"""A D6 joint whose three rotations are free, with some of them limited or driven: one ball joint
whose per-axis limits and drives act on the components of its rotation vector, as PhysX reads a
spherical articulation joint (PxArticulationJointType::eSPHERICAL: a position per motion axis, the
rotation vector projected on it).

Oracles: ovphysx 0.7 on the same stage (an arm on a D6 ball under gravity, rotY limited to
[-30, 20] deg, rotZ driven to 25 deg, every rotation lightly damped). Measured, joint positions
[deg] (rotX, rotY, rotZ):

    t = 0.1 s   PhysX (-1.041, 4.369, 4.186)     usdjoints (-1.045, 4.402, 4.242)
    t = 0.2 s   PhysX (-3.588, 15.394, 13.541)   usdjoints (-3.590, 15.437, 13.630)
    t = 0.5 s   PhysX (-18.689, 19.948, 36.387)  usdjoints (-18.613, 19.989, 36.624)
    t = 1.0 s   PhysX (-41.755, 19.975, 30.904)  usdjoints (-41.549, 19.994, 31.765)

The arm reaches the rotY limit near 0.22 s and swings about rotX on it. Three hinges rotX, rotY,
rotZ in a row (the model before) read other coordinates once two rotations are large.

PhysX's spherical joint stalls when it turns slowly (a damped arm creeping at 0.017 rad/s kept
its pose for 2 s, and a drive settling below 0.03 rad/s stopped 0.45 deg short of its target:
its float32 quaternion cannot hold the step's turn), so the comparison is made while it moves.

A joint that starts 20 deg outside its rotY limit, at rest without gravity, is brought back by
PhysX in its first step to (-46.9228, 17.4473, 17.0785) deg and stays there at rest; usdjoints
lands on the same pose to 1e-3 deg, whichever body is the child in the tree (the values are kept
here, and checked against ovphysx again where it is installed).

Without PhysX: the joint's definition. The rotation of body1's joint frame in body0's, read from
the bodies' poses, keeps its rotation vector's rotY component within the limit (to 0.5 deg) with
a drive pushing past it at its maximum force, whichever body is the child in the tree and
whether or not the joint frames are turned on the bodies.
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from usdjoints.model.build import load_model
from usdjoints.model.rotation import quat_to_matrix, matrix_to_quat, quat_to_rotation_vector
from usdjoints.sim import api

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "oracle"))
from ovphysx_runner import ovphysx_available, run_ovphysx_probe  # noqa: E402

DT = 1e-3
LOW, HIGH = -30.0, 20.0  # rotY limit [deg]
LOCAL0 = ((0.1, 0.0, 0.3), (0.9238795, 0.0, 0.0, 0.3826834))  # the joint frame on body0 (Base)
LOCAL1 = ((-0.2, 0.05, 0.0), (0.9659258, 0.2588190, 0.0, 0.0))  # the joint frame on body1 (Arm)


def _stage(tmp_path, drives: str, *, reversed_: bool = False, gravity: float = 9.81, state: str = "",
           frames: bool = False) -> Path:
    """Base welded to the world, Arm on a D6 whose translations are locked and rotations free,
    rotY limited to [LOW, HIGH]; ``drives`` authors drive attributes (their API schemas are
    added from the names), ``state`` joint-state attributes. ``reversed_`` makes the Arm body0
    (the child in the tree is then body0); ``frames`` places the joint with LOCAL0/LOCAL1."""
    names = sorted({line.split(":")[1] for line in drives.split("\n") if line.strip()})
    states = sorted({line.split(":")[1] for line in state.split("\n") if line.strip()})
    schemas = ", ".join([f'"PhysicsLimitAPI:{a}"' for a in ("transX", "transY", "transZ", "rotY")]
                        + [f'"PhysicsDriveAPI:{a}"' for a in names] + [f'"PhysicsJointStateAPI:{a}"' for a in states])
    body0, body1 = ("/Robot/Arm", "/Robot/Base") if reversed_ else ("/Robot/Base", "/Robot/Arm")
    locals_ = ""
    if frames:
        (p0, r0), (p1, r1) = (LOCAL1, LOCAL0) if reversed_ else (LOCAL0, LOCAL1)
        locals_ = (f"        point3f physics:localPos0 = {p0}\n        quatf physics:localRot0 = {r0}\n"
                   f"        point3f physics:localPos1 = {p1}\n        quatf physics:localRot1 = {r1}\n")
    arm_pose = ""
    if frames:  # the Arm placed so that the joint starts at the identity
        T0, T1 = _pose(*LOCAL0), _pose(*LOCAL1)
        A = T0 @ np.linalg.inv(T1)
        w, x, y, z = (float(c) for c in matrix_to_quat(A[:3, :3]))
        arm_pose = (f"        double3 xformOp:translate = ({float(A[0, 3])!r}, {float(A[1, 3])!r}, {float(A[2, 3])!r})\n"
                    f"        quatd xformOp:orient = ({w!r}, {x!r}, {y!r}, {z!r})\n"
                    '        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:orient"]\n')
    text = f"""#usda 1.0
(
    metersPerUnit = 1
    kilogramsPerUnit = 1
    upAxis = "Z"
)
def PhysicsScene "scene"
{{
    float physics:gravityMagnitude = {gravity}
}}
def Xform "Robot" (prepend apiSchemas = ["PhysicsArticulationRootAPI", "PhysxArticulationAPI"])
{{
    float physxArticulation:sleepThreshold = 0
    float physxArticulation:stabilizationThreshold = 0
    def PhysicsFixedJoint "Anchor"
    {{
        rel physics:body1 = </Robot/Base>
    }}
    def Xform "Base" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI", "PhysxRigidBodyAPI"])
    {{
        float physics:mass = 1
        float3 physics:diagonalInertia = (0.01, 0.01, 0.01)
        float physxRigidBody:angularDamping = 0
        float physxRigidBody:linearDamping = 0
    }}
    def Xform "Arm" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI", "PhysxRigidBodyAPI"])
    {{
        float physics:mass = 1
        float3 physics:diagonalInertia = (0.01, 0.02, 0.03)
        point3f physics:centerOfMass = (0.5, 0.1, 0)
        float physxRigidBody:angularDamping = 0
        float physxRigidBody:linearDamping = 0
{arm_pose}    }}
    def PhysicsJoint "Ball" (prepend apiSchemas = [{schemas}])
    {{
        rel physics:body0 = <{body0}>
        rel physics:body1 = <{body1}>
{locals_}        float limit:transX:physics:low = 1
        float limit:transX:physics:high = -1
        float limit:transY:physics:low = 1
        float limit:transY:physics:high = -1
        float limit:transZ:physics:low = 1
        float limit:transZ:physics:high = -1
        float limit:rotY:physics:low = {LOW}
        float limit:rotY:physics:high = {HIGH}
{drives}{state}    }}
}}
"""
    path = tmp_path / f"d6_ball{'_reversed' if reversed_ else ''}.usda"
    path.write_text(text)
    return path


PHYSX_DRIVES = """        float drive:rotX:physics:damping = 0.02
        float drive:rotY:physics:damping = 0.02
        float drive:rotZ:physics:stiffness = 0.2
        float drive:rotZ:physics:damping = 0.02
        float drive:rotZ:physics:targetPosition = 25
"""
# rotY pushed towards 80 deg at up to 200 N m, ten times gravity's torque on the arm
PUSH = """        float drive:rotY:physics:stiffness = 50
        float drive:rotY:physics:damping = 1
        float drive:rotY:physics:maxForce = 200
        float drive:rotY:physics:targetPosition = 80
        float drive:rotZ:physics:damping = 0.05
        float drive:rotX:physics:damping = 0.05
"""


def _pose(position, quat) -> np.ndarray:
    T = np.eye(4)
    T[:3, :3] = quat_to_matrix(np.array(quat, dtype=float))
    T[:3, 3] = position
    return T


def _joint_rotation_vectors(model, body_poses, *, reversed_: bool, frames: bool) -> np.ndarray:
    """[n, 3] rotation vectors [deg] of body1's joint frame in body0's, from the body poses
    [n, nbody, 7]."""
    base, arm = model.body_names.index("/Robot/Base"), model.body_names.index("/Robot/Arm")
    L0, L1 = (_pose(*LOCAL0), _pose(*LOCAL1)) if frames else (np.eye(4), np.eye(4))
    out = []
    for pose in body_poses:
        T = {}
        for b in (base, arm):
            T[b] = _pose(pose[b, :3], pose[b, 3:])
        body0, body1 = (arm, base) if reversed_ else (base, arm)
        F0 = T[body0] @ (L1 if reversed_ else L0) if frames else T[body0]
        F1 = T[body1] @ (L0 if reversed_ else L1) if frames else T[body1]
        R = (np.linalg.inv(F0) @ F1)[:3, :3]
        out.append(np.degrees(quat_to_rotation_vector(matrix_to_quat(R))))
    return np.array(out)


def test_physx_and_usdjoints_agree_while_the_arm_moves(tmp_path):
    if not ovphysx_available():
        pytest.skip("ovphysx is not installed")
    path = _stage(tmp_path, PHYSX_DRIVES)
    model = load_model(str(path))
    assert model.joint_dof_axes == (("rotXYZ",),)
    trajectory = api.simulate(model, 0.5, DT, record_every=100)
    ours = np.array([model.dof_positions(q)[1] for q in trajectory.q])
    for t in (0.1, 0.5):
        report = run_ovphysx_probe(path, steps=int(round(t / DT)), dt=DT)
        theirs = [d["position"] for d in report["joints"]["/Robot/Ball"]["dofs"]]
        np.testing.assert_allclose(ours[int(round(t / 0.1))], theirs, atol=1e-2, err_msg=f"t = {t} s")
    assert np.degrees(ours[:, 1]).max() <= HIGH + 0.5


@pytest.mark.parametrize("reversed_", [False, True], ids=["body1-child", "body0-child"])
@pytest.mark.parametrize("frames", [False, True], ids=["identity-frames", "turned-frames"])
def test_limit_holds_against_the_drive_at_its_maximum_force(tmp_path, reversed_, frames):
    path = _stage(tmp_path, PUSH, reversed_=reversed_, frames=frames)
    model = load_model(str(path))
    trajectory = api.simulate(model, 2.0, DT, record_every=5)
    angles = _joint_rotation_vectors(model, trajectory.body_poses, reversed_=reversed_, frames=frames)
    assert angles[:, 1].max() <= HIGH + 0.5
    assert angles[:, 1].min() >= LOW - 0.5
    assert angles[-1, 1] == pytest.approx(HIGH, abs=0.5)  # the drive holds it on the limit


# ovphysx 0.7 after one 1 ms step from rotY = 40 deg at rest, no gravity: (rotX, rotY, rotZ)
# [deg] as it reports them, with body0 the Base (rotZ +17.0785) or the Arm (rotZ -17.0785), and
# the joint at rest there for the next steps. The correction is the smallest in the arm's inertia
# that brings the rotY component onto the limit to first order: it turns the arm about all three
# axes, and the rotation vector's rotY lands at 17.45 deg, inside the limit.
PHYSX_AFTER_ONE_STEP = (-46.9228, 17.4473, 17.0785)
START_STATE = "        float state:rotY:physics:position = 40\n        float state:rotY:physics:velocity = 0\n"


@pytest.mark.parametrize("reversed_", [False, True], ids=["body1-child", "body0-child"])
def test_start_outside_the_limit_comes_back_as_physx_brings_it(tmp_path, reversed_):
    path = _stage(tmp_path, "", reversed_=reversed_, gravity=0.0, state=START_STATE)
    model = load_model(str(path))
    start = np.concatenate(api.forward_kinematics(model, model.q_initial), axis=1)[None]
    np.testing.assert_allclose(_joint_rotation_vectors(model, start, reversed_=reversed_, frames=False)[0],
                               (0.0, 40.0, 0.0), atol=1e-4)
    trajectory = api.simulate(model, 0.2, DT, record_every=1)
    angles = _joint_rotation_vectors(model, trajectory.body_poses, reversed_=reversed_, frames=False)
    rx, ry, rz = PHYSX_AFTER_ONE_STEP
    expected = (rx, ry, -rz if reversed_ else rz)
    np.testing.assert_allclose(angles[1:], np.broadcast_to(expected, angles[1:].shape), atol=1e-3)
    assert np.degrees(np.abs(trajectory.qd[1:])).max() < 1e-6  # at rest: nothing kept from the correction
    if ovphysx_available():
        dofs = run_ovphysx_probe(path, steps=1, dt=DT)["joints"]["/Robot/Ball"]["dofs"]
        np.testing.assert_allclose([math.degrees(d["position"]) for d in dofs], expected, atol=1e-3)


# ovphysx 0.7 starts the D6 ball with these PhysicsJointStateAPI positions [deg] on the rotation
# whose rotation vector they are (the Arm's orientation (0.85061, 0.24863, -0.20719, 0.41438)),
# and reports them back as its three positions.
STATES = (30.0, -25.0, 50.0)


@pytest.mark.parametrize("reversed_", [False, True], ids=["body1-child", "body0-child"])
def test_joint_state_positions_are_the_rotation_vector(tmp_path, reversed_):
    state = "".join(f"        float state:{a}:physics:position = {v}\n"
                    for a, v in zip(("rotX", "rotY", "rotZ"), STATES))
    path = _stage(tmp_path, "", reversed_=reversed_, gravity=0.0, state=state)
    path.write_text(path.read_text().replace(f"low = {LOW}", "low = -90").replace(f"high = {HIGH}", "high = 90"))
    model = load_model(str(path))
    start = np.concatenate(api.forward_kinematics(model, model.q_initial), axis=1)[None]
    np.testing.assert_allclose(_joint_rotation_vectors(model, start, reversed_=reversed_, frames=False)[0],
                               STATES, atol=1e-4)
    if not reversed_:
        arm = start[0, model.body_names.index("/Robot/Arm"), 3:]
        np.testing.assert_allclose(arm, (0.85061, 0.24863, -0.20719, 0.41438), atol=1e-5)
    if ovphysx_available():
        dofs = run_ovphysx_probe(path, steps=0, dt=DT)["joints"]["/Robot/Ball"]["dofs"]
        np.testing.assert_allclose([math.degrees(d["position"]) for d in dofs], STATES, atol=1e-3)


def test_a_mimicked_rotation_keeps_the_d6_on_hinges(tmp_path):
    """A PhysxMimicJointAPI names the D6's rotX: a coupling row holds scalar coordinates, so this
    D6 keeps rotX, rotY, rotZ as hinges, and the coupling holds (q_rotX = -gearing q_leader -
    offset, PhysX's reading, here q_rotX = q_leader) along the run."""
    path = _stage(tmp_path, "")
    text = path.read_text()
    text = text.replace('"PhysicsLimitAPI:rotY"]', '"PhysicsLimitAPI:rotY", "PhysxMimicJointAPI:rotX"]')
    text = text.replace(f"        float limit:rotY:physics:high = {HIGH}\n",
                        f"        float limit:rotY:physics:high = {HIGH}\n"
                        "        float physxMimicJoint:rotX:gearing = -1\n"
                        "        float physxMimicJoint:rotX:offset = 0\n"
                        "        rel physxMimicJoint:rotX:referenceJoint = </Robot/Hinge>\n"
                        '        uniform token physxMimicJoint:rotX:referenceJointAxis = "rotX"\n')
    leader = """    def Xform "Leader" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
    {
        float physics:mass = 1
        float3 physics:diagonalInertia = (0.02, 0.02, 0.02)
        point3f physics:centerOfMass = (0, 0.3, 0)
    }
    def PhysicsRevoluteJoint "Hinge" (prepend apiSchemas = ["PhysicsDriveAPI:angular"])
    {
        uniform token physics:axis = "X"
        rel physics:body0 = </Robot/Base>
        rel physics:body1 = </Robot/Leader>
        float drive:angular:physics:stiffness = 2
        float drive:angular:physics:damping = 0.1
        float drive:angular:physics:targetPosition = 30
    }
}
"""
    text = text[:text.rstrip().rfind("}")] + leader
    path.write_text(text)
    model = load_model(str(path))
    j = model.joint_index("/Robot/Ball")
    assert model.joint_dof_axes[j] == ("rotX", "rotY", "rotZ")
    assert model.coupling_names == ("/Robot/Ball:rotX",)
    trajectory = api.simulate(model, 1.0, DT, record_every=10)
    follower = trajectory.q[:, model.q_slice("/Robot/Ball").start]
    leader_q = trajectory.q[:, model.q_slice("/Robot/Hinge").start]
    assert np.abs(leader_q).max() > 0.1  # the leader moves
    np.testing.assert_allclose(follower, leader_q, atol=1e-6)
