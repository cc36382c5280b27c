"""SDFormat as real files write it: sensors, lights, plugins, world physics, surfaces, springs.

Oracles: OpenUSD's physics parser (``UsdPhysics.LoadUsdPhysicsFromRange``: scene gravity, bound
materials, drives, filtered pairs) and ``UsdGeom.XformCache`` on the written stage; closed forms
(a camera's focal length from its field of view; the view direction of a USD camera is its -Z);
lxml for the round trip of the kept XML.
"""
from __future__ import annotations

import json
import math
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from lxml import etree

import usdjoints  # noqa: F401  (registers the PhysX schemas)
from usdjoints.convert import convert_sdformat
from usdjoints.errors import InputError

from pxr import Gf, Usd, UsdGeom, UsdLux, UsdPhysics  # noqa: E402

WORLD = """<?xml version="1.0"?>
<sdf version="1.9">
  <world name="w">
    <gravity>0 0 0</gravity>
    <physics name="fast" type="ode"><max_step_size>0.002</max_step_size><real_time_factor>1</real_time_factor>
      <ode><solver><iters>50</iters></solver></ode></physics>
    <light type="directional" name="sun"><pose>0 0 10 0 0 0</pose><diffuse>0.8 0.7 0.6 1</diffuse>
      <direction>-0.5 0.1 -0.9</direction></light>
    <plugin filename="libworld.so" name="world_plugin"><rate>5</rate></plugin>
    <model name="cart">
      <pose>1 2 3 0 0 0.5</pose>
      <link name="body">
        <inertial><mass>10</mass><inertia><ixx>1</ixx><iyy>1</iyy><izz>1</izz></inertia></inertial>
        <collision name="c"><geometry><box><size>1 1 1</size></box></geometry>
          <surface><friction><ode><mu>0.3</mu><mu2>0.3</mu2></ode></friction>
            <bounce><restitution_coefficient>0.1</restitution_coefficient></bounce></surface></collision>
        <sensor name="cam" type="camera"><pose>0.5 0 0.2 0 0.3 0</pose>
          <camera><horizontal_fov>1.2</horizontal_fov><image><width>640</width><height>480</height></image>
            <clip><near>0.1</near><far>100</far></clip></camera></sensor>
        <sensor name="imu" type="imu"><imu/></sensor>
        <light type="spot" name="lamp"><spot><inner_angle>0.3</inner_angle><outer_angle>0.6</outer_angle>
          <falloff>1</falloff></spot></light>
        <projector name="proj"><texture>x.png</texture></projector>
        <plugin filename="libx.so" name="link_plugin"/>
      </link>
      <link name="wheel"><pose>0 0 -1 0 0 0</pose>
        <inertial><mass>1</mass><inertia><ixx>1</ixx><iyy>1</iyy><izz>1</izz></inertia></inertial>
        <collision name="c"><geometry><sphere><radius>0.2</radius></sphere></geometry></collision>
      </link>
      <joint name="suspension" type="prismatic"><parent>body</parent><child>wheel</child>
        <axis><xyz>0 0 1</xyz><limit><lower>-0.1</lower><upper>0.1</upper></limit>
          <initial_position>0.05</initial_position>
          <dynamics><spring_stiffness>2500</spring_stiffness><spring_reference>0.02</spring_reference>
            <damping>10</damping></dynamics></axis>
        <sensor name="ft" type="force_torque"><pose>0 0 0.1 0 0 0</pose></sensor>
      </joint>
      <plugin filename="libmodel.so" name="model_plugin"/>
    </model>
  </world>
</sdf>
"""


def _convert(tmp_path, text, name="in.sdf", **kwargs):
    src = tmp_path / name
    src.write_text(text)
    out = tmp_path / (Path(name).stem + ".usda")
    report = convert_sdformat(src, out, **kwargs)
    stage = Usd.Stage.Open(str(out))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        parsed = UsdPhysics.LoadUsdPhysicsFromRange(stage, ["/"])
    descs = {}
    for kind, (paths, items) in parsed.items():
        for path, desc in zip(paths, items):
            descs[str(path)] = (kind, desc)
    return report, stage, descs


def _named(stage, name):
    for prim in stage.Traverse():
        if (prim.GetMetadata("displayName") or prim.GetName()) == name:
            return prim
    raise KeyError(name)


@pytest.fixture
def world(tmp_path):
    return _convert(tmp_path, WORLD)


