"""A ``<world>``'s scene settings: gravity and the step size (onto the PhysicsScene), and its extras.

Gravity is ``world/gravity`` (1.5+) or ``world/physics/gravity`` (1.4); unwritten, the spec's
``0 0 -9.8`` applies (reported). Of the ``<physics>`` blocks the one with ``default='true'``, else
the first, is read: ``max_step_size`` [s] becomes the scene's step rate; the solver settings
(ode, bullet, dart, simbody, max_contacts, real_time_update_rate...) have no PhysX equivalent
and are reported by the spec coverage walk. Lights, plugins and the other world elements are
kept as extras placed in the world frame.
"""
from __future__ import annotations

import math

from lxml import etree

from usdjoints.errors import InputError

from .. import ir
from ..report import EntryKind, ReportEntry
from .extras import WORLD_EXTRAS, element_pose, read_extra, source
from .parse import child_text, number
from .pose import parse_floats, where

#: Where SDFormat 1.3 writes the step size (1.4 moved both to max_step_size).
LEGACY_1_3_STEP = ("ode/solver/dt", "bullet/dt")
#: SDFormat's documented world gravity [m/s²].
SPEC_GRAVITY = (0.0, 0.0, -9.8)


def read_world(world: etree._Element, notes: list[ReportEntry]) -> ir.WorldInfo:
    physics_blocks = world.findall("physics")
    physics = next((p for p in physics_blocks if (p.get("default") or "").strip().lower() in ("true", "1")),
                   physics_blocks[0] if physics_blocks else None)
    for other in physics_blocks:
        if other is not physics:
            notes.append(ReportEntry(EntryKind.DROPPED, where(other), "world physics",
                                     f"<physics name='{other.get('name', '')}'> is not the default profile"))
    gravity_element = world.find("gravity")
    if gravity_element is None and physics is not None:
        gravity_element = physics.find("gravity")
    if gravity_element is None:
        gravity = SPEC_GRAVITY
        notes.append(ReportEntry(EntryKind.DEFAULT, where(world), "world gravity",
                                 f"not written; the sdformat default {SPEC_GRAVITY} m/s² is used"))
    else:
        gravity = tuple(parse_floats(gravity_element, 3))
        if not all(math.isfinite(g) for g in gravity):
            raise InputError(where(gravity_element), "<gravity> must hold three finite numbers")
    step = rate = None
    kind = None
    if physics is not None:
        kind = (physics.get("type") or "ode").strip()
        step_path = "max_step_size"
        if child_text(physics, step_path) is None and (world.getroottree().getroot().get("version") or "").strip() == "1.3":
            step_path = next((p for p in LEGACY_1_3_STEP if child_text(physics, p) is not None), step_path)
        text = child_text(physics, step_path)
        if text is not None:
            step = _positive(text, physics.find(step_path))
        text = child_text(physics, "real_time_factor")
        if text is not None:
            rate = _number(text, physics.find("real_time_factor"))
    extras = []
    for element in world:
        if isinstance(element.tag, str) and element.tag in WORLD_EXTRAS:
            pose, relative_to = element_pose(element)
            if relative_to and relative_to != "world":
                notes.append(ReportEntry(EntryKind.WARNING, where(element), f"world <{element.tag}>",
                                         f"pose relative_to '{relative_to}' is written as if relative to the world"))
            extra = read_extra(element, pose, owner="world")
            extras.append(extra)
            label = f"<{extra.tag}> '{extra.name}'"
            holder = "a UsdLux light" if extra.light else "a prim"
            notes.append(ReportEntry(EntryKind.KEPT, str(extra.source), "world",
                                     f"{label} written as {holder} with its XML in the string attribute sdformat:xml"))
    return ir.WorldInfo(gravity=gravity, max_step_size=step, real_time_factor=rate, physics_type=kind,
                        extras=tuple(extras), source=source(world))


def _number(text: str, element: etree._Element) -> float:
    try:
        value = number(text)
    except ValueError as e:
        raise InputError(where(element), f"<{element.tag}> holds '{text}', which is not a number") from e
    if not math.isfinite(value):
        raise InputError(where(element), f"<{element.tag}> must be finite, not {text}")
    return value


def _positive(text: str, element: etree._Element) -> float:
    value = _number(text, element)
    if value <= 0.0:
        raise InputError(where(element), f"<{element.tag}> must be positive, not {text}")
    return value
