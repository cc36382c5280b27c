"""Tests of the random stage generator used by the walker/parser cross-check.

Oracles: the layer text itself (reproducibility), USD's own prim types and applied schemas
(coverage, counted by traversal, not by the code under test), OpenUSD's parser (every joint prim
authored is one it reports), and the identity that an unsheared transform has mutually orthogonal
rows.
"""
from __future__ import annotations

import collections
import math

import pytest

import usdjoints  # noqa: F401  (PhysX schemas first)
from pxr import Sdf, Usd, UsdGeom, UsdPhysics

from stagegen import D6_INSTANCES, DRIVE_INSTANCES, generate_stage
from usdphysics_oracle import load_descriptors

SEEDS = range(200)
_TYPE_KINDS = {
    "PhysicsRevoluteJoint": "revolute",
    "PhysicsPrismaticJoint": "prismatic",
    "PhysicsSphericalJoint": "spherical",
    "PhysicsFixedJoint": "fixed",
    "PhysicsDistanceJoint": "distance",
    "PhysicsJoint": "d6",
}


def _joints(stage: Usd.Stage) -> list[Usd.Prim]:
    return [prim for prim in stage.Traverse() if prim.IsA(UsdPhysics.Joint)]


@pytest.fixture(scope="module")
def stages() -> dict[int, Usd.Stage]:
    return {seed: generate_stage(seed) for seed in SEEDS}


def test_same_seed_same_layer_text():
    """Oracle: the exported layer text; two draws of one seed must be byte-identical."""
    first, second = generate_stage(17), generate_stage(17)
    assert first.GetRootLayer().ExportToString() == second.GetRootLayer().ExportToString()
    other = generate_stage(18)
    assert other.GetRootLayer().ExportToString() != first.GetRootLayer().ExportToString()


def test_every_joint_type_appears(stages):
    """Oracle: prim type names counted by traversal over 200 seeds."""
    kinds = collections.Counter(
        _TYPE_KINDS[str(prim.GetTypeName())] for stage in stages.values() for prim in _joints(stage)
    )
    assert set(kinds) == set(_TYPE_KINDS.values())
    assert min(kinds.values()) >= 50


def test_body_count_and_units(stages):
    """Oracle: applied schemas and stage metadata; 2-12 bodies, units set, some non-SI."""
    meters = set()
    for stage in stages.values():
        bodies = [prim for prim in stage.Traverse() if prim.HasAPI(UsdPhysics.RigidBodyAPI)]
        assert 2 <= len(bodies) <= 12
        assert all(body.HasAPI(UsdPhysics.MassAPI) for body in bodies)
        assert stage.HasAuthoredMetadata("metersPerUnit") and stage.HasAuthoredMetadata("upAxis")
        meters.add(UsdGeom.GetStageMetersPerUnit(stage))
    assert 1.0 in meters and len(meters) > 1


def test_every_hazard_is_drawn(stages):
    """Oracle: authored attributes read back through USD; each feature occurs in some seed."""
    seen = collections.Counter()
    for stage in stages.values():
        seen["articulations>1"] += sum(p.HasAPI(UsdPhysics.ArticulationRootAPI) for p in stage.Traverse()) > 1
        for prim in stage.Traverse():
            if prim.HasAPI(UsdPhysics.ArticulationRootAPI):
                seen["root on " + ("joint" if prim.IsA(UsdPhysics.Joint) else
                                   "body" if prim.HasAPI(UsdPhysics.RigidBodyAPI) else "xform")] += 1
        for prim in _joints(stage):
            joint = UsdPhysics.Joint(prim)
            for rel in (joint.GetBody0Rel(), joint.GetBody1Rel()):
                targets = rel.GetTargets()
                if not targets:
                    seen["world side"] += 1
                elif not stage.GetPrimAtPath(targets[0]).HasAPI(UsdPhysics.RigidBodyAPI):
                    seen["child target"] += 1
            for attr in (joint.GetLocalRot0Attr(), joint.GetLocalRot1Attr()):
                if attr.HasAuthoredValue() and abs(attr.Get().GetLength() - 1.0) > 1e-3:
                    seen["non-unit quaternion"] += 1
            seen["disabled"] += joint.GetJointEnabledAttr().Get() is False
            seen["excluded"] += bool(joint.GetExcludeFromArticulationAttr().Get())
            for name in ("lowerLimit", "upperLimit", "coneAngle0Limit", "minDistance"):
                attr = prim.GetAttribute("physics:" + name)
                if attr and attr.HasAuthoredValue():
                    value = attr.Get()
                    seen[name + (" inf" if math.isinf(value) else " -1" if value == -1 else " finite")] += 1
            for instance in D6_INSTANCES:
                seen["limit " + instance] += prim.HasAPI(UsdPhysics.LimitAPI, instance)
            for instance in DRIVE_INSTANCES:
                seen["drive " + instance] += prim.HasAPI(UsdPhysics.DriveAPI, instance)
    wanted = ["articulations>1", "root on joint", "root on body", "root on xform", "world side",
              "child target", "non-unit quaternion", "disabled", "excluded",
              "lowerLimit inf", "lowerLimit finite", "upperLimit inf", "coneAngle0Limit -1",
              "coneAngle0Limit finite", "minDistance finite", "minDistance -1"]
    wanted += ["limit " + i for i in D6_INSTANCES] + ["drive " + i for i in DRIVE_INSTANCES]
    missing = [name for name in wanted if seen[name] == 0]
    assert not missing, missing


