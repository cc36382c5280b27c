"""Files libsdformat refuses to load, and files it loads, at the edges of what the reader checks.

Oracle: libsdformat 12.3 (``sdf::Root::Load``), run on each file below; the error it prints is
quoted in each case. The files are small restatements of test files of libsdformat's own suite
(gazebosim/sdformat, ``test/sdf/``, Apache-2.0, see tests/data/sdf/LICENSE.sdformat); the file
each one follows is named beside it.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from usdjoints.convert.sdformat import read_sdformat
from usdjoints.errors import InputError, UnsupportedFeature

#: name -> (SDFormat text, line of the error, words of our message, libsdformat 12.3's error)
REFUSED = {
    # model_duplicate_joints.sdf: before 1.7 a joint named like a link is renamed, but two
    # joints sharing a name are an error in every version
    "duplicate_joints_1_6.sdf": (
        '<sdf version="1.6">\n<model name="m">\n<link name="a"/><link name="b"/><link name="c"/>\n'
        '<joint name="j" type="fixed"><parent>a</parent><child>b</child></joint>\n'
        '<joint name="j" type="fixed"><parent>b</parent><child>c</child></joint>\n</model></sdf>',
        5, "joint name 'j' is already used by the joint", "joint with name[j] already exists."),
    # link_duplicate_sibling_visuals.sdf / _collisions.sdf
    "duplicate_visuals.sdf": (
        '<sdf version="1.9">\n<model name="m">\n<link name="l">\n'
        '<visual name="v"><geometry><sphere><radius>1</radius></sphere></geometry></visual>\n'
        '<visual name="v"><geometry><box><size>1 1 1</size></box></geometry></visual>\n</link>\n</model></sdf>',
        5, "visual name 'v' is already used by the visual at line 4", "visual with name[v] already exists."),
    "duplicate_collisions.sdf": (
        '<sdf version="1.6">\n<model name="m">\n<link name="l">\n'
        '<collision name="c"><geometry><sphere><radius>1</radius></sphere></geometry></collision>\n'
        '<visual name="c"><geometry><sphere><radius>1</radius></sphere></geometry></visual>\n'
        '<collision name="c"><geometry><box><size>1 1 1</size></box></geometry></collision>\n</link>\n</model></sdf>',
        6, "collision name 'c' is already used by the collision at line 4", "collision with name[c] already exists."),
    "duplicate_sensors.sdf": (
        '<sdf version="1.9">\n<model name="m">\n<link name="l">\n'
        '<sensor name="s" type="imu"/>\n<sensor name="s" type="imu"/>\n</link>\n</model></sdf>',
        5, "sensor name 's' is already used", "sensor with name[s] already exists."),
    # world_noname.sdf, and the same for the other elements whose name the specification requires
    "world_without_name.sdf": (
        '<sdf version="1.6">\n<world>\n</world>\n</sdf>',
        2, "<world> has no name attribute", "Required attribute[name] in element[world] is not specified in SDF."),
    "world_with_empty_name.sdf": (
        '<sdf version="1.6">\n<world name="">\n</world>\n</sdf>',
        2, "<world> has no name attribute", "Unable to read attribute[name]"),
    "model_without_name.sdf": (
        '<sdf version="1.9">\n<model>\n<link name="l"/>\n</model>\n</sdf>',
        2, "<model> has no name attribute", "Required attribute[name] in element[model] is not specified in SDF."),
    "visual_without_name.sdf": (
        '<sdf version="1.9">\n<model name="m">\n<link name="l">\n'
        '<visual><geometry><box><size>1 1 1</size></box></geometry></visual>\n</link>\n</model></sdf>',
        4, "<visual> has no name attribute", "Required attribute[name] in element[visual] is not specified in SDF."),
    "collision_without_name.sdf": (
        '<sdf version="1.9">\n<model name="m">\n<link name="l">\n'
        '<collision><geometry><box><size>1 1 1</size></box></geometry></collision>\n</link>\n</model></sdf>',
        4, "<collision> has no name attribute",
        "Required attribute[name] in element[collision] is not specified in SDF."),
    "sensor_with_empty_name.sdf": (
        '<sdf version="1.9">\n<model name="m">\n<link name="l">\n<sensor name="" type="imu"><imu/></sensor>\n'
        '</link>\n</model></sdf>',
        4, "<sensor> has no name attribute", "Unable to read attribute[name]"),
    # a sensor type libsdformat does not know, its 'none', a capitalised one, none at all, and one on
    # a joint; PX4-gazebo-models' airframes were read with any type
    "sensor_of_unknown_type.sdf": (
        '<sdf version="1.9">\n<model name="m">\n<link name="l">\n<sensor name="s" type="bogus"/>\n</link>\n</model></sdf>',
        4, "sensor 's': type 'bogus' is not a sensor type",
        "Attempting to load a Sensor, but the provided sensor type is missing or invalid."),
    "sensor_of_type_none.sdf": (
        '<sdf version="1.6">\n<model name="m">\n<link name="l">\n<sensor name="s" type="none"/>\n</link>\n</model></sdf>',
        4, "sensor 's': type 'none' is not a sensor type",
        "Attempting to load a Sensor, but the provided sensor type is missing or invalid."),
    "sensor_of_capitalised_type.sdf": (
        '<sdf version="1.9">\n<model name="m">\n<link name="l">\n<sensor name="s" type="Camera"/>\n</link>\n</model></sdf>',
        4, "sensor 's': type 'Camera' is not a sensor type",
        "Attempting to load a Sensor, but the provided sensor type is missing or invalid."),
    "sensor_without_type.sdf": (
        '<sdf version="1.9">\n<model name="m">\n<link name="l">\n<sensor name="s"/>\n</link>\n</model></sdf>',
        4, "sensor 's': has no type attribute", "Required attribute[type] in element[sensor] is not specified in SDF."),
    "joint_sensor_of_unknown_type.sdf": (
        '<sdf version="1.9">\n<model name="m">\n<link name="a"/><link name="b"/>\n'
        '<joint name="j" type="fixed"><parent>a</parent><child>b</child>\n<sensor name="s" type="bogus"/></joint>\n'
        '</model></sdf>',
        5, "sensor 's': type 'bogus' is not a sensor type",
        "Attempting to load a Sensor, but the provided sensor type is missing or invalid."),
    "light_without_name.sdf": (
        '<sdf version="1.9">\n<model name="m">\n<link name="l">\n<light type="point"/>\n</link>\n</model></sdf>',
        4, "<light> has no name attribute", "Required attribute[name] in element[light] is not specified in SDF."),
    # model_invalid_top_level_frame.sdf
    "top_level_pose_relative_to.sdf": (
        '<sdf version="1.8">\n<model name="m">\n<pose relative_to="some_frame"/>\n<link name="l"/>\n</model>\n</sdf>',
        3, "top-level model 'm' is relative_to 'some_frame'",
        "Attribute //pose[@relative_to] of top level model must be left empty, found //pose[@relative_to='some_frame']."),
    # model_without_links.sdf; a model in a world alike
    "model_without_links.sdf": (
        '<sdf version="1.7">\n<model name="m">\n</model>\n</sdf>',
        2, "model 'm' has no link", "A model must have at least one link."),
    "world_model_without_links.sdf": (
        '<sdf version="1.9">\n<world name="w">\n<model name="m">\n</model>\n</world>\n</sdf>',
        3, "model 'm' has no link", "A model must have at least one link."),
    # model_actor_light/model.sdf
    "model_and_light.sdf": (
        '<sdf version="1.8">\n<model name="m">\n<link name="l"/>\n</model>\n<light name="sun" type="directional"/>\n</sdf>',
        5, "the file holds a <light> beside its <model> (line 2)",
        "Root object can only contain one of model, light or actor, but found more than one type of element."),
}

#: name -> SDFormat text that libsdformat 12.3 loads without an error
ACCEPTED = {
    # a static model needs no link
    "static_model_without_links.sdf": '<sdf version="1.9">\n<model name="m">\n<static>true</static>\n</model>\n</sdf>',
    # every sensor type libsdformat 12.3 loads, old names included
    "sensors_of_every_type.sdf": '<sdf version="1.9">\n<model name="m">\n<link name="l">\n' + "".join(
        f'<sensor name="s{i}" type="{t}"/>\n' for i, t in enumerate((
            "air_pressure", "altimeter", "camera", "contact", "custom", "depth", "depth_camera", "rgbd", "rgbd_camera",
            "thermal", "thermal_camera", "segmentation", "segmentation_camera", "boundingbox", "boundingbox_camera",
            "wideanglecamera", "wide_angle_camera", "force_torque", "navsat", "gps", "gpu_ray", "gpu_lidar", "imu",
            "logical_camera", "magnetometer", "multicamera", "ray", "lidar", "rfid", "rfidtag", "sonar",
            "wireless_receiver", "wireless_transmitter"))) + '</link>\n</model>\n</sdf>',
}

#: Loaded although libsdformat 12.3 refuses it: air_speed, which libsdformat 13 added with
#: SDFormat 1.10 (PX4-gazebo-models' tiltrotor and quadtailsitter carry one).
NEWER_THAN_12_3 = {
    "air_speed_sensor.sdf": '<sdf version="1.10">\n<model name="m">\n<link name="l">\n'
                            '<sensor name="s" type="air_speed"/>\n</link>\n</model>\n</sdf>',
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_libsdformat_load_errors_are_refused_naming_file_and_line(tmp_path: Path, name: str):
    """Each file libsdformat 12.3 refuses raises InputError at the line of the offending element."""
    text, line, words, _libsdformat_error = REFUSED[name]
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(InputError) as info:
        read_sdformat(path)
    assert info.value.where == f"{path}:{line}"
    assert words in str(info.value)


@pytest.mark.parametrize("name", sorted(ACCEPTED) + sorted(NEWER_THAN_12_3))
def test_files_libsdformat_loads_are_read(tmp_path: Path, name: str):
    path = tmp_path / name
    path.write_text({**ACCEPTED, **NEWER_THAN_12_3}[name])
    read_sdformat(path)


def _model_dir(root: Path, name: str, text: str) -> None:
    (root / name).mkdir()
    (root / name / "model.config").write_text('<?xml version="1.0"?>\n<model><sdf version="1.8">model.sdf</sdf></model>\n')
    (root / name / "model.sdf").write_text(text)


def _include_refused(root: Path, name: str, text: str, include: str = "") -> InputError:
    """The error of reading a world that includes model folder ``name`` holding ``text``
    (``include``: more children of the <include>)."""
    _model_dir(root, name, text)
    world = root / "world.sdf"
    world.write_text(f'<sdf version="1.8">\n<world name="w">\n<include><uri>{name}</uri>{include}</include>\n'
                     '</world>\n</sdf>')
    with pytest.raises(InputError) as info:
        read_sdformat(world, resource_paths=[root])
    return info.value


def test_include_with_placement_frame_needs_a_pose(tmp_path: Path):
    """placement_frame_missing_pose.sdf: libsdformat 12.3 refuses it with "<pose> is required
    when specifying the placement_frame element"."""
    _model_dir(tmp_path, "box", '<sdf version="1.8">\n<model name="box">\n<link name="l"/>\n</model>\n</sdf>')
    world = tmp_path / "world.sdf"
    world.write_text('<sdf version="1.8">\n<world name="w">\n<include>\n<uri>box</uri>\n'
                     '<placement_frame>l</placement_frame>\n</include>\n</world>\n</sdf>')
    with pytest.raises(InputError) as info:
        read_sdformat(world, resource_paths=[tmp_path])
    assert info.value.where == f"{world}:5"
    assert "<placement_frame> but no <pose>" in str(info.value)


