"""Contact between primitive colliders: detection (the solve is contact_solve.py).

Detection (world frame, after forward kinematics) gives points with a normal n pointing from
collider A to collider B and a depth (> 0 overlapping, < 0 a gap closer than the margin):

* sphere/capsule against sphere/capsule: closest points of their core segments (one point);
* sphere/capsule against a box: each sphere (a capsule's two end spheres) against the box;
* box against box: the corners of each inside (or within the margin of) the other;
* anything against a plane (infinite, normal = its frame's z): the sphere centres or box corners;
* a convex hull (a mesh's, PhysX's convexHull approximation: its vertices and face planes in
  hull_rows, located by hull_index) against a box or a hull: the vertices of each inside (or
  within the margin of) the other, the depth and normal those of the face plane nearest to the
  vertex; a sphere or capsule end sphere against a hull: its centre's depth below the nearest
  face plane plus the radius; a hull against a plane: its vertices. A hull pair's points are
  reduced to at most HULL_POINTS (the deepest, then each the farthest from those kept). Like
  box against box, only vertices are tested: two hulls crossing edge on edge report no point
  until a vertex comes within the margin, and outside a hull a vertex's distance is taken as its
  largest face-plane distance (a lower bound of the true one: a contact may start early), and a
  vertex on a side face of the other is 0 deep (two equal sections overlapping end on end).

Points are reported while two colliders are closer than the margin (the caller's, api.py's
CONTACT_MARGIN, 5 mm by default): speculative contacts, so a body approaching at up to
margin / h lands on the surface in the step instead of inside it.

The impulse solve that uses these points is contact_solve.py.
"""
from __future__ import annotations

import math

import numpy as np

from . import FMA, INTERNAL, njit, plain_argument_types

SPHERE = 0
CAPSULE = 1
BOX = 2
PLANE = 3
HULL = 4
MAX_POINTS_PER_PAIR = 16
HULL_POINTS = 8  # the most points a pair with a hull reports (the manifold's size in PhysX is 4 to 8)
HULL_INDEX_VERTEX_START = 0  # hull_index columns: where a hull's vertex rows start, how many, then its
HULL_INDEX_VERTEX_COUNT = 1  # face-plane rows (nx, ny, nz, d: n . x <= d inside, collider frame)
HULL_INDEX_FACE_START = 2
HULL_INDEX_FACE_COUNT = 3
# Contacts one step holds at most (the rest of a step's points are dropped): the solve's rows
# [3 n, nv] and its work per step stay bounded whatever the number of collider pairs (a robot
# whose 34 boxes form 500 pairs would otherwise ask for gigabytes before its first step).
MAX_CONTACTS = 256
SETTING_TIME_CONSTANT = 0
SETTING_MARGIN = 1
SETTING_ITERATIONS = 2
SETTING_MAX_DEPENETRATION = 5  # [m/s]; entries 3 and 4 are integrate.py's divergence bounds


@njit(cache=True, fastmath=FMA, **INTERNAL)
def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(cache=True, fastmath=FMA)
def max_contacts(col_type, pairs):
    """Room for one step's contacts: every pair's most points, at most MAX_CONTACTS."""
    total = 0
    for p in range(pairs.shape[0]):
        a = col_type[pairs[p, 0]]
        b = col_type[pairs[p, 1]]
        if a == HULL or b == HULL:
            other = b if a == HULL else a
            total += 1 if other == SPHERE else (2 if other == CAPSULE else HULL_POINTS)
        elif a == BOX and b == BOX:
            total += 16
        elif a == BOX or b == BOX:
            total += 8 if (a == PLANE or b == PLANE) else 2
        else:
            total += 2
    return min(total, MAX_CONTACTS)


@njit(cache=True, fastmath=FMA)
def collider_world_poses(col_link, col_R, col_p, Rw, pw, Rc_out, pc_out):
    for c in range(col_link.shape[0]):
        link = col_link[c]
        for a in range(3):
            if link < 0:
                pc_out[c, a] = col_p[c, a]
                for b in range(3):
                    Rc_out[c, a, b] = col_R[c, a, b]
            else:
                s = pw[link, a]
                for k in range(3):
                    s += Rw[link, a, k] * col_p[c, k]
                pc_out[c, a] = s
                for b in range(3):
                    s = 0.0
                    for k in range(3):
                        s += Rw[link, a, k] * col_R[c, k, b]
                    Rc_out[c, a, b] = s


