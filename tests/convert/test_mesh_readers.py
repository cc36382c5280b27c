"""Our STL, OBJ and DAE readers on files written here, and on broken files.

Oracle: closed forms. A unit cube has 12 triangles, volume 1 (divergence theorem: the sum of
v0 . (v1 x v2) / 6 over outward-wound triangles) and the bounding box [0, 1]^3; a node transform
moves the box by the transform and scales the volume by its determinant.
"""
from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

from usdjoints.convert.meshes import MeshUnavailable, load_mesh

# the corners of [0, 1]^3 and its six faces, counter-clockwise seen from outside
CORNERS = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], dtype=np.float64)
QUADS = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
EXACT = 1e-12  # written numbers are small integers or short decimals: only rounding remains


def cube_triangles() -> np.ndarray:
    return np.array([(a, b, c) for a, b, c, d in QUADS] + [(a, c, d) for a, b, c, d in QUADS])


def volume(mesh) -> float:
    corners = mesh.points[mesh.indices]
    return float(np.einsum("ij,ij->i", corners[:, 0], np.cross(corners[:, 1], corners[:, 2])).sum() / 6.0)


def box(mesh) -> np.ndarray:
    used = mesh.points[np.unique(mesh.indices)]
    return np.array([used.min(axis=0), used.max(axis=0)])


def triangle_set(mesh) -> list:
    """Triangles as corner tuples, each turned to start at its smallest corner (winding kept)."""
    result = []
    for triangle in np.round(mesh.points[mesh.indices], 9):
        rows = [tuple(row) for row in triangle]
        first = rows.index(min(rows))
        result.append(tuple(rows[first:] + rows[:first]))
    return sorted(result)


def assert_unit_cube(mesh):
    assert len(mesh.indices) == 12
    assert volume(mesh) == pytest.approx(1.0, abs=EXACT)
    np.testing.assert_allclose(box(mesh), [[0, 0, 0], [1, 1, 1]], atol=EXACT)


def write_binary_stl(path, triangles: np.ndarray, header: bytes = b"binary cube") -> None:
    records = np.zeros(len(triangles), dtype=[("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")])
    records["v"] = triangles
    path.write_bytes(header.ljust(80, b" ") + np.uint32(len(triangles)).tobytes() + records.tobytes())


# ---- STL --------------------------------------------------------------------------------------

def test_binary_stl_unit_cube(tmp_path):
    """Oracle: closed form (12 triangles, volume 1, box [0,1]^3, the written triangle set)."""
    write_binary_stl(tmp_path / "cube.stl", CORNERS[cube_triangles()])
    mesh = load_mesh(str(tmp_path / "cube.stl"))
    assert_unit_cube(mesh)
    assert len(mesh.points) == 36  # unshared, three points per triangle
    expected = type(mesh)(CORNERS, cube_triangles())
    assert triangle_set(mesh) == triangle_set(expected)


def test_binary_stl_whose_header_starts_with_solid_is_read_as_binary(tmp_path):
    """Oracle: closed form; the file size (84 + 50 n) decides, not the first word."""
    write_binary_stl(tmp_path / "cube.STL", CORNERS[cube_triangles()], header=b"solid exported as binary")
    assert_unit_cube(load_mesh(str(tmp_path / "cube.STL")))


def test_ascii_stl_unit_cube(tmp_path):
    """Oracle: closed form; two solids in one file, keywords in mixed case."""
    facets = []
    for corners in CORNERS[cube_triangles()]:
        loop = "".join(f"      VERTEX {x:g} {y:g} {z:.6e}\n" for x, y, z in corners)
        facets.append(f"  facet normal 0 0 0\n    outer loop\n{loop}    endloop\n  endfacet\n")
    text = "solid a\n" + "".join(facets[:5]) + "endsolid a\nsolid b\n" + "".join(facets[5:]) + "endsolid b\n"
    (tmp_path / "cube.stl").write_text(text)
    mesh = load_mesh(str(tmp_path / "cube.stl"))
    assert_unit_cube(mesh)
    assert triangle_set(mesh) == triangle_set(type(mesh)(CORNERS, cube_triangles()))


def test_truncated_binary_stl_is_unavailable_with_its_sizes(tmp_path):
    """Oracle: the byte count the format requires (84 + 50 n) against the file's."""
    write_binary_stl(tmp_path / "cube.stl", CORNERS[cube_triangles()])
    (tmp_path / "cut.stl").write_bytes((tmp_path / "cube.stl").read_bytes()[:-7])
    with pytest.raises(MeshUnavailable, match=r"declares 12 triangles \(684 bytes\).*677 bytes"):
        load_mesh(str(tmp_path / "cut.stl"))


