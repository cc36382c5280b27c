"""Values the model reads outside the walker's joint contract (collider shapes, the physics scene)
follow the walker's decision on wrongly typed values, and values that leave nothing to simulate
are one-line usdjoints errors naming the prim (the fuzzer's classes in tests/fuzz/repros).

Oracles: OpenUSD's own schema fallbacks (``GetAttributeFallbackValue`` of the prim definition:
a Capsule's height 1 and radius 0.5, a Cube's size 2, a scene's gravity magnitude -inf, that is
standard gravity), the closed-form volumes of a capsule and a cube at PhysX's default density,
UsdPhysics' parser (every drive type but "acceleration" is a force drive), and IEEE arithmetic
(1e308 m/unit squared is not finite).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from usdjoints.errors import InputError
from usdjoints.model.articulated import COLLIDER_BOX, DRIVE_FORCE
from usdjoints.model.build import STANDARD_GRAVITY, load_model
from usdjoints.model.mass import DEFAULT_DENSITY

HEADER = """#usda 1.0
(
    metersPerUnit = {mpu}
    kilogramsPerUnit = 1
    upAxis = "Z"
)
"""


def _stage(tmp_path, body: str, scene: str = "", mpu: float = 1.0) -> str:
    path = tmp_path / "stage.usda"
    path.write_text(HEADER.format(mpu=mpu) + f"""
def Xform "World"
{{
    def PhysicsScene "scene"
    {{
        {scene}
    }}
{body}
}}
""")
    return str(path)


def _fallback(type_name: str, name: str):
    from pxr import Usd

    definition = Usd.SchemaRegistry().FindConcretePrimDefinition(type_name)
    return definition.GetAttributeFallbackValue(name)


def _codes(model):
    return [d.code for d in model.diagnostics]


def test_capsule_height_of_another_type_reads_as_the_fallback(tmp_path):
    """shape_size_token.usda: ``token height`` on a capsule collider reads as the schema's height
    (1), so the body's mass is that of the fallback capsule at 1000 kg/m^3."""
    path = _stage(tmp_path, """
    def Capsule "Tail" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])
    {
        token height = "tall"
        double radius = 0.1
    }""")
    model = load_model(path)
    h, r = _fallback("Capsule", "height"), 0.1
    assert h == 1.0
    volume = math.pi * r * r * h + 4.0 / 3.0 * math.pi * r ** 3
    assert model.link_mass[0] == pytest.approx(DEFAULT_DENSITY * volume, rel=1e-12)
    assert "invalid-value-type" in _codes(model)
    assert any("height" in d.message for d in model.diagnostics if d.code == "invalid-value-type")


@pytest.mark.parametrize("authored", ['token[] size = ["convexHull"]', "float3 size = (0, 0, 0)"])
def test_cube_size_of_another_type_reads_as_the_fallback(tmp_path, authored):
    """shape_token_array.usda, collider_size_vector.usda: a cube's size authored as a token array
    or a vector is the fallback size 2 for the mass and the contact box (half extent 1)."""
    path = _stage(tmp_path, f"""
    def Cube "Box" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])
    {{
        {authored}
    }}""")
    model = load_model(path)
    size = _fallback("Cube", "size")
    assert size == 2.0
    assert model.link_mass[0] == pytest.approx(DEFAULT_DENSITY * size ** 3, rel=1e-12)
    assert int(model.collider_type[0]) == COLLIDER_BOX
    np.testing.assert_allclose(model.collider_size[0], [size / 2] * 3)
    assert _codes(model).count("invalid-value-type") == 1  # once, though mass and contact both read it


@pytest.mark.parametrize("radius, kept", [("0", True), ("1e308", True), ("nan", False)])
def test_capsule_without_a_finite_volume_gives_no_mass(tmp_path, radius, kept):
    """shape_zero_division.usda, shape_overflow.usda: a capsule of radius and height 0 (volume 0),
    or a radius whose volume overflows, gives its body no mass (the authored mass stays) with a
    warning; a NaN radius is not simulated for contact either (1e308 m is a finite size)."""
    path = _stage(tmp_path, f"""
    def Capsule "Rocker" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI", "PhysicsCollisionAPI"])
    {{
        float physics:mass = 0.5
        float3 physics:diagonalInertia = (0.04, 0.04, 0.001)
        double height = 0
        double radius = {radius}
    }}""")
    model = load_model(path)
    assert model.link_mass[0] == pytest.approx(0.5)
    assert "collider-no-mass" in _codes(model)
    assert (len(model.collider_names) == 1) == kept
    assert ("collider-unsupported" in _codes(model)) != kept


