"""Frame resolution against libsdformat's own resolution of its test files.

Oracle: libsdformat 12 (``sdfref.cc``), which dumped for each file of its test suite the pose of
every link, joint, frame and nested model in its model frame, each joint axis in the model frame
and the links joints resolve to. The dumps and the files live in ``tests/data/sdf``.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from usdjoints.convert.sdformat.axes import read_axis
from usdjoints.convert.sdformat.document import resolve_document, top_model_pose
from usdjoints.errors import InputError

DATA = Path(__file__).resolve().parents[2] / "data" / "sdf"
MODELS = DATA / "models"
#: libsdformat prints 12 significant digits; positions reach 10 m, so 1e-9 m is the print limit.
POSITION_TOL = 1e-9
#: quaternions are printed to 12 significant digits.
ROTATION_TOL = 1e-9
#: libsdformat 12 rejects these, but the SDFormat specification and current libsdformat accept
#: a nested model frame (``M1::__model__``) or ``__model__`` as a joint's parent or child.
ACCEPTED_SINCE_LIBSDFORMAT_13 = {"joint_child_model_frame.sdf", "joint_nested_parent_child.sdf"}


def _reference(sdf: Path) -> list[dict]:
    path = DATA / f"sdformat_test_sdf_{sdf.name}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _files(accepted: bool) -> list[Path]:
    files = []
    for sdf in sorted(DATA.glob("*.sdf")):
        ok = _reference(sdf)[0]["errors"] == 0 or sdf.name in ACCEPTED_SINCE_LIBSDFORMAT_13
        if ok == accepted:
            files.append(sdf)
    return files


def _dump_model(graph, scope_name: str) -> list[dict]:
    out = []
    for d in graph.scope.decls:
        pose = graph.pose(d.name)
        if d.kind == "link":
            out.append({"kind": "link", "model": scope_name, "name": d.name, "pose_in_model": pose})
        elif d.kind == "joint":
            record = {"kind": "joint", "model": scope_name, "name": d.name, "pose_in_model": pose}
            parent, child = graph.joint_bodies(d)
            record["resolved_parent_link"], record["resolved_child_link"] = parent, child
            for index, tag in enumerate(("axis", "axis2")):
                axis = read_axis(graph, d, tag)
                if axis is not None:
                    record[f"axis{index}"] = {"xyz_in_model": axis.xyz, "lower": axis.lower, "upper": axis.upper,
                                              "effort": axis.effort, "velocity": axis.velocity,
                                              "damping": axis.damping, "friction": axis.friction}
            out.append(record)
        elif d.kind == "frame":
            out.append({"kind": "frame", "model": scope_name, "name": d.name, "pose_in_model": pose,
                        "resolved_body": graph.body(d.name)})
        elif d.kind == "model":
            nested_name = f"{scope_name}::{d.name}"
            out.append({"kind": "nested_model_pose", "model": scope_name, "name": d.name, "pose_in_model": pose})
            out.extend(_dump_model(graph.nested(d.name), nested_name))
    return out


def _dump(sdf: Path) -> list[dict]:
    resolved = resolve_document(sdf, resource_paths=[MODELS])
    out = []
    for graph in resolved.graphs:
        if graph.scope.kind == "model":
            out.append({"kind": "model", "name": graph.scope.name, "pose_in_parent": top_model_pose(graph)})
            out.extend(_dump_model(graph, graph.scope.name))
            continue
        for d in graph.scope.decls:
            if d.kind == "model":
                out.append({"kind": "world_model_pose", "name": d.name, "pose_in_world": graph.pose(d.name)})
                out.extend(_dump_model(graph.nested(d.name), d.name))
            elif d.kind == "frame":
                out.append({"kind": "world_frame", "name": d.name, "pose_in_world": graph.pose(d.name)})
    return out


def _key(record: dict) -> tuple:
    return record["kind"], record.get("model", ""), record["name"]


def _assert_pose(expected: list[float], actual, label: str) -> None:
    position = actual.position
    assert max(abs(a - b) for a, b in zip(position, expected[:3])) < POSITION_TOL, (label, position, expected)
    q = actual.orientation
    # libsdformat keeps a written quaternion unnormalised; the rotation is the normalised one
    norm = math.sqrt(sum(c * c for c in expected[3:]))
    expected = list(expected[:3]) + [c / norm for c in expected[3:]]
    dot = sum(a * b for a, b in zip(q, expected[3:]))
    sign = 1.0 if dot >= 0 else -1.0
    assert max(abs(sign * a - b) for a, b in zip(q, expected[3:])) < ROTATION_TOL, (label, q, expected)


#: libsdformat's value for an unwritten axis field, in the +-inf spelling of SDFormat 1.10+.
UNWRITTEN = {"lower": -math.inf, "upper": math.inf, "effort": math.inf, "velocity": math.inf,
             "damping": 0.0, "friction": 0.0}


def _same_limit(expected: float, actual: float | None, field: str) -> bool:
    if actual is None:
        actual = UNWRITTEN[field]
    if abs(expected) >= 1e16:
        expected = math.copysign(math.inf, expected)
    return expected == actual or abs(expected - actual) < 1e-12


@pytest.mark.parametrize("sdf", _files(accepted=True), ids=lambda p: p.stem)
def test_resolved_poses_match_libsdformat(sdf: Path):
    """Every pose, axis and resolved link libsdformat reports is reproduced (positions 1e-9 m)."""
    reference = {_key(r): r for r in _reference(sdf)[1:] if "name" in r and r["kind"] != "world"}
    ours = {_key(r): r for r in _dump(sdf)}
    compared = 0
    for key, expected in reference.items():
        if key[0] == "model" and key not in ours:
            continue  # a nested or world model's pose is already compared as nested/world_model_pose
        assert key in ours, f"{sdf.name}: missing {key}"
        actual = ours[key]
        for field in ("pose_in_model", "pose_in_world", "pose_in_parent"):
            if field in expected:
                _assert_pose(expected[field], actual[field], f"{sdf.name} {key} {field}")
                compared += 1
        for field in ("resolved_parent_link", "resolved_child_link", "resolved_body"):
            if field in expected:
                assert actual[field] == expected[field], (sdf.name, key, field)
        for axis in ("axis0", "axis1"):
            if axis in expected:
                e, a = expected[axis], actual[axis]
                assert max(abs(x - y) for x, y in zip(a["xyz_in_model"], e["xyz_in_model"])) < 1e-9, (sdf.name, key)
                for field in ("lower", "upper", "effort", "velocity", "damping", "friction"):
                    assert _same_limit(e[field], a[field], field), (sdf.name, key, axis, field, e[field], a[field])
    assert compared > 0


@pytest.mark.parametrize("sdf", _files(accepted=False), ids=lambda p: p.stem)
def test_files_libsdformat_rejects_are_rejected(sdf: Path):
    """libsdformat reports errors for these files; we raise InputError naming file and line."""
    with pytest.raises(InputError) as info:
        resolve_document(sdf, resource_paths=[MODELS])
    assert info.value.where and ":" in info.value.where and sdf.name in str(info.value)
