"""Colliders (PhysicsCollisionAPI prims) with their shapes and materials, and the collision
filters of a stage: read once per stage, whatever the consumer.

Dimensions are read as the walker reads values (``values.SchemaValues``): a wrongly typed one is
the schema fallback, with an ``invalid-value-type`` error. The material is the PhysicsMaterialAPI
bound for physics (``material:binding:physics``, else ``material:binding``) on the collider or
an ancestor; without one, PhysX's default material (friction 0.5, restitution 0). A collider
belongs to the nearest rigid body at or above it.
"""
from __future__ import annotations

from typing import Optional

from ..descriptors import CollisionFilters, ColliderDesc, Diagnostic, MaterialDesc, Pose
from .values import SchemaValues

DEFAULT_FRICTION = 0.5  # PhysX's default material
DEFAULT_RESTITUTION = 0.0
_SHAPES = {"Sphere": "sphere", "Capsule": "capsule", "Cube": "cube", "Cylinder": "cylinder", "Cone": "cone",
           "Plane": "plane", "Mesh": "mesh", "Points": "points"}
_DEFAULT_MATERIAL = MaterialDesc(None, DEFAULT_FRICTION, DEFAULT_FRICTION, DEFAULT_RESTITUTION, 0.0)


def shape_axis(prim, values: SchemaValues) -> str:
    """A capsule's, cylinder's or plane's axis token; one outside X, Y, Z (allowedTokens) reads as
    the schema fallback Z, as a wrongly typed value does, with an ``invalid-value-type`` error."""
    axis = values.value(prim, "axis")
    if axis in ("X", "Y", "Z"):
        return axis
    values.diagnostics.append(Diagnostic(
        "error", str(prim.GetPath()), f"axis is {axis!r}, not one of X, Y, Z: usdjoints reads the fallback Z",
        "invalid-value-type", attribute="axis"))
    values.record(prim, "axis", "Z")
    return "Z"


def read_colliders(stage, collider_paths, body_paths, cache, values: SchemaValues) -> tuple[ColliderDesc, ...]:
    """Every collider of ``collider_paths`` (stage order), owned by the nearest of ``body_paths``."""
    from pxr import Gf, UsdPhysics

    from .bodies import local_to_world

    out = []
    materials: dict[str, MaterialDesc] = {}  # prim path -> the material bound at or above it
    inverses: dict[str, object] = {}  # body path -> its world transform's inverse
    for path in collider_paths:
        prim = stage.GetPrimAtPath(path)
        owner = prim
        owner_path = path
        while owner and owner_path != "/" and owner_path not in body_paths:
            owner = owner.GetParent()
            owner_path = owner.GetPath().pathString if owner else None
        body = owner_path if owner and owner_path in body_paths else None
        world = local_to_world(cache, prim)
        world_pose, world_scale = _decompose(Gf.Transform(world))
        if body is not None:
            inverse = inverses.get(body)
            if inverse is None:
                inverse = inverses[body] = local_to_world(cache, owner).GetInverse()
            relative = world * inverse
            body_pose, body_scale = _decompose(Gf.Transform(relative))
        else:
            body_pose, body_scale = world_pose, world_scale
        enabled = bool(UsdPhysics.CollisionAPI(prim).GetCollisionEnabledAttr().Get())
        shape = _SHAPES.get(prim.GetTypeName(), prim.GetTypeName().lower() or "untyped")
        radius = height = size = axis = extent = None
        if shape in ("sphere", "capsule", "cylinder", "cone"):
            radius = _number(values.value(prim, "radius"))
        if shape in ("capsule", "cylinder", "cone"):
            height = _number(values.value(prim, "height"))
        if shape in ("capsule", "cylinder", "cone", "plane"):
            axis = shape_axis(prim, values)
        if shape == "cube":
            size = _number(values.value(prim, "size"))
        if shape not in ("sphere", "capsule", "cube", "plane"):
            extent = _extent(prim)
        approximation = hull = None
        if shape == "mesh":
            token = prim.GetAttribute("physics:approximation")
            approximation = str(token.Get()) if token and token.HasAuthoredValue() else None
            hull = hull_points(prim)
        out.append(ColliderDesc(path, shape, body, enabled, world_pose, world_scale, body_pose, body_scale,
                                radius, height, size, axis, extent, _material(prim, values, materials),
                                approximation=approximation, hull=hull))
    return tuple(out)


