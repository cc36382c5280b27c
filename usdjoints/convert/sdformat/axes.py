"""``//joint/axis`` and ``//joint/axis2``: direction, limits, dynamics and mimic, as written.

Defaults follow the file's version: SDFormat up to 1.9 writes "no limit" as +-1e16 and "no
effort/velocity limit" as -1; 1.10+ use infinities. Negative effort and velocity mean unlimited
in every version, so both become ``inf`` here.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from lxml import etree

from usdjoints.errors import InputError

from .frames import FrameGraph
from .parse import child_bool, child_text
from .pose import parse_floats, where
from .scope import Decl


@dataclass(frozen=True)
class Mimic:
    """follower = multiplier * (leader - reference) + offset; ``axis`` is 0 (axis) or 1 (axis2)."""

    joint: str
    axis: int
    multiplier: float
    offset: float
    reference: float
    where: str


@dataclass(frozen=True)
class SdfAxis:
    """One joint axis. ``xyz`` is the unit direction in the joint's scope frame (model frame).

    Limits are [rad] or [m], effort [N·m] or [N], velocity [rad/s] or [m/s]; a missing limit is
    ``+-inf``. ``stiffness``/``dissipation`` are the limit's spring-damper; damping [N·m·s/rad],
    friction [N·m], spring_reference [rad], spring_stiffness [N·m/rad].
    """

    xyz: tuple[float, float, float]
    lower: float
    upper: float
    effort: float
    velocity: float
    limit_stiffness: float
    limit_dissipation: float
    damping: float
    friction: float
    spring_reference: float
    spring_stiffness: float
    mimic: Mimic | None
    where: str


#: Limits SDFormat <= 1.9 uses to mean "no limit".
_UNBOUNDED_BELOW_1_10 = 1e16


def read_axis(graph: FrameGraph, joint: Decl, tag: str) -> SdfAxis | None:
    """The ``tag`` ("axis" or "axis2") of ``joint``, or None when the element is absent."""
    element = joint.element.find(tag)
    if element is None:
        return None
    return SdfAxis(
        xyz=_direction(graph, joint, element, default=(0.0, 0.0, 1.0) if tag == "axis" else (0.0, 1.0, 0.0)),
        lower=_limit_value(element, "lower", -math.inf),
        upper=_limit_value(element, "upper", math.inf),
        effort=_unlimited_if_negative(_limit_value(element, "effort", math.inf)),
        velocity=_unlimited_if_negative(_limit_value(element, "velocity", math.inf)),
        limit_stiffness=_limit_value(element, "stiffness", 1e8),
        limit_dissipation=_limit_value(element, "dissipation", 1.0),
        damping=_number(element, "dynamics/damping", 0.0),
        friction=_number(element, "dynamics/friction", 0.0),
        spring_reference=_number(element, "dynamics/spring_reference", 0.0),
        spring_stiffness=_number(element, "dynamics/spring_stiffness", 0.0),
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
    norm = math.sqrt(sum(c * c for c in xyz))
    if norm == 0.0:
        raise InputError(where(xyz_element if xyz_element is not None else axis),
                         f"the axis of joint '{joint.name}' has zero length", "give a nonzero xyz")
    frame = joint.name if not expressed_in else (joint.model_alias if expressed_in == "__model__" else expressed_in)
    if not graph.exists(frame):
        raise InputError(where(xyz_element), f"expressed_in '{expressed_in}' of joint '{joint.name}' names no frame")
    d = graph.pose(frame).rotate(tuple(c / norm for c in xyz))
    return d


def _limit_value(axis: etree._Element, tag: str, default: float) -> float:
    limit = axis.find("limit")
    value = _number(limit, tag, default) if limit is not None else default
    if tag in ("lower", "upper") and abs(value) >= _UNBOUNDED_BELOW_1_10:
        return math.copysign(math.inf, value)
    return value


def _unlimited_if_negative(value: float) -> float:
    return math.inf if value < 0 else value


def _number(element: etree._Element, path: str, default: float) -> float:
    text = child_text(element, path)
    if text is None:
        return default
    try:
        return float(text)
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
    return Mimic(leader, 0 if axis_name == "axis" else 1, _number(element, "multiplier", 1.0),
                 _number(element, "offset", 0.0), _number(element, "reference", 0.0), where(element))
