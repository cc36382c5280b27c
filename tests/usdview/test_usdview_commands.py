"""Each usdjoints usdview command, run through the registered command plugins on real stages.

The viewer is a stand-in usdviewApi (tests/usdview/usdview_standin.py); the stages are real
Usd.Stage objects and every edit is read back through USD's own composition (XformCache,
UsdGeom.BasisCurves). Oracles are named per test.
"""
from __future__ import annotations

import math
import shutil

import numpy as np
import pytest
from pxr import Gf, Plug, Usd, UsdGeom

import usdview_standin
from samples import REPO
from usdjoints.plugin_path import plugin_path

SAMPLES = REPO / "sample_stages"
# Positions pass through float32 (authored point3f/quatf and the walker's poses): 1e-6 of a
# metre-sized stage is a few float32 ulps.
FLOAT32_TOL = 1e-6


@pytest.fixture(scope="module")
def viewer():
    """Returns a function opening a stage in the stand-in viewer with the plugin loaded."""
    Plug.Registry().RegisterPlugins(plugin_path())

    def open_in_viewer(path):
        stage = Usd.Stage.Open(str(path))
        api = usdview_standin.UsdviewApi(stage)
        _, registry, _ = usdview_standin.load_containers(api)
        return api, registry

    return open_in_viewer


def _run(registry, name):
    return registry.getCommandPlugin(name).run()


def _world_point(stage, prim_path, local):
    """A point given in a prim's local space, in world space, as USD composes transforms."""
    matrix = UsdGeom.XformCache(Usd.TimeCode.Default()).GetLocalToWorldTransform(stage.GetPrimAtPath(prim_path))
    return matrix.Transform(Gf.Vec3d(*local))


# -- Show joint frames ------------------------------------------------------------------------

def test_frames_toggle_on_then_off_in_the_session_layer(viewer):
    """Oracle: revolute_basic's comment and values: Base at (0, 0, 1) with localPos0 (0.75, 0, 0)
    puts frame 0 at (0.75, 0, 1); Link at (1, 0, 1) with localPos1 (-0.25, 0, 0) puts frame 1 there too."""
    api, registry = viewer(SAMPLES / "revolute_basic.usda")
    stage = api.stage
    outcome = _run(registry, "usdjoints.showJointFrames")
    assert outcome.ok, outcome.message
    session = stage.GetSessionLayer()
    assert session.GetPrimAtPath("/__usdjoints_frames") is not None
    assert not stage.GetRootLayer().dirty
    curves = UsdGeom.BasisCurves(stage.GetPrimAtPath("/__usdjoints_frames/World_Hinge"))
    assert curves
    assert curves.GetPrim().GetAttribute("usdjoints:joint").Get() == "/World/Hinge"
    points = curves.GetPointsAttr().Get()
    counts = list(curves.GetCurveVertexCountsAttr().Get())
    assert counts == [2] * 7  # 3 axes per frame, then the joint axis
    assert len(curves.GetDisplayColorAttr().Get()) == len(counts)
    for origin in (points[0], points[6]):  # frame 0 and frame 1 origins
        assert (Gf.Vec3d(origin) - Gf.Vec3d(0.75, 0, 1)).GetLength() < FLOAT32_TOL
    axis = Gf.Vec3d(points[13]) - Gf.Vec3d(points[12])
    assert abs(axis.GetNormalized() * Gf.Vec3d(0, 0, 1) - 1) < FLOAT32_TOL  # physics:axis = "Z"

    again = _run(registry, "usdjoints.showJointFrames")
    assert again.ok and "removed" in again.message
    assert session.GetPrimAtPath("/__usdjoints_frames") is None
    assert not stage.GetPrimAtPath("/__usdjoints_frames")


