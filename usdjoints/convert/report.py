"""ConversionReport: what a conversion took from spec defaults, what it dropped and why, what it warns about."""
from __future__ import annotations

import enum
from dataclasses import dataclass


class EntryKind(str, enum.Enum):
    DEFAULT = "default"  # the source did not write a value; the format's spec default was used
    CHOICE = "choice"  # the source is silent and the spec gives no value; usdjoints' documented choice
    DROPPED = "dropped"  # something in the source is not in the output
    WARNING = "warning"  # converted, but a consumer may read it differently than the source means
    KEPT = "kept"  # no physics meaning: stored in the stage (a camera, a light, or its XML as a string)

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class ReportEntry:
    """One line of the report. ``where`` is ``file:line``; ``element`` names the thing concerned."""

    kind: EntryKind
    where: str
    element: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.kind}: {self.element}: {self.message}"


@dataclass(frozen=True, slots=True)
class ConversionReport:
    """The outcome of one conversion.

    ``fixed_base`` says how the robot was anchored; ``articulation_root`` is the prim path that
    carries PhysicsArticulationRootAPI; ``joint_count`` counts written joint prims (including the
    world-anchoring joint of a fixed-base robot).
    """

    input_path: str
    output_path: str
    robot_name: str
    fixed_base: bool
    articulation_root: str
    body_count: int
    joint_count: int
    entries: tuple[ReportEntry, ...]
    articulation_roots: tuple[str, ...] = ()  # one per connected set of bodies
    loop_joints: tuple[str, ...] = ()  # joints written with excludeFromArticulation

    @property
    def defaults(self) -> tuple[ReportEntry, ...]:
        return tuple(e for e in self.entries if e.kind in (EntryKind.DEFAULT, EntryKind.CHOICE))

    @property
    def dropped(self) -> tuple[ReportEntry, ...]:
        return tuple(e for e in self.entries if e.kind is EntryKind.DROPPED)

    @property
    def kept(self) -> tuple[ReportEntry, ...]:
        return tuple(e for e in self.entries if e.kind is EntryKind.KEPT)

    @property
    def base_text(self) -> str:
        """``fixed base`` or ``floating base``; ``no rigid body`` for a static model (a floor, a light)."""
        if not self.body_count:
            return "no rigid body"
        return "fixed base" if self.fixed_base else "floating base"

    @property
    def warnings(self) -> tuple[ReportEntry, ...]:
        return tuple(e for e in self.entries if e.kind is EntryKind.WARNING)

    def to_text(self) -> str:
        head = (
            f"{self.input_path} -> {self.output_path}: robot {self.robot_name!r}, "
            f"{self.body_count} bodies, {self.joint_count} joints, "
            f"{self.base_text}, articulation root {self.articulation_root}"
        )
        return "\n".join([head, *(str(e) for e in self.entries)])

    def to_json(self) -> dict:
        return {
            "schema": "usdjoints.convert/1",
            "input": self.input_path,
            "output": self.output_path,
            "robot": self.robot_name,
            "fixed_base": self.fixed_base,
            "articulation_root": self.articulation_root,
            "articulation_roots": list(self.articulation_roots),
            "loop_joints": list(self.loop_joints),
            "bodies": self.body_count,
            "joints": self.joint_count,
            "counts": {str(kind): sum(e.kind is kind for e in self.entries) for kind in EntryKind},
            "entries": [
                {"kind": str(e.kind), "where": e.where, "element": e.element, "message": e.message}
                for e in self.entries
            ],
        }


class Notes:
    """Collects report entries while a conversion runs (the one mutable piece; frozen into the report)."""

    def __init__(self, entries=()):
        self.entries: list[ReportEntry] = list(entries)
        self.seen: set = set()  # keys of things reported once per conversion (a missing mesh file)

    def add(self, kind: EntryKind, where: str, element: str, message: str) -> None:
        self.entries.append(ReportEntry(kind, where, element, message))
