"""Which joints PhysX keeps in an articulation's tree, against ``walk --consumer ovphysx``.

Oracle: ovphysx 0.7 on the CPU through the probe in this folder: a joint with DOF rows in an
articulation is one PhysX kept in the tree; a revolute joint without is one it simulates beside
the articulation (a loop-closing or skipped duplicate). Cases, each a stage written here:

* several revolute joints between one body pair, in every definition order, with swapped body
  order, with some excluded, with the root API on the Xform or on the world joint (the MJCF
  humanoid's abdomen_z/abdomen_y pair among them);
* loops of three bodies, fixed or floating, bodies defined in either order, and a triangle with a
  tail whose centre is not its first body;
* kinematic bodies: a kinematic base welded to the world, a kinematic mocap body welded (fixed or
  revolute) to a floating chain: PhysX builds no articulation at all; with the root API on a
  dynamic link instead, the kinematic body is a link, simulated as dynamic (it falls);
* the root API on a joint to the world, enabled or disabled (seed 5 of the generated hazard
  stages, reduced by removing one prim or property at a time while PhysX still built nothing).

Measured rule (now the ovphysx profile's): of the joints on one body, PhysX tries them in path
order, whatever the stage order or body order, growing the tree depth first from the elected root
(the link welded to the world, else the centre of the graph, ties by path). A root on a joint
with jointEnabled = false is ignored: no articulation is built from it.
"""
from __future__ import annotations

import itertools

import pytest
from pxr import Usd, UsdGeom, UsdPhysics

from samples import REPO
from usdjoints.walker import walk

pytestmark = pytest.mark.oracle


def _write(path, bodies, joints, *, root="/robot", anchor=None, kinematic=()):
    """``joints``: (name, body0, body1, kind, excluded) in definition order."""
    stage = Usd.Stage.CreateNew(str(path))
    UsdGeom.SetStageUpAxis(stage, "Z")
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    UsdPhysics.Scene.Define(stage, "/physicsScene")
    UsdGeom.Xform.Define(stage, "/robot")
    for name in bodies:
        cube = UsdGeom.Cube.Define(stage, f"/robot/{name}")
        cube.GetSizeAttr().Set(0.1)
        api = UsdPhysics.RigidBodyAPI.Apply(cube.GetPrim())
        UsdPhysics.CollisionAPI.Apply(cube.GetPrim())
        UsdPhysics.MassAPI.Apply(cube.GetPrim()).GetMassAttr().Set(1.0)
        if name in kinematic:
            api.GetKinematicEnabledAttr().Set(True)
    if anchor:
        UsdPhysics.FixedJoint.Define(stage, "/robot/anchor").GetBody1Rel().AddTarget(f"/robot/{anchor}")
    for name, body0, body1, kind, excluded in joints:
        schema = UsdPhysics.FixedJoint if kind == "fixed" else UsdPhysics.RevoluteJoint
        joint = schema.Define(stage, f"/robot/{name}")
        joint.GetBody0Rel().AddTarget(f"/robot/{body0}")
        joint.GetBody1Rel().AddTarget(f"/robot/{body1}")
        if excluded:
            joint.GetExcludeFromArticulationAttr().Set(True)
    UsdPhysics.ArticulationRootAPI.Apply(stage.GetPrimAtPath(root))
    stage.Save()
    return path


def _pair_case(order, *, swapped=(), excluded=(), root="/robot"):
    joints = [(name, *(("link", "base") if name in swapped else ("base", "link")), "revolute", name in excluded)
              for name in order]
    return (["base", "link"], joints, {"anchor": "base", "root": root})


PAIRS = {
    **{"pair_" + "_".join(order): _pair_case(order) for order in itertools.permutations(("a_x", "a_y", "a_z"))},
    "humanoid_abdomen": _pair_case(("abdomen_z", "abdomen_y")),
    "pair_swapped_bodies": _pair_case(("a_x", "a_y", "a_z"), swapped=("a_x",)),
    "pair_first_excluded": _pair_case(("a_z", "a_y", "a_x"), excluded=("a_x",)),
    "pair_two_excluded": _pair_case(("a_x", "a_y", "a_z"), excluded=("a_x", "a_y")),
    "pair_root_on_joint": _pair_case(("a_z", "a_y", "a_x"), root="/robot/anchor"),
}
TRIANGLE = [("z_ab", "A", "B", "revolute", False), ("m_ba", "base", "A", "revolute", False),
            ("a_bb", "base", "B", "revolute", False)]
