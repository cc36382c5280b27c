"""A resolved SDFormat document -> one :class:`usdjoints.convert.ir.RobotIR`.

A file with one ``<model>`` gives a robot named after it; ``RobotIR.pose`` is the model's pose
and ``Link.pose`` is in the model frame. A ``<world>`` gives one robot named after the world
holding every model (RobotIR.pose is identity, ``Link.pose`` in the world frame); world-level
joints connect them. Nested and world models scope their element names with ``::``
(``arm::gripper::finger``), as SDFormat does; the writer sanitises prim names.
"""
from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

from lxml import etree

from usdjoints.errors import InputError

from .. import ir, xml_tinyxml
from ..report import EntryKind, ReportEntry
from ..resolve import ResourceLocator, ResourceRefused
from .document import ResolvedDocument, top_model_pose
from .frames import FrameGraph, fixed_model_frame
from .joints import read_joint
from .links import kept_note, read_link, source, to_ir_pose
from .extras import MODEL_EXTRAS, read_extra
from .parse import child_bool
from .world import read_world
from .coverage import coverage_notes
from .pose import IDENTITY, Pose, where

def _chosen_graph(resolved: ResolvedDocument, world: str | None):
    names = [g.scope.name for g in resolved.graphs if g.scope.kind == "world"]
    listed = ", ".join(repr(n) for n in names)
    first: dict[str, str] = {}
    for graph in resolved.graphs:  # libsdformat: DUPLICATE_NAME, "Each world must have a unique name"
        if graph.scope.kind == "world" and first.setdefault(graph.scope.name, graph.scope.where) != graph.scope.where:
            earlier = first[graph.scope.name]
            file, _, line = earlier.rpartition(":")
            at = f"line {line}" if file == graph.scope.where.rpartition(":")[0] else earlier
            raise InputError(graph.scope.where, f"a second world named {graph.scope.name!r} (the first is at "
                             f"{at}): each world must have a unique name", "rename one of them")
    if world is None:
        if len(resolved.graphs) > 1:
            raise InputError(str(resolved.path), f"the file holds {len(resolved.graphs)} worlds ({listed})",
                             "choose one with --world NAME")
        return resolved.graphs[0]
    if not names:
        raise InputError(str(resolved.path), f"--world {world!r}: the file holds a model, not a world")
    for graph in resolved.graphs:
        if graph.scope.kind == "world" and graph.scope.name == world:
            return graph
    raise InputError(str(resolved.path), f"--world {world!r}: the file has no world of that name (its worlds: {listed})")


SDFORMAT_DEFAULTS = ir.SpecDefaults(
    format="sdformat",
    axis=(0.0, 0.0, 1.0),
    mass=1.0,
    inertia=ir.Inertia(1.0, 1.0, 1.0),
    lower=-math.inf,
    upper=math.inf,
    effort=None,
    velocity=None,
    damping=0.0,
    friction=0.0,
    mimic_multiplier=1.0,
    mimic_offset=0.0,
)


def build_robot(resolved: ResolvedDocument, resource_paths=(), confine_roots: tuple[str, ...] | None = None,
                world: str | None = None) -> ir.RobotIR:
    """Every model of ``resolved`` flattened into one RobotIR (see the module docstring).

    ``confine_roots``: meshes are read only from inside these folders (None: from anywhere).
    ``world``: the name of the world to read; needed when the file holds several.
    """
    graph = _chosen_graph(resolved, world)
    builder = _Builder(tuple(str(p) for p in resource_paths or ()), confine_roots)
    world_info = None
    if graph.scope.kind == "model":
        # a joint to the world is placed relative to the world frame, which the model pose moves
        builder.link_poses["world"] = top_model_pose(graph).inverse()
        builder.model(graph, "", IDENTITY, graph.scope.static)
        robot_pose = to_ir_pose(top_model_pose(graph))
    else:
        builder.world(graph)
        robot_pose = ir.IDENTITY
        for note in graph.scope.warnings:
            where, _, message = note.partition(": ")
            builder.notes.append(ReportEntry(EntryKind.WARNING, where, "world", message))
        world_info = read_world(graph.scope.element, builder.notes)
        builder.extras.extend(world_info.extras)
    builder.notes.extend(coverage_notes(_documents(graph.scope)))
    links = builder.links
    if builder.joint_extras:
        links = [replace(link, extras=link.extras + tuple(builder.joint_extras.get(link.name, ())))
                 for link in links]
    uses_world = any(j.parent == "world" for j in builder.joints)
    if uses_world:
        # the implicit world frame stands in as RobotIR.world_link, never written as a body
        links.insert(0, ir.Link("world", None, (), (), source(graph.scope.element)))
    return ir.RobotIR(
        name=graph.scope.name,
        links=tuple(links),
        joints=tuple(builder.joints),
        source=source(graph.scope.element),
        defaults=SDFORMAT_DEFAULTS,
        world_link="world" if uses_world else None,
        pose=robot_pose,
        frames=tuple(builder.frames),
        notes=tuple(builder.notes),
        world=world_info,
        extras=tuple(builder.extras),
    )