def test_sensors_lights_projectors_plugins_are_kept_with_their_xml(world):
    report, stage, _ = world
    kept = {e.message.split(" written")[0] for e in report.kept}
    assert kept == {"<sensor> 'cam' (camera)", "<sensor> 'imu' (imu)", "<light> 'lamp' (spot)", "<projector> 'proj'",
                    "<plugin> 'link_plugin'", "<sensor> 'ft' (force_torque)", "<light> 'sun'",
                    "<plugin> 'world_plugin'", "<plugin> 'model_plugin'"}
    assert all(":" in e.where and e.where.split(":")[-1].isdigit() for e in report.kept)
    source = etree.fromstring(WORLD.encode())
    by_name = {}
    for prim in stage.Traverse():
        xml = prim.GetAttribute("sdformat:xml")
        if xml:
            by_name[(prim.GetAttribute("sdformat:element").Get(), prim.GetAttribute("sdformat:name").Get())] = prim
    assert len(by_name) == 9
    # the round trip: the kept XML is the source element
    for element in source.iter("sensor", "light", "projector", "plugin"):
        prim = by_name[(element.tag, element.get("name"))]
        kept = etree.fromstring(prim.GetAttribute("sdformat:xml").Get().encode())
        assert etree.tostring(kept, method="c14n") == etree.tostring(
            etree.fromstring(etree.tostring(element, with_tail=False)), method="c14n")
    assert by_name[("sensor", "cam")].IsA(UsdGeom.Camera)
    assert by_name[("light", "sun")].IsA(UsdLux.DistantLight)
    assert by_name[("light", "lamp")].IsA(UsdLux.SphereLight)
    assert by_name[("light", "lamp")].HasAPI(UsdLux.ShapingAPI)


def test_camera_sensor_looks_along_its_x_axis_with_the_field_of_view(world):
    _, stage, _ = world
    camera = UsdGeom.Camera(_named(stage, "cam"))
    cache = UsdGeom.XformCache()
    X = cache.GetLocalToWorldTransform(camera.GetPrim())
    # closed form: model yaw 0.5, sensor pitch 0.3 at (0.5, 0, 0.2) in the body
    R_model = Gf.Matrix3d(Gf.Rotation(Gf.Vec3d(0, 0, 1), math.degrees(0.5)))
    R_sensor = Gf.Matrix3d(Gf.Rotation(Gf.Vec3d(0, 1, 0), math.degrees(0.3)))
    view = X.TransformDir(Gf.Vec3d(0, 0, -1))
    up = X.TransformDir(Gf.Vec3d(0, 1, 0))
    expected_view = Gf.Vec3d(1, 0, 0) * R_sensor * R_model  # Gf row vectors: v * R
    expected_up = Gf.Vec3d(0, 0, 1) * R_sensor * R_model
    assert np.allclose(view, expected_view, atol=1e-9)
    assert np.allclose(up, expected_up, atol=1e-9)
    expected_position = Gf.Vec3d(1, 2, 3) + Gf.Vec3d(0.5, 0, 0.2) * R_model
    assert np.allclose(X.ExtractTranslation(), expected_position, atol=1e-9)
    aperture = camera.GetHorizontalApertureAttr().Get()
    assert camera.GetFocalLengthAttr().Get() == pytest.approx(aperture / (2 * math.tan(0.6)), rel=1e-6)
    assert camera.GetVerticalApertureAttr().Get() == pytest.approx(aperture * 480 / 640, rel=1e-6)
    assert tuple(camera.GetClippingRangeAttr().Get()) == pytest.approx((0.1, 100.0))


def test_directional_light_shines_along_its_direction(world):
    _, stage, _ = world
    light = _named(stage, "sun")
    X = UsdGeom.XformCache().GetLocalToWorldTransform(light)
    d = np.array([-0.5, 0.1, -0.9])
    assert np.allclose(X.TransformDir(Gf.Vec3d(0, 0, -1)), d / np.linalg.norm(d), atol=1e-9)
    assert tuple(UsdLux.DistantLight(light).GetColorAttr().Get()) == pytest.approx((0.8, 0.7, 0.6))


def test_joint_sensor_is_placed_at_the_joint_frame_in_the_child_link(world):
    _, stage, _ = world
    sensor = _named(stage, "ft")
    assert sensor.GetParent() == _named(stage, "cart::wheel")
    X = UsdGeom.XformCache().GetLocalToWorldTransform(sensor)
    R_model = Gf.Matrix3d(Gf.Rotation(Gf.Vec3d(0, 0, 1), math.degrees(0.5)))
    # the joint frame is the child frame (no joint pose), the sensor 0.1 above it
    expected = Gf.Vec3d(1, 2, 3) + Gf.Vec3d(0, 0, -1 + 0.1) * R_model
    assert np.allclose(X.ExtractTranslation(), expected, atol=1e-9)


def test_zero_gravity_and_step_size_on_the_physics_scene(world):
    report, stage, descs = world
    kind, scene = descs["/PhysicsScene"]
    assert kind == UsdPhysics.ObjectType.Scene
    assert scene.gravityMagnitude == 0.0
    prim = stage.GetPrimAtPath("/PhysicsScene")
    assert prim.GetAttribute("physxScene:timeStepsPerSecond").Get() == 500
    assert prim.GetAttribute("sdformat:max_step_size").Get() == 0.002
    dropped = [e for e in report.dropped if "<physics>/<ode>" in e.element]
    assert dropped and dropped[0].where.endswith(":6")


