"""Bodies a joint connects: dangling or non-body targets, the same body twice, mirrored or
kinematic/disabled bodies where an articulation needs a dynamic link."""
from __future__ import annotations

from typing import Iterator

from .rule import AuditContext, DiagnosticRule, Rule


class DanglingBody(DiagnosticRule):
    id = "dangling-body"
    code = "dangling-body"
    description = "physics:body0/1 targets a prim that does not exist: that side is silently the world"
    severity = "error"
    fix = "retarget the relationship at an existing rigid body, or remove it to anchor the joint to the world"


class TargetNotBody(DiagnosticRule):
    id = "target-not-body"
    code = "target-not-body"
    description = "physics:body0/1 targets a prim inside no rigid body: that side is anchored to the world"
    severity = "warning"
    fix = "apply PhysicsRigidBodyAPI to the target (or an ancestor), or remove the relationship for a world anchor"


class SameBody(DiagnosticRule):
    id = "same-body"
    code = "same-body"
    description = "both sides of a joint resolve to the same rigid body: the joint constrains nothing"
    severity = "error"
    fix = "point physics:body1 at the other body of the pair"


class MirroredBody(DiagnosticRule):
    id = "mirrored-body"
    code = "mirrored-body"
    description = "a rigid body with a negative-determinant transform: PhysX cannot mirror bodies, joint frames tilt"
    severity = "warning"
    consumers = ("ovphysx",)
    fix = "mirror the geometry below the body instead of the body transform"


class NonLinkInArticulation(Rule):
    id = "non-link-in-articulation"
    description = ("a kinematic or disabled rigid body under an articulation root, jointed to its links: PhysX builds "
                   "no articulation and simulates the joints standalone")
    severity = "warning"
    consumers = ("ovphysx", "usdjoints")
    covers = ("articulation-refused", "welded-anchor")  # when the body is under the root
    fix = "make the body dynamic and enabled, or move it out of the articulation and weld it with an excluded joint"

    def check(self, ctx: AuditContext) -> Iterator:
        walk = ctx.primary
        # PhysX's own reading builds no such articulation (articulation-refused): take the
        # articulations every consumer gathers
        articulations = [a for c, w in ctx.walks.items() if c in self.consumers for a in w.articulations]
        roots = list(dict.fromkeys(a.root for a in articulations))
        links = {link for a in articulations for link in a.links}
        jointed: dict[str, str] = {}
        for joint in walk.joints:
            if not joint.enabled or joint.exclude_from_articulation:
                continue
            for body, other in ((joint.body0, joint.body1), (joint.body1, joint.body0)):
                if body and other in links:
                    jointed.setdefault(body, joint.path)
        for body in walk.bodies:
            if body.dynamic or body.path not in jointed:
                continue
            root = next((r for r in roots if body.path == r or body.path.startswith(r + "/")), None)
            if root is None:
                continue
            state = "disabled" if not body.enabled else "kinematic"
            attribute = "physics:rigidBodyEnabled" if not body.enabled else "physics:kinematicEnabled"
            yield self.finding(ctx, body.path, f"{state} body under articulation {root}, jointed by "
                               f"{jointed[body.path]}: PhysX refuses the articulation (it logs 'Articulations with "
                               "kinematic bodies are not supported') and simulates its joints as standalone joints",
                               attribute)


RULES = (DanglingBody, TargetNotBody, SameBody, MirroredBody, NonLinkInArticulation)


class SeveralBodyTargets(DiagnosticRule):
    id = "several-body-targets"
    code = "several-targets"
    description = "physics:body0/1 with more than one target: consumers read only the first"
    severity = "warning"
    fix = "keep one target per body relationship"


class NoBody(DiagnosticRule):
    id = "no-body"
    code = "no-body"
    description = "a joint whose two sides both resolve to the world: no joint is created"
    severity = "warning"
    fix = "point physics:body0 or physics:body1 at a rigid body"


class TargetChildPrim(DiagnosticRule):
    id = "target-child-prim"
    code = "target-child-prim"
    description = "physics:body0/1 targets a prim inside a rigid body: the frame is lifted into the body"
    severity = "info"
    fix = "target the rigid body itself, with the frame in its coordinates"


RULES = RULES + (SeveralBodyTargets, NoBody, TargetChildPrim)
