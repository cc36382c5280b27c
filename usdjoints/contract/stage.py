"""The stage-unit columns: layer metadata every length, mass and gravity default depends on.

Metadata cannot be blocked, so for OpenUSD's parser and usdjoints "absent" means unauthored and
the fallback applies (``UsdGeom.GetStageMetersPerUnit`` and friends).
"""
from __future__ import annotations

from . import shared_divergences as d
from .columns import attribute
from .markers import Marker

STAGE = "stage"
_PAGE = "stage_units.md"
STAGE_COLUMNS = (
    attribute(
        STAGE, "metersPerUnit", "double", "m per length unit",
        ovphysx=1.0, usdphysics=Marker.FALLBACK, kind="metadata", page=_PAGE,
        conversion="length_to_meters",
        if_absent=(
            "USD's fallback makes a stage unit one centimeter. Values authored as meters on such a "
            "stage are read 100 times too small."
        ),
        divergences=(d.UNITS_ABSENT_SI,),
    ),
    attribute(
        STAGE, "kilogramsPerUnit", "double", "kg per mass unit",
        ovphysx=1.0, usdphysics=Marker.FALLBACK, kind="metadata", page=_PAGE,
        conversion="mass_to_kilograms",
        if_absent="A stage mass unit is one kilogram.",
    ),
    attribute(
        STAGE, "upAxis", "token", "none",
        ovphysx="Z", usdphysics=Marker.FALLBACK, kind="metadata", page=_PAGE,
        if_absent="USD's fallback is Y-up; default gravity points along -upAxis.",
        divergences=(d.UP_AXIS_ABSENT_Z,),
    ),
)
