"""The converted hand-made robot as OpenUSD's parser reads it, checked against the URDF by hand.

Oracles: OpenUSD's physics parser (UsdPhysics.LoadUsdPhysicsFromRange) reads the output; the
expected frames come from a closed-form URDF forward kinematics written below in numpy
(R = Rz(yaw)·Ry(pitch)·Rx(roll), child frame = parent · origin · motion about the axis).
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from pxr import Usd, UsdPhysics

from usdjoints.convert import convert_urdf
from usdjoints.convert.report import EntryKind

from usd_kinematics import compose_world_poses, read_physics, rotation_angle, transform, world_axis

DATA = Path(__file__).resolve().parents[1] / "data" / "urdf"
EVERY_JOINT = DATA / "every_joint.urdf"
# float32 attributes (localPos/Rot are float3/quatf): ~1e-7 relative, compounded over 5 joints
FRAME_TOL = 2e-6


def rpy_matrix(r, p, y):
    rx = np.array([[1, 0, 0], [0, math.cos(r), -math.sin(r)], [0, math.sin(r), math.cos(r)]])
    ry = np.array([[math.cos(p), 0, math.sin(p)], [0, 1, 0], [-math.sin(p), 0, math.cos(p)]])
    rz = np.array([[math.cos(y), -math.sin(y), 0], [math.sin(y), math.cos(y), 0], [0, 0, 1]])
    return rz @ ry @ rx


def origin(xyz, rpy):
    m = np.eye(4)
    m[:3, :3] = rpy_matrix(*rpy)
    m[:3, 3] = xyz
    return m


def axis_motion(axis, q, prismatic=False):
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    m = np.eye(4)
    if prismatic:
        m[:3, 3] = axis * q
        return m
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    m[:3, :3] = np.eye(3) + math.sin(q) * k + (1 - math.cos(q)) * k @ k
    return m


# every_joint.urdf, restated: joint -> (parent, child, origin xyz, rpy, axis, prismatic)
CHAIN = {
    "shoulder": ("base", "arm", (0.1, 0.0, 0.2), (0.1, 0.2, 0.3), (0.3, -0.5, 0.8), False),
    "elbow_slide": ("arm", "slider", (0.3, 0, 0), (0, 0, 1.5707963), (0, 0, -1), True),
    "wrist": ("slider", "wheel", (0, 0.05, 0), (-0.4, 0, 0), (-1, 0, 0), False),
    "finger_joint": ("wheel", "finger", (0.02, 0, 0.01), (0, 0, 0), (0, 1, 0), False),
    "tool": ("finger", "tool frame", (0, 0, 0.04), (3.14159, 0, 0), None, False),
}


def urdf_fk(q: dict) -> tuple[dict, dict]:
    poses, axes = {"base": np.eye(4)}, {}
    for name, (parent, child, xyz, rpy, axis, prismatic) in CHAIN.items():
        joint_frame = poses[parent] @ origin(xyz, rpy)
        if axis is not None:
            axes[name] = joint_frame[:3, :3] @ (np.asarray(axis) / np.linalg.norm(axis))
        motion = np.eye(4) if axis is None else axis_motion(axis, q.get(name, 0.0), prismatic)
        poses[child] = joint_frame @ motion
    return poses, axes


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    out = tmp_path_factory.mktemp("every") / "every_joint.usda"
    report = convert_urdf(EVERY_JOINT, out)
    stage = Usd.Stage.Open(str(out))
    return report, stage, read_physics(stage)


def _body(name):
    return f"/every_joint/{name.replace(' ', '_')}"


def test_joint_types_and_body_pairs(converted):
    """The parser sees each URDF joint with its type and (parent, child) as (body0, body1)."""
    _, _, physics = converted
    expected = {"shoulder": "revolute", "elbow_slide": "prismatic", "wrist": "revolute",
                "finger_joint": "revolute", "tool": "fixed"}
    joints = physics["joints"]
    assert {p.rsplit("/", 1)[1]: j["type"] for p, j in joints.items()} == expected
    for name, (parent, child, *_rest) in CHAIN.items():
        joint = joints[f"/every_joint/joints/{name}"]
        assert (joint["body0"], joint["body1"]) == (_body(parent), _body(child))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_world_poses_and_axes_match_closed_form_fk(converted, seed):
    """Composing the written frames at random q equals URDF forward kinematics; axes keep their sign."""
    _, _, physics = converted
    rng = np.random.default_rng(seed)
    q = {name: float(rng.uniform(-1, 1)) for name in CHAIN if name != "tool"}
    expected, expected_axes = urdf_fk(q)
    positions = {f"/every_joint/joints/{n}": v for n, v in q.items()}
    poses = compose_world_poses(physics, positions, {_body("base"): physics["bodies"][_body("base")]})
    for link, pose in expected.items():
        got = poses[_body(link)]
        assert np.allclose(got[:3, 3], pose[:3, 3], atol=FRAME_TOL), link
        assert rotation_angle(got, pose) < FRAME_TOL, link
    for name, axis in expected_axes.items():
        assert np.allclose(world_axis(physics, poses, f"/every_joint/joints/{name}"), axis, atol=FRAME_TOL), name


def test_bodies_sit_at_zero_pose_and_joint_frames_coincide(converted):
    """Each body's authored pose is its q = 0 pose, so body0·local0 = body1·local1 for every joint."""
    _, _, physics = converted
    expected, _ = urdf_fk({})
    for link, pose in expected.items():
        assert np.allclose(physics["bodies"][_body(link)], pose, atol=FRAME_TOL), link
    for path, joint in physics["joints"].items():
        world0 = physics["bodies"][joint["body0"]] @ joint["local0"]
        world1 = physics["bodies"][joint["body1"]] @ joint["local1"]
        assert np.allclose(world0[:3, 3], world1[:3, 3], atol=FRAME_TOL), path
        assert rotation_angle(world0, world1) < FRAME_TOL, path