TAIL = [("j_bc", "b", "c", "revolute", False), ("j_cd", "c", "d", "revolute", False),
        ("j_db", "d", "b", "revolute", False), ("j_ce", "c", "e", "revolute", False)]
LOOPS = {
    "loop_fixed": (["base", "A", "B"], TRIANGLE, {"anchor": "base"}),
    "loop_floating": (["base", "A", "B"], TRIANGLE, {}),
    "loop_floating_bodies_reversed": (["B", "A", "base"], TRIANGLE, {}),
    "triangle_with_tail": (["b", "c", "d", "e"], TAIL, {}),
    "triangle_with_tail_reversed": (["e", "d", "c", "b"], TAIL[::-1], {}),
}
KINEMATIC = {
    "kinematic_base_welded": (["base", "A"], [("h", "base", "A", "revolute", False)],
                              {"anchor": "base", "kinematic": ("base",)}),
    "mocap_fixed_weld": (["mocap", "hand", "thumb"], [("weld", "mocap", "hand", "fixed", False),
                                                      ("thumb_j", "hand", "thumb", "revolute", False)],
                         {"kinematic": ("mocap",)}),
    "mocap_revolute_weld": (["mocap", "hand", "thumb"], [("weld", "mocap", "hand", "revolute", False),
                                                         ("thumb_j", "hand", "thumb", "revolute", False)],
                            {"kinematic": ("mocap",)}),
}


def _kept_by_physx(report) -> set:
    return {path for path, joint in report["joints"].items() if joint.get("articulated")}


def _beside_by_physx(report) -> set:
    return {path for path, joint in report["joints"].items() if joint.get("articulated") is False}


@pytest.mark.parametrize("name", sorted({**PAIRS, **LOOPS}))
def test_physx_keeps_the_joints_the_walker_predicts(name, tmp_path, ovphysx_probe):
    bodies, joints, options = {**PAIRS, **LOOPS}[name]
    path = _write(tmp_path / f"{name}.usda", bodies, joints, **options)
    report = ovphysx_probe(path)
    (articulation,) = walk(Usd.Stage.Open(str(path)), "ovphysx").articulations
    revolute = {f"/robot/{j[0]}" for j in joints}
    assert set(articulation.joints) & revolute == _kept_by_physx(report)
    assert revolute - set(articulation.joints) == _beside_by_physx(report)


def test_physx_keeps_abdomen_y_of_the_humanoid_pair(tmp_path, ovphysx_probe):
    """The case issue 15 reports from an MJCF humanoid: abdomen_z defined first, abdomen_y kept."""
    bodies, joints, options = PAIRS["humanoid_abdomen"]
    path = _write(tmp_path / "abdomen.usda", bodies, joints, **options)
    assert _kept_by_physx(ovphysx_probe(path)) == {"/robot/abdomen_y"}
    (articulation,) = walk(Usd.Stage.Open(str(path)), "ovphysx").articulations
    assert "/robot/abdomen_y" in articulation.joints and "/robot/abdomen_z" not in articulation.joints


@pytest.mark.parametrize("name", sorted(KINEMATIC))
def test_an_articulation_reaching_a_kinematic_body_is_not_built(name, tmp_path, ovphysx_probe):
    bodies, joints, options = KINEMATIC[name]
    path = _write(tmp_path / f"{name}.usda", bodies, joints, **options)
    report = ovphysx_probe(path)
    assert report["articulations"] == []
    assert any("kinematic bodies are not supported" in m["text"] for m in report["messages"])
    description = walk(Usd.Stage.Open(str(path)), "ovphysx")
    assert description.articulations == ()
    assert all(joint.articulation is None for joint in description.joints)
    assert any(d.code == "articulation-refused" for d in description.diagnostics)


