"""Contact between primitive colliders: detection, then a dissipative velocity-level impulse solve.

Detection (world frame, after forward kinematics) gives points with a normal n pointing from
collider A to collider B and a depth (> 0 overlapping, < 0 a gap closer than the margin):

* sphere/capsule against sphere/capsule: closest points of their core segments (one point);
* sphere/capsule against a box: each sphere (a capsule's two end spheres) against the box;
* box against box: the corners of each inside (or within the margin of) the other;
* anything against a plane (infinite, normal = its frame's z): the sphere centres or box corners.

Points are reported while two colliders are closer than the margin (the caller's, api.py's
CONTACT_MARGIN, 5 mm by default): speculative contacts, so a body approaching at up to
margin / h lands on the surface in the step instead of inside it.

Impulses (after the step's velocity update): every contact has a normal row and two tangent
rows, solved at the velocity level by projected Gauss-Seidel with the effective inverse
inertia of the step, projected onto the equality constraints (contacts never break a coupling):

* the normal row asks for a separating velocity of at least gap / h for a gap (the pair may
  close it in the step, not more) and 0 for an overlap (restitution 0: the approach stops, no
  push is kept); a bouncy pair meeting this step leaves at e times its approach speed;
* the tangent rows carry Coulomb friction, |lambda_t| <= mu lambda_n (a disc, so the sliding
  force is exactly mu times the normal one); a sticking pair gets the exact minimiser of its
  2 x 2 block;
* each normal row is regularised by a fixed fraction of its own effective inverse mass, so the
  solve is strictly convex and its impulses bounded for any link mass;
* joint rows join the solve for every dof the contact impulses would carry past its limit or
  velocity bound (limits.py's interval of the step), so a contact pressing a limited joint is
  held by the limit in the same solve; the joint rows are swept last, so where the two cannot
  both hold the contact gives way.

Impulses only push (lambda_n >= 0) towards targets <= 0, friction only opposes sliding and the
limits only stop, so the converged impulses do no positive work on the velocity they leave, and
the semi-implicit Euler step then cannot gain energy from them (see _solve); a final scaling of
all impulses by one factor in [0, 1] keeps that true of the iterate the sweeps stopped at.
Overlaps are removed by split impulses: a second solve of the normal (and joint) rows gives a
velocity that moves only this step's positions, at depth / time constant (at most PhysX's
default maxDepenetrationVelocity, 3 m/s), and is then dropped, so pushing an overlap apart adds
no kinetic energy, and a robot whose colliders overlap at the start is not thrown apart.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from . import FMA
from .constraints import accumulate_jacobian, project_out
from .crba import ltdl_solve

# A sweep of the Gauss-Seidel solve that changes no row's velocity by more than this ends it
# [m/s, rad/s]
CONVERGED = 1e-10
SPHERE = 0
CAPSULE = 1
BOX = 2
PLANE = 3
MAX_POINTS_PER_PAIR = 16
# Contacts one step holds at most (the rest of a step's points are dropped): the solve's rows
# [3 n, nv] and its work per step stay bounded whatever the number of collider pairs (a robot
# whose 34 boxes form 500 pairs would otherwise ask for gigabytes before its first step).
MAX_CONTACTS = 256
SETTING_TIME_CONSTANT = 0
SETTING_MARGIN = 1
SETTING_ITERATIONS = 2
SETTING_MAX_DEPENETRATION = 5  # [m/s]; entries 3 and 4 are integrate.py's divergence bounds
# Each contact normal row's compliance as a fraction of its effective inverse mass W_rr (see
# solve_contacts): the response to a contact is then the same for a 1 g link as for a 10 kg one.
REGULARISATION = 1e-6


@njit(cache=True, fastmath=FMA)
def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(cache=True, fastmath=FMA)
def max_contacts(col_type, pairs):
    """Room for one step's contacts: every pair's most points, at most MAX_CONTACTS."""
    total = 0
    for p in range(pairs.shape[0]):
        a = col_type[pairs[p, 0]]
        b = col_type[pairs[p, 1]]
        if a == BOX and b == BOX:
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


@njit(cache=True, fastmath=FMA)
def _push(count, pair, point, normal, depth, margin, pair_out, point_out, normal_out, depth_out):
    if depth <= -margin or count >= depth_out.shape[0]:
        return count
    pair_out[count] = pair
    depth_out[count] = depth
    for a in range(3):
        point_out[count, a] = point[a]
        normal_out[count, a] = normal[a]
    return count + 1


@njit(cache=True, fastmath=FMA)
def _segment(Rc, pc, size, kind, end, out):
    """End ``end`` (0 or 1) of a sphere's (degenerate) or capsule's core segment."""
    half = size[1] if kind == CAPSULE else 0.0
    sign = -1.0 if end == 0 else 1.0
    for a in range(3):
        out[a] = pc[a] + sign * half * Rc[a, 2]


@njit(cache=True, fastmath=FMA)
def _closest_segments(p0, p1, q0, q1, pa, pb):
    """Closest points pa on [p0, p1] and pb on [q0, q1]."""
    d1 = p1 - p0
    d2 = q1 - q0
    r = p0 - q0
    a = _dot(d1, d1)
    e = _dot(d2, d2)
    f = _dot(d2, r)
    if a <= 1e-18 and e <= 1e-18:
        s, t = 0.0, 0.0
    elif a <= 1e-18:
        s, t = 0.0, min(max(f / e, 0.0), 1.0)
    else:
        c = _dot(d1, r)
        if e <= 1e-18:
            t, s = 0.0, min(max(-c / a, 0.0), 1.0)
        else:
            b = _dot(d1, d2)
            denom = a * e - b * b
            s = min(max((b * f - c * e) / denom, 0.0), 1.0) if denom > 1e-18 else 0.5
            t = (b * s + f) / e
            if t < 0.0:
                t, s = 0.0, min(max(-c / a, 0.0), 1.0)
            elif t > 1.0:
                t, s = 1.0, min(max((b - c) / a, 0.0), 1.0)
    for k in range(3):
        pa[k] = p0[k] + s * d1[k]
        pb[k] = q0[k] + t * d2[k]


@njit(cache=True, fastmath=FMA)
def _sphere_box(centre, radius, Rb, pb, half, normal_out, point_out):
    """Depth of a sphere against a box; normal_out points from the sphere into the box."""
    local = np.empty(3)
    clamped = np.empty(3)
    for a in range(3):
        local[a] = Rb[0, a] * (centre[0] - pb[0]) + Rb[1, a] * (centre[1] - pb[1]) + Rb[2, a] * (centre[2] - pb[2])
        clamped[a] = min(max(local[a], -half[a]), half[a])
    inside = True
    for a in range(3):
        if abs(local[a]) > half[a]:
            inside = False
    if not inside:
        diff = np.empty(3)
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


@njit(cache=True, fastmath=FMA)
def _corner(Rc, pc, half, index, out):
    for a in range(3):
        out[a] = pc[a]
        for k in range(3):
            sign = 1.0 if (index >> k) & 1 else -1.0
            out[a] += sign * half[k] * Rc[a, k]


@njit(cache=True, fastmath=FMA)
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
def bounding_radii(col_type, col_size, radius_out):
    """Per collider, the radius [m] of a ball about its origin holding all of it (planes: inf).
    Every point the narrow phase reports lies within its collider's ball (a box corner, or a
    point within the margin of a face), so two colliders whose balls are farther apart than the
    margin have no contact."""
    for c in range(col_type.shape[0]):
        kind = col_type[c]
        if kind == BOX:
            radius_out[c] = math.sqrt(col_size[c, 0] ** 2 + col_size[c, 1] ** 2 + col_size[c, 2] ** 2)
        elif kind == CAPSULE:
            radius_out[c] = col_size[c, 0] + col_size[c, 1]
        elif kind == SPHERE:
            radius_out[c] = col_size[c, 0]
        else:
            radius_out[c] = math.inf


@njit(cache=True, fastmath=FMA)
def _beyond_margin(col_radius, pc, i, j, margin):
    """True when the bounding balls of colliders i and j are farther apart than margin; the
    1e-9 slack keeps round-off in the narrow phase from ever being cut off."""
    reach = (col_radius[i] + col_radius[j] + margin) * (1.0 + 1e-9)
    d0 = pc[i, 0] - pc[j, 0]
    d1 = pc[i, 1] - pc[j, 1]
    d2 = pc[i, 2] - pc[j, 2]
    return d0 * d0 + d1 * d1 + d2 * d2 > reach * reach


@njit(cache=True, fastmath=FMA)
def detect_contacts(col_type, col_size, col_radius, Rc, pc, pairs, margin, work, pair_out,
                    point_out, normal_out, depth_out):
    """Contact points of every pair (see the module docstring); returns their number.
    col_radius [ncollider] from bounding_radii; work [8, 3] is scratch."""
    count = 0
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
            d = pb - pa
            dist = math.sqrt(_dot(d, d))
            for a in range(3):
                n[a] = d[a] / dist if dist > 1e-12 else (1.0 if a == 2 else 0.0)
            depth = col_size[i, 0] + col_size[j, 0] - dist
            for a in range(3):
                x[a] = pa[a] + n[a] * (col_size[i, 0] - 0.5 * depth)
            count = _push(count, p, x, n, depth, margin, pair_out, point_out, normal_out, depth_out)
        elif tj == BOX and ti <= CAPSULE:
            for end in range(2 if ti == CAPSULE else 1):
                _segment(Rc[i], pc[i], col_size[i], ti, end, p0)
                depth = _sphere_box(p0, col_size[i, 0], Rc[j], pc[j], col_size[j], n, x)
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
    return count


@njit(cache=True, fastmath=FMA)
def _tangents(n, t1, t2):
    if abs(n[0]) < 0.9:
        t1[0], t1[1], t1[2] = 0.0, n[2], -n[1]
    else:
        t1[0], t1[1], t1[2] = -n[2], 0.0, n[0]
    norm = math.sqrt(_dot(t1, t1))
    for a in range(3):
        t1[a] /= norm
    t2[0] = n[1] * t1[2] - n[2] * t1[1]
    t2[1] = n[2] * t1[0] - n[0] * t1[2]
    t2[2] = n[0] * t1[1] - n[1] * t1[0]



@njit(cache=True, fastmath=FMA)
def _row_velocity(J, r, w):
    value = 0.0
    for d in range(w.shape[0]):
        value += J[r, d] * w[d]
    return value


@njit(cache=True, fastmath=FMA)
def _add_column(PJ, r, amount, w):
    for d in range(w.shape[0]):
        w[d] += PJ[r, d] * amount


@njit(cache=True, fastmath=FMA)
def _sweeps(J, PJ, diag, w12, n_c, target, reg, mu, floor, friction, n_j, dof_of, PJl, diag_j,
            lo, hi, jbase, floor_j, iterations, w, lam, lam_j):
    """Projected Gauss-Seidel in velocity space: w [nv] is the velocity with the impulses so
    far, each row's velocity J_r w is read from it and each impulse change added to it through
    its column PJ_r = H^-1 J_r (so a sweep costs rows x nv, not rows^2).

    Contact c: a normal row 3c (lam >= 0 asking J w >= target, regularised by reg), then two
    tangent rows in the disc |lam_t| <= mu lam_n when ``friction`` (else left at zero); diag
    holds J_r PJ_r and w12 [n_c] the tangent block's coupling J_r1 PJ_r2. Joint row l holds dof
    dof_of[l] in lo <= jbase + w <= hi (its column PJl[l], diagonal diag_j[l]), pushing only
    towards the bound it holds."""
    for _ in range(iterations):
        change = 0.0  # the largest velocity change [m/s, rad/s] a row's update made this sweep
        for c in range(n_c):
            rn = 3 * c
            if diag[rn] > floor:
                old = lam[rn]
                u = _row_velocity(J, rn, w)
                new = max(0.0, old - (u + reg[rn] * old - target[rn]) / (diag[rn] + reg[rn]))
                if new != old:
                    change = max(change, abs(new - old) * diag[rn])
                    _add_column(PJ, rn, new - old, w)
                    lam[rn] = new
            if not friction:
                continue
            bound = mu[c] * lam[rn]
            r1 = rn + 1
            r2 = rn + 2
            old1 = lam[r1]
            old2 = lam[r2]
            new1, new2 = 0.0, 0.0
            h11 = diag[r1]
            h22 = diag[r2]
            if h11 > floor and h22 > floor and bound > 0.0:
                u1 = _row_velocity(J, r1, w)
                u2 = _row_velocity(J, r2, w)
                # sticking: the exact minimiser of the 2 x 2 friction block (a diagonal step
                # overshoots when both directions move one light link's single freedom)
                h12 = w12[c]
                det = h11 * h22 - h12 * h12
                if det > 1e-9 * h11 * h22:
                    new1 = old1 - (h22 * u1 - h12 * u2) / det
                    new2 = old2 - (h11 * u2 - h12 * u1) / det
                else:  # the two directions move one freedom: the exact step along (1, sgn)
                    sgn = 1.0 if h12 >= 0.0 else -1.0
                    step = (u1 + sgn * u2) / (h11 + h22 + 2.0 * abs(h12))
                    new1 = old1 - step
                    new2 = old2 - sgn * step
                if math.sqrt(new1 * new1 + new2 * new2) > bound:
                    # sliding: the diagonal step, whose projection onto the disc opposes the slip
                    new1 = old1 - u1 / h11
                    new2 = old2 - u2 / h22
                    norm = math.sqrt(new1 * new1 + new2 * new2)
                    if norm > bound:
                        new1 *= bound / norm
                        new2 *= bound / norm
            if new1 != old1 or new2 != old2:
                change = max(change, abs(new1 - old1) * h11, abs(new2 - old2) * h22)
                _add_column(PJ, r1, new1 - old1, w)
                _add_column(PJ, r2, new2 - old2, w)
                lam[r1] = new1
                lam[r2] = new2
        for l in range(n_j):
            dj = diag_j[l]
            if dj <= floor_j:
                continue
            k = dof_of[l]
            old = lam_j[l]
            free = jbase[k] + w[k] - dj * old
            new = 0.0
            if free < lo[k]:
                new = (lo[k] - free) / dj
            elif free > hi[k]:
                new = (hi[k] - free) / dj
            if new != old:
                change = max(change, abs(new - old) * dj)
                _add_column(PJl, l, new - old, w)
                lam_j[l] = new
        if change <= CONVERGED:  # another sweep would move no row's velocity by more
            break


@njit(cache=True, fastmath=FMA)
def _outside(value, lo, hi):
    tol = 1e-9 * (1.0 + abs(value))
    return value < lo - tol or value > hi + tol


@njit(cache=True, fastmath=FMA)
def _solve(dof_parent, LD, G, Y, A, m_eq, lam_eq, J, PJ, diag, w12, n_c, target, reg, mu, floor,
           friction, iterations, jbase, bounds, safeguard, w, lam):
    """Solve the contact rows (see _sweeps) from the velocity w [nv] (updated in place), with
    the joint rows their push would carry past a bound: a joint row (J = e_k) joins while
    jbase + w leaves bounds[0] <= . <= bounds[1] for its dof k (an active set around the
    sweeps), so a contact pressing a limited joint is held by the limit in the same solve
    instead of being undone by it, or undoing it. With ``safeguard`` the velocity change is
    scaled at the end by one s in [0, 1] (all impulses alike: momentum-neutral between links,
    inside every cone) so that the impulses' work on the velocity they leave, lam . J w, is no
    more than the positive targets ask for (restitution 0: none), whatever iterate the sweeps
    stopped at. That work is what decides the step's energy: with v' the velocity after the
    step's forces and a = h H^-1 tau_gravity, the semi-implicit Euler step changes kinetic plus
    potential energy by lam . J w - |a + dw|_H^2 / 2, so impulses that do no positive work on
    the end velocity (an inelastic stop: J w = 0; a gap closing: lam > 0 at J w < 0; friction
    opposing the slip) can only remove energy."""
    nv = w.shape[0]
    rows = 3 * n_c
    for r in range(rows):
        lam[r] = 0.0
    w0 = np.empty(nv)
    for d in range(nv):
        w0[d] = w[d]
    lo = bounds[0]
    hi = bounds[1]
    n_j = 0
    dof_of = np.empty(nv, dtype=np.int64)
    lam_j = np.zeros(nv)
    diag_j = np.empty(nv)
    joined = np.zeros(nv, dtype=np.bool_)
    PJl = np.empty((0, nv))
    floor_j = 0.0
    for _ in range(nv + 1):
        _sweeps(J, PJ, diag, w12, n_c, target, reg, mu, floor, friction, n_j, dof_of, PJl, diag_j,
                lo, hi, jbase, floor_j, iterations, w, lam, lam_j)
        added = False
        for k in range(nv):
            if joined[k] or not _outside(jbase[k] + w[k], lo[k], hi[k]):
                continue
            if PJl.shape[0] == 0:
                PJl = np.empty((nv, nv))
            joined[k] = True
            added = True
            col = PJl[n_j]
            for d in range(nv):
                col[d] = 0.0
            col[k] = 1.0
            ltdl_solve(dof_parent, LD, col)
            if m_eq > 0:
                project_out(G, Y, A, m_eq, col, lam_eq)
            diag_j[n_j] = col[k]
            floor_j = max(floor_j, 1e-9 * col[k])
            dof_of[n_j] = k
            n_j += 1
        if not added:
            break
    if n_j > 0:
        # the limits have the last word: where the sweeps left a contact (one the limit leaves
        # no way to satisfy, a light finger pushed against its stop) and a joint row in
        # conflict, the joint rows alone are swept once more, so the step never carries a
        # joint past its bound and the contact gives way instead
        _sweeps(J, PJ, diag, w12, 0, target, reg, mu, floor, friction, n_j, dof_of, PJl, diag_j,
                lo, hi, jbase, floor_j, iterations, w, lam, lam_j)
    if not safeguard:
        return
    # the work on the end velocity at scale s is s a + s^2 b with dw = w - w0 = sum PJ lam:
    # a = lam . J w0, b = lam . J dw = dw' H dw >= 0
    a = 0.0
    b = 0.0
    budget = 0.0
    for r in range(rows):
        if lam[r] == 0.0:
            continue
        u0 = _row_velocity(J, r, w0)
        a += lam[r] * u0
        b += lam[r] * (_row_velocity(J, r, w) - u0)
        if r % 3 == 0 and target[r] > 0.0:
            budget += lam[r] * target[r]
    for l in range(n_j):
        k = dof_of[l]
        a += lam_j[l] * w0[k]
        b += lam_j[l] * (w[k] - w0[k])
        budget += max(0.0, lam_j[l] * (lo[k] if lam_j[l] > 0.0 else hi[k]))
    s = 1.0
    if a + b > budget:
        if b > 0.0:
            s = max(0.0, min(1.0, (math.sqrt(max(a * a + 4.0 * b * budget, 0.0)) - a) / (2.0 * b)))
        else:
            s = 0.0
    if s < 1.0:
        for d in range(nv):
            w[d] = w0[d] + s * (w[d] - w0[d])


@njit(cache=True, fastmath=FMA)
def solve_contacts(link_table, S, Rw, pw, dof_parent, LD, G, Y, A, m_eq, lam_eq, col_link,
                   col_friction, col_restitution, pairs, n_contacts, pair_of, points, normals,
                   depths, v_start, h, settings, J, PJ, lam, target, bounds, v, bias):
    """Add the contact impulses' velocity change to v [nv] (the end-of-step velocity after the
    limit impulses) and write the position-only correction velocity bias [nv] (split impulses:
    it moves this step's positions, then is dropped); returns True when bias is not zero.
    v_start [nv] is the velocity at the start of the step (for restitution). bounds [2, nv]:
    each dof's velocity interval for this step from limits.limit_impulses (-inf, inf where
    none). J, PJ [3 nc, nv], lam, target [3 nc] are scratch."""
    nv = v.shape[0]
    rows = 3 * n_contacts
    t1 = np.empty(3)
    t2 = np.empty(3)
    dirs = np.empty((3, 3))
    mu = np.empty(n_contacts)
    w12 = np.empty(n_contacts)
    diag = np.empty(rows)
    reg = np.empty(rows)
    max_push = max(settings[SETTING_MAX_DEPENETRATION], 0.0)
    rate = 1.0 / settings[SETTING_TIME_CONSTANT]
    overlapping = False
    for c in range(n_contacts):
        ca = pairs[pair_of[c], 0]
        cb = pairs[pair_of[c], 1]
        mu[c] = 0.5 * (col_friction[ca] + col_friction[cb])
        _tangents(normals[c], t1, t2)
        for a in range(3):
            dirs[0, a] = normals[c, a]
            dirs[1, a] = t1[a]
            dirs[2, a] = t2[a]
        for k in range(3):
            r = 3 * c + k
            for d in range(nv):
                J[r, d] = 0.0
            accumulate_jacobian(link_table, S, Rw, pw, col_link[cb], points[c], dirs[k], False, 1.0, J[r])
            accumulate_jacobian(link_table, S, Rw, pw, col_link[ca], points[c], dirs[k], False, -1.0, J[r])
            for d in range(nv):
                PJ[r, d] = J[r, d]
            ltdl_solve(dof_parent, LD, PJ[r])
            if m_eq > 0:
                project_out(G, Y, A, m_eq, PJ[r], lam_eq)
            diag[r] = _row_velocity(J, r, PJ[r])
        w12[c] = _row_velocity(J, 3 * c + 1, PJ[3 * c + 2])
        e = 0.5 * (col_restitution[ca] + col_restitution[cb])
        target[3 * c + 1] = 0.0
        target[3 * c + 2] = 0.0
        u_n = _row_velocity(J, 3 * c, v_start) if e > 1e-6 else 0.0
        if e > 1e-6 and u_n < 0.0 and (depths[c] >= 0.0 or u_n * h < depths[c]):
            target[3 * c] = min(-e * u_n, max_push)  # an impact this step: Newton's restitution
        elif depths[c] < 0.0:
            target[3 * c] = depths[c] / h  # a gap: approach no faster than closes it in the step
        else:
            target[3 * c] = 0.0  # restitution 0: stop the approach, keep no push
        if depths[c] > 0.0:
            overlapping = True
    # a row the constraints leave (almost) no freedom to move has a round-off diagonal: an
    # impulse target / W on it would be round-off amplified, so such rows carry none
    floor = 0.0
    for r in range(rows):
        floor = max(floor, diag[r])
    floor *= 1e-9
    # Regularisation R_r = REGULARISATION W_rr on the normal rows (a compliance in each row's
    # own effective mass): the solve minimises 1/2 lam'(W + R) lam + lam'(u0 - target) over the
    # friction cones, strictly convex whatever the links' masses, so a link held between two
    # contacts (infeasible rigid targets) gets bounded impulses. The friction rows stay rigid
    # (a resting box must not creep), bounded by the cone of the regularised normal impulse.
    for r in range(rows):
        reg[r] = REGULARISATION * diag[r] if r % 3 == 0 else 0.0
    iterations = int(settings[SETTING_ITERATIONS])
    zero = np.zeros(nv)
    _solve(dof_parent, LD, G, Y, A, m_eq, lam_eq, J, PJ, diag, w12, n_contacts, target, reg, mu,
           floor, True, iterations, zero, bounds, True, v, lam)
    if not overlapping:
        return False
    # Split impulses: overlaps are pushed apart by a velocity that moves only this step's
    # positions (depth / time constant, at most PhysX's maxDepenetrationVelocity), normal rows
    # only, the limits holding against it as against the velocities; it never enters v, so
    # removing an overlap adds no kinetic energy.
    for c in range(n_contacts):
        target[3 * c] = min(depths[c] * rate, max_push) if depths[c] > 0.0 else -math.inf
    for d in range(nv):
        bias[d] = 0.0
    _solve(dof_parent, LD, G, Y, A, m_eq, lam_eq, J, PJ, diag, w12, n_contacts, target, reg, mu,
           floor, False, iterations, v, bounds, False, bias, lam)
    for d in range(nv):
        if bias[d] != 0.0:
            return True
    return False