def test_ascii_stl_with_a_missing_vertex_is_unavailable(tmp_path):
    """Oracle: the format (three vertices per facet)."""
    (tmp_path / "bad.stl").write_text("solid s\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n"
                                      "endloop\nendfacet\nendsolid s\n")
    with pytest.raises(MeshUnavailable, match="not a multiple of three"):
        load_mesh(str(tmp_path / "bad.stl"))


def test_empty_ascii_stl_holds_no_triangles(tmp_path):
    """Oracle: the format (a solid without facets has no triangles)."""
    (tmp_path / "empty.stl").write_text("solid nothing\nendsolid nothing\n")
    with pytest.raises(MeshUnavailable, match="the file holds no triangles"):
        load_mesh(str(tmp_path / "empty.stl"))


# ---- OBJ --------------------------------------------------------------------------------------

def test_obj_quads_become_fans_with_every_corner_form(tmp_path):
    """Oracle: closed form; quads fan into the triangles (a, b, c), (a, c, d)."""
    forms = ["{i}", "{i}/{i}", "{i}/{i}/1", "{i}//1", "{r}", "{r}/1/1"]
    lines = ["# unit cube", "mtllib cube.mtl", "o cube"] + [f"v {x:g} {y:g} {z:g}" for x, y, z in CORNERS]
    lines += ["vt 0 0", "vn 0 0 1", "g faces", "usemtl none", "s off"]
    for number, quad in enumerate(QUADS):
        form = forms[number]
        # a negative index counts back from the last position defined so far
        lines.append("f " + " ".join(form.format(i=k + 1, r=k - len(CORNERS)) for k in quad))
    lines += ["l 1 2", "p 3"]
    (tmp_path / "cube.obj").write_text("\n".join(lines) + "\n")
    mesh = load_mesh(str(tmp_path / "cube.obj"))
    assert_unit_cube(mesh)
    assert triangle_set(mesh) == triangle_set(type(mesh)(CORNERS, cube_triangles()))


def test_obj_drops_positions_no_face_uses(tmp_path):
    """Oracle: closed form; an unused far point must not widen the box (nor a hull built on it)."""
    lines = [f"v {x:g} {y:g} {z:g}" for x, y, z in CORNERS] + ["v 100 100 100"]
    lines += ["f " + " ".join(str(k + 1) for k in quad) for quad in QUADS]
    (tmp_path / "cube.obj").write_text("\n".join(lines))
    mesh = load_mesh(str(tmp_path / "cube.obj"))
    assert len(mesh.points) == 8
    assert_unit_cube(mesh)


def test_obj_positions_with_weight_or_colour_keep_xyz(tmp_path):
    """Oracle: closed form; a fourth (weight) or 4th-6th (colour) number is not a coordinate."""
    extras = ["", " 1", " 0.5 0.5 0.5", ""] * 2
    lines = [f"v {x:g} {y:g} {z:g}{extra}" for (x, y, z), extra in zip(CORNERS, extras)]
    lines += ["f " + " ".join(str(k + 1) for k in quad) for quad in QUADS]
    (tmp_path / "cube.obj").write_text("\n".join(lines))
    assert_unit_cube(load_mesh(str(tmp_path / "cube.obj")))


def test_obj_index_out_of_range_is_unavailable(tmp_path):
    """Oracle: the format (indices name defined positions, 1-based)."""
    (tmp_path / "bad.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n")
    with pytest.raises(MeshUnavailable, match="face index 4 is out of range"):
        load_mesh(str(tmp_path / "bad.obj"))
    (tmp_path / "bad_relative.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf -1 -2 -4\n")
    with pytest.raises(MeshUnavailable, match="line 4: face index -4 is out of range"):
        load_mesh(str(tmp_path / "bad_relative.obj"))


# ---- DAE --------------------------------------------------------------------------------------

COLLADA_14 = "http://www.collada.org/2005/11/COLLADASchema"


