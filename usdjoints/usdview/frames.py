"""Joint frames as small coloured axes (BasisCurves) that a viewer draws over the stage.

For each joint: the frame it defines on body0 (local_pose0 composed with body0's pose), the frame
on body1, and its axis drawn through frame 0. When the joint is satisfied the two frames
coincide; a gap or a tilt between them is the error a consumer will "fix" by moving the bodies.
Everything goes under one root scope, so removing that one prim spec removes all of it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional

from ..api_edit import edit_layer, ensure_prim_spec, remove_prim_spec, set_attribute

FRAMES_SCOPE = "/__usdjoints_frames"
JOINT_ATTRIBUTE = "usdjoints:joint"  # on each joint's curves prim: the joint it draws

# X, Y, Z axes of frame 0 in full colour; frame 1 paler and shorter so both show when they coincide.
_FRAME0_COLORS = ((0.9, 0.1, 0.1), (0.1, 0.8, 0.1), (0.15, 0.3, 1.0))
_FRAME1_COLORS = ((1.0, 0.6, 0.6), (0.6, 1.0, 0.6), (0.6, 0.75, 1.0))
_AXIS_COLOR = (1.0, 0.85, 0.0)
_FRAME1_SCALE = 0.8
_AXIS_SCALE = 1.4
_WIDTH_SCALE = 0.04
_SIZE_OF_STAGE = 0.08  # axis length as a fraction of the stage's bounding-box diagonal
_FALLBACK_LENGTH_M = 0.1  # [m] when the stage has no extent to measure


@dataclass(frozen=True)
class FramesResult:
    """What :func:`author_joint_frames` wrote: the scope, one curves prim per joint, the length."""

    scope: str
    joints: tuple[str, ...]
    curves: tuple[str, ...]
    length: float  # [stage length] of one frame axis
    layer: str


def frames_shown(stage) -> bool:
    """Whether the frames scope is on the stage (from any layer)."""
    prim = stage.GetPrimAtPath(FRAMES_SCOPE)
    return bool(prim and prim.IsValid())


def author_joint_frames(stage, joints: Optional[Iterable[str]] = None, layer=None,
                        consumer: str = "ovphysx", length: Optional[float] = None) -> FramesResult:
    """Author axes for the frames of ``joints`` (all joints when ``None``) under :data:`FRAMES_SCOPE`.

    Frames are placed as ``consumer`` resolves the joint (its bodies and local poses). ``layer``:
    see :func:`usdjoints.api_edit.edit_layer` (``None`` = the stage's edit target). ``length``
    [stage length] of an axis; by default a fraction of the stage's size. Replaces frames authored
    before in that layer.
    """
    from pxr import Sdf, UsdGeom, Vt

    from ..walker import walk

    edit = edit_layer(stage, layer)
    description = walk(stage, consumer)
    wanted = None if joints is None else {str(p) for p in joints}
    chosen = [j for j in description.joints if wanted is None or j.path in wanted]
    if wanted is not None:
        unknown = sorted(wanted - {j.path for j in chosen})
        if unknown:
            from ..errors import InputError

            raise InputError(unknown[0], "not a joint this stage's walk found", "select joint prims")
    if length is None:
        length = _default_length(stage, description.units.meters_per_unit.value)
    bodies = {b.path: b.world_pose for b in description.bodies}

    names: set[str] = set()
    curves = []
    with Sdf.ChangeBlock():
        remove_prim_spec(edit, FRAMES_SCOPE)
        scope = ensure_prim_spec(edit, FRAMES_SCOPE, Sdf.SpecifierDef, "Scope")
        for joint in chosen:
            name = _unique(Sdf.Path(joint.path), names)
            path = f"{FRAMES_SCOPE}/{name}"
            frame0 = _matrix(joint.local_pose0) * _body_matrix(bodies, joint.body0)
            frame1 = _matrix(joint.local_pose1) * _body_matrix(bodies, joint.body1)
            points, colors = _frame_lines(frame0, length, _FRAME0_COLORS)
            more_points, more_colors = _frame_lines(frame1, length * _FRAME1_SCALE, _FRAME1_COLORS)
            points += more_points
            colors += more_colors
            if joint.axis in ("X", "Y", "Z"):
                points += _axis_line(frame0, joint.axis, length * _AXIS_SCALE)
                colors.append(_AXIS_COLOR)
            spec = ensure_prim_spec(edit, path, Sdf.SpecifierDef, "BasisCurves")
            set_attribute(spec, UsdGeom.Tokens.points, Sdf.ValueTypeNames.Point3fArray, Vt.Vec3fArray(points))
            set_attribute(spec, UsdGeom.Tokens.curveVertexCounts, Sdf.ValueTypeNames.IntArray,
                          Vt.IntArray([2] * len(colors)))
            set_attribute(spec, UsdGeom.Tokens.type, Sdf.ValueTypeNames.Token, UsdGeom.Tokens.linear,
                          variability=Sdf.VariabilityUniform)
            set_attribute(spec, UsdGeom.Tokens.widths, Sdf.ValueTypeNames.FloatArray,
                          Vt.FloatArray([length * _WIDTH_SCALE]))
            set_attribute(spec, "primvars:displayColor", Sdf.ValueTypeNames.Color3fArray, Vt.Vec3fArray(colors))
            spec.attributes["primvars:displayColor"].SetInfo("interpolation", UsdGeom.Tokens.uniform)
            spec.attributes[UsdGeom.Tokens.widths].SetInfo("interpolation", UsdGeom.Tokens.constant)
            set_attribute(spec, JOINT_ATTRIBUTE, Sdf.ValueTypeNames.String, joint.path,
                          variability=Sdf.VariabilityUniform)
            curves.append(path)
        scope.SetInfo("comment", "usdjoints joint frames: frame 0 saturated, frame 1 pale, axis yellow")
    return FramesResult(FRAMES_SCOPE, tuple(j.path for j in chosen), tuple(curves), float(length),
                        edit.layer.identifier)


def remove_joint_frames(stage, layer=None) -> bool:
    """Remove the frames scope from ``layer`` (default: the edit target); True if there was one."""
    from pxr import Sdf

    edit = edit_layer(stage, layer)
    with Sdf.ChangeBlock():
        return remove_prim_spec(edit, FRAMES_SCOPE)


def toggle_joint_frames(stage, joints: Optional[Iterable[str]] = None, layer=None,
                        consumer: str = "ovphysx") -> Optional[FramesResult]:
    """Remove the frames if ``layer`` holds them, otherwise author them; None after a removal."""
    if remove_joint_frames(stage, layer):
        return None
    return author_joint_frames(stage, joints, layer, consumer)


def _default_length(stage, meters_per_unit: float) -> float:
    from pxr import Gf, Usd, UsdGeom

    cache = UsdGeom.BBoxCache(Usd.TimeCode.Default(), [UsdGeom.Tokens.default_, UsdGeom.Tokens.render])
    extent = Gf.Range3d()
    for prim in stage.GetPseudoRoot().GetChildren():
        if prim.GetPath() != FRAMES_SCOPE:  # frames drawn before must not grow the next ones
            extent.UnionWith(cache.ComputeWorldBound(prim).ComputeAlignedRange())
    if not extent.IsEmpty():
        diagonal = extent.GetSize().GetLength()
        if diagonal > 0:
            return diagonal * _SIZE_OF_STAGE
    return _FALLBACK_LENGTH_M / meters_per_unit


def _matrix(pose):
    from pxr import Gf

    w, x, y, z = pose.orientation
    rotation = Gf.Rotation(Gf.Quatd(w, Gf.Vec3d(x, y, z)))
    return Gf.Matrix4d(rotation, Gf.Vec3d(*pose.position))


def _body_matrix(bodies, path):
    from pxr import Gf

    if path is None:  # a world side: the local pose is already in world space
        return Gf.Matrix4d(1.0)
    return _matrix(bodies[path])


def _frame_lines(frame, length: float, colors) -> tuple[list, list]:
    from pxr import Gf

    origin = frame.Transform(Gf.Vec3d(0.0, 0.0, 0.0))
    points = []
    for axis in range(3):
        tip = Gf.Vec3d(0.0, 0.0, 0.0)
        tip[axis] = length
        points += [Gf.Vec3f(origin), Gf.Vec3f(frame.Transform(tip))]
    return points, list(colors)


def _axis_line(frame, axis: str, length: float) -> list:
    from pxr import Gf

    direction = Gf.Vec3d(0.0, 0.0, 0.0)
    direction["XYZ".index(axis)] = length
    return [Gf.Vec3f(frame.Transform(-direction)), Gf.Vec3f(frame.Transform(direction))]


def _unique(joint_path, taken: set[str]) -> str:
    """A prim name for a joint path, readable and unique within the scope."""
    from pxr import Tf

    base = Tf.MakeValidIdentifier(str(joint_path).strip("/").replace("/", "_")) or "joint"
    name, counter = base, 1
    while name in taken:
        counter += 1
        name = f"{base}_{counter}"
    taken.add(name)
    return name
