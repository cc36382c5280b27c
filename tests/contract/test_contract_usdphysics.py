"""The usdphysics parser defaults the contract states, checked against OpenUSD's parser.

Oracle: ``UsdPhysics`` stage parsing (usd-core) on small in-memory stages. An unauthored column
must come back as the schema fallback; a blocked one (the column absent for the parser) as the
contract's ``usdphysics`` parser default. Exact comparisons: the parser copies float32 values.
"""
from __future__ import annotations

import math

import pytest
from pxr import Usd, UsdGeom, UsdPhysics

from usdjoints.contract import FLT_MAX, parser_default, raw_fallback

_load = getattr(UsdPhysics, "UsdPhysicsLoadStageFromPrimRange", None) or UsdPhysics.LoadUsdPhysicsFromRange


def _parse(stage) -> dict:
    """prim path -> descriptor, for every descriptor the parser reports."""
    out = {}
    for _, (paths, descs) in _load(stage, ["/"]).items():
        for path, desc in zip(paths, descs):
            out[str(path)] = desc
    return out


def _two_bodies():
    stage = Usd.Stage.CreateInMemory()
    UsdGeom.Xform.Define(stage, "/W")
    for name in ("A", "B"):
        UsdPhysics.RigidBodyAPI.Apply(UsdGeom.Xform.Define(stage, f"/W/{name}").GetPrim())
    return stage


def _joint(stage, cls, name):
    joint = cls.Define(stage, f"/W/{name}")
    joint.CreateBody0Rel().SetTargets(["/W/A"])
    joint.CreateBody1Rel().SetTargets(["/W/B"])
    return joint


def _usd(owner, name):
    return parser_default("usdphysics", owner, name)


def test_revolute_unauthored_reads_fallbacks_and_blocked_reads_descriptor_defaults():
    stage = _two_bodies()
    _joint(stage, UsdPhysics.RevoluteJoint, "free")
    blocked = _joint(stage, UsdPhysics.RevoluteJoint, "blocked")
    for attr in (blocked.CreateLowerLimitAttr(), blocked.CreateUpperLimitAttr(), blocked.CreateBreakForceAttr(),
                 blocked.CreateBreakTorqueAttr(), blocked.CreateJointEnabledAttr(), blocked.CreateAxisAttr(),
                 blocked.CreateLocalRot0Attr(), blocked.CreateLocalPos1Attr(), blocked.CreateExcludeFromArticulationAttr()):
        attr.Block()
    parsed = _parse(stage)
    free, cut = parsed["/W/free"], parsed["/W/blocked"]
    owner = "PhysicsRevoluteJoint"
    assert free.limit.lower == raw_fallback(owner, "physics:lowerLimit") == -math.inf
    assert free.limit.upper == raw_fallback(owner, "physics:upperLimit") and not free.limit.enabled
    assert free.breakForce == raw_fallback(owner, "physics:breakForce")
    # blocked: the descriptor defaults survive; both limits blocked give an enabled, inverted limit
    assert cut.limit.lower == _usd(owner, "physics:lowerLimit")
    assert cut.limit.upper == _usd(owner, "physics:upperLimit")
    assert cut.limit.enabled and cut.limit.lower > cut.limit.upper
    assert cut.breakForce == _usd(owner, "physics:breakForce") == FLT_MAX
    assert cut.breakTorque == _usd(owner, "physics:breakTorque")
    assert cut.jointEnabled == _usd(owner, "physics:jointEnabled")
    assert cut.excludeFromArticulation == _usd(owner, "physics:excludeFromArticulation")
    assert str(cut.axis).endswith(_usd(owner, "physics:axis"))
    rot = cut.localPose0Orientation
    assert (rot.GetReal(), *rot.GetImaginary()) == _usd(owner, "physics:localRot0")
    assert tuple(cut.localPose1Position) == _usd(owner, "physics:localPos1")


def test_revolute_one_sided_limit_is_disabled_and_prismatic_one_sided_is_enabled():
    """The enable rules the divergences state: AND for revolute, OR for prismatic."""
    stage = _two_bodies()
    _joint(stage, UsdPhysics.RevoluteJoint, "rev").CreateLowerLimitAttr(-30.0)
    _joint(stage, UsdPhysics.PrismaticJoint, "pri").CreateLowerLimitAttr(-0.5)
    parsed = _parse(stage)
    assert not parsed["/W/rev"].limit.enabled
    assert parsed["/W/pri"].limit.enabled


