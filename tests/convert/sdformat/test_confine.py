"""``--confine`` on SDFormat input: includes and meshes are read only inside the input's folder and
the ``--resource-path`` folders; the environment's resource paths are searched but not trusted.

Oracle: the layout is built here, so which file each URI reaches is known; OpenUSD's parser reads
the output to show that what is accepted was really read (the triangle of the STL, the included
model's link).
"""
from __future__ import annotations

from pathlib import Path

import pytest

import usdjoints  # noqa: F401  (registers the PhysX schemas before any stage is opened)
from usdjoints.cli import main
from usdjoints.convert import convert_file

from pxr import Usd, UsdGeom  # noqa: E402

STL = "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid t\n"
SECRET_MODEL = '<?xml version="1.0"?>\n<sdf version="1.9">\n<model name="secret">\n<link name="s"/>\n</model>\n</sdf>\n'
MESH_LINE = 5
INCLUDE_LINE = 5


def _mesh_model(uri: str) -> str:
    return ('<?xml version="1.0"?>\n<sdf version="1.9">\n<model name="m">\n<link name="a">\n'
            f'<visual name="v"><geometry><mesh><uri>{uri}</uri></mesh></geometry></visual>\n'
            '</link>\n</model>\n</sdf>\n')


def _include_model(uri: str) -> str:
    return ('<?xml version="1.0"?>\n<sdf version="1.9">\n<model name="m">\n<link name="a"/>\n'
            f'<include><uri>{uri}</uri><name>inc</name></include>\n'
            '</model>\n</sdf>\n')


def _layout(tmp: Path) -> Path:
    """tmp/in/robot.sdf with meshes/ok.stl and models/inner inside; tmp/out/secret.stl and the
    model directory tmp/out/secret_model outside; symlinks from inside pointing out: a mesh
    (meshes/link.stl), a model directory (models/linked) and a model directory whose model.sdf
    is a link (models/sneaky/model.sdf)."""
    inside, outside = tmp / "in", tmp / "out"
    (inside / "meshes").mkdir(parents=True)
    (inside / "models" / "inner").mkdir(parents=True)
    (outside / "secret_model").mkdir(parents=True)
    (inside / "meshes" / "ok.stl").write_text(STL)
    (inside / "models" / "inner" / "model.sdf").write_text(SECRET_MODEL.replace("secret", "inner"))
    (outside / "secret.stl").write_text(STL)
    (outside / "secret_model" / "model.sdf").write_text(SECRET_MODEL)
    (outside / "secret_model" / "secret.stl").write_text(STL)
    (inside / "meshes" / "link.stl").symlink_to(outside / "secret.stl")
    (inside / "models" / "linked").symlink_to(outside / "secret_model")
    (inside / "models" / "sneaky").mkdir()
    (inside / "models" / "sneaky" / "model.sdf").symlink_to(outside / "secret_model" / "model.sdf")
    return inside / "robot.sdf"


def _cli(*args) -> int:
    return main(["convert", *map(str, args)])


def _triangles(stage_path: Path) -> list[int]:
    stage = Usd.Stage.Open(str(stage_path))
    return [len(UsdGeom.Mesh(p).GetPointsAttr().Get() or ()) for p in stage.Traverse() if p.IsA(UsdGeom.Mesh)]


def _link_names(stage_path: Path) -> set[str]:
    stage = Usd.Stage.Open(str(stage_path))
    return {p.GetName() for p in stage.Traverse()}


OUTSIDE_MESHES = ["../out/secret.stl", "{tmp}/out/secret.stl", "file://{tmp}/out/secret.stl", "meshes/link.stl",
                  "model://secret_model/secret.stl"]
OUTSIDE_INCLUDES = ["../out/secret_model", "{tmp}/out/secret_model", "file://{tmp}/out/secret_model",
                    "models/linked", "models/sneaky", "model://secret_model"]


def _assert_refused(capsys, source: Path, line_number: int, out: Path, secret: Path) -> None:
    assert _cli(source, "-o", out, "--confine") == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"usdjoints: error: {source}:{line_number}:"), line
    assert str(secret) in line and "outside the folders" in line and "--confine" in line, line
    assert not out.exists()


@pytest.mark.parametrize("uri", OUTSIDE_MESHES)
def test_confine_refuses_a_mesh_outside_and_without_it_the_mesh_is_read(tmp_path, capsys, monkeypatch, uri):
    """``../``, absolute, file://, a symlink out, and model:// found only on GZ_SIM_RESOURCE_PATH."""
    source = _layout(tmp_path)
    monkeypatch.setenv("GZ_SIM_RESOURCE_PATH", str(tmp_path / "out"))
    source.write_text(_mesh_model(uri.format(tmp=tmp_path)))
    free = tmp_path / "free.usda"
    assert _cli(source, "-o", free) == 0
    assert "warning" not in capsys.readouterr().err
    assert _triangles(free) == [3]
    secret = tmp_path / "out" / ("secret_model/secret.stl" if uri.startswith("model://") else "secret.stl")
    _assert_refused(capsys, source, MESH_LINE, tmp_path / "confined.usda", secret)


@pytest.mark.parametrize("uri", OUTSIDE_INCLUDES)
def test_confine_refuses_an_include_outside_and_without_it_the_model_is_included(tmp_path, capsys, monkeypatch,
                                                                                   uri):
    source = _layout(tmp_path)
    monkeypatch.setenv("GZ_SIM_RESOURCE_PATH", str(tmp_path / "out"))
    source.write_text(_include_model(uri.format(tmp=tmp_path)))
    free = tmp_path / "free.usda"
    assert _cli(source, "-o", free) == 0
    capsys.readouterr()
    assert "inc__s" in _link_names(free)  # the included model's link
    secret = tmp_path / "out" / "secret_model"
    if uri == "models/sneaky":
        secret = secret / "model.sdf"
    _assert_refused(capsys, source, INCLUDE_LINE, tmp_path / "confined.usda", secret)


def test_confine_reads_the_input_folder_and_the_resource_paths(tmp_path, monkeypatch):
    """Inside the input's folder, or in a folder passed with --resource-path (also the one
    GZ_SIM_RESOURCE_PATH names: passed explicitly it is trusted)."""
    source = _layout(tmp_path)
    monkeypatch.setenv("GZ_SIM_RESOURCE_PATH", str(tmp_path / "out"))
    outside = [str(tmp_path / "out")]
    for text, resource_paths, expect in (
            (_mesh_model("meshes/ok.stl"), [], "mesh"),
            (_mesh_model("secret.stl"), outside, "mesh"),
            (_mesh_model("model://secret_model/secret.stl"), outside, "mesh"),
            (_include_model("models/inner"), [], "inner"),
            (_include_model("model://secret_model"), outside, "secret"),
            (_include_model("secret_model"), outside, "secret")):
        source.write_text(text)
        out = tmp_path / "ok.usda"
        report = convert_file(source, out, resource_paths=resource_paths, confine=True)
        assert report.warnings == (), text
        if expect == "mesh":
            assert _triangles(out) == [3], text
        else:
            assert "inc__s" in _link_names(out), text