def test_no_transform_is_sheared(stages):
    """Oracle: identity; a transform without shear has mutually orthogonal rows (scale then rotate).

    Tolerance 1e-6 relative: float32 rotation ops carry ~1e-7 relative error.
    """
    for seed, stage in stages.items():
        cache = UsdGeom.XformCache()
        for prim in stage.Traverse():
            if not prim.IsA(UsdGeom.Xformable):
                continue
            m = cache.GetLocalToWorldTransform(prim)
            rows = [[m[i][j] for j in range(3)] for i in range(3)]
            for a in range(3):
                for b in range(a + 1, 3):
                    dot = sum(rows[a][k] * rows[b][k] for k in range(3))
                    norms = math.dist(rows[a], [0, 0, 0]) * math.dist(rows[b], [0, 0, 0])
                    assert abs(dot) <= 1e-6 * norms, (seed, prim.GetPath())


def test_stages_reopen_and_parse_cleanly(stages, tmp_path):
    """Oracle: USD reopens the exported text, and OpenUSD's parser reports every joint prim."""
    for seed in list(SEEDS)[::10]:
        path = tmp_path / f"gen_{seed}.usda"
        stages[seed].GetRootLayer().Export(str(path))
        reopened = Usd.Stage.Open(str(path))
        assert reopened is not None
        reported = {
            str(path) for name, entries in load_descriptors(reopened).items() if name.endswith("Joint")
            for path, _ in entries
        }
        assert reported == {str(prim.GetPath()) for prim in _joints(reopened)}
        assert Sdf.Layer.FindOrOpen(str(path)).ExportToString() == stages[seed].GetRootLayer().ExportToString()


def test_every_added_hazard_is_drawn():
    """Oracle: applied schemas and authored attributes read back through USD over 200 seeds."""
    from stagegen import generate_hazard_stage

    seen = collections.Counter()
    for seed in SEEDS:
        stage = generate_hazard_stage(seed)
        for prim in stage.Traverse():
            if prim.HasAPI(UsdPhysics.RigidBodyAPI):
                api = UsdPhysics.RigidBodyAPI(prim)
                seen["disabled body"] += not api.GetRigidBodyEnabledAttr().Get()
                seen["kinematic body"] += bool(api.GetKinematicEnabledAttr().Get())
            if prim.IsA(UsdPhysics.Joint) and str(prim.GetPath()).startswith("/World/Hazards"):
                joint = UsdPhysics.Joint(prim)
                pair = (tuple(joint.GetBody0Rel().GetTargets()), tuple(joint.GetBody1Rel().GetTargets()))
                seen["self joint"] += pair[0] == pair[1]
                seen["distance joint"] += prim.IsA(UsdPhysics.DistanceJoint)
                seen["duplicate pair"] += "duplicates" in prim.GetName()
                seen["mocap weld"] += "mocap" in prim.GetName()
    assert all(seen[k] >= 10 for k in ("disabled body", "kinematic body", "self joint", "distance joint",
                                       "duplicate pair", "mocap weld")), seen