@pytest.mark.parametrize("gravity, direction, magnitude", [
    ("0 0 -9.8", (0, 0, -1), 9.8), ("1 0 0", (1, 0, 0), 1.0), ("0 3 -4", (0, 0.6, -0.8), 5.0)])
def test_world_gravity_direction_and_magnitude(tmp_path, gravity, direction, magnitude):
    text = f"""<sdf version="1.9"><world name="w"><gravity>{gravity}</gravity>
      <model name="m"><link name="l"/></model></world></sdf>"""
    _, _, descs = _convert(tmp_path, text)
    scene = descs["/PhysicsScene"][1]
    assert scene.gravityMagnitude == pytest.approx(magnitude, rel=1e-6)
    assert np.allclose(scene.gravityDirection, direction, atol=1e-6)


def test_unwritten_world_gravity_is_the_spec_default_and_reported(tmp_path):
    report, _, descs = _convert(tmp_path, """<sdf version="1.9"><world name="w">
      <model name="m"><link name="l"/></model></world></sdf>""")
    assert descs["/PhysicsScene"][1].gravityMagnitude == pytest.approx(9.8)
    assert any(e.element == "world gravity" for e in report.defaults)


def test_pre_1_5_physics_gravity_is_read(tmp_path):
    _, _, descs = _convert(tmp_path, """<sdf version="1.4"><world name="w">
      <physics type="ode"><gravity>0 0 -1.6</gravity><max_step_size>0.01</max_step_size></physics>
      <model name="m"><link name="l"/></model></world></sdf>""")
    assert descs["/PhysicsScene"][1].gravityMagnitude == pytest.approx(1.6)


def test_surface_friction_and_restitution_are_a_bound_physics_material(world):
    _, stage, descs = world
    collider = _named(stage, "cart::body").GetChild("collision_c")
    kind, shape = descs[str(collider.GetPath())]
    assert len(shape.materials) == 1
    material_kind, material = descs[str(shape.materials[0])]
    assert material_kind == UsdPhysics.ObjectType.RigidBodyMaterial
    assert material.staticFriction == pytest.approx(0.3)
    assert material.dynamicFriction == pytest.approx(0.3)
    assert material.restitution == pytest.approx(0.1)
    wheel = _named(stage, "cart::wheel").GetChild("collision_c")
    assert not descs[str(wheel.GetPath())][1].materials  # no <surface>: PhysX's default material


def test_spring_becomes_drive_stiffness_and_target(world):
    report, stage, descs = world
    joint = _named(stage, "cart::suspension")
    kind, desc = descs[str(joint.GetPath())]
    assert kind == UsdPhysics.ObjectType.PrismaticJoint
    assert desc.drive.stiffness == pytest.approx(2500.0)
    assert desc.drive.targetPosition == pytest.approx(0.02)
    assert any(e.element == "joint 'cart::suspension' spring" for e in report.defaults)
    assert joint.GetAttribute("physxJointAxis:linear:viscousFrictionCoefficient").Get() == pytest.approx(10.0)


def test_angular_spring_is_per_degree(tmp_path):
    _, stage, descs = _convert(tmp_path, """<sdf version="1.9"><model name="m"><link name="a"/><link name="b"/>
      <joint name="j" type="revolute"><parent>a</parent><child>b</child><axis><xyz>0 0 1</xyz>
        <dynamics><spring_stiffness>90</spring_stiffness><spring_reference>0.5</spring_reference></dynamics>
        <initial_position>0.25</initial_position></axis></joint></model></sdf>""")
    joint = _named(stage, "j")
    drive = descs[str(joint.GetPath())][1].drive
    assert drive.stiffness == pytest.approx(90.0 * math.pi / 180.0)  # N·m/rad -> N·m/deg
    assert drive.targetPosition == pytest.approx(math.degrees(0.5))
    assert joint.HasAPI(UsdPhysics.DriveAPI, "angular")
    assert "PhysicsJointStateAPI:angular" in joint.GetAppliedSchemas()
    assert joint.GetAttribute("state:angular:physics:position").Get() == pytest.approx(math.degrees(0.25))


def test_initial_position_of_a_prismatic_joint_is_joint_state(world):
    _, stage, _ = world
    joint = _named(stage, "cart::suspension")
    assert joint.GetAttribute("state:linear:physics:position").Get() == pytest.approx(0.05)


def test_links_without_self_collide_are_filtered_pairs(world):
    _, stage, descs = world
    body = str(_named(stage, "cart::body").GetPath())
    wheel = str(_named(stage, "cart::wheel").GetPath())
    assert [str(p) for p in descs[body][1].filteredCollisions] == [wheel]