def test_included_top_level_model_pose_has_no_relative_to(tmp_path: Path):
    """libsdformat 12.3 checks the top-level model of an included file as it checks the main one
    ("Attribute //pose[@relative_to] of top level model must be left empty")."""
    error = _include_refused(tmp_path, "box", '<sdf version="1.8">\n<model name="box">\n'
                             '<pose relative_to="l">1 0 0 0 0 0</pose>\n<link name="l"/>\n</model>\n</sdf>')
    assert error.where == f"{tmp_path / 'box' / 'model.sdf'}:3"


LIGHT = '<sdf version="1.8">\n<light name="sun" type="directional"/>\n</sdf>'
BOX = '<sdf version="1.8">\n<model name="box">\n<link name="l"/>\n</model>\n</sdf>'


def test_included_light_is_left_out_with_a_warning(tmp_path: Path):
    """includes.sdf: libsdformat 12.3 loads a world including a file that holds a <light> (and
    one including an <actor>) without an error; the light is not converted, and said so."""
    _model_dir(tmp_path, "sun", LIGHT)
    _model_dir(tmp_path, "box", BOX)
    world = tmp_path / "world.sdf"
    world.write_text('<sdf version="1.8">\n<world name="w">\n<include><uri>box</uri></include>\n'
                     '<include><uri>sun</uri></include>\n</world>\n</sdf>')
    robot = read_sdformat(world, resource_paths=[tmp_path])
    assert [link.name for link in robot.links] == ["box::l"]
    assert any(f"{world}:4" in str(n) and "holds a <light>, not a model" in str(n) for n in robot.notes)


