"""The bound rows of the limit solve (limits.limit_impulses): one row per distance joint, per
limit of a loop-closing hinge or slider and per spherical joint's cone (model/articulated.py's
BOUND_* kinds), each a Jacobian row J[j] and a value bounded as a joint's position is; and the
drives of loop-closing hinges and sliders on their rows (ROW_DRIVE_* columns), integrated
implicitly as the tree's drives are."""
from __future__ import annotations

import math

import numpy as np

from ...model.articulated import (
    BOUND_ANGLE, BOUND_CONE, BOUND_DISTANCE, BOUND_SLIDE, DRIVE_ACCELERATION, DRIVE_NONE,
    ROW_DRIVE_DAMPING, ROW_DRIVE_MAX_FORCE, ROW_DRIVE_STIFFNESS, ROW_DRIVE_TARGET_POSITION,
    ROW_DRIVE_TARGET_VELOCITY, ROW_DRIVE_TYPE,
)
from . import FMA, INTERNAL, WRAPPERLESS, njit
from .constraints import accumulate_jacobian
from .rows import bound_interval, cholesky_solve, inverse_column, row_dot, row_dot_column

# a swing this small [rad] has no direction: the cone row is left out that step (well inside)
CONE_FLOOR = 1e-9
# anchors closer than this [m] give the distance no direction: the row is left out that step
DISTANCE_FLOOR = 1e-9