@plain_argument_types
@njit(cache=True, fastmath=FMA, **INTERNAL)
def _push(count, pair, point, normal, depth, margin, pair_out, point_out, normal_out, depth_out):
    if depth <= -margin or count >= depth_out.shape[0]:
        return count
    pair_out[count] = pair
    depth_out[count] = depth
    for a in range(3):
        point_out[count, a] = point[a]
        normal_out[count, a] = normal[a]
    return count + 1


@plain_argument_types
@njit(cache=True, fastmath=FMA, **INTERNAL)
def _segment(Rc, pc, size, kind, end, out):
    """End ``end`` (0 or 1) of a sphere's (degenerate) or capsule's core segment."""
    half = size[1] if kind == CAPSULE else 0.0
    sign = -1.0 if end == 0 else 1.0
    for a in range(3):
        out[a] = pc[a] + sign * half * Rc[a, 2]


@njit(cache=True, fastmath=FMA, **INTERNAL)
def _closest_segments(p0, p1, q0, q1, pa, pb):
    """Closest points pa on [p0, p1] and pb on [q0, q1]."""
    d1x, d1y, d1z = p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]
    d2x, d2y, d2z = q1[0] - q0[0], q1[1] - q0[1], q1[2] - q0[2]
    rx, ry, rz = p0[0] - q0[0], p0[1] - q0[1], p0[2] - q0[2]
    a = d1x * d1x + d1y * d1y + d1z * d1z
    e = d2x * d2x + d2y * d2y + d2z * d2z
    f = d2x * rx + d2y * ry + d2z * rz
    if a <= 1e-18 and e <= 1e-18:
        s, t = 0.0, 0.0
    elif a <= 1e-18:
        s, t = 0.0, min(max(f / e, 0.0), 1.0)
    else:
        c = d1x * rx + d1y * ry + d1z * rz
        if e <= 1e-18:
            t, s = 0.0, min(max(-c / a, 0.0), 1.0)
        else:
            b = d1x * d2x + d1y * d2y + d1z * d2z
            denom = a * e - b * b
            s = min(max((b * f - c * e) / denom, 0.0), 1.0) if denom > 1e-18 else 0.5
            t = (b * s + f) / e
            if t < 0.0:
                t, s = 0.0, min(max(-c / a, 0.0), 1.0)
            elif t > 1.0:
                t, s = 1.0, min(max((b - c) / a, 0.0), 1.0)
    pa[0], pa[1], pa[2] = p0[0] + s * d1x, p0[1] + s * d1y, p0[2] + s * d1z
    pb[0], pb[1], pb[2] = q0[0] + t * d2x, q0[1] + t * d2y, q0[2] + t * d2z


@njit(cache=True, fastmath=FMA, **INTERNAL)
def _sphere_box(centre, radius, Rb, pb, half, normal_out, point_out, local, clamped, diff):
    """Depth of a sphere against a box; normal_out points from the sphere into the box. local,
    clamped and diff [3] are scratch."""
    for a in range(3):
        local[a] = Rb[0, a] * (centre[0] - pb[0]) + Rb[1, a] * (centre[1] - pb[1]) + Rb[2, a] * (centre[2] - pb[2])
        clamped[a] = min(max(local[a], -half[a]), half[a])
    inside = True
    for a in range(3):
        if abs(local[a]) > half[a]:
            inside = False
    if not inside:
        for a in range(3):
            diff[a] = 0.0
            for k in range(3):
                diff[a] += Rb[a, k] * (local[k] - clamped[k])
        dist = math.sqrt(_dot(diff, diff))
        for a in range(3):
            normal_out[a] = -diff[a] / dist
        depth = radius - dist
    else:
        best = 0
        for a in range(1, 3):
            if half[a] - abs(local[a]) < half[best] - abs(local[best]):
                best = a
        sign = 1.0 if local[best] >= 0.0 else -1.0
        for a in range(3):
            normal_out[a] = -sign * Rb[a, best]
        depth = radius + half[best] - abs(local[best])
    for a in range(3):
        point_out[a] = centre[a] + normal_out[a] * (radius - 0.5 * depth)
    return depth


@njit(cache=True, fastmath=FMA, **INTERNAL)
def _corner(Rc, pc, half, index, out):
    for a in range(3):
        out[a] = pc[a]
        for k in range(3):
            sign = 1.0 if (index >> k) & 1 else -1.0
            out[a] += sign * half[k] * Rc[a, k]


