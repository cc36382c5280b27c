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


# Reads each body's mass, inertia and centre of mass from PhysX after the stage is loaded, as
# JSON on stdout (ovphysx in a child process, as the probe runs it).
MASS_READ = r"""
import json, os, sys
out_fd = os.dup(1)
os.dup2(2, 1)  # PhysX's banners go to stderr
import ovphysx, ovstage
from ovphysx import PhysX
from ovphysx.types import ObjectScope, SimObjectType
from ovphysx.samples.python_samples.schema_support import physx_schema_paths
PhysX.set_cpu_mode(True)
physx = PhysX()
ovstage.population.register_usd_schemas([str(p) for p in physx_schema_paths()])
stage = ovstage.Stage("usdjoints-mass-read")
ovstage.population.open_usd(stage, sys.argv[1], ordinal=1, domains=ovstage.PopulationDomain.ALL)
stage.advance_write_floor(ordinal=1).wait()
physx.wait_task(physx.attach_ovstage(stage, read_ordinal=1))
bodies = {}
with physx.read_sync(SimObjectType.RIGID_BODY, ["mass", "inertia", "centerOfMassPosition"],
                     scope=ObjectScope.ALL) as read:
    names = read.dictionary
    for group in read.groups:
        if group.is_delete or not group.tensors:
            continue
        attribute = names.token_to_string(group.attribute)
        rows = ([t.numpy().copy().tolist() for t in group.tensors] if group.is_array
                else group.tensors[0].numpy().copy().tolist())
        for path, row in zip(names.get_path_strings(group.prim_list), rows):
            bodies.setdefault(path, {})[attribute] = row
    read.groups.clear()
os.write(out_fd, (json.dumps(bodies) + "\n").encode())
os._exit(0)  # the read arrays are gone with the process; PhysX needs no teardown here
"""

MATERIALS_STAGE = """#usda 1.0
(
    metersPerUnit = 1
    kilogramsPerUnit = 1
    upAxis = "Z"
)
def PhysicsScene "Scene"
{
}
def Material "Light" (prepend apiSchemas = ["PhysicsMaterialAPI"])
{
    float physics:density = 500
}
def Material "Heavy" (prepend apiSchemas = ["PhysicsMaterialAPI"])
{
    float physics:density = 2000
}
def Material "Slippery" (prepend apiSchemas = ["PhysicsMaterialAPI"])
{
    float physics:staticFriction = 0.1
}
"""


def _material_body(name: str, x: float, *, material=None, physics_purpose=True, density=None, mass=None) -> str:
    apis = ['"PhysicsRigidBodyAPI"', '"PhysicsCollisionAPI"'] + (['"PhysicsMassAPI"'] if density or mass else []) \
        + (['"MaterialBindingAPI"'] if material else [])
    lines = [f'def Cube "{name}" (prepend apiSchemas = [{", ".join(apis)}])', "{", "    double size = 0.2",
             f"    double3 xformOp:translate = ({x}, 0, 5)", '    uniform token[] xformOpOrder = ["xformOp:translate"]']
    if material:
        lines.append(f"    rel material:binding{':physics' if physics_purpose else ''} = </{material}>")
    if density:
        lines.append(f"    float physics:density = {density}")
    if mass:
        lines.append(f"    float physics:mass = {mass}")
    return "\n".join(lines + ["}", ""])


TWO_MATERIALS = """def Xform "Mixed" (prepend apiSchemas = ["PhysicsRigidBodyAPI"])
{
    double3 xformOp:translate = (8, 0, 5)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    def Cube "light" (prepend apiSchemas = ["PhysicsCollisionAPI", "MaterialBindingAPI"])
    {
        double size = 0.2
        rel material:binding:physics = </Light>
        double3 xformOp:translate = (0.3, 0, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
    def Sphere "heavy" (prepend apiSchemas = ["PhysicsCollisionAPI", "MaterialBindingAPI"])
    {
        double radius = 0.1
        rel material:binding:physics = </Heavy>
        double3 xformOp:translate = (-0.2, 0.1, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
}
"""
MATERIAL_BODIES = {  # name: (keywords, where the walk says the density came from)
    "plain": ({}, "default"),
    "light": ({"material": "Light"}, "/Light"),
    "light_all_purposes": ({"material": "Light", "physics_purpose": False}, "/Light"),
    "heavy": ({"material": "Heavy"}, "/Heavy"),
    "light_body_density": ({"material": "Light", "density": 3000}, "body"),
    "light_authored_mass": ({"material": "Light", "mass": 7}, "/Light"),
    "no_density": ({"material": "Slippery"}, "default"),
}


def test_collider_material_density_gives_the_mass_physx_gives(tmp_path, ovphysx_probe):
    """PhysX weighs a collider at its bound material's density when the body authors neither
    physics:mass nor physics:density (a 0.2 m cube with a 500 kg/m^3 material: 4 kg), the body's
    density over the material's, the authored mass over both, 1000 kg/m^3 for a material without
    density; a body with two colliders of two materials sums them. Oracle: the mass, inertia and
    centre of mass ovphysx holds after loading the stage; the walk's MassDesc names each
    collider's density and where it came from."""
    import json
    import subprocess
    import sys

    body_text = "".join(_material_body(name, float(i), **keywords)
                        for i, (name, (keywords, _origin)) in enumerate(MATERIAL_BODIES.items()))
    stage = tmp_path / "materials.usda"
    stage.write_text(MATERIALS_STAGE + body_text + TWO_MATERIALS)
    done = subprocess.run([sys.executable, "-c", MASS_READ, str(stage)], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    physx = json.loads(done.stdout)
    description = walk(str(stage), consumer="ovphysx")
    for path in [f"/{name}" for name in MATERIAL_BODIES] + ["/Mixed"]:
        ours = description.mass(path)
        theirs = physx[path]
        assert ours.mass == pytest.approx(theirs["mass"], rel=1e-5), path
        assert ours.center_of_mass == pytest.approx(theirs["centerOfMassPosition"], abs=1e-6), path
        assert [c for row in ours.inertia for c in row] == pytest.approx(theirs["inertia"], rel=1e-5, abs=1e-9), path
    for name, (_keywords, origin) in MATERIAL_BODIES.items():
        assert [d[2] for d in description.mass(f"/{name}").densities] == [origin]
    assert description.mass("/light").mass == pytest.approx(500 * 0.2 ** 3)
    assert description.mass("/light").source == "density"
    assert sorted(d[1] for d in description.mass("/Mixed").densities) == [500.0, 2000.0]