def cube_geometry(geometry_id: str, primitive: str) -> str:
    """A <geometry> holding the unit cube as ``primitive``, with a normal input to skip over."""
    positions = " ".join(f"{v:g}" for v in CORNERS.ravel())
    def corners(polygon):  # (position, normal) pairs: the VERTEX input is at offset 1 of 2
        return " ".join(f"0 {k}" for k in polygon)
    inputs = (f'<input semantic="NORMAL" source="#{geometry_id}-n" offset="0"/>'
              f'<input semantic="VERTEX" source="#{geometry_id}-v" offset="1"/>')
    if primitive == "triangles":
        body = f'<triangles count="12">{inputs}<p>{" ".join(corners(t) for t in cube_triangles())}</p></triangles>'
    elif primitive == "polylist":
        body = (f'<polylist count="6">{inputs}<vcount>4 4 4 4 4 4</vcount>'
                f'<p>{" ".join(corners(q) for q in QUADS)}</p></polylist>')
    else:
        body = f'<polygons count="6">{inputs}{"".join(f"<p>{corners(q)}</p>" for q in QUADS)}</polygons>'
    return f"""<geometry id="{geometry_id}"><mesh>
  <source id="{geometry_id}-p"><float_array id="{geometry_id}-pa" count="24">{positions}</float_array>
    <technique_common><accessor source="#{geometry_id}-pa" count="8" stride="3">
      <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
    </accessor></technique_common></source>
  <source id="{geometry_id}-n"><float_array id="{geometry_id}-na" count="3">0 0 1</float_array>
    <technique_common><accessor source="#{geometry_id}-na" count="1" stride="3"/></technique_common></source>
  <vertices id="{geometry_id}-v"><input semantic="POSITION" source="#{geometry_id}-p"/></vertices>
  {body}
</mesh></geometry>"""


def collada(geometries: str, scene: str = "", asset: str = "", namespace: str = COLLADA_14) -> str:
    xmlns = f' xmlns="{namespace}"' if namespace else ""
    visual = (f'<library_visual_scenes><visual_scene id="scene">{scene}</visual_scene></library_visual_scenes>'
              '<scene><instance_visual_scene url="#scene"/></scene>') if scene else ""
    return (f'<?xml version="1.0"?>\n<COLLADA{xmlns} version="1.4.1"><asset>{asset}</asset>'
            f"<library_geometries>{geometries}</library_geometries>{visual}</COLLADA>")


@pytest.mark.parametrize("primitive", ["triangles", "polylist", "polygons"])
@pytest.mark.parametrize("namespace", [COLLADA_14, "http://www.collada.org/2008/03/COLLADASchema", ""])
def test_dae_cube_primitives_without_scene(tmp_path, primitive, namespace):
    """Oracle: closed form; without a visual scene a geometry is taken untransformed."""
    (tmp_path / "cube.dae").write_text(collada(cube_geometry("g", primitive), namespace=namespace))
    mesh = load_mesh(str(tmp_path / "cube.dae"))
    assert_unit_cube(mesh)
    assert triangle_set(mesh) == triangle_set(type(mesh)(CORNERS, cube_triangles()))


def rotation_z(angle_deg: float) -> np.ndarray:
    c, s = math.cos(math.radians(angle_deg)), math.sin(math.radians(angle_deg))
    return np.array([[c, -s, 0, 0], [s, c, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])


def test_dae_node_transforms_compose_in_document_order(tmp_path):
    """Oracle: closed form. Node A = translate(10,0,0) rotate(z, 90 deg) scale(2,3,4) holds the
    polylist cube; its child B = matrix(translate(0,0,5)) instantiates library node C, which
    holds the polygons cube. A cube [0,1]^3 under A spans x in [7, 10], y in [0, 2], z in [0, 4];
    under A.B.C it is moved by A applied to (0,0,5): z in [20, 24]. Volumes are det = 24 each.
    """
    matrix = " ".join(f"{v:g}" for v in np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 5], [0, 0, 0, 1]]).ravel())
    scene = (f'<node id="A"><translate>10 0 0</translate><rotate>0 0 1 90</rotate><scale>2 3 4</scale>'
             f'<instance_geometry url="#poly"/>'
             f'<node id="B"><matrix>{matrix}</matrix><instance_node url="#C"/></node></node>')
    library = '<library_nodes><node id="C"><instance_geometry url="#gons"/></node></library_nodes>'
    text = collada(cube_geometry("poly", "polylist") + cube_geometry("gons", "polygons"), scene)
    (tmp_path / "scene.dae").write_text(text.replace("<library_geometries>", library + "<library_geometries>"))
    mesh = load_mesh(str(tmp_path / "scene.dae"))
    assert len(mesh.indices) == 24
    assert volume(mesh) == pytest.approx(48.0, rel=EXACT)
    np.testing.assert_allclose(box(mesh), [[7, 0, 0], [10, 2, 24]], atol=1e-9)  # cos(90 deg) ~ 6e-17
    a = np.array([[10.0], [0.0], [0.0]]) + (rotation_z(90) @ np.diag([2, 3, 4, 1]))[:3, :3] @ CORNERS.T
    upper = mesh.points[mesh.points[:, 2] > 10]
    np.testing.assert_allclose(np.unique(np.round(upper, 9), axis=0),
                               np.unique(np.round(a.T + [0, 0, 20], 9), axis=0), atol=1e-9)