@njit(cache=True, fastmath=FMA, **WRAPPERLESS)
def distance_rows(link_table, S, I6, Rw, pw, distances, drives, h, J, nv, lo, hi, lo_b, hi_b,
                   values, inertia):
    """Each bound row's J[j], its value at values[nv + j] (nan for a row left out this step) and its
    intervals at rows nv + j (see limit_impulses); True when some row starts outside its bounds. A
    row with an acceleration drive (drives, or None) gets its free-body inertia at inertia[nv + j]
    (_free_inertia). A row is, by its kind (model/articulated.py BOUND_*), a distance joint's
    anchor distance, a loop-closing hinge's angle (the rotation of side 1's frame about side 0's x
    axis, the hinge axis), a loop-closing slider's travel (side 1's anchor along side 0's x axis)
    or a spherical joint's swing (of side 1's x axis from side 0's, its bounds the cone's
    half-angles about side 0's y and z axes)."""
    dist_link, dist_anchor, dist_frame, dist_bounds, dist_kind = distances
    ends = np.empty((3, 3))  # anchor A, anchor B, the row's unit direction (world)
    M6 = np.empty((6, 7))    # a link's spatial inertia and a right-hand side (_free_inertia)
    axes = np.empty((2, 3, 3))  # each side's frame in the world (columns: its x, y, z axes)
    outside = False
    for j in range(J.shape[0]):
        k = nv + j
        lo[k] = -math.inf
        hi[k] = math.inf
        lo_b[k] = -math.inf
        hi_b[k] = math.inf
        values[k] = math.nan
        for d in range(nv):
            J[j, d] = 0.0
        kind = dist_kind[j]
        for side in range(2):
            link = dist_link[j, side]
            for a in range(3):
                value = dist_anchor[j, side, a]
                if link >= 0:
                    value = pw[link, a]
                    for b in range(3):
                        value += Rw[link, a, b] * dist_anchor[j, side, b]
                ends[side, a] = value
                if kind == BOUND_DISTANCE:
                    continue  # a distance row reads no frame
                for c in range(3):
                    frame = dist_frame[j, side, a, c]
                    if link >= 0:
                        frame = 0.0
                        for b in range(3):
                            frame += Rw[link, a, b] * dist_frame[j, side, b, c]
                    axes[side, a, c] = frame
        if kind == BOUND_CONE:
            # the swing of side 1's x axis from side 0's: its angle, about the unit axis a0 x a1
            cos_swing = 0.0
            for a in range(3):
                cos_swing += axes[0, a, 0] * axes[1, a, 0]
            ends[2, 0] = axes[0, 1, 0] * axes[1, 2, 0] - axes[0, 2, 0] * axes[1, 1, 0]
            ends[2, 1] = axes[0, 2, 0] * axes[1, 0, 0] - axes[0, 0, 0] * axes[1, 2, 0]
            ends[2, 2] = axes[0, 0, 0] * axes[1, 1, 0] - axes[0, 1, 0] * axes[1, 0, 0]
            sin_swing = math.sqrt(ends[2, 0] * ends[2, 0] + ends[2, 1] * ends[2, 1] + ends[2, 2] * ends[2, 2])
            if not sin_swing > CONE_FLOOR:
                continue
            for a in range(3):
                ends[2, a] /= sin_swing
            value = math.atan2(sin_swing, cos_swing)
            # the elliptical cone's half-angle about this swing axis (side 0's y and z components),
            # as PhysX bounds the swing: tan(angle / 4) within the ellipse of tan(half-angle / 4)
            n_y = ends[2, 0] * axes[0, 0, 1] + ends[2, 1] * axes[0, 1, 1] + ends[2, 2] * axes[0, 2, 1]
            n_z = ends[2, 0] * axes[0, 0, 2] + ends[2, 1] * axes[0, 1, 2] + ends[2, 2] * axes[0, 2, 2]
            t_y = n_y / math.tan(0.25 * dist_bounds[j, 0])
            t_z = n_z / math.tan(0.25 * dist_bounds[j, 1])
            bound = 4.0 * math.atan(1.0 / math.sqrt(t_y * t_y + t_z * t_z))
            accumulate_jacobian(link_table, S, Rw, pw, dist_link[j, 1], ends[1], ends[2], True, 1.0, J[j])
            accumulate_jacobian(link_table, S, Rw, pw, dist_link[j, 0], ends[0], ends[2], True, -1.0, J[j])
            values[k] = value
            if bound_interval(k, value, -math.inf, bound, h, lo, hi, lo_b, hi_b):
                outside = True
            continue
        if kind == BOUND_DISTANCE:
            length = 0.0
            for a in range(3):
                ends[2, a] = ends[1, a] - ends[0, a]
                length += ends[2, a] * ends[2, a]
            value = math.sqrt(length)
            if not value > DISTANCE_FLOOR:
                continue
            for a in range(3):
                ends[2, a] /= value
        else:
            for a in range(3):
                ends[2, a] = axes[0, a, 0]
        if kind == BOUND_ANGLE:
            # side 1's y axis in side 0's (y, z) plane: cos and sin of the hinge angle
            cos_y = axes[0, 0, 1] * axes[1, 0, 1] + axes[0, 1, 1] * axes[1, 1, 1] + axes[0, 2, 1] * axes[1, 2, 1]
            sin_y = axes[0, 0, 2] * axes[1, 0, 1] + axes[0, 1, 2] * axes[1, 1, 1] + axes[0, 2, 2] * axes[1, 2, 1]
            value = math.atan2(sin_y, cos_y)
            accumulate_jacobian(link_table, S, Rw, pw, dist_link[j, 1], ends[1], ends[2], True, 1.0, J[j])
            accumulate_jacobian(link_table, S, Rw, pw, dist_link[j, 0], ends[0], ends[2], True, -1.0, J[j])
        else:
            if kind == BOUND_SLIDE:
                value = 0.0
                for a in range(3):
                    value += ends[2, a] * (ends[1, a] - ends[0, a])
            accumulate_jacobian(link_table, S, Rw, pw, dist_link[j, 1], ends[1], ends[2], False, 1.0, J[j])
            accumulate_jacobian(link_table, S, Rw, pw, dist_link[j, 0], ends[0], ends[2], False, -1.0, J[j])
        values[k] = value
        if drives is not None:
            if int(drives[j, ROW_DRIVE_TYPE]) == DRIVE_ACCELERATION:
                inertia[k] = _free_inertia(I6, Rw, pw, dist_link[j], ends, kind == BOUND_ANGLE, M6)
        if bound_interval(k, value, dist_bounds[j, 0], dist_bounds[j, 1], h, lo, hi, lo_b, hi_b):
            outside = True
    return outside


