"""The physics scene as each consumer reads it: the gravity vector, with provenance."""
from __future__ import annotations

import math

from ..descriptors import SceneDesc, StageUnits
from ..provenance import Resolved, Source
from .values import SchemaValues

EARTH_GRAVITY = 9.81  # [m/s^2]: what a magnitude of -inf (the schema fallback) stands for
_AXES = {"X": (1.0, 0.0, 0.0), "Y": (0.0, 1.0, 0.0), "Z": (0.0, 0.0, 1.0)}
_DIRECTION, _MAGNITUDE = "physics:gravityDirection", "physics:gravityMagnitude"


def read_scene(stage, scene_paths: list[str], units: StageUnits, values: SchemaValues) -> SceneDesc:
    """The first PhysicsScene of the stage (PhysX, OpenUSD's parser for its first scene, and
    usdjoints all simulate with it); ``values`` reads its columns and keeps their diagnostics."""
    up = _AXES.get(units.up_axis.value, _AXES["Z"])
    against_up = tuple(-c for c in up)
    mpu = float(units.meters_per_unit.value)
    if not scene_paths:
        fallback_direction = Resolved((0.0, 0.0, 0.0), Source.MISSING, (0.0, 0.0, 0.0))
        fallback_magnitude = Resolved(-math.inf, Source.MISSING, -math.inf)
        return SceneDesc(None, fallback_direction, fallback_magnitude, _times(against_up, EARTH_GRAVITY / mpu))
    prim = stage.GetPrimAtPath(scene_paths[0])
    direction = _resolved(prim, _DIRECTION, values)
    magnitude = _resolved(prim, _MAGNITUDE, values)
    vector = tuple(float(c) for c in direction.value)
    if not all(math.isfinite(c) for c in vector):
        unit = (math.nan,) * 3
    else:
        largest = max(abs(c) for c in vector)
        if largest > 0.0:
            scaled = tuple(c / largest for c in vector)  # no overflow in the norm
            norm = math.sqrt(sum(c * c for c in scaled))
            unit = tuple(c / norm for c in scaled)
        else:
            unit = against_up
    value = float(magnitude.value)
    # -inf: earth gravity in stage units; a NaN stays NaN (no consumer reads it as earth gravity)
    size = value if (value > -0.5e38 or math.isnan(value)) else EARTH_GRAVITY / mpu
    return SceneDesc(scene_paths[0], direction, magnitude, _times(unit, size), tuple(scene_paths))


def _times(vector, factor: float):
    with_overflow = []
    for c in vector:
        try:
            with_overflow.append(c * factor + 0.0)  # no negative zero
        except OverflowError:
            with_overflow.append(math.copysign(math.inf, c))
    return tuple(with_overflow)


def _resolved(prim, name: str, values: SchemaValues) -> Resolved:
    definition = prim.GetPrimDefinition()
    fallback = definition.GetAttributeFallbackValue(name)
    fallback = tuple(fallback) if hasattr(fallback, "__len__") else fallback
    value = values.value(prim, name)
    attribute = prim.GetAttribute(name)
    path = prim.GetPath().pathString
    if any(d.prim == path and d.attribute == name for d in values.diagnostics):
        source = Source.INVALID
    elif attribute and attribute.HasAuthoredValue():
        source = Source.AUTHORED
    else:
        source = Source.FALLBACK
    if hasattr(value, "__len__"):
        value = tuple(float(c) for c in value)
    return Resolved(value, source, fallback)


def unsupported_bodies(bodies, colliders, consumer: str) -> list:
    """A ``no-mass-no-collider`` warning for each dynamic body that authors no mass and owns no
    collider: PhysX (and usdjoints, which reads as PhysX does) simulate it with the 1 kg and the
    0.1 m sphere's inertia PhysX makes up (measured with ovphysx 0.7: it falls under gravity);
    OpenUSD's parser reports it with no mass at all."""
    from ..descriptors import Diagnostic
    from ..profiles import PROFILES

    if not PROFILES[consumer].computes_mass:
        return []
    owners = {c.body for c in colliders if c.body is not None}
    out = []
    for body in bodies:
        if not body.dynamic or body.path in owners:
            continue
        mass = body.columns.get("physics:mass")
        if mass is not None and mass.value is not None and float(mass.value) > 0.0:
            continue
        out.append(Diagnostic(
            "warning", body.path, "dynamic body with no mass and no collider: PhysX simulates it with 1 kg (one "
            "stage mass unit) and the inertia of a 0.1 m sphere, so it falls under gravity", "no-mass-no-collider"))
    return out
