"""Tests of the normaliser of OpenUSD's physics parser, and of the parser quirks it documents.

Oracle: the values written by hand in ``sample_stages/`` (and in the small stages below), checked
against what ``UsdPhysics.UsdPhysicsLoadStageFromPrimRange`` reports after normalisation. Float
tolerance 1e-5: the parser returns float32 (``GfVec3f``/``GfQuatf``), ~6e-8 relative per value,
composed through a few float32 transforms.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import usdjoints  # noqa: F401  (PhysX schemas first)
from pxr import Sdf, Usd

from usdphysics_oracle import jsonable, load_descriptors, parse_with_usdphysics

SAMPLES = Path(__file__).resolve().parent.parent / "sample_stages"
FLT_MAX = 3.4028234663852886e38


def _sample(name: str) -> dict:
    return parse_with_usdphysics(Usd.Stage.Open(str(SAMPLES / f"{name}.usda")))


def _inline(body: str, header: str = 'metersPerUnit = 1\n    upAxis = "Z"') -> dict:
    layer = Sdf.Layer.CreateAnonymous(".usda")
    layer.ImportFromString(f'#usda 1.0\n(\n    {header}\n)\n\ndef Xform "World"\n{{\n{body}\n}}\n')
    stage = Usd.Stage.Open(layer)
    return parse_with_usdphysics(stage)


def _close(actual, expected, tol=1e-5):
    return all(math.isclose(a, e, rel_tol=tol, abs_tol=tol) for a, e in zip(actual, expected, strict=True))


def _body(name: str, x: float = 0.0, extra: str = "") -> str:
    return f'''
    def Cube "{name}" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI", "PhysicsCollisionAPI"])
    {{
        float physics:mass = 1
        double3 xformOp:translate = ({x}, 0, 0)
        {extra}
        uniform token[] xformOpOrder = ["xformOp:translate"{', "xformOp:scale"' if "scale" in extra else ""}]
    }}'''


def _limit(joint: dict, dof: str) -> dict:
    (entry,) = [limit for limit in joint["limits"] if limit["dof"] == dof]
    return entry


# ---- the sample stages read back as written -------------------------------------------------

def test_every_sample_normalises_to_strict_json():
    """Oracle: json.dumps(allow_nan=False); every sample parses and has at least one joint."""
    for path in sorted(SAMPLES.glob("*.usda")):
        result = parse_with_usdphysics(Usd.Stage.Open(str(path)))
        json.dumps(jsonable(result), allow_nan=False)
        assert result["joints"], path.name


def test_revolute_basic():
    """Oracle: the values authored in sample_stages/revolute_basic.usda."""
    hinge = _sample("revolute_basic")["joints"]["/World/Hinge"]
    assert (hinge["type"], hinge["axis"], hinge["body0"], hinge["body1"]) == ("revolute", "Z", "/World/Base", "/World/Link")
    assert _limit(hinge, "angular") == {"dof": "angular", "enabled": True, "low": -45.0, "high": 60.0}
    assert hinge["drives"] == [{"dof": "angular", "type": "force", "stiffness": 100.0, "damping": 10.0,
                                "max_force": 50.0, "target_position": 15.0, "target_velocity": 0.0}]
    assert _close(hinge["local_pose0"]["position"], [0.75, 0, 0])
    assert _close(hinge["local_pose1"]["position"], [-0.25, 0, 0])


def test_prismatic_basic():
    """Oracle: sample_stages/prismatic_basic.usda; unauthored maxForce on an applied drive is +inf."""
    slide = _sample("prismatic_basic")["joints"]["/World/Slide"]
    limit = _limit(slide, "linear")
    assert limit["enabled"] and _close([limit["low"], limit["high"]], [-0.2, 0.8])
    (drive,) = slide["drives"]
    assert drive["type"] == "acceleration" and drive["max_force"] == math.inf
    assert _close([drive["stiffness"], drive["damping"], drive["target_position"], drive["target_velocity"]], [20, 4, 0.3, 0.1])
    assert _close(slide["local_pose0"]["orientation"], [0.70710677, 0, 0, 0.70710677])


def test_spherical_cone():
    """Oracle: sample_stages/spherical_cone.usda; low/high are coneAngle0/coneAngle1 [deg]."""
    joints = _sample("spherical_cone")["joints"]
    assert _limit(joints["/World/Cone"], "cone") == {"dof": "cone", "enabled": True, "low": 30.0, "high": 45.0}
    assert _limit(joints["/World/Free"], "cone")["enabled"] is False


def test_distance_minmax():
    """Oracle: sample_stages/distance_minmax.usda; an unauthored minDistance disables that side only."""
    joints = _sample("distance_minmax")["joints"]
    rope = _limit(joints["/World/Rope"], "distance")
    assert rope["enabled"] and rope["low_enabled"] and rope["high_enabled"]
    assert _close([rope["low"], rope["high"]], [0.5, 2.0])
    leash = _limit(joints["/World/Leash"], "distance")
    assert leash["enabled"] and not leash["low_enabled"] and leash["high_enabled"] and leash["high"] == 1.5


def test_d6_limits_and_drives():
    """Oracle: sample_stages/d6_limits_drives.usda; rotZ has no LimitAPI and so no entry."""
    d6 = _sample("d6_limits_drives")["joints"]["/World/D6"]
    assert d6["type"] == "d6"
    assert [limit["dof"] for limit in d6["limits"]] == ["transX", "transY", "transZ", "rotX", "rotY", "distance"]
    assert (_limit(d6, "transX")["low"], _limit(d6, "transX")["high"]) == (1.0, -1.0)
    assert (_limit(d6, "rotY")["low"], _limit(d6, "rotY")["high"]) == (-10.0, 20.0)
    assert (_limit(d6, "distance")["low"], _limit(d6, "distance")["high"]) == (-math.inf, 0.5)
    drives = {drive["dof"]: drive for drive in d6["drives"]}
    assert set(drives) == {"transY", "rotX", "rotZ"}
    assert drives["rotX"]["max_force"] == 200.0 and drives["rotX"]["target_position"] == 10.0
    assert drives["transY"]["type"] == "acceleration"
    assert drives["rotZ"]["target_velocity"] == 30.0 and drives["rotZ"]["max_force"] == math.inf


def test_units_centimeters_values_stay_in_stage_units():
    """Oracle: sample_stages/units_centimeters.usda; the parser does not rescale by metersPerUnit."""
    joints = _sample("units_centimeters")["joints"]
    slide = joints["/World/DrawerSlide"]
    assert _close(slide["local_pose0"]["position"], [0, 0, 10])
    assert (_limit(slide, "linear")["low"], _limit(slide, "linear")["high"]) == (0.0, 25.0)
    assert slide["drives"][0]["target_position"] == 12.5
    assert _limit(joints["/World/FlapHinge"], "angular")["high"] == 120.0


def test_scaled_rotated_bodies_bake_scale():
    """Oracle: sample_stages/scaled_rotated_xforms.usda header (world scale x authored localPos)."""
    result = _sample("scaled_rotated_xforms")
    elbow = result["joints"]["/World/Elbow"]
    assert _close(elbow["local_pose0"]["position"], [0.5, 0, 0])
    assert _close(elbow["local_pose1"]["position"], [0, 0.3, 0])
    assert _close(result["bodies"]["/World/Frame/Upper"]["scale"], [2, 1, 0.5])
    shoulder = result["joints"]["/World/Shoulder"]
    assert shoulder["body0"] is None
    assert _close(shoulder["local_pose0"]["position"], [-0.4330127, -0.25, 2])
    assert _close(shoulder["local_pose1"]["position"], [-0.5, 0, 0])


def test_child_prim_targets_are_lifted():
    """Oracle: sample_stages/child_prim_targets.usda header: frames lifted into link1 / link2."""
    hinge = _sample("child_prim_targets")["joints"]["/World/Hinge"]
    assert (hinge["body0"], hinge["body1"]) == ("/World/link1", "/World/link2")
    assert (hinge["body0_target"], hinge["body1_target"]) == ("/World/link1/visual", "/World/link2/visual/tip")
    assert _close(hinge["local_pose0"]["position"], [0.4, 0, 0])
    assert _close(hinge["local_pose1"]["position"], [-0.4, 0, 0])
    assert _close(hinge["local_pose1"]["orientation"], [1, 0, 0, 0])


def test_world_anchored_sides():
    """Oracle: sample_stages/fixed_world_anchor.usda; absent relationships read as the world."""
    joints = _sample("fixed_world_anchor")["joints"]
    assert (joints["/World/Weld"]["body0"], joints["/World/Weld"]["body1"]) == (None, "/World/Post")
    assert _close(joints["/World/Weld"]["local_pose0"]["position"], [0, 0, 2])
    assert (joints["/World/Pendulum"]["body0"], joints["/World/Pendulum"]["body1"]) == ("/World/Bob", None)
    assert joints["/World/Glue"]["enabled"] is False


def test_articulations_of_arm_and_four_bar():
    """Oracle: the articulation trees drawn in the two samples' headers."""
    (arm,) = _sample("arm_articulation")["articulations"]
    assert arm["root"] == "/World/Arm" and arm["root_prims"] == ["/World/Arm/BaseWeld"] and arm["fixed_base"]
    assert arm["links"] == sorted(f"/World/Arm/{n}" for n in ("Base", "Shoulder", "UpperArm", "Forearm", "Finger"))
    assert len(arm["joints"]) == 5
    (four_bar,) = _sample("four_bar_loop")["articulations"]
    assert four_bar["root"] == "/World/Root" and four_bar["fixed_base"]
    assert len(four_bar["links"]) == 4
    assert "/World/RockerGround" not in four_bar["loop_free_joints"]


