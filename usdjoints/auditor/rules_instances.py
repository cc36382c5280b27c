"""API instances a joint type does not read, and half-authored cones."""
from __future__ import annotations

from typing import Iterator

from ..provenance import Source
from ..walker.limits import unread_instances
from .rule import AuditContext, DiagnosticRule, Rule


def _applied(ctx: AuditContext, path: str) -> frozenset[str]:
    return frozenset(ctx.primary.joint(path).applied_schemas)


class _UnreadInstance(Rule):
    severity = "warning"
    covers = ("unread-instance",)  # the walker's diagnostic of the same hazard
    prefix: str

    def check(self, ctx: AuditContext) -> Iterator:
        for joint in ctx.primary.joints:
            applied = _applied(ctx, joint.path)
            unread_by: dict[str, list[str]] = {}
            for consumer, walk in ctx.walks.items():
                joint_type = walk.joint(joint.path).type
                for schema in unread_instances(joint_type, applied, consumer):
                    if schema.startswith(self.prefix):
                        unread_by.setdefault(schema, []).append(consumer)
            for schema, consumers in sorted(unread_by.items()):
                instance = schema.partition(":")[2]
                yield self.finding(ctx, joint.path, f"{schema} is applied but a {joint.type} joint does not read it: "
                                   "its values have no effect", self.attribute(instance), consumers)


class UnreadDriveInstance(_UnreadInstance):
    id = "unread-drive-instance"
    description = "a PhysicsDriveAPI instance the joint type does not read (linear on a revolute, angular on a prismatic or D6)"
    fix = "rename the instance: angular on revolute joints, linear on prismatic, rotX..transZ on D6"
    prefix = "PhysicsDriveAPI:"

    def attribute(self, instance):
        return f"drive:{instance}:physics:stiffness"


class UnreadLimitInstance(_UnreadInstance):
    id = "unread-limit-instance"
    description = "PhysicsLimitAPI on a typed joint (or an instance a D6 does not have): no consumer reads it"
    fix = "use physics:lowerLimit/upperLimit (or the cone angles) on typed joints; PhysicsLimitAPI only on D6 joints"
    prefix = "PhysicsLimitAPI:"

    def attribute(self, instance):
        return f"limit:{instance}:physics:low"


class NamelessInstance(DiagnosticRule):
    id = "nameless-instance"
    code = "nameless-instance"
    description = "a multiple-apply API schema (PhysicsDriveAPI, PhysicsLimitAPI, ...) listed without an instance name: OpenUSD drops it"
    severity = "warning"
    fix = "name the instance: PhysicsDriveAPI:angular on a revolute joint, :linear on a prismatic one, rotX..transZ on a D6"


class ArticulationD6Drive(DiagnosticRule):
    id = "articulation-d6-drive"
    code = "articulation-d6-drive"
    description = "a translational drive on a D6 joint inside an articulation: PhysX ignores it"
    severity = "warning"
    consumers = ("ovphysx",)
    fix = "use a prismatic joint for a driven slide inside an articulation"



class ConeOneAngle(Rule):
    id = "cone-one-angle"
    description = "a spherical joint with only one cone angle authored: the other falls back to -1 and the cone is off"
    severity = "warning"
    fix = "author both physics:coneAngle0Limit and physics:coneAngle1Limit"

    def check(self, ctx: AuditContext) -> Iterator:
        names = ("physics:coneAngle0Limit", "physics:coneAngle1Limit")
        for joint in ctx.primary.joints:
            if joint.type != "spherical":
                continue
            authored = [n for n in names if joint.columns[n].source is Source.AUTHORED]
            if len(authored) != 1:
                continue
            value = float(joint.columns[authored[0]].value)
            if value < 0.0:
                continue  # the authored angle frees the swing anyway: nothing is lost
            missing = names[1 - names.index(authored[0])]
            other = joint.columns[missing].value
            yield self.finding(ctx, joint.path, f"{authored[0]} = {value:g} is authored but {missing} is not "
                               f"(it resolves to {other:g}): a negative angle turns the whole cone off, so the "
                               "authored angle has no effect", missing)


RULES = (UnreadDriveInstance, UnreadLimitInstance, NamelessInstance, ArticulationD6Drive, ConeOneAngle)
