"""`usdjoints convert` on bad input: exit 2, one line naming file:line, no output file.

Oracle: the SDFormat and URDF specifications (what makes each input invalid, as libsdformat and
urdfdom reject them) and the CLI contract (exit code 2, no traceback, nothing written).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from usdjoints.cli import main

DATA = Path(__file__).resolve().parents[1] / "data"

_SDF_MODEL = """<?xml version="1.0"?>
<sdf version="{version}">
  <model name="m">
    <link name="a"/>
    <link name="b"><pose relative_to="{relative_to}">0 0 1 0 0 0</pose></link>
    <frame name="f1" attached_to="a"><pose relative_to="f2"/></frame>
    <frame name="f2" attached_to="a"><pose relative_to="{f2_relative_to}"/></frame>
    <joint name="j" type="revolute"><parent>{parent}</parent><child>b</child></joint>
{extra}  </model>
</sdf>
"""


def _sdf(version="1.9", relative_to="a", f2_relative_to="a", parent="a", extra="") -> str:
    return _SDF_MODEL.format(version=version, relative_to=relative_to, f2_relative_to=f2_relative_to,
                             parent=parent, extra=extra)


BAD_SDF = {
    "unknown_version": (_sdf(version="7.3"), 2),
    "dangling_relative_to": (_sdf(relative_to="nowhere"), 5),
    "frame_cycle": (_sdf(f2_relative_to="f1"), None),
    "joint_to_itself": (_sdf(parent="b"), 8),
    "missing_include": (_sdf(extra="    <include><uri>model://no_such_model</uri></include>\n"), 9),
    "not_xml": ("<sdf version='1.9'><model name='m'>\n<link name='a'>\n</sdf>", None),
}

_URDF = """<?xml version="1.0"?>
<robot name="r">
  <link name="a"><inertial><mass value="{mass}"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="b"/>
  <joint name="j" type="revolute"><parent link="a"/><child link="{child}"/><axis xyz="{axis}"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>
"""

BAD_URDF = {
    "not_xml": ("<robot name='r'><link name='a'>\n", None),
    "no_robot": ("<?xml version='1.0'?>\n<model name='r'/>\n", 2),
    "unknown_link": (_URDF.format(mass=1, child="c", axis="0 0 1"), 5),
    "zero_axis": (_URDF.format(mass=1, child="b", axis="0 0 0"), 5),
    "nan": (_URDF.format(mass="nan", child="b", axis="0 0 1"), 3),
    "negative_mass": (_URDF.format(mass=-1, child="b", axis="0 0 1"), 3),
}


def _run(capsys, *argv) -> tuple[int, str]:
    code = main(["convert", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.err


def _check_rejected(tmp_path, capsys, source: Path, line: int | None) -> str:
    out = tmp_path / "out.usda"
    code, err = _run(capsys, source, "-o", out)
    assert code == 2, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    match = re.search(rf"{re.escape(source.name)}:(\d+)", err)
    assert match, err
    if line is not None:
        assert int(match.group(1)) == line, err
    assert list(tmp_path.glob("*.usd*")) == [] and list(tmp_path.glob(".*tmp*")) == []
    return err


@pytest.mark.parametrize("case", sorted(BAD_SDF))
def test_bad_sdformat_exits_2_with_file_line_and_writes_nothing(tmp_path, capsys, case):
    """Each SDFormat defect libsdformat rejects: exit 2, file:line of the offending element."""
    text, line = BAD_SDF[case]
    source = tmp_path / f"{case}.sdf"
    source.write_text(text)
    _check_rejected(tmp_path, capsys, source, line)


@pytest.mark.parametrize("case", sorted(BAD_URDF))
def test_bad_urdf_exits_2_with_file_line_and_writes_nothing(tmp_path, capsys, case):
    """Each URDF defect: exit 2, file:line of the offending element."""
    text, line = BAD_URDF[case]
    source = tmp_path / f"{case}.urdf"
    source.write_text(text)
    _check_rejected(tmp_path, capsys, source, line)


def test_two_roots_and_cycle_in_urdf(tmp_path, capsys):
    """Two root links, and a cycle: both exit 2 naming the file."""
    two_roots = _URDF.format(mass=1, child="b", axis="0 0 1").replace("<link name=\"b\"/>",
                                                                      "<link name=\"b\"/>\n  <link name=\"c\"/>")
    cycle = _URDF.format(mass=1, child="b", axis="0 0 1").replace(
        "</robot>", "  <joint name=\"k\" type=\"fixed\"><parent link=\"b\"/><child link=\"a\"/></joint>\n</robot>")
    for name, text in (("two_roots", two_roots), ("cycle", cycle)):
        source = tmp_path / f"{name}.urdf"
        source.write_text(text)
        _check_rejected(tmp_path, capsys, source, None)


MISSING_MESH_URDF = """<?xml version="1.0"?>
<robot name="r">
  <link name="a">
    <inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><mesh filename="package://nowhere/meshes/part.stl"/></geometry></visual>
    <collision><geometry><box size="1 1 1"/></geometry></collision>
  </link>
