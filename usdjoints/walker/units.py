"""Stage units and up axis with their provenance.

A layer can hold a metadatum of the wrong type (a corrupt or hand-edited crate: ``upAxis`` as a
token array), which USD refuses to read, or a length or mass unit that is no positive finite
number (0, -1, NaN, inf). Either reads as the schema fallback with :attr:`Source.INVALID` and an
error diagnostic (:func:`unit_diagnostics`), so that nothing downstream divides by zero or scales
by NaN.
"""
from __future__ import annotations

import math

from .. import contract
from ..descriptors import Diagnostic, StageUnits
from ..profiles import PROFILES
from ..provenance import Resolved, Source


def read_units(stage, consumer: str) -> StageUnits:
    from pxr import UsdGeom, UsdPhysics

    layer = stage.GetRootLayer()
    meters = _metadata(stage, layer, UsdGeom.Tokens.metersPerUnit, UsdGeom.GetStageMetersPerUnit, consumer)
    kilograms = _metadata(stage, layer, "kilogramsPerUnit", UsdPhysics.GetStageKilogramsPerUnit, consumer)
    up_axis = _metadata(stage, layer, UsdGeom.Tokens.upAxis, UsdGeom.GetStageUpAxis, consumer)
    return StageUnits(meters, kilograms, up_axis)


def unit_diagnostics(units: StageUnits, stage=None, consumer: str | None = None) -> list[Diagnostic]:
    """One error per stage metadatum that was unreadable or out of range. A consumer whose profile
    lists the metadatum in ``refuses_units`` loads no stage with a readable value out of range
    (``stage`` is read again to tell the two apart): its error says so instead."""
    refuses = _refused_units(stage, consumer)
    out = []
    for key, resolved in (("metersPerUnit", units.meters_per_unit), ("kilogramsPerUnit", units.kilograms_per_unit),
                          ("upAxis", units.up_axis)):
        if resolved.source is not Source.INVALID:
            continue
        authored = refuses.get(key)
        if authored is not None:
            out.append(Diagnostic("error", None, f"stage {key} = {authored:g} is no positive finite number: "
                                  f"{PROFILES[consumer].title} does not load the stage", "invalid-stage-units",
                                  attribute=key))
        else:
            out.append(Diagnostic("error", None, f"stage {key} is unreadable or out of range: it is read as the "
                                  f"fallback {resolved.value!r}", "invalid-stage-units"))
    return out


def _refused_units(stage, consumer) -> dict:
    """The metadata ``consumer`` refuses the stage for, with their readable out-of-range values."""
    if stage is None or consumer is None or not PROFILES[consumer].refuses_units:
        return {}
    from pxr import Tf, UsdGeom, UsdPhysics

    reads = {"metersPerUnit": UsdGeom.GetStageMetersPerUnit, "kilogramsPerUnit": UsdPhysics.GetStageKilogramsPerUnit}
    out = {}
    for key in PROFILES[consumer].refuses_units:
        try:
            value = float(reads[key](stage))
        except Tf.ErrorException:
            continue  # unreadable: not what was measured
        if not (math.isfinite(value) and value > 0.0):
            out[key] = value
    return out


def _metadata(stage, layer, key: str, read, consumer: str) -> Resolved:
    from pxr import Tf

    fallback = contract.registry.raw_fallback(contract.registry.STAGE_OWNER, key)
    parser_default = contract.parser_default(consumer, contract.registry.STAGE_OWNER, key)
    producer = contract.producer_value(contract.registry.STAGE_OWNER, key)
    try:
        authored = stage.HasAuthoredMetadata(key)
        value = read(stage)
    except Tf.ErrorException:
        return Resolved(fallback, Source.INVALID, fallback, parser_default, producer)
    value = str(value) if key == "upAxis" else float(value)
    if key == "upAxis" and value not in ("Y", "Z"):
        return Resolved(fallback, Source.INVALID, fallback, parser_default, producer)
    if key != "upAxis" and not (math.isfinite(value) and value > 0.0):
        return Resolved(fallback, Source.INVALID, fallback, parser_default, producer)
    source = Source.AUTHORED if authored else Source.FALLBACK
    return Resolved(value, source, fallback, parser_default, producer)