def test_frames_follow_scaled_rotated_parents(viewer):
    """Oracle: USD's XformCache applied to the authored localPos0/localPos1 of each body; both
    frames of "Elbow" land on the world point the sample documents, (0.433, 0.25, 2)."""
    api, registry = viewer(SAMPLES / "scaled_rotated_xforms.usda")
    stage = api.stage
    joint = stage.GetPrimAtPath("/World/Elbow")
    api.select("/World/Elbow")
    outcome = _run(registry, "usdjoints.showJointFrames")
    assert outcome.ok and outcome.detail.joints == ("/World/Elbow",)
    points = UsdGeom.BasisCurves(stage.GetPrimAtPath(outcome.wrote[0])).GetPointsAttr().Get()
    body0 = joint.GetRelationship("physics:body0").GetTargets()[0]
    body1 = joint.GetRelationship("physics:body1").GetTargets()[0]
    expected0 = _world_point(stage, body0, joint.GetAttribute("physics:localPos0").Get())
    expected1 = _world_point(stage, body1, joint.GetAttribute("physics:localPos1").Get())
    assert (Gf.Vec3d(points[0]) - expected0).GetLength() < FLOAT32_TOL
    assert (Gf.Vec3d(points[6]) - expected1).GetLength() < FLOAT32_TOL
    # the sample's comment gives the point to 3 decimals
    assert (expected0 - Gf.Vec3d(0.433, 0.25, 2)).GetLength() < 1e-3


def test_frames_of_the_selected_joint_only(viewer):
    """With one joint selected, only that joint is drawn; the selection is left as it was."""
    api, registry = viewer(SAMPLES / "arm_articulation.usda")
    joints = [str(p.GetPath()) for p in api.stage.Traverse() if p.IsA(UsdGeom.Xformable) is False
              and "Joint" in p.GetTypeName()]
    assert len(joints) >= 2
    api.select(joints[1])
    outcome = _run(registry, "usdjoints.showJointFrames")
    assert outcome.detail.joints == (joints[1],)
    assert len(api.stage.GetPrimAtPath("/__usdjoints_frames").GetChildren()) == 1
    assert [str(p) for p in api.selectedPaths] == [joints[1]]


# -- Inspect joint ----------------------------------------------------------------------------

def test_inspect_prints_every_column_per_consumer(viewer):
    """Oracle: the authored values of revolute_basic (lowerLimit -45, upperLimit 60, stiffness 100)
    and the schema: breakForce is unauthored, so its source is the fallback for every consumer."""
    api, registry = viewer(SAMPLES / "revolute_basic.usda")
    api.select("/World/Hinge")
    outcome = _run(registry, "usdjoints.inspectJoint")
    assert outcome.ok, outcome.message
    text = "\n".join(api.status)
    header = next(line for line in text.splitlines() if line.strip().startswith("column"))
    assert header.split() == ["column", "ovphysx", "usdphysics", "usdjoints", "newton"]
    row = {line.split()[0]: line.split()[1:] for line in text.splitlines() if line.startswith("  ")}
    assert row["physics:lowerLimit"] == ["-45", "[authored]"] * 4
    assert row["physics:upperLimit"] == ["60", "[authored]"] * 4
    assert row["drive:angular:physics:stiffness"] == ["100", "[authored]"] * 4
    assert row["physics:breakForce"] == ["inf", "[fallback]"] * 4
    assert len(row) > 20  # every column of a driven, limited revolute joint was printed
    assert [str(p) for p in api.selectedPaths] == ["/World/Hinge"]
    assert not api.stage.GetSessionLayer().rootPrims  # inspecting writes nothing


def test_inspect_marks_consumers_that_disagree(viewer):
    """Oracle: FACTS/OpenUSD's parser: without custom joint tokens it reads a PhysX rack joint as a
    D6 joint, while PhysX reads it as rack and pinion; the type row carries the disagreement mark."""
    api, registry = viewer(SAMPLES / "rack_and_pinion.usda")
    api.select("/World/RackAndPinion")
    outcome = _run(registry, "usdjoints.inspectJoint")
    type_line = next(line for line in outcome.text.splitlines() if line.split()[:2] == ["*", "type"])
    # Newton: the rack joint's own type (Newton does not build it; the walk marks it dropped)
    assert type_line.split()[2:] == ["rack_and_pinion", "d6", "rack_and_pinion", "rack_and_pinion"]


