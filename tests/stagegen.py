"""Random but reproducible physics stages for cross-checking the walker against OpenUSD's parser.

``generate_stage(seed)`` builds a small in-memory stage (2-12 rigid bodies) with one to three
articulations. Every draw comes from ``random.Random(seed)``, so a seed names one stage forever.
The stages aim at the places where readers disagree, not at physical plausibility:

* articulation roots on a grouping Xform, on a body, or on a world-anchored joint;
* chains and trees, with body0/body1 sometimes swapped (child as body0);
* bodies under rotated and scaled Xforms (non-uniform positive scale, arranged so that no
  composed transform is sheared), some with their collider in a child prim that the joint
  targets instead of the body;
* world-anchored sides (body0 or body1 absent);
* every joint type (revolute, prismatic, spherical, fixed, distance, D6) with every kind of limit:
  typed lower/upper drawn from unauthored/finite/+-inf, cone angles including -1, D6
  ``PhysicsLimitAPI`` on transX..rotZ and distance (sometimes low > high), distance min/max;
* ``PhysicsDriveAPI`` on instances each type reads and on instances it ignores;
* disabled joints, ``excludeFromArticulation`` loop closures, random ``localPos``/``localRot``
  (a few quaternions deliberately not unit length), and sometimes non-SI stage units.
"""
from __future__ import annotations

import math
import random
from typing import Optional

import usdjoints  # noqa: F401  (registers the PhysX schemas before any stage exists)
from pxr import Gf, Sdf, Usd, UsdGeom, UsdPhysics

JOINT_KINDS = ("revolute", "prismatic", "spherical", "fixed", "distance", "d6")
D6_INSTANCES = ("transX", "transY", "transZ", "rotX", "rotY", "rotZ", "distance")
DRIVE_INSTANCES = ("angular", "linear") + D6_INSTANCES
AXES = ("X", "Y", "Z")

_DEFINE = {
    "revolute": UsdPhysics.RevoluteJoint.Define,
    "prismatic": UsdPhysics.PrismaticJoint.Define,
    "spherical": UsdPhysics.SphericalJoint.Define,
    "fixed": UsdPhysics.FixedJoint.Define,
    "distance": UsdPhysics.DistanceJoint.Define,
    "d6": UsdPhysics.Joint.Define,
}


def generate_stage(seed: int) -> Usd.Stage:
    """A new in-memory stage drawn from ``seed``; the same seed always gives the same layer text."""
    rng = random.Random(seed)
    stage = Usd.Stage.CreateInMemory(f"stagegen_{seed}.usda")
    _author_units(rng, stage)
    world = UsdGeom.Xform.Define(stage, "/World")
    stage.SetDefaultPrim(world.GetPrim())
    UsdPhysics.Scene.Define(stage, "/World/physicsScene")
    n_bodies_left = rng.randint(2, 12)
    index = 0
    while n_bodies_left >= 1:
        n_bodies = min(n_bodies_left, rng.randint(1, 6))
        _author_articulation(rng, stage, f"/World/Art{index}", n_bodies)
        n_bodies_left -= n_bodies
        index += 1
    return stage


def _author_units(rng: random.Random, stage: Usd.Stage) -> None:
    if rng.random() < 0.3:
        UsdGeom.SetStageMetersPerUnit(stage, rng.choice((0.01, 0.001, 0.1, 2.0)))
    else:
        UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    UsdPhysics.SetStageKilogramsPerUnit(stage, rng.choice((1.0, 1.0, 1.0, 0.001)))
    UsdGeom.SetStageUpAxis(stage, rng.choice((UsdGeom.Tokens.y, UsdGeom.Tokens.z)))


