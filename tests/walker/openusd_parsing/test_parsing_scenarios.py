"""OpenUSD's own UsdPhysics parsing tests as the oracle for the walker's ``usdphysics`` view.

Source of the scenarios: PixarAnimationStudios/OpenUSD,
pxr/usd/usdPhysics/testenv/testUsdPhysicsParsing.py (test_rigidbody_parse,
test_rigidbody_kinematic_parse, test_rigidbody_collision_parse,
test_rigidbody_disabled_nested_body_collision_parse, test_joint_disabled_body_rel_parse,
test_joint_parse, test_articulation_parse, test_nested_bodies_articulation_parse,
test_articulation_kinematic_parse). The stages here are built anew for each scenario, plus the
cases issue 15 names (loops closed by excluded joints, a kinematic body welded to a chain,
distance and self-referencing joints, several joints on one body pair). The oracle is the parser
itself on the same stage (usd-core's UsdPhysicsLoadStageFromPrimRange), compared field by field
in fieldcheck.py; the expectations OpenUSD's test states are asserted as well, so a parser that
changed would show here.
"""
from __future__ import annotations

import pytest
from pxr import Gf, Usd, UsdGeom, UsdPhysics

from fieldcheck import disagreements, fields
from usdjoints.walker import walk
from usdphysics_oracle import parse_with_usdphysics


def _stage():
    stage = Usd.Stage.CreateInMemory()
    UsdPhysics.Scene.Define(stage, "/physicsScene")
    return stage


def _body(stage, path, *, kinematic=False, enabled=True):
    xform = UsdGeom.Xform.Define(stage, path)
    api = UsdPhysics.RigidBodyAPI.Apply(xform.GetPrim())
    if kinematic:
        api.GetKinematicEnabledAttr().Set(True)
    if not enabled:
        api.GetRigidBodyEnabledAttr().Set(False)
    return xform


def _joint(stage, path, body0, body1, schema=UsdPhysics.RevoluteJoint, exclude=False):
    joint = schema.Define(stage, path)
    if body0:
        joint.GetBody0Rel().AddTarget(body0)
    if body1:
        joint.GetBody1Rel().AddTarget(body1)
    if exclude:
        joint.GetExcludeFromArticulationAttr().Set(True)
    return joint


# -- bodies ---------------------------------------------------------------------------------------

def stage_posed_body():
    stage = _stage()
    body = _body(stage, "/movingBody")
    body.AddTranslateOp().Set(Gf.Vec3f(40.0, -5.0, 12.0))
    body.AddRotateXYZOp().Set(Gf.Vec3f(10.0, 0.0, 60.0))
    body.AddScaleOp().Set(Gf.Vec3f(2.0, 2.0, 2.0))
    api = UsdPhysics.RigidBodyAPI(body.GetPrim())
    api.GetVelocityAttr().Set(Gf.Vec3f(3.0, 1.0, -2.0))
    api.GetAngularVelocityAttr().Set(Gf.Vec3f(-7.0, 4.0, 0.5))
    return stage


def stage_kinematic_body():
    stage = _stage()
    _body(stage, "/driven", kinematic=True)
    return stage


def stage_body_with_collider():
    stage = _stage()
    body = _body(stage, "/carrier")
    body.AddTranslateOp().Set(Gf.Vec3f(-25.0, 0.0, 3.0))
    body.AddScaleOp().Set(Gf.Vec3f(1.5, 1.5, 1.5))
    UsdPhysics.CollisionAPI.Apply(UsdGeom.Cube.Define(stage, "/carrier/box").GetPrim())
    return stage


def stage_disabled_inner_body(outer_enabled=True):
    """A joint on a collider under a disabled body inside an enabled one."""
    stage = _stage()
    _body(stage, "/outer", enabled=outer_enabled)
    inner = _body(stage, "/outer/inner", enabled=False)
    inner.AddTranslateOp().Set(Gf.Vec3f(0.0, 2.0, 0.0))
    UsdPhysics.CollisionAPI.Apply(UsdGeom.Cube.Define(stage, "/outer/inner/box").GetPrim())
    joint = _joint(stage, "/weld", "/outer/inner/box", None, UsdPhysics.FixedJoint)
    joint.GetLocalPos0Attr().Set(Gf.Vec3f(0.5, 0.0, 0.0))
    _joint(stage, "/weldOnDisabled", "/outer/inner", None, UsdPhysics.FixedJoint)
    return stage