def _root_joint_stage(path, *, enabled: bool, anchor: bool = True):
    """Two links (base, link) joined by a hinge; the root API on a fixed joint from the world to
    the base, with ``physics:jointEnabled`` = ``enabled``; ``anchor``: a second, enabled fixed
    joint from the world to the base."""
    stage = Usd.Stage.CreateNew(str(path))
    UsdGeom.SetStageUpAxis(stage, "Z")
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    UsdPhysics.Scene.Define(stage, "/physicsScene")
    UsdGeom.Xform.Define(stage, "/robot")
    for name, x in (("base", 0.0), ("link", 1.0)):
        cube = UsdGeom.Cube.Define(stage, f"/robot/{name}")
        cube.GetSizeAttr().Set(0.1)
        cube.AddTranslateOp().Set((x, 0.0, 1.0))
        UsdPhysics.RigidBodyAPI.Apply(cube.GetPrim())
        UsdPhysics.CollisionAPI.Apply(cube.GetPrim())
        UsdPhysics.MassAPI.Apply(cube.GetPrim()).GetMassAttr().Set(1.0)
    hinge = UsdPhysics.RevoluteJoint.Define(stage, "/robot/hinge")
    hinge.GetBody0Rel().AddTarget("/robot/base")
    hinge.GetBody1Rel().AddTarget("/robot/link")
    hinge.GetLocalPos0Attr().Set((0.5, 0.0, 0.0))
    hinge.GetLocalPos1Attr().Set((-0.5, 0.0, 0.0))
    names = ("root_joint", "anchor") if anchor else ("root_joint",)
    for name in names:
        weld = UsdPhysics.FixedJoint.Define(stage, f"/robot/{name}")
        weld.GetBody1Rel().AddTarget("/robot/base")
        weld.GetLocalPos0Attr().Set((0.0, 0.0, 1.0))
    stage.GetPrimAtPath("/robot/root_joint").GetAttribute("physics:jointEnabled").Set(enabled)
    UsdPhysics.ArticulationRootAPI.Apply(stage.GetPrimAtPath("/robot/root_joint"))
    stage.Save()
    return path


@pytest.mark.parametrize("anchor", (True, False), ids=("anchored", "floating"))
@pytest.mark.parametrize("enabled", (True, False), ids=("enabled", "disabled"))
def test_a_root_on_a_disabled_joint_builds_no_articulation(enabled, anchor, tmp_path, ovphysx_probe):
    """Generated seed 5 reduced, one prim at a time, to its smallest stage (a body, the root API on a
    disabled joint to it, one more joint): PhysX builds an articulation from a root joint only when
    that joint is enabled; the joints below it being enabled does not matter. OpenUSD's parser
    gathers one either way."""
    path = _root_joint_stage(tmp_path / "root_joint.usda", enabled=enabled, anchor=anchor)
    report = ovphysx_probe(path)
    description = walk(Usd.Stage.Open(str(path)), "ovphysx")
    assert [a["root"] for a in report["articulations"]] == (["/robot/root_joint"] if enabled else [])
    assert [a.root for a in description.articulations] == (["/robot/root_joint"] if enabled else [])
    assert _kept_by_physx(report) == ({"/robot/hinge"} if enabled else set())
    assert (description.joint("/robot/hinge").articulation is not None) is enabled
    refused = [(d.prim, d.attribute) for d in description.diagnostics if d.code == "root-on-non-link"]
    assert refused == ([] if enabled else [("/robot/root_joint", "physics:jointEnabled")])
    (parsed,) = walk(Usd.Stage.Open(str(path)), "usdphysics").articulations
    assert "/robot/hinge" in parsed.joints


@pytest.mark.parametrize("hazards", (False, True), ids=("base", "hazards"))
@pytest.mark.parametrize("seed", range(10))
def test_generated_stages_physx_keeps_the_joints_the_walker_predicts(seed, hazards, tmp_path, ovphysx_probe):
    """On generated stages (with disabled and kinematic bodies, mocap welds, distance, loop, self
    and duplicate-pair joints when ``hazards``): every joint between two bodies that PhysX holds
    with DOF rows is in one of the walker's articulations, and every one it simulates beside an
    articulation is in none. Joints to the world are left out: PhysX holds the one it makes the
    fixed base without rows, like one it leaves standalone."""
    import stagegen

    stage = stagegen.generate_hazard_stage(seed) if hazards else stagegen.generate_stage(seed)
    path = tmp_path / f"generated_{seed}.usda"
    stage.GetRootLayer().Export(str(path))
    report = ovphysx_probe(path)
    ours = {joint.path: joint.articulation is not None for joint in walk(Usd.Stage.Open(str(path)), "ovphysx").joints
            if joint.body0 is not None and joint.body1 is not None}
    theirs = {p: j["articulated"] for p, j in report["joints"].items() if j.get("articulated") is not None and p in ours}
    # (a stage whose bodies are joined only by fixed joints, which have no rows, compares nothing)
    assert {p: ours[p] for p in theirs} == theirs


