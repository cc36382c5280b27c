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
from ..provenance import Resolved, Source


def read_units(stage, consumer: str) -> StageUnits:
    from pxr import UsdGeom, UsdPhysics

    layer = stage.GetRootLayer()
    meters = _metadata(stage, layer, UsdGeom.Tokens.metersPerUnit, UsdGeom.GetStageMetersPerUnit, consumer)
    kilograms = _metadata(stage, layer, "kilogramsPerUnit", UsdPhysics.GetStageKilogramsPerUnit, consumer)
    up_axis = _metadata(stage, layer, UsdGeom.Tokens.upAxis, UsdGeom.GetStageUpAxis, consumer)
    return StageUnits(meters, kilograms, up_axis)


def unit_diagnostics(units: StageUnits) -> list[Diagnostic]:
    """One error per stage metadatum that was unreadable or out of range."""
    out = []
    for key, resolved in (("metersPerUnit", units.meters_per_unit), ("kilogramsPerUnit", units.kilograms_per_unit),
                          ("upAxis", units.up_axis)):
        if resolved.source is Source.INVALID:
            out.append(Diagnostic("error", None, f"stage {key} is unreadable or out of range: it is read as the "
                                  f"fallback {resolved.value!r}", "invalid-stage-units"))
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
