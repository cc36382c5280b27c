"""Limits the consumers enable differently, or that PhysX rejects."""
from __future__ import annotations

from typing import Iterator

from .rule import AuditContext, DiagnosticRule, Rule, fmt


class LimitEnableDisagreement(Rule):
    id = "limit-enable-disagreement"
    description = "consumers disagree on whether a joint limit is on (PhysX: either bound finite; OpenUSD: both)"
    severity = "warning"
    fix = "author both bounds finite, or both infinite for a free joint"

    def check(self, ctx: AuditContext) -> Iterator:
        if len(ctx.walks) < 2:
            return
        locked = {d.prim for w in ctx.walks.values() for d in w.diagnostics if d.code == "locked-hinge"}
        for joint in ctx.primary.joints:
            if joint.path in locked:
                continue  # reported as locked-hinge, a worse outcome of the same cause
            states: dict[str, dict[str, bool]] = {}
            for consumer, walk in ctx.walks.items():
                for limit in walk.joint(joint.path).limits:
                    states.setdefault(limit.dof, {})[consumer] = limit.enabled
            for dof, by_consumer in states.items():
                if len(set(by_consumer.values())) < 2:
                    continue
                on = [c for c, e in by_consumer.items() if e]
                off = [c for c, e in by_consumer.items() if not e]
                limit = next((x for x in joint.limits if x.dof == dof), None)
                bounds = f" [{fmt(limit.low)}, {fmt(limit.high)}]" if limit else ""
                attribute = "physics:lowerLimit" if joint.type in ("revolute", "prismatic") else None
                yield self.finding(ctx, joint.path, f"the {dof} limit{bounds} is on for {', '.join(on)} "
                                   f"and off for {', '.join(off)}", attribute, on + off)


class LockedHinge(DiagnosticRule):
    id = "locked-hinge"
    code = "locked-hinge"
    description = "a revolute limit with one infinite bound inside an articulation: PhysX locks the hinge at [0, 0]"
    severity = "error"
    consumers = ("ovphysx",)
    fix = "author the missing bound (e.g. upperLimit 360) or make both bounds infinite"

    def attribute_of(self, message):
        return "physics:upperLimit" if ", inf]" in message else "physics:lowerLimit"


class OneSidedLimit(DiagnosticRule):
    id = "one-sided-limit"
    code = "one-sided-limit"
    description = "a revolute limit with one infinite bound outside articulations: PhysX clamps that side to 180 deg"
    severity = "warning"
    consumers = ("ovphysx",)  # the enable disagreement itself is limit-enable-disagreement's
    fix = "author both bounds finite"

    def attribute_of(self, message):
        return "physics:lowerLimit"


class ArticulationD6Limit(DiagnosticRule):
    id = "articulation-d6-limit"
    code = "articulation-d6-limit"
    description = "PhysicsLimitAPI on a D6 joint inside an articulation: PhysX applies no limit there"
    severity = "warning"
    consumers = ("ovphysx",)
    fix = "use typed joints (revolute, prismatic, spherical) inside articulations, or exclude the D6 joint"


RULES = (LimitEnableDisagreement, LockedHinge, OneSidedLimit, ArticulationD6Limit)