def test_self_collide_on_one_link_lets_it_collide(tmp_path):
    text = """<sdf version="1.9"><model name="m">
      <link name="a"><collision name="c"><geometry><sphere><radius>1</radius></sphere></geometry></collision></link>
      <link name="b"><self_collide>true</self_collide>
        <collision name="c"><geometry><sphere><radius>1</radius></sphere></geometry></collision></link>
      <link name="c"><collision name="c"><geometry><sphere><radius>1</radius></sphere></geometry></collision></link>
      </model></sdf>"""
    _, stage, descs = _convert(tmp_path, text)
    filtered = {(k, str(t)) for k, (kind, d) in descs.items() if kind == UsdPhysics.ObjectType.RigidBody
                for t in d.filteredCollisions}
    assert filtered == {("/m/a", "/m/c")}
    text = text.replace("<model name=\"m\">", "<model name=\"m\"><self_collide>true</self_collide>")
    _, stage, descs = _convert(tmp_path, text, name="all.sdf")
    assert not any(d.filteredCollisions for kind, d in descs.values() if kind == UsdPhysics.ObjectType.RigidBody)


def test_collide_bitmask_groups_filter_masks_without_a_common_bit(tmp_path):
    def link(name, mask):
        return f"""<link name="{name}"><collision name="c"><geometry><sphere><radius>1</radius></sphere></geometry>
          <surface><contact><collide_bitmask>{mask}</collide_bitmask></contact></surface></collision></link>"""
    text = f"""<sdf version="1.9"><model name="m"><self_collide>true</self_collide>
      {link('a', '0x01')}{link('b', '0x02')}{link('c', '0x03')}</model></sdf>"""
    _, stage, descs = _convert(tmp_path, text)
    groups = {str(p): d for p, (kind, d) in descs.items() if kind == UsdPhysics.ObjectType.CollisionGroup}
    assert len(groups) == 3
    one = next(p for p in groups if p.endswith("0x1"))
    two = next(p for p in groups if p.endswith("0x2"))
    three = next(p for p in groups if p.endswith("0x3"))
    filtering = {(p, str(t)) for p, d in groups.items() for t in d.filteredGroups}
    assert filtering == {(one, two)}
    assert three not in {p for pair in filtering for p in pair}


def test_collide_without_contact_disables_the_contact_response(tmp_path):
    _, stage, descs = _convert(tmp_path, """<sdf version="1.9"><model name="m"><link name="a">
      <collision name="c"><geometry><sphere><radius>1</radius></sphere></geometry>
      <surface><contact><collide_without_contact>true</collide_without_contact></contact></surface>
      </collision></link></model></sdf>""")
    shape = descs["/m/a/collision_c"][1]
    assert shape.collisionEnabled is False


def test_collision_density_gives_the_mass_when_the_link_has_none(tmp_path):
    _, stage, _ = _convert(tmp_path, """<sdf version="1.11"><model name="m"><link name="a">
      <collision name="c"><density>500</density><geometry><box><size>1 2 1</size></box></geometry></collision>
      </link></model></sdf>""")
    body = stage.GetPrimAtPath("/m/a")
    assert not UsdPhysics.MassAPI(body).GetMassAttr().HasAuthoredValue()
    collider = stage.GetPrimAtPath("/m/a/collision_c")
    assert UsdPhysics.MassAPI(collider).GetDensityAttr().Get() == pytest.approx(500.0)


def test_universal_axes_keep_velocity_damping_friction_and_limits(tmp_path):
    report, stage, descs = _convert(tmp_path, """<sdf version="1.9"><model name="m"><link name="a"/><link name="b"/>
      <joint name="u" type="universal"><parent>a</parent><child>b</child>
        <axis><xyz>1 0 0</xyz><limit><lower>-1</lower><upper>1</upper><velocity>2</velocity><effort>5</effort></limit>
          <dynamics><damping>0.5</damping><friction>0.25</friction></dynamics></axis>
        <axis2><xyz>0 1 0</xyz><limit><lower>-0.5</lower><upper>0.5</upper><velocity>3</velocity></limit>
          <dynamics><damping>0.1</damping><spring_stiffness>4</spring_stiffness></dynamics></axis2>
      </joint></model></sdf>""")
    joint = _named(stage, "u")
    scale = 180.0 / math.pi
    for instance, lower, upper, velocity, damping in (("rotX", -1, 1, 2, 0.5), ("rotY", -0.5, 0.5, 3, 0.1)):
        assert joint.GetAttribute(f"limit:{instance}:physics:low").Get() == pytest.approx(lower * scale)
        assert joint.GetAttribute(f"limit:{instance}:physics:high").Get() == pytest.approx(upper * scale)
        assert joint.GetAttribute(f"physxJointAxis:{instance}:maxJointVelocity").Get() == pytest.approx(velocity * scale)
        assert joint.GetAttribute(f"physxJointAxis:{instance}:viscousFrictionCoefficient").Get() == pytest.approx(
            damping / scale)
    assert joint.GetAttribute("physxJointAxis:rotX:staticFrictionEffort").Get() == pytest.approx(0.25)
    assert joint.GetAttribute("drive:rotY:physics:stiffness").Get() == pytest.approx(4 / scale)


