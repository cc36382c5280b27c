"""The column contract as data: per column of every joint-relevant schema, its raw fallback
(read live from the schema registry), what USD population writes, and what each consumer
(``ovphysx``, ``usdphysics``, ``usdjoints``) assumes when the column is absent.
"""
from __future__ import annotations

from .index import (
    column,
    columns_for,
    divergences,
    known_owners,
    parser_default,
    producer_value,
)
from .markers import FLT_MAX, Marker, UnitsScaled
from .registry import UnknownSchemaProperty, raw_fallback
from .types import CONSUMERS, ColumnSpec, ConsumerProfile, Divergence, Producer

__all__ = [
    "CONSUMERS",
    "FLT_MAX",
    "ColumnSpec",
    "ConsumerProfile",
    "Divergence",
    "Marker",
    "Producer",
    "UnitsScaled",
    "UnknownSchemaProperty",
    "column",
    "columns_for",
    "divergences",
    "known_owners",
    "parser_default",
    "producer_value",
    "raw_fallback",
]
