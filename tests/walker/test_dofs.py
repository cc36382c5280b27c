"""The per-dof view (``joints[].dofs``, ``dropped``, ``merged_into``) of the one-joint-per-prim consumers.

Oracle: OpenUSD's parser (``UsdPhysics.UsdPhysicsLoadStageFromPrimRange``) on the sample stages:
each dof of the ``usdphysics`` view carries the parser's enabled limit and its drive's stiffness,
damping and force limit; a D6 has every axis the parser does not lock (low > high). Newton's view
is read back through Newton in tests/oracle/test_walk_vs_newton.py.
"""
from __future__ import annotations

import math
from pathlib import Path

import pytest

from usdphysics_oracle import parse_with_usdphysics

SAMPLES = sorted((Path(__file__).resolve().parents[2] / "sample_stages").glob("*.usda"))
D6_AXES = ("transX", "transY", "transZ", "rotX", "rotY", "rotZ")


def _close(a: float, b: float) -> bool:
    # the parser reads float attributes as float32: 1e-6 relative covers the rounding
    return a == b or (math.isfinite(a) and math.isfinite(b) and abs(a - b) <= 1e-6 * max(1.0, abs(a)))


@pytest.mark.parametrize("stage_path", SAMPLES, ids=lambda p: p.stem)
def test_usdphysics_dofs_carry_the_parsers_limits_and_drives(stage_path):
    from pxr import Usd

    from usdjoints.walker import walk

    stage = Usd.Stage.Open(str(stage_path))
    parsed = dict(parse_with_usdphysics(stage)["joints"])
    description = walk(stage, consumer="usdphysics")
    for joint in description.joints:
        oracle = parsed.get(joint.path)
        if oracle is None or joint.dropped:
            continue
        if joint.type == "d6":
            locked = {l["dof"] for l in oracle["limits"] if l["enabled"] and l["low"] > l["high"]}
            assert [d.dof for d in joint.dofs] == [a for a in D6_AXES if a not in locked], joint.path
        limits = {l["dof"]: l for l in oracle["limits"] if l["enabled"]}
        drives = {d["dof"]: d for d in oracle["drives"]}
        for dof in joint.dofs:
            assert dof.source == joint.path and joint.merged_into is None
            limit = limits.get(dof.dof)
            if limit is not None and joint.type != "spherical":
                assert _close(dof.limit_lower.value, limit["low"]), (joint.path, dof.dof)
                assert _close(dof.limit_upper.value, limit["high"]), (joint.path, dof.dof)
            elif joint.type in ("revolute", "prismatic", "d6"):
                assert (dof.limit_lower.value, dof.limit_upper.value) == (-math.inf, math.inf), (joint.path, dof.dof)
            drive = drives.get(dof.dof)
            if drive is not None:
                assert _close(dof.target_ke.value, drive["stiffness"]), (joint.path, dof.dof)
                assert _close(dof.target_kd.value, drive["damping"]), (joint.path, dof.dof)
                assert _close(dof.effort_limit.value, drive["max_force"]), (joint.path, dof.dof)
            else:
                assert (dof.target_ke.value, dof.target_kd.value) == (0.0, 0.0)
            # the parser holds no armature, friction or speed limit: the view says so
            assert {dof.armature.source, dof.friction.source, dof.velocity_limit.source} == {"not_read"}


def test_physx_articulation_d6_keeps_rotational_axes_only(tmp_path):
    """Oracle: ovphysx 0.7 (FACTS.md, profiles/ovphysx.py): articulation D6 joints have rotational
    axes only; the same joint outside an articulation keeps its translations."""
    from pxr import Gf, Usd, UsdGeom, UsdPhysics

    from usdjoints.walker import walk

    stage = Usd.Stage.CreateNew(str(tmp_path / "d6.usda"))
    UsdGeom.Xform.Define(stage, "/R")
    UsdPhysics.ArticulationRootAPI.Apply(stage.GetPrimAtPath("/R"))
    for name, z in (("A", 0.0), ("B", 1.0)):
        cube = UsdGeom.Cube.Define(stage, f"/R/{name}")
        cube.AddTranslateOp().Set(Gf.Vec3d(0, 0, z))
        UsdPhysics.RigidBodyAPI.Apply(cube.GetPrim())
    weld = UsdPhysics.FixedJoint.Define(stage, "/R/Weld")
    weld.CreateBody1Rel().SetTargets(["/R/A"])
    d6 = UsdPhysics.Joint.Define(stage, "/R/D6")
    d6.CreateBody0Rel().SetTargets(["/R/A"])
    d6.CreateBody1Rel().SetTargets(["/R/B"])
    limit = UsdPhysics.LimitAPI.Apply(d6.GetPrim(), "transX")
    limit.CreateLowAttr(1.0)
    limit.CreateHighAttr(-1.0)  # locked
    stage.Save()
    physx = walk(stage, consumer="ovphysx").joint("/R/D6")
    assert physx.articulation is not None
    assert [d.dof for d in physx.dofs] == ["rotX", "rotY", "rotZ"]
    assert [d.dof for d in walk(stage, consumer="usdjoints").joint("/R/D6").dofs] == [
        "transY", "transZ", "rotX", "rotY", "rotZ"]


def test_a_disabled_joint_is_dropped_with_no_dofs():
    """Oracle: OpenUSD's parser and Newton build no joint with jointEnabled = false (measured; see
    tests/oracle/newton_stages.py "disabled_joint"); PhysX creates none either."""
    from pxr import Sdf, Usd

    from usdjoints.walker import walk

    sample = next(p for p in SAMPLES if p.stem == "revolute_basic")
    stage = Usd.Stage.CreateInMemory()
    stage.GetRootLayer().subLayerPaths.append(str(sample))
    stage.OverridePrim("/World/Hinge").CreateAttribute("physics:jointEnabled", Sdf.ValueTypeNames.Bool).Set(False)
    for consumer in ("ovphysx", "usdphysics", "usdjoints", "newton"):
        joint = walk(stage, consumer=consumer).joint("/World/Hinge")
        assert joint.dropped and joint.dofs == (), consumer
