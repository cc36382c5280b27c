"""The walker for ``consumer="usdphysics"`` against OpenUSD's own parser on the same stage.

Oracle: ``UsdPhysics.UsdPhysicsLoadStageFromPrimRange`` (usd-core), normalised by
``tests/usdphysics_oracle.py``. Compared: resolved bodies, local poses, limits, drives, joint
enabled, articulation roots, elected root prims and membership, on the sample stages and on 200 generated stages.
"""
from __future__ import annotations

import math

import pytest
from pxr import Usd

from samples import SAMPLE_STAGES
from usdjoints.walker import walk
from usdphysics_oracle import parse_with_usdphysics

# The parser stores poses as float32 and we compute in float64 from the same float32 inputs:
# agreement to a few float32 ulps of the magnitudes involved.
POSITION_RTOL = 1e-5
POSITION_ATOL = 1e-5
ROTATION_TOL = 1e-5


def _close(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)  # a NaN authored is passed through by both
    if math.isinf(a) or math.isinf(b):
        return a == b
    return math.isclose(a, b, rel_tol=POSITION_RTOL, abs_tol=POSITION_ATOL)


def _same_rotation(q0, q1) -> bool:
    dot = abs(sum(a * b for a, b in zip(q0, q1)))
    return dot > 1.0 - ROTATION_TOL


def compare(stage: Usd.Stage) -> list[str]:
    """Every disagreement between the walker and the parser, as readable lines."""
    ours = walk(stage, consumer="usdphysics")
    theirs = parse_with_usdphysics(stage, custom_joint_tokens=())
    problems: list[str] = []
    our_joints = {j.path: j for j in ours.joints}
    if set(our_joints) != set(theirs["joints"]):
        problems.append(f"joint sets differ: {sorted(set(our_joints) ^ set(theirs['joints']))}")
    for path, ref in theirs["joints"].items():
        joint = our_joints.get(path)
        if joint is None:
            continue
        for side in (0, 1):
            body = getattr(joint, f"body{side}")
            if body != ref[f"body{side}"]:
                problems.append(f"{path}: body{side} {body} != {ref[f'body{side}']}")
            pose = getattr(joint, f"local_pose{side}")
            ref_pose = ref[f"local_pose{side}"]
            if not all(_close(a, b) for a, b in zip(pose.position, ref_pose["position"])):
                problems.append(f"{path}: local_pose{side}.position {pose.position} != {ref_pose['position']}")
            if not _same_rotation(pose.orientation, ref_pose["orientation"]):
                problems.append(f"{path}: local_pose{side}.orientation {pose.orientation} != {ref_pose['orientation']}")
        if joint.type != ref["type"]:
            problems.append(f"{path}: type {joint.type} != {ref['type']}")
        if joint.enabled != ref["enabled"]:
            problems.append(f"{path}: enabled {joint.enabled} != {ref['enabled']}")
        if joint.exclude_from_articulation != ref["exclude_from_articulation"]:
            problems.append(f"{path}: excludeFromArticulation differs")
        ours_limits = [(l.dof, l.enabled, l.low, l.high) for l in joint.limits]
        ref_limits = [(l["dof"], l["enabled"], l["low"], l["high"]) for l in ref["limits"]]
        if len(ours_limits) != len(ref_limits) or not all(
            a[0] == b[0] and a[1] == b[1] and _close(a[2], b[2]) and _close(a[3], b[3])
            for a, b in zip(ours_limits, ref_limits)
        ):
            problems.append(f"{path}: limits {ours_limits} != {ref_limits}")
        ours_drives = [(d.dof, d.type, d.stiffness, d.damping, d.max_force, d.target_position, d.target_velocity)
                       for d in joint.drives]
        ref_drives = [(d["dof"], d["type"], d["stiffness"], d["damping"], d["max_force"], d["target_position"],
                       d["target_velocity"]) for d in ref["drives"]]
        if len(ours_drives) != len(ref_drives) or not all(
            a[:2] == b[:2] and all(_close(x, y) for x, y in zip(a[2:], b[2:]))
            for a, b in zip(ours_drives, ref_drives)
        ):
            problems.append(f"{path}: drives {ours_drives} != {ref_drives}")
    problems.extend(_compare_articulations(ours, theirs, theirs["joints"]))
    return problems