def test_included_file_with_a_model_and_a_light_is_refused(tmp_path: Path):
    """nested_multiple_elements_error: libsdformat 12.3 refuses the include ("Found other top
    level element <light> in addition to <model> in include file.")."""
    error = _include_refused(tmp_path, "both", BOX.replace("</model>", "</model>\n<light name=\"sun\" type=\"point\"/>"))
    assert error.where == f"{tmp_path / 'both' / 'model.sdf'}:5"
    assert "included at" in str(error)


def test_included_model_needs_its_own_name(tmp_path: Path):
    """libsdformat 12.3 refuses an included model without a name attribute although the
    include names it ("Unable to read file[.../model.sdf]"): the file is read on its own first."""
    error = _include_refused(tmp_path, "nameless", '<sdf version="1.8">\n<model>\n<link name="l"/>\n</model>\n</sdf>',
                             "<name>x</name>")
    assert error.where == f"{tmp_path / 'nameless' / 'model.sdf'}:2"
    assert "included at" in str(error)


def test_parameter_passing_into_an_include_is_refused(tmp_path: Path):
    """libsdformat 12.3 applies an include's <experimental:params>: in its include_custom_model.sdf
    they move link robot::vehicle::caster from (-0.957138, 0, 0.2) to (0.554282, -0.625029, 0.3)
    in the world and add links; here it adds link box::l2 at (1, 0, 0). usdjoints does not apply
    them, so it refuses the include instead of writing the unchanged model."""
    _model_dir(tmp_path, "box", BOX)
    world = tmp_path / "world.sdf"
    world.write_text('<sdf version="1.9" xmlns:experimental="http://sdformat.org/schemas/experimental">\n'
                     '<world name="w">\n<include><uri>box</uri>\n'
                     '<experimental:params><link element_id="" name="l2" action="add"><pose>1 0 0 0 0 0</pose></link>'
                     '</experimental:params>\n</include>\n</world>\n</sdf>')
    with pytest.raises(UnsupportedFeature, match=r"world\.sdf:4: <experimental:params>"):
        read_sdformat(world, resource_paths=[tmp_path])


