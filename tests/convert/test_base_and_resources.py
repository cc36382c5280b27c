"""Base policy (fixed/floating and its flag), resource resolution and missing meshes.

Oracle: OpenUSD's physics parser (articulation roots, world joints) and the file system.
"""
from __future__ import annotations

from pathlib import Path

from pxr import Usd, UsdPhysics

from usdjoints.convert import convert_urdf
from usdjoints.convert.report import EntryKind
from usdjoints.convert.resolve import ResourceLocator

from usd_kinematics import read_physics

DATA = Path(__file__).resolve().parents[1] / "data" / "urdf"


def _roots(stage):
    return [str(p.GetPath()) for p in stage.Traverse() if p.HasAPI(UsdPhysics.ArticulationRootAPI)]


def test_world_root_is_fixed_base_and_flag_makes_it_floating(tmp_path):
    """A `world` root welded to the robot: fixed base (root API on the robot prim); the flag frees it."""
    fixed = convert_urdf(DATA / "mimic_pair.urdf", tmp_path / "fixed.usda")
    stage = Usd.Stage.Open(str(tmp_path / "fixed.usda"))
    physics = read_physics(stage)
    assert fixed.fixed_base and _roots(stage) == ["/mimic_pair"]
    assert physics["joints"]["/mimic_pair/joints/fix"]["body0"] is None
    assert not stage.GetPrimAtPath("/mimic_pair/world")  # the world link is not a body
    floating = convert_urdf(DATA / "mimic_pair.urdf", tmp_path / "floating.usda", floating_base=True)
    stage = Usd.Stage.Open(str(tmp_path / "floating.usda"))
    assert not floating.fixed_base and _roots(stage) == ["/mimic_pair/a"]
    assert "/mimic_pair/joints/fix" not in read_physics(stage)["joints"]
    assert any(e.kind is EntryKind.DROPPED and "'fix'" in e.element for e in floating.entries)


def test_free_root_is_floating_and_flag_welds_it(tmp_path):
    """No world link: floating (root API on the root body); fixed_base welds it with body0 absent."""
    report = convert_urdf(DATA / "every_joint.urdf", tmp_path / "welded.usda", floating_base=False)
    stage = Usd.Stage.Open(str(tmp_path / "welded.usda"))
    weld = read_physics(stage)["joints"]["/every_joint/joints/world_weld"]
    assert report.fixed_base and weld["type"] == "fixed" and weld["body0"] is None
    assert weld["body1"] == "/every_joint/base" and _roots(stage) == ["/every_joint"]


def test_package_uri_resolution_order(tmp_path, monkeypatch):
    """--package wins over ROS_PACKAGE_PATH; every candidate tried is listed."""
    given = tmp_path / "given" / "meshes"
    on_path = tmp_path / "ros" / "pkg" / "meshes"
    for directory in (given, on_path):
        directory.mkdir(parents=True)
        (directory / "part.stl").write_text("solid part\nendsolid part\n")
    monkeypatch.setenv("ROS_PACKAGE_PATH", str(tmp_path / "ros"))
    locator = ResourceLocator(str(tmp_path), {"pkg": str(tmp_path / "given")})
    assert locator.resolve("package://pkg/meshes/part.stl").path == str(given / "part.stl")
    assert ResourceLocator(str(tmp_path), {}).resolve("package://pkg/meshes/part.stl").path == str(on_path / "part.stl")
    missing = locator.resolve("package://pkg/meshes/absent.stl")
    assert missing.path is None and str(given / "absent.stl") in missing.searched


def test_missing_mesh_is_a_warning_with_places_searched(tmp_path):
    """The link keeps its inertial and other shapes; the report names file:line, the package and the flag."""
    source = tmp_path / "robot.urdf"
    source.write_text(
        '<robot name="r">\n<link name="a">\n'
        '<inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>\n'
        '<visual><geometry><mesh filename="package://nowhere/m.stl"/></geometry></visual>\n'
        '<collision><geometry><sphere radius="0.1"/></geometry></collision>\n'
        '</link>\n</robot>\n')
    report = convert_urdf(source, tmp_path / "out.usda")
    (warning,) = report.warnings
    assert warning.where == f"{source}:4" and "package 'nowhere'" in warning.message
    assert "--package nowhere=DIR" in warning.message
    stage = Usd.Stage.Open(str(tmp_path / "out.usda"))
    assert UsdPhysics.MassAPI(stage.GetPrimAtPath("/r/a")).GetMassAttr().Get() == 1.0
    assert stage.GetPrimAtPath("/r/a/collision_0").HasAPI(UsdPhysics.CollisionAPI)
    import pytest

    from usdjoints.errors import InputError

    with pytest.raises(InputError) as caught:  # strict: the warning fails and nothing is written
        convert_urdf(source, tmp_path / "strict.usda", strict=True)
    assert caught.value.where == f"{source}:4" and not (tmp_path / "strict.usda").exists()


def test_stl_mesh_becomes_a_usd_mesh_with_its_scale_and_convex_hull_collider(tmp_path):
    """Oracle: the triangle written in the ASCII STL text (read by usdjoints' own STL reader)."""
    import pytest

    (tmp_path / "tri.stl").write_text(
        "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\n"
        "endloop\nendfacet\nendsolid t\n")
    source = tmp_path / "robot.urdf"
    source.write_text('<robot name="r"><link name="a"><collision><geometry>'
                      '<mesh filename="tri.stl" scale="0.001 0.002 0.003"/></geometry></collision></link></robot>')
    convert_urdf(source, tmp_path / "out.usda")
    stage = Usd.Stage.Open(str(tmp_path / "out.usda"))
    mesh = stage.GetPrimAtPath("/r/a/collision_0")
    assert sorted(map(tuple, mesh.GetAttribute("points").Get())) == [(0, 0, 0), (0, 1, 0), (1, 0, 0)]
    assert tuple(mesh.GetAttribute("xformOp:scale").Get()) == pytest.approx((0.001, 0.002, 0.003))
    assert UsdPhysics.MeshCollisionAPI(mesh).GetApproximationAttr().Get() == "convexHull"