def _number(value) -> Optional[float]:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _decompose(transform) -> tuple[Pose, tuple[float, float, float]]:
    q = transform.GetRotation().GetQuat()
    imaginary = q.GetImaginary()
    # indexing the Gf vectors: iterating one costs far more
    translation, scale = transform.GetTranslation(), transform.GetScale()
    pose = Pose((float(translation[0]), float(translation[1]), float(translation[2])),
                (float(q.GetReal()), float(imaginary[0]), float(imaginary[1]), float(imaginary[2])))
    return pose, (abs(float(scale[0])), abs(float(scale[1])), abs(float(scale[2])))


def _extent(prim):
    """An authored extent, else the one the prim's own attributes give (a cylinder's radius and
    height), else the bounds of its points: the schema's fallback extent is a 2 m cube whatever
    the shape's size."""
    from pxr import Usd, UsdGeom

    if not prim.IsA(UsdGeom.Boundable):
        return None
    attribute = UsdGeom.Boundable(prim).GetExtentAttr()
    extent = attribute.Get() if attribute.HasAuthoredValue() else None
    if extent is None:
        extent = UsdGeom.Boundable.ComputeExtentFromPlugins(UsdGeom.Boundable(prim), Usd.TimeCode.Default())
        extent = list(extent) if extent is not None and len(extent) == 2 else None
    corners = _corners(extent)
    if corners is None and prim.IsA(UsdGeom.PointBased):
        points = _points(UsdGeom.PointBased(prim).GetPointsAttr().Get())
        if points:
            xs, ys, zs = zip(*points)
            corners = (min(xs), min(ys), min(zs)), (max(xs), max(ys), max(zs))
    return corners


# PhysX's default physxConvexHullCollision:hullVertexLimit: a cooked hull has at most 64 vertices.
HULL_VERTEX_LIMIT = 64


def _hull_directions(count: int):
    """``count`` unit vectors spread evenly over the sphere (a Fibonacci lattice)."""
    import numpy as np

    k = np.arange(count) + 0.5
    z = 1.0 - 2.0 * k / count
    r = np.sqrt(np.maximum(0.0, 1.0 - z * z))
    phi = k * np.pi * (3.0 - np.sqrt(5.0))
    return np.stack([r * np.cos(phi), r * np.sin(phi), z], axis=1)


def hull_points(prim):
    """A mesh's convex hull as at most HULL_VERTEX_LIMIT of its points (local, unscaled): all of
    them when there are no more, else the support point of each of HULL_VERTEX_LIMIT directions
    spread over the sphere, every one a vertex of the mesh's hull. None when the points are not
    an array of finite triples or span no volume (a flat mesh keeps its bounding box)."""
    import numpy as np
    from pxr import UsdGeom

    if not prim.IsA(UsdGeom.PointBased):
        return None
    try:
        points = np.asarray(UsdGeom.PointBased(prim).GetPointsAttr().Get(), dtype=np.float64)
    except (TypeError, ValueError):
        return None
    if points.ndim != 2 or points.shape[1] != 3 or len(points) < 4:
        return None
    points = points[np.all(np.isfinite(points), axis=1)]
    if len(points) <= 4 * HULL_VERTEX_LIMIT:  # repeated points (a mesh's per-face copies) count once
        points = np.unique(points, axis=0)
    if len(points) < 4:
        return None
    if len(points) > HULL_VERTEX_LIMIT:
        centre = 0.5 * (points.min(axis=0) + points.max(axis=0))
        directions = _hull_directions(HULL_VERTEX_LIMIT).T
        best, picked = np.full(HULL_VERTEX_LIMIT, -np.inf), np.zeros(HULL_VERTEX_LIMIT, dtype=np.int64)
        for start in range(0, len(points), 16384):  # bounded memory whatever the mesh's size
            reach = (points[start:start + 16384] - centre) @ directions
            k = np.argmax(reach, axis=0)
            value = reach[k, np.arange(HULL_VERTEX_LIMIT)]
            better = value > best
            best[better], picked[better] = value[better], start + k[better]
        points = points[np.unique(picked)]
    span = points - points.mean(axis=0)
    with np.errstate(over="ignore", invalid="ignore"):
        if len(points) < 4 or not np.all(np.isfinite(span)) or (
                np.linalg.svd(span, compute_uv=False)[-1] <= 1e-9 * max(1.0, np.abs(span).max())):
            return None
    return tuple((float(x), float(y), float(z)) for x, y, z in points)


