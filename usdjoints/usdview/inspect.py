"""Every column of a joint, side by side for each consumer: value and where it came from."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Optional

from ..profiles import NAMES as CONSUMERS
from ..descriptors import JointDesc
from ..provenance import Resolved


@dataclass(frozen=True)
class ColumnRow:
    """One column of one joint: per consumer, the resolved value (None: the consumer has no such column)."""

    name: str
    values: tuple[Optional[Resolved], ...]

    @property
    def agrees(self) -> bool:
        present = [v.value for v in self.values if v is not None]
        return len(present) == len(self.values) and all(_same(present[0], v) for v in present[1:])


@dataclass(frozen=True)
class JointInspection:
    """A joint as each consumer reads it (None where a consumer does not see it as a joint)."""

    path: str
    consumers: tuple[str, ...]
    joints: tuple[Optional[JointDesc], ...]
    rows: tuple[ColumnRow, ...]


def inspect_joints(stage, paths: Iterable[str], consumers: Iterable[str] = CONSUMERS) -> tuple[JointInspection, ...]:
    """Inspect the joints at ``paths`` of ``stage`` (a ``Usd.Stage`` or a path) for each consumer.

    Paths that no consumer reads as a joint are skipped; the result may be empty.
    """
    from ..walker import open_stage, walk

    stage = open_stage(stage)
    consumers = tuple(consumers)
    descriptions = [walk(stage, consumer) for consumer in consumers]
    found = []
    for path in (str(p) for p in paths):
        joints = tuple(_find(d.joints, path) for d in descriptions)
        if all(j is None for j in joints):
            continue
        found.append(JointInspection(path, consumers, joints, _rows(joints)))
    return tuple(found)


def render_inspection(inspections: Iterable[JointInspection]) -> str:
    """A fixed-width table per joint: type and bodies per consumer, then every column.

    Rows where the consumers disagree are marked with ``*``.
    """
    blocks = []
    for item in inspections:
        header = ["column"] + list(item.consumers)
        table = [
            ["type"] + [j.type if j else "(not a joint)" for j in item.joints],
            ["body0"] + [(j.body0 or "world") if j else "-" for j in item.joints],
            ["body1"] + [(j.body1 or "world") if j else "-" for j in item.joints],
            ["articulation"] + [_articulation(j) for j in item.joints],
        ]
        marks = ["" if len(set(r[1:])) == 1 else "*" for r in table]
        for row in item.rows:
            table.append([row.name] + [_cell(v) for v in row.values])
            marks.append("" if row.agrees else "*")
        widths = [max(len(r[i]) for r in [header] + table) for i in range(len(header))]
        lines = [f"{item.path}   (* = consumers disagree)",
                 "  " + "  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip()]
        for mark, row in zip(marks, table):
            lines.append((mark or " ") + " " + "  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def rows_as_records(item: JointInspection) -> list[Mapping[str, object]]:
    """Rows as plain records for a table widget: column, then per consumer value and source."""
    records = []
    for row in item.rows:
        record: dict[str, object] = {"column": row.name, "agrees": row.agrees}
        for consumer, value in zip(item.consumers, row.values):
            record[consumer] = None if value is None else {"value": _format(value.value), "source": value.source.value}
        records.append(record)
    return records


def _find(joints, path: str) -> Optional[JointDesc]:
    for joint in joints:
        if joint.path == path:
            return joint
    return None


def _rows(joints: tuple[Optional[JointDesc], ...]) -> tuple[ColumnRow, ...]:
    names: list[str] = []
    for joint in joints:
        for name in (joint.columns if joint else ()):
            if name not in names:
                names.append(name)
    return tuple(ColumnRow(name, tuple(j.columns.get(name) if j else None for j in joints)) for name in names)


def _articulation(joint: Optional[JointDesc]) -> str:
    if joint is None:
        return "-"
    return "standalone" if joint.articulation is None else f"#{joint.articulation}"


def _cell(value: Optional[Resolved]) -> str:
    if value is None:
        return "-"
    return f"{_format(value.value)} [{value.source.value}]"


def _format(value) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(_format(v) for v in value) + ")"
    if hasattr(value, "GetReal") and hasattr(value, "GetImaginary"):
        return _format((value.GetReal(), *value.GetImaginary()))
    if value is None:
        return "none"
    if hasattr(value, "__len__") and not isinstance(value, str) and hasattr(value, "__getitem__"):
        return _format(tuple(value))
    return str(value)


def _same(a, b) -> bool:
    return _format(a) == _format(b)