@njit(cache=True, fastmath=FMA, **INTERNAL)
def _point_in_box(point, Rb, pb, half, normal_out):
    """Depth of a point inside a box along the nearest face (negative outside); normal_out is
    that face's outward normal."""
    best = -1
    depth = 1e300
    sign = 1.0
    for a in range(3):
        local = Rb[0, a] * (point[0] - pb[0]) + Rb[1, a] * (point[1] - pb[1]) + Rb[2, a] * (point[2] - pb[2])
        d = half[a] - abs(local)
        if d < depth:
            depth = d
            best = a
            sign = 1.0 if local >= 0.0 else -1.0
            for k in range(3):
                normal_out[k] = sign * Rb[k, a]
    for a in range(3):  # a point beyond any other face is not near this one
        local = Rb[0, a] * (point[0] - pb[0]) + Rb[1, a] * (point[1] - pb[1]) + Rb[2, a] * (point[2] - pb[2])
        if a != best and abs(local) > half[a]:
            return -1e300
    return depth


@njit(cache=True, fastmath=FMA)
def _vertex_count(kind, c, hull_index):
    if kind == BOX:
        return 8
    return hull_index[c, HULL_INDEX_VERTEX_COUNT]


@plain_argument_types
@njit(cache=True, fastmath=FMA)
def _vertex(kind, c, k, Rc, pc, size, hull_rows, hull_index, out):
    """World position of vertex k of box or hull c."""
    if kind == BOX:
        _corner(Rc[c], pc[c], size[c], k, out)
        return
    row = hull_index[c, HULL_INDEX_VERTEX_START] + k
    for a in range(3):
        s = pc[c, a]
        for b in range(3):
            s += Rc[c, a, b] * hull_rows[row, b]
        out[a] = s


@njit(cache=True, fastmath=FMA)
def _point_in_hull(point, c, Rc, pc, hull_rows, hull_index, normal_out):
    """Depth of a point below the nearest face plane of hull c (negative outside: minus its
    largest face-plane distance); normal_out is that face's outward normal (world)."""
    l0, l1, l2 = point[0] - pc[c, 0], point[1] - pc[c, 1], point[2] - pc[c, 2]
    local0 = Rc[c, 0, 0] * l0 + Rc[c, 1, 0] * l1 + Rc[c, 2, 0] * l2
    local1 = Rc[c, 0, 1] * l0 + Rc[c, 1, 1] * l1 + Rc[c, 2, 1] * l2
    local2 = Rc[c, 0, 2] * l0 + Rc[c, 1, 2] * l1 + Rc[c, 2, 2] * l2
    start = hull_index[c, HULL_INDEX_FACE_START]
    best = start
    depth = 1e300
    for f in range(start, start + hull_index[c, HULL_INDEX_FACE_COUNT]):
        d = hull_rows[f, 3] - (hull_rows[f, 0] * local0 + hull_rows[f, 1] * local1 + hull_rows[f, 2] * local2)
        if d < depth:
            depth = d
            best = f
    for a in range(3):
        normal_out[a] = Rc[c, a, 0] * hull_rows[best, 0] + Rc[c, a, 1] * hull_rows[best, 1] + Rc[c, a, 2] * hull_rows[best, 2]
    return depth


@plain_argument_types
@njit(cache=True, fastmath=FMA)
def _keep(cand_n, cand_x, cand_normal, cand_depth, taken, margin, pair, count, pair_out, point_out,
          normal_out, depth_out):
    """Push at most HULL_POINTS of the cand_n candidates: the deepest, then each time the one
    farthest from those already pushed (points closer than 1e-6 m to a kept one are dropped).
    taken bool [>= cand_n] is scratch."""
    start = count
    for k in range(cand_n):
        taken[k] = False
    for _ in range(HULL_POINTS):
        best = -1
        best_score = -1.0
        for k in range(cand_n):
            if taken[k] or cand_depth[k] <= -margin:
                continue
            if count == start:  # the deepest first
                score = 1.0e3 + cand_depth[k]
            else:
                score = 1e300
                for m in range(start, count):
                    d0 = cand_x[k, 0] - point_out[m, 0]
                    d1 = cand_x[k, 1] - point_out[m, 1]
                    d2 = cand_x[k, 2] - point_out[m, 2]
                    score = min(score, d0 * d0 + d1 * d1 + d2 * d2)
                if score < 1e-12:
                    taken[k] = True
                    continue
            if score > best_score:
                best_score = score
                best = k
        if best < 0:
            break
        taken[best] = True
        pushed = _push(count, pair, cand_x[best], cand_normal[best], cand_depth[best], margin,
                       pair_out, point_out, normal_out, depth_out)
        if pushed == count:  # the step's buffer is full
            break
        count = pushed
    return count


