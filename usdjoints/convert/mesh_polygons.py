"""Triangulates polygon lists: fans for polygons (exact for convex ones) and triangle strips."""
from __future__ import annotations

import numpy as np


def fans(flat: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Triangle fans [m, 3] of polygons whose ``counts`` corners follow one another in ``flat``."""
    if len(counts) and (counts == 3).all():
        return flat.reshape(-1, 3)
    first, rank = _steps(counts)
    return np.stack([flat[first], flat[first + rank + 1], flat[first + rank + 2]], axis=1)


def strips(flat: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Triangles [m, 3] of triangle strips whose ``counts`` corners follow one another in ``flat``."""
    first, rank = _steps(counts)
    triangles = np.stack([flat[first + rank], flat[first + rank + 1], flat[first + rank + 2]], axis=1)
    odd = rank % 2 == 1  # every other triangle of a strip is wound the other way round
    triangles[odd, 0], triangles[odd, 1] = triangles[odd, 1], triangles[odd, 0].copy()
    return triangles


def _steps(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per triangle: where its polygon's corners start in the flat list, and its rank k in it."""
    per_polygon = np.maximum(counts - 2, 0)  # fewer than three corners make no triangle
    starts = np.cumsum(counts) - counts
    first = np.repeat(starts, per_polygon)
    rank = np.arange(len(first)) - np.repeat(np.cumsum(per_polygon) - per_polygon, per_polygon)
    return first, rank
