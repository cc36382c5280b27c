"""Authors the IR's extras (sensors, lights, projectors, plugins...) and the world's scene settings.

Extras: each is one child prim of the prim that holds it (a link, or the robot prim for model
and world elements), named ``<tag>_<name>``:

* a camera sensor with one ``<camera>`` is a ``UsdGeom.Camera``. SDFormat cameras look along
  +X with +Z up, USD cameras along -Z with +Y up, so the prim's orientation is the sensor pose
  times the fixed rotation taking USD's camera axes onto SDFormat's. The focal length follows
  from the horizontal field of view (default 1.047 rad) at USD's default horizontal aperture,
  the vertical aperture from the image's aspect ratio; the clip range is ``clippingRange``.
* a ``<light>`` is a UsdLux light: directional -> DistantLight, point -> SphereLight
  (treatAsPoint), spot -> SphereLight with ShapingAPI (cone angle = outer angle, softness from
  the inner one). UsdLux lights shine along -Z: the light's direction (default 0 0 -1) is turned
  onto it. Colour is the diffuse colour; intensity the SDFormat intensity (a scale, not nits).
* anything else is an Xform at the element's pose.

Every one carries string attributes ``sdformat:element`` (the tag), ``sdformat:name``,
``sdformat:type`` and ``sdformat:xml`` (the element's XML text, so it can be restored).
"""
from __future__ import annotations

import math

import numpy as np
from pxr import Gf, Sdf, Usd, UsdGeom, UsdLux

from .ir import IDENTITY, Extra, Pose, RobotIR, quat_multiply
from .mass import matrix_to_quat
from .names import unique_child_name
from .report import EntryKind, Notes

#: USD's default horizontal aperture [tenths of a scene unit] (UsdGeom.Camera).
HORIZONTAL_APERTURE = 20.955
#: SDFormat's default horizontal field of view [rad].
DEFAULT_FOV = 1.047
#: Rotation taking USD camera axes (view -Z, up +Y, right +X) onto SDFormat's (view +X, up +Z, right -Y).
_CAMERA_AXES = matrix_to_quat(np.array([[0.0, 0.0, -1.0], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]))


def write_extras(stage: Usd.Stage, parent: Sdf.Path, extras, used: set[str], notes: Notes, park=None) -> None:
    """``park``: called with each extra's path once it is written (BatchedStage.park)."""
    for index, extra in enumerate(extras):
        label = f"{extra.tag}_{extra.name}" if extra.name else f"{extra.tag}_{index}"
        path = parent.AppendChild(unique_child_name(label, used))
        pose = extra.pose or IDENTITY
        if extra.camera is not None:
            prim = _camera(stage, path, extra, pose)
        elif extra.light is not None:
            prim = _light(stage, path, extra, pose, notes)
        else:
            xform = UsdGeom.Xform.Define(stage, path)
            _place(xform, pose)
            prim = xform.GetPrim()
        if extra.name and prim.GetName() != extra.name:
            prim.SetDisplayName(extra.name)
        for key, value in (("element", extra.tag), ("name", extra.name), ("type", extra.type),
                           ("owner", extra.owner), ("xml", extra.xml)):
            if value or key in ("element", "name", "xml"):
                prim.CreateAttribute(f"sdformat:{key}", Sdf.ValueTypeNames.String, custom=True).Set(value)
        if park is not None:
            park(path)


def _place(xformable: UsdGeom.Xformable, pose: Pose) -> None:
    xformable.AddTranslateOp(UsdGeom.XformOp.PrecisionDouble).Set(Gf.Vec3d(*pose.position))
    xformable.AddOrientOp(UsdGeom.XformOp.PrecisionDouble).Set(Gf.Quatd(*pose.orientation))


def _camera(stage, path, extra: Extra, pose: Pose) -> Usd.Prim:
    camera = UsdGeom.Camera.Define(stage, path)
    _place(camera, Pose(pose.position, quat_multiply(pose.orientation, _CAMERA_AXES)))
    info = extra.camera
    fov = info.horizontal_fov if info.horizontal_fov and 0.0 < info.horizontal_fov < math.pi else DEFAULT_FOV
    camera.CreateHorizontalApertureAttr(HORIZONTAL_APERTURE)
    camera.CreateFocalLengthAttr(HORIZONTAL_APERTURE / (2.0 * math.tan(fov / 2.0)))
    if info.width and info.height:
        camera.CreateVerticalApertureAttr(HORIZONTAL_APERTURE * info.height / info.width)
    if info.near is not None and info.far is not None and 0.0 < info.near < info.far:
        camera.CreateClippingRangeAttr(Gf.Vec2f(info.near, info.far))
    return camera.GetPrim()


