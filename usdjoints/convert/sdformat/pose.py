"""Rigid transforms as SDFormat writes them, and the parsing of ``<pose>`` elements.

A :class:`Pose` ``X_A_B`` is the pose of frame B expressed in frame A: a position [m] and a unit
quaternion ``(w, x, y, z)``. ``X_A_B.compose(X_B_C)`` is ``X_A_C``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from lxml import etree

from usdjoints.errors import InputError
from usdjoints.convert.float32 import beyond_float32, overflow_message
from usdjoints.units import deg_to_rad

from .parse import numbers


@dataclass(frozen=True)
class Pose:
    """Pose of a frame in another: ``position`` [m], ``orientation`` (w, x, y, z)."""

    position: tuple[float, float, float] = (0.0, 0.0, 0.0)
    orientation: tuple[float, float, float, float] = (1.0, 0.0, 0.0, 0.0)

    def rotate(self, v: tuple[float, float, float]) -> tuple[float, float, float]:
        """The vector ``v`` rotated by this pose's orientation."""
        w, x, y, z = self.orientation
        # v' = v + 2w (q x v) + 2 q x (q x v), with q the vector part
        cx = y * v[2] - z * v[1]
        cy = z * v[0] - x * v[2]
        cz = x * v[1] - y * v[0]
        return (
            v[0] + 2.0 * (w * cx + y * cz - z * cy),
            v[1] + 2.0 * (w * cy + z * cx - x * cz),
            v[2] + 2.0 * (w * cz + x * cy - y * cx),
        )

    def compose(self, other: "Pose") -> "Pose":
        """``self * other``: the pose ``other`` (given in this frame) expressed in our parent."""
        p = self.rotate(other.position)
        return Pose(
            (self.position[0] + p[0], self.position[1] + p[1], self.position[2] + p[2]),
            _quat_mul(self.orientation, other.orientation),
        )

    def inverse(self) -> "Pose":
        w, x, y, z = self.orientation
        conj = Pose((0.0, 0.0, 0.0), (w, -x, -y, -z))
        p = conj.rotate(self.position)
        return Pose((-p[0], -p[1], -p[2]), conj.orientation)

    @staticmethod
    def from_rpy(xyz: tuple[float, float, float], rpy: tuple[float, float, float]) -> "Pose":
        """Fixed-axis roll, pitch, yaw [rad] (R = Rz(yaw) Ry(pitch) Rx(roll)), as SDFormat uses."""
        hr, hp, hy = rpy[0] / 2.0, rpy[1] / 2.0, rpy[2] / 2.0
        cr, sr = math.cos(hr), math.sin(hr)
        cp, sp = math.cos(hp), math.sin(hp)
        cy, sy = math.cos(hy), math.sin(hy)
        quat = (
            cr * cp * cy + sr * sp * sy,
            sr * cp * cy - cr * sp * sy,
            cr * sp * cy + sr * cp * sy,
            cr * cp * sy - sr * sp * cy,
        )
        return Pose(xyz, quat)


IDENTITY = Pose()


def _quat_mul(a, b):
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (
        aw * bw - ax * bx - ay * by - az * bz,
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
    )


def where(element: etree._Element) -> str:
    """``file:line`` of an element, for error messages."""
    return f"{element.getroottree().docinfo.URL}:{element.sourceline}"


def parse_floats(element: etree._Element, count: int | None, text: str | None = None) -> tuple[float, ...]:
    """The whitespace-separated numbers of an element; ``count`` of them when given."""
    raw = (element.text if text is None else text) or ""
    try:
        values = numbers(raw)
    except ValueError as e:
        shown = raw.strip() if raw.isascii() else ascii(raw.strip())[1:-1]  # a no-break space shows as \xa0
        raise InputError(where(element), f"<{element.tag}> holds '{shown}', which is not a list of numbers") from e
    if count is not None and len(values) != count:
        raise InputError(where(element), f"<{element.tag}> needs {count} numbers, found {len(values)}")
    return values


def parse_pose(element: etree._Element | None) -> tuple[Pose, str]:
    """A ``<pose>`` element -> (pose, relative_to name; "" when the default applies).

    Honours ``@degrees`` and ``@rotation_format`` (``euler_rpy`` or ``quat_xyzw``); an empty
    element is the identity.
    """
    if element is None:
        return IDENTITY, ""
    relative_to = element.get("relative_to", "")
    rotation_format = element.get("rotation_format", "euler_rpy")
    degrees = element.get("degrees", "false").strip().lower() in ("true", "1")
    values = parse_floats(element, None)
    if not all(math.isfinite(v) for v in values):
        raise InputError(where(element), f"<pose> holds '{' '.join((element.text or '').split())}', which is not "
                         "finite", "write finite numbers")
    if beyond_float32(values):  # a joint frame's position is a float3
        raise InputError(where(element), overflow_message(f"<{element.tag}>"))
    if not values:
        return IDENTITY, relative_to
    if rotation_format == "euler_rpy":
        if len(values) != 6:
            raise InputError(where(element), f"<pose> needs 6 numbers (x y z roll pitch yaw), found {len(values)}")
        rpy = values[3:6]
        if degrees:
            rpy = tuple(deg_to_rad(a) for a in rpy)
        return Pose.from_rpy(values[0:3], rpy), relative_to
    if rotation_format == "quat_xyzw":
        if len(values) != 7:
            raise InputError(where(element), f"<pose rotation_format='quat_xyzw'> needs 7 numbers, found {len(values)}")
        if degrees:
            raise InputError(where(element), "degrees='true' cannot be used with rotation_format='quat_xyzw'")
        x, y, z, w = values[3:7]
        norm = math.sqrt(w * w + x * x + y * y + z * z)
        if norm == 0.0:
            raise InputError(where(element), "the quaternion of this <pose> has zero length")
        # vectors rotate by q v q^-1 either way; normalising only removes rounding in the text
        return Pose(values[0:3], (w / norm, x / norm, y / norm, z / norm)), relative_to
    raise InputError(where(element), f"unknown rotation_format '{rotation_format}'", "use euler_rpy or quat_xyzw")
