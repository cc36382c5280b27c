"""Articulations: loops, nested or misplaced roots, links cut off from their root."""
from __future__ import annotations

from typing import Iterator

from .rule import AuditContext, DiagnosticRule, Rule


class ArticulationLoop(DiagnosticRule):
    id = "articulation-loop"
    code = "articulation-loop"
    description = "a closed loop inside an articulation with no joint marked excludeFromArticulation"
    severity = "error"
    fix = "set physics:excludeFromArticulation = true on one joint of the loop"


class NestedRoot(DiagnosticRule):
    id = "nested-root"
    code = "nested-root"
    description = "an articulation root inside another root's subtree: PhysX rejects the inner one"
    severity = "error"
    fix = "keep one PhysicsArticulationRootAPI per articulation, on disjoint subtrees"


class WeldedAnchor(DiagnosticRule):
    id = "welded-anchor"
    code = "welded-anchor"
    description = ("a revolute, prismatic or other moving joint ties an articulation to the world: PhysX makes it "
                   "the fixed base and the joint never moves")
    severity = "error"
    consumers = ("ovphysx",)
    fix = "weld the base to the world with a PhysicsFixedJoint and put the moving joint between two links"

    def check(self, ctx: AuditContext) -> Iterator:
        joints = ctx.walks["ovphysx"].joint if "ovphysx" in ctx.walks else None
        for finding in super().check(ctx):
            joint = joints(finding.prim) if joints else None
            if joint is not None and joint.body0 is not None and joint.body1 is not None:
                # Anchored to a kinematic or disabled body, not the world: measured with ovphysx 0.7,
                # PhysX then builds no articulation at all and the joint moves as a standalone joint
                # (non-link-in-articulation reports that).
                continue
            yield finding


class ArticulationRefused(DiagnosticRule):
    """Measured with ovphysx 0.7 ("Articulations with kinematic bodies are not supported"): an
    articulation reaching a kinematic body is not built; its joints are simulated standalone."""

    id = "articulation-refused"
    code = "articulation-refused"
    description = ("an articulation whose joints reach a kinematic body: PhysX builds no articulation and simulates "
                   "its joints standalone")
    severity = "error"
    consumers = ("ovphysx",)
    fix = ("weld the kinematic body with a joint marked excludeFromArticulation, or make it dynamic; a fixed base is "
           "a fixed joint to the world")

    def check(self, ctx: AuditContext) -> Iterator:
        for consumer in self.applies(ctx.consumers):
            for diagnostic in ctx.walks[consumer].diagnostics:
                if diagnostic.code != self.code:
                    continue
                inside = [b for b in diagnostic.related if b == diagnostic.prim or b.startswith(diagnostic.prim + "/")]
                if inside:
                    continue  # non-link-in-articulation names that body under the root
                yield self.finding(ctx, diagnostic.prim, diagnostic.message, None, (consumer,), diagnostic.severity)


class RootOnNonLink(DiagnosticRule):
    id = "root-on-non-link"
    code = "root-on-non-link"
    description = "PhysicsArticulationRootAPI on a kinematic or disabled body, or on a disabled joint: PhysX ignores the articulation"
    severity = "error"
    consumers = ("ovphysx", "usdjoints")
    fix = "put the root on a dynamic body, on an ancestor Xform, or on the fixed joint to the world"


class KinematicLink(DiagnosticRule):
    """Measured with ovphysx 0.7: the root API on a dynamic link and a joint from it to a kinematic
    body: the body is a link of the articulation and falls with it; with the joint excluded the
    body stays kinematic and holds the articulation."""

    id = "kinematic-link"
    code = "kinematic-link"
    description = ("a kinematic body jointed to an articulation rooted on a dynamic body: PhysX makes it a link and "
                   "simulates it as dynamic")
    severity = "warning"
    consumers = ("ovphysx",)
    fix = ("set excludeFromArticulation on the joint to the kinematic body (PhysX then keeps the body kinematic and "
           "holds the articulation to it), or make the body dynamic")


class EmptyArticulation(DiagnosticRule):
    id = "empty-articulation"
    code = "empty-articulation"
    description = "an articulation root that gathers no link (no enabled joint between bodies under it)"
    severity = "warning"
    fix = "place the root on an ancestor of the jointed bodies"


class DisabledJointCutsLinks(Rule):
    id = "disabled-joint-cuts-links"
    description = "a disabled joint whose removal leaves bodies under an articulation root outside every articulation"
    severity = "warning"
    fix = "enable the joint, or move the cut-off bodies out from under the articulation root"

    def check(self, ctx: AuditContext) -> Iterator:
        walk = ctx.primary
        roots = [a.root for a in walk.articulations]
        links = {link for a in walk.articulations for link in a.links}
        dynamic = {b.path for b in walk.bodies if b.dynamic}
        for joint in walk.joints:
            if joint.enabled:
                continue
            orphans = []
            for body in (joint.body0, joint.body1):
                if body is None or body not in dynamic or body in links:
                    continue
                if any(body == r or body.startswith(r + "/") for r in roots):
                    orphans.append(body)
            if orphans and (joint.body0 in links or joint.body1 in links or len(orphans) == 2):
                yield self.finding(ctx, joint.path, f"physics:jointEnabled is false, which cuts "
                                   f"{', '.join(orphans)} off the articulation: they move as free bodies",
                                   "physics:jointEnabled")


class RootElectedElsewhere(Rule):
    """Measured with ovphysx 0.7: PhysicsArticulationRootAPI on a rigid body gives a floating-base
    articulation rooted at that body even when the tree is welded to the world by a fixed joint;
    the weld stays a standalone (maximal-coordinate) joint holding the floating base. A tree tied
    to the world only by moving joints is not reported: rooted on the body is how such a joint
    moves in PhysX (rooted elsewhere, it becomes the fixed base and never moves)."""

    id = "root-elected-elsewhere"
    description = ("PhysicsArticulationRootAPI on a rigid body of a tree welded to the world: PhysX builds a floating "
                   "base there and keeps the weld as a standalone joint")
    severity = "warning"
    consumers = ("ovphysx",)
    fix = "put PhysicsArticulationRootAPI on the fixed joint to the world or on an ancestor Xform of the links"

    def check(self, ctx: AuditContext) -> Iterator:
        if "ovphysx" not in ctx.walks:
            return
        walk = ctx.walks["ovphysx"]
        bodies = {b.path for b in walk.bodies}
        types = {joint.path: joint.type for joint in walk.joints}
        for articulation in walk.articulations:
            if articulation.root not in bodies or not articulation.anchor_joints:
                continue  # the walk keeps the welds as anchor joints of a floating-base articulation
            if articulation.root not in articulation.links:
                continue
            # a moving joint to the world (a hinge, a slider) moves only as such a standalone
            # joint: rooted on the prim or on the joint, PhysX makes it the fixed base (welded-anchor)
            fixed = [path for path in articulation.anchor_joints if types.get(path, "fixed") == "fixed"]
            if not fixed:
                continue
            welds = ", ".join(fixed)
            yield self.finding(ctx, articulation.root, f"the root API is on the body {articulation.root}: PhysX makes "
                               f"a floating-base articulation rooted there, and {welds} to the world stays a standalone "
                               f"joint instead of a fixed base (base link {articulation.base})")


RULES = (ArticulationLoop, NestedRoot, WeldedAnchor, ArticulationRefused, RootOnNonLink, KinematicLink, EmptyArticulation, DisabledJointCutsLinks,
         RootElectedElsewhere)
