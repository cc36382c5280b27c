"""Articulations: which bodies and joints each PhysicsArticulationRootAPI gathers.

The graph pass follows the one OpenUSD's parser and PhysX share: from every body under the root
prim, walk enabled joints that are not excluded from articulations; a joint whose other side is
the world (or a body that cannot be a link) anchors the base. A joint that reaches an already
visited link closes a loop: the consumers do not cut it, so it is reported.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Optional, Sequence

from ..descriptors import ArticulationDesc, Diagnostic
from ..profiles import PROFILES
from ..profiles.base import EXCLUDED, INDEPENDENT, LOOP, REJECT_NESTED, TREE
from .bodies import BodyIndex
from .joints import JointRecord


@dataclass(frozen=True, slots=True)
class ArticulationResult:
    articulations: tuple[ArticulationDesc, ...]
    joint_articulation: dict  # joint path -> articulation index
    diagnostics: tuple[Diagnostic, ...]


def build_articulations(roots: Sequence[str], root_is_joint: dict, joints: Sequence[JointRecord],
                        bodies: BodyIndex, consumer: str, body_order: Sequence[str]) -> ArticulationResult:
    """Gather the links and joints of every articulation root, in stage order."""
    profile = PROFILES[consumer]
    diagnostics: list[Diagnostic] = []
    joints_by_body = _joints_by_body(joints, _link_of(bodies, consumer))
    joint_by_path = {j.path: j for j in joints}
    excluded_enabled = [j for j in joints if j.enabled and j.excluded]  # in stage order, read once for every root

    kinematic_joints: Optional[dict] = None  # every enabled body's joints, made when a root takes kinematic links
    accepted_roots = _accepted_roots(roots, root_is_joint, joint_by_path, bodies, consumer, diagnostics)
    bodies_under = _bodies_under(accepted_roots, root_is_joint, joint_by_path, body_order, bodies, consumer)
    claimed: set[str] = set()
    articulations: list[ArticulationDesc] = []
    joint_articulation: dict[str, int] = {}
    for root in accepted_roots:
        # PhysX takes a root API on a dynamic body as the user's choice of base: no election, a
        # floating base, and joints from that articulation to the world stay standalone joints
        # (measured with ovphysx 0.7: the weld is simulated beside the articulation).
        user_body_root = profile.root_on_body_is_base and root in bodies.records
        # with the root on a body, PhysX also takes the kinematic bodies its joints reach as links
        takes_kinematic = user_body_root and profile.body_root_kinematic_links
        if takes_kinematic and kinematic_joints is None:
            kinematic_joints = _joints_by_body(joints, lambda body: body in bodies.records
                                               and bodies.records[body].enabled)
        link_joints = kinematic_joints if takes_kinematic else joints_by_body
        is_link = _enabled_body(bodies) if takes_kinematic else _link_of(bodies, consumer)
        base_hint: Optional[str] = None
        if root in root_is_joint:
            record = joint_by_path.get(root)
            if record is not None and (record.side0.body is None) != (record.side1.body is None):
                base_hint = record.side1.body if record.side0.body is None else record.side0.body
        seeds = bodies_under.get(base_hint or root, [])
        if profile.nested_roots == INDEPENDENT:
            claimed = set()  # each root gathered on its own: nested roots share links
        links: list[str] = []
        tree_joints: list[str] = []
        loop_joints: list[str] = []
        anchor_joints: list[str] = []
        fixed_base = False
        base: Optional[str] = None
        scopes: list[tuple[str, tuple[str, ...]]] = []  # (seed, its links) in the order gathered
        gathered: list[str] = []  # the links of this root so far, for seeds_inside_links
        for seed in seeds:
            if seed in claimed or (not profile.seeds_inside_links and _inside(seed, gathered)):
                continue
            if seed not in link_joints:
                if profile.jointless_seeds and root not in root_is_joint and root not in bodies.records:
                    scopes.append((seed, ()))  # the consumer still elects it a root
                continue  # a body with no enabled joint is no link of an articulation
            component = _walk_component(seed, link_joints, is_link, profile)
            if profile.tree_from != "seed":
                incidence = _incidence([(seed, tuple(component.links))], link_joints, is_link)
                start = profile.tree_start(seed, root, root in bodies.records, incidence)
                if start != seed:
                    component = _walk_component(start, link_joints, is_link, profile)
            scopes.append((seed, tuple(component.links)))
            gathered.extend(component.links)
            claimed.update(component.links)
            links.extend(component.links)
            tree_joints.extend(component.tree_joints)
            loop_joints.extend(component.loop_joints)
            anchor_joints.extend(component.anchor_joints)
            if component.anchor_joints and not user_body_root:
                fixed_base = True
            if base is None:
                base = component.anchor_links[0] if component.anchor_links else component.links[0]
        if user_body_root:
            tree_joints = [j for j in tree_joints if j not in anchor_joints]
            base = root
        link_set = set(links)
        excluded_joints = [j.path for j in excluded_enabled if j.side0.body in link_set or j.side1.body in link_set]
        root_joint = joint_by_path.get(root) if root in root_is_joint else None
        elected = profile.elect_roots(root, root_joint, root in bodies.records, scopes,
                                      _incidence(scopes, link_joints, is_link))
        if elected is not None:
            root_prims, base = elected
        else:
            root_prims = (base,) if base is not None else ()
        if profile.refuses_kinematic_articulations and not user_body_root:
            kinematic = _kinematic_anchor(anchor_joints, joint_by_path, bodies)
            if kinematic is not None:
                # measured: "Articulations with kinematic bodies are not supported"; no articulation
                diagnostics.append(Diagnostic(
                    "error", root, f"the articulation reaches the kinematic body {kinematic}: {profile.title} builds no "
                    "articulation and simulates its joints standalone", "articulation-refused",
                    related=(kinematic,)))
                continue
        if takes_kinematic:
            for link in links:
                if bodies.records[link].kinematic:
                    diagnostics.append(Diagnostic(
                        "warning", link, f"articulation {root}, rooted on a body, reaches this kinematic body: "
                        f"{profile.title} makes it a link and simulates it as a dynamic body (it falls with the "
                        "articulation)", "kinematic-link", attribute="physics:kinematicEnabled", related=(root,)))
        index = len(articulations)
        # PhysX simulates a loop-closing joint beside the articulation (measured: "closed
        # articulation, which is not supported"); OpenUSD's parser and usdjoints keep it in.
        roles = {TREE: tree_joints, LOOP: loop_joints, EXCLUDED: excluded_joints}
        articulated = profile.articulation_joints(roles)
        for path in articulated:
            joint_articulation.setdefault(path, index)
        for path in loop_joints:
            diagnostics.append(Diagnostic(
                "error", path, f"closes a loop in articulation {root} without excludeFromArticulation",
                "articulation-loop", attribute="physics:excludeFromArticulation"))
        if not links:
            diagnostics.append(Diagnostic("warning", root, "articulation root gathers no links", "empty-articulation"))
        if profile.world_anchor_welds and not user_body_root:
            diagnostics.extend(_welded_anchors(anchor_joints, joint_by_path, root, profile.title))
        articulations.append(ArticulationDesc(root, fixed_base, base, tuple(links),
                                              tuple(profile.listed_joints(roles)), tuple(loop_joints),
                                              tuple(anchor_joints), tuple(root_prims)))
    return ArticulationResult(tuple(articulations), joint_articulation, tuple(diagnostics))


def _inside(path: str, links: Sequence[str]) -> bool:
    """Whether ``path`` lies below (or is) one of ``links``."""
    return any(path == link or path.startswith(link + "/") for link in links)


def _joints_by_body(joints: Sequence[JointRecord], is_link) -> dict:
    """Each body ``is_link`` takes, with its enabled joints in stage order (a joint with both sides
    on one body listed twice)."""
    out: dict[str, list[JointRecord]] = defaultdict(list)
    for joint in joints:
        if not joint.enabled:
            continue
        for body in (joint.side0.body, joint.side1.body):
            if is_link(body):
                out[body].append(joint)
    return out


def _link_of(bodies: BodyIndex, consumer: str):
    """``consumer``'s link predicate: a body path (or None, the world) -> whether it is a link."""
    return lambda path: bodies.is_link(path, consumer)


