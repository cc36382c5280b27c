"""URDF files as found in the wild: what urdfdom accepts converts, what it refuses is refused.

Oracles: pinocchio, whose URDF reader is urdfdom (tinyxml2 underneath), on the same bytes: a file
it loads must convert with the same link poses (1e-8), a file it refuses must be refused with exit 2
and file:line. Resource tests: the files written into tmp_path (their paths and kinds are known).
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
from pxr import Usd

from usdjoints.cli import main
from usdjoints.convert import convert_urdf
from usdjoints.errors import InputError, UsageError

from urdf_oracle import pinocchio_link_poses, pose_mismatches, usd_link_poses

BODY = """<robot name="r">
  <link name="a"/>
  <link name="b"/>
  <joint name="j" type="revolute">
    <parent link="a"/><child link="b"/>
    <origin xyz="0.1 0.2 0.3" rpy="0.3 -0.2 0.1"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/>
  </joint>
</robot>
"""
DECLARATION = b'<?xml version="1.0"?>\n'

# name: (bytes of the file, the report warning's words, or None for no warning)
ACCEPTED = {
    "xml_version_0_0": (b'<?xml version="0.0" ?>\n' + BODY.encode(), "version '0.0'"),
    "blank_lines_before_declaration": (b"\n\n" + DECLARATION + BODY.encode(), "comes before it"),
    "byte_order_mark": (b"\xef\xbb\xbf" + DECLARATION + BODY.encode(), None),
    "space_then_byte_order_mark": (b" \xef\xbb\xbf" + DECLARATION + BODY.encode(), "comes before it"),
    "byte_order_mark_then_newline": (b"\xef\xbb\xbf\n" + DECLARATION + BODY.encode(), "comes before it"),
    "two_declarations": (DECLARATION + DECLARATION + BODY.encode(), "2 declarations"),
    "unknown_encoding": (b'<?xml version="1.0" encoding="bogus"?>\n' + BODY.encode(), "unknown encoding"),
    "undeclared_prefix": (BODY.replace('<link name="a"/>', '<link name="a"/><gazebo><xacro:if x="1"/></gazebo>')
                          .encode(), "prefix xacro"),
    "stray_ampersand": (BODY.replace('"b"', '"b&c"').encode(), "'&'"),
    "robot_version_1_2": (BODY.replace('<robot name="r">', '<robot name="r" version="1.2">').encode(), None),
    "comment_with_double_hyphen": (DECLARATION + BODY.replace('<link name="b"/>', '<!-- a -- b --><link name="b"/>')
                                   .encode(), "holding '--'"),
    "comment_ending_in_a_hyphen": (DECLARATION + BODY.replace('<link name="b"/>', '<!-- a ---><link name="b"/>')
                                   .encode(), "holding '--'"),
    "name_with_double_colon": (DECLARATION + BODY.replace('<link name="b"/>', '<link name="b"><gz::x>1</gz::x></link>')
                               .encode(), "QName 'gz::x'"),
    "second_root_element": (DECLARATION + BODY.encode() + b'<robot name="q"/>\n', "after the root element"),
    "text_before_the_root": (b"junk\n" + BODY.encode(), "before the first element"),
    "declaration_without_its_lt": (b'?xml version="1.0"?>\n' + BODY.encode(), "before the first element"),
    "text_then_a_comment_after_the_root": (DECLARATION + BODY.encode() + b"junk\n<!-- c -->\n", "after the root"),
    # bullet3's data/Quadrotor/quadrotor.urdf: <robot xmlns="http://drake.mit.edu">
    "default_namespace": (DECLARATION + BODY.replace('<robot name="r">', '<robot xmlns="http://x.org/r" name="r">')
                          .encode(), "default namespace 'http://x.org/r' is ignored"),
    "default_namespace_on_a_joint": (DECLARATION + BODY.replace('<joint name="j"', '<joint xmlns="http://x.org/j" name="j"')
                                     .encode(), "default namespace 'http://x.org/j' is ignored"),
    # pybullet_data's humanoid/humanoid.urdf ends in a NUL byte: urdfdom parses a C string
    "nul_byte_at_the_end": (DECLARATION + BODY.encode() + b"\x00", "NUL byte"),
    "nul_byte_then_anything": (DECLARATION + BODY.encode() + b"\x00<robot> junk &", "NUL byte"),
    # pybullet_data's racecar_differential.urdf: <mesh scale='1 1 1 1'> in a visual
    "visual_of_four_numbers": (BODY.replace('<link name="a"/>', '<link name="a"><visual><geometry>'
                                            '<box size="1 1 1 1"/></geometry></visual></link>').encode(),
                               "its visuals and collisions are dropped"),
    "collision_origin_of_two_numbers": (BODY.replace('<link name="b"/>', '<link name="b"><collision><origin xyz="0 0"/>'
                                                     '<geometry><sphere radius="1"/></geometry></collision></link>')
                                        .encode(), "its collisions are dropped"),
}
# name: (bytes, line of the error)
REFUSED = {
    "repeated_attribute": (DECLARATION + BODY.replace('<link name="b"/>', '<link name="b" name="c"/>').encode(), 4),
    "declaration_after_an_element": (BODY.replace('<link name="a"/>', '<link name="a"/><?xml version="1.0"?>')
                                     .encode(), 2),
    "robot_version_1_5": (BODY.replace('<robot name="r">', '<robot name="r" version="1.5">').encode(), 1),
    "robot_version_1": (BODY.replace('<robot name="r">', '<robot name="r" version="1">').encode(), 1),
    "comment_before_the_declaration": (b"<!-- c -->\n" + DECLARATION + BODY.encode(), 2),
    "text_after_the_root_element": (DECLARATION + BODY.encode() + b"xyz\n", 11),
    "text_before_the_declaration": (b"junk\n" + DECLARATION + BODY.encode(), 1),
    "digit_separator": (BODY.replace('xyz="0.1 0.2 0.3"', 'xyz="0.1 0.2 0_3"').encode(), 6),
    # tinyxml2 reads UTF-8 only: its first NUL byte ends a wider encoding's document
    "utf16_le_with_bom": ((DECLARATION + BODY.encode()).decode().encode("utf-16"), 1),
    "utf16_be_declared": (b'<?xml version="1.0" encoding="UTF-16"?>\n'.decode().encode("utf-16-be")
                          + BODY.encode("utf-16-be"), 1),
    "utf32_with_bom": ((DECLARATION + BODY.encode()).decode().encode("utf-32"), 1),
}


def _cli(*args) -> int:
    return main(["convert", *map(str, args)])


@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_files_urdfdom_loads_convert_with_its_link_poses(tmp_path, case):
    pytest.importorskip("pinocchio")
    data, words = ACCEPTED[case]
    source = tmp_path / f"{case}.urdf"
    source.write_bytes(data)
    expected = pinocchio_link_poses(source)  # urdfdom loads it
    report = convert_urdf(source, tmp_path / "out.usda")
    assert pose_mismatches(expected, usd_link_poses(tmp_path / "out.usda")) == []
    if words is None:
        assert report.warnings == ()
    else:
        (warning,) = report.warnings
        assert words in warning.message and warning.where.startswith(f"{source}:")


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_files_urdfdom_refuses_exit_2_at_their_line(tmp_path, capsys, case):
    pin = pytest.importorskip("pinocchio")
    data, line = REFUSED[case]
    source = tmp_path / f"{case}.urdf"
    source.write_bytes(data)
    with pytest.raises(ValueError):
        pin.buildModelFromUrdf(str(source))
    assert _cli(source, "-o", tmp_path / "out.usda") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{source}:{line}:" in err[0], err
    if case.startswith("utf"):
        assert f"the file is UTF-{case[3:5]} encoded; urdfdom (tinyxml2) reads UTF-8 only" in err[0], err
    assert not (tmp_path / "out.usda").exists()


def test_line_numbers_survive_the_prolog_rewrite(tmp_path):
    """Blank lines, a mark and two declarations before the root: an error on line 9 is reported on line 9."""
    text = BODY.replace('<origin xyz="0.1 0.2 0.3"', '<origin xyz="0.1 nan 0.3"')
    source = tmp_path / "r.urdf"
    source.write_bytes(b"\n \xef\xbb\xbf\n" + DECLARATION + DECLARATION + text.encode())
    with pytest.raises(InputError) as caught:
        convert_urdf(source, tmp_path / "out.usda")
    assert caught.value.where == f"{source}:10"  # 3 prolog lines, 2 declarations, then the origin's line 5


STL = "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid t\n"


def _mesh_robot(filename: str) -> str:
    return (f'<robot name="r">\n<link name="a">\n<visual><geometry><mesh filename="{filename}"/></geometry></visual>\n'
            '</link>\n</robot>\n')


@pytest.mark.parametrize("filename", [r"meshes\tri.stl", r"package://pkg\meshes\tri.stl",
                                      r"package://pkg/meshes\tri.stl", "file://meshes/tri.stl"])
def test_windows_separators_and_relative_file_uris_find_the_mesh(tmp_path, filename):
    """Oracle: the triangle written into tmp_path/pkg/meshes/tri.stl is in the output."""
    (tmp_path / "pkg" / "meshes").mkdir(parents=True)
    (tmp_path / "pkg" / "meshes" / "tri.stl").write_text(STL)
    source = tmp_path / "pkg" / "r.urdf"
    source.write_text(_mesh_robot(filename))
    report = convert_urdf(source, tmp_path / "out.usda")
    assert report.warnings == ()
    stage = Usd.Stage.Open(str(tmp_path / "out.usda"))
    assert len(stage.GetPrimAtPath("/r/a/visual_0").GetAttribute("points").Get()) == 3


def test_unmapped_package_names_it_and_the_flag_with_one_warning_prefix(tmp_path, capsys):
    source = tmp_path / "r.urdf"
    source.write_text(_mesh_robot("package://my_robot_description/meshes/base.stl"))
    assert _cli(source, "-o", tmp_path / "out.usda") == 0
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].count("warning:") == 1, lines
    assert lines[0].startswith(f"usdjoints: warning: {source}:3: ")
    assert "package 'my_robot_description'" in lines[0] and "--package my_robot_description=DIR" in lines[0]


def test_a_file_that_is_not_a_mesh_is_a_warning(tmp_path, capsys):
    """A text file (like /etc/passwd) named as a mesh: one warning naming it; the shape is skipped."""
    (tmp_path / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n")
    source = tmp_path / "r.urdf"
    source.write_text(_mesh_robot("passwd"))
    assert _cli(source, "-o", tmp_path / "out.usda") == 0
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "warning:" in line and "not a mesh file" in line and str(tmp_path / "passwd") in line


def _outside_layout(tmp_path):
    """tmp/in/r.urdf, tmp/in/meshes/ok.stl, tmp/out/secret.stl, and a symlink in/meshes/link.stl -> secret."""
    (tmp_path / "in" / "meshes").mkdir(parents=True)
    (tmp_path / "out").mkdir()
    (tmp_path / "in" / "meshes" / "ok.stl").write_text(STL)
    (tmp_path / "out" / "secret.stl").write_text(STL)
    (tmp_path / "in" / "meshes" / "link.stl").symlink_to(tmp_path / "out" / "secret.stl")
    return tmp_path / "in" / "r.urdf"


@pytest.mark.parametrize("uri", ["../out/secret.stl", "{tmp}/out/secret.stl", "file://{tmp}/out/secret.stl",
                                 "meshes/link.stl", "package://elsewhere/secret.stl"])
def test_confine_refuses_reads_outside_the_allowed_folders(tmp_path, capsys, monkeypatch, uri):
    """Each URI reaches tmp/out/secret.stl (a symlink, a package on ROS_PACKAGE_PATH): read freely,
    refused with one line naming file:line under --confine, and nothing written."""
    source = _outside_layout(tmp_path)
    (tmp_path / "elsewhere").symlink_to(tmp_path / "out")
    monkeypatch.setenv("ROS_PACKAGE_PATH", str(tmp_path))
    source.write_text(_mesh_robot(uri.format(tmp=tmp_path)))
    assert _cli(source, "-o", tmp_path / "free.usda") == 0
    assert capsys.readouterr().err == ""
    out = tmp_path / "confined.usda"
    assert _cli(source, "-o", out, "--confine") == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert f"{source}:3:" in line and str(tmp_path / "out" / "secret.stl") in line
    assert "outside the folders" in line and "--confine" in line
    assert not out.exists()


def test_confine_allows_the_input_package_and_resource_folders(tmp_path):
    source = _outside_layout(tmp_path)
    for uri, options in (("meshes/ok.stl", {}),
                         ("package://pkg/secret.stl", {"packages": {"pkg": str(tmp_path / "out")}}),
                         ("secret.stl", {"resource_paths": [str(tmp_path / "out")]})):
        source.write_text(_mesh_robot(uri))
        report = convert_urdf(source, tmp_path / "out.usda", confine=True, **options)
        assert report.warnings == (), uri
        stage = Usd.Stage.Open(str(tmp_path / "out.usda"))
        assert stage.GetPrimAtPath("/r/a/visual_0").IsValid(), uri


def test_without_confine_outside_reads_still_work(tmp_path):
    source = _outside_layout(tmp_path)
    source.write_text(_mesh_robot("../out/secret.stl"))
    assert convert_urdf(source, tmp_path / "out.usda").warnings == ()


def _run_cli_subprocess(*args, timeout=60):
    """The CLI in its own process, so that a read which blocks shows as a timeout, not a hung suite."""
    code = "import sys; from usdjoints.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, "convert", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_as_input_or_mesh_exits_2_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.urdf"
    os.mkfifo(fifo)
    done = _run_cli_subprocess(fifo, "-o", tmp_path / "out.usda")
    assert done.returncode == 2 and "FIFO" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    os.mkfifo(tmp_path / "pipe.stl")
    source = tmp_path / "r.urdf"
    source.write_text(_mesh_robot("pipe.stl"))
    done = _run_cli_subprocess(source, "-o", tmp_path / "out.usda")
    assert done.returncode == 2 and f"{source}:3:" in done.stderr and "FIFO" in done.stderr
    assert not (tmp_path / "out.usda").exists()


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_device_as_mesh_or_input_exits_2(tmp_path):
    source = tmp_path / "r.urdf"
    source.write_text(_mesh_robot("/dev/zero"))
    done = _run_cli_subprocess(source, "-o", tmp_path / "out.usda")
    assert done.returncode == 2 and "character device" in done.stderr and f"{source}:3:" in done.stderr
    done = _run_cli_subprocess("/dev/zero", "-o", tmp_path / "out.usda")
    assert done.returncode == 2 and "character device" in done.stderr


def test_the_output_never_overwrites_the_input(tmp_path, capsys):
    source = tmp_path / "x.usda"
    source.write_text(BODY)
    before = source.read_bytes(), source.stat().st_mtime_ns
    with pytest.raises(UsageError, match="is the input"):
        convert_urdf(source, source)
    (tmp_path / "hard.usda").hardlink_to(source)
    (tmp_path / "soft.usda").symlink_to(source)
    for other in ("hard.usda", "soft.usda"):
        with pytest.raises(UsageError, match="is the input"):
            convert_urdf(source, tmp_path / other)
    urdf = tmp_path / "r.urdf"
    urdf.write_text(BODY)
    assert _cli(urdf, "-o", urdf.with_suffix(".urdf")) == 2
    assert "is the input" in capsys.readouterr().err
    assert (source.read_bytes(), source.stat().st_mtime_ns) == before and urdf.read_text() == BODY


@pytest.mark.parametrize("name", ["nowhere", ""])
def test_a_mimic_of_no_joint_converts_free_with_a_warning(tmp_path, name):
    """urdfdom does not check the mimicked joint's name (example-robot-data's alex_psyonic_hands
    names one that does not exist; urdfdom's check_urdf loads an empty one too): pinocchio loads
    it; the joint is written free, with a warning."""
    pytest.importorskip("pinocchio")
    source = tmp_path / "r.urdf"
    source.write_text(BODY.replace("</joint>", f'<mimic joint="{name}" multiplier="2"/></joint>'))
    expected = pinocchio_link_poses(source)
    report = convert_urdf(source, tmp_path / "out.usda")
    (warning,) = report.warnings
    assert warning.where == f"{source}:8" and f"{name!r}, which is not a joint" in warning.message
    assert pose_mismatches(expected, usd_link_poses(tmp_path / "out.usda")) == []
    stage = Usd.Stage.Open(str(tmp_path / "out.usda"))
    assert not any("Mimic" in api for prim in stage.Traverse() for api in prim.GetAppliedSchemas())


def test_thousands_of_unread_attributes_are_one_entry_past_the_first_hundred(tmp_path):
    """An element with 5,000 attributes URDF does not have: the first LISTED_ATTRIBUTES are
    reported one by one, the rest in one entry counting them (listing each took minutes at
    100,000: libxml2 finds a value by scanning the element's attributes). Oracle: the count."""
    from usdjoints.convert.urdf import LISTED_ATTRIBUTES

    extra = " ".join(f'x{i}="1"' for i in range(5000))
    urdf = tmp_path / "many.urdf"
    urdf.write_text(f'<robot name="r" {extra}><link name="a"><inertial><mass value="1"/>'
                    '<inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link></robot>')
    report = convert_urdf(urdf, tmp_path / "many.usda")
    on_robot = [e for e in report.entries if e.element.startswith("<robot")]
    assert len(on_robot) == LISTED_ATTRIBUTES + 1
    assert on_robot[-1].element == f"<robot> {5000 - LISTED_ATTRIBUTES} more attributes"


SHAPES = """<robot name="r">
  <link name="a"><inertial><mass value="2"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
    <visual><geometry><box size="1 2 3"/></geometry></visual>
    <collision><geometry><sphere radius="0.25"/></geometry></collision>
    <collision><origin xyz="0 0"/><geometry><box size="1 1 1"/></geometry></collision>
    <collision><geometry><sphere radius="0.5"/></geometry></collision></link>
  <link name="b"><inertial><mass value="3"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
    <visual><geometry><box size="1 1 1"/></geometry></visual>
    <visual><geometry><box size="1 2"/></geometry></visual>
    <collision><geometry><sphere radius="0.25"/></geometry></collision></link>
  <link name="c"><visual><geometry><box size="1 1 1"/></geometry></visual>
    <collision><geometry><box size="1 1 1"/></geometry></collision></link>
  <joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="k" type="fixed"><parent link="b"/><child link="c"/></joint>
</robot>
"""


@pytest.mark.parametrize("origin, size", [("0 0", "1 2"), ("0 nan 0", "1 inf 1"), ("1e400 0 0", "1 -inf 1")])
def test_unparsable_shapes_are_dropped_as_urdfdom_drops_them(tmp_path, origin, size):
    """urdfdom stops reading a link's shapes at the first one it cannot parse and keeps the link:
    pinocchio's geometry models of the same file are the oracle (a failed collision drops the
    link's collisions, a failed visual its visuals and collisions; masses and joints stay).
    urdfdom's istringstream reads no nan, inf or number beyond double range either."""
    pin = pytest.importorskip("pinocchio")
    source = tmp_path / "shapes.urdf"
    source.write_text(SHAPES.replace('xyz="0 0"', f'xyz="{origin}"').replace('size="1 2"', f'size="{size}"'))
    model = pin.buildModelFromUrdf(str(source))
    expected = {}
    for kind, geometry_type in (("visual", pin.VISUAL), ("collision", pin.COLLISION)):
        for geometry in pin.buildGeomFromUrdf(model, str(source), geometry_type).geometryObjects:
            link = geometry.name.rsplit("_", 1)[0]
            expected[(link, kind)] = expected.get((link, kind), 0) + 1
    report = convert_urdf(source, tmp_path / "out.usda")
    assert len(report.warnings) == 2
    stage = Usd.Stage.Open(str(tmp_path / "out.usda"))
    found = {}
    for link in ("a", "b", "c"):
        for child in stage.GetPrimAtPath(f"/r/{link}").GetChildren():
            kind = child.GetName().split("_", 1)[0]
            found[(link, kind)] = found.get((link, kind), 0) + 1
    assert found == expected == {("a", "visual"): 1, ("c", "visual"): 1, ("c", "collision"): 1}
    assert [round(i.mass, 6) for i in model.inertias] == [2.0, 3.0]  # a on the universe, b (+ c) on j


@pytest.mark.parametrize("value", ["${pi/2}", "$(arg upper)", "0 ${offset}"])
def test_xacro_expression_left_in_a_number_is_refused_saying_to_run_xacro(tmp_path, capsys, value):
    """A .urdf.xacro passed as it is: urdfdom refuses the number (pinocchio raises, the oracle),
    and the one line says so at its line and names xacro, which replaces ``${...}`` and ``$(...)``
    (it said only 'needs 1 numbers')."""
    pin = pytest.importorskip("pinocchio")
    source = tmp_path / "robot.urdf"
    source.write_text(BODY.replace('upper="1"', f'upper="{value}"'))
    with pytest.raises(ValueError):
        pin.buildModelFromUrdf(str(source))
    assert _cli(source, "-o", tmp_path / "out.usda") == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert f"{source}:7:" in line and "needs 1 number " in line and "expand it with xacro first" in line
    assert not (tmp_path / "out.usda").exists()


def test_a_robot_without_any_inertial_is_noted_on_the_command_line(tmp_path, capsys):
    """robotics-toolbox's puma560 URDF has no <inertial> at all: every link is written as the
    1 g stand-in (a choice entry each, in the JSON report), and the command line says once that
    the stage's dynamics are not the robot's. One link with an <inertial> is enough to drop it."""
    source = tmp_path / "bare.urdf"
    source.write_text(BODY)
    assert _cli(source, "-o", tmp_path / "bare.usda") == 0
    notes = [line for line in capsys.readouterr().err.splitlines() if "has an <inertial>" in line]
    assert notes == ["usdjoints: note: none of the 2 bodies has an <inertial>: each is written as a 0.001 kg "
                     "stand-in, so a simulation of this stage does not move as the robot does"]
    source.write_text(BODY.replace('<link name="b"/>', '<link name="b"><inertial><mass value="1"/>'
                                   '<inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>'))
    assert _cli(source, "-o", tmp_path / "half.usda") == 0
    assert "has an <inertial>" not in capsys.readouterr().err


def test_floating_base_on_a_model_hinged_to_the_world_says_the_joint_is_kept(tmp_path):
    """drake's cart_pole.sdf slides on a prismatic joint to the world: --floating-base cannot free
    it (only welds to the world are left out), and the warning says so instead of a silent fixed
    base. The joint is written, with the world as its body0."""
    source = tmp_path / "hinged.urdf"
    source.write_text(BODY.replace('<link name="a"/>', '<link name="world"/><link name="a"/>'
                                   '<joint name="w" type="revolute"><parent link="world"/><child link="a"/>'
                                   '<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>'))
    report = convert_urdf(source, tmp_path / "out.usda", floating_base=True)
    (warning,) = [w for w in report.warnings if "to the world" in w.message]
    assert warning.element == "joint 'w'" and "floating base was requested" in warning.message
    stage = Usd.Stage.Open(str(tmp_path / "out.usda"))
    from pxr import UsdPhysics
    joints = {p.GetName(): UsdPhysics.Joint(p) for p in stage.Traverse() if p.IsA(UsdPhysics.Joint)}
    assert joints["w"].GetBody0Rel().GetTargets() == []


@pytest.mark.parametrize("moments, words", [((0.0, 1.0, 1.0), "include a zero"),
                                            ((1.0, 1.0, 3.0), "the largest exceeds the sum of the other two")])
def test_moments_no_rigid_body_has_are_written_as_given_with_the_right_warning(tmp_path, moments, words):
    """Oracle: the triangle inequality of principal moments, checked by hand on the two cases; a
    zero moment is the one PhysX rejects on a link (tests/sim/test_zero_moment_link_physx.py),
    the triangle one it takes."""
    ixx, iyy, izz = moments
    source = tmp_path / "r.urdf"
    source.write_text(BODY.replace('<link name="b"/>', f'<link name="b"><inertial><mass value="1"/><inertia '
                                   f'ixx="{ixx}" iyy="{iyy}" izz="{izz}" ixy="0" ixz="0" iyz="0"/></inertial></link>'))
    report = convert_urdf(source, tmp_path / "out.usda")
    (warning,) = [w for w in report.warnings if "inertia" in w.element]
    assert words in warning.message and ("PhysX rejects" in warning.message) == (ixx == 0.0), warning.message
    stage = Usd.Stage.Open(str(tmp_path / "out.usda"))
    written = stage.GetPrimAtPath("/r/b").GetAttribute("physics:diagonalInertia").Get()
    assert sorted(written) == sorted(moments)
