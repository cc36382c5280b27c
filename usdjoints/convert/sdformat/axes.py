"""``//joint/axis`` and ``//joint/axis2``: direction, limits, dynamics and mimic, as written.

A value the file does not write is ``None`` (the spec default applies, see ``SDFORMAT_DEFAULTS``).
SDFormat up to 1.9 spells "no position limit" +-1e16 and "no effort/velocity limit" -1, 1.10+
spells both as infinities: a written bound of magnitude >= 1e16 and a negative effort or
velocity become ``+-inf`` here, whatever the version. The direction is always resolved, since
``expressed_in`` and ``use_parent_model_frame`` make it depend on other frames.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from lxml import etree

from usdjoints.errors import InputError

from .frames import FrameGraph
from .parse import child_bool, child_text, number
from .pose import parse_floats, where
from .scope import Decl


@dataclass(frozen=True)
class Mimic:
    """follower = multiplier * (leader - reference) + offset; ``axis`` is 0 (axis) or 1 (axis2).

    None = not written (the spec's defaults are 1, 0 and 0).
    """

    joint: str
    axis: int
    multiplier: float | None
    offset: float | None
    reference: float | None
    where: str


@dataclass(frozen=True)
class SdfAxis:
    """One joint axis. ``xyz`` is the unit direction in the joint's scope frame (model frame).

    Limits are [rad] or [m], effort [N·m] or [N], velocity [rad/s] or [m/s]; None = not written. ``stiffness``/``dissipation`` are the limit's spring-damper; damping [N·m·s/rad],
    friction [N·m], spring_reference [rad], spring_stiffness [N·m/rad].
    """

    xyz: tuple[float, float, float]
    lower: float | None
    upper: float | None
    effort: float | None
    velocity: float | None
    limit_stiffness: float | None
    limit_dissipation: float | None
    damping: float | None
    friction: float | None
    spring_reference: float | None
    spring_stiffness: float | None
    mimic: Mimic | None
    where: str


#: Limits SDFormat <= 1.9 uses to mean "no limit".
_UNBOUNDED_BELOW_1_10 = 1e16


def read_axis(graph: FrameGraph, joint: Decl, tag: str) -> SdfAxis | None:
    """The ``tag`` ("axis" or "axis2") of ``joint``, or None when the element is absent.

    Read once per graph (the document's validation reads every axis, the IR building again)."""
    key = (id(joint), tag)
    known = graph.axes.get(key)
    if known is not None and known[0] is joint:
        return known[1]
    axis = _read_axis(graph, joint, tag)
    graph.axes[key] = (joint, axis)  # the declaration is kept: its id stays its own
    return axis


def _read_axis(graph: FrameGraph, joint: Decl, tag: str) -> SdfAxis | None:
    element = joint.element.find(tag)
    if element is None:
        return None
    return SdfAxis(
        xyz=_direction(graph, joint, element, default=(0.0, 0.0, 1.0) if tag == "axis" else (0.0, 1.0, 0.0)),
        lower=_limit_value(element, "lower"),
        upper=_limit_value(element, "upper"),
        effort=_unlimited_if_negative(_limit_value(element, "effort")),
        velocity=_unlimited_if_negative(_limit_value(element, "velocity")),
        limit_stiffness=_limit_value(element, "stiffness"),
        limit_dissipation=_limit_value(element, "dissipation"),
        damping=_number(element, "dynamics/damping", None),
        friction=_number(element, "dynamics/friction", None),
        spring_reference=_number(element, "dynamics/spring_reference", None),
        spring_stiffness=_number(element, "dynamics/spring_stiffness", None),
        mimic=_mimic(element),
        where=where(element),
    )


def _direction(graph: FrameGraph, joint: Decl, axis: etree._Element, default) -> tuple[float, float, float]:
    xyz_element = axis.find("xyz")
    xyz = default if xyz_element is None else parse_floats(xyz_element, 3)
    expressed_in = "" if xyz_element is None else xyz_element.get("expressed_in", "")
    if joint.version < (1, 7):
        # 1.4 always meant the model frame; 1.5 and 1.6 let use_parent_model_frame choose
        if child_bool(axis, "use_parent_model_frame", joint.version < (1, 5)):
            expressed_in = "__model__"
    if not all(math.isfinite(c) for c in xyz):
        raise InputError(where(xyz_element), f"the axis of joint '{joint.name}' is not finite", "give a finite xyz")
    norm = math.hypot(*xyz)  # hypot: no overflow for 1e308, no underflow for 1e-200
    if norm == 0.0:
        raise InputError(where(xyz_element if xyz_element is not None else axis),
                         f"the axis of joint '{joint.name}' has zero length", "give a nonzero xyz")
    frame = joint.name if not expressed_in else (joint.model_alias if expressed_in == "__model__" else expressed_in)
    if not graph.exists(frame):
        raise InputError(where(xyz_element), f"expressed_in '{expressed_in}' of joint '{joint.name}' names no frame")
    d = graph.pose(frame).rotate(tuple(c / norm for c in xyz))
    return d


def _limit_value(axis: etree._Element, tag: str) -> float | None:
    limit = axis.find("limit")
    value = _number(limit, tag, None) if limit is not None else None
    if value is not None and tag in ("lower", "upper") and abs(value) >= _UNBOUNDED_BELOW_1_10:
        return math.copysign(math.inf, value)
    return value


def _unlimited_if_negative(value: float | None) -> float | None:
    return math.inf if value is not None and value < 0 else value


def _number(element: etree._Element, path: str, default: float | None) -> float | None:
    text = child_text(element, path)
    if text is None:
        return default
    try:
        return number(text)
    except ValueError as e:
        raise InputError(where(element.find(path)), f"<{path}> holds '{text}', which is not a number") from e


def _mimic(axis: etree._Element) -> Mimic | None:
    element = axis.find("mimic")
    if element is None:
        return None
    leader = element.get("joint", "")
    if not leader:
        raise InputError(where(element), "<mimic> needs a joint attribute naming the leader joint")
    axis_name = element.get("axis", "axis")
    if axis_name not in ("axis", "axis2"):
        raise InputError(where(element), f"<mimic axis='{axis_name}'> must be 'axis' or 'axis2'")
    return Mimic(leader, 0 if axis_name == "axis" else 1, _number(element, "multiplier", None),
                 _number(element, "offset", None), _number(element, "reference", None), where(element))