def _enabled_body(bodies: BodyIndex):
    """The link predicate of a root that takes kinematic bodies: any enabled rigid body."""
    records = bodies.records

    def is_link(path):
        record = records.get(path) if path else None
        return record is not None and record.enabled
    return is_link


def _incidence(scopes, joints_by_body: dict, is_link) -> dict:
    """For each link of ``scopes``: its enabled joints as (joint path, other link or None, excluded),
    in stage order; None when the other side is the world or no link. A joint with both sides on
    the link appears twice, as it does in the consumers' body-to-joint maps."""
    out = {}
    for _seed, links in scopes:
        for link in links:
            entries = []
            for joint in joints_by_body.get(link, ()):  # a joint on one body is listed once per side
                other = joint.side1.body if joint.side0.body == link else joint.side0.body
                entries.append((joint.path, other if is_link(other) else None, joint.excluded))
            out[link] = entries
    return out


def _kinematic_anchor(anchor_joints, joint_by_path, bodies: BodyIndex) -> Optional[str]:
    """The first kinematic body an articulation's anchor joints reach (None if there is none)."""
    for path in anchor_joints:
        record = joint_by_path[path]
        for side in (record.side0.body, record.side1.body):
            body = bodies.records.get(side) if side else None
            if body is not None and body.enabled and body.kinematic:
                return side
    return None


