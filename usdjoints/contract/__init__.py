"""The column contract as data: per column of every joint-relevant schema, its raw fallback
(read live from the schema registry), what USD population writes, and what each consumer
(``ovphysx``, ``usdphysics``, ``usdjoints``) assumes when the column is absent.

Names load on first use: ``from usdjoints.contract.types import CONSUMERS`` (the command line's
help text) must not build the whole contract index, which pulls in numpy.
"""
from __future__ import annotations

from .._lazy import lazy_exports

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

_LAZY = {
    "column": ".index",
    "columns_for": ".index",
    "divergences": ".index",
    "known_owners": ".index",
    "parser_default": ".index",
    "producer_value": ".index",
    "FLT_MAX": ".markers",
    "Marker": ".markers",
    "UnitsScaled": ".markers",
    "UnknownSchemaProperty": ".registry",
    "raw_fallback": ".registry",
    "CONSUMERS": ".types",
    "ColumnSpec": ".types",
    "ConsumerProfile": ".types",
    "Divergence": ".types",
    "Producer": ".types",
}

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__)
