"""Reads the triangles of a COLLADA (.dae) file, its visual scene flattened with node transforms.

Node transforms (``matrix`` row-major, ``translate``, ``rotate`` axis + [deg], ``scale``) compose
in document order, a child node after its parent; ``instance_node`` places a library node as a
child. A mirroring transform (negative determinant) reverses the winding of its triangles so
that they keep facing outward. Without a visual scene every geometry is taken untransformed.

``<asset><unit meter>`` is applied (the points come out in meters), as the COLLADA specification
asks and as Gazebo's loader and RViz do. ``<up_axis>`` is not applied: Gazebo, RViz (which
skips the root node assimp uses for it) and hpp-fcl/coal all ignore it, and a robot's link
frame, not the file's notion of "up", orients its meshes.
"""
from __future__ import annotations

import math

import numpy as np
from lxml import etree

from .mesh_dae_geometry import DaeDocument, geometry_triangles, parse_numbers
from .mesh_data import MeshData, MeshUnavailable, referenced_only

_MAX_NODE_DEPTH = 256  # deeper nesting means an instance_node cycle
# nodes walked in all, each instance_node counted again: a node instancing the next one twice,
# 40 deep, places its geometry 2^40 times (no exporter repeats a part past a few thousand times)
_MAX_NODES_WALKED = 100_000
# points placed in all (each placement of a geometry copies its points): 240 MB of float64
_MAX_PLACED_POINTS = 10_000_000


def read_dae(path: str) -> MeshData:
    """Every triangle of the COLLADA file ``path`` placed by its scene, in meters."""
    document = DaeDocument(_parse(path))
    if document.local(document.root) != "COLLADA":
        raise MeshUnavailable(f"the root element is <{etree.QName(document.root).localname}>, not <COLLADA>")
    meter = _meters_per_unit(document)
    geometries: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    points: list[np.ndarray] = []
    triangles: list[np.ndarray] = []
    count = 0
    for geometry, transform in _placed_geometries(document):
        if id(geometry) not in geometries:
            geometries[id(geometry)] = geometry_triangles(document, geometry)
        local_points, local_triangles = geometries[id(geometry)]
        if len(local_triangles) == 0:
            continue
        if count + len(local_points) > _MAX_PLACED_POINTS:
            raise MeshUnavailable(f"the scene places more than {_MAX_PLACED_POINTS:,} points (its geometries "
                                  "instanced again and again)")
        if np.linalg.det(transform[:3, :3]) < 0:  # a mirror image keeps its outward side by reversed winding
            local_triangles = local_triangles[:, ::-1]
        points.append(local_points @ transform[:3, :3].T + transform[:3, 3])
        triangles.append(local_triangles + count)
        count += len(local_points)
    if not triangles:
        raise MeshUnavailable("the file holds no triangles")
    all_points = np.concatenate(points)
    if meter != 1.0:
        all_points *= meter
    return referenced_only(all_points, np.concatenate(triangles))


def _parse(path: str):
    # huge_tree: exporters write a whole mesh's numbers as one text node, past libxml2's 10 MB limit
    parser = etree.XMLParser(huge_tree=True, resolve_entities=False, no_network=True, remove_comments=True)
    try:
        return etree.parse(path, parser).getroot()
    except etree.XMLSyntaxError as error:
        raise MeshUnavailable(f"not a valid XML file: {error}") from error
    except OSError as error:
        raise MeshUnavailable(f"cannot read the file: {error}") from error


def _meters_per_unit(document: DaeDocument) -> float:
    """The length of one unit of the file [m] (COLLADA's default is 1)."""
    unit = document.root.find(f"{document.tag('asset')}/{document.tag('unit')}")
    if unit is None or unit.get("meter") is None:
        return 1.0
    try:
        meter = float(unit.get("meter"))
    except ValueError:
        meter = float("nan")
    if not math.isfinite(meter) or meter <= 0:
        raise MeshUnavailable(f"line {unit.sourceline}: <unit meter={unit.get('meter')!r}> is not a positive number")
    return meter


def _placed_geometries(document: DaeDocument) -> list[tuple[object, np.ndarray]]:
    """Every geometry the visual scene instantiates, with its 4x4 transform to the file's frame."""
    scene = _visual_scene(document)
    if scene is None:
        return [(geometry, np.eye(4)) for geometry in document.root.iter(document.tag("geometry"))]
    placed: list[tuple[object, np.ndarray]] = []
    walked = [0]
    for node in scene.iterchildren(document.tag("node")):
        _walk(document, node, np.eye(4), placed, 0, walked)
    return placed


def _visual_scene(document: DaeDocument):
    instance = document.root.find(f"{document.tag('scene')}/{document.tag('instance_visual_scene')}")
    if instance is not None:
        return document.target(instance, "url", ("visual_scene",))
    return next(document.root.iter(document.tag("visual_scene")), None)


def _walk(document: DaeDocument, node, parent: np.ndarray, placed: list, depth: int, walked: list) -> None:
    if depth > _MAX_NODE_DEPTH:
        raise MeshUnavailable(f"line {node.sourceline}: nodes nest more than {_MAX_NODE_DEPTH} deep "
                              "(an instance_node cycle?)")
    walked[0] += 1
    if walked[0] > _MAX_NODES_WALKED:
        raise MeshUnavailable(f"line {node.sourceline}: the scene places more than {_MAX_NODES_WALKED:,} nodes "
                              "(instance_node repeating nodes that repeat others?)")
    transform = parent @ _node_transform(document, node)
    for child in node:
        kind = document.local(child)
        if kind == "instance_geometry":
            placed.append((document.target(child, "url", ("geometry",)), transform))
        elif kind == "node":
            _walk(document, child, transform, placed, depth + 1, walked)
        elif kind == "instance_node":
            _walk(document, document.target(child, "url", ("node",)), transform, placed, depth + 1, walked)


def _node_transform(document: DaeDocument, node) -> np.ndarray:
    """The node's own transform: its transform elements multiplied in document order."""
    transform = np.eye(4)
    for child in node:
        kind = document.local(child)
        if kind in _TRANSFORMS:
            values = parse_numbers(child, np.float64)
            size = _SIZES[kind]
            if len(values) != size:
                raise MeshUnavailable(f"line {child.sourceline}: <{kind}> needs {size} numbers, has {len(values)}")
            transform = transform @ _TRANSFORMS[kind](values)
        elif kind in ("lookat", "skew"):
            raise MeshUnavailable(f"line {child.sourceline}: node transform <{kind}> is not supported")
    return transform


def _matrix(values: np.ndarray) -> np.ndarray:
    return values.reshape(4, 4)


def _translate(values: np.ndarray) -> np.ndarray:
    transform = np.eye(4)
    transform[:3, 3] = values
    return transform


def _rotate(values: np.ndarray) -> np.ndarray:
    """Rotation about axis ``values[:3]`` by ``values[3]`` [deg] (Rodrigues' formula)."""
    axis, angle = values[:3], math.radians(values[3])
    norm = float(np.linalg.norm(axis))
    transform = np.eye(4)
    if norm == 0.0 or angle == 0.0:
        return transform
    x, y, z = axis / norm
    cross = np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
    transform[:3, :3] = np.eye(3) + math.sin(angle) * cross + (1.0 - math.cos(angle)) * (cross @ cross)
    return transform


def _scale(values: np.ndarray) -> np.ndarray:
    return np.diag([values[0], values[1], values[2], 1.0])


_TRANSFORMS = {"matrix": _matrix, "translate": _translate, "rotate": _rotate, "scale": _scale}
_SIZES = {"matrix": 16, "translate": 3, "rotate": 4, "scale": 3}
