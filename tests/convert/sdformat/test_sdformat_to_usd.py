"""SDFormat -> RobotIR -> the shared USD writer -> a stage read back by OpenUSD's physics parser.

Oracles: OpenUSD's parser (``UsdPhysics.LoadUsdPhysicsFromRange``) for the bodies and joint kinds
it finds; libsdformat 12's reference poses (tests/data/sdf/*.jsonl) for the body world poses
and joint anchor positions.
"""
from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import pytest

import usdjoints  # noqa: F401  (registers the PhysX schemas before any stage is opened)
from usdjoints.convert.sdformat.pose import Pose

pxr = pytest.importorskip("pxr")
from pxr import Usd, UsdGeom, UsdPhysics  # noqa: E402

from usdjoints.convert import convert_sdformat  # noqa: E402

CORPUS = Path(__file__).resolve().parents[2] / "data" / "sdf"
#: float32 USD transforms (xformOp precision) around poses of up to ~10 m: 1e-5 m and 1e-6 in quaternions.
POSITION_TOL = 1e-5
ROTATION_TOL = 1e-6
#: files whose links form one tree, which the shared writer requires.
TREE_FILES = ["double_pendulum", "empty_axis", "inertial_complete", "joint_axis_in_rotated_frame",
              "joint_child_frame", "joint_child_model_frame", "joint_parent_frame", "joint_parent_world",
              "model_frame_attached_to_joint", "model_frame_relative_to_joint", "model_multi_nested_model",
              "rotations_in_degrees", "rotations_in_quaternions", "world_nested_frame_attached_to"]


def _pose(values) -> Pose:
    q = values[3:]
    norm = math.sqrt(sum(c * c for c in q))
    return Pose(tuple(values[:3]), tuple(c / norm for c in q))


def _reference_world_poses(name: str) -> tuple[dict[str, Pose], dict[str, Pose]]:
    """(links, joints) world poses keyed by the robot's scoped names, from libsdformat's dump."""
    records = [json.loads(line) for line in (CORPUS / f"sdformat_test_sdf_{name}.sdf.jsonl").read_text().splitlines()]
    frames: dict[str, Pose] = {}
    is_world = any(r["kind"] == "world" for r in records)
    top = None
    links, joints = {}, {}
    for r in records:
        if r["kind"] == "model" and top is None and not is_world:
            top = r["name"]
            frames[top] = _pose(r["pose_in_parent"])
        elif r["kind"] == "world_model_pose":
            frames[r["name"]] = _pose(r["pose_in_world"])
        elif r["kind"] == "nested_model_pose":
            frames[f"{r['model']}::{r['name']}"] = frames[r["model"]].compose(_pose(r["pose_in_model"]))
        elif r["kind"] in ("link", "joint"):
            model = r["model"]
            scope = "" if model == top else (model.split("::", 1)[1] + "::" if top else model + "::")
            target = links if r["kind"] == "link" else joints
            target[scope + r["name"]] = frames[model].compose(_pose(r["pose_in_model"]))
    return links, joints


def _source_name(prim) -> str:
    return prim.GetMetadata("displayName") or prim.GetName()


@pytest.mark.parametrize("name", TREE_FILES)
def test_body_world_poses_match_libsdformat(tmp_path, name):
    """Every rigid body OpenUSD's parser finds sits at libsdformat's world pose of its link."""
    out = tmp_path / f"{name}.usda"
    convert_sdformat(CORPUS / f"{name}.sdf", out, resource_paths=[str(CORPUS / "models")])
    stage = Usd.Stage.Open(str(out))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        parsed = UsdPhysics.LoadUsdPhysicsFromRange(stage, ["/"])
    links, joints = _reference_world_poses(name)
    bodies = parsed.get(UsdPhysics.ObjectType.RigidBody, ([], []))[0]
    assert len(bodies) == len(links)
    cache = UsdGeom.XformCache()
    for path in bodies:
        prim = stage.GetPrimAtPath(path)
        expected = links[_source_name(prim)]
        matrix = cache.GetLocalToWorldTransform(prim)
        position = matrix.ExtractTranslation()
        q = matrix.ExtractRotationQuat()
        quat = (q.GetReal(), *q.GetImaginary())
        assert max(abs(a - b) for a, b in zip(position, expected.position)) < POSITION_TOL, (name, path)
        dot = sum(a * b for a, b in zip(quat, expected.orientation))
        assert abs(abs(dot) - 1.0) < ROTATION_TOL, (name, path, quat, expected.orientation)
    for kind in (UsdPhysics.ObjectType.FixedJoint, UsdPhysics.ObjectType.RevoluteJoint,
                 UsdPhysics.ObjectType.PrismaticJoint, UsdPhysics.ObjectType.SphericalJoint):
        paths, descs = parsed.get(kind, ([], []))
        for path, desc in zip(paths, descs):
            prim = stage.GetPrimAtPath(path)
            expected = joints.get(_source_name(prim))
            if expected is None or desc.body1 == pxr.Sdf.Path():
                continue  # the writer's own world weld has no SDFormat counterpart
            body1 = cache.GetLocalToWorldTransform(stage.GetPrimAtPath(desc.body1))
            anchor = body1.Transform(desc.localPose1Position)
            assert max(abs(a - b) for a, b in zip(anchor, expected.position)) < POSITION_TOL, (name, path)


def test_joint_kinds_read_by_openusd(tmp_path):
    """joint_complete.sdf: OpenUSD's parser finds the UsdPhysics kinds each SDFormat type maps to."""
    out = tmp_path / "joint_complete.usda"
    convert_sdformat(CORPUS / "joint_complete.sdf", out)
    stage = Usd.Stage.Open(str(out))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        parsed = UsdPhysics.LoadUsdPhysicsFromRange(stage, ["/"])
    found = {}
    for kind, (paths, _) in parsed.items():
        for path in paths:
            found[path.name] = kind
    T = UsdPhysics.ObjectType
    assert found["revolute_joint"] == T.RevoluteJoint and found["continuous_joint"] == T.RevoluteJoint
    assert found["prismatic_joint"] == T.PrismaticJoint and found["fixed_joint"] == T.FixedJoint
    assert found["ball_joint"] == T.SphericalJoint
    assert found["universal_joint"] == T.D6Joint and found["revolute2_joint"] == T.D6Joint