def test_couplings_are_custom_joints_with_their_type():
    """Oracle: schema type names in rack_and_pinion.usda and gear_pair.usda."""
    rack = _sample("rack_and_pinion")["joints"]["/World/RackAndPinion"]
    gear = _sample("gear_pair")["joints"]["/World/Gear"]
    assert (rack["type"], rack["schema_type"]) == ("rack_and_pinion", "PhysxPhysicsRackAndPinionJoint")
    assert (gear["type"], gear["body0"], gear["body1"]) == ("gear", "/World/Gear0", "/World/Gear1")
    assert rack["limits"] == [] and rack["drives"] == []


# ---- parser quirks named in the module docstring ---------------------------------------------

def test_quirk_and_rule_for_revolute_limits():
    """Quirk: only lowerLimit authored -> limit disabled (PhysX would enable it: OR rule)."""
    joint = _sample("bad_onesided_limit")["joints"]["/World/OneSided"]
    assert _limit(joint, "angular") == {"dof": "angular", "enabled": False, "low": -30.0, "high": math.inf}


def test_quirk_non_unit_local_rot_is_normalised_silently():
    """Quirk: localRot0 (2, 0, 0, 0) comes back as identity, localRot1 (0, 0, 0, 3) as (0, 0, 0, 1)."""
    result = _inline(_body("A") + _body("B", 2) + '''
    def PhysicsFixedJoint "J"
    {
        rel physics:body0 = </World/A>
        rel physics:body1 = </World/B>
        quatf physics:localRot0 = (2, 0, 0, 0)
        quatf physics:localRot1 = (0, 0, 0, 3)
    }''')
    joint = result["joints"]["/World/J"]
    assert joint["local_pose0"]["orientation"] == [1.0, 0.0, 0.0, 0.0]
    assert _close(joint["local_pose1"]["orientation"], [0, 0, 0, 1])