def _compare_articulations(ours, theirs, ref_joints) -> list[str]:
    """Roots, links, articulation joints and fixed base.

    The parser's ``articulatedBodies`` is the set of bodies some link lists as a neighbour: it
    includes the far side of an excluded joint and the world, and omits a link that no other link
    lists (one held only by a joint to the world). So our links must lie within the
    parser's plus our base, and the fixed base is judged from the joints: a non-excluded joint
    with a world side (the parser's own ``hasFixedJoint``).
    """
    problems = []
    by_root = {a.root: a for a in ours.articulations}
    ref_by_root = {a["root"]: a for a in theirs["articulations"]}
    if set(by_root) != set(ref_by_root):
        return [f"articulation roots differ: {sorted(by_root)} != {sorted(ref_by_root)}"]
    for root, ref in ref_by_root.items():
        art = by_root[root]
        # The parser lists every body adjacent to a link, including the far side of an excluded
        # joint; the links proper are those it reaches through articulation joints.
        links = set(art.links)
        linked = set()
        for path in art.joints:
            joint = ours.joint(path)
            if joint.body0 in links and joint.body1 in links:
                linked.update((joint.body0, joint.body1))
        held_only_by_world = links - linked
        if not links <= set(ref["links"]) | held_only_by_world:
            problems.append(f"{root}: links {sorted(links)} not within parser's {ref['links']}")
        # the parser's articulatedJoints: every enabled joint touching a link, excluded ones too
        if set(art.joints) != set(ref["joints"]):
            problems.append(f"{root}: joints {sorted(art.joints)} != {ref['joints']}")
        if sorted(art.root_prims) != ref["root_prims"]:
            problems.append(f"{root}: root prims {sorted(art.root_prims)} != {ref['root_prims']}")
        ref_tree = set(ref["loop_free_joints"])
        # the parser's hasFixedJoint: a non-excluded joint of a link whose other side is the world
        # or no enabled rigid body (a collider taken as a static body)
        def static(side):
            return side is None or not theirs["bodies"].get(side, {}).get("enabled", False)

        ref_fixed = any(static(ref_joints[j]["body0"]) or static(ref_joints[j]["body1"])
                        for j in ref_tree if j in ref_joints)
        if art.fixed_base != ref_fixed:
            problems.append(f"{root}: fixed_base {art.fixed_base} != {ref_fixed}")
    return problems


# Stages on which OpenUSD's parser posts a USD error: its Python binding then raises instead of
# returning the descriptors, so there is nothing to compare with.
PARSER_RAISES = {"invalid-xform-op"}


@pytest.mark.parametrize("path", SAMPLE_STAGES, ids=lambda p: p.stem)
def test_sample_stage_agrees_with_usdphysics(path):
    stage = Usd.Stage.Open(str(path))
    if path.stem in PARSER_RAISES:
        from pxr import Tf

        with pytest.raises(Tf.ErrorException):
            compare(stage)
        return
    assert compare(stage) == []


def test_generated_stages_agree_with_usdphysics():
    import stagegen
    failures = {}
    for seed in range(200):
        problems = compare(stagegen.generate_stage(seed))
        if problems:
            failures[seed] = problems[:3]
    assert not failures, failures


def test_generated_hazard_stages_agree_with_usdphysics():
    """Disabled and kinematic bodies, mocap welds, distance, loop, self and duplicate-pair joints."""
    import stagegen
    failures = {}
    for seed in range(200):
        problems = compare(stagegen.generate_hazard_stage(seed))
        if problems:
            failures[seed] = problems[:3]
    assert not failures, failures