def test_missing_mesh_is_warned_once(tmp_path):
    report, _, _ = _convert(tmp_path, """<sdf version="1.9"><model name="m"><link name="a">
      <visual name="v"><geometry><mesh><uri>meshes/nowhere.stl</uri></mesh></geometry></visual>
      <collision name="c"><geometry><mesh><uri>meshes/nowhere.stl</uri></mesh></geometry></collision>
      </link></model></sdf>""")
    assert len([w for w in report.warnings if "nowhere.stl" in w.message]) == 1
    assert len([d for d in report.dropped if "nowhere.stl" in d.message]) == 1


def test_velocity_decay_is_body_damping(tmp_path):
    _, stage, _ = _convert(tmp_path, """<sdf version="1.9"><model name="m"><link name="a">
      <velocity_decay><linear>0.1</linear><angular>0.2</angular></velocity_decay></link></model></sdf>""")
    body = stage.GetPrimAtPath("/m/a")
    assert body.GetAttribute("physxRigidBody:linearDamping").Get() == pytest.approx(0.1)
    assert body.GetAttribute("physxRigidBody:angularDamping").Get() == pytest.approx(0.2)


# ---- libsdformat's reading rules --------------------------------------------------------------

def test_pre_1_7_joint_named_like_a_link_is_renamed(tmp_path):
    report, stage, _ = _convert(tmp_path, """<sdf version="1.6"><model name="m"><link name="a"/>
      <link name="b"><pose>1 0 0 0 0 0</pose></link>
      <joint name="b" type="revolute"><parent>a</parent><child>b</child><axis><xyz>0 0 1</xyz></axis></joint>
      <joint name="a" type="fixed"><parent>b</parent><child>a</child></joint>
      </model></sdf>""".replace('<joint name="a" type="fixed"><parent>b</parent><child>a</child></joint>', ""))
    assert _named(stage, "b_joint").IsA(UsdPhysics.RevoluteJoint)
    assert any("renamed 'b_joint'" in w.message for w in report.warnings)


def test_1_7_joint_named_like_a_link_is_rejected(tmp_path):
    with pytest.raises(InputError, match="already used"):
        _convert(tmp_path, """<sdf version="1.7"><model name="m"><link name="a"/><link name="b"/>
          <joint name="b" type="revolute"><parent>a</parent><child>b</child></joint></model></sdf>""")


@pytest.mark.parametrize("decl", ['<link name="world"/>', '<frame name="world"/>', '<link name="__x__"/>', '<link name="____"/>',
                                  '<joint name="world" type="fixed"><parent>world</parent><child>l</child></joint>'])
def test_reserved_names_are_rejected(tmp_path, decl):
    with pytest.raises(InputError, match="reserved") as error:
        _convert(tmp_path, f'<sdf version="1.9"><model name="m"><link name="l"/>\n{decl}</model></sdf>')
    assert str(error.value).split(":")[1] == "2"


@pytest.mark.parametrize("name", ["__", "___", "_x_", "__x"])
def test_short_underscore_names_are_not_reserved(tmp_path, name):
    """libsdformat's isReservedName reserves a name starting and ending with "__" only from four
    characters on: libsdformat 12.3 loads these with no error."""
    _, stage, _ = _convert(tmp_path, f'<sdf version="1.9"><model name="m"><link name="l"/>\n'
                                     f'<link name="{name}"/><frame name="f{name}" attached_to="{name}"/></model></sdf>')
    assert _named(stage, name).IsValid()


def test_root_model_beside_a_world_is_left_out_with_a_warning(tmp_path):
    """libsdformat 12.3 loads a root <model> beside a <world> with no error; the world is what a
    simulator runs, so it is converted and the root model is named in a warning."""
    report, stage, _ = _convert(tmp_path, '<sdf version="1.9">\n<world name="w"><model name="a"><link name="l"/>'
                                          '</model></world>\n<model name="b"><link name="k"/></model></sdf>')
    assert _named(stage, "a::l").IsValid()
    with pytest.raises(KeyError):
        _named(stage, "k")
    assert any("the root <model> 'b'" in w.message for w in report.warnings), report.to_text()


def test_two_root_models_are_refused_at_the_second(tmp_path):
    """libsdformat: "Root object can only contain one model" (an error; drake refuses the file)."""
    with pytest.raises(InputError, match="holds 2 <model> elements") as error:
        _convert(tmp_path, '<sdf version="1.9">\n<model name="a"><link name="l"/></model>\n'
                           '<model name="b"><link name="l"/></model></sdf>')
    assert str(error.value).split(":")[1] == "3"


