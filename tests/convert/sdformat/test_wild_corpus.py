"""SDFormat files from public robot and simulation repositories (tests/data/sdf_corpus, MANIFEST),
converted end to end and compared with libsdformat.

Oracle: libsdformat 12 (``/work/shared/tools/sdfref.cc``), whose resolved poses, joint frames and
axes for each corpus file are in tests/data/sdf_corpus_reference/*.jsonl (regenerated and
compared by ``test_reference_dumps_are_current`` when the dumper is built). A file libsdformat
loads must convert with link poses (1e-6 m, 1e-5 rad), joint frames and axes equal to its; a
file it refuses must be refused with exit code 2 and one line naming file:line. The
converted stage is read back by OpenUSD's physics parser.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import usdjoints  # noqa: F401  (registers the PhysX schemas)
from usdjoints.convert import convert_sdformat
from usdjoints.convert.ir import Pose
from sdf_reference_poses import angle as _angle, gf_pose as _gf_pose, pose as _pose, reference_frames
from usdjoints.errors import UsdJointsError

from pxr import Sdf, Usd, UsdGeom, UsdPhysics  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "data"
CORPUS = DATA / "sdf_corpus"
REFERENCE = DATA / "sdf_corpus_reference"
POSITION_TOL = 1e-6  # [m]
ANGLE_TOL = 1e-5  # [rad]
#: Files libsdformat 12 loads that usdjoints refuses (none: SDFormat 1.3 is read as libsdformat does).
OLDER_THAN_1_4: set[str] = set()


def _manifest() -> list[dict]:
    rows = []
    for line in (CORPUS / "MANIFEST").read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        local, repo, commit, path, license_ = line.split("\t")
        rows.append({"local": local, "repo": repo, "commit": commit, "path": path, "license": license_})
    return rows


def _files() -> list[str]:
    return [r["local"] for r in _manifest() if r["local"].endswith((".sdf", ".world"))]


def _resource_paths(local: str) -> list[str]:
    top = CORPUS / local.split("/", 1)[0]
    return sorted(str(p) for p in top.rglob("models") if p.is_dir())


def _records(local: str) -> list[dict]:
    path = REFERENCE / (local.replace("/", "_") + ".jsonl")
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_manifest_names_every_corpus_file_with_its_source_and_license():
    rows = _manifest()
    on_disk = {str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*") if p.is_file() and p.name != "MANIFEST"}
    assert {r["local"] for r in rows} == on_disk
    for r in rows:
        assert len(r["commit"]) == 40 and r["license"] and r["local"].endswith(r["path"])
    assert len(_files()) >= 60
    assert sum(1 for _ in CORPUS.rglob("*") if _.is_file()) < 400
    assert sum(p.stat().st_size for p in CORPUS.rglob("*") if p.is_file()) < 2_000_000


def test_corpus_holds_sensors_plugins_includes_nested_models_and_every_joint_type():
    text = "\n".join((CORPUS / f).read_text() for f in _files())
    for needle in ("<sensor", "<plugin", "<include", "<light", "<surface", "<spring_stiffness"):
        assert needle in text, needle
    types = {r["type"] for f in _files() for r in _records(f) if r["kind"] == "joint"}
    assert types >= {"revolute", "prismatic", "fixed", "ball", "universal", "continuous", "revolute2"}, types
    assert any(r["kind"] == "nested_model_pose" for f in _files() for r in _records(f))


def _loaded(local: str) -> bool:
    return _records(local)[0]["errors"] == 0


def _invalid_inertia_only(local: str) -> bool:
    """libsdformat refuses the file for its links' inertias alone ("A link named L has invalid
    inertia"), which usdjoints converts as given with a warning, as it converts a URDF's."""
    load = _records(local)[0]
    errors = load.get("first_errors", [])
    return load["errors"] > 0 and len(errors) == load["errors"] and all(
        e.startswith("A link named ") and e.endswith(" has invalid inertia.") for e in errors)


@pytest.mark.parametrize("local", [f for f in _files() if _invalid_inertia_only(f)])
def test_file_refused_for_its_inertias_alone_converts_with_a_warning_each(tmp_path, local):
    report = convert_sdformat(CORPUS / local, tmp_path / "out.usda", resource_paths=_resource_paths(local))
    said = [w for w in report.warnings if "libsdformat refuses the file for it" in w.message]
    assert len(said) == _records(local)[0]["errors"]


@pytest.mark.parametrize("local", [f for f in _files() if (not _loaded(f) and not _invalid_inertia_only(f))
                                   or f in OLDER_THAN_1_4])
def test_file_libsdformat_refuses_is_refused_with_file_line(tmp_path, local):
    out = tmp_path / "out.usda"
    with pytest.raises(UsdJointsError) as error:
        convert_sdformat(CORPUS / local, out, resource_paths=_resource_paths(local))
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith(str(CORPUS / local) + ":") or str(CORPUS / local.split("/", 1)[0]) in message
    assert not out.exists() and not list(tmp_path.iterdir())


@pytest.mark.parametrize("local", [f for f in _files() if (_loaded(f) or _invalid_inertia_only(f))
                                   and f not in OLDER_THAN_1_4])
