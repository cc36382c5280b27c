"""Every libsdformat-accepted corpus file, converted end to end, read back by OpenUSD's parser.

Oracles: libsdformat 12's resolved poses, axes and limits (tests/data/sdf/*.jsonl, see
test_frames_reference.py) on one side; on the other the converted stage as OpenUSD's physics
parser (``UsdPhysics.LoadUsdPhysicsFromRange``: joint kinds, bodies, local frames) and
``UsdGeom.XformCache`` (body world transforms) read it.
"""
from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

import usdjoints  # noqa: F401  (registers the PhysX schemas before any stage is opened)
from usdjoints.convert import convert_sdformat
from usdjoints.convert.ir import Pose
from sdf_reference_poses import angle as _angle, gf_pose as _gf_pose, pose as _pose, reference_frames

from pxr import Sdf, Usd, UsdGeom, UsdPhysics  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "data" / "sdf"
ACCEPTED_SINCE_LIBSDFORMAT_13 = {"joint_child_model_frame.sdf", "joint_nested_parent_child.sdf"}
#: link transforms are double precision: 1e-6 m leaves a margin over libsdformat's 12 printed digits.
POSITION_TOL = 1e-6
#: joint frames are float3/quatf in the UsdPhysics schema: 6e-8 relative at <= 11 m is below 1e-6 m.
JOINT_POSITION_TOL = 1e-6
#: 1e-6 rad; quatf joint rotations carry ~6e-8 per component.
ANGLE_TOL = 1e-6


def _records(sdf: Path) -> list[dict]:
    path = DATA / f"sdformat_test_sdf_{sdf.name}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _accepted() -> list[Path]:
    return [p for p in sorted(DATA.glob("*.sdf"))
            if _records(p)[0]["errors"] == 0 or p.name in ACCEPTED_SINCE_LIBSDFORMAT_13]


def _reference(sdf: Path):
    """(model frames in the world, links, joints) keyed by the converter's scoped names."""
    return reference_frames(_records(sdf))


def _source_name(prim) -> str:
    return prim.GetMetadata("displayName") or prim.GetName()


def _convert(sdf: Path, tmp_path: Path):
    out = tmp_path / f"{sdf.stem}.usdc"
    report = convert_sdformat(sdf, out, resource_paths=[str(DATA / "models")])
    stage = Usd.Stage.Open(str(out))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        parsed = UsdPhysics.LoadUsdPhysicsFromRange(stage, ["/"])
    return report, stage, parsed


def _joint_world_frames(stage, cache, desc) -> tuple[Pose, Pose]:
    out = []
    for body, position, rotation in ((desc.body0, desc.localPose0Position, desc.localPose0Orientation),
                                      (desc.body1, desc.localPose1Position, desc.localPose1Orientation)):
        X_world_body = _gf_pose(cache.GetLocalToWorldTransform(stage.GetPrimAtPath(body))) \
            if body != Sdf.Path() else Pose()
        local = Pose(tuple(position), (rotation.GetReal(), *rotation.GetImaginary()))
        out.append(X_world_body.compose(local))
    return out[0], out[1]


