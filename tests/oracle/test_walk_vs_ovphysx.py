"""``walk --consumer ovphysx`` against what PhysX itself reads back from the same stage.

Oracle: ovphysx 0.7 on the CPU (extra ``oracle``), through the probe in this folder, which
reports each articulation joint's limits, drive gains, max force and drive type in PhysX units
(radians, per-radian gains). The walker keeps USD units, so angular values are converted here:
limits degrees -> radians, gains x 180/pi. Covered: every articulation joint of the corpus
stages, the sample stages and the probe's own stages, including the hinge PhysX locks at [0, 0];
revolute bounds beyond a turn, driven against (articulated: kept and held; standalone: clamped to
+-180 deg, where they do not hold); stage units PhysX refuses to load.
"""
from __future__ import annotations

import math
from pathlib import Path

import pytest

from samples import REPO, SAMPLE_STAGES
from usdjoints.walker import walk

pytestmark = pytest.mark.oracle

STAGES = sorted((REPO / "tests" / "data" / "usd").glob("*.usda")) + list(SAMPLE_STAGES) + \
    sorted((REPO / "tests" / "oracle" / "stages").glob("*.usda"))
# PhysX stores these as float32: agreement to float32 rounding of the value.
RTOL = 1e-6
DEG = 180.0 / math.pi


def _number(value) -> float:
    if isinstance(value, str):
        return {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}[value]
    return float(value)


def _same(ours: float, physx) -> bool:
    physx = _number(physx)
    if math.isinf(ours) or math.isinf(physx) or abs(physx) >= 3.4e38:
        # PhysX spells "unbounded" FLT_MAX; USD spells it inf
        return (ours > 0) == (physx > 0) and (math.isinf(ours) or abs(ours) >= 3.4e38)
    return math.isclose(ours, physx, rel_tol=RTOL, abs_tol=1e-9)


def _expected_dof(joint) -> dict:
    """What PhysX should hold for the single dof of a revolute or prismatic joint."""
    angular = joint.type == "revolute"
    scale = (1.0 / DEG) if angular else 1.0  # limits and targets
    gain = DEG if angular else 1.0  # gains
    limit = joint.limits[0]
    lower, upper = (limit.low * scale, limit.high * scale) if limit.enabled else (-math.inf, math.inf)
    expected = {"lower": lower, "upper": upper, "drive_type": "none"}
    if joint.drives:
        drive = joint.drives[0]
        expected.update(drive_type=drive.type, stiffness=drive.stiffness * gain, damping=drive.damping * gain,
                        max_force=drive.max_force, target_position=drive.target_position * scale,
                        target_velocity=drive.target_velocity * scale)
    return expected


def _refused_by_physx(description) -> bool:
    """Whether the walk says PhysX loads nothing of the stage (its stage-units error names the
    metadatum PhysX refuses)."""
    return any(d.code == "invalid-stage-units" and d.severity == "error" and d.attribute is not None
               for d in description.diagnostics)


