"""example-robot-data URDFs converted to USD agree with pinocchio's reading of the same URDFs.

Oracle: pinocchio (pin.buildModelFromUrdf) forward kinematics, joint Jacobians (world axes),
limits and inertias. The USD side is read by OpenUSD's parser and UsdGeom.XformCache and composed
in numpy (tests/convert/usd_kinematics.py), sharing no code with the converter.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from pxr import Usd, UsdGeom, UsdPhysics

from samples import robots_dir
from usdjoints.convert import convert_urdf
from usdjoints.convert.usd_writer import MASSLESS_MASS

from usd_kinematics import compose_world_poses, read_physics, rotation_angle, world_axis

pin = pytest.importorskip("pinocchio")
pytestmark = pytest.mark.oracle

# Positions: body poses are doubles, joint frames float32 (~6e-8 relative) over chains of ~10
# joints and ~1 m, so 1e-6 m and 1e-5 rad hold with margin.
POSITION_TOL = 1e-6
ANGLE_TOL = 1e-5

ROBOTS = {
    "double_pendulum": "double_pendulum_description/urdf/double_pendulum.urdf",
    "ur5": "ur_description/urdf/ur5_robot.urdf",
    "panda": "panda_description/urdf/panda.urdf",  # mimic fingers
    "solo12": "solo_description/robots/solo12.urdf",  # floating base
    "anymal": "anymal_b_simple_description/robots/anymal.urdf",
    "hyq": "hyq_description/robots/hyq_no_sensors.urdf",
    "allegro_left_hand": "allegro_hand_description/urdf/allegro_left_hand.urdf",  # negative axes
    "romeo_small": "romeo_description/urdf/romeo_small.urdf",  # humanoid
    "talos_full_v2": "talos_data/robots/talos_full_v2.urdf",  # humanoid, tilted and negative axes, mimic
}


@pytest.fixture(scope="module", params=sorted(ROBOTS))
def robot(request, tmp_path_factory):
    urdf = robots_dir() / ROBOTS[request.param]
    out = tmp_path_factory.mktemp(request.param) / f"{request.param}.usdc"
    report = convert_urdf(urdf, out)
    stage = Usd.Stage.Open(str(out))
    root_joint = () if report.fixed_base else (pin.JointModelFreeFlyer(),)
    model = pin.buildModelFromUrdf(str(urdf), *root_joint)
    prims = {}
    for prim in stage.Traverse():
        if prim.HasAPI(UsdPhysics.RigidBodyAPI) or prim.IsA(UsdPhysics.Joint):
            prims[(prim.IsA(UsdPhysics.Joint), prim.GetDisplayName() or prim.GetName())] = str(prim.GetPath())
    return {"name": request.param, "report": report, "stage": stage, "physics": read_physics(stage),
            "model": model, "body": {k[1]: v for k, v in prims.items() if not k[0]},
            "joint": {k[1]: v for k, v in prims.items() if k[0]}}


def _joint_positions(robot, q) -> dict[str, float]:
    model, positions = robot["model"], {}
    for i in range(1, model.njoints):
        joint, name = model.joints[i], model.names[i]
        if name not in robot["joint"]:
            continue
        if joint.nq == 1:
            positions[robot["joint"][name]] = float(q[joint.idx_q])
        elif joint.nq == 2:  # continuous: (cos, sin)
            positions[robot["joint"][name]] = math.atan2(q[joint.idx_q + 1], q[joint.idx_q])
    return positions


def _body_frames(robot):
    model = robot["model"]
    return {f.name: i for i, f in enumerate(model.frames) if f.type == pin.FrameType.BODY and f.name in robot["body"]}


def test_one_articulation_with_the_urdf_joints(robot):
    """OpenUSD's parser finds one articulation holding every body, and the URDF's joint count."""
    physics, model = robot["physics"], robot["model"]
    assert len(physics["articulations"]) == 1
    urdf_joints = {f.name for f in model.frames if f.type == pin.FrameType.FIXED_JOINT}
    urdf_joints |= {n for n in model.names[1:] if n != "root_joint"}
    urdf_joints -= {"universe"}
    assert set(robot["joint"]) == urdf_joints
    assert robot["report"].joint_count == len(urdf_joints)


def test_zero_pose_matches_pinocchio(robot):
    """UsdGeom.XformCache link transforms at q = 0 equal pinocchio's FK at the neutral configuration."""
    model = robot["model"]
    data = model.createData()
    q = pin.neutral(model)
    pin.framesForwardKinematics(model, data, q)
    cache = UsdGeom.XformCache()
    frames = _body_frames(robot)
    assert len(frames) == len(robot["body"])
    for name, frame in frames.items():
        world = np.array(cache.GetLocalToWorldTransform(robot["stage"].GetPrimAtPath(robot["body"][name]))).T
        expected = data.oMf[frame].homogeneous
        assert np.allclose(world[:3, 3], expected[:3, 3], atol=POSITION_TOL), name
        assert rotation_angle(world, expected) < ANGLE_TOL, name