def test_huge_stage_units_are_an_input_error(tmp_path):
    """mass_overflow.usdc: metersPerUnit 1e308 makes the inertia (x m^2) overflow: nothing to
    simulate, one line naming the body."""
    path = _stage(tmp_path, """
    def Cube "A" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
    {
        float physics:mass = 1
        float3 physics:diagonalInertia = (0.2, 0.2, 0.2)
    }""", mpu=1e308)
    assert not math.isfinite(0.2 * 1e308 * 1e308)
    with pytest.raises(InputError) as error:
        load_model(path)
    message = str(error.value)
    assert message.startswith("/World/A: not finite in SI units: its inertia"), message
    assert "\n" not in message and len(message) < 200


@pytest.mark.parametrize("scene", ["int physics:gravityDirection = -1", "quatd physics:gravityMagnitude = (1, 0, 0, 0)",
                                   "float2 physics:gravityMagnitude = (nan, 0)"])
def test_gravity_of_another_type_reads_as_the_fallback(tmp_path, scene):
    """gravity_or_pose_short.usda, gravity_direction_quat.usdc, gravity_direction_float2.usda:
    the fallback direction (0, 0, 0) means against the up axis, the fallback magnitude -inf
    standard gravity."""
    assert tuple(_fallback("PhysicsScene", "physics:gravityDirection")) == (0, 0, 0)
    assert _fallback("PhysicsScene", "physics:gravityMagnitude") == -math.inf
    path = _stage(tmp_path, """
    def Cube "A" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
    {
        float physics:mass = 1
    }""", scene=scene)
    model = load_model(path)
    np.testing.assert_allclose(model.gravity, [0.0, 0.0, -STANDARD_GRAVITY])
    assert "invalid-value-type" in _codes(model)


def test_non_finite_gravity_direction_is_an_input_error(tmp_path):
    path = _stage(tmp_path, """
    def Cube "A" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
    {
        float physics:mass = 1
    }""", scene="vector3f physics:gravityDirection = (0, nan, -1)")
    with pytest.raises(InputError, match=r"^/World/scene: physics:gravityDirection is .* not finite"):
        load_model(path)


def test_body_at_infinity_is_an_input_error(tmp_path):
    """initial_qd_svd.usda: a body translated to (1e20, inf, 0) has no pose to simulate from
    (lstsq on it did not converge)."""
    path = _stage(tmp_path, """
    def Cube "A" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
    {
        float physics:mass = 1
        double3 xformOp:translate = (1e20, inf, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
    def PhysicsRevoluteJoint "J"
    {
        rel physics:body0 = </World/A>
    }""")
    with pytest.raises(InputError, match=r"^/World/A: its world transform is not finite"):
        load_model(path)


def test_drive_type_outside_allowed_tokens_is_a_force_drive(tmp_path):
    """axis_token_w.usda: drive type "W" is a force drive, as UsdPhysics' parser reads every type
    but "acceleration"."""
    path = _stage(tmp_path, """
    def Cube "Link" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
    {
        float physics:mass = 1
        float3 physics:diagonalInertia = (0.1, 0.1, 0.1)
    }
    def PhysicsRevoluteJoint "Hinge" (prepend apiSchemas = ["PhysicsDriveAPI:angular"])
    {
        float drive:angular:physics:stiffness = 100
        uniform token drive:angular:physics:type = "W"
        uniform token physics:axis = "Z"
        rel physics:body1 = </World/Link>
    }""")
    model = load_model(path)
    assert list(model.dof_drive_type) == [DRIVE_FORCE]


@pytest.mark.parametrize("attribute, shown", [
    ("float3 physics:diagonalInertia = (nan, 1e20, 0)", "its inertia (physics:diagonalInertia = (nan, 1e+20, 0))"),
    ("float physics:mass = inf", "its mass inf kg (from physics:mass)"),
])
def test_a_value_that_is_not_finite_is_named_with_its_value(tmp_path, attribute, shown):
    """The fuzzer's case: physics:diagonalInertia = (nan, 1e20, 0) was reported as one of four
    attributes it might be; the message names the one and its value."""
    path = _stage(tmp_path, f"""
    def Cube "A" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
    {{
        {attribute}
    }}""")
    with pytest.raises(InputError) as error:
        load_model(path)
    message = str(error.value)
    assert message.startswith(f"/World/A: not finite in SI units: {shown}"), message
    assert "\n" not in message and len(message) < 200


