"""The triangles a mesh reader hands the converters, and the error a reader raises."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class MeshData:
    """Triangles in the file's frame: ``points`` [n, 3] float64, ``indices`` [m, 3] int64.

    Lengths are in the file's own units; a COLLADA file's ``<unit meter>`` is already applied.
    """

    points: np.ndarray
    indices: np.ndarray


class MeshUnavailable(Exception):
    """The mesh could not be loaded; the message says why (missing library, unreadable file)."""


class NotAMesh(MeshUnavailable):
    """The file is not of a mesh format at all (e.g. a text file named as a mesh)."""


def referenced_only(points: np.ndarray, indices: np.ndarray) -> MeshData:
    """The mesh without the points no triangle uses.

    Unused points would still widen the written extent and the convex hull a physics engine
    builds from the points, so they are dropped.
    """
    if len(indices) == 0:
        raise MeshUnavailable("the file holds no triangles")
    used = np.zeros(len(points), dtype=bool)
    used[indices] = True
    if used.all():
        return MeshData(points, indices)
    new_index = np.cumsum(used) - 1
    return MeshData(np.ascontiguousarray(points[used]), new_index[indices])