def _author_articulation(rng: random.Random, stage: Usd.Stage, group_path: str, n_bodies: int) -> None:
    group = UsdGeom.Xform.Define(stage, group_path)
    _author_rigid_transform(rng, group, uniform_scale=True)
    root_on = rng.choice(("group", "body", "joint", "none"))
    if root_on == "group":
        UsdPhysics.ArticulationRootAPI.Apply(group.GetPrim())
    is_chain = rng.random() < 0.5
    targets = []  # per body: (body path, joint target path)
    for i in range(n_bodies):
        targets.append(_author_body(rng, stage, group_path, i))
    if root_on == "body":
        UsdPhysics.ArticulationRootAPI.Apply(stage.GetPrimAtPath(targets[0][0]))
    if root_on == "joint" or rng.random() < 0.3:
        joint = _author_joint(rng, stage, f"{group_path}/WorldJoint", None, targets[0][1], world_side=True)
        if root_on == "joint":
            UsdPhysics.ArticulationRootAPI.Apply(joint.GetPrim())
    for i in range(1, n_bodies):
        parent = i - 1 if is_chain else rng.randrange(i)
        _author_joint(rng, stage, f"{group_path}/Joint{i}", targets[parent][1], targets[i][1])
    if n_bodies >= 3 and rng.random() < 0.3:
        a, b = rng.sample(range(n_bodies), 2)
        loop = _author_joint(rng, stage, f"{group_path}/LoopJoint", targets[a][1], targets[b][1])
        loop.CreateExcludeFromArticulationAttr(True)
    if rng.random() < 0.2:
        _author_joint(rng, stage, f"{group_path}/Pendulum", targets[-1][1], None, world_side=True)


def _author_rigid_transform(rng: random.Random, xform: UsdGeom.Xformable, uniform_scale: bool) -> bool:
    """Translate, rotate, scale; returns whether a non-uniform scale was authored.

    The caller keeps everything below a non-uniform scale unrotated, so no transform is sheared.
    """
    xform.AddTranslateOp().Set(Gf.Vec3d(*(rng.uniform(-2, 2) for _ in range(3))))
    if rng.random() < 0.6:
        xform.AddRotateXYZOp().Set(Gf.Vec3f(*(rng.uniform(-180, 180) for _ in range(3))))
    if rng.random() < 0.5:
        if uniform_scale:
            s = rng.uniform(0.5, 2.0)
            xform.AddScaleOp().Set(Gf.Vec3f(s, s, s))
            return False
        xform.AddScaleOp().Set(Gf.Vec3f(*(rng.uniform(0.4, 2.5) for _ in range(3))))
        return True
    return False


def _author_body(rng: random.Random, stage: Usd.Stage, group_path: str, i: int) -> tuple[str, str]:
    """Returns (body path, path a joint should target: the body or one of its children)."""
    parent_path = group_path
    holder_scaled = rng.random() < 0.4
    if holder_scaled:
        # A non-uniformly scaled, rotated holder: the body below only translates, so no shear.
        holder = UsdGeom.Xform.Define(stage, f"{group_path}/Holder{i}")
        _author_rigid_transform(rng, holder, uniform_scale=False)
        parent_path = holder.GetPath().pathString
    body_path = f"{parent_path}/Body{i}"
    with_child = rng.random() < 0.4
    body = UsdGeom.Xform.Define(stage, body_path) if with_child else UsdGeom.Cube.Define(stage, body_path)
    if holder_scaled:
        body.AddTranslateOp().Set(Gf.Vec3d(*(rng.uniform(-1, 1) for _ in range(3))))
        nonuniform_above = True
    else:
        nonuniform_above = _author_rigid_transform(rng, body, uniform_scale=False)
    prim = body.GetPrim()
    UsdPhysics.RigidBodyAPI.Apply(prim)
    mass = UsdPhysics.MassAPI.Apply(prim)
    mass.CreateMassAttr(rng.uniform(0.1, 5.0))
    mass.CreateDiagonalInertiaAttr(Gf.Vec3f(*(rng.uniform(0.01, 0.5) for _ in range(3))))
    target = body_path
    if with_child:
        geom = UsdGeom.Cube.Define(stage, f"{body_path}/geom")
        geom.AddTranslateOp().Set(Gf.Vec3d(*(rng.uniform(-0.5, 0.5) for _ in range(3))))
        if not nonuniform_above and rng.random() < 0.5:
            geom.AddRotateXYZOp().Set(Gf.Vec3f(*(rng.uniform(-90, 90) for _ in range(3))))
        UsdPhysics.CollisionAPI.Apply(geom.GetPrim())
        target = geom.GetPath().pathString if rng.random() < 0.7 else body_path
    else:
        UsdPhysics.CollisionAPI.Apply(prim)
    return body_path, target