def test_reserved_model_name_is_rejected(tmp_path):
    with pytest.raises(InputError, match="reserved"):
        _convert(tmp_path, '<sdf version="1.9"><model name="__model__"><link name="l"/></model></sdf>')


def test_flattened_names_with_scope_separators_in_1_7(tmp_path):
    _, stage, _ = _convert(tmp_path, """<sdf version="1.7"><model name="m"><link name="a"/>
      <link name="inner::b"><pose>1 0 0 0 0 0</pose></link>
      <frame name="inner::__model__" attached_to="inner::b"><pose relative_to="__model__">1 0 0 0 0 0</pose></frame>
      <joint name="inner::j" type="revolute"><parent>a</parent><child>inner::b</child>
        <pose relative_to="inner::__model__">0 1 0 0 0 0</pose><axis><xyz>0 0 1</xyz></axis></joint>
      </model></sdf>""")
    b = _named(stage, "inner::b")
    assert np.allclose(UsdGeom.XformCache().GetLocalToWorldTransform(b).ExtractTranslation(), (1, 0, 0))
    joint = UsdPhysics.Joint(_named(stage, "inner::j"))
    assert np.allclose(joint.GetLocalPos0Attr().Get(), (1, 1, 0))


def test_undeclared_namespace_prefix_is_tolerated_and_reported(tmp_path):
    report, stage, _ = _convert(tmp_path, """<sdf version="1.9"><model name="m"><link name="b"/><link name="c"/>
      <joint name="j" type="revolute"><parent>b</parent><child>c</child>
        <axis><xyz gz:expressed_in="b">0 0 1</xyz></axis></joint>
      <gz:custom>1</gz:custom></model></sdf>""")
    assert any("namespace prefix 'gz'" in w.message for w in report.warnings)
    messages = [e.message for e in report.dropped]
    assert any("gz:expressed_in" in m for m in messages)
    assert any("<gz:custom>" in m for m in messages)


def test_malformed_xml_is_still_rejected(tmp_path):
    with pytest.raises(InputError, match="not well-formed"):
        _convert(tmp_path, '<sdf version="1.9"><model name="m"><link name="b"></model></sdf>')


INCLUDED = """<sdf version="1.9"><model name="part"><link name="p"><pose>0 0 1 0 0 0</pose></link></model></sdf>"""


@pytest.mark.parametrize("uri", ["file://models/part/model.sdf", "models/part/model.sdf", "models/part",
                                 "file://models/part"])
def test_relative_include_uris_resolve_against_the_including_file(tmp_path, uri, monkeypatch):
    folder = tmp_path / "scene"
    (folder / "models" / "part").mkdir(parents=True)
    (folder / "models" / "part" / "model.sdf").write_text(INCLUDED)
    monkeypatch.chdir(tmp_path)  # not the including file's folder
    (folder / "world.sdf").write_text(f"""<sdf version="1.9"><world name="w">
      <include><uri>{uri}</uri><pose>1 0 0 0 0 0</pose></include></world></sdf>""")
    report = convert_sdformat(folder / "world.sdf", tmp_path / "out.usda")
    stage = Usd.Stage.Open(str(tmp_path / "out.usda"))
    assert np.allclose(UsdGeom.XformCache().GetLocalToWorldTransform(_named(stage, "part::p")).ExtractTranslation(),
                       (1, 0, 1))
    assert report.body_count == 1


def test_model_uri_searches_resource_path_then_environment(tmp_path, monkeypatch):
    for root, z in (("first", 1), ("second", 2)):
        (tmp_path / root / "part").mkdir(parents=True)
        (tmp_path / root / "part" / "model.sdf").write_text(INCLUDED.replace("0 0 1 0 0 0", f"0 0 {z} 0 0 0"))
    (tmp_path / "w.sdf").write_text("""<sdf version="1.9"><world name="w">
      <include><uri>model://part</uri></include></world></sdf>""")
    monkeypatch.setenv("GZ_SIM_RESOURCE_PATH", str(tmp_path / "second"))
    for paths, z in (([str(tmp_path / "first")], 1), ([], 2)):
        out = tmp_path / f"o{z}.usda"
        convert_sdformat(tmp_path / "w.sdf", out, resource_paths=paths)
        stage = Usd.Stage.Open(str(out))
        assert UsdGeom.XformCache().GetLocalToWorldTransform(_named(stage, "part::p")).ExtractTranslation()[2] == z