def _vector3(value):
    """``value`` as three floats, or None when it is no triple of numbers (an extent or points
    authored with another value type: the schema's fallback applies, as for any column)."""
    try:
        if len(value) != 3:
            return None
        return float(value[0]), float(value[1]), float(value[2])
    except (TypeError, ValueError):
        return None


def _points(value):
    """Authored points as float triples; empty when they are not an array of triples."""
    try:
        points = [_vector3(p) for p in value] if value is not None else []
    except TypeError:  # a scalar where an array goes
        return []
    return points if all(p is not None for p in points) else []


def _corners(extent):
    """An extent's two corners as float triples, or None when it is not two triples."""
    try:
        if extent is None or len(extent) != 2:
            return None
    except TypeError:
        return None
    low, high = _vector3(extent[0]), _vector3(extent[1])
    return None if low is None or high is None else (low, high)


def _material(prim, values: SchemaValues, found: Optional[dict] = None) -> MaterialDesc:
    """The physics material bound at or nearest above ``prim``; ``found`` (prim path -> material)
    keeps each prim's answer for the colliders that share its ancestors."""
    from pxr import UsdPhysics

    found = {} if found is None else found
    walked = []  # prims below the answer, nearest first
    material_desc = _DEFAULT_MATERIAL
    while prim and prim.GetPath().pathString != "/":
        path = prim.GetPath().pathString
        known = found.get(path)
        if known is not None:
            material_desc = known
            break
        walked.append(path)
        bound = _bound_material(prim, values, UsdPhysics.MaterialAPI)
        if bound is not None:
            material_desc = bound
            break
        prim = prim.GetParent()
    for path in walked:
        found[path] = material_desc
    return material_desc


def _bound_material(prim, values: SchemaValues, material_api) -> Optional[MaterialDesc]:
    """The physics material bound on ``prim`` itself, if any."""
    for name in ("material:binding:physics", "material:binding"):
        rel = prim.GetRelationship(name)
        targets = rel.GetTargets() if rel else []
        if targets:
            material = prim.GetStage().GetPrimAtPath(targets[0])
            if material and material.HasAPI(material_api):
                return MaterialDesc(material.GetPath().pathString,
                                    float(values.value(material, "physics:dynamicFriction")),
                                    float(values.value(material, "physics:staticFriction")),
                                    float(values.value(material, "physics:restitution")),
                                    float(values.value(material, "physics:density")))
    return None


def _bool_attribute(prim, *names, default: bool) -> bool:
    for name in names:
        attribute = prim.GetAttribute(name) if prim else None
        if attribute and attribute.HasAuthoredValue():
            return bool(attribute.Get())
    return default


def read_filters(stage, colliders: list[ColliderDesc], scenes, groups, filtering, roots):
    """(colliders with their first collision group, the stage's CollisionFilters)."""
    import dataclasses

    from pxr import Sdf, Usd, UsdPhysics

    inverted = any(_bool_attribute(stage.GetPrimAtPath(p), "physxScene:invertCollisionGroupFilter", default=False)
                   for p in scenes)
    named, first = {}, {}
    for group in groups:
        prim = stage.GetPrimAtPath(group)
        rel = UsdPhysics.CollisionGroup(prim).GetFilteredGroupsRel()
        named[group] = tuple(t.pathString for t in (rel.GetTargets() if rel else []))
        query = Usd.CollectionAPI(prim, "colliders").ComputeMembershipQuery()
        for collider in colliders:
            if collider.path not in first and query.IsPathIncluded(collider.path):
                first[collider.path] = group
    pairs = []
    for path in filtering:
        rel = stage.GetPrimAtPath(path).GetRelationship("physics:filteredPairs")
        for target in (rel.GetTargets() if rel else []):
            pairs.append((path, Sdf.Path(target).pathString))
    self_collisions = {root: _bool_attribute(stage.GetPrimAtPath(root), "physxArticulation:enabledSelfCollisions",
                                             "newton:selfCollisionEnabled", default=True) for root in roots}
    colliders = [dataclasses.replace(c, group=first.get(c.path)) for c in colliders]
    return tuple(colliders), CollisionFilters(tuple(pairs), named, inverted, self_collisions)
