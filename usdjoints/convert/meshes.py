"""Loads mesh files into triangle arrays: STL, OBJ and DAE by our own readers, others via ``trimesh``.

The extension picks the reader (case-insensitive). Formats we do not read go to the optional
``trimesh`` library (extra ``mesh``) when it is installed; without it such a mesh is reported as
skipped and the conversion goes on. A file whose extension names no mesh format (``/etc/passwd``,
``notes.txt``) is not opened: :class:`NotAMesh`. Meshes are cached per file for one conversion, since robots
reuse the same file for visual and collision geometry.
"""
from __future__ import annotations

import os

import numpy as np

from .mesh_data import MeshData, MeshUnavailable, NotAMesh

__all__ = ["MeshCache", "MeshData", "MeshUnavailable", "NotAMesh", "MESH_EXTENSIONS", "load_mesh"]

# read by our own readers
OWN_EXTENSIONS = (".stl", ".obj", ".dae")
# mesh formats the optional trimesh library reads (its loaders for meshes and scenes)
TRIMESH_EXTENSIONS = (".ply", ".off", ".glb", ".gltf", ".3mf", ".3dxml", ".xaml")
MESH_EXTENSIONS = OWN_EXTENSIONS + TRIMESH_EXTENSIONS


class MeshCache:
    def __init__(self):
        self._loaded: dict[str, MeshData | MeshUnavailable] = {}
        # per file, what a writer derived from its MeshData (e.g. the USD arrays), kept as long
        # as the meshes themselves
        self.usd_arrays: dict[str, tuple] = {}

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
    extension = os.path.splitext(path)[1].lower()
    if extension == ".stl":
        from .mesh_stl import read_stl
        return read_stl(path)
    if extension == ".obj":
        from .mesh_obj import read_obj
        return read_obj(path)
    if extension == ".dae":
        from .mesh_dae import read_dae
        return read_dae(path)
    if extension not in TRIMESH_EXTENSIONS:
        kind = f"extension {extension!r}" if extension else "no extension"
        raise NotAMesh(f"not a mesh file ({kind}; mesh formats are {', '.join(MESH_EXTENSIONS)})")
    return _load_with_trimesh(path)


def _load_with_trimesh(path: str) -> MeshData:
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
