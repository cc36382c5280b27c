"""Default divergences: columns left unauthored (or blocked) whose absent-column default differs
between consumers.

On a USD stage PhysX reads what USD population writes (the schema fallback), so an unauthored
column diverges only for stages populated by hand: that is worth knowing (info), not a failure.
A *blocked* value is different: every consumer then sees the column as absent and reads its own
parser default, so the disagreement is real (warning).
"""
from __future__ import annotations

import numbers
from typing import ClassVar, Iterator

from ..profiles import NAMES as CONSUMERS, PROFILES
from ..provenance import Source
from .rule import AuditContext, Rule, fmt, same_value


def _numeric(value) -> bool:
    if isinstance(value, (tuple, list)):
        return all(isinstance(v, numbers.Number) for v in value)
    return isinstance(value, numbers.Number) and not isinstance(value, bool)


def divergent_consumers(ctx: AuditContext, joint_path: str, name: str) -> tuple[str, tuple[str, ...], dict]:
    """(source, consumers that read something else than the fallback, their absent values)."""
    source = None
    concerned: list[str] = []
    values: dict[str, object] = {}
    for consumer, walk in ctx.walks.items():
        resolved = walk.joint(joint_path).columns.get(name)
        if resolved is None:
            continue
        source = resolved.source
        default = resolved.parser_default
        if not _numeric(default) or same_value(default, resolved.fallback):
            continue
        if source is Source.FALLBACK and PROFILES[consumer].reads_unauthored_as != "producer":
            continue  # this consumer reads the USD fallback when the column is unauthored
        concerned.append(consumer)
        values[consumer] = default
    return source, tuple(concerned), values


class DefaultDivergenceRule(Rule):
    """Base: subclasses name the joint types and columns they watch and what the divergence does."""

    severity = "warning"
    consumers = CONSUMERS
    pinned_by_fix_layer = True
    effect: ClassVar[str]

    def watched(self, joint) -> tuple[str, ...]:
        raise NotImplementedError

    def check(self, ctx: AuditContext) -> Iterator:
        for joint in ctx.primary.joints:
            groups: dict[Source, list] = {}
            for name in self.watched(joint):
                resolved = joint.columns.get(name)
                if resolved is None or resolved.source not in (Source.FALLBACK, Source.BLOCKED):
                    continue
                source, concerned, values = divergent_consumers(ctx, joint.path, name)
                if concerned:
                    groups.setdefault(source, []).append((name, resolved, concerned, values))
            for source, items in groups.items():
                yield self._finding(ctx, joint.path, source, items)

    def _finding(self, ctx: AuditContext, path: str, source: Source, items: list):
        names = " and ".join(name for name, *_ in items)
        concerned = sorted({c for *_, consumers, _ in items for c in consumers}, key=list(ctx.walks).index)
        fallback = ", ".join(fmt(resolved.fallback) for _, resolved, *_ in items)
        reads = "; ".join(f"{c} reads " + ", ".join(fmt(values[c]) for *_, values in items if c in values)
                          for c in concerned)
        if source is Source.BLOCKED:
            message = (f"{names} blocked, so consumers see the column absent: {reads} where the schema "
                       f"fallback is {fallback}. {self.effect}")
            return self.finding(ctx, path, message, items[0][0], concerned, "warning")
        producer = ", ".join(fmt(resolved.producer) for _, resolved, *_ in items)
        message = (f"{names} not authored: USD resolves {fallback} and USD population writes {producer}, but "
                   f"on a stage populated without them {reads}. {self.effect}")
        return self.finding(ctx, path, message, items[0][0], concerned, "info")

class DefaultCouplingRatio(DefaultDivergenceRule):
    id = "default-coupling-ratio"
    description = "rack ratio or gear gearRatio left unauthored: absent, PhysX reads 0 and the coupling never moves"
    effect = "With ratio 0 the driven joint never moves."
    fix = "author physics:ratio / physics:gearRatio explicitly (the fix layer pins 1)"

    def watched(self, joint):
        return {"rack_and_pinion": ("physics:ratio",), "gear": ("physics:gearRatio",)}.get(joint.type, ())


class DefaultJointLimits(DefaultDivergenceRule):
    id = "default-joint-limits"
    description = "revolute/prismatic lowerLimit or upperLimit left unauthored: absent, PhysX reads [0, 0] and locks"
    effect = "Both bounds at 0 lock the joint."
    fix = "author physics:lowerLimit and physics:upperLimit (-inf/inf for a free joint; the fix layer pins them)"

    def watched(self, joint):
        if joint.type in ("revolute", "prismatic"):
            return ("physics:lowerLimit", "physics:upperLimit")
        return ()


class DefaultD6Limit(DefaultDivergenceRule):
    id = "default-d6-limit"
    description = "a PhysicsLimitAPI instance on a D6 joint with low/high unauthored: absent, PhysX locks that axis"
    effect = "A [0, 0] limit locks the axis."
    fix = "author limit:<dof>:physics:low and :high on every applied PhysicsLimitAPI instance"

    def watched(self, joint):
        if joint.type != "d6":
            return ()
        return tuple(sorted(n for n in joint.columns if n.startswith("limit:")
                            and n.endswith((":physics:low", ":physics:high"))))


class DefaultConeAngle(DefaultDivergenceRule):
    id = "default-cone-angle"
    description = "spherical coneAngle0Limit/coneAngle1Limit left unauthored: absent, PhysX reads 0 and drops the cone"
    effect = "A zero cone is rejected by PhysX: no swing limit at all."
    fix = "author both cone angles (-1 for a free swing; the fix layer pins the fallback)"

    def watched(self, joint):
        if joint.type == "spherical":
            return ("physics:coneAngle0Limit", "physics:coneAngle1Limit")
        return ()


class DefaultStageUnits(Rule):
    id = "default-stage-units"
    description = "metersPerUnit or upAxis not authored: USD falls back to centimetres / Y-up, PhysX to metres / Z-up"
    severity = "info"
    consumers = ("ovphysx",)
    fix = "author metersPerUnit and upAxis in the root layer (the fix layer writes the resolved values)"
    pinned_by_fix_layer = True

    def check(self, ctx: AuditContext) -> Iterator:
        if "ovphysx" not in ctx.walks:
            return
        units = ctx.walks["ovphysx"].units
        for key, resolved in (("metersPerUnit", units.meters_per_unit), ("upAxis", units.up_axis)):
            if resolved.source is Source.AUTHORED or same_value(resolved.parser_default, resolved.value):
                continue
            yield self.finding(
                ctx, None, f"{key} is not authored: USD resolves {fmt(resolved.value)} (written by USD population), "
                f"but a stage populated without it is read as {fmt(resolved.parser_default)} by ovphysx", key)


RULES = (DefaultCouplingRatio, DefaultJointLimits, DefaultD6Limit, DefaultConeAngle, DefaultStageUnits)
