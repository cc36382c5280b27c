"""Loads STL, OBJ and DAE files into triangle arrays through the optional ``trimesh`` library.

``trimesh`` (extra ``mesh``; DAE also needs ``pycollada``) is imported lazily: without it a
mesh is reported as skipped and the conversion goes on. Meshes are cached per file for one
conversion, since robots reuse the same file for visual and collision geometry.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class MeshData:
    """Triangles in the file's own units and frame: ``points`` [n, 3], ``indices`` [m, 3]."""

    points: np.ndarray
    indices: np.ndarray


class MeshUnavailable(Exception):
    """The mesh could not be loaded; the message says why (missing library, unreadable file)."""


class MeshCache:
    def __init__(self):
        self._loaded: dict[str, MeshData | MeshUnavailable] = {}

    def load(self, path: str) -> MeshData:
        if path not in self._loaded:
            try:
                self._loaded[path] = load_mesh(path)
            except MeshUnavailable as error:
                self._loaded[path] = error
        result = self._loaded[path]
        if isinstance(result, MeshUnavailable):
            raise result
        return result


def load_mesh(path: str) -> MeshData:
    """Reads every triangle of ``path`` (scene graphs are flattened with their node transforms)."""
    try:
        import trimesh
    except ImportError as error:
        raise MeshUnavailable("the optional mesh library is missing (pip install 'usdjoints[mesh]')") from error
    try:
        # force="mesh" concatenates a scene's geometry after applying each node's transform
        mesh = trimesh.load(path, force="mesh", process=False)
    except ImportError as error:
        raise MeshUnavailable(f"the reader for this mesh format is missing: {error}") from error
    except Exception as error:  # the library raises many exception types for unreadable files
        raise MeshUnavailable(f"cannot read the mesh: {type(error).__name__}: {error}") from error
    points = np.asarray(getattr(mesh, "vertices", ()), dtype=np.float64).reshape(-1, 3)
    indices = np.asarray(getattr(mesh, "faces", ()), dtype=np.int64).reshape(-1, 3)
    if len(points) == 0 or len(indices) == 0:
        raise MeshUnavailable("the file holds no triangles")
    return MeshData(points, indices)