def test_quirk_dangling_body_becomes_world_and_articulation_root():
    """Quirk: body0 -> missing prim resolves to the world and that joint is elected root."""
    result = _sample("bad_dangling_body")
    mount = result["joints"]["/World/Robot/Mount"]
    assert mount["body0"] is None and mount["body0_target"] == "/World/Robot/Stand"
    (robot,) = result["articulations"]
    assert robot["root_prims"] == ["/World/Robot/Mount"] and robot["fixed_base"]


def test_quirk_distance_limit_flag_is_always_false():
    """Quirk: DistanceJointDesc.limit.enabled is false even with both bounds authored."""
    stage = Usd.Stage.Open(str(SAMPLES / "distance_minmax.usda"))
    (rope,) = [desc for path, desc in load_descriptors(stage)["DistanceJoint"] if str(path) == "/World/Rope"]
    assert rope.limit.enabled is False and rope.minEnabled and rope.maxEnabled


def test_quirk_cone_needs_both_angles():
    """Quirk: a cone with coneAngle0 = 30 and coneAngle1 = -1 is disabled as a whole."""
    result = _inline(_body("A") + _body("B", 2) + '''
    def PhysicsSphericalJoint "J"
    {
        rel physics:body0 = </World/A>
        rel physics:body1 = </World/B>
        float physics:coneAngle0Limit = 30
        float physics:coneAngle1Limit = -1
    }''')
    assert _limit(result["joints"]["/World/J"], "cone")["enabled"] is False