@njit(cache=True, fastmath=FMA, **WRAPPERLESS)
def _free_inertia(I6, Rw, pw, links, ends, angular, M6):
    """1 / (sum over the row's two links of j^T I6^-1 j): the inertia a bound row (direction
    ends[2] at the anchors ends[0], ends[1], world) sees from its two links as free bodies, the
    rest of the articulation ignored; 0 when a link has no invertible inertia. j is the row in the
    link's coordinates, angular part first as I6: (a, 0) for a hinge's angle, (d x a, a) for a
    translation at the anchor d from the link's origin. This is the scale PhysX gives an
    acceleration drive of a joint outside the articulation (measured with ovphysx 0.7, see
    tests/sim/test_loop_drives.py)."""
    response = 0.0
    a = np.empty(3)  # the row's direction and the anchor in the link's coordinates
    d = np.empty(3)
    j = np.empty(6)  # the row in the link's coordinates
    for side in range(2):
        link = links[side]
        if link < 0:
            continue  # the world moves nothing
        for c in range(3):
            a[c] = 0.0
            d[c] = 0.0
            for b in range(3):
                a[c] += Rw[link, b, c] * ends[2, b]
                d[c] += Rw[link, b, c] * (ends[side, b] - pw[link, b])
        for r in range(6):
            for c in range(6):
                M6[r, c] = I6[link, r, c]
        if angular:
            for c in range(3):
                M6[c, 6] = a[c]
                M6[3 + c, 6] = 0.0
        else:
            M6[0, 6] = d[1] * a[2] - d[2] * a[1]
            M6[1, 6] = d[2] * a[0] - d[0] * a[2]
            M6[2, 6] = d[0] * a[1] - d[1] * a[0]
            for c in range(3):
                M6[3 + c, 6] = a[c]
        for r in range(6):
            j[r] = M6[r, 6]
        for c in range(6):  # Gaussian elimination (I6 is symmetric positive definite)
            pivot = M6[c, c]
            if not pivot > 1e-300:
                return 0.0
            for r in range(c + 1, 6):
                factor = M6[r, c] / pivot
                for b in range(c, 7):
                    M6[r, b] -= factor * M6[c, b]
        for r in range(5, -1, -1):
            x = M6[r, 6]
            for b in range(r + 1, 6):
                x -= M6[r, b] * M6[b, 6]
            M6[r, 6] = x / M6[r, r]
        for r in range(6):
            response += j[r] * M6[r, 6]
    return 1.0 / response if response > 0.0 and math.isfinite(response) else 0.0