@njit(cache=True, fastmath=FMA)
def bounding_radii(col_type, col_size, radius_out):
    """Per collider, the radius [m] of a ball about its origin holding all of it (planes: inf).
    Every point the narrow phase reports lies within its collider's ball (a box corner, or a
    point within the margin of a face), so two colliders whose balls are farther apart than the
    margin have no contact."""
    for c in range(col_type.shape[0]):
        kind = col_type[c]
        if kind == BOX or kind == HULL:  # a hull's size is the half extents of its box about its origin
            radius_out[c] = math.sqrt(col_size[c, 0] ** 2 + col_size[c, 1] ** 2 + col_size[c, 2] ** 2)
        elif kind == CAPSULE:
            radius_out[c] = col_size[c, 0] + col_size[c, 1]
        elif kind == SPHERE:
            radius_out[c] = col_size[c, 0]
        else:
            radius_out[c] = math.inf


@njit(cache=True, fastmath=FMA, **INTERNAL)
def _beyond_margin(col_radius, pc, i, j, margin):
    """True when the bounding balls of colliders i and j are farther apart than margin; the
    1e-9 slack keeps round-off in the narrow phase from ever being cut off."""
    reach = (col_radius[i] + col_radius[j] + margin) * (1.0 + 1e-9)
    d0 = pc[i, 0] - pc[j, 0]
    d1 = pc[i, 1] - pc[j, 1]
    d2 = pc[i, 2] - pc[j, 2]
    return d0 * d0 + d1 * d1 + d2 * d2 > reach * reach


@njit(cache=True, fastmath=FMA)
def detect_workspace(col_type, hull_index):
    """detect_contacts' scratch, allocated once per trajectory (an allocation in the step is a
    call and reference counts on the array): points [12, 3], then the candidates of one pair
    with a hull (points [m, 3], normals [m, 3], depths [m], taken flags [m]), m = twice the most
    vertices of a hull or box."""
    most = 0
    for c in range(col_type.shape[0]):
        if col_type[c] == HULL:
            most = max(most, hull_index[c, HULL_INDEX_VERTEX_COUNT])
    most = 2 * max(most, 8)
    return (np.empty((12, 3)), np.empty((most, 3)), np.empty((most, 3)), np.empty(most),
            np.empty(most, dtype=np.bool_))