</robot>
"""


def test_missing_mesh_warns_with_places_searched_and_strict_exits_2(tmp_path, capsys):
    """A mesh that cannot be found: a warning with file:line and the places searched; --strict exits 2."""
    source = tmp_path / "missing_mesh.urdf"
    source.write_text(MISSING_MESH_URDF)
    out = tmp_path / "out.usda"
    code, err = _run(capsys, source, "-o", out, "--package", f"nowhere={tmp_path / 'pkg'}")
    assert code == 0 and out.exists()
    assert "warning" in err and "missing_mesh.urdf:5" in err and "part.stl" in err
    assert str(tmp_path / "pkg") in err  # names where it looked
    out.unlink()
    code, err = _run(capsys, source, "-o", out, "--package", f"nowhere={tmp_path / 'pkg'}", "--strict")
    assert code == 2 and "missing_mesh.urdf:5" in err and not out.exists()


def test_world_with_models_and_include_from_resource_path(tmp_path, capsys):
    """A world of several models and a model including another from --resource-path convert (exit 0)."""
    source = DATA / "sdf_fixtures" / "world_models" / "two_models.sdf"
    out = tmp_path / "two_models.usda"
    code, err = _run(capsys, source, "-o", out, "--resource-path", DATA / "sdf_fixtures" / "elsewhere",
                     "--report", "json")
    assert code == 0 and out.exists(), err
    from pxr import Usd, UsdPhysics

    stage = Usd.Stage.Open(str(out))
    parsed = UsdPhysics.UsdPhysicsLoadStageFromPrimRange(stage, ["/"])
    articulations = parsed[UsdPhysics.ObjectType.Articulation][0]
    roots = sorted(p.GetName() for p in stage.Traverse() if p.HasAPI(UsdPhysics.ArticulationRootAPI))
    # each arm is bolted to the static table: a fixed-base articulation rooted at its bolt
    assert roots == ["bolt_left", "bolt_right"] and len(articulations) == 2
    table = [p for p in stage.Traverse() if p.GetMetadata("displayName") == "table::top"][0]
    assert not table.HasAPI(UsdPhysics.RigidBodyAPI)


@pytest.mark.parametrize("suffix, magic", [(".USDA", b"#usda 1.0"), (".USDC", b"PXR-USDC")])
def test_an_upper_case_extension_is_the_format_it_names(tmp_path, suffix, magic):
    """convert -o robot.USDA writes text and .USDC a crate, as OpenUSD reads the extension (its
    file format lookup ignores case) and as audit --fix and simulate --write-usd accept it."""
    urdf = tmp_path / "r.urdf"
    urdf.write_text('<robot name="r"><link name="a"/><link name="b"/><joint name="j" type="fixed">'
                    '<parent link="a"/><child link="b"/></joint></robot>')
    out = tmp_path / f"robot{suffix}"
    from usdjoints.convert.api import convert_file

    convert_file(urdf, out)
    assert out.read_bytes().startswith(magic)