def _documents(scope) -> list:
    """The ``<sdf>`` elements of the file and of every file it includes, each once."""
    seen: dict[int, object] = {}

    def visit(s) -> None:
        root = s.element.getroottree().getroot()
        seen.setdefault(id(root), root)
        for d in s.decls:
            if d.scope is not None:
                visit(d.scope)
            else:
                root = d.element.getroottree().getroot()  # merged includes keep their declarations
                seen.setdefault(id(root), root)
    visit(scope)
    return list(seen.values())


class _Builder:
    """Collects links, joints and frames while walking the scopes, parents before nested models."""

    def __init__(self, resource_paths: tuple[str, ...], confine_roots: tuple[str, ...] | None = None):
        self.resource_paths = resource_paths
        self.confine_roots = confine_roots
        self.links: list[ir.Link] = []
        self.joints: list[ir.Joint] = []
        self.frames: list[ir.Frame] = []
        self.notes: list[ReportEntry] = []
        self.link_poses: dict[str, Pose] = {"world": IDENTITY}
        self.extras: list[ir.Extra] = []
        self.joint_extras: dict[str, list[ir.Extra]] = {}
        self._locators: dict[str, ResourceLocator] = {}  # per document URL (_mesh_locator)

    def world(self, graph: FrameGraph) -> None:
        for d in graph.scope.decls:
            if d.kind == "model":
                self._links(graph.nested(d.name), f"{d.name}::", graph.pose(d.name), d.scope.static)
        for d in graph.scope.decls:
            if d.kind == "model":
                self._rest(graph.nested(d.name), f"{d.name}::", graph.pose(d.name))
        self._rest(graph, "", IDENTITY)

    def model(self, graph: FrameGraph, prefix: str, X_root_scope: Pose, static: bool) -> None:
        self._links(graph, prefix, X_root_scope, static)
        self._rest(graph, prefix, X_root_scope)

    def _links(self, graph: FrameGraph, prefix: str, X_root_scope: Pose, static: bool) -> None:
        """Links first, everywhere, so joints can look up any link's pose."""
        model_self_collide = child_bool(graph.scope.element, "self_collide", False)
        for note in graph.scope.warnings:
            where, _, message = note.partition(": ")
            self.notes.append(ReportEntry(EntryKind.WARNING, where, f"{graph.scope.kind} {graph.scope.name}", message))
        for d in graph.scope.decls:
            if d.kind == "link":
                link, notes = read_link(graph, d, prefix + d.name, X_root_scope, static, self._mesh_locator(d),
                                        model_self_collide)
                self.links.append(link)
                self.notes.extend(notes)
                self.link_poses[link.name] = X_root_scope.compose(graph.pose(d.name))
            elif d.kind == "model":
                self._links(graph.nested(d.name), f"{prefix}{d.name}::", X_root_scope.compose(graph.pose(d.name)),
                            static or d.scope.static)
        if graph.scope.kind == "model":
            for element in graph.scope.element:
                if isinstance(element.tag, str) and element.tag in MODEL_EXTRAS:
                    extra = read_extra(element, None, owner=prefix.rstrip(":") or graph.scope.name)
                    self.extras.append(extra)
                    self.notes.append(kept_note(extra, f"model {prefix.rstrip(':') or graph.scope.name}"))

    def _rest(self, graph: FrameGraph, prefix: str, X_root_scope: Pose) -> None:
        for d in graph.scope.decls:
            if d.kind == "joint" and graph.joins_one_link(d):
                self.notes.append(ReportEntry(EntryKind.WARNING, d.where, f"joint {prefix}{d.name}",
                                              f"parent and child are both attached to link '{prefix}{graph.body(d.name)}': "
                                              "a joint of a link to itself joins nothing, left out"))
            elif d.kind == "joint":
                joint, notes, extras = read_joint(graph, d, prefix + d.name, prefix, X_root_scope,
                                                  self.link_poses.__getitem__)
                if extras:
                    self.joint_extras.setdefault(joint.child, []).extend(extras)
                self.joints.append(joint)
                self.notes.extend(notes)
            elif d.kind == "frame":
                body = graph.body(d.name)
                # a static model without links: its model frame cannot move, so neither can the frame
                attached = "world" if body == "world" or fixed_model_frame(body) else prefix + body
                X_root_frame = X_root_scope.compose(graph.pose(d.name))
                pose = self.link_poses[attached].inverse().compose(X_root_frame)
                self.frames.append(ir.Frame(prefix + d.name, attached, to_ir_pose(pose), source(d.element)))
            elif d.kind == "model" and graph.scope.kind == "model":
                self._rest(graph.nested(d.name), f"{prefix}{d.name}::", X_root_scope.compose(graph.pose(d.name)))

    def _mesh_locator(self, d):
        url = d.element.getroottree().docinfo.URL
        locator = self._locators.get(url)  # one per document: resolving its folder costs system calls
        if locator is None:
            base = Path(xml_tinyxml.path_of_url(url)).resolve().parent
            locator = ResourceLocator(str(base), {}, self.resource_paths, confine=self.confine_roots is not None,
                                      confine_roots=self.confine_roots)
            self._locators[url] = locator

        def locate(uri: str, element: etree._Element, scale):
            try:
                found = locator.resolve(uri)  # a missing file is reported once, by the writer
            except ResourceRefused as error:  # outside --confine's folders, or a FIFO or device
                raise InputError(where(element), str(error)) from error
            return ir.MeshRef(uri, found.path, scale, found.searched)
        return locate
