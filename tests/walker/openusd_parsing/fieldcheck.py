"""Field-by-field agreement between the walker's ``usdphysics`` view and OpenUSD's parser.

The oracle is ``UsdPhysics.UsdPhysicsLoadStageFromPrimRange`` (usd-core), normalised by
``tests/usdphysics_oracle.py``. :func:`fields` lists every field OpenUSD's own parsing tests check
for bodies, joints and articulations (pxr/usd/usdPhysics/testenv/testUsdPhysicsParsing.py) with
whether the walker agrees, so a test can assert all agree and report how many were compared.
"""
from __future__ import annotations

import math

from usdjoints.walker import walk
from usdphysics_oracle import parse_with_usdphysics

TOLERANCE = 1e-5  # the parser keeps poses in float32; we compute in float64 from the same inputs


def _close(a, b) -> bool:
    a, b = float(a), float(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return math.isclose(a, b, rel_tol=TOLERANCE, abs_tol=TOLERANCE)


def _vec_close(a, b) -> bool:
    return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))


def _same_rotation(q0, q1) -> bool:
    return abs(sum(a * b for a, b in zip(q0, q1))) > 1.0 - TOLERANCE


def fields(stage) -> list[tuple[str, bool, str]]:
    """(field name, agrees, detail) for every compared field of ``stage``."""
    ours = walk(stage, consumer="usdphysics")
    ref = parse_with_usdphysics(stage, custom_joint_tokens=())
    out: list[tuple[str, bool, str]] = []

    def check(name, agrees, mine, theirs):
        out.append((name, bool(agrees), f"walker {mine!r} parser {theirs!r}"))

    our_bodies = {b.path: b for b in ours.bodies}
    check("bodies", set(our_bodies) == set(ref["bodies"]), sorted(our_bodies), sorted(ref["bodies"]))
    for path, body in ref["bodies"].items():
        mine = our_bodies.get(path)
        if mine is None:
            continue
        check(f"{path}.enabled", mine.enabled == body["enabled"], mine.enabled, body["enabled"])
        check(f"{path}.kinematic", mine.kinematic == body["kinematic"], mine.kinematic, body["kinematic"])
        check(f"{path}.position", _vec_close(mine.world_pose.position, body["position"]),
              mine.world_pose.position, body["position"])
        check(f"{path}.orientation", _same_rotation(mine.world_pose.orientation, body["orientation"]),
              mine.world_pose.orientation, body["orientation"])
        check(f"{path}.scale", _vec_close(mine.world_scale, body["scale"]), mine.world_scale, body["scale"])
        for name, column in (("velocity", "physics:velocity"), ("angular_velocity", "physics:angularVelocity")):
            if name in body:
                value = mine.columns[column].value
                check(f"{path}.{name}", _vec_close(value, body[name]), value, body[name])

    our_joints = {j.path: j for j in ours.joints}
    check("joints", set(our_joints) == set(ref["joints"]), sorted(our_joints), sorted(ref["joints"]))
    for path, joint in ref["joints"].items():
        mine = our_joints.get(path)
        if mine is None:
            continue
        check(f"{path}.type", mine.type == joint["type"], mine.type, joint["type"])
        for side in (0, 1):
            body = getattr(mine, f"body{side}")
            check(f"{path}.body{side}", body == joint[f"body{side}"], body, joint[f"body{side}"])
            target = getattr(mine, f"body{side}_target")
            check(f"{path}.rel{side}", target == joint[f"body{side}_target"], target, joint[f"body{side}_target"])
            pose = getattr(mine, f"local_pose{side}")
            theirs = joint[f"local_pose{side}"]
            check(f"{path}.local_pose{side}.position", _vec_close(pose.position, theirs["position"]),
                  pose.position, theirs["position"])
            check(f"{path}.local_pose{side}.orientation", _same_rotation(pose.orientation, theirs["orientation"]),
                  pose.orientation, theirs["orientation"])
        check(f"{path}.enabled", mine.enabled == joint["enabled"], mine.enabled, joint["enabled"])
        check(f"{path}.excludeFromArticulation", mine.exclude_from_articulation == joint["exclude_from_articulation"],
              mine.exclude_from_articulation, joint["exclude_from_articulation"])
        collision = bool(mine.columns["physics:collisionEnabled"].value)
        check(f"{path}.collisionEnabled", collision == joint["collision_enabled"], collision,
              joint["collision_enabled"])
        for name, column in (("break_force", "physics:breakForce"), ("break_torque", "physics:breakTorque")):
            value = float(mine.columns[column].value)
            check(f"{path}.{name}", _close(value, joint[name]), value, joint[name])
        if joint["axis"] is not None:
            check(f"{path}.axis", mine.axis == joint["axis"], mine.axis, joint["axis"])
        limits = [(l.dof, l.enabled, l.low, l.high) for l in mine.limits]
        theirs = [(l["dof"], l["enabled"], l["low"], l["high"]) for l in joint["limits"]]
        check(f"{path}.limits", len(limits) == len(theirs) and all(
            a[:2] == b[:2] and _close(a[2], b[2]) and _close(a[3], b[3]) for a, b in zip(limits, theirs)),
            limits, theirs)
        drives = [(d.dof, d.stiffness, d.damping, d.target_position, d.target_velocity, d.max_force)
                  for d in mine.drives]
        theirs = [(d["dof"], d["stiffness"], d["damping"], d["target_position"], d["target_velocity"],
                   d["max_force"]) for d in joint["drives"]]
        check(f"{path}.drives", len(drives) == len(theirs) and all(
            a[0] == b[0] and all(_close(x, y) for x, y in zip(a[1:], b[1:])) for a, b in zip(drives, theirs)),
            drives, theirs)

    our_arts = {a.root: a for a in ours.articulations}
    ref_arts = {a["root"]: a for a in ref["articulations"]}
    check("articulations", set(our_arts) == set(ref_arts), sorted(our_arts), sorted(ref_arts))
    for root, art in ref_arts.items():
        mine = our_arts.get(root)
        if mine is None:
            continue
        check(f"{root}.rootPrims", sorted(mine.root_prims) == art["root_prims"], sorted(mine.root_prims),
              art["root_prims"])
        check(f"{root}.articulatedJoints", sorted(mine.joints) == art["joints"], sorted(mine.joints), art["joints"])
        # articulatedBodies: the links and every body one of them is jointed to (the world as
        # the fixed base); the far side of an excluded joint is listed too
        neighbours = set()
        links = set(mine.links)
        enabled = {path for path, body in our_bodies.items() if body.enabled}
        for path in mine.joints:
            joint = ours.joint(path)
            for here, other in ((joint.body0, joint.body1), (joint.body1, joint.body0)):
                if here in links and other in enabled:
                    neighbours.add(other)
        check(f"{root}.articulatedBodies", sorted(neighbours) == art["links"], sorted(neighbours), art["links"])
        check(f"{root}.fixed_base", mine.fixed_base == art["fixed_base"], mine.fixed_base, art["fixed_base"])
    return out


def disagreements(stage) -> list[str]:
    return [f"{name}: {detail}" for name, agrees, detail in fields(stage) if not agrees]
