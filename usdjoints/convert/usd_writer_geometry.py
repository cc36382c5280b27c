"""Authors visual and collision geometry under a link prim, and display materials.

Each shape is one gprim placed by its origin in the link frame (translate + orient, plus scale
for boxes and meshes). Colliders get PhysicsCollisionAPI; mesh colliders are approximated by
their convex hull (PhysicsMeshCollisionAPI) since dynamic bodies cannot collide as triangle meshes.
Collision gprims have purpose ``guide`` so renderers show the visuals only.
"""
from __future__ import annotations

import numpy as np
from pxr import Gf, Sdf, Usd, UsdGeom, UsdPhysics, UsdShade, Vt

from .ir import Box, Capsule, Cylinder, Geometry, Material, MeshRef, Plane, Pose, Sphere
from .meshes import MeshCache, MeshUnavailable
from .names import unique_child_name
from .report import EntryKind, Notes
from . import usd_writer_specs as specs
from .resolve import not_found_message


class MaterialLibrary:
    """Defines each distinct display material once under ``looks_path`` and binds it."""

    def __init__(self, stage: Usd.Stage, looks_path: Sdf.Path, park=None):
        self.stage = stage
        self._park = park  # called with each material's path once it is written (BatchedStage.park)
        self.looks_path = looks_path
        self._by_key: dict[tuple, UsdShade.Material] = {}
        self._used_names: set[str] = set()

    def bind(self, gprim: UsdGeom.Gprim, material: Material, notes: Notes, where: str) -> None:
        if material.rgba is not None:
            gprim.CreateDisplayColorAttr([Gf.Vec3f(*material.rgba[:3])])
            gprim.CreateDisplayOpacityAttr([float(material.rgba[3])])
        if material.texture is not None:
            notes.add(EntryKind.DROPPED, where, f"material {material.name!r} texture",
                      f"textures are not written ({material.texture})")
        key = (material.name, material.rgba)
        usd_material = self._by_key.get(key)
        if usd_material is None:
            if not self.stage.GetPrimAtPath(self.looks_path):
                UsdGeom.Scope.Define(self.stage, self.looks_path)
            name = unique_child_name(material.name or "material", self._used_names)
            usd_material = UsdShade.Material.Define(self.stage, self.looks_path.AppendChild(name))
            if material.name and name != material.name:
                usd_material.GetPrim().SetDisplayName(material.name)
            shader = UsdShade.Shader.Define(self.stage, usd_material.GetPath().AppendChild("PreviewSurface"))
            shader.CreateIdAttr("UsdPreviewSurface")
            rgba = material.rgba or (0.8, 0.8, 0.8, 1.0)
            shader.CreateInput("diffuseColor", Sdf.ValueTypeNames.Color3f).Set(Gf.Vec3f(*rgba[:3]))
            shader.CreateInput("opacity", Sdf.ValueTypeNames.Float).Set(float(rgba[3]))
            usd_material.CreateSurfaceOutput().ConnectToSource(shader.ConnectableAPI(), "surface")
            self._by_key[key] = usd_material
            if self._park is not None:
                self._park(usd_material.GetPath())  # binding needs only its path
        UsdShade.MaterialBindingAPI.Apply(gprim.GetPrim()).Bind(usd_material)


def write_shape(stage: Usd.Stage, path: Sdf.Path, geometry: Geometry, origin: Pose, *, collider: bool,
                meshes: MeshCache, notes: Notes, where: str, element: str) -> UsdGeom.Gprim | None:
    """Defines the gprim for ``geometry`` at ``path``; returns None (reported) when nothing is written."""
    scale = None
    if isinstance(geometry, Box):
        if geometry.size is None:
            return _missing(notes, where, element, "box size")
        gprim = UsdGeom.Cube.Define(stage, path)
        gprim.CreateSizeAttr(1.0)
        scale = geometry.size
    elif isinstance(geometry, Sphere):
        if geometry.radius is None:
            return _missing(notes, where, element, "sphere radius")
        gprim = UsdGeom.Sphere.Define(stage, path)
        gprim.CreateRadiusAttr(float(geometry.radius))
    elif isinstance(geometry, (Cylinder, Capsule)):
        if geometry.radius is None or geometry.length is None:
            return _missing(notes, where, element, "radius or length")
        schema = UsdGeom.Cylinder if isinstance(geometry, Cylinder) else UsdGeom.Capsule
        gprim = schema.Define(stage, path)
        gprim.CreateRadiusAttr(float(geometry.radius))
        gprim.CreateHeightAttr(float(geometry.length))
        gprim.CreateAxisAttr(UsdGeom.Tokens.z)
    elif isinstance(geometry, Plane):
        gprim = UsdGeom.Plane.Define(stage, path)
        size = geometry.size or (1.0, 1.0)
        gprim.CreateWidthAttr(float(size[0]))
        gprim.CreateLengthAttr(float(size[1]))
        gprim.CreateAxisAttr(UsdGeom.Tokens.z)
        if geometry.normal is not None:
            from .usd_writer_joints import rotation_x_onto
            from .ir import quat_multiply

            # X->normal composed with Z->X keeps the plane's Z axis on the normal
            origin = Pose(origin.position, quat_multiply(
                quat_multiply(origin.orientation, rotation_x_onto(geometry.normal)),
                (0.5 ** 0.5, 0.0, 0.5 ** 0.5, 0.0)))
    elif isinstance(geometry, MeshRef):
        gprim = _write_mesh(stage, path, geometry, meshes, notes, where, element)
        if gprim is None:
            return None
        scale = geometry.scale
        if collider:
            UsdPhysics.MeshCollisionAPI.Apply(gprim.GetPrim()).CreateApproximationAttr(
                UsdPhysics.Tokens.convexHull)
    else:
        return None
    _place(gprim, origin, scale)
    if collider:
        UsdPhysics.CollisionAPI.Apply(gprim.GetPrim())
        gprim.CreatePurposeAttr(UsdGeom.Tokens.guide)
    return gprim


