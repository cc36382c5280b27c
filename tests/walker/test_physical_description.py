"""The description's scene, masses and colliders.

Oracles: OpenUSD's parser (``UsdPhysics.LoadUsdPhysicsFromRange``) for the gravity of a scene;
closed-form volumes at PhysX's default density (1000 kg/m^3, FACTS.md) and at an authored one
for the masses; PhysX's measured defaults for a body nothing gives a mass (1 stage mass unit, a
0.1 m sphere's inertia: tests/sim/test_default_mass.py measures them with ovphysx); the stage's
own bindings for materials, groups and filtered pairs.
"""
from __future__ import annotations

import math
import warnings

import pytest

import usdjoints  # noqa: F401
from usdjoints.walker import walk, walk_many

HEADER = """#usda 1.0
(
    metersPerUnit = {mpu}
    kilogramsPerUnit = 1
    upAxis = "{up}"
)
"""


def _stage(tmp_path, body: str, mpu=1.0, up="Z", name="stage.usda") -> str:
    path = tmp_path / name
    path.write_text(HEADER.format(mpu=mpu, up=up) + body)
    return str(path)


def _parser_gravity(path):
    from pxr import Sdf, Usd, UsdPhysics

    stage = Usd.Stage.Open(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        parsed = UsdPhysics.LoadUsdPhysicsFromRange(stage, [Sdf.Path.absoluteRootPath])
    for kind, (paths, descs) in parsed.items():
        if str(kind).endswith("Scene"):
            d = descs[0]
            return str(paths[0]), tuple(c * d.gravityMagnitude for c in d.gravityDirection)
    return None


@pytest.mark.parametrize("scene,mpu,up", [
    ("", 1.0, "Z"),
    ("", 0.01, "Y"),
    ("vector3f physics:gravityDirection = (0, -2, 0)\n    float physics:gravityMagnitude = 5", 1.0, "Z"),
    ("vector3f physics:gravityDirection = (1, 0, -1)", 0.5, "Z"),
])
def test_scene_gravity_agrees_with_the_parser(tmp_path, scene, mpu, up):
    path = _stage(tmp_path, f'def PhysicsScene "Scene"\n{{\n    {scene}\n}}\n', mpu, up)
    parsed_path, parsed = _parser_gravity(path)
    for consumer, description in walk_many(path, ("ovphysx", "usdphysics", "usdjoints")).items():
        assert description.scene.path == parsed_path == "/Scene"
        assert description.scene.gravity == pytest.approx(parsed, rel=1e-6, abs=1e-9), consumer
    source = walk(path).scene.magnitude.source.value
    assert source == ("authored" if "Magnitude" in scene else "fallback")


def test_no_scene_is_standard_gravity_against_the_up_axis(tmp_path):
    path = _stage(tmp_path, 'def Xform "World"\n{\n}\n', 0.01, "Y")
    scene = walk(path).scene
    assert scene.path is None and scene.scenes == ()
    assert scene.gravity == pytest.approx((0.0, -981.0, 0.0))


BODIES = """
def Xform "World"
{
    def Xform "Shapes" (prepend apiSchemas = ["PhysicsRigidBodyAPI"])
    {
        def Cube "Box" (prepend apiSchemas = ["PhysicsCollisionAPI"])
        {
            double size = 2
        }
    }
    def Xform "Dense" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
    {
        float physics:density = 500
        def Sphere "Ball" (prepend apiSchemas = ["PhysicsCollisionAPI"])
        {
            double radius = 0.5
        }
    }
    def Xform "Weighed" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
    {
        float physics:mass = 3
        float3 physics:diagonalInertia = (1, 2, 2.5)
        quatf physics:principalAxes = (1, 0, 0, 0)
    }
    def Xform "Bare" (prepend apiSchemas = ["PhysicsRigidBodyAPI"])
    {
    }
}
"""


def test_masses_as_physx_resolves_them(tmp_path):
    path = _stage(tmp_path, BODIES)
    description = walk(path, consumer="ovphysx")
    box = description.mass("/World/Shapes")
    assert (box.source, box.inertia_source) == ("shapes", "shapes")
    assert box.mass == pytest.approx(1000.0 * 8.0)  # a 2 m cube at 1000 kg/m^3
    assert box.inertia[0][0] == pytest.approx(box.mass * (4 + 4) / 12)  # m (b^2 + c^2) / 12
    assert box.colliders == ("/World/Shapes/Box",)
    dense = description.mass("/World/Dense")
    assert dense.source == "density"
    assert dense.mass == pytest.approx(500.0 * 4.0 / 3.0 * math.pi * 0.125)
    weighed = description.mass("/World/Weighed")
    assert (weighed.source, weighed.inertia_source, weighed.mass) == ("authored", "authored", 3.0)
    assert [weighed.inertia[k][k] for k in range(3)] == pytest.approx([1.0, 2.0, 2.5])
    bare = description.mass("/World/Bare")
    assert bare.defaulted == ("mass", "inertia")
    assert bare.mass == 1.0 and bare.inertia[0][0] == pytest.approx(0.4 * 1.0 * 0.1 ** 2)
    codes = [(d.prim, d.code) for d in description.diagnostics]
    assert ("/World/Bare", "no-mass-no-collider") in codes
    assert ("/World/Shapes", "no-mass-no-collider") not in codes


def test_the_parser_resolves_no_mass(tmp_path):
    description = walk(_stage(tmp_path, BODIES), consumer="usdphysics")
    assert description.mass("/World/Shapes").source == "unset"
    assert description.mass("/World/Weighed").mass == 3.0
    assert "no-mass-no-collider" not in {d.code for d in description.diagnostics}


COLLIDERS = """
def Xform "World"
{
    def Material "Rubber" (prepend apiSchemas = ["PhysicsMaterialAPI"])
    {
        float physics:dynamicFriction = 0.9
        float physics:staticFriction = 1.1
        float physics:restitution = 0.3
    }
    def PhysicsCollisionGroup "Group"
    {
        rel physics:filteredGroups = </World/Group>
        rel collection:colliders:includes = [</World/A>]
    }
    def Xform "A" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "MaterialBindingAPI", "PhysicsFilteredPairsAPI"])
    {
        rel material:binding:physics = </World/Rubber>
        rel physics:filteredPairs = </World/B>
        def Capsule "Pill" (prepend apiSchemas = ["PhysicsCollisionAPI"])
        {
            double radius = 0.1
            double height = 0.5
            uniform token axis = "Y"
        }
    }
    def Xform "B" (prepend apiSchemas = ["PhysicsRigidBodyAPI"])
    {
        double3 xformOp:translate = (1, 0, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
        def Mesh "Hull" (prepend apiSchemas = ["PhysicsCollisionAPI"])
        {
            int[] faceVertexCounts = [3]
            int[] faceVertexIndices = [0, 1, 2]
            point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 2, 0)]
        }
    }
}
"""


def test_colliders_carry_shape_material_group_and_filters(tmp_path):
    description = walk(_stage(tmp_path, COLLIDERS))
    by_path = {c.path: c for c in description.colliders}
    pill, hull = by_path["/World/A/Pill"], by_path["/World/B/Hull"]
    assert (pill.shape, pill.body, pill.radius, pill.height, pill.axis) == ("capsule", "/World/A", 0.1, 0.5, "Y")
    assert pill.material.path == "/World/Rubber"
    assert (pill.material.dynamic_friction, pill.material.static_friction) == pytest.approx((0.9, 1.1))
    assert pill.material.restitution == pytest.approx(0.3)
    assert pill.group == "/World/Group" and hull.group is None
    assert hull.material.path is None and hull.material.dynamic_friction == 0.5  # PhysX's default material
    assert hull.shape == "mesh" and hull.extent == ((0.0, 0.0, 0.0), (1.0, 2.0, 0.0))
    assert hull.world_pose.position == (1.0, 0.0, 0.0)
    filters = description.collision_filters
    assert filters.filtered_pairs == (("/World/A", "/World/B"),)
    assert filters.groups == {"/World/Group": ("/World/Group",)}
    assert filters.inverted is False