def test_limits_drives_and_axis_data_in_usd_units(converted):
    """Limits [deg] or [m]; drive max force = effort; velocity [deg/s]; damping per degree."""
    _, stage, physics = converted
    shoulder = physics["joints"]["/every_joint/joints/shoulder"]
    enabled, low, high = shoulder["limit"]
    assert enabled and low == pytest.approx(math.degrees(-1.5), rel=1e-6) and high == pytest.approx(math.degrees(1.0), rel=1e-6)
    assert shoulder["drive"].forceLimit == pytest.approx(40.0)
    # default gain: effort / velocity = 20 N·m·s/rad, stored per degree
    assert shoulder["drive"].damping == pytest.approx(20.0 * math.pi / 180.0, rel=1e-6)
    slide = physics["joints"]["/every_joint/joints/elbow_slide"]
    assert slide["limit"][1:] == pytest.approx((-0.1, 0.25), rel=1e-6)
    wrist = physics["joints"]["/every_joint/joints/wrist"]
    assert not wrist["limit"][0]  # continuous: both bounds infinite, the parser disables the limit
    prim = stage.GetPrimAtPath("/every_joint/joints/shoulder")
    assert prim.GetAttribute("physxJointAxis:angular:maxJointVelocity").Get() == pytest.approx(math.degrees(2.0), rel=1e-6)
    assert prim.GetAttribute("physxJointAxis:angular:viscousFrictionCoefficient").Get() == pytest.approx(0.7 * math.pi / 180, rel=1e-6)
    assert prim.GetAttribute("physxJointAxis:angular:staticFrictionEffort").Get() == pytest.approx(0.2)
    assert prim.GetCustomDataByKey("urdf:safety_controller")["k_position"] == 10.0
    slide_prim = stage.GetPrimAtPath("/every_joint/joints/elbow_slide")
    assert slide_prim.GetAttribute("physxJointAxis:linear:viscousFrictionCoefficient").Get() == pytest.approx(3.0)


def test_mimic_gearing_and_offset_follow_physx_convention(converted):
    """q_f = m·q_r + o (URDF) <=> q_f + gearing·q_r + offset = 0 with offset in degrees (PhysX)."""
    _, stage, _ = converted
    prim = stage.GetPrimAtPath("/every_joint/joints/finger_joint")
    assert prim.HasAPI("PhysxMimicJointAPI", "rotX")
    assert prim.GetAttribute("physxMimicJoint:rotX:gearing").Get() == pytest.approx(0.5)
    assert prim.GetAttribute("physxMimicJoint:rotX:offset").Get() == pytest.approx(-math.degrees(0.1), rel=1e-6)
    assert prim.GetRelationship("physxMimicJoint:rotX:referenceJoint").GetTargets()[0].name == "wrist"


def test_mass_properties_reproduce_the_inertia_tensor(converted):
    """diag and principal axes rebuild R_origin · I · R_originᵀ (the URDF tensor in the link frame)."""
    _, stage, _ = converted
    mass = UsdPhysics.MassAPI(stage.GetPrimAtPath("/every_joint/base"))
    assert mass.GetMassAttr().Get() == pytest.approx(2.0)
    assert np.allclose(mass.GetCenterOfMassAttr().Get(), (0.01, 0.02, 0.03), atol=1e-7)
    q = mass.GetPrincipalAxesAttr().Get()
    axes = transform((0, 0, 0), (q.GetReal(), *q.GetImaginary()))[:3, :3]
    assert np.linalg.det(axes) == pytest.approx(1.0)
    tensor = np.array([[0.02, 0.001, -0.002], [0.001, 0.03, 0.0015], [-0.002, 0.0015, 0.04]])
    r = rpy_matrix(0.3, -0.2, 0.1)
    rebuilt = axes @ np.diag(mass.GetDiagonalInertiaAttr().Get()) @ axes.T
    assert np.allclose(rebuilt, r @ tensor @ r.T, atol=1e-8)  # float32 storage of values ~0.03


def test_structure_names_units_and_report(converted):
    """Flat bodies, one articulation root, sanitised names with displayName, SI Z-up, report lines."""
    report, stage, physics = converted
    assert stage.GetMetadata("metersPerUnit") == 1.0 and stage.GetMetadata("upAxis") == "Z"
    assert stage.GetMetadata("kilogramsPerUnit") == 1.0
    bodies = [p for p in stage.Traverse() if p.HasAPI(UsdPhysics.RigidBodyAPI)]
    assert all(p.GetParent().GetPath() == stage.GetDefaultPrim().GetPath() for p in bodies)
    roots = [p for p in stage.Traverse() if p.HasAPI(UsdPhysics.ArticulationRootAPI)]
    assert [str(p.GetPath()) for p in roots] == ["/every_joint/base"] and not report.fixed_base
    assert stage.GetPrimAtPath("/every_joint/tool_frame").GetDisplayName() == "tool frame"
    assert len(physics["articulations"]) == 1
    dropped = [e for e in report.dropped if e.element == "<transmission>"]
    assert dropped and dropped[0].where.endswith("every_joint.urdf:68")
    assert any(e.kind is EntryKind.CHOICE and "tool frame" in e.element for e in report.entries)