@njit(cache=True, fastmath=FMA)
def detect_contacts(col_type, col_size, col_radius, hull_rows, hull_index, Rc, pc, pairs, pair_allowance,
                    margin, scratch, pair_out, point_out, normal_out, depth_out) -> int:
    """Contact points of every pair (see the module docstring); returns their number.
    col_radius [ncollider] from bounding_radii; hull_rows [nrow, 4] and hull_index [ncollider, 4]
    the hulls' vertices and face planes (PackedModel); pair_allowance [npair] [m] an overlap
    each pair keeps (its points' depths are reported less it: 0 for the true depths); scratch
    from detect_workspace."""
    count = 0
    work, cand_x, cand_normal, cand_depth, taken = scratch
    y = work[8]
    p0 = work[0]
    p1 = work[1]
    q0 = work[2]
    q1 = work[3]
    pa = work[4]
    pb = work[5]
    n = work[6]
    x = work[7]
    for p in range(pairs.shape[0]):
        i = pairs[p, 0]
        j = pairs[p, 1]
        ti = col_type[i]
        tj = col_type[j]
        if _beyond_margin(col_radius, pc, i, j, margin):
            continue
        flip = 1.0
        if ti > tj:  # handle (A, B) with A's type <= B's; flip the normal back afterwards
            i, j, ti, tj = j, i, tj, ti
            flip = -1.0
        start = count
        if tj <= CAPSULE:
            _segment(Rc[i], pc[i], col_size[i], ti, 0, p0)
            _segment(Rc[i], pc[i], col_size[i], ti, 1, p1)
            _segment(Rc[j], pc[j], col_size[j], tj, 0, q0)
            _segment(Rc[j], pc[j], col_size[j], tj, 1, q1)
            _closest_segments(p0, p1, q0, q1, pa, pb)
            dx, dy, dz = pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]
            dist = math.sqrt(dx * dx + dy * dy + dz * dz)
            if dist > 1e-12:
                n[0], n[1], n[2] = dx / dist, dy / dist, dz / dist
            else:
                n[0], n[1], n[2] = 0.0, 0.0, 1.0
            depth = col_size[i, 0] + col_size[j, 0] - dist
            for a in range(3):
                x[a] = pa[a] + n[a] * (col_size[i, 0] - 0.5 * depth)
            count = _push(count, p, x, n, depth, margin, pair_out, point_out, normal_out, depth_out)
        elif tj == BOX and ti <= CAPSULE:
            for end in range(2 if ti == CAPSULE else 1):
                _segment(Rc[i], pc[i], col_size[i], ti, end, p0)
                depth = _sphere_box(p0, col_size[i, 0], Rc[j], pc[j], col_size[j], n, x, work[9],
                                    work[10], work[11])
                count = _push(count, p, x, n, depth, margin, pair_out, point_out, normal_out, depth_out)
        elif tj == BOX:
            for side in range(2):
                a_, b_ = (i, j) if side == 0 else (j, i)
                for corner in range(8):
                    _corner(Rc[a_], pc[a_], col_size[a_], corner, x)
                    depth = _point_in_box(x, Rc[b_], pc[b_], col_size[b_], n)
                    if side == 0:  # n is B's outward normal: A -> B is its opposite
                        for a in range(3):
                            n[a] = -n[a]
                    count = _push(count, p, x, n, depth, margin, pair_out, point_out, normal_out, depth_out)
        elif tj == HULL and ti <= CAPSULE:
            for end in range(2 if ti == CAPSULE else 1):
                _segment(Rc[i], pc[i], col_size[i], ti, end, p0)
                depth = col_size[i, 0] + _point_in_hull(p0, j, Rc, pc, hull_rows, hull_index, n)
                for a in range(3):
                    n[a] = -n[a]  # the face's outward normal points at the sphere: A -> B is its opposite
                    x[a] = p0[a] + n[a] * (col_size[i, 0] - 0.5 * depth)
                count = _push(count, p, x, n, depth, margin, pair_out, point_out, normal_out, depth_out)
        elif tj == HULL and ti == PLANE:
            m = 0
            for k in range(hull_index[j, HULL_INDEX_VERTEX_COUNT]):
                _vertex(HULL, j, k, Rc, pc, col_size, hull_rows, hull_index, p0)
                height = 0.0
                for a in range(3):
                    height += Rc[i, a, 2] * (p0[a] - pc[i, a])
                cand_depth[m] = -height
                for a in range(3):
                    cand_normal[m, a] = Rc[i, a, 2]  # from the plane into the hull
                    cand_x[m, a] = p0[a] - 0.5 * height * Rc[i, a, 2]
                m += 1
            count = _keep(m, cand_x, cand_normal, cand_depth, taken, margin, p, count, pair_out,
                          point_out, normal_out, depth_out)
        elif tj == HULL:  # a box or a hull against a hull: the vertices of each inside the other
            m = 0
            for side in range(2):
                a_, b_ = (i, j) if side == 0 else (j, i)
                for k in range(_vertex_count(col_type[a_], a_, hull_index)):
                    _vertex(col_type[a_], a_, k, Rc, pc, col_size, hull_rows, hull_index, y)
                    if col_type[b_] == HULL:
                        depth = _point_in_hull(y, b_, Rc, pc, hull_rows, hull_index, n)
                    else:
                        depth = _point_in_box(y, Rc[b_], pc[b_], col_size[b_], n)
                    sign = -1.0 if side == 0 else 1.0  # n is B's outward normal on side 0: A -> B is its opposite
                    cand_depth[m] = depth
                    for a in range(3):
                        cand_normal[m, a] = sign * n[a]
                        cand_x[m, a] = y[a]
                    m += 1
            count = _keep(m, cand_x, cand_normal, cand_depth, taken, margin, p, count, pair_out,
                          point_out, normal_out, depth_out)
        elif tj == PLANE and ti != PLANE:
            for a in range(3):
                n[a] = -Rc[j, a, 2]  # from A into the plane
            ends = 8 if ti == BOX else (2 if ti == CAPSULE else 1)
            radius = 0.0 if ti == BOX else col_size[i, 0]
            for e in range(ends):
                if ti == BOX:
                    _corner(Rc[i], pc[i], col_size[i], e, p0)
                else:
                    _segment(Rc[i], pc[i], col_size[i], ti, e, p0)
                height = 0.0
                for a in range(3):
                    height -= n[a] * (p0[a] - pc[j, a])
                depth = radius - height
                for a in range(3):
                    x[a] = p0[a] + n[a] * (radius - 0.5 * depth)
                count = _push(count, p, x, n, depth, margin, pair_out, point_out, normal_out, depth_out)
        if flip < 0.0:
            for c in range(start, count):
                for a in range(3):
                    normal_out[c, a] = -normal_out[c, a]
        if pair_allowance[p] != 0.0:
            for c in range(start, count):
                depth_out[c] -= pair_allowance[p]
    return count