def test_posed_body_agrees():
    stage = stage_posed_body()
    assert disagreements(stage) == []
    body = walk(stage, "usdphysics").bodies[0]
    assert body.world_scale == pytest.approx((2.0, 2.0, 2.0))  # as OpenUSD's test states


def test_kinematic_body_agrees():
    stage = stage_kinematic_body()
    assert disagreements(stage) == []
    body = walk(stage, "usdphysics").bodies[0]
    assert body.kinematic and body.enabled


def test_body_with_collider_agrees():
    assert disagreements(stage_body_with_collider()) == []


def test_joint_on_a_disabled_body_resolves_to_the_enabled_body_above():
    stage = stage_disabled_inner_body()
    assert disagreements(stage) == []
    joints = {j.path: j for j in walk(stage, "usdphysics").joints}
    assert joints["/weld"].body0 == "/outer"  # the disabled body is passed over
    assert joints["/weldOnDisabled"].body0 == "/outer"


def test_joint_with_no_enabled_body_above_resolves_to_the_collider():
    stage = stage_disabled_inner_body(outer_enabled=False)
    assert disagreements(stage) == []
    joints = {j.path: j for j in walk(stage, "usdphysics").joints}
    assert joints["/weld"].body0 == "/outer/inner/box"  # a static body: the collider itself
    assert joints["/weldOnDisabled"].body0 is None  # no collider either: the world


# -- joints ---------------------------------------------------------------------------------------

def _joint_stage(kind):
    stage = _stage()
    _body(stage, "/bodyA")
    _body(stage, "/bodyB")
    schema = {"fixed": UsdPhysics.FixedJoint, "revolute": UsdPhysics.RevoluteJoint,
              "revolute_free": UsdPhysics.RevoluteJoint, "prismatic": UsdPhysics.PrismaticJoint,
              "prismatic_free": UsdPhysics.PrismaticJoint, "spherical": UsdPhysics.SphericalJoint,
              "distance": UsdPhysics.DistanceJoint, "d6": UsdPhysics.Joint}[kind]
    joint = _joint(stage, "/link", "/bodyA", "/bodyB", schema)
    joint.GetBreakForceAttr().Set(250.0)
    joint.GetBreakTorqueAttr().Set(750.0)
    joint.GetLocalPos0Attr().Set(Gf.Vec3f(0.5, 0.25, 0.0))
    joint.GetLocalPos1Attr().Set(Gf.Vec3f(-0.5, 0.0, 0.75))
    prim = joint.GetPrim()
    if kind in ("revolute", "revolute_free", "prismatic", "prismatic_free"):
        joint.GetAxisAttr().Set("Z" if kind.startswith("revolute") else "Y")
        if not kind.endswith("_free"):
            joint.GetLowerLimitAttr().Set(-45.0 if kind == "revolute" else 5.0)
            joint.GetUpperLimitAttr().Set(120.0 if kind == "revolute" else 60.0)
            drive = UsdPhysics.DriveAPI.Apply(prim, "angular" if kind == "revolute" else "linear")
            drive.GetTargetPositionAttr().Set(15.0)
            drive.GetTargetVelocityAttr().Set(-3.0)
            drive.GetStiffnessAttr().Set(80.0)
            drive.GetDampingAttr().Set(8.0)
    elif kind == "spherical":
        joint.GetAxisAttr().Set("Y")
        joint.CreateConeAngle0LimitAttr().Set(25.0)
        joint.CreateConeAngle1LimitAttr().Set(35.0)
    elif kind == "distance":
        joint.GetMinDistanceAttr().Set(0.0)
        joint.GetMaxDistanceAttr().Set(4.0)
    elif kind == "d6":
        for dof, low, high in (("transX", -2.0, 2.0), ("transZ", -1.0, 3.0), ("rotY", -20.0, 20.0),
                               ("rotZ", 15.0, -15.0)):  # low > high: the dof is locked
            limit = UsdPhysics.LimitAPI.Apply(prim, dof)
            limit.CreateLowAttr().Set(low)
            limit.CreateHighAttr().Set(high)
        drive = UsdPhysics.DriveAPI.Apply(prim, "rotY")
        drive.GetTargetPositionAttr().Set(5.0)
        drive.GetStiffnessAttr().Set(12.0)
        drive.GetDampingAttr().Set(1.5)
    return stage


JOINT_KINDS = ("fixed", "revolute", "revolute_free", "prismatic", "prismatic_free", "spherical", "distance", "d6")


