"""The contract as a readable table and as JSON (``usdjoints columns [TYPE_OR_API]``)."""
from __future__ import annotations

import math
from typing import Any, Optional

from ..jsonio import to_jsonable
from . import index
from .markers import FLT_MAX, Marker, UnitsScaled
from .owners import SUMMARIES
from .registry import raw_fallback
from .types import CONSUMERS, ColumnSpec, Producer

SCHEMA = "usdjoints.columns/1"


def format_value(value: Any) -> str:
    """A contract value for a text table: FLT_MAX by name, tuples in parentheses, None as '-'."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (Marker, Producer)):
        return value.value
    if isinstance(value, UnitsScaled):
        return str(value)
    if isinstance(value, float):
        if value == FLT_MAX:
            return "FLT_MAX"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return format(value, "g")
    if isinstance(value, tuple):
        return "(" + ", ".join(format_value(v) for v in value) + ")"
    return str(value)


def _fallback(spec: ColumnSpec) -> Any:
    return raw_fallback(spec.owner, spec.name)


def _producer_rule(spec: ColumnSpec) -> str:
    return spec.producer.value if isinstance(spec.producer, Producer) else "literal"


def _producer_text(spec: ColumnSpec) -> str:
    if isinstance(spec.producer, Producer):
        return spec.producer.value
    return format_value(spec.producer)


def _defaults(owner: str, spec: ColumnSpec) -> dict[str, Any]:
    return {consumer: index.parser_default(consumer, owner, spec.name) for consumer in CONSUMERS}


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    return [line(header), line(["-" * w for w in widths]), *(line(r) for r in rows)]


def _owner_list_text() -> str:
    rows = [
        [owner, str(len(index.columns_for(owner))), SUMMARIES.get(owner, "")]
        for owner in index.known_owners()
    ]
    lines = _table(["TYPE OR API", "COLUMNS", "WHAT IT IS"], rows)
    lines.append("")
    lines.append("`usdjoints columns NAME` shows one of them column by column.")
    return "\n".join(lines) + "\n"


def render_columns_text(owner: Optional[str]) -> str:
    """One type or API column by column (None: the list of every type and API)."""
    if owner is None:
        return _owner_list_text()
    specs = index.columns_for(owner)
    header = ["COLUMN", "TYPE", "UNITS", "FALLBACK", "PRODUCER", *(f"ABSENT:{c}" for c in CONSUMERS)]
    rows = []
    for spec in specs:
        name = spec.name + (" *" if spec.owner != owner else "")
        defaults = _defaults(owner, spec)
        rows.append([
            name, spec.value_type, spec.units or "-", format_value(_fallback(spec)),
            _producer_text(spec), *(format_value(defaults[c]) for c in CONSUMERS),
        ])
    lines = [f"{owner}: {SUMMARIES.get(owner, '')}", ""]
    lines += _table(header, rows) if rows else ["(no columns)"]
    if any(spec.owner != owner for spec in specs):
        lines.append(f"* inherited from {specs[0].owner}")
    lines += [
        "",
        "FALLBACK is the schema's value (read from the schema registry); PRODUCER is what USD "
        "population writes when unauthored; ABSENT:<consumer> is what that consumer uses when "
        "the column is absent (ovphysx: missing from its input; usdphysics: value blocked; "
        "usdjoints: the schema fallback).",
        "",
        "If absent:",
    ]
    lines += [f"  {spec.name}: {spec.if_absent}" for spec in specs]
    pairs = index.divergences(owner)
    if pairs:
        lines += ["", "Divergences:"]
        lines += [f"  {div.kind} ({div.side or 'both'}) {spec.name}: {div.effect} [{div.page}]" for spec, div in pairs]
    return "\n".join(lines) + "\n"


def _column_json(owner: str, spec: ColumnSpec) -> dict[str, Any]:
    return {
        "owner": spec.owner,
        "name": spec.name,
        "kind": spec.kind,
        "inherited": spec.owner != owner,
        "type": spec.value_type,
        "units": spec.units,
        "fallback": _fallback(spec),
        "producer": _producer_text(spec) if isinstance(spec.producer, Producer) else spec.producer,
        "producer_rule": _producer_rule(spec),
        "producer_value": index.producer_value(owner, spec.name),
        "parser_default": {c: (str(v) if isinstance(v, UnitsScaled) else v) for c, v in _defaults(owner, spec).items()},
        "if_absent": spec.if_absent,
        "conversion": spec.conversion,
        "page": spec.page,
        "divergences": [
            {"kind": d.kind, "side": d.side, "effect": d.effect, "page": d.page} for d in spec.divergences
        ],
    }


def columns_json(owner: Optional[str]) -> dict[str, Any]:
    """The contract as JSON data: one owner with its inherited columns, or every owner."""
    if owner is None:
        owners = list(index.known_owners())
        columns = [_column_json(o, spec) for o in owners for spec in index.OWN_COLUMNS[o]]
    else:
        owners = [owner]
        columns = [_column_json(owner, spec) for spec in index.columns_for(owner)]
    return to_jsonable({"schema": SCHEMA, "owners": owners, "columns": columns})