def test_quirk_force_limit_flt_max_without_drive_api_inf_with_it():
    """Quirk: two different 'no force limit' values depending on whether DriveAPI is applied."""
    stage = Usd.Stage.Open(str(SAMPLES / "gear_pair.usda"))
    drives = {str(path): desc.drive for path, desc in load_descriptors(stage)["RevoluteJoint"]}
    assert drives["/World/Hinge0"].enabled and drives["/World/Hinge0"].forceLimit == math.inf
    assert not drives["/World/Hinge1"].enabled and drives["/World/Hinge1"].forceLimit == pytest.approx(FLT_MAX)


def test_quirk_drive_on_unread_instance_is_dropped():
    """Quirk: drive:linear on a revolute vanishes without a message."""
    motor = _sample("bad_drive_on_revolute")["joints"]["/World/Motor"]
    assert motor["drives"] == []


def test_quirk_excluded_joint_still_listed_in_articulation():
    """Quirk: the four-bar's excludeFromArticulation hinge is in articulatedJoints anyway."""
    result = _sample("four_bar_loop")
    (four_bar,) = result["articulations"]
    assert result["joints"]["/World/RockerGround"]["exclude_from_articulation"] is True
    assert "/World/RockerGround" in four_bar["joints"]


def test_quirk_mirrored_body_negates_baked_position():
    """Quirk: scale (-1, 1, 1) decomposes to scale (-1, -1, -1) + 180 deg about X."""
    result = _sample("bad_mirrored_body")
    assert _close(result["bodies"]["/World/Mirror/RightWheel"]["scale"], [-1, -1, -1])
    assert _close(result["joints"]["/World/RightAxle"]["local_pose1"]["position"], [-0.3, 0, 0])


def test_quirk_couplings_are_free_d6_without_custom_tokens():
    """Quirk: without custom joint tokens a rack-and-pinion is a D6 with no limit: a free joint."""
    stage = Usd.Stage.Open(str(SAMPLES / "rack_and_pinion.usda"))
    rack = parse_with_usdphysics(stage, custom_joint_tokens=())["joints"]["/World/RackAndPinion"]
    assert rack["type"] == "d6" and rack["limits"] == [] and rack["drives"] == []


def test_quirk_gear_with_wrong_relationship_names_still_parses():
    """Quirk: physxGearJoint:hinge0/1 gives a gear joint all the same (hinges are never read)."""
    gear = _sample("bad_gear_relnames")["joints"]["/World/Gear"]
    assert gear["type"] == "gear" and gear["body0"] == "/World/A"


def test_quirk_typo_joint_type_is_ignored():
    """Quirk: DistancePhysicsJoint with physics:* columns is not reported at all."""
    joints = _sample("bad_typo_joint_type")["joints"]
    assert "/World/Rope" not in joints and "/World/Spring" in joints


def test_quirk_single_body_articulation_lists_only_the_world():
    """Quirk: a one-body articulation welded to the world reports articulatedBodies = [world]."""
    result = _inline('''
    def Xform "Robot" (prepend apiSchemas = ["PhysicsArticulationRootAPI"])
    {''' + _body("Link").replace("\n", "\n    ") + '''
        def PhysicsRevoluteJoint "J"
        {
            rel physics:body1 = </World/Robot/Link>
        }
    }''')
    (robot,) = result["articulations"]
    assert robot["fixed_base"] and robot["links"] == [] and robot["joints"] == ["/World/Robot/J"]


def test_quirk_disabled_body_is_passed_over_for_the_enabled_one_above():
    """Quirk (usd-core 26.11): a joint on a body with rigidBodyEnabled = false resolves to the
    nearest enabled body above it; with none, to the world."""
    result = _inline('''
    def Xform "Outer" (prepend apiSchemas = ["PhysicsRigidBodyAPI"])
    {
        def Xform "Inner" (prepend apiSchemas = ["PhysicsRigidBodyAPI"])
        {
            bool physics:rigidBodyEnabled = 0
        }
    }
    def Xform "Lone" (prepend apiSchemas = ["PhysicsRigidBodyAPI"])
    {
        bool physics:rigidBodyEnabled = 0
    }
    def PhysicsFixedJoint "Weld"
    {
        rel physics:body0 = </World/Outer/Inner>
        rel physics:body1 = </World/Lone>
    }''')
    weld = result["joints"]["/World/Weld"]
    assert weld["body0"] == "/World/Outer" and weld["body1"] is None


