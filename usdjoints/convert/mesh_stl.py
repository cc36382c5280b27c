"""Reads binary and ASCII STL files into unshared triangles (three points per triangle).

A binary file is recognised by its size (an 80-byte header, a triangle count, then 50 bytes per
triangle), not by its first bytes: many binary files start with the word ``solid`` too.
"""
from __future__ import annotations

import numpy as np

from .mesh_data import MeshData, MeshUnavailable

_HEADER_BYTES = 84
# normal (3 float32), three corners (9 float32), attribute byte count (uint16)
_RECORD = np.dtype([("normal", "<f4", (3,)), ("corners", "<f4", (3, 3)), ("attribute", "<u2")])


def read_stl(path: str) -> MeshData:
    """Every triangle of the STL file ``path``, in the file's own units."""
    try:
        with open(path, "rb") as stream:
            content = stream.read()
    except OSError as error:
        raise MeshUnavailable(f"cannot read the file: {error.strerror or error}") from error
    if len(content) >= _HEADER_BYTES:
        triangle_count = int(np.frombuffer(content, dtype="<u4", count=1, offset=80)[0])
        if len(content) == _HEADER_BYTES + _RECORD.itemsize * triangle_count:
            return _binary(content, triangle_count)
    if content.lstrip()[:5].lower() == b"solid":
        return _ascii(content)
    if len(content) < _HEADER_BYTES:
        raise MeshUnavailable(f"a binary STL needs at least {_HEADER_BYTES} bytes, the file has {len(content)}")
    expected = _HEADER_BYTES + _RECORD.itemsize * triangle_count
    raise MeshUnavailable(f"binary STL declares {triangle_count} triangles ({expected} bytes) "
                          f"but the file has {len(content)} bytes (truncated?)")


def _binary(content: bytes, triangle_count: int) -> MeshData:
    records = np.frombuffer(content, dtype=_RECORD, count=triangle_count, offset=_HEADER_BYTES)
    points = records["corners"].reshape(-1, 3).astype(np.float64)
    return _unshared(points)


def _ascii(content: bytes) -> MeshData:
    words = np.array(content.lower().split())
    starts = np.flatnonzero(words == b"vertex")
    if len(starts) and starts[-1] + 3 >= len(words):
        raise MeshUnavailable("ASCII STL ends inside a vertex")
    if len(starts) % 3:
        raise MeshUnavailable(f"ASCII STL has {len(starts)} vertices, not a multiple of three")
    try:
        points = words[starts[:, None] + np.arange(1, 4)].astype(np.float64)
    except ValueError as error:
        raise MeshUnavailable(f"ASCII STL has a vertex that is not three numbers: {error}") from error
    return _unshared(points.reshape(-1, 3))


def _unshared(points: np.ndarray) -> MeshData:
    if len(points) == 0:
        raise MeshUnavailable("the file holds no triangles")
    return MeshData(points, np.arange(len(points), dtype=np.int64).reshape(-1, 3))