def test_frames_of_a_static_model_without_links_are_fixed_in_the_world(tmp_path: Path):
    """frame_only_model (libsdformat's test/integration/model), moved to (1, 2, 3): libsdformat 12.3
    loads it, attaches both frames to the model frame and resolves them in the model frame to
    F1 (0, 0, 1) q (3.26794896538e-07, 1, 0, 0) and F2 (0, -1, 1.00000065359)
    q (1.06794904403e-13, 3.26794896538e-07, 3.26794896538e-07, 1). A static model does not
    move, so its frames are fixed in the world."""
    path = tmp_path / "frames_only.sdf"
    path.write_text('<sdf version="1.7">\n<model name="frames_only">\n<static>true</static>\n<pose>1 2 3 0 0 0</pose>\n'
                    '<frame name="F1">\n<pose>0 0 1 3.141592 0 0</pose>\n</frame>\n'
                    '<frame name="F2">\n<pose relative_to="F1">0 1 0 0 3.141592 0</pose>\n</frame>\n</model>\n</sdf>')
    robot = read_sdformat(path)
    assert robot.links == ()
    frames = {f.name: f for f in robot.frames}
    expected = {"F1": ((1, 2, 4), (3.26794896538e-07, 1, 0, 0)),
                "F2": ((1, 1, 4.00000065359), (1.06794904403e-13, 3.26794896538e-07, 3.26794896538e-07, 1))}
    for name, (position, orientation) in expected.items():
        assert frames[name].attached_to == "world"
        assert frames[name].pose.position == pytest.approx(position, abs=1e-9)
        assert frames[name].pose.orientation == pytest.approx(orientation, abs=1e-9)