def specs_writable(geometry: Geometry | None) -> bool:
    """Whether :func:`write_shape_spec` writes this geometry (else :func:`write_shape` does)."""
    if isinstance(geometry, Box):
        return geometry.size is not None
    if isinstance(geometry, Sphere):
        return geometry.radius is not None
    if isinstance(geometry, (Cylinder, Capsule)):
        return geometry.radius is not None and geometry.length is not None
    return False


def write_shape_spec(parent: Sdf.PrimSpec, name: str, geometry: Geometry, origin: Pose, *,
                     collider: bool) -> Sdf.PrimSpec:
    """:func:`write_shape` for a geometry :func:`specs_writable` accepts, as Sdf specs under the
    link's spec (usd_writer_specs): the same specs in the same order."""
    scale = None
    if isinstance(geometry, Box):
        spec = specs.define(parent, name, "Cube")
        specs.attribute(spec, "size", 1.0)
        scale = geometry.size
    elif isinstance(geometry, Sphere):
        spec = specs.define(parent, name, "Sphere")
        specs.attribute(spec, "radius", float(geometry.radius))
    else:
        spec = specs.define(parent, name, "Cylinder" if isinstance(geometry, Cylinder) else "Capsule")
        specs.attribute(spec, "radius", float(geometry.radius))
        specs.attribute(spec, "height", float(geometry.length))
        specs.attribute(spec, "axis", UsdGeom.Tokens.z)
    w, x, y, z = origin.orientation
    specs.xform_ops(spec, Gf.Vec3d(*origin.position), Gf.Quatf(float(w), float(x), float(y), float(z)),
                    Gf.Vec3f(*map(float, scale)) if scale is not None and tuple(scale) != (1.0, 1.0, 1.0) else None)
    if collider:
        specs.apply_schemas(spec, ["PhysicsCollisionAPI"])
        specs.attribute(spec, "purpose", UsdGeom.Tokens.guide)
    return spec


def _missing(notes: Notes, where: str, element: str, what: str):
    notes.add(EntryKind.DROPPED, where, element, f"the {what} is not written; the shape is skipped")
    return None


def _write_mesh(stage, path, geometry: MeshRef, meshes: MeshCache, notes: Notes, where: str, element: str):
    if geometry.path is None:
        key = ("missing mesh", geometry.uri, geometry.searched)
        if key in notes.seen:  # one warning per missing file; each shape is still listed as dropped
            notes.add(EntryKind.DROPPED, where, element, f"mesh {geometry.uri!r} not found (warned above)")
            return None
        notes.seen.add(key)
        notes.add(EntryKind.WARNING, where, element,
                  f"mesh {not_found_message(geometry.uri, geometry.searched)}; the shape is skipped")
        return None
    try:
        data = meshes.load(geometry.path)
    except MeshUnavailable as error:  # a skipped shape is a warning, as a missing file is
        notes.add(EntryKind.WARNING, where, element, f"mesh {geometry.path}: {error}; the shape is skipped")
        return None
    points, counts, indices, extent = _usd_arrays(geometry.path, data, meshes)
    mesh = UsdGeom.Mesh.Define(stage, path)
    mesh.CreatePointsAttr(points)
    mesh.CreateFaceVertexCountsAttr(counts)
    mesh.CreateFaceVertexIndicesAttr(indices)
    mesh.CreateSubdivisionSchemeAttr(UsdGeom.Tokens.none)
    mesh.CreateExtentAttr(extent)
    return mesh


def _usd_arrays(path: str, data, meshes: MeshCache):
    """The mesh's USD arrays, formed once per file per conversion (robots reuse a file for
    visual and collision shapes and across links)."""
    arrays = meshes.usd_arrays.get(path)
    if arrays is None:
        points = Vt.Vec3fArray.FromNumpy(data.points.astype(np.float32))
        arrays = (points,
                  Vt.IntArray.FromNumpy(np.full(len(data.indices), 3, dtype=np.int32)),
                  Vt.IntArray.FromNumpy(data.indices.astype(np.int32).ravel()),
                  # the bounds of the float32 points as written (USD's own; numpy's min/max
                  # took ~30x longer)
                  UsdGeom.PointBased.ComputeExtent(points))
        meshes.usd_arrays[path] = arrays
    return arrays


def _place(gprim: UsdGeom.Xformable, origin: Pose, scale) -> None:
    gprim.AddTranslateOp().Set(Gf.Vec3d(*origin.position))
    w, x, y, z = origin.orientation
    gprim.AddOrientOp().Set(Gf.Quatf(float(w), float(x), float(y), float(z)))
    if scale is not None and tuple(scale) != (1.0, 1.0, 1.0):
        gprim.AddScaleOp().Set(Gf.Vec3f(*map(float, scale)))
