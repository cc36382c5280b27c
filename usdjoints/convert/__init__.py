"""Converters from robot description formats (URDF, SDFormat) into UsdPhysics stages."""
from __future__ import annotations

from .api import convert_file, convert_sdformat, convert_urdf
from .report import ConversionReport

__all__ = ["convert_file", "convert_urdf", "convert_sdformat", "ConversionReport"]