@pytest.mark.parametrize("kind", JOINT_KINDS)
def test_joint_agrees(kind):
    stage = _joint_stage(kind)
    assert disagreements(stage) == []
    joint = walk(stage, "usdphysics").joints[0]
    assert (joint.body0, joint.body1) == ("/bodyA", "/bodyB")
    if kind == "revolute":
        (limit,) = joint.limits
        assert (limit.enabled, limit.low, limit.high) == (True, -45.0, 120.0)
    if kind == "revolute_free":
        assert not joint.limits[0].enabled and joint.drives == ()
    if kind == "d6":
        assert len(joint.limits) == 4 and [d.dof for d in joint.drives] == ["rotY"]


# -- articulations --------------------------------------------------------------------------------

def _chain(root, *, nested=False, kinematic=False):
    """Three bodies in a chain of two hinges under /robot, rooted per ``root`` as OpenUSD's test
    does: floating (API on a body), auto (API on the Xform above), fixed (API on a joint to the
    world), auto_fixed (API on the Xform, a joint to the world beside it)."""
    stage = _stage()
    robot = UsdGeom.Xform.Define(stage, "/robot")
    paths = (["/robot/b0", "/robot/b0/b1", "/robot/b0/b1/b2"] if nested
             else ["/robot/b0", "/robot/b1", "/robot/b2"])
    for path in paths:
        _body(stage, path, kinematic=kinematic)
    _joint(stage, "/robot/hinge0", paths[0], paths[1])
    _joint(stage, "/robot/hinge1", paths[1], paths[2])
    if root in ("fixed", "auto_fixed"):
        anchor = _joint(stage, "/robot/anchor", None, paths[0], UsdPhysics.FixedJoint)
        if root == "fixed":
            UsdPhysics.ArticulationRootAPI.Apply(anchor.GetPrim())
    if root == "floating":
        UsdPhysics.ArticulationRootAPI.Apply(stage.GetPrimAtPath(paths[0] if nested else paths[1]))
    if root in ("auto", "auto_fixed"):
        UsdPhysics.ArticulationRootAPI.Apply(robot.GetPrim())
    return stage, paths


ROOTS = ("floating", "auto", "fixed", "auto_fixed")


@pytest.mark.parametrize("kinematic", (False, True), ids=("dynamic", "kinematic"))
@pytest.mark.parametrize("nested", (False, True), ids=("flat", "nested"))
@pytest.mark.parametrize("root", ROOTS)
def test_articulation_agrees(root, nested, kinematic):
    stage, paths = _chain(root, nested=nested, kinematic=kinematic)
    assert disagreements(stage) == []
    (art,) = walk(stage, "usdphysics").articulations
    if root in ("floating", "auto"):
        # OpenUSD's test: two joints, three bodies; the middle body of a flat chain (the centre
        # of its graph), the top body of a nested one
        assert len(art.joints) == 2 and len(art.links) == 3
        assert art.root_prims == ((paths[0] if nested else paths[1]),)
    else:
        assert len(art.joints) == 3 and art.fixed_base
        assert art.root_prims == ("/robot/anchor",)


def stage_gripper_loop():
    """A four-bar gripper finger: the loop is closed by an excluded hinge, as converters write it."""
    stage = _stage()
    UsdPhysics.ArticulationRootAPI.Apply(UsdGeom.Xform.Define(stage, "/gripper").GetPrim())
    for name in ("palm", "crank", "coupler", "finger"):
        _body(stage, f"/gripper/{name}")
    _joint(stage, "/gripper/mount", None, "/gripper/palm", UsdPhysics.FixedJoint)
    _joint(stage, "/gripper/j_crank", "/gripper/palm", "/gripper/crank")
    _joint(stage, "/gripper/j_coupler", "/gripper/crank", "/gripper/coupler")
    _joint(stage, "/gripper/j_finger", "/gripper/palm", "/gripper/finger")
    _joint(stage, "/gripper/j_close", "/gripper/coupler", "/gripper/finger", exclude=True)
    _joint(stage, "/gripper/j_close_unflagged", "/gripper/finger", "/gripper/crank")  # a loop not excluded
    return stage


def stage_mocap_weld():
    """A kinematic mocap body welded to a floating chain (MJCF's mocap bodies, converted)."""
    stage = _stage()
    UsdPhysics.ArticulationRootAPI.Apply(UsdGeom.Xform.Define(stage, "/scene").GetPrim())
    _body(stage, "/scene/mocap", kinematic=True)
    for name in ("hand", "thumb"):
        _body(stage, f"/scene/{name}")
    _joint(stage, "/scene/weld", "/scene/mocap", "/scene/hand", UsdPhysics.FixedJoint)
    _joint(stage, "/scene/thumb_joint", "/scene/hand", "/scene/thumb")
    return stage