def test_dae_id_shared_by_a_scene_and_a_node(tmp_path):
    """Unitree's calf.dae names its visual scene and a node both "calf": the scene reference
    names the scene (one library per kind, as Assimp reads it), and the node's translated cube is
    read. Oracle: closed form (the unit cube moved by (2, 0, 0)); it was dropped for having no
    visual scene."""
    scene = '<node id="calf"><translate>2 0 0</translate><instance_geometry url="#g"/></node>'
    text = collada(cube_geometry("g", "triangles"), scene).replace('"scene"', '"calf"').replace('"#scene"', '"#calf"')
    (tmp_path / "calf.dae").write_text(text)
    mesh = load_mesh(str(tmp_path / "calf.dae"))
    np.testing.assert_allclose(box(mesh), [[2, 0, 0], [3, 1, 1]], atol=1e-12)


def test_dae_unit_is_applied_and_up_axis_is_not(tmp_path):
    """Oracle: closed form; <unit meter="0.001"> turns a 1000-unit cube into a 1 m cube whatever
    <up_axis> says (the choice Gazebo and RViz make for the unit, all of them for the axis)."""
    scene = '<node><scale>1000 1000 1000</scale><instance_geometry url="#g"/></node>'
    for up_axis in ("Z_UP", "Y_UP", "X_UP"):
        asset = f'<unit meter="0.001" name="millimeter"/><up_axis>{up_axis}</up_axis>'
        (tmp_path / "mm.dae").write_text(collada(cube_geometry("g", "triangles"), scene, asset))
        assert_unit_cube(load_mesh(str(tmp_path / "mm.dae")))


def test_dae_mirror_keeps_triangles_facing_outward(tmp_path):
    """Oracle: closed form; scale (-1,1,1) mirrors the cube to [-1,0]x[0,1]^2 and the winding is
    reversed so the divergence-theorem volume stays +1 (not -1)."""
    scene = '<node><scale>-1 1 1</scale><instance_geometry url="#g"/></node>'
    (tmp_path / "mirror.dae").write_text(collada(cube_geometry("g", "triangles"), scene))
    mesh = load_mesh(str(tmp_path / "mirror.dae"))
    assert volume(mesh) == pytest.approx(1.0, abs=EXACT)
    np.testing.assert_allclose(box(mesh), [[-1, 0, 0], [0, 1, 1]], atol=EXACT)


@pytest.mark.parametrize("primitive, indices", [("trifans", "0 1 2 3"), ("tristrips", "0 1 3 2")])
def test_dae_fans_and_strips_of_a_square(tmp_path, primitive, indices):
    """Oracle: closed form; the unit square (0,0) (1,0) (1,1) (0,1) as one fan or one strip is two
    triangles of signed area +1/2 each (counter-clockwise seen from +z)."""
    geometry = f"""<geometry id="g"><mesh>
  <source id="p"><float_array id="pa" count="12">0 0 0 1 0 0 1 1 0 0 1 0</float_array>
    <technique_common><accessor source="#pa" count="4" stride="3"/></technique_common></source>
  <vertices id="v"><input semantic="POSITION" source="#p"/></vertices>
  <{primitive} count="1"><input semantic="VERTEX" source="#v" offset="0"/><p>{indices}</p></{primitive}>
</mesh></geometry>"""
    (tmp_path / "square.dae").write_text(collada(geometry))
    mesh = load_mesh(str(tmp_path / "square.dae"))
    corners = mesh.points[mesh.indices]
    areas = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])[:, 2] / 2
    np.testing.assert_allclose(areas, [0.5, 0.5], atol=EXACT)


def doubling_nodes(levels: int) -> str:
    """Library nodes n0 .. n{levels}, each instancing the next twice, the last holding the cube:
    the scene's one instance of n0 places the cube 2^levels times."""
    nodes = "".join(f'<node id="n{i}"><instance_node url="#n{i + 1}"/><instance_node url="#n{i + 1}"/></node>'
                    for i in range(levels))
    library = f'<library_nodes>{nodes}<node id="n{levels}"><instance_geometry url="#g"/></node></library_nodes>'
    text = collada(cube_geometry("g", "triangles"), '<node><instance_node url="#n0"/></node>')
    return text.replace("<library_geometries>", library + "<library_geometries>")