def _welded_anchors(anchor_joints, joint_by_path, root, who: str) -> list[Diagnostic]:
    """PhysX turns the world anchor of an articulation into a fixed base: a hinge there never turns.

    Measured with ovphysx 0.7: a revolute joint from the world to the base link of an
    articulation gives a fixed-base articulation whose base stays put under gravity.
    """
    notes = []
    for path in anchor_joints:
        record = joint_by_path[path]
        to_world = record.side0.body is None or record.side1.body is None
        # an anchor on a kinematic body is no weld: PhysX builds no articulation with it at all
        if record.type != "fixed" and to_world:
            notes.append(Diagnostic(
                "error", path, f"this {record.type} joint ties articulation {root} to the world: {who} makes it the "
                "fixed base and the joint never moves; use a fixed joint to the world and put the "
                f"{record.type} joint between two links", "welded-anchor"))
    return notes


def _bodies_under(roots, root_is_joint, joint_by_path, body_order, bodies: BodyIndex, consumer: str) -> dict:
    """For each scope (a root prim, or the base body of a root joint) its link bodies in stage order."""
    scopes = set()
    for root in roots:
        record = joint_by_path.get(root) if root in root_is_joint else None
        if record is not None and (record.side0.body is None) != (record.side1.body is None):
            scopes.add(record.side1.body if record.side0.body is None else record.side0.body)
        else:
            scopes.add(root)
    under: dict[str, list[str]] = defaultdict(list)
    keep_all = PROFILES[consumer].jointless_seeds  # every rigid body can seed a root there
    for body in body_order:
        if not keep_all and not bodies.is_link(body, consumer):
            continue
        path = body
        while path:
            if path in scopes:
                under[path].append(body)
            path = path.rpartition("/")[0]
    return under


def _outer_root(root: str, roots: set) -> Optional[str]:
    """The nearest other root among ``root``'s ancestors (None if it is nested in none)."""
    path = root.rpartition("/")[0]
    while path:
        if path in roots:
            return path
        path = path.rpartition("/")[0]
    return None


def _accepted_roots(roots: Sequence[str], root_is_joint: dict, joint_by_path: dict, bodies: BodyIndex, consumer: str,
                    diagnostics: list) -> list[str]:
    profile = PROFILES[consumer]
    accepted = []
    root_set = set(roots)
    for root in roots:
        if not profile.accepts_root_on(bodies.records.get(root)):
            diagnostics.append(Diagnostic(
                "error", root, "PhysicsArticulationRootAPI on a disabled or kinematic body: PhysX ignores it",
                "root-on-non-link"))
            continue
        record = joint_by_path.get(root) if root in root_is_joint else None
        if record is not None and not profile.accepts_root_on_joint(record):
            diagnostics.append(Diagnostic(
                "error", root, f"PhysicsArticulationRootAPI on a disabled joint: {profile.title} builds no "
                "articulation from it", "root-on-non-link", attribute="physics:jointEnabled"))
            continue
        outer = _outer_root(root, root_set)
        if outer is not None:
            rejected = profile.nested_roots == REJECT_NESTED
            diagnostics.append(Diagnostic(
                "error" if rejected else "warning", root,
                f"articulation root nested inside {outer}" + (f": {profile.title} rejects it" if rejected else ""),
                "nested-root"))
            if rejected:
                continue
        accepted.append(root)
    return accepted


@dataclass
class _Component:
    links: list
    tree_joints: list
    loop_joints: list
    anchor_joints: list
    anchor_links: list


def _walk_component(seed: str, joints_by_body: dict, is_link, profile) -> _Component:
    """Depth-first over non-excluded joints from ``seed``, in joint order, as PhysX and OpenUSD's
    parser recurse (so the same joint is found to close a loop); records world anchors and loops."""
    component = _Component([seed], [], [], [], [])
    visited = {seed}
    used_joints: set[str] = set()
    stack = [(seed, iter(profile.order_body_joints(joints_by_body.get(seed, ()))))]  # explicit: chains may be thousands deep
    while stack:
        link, pending = stack[-1]
        joint = next(pending, None)
        if joint is None:
            stack.pop()
            continue
        if joint.excluded or joint.path in used_joints or not profile.articulates(joint.type):
            continue
        used_joints.add(joint.path)
        other = joint.side1.body if joint.side0.body == link else joint.side0.body
        if other is None or not is_link(other):
            component.anchor_joints.append(joint.path)
            component.anchor_links.append(link)
            component.tree_joints.append(joint.path)
        elif other in visited:
            component.loop_joints.append(joint.path)
        else:
            visited.add(other)
            component.links.append(other)
            component.tree_joints.append(joint.path)
            stack.append((other, iter(profile.order_body_joints(joints_by_body.get(other, ())))))
    return component