def test_inspect_without_a_joint_selected_says_so(viewer):
    """A non-joint selection is refused with one status line and no edit."""
    api, registry = viewer(SAMPLES / "revolute_basic.usda")
    api.select("/World/Base")
    outcome = _run(registry, "usdjoints.inspectJoint")
    assert not outcome.ok
    assert api.status[-1] == "usdjoints: no selected prim is a joint for any consumer"
    api.select()
    assert not _run(registry, "usdjoints.inspectJoint").ok


# -- Simulate ---------------------------------------------------------------------------------

def _trajectory_of(stage, duration):
    from usdjoints.model.build import load_model
    from usdjoints.sim.api import simulate
    from usdjoints.usdview.simulate import MAX_DT

    fps = stage.GetTimeCodesPerSecond()
    substeps = math.ceil((1 / fps) / MAX_DT - 1e-9)
    return simulate(load_model(stage), duration, 1 / fps / substeps, record_every=substeps)


@pytest.mark.parametrize("sample", ["revolute_basic.usda", "units_centimeters.usda", "scaled_rotated_xforms.usda"])
def test_simulate_writes_time_samples_usd_composes_back_to_the_trajectory(viewer, sample, monkeypatch):
    """Oracle: the simulator's own body poses. USD's XformCache at each written time code, with
    the body's authored scale divided out, must give back the trajectory's pose [m] / metersPerUnit;
    at the first time code it must equal the authored transform (q0 follows the authored bodies)."""
    from usdjoints.usdview import commands

    api, registry = viewer(SAMPLES / sample)
    stage = api.stage
    authored = {p.GetPath(): UsdGeom.XformCache(Usd.TimeCode.Default()).GetLocalToWorldTransform(p)
                for p in stage.Traverse()}
    monkeypatch.setattr(commands, "DEFAULT_DURATION", 0.25)
    outcome = _run(registry, "usdjoints.simulate")
    assert outcome.ok, outcome.message
    result = outcome.detail
    fps = stage.GetTimeCodesPerSecond()
    assert result.samples == round(0.25 * fps) + 1
    assert (stage.GetStartTimeCode(), stage.GetEndTimeCode()) == (0.0, result.samples - 1)
    assert not stage.GetRootLayer().dirty
    assert api.gui_updates == 1

    trajectory = _trajectory_of(stage, 0.25)
    mpu = UsdGeom.GetStageMetersPerUnit(stage)
    moved = 0.0
    for index, path in enumerate(trajectory.body_names):
        prim = stage.GetPrimAtPath(path)
        start = UsdGeom.XformCache(0).GetLocalToWorldTransform(prim)
        assert _max_abs(start, authored[prim.GetPath()]) < FLOAT32_TOL * max(1.0, 1 / mpu)
        for k in (0, result.samples // 2, result.samples - 1):
            world = UsdGeom.XformCache(k).GetLocalToWorldTransform(prim)
            rigid = world.RemoveScaleShear()
            pose = trajectory.body_poses[k, index]
            assert np.allclose(rigid.ExtractTranslation(), pose[:3] / mpu, atol=FLOAT32_TOL / mpu)
            q = rigid.ExtractRotationQuat()
            assert abs(abs(np.dot([q.GetReal(), *q.GetImaginary()], pose[3:])) - 1) < FLOAT32_TOL
        moved = max(moved, np.abs(trajectory.body_poses[-1, :, :3] - trajectory.body_poses[0, :, :3]).max())
    assert moved > 1e-4  # something falls or swings in 0.25 s under gravity


def test_simulate_twice_replaces_the_samples(viewer, monkeypatch):
    """A second run with a shorter duration leaves only its own samples (no mix of two runs)."""
    from usdjoints.usdview import commands
    from usdjoints.usdview.simulate import SIM_OP

    api, _ = viewer(SAMPLES / "revolute_basic.usda")
    commands.simulate_stage(api, duration=0.25)
    commands.simulate_stage(api, duration=0.125)
    attr = api.stage.GetPrimAtPath("/World/Link").GetAttribute(SIM_OP)
    assert attr.GetTimeSamples() == [float(k) for k in range(round(0.125 * api.stage.GetTimeCodesPerSecond()) + 1)]


def _max_abs(a, b):
    return max(abs(a[i][j] - b[i][j]) for i in range(4) for j in range(4))


# -- Audit stage and Pin defaults -------------------------------------------------------------

def _bad_onesided_copy(tmp_path):
    """bad_onesided_limit.usda copied where "Pin defaults" may write beside it."""
    path = tmp_path / "bad_onesided_limit.usda"
    shutil.copy(SAMPLES / path.name, path)
    return path


def test_audit_selects_the_prims_with_the_worst_findings(viewer):
    """Oracle: the sample's own header: "OneSided" (one finite bound inside an articulation) is the
    hazard PhysX locks, so the audit reports an error there and the viewer selects that prim."""
    api, registry = viewer(SAMPLES / "bad_onesided_limit.usda")
    outcome = _run(registry, "usdjoints.auditStage")
    assert outcome.ok, outcome.message
    errors = [f for f in outcome.detail.findings if f.severity == "error"]
    assert {f.prim for f in errors} == {"/World/OneSided"}
    assert outcome.selected == ("/World/OneSided",)
    assert [str(p) for p in api.selectedPaths] == ["/World/OneSided"]
    assert any(line.startswith("error ") and "/World/OneSided" in line for line in api.status)
    assert not api.stage.GetSessionLayer().rootPrims  # auditing writes nothing


def test_choosing_a_finding_in_the_window_selects_its_prim(viewer, monkeypatch):
    """The window's row callback selects the chosen finding's prim, row by row."""
    from usdjoints.usdview import commands, dialogs

    opened = {}

    def fake_table(usdview_api, title, header, rows, on_choose=None):
        opened.update(rows=rows, on_choose=on_choose)
        return object()  # a window exists: the command does not print or select by itself

    monkeypatch.setattr(dialogs, "show_table", fake_table)
    api, _ = viewer(SAMPLES / "bad_gear_relnames.usda")
    api.select("/World")
    outcome = commands.audit_stage(api)
    assert outcome.selected == ()
    assert [str(p) for p in api.selectedPaths] == ["/World"]
    findings = outcome.detail.findings
    assert len(opened["rows"]) == len(findings) >= 2
    for row, finding in enumerate(findings):
        opened["on_choose"](row)
        assert [str(p) for p in api.selectedPaths] == ([finding.prim] if finding.prim else [])
        assert opened["rows"][row][2] == (finding.prim or "-")


def test_pin_defaults_writes_the_fix_layer_beside_the_stage(viewer, tmp_path):
    """Oracle: USD composition of the written file: opened as a stage, the fix layer makes
    physics:upperLimit of "OneSided" authored (+inf, the schema fallback PhysX would otherwise not
    see), while the stage in the viewer and its file are unchanged."""
    path = _bad_onesided_copy(tmp_path)
    before = path.read_text()
    api, registry = viewer(path)
    outcome = _run(registry, "usdjoints.pinDefaults")
    assert outcome.ok, outcome.message
    out = tmp_path / "bad_onesided_limit.pinned.usda"
    assert outcome.wrote == (str(out),)
    assert outcome.selected == ("/World/OneSided",)
    assert path.read_text() == before
    assert not api.stage.GetRootLayer().dirty
    assert not api.stage.GetPrimAtPath("/World/OneSided").GetAttribute("physics:upperLimit").HasAuthoredValue()
    pinned = Usd.Stage.Open(str(out))
    attribute = pinned.GetPrimAtPath("/World/OneSided").GetAttribute("physics:upperLimit")
    assert attribute.HasAuthoredValue() and attribute.Get() == math.inf
    assert pinned.GetPrimAtPath("/World/OneSided").GetAttribute("physics:lowerLimit").Get() == -30


def test_pin_defaults_refuses_an_unsaved_stage():
    """An in-memory stage has no file to write beside: one status line, nothing written."""
    from usdjoints.usdview import commands

    api = usdview_standin.UsdviewApi(Usd.Stage.CreateInMemory())
    outcome = commands.pin_defaults(api)
    assert not outcome.ok
    assert "saved to a file" in api.status[-1]