@pytest.mark.parametrize("sdf", _accepted(), ids=lambda p: p.stem)
def test_corpus_file_converts_with_libsdformat_poses_frames_and_axes(tmp_path, sdf):
    """Links relative to their model, joint frames (both sides) and axes equal libsdformat's."""
    report, stage, parsed = _convert(sdf, tmp_path)
    frames, links, joints = _reference(sdf)
    cache = UsdGeom.XformCache()
    prims = {_source_name(p): p for p in stage.Traverse()}
    for name, (model, record) in links.items():
        prim = prims[name]
        X_model_link = frames[model].inverse().compose(_gf_pose(cache.GetLocalToWorldTransform(prim)))
        expected = _pose(record["pose_in_model"])
        assert np.allclose(X_model_link.position, expected.position, atol=POSITION_TOL, rtol=0), (name,)
        assert _angle(X_model_link.orientation, expected.orientation) < ANGLE_TOL, (name,)

    descs = {}
    for kind, (paths, items) in parsed.items():
        for path, desc in zip(paths, items):
            descs[path] = (kind, desc)
    T = UsdPhysics.ObjectType
    for name, (model, record) in joints.items():
        kind_name = record["type"]
        if kind_name == "gearbox":
            continue  # no kinematic joint: test_couplings checks the gear it becomes
        prim = prims[name]
        if kind_name == "screw":
            assert prim.GetTypeName() == "PhysxPhysicsRackAndPinionJoint"
            prim = stage.GetPrimAtPath(prim.GetPath().GetParentPath().AppendChild(prim.GetName() + "_translation"))
        kind, desc = descs[prim.GetPath()]
        expected_kind = {"revolute": T.RevoluteJoint, "continuous": T.RevoluteJoint, "prismatic": T.PrismaticJoint,
                         "screw": T.PrismaticJoint, "fixed": T.FixedJoint, "ball": T.SphericalJoint,
                         "universal": T.D6Joint, "revolute2": T.D6Joint}[kind_name]
        assert kind == expected_kind, (name, kind)
        X_model_world = frames[model].inverse()
        frame0, frame1 = (X_model_world.compose(f) for f in _joint_world_frames(stage, cache, desc))
        expected = _pose(record["pose_in_model"])
        for frame in (frame0, frame1):
            assert np.allclose(frame.position, expected.position, atol=JOINT_POSITION_TOL, rtol=0), (name, frame)
        if kind_name in ("fixed", "ball"):
            assert _angle(frame1.orientation, expected.orientation) < ANGLE_TOL, name
        assert _angle(frame0.orientation, frame1.orientation) < ANGLE_TOL, name
        for index, local in enumerate(((1.0, 0.0, 0.0), (0.0, 1.0, 0.0))):
            axis = record.get(f"axis{index}")
            if axis is None or kind_name in ("fixed", "ball") or (index == 1 and kind_name not in ("universal", "revolute2")):
                continue
            expected_axis = np.asarray(axis["xyz_in_model"], float)
            expected_axis /= np.linalg.norm(expected_axis)
            assert np.allclose(frame1.rotate(local), expected_axis, atol=ANGLE_TOL), (name, index)
            _assert_limits(prim, kind_name, index, axis)
    assert report.body_count == len(links) + sum(1 for _, r in joints.values() if r["type"] == "screw")


def _assert_limits(prim, kind_name: str, index: int, axis: dict) -> None:
    """Limits, effort, velocity and dynamics after unit conversion (degrees for angular axes)."""
    angular = kind_name != "prismatic"
    scale = 180.0 / math.pi if angular else 1.0
    if kind_name in ("revolute", "prismatic", "universal", "revolute2", "screw", "continuous"):
        if kind_name in ("universal", "revolute2"):
            instance = ("rotX", "rotY")[index]
            low = prim.GetAttribute(f"limit:{instance}:physics:low").Get()
            high = prim.GetAttribute(f"limit:{instance}:physics:high").Get()
        elif kind_name == "screw":
            rotation = prim.GetStage().GetPrimAtPath(str(prim.GetPath()).replace("_translation", "_rotation"))
            low, high = (rotation.GetAttribute(n).Get() for n in ("physics:lowerLimit", "physics:upperLimit"))
            prim = rotation
        else:
            low, high = (prim.GetAttribute(n).Get() for n in ("physics:lowerLimit", "physics:upperLimit"))
        if kind_name != "continuous":
            for expected, actual in ((axis["lower"], low), (axis["upper"], high)):
                expected = math.copysign(math.inf, expected) if abs(expected) >= 1e16 else expected * scale
                assert actual == expected or abs(actual - expected) < 1e-4 * max(1.0, abs(expected)), (prim, expected, actual)
        instance = {"universal": ("rotX", "rotY"), "revolute2": ("rotX", "rotY")}.get(
            kind_name, ("angular" if angular else "linear",))[index]
        max_force = prim.GetAttribute(f"drive:{instance}:physics:maxForce")
        if math.isfinite(axis["effort"]):
            assert max_force.Get() == pytest.approx(axis["effort"], rel=1e-6), prim
        if kind_name not in ("universal", "revolute2"):
            velocity = prim.GetAttribute(f"physxJointAxis:{instance}:maxJointVelocity")
            if math.isfinite(axis["velocity"]) and axis["velocity"] > 0:
                assert velocity.Get() == pytest.approx(axis["velocity"] * scale, rel=1e-6), prim
            damping = prim.GetAttribute(f"physxJointAxis:{instance}:viscousFrictionCoefficient")
            if axis["damping"]:
                assert damping.Get() == pytest.approx(axis["damping"] / scale, rel=1e-6), prim
            friction = prim.GetAttribute(f"physxJointAxis:{instance}:staticFrictionEffort")
            if axis["friction"]:
                assert friction.Get() == pytest.approx(axis["friction"], rel=1e-6), prim