@pytest.mark.parametrize("seed", [0, 1])
def test_random_configuration_poses_and_axes_match_pinocchio(robot, seed):
    """Rotating each child about the written X axis by q reproduces pinocchio FK and world axes."""
    model = robot["model"]
    data = model.createData()
    np.random.seed(seed)  # pin.randomConfiguration draws from numpy's global generator
    lower, upper = model.lowerPositionLimit.copy(), model.upperPositionLimit.copy()
    with np.errstate(over="ignore", invalid="ignore"):  # +-DBL_MAX marks "unlimited" in pinocchio
        finite = np.isfinite(lower) & np.isfinite(upper) & (upper - lower < 20)
    lower[~finite], upper[~finite] = -1.0, 1.0
    q = pin.randomConfiguration(model, lower, upper)
    pin.framesForwardKinematics(model, data, q)
    pin.computeJointJacobians(model, data, q)
    frames = _body_frames(robot)
    physics = robot["physics"]
    root_frames = {name: f for name, f in frames.items()
                   if not any(j["body1"] == robot["body"][name] for j in physics["joints"].values())}
    roots = {robot["body"][n]: data.oMf[f].homogeneous for n, f in root_frames.items()}
    poses = compose_world_poses(physics, _joint_positions(robot, q), roots)
    for name, frame in frames.items():
        expected = data.oMf[frame].homogeneous
        assert np.allclose(poses[robot["body"][name]][:3, 3], expected[:3, 3], atol=POSITION_TOL), name
        assert rotation_angle(poses[robot["body"][name]], expected) < ANGLE_TOL, name
    for i in range(1, model.njoints):
        name, joint = model.names[i], model.joints[i]
        if name not in robot["joint"] or joint.nv != 1:
            continue
        column = pin.getJointJacobian(model, data, i, pin.LOCAL_WORLD_ALIGNED)[:, joint.idx_v]
        usd_joint = physics["joints"][robot["joint"][name]]
        expected_axis = column[3:] if usd_joint["type"] == "revolute" else column[:3]
        assert np.allclose(world_axis(physics, poses, robot["joint"][name]), expected_axis, atol=ANGLE_TOL), name


def test_limits_efforts_velocities_match_pinocchio(robot):
    """Limits [deg or m], drive max force and maxJointVelocity [deg/s or m/s] equal pinocchio's URDF values."""
    model, stage, physics = robot["model"], robot["stage"], robot["physics"]
    for i in range(1, model.njoints):
        name, joint = model.names[i], model.joints[i]
        if name not in robot["joint"] or joint.nq != 1:
            continue
        usd = physics["joints"][robot["joint"][name]]
        angular = usd["type"] == "revolute"
        scale = 180.0 / math.pi if angular else 1.0
        _, low, high = usd["limit"]
        assert low == pytest.approx(model.lowerPositionLimit[joint.idx_q] * scale, rel=1e-6, abs=1e-6), name
        assert high == pytest.approx(model.upperPositionLimit[joint.idx_q] * scale, rel=1e-6, abs=1e-6), name
        effort = model.effortLimit[joint.idx_v]
        if effort > 0:
            assert usd["drive"].forceLimit == pytest.approx(effort, rel=1e-6), name
        velocity = model.velocityLimit[joint.idx_v]
        attribute = stage.GetPrimAtPath(robot["joint"][name]).GetAttribute(
            f"physxJointAxis:{'angular' if angular else 'linear'}:maxJointVelocity")
        if velocity > 0:
            assert attribute.Get() == pytest.approx(velocity * scale, rel=1e-6), name


def test_mass_properties_match_pinocchio(robot):
    """Per pinocchio joint, the USD bodies it carries sum to pinocchio's inertia (mass, CoM, tensor)."""
    model, stage = robot["model"], robot["stage"]
    data = model.createData()
    pin.forwardKinematics(model, data, pin.neutral(model))
    cache = UsdGeom.XformCache()
    groups: dict[int, list[str]] = {}
    for name, frame in _body_frames(robot).items():
        groups.setdefault(model.frames[frame].parentJoint, []).append(robot["body"][name])
    checked = 0
    for joint, paths in groups.items():
        apis = [UsdPhysics.MassAPI(stage.GetPrimAtPath(p)) for p in paths]
        if joint == 0 or any(api.GetMassAttr().Get() == pytest.approx(MASSLESS_MASS) for api in apis):
            continue  # massless links are written with a token mass by choice (reported)
        total, moment = 0.0, np.zeros(3)
        parts = []
        for path, api in zip(paths, apis):
            world = np.array(cache.GetLocalToWorldTransform(stage.GetPrimAtPath(path))).T
            com = world[:3, :3] @ np.array(api.GetCenterOfMassAttr().Get()) + world[:3, 3]
            mass = api.GetMassAttr().Get()
            if api.GetDiagonalInertiaAttr().HasAuthoredValue():
                q = api.GetPrincipalAxesAttr().Get()
                axes = world[:3, :3] @ _quat_matrix((q.GetReal(), *q.GetImaginary()))
                parts.append((mass, com, axes @ np.diag(api.GetDiagonalInertiaAttr().Get()) @ axes.T))
            else:  # the source's inertia is all zero: left to the consumers (reported)
                parts.append((mass, com, np.zeros((3, 3))))
            total += mass
            moment += mass * com
        com = moment / total
        inertia = sum(i + m * (np.dot(c - com, c - com) * np.eye(3) - np.outer(c - com, c - com)) for m, c, i in parts)
        expected = model.inertias[joint]
        placement = data.oMi[joint]
        # float32 storage of masses, CoMs and moments: ~1e-7 relative
        assert total == pytest.approx(expected.mass, rel=1e-6)
        assert np.allclose(com, placement.act(expected.lever), atol=1e-6)
        rotation = placement.rotation
        assert np.allclose(inertia, rotation @ expected.inertia @ rotation.T, atol=1e-6 * max(1.0, np.abs(inertia).max()))
        checked += 1
    assert checked > 0


def _quat_matrix(q):
    from usd_kinematics import quat_matrix

    return quat_matrix(q)
