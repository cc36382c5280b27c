"""Reads the positions and faces of a Wavefront OBJ file; polygons become triangle fans.

Only ``v`` and ``f`` statements carry geometry here; texture coordinates, normals, groups,
materials, lines and points are skipped. A face corner may be ``i``, ``i/j``, ``i/j/k`` or
``i//k``; a negative index counts back from the last position defined before the face.
"""
from __future__ import annotations

import numpy as np

from .mesh_data import MeshData, MeshUnavailable, referenced_only


def read_obj(path: str) -> MeshData:
    """Every face of the OBJ file ``path`` as triangles, in the file's own units."""
    try:
        with open(path, "rb") as stream:
            text = stream.read().decode("utf-8", errors="replace")
    except OSError as error:
        raise MeshUnavailable(f"cannot read the file: {error.strerror or error}") from error
    positions: list[list[str]] = []
    triangles: list[tuple[int, int, int]] = []
    # a trailing backslash continues a statement on the next line
    for line_number, line in enumerate(text.replace("\\\n", " ").splitlines(), start=1):
        words = line.split()
        if not words:
            continue
        if words[0] == "v":
            if len(words) < 4:
                raise MeshUnavailable(f"line {line_number}: a position needs three numbers")
            positions.append(words[1:4])
        elif words[0] == "f":
            corners = [_position_index(word, len(positions), line_number) for word in words[1:]]
            if len(corners) < 3:
                raise MeshUnavailable(f"line {line_number}: a face needs at least three corners")
            first = corners[0]
            triangles.extend((first, corners[k], corners[k + 1]) for k in range(1, len(corners) - 1))
    try:
        points = np.array(positions, dtype=np.float64).reshape(-1, 3)
    except ValueError as error:
        raise MeshUnavailable(f"a position is not a number: {error}") from error
    indices = np.array(triangles, dtype=np.int64).reshape(-1, 3)
    if len(indices) and indices.max() >= len(points):
        raise MeshUnavailable(f"face index {indices.max() + 1} is out of range ({len(points)} positions)")
    return referenced_only(points, indices)


def _position_index(word: str, defined: int, line_number: int) -> int:
    """The zero-based position index of one face corner (``i``, ``i/j``, ``i/j/k`` or ``i//k``)."""
    try:
        index = int(word.partition("/")[0])
    except ValueError:
        raise MeshUnavailable(f"line {line_number}: face corner {word!r} is not an index") from None
    if index > 0:
        return index - 1  # may name a position defined further down; checked once all are read
    if index == 0 or defined + index < 0:
        raise MeshUnavailable(f"line {line_number}: face index {index} is out of range "
                              f"({defined} positions defined so far)")
    return defined + index
