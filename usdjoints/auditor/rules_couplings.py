"""Couplings: rack-and-pinion and gear joints, and PhysX mimic joints."""
from __future__ import annotations

from typing import Iterator

from .rule import AuditContext, DiagnosticRule, Rule


class CouplingMissingRelationship(DiagnosticRule):
    id = "coupling-missing-relationship"
    code = "coupling-missing-relationship"
    description = "a rack-and-pinion or gear joint without its hinge/prismatic relationships: PhysX creates no coupling"
    severity = "error"
    consumers = ("ovphysx", "usdjoints")
    fix = "author physics:hinge and physics:prismatic (rack) or physics:hinge0 and physics:hinge1 (gear)"


# A misspelt relationship name -> the schema's name for it.
SCHEMA_NAME_FOR = {
    "physxGearJoint:hinge0": "physics:hinge0",
    "physxGearJoint:hinge1": "physics:hinge1",
    "physxRackAndPinionJoint:hinge": "physics:hinge",
    "physxRackAndPinionJoint:prismatic": "physics:prismatic",
}


class CouplingMisspeltRelationship(DiagnosticRule):
    id = "coupling-misspelt-relationship"
    code = "unknown-coupling-relationship"
    description = "a coupling relationship under a name no schema declares (e.g. physxGearJoint:hinge0): ignored"
    severity = "error"
    fix = "rename the relationship to physics:hinge0/hinge1 (gear) or physics:hinge/prismatic (rack); the fix layer copies the targets"
    pinned_by_fix_layer = True

    def check(self, ctx):
        for finding in super().check(ctx):
            right = SCHEMA_NAME_FOR.get(finding.attribute)
            if right and any(_has_targets(walk, finding.prim, right) for walk in ctx.walks.values()):
                continue  # the schema name carries the targets: the stray name is harmless
            yield finding


def _has_targets(walk, path: str, name: str) -> bool:
    try:
        column = walk.joint(path).columns.get(name)
    except KeyError:
        return False
    return column is not None and column.value is not None


class CouplingZeroRatio(DiagnosticRule):
    id = "coupling-zero-ratio"
    code = "coupling-zero-ratio"
    description = "an authored ratio or gearRatio of 0: the driven joint never moves"
    severity = "error"
    consumers = ("ovphysx", "usdjoints")
    fix = "author the real ratio: [deg per stage length] for a rack, teeth ratio for a gear"

    def check(self, ctx):
        # Measured with ovphysx 0.7 (rack, ratio 0, pinion driven at 90 deg/s): the rack never
        # moves while the pinion keeps turning; "the pinion never moves" would be wrong.
        for finding in super().check(ctx):
            driven = "the rack (physics:prismatic)" if finding.attribute == "physics:ratio" else "physics:hinge1"
            message = (f"{finding.attribute} is 0: {driven} never moves through the coupling, whatever the "
                       "other joint does")
            yield self.finding(ctx, finding.prim, message, finding.attribute, finding.consumers, finding.severity)


_EXPECTED = {
    "rack_and_pinion": (("hinge", "physics:hinge", "revolute"), ("prismatic", "physics:prismatic", "prismatic")),
    "gear": (("hinge0", "physics:hinge0", "revolute"), ("hinge1", "physics:hinge1", "revolute")),
}


class CouplingWrongTarget(Rule):
    id = "coupling-wrong-target"
    description = "a coupling relationship that targets no joint, or a joint of the wrong type (gear hinges must be revolute)"
    severity = "error"
    consumers = ("ovphysx", "usdjoints")
    fix = "point physics:hinge* at revolute joints and physics:prismatic at a prismatic joint"

    def check(self, ctx: AuditContext) -> Iterator:
        walk = ctx.primary
        types = {j.path: j.type for j in walk.joints}
        for joint in walk.joints:
            if joint.coupling is None or joint.type not in _EXPECTED:
                continue
            for field, attribute, wanted in _EXPECTED[joint.type]:
                target = getattr(joint.coupling, field)
                if target is None:
                    continue  # coupling-missing-relationship reports it
                found = types.get(target)
                if found == wanted:
                    continue
                what = "is no joint" if found is None else f"is a {found} joint"
                yield self.finding(ctx, joint.path, f"{attribute} targets {target}, which {what}; "
                                   f"a {joint.type.replace('_', '-')} needs a {wanted} joint there", attribute)


class MimicReference(Rule):
    id = "mimic-reference"
    description = "a PhysX mimic joint whose reference joint does not resolve or lies in another articulation"
    severity = "error"
    consumers = ("ovphysx",)
    fix = "point physxMimicJoint:<axis>:referenceJoint at a joint of the same articulation"

    def check(self, ctx: AuditContext) -> Iterator:
        walk = ctx.primary
        by_path = {j.path: j for j in walk.joints}
        for joint in walk.joints:
            for mimic in joint.mimics:
                attribute = f"physxMimicJoint:{mimic.dof}:referenceJoint"
                reference = by_path.get(mimic.reference) if mimic.reference else None
                if reference is None:
                    target = mimic.reference or "nothing"
                    yield self.finding(ctx, joint.path, f"{attribute} targets {target}, which is no joint: "
                                       "PhysX creates no mimic constraint", attribute)
                elif joint.articulation is None or reference.articulation != joint.articulation:
                    if joint.articulation is None:
                        where = "this joint is in no articulation"
                    elif reference.articulation is None:
                        where = f"the reference {mimic.reference} is in no articulation"
                    else:
                        where = f"the reference {mimic.reference} lies in another articulation"
                    yield self.finding(ctx, joint.path, f"{where}: PhysX mimic joints couple two joints of one "
                                       "articulation, so this one is dropped", attribute)

RULES = (CouplingMissingRelationship, CouplingMisspeltRelationship, CouplingZeroRatio, CouplingWrongTarget,
         MimicReference)


class CouplingUnseen(DiagnosticRule):
    id = "coupling-unseen"
    code = "coupling-unseen"
    description = "a PhysX rack or gear joint, which OpenUSD's parser reports as a free D6 joint without its coupling"
    severity = "info"
    consumers = ("usdphysics",)
    fix = "tools built on OpenUSD's parser must pass custom joint tokens to see the coupling"


RULES = RULES + (CouplingUnseen,)