KINEMATIC_LINK_STAGE = REPO / "sample_stages" / "bad" / "kinematic-link.usda"
ARM_ROOT = ', "PhysicsArticulationRootAPI"]\n        )\n        {\n            float3 physics:diagonalInertia'
HAND = '''
        def Cube "Hand" (
            prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"]
        )
        {
            float physics:mass = 1
            double3 xformOp:translate = (0, 0, 4)
            uniform token[] xformOpOrder = ["xformOp:translate"]
        }

        def PhysicsRevoluteJoint "Wrist"
        {
            uniform token physics:axis = "Y"
            rel physics:body0 = </World/Robot/Arm>
            rel physics:body1 = </World/Robot/Hand>
            point3f physics:localPos0 = (0, 0, 1)
            point3f physics:localPos1 = (0, 0, -1)
        }
'''


def _kinematic_variant(name: str) -> str:
    """The kinematic-link bad stage (a kinematic base, the root API on the arm jointed to it) and
    variants: the root on the Robot Xform, the shoulder excluded, a hand below the arm with the
    root on the hand."""
    text = KINEMATIC_LINK_STAGE.read_text()
    assert ARM_ROOT in text
    if name == "root_on_xform":
        text = text.replace(ARM_ROOT, ARM_ROOT.replace(', "PhysicsArticulationRootAPI"', ""))
        text = text.replace('def Xform "Robot"\n', 'def Xform "Robot" (\n        prepend apiSchemas = '
                            '["PhysicsArticulationRootAPI"]\n    )\n')
    elif name == "shoulder_excluded":
        text = text.replace('rel physics:body0 = </World/Base>',
                            'bool physics:excludeFromArticulation = 1\n            rel physics:body0 = </World/Base>')
    elif name == "root_on_hand":
        text = text.replace(ARM_ROOT, ARM_ROOT.replace(', "PhysicsArticulationRootAPI"', ""))
        text = text.replace('        def PhysicsRevoluteJoint "Shoulder"', HAND.replace(
            '"PhysicsMassAPI"]', '"PhysicsMassAPI", "PhysicsArticulationRootAPI"]') + '\n        def PhysicsRevoluteJoint "Shoulder"')
    return text


# variant: (PhysX's articulation links, whether the kinematic base falls)
KINEMATIC_LINK_CASES = {
    "root_on_arm": ({"/World/Base", "/World/Robot/Arm"}, True),
    "root_on_hand": ({"/World/Base", "/World/Robot/Arm", "/World/Robot/Hand"}, True),
    "shoulder_excluded": ({"/World/Robot/Arm"}, False),
    "root_on_xform": (set(), False),
}


@pytest.mark.parametrize("name", sorted(KINEMATIC_LINK_CASES))
def test_a_root_on_a_link_takes_kinematic_bodies_as_dynamic_links(name, tmp_path, ovphysx_probe):
    """The root API on a dynamic link whose joints reach a kinematic body: PhysX builds the
    articulation with that body as a link, simulated as dynamic (after 1 s it has fallen 4.9 m,
    as the arm has); excluded, the joint leaves the body kinematic (it stays put and holds the
    arm); with the root on an Xform PhysX refuses the whole articulation. The walk gathers the
    same links and warns (kinematic-link) on the body."""
    path = tmp_path / f"{name}.usda"
    path.write_text(_kinematic_variant(name) if name != "root_on_arm" else KINEMATIC_LINK_STAGE.read_text())
    links, falls = KINEMATIC_LINK_CASES[name]
    report = ovphysx_probe(path, steps=60, dt=1.0 / 60.0)
    physx_links = {p for p, b in report["bodies"].items() if b["final"]["articulation_link"]}
    assert physx_links == links
    base = report["bodies"]["/World/Base"]
    dropped = base["initial"]["position"][2] - base["final"]["position"][2]
    assert dropped == (pytest.approx(0.5 * 9.81, rel=0.02) if falls else pytest.approx(0.0, abs=1e-6))
    description = walk(Usd.Stage.Open(str(path)), "ovphysx")
    assert {link for a in description.articulations for link in a.links} == links
    warned = [(d.prim, d.attribute) for d in description.diagnostics if d.code == "kinematic-link"]
    assert warned == ([("/World/Base", "physics:kinematicEnabled")] if "/World/Base" in links else [])
    assert any(d.code == "articulation-refused" for d in description.diagnostics) is (name == "root_on_xform")
