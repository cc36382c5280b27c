"""Where Newton reads a stage, and where it reads it differently from PhysX.

Newton (``--consumer newton``) refuses some stages as a whole, does not build some joints, folds
others into D6 joints and reads its own ``newton:*`` columns where PhysX reads
``PhysxJointAxisAPI``: a user moving an asset between the two engines needs each of these named.
The comparisons go dof by dof through both consumers' per-dof views (USD units on both sides).
"""
from __future__ import annotations

import math
from typing import Iterator

from .rule import AuditContext, DiagnosticRule, Rule, fmt

PAIR = ("ovphysx", "newton")
# Newton's "no limit" is 1e10 [rad or m]; PhysX's is an infinite bound. Both mean "unlimited".
_UNLIMITED = 1e9


class NewtonRefusesStage(DiagnosticRule):
    id = "newton-refuses-stage"
    code = "newton-refuses-stage"
    description = "Newton's add_usd refuses the whole stage (orphan, reversed or looping joints, several roots, ...)"
    severity = "error"
    consumers = ("newton",)
    fix = "change the named prim as the message says; Newton builds nothing from the stage until then"



class NewtonJointDropped(DiagnosticRule):
    id = "newton-joint-dropped"
    code = "newton-joint-dropped"
    description = "a joint Newton does not build (disabled, gear and rack-and-pinion joints)"
    severity = "warning"
    severities = ("warning", "info")  # a lost coupling: warning; a disabled joint: info
    consumers = ("newton",)
    fix = "couple the joints with a mimic (PhysxMimicJointAPI or NewtonMimicAPI) for Newton"



class NewtonMerged(DiagnosticRule):
    id = "newton-merged"
    code = "newton-merged"
    description = "revolute/prismatic joints on one body pair that Newton folds into one D6 joint"
    severity = "info"
    consumers = ("newton",)
    fix = "author one D6 joint with a PhysicsLimitAPI per free axis if the joints are one mechanism"



class NewtonD6AxisLocked(DiagnosticRule):
    id = "newton-d6-axis-locked"
    code = "newton-d6-axis-locked"
    description = "a driven D6 axis without PhysicsLimitAPI (or with low >= high): Newton locks it and drops the drive"
    severity = "warning"
    consumers = ("newton",)
    fix = "apply PhysicsLimitAPI:<axis> with low < high (infinite bounds for a free axis)"



class NewtonAccelerationDrive(DiagnosticRule):
    id = "newton-acceleration-drive"
    code = "newton-acceleration-drive"
    description = "an acceleration drive that Newton reads as a force drive"
    severity = "warning"
    consumers = ("newton",)
    fix = "author a force drive with gains scaled by the driven inertia"



class NewtonConeIgnored(DiagnosticRule):
    id = "newton-cone-ignored"
    code = "newton-cone-ignored"
    description = "a spherical joint's cone limit, which Newton ignores"
    severity = "warning"
    consumers = ("newton",)
    fix = "model the cone with a D6 joint and rotational limits for Newton"



class NewtonFlipped(DiagnosticRule):
    id = "newton-flipped"
    code = "newton-flipped"
    description = "the world on physics:body1: Newton makes it the parent and swaps the joint's frames"
    severity = "info"
    consumers = ("newton",)
    fix = "author the world side as physics:body0"



class NewtonNestedRoot(DiagnosticRule):
    id = "newton-nested-root"
    code = "newton-nested-root"
    description = "links shared by nested articulation roots: Newton builds their joints once per root"
    severity = "warning"
    consumers = ("newton",)
    fix = "keep one PhysicsArticulationRootAPI per mechanism"



class NewtonUnpredicted(DiagnosticRule):
    id = "newton-unpredicted"
    code = "newton-unpredicted"
    description = "an excluded joint to a body no other joint reaches: Newton loads no body and builds it elsewhere"
    severity = "warning"
    consumers = ("newton",)
    fix = "join the body to the articulation with a joint that is not excluded"



class NewtonMimicSkipped(DiagnosticRule):
    id = "newton-mimic-skipped"
    code = "newton-mimic-skipped"
    description = "a mimic whose reference is no joint Newton builds: Newton skips the coupling"
    severity = "warning"
    consumers = ("newton",)
    fix = "point the mimic at a joint Newton builds"



class NewtonUnitsIgnored(DiagnosticRule):
    id = "newton-units-ignored"
    code = "newton-units-ignored"
    description = "metersPerUnit is not 1: Newton reads every length as metres (it only warns)"
    severity = "warning"
    consumers = ("newton",)
    fix = "author the stage in metres (metersPerUnit = 1) for Newton"



def _dof_pairs(ctx: AuditContext):
    """(joint path, dof key, PhysX dof or None, Newton dof or None) for joints both consumers read."""
    physx, newton = ctx.walks["ovphysx"], ctx.walks["newton"]
    newton_by_source: dict[tuple, object] = {}
    for joint in newton.joints:
        for dof in joint.dofs:
            newton_by_source[(dof.source, dof.dof)] = dof
    keys_of: dict[str, list] = {}  # source joint -> its Newton dof keys, in the order above
    for key in newton_by_source:
        keys_of.setdefault(key[0], []).append(key)
    for joint in physx.joints:
        if joint.dropped:
            continue
        try:
            theirs = newton.joint(joint.path)
        except KeyError:
            continue
        keys = [(joint.path, dof.dof) for dof in joint.dofs]
        mine = {(joint.path, dof.dof): dof for dof in joint.dofs}
        extra = [k for k in keys_of.get(joint.path, ()) if k not in mine]
        for key in keys + extra:
            yield joint.path, key[1], mine.get(key), newton_by_source.get(key), theirs