@pytest.mark.parametrize("stage", STAGES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_articulation_joints_read_as_physx_reads_them(stage: Path, ovphysx_probe):
    description = walk(str(stage), consumer="ovphysx")
    if _refused_by_physx(description):
        with pytest.raises(RuntimeError, match="physics source scan failed"):
            ovphysx_probe(stage)
        return
    report = ovphysx_probe(stage)
    ours = {j.path: j for j in description.joints}
    problems = []
    for path, physx in report["joints"].items():
        if physx.get("articulated") is not True:
            continue
        joint = ours.get(path)
        if joint is None or joint.articulation is None:
            problems.append(f"{path}: PhysX articulates it, the walk does not")
            continue
        if joint.type not in ("revolute", "prismatic"):
            continue  # multi-dof joints: membership only (PhysX's dof order is its own)
        expected = _expected_dof(joint)
        dof = physx["dofs"][0]
        if expected["drive_type"] == "none" and dof["drive_type"] != "none" and _number(dof["stiffness"]) == 0 \
                and _number(dof["damping"]) == 0:
            dof = dict(dof, drive_type="none")
        for key, value in expected.items():
            if key == "drive_type":
                if value != dof[key]:
                    problems.append(f"{path}: drive type {value} != PhysX {dof[key]}")
            elif not _same(value, dof[key]):
                problems.append(f"{path}: {key} {value} != PhysX {dof[key]}")
    anchors = {p for a in description.articulations for p in a.anchor_joints}
    for path in (p for p, j in ours.items() if j.articulation is not None and j.type in ("revolute", "prismatic")):
        physx = report["joints"].get(path)
        if physx is not None and physx.get("articulated") is False and path not in anchors:
            problems.append(f"{path}: the walk articulates it, PhysX does not")
        if path in anchors and physx is not None and physx.get("articulated") is not False:
            problems.append(f"{path}: the walk says PhysX welds this anchor, PhysX gave it a dof")
    assert problems == []


# A hinge driven at a constant rate towards its lower bound, in an articulation (root API on
# /World/Robot) or standalone; {root}, {lower}, {upper}, {rate} [deg, deg/s] filled in per case.
DRIVEN_HINGE = """#usda 1.0
(
    metersPerUnit = 1
    kilogramsPerUnit = 1
    upAxis = "Z"
)
def Xform "World" {
    def PhysicsScene "Scene" {}
    def Xform "Robot" ({root}) {
        def Cube "A" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"]) {
            float3 physics:diagonalInertia = (0.2, 0.2, 0.2)
            float physics:mass = 1
            double3 xformOp:translate = (0, 0, 1)
            uniform token[] xformOpOrder = ["xformOp:translate"]
        }
        def Cube "B" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"]) {
            float3 physics:diagonalInertia = (0.2, 0.2, 0.2)
            float physics:mass = 1
            double3 xformOp:translate = (2, 0, 1)
            uniform token[] xformOpOrder = ["xformOp:translate"]
        }
        def PhysicsFixedJoint "Mount" {
            rel physics:body1 = </World/Robot/A>
            point3f physics:localPos0 = (0, 0, 1)
        }
        def PhysicsRevoluteJoint "J" (prepend apiSchemas = ["PhysicsDriveAPI:angular"]) {
            uniform token physics:axis = "Z"
            rel physics:body0 = </World/Robot/A>
            rel physics:body1 = </World/Robot/B>
            point3f physics:localPos0 = (1, 0, 0)
            point3f physics:localPos1 = (-1, 0, 0)
            float physics:lowerLimit = {lower}
            float physics:upperLimit = {upper}
            uniform token drive:angular:physics:type = "force"
            float drive:angular:physics:damping = 1000
            float drive:angular:physics:maxForce = 1000000
            float drive:angular:physics:targetVelocity = {rate}
        }
    }
}
"""
ROOT_API = 'prepend apiSchemas = ["PhysicsArticulationRootAPI"]'
STEPS, DT = 300, 1.0 / 60.0  # 5 s at -120 deg/s: 600 deg of travel when nothing stops it


def _driven_hinge(tmp_path, *, articulated: bool, lower: float, upper: float, rate: float = -120.0) -> Path:
    path = tmp_path / f"driven_{'art' if articulated else 'alone'}_{lower:g}_{upper:g}.usda"
    path.write_text(DRIVEN_HINGE.replace("{root}", ROOT_API if articulated else "").replace("{lower}", repr(lower))
                    .replace("{upper}", repr(upper)).replace("{rate}", repr(rate)))
    return path


@pytest.mark.parametrize("bound", (400.0, 2000.0))
def test_articulation_limit_beyond_a_turn_holds(bound, tmp_path, ovphysx_probe):
    """Inside an articulation PhysX keeps a revolute bound beyond one turn and the joint stops
    there: read back as authored, and driven past it, the joint rests at the bound (the contract
    page says +-360 deg clamps to (-2pi, 2pi) with a warning: measured, neither happens). The
    walk reads the bound unclamped and reports nothing."""
    stage = _driven_hinge(tmp_path, articulated=True, lower=-bound, upper=bound, rate=-2.0 * bound / (STEPS * DT))
    report = ovphysx_probe(stage, steps=STEPS, dt=DT)
    dof = report["joints"]["/World/Robot/J"]["dofs"][0]
    assert report["joints"]["/World/Robot/J"]["as_read"]["jointLimit"] == [[-bound, bound]]
    assert math.degrees(dof["position"]) == pytest.approx(-bound, abs=0.05)
    assert not [m for m in report["messages"] if "clamp" in m["text"]]
    description = walk(str(stage), consumer="ovphysx")
    limit = description.joint("/World/Robot/J").limits[0]
    assert (limit.enabled, limit.low, limit.high) == (True, -bound, bound)
    assert not [d for d in description.diagnostics if d.code == "limit-beyond-turn"]


@pytest.mark.parametrize("lower, upper, held", [(-170.0, 170.0, -170.0), (-400.0, 400.0, None), (-400.0, 100.0, None)])
def test_standalone_limit_beyond_half_a_turn_is_clamped_where_it_does_not_hold(lower, upper, held, tmp_path,
                                                                                ovphysx_probe):
    """Outside articulations PhysX clamps a revolute bound beyond +-180 deg to +-180 (its warning)
    and a bound at -180 deg does not stop the hinge: driven at -120 deg/s for 5 s it turns on past
    a full turn. A bound inside +-180 holds. The walk reads the clamped bounds, with a warning per
    clamped bound naming its column."""
    stage = _driven_hinge(tmp_path, articulated=False, lower=lower, upper=upper)
    report = ovphysx_probe(stage, steps=STEPS, dt=DT)
    turned = math.degrees(report["joints"]["/World/Robot/J"]["displacement"])
    clamped = {name for name, value in (("physics:lowerLimit", lower), ("physics:upperLimit", upper)) if abs(value) > 180}
    texts = " ".join(m["text"] for m in report["messages"])
    assert ("Lower angle limit on a revolute D6 joint was clamped to -180" in texts) is ("physics:lowerLimit" in clamped)
    assert ("Upper angle limit on a revolute D6 joint was clamped to 180" in texts) is ("physics:upperLimit" in clamped)
    if held is None:
        assert turned < -360.0
    else:
        assert turned == pytest.approx(held, abs=0.05)
    description = walk(str(stage), consumer="ovphysx")
    limit = description.joint("/World/Robot/J").limits[0]
    assert (limit.low, limit.high) == (max(lower, -180.0), min(upper, 180.0))
    assert {d.attribute for d in description.diagnostics if d.code == "limit-beyond-turn"} == clamped


UNITS_STAGE = """#usda 1.0
(
    metersPerUnit = {mpu}
    kilogramsPerUnit = {kpu}
    upAxis = "{up}"
)
def Xform "World" {
    def Cube "A" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"]) {
        float physics:mass = 1
    }
}
"""
UNIT_CASES = {  # name: (metersPerUnit, kilogramsPerUnit, upAxis, PhysX refuses it)
    "kilograms_zero": ("1", "0", "Z", True), "kilograms_negative": ("1", "-1", "Z", True),
    "kilograms_inf": ("1", "inf", "Z", True), "meters_zero": ("0", "1", "Z", True),
    "meters_nan": ("nan", "1", "Z", True), "kilograms_tiny": ("1", "1e-30", "Z", False),
    "up_axis_x": ("1", "1", "X", False),
}


@pytest.mark.parametrize("name", sorted(UNIT_CASES))
def test_physx_refuses_a_stage_whose_units_are_no_positive_number(name, tmp_path, ovphysx_probe):
    """metersPerUnit or kilogramsPerUnit of 0, -1, nan or inf: ovphysx's attach fails ("physics
    source scan failed") and nothing is simulated; the walk's stage-units error for PhysX says so
    and names the metadatum. A tiny positive unit and an upAxis of X load."""
    mpu, kpu, up, refused = UNIT_CASES[name]
    stage = tmp_path / f"{name}.usda"
    stage.write_text(UNITS_STAGE.replace("{mpu}", mpu).replace("{kpu}", kpu).replace("{up}", up))
    description = walk(str(stage), consumer="ovphysx")
    assert _refused_by_physx(description) is refused
    if refused:
        with pytest.raises(RuntimeError, match="physics source scan failed"):
            ovphysx_probe(stage)
        key = "metersPerUnit" if mpu != "1" else "kilogramsPerUnit"
        assert [(d.severity, d.attribute) for d in description.diagnostics if d.code == "invalid-stage-units"] \
            == [("error", key)]
    else:
        assert "/World/A" in ovphysx_probe(stage)["bodies"]


WELDED_ANCHOR = """#usda 1.0
(
    metersPerUnit = 1
    kilogramsPerUnit = 1
    upAxis = "Z"
)
def Xform "World" {
    def PhysicsScene "Scene" {}
    def Xform "Robot" (prepend apiSchemas = ["PhysicsArticulationRootAPI"]) {
        def Cube "Base" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI", "PhysicsCollisionAPI"]) {
            float physics:mass = 1
            double size = 0.2
            double3 xformOp:translate = (1, 0, 2)
            uniform token[] xformOpOrder = ["xformOp:translate"]
        }
        def PhysicsRevoluteJoint "Mount" {
            uniform token physics:axis = "Y"
            rel physics:body1 = </World/Robot/Base>
            point3f physics:localPos0 = (0, 0, 2)
            point3f physics:localPos1 = (-1, 0, 0)
        }
    }
}
"""


def test_hinge_to_the_world_is_welded_by_physx(tmp_path, ovphysx_probe):
    """A revolute from the world to an articulation's base: PhysX fixes the base (it never swings
    under gravity, though its centre of mass hangs 1 m off the hinge); the walk says so."""
    stage = tmp_path / "welded_anchor.usda"
    stage.write_text(WELDED_ANCHOR)
    report = ovphysx_probe(stage, steps=30, dt=1.0 / 60.0)
    base = report["bodies"]["/World/Robot/Base"]
    assert report["articulations"][0]["fixed_base"] is True
    assert base["final"]["position"] == pytest.approx(base["initial"]["position"], abs=1e-6)
    codes = {(d.prim, d.code) for d in walk(str(stage), consumer="ovphysx").diagnostics}
    assert ("/World/Robot/Mount", "welded-anchor") in codes


def test_locked_hinge_is_what_physx_does(ovphysx_probe):
    """The one-sided revolute limit inside an articulation: PhysX holds [0, 0]; so does the walk."""
    stage = REPO / "tests" / "data" / "usd" / "artic_onesided_limit.usda"
    physx = ovphysx_probe(stage)["joints"]["/World/OneSided"]["dofs"][0]
    joint = walk(str(stage), consumer="ovphysx").joint("/World/OneSided")
    assert (physx["lower"], physx["upper"]) == (0.0, 0.0)
    assert (joint.limits[0].enabled, joint.limits[0].low, joint.limits[0].high) == (True, 0.0, 0.0)