def test_static_nested_model_without_links_is_read(tmp_path: Path):
    """model_nested_static_model.sdf: libsdformat 12.3 loads a model whose only content is a
    nested model holding a static model without links."""
    path = tmp_path / "nested_static.sdf"
    path.write_text('<sdf version="1.8">\n<model name="m">\n<model name="child">\n'
                    '<model name="static_model">\n<static>true</static>\n</model>\n</model>\n</model>\n</sdf>')
    assert read_sdformat(path).links == ()


@pytest.mark.parametrize("parent, child", [("S::F", "L"), ("L", "S::F")])
def test_joint_on_a_frame_of_a_static_model_without_links_is_refused(tmp_path: Path, parent: str, child: str):
    """libsdformat 12.3 loads such a joint and resolves that side to the link 'S::__model__', which
    does not exist; there is no body to join, so the joint is refused."""
    path = tmp_path / "joint_on_static_frame.sdf"
    path.write_text(f'<sdf version="1.8">\n<model name="m">\n<link name="L"/>\n<model name="S">\n<static>true</static>\n'
                    f'<frame name="F"/>\n</model>\n<joint name="j" type="revolute">\n<parent>{parent}</parent>\n'
                    f'<child>{child}</child>\n<axis><xyz>0 0 1</xyz></axis>\n</joint>\n</model>\n</sdf>')
    with pytest.raises(InputError, match="is attached to no link") as info:
        read_sdformat(path)
    assert info.value.where == f"{path}:8"


SELF_JOINT = '<link name="L"/>\n<frame name="F"/>\n<joint name="j" type="revolute">\n<parent>F</parent>\n' \
             '<child>L</child>\n<axis><xyz>1 0 0</xyz></axis>\n</joint>\n'


def test_joint_of_a_nested_model_on_one_link_is_left_out_with_a_warning(tmp_path: Path):
    """libsdformat 12.3 loads a joint of a nested model whose parent and child resolve to one
    link (resolved_parent_link L, resolved_child_link L: its check covers only the joints of a
    file's top-level model and of a world's models); gz-sim's nested_models test model has one.
    It joins nothing: it is left out, with a warning naming it."""
    path = tmp_path / "self_joint_nested.sdf"
    path.write_text(f'<sdf version="1.8">\n<model name="top">\n<model name="inner">\n{SELF_JOINT}</model>\n</model>\n</sdf>')
    robot = read_sdformat(path)
    assert robot.joints == ()
    assert any(f"{path}:6" in str(n) and "inner::j" in str(n) and "link to itself" in str(n) for n in robot.notes)


@pytest.mark.parametrize("wrap", [("", ""), ('<world name="w">\n', "</world>\n")], ids=["top_level", "world"])
def test_joint_of_a_top_level_or_world_model_on_one_link_is_refused(tmp_path: Path, wrap):
    """libsdformat 12.3: "joint with name[j] in model with name[top] specified parent frame [F]
    and child frame [L] that both resolve to [L], but they should resolve to different values."."""
    path = tmp_path / "self_joint.sdf"
    path.write_text(f'<sdf version="1.8">\n{wrap[0]}<model name="top">\n{SELF_JOINT}</model>\n{wrap[1]}</sdf>')
    with pytest.raises(InputError, match="are both attached to link 'L'"):
        read_sdformat(path)