@njit(cache=True, fastmath=FMA, **INTERNAL)
def drive_impulses(dof_parent, LD, J, kind, drive, values, inertia, h, v, C, A, rhs, lam, x, rows,
                   fixed, G, Y, A_eq, m_eq, lam_eq):
    """Apply the drives of the bound rows (loop-closing hinges and sliders, drive [nd,
    ROW_DRIVE_COLUMNS], kind [nd] their BOUND_*) to v [nv] as impulses lam_j J[j]^T through H^-1,
    integrated implicitly as the tree's drives are: row j's force f = kp (target - x_end) + kd
    (target_v - u_end) at the step's end, x_end = x + h u_end, u = J[j] v, is the impulse lam = h f
    = (b - u_end) / gamma with gamma = 1 / (h (kd + h kp)) and b = (kp (target - x) + kd target_v)
    / (kd + h kp): the rows' impulses solve (W + diag(gamma)) lam = b - J v, W = J H^-1 J^T in the
    loops' metric, so any stiffness and damping is stable at any step. A hinge's spring, as PhysX's
    D6 drive, pulls with kp 2 sin(e / 2) for the angle error e = target - x taken the short way
    round (measured with ovphysx 0.7: a weak drive rests where that error holds the rod, not where
    e does; see tests/sim/test_loop_drives.py), linearised as kp cos(e / 2) for the implicit step.
    An acceleration drive's gains are scaled by the row's free-body inertia, inertia[nv + j]
    (_free_inertia, as PhysX scales them). |lam| <= h maxForce: a row over its bound is held at it
    and the others solved again (at most once per row). values [nv + nd] the rows' positions
    (distance_rows; nan: row left out this step); C, A, rhs, lam, x, rows and fixed (int64) are
    scratch, as in limits._solve_rows."""
    nv = v.shape[0]
    n = 0
    for j in range(J.shape[0]):
        if int(drive[j, ROW_DRIVE_TYPE]) != DRIVE_NONE and not math.isnan(values[nv + j]):
            rows[n] = nv + j
            n += 1
    if n == 0:
        return
    for a in range(n):
        inverse_column(dof_parent, LD, J, rows[a], C, a, x, G, Y, A_eq, m_eq, lam_eq)
        fixed[a] = 0
    for _ in range(n + 1):
        for a in range(n):
            ka = rows[a]
            j = ka - nv
            kp = drive[j, ROW_DRIVE_STIFFNESS]
            kd = drive[j, ROW_DRIVE_DAMPING]
            if int(drive[j, ROW_DRIVE_TYPE]) == DRIVE_ACCELERATION:
                kp *= inertia[ka]
                kd *= inertia[ka]
            error = drive[j, ROW_DRIVE_TARGET_POSITION] - values[ka]
            slope = 1.0  # d error / d (target - x)
            if kind[j] == BOUND_ANGLE:  # PhysX's quaternion error, the short way round
                error -= 2.0 * math.pi * math.floor(error / (2.0 * math.pi) + 0.5)
                slope = math.cos(0.5 * error)
                error = 2.0 * math.sin(0.5 * error)
            force = kp * error + kd * drive[j, ROW_DRIVE_TARGET_VELOCITY]
            denominator = kd + h * kp * slope
            if fixed[a] == 0 and not denominator > 0.0:
                # nothing to integrate implicitly (a hinge half a turn from its undamped
                # target): the start-of-step force, held as a known impulse
                bound = h * drive[j, ROW_DRIVE_MAX_FORCE]
                lam[a] = min(max(h * force, -bound), bound)
                fixed[a] = 2
            if fixed[a] != 0:  # a known impulse (held at its bound, or explicit)
                for b in range(n):
                    A[a, b] = 0.0
                A[a, a] = 1.0
                rhs[a] = lam[a]
                continue
            for b in range(n):
                A[a, b] = row_dot_column(J, ka, C, b)
            A[a, a] += 1.0 / (h * denominator)
            rhs[a] = force / denominator - row_dot(J, ka, v)
        for a in range(n):  # the held rows' impulses move the others
            if fixed[a] != 0:
                continue
            for b in range(n):
                if fixed[b] != 0:
                    rhs[a] -= row_dot_column(J, rows[a], C, b) * lam[b]
        for a in range(n):
            if fixed[a] != 0:
                for b in range(n):
                    if fixed[b] == 0:
                        A[b, a] = 0.0
        cholesky_solve(A, n, rhs)
        held = False
        for a in range(n):
            if fixed[a] != 0:
                continue
            bound = h * drive[rows[a] - nv, ROW_DRIVE_MAX_FORCE]
            if abs(rhs[a]) > bound:
                lam[a] = bound if rhs[a] > 0.0 else -bound
                fixed[a] = 1
                held = True
            else:
                lam[a] = rhs[a]
        if not held:
            break
    for a in range(n):
        for d in range(nv):
            v[d] += C[a, d] * lam[a]