def test_dae_nodes_repeating_nodes_place_the_geometry_each_time(tmp_path):
    """Oracle: closed form; 10 doubling levels place the cube's 12 triangles 2^10 times."""
    (tmp_path / "twice.dae").write_text(doubling_nodes(10))
    mesh = load_mesh(str(tmp_path / "twice.dae"))
    assert len(mesh.indices) == 12 * 2 ** 10 and volume(mesh) == pytest.approx(2 ** 10, rel=EXACT)


def test_dae_nodes_repeating_nodes_40_deep_are_refused_at_once(tmp_path):
    """Oracle: closed form; 40 doubling levels (a 4 kB file) would place the cube 2^40 times: the
    reader walked them for ever. It stops past 100,000 nodes walked, in a fresh process well
    inside the time limit."""
    (tmp_path / "bomb.dae").write_text(doubling_nodes(40))
    code = ("import sys; from usdjoints.convert.meshes import MeshUnavailable, load_mesh\n"
            "try:\n    load_mesh(sys.argv[1])\nexcept MeshUnavailable as error:\n    print(error)\n")
    result = subprocess.run([sys.executable, "-c", code, str(tmp_path / "bomb.dae")], capture_output=True,
                            text=True, timeout=60)
    assert "the scene places more than 100,000 nodes" in result.stdout, result


def test_dae_placing_too_many_points_is_refused(tmp_path, monkeypatch):
    """Oracle: closed form; each placement of the cube copies its 8 points: 12 placements are 96
    points, 13 are 104, past a limit of 100."""
    from usdjoints.convert import mesh_dae

    monkeypatch.setattr(mesh_dae, "_MAX_PLACED_POINTS", 100)
    for placements, refused in ((12, False), (13, True)):
        scene = "<node>" + '<instance_geometry url="#g"/>' * placements + "</node>"
        (tmp_path / "many.dae").write_text(collada(cube_geometry("g", "triangles"), scene))
        if refused:
            with pytest.raises(MeshUnavailable, match="the scene places more than 100 points"):
                load_mesh(str(tmp_path / "many.dae"))
        else:
            assert len(load_mesh(str(tmp_path / "many.dae")).points) == 96


def test_dae_that_is_not_xml_is_unavailable(tmp_path):
    """Oracle: the XML parser's verdict."""
    (tmp_path / "bad.dae").write_text("<COLLADA><library_geometries></COLLADA")
    with pytest.raises(MeshUnavailable, match="not a valid XML file"):
        load_mesh(str(tmp_path / "bad.dae"))


@pytest.mark.parametrize("damage, reason", [
    (lambda t: t.replace('<p>0 0 0 1', '<p>0 0 0 9', 1), "out of range"),
    (lambda t: t.replace('<p>0 0', '<p>0 zero', 1), "not a list of numbers"),
    (lambda t: t.replace('url="#g"', 'url="#missing"'), "names no <geometry>"),
    (lambda t: t.replace('<instance_geometry url="#g"/>', ''), "the file holds no triangles"),
])
def test_damaged_dae_is_unavailable_with_a_reason(tmp_path, damage, reason):
    """Oracle: the format (indices within the positions, numbers in <p>, resolvable references)."""
    text = collada(cube_geometry("g", "triangles"), '<node><instance_geometry url="#g"/></node>')
    (tmp_path / "bad.dae").write_text(damage(text))
    with pytest.raises(MeshUnavailable, match=reason):
        load_mesh(str(tmp_path / "bad.dae"))


def test_missing_file_is_unavailable(tmp_path):
    """Oracle: the file system (no such file)."""
    for name in ("absent.stl", "absent.obj", "absent.dae"):
        with pytest.raises(MeshUnavailable, match="cannot read the file"):
            load_mesh(str(tmp_path / name))


def test_stl_obj_dae_do_not_import_trimesh(tmp_path):
    """Oracle: Python's module registry after reading one file of each format in a fresh process."""
    write_binary_stl(tmp_path / "cube.stl", CORNERS[cube_triangles()])
    (tmp_path / "cube.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    (tmp_path / "cube.dae").write_text(collada(cube_geometry("g", "triangles")))
    code = ("import sys; from usdjoints.convert.meshes import load_mesh\n"
            f"for name in ('cube.stl', 'cube.obj', 'cube.dae'): load_mesh({str(tmp_path)!r} + '/' + name)\n"
            "print(sorted(m for m in ('trimesh', 'collada') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
