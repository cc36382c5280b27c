"""Stage units and up axis with their provenance."""
from __future__ import annotations

from .. import contract
from ..descriptors import StageUnits
from ..provenance import Resolved, Source


def read_units(stage, consumer: str) -> StageUnits:
    from pxr import UsdGeom

    layer = stage.GetRootLayer()
    meters = _metadata(stage, layer, UsdGeom.Tokens.metersPerUnit, UsdGeom.GetStageMetersPerUnit(stage), consumer)
    kilograms = _metadata(stage, layer, "kilogramsPerUnit", _kilograms_per_unit(stage), consumer)
    up_axis = _metadata(stage, layer, UsdGeom.Tokens.upAxis, str(UsdGeom.GetStageUpAxis(stage)), consumer)
    return StageUnits(meters, kilograms, up_axis)


def _kilograms_per_unit(stage) -> float:
    from pxr import UsdPhysics

    return float(UsdPhysics.GetStageKilogramsPerUnit(stage))


def _metadata(stage, layer, key: str, value, consumer: str) -> Resolved:
    fallback = contract.registry.raw_fallback(contract.registry.STAGE_OWNER, key)
    parser_default = contract.parser_default(consumer, contract.registry.STAGE_OWNER, key)
    producer = contract.producer_value(contract.registry.STAGE_OWNER, key)
    authored = stage.HasAuthoredMetadata(key)
    source = Source.AUTHORED if authored else Source.FALLBACK
    return Resolved(value, source, fallback, parser_default, producer)