def test_quirk_articulation_lists_every_enabled_joint_of_its_links_and_roots_at_the_centre():
    """Quirk: articulatedJoints holds excluded joints too, and a floating articulation under an
    Xform is rooted at the centre of its graph, distances taken along a depth-first walk that
    follows excluded joints as well: in this triangle every body is 2 from its farthest, each has
    two neighbours, and the first body reached wins."""
    bodies = "".join(_body(name, x).replace("\n", "\n    ") for name, x in (("A", 0), ("B", 1), ("C", 2)))
    result = _inline('''
    def Xform "Robot" (prepend apiSchemas = ["PhysicsArticulationRootAPI"])
    {''' + bodies + '''
        def PhysicsRevoluteJoint "AB"
        {
            rel physics:body0 = </World/Robot/A>
            rel physics:body1 = </World/Robot/B>
        }
        def PhysicsRevoluteJoint "BC"
        {
            rel physics:body0 = </World/Robot/B>
            rel physics:body1 = </World/Robot/C>
        }
        def PhysicsRevoluteJoint "CA"
        {
            bool physics:excludeFromArticulation = 1
            rel physics:body0 = </World/Robot/C>
            rel physics:body1 = </World/Robot/A>
        }
    }''')
    (robot,) = result["articulations"]
    assert robot["joints"] == ["/World/Robot/AB", "/World/Robot/BC", "/World/Robot/CA"]
    assert robot["root_prims"] == ["/World/Robot/A"]

def test_benchmark_chain_stage_as_the_parser_reads_it(tmp_path):
    """Oracle: OpenUSD's parser on benchmarks/make_chain_stage.py output (7 joints, chains of 3)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_chain_stage", SAMPLES.parent / "benchmarks" / "make_chain_stage.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for suffix in (".usda", ".usdc"):
        path = module.make_chain_stage(tmp_path / f"chain{suffix}", n_joints=7, chain_length=3)
        result = parse_with_usdphysics(Usd.Stage.Open(str(path)))
        assert sorted(j["type"] for j in result["joints"].values()) == ["revolute"] * 7
        assert [a["root_prims"] for a in result["articulations"]] == [[f"/World/Chain{c}/Joint0"] for c in range(3)]
        assert all(a["fixed_base"] for a in result["articulations"])
        first = result["joints"]["/World/Chain1/Joint0"]
        assert first["body0"] is None and _close(first["local_pose0"]["position"], [0.25, 2.0, 1.0])
        limited = [j for j in result["joints"].values() if j["limits"][0]["enabled"]]
        driven = [j for j in result["joints"].values() if j["drives"]]
        # per chain k = 0,1,2 | 0,1,2 | 0: limits where k % 2 == 0, drives where k % 3 == 0
        assert len(limited) == 5 and len(driven) == 3


def test_samples_are_complete_enough_to_simulate():
    """Oracle: USD metadata and applied schemas; units, a scene, mass and a collider per body."""
    from pxr import UsdGeom, UsdPhysics

    for path in sorted(SAMPLES.glob("*.usda")):
        stage = Usd.Stage.Open(str(path))
        for key in ("metersPerUnit", "kilogramsPerUnit", "upAxis"):
            assert stage.HasAuthoredMetadata(key), (path.name, key)
        prims = list(stage.Traverse())
        assert any(prim.IsA(UsdPhysics.Scene) for prim in prims), path.name
        for body in (prim for prim in prims if prim.HasAPI(UsdPhysics.RigidBodyAPI)):
            mass = UsdPhysics.MassAPI(body)
            assert mass.GetMassAttr().HasAuthoredValue() and mass.GetDiagonalInertiaAttr().HasAuthoredValue(), body.GetPath()
            colliders = [p for p in Usd.PrimRange(body) if p.HasAPI(UsdPhysics.CollisionAPI)]
            assert colliders and all(p.IsA(UsdGeom.Cube) or p.IsA(UsdGeom.Sphere) or p.IsA(UsdGeom.Capsule)
                                     for p in colliders), body.GetPath()