def test_cli_converts_a_world_with_sensors_and_prints_the_counts(tmp_path):
    src = tmp_path / "w.sdf"
    src.write_text(WORLD)
    run = subprocess.run([sys.executable, "-c", "import sys; from usdjoints.cli import main; sys.exit(main(sys.argv[1:]))",
                          "convert", str(src), "-o", str(tmp_path / "w.usda"), "--report", "json"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert sum(1 for e in report["entries"] if e["kind"] == "kept") == 9


def test_sdformat_1_3_is_read_as_libsdformat_converts_it(tmp_path):
    """1_3.convert of the specification: ode/solver/dt becomes max_step_size."""
    report, stage, descs = _convert(tmp_path, """<sdf version="1.3"><world name="w">
      <physics type="ode"><gravity>0 0 -2</gravity><update_rate>250</update_rate>
        <ode><solver><dt>0.004</dt></solver></ode></physics>
      <model name="m"><link name="l"/></model></world></sdf>""")
    assert descs["/PhysicsScene"][1].gravityMagnitude == pytest.approx(2.0)
    assert stage.GetPrimAtPath("/PhysicsScene").GetAttribute("physxScene:timeStepsPerSecond").Get() == 250
    assert not any("update_rate" in e.message and "specification" in e.message for e in report.dropped)


def test_model_uri_meshes_are_found_through_gz_sim_resource_path(tmp_path, monkeypatch):
    models = tmp_path / "models"
    (models / "part" / "meshes").mkdir(parents=True)
    (models / "part" / "meshes" / "tri.stl").write_text(
        "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid t\n")
    monkeypatch.setenv("GZ_SIM_RESOURCE_PATH", str(models))
    report, stage, _ = _convert(tmp_path, """<sdf version="1.9"><model name="m"><link name="a">
      <visual name="v"><geometry><mesh><uri>model://part/meshes/tri.stl</uri></mesh></geometry></visual>
      </link></model></sdf>""")
    assert not report.warnings
    assert stage.GetPrimAtPath("/m/a/visual_v").IsA(UsdGeom.Mesh)


def test_warnings_of_a_merged_include_reach_the_report(tmp_path):
    (tmp_path / "part.sdf").write_text("""<sdf version="1.9"><model name="part">
      <link name="p"><gz:note>x</gz:note></link></model></sdf>""")
    report, _, _ = _convert(tmp_path, """<sdf version="1.9"><model name="m"><link name="base"/>
      <include merge="true"><uri>part.sdf</uri></include></model></sdf>""")
    assert any("namespace prefix 'gz'" in w.message and w.where.endswith("part.sdf:2") for w in report.warnings)
    assert any("<gz:note>" in d.message for d in report.dropped)


def test_pre_1_7_world_frame_named_like_a_model_is_renamed(tmp_path):
    """libsdformat's own test file (gazebosim/sdformat test/sdf/world_model_frame_same_name_1_6.sdf,
    Apache-2.0), written out here: before 1.7 the world's frame 'ground' is renamed
    'ground_frame' with a warning (oracle: libsdformat's DOMWorld.LoadModelFrameSameName), and the
    models keep their poses. It reached an internal error (AttributeError) before."""
    text = """<?xml version="1.0" ?>
<sdf version='1.6'>
  <world name="world_model_frame_same_name">
    <model name="base"><pose>1 0 0 0 0 0</pose><link name="L"/></model>
    <model name="ground"><pose>0 2 0 0 0 0</pose><link name="L"/></model>
    <frame name="ground"><pose>0 0 3 0 0 0</pose></frame>
  </world>
</sdf>
"""
    source, out = tmp_path / "world_model_frame_same_name_1_6.sdf", tmp_path / "out.usda"
    source.write_text(text)
    report = convert_sdformat(source, out)
    assert any("renamed 'ground_frame'" in w.message for w in report.warnings)
    stage = Usd.Stage.Open(str(out))
    cache = UsdGeom.XformCache()
    positions = {p.GetName(): cache.GetLocalToWorldTransform(p).ExtractTranslation()
                 for p in stage.Traverse() if p.HasAPI(UsdPhysics.RigidBodyAPI)}
    assert positions["base__L"] == Gf.Vec3d(1, 0, 0) and positions["ground__L"] == Gf.Vec3d(0, 2, 0)


def test_unlimited_effort_and_velocity_give_a_finite_drive(tmp_path):
    """A joint with effort -1 and velocity -1 (SDFormat's "no limit", as osrf/gazebo_models'
    follower_vehicle and cessna write them) got damping = inf / inf = nan; it gets no damping
    gain to scale from (0, with its note), and the stage simulates."""
    text = """<?xml version="1.0"?>
<sdf version="1.6"><model name="m">
  <link name="base"><inertial><mass>1</mass><inertia><ixx>0.1</ixx><iyy>0.1</iyy><izz>0.1</izz></inertia></inertial></link>
  <link name="wheel"><inertial><mass>0.5</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial></link>
  <joint name="spin" type="revolute"><parent>base</parent><child>wheel</child>
    <axis><xyz>0 0 1</xyz><limit><lower>-1e16</lower><upper>1e16</upper><effort>-1</effort><velocity>-1</velocity></limit></axis>
  </joint>
</model></sdf>
"""
    source, out = tmp_path / "m.sdf", tmp_path / "m.usda"
    source.write_text(text)
    convert_sdformat(source, out)
    stage = Usd.Stage.Open(str(out))
    dampings = [a.Get() for p in stage.Traverse() for a in p.GetAttributes() if a.GetName().endswith(":physics:damping")]
    assert dampings and all(math.isfinite(d) for d in dampings)
    done = subprocess.run([sys.executable, "-m", "usdjoints", "simulate", str(out), "--duration", "0.05"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr


def test_sdformat_1_12_converts_and_keeps_a_model_state(tmp_path):
    """SDFormat 1.12 (gazebosim/sdformat sdf/1.12: its 1_11.convert changes nothing; model.sdf now
    includes model_state.sdf, sensor.sdf adds frame_id): the joint converts, the model's state is
    kept with its XML, and a sensor's frame_id raises no report of an unknown element."""
    report, stage, _ = _convert(tmp_path, """<sdf version="1.12"><model name="m"><link name="a"/>
      <link name="b"><sensor name="s" type="imu"><frame_id>b</frame_id></sensor></link>
      <joint name="j" type="revolute"><parent>a</parent><child>b</child><axis><xyz>0 0 1</xyz></axis></joint>
      <model_state name="m"><joint_state name="j"><axis_state><position>0.3</position></axis_state></joint_state>
      </model_state></model></sdf>""")
    assert UsdPhysics.RevoluteJoint(_named(stage, "j"))
    assert report.dropped == () and report.warnings == ()
    kept = [e.message for e in report.kept]
    assert any("<model_state> 'm'" in m for m in kept), kept


MULTIPLE_WORLDS = """<sdf version="1.9">
  <world name="first"><model name="box"><link name="b"/></model></world>
  <world name="second"><model name="cylinder"><pose>0 0 2 0 0 0</pose><link name="c"/></model></world>
</sdf>"""


def test_one_world_of_several_is_chosen_by_name(tmp_path, capsys):
    """gz-sim's test/worlds/multiple_worlds.sdf holds three worlds (libsdformat loads them all):
    --world NAME converts that one; without it, or with a name the file does not hold, exit 2
    naming the worlds; URDF has no worlds."""
    from usdjoints.cli import main

    source = tmp_path / "worlds.sdf"
    source.write_text(MULTIPLE_WORLDS)
    out = tmp_path / "out.usda"
    assert main(["convert", str(source), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'first', 'second'" in err[0] and "--world" in err[0]
    assert main(["convert", str(source), "-o", str(out), "--world", "third"]) == 2
    assert "no world of that name" in capsys.readouterr().err and not out.exists()
    assert main(["convert", str(source), "-o", str(out), "--world", "second"]) == 0
    stage = Usd.Stage.Open(str(out))
    names = {p.GetMetadata("displayName") for p in stage.Traverse()}
    assert "cylinder::c" in names and "box::b" not in names
    assert np.allclose(UsdGeom.XformCache().GetLocalToWorldTransform(_named(stage, "cylinder::c")).ExtractTranslation(),
                       (0, 0, 2))
    urdf = tmp_path / "r.urdf"
    urdf.write_text('<robot name="r"><link name="a"/></robot>')
    assert main(["convert", str(urdf), "-o", str(tmp_path / "u.usda"), "--world", "second"]) == 2


def test_two_worlds_of_one_name_are_refused_at_the_second(tmp_path, capsys):
    """libsdformat's Root::Load: DUPLICATE_NAME, "World with name[first] already exists. Each world
    must have a unique name" (an error of the load). The fuzzer's case: --world first converted
    one of them, the empty one, with exit 0."""
    from usdjoints.cli import main

    source = tmp_path / "worlds.sdf"
    source.write_text(MULTIPLE_WORLDS.replace('name="second"', 'name="first"'))
    for extra in ([], ["--world", "first"]):
        assert main(["convert", str(source), "-o", str(tmp_path / "out.usda"), *extra]) == 2
        (err,) = capsys.readouterr().err.strip().splitlines()
        assert f"worlds.sdf:3: a second world named 'first' (the first is at line 2)" in err
        assert not (tmp_path / "out.usda").exists()


def test_a_static_model_is_said_to_have_no_rigid_body(tmp_path, capsys):
    """A static floor converts to colliders with no rigid body: the summary line said "floating
    base". Oracle: the stage (no prim with PhysicsRigidBodyAPI)."""
    from usdjoints import cli

    src = tmp_path / "floor.sdf"
    src.write_text('<sdf version="1.6"><model name="floor"><static>true</static><link name="l"><collision name="c">'
                   '<geometry><box><size>1 1 1</size></box></geometry></collision></link></model></sdf>')
    out = tmp_path / "floor.usda"
    assert cli.main(["convert", str(src), "-o", str(out)]) == 0
    assert "0 bodies, 0 joints, no rigid body," in capsys.readouterr().out
    stage = Usd.Stage.Open(str(out))
    assert not any(prim.HasAPI(UsdPhysics.RigidBodyAPI) for prim in stage.Traverse())