def _random_quat(rng: random.Random) -> Gf.Quatf:
    q = [rng.gauss(0.0, 1.0) for _ in range(4)]
    norm = math.sqrt(sum(c * c for c in q)) or 1.0
    length = rng.choice((0.5, 2.0, 1.3)) if rng.random() < 0.1 else 1.0
    w, x, y, z = (c / norm * length for c in q)
    return Gf.Quatf(w, Gf.Vec3f(x, y, z))


def _author_joint(
    rng: random.Random, stage: Usd.Stage, path: str, target0: Optional[str], target1: Optional[str],
    world_side: bool = False,
) -> UsdPhysics.Joint:
    kind = rng.choice(("fixed", "revolute", "prismatic", "d6")) if world_side else rng.choice(JOINT_KINDS)
    joint = _DEFINE[kind](stage, path)
    if target0 is not None and target1 is not None and rng.random() < 0.25:
        target0, target1 = target1, target0
    if target0 is not None:
        joint.CreateBody0Rel().SetTargets([Sdf.Path(target0)])
    if target1 is not None:
        joint.CreateBody1Rel().SetTargets([Sdf.Path(target1)])
    for side in (0, 1):
        if rng.random() < 0.8:
            pos = Gf.Vec3f(*(rng.uniform(-1, 1) for _ in range(3)))
            (joint.CreateLocalPos0Attr if side == 0 else joint.CreateLocalPos1Attr)(pos)
        if rng.random() < 0.7:
            (joint.CreateLocalRot0Attr if side == 0 else joint.CreateLocalRot1Attr)(_random_quat(rng))
    if rng.random() < 0.1:
        joint.CreateJointEnabledAttr(False)
    if rng.random() < 0.08:
        joint.CreateExcludeFromArticulationAttr(True)
    _author_limits(rng, kind, joint)
    _author_drives(rng, joint.GetPrim())
    return joint


def _bound(rng: random.Random, low: bool, span: float) -> Optional[float]:
    """None (unauthored), a finite value, or an infinity on this bound's side (or the wrong one)."""
    roll = rng.random()
    if roll < 0.25:
        return None
    if roll < 0.4:
        return -math.inf if low else math.inf
    if roll < 0.45:
        return math.inf if low else -math.inf
    return rng.uniform(-span, 0.0) if low else rng.uniform(0.0, span)


def _author_limits(rng: random.Random, kind: str, joint: UsdPhysics.Joint) -> None:
    prim = joint.GetPrim()
    if kind in ("revolute", "prismatic"):
        typed = UsdPhysics.RevoluteJoint(prim) if kind == "revolute" else UsdPhysics.PrismaticJoint(prim)
        typed.CreateAxisAttr(rng.choice(AXES))
        span = 180.0 if kind == "revolute" else 2.0
        low, high = _bound(rng, True, span), _bound(rng, False, span)
        if low is not None:
            typed.CreateLowerLimitAttr(low)
        if high is not None:
            typed.CreateUpperLimitAttr(high)
    elif kind == "spherical":
        spherical = UsdPhysics.SphericalJoint(prim)
        spherical.CreateAxisAttr(rng.choice(AXES))
        for create in (spherical.CreateConeAngle0LimitAttr, spherical.CreateConeAngle1LimitAttr):
            roll = rng.random()
            if roll < 0.6:
                create(-1.0 if roll < 0.15 else rng.uniform(0.0, 120.0))
    elif kind == "distance":
        distance = UsdPhysics.DistanceJoint(prim)
        for create in (distance.CreateMinDistanceAttr, distance.CreateMaxDistanceAttr):
            roll = rng.random()
            if roll < 0.7:
                create(-1.0 if roll < 0.1 else rng.uniform(0.0, 2.0))
    elif kind == "d6":
        for instance in D6_INSTANCES:
            if rng.random() < 0.45:
                limit = UsdPhysics.LimitAPI.Apply(prim, instance)
                span = 180.0 if instance.startswith("rot") else 2.0
                low, high = _bound(rng, True, span), _bound(rng, False, span)
                if rng.random() < 0.15:
                    low, high = 1.0, -1.0  # the lock convention
                if low is not None:
                    limit.CreateLowAttr(low)
                if high is not None:
                    limit.CreateHighAttr(high)