def test_a_joint_frame_that_is_not_finite_is_named_with_its_values(tmp_path):
    """The fuzzer's case: physics:localPos1 = (inf, nan, 0) on a hinge was reported as 'its frame or
    its bodies' velocities'; the message names the frame and shows both anchors."""
    path = _stage(tmp_path, """
    def Cube "A" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
    {
        float physics:mass = 1
    }
    def PhysicsRevoluteJoint "j"
    {
        rel physics:body1 = </World/A>
        point3f physics:localPos0 = (0, 0, 0.1)
        point3f physics:localPos1 = (inf, nan, 0)
    }""")
    with pytest.raises(InputError) as error:
        load_model(path)
    message = str(error.value)
    assert message.startswith("/World/j: its frame is not finite in SI units (physics:localPos0 = (0, 0, 0.1), "
                              "physics:localPos1 = (inf, nan, 0)"), message
    assert "\n" not in message


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_a_fixed_joint_frame_that_is_not_finite_is_the_one_named(tmp_path):
    """The fuzzer's case: a weld to the world with physics:localPos0 = (inf, inf, 0) made the hinge
    below it (whose own frame is finite) the one named; the message names the weld and its
    values, with no numpy warning before it."""
    path = _stage(tmp_path, """
    def Cube "A" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
    {
        float physics:mass = 1
    }
    def Cube "B" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
    {
        float physics:mass = 1
    }
    def PhysicsFixedJoint "weld"
    {
        rel physics:body1 = </World/A>
        point3f physics:localPos0 = (inf, inf, 0)
    }
    def PhysicsRevoluteJoint "j"
    {
        rel physics:body0 = </World/A>
        rel physics:body1 = </World/B>
        point3f physics:localPos0 = (0, 0, 0.1)
    }""")
    with pytest.raises(InputError) as error:
        load_model(path)
    message = str(error.value)
    assert message.startswith("/World/weld: its frame is not finite in SI units (physics:localPos0 = (inf, inf, 0)"), message


def test_an_inertia_finite_as_authored_but_not_in_si_units_names_the_units(tmp_path):
    """A fuzzer's case: a finite physics:diagonalInertia under metersPerUnit 1e200 (kg m^2 scale
    by mpu^2: inf) was reported as '(nan, nan, nan) kg m^2 (from physics:mass)'. The message
    names the attribute, its authored value and the units that carry it out of range."""
    path = _stage(tmp_path, """
    def Cube "A" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
    {
        float physics:mass = 1
        float3 physics:diagonalInertia = (0.5, 1, 1.5)
    }""", mpu=1e200)
    with pytest.raises(InputError) as error:
        load_model(path)
    message = str(error.value)
    assert message.startswith("/World/A: not finite in SI units: its inertia (physics:diagonalInertia = "
                              "(0.5, 1, 1.5) in stage units)"), message
    assert "metersPerUnit 1e+200" in message and "physics:mass" not in message


def _sample(tmp_path, name: str, old: str, new: str) -> str:
    from samples import REPO

    text = (REPO / "sample_stages" / name).read_text()
    assert old in text
    path = tmp_path / name
    path.write_text(text.replace(old, new))
    return str(path)


@pytest.mark.parametrize("name, old, new, shown", [
    ("mimic_rotz.usda", "physxMimicJoint:rotZ:gearing = 2", "physxMimicJoint:rotZ:gearing = nan",
     "/World/Follower: not finite in SI units: its PhysxMimicJointAPI:rotZ gearing nan"),
    ("mimic_rotz.usda", "physxMimicJoint:rotZ:offset = 0.1", "physxMimicJoint:rotZ:offset = nan",
     "/World/Follower: not finite in SI units: its PhysxMimicJointAPI:rotZ offset nan"),
    ("mimic_rotz.usda", "physxMimicJoint:rotZ:gearing = 2", "physxMimicJoint:rotZ:gearing = -inf",
     "/World/Follower: not finite in SI units: its PhysxMimicJointAPI:rotZ gearing -inf"),
    ("gear_pair.usda", "physics:gearRatio = 2", "physics:gearRatio = inf",
     "/World/Gear: not finite in SI units: its ratio inf"),
    ("rack_and_pinion.usda", "physics:ratio = 90", "physics:ratio = nan",
     "/World/RackAndPinion: not finite in SI units: its ratio nan"),
])
def test_a_coupling_number_that_is_not_finite_is_an_input_error(tmp_path, name, old, new, shown):
    """The fuzzer's cases: a NaN or infinite mimic gearing, gear or rack ratio made the first step
    diverge (exit 1, blaming masses and inertias), and a NaN mimic offset was run as no offset
    (exit 0). Like a drive's gains, the coupling's number is refused naming its joint; the
    oracle is IEEE arithmetic (nan and inf are not finite; the sample stages load as they are)."""
    load_model(_sample(tmp_path, name, old, old))  # the sound stage builds
    with pytest.raises(InputError) as error:
        load_model(_sample(tmp_path, name, old, new))
    message = str(error.value)
    assert message.startswith(shown), message
    assert "\n" not in message
