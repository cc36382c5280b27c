"""Limits the consumers enable differently, or that PhysX rejects."""
from __future__ import annotations

from typing import Iterator

from .rule import AuditContext, DiagnosticRule, Rule, fmt


class LimitEnableDisagreement(Rule):
    id = "limit-enable-disagreement"
    description = "consumers disagree on whether a joint limit is on (PhysX: either bound finite; OpenUSD: both)"
    severity = "warning"
    covers = ("one-sided-limit",)  # OpenUSD's parser's reading of a one-sided limit (off)
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
    covers = ("one-sided-limit",)  # the other consumers' reading of the same one-sided limit
    fix = "author the missing bound (e.g. upperLimit 360) or make both bounds infinite"


class OneSidedLimit(DiagnosticRule):
    id = "one-sided-limit"
    code = "one-sided-limit"
    description = "a revolute limit with one infinite bound outside articulations: PhysX clamps that side to 180 deg"
    severity = "warning"
    consumers = ("ovphysx",)  # the enable disagreement itself is limit-enable-disagreement's
    fix = "author both bounds finite"


_TRANSLATIONS = ("transX", "transY", "transZ")


class ArticulationD6Limit(Rule):
    """Measured with ovphysx 0.7: a D6 joint inside an articulation keeps its rotational limits
    (a rotX limit of [-10, 10] deg reads back as authored) but loses every translational axis,
    with the warning "Translation DOF is expected to be locked for D6 joint in articulation"."""

    id = "articulation-d6-limit"
    description = ("a D6 joint inside an articulation with a translational axis not locked by its limits: PhysX "
                   "locks every translation there")
    severity = "warning"
    consumers = ("ovphysx",)
    fix = ("lock transX/transY/transZ with PhysicsLimitAPI (low > high), or use a prismatic joint, or exclude the D6 "
           "joint from the articulation")

    def check(self, ctx: AuditContext) -> Iterator:
        if "ovphysx" not in ctx.walks:
            return
        for joint in ctx.walks["ovphysx"].joints:
            if joint.type != "d6" or joint.articulation is None or joint.exclude_from_articulation:
                continue
            applied = set(joint.applied_schemas)
            free = [axis for axis in _TRANSLATIONS if not _locked(joint, axis, applied)]
            if free:
                yield self.finding(ctx, joint.path, f"{', '.join(free)} {'is' if len(free) == 1 else 'are'} free for "
                                   "OpenUSD's parser, but PhysX locks every translation of a D6 joint inside an "
                                   "articulation")


def _locked(joint, axis: str, applied) -> bool:
    """A D6 axis is locked by a limit whose low is above its high, or by a [0, 0] range."""
    if f"PhysicsLimitAPI:{axis}" not in applied:
        return False
    low = float(joint.columns[f"limit:{axis}:physics:low"].value)
    high = float(joint.columns[f"limit:{axis}:physics:high"].value)
    return low > high or (low == 0.0 and high == 0.0)


RULES = (LimitEnableDisagreement, LockedHinge, OneSidedLimit, ArticulationD6Limit)
