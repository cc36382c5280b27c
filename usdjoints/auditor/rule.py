"""The shape every audit rule shares, and the context a rule reads.

A rule is a small class: a stable kebab-case ``id``, a one-line ``description``, the
``severity`` it reports at most, the ``consumers`` whose behaviour it concerns and a ``fix`` hint.
Its :meth:`Rule.check` reads the walks (one :class:`StageDescription` per consumer considered)
and the stage itself, and yields :class:`Finding` values. Rules never write to the stage.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import ClassVar, Iterable, Iterator, Mapping, Optional

from ..profiles import NAMES as CONSUMERS
from ..descriptors import JointDesc, StageDescription
from .findings import SEVERITY_RANK, Finding


@dataclass(frozen=True)
class AuditContext:
    """What the rules of one stage read: the open stage and one walk per consumer considered."""

    stage: object  # Usd.Stage
    name: str  # how the stage is named in findings (the path the user gave)
    walks: Mapping[str, StageDescription]

    @property
    def consumers(self) -> tuple[str, ...]:
        return tuple(self.walks)

    @property
    def primary(self) -> StageDescription:
        """The walk used for structure (prims, types): PhysX's when considered, else the first."""
        return self.walks.get("ovphysx") or next(iter(self.walks.values()))

    def prim(self, path: str):
        return self.stage.GetPrimAtPath(path)


class Rule:
    """One hazard. Subclasses set the class attributes and implement :meth:`check`."""

    id: ClassVar[str]
    description: ClassVar[str]
    severity: ClassVar[str]
    consumers: ClassVar[tuple[str, ...]] = CONSUMERS
    fix: ClassVar[Optional[str]] = None
    pinned_by_fix_layer: ClassVar[bool] = False  # the --fix layer removes the cause

    def applies(self, considered: Iterable[str]) -> tuple[str, ...]:
        return tuple(c for c in self.consumers if c in considered)

    def check(self, ctx: AuditContext) -> Iterator[Finding]:
        raise NotImplementedError

    def finding(self, ctx: AuditContext, prim: Optional[str], message: str, attribute: Optional[str] = None,
                consumers: Optional[Iterable[str]] = None, severity: Optional[str] = None,
                fix: Optional[str] = None) -> Finding:
        concerned = self.applies(ctx.consumers if consumers is None else consumers)
        return Finding(self.id, severity or self.severity, ctx.name, prim, attribute,
                       concerned or self.applies(ctx.consumers), message, fix or self.fix)

    @classmethod
    def describe(cls) -> dict:
        return {"id": cls.id, "severity": cls.severity, "consumers": list(cls.consumers),
                "description": cls.description, "fix": cls.fix}


_ATTRIBUTE = re.compile(r"\b((?:physics|physx\w*|drive|limit):[\w:]+)")


class DiagnosticRule(Rule):
    """A rule whose hazard the walker already detects as a diagnostic with ``code``.

    Diagnostics of the same prim from several consumers merge into one finding naming them all;
    its severity is the worst any consumer reported.
    """

    code: ClassVar[str]

    def check(self, ctx: AuditContext) -> Iterator[Finding]:
        merged: dict[tuple, list] = {}
        for consumer in self.applies(ctx.consumers):
            for diagnostic in ctx.walks[consumer].diagnostics:
                if diagnostic.code != self.code:
                    continue
                attribute = self.attribute_of(diagnostic.message)
                entry = merged.setdefault((diagnostic.prim, attribute), [[], diagnostic.message, "info"])
                entry[0].append(consumer)
                if SEVERITY_RANK[diagnostic.severity] > SEVERITY_RANK[entry[2]]:
                    entry[1], entry[2] = diagnostic.message, diagnostic.severity
        for (prim, attribute), (consumers, message, severity) in merged.items():
            yield self.finding(ctx, prim, message, attribute, consumers, severity)

    def attribute_of(self, message: str) -> Optional[str]:
        match = _ATTRIBUTE.search(message)
        return match.group(1) if match else None


def joints_by_path(ctx: AuditContext, consumer: str) -> dict[str, JointDesc]:
    return {j.path: j for j in ctx.walks[consumer].joints}


def same_value(a, b) -> bool:
    """Equality that treats NaN as equal to NaN and compares tuples element-wise."""
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)