def _author_drives(rng: random.Random, prim: Usd.Prim) -> None:
    for instance in DRIVE_INSTANCES:
        if rng.random() >= 0.2:
            continue
        drive = UsdPhysics.DriveAPI.Apply(prim, instance)
        if rng.random() < 0.5:
            drive.CreateTypeAttr(rng.choice((UsdPhysics.Tokens.force, UsdPhysics.Tokens.acceleration)))
        for create, low, high in (
            (drive.CreateStiffnessAttr, 0.0, 1000.0),
            (drive.CreateDampingAttr, 0.0, 100.0),
            (drive.CreateMaxForceAttr, 0.0, 500.0),
            (drive.CreateTargetPositionAttr, -90.0, 90.0),
            (drive.CreateTargetVelocityAttr, -30.0, 30.0),
        ):
            if rng.random() < 0.7:
                create(rng.uniform(low, high))


def generate_hazard_stage(seed: int) -> Usd.Stage:
    """``generate_stage(seed)`` with :func:`add_hazards` drawn from the same seed on top."""
    stage = generate_stage(seed)
    add_hazards(stage, seed)
    return stage


def add_hazards(stage: Usd.Stage, seed: int) -> None:
    """Author on ``stage`` the cases consumers read differently, from their own draw (so
    ``generate_stage(seed)`` stays the stage it always was): disabled and kinematic bodies
    (a kinematic one sometimes welded to a body, as MJCF mocap bodies convert), distance joints,
    loops closed without ``excludeFromArticulation``, joints with both sides on one body, and
    several joints on one body pair in either order, some excluded."""
    rng = random.Random(f"hazards-{seed}")
    bodies = [str(p.GetPath()) for p in stage.Traverse() if p.HasAPI(UsdPhysics.RigidBodyAPI)]
    if len(bodies) < 2:
        return
    for path in bodies:
        api = UsdPhysics.RigidBodyAPI(stage.GetPrimAtPath(path))
        draw = rng.random()
        if draw < 0.08:
            api.CreateRigidBodyEnabledAttr(False)
        elif draw < 0.16:
            api.CreateKinematicEnabledAttr(True)
    group = "/World/Hazards"
    UsdGeom.Scope.Define(stage, group)
    for i in range(rng.randint(1, 4)):
        a, b = rng.sample(bodies, 2)
        kind = rng.choice(("distance", "loop", "self", "duplicates", "mocap"))
        name = f"{group}/{kind}{i}"
        if kind == "distance":
            joint = UsdPhysics.DistanceJoint.Define(stage, name)
            joint.CreateMaxDistanceAttr(rng.uniform(0.1, 2.0))
            _targets(joint, a, b)
        elif kind == "loop":
            _targets(_DEFINE[rng.choice(JOINT_KINDS)](stage, name), a, b)
        elif kind == "self":
            _targets(UsdPhysics.RevoluteJoint.Define(stage, name), a, a)
        elif kind == "duplicates":
            for k in range(rng.randint(2, 3)):
                joint = UsdPhysics.RevoluteJoint.Define(stage, f"{name}_{k}")
                joint.CreateAxisAttr(rng.choice(AXES))
                _targets(joint, *((a, b) if rng.random() < 0.5 else (b, a)))
                if rng.random() < 0.3:
                    joint.CreateExcludeFromArticulationAttr(True)
        else:
            mocap = UsdGeom.Xform.Define(stage, f"{name}_body")
            UsdPhysics.RigidBodyAPI.Apply(mocap.GetPrim()).CreateKinematicEnabledAttr(True)
            _targets(UsdPhysics.FixedJoint.Define(stage, name), str(mocap.GetPath()), a)


def _targets(joint: UsdPhysics.Joint, body0: Optional[str], body1: Optional[str]) -> None:
    if body0:
        joint.CreateBody0Rel().SetTargets([body0])
    if body1:
        joint.CreateBody1Rel().SetTargets([body1])