def _rotation_z_onto_minus(direction) -> tuple[float, float, float, float]:
    """The shortest rotation taking -Z onto ``direction``."""
    d = np.asarray(direction, float)
    norm = float(np.linalg.norm(d))
    if norm == 0.0:
        return (1.0, 0.0, 0.0, 0.0)
    d = d / norm
    source = np.array([0.0, 0.0, -1.0])
    dot = float(source @ d)
    if dot < -1.0 + 1e-12:
        return (0.0, 1.0, 0.0, 0.0)  # 180 degrees about X
    axis = np.cross(source, d)
    q = np.array([1.0 + dot, *axis])
    q /= np.linalg.norm(q)
    return tuple(float(v) for v in q)


def _light(stage, path, extra: Extra, pose: Pose, notes: Notes) -> Usd.Prim:
    info = extra.light
    kind = info.kind
    if kind == "directional":
        light = UsdLux.DistantLight.Define(stage, path)
    else:
        light = UsdLux.SphereLight.Define(stage, path)
        light.CreateTreatAsPointAttr(True)
        if kind not in ("point", "spot"):
            notes.add(EntryKind.WARNING, str(extra.source), f"light {extra.name!r}",
                      f"unknown light type '{kind}': written as a point light")
    if kind in ("directional", "spot"):
        pose = Pose(pose.position, quat_multiply(pose.orientation, _rotation_z_onto_minus(info.direction or (0, 0, -1))))
    _place(light, pose)
    if kind == "spot" and info.spot_outer is not None:
        shaping = UsdLux.ShapingAPI.Apply(light.GetPrim())
        shaping.CreateShapingConeAngleAttr(math.degrees(info.spot_outer))
        if info.spot_inner is not None and info.spot_outer > 0.0:
            shaping.CreateShapingConeSoftnessAttr(max(0.0, min(1.0, 1.0 - info.spot_inner / info.spot_outer)))
    if info.diffuse is not None:
        light.CreateColorAttr(Gf.Vec3f(*(max(0.0, min(1.0, c)) for c in info.diffuse[:3])))
    light.CreateIntensityAttr(1.0 if info.intensity is None else float(info.intensity))
    return light.GetPrim()


def write_scene(stage: Usd.Stage, scene, robot: RobotIR, notes: Notes) -> None:
    """Gravity and step rate of an SDFormat world on the PhysicsScene (else the writer's -Z 9.81)."""
    world = robot.world
    gravity = None if world is None else world.gravity
    if gravity is None:
        scene.CreateGravityDirectionAttr(Gf.Vec3f(0.0, 0.0, -1.0))
        scene.CreateGravityMagnitudeAttr(9.81)
    else:
        magnitude = math.sqrt(sum(g * g for g in gravity))
        # zero gravity: a direction must still be given; magnitude 0 (not the -inf "use default")
        direction = (0.0, 0.0, -1.0) if magnitude == 0.0 else tuple(g / magnitude for g in gravity)
        scene.CreateGravityDirectionAttr(Gf.Vec3f(*direction))
        scene.CreateGravityMagnitudeAttr(float(magnitude))
    if world is None:
        return
    prim = scene.GetPrim()
    if world.max_step_size is not None:
        rate = 1.0 / world.max_step_size
        prim.AddAppliedSchema("PhysxSceneAPI")
        prim.CreateAttribute("physxScene:timeStepsPerSecond", Sdf.ValueTypeNames.UInt).Set(max(1, int(round(rate))))
        prim.CreateAttribute("sdformat:max_step_size", Sdf.ValueTypeNames.Double, custom=True).Set(world.max_step_size)
        if abs(round(rate) - rate) > 1e-9 * rate:
            notes.add(EntryKind.WARNING, str(world.source), "world physics max_step_size",
                      f"{world.max_step_size} s is written as {max(1, int(round(rate)))} steps per second")
    if world.real_time_factor is not None:
        prim.CreateAttribute("sdformat:real_time_factor", Sdf.ValueTypeNames.Double, custom=True).Set(
            world.real_time_factor)
    if world.physics_type is not None:
        prim.CreateAttribute("sdformat:physics_type", Sdf.ValueTypeNames.String, custom=True).Set(world.physics_type)