def _unlimited(value) -> bool:
    return value is None or not math.isfinite(value) or abs(value) >= _UNLIMITED


def _bound(value) -> str:
    return "open" if _unlimited(value) else fmt(value)


class PhysxNewtonDofs(Rule):
    id = "physx-newton-dofs"
    description = "a degree of freedom one of PhysX and Newton builds and the other locks or never creates"
    severity = "warning"
    consumers = PAIR
    fix = "make the joint's free axes explicit (D6: a PhysicsLimitAPI per free axis) so both build the same dofs"

    def check(self, ctx: AuditContext) -> Iterator:
        if not all(c in ctx.walks for c in PAIR):
            return
        for path, dof, physx, newton, newton_joint in _dof_pairs(ctx):
            if newton_joint.dropped or (physx is None) == (newton is None):
                continue
            if physx is None:
                yield self.finding(ctx, path, f"Newton builds the {dof} dof, PhysX does not", None, PAIR)
            elif newton_joint.merged_into is None:
                yield self.finding(ctx, path, f"PhysX builds the {dof} dof, Newton locks it", None, PAIR)


class PhysxNewtonGains(Rule):
    id = "physx-newton-gains"
    description = "a drive PhysX and Newton apply differently: dropped by one of them, or an acceleration drive Newton applies as a force"
    severity = "warning"
    consumers = PAIR
    fix = "author a force drive on a dof both engines build (a D6 axis needs a PhysicsLimitAPI for Newton)"

    def check(self, ctx: AuditContext) -> Iterator:
        if not all(c in ctx.walks for c in PAIR):
            return
        physx_drives = {(j.path, d.dof): d for j in ctx.walks["ovphysx"].joints for d in j.drives}
        for path, dof, physx, newton, newton_joint in _dof_pairs(ctx):
            if newton_joint.dropped:
                continue
            gains = []
            for side in (physx, newton):
                gains.append((0.0, 0.0) if side is None else (side.target_ke.value, side.target_kd.value))
            attribute = f"drive:{dof}:physics:stiffness"
            drive = physx_drives.get((path, dof))
            if gains[0] != gains[1] and (newton is None or physx is None):
                who = "Newton" if newton is None else "PhysX"
                yield self.finding(ctx, path, f"{dof} drive (stiffness, damping): PhysX {_pair(gains[0])}, Newton "
                                   f"{_pair(gains[1])}: {who} does not build the dof", attribute, PAIR)
            elif gains[0] != gains[1]:
                yield self.finding(ctx, path, f"{dof} drive (stiffness, damping): PhysX {_pair(gains[0])}, Newton "
                                   f"{_pair(gains[1])}", attribute, PAIR)
            elif drive is not None and drive.type == "acceleration" and newton is not None and gains[0] != (0.0, 0.0):
                yield self.finding(ctx, path, f"{dof} acceleration drive: PhysX scales its gains by the driven "
                                   "inertia, Newton applies them as a force drive", f"drive:{dof}:physics:type", PAIR)


def _pair(gains) -> str:
    return f"({fmt(gains[0])}, {fmt(gains[1])})"


class PhysxNewtonLimits(Rule):
    id = "physx-newton-limits"
    description = "a joint limit that PhysX and Newton apply differently (one-sided, locked, clamped or ignored)"
    severity = "warning"
    consumers = PAIR
    fix = "author both bounds finite (or both infinite for a free dof)"

    def check(self, ctx: AuditContext) -> Iterator:
        if not all(c in ctx.walks for c in PAIR):
            return
        for path, dof, physx, newton, _ in _dof_pairs(ctx):
            if physx is None or newton is None:
                continue
            pairs = [(physx.limit_lower.value, newton.limit_lower.value),
                     (physx.limit_upper.value, newton.limit_upper.value)]
            if any(a is None or b is None for a, b in pairs):
                continue  # a consumer that holds no such bound (a cone) is not compared per axis
            if all((_unlimited(a) and _unlimited(b)) or a == b for a, b in pairs):
                continue
            yield self.finding(ctx, path, f"{dof} limit: PhysX [{_bound(pairs[0][0])}, {_bound(pairs[1][0])}], Newton "
                               f"[{_bound(pairs[0][1])}, {_bound(pairs[1][1])}]", None, PAIR)


class PhysxNewtonPassive(Rule):
    id = "physx-newton-passive"
    description = "armature, friction or a speed limit authored for one engine's columns that the other does not read"
    severity = "warning"
    consumers = PAIR
    fix = "author both PhysxJointAxisAPI:<dof> and the newton:* attribute"

    def check(self, ctx: AuditContext) -> Iterator:
        if not all(c in ctx.walks for c in PAIR):
            return
        for path, dof, physx, newton, _ in _dof_pairs(ctx):
            if physx is None or newton is None:
                continue
            for name in ("armature", "friction", "velocity_limit"):
                a, b = getattr(physx, name), getattr(newton, name)
                authored = [who for who, v in (("PhysX", a), ("Newton", b)) if v.source == "authored"]
                if not authored or a.value == b.value:
                    continue
                if name == "velocity_limit" and _unlimited(a.value) and b.source != "authored":
                    continue
                yield self.finding(ctx, path, f"{dof} {name}: PhysX {fmt(a.value)} [{a.source}], Newton "
                                   f"{fmt(b.value)} [{b.source}]", None, PAIR)


RULES = (NewtonRefusesStage, NewtonJointDropped, NewtonMerged, NewtonD6AxisLocked, NewtonAccelerationDrive,
         NewtonConeIgnored, NewtonFlipped, NewtonNestedRoot, NewtonUnpredicted, NewtonMimicSkipped,
         NewtonUnitsIgnored, PhysxNewtonDofs, PhysxNewtonGains, PhysxNewtonLimits, PhysxNewtonPassive)
