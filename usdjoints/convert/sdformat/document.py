"""One SDFormat file, includes expanded and frame graphs validated: the input to IR building."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..resolve import Confinement
from .axes import read_axis
from .frames import FrameGraph
from .includes import search_directories
from .parse import load_document
from .pose import Pose
from .scope import build_root


@dataclass(frozen=True, eq=False)
class ResolvedDocument:
    """The validated frame graphs of a file's top-level scopes (its worlds, or its one model)."""

    path: Path
    version: tuple[int, int]
    graphs: tuple[FrameGraph, ...]


def resolve_document(path: str | Path, resource_paths=(), confinement: Confinement | None = None) -> ResolvedDocument:
    """Parse ``path``, expand its includes and resolve every frame; raises InputError on the first problem.

    With ``confinement`` an include is read only from inside its folders (see includes.py).
    """
    document = load_document(path)
    scopes = build_root(document, search_directories(tuple(resource_paths or ())), confinement)
    graphs = tuple(FrameGraph(scope) for scope in scopes)
    for graph in graphs:
        graph.validate()
        _validate_axes(graph)
    return ResolvedDocument(document.path, document.version, graphs)


def top_model_pose(graph: FrameGraph) -> Pose:
    """``X_world_model`` of a model that is the file's top element (no world around it)."""
    return graph.scope.pose.compose(graph.placement_pose().inverse())


def _validate_axes(graph: FrameGraph) -> None:
    """Read every joint axis once so that a zero or dangling axis is reported at load time."""
    for d in graph.scope.decls:
        if d.kind == "joint":
            read_axis(graph, d, "axis")
            read_axis(graph, d, "axis2")
        elif d.kind == "model":
            _validate_axes(graph.nested(d.name))
