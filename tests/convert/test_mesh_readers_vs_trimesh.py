"""Our mesh readers against trimesh (+ pycollada) on the meshes example-robot-data robots use.

Oracle: trimesh, the library the converters used before, on the same files: the same triangles
(same count, same corners in the same order and winding). pycollada parses COLLADA numbers as
float32, so corners agree to float32 rounding only. Example-robot-data's COLLADA files all
declare ``<unit meter="1">`` (or no unit), so applying the unit (which trimesh does not) changes
nothing here. Two kinds of file trimesh cannot read in this setting are checked separately.
"""
from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from samples import robots_dir
from usdjoints.convert.meshes import load_mesh

pytestmark = pytest.mark.oracle

ROBOTS = ["panda_description/urdf/panda.urdf", "ur_description/urdf/ur5_robot.urdf",
          "anymal_b_simple_description/robots/anymal.urdf", "solo_description/robots/solo12.urdf",
          "talos_data/robots/talos_full_v2.urdf", "romeo_description/urdf/romeo_small.urdf",
          "hyq_description/robots/hyq_no_sensors.urdf", "allegro_hand_description/urdf/allegro_right_hand.urdf"]
OBJ_ROBOTS = ["solo_description/robots/solo.urdf", "laikago_description/urdf/laikago.urdf"]
# pycollada drops this file's only node: one of its materials names an effect that is missing
PYCOLLADA_DROPS = {"anymal_b_simple_description/meshes/foot/anymal_foot.dae"}
FLOAT32 = 1e-6  # relative to the mesh's size: float32 keeps ~7 significant digits


def referenced_meshes(urdfs: list[str], extensions: tuple[str, ...]) -> list[str]:
    """The mesh files (relative to the robots folder) the given URDFs name, each once."""
    root = robots_dir()
    found = set()
    for urdf in urdfs:
        for uri in re.findall(r'filename="([^"]+)"', (root / urdf).read_text()):
            relative = uri.split("example-robot-data/robots/", 1)[-1]
            if relative.lower().endswith(extensions) and (root / relative).is_file():
                found.add(relative)
    return sorted(found)


def corners(mesh) -> np.ndarray:
    return np.asarray(mesh.points, dtype=np.float64)[np.asarray(mesh.indices)]


def trimesh_corners(path: str) -> np.ndarray:
    trimesh = pytest.importorskip("trimesh")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pycollada warns about unresolved materials
        mesh = trimesh.load(path, force="mesh", process=False)
    return np.asarray(mesh.vertices, dtype=np.float64)[np.asarray(mesh.faces)]


def assert_same_triangles(ours: np.ndarray, theirs: np.ndarray) -> None:
    assert ours.shape == theirs.shape
    size = np.ptp(theirs.reshape(-1, 3), axis=0).max()
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=FLOAT32 * size)


def test_stl_and_dae_match_trimesh():
    """Oracle: trimesh/pycollada on every STL and DAE file the eight robots use."""
    pytest.importorskip("trimesh")
    pytest.importorskip("collada")
    root = robots_dir()
    files = [f for f in referenced_meshes(ROBOTS, (".stl", ".dae")) if f not in PYCOLLADA_DROPS]
    assert len(files) > 100  # the robots above name 153 distinct STL and DAE files in example-robot-data 6.0
    for relative in files:
        try:
            assert_same_triangles(corners(load_mesh(str(root / relative))), trimesh_corners(str(root / relative)))
        except AssertionError as error:
            raise AssertionError(f"{relative}: {error}") from None


def test_obj_matches_trimesh_on_positions_and_faces_only(tmp_path):
    """Oracle: trimesh on a copy keeping the ``v`` lines and the position index of each ``f``
    corner (trimesh needs PIL for the texture coordinates these files carry)."""
    root = robots_dir()
    files = referenced_meshes(OBJ_ROBOTS, (".obj",))
    assert len(files) >= 8
    for relative in files:
        lines = (root / relative).read_text(errors="replace").splitlines()
        plain = [line for line in lines if line.startswith("v ")]
        plain += ["f " + " ".join(word.split("/")[0] for word in line.split()[1:])
                  for line in lines if line.startswith("f ")]
        copy = tmp_path / Path(relative).name
        copy.write_text("\n".join(plain) + "\n")
        try:
            assert_same_triangles(corners(load_mesh(str(root / relative))), trimesh_corners(str(copy)))
        except AssertionError as error:
            raise AssertionError(f"{relative}: {error}") from None


def test_dae_pycollada_drops_matches_coal():
    """Oracle: coal (hpp-fcl, pinocchio's geometry library, through assimp) on the file pycollada
    reads as empty: the same number of triangles and the same bounding box."""
    coal = pytest.importorskip("coal")
    root = robots_dir()
    for relative in sorted(PYCOLLADA_DROPS):
        ours = load_mesh(str(root / relative))
        theirs = coal.MeshLoader().load(str(root / relative), np.ones(3))
        points = np.asarray(theirs.vertices())
        assert len(ours.indices) == theirs.num_tris
        size = np.ptp(points, axis=0).max()
        used = ours.points[np.unique(ours.indices)]
        np.testing.assert_allclose([used.min(axis=0), used.max(axis=0)], [points.min(axis=0), points.max(axis=0)],
                                   rtol=0, atol=FLOAT32 * size)  # assimp stores float32 positions
