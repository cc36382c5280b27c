"""Reads the positions and faces of a Wavefront OBJ file; polygons become triangle fans.

Only ``v`` and ``f`` statements carry geometry here; texture coordinates, normals, groups,
materials, lines and points are skipped. A face corner may be ``i``, ``i/j``, ``i/j/k`` or
``i//k``; a negative index counts back from the last position defined before the face. Numbers
are parsed a whole statement kind at a time (one numpy call), not line by line.
"""
from __future__ import annotations

import re

import numpy as np

from .mesh_data import MeshData, MeshUnavailable, referenced_only
from .mesh_polygons import fans

_AFTER_SLASH = re.compile(r"/\S*")  # the texture and normal indices of a face corner


def read_obj(path: str) -> MeshData:
    """Every face of the OBJ file ``path`` as triangles, in the file's own units."""
    try:
        with open(path, "rb") as stream:
            text = stream.read().decode("utf-8", errors="replace")
    except OSError as error:
        raise MeshUnavailable(f"cannot read the file: {error.strerror or error}") from error
    # a trailing backslash continues a statement on the next line
    text = text.replace("\t", " ").replace("\\\r\n", " ").replace("\\\n", " ")
    lines = [line.strip() for line in text.splitlines()]
    heads = np.array([line[:2] for line in lines])
    is_position, is_face = heads == "v ", heads == "f "
    points = _positions([lines[k] for k in np.flatnonzero(is_position)])
    face_lines = np.flatnonzero(is_face)
    if len(face_lines) == 0:
        raise MeshUnavailable("the file holds no triangles")
    faces = [lines[k][2:] for k in face_lines]
    counts = np.array([len(face.split()) for face in faces], dtype=np.int64)
    if (counts < 3).any():
        line = face_lines[np.argmax(counts < 3)] + 1
        raise MeshUnavailable(f"line {line}: a face needs at least three corners")
    try:
        written = np.fromstring(_AFTER_SLASH.sub("", " ".join(faces)), dtype=np.int64, sep=" ")
    except ValueError:
        raise MeshUnavailable("a face corner is not an index") from None
    if len(written) != counts.sum():
        raise MeshUnavailable("a face corner is not an index")
    # positions defined before each corner's face, for the relative (negative) indices
    defined = np.repeat(np.cumsum(is_position)[face_lines], counts)
    corners = np.where(written > 0, written - 1, defined + written)
    bad = (written == 0) | (corners < 0) | (corners >= len(points))
    if bad.any():
        first = int(np.argmax(bad))
        line = face_lines[np.searchsorted(np.cumsum(counts), first, side="right")] + 1
        raise MeshUnavailable(f"line {line}: face index {int(written[first])} is out of range "
                              f"({int(defined[first])} positions defined before it, {len(points)} in all)")
    return referenced_only(points, fans(corners, counts))


def _positions(statements: list[str]) -> np.ndarray:
    """The [n, 3] points of ``v x y z [w | r g b]`` statements."""
    words = [statement.split() for statement in statements]
    if any(len(statement) < 4 for statement in words):
        raise MeshUnavailable("a position needs three numbers")
    try:
        if all(len(statement) == 4 for statement in words):
            return np.fromstring(" ".join(statement[2:] for statement in statements), sep=" ").reshape(-1, 3)
        # some statements carry a weight or a colour after x y z
        return np.array([statement[1:4] for statement in words], dtype=np.float64).reshape(-1, 3)
    except ValueError as error:
        raise MeshUnavailable(f"a position is not three numbers: {error}") from error
