"""Frame semantics of generated SDFormat cases (tests/data/sdf_generated), converted end to end.

Oracles: libsdformat 12's resolved poses and axes (each case's reference.jsonl, see the README
there), and where libsdformat 12 loses digits, the closed form the SDFormat specification gives.
"""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import usdjoints  # noqa: F401  (registers the PhysX schemas before any stage is opened)
from usdjoints.convert import convert_sdformat
from usdjoints.convert.ir import Pose
from usdjoints.convert.sdformat.document import resolve_document
from usdjoints.convert.sdformat.pose import Pose as SdfPose
from sdf_reference_poses import angle, gf_pose, pose, reference_frames

from pxr import Sdf, Usd, UsdGeom, UsdPhysics  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "data" / "sdf_generated"
#: libsdformat 12 places a merged include's placement frame 7e-6 m away from the include's
#: <pose> (the closed form below is exact): its poses are matched to 2e-5 there.
PLACEMENT_TOL = 2e-5  # [m], [rad]


def _records(case: Path) -> list[dict]:
    return [json.loads(line) for line in (case / "reference.jsonl").read_text().splitlines() if line.strip()]


def _converted(case: Path, tmp_path: Path):
    out = tmp_path / f"{case.name}.usda"
    convert_sdformat(case / "main.sdf", out, resource_paths=[str(case / "models")])
    return Usd.Stage.Open(str(out))


def _joint_frames(stage, cache, desc) -> list[Pose]:
    out = []
    for body, position, rotation in ((desc.body0, desc.localPose0Position, desc.localPose0Orientation),
                                      (desc.body1, desc.localPose1Position, desc.localPose1Orientation)):
        X = gf_pose(cache.GetLocalToWorldTransform(stage.GetPrimAtPath(body))) if body != Sdf.Path() else Pose()
        out.append(X.compose(Pose(tuple(position), (rotation.GetReal(), *rotation.GetImaginary()))))
    return out


def _assert_matches_libsdformat(stage, records, tol: float) -> None:
    frames, links, joints = reference_frames(records)
    cache = UsdGeom.XformCache()
    prims = {p.GetMetadata("displayName") or p.GetName(): p for p in stage.Traverse()}
    for name, (model, record) in links.items():
        X = gf_pose(cache.GetLocalToWorldTransform(prims[name]))
        expected = frames[model].compose(pose(record["pose_in_model"]))
        assert np.allclose(X.position, expected.position, atol=tol, rtol=0), name
        assert angle(X.orientation, expected.orientation) < tol, name
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        parsed = UsdPhysics.LoadUsdPhysicsFromRange(stage, ["/"])
    descs = {path: desc for _, (paths, items) in parsed.items() for path, desc in zip(paths, items)}
    for name, (model, record) in joints.items():
        frame0, frame1 = _joint_frames(stage, cache, descs[prims[name].GetPath()])
        expected = frames[model].compose(pose(record["pose_in_model"]))
        for frame in (frame0, frame1):
            assert np.allclose(frame.position, expected.position, atol=tol, rtol=0), name
        if "axis0" in record and record["type"] not in ("fixed", "ball"):
            axis = np.asarray(record["axis0"]["xyz_in_model"], float)
            axis = np.asarray(frames[model].rotate(tuple(axis / np.linalg.norm(axis))))
            assert np.allclose(frame1.rotate((1.0, 0.0, 0.0)), axis, atol=tol), name


def test_merged_include_placement_frame_is_placed_by_the_include_pose(tmp_path):
    """A merged include's <placement_frame> F puts F at the include's <pose>; the included
    model's links follow. It was refused as unsupported though libsdformat loads it."""
    case = DATA / "merged_placement_frame"
    records = _records(case)
    assert records[0]["errors"] == 0
    stage = _converted(case, tmp_path)
    _assert_matches_libsdformat(stage, records, PLACEMENT_TOL)
    # closed form: X_top_F = X_top_base * X_pose (the include's pose is relative_to base)
    (graph,) = resolve_document(case / "main.sdf", [case / "models"]).graphs
    include_pose = SdfPose.from_rpy((1.5, -0.7, 0.3), (0.4, 1.2, -2.0))
    expected = graph.pose("base").compose(include_pose)
    actual = graph.pose("f")
    assert np.allclose(actual.position, expected.position, atol=1e-12, rtol=0)
    assert angle(actual.orientation, expected.orientation) < 1e-7
    # and link a keeps its place relative to F inside the included model
    inner_a = SdfPose.from_rpy((0.3, 0.2, 0.1), (0.5, 0.1, 0.2))
    inner_f = inner_a.compose(SdfPose.from_rpy((1.1, 2.2, -0.3), (0.7, -0.4, 1.3)))
    expected_a = expected.compose(inner_f.inverse()).compose(inner_a)
    X_a = gf_pose(UsdGeom.XformCache().GetLocalToWorldTransform(
        next(p for p in stage.Traverse() if (p.GetMetadata("displayName") or p.GetName()) == "a")))
    assert np.allclose(X_a.position, expected_a.position, atol=1e-9, rtol=0)