def stage_odd_joints():
    """A distance joint, a joint with both sides on one body, and three hinges on one body pair."""
    stage = _stage()
    UsdPhysics.ArticulationRootAPI.Apply(UsdGeom.Xform.Define(stage, "/torso").GetPrim())
    for name in ("pelvis", "abdomen", "chest"):
        _body(stage, f"/torso/{name}")
    for axis in ("z", "y", "x"):  # the MJCF humanoid's abdomen: three hinges, one pair
        joint = _joint(stage, f"/torso/abdomen_{axis}", "/torso/pelvis", "/torso/abdomen")
        joint.GetAxisAttr().Set(axis.upper())
    _joint(stage, "/torso/spine", "/torso/abdomen", "/torso/chest", UsdPhysics.SphericalJoint)
    _joint(stage, "/torso/tether", "/torso/pelvis", "/torso/chest", UsdPhysics.DistanceJoint)
    _joint(stage, "/torso/onto_itself", "/torso/chest", "/torso/chest")
    return stage


def test_gripper_loop_lists_its_excluded_and_loop_closing_joints():
    stage = stage_gripper_loop()
    assert disagreements(stage) == []
    (art,) = walk(stage, "usdphysics").articulations
    assert {"/gripper/j_close", "/gripper/j_close_unflagged"} <= set(art.joints)
    assert art.root_prims == ("/gripper/mount",)


def test_mocap_weld_is_an_articulation_joint():
    stage = stage_mocap_weld()
    assert disagreements(stage) == []
    (art,) = walk(stage, "usdphysics").articulations
    assert "/scene/weld" in art.joints and "/scene/mocap" in art.links


def test_distance_self_and_duplicate_joints_are_listed():
    stage = stage_odd_joints()
    assert disagreements(stage) == []
    (art,) = walk(stage, "usdphysics").articulations
    assert {"/torso/tether", "/torso/onto_itself", "/torso/abdomen_x", "/torso/abdomen_y",
            "/torso/abdomen_z"} <= set(art.joints)


def test_parser_contradiction_single_body_articulation_root_is_not_among_its_bodies():
    """The parser's self-contradiction: an articulation root over one body with no joint elects
    that body as its root (rootPrims) yet lists no articulated body at all. The walker reports the
    same root prim, no links, and warns that the articulation gathers none."""
    stage = _stage()
    UsdPhysics.ArticulationRootAPI.Apply(UsdGeom.Xform.Define(stage, "/lonely").GetPrim())
    _body(stage, "/lonely/only")
    (ref,) = parse_with_usdphysics(stage, custom_joint_tokens=())["articulations"]
    assert ref["root_prims"] == ["/lonely/only"] and ref["links"] == []  # root not among its bodies
    assert disagreements(stage) == []
    description = walk(stage, "usdphysics")
    (art,) = description.articulations
    assert art.root_prims == ("/lonely/only",) and art.links == ()
    assert any(d.code == "empty-articulation" and d.prim == "/lonely" for d in description.diagnostics)


SCENARIOS = {
    "posed_body": stage_posed_body, "kinematic_body": stage_kinematic_body,
    "body_with_collider": stage_body_with_collider, "disabled_inner_body": stage_disabled_inner_body,
    "disabled_inner_and_outer": lambda: stage_disabled_inner_body(False),
    **{f"joint_{kind}": (lambda kind=kind: _joint_stage(kind)) for kind in JOINT_KINDS},
    **{f"chain_{root}_{'nested' if n else 'flat'}_{'kinematic' if k else 'dynamic'}":
       (lambda root=root, n=n, k=k: _chain(root, nested=n, kinematic=k)[0])
       for root in ROOTS for n in (False, True) for k in (False, True)},
    "gripper_loop": stage_gripper_loop, "mocap_weld": stage_mocap_weld, "odd_joints": stage_odd_joints,
}


def test_every_field_of_every_scenario_agrees(capsys):
    compared = failed = 0
    problems = []
    for name, build in SCENARIOS.items():
        for field, agrees, detail in fields(build()):
            compared += 1
            if not agrees:
                failed += 1
                problems.append(f"{name} {field}: {detail}")
    with capsys.disabled():
        print(f"\nOpenUSD parsing scenarios: {compared - failed}/{compared} fields agree")
    assert problems == []
    assert compared > 500  # the scenarios above compare this many fields; fewer means a check fell away
