"""Sensors, lights, projectors, plugins and the other elements with no physics meaning.

Each becomes an :class:`usdjoints.convert.ir.Extra` holding the element's XML text, so the
stage keeps it (a round trip back to SDFormat could restore it). Camera sensors and lights also
carry what a USD camera or light needs (:class:`ir.CameraInfo`, :class:`ir.LightInfo`). Values
are read leniently: a field that is not a number is left out (and its XML is still kept), since
no physics depends on it. A sensor's type is checked, though: libsdformat refuses the file when
it is missing or not a type it knows.
"""
from __future__ import annotations

import math

from lxml import etree

from usdjoints.errors import InputError

from .. import ir
from .parse import child_text, number, numbers
from .pose import parse_pose, where


def source(element: etree._Element) -> ir.SourceRef:
    return ir.SourceRef(element.getroottree().docinfo.URL, element.sourceline)


def to_ir_pose(pose) -> ir.Pose:
    return ir.Pose(tuple(pose.position), tuple(pose.orientation))

#: Elements of a link kept as extras.
LINK_EXTRAS = ("sensor", "light", "projector", "plugin", "audio_source", "audio_sink", "particle_emitter",
               "battery")
#: Elements of a joint kept as extras (placed in the child link, where the joint frame moves).
JOINT_EXTRAS = ("sensor", "plugin")
#: Elements of a model kept as extras on the robot prim.
MODEL_EXTRAS = ("plugin", "gripper", "battery", "model_state")
#: Elements of a world kept as extras on the robot prim (physics and gravity are converted).
WORLD_EXTRAS = ("light", "plugin", "actor", "population", "scene", "atmosphere", "spherical_coordinates",
                "gui", "audio", "wind", "magnetic_field", "road", "state", "gravity_model")
#: Sensor types whose image a USD camera can describe (one <camera> child).
CAMERA_SENSORS = ("camera", "depth", "depth_camera", "rgbd", "rgbd_camera", "thermal", "thermal_camera",
                  "wideanglecamera", "wide_angle_camera", "segmentation", "segmentation_camera",
                  "boundingbox", "boundingbox_camera", "logical_camera")
#: The sensor types libsdformat loads (Sensor::Load, each checked with libsdformat 12.3), and
#: air_speed, which libsdformat 13 added with SDFormat 1.10 and PX4's airframes use.
SENSOR_TYPES = frozenset(CAMERA_SENSORS + (
    "air_pressure", "air_speed", "altimeter", "contact", "custom", "force_torque", "navsat", "gps", "gpu_ray",
    "gpu_lidar", "imu", "magnetometer", "multicamera", "ray", "lidar", "rfid", "rfidtag", "sonar",
    "wireless_receiver", "wireless_transmitter"))


def xml_text(element: etree._Element) -> str:
    """The element's XML, without the document's trailing text."""
    return etree.tostring(element, encoding="unicode", with_tail=False)


def _lenient_float(element: etree._Element | None, path: str) -> float | None:
    if element is None:
        return None
    text = child_text(element, path)
    if text is None:
        return None
    try:
        value = number(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _lenient_floats(element: etree._Element | None, path: str, count: int) -> tuple[float, ...] | None:
    if element is None:
        return None
    text = child_text(element, path)
    if text is None:
        return None
    try:
        values = numbers(text)
    except ValueError:
        return None
    if len(values) != count or not all(math.isfinite(v) for v in values):
        return None
    return values


def element_pose(element: etree._Element) -> tuple[ir.Pose | None, str]:
    """The element's own ``<pose>`` (None when absent) and its relative_to ("" when unset)."""
    pose_element = element.find("pose")
    if pose_element is None:
        return None, ""
    pose, relative_to = parse_pose(pose_element)
    return to_ir_pose(pose), relative_to


def read_extra(element: etree._Element, pose: ir.Pose | None, owner: str = "") -> ir.Extra:
    """``element`` as an Extra placed at ``pose`` (in the frame the caller resolved)."""
    tag = element.tag
    kind = element.get("type", "") or ""
    if tag == "sensor" and kind not in SENSOR_TYPES:
        what = f"type '{kind}' is not a sensor type" if element.get("type") is not None else "has no type attribute"
        raise InputError(where(element), f"sensor '{element.get('name', '')}': {what}",
                         "camera, imu, lidar, ... as libsdformat names them")
    camera = light = None
    if tag == "sensor" and kind in CAMERA_SENSORS:
        cameras = element.findall("camera")
        if len(cameras) == 1:
            camera_element = cameras[0]
            camera = _camera(camera_element)
            inner, _ = element_pose(camera_element)
            if inner is not None:
                pose = (pose or ir.IDENTITY).compose(inner)
    elif tag == "light":
        light = _light(element)
    return ir.Extra(tag, element.get("name", "") or "", kind, pose, xml_text(element), source(element), owner,
                    camera, light)


def _camera(element: etree._Element) -> ir.CameraInfo:
    width = _lenient_float(element, "image/width")
    height = _lenient_float(element, "image/height")
    return ir.CameraInfo(
        horizontal_fov=_lenient_float(element, "horizontal_fov"),
        width=int(width) if width is not None and width > 0 else None,
        height=int(height) if height is not None and height > 0 else None,
        near=_lenient_float(element, "clip/near"),
        far=_lenient_float(element, "clip/far"),
    )


def _light(element: etree._Element) -> ir.LightInfo:
    diffuse = element.find("diffuse")
    rgba = None
    if diffuse is not None and diffuse.text:
        try:
            values = numbers(diffuse.text)
        except ValueError:
            values = ()
        if len(values) in (3, 4):
            rgba = values + ((1.0,) if len(values) == 3 else ())
    shadows = child_text(element, "cast_shadows")
    return ir.LightInfo(
        kind=(element.get("type") or "point").strip(),
        diffuse=rgba,
        intensity=_lenient_float(element, "intensity"),
        range=_lenient_float(element, "attenuation/range"),
        direction=_lenient_floats(element, "direction", 3),
        spot_inner=_lenient_float(element, "spot/inner_angle"),
        spot_outer=_lenient_float(element, "spot/outer_angle"),
        cast_shadows=None if shadows is None else shadows.lower() in ("true", "1"),
    )