def test_drive_force_limit_sentinels():
    """FACTS.md: no DriveAPI -> FLT_MAX, applied and unauthored -> inf, blocked -> FLT_MAX."""
    stage = _two_bodies()
    _joint(stage, UsdPhysics.RevoluteJoint, "none")
    UsdPhysics.DriveAPI.Apply(_joint(stage, UsdPhysics.RevoluteJoint, "unauthored").GetPrim(), "angular")
    drive = UsdPhysics.DriveAPI.Apply(_joint(stage, UsdPhysics.RevoluteJoint, "blocked").GetPrim(), "angular")
    for attr in (drive.CreateMaxForceAttr(), drive.CreateTypeAttr(), drive.CreateStiffnessAttr(),
                 drive.CreateDampingAttr(), drive.CreateTargetPositionAttr(), drive.CreateTargetVelocityAttr()):
        attr.Block()
    parsed = _parse(stage)
    owner, name = "PhysicsDriveAPI", "drive:angular:physics:maxForce"
    assert not parsed["/W/none"].drive.enabled and parsed["/W/none"].drive.forceLimit == FLT_MAX
    assert parsed["/W/unauthored"].drive.forceLimit == raw_fallback(owner, name) == math.inf
    cut = parsed["/W/blocked"].drive
    assert cut.enabled and cut.forceLimit == _usd(owner, name)
    assert cut.acceleration is (_usd(owner, "drive:angular:physics:type") == "acceleration")
    assert cut.stiffness == _usd(owner, "drive:angular:physics:stiffness")
    assert cut.damping == _usd(owner, "drive:angular:physics:damping")
    assert cut.targetPosition == _usd(owner, "drive:angular:physics:targetPosition")
    assert cut.targetVelocity == _usd(owner, "drive:angular:physics:targetVelocity")


def test_cone_distance_and_d6_limit_defaults():
    stage = _two_bodies()
    _joint(stage, UsdPhysics.SphericalJoint, "cone_free")
    cone = _joint(stage, UsdPhysics.SphericalJoint, "cone_blocked")
    cone.CreateConeAngle0LimitAttr().Block()
    cone.CreateConeAngle1LimitAttr().Block()
    distance = _joint(stage, UsdPhysics.DistanceJoint, "distance_blocked")
    distance.CreateMinDistanceAttr().Block()
    distance.CreateMaxDistanceAttr().Block()
    d6 = _joint(stage, UsdPhysics.Joint, "d6")
    limit = UsdPhysics.LimitAPI.Apply(d6.GetPrim(), "rotY")
    limit.CreateLowAttr().Block()
    limit.CreateHighAttr().Block()
    parsed = _parse(stage)
    sph = "PhysicsSphericalJoint"
    free = parsed["/W/cone_free"].limit
    assert (free.lower, free.upper) == (raw_fallback(sph, "physics:coneAngle0Limit"), raw_fallback(sph, "physics:coneAngle1Limit"))
    assert not free.enabled
    cut = parsed["/W/cone_blocked"].limit
    assert (cut.lower, cut.upper) == (_usd(sph, "physics:coneAngle0Limit"), _usd(sph, "physics:coneAngle1Limit"))
    assert not cut.enabled
    dist = parsed["/W/distance_blocked"]
    assert dist.limit.lower == _usd("PhysicsDistanceJoint", "physics:minDistance") and dist.minEnabled
    assert dist.limit.upper == _usd("PhysicsDistanceJoint", "physics:maxDistance") and not dist.maxEnabled
    (pair,) = parsed["/W/d6"].jointLimits
    assert pair.second.lower == _usd("PhysicsLimitAPI", "limit:rotY:physics:low")
    assert pair.second.upper == _usd("PhysicsLimitAPI", "limit:rotY:physics:high")
    assert pair.second.enabled


def test_rigid_body_blocked_columns():
    stage = _two_bodies()
    body = UsdPhysics.RigidBodyAPI(stage.GetPrimAtPath("/W/B"))
    for attr in (body.CreateRigidBodyEnabledAttr(), body.CreateKinematicEnabledAttr(), body.CreateStartsAsleepAttr(),
                 body.CreateVelocityAttr(), body.CreateAngularVelocityAttr()):
        attr.Block()
    desc = _parse(stage)["/W/B"]
    owner = "PhysicsRigidBodyAPI"
    assert desc.rigidBodyEnabled == _usd(owner, "physics:rigidBodyEnabled")
    assert desc.kinematicBody == _usd(owner, "physics:kinematicEnabled")
    assert desc.startsAsleep == _usd(owner, "physics:startsAsleep")
    assert tuple(desc.linearVelocity) == _usd(owner, "physics:velocity")
    assert tuple(desc.angularVelocity) == _usd(owner, "physics:angularVelocity")


def test_stage_units_fall_back_to_the_usd_metadata_fallbacks():
    """Oracle: UsdGeom/UsdPhysics stage-unit readers on a stage that authors none."""
    stage = Usd.Stage.CreateInMemory()
    assert UsdGeom.GetStageMetersPerUnit(stage) == _usd("stage", "metersPerUnit")
    assert UsdPhysics.GetStageKilogramsPerUnit(stage) == _usd("stage", "kilogramsPerUnit")
    assert UsdGeom.GetStageUpAxis(stage) == _usd("stage", "upAxis")


@pytest.mark.parametrize("type_name", ["PhysxPhysicsRackAndPinionJoint", "PhysxPhysicsGearJoint"])
def test_coupling_joints_come_back_as_d6_without_their_own_columns(type_name):
    """The contract marks ratio/gearRatio/hinges 'not read' by usdphysics: the parser reports a
    D6 descriptor, which has no field for them."""
    stage = _two_bodies()
    prim = stage.DefinePrim("/W/coupling", type_name)
    UsdPhysics.Joint(prim).CreateBody0Rel().SetTargets(["/W/A"])
    desc = _parse(stage)["/W/coupling"]
    assert desc.type == UsdPhysics.ObjectType.D6Joint
    assert not hasattr(desc, "ratio") and not hasattr(desc, "gearRatio")
