"""The one way the contract tables build a :class:`ColumnSpec`.

Every attribute's default producer is the resolved USD value and every consumer's default is
given explicitly per consumer: ``ovphysx`` (the value its parser uses when the column is absent
from its input), ``usdphysics`` (the descriptor value OpenUSD's parser keeps when the
attribute's value is blocked; an unauthored attribute reads the schema fallback there) and
``usdjoints`` (always the schema fallback: absent means unauthored).
"""
from __future__ import annotations

from typing import Any, Optional

from .markers import Marker
from .types import ColumnSpec, Divergence, Producer


def attribute(
    owner: str,
    name: str,
    value_type: str,
    units: str,
    *,
    ovphysx: Any,
    usdphysics: Any,
    if_absent: str,
    page: str,
    usdjoints: Any = Marker.FALLBACK,
    producer: Any = Producer.RESOLVED,
    conversion: Optional[str] = None,
    divergences: tuple[Divergence, ...] = (),
    kind: str = "attribute",
) -> ColumnSpec:
    """A column with a value: an attribute or a metadata field."""
    return ColumnSpec(
        owner=owner,
        name=name,
        value_type=value_type,
        units=units,
        producer=producer,
        parser_defaults={"ovphysx": ovphysx, "usdphysics": usdphysics, "usdjoints": usdjoints},
        if_absent=if_absent,
        kind=kind,
        conversion=conversion,
        page=page,
        divergences=divergences,
    )


def relationship(
    owner: str,
    name: str,
    *,
    if_absent: str,
    page: str,
    usdphysics: Any = None,
    divergences: tuple[Divergence, ...] = (),
) -> ColumnSpec:
    """A relationship column: published only when authored; absent means no target."""
    return ColumnSpec(
        owner=owner,
        name=name,
        value_type="rel",
        units="",
        producer=Producer.NOT_WRITTEN,
        parser_defaults={"ovphysx": None, "usdphysics": usdphysics, "usdjoints": None},
        if_absent=if_absent,
        kind="relationship",
        page=page,
        divergences=divergences,
    )