def test_file_libsdformat_loads_converts_with_its_poses_frames_and_axes(tmp_path, local):
    out = tmp_path / "out.usdc"
    report = convert_sdformat(CORPUS / local, out, resource_paths=_resource_paths(local))
    stage = Usd.Stage.Open(str(out))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        parsed = UsdPhysics.LoadUsdPhysicsFromRange(stage, ["/"])
    frames, links, joints = reference_frames(_records(local))
    cache = UsdGeom.XformCache()
    prims = {(p.GetMetadata("displayName") or p.GetName()): p for p in stage.Traverse()}
    for name, (model, record) in links.items():
        prim = prims[name]
        X_model_link = frames[model].inverse().compose(_gf_pose(cache.GetLocalToWorldTransform(prim)))
        expected = _pose(record["pose_in_model"])
        assert np.allclose(X_model_link.position, expected.position, atol=POSITION_TOL, rtol=0), name
        assert _angle(X_model_link.orientation, expected.orientation) < ANGLE_TOL, name
        mass = UsdPhysics.MassAPI(prim).GetMassAttr()
        if prim.HasAPI(UsdPhysics.RigidBodyAPI) and "mass" in record and mass.HasAuthoredValue():
            # libsdformat's mass (its dump prints 6 digits), 1 kg for a link without <inertial>
            assert mass.Get() == pytest.approx(record["mass"], rel=1e-5), name
    descs = {}
    for kind, (paths, items) in parsed.items():
        for path, desc in zip(paths, items):
            descs[path] = (kind, desc)
    written = {e.element for e in report.entries}
    for name, (model, record) in joints.items():
        if record["type"] == "gearbox":
            continue
        prim = prims[name]
        if record["type"] == "screw":
            prim = stage.GetPrimAtPath(prim.GetPath().GetParentPath().AppendChild(prim.GetName() + "_translation"))
        if prim.GetPath() not in descs:
            # a joint between two bodies that cannot move (static) is not written, and reported
            assert prim.GetTypeName() == "" or f"joint {name!r}" in written, name
            continue
        _, desc = descs[prim.GetPath()]
        X_model_world = frames[model].inverse()
        out_frames = []
        for body, position, rotation in ((desc.body0, desc.localPose0Position, desc.localPose0Orientation),
                                         (desc.body1, desc.localPose1Position, desc.localPose1Orientation)):
            X_world_body = _gf_pose(cache.GetLocalToWorldTransform(stage.GetPrimAtPath(body))) \
                if body != Sdf.Path() else Pose()
            local_pose = Pose(tuple(position), (rotation.GetReal(), *rotation.GetImaginary()))
            out_frames.append(X_model_world.compose(X_world_body.compose(local_pose)))
        expected = _pose(record["pose_in_model"])
        for frame in out_frames:
            # joint frames are float3 in the UsdPhysics schema: 6e-8 relative
            tol = POSITION_TOL + 1.2e-7 * max(1.0, float(np.max(np.abs(frame.position))))
            assert np.allclose(frame.position, expected.position, atol=tol, rtol=0), (name, frame)
        assert _angle(out_frames[0].orientation, out_frames[1].orientation) < ANGLE_TOL, name
        for index, local_axis in enumerate(((1.0, 0.0, 0.0), (0.0, 1.0, 0.0))):
            axis = record.get(f"axis{index}")
            if axis is None or record["type"] in ("fixed", "ball"):
                continue
            if index == 1 and record["type"] not in ("universal", "revolute2"):
                continue
            expected_axis = np.asarray(axis["xyz_in_model"], float)
            expected_axis /= np.linalg.norm(expected_axis)
            assert np.allclose(out_frames[1].rotate(local_axis), expected_axis, atol=ANGLE_TOL), (name, index)


def _normalised(line: str) -> str:
    """A dumper line as the committed dumps hold it: corpus-relative paths, JSON infinities."""
    line = line.replace(str(CORPUS) + "/", "")
    return re.sub(r":(-?)nan([,}])", r":NaN\2", re.sub(r":(-?)inf([,}])", r":\1Infinity\2", line))


def _dumper() -> str | None:
    candidate = os.environ.get("USDJOINTS_SDFREF") or shutil.which("sdfref") or "/work/sdfref/sdfref"
    return candidate if candidate and os.access(candidate, os.X_OK) else None


@pytest.mark.skipif(_dumper() is None, reason="the libsdformat dumper (shared/tools/sdfref.cc) is not built")
@pytest.mark.parametrize("local", _files()[::7])
def test_reference_dumps_are_current(local):
    """The committed dumps are what libsdformat prints now (a sample of the corpus)."""
    path = CORPUS / local
    models = _resource_paths(local)
    run = subprocess.run([_dumper(), str(path), *models], capture_output=True, text=True, cwd=path.parent,
                         env={**os.environ, "SDF_PATH": os.pathsep.join(models)}, timeout=120)
    printed = [json.loads(_normalised(line)) for line in run.stdout.splitlines() if line.strip()]
    assert printed == _records(local)


def test_cli_refuses_a_corpus_file_with_exit_2_and_one_line(tmp_path):
    local = next(f for f in _files() if not _loaded(f))
    run = subprocess.run([sys.executable, "-c", "import sys; from usdjoints.cli import main; sys.exit(main(sys.argv[1:]))",
                          "convert", str(CORPUS / local), "-o", str(tmp_path / "o.usda")],
                         capture_output=True, text=True)
    assert run.returncode == 2
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and str(CORPUS / local) in lines[0]
