"""Convex hulls of a few points (a mesh collider's at most 64 hull vertices) and their mass
properties, as PhysX gives a convex mesh collider mass: its hull's volume at the collider's density.
numpy only: the walker weighs mesh colliders with it, and the model builds the contact hulls."""
from __future__ import annotations

import numpy as np


def hull_faces(points: np.ndarray):
    """(faces, tol): the triangles (a, b, c, unit outward normal) of the convex hull of points
    [m, 3], by incremental construction: a tetrahedron of extreme points, then each point outside
    the current faces replaces the faces it sees with the fan from their horizon to it; tol [m] is
    the distance within which a point counts as on a face. None when the points span no volume."""
    n = len(points)
    span = float(np.abs(points - points.mean(axis=0)).max()) if n else 0.0
    if n < 4 or not span > 0.0:
        return None
    tol = 1e-9 * span
    i0 = int(np.argmin(points[:, 0]))
    i1 = int(np.argmax(np.linalg.norm(points - points[i0], axis=1)))
    line = points[i1] - points[i0]
    i2 = int(np.argmax(np.linalg.norm(np.cross(points - points[i0], line), axis=1)))
    normal = np.cross(line, points[i2] - points[i0])
    height = (points - points[i0]) @ normal
    i3 = int(np.argmax(np.abs(height)))
    if np.linalg.norm(normal) <= 1e-12 * span * span or abs(height[i3]) <= 1e-12 * span ** 3:
        return None
    inside = points[[i0, i1, i2, i3]].mean(axis=0)
    faces = []

    def add(a, b, c):
        normal = np.cross(points[b] - points[a], points[c] - points[a])
        if normal @ (points[a] - inside) < 0.0:
            a, b, normal = b, a, -normal
        faces.append((a, b, c, normal / np.linalg.norm(normal)))

    for a, b, c in ((i0, i1, i2), (i0, i1, i3), (i0, i2, i3), (i1, i2, i3)):
        add(a, b, c)
    order = np.argsort(-np.linalg.norm(points - inside, axis=1))
    for k in (int(k) for k in order):
        if k in (i0, i1, i2, i3):
            continue
        x = points[k]
        visible = [f for f in faces if f[3] @ (x - points[f[0]]) > tol]
        if not visible:
            continue
        edges = {(f[e], f[(e + 1) % 3]) for f in visible for e in range(3)}
        faces = [f for f in faces if f[3] @ (x - points[f[0]]) <= tol]
        for a, b in edges:
            if (b, a) not in edges:
                normal = np.cross(points[b] - points[a], x - points[a])
                length = np.linalg.norm(normal)
                if length > 1e-12 * span * span:
                    faces.append((a, b, k, normal / length))
    return faces, tol


def hull_mass_properties(points: np.ndarray):
    """(volume [m^3], centroid [3], inertia per unit density [m^5, 3x3] about the centroid) of
    the convex hull of points [m, 3] (in metres), summed over the tetrahedra its outward
    triangles make with an inner point (the divergence theorem); None when they span no volume."""
    found = hull_faces(points)
    if found is None:
        return None
    faces, _ = found
    origin = points.mean(axis=0)
    p = points - origin
    a = p[[f[0] for f in faces]]
    b = p[[f[1] for f in faces]]
    c = p[[f[2] for f in faces]]
    six_v = np.einsum("ij,ij->i", a, np.cross(b, c))  # 6 x each tetrahedron's signed volume
    volume = float(six_v.sum()) / 6.0
    if not volume > 0.0:
        return None
    centroid = (six_v[:, None] * (a + b + c)).sum(axis=0) / (24.0 * volume)
    # the second moment of each tetrahedron (0, a, b, c): V / 20 (sum v v^T + s s^T), s = a + b + c
    s = a + b + c
    moment = (np.einsum("i,ij,ik->jk", six_v, a, a) + np.einsum("i,ij,ik->jk", six_v, b, b)
              + np.einsum("i,ij,ik->jk", six_v, c, c) + np.einsum("i,ij,ik->jk", six_v, s, s)) / 120.0
    moment -= volume * np.outer(centroid, centroid)
    inertia = np.trace(moment) * np.eye(3) - moment
    return volume, centroid + origin, inertia
