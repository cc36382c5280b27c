"""Joint limits and velocity limits as joint-space impulses (one-sided velocity constraints).

After the velocity update of a step, every dof k gets an interval [lo_k, hi_k] its end-of-step
velocity must lie in:

* a hard position limit (finite bound, no soft-limit spring authored): the step may not carry
  the joint past the bound, v_k >= (lower - x) / h (speculative, so a joint arriving at its
  limit stops on it); a joint already outside may not go deeper, v_k >= 0;
* a velocity limit: -v_max <= v_k <= v_max.

A joint outside its limit is moved back by a second, position-only set of impulses (split
impulses, as PhysX keeps its position correction out of the velocities): a bias velocity b with
v_k + b_k >= RECOVERY_RATE of the depth per step (at most RECOVERY_SPEED) moves the positions
this step and is then dropped, so a joint that starts outside is returned without being
launched: it stops on the bound.

The impulses are joint-space generalised impulses lambda_k e_k applied through the step's
inverse inertia (the factor of M + h D + h^2 K the step solved with): v' = v + H^-1 lambda.
They act between a joint's two bodies, so the robot's total momentum is kept (a clamp that
overwrote v_k would not keep it). Projected Gauss-Seidel over the bounded dofs:
lambda_k = median(lambda_lo, 0, lambda_hi), the impulses that put v'_k on lo or hi.
"""
from __future__ import annotations

import math

from numba import njit

from . import FMA
from .jcalc import FREE, PRISMATIC, REVOLUTE, SPHERICAL
from .layout import (
    DOF_LIMIT_STIFFNESS, DOF_LOWER, DOF_Q_INDEX, DOF_UPPER, DOF_VELOCITY_LIMIT, LINK_TYPE,
    LINK_V_START,
)

RECOVERY_RATE = 0.2  # of a limit violation removed per step
RECOVERY_SPEED_ANGULAR = 2.0  # [rad/s], the fastest return from outside a limit
RECOVERY_SPEED_LINEAR = 0.2  # [m/s]
SWEEPS = 8
SWEEP_TOLERANCE = 1e-12  # relative velocity change that counts as progress


@njit(cache=True, fastmath=FMA)
def has_limit_rows(dof_table):
    """True when some dof has a hard position limit or a velocity limit."""
    for k in range(dof_table.shape[0]):
        if dof_table[k, DOF_VELOCITY_LIMIT] < math.inf:
            return True
        if dof_table[k, DOF_Q_INDEX] >= 0 and dof_table[k, DOF_LIMIT_STIFFNESS] == 0.0 and (
                dof_table[k, DOF_LOWER] > -math.inf or dof_table[k, DOF_UPPER] < math.inf):
            return True
    return False


@njit(cache=True, fastmath=FMA)
def ancestor_count(dof_parent):
    """The length of ancestor_lists' index array: every dof's number of ancestors, summed."""
    total = 0
    for i in range(dof_parent.shape[0]):
        j = dof_parent[i]
        while j >= 0:
            total += 1
            j = dof_parent[j]
    return total


@njit(cache=True, fastmath=FMA)
def ancestor_lists(dof_parent, start, ancestors):
    """Each dof's ancestors, nearest first, in ancestors[start[i]:start[i + 1]] (start [nv + 1],
    ancestors [ancestor_count]): the inverse below walks these flat lists instead of following
    dof_parent link by link."""
    n = 0
    for i in range(dof_parent.shape[0]):
        start[i] = n
        j = dof_parent[i]
        while j >= 0:
            ancestors[n] = j
            n += 1
            j = dof_parent[j]
    start[dof_parent.shape[0]] = n


@njit(cache=True, fastmath=FMA)
def _inverse(start, ancestors, LD, X):
    """X <- H^-1 from the factor ltdl_factor left in LD: column c is crba.ltdl_solve on the unit
    vector e_c, the same operations in the same order, run on all columns at once (each row
    operation spans the columns, which keeps the loops short and independent)."""
    nv = LD.shape[0]
    for i in range(nv):
        for c in range(nv):
            X[i, c] = 0.0
        X[i, i] = 1.0
    # until the last pass, row i is zero left of column i (it holds e_i and what i's descendants,
    # of higher index, gave it): the operations on those zeros are left out
    for i in range(nv - 1, -1, -1):
        for t in range(start[i], start[i + 1]):
            j = ancestors[t]
            a = LD[i, j]
            for c in range(i, nv):
                X[j, c] -= a * X[i, c]
    for i in range(nv):
        d = LD[i, i]
        for c in range(i, nv):
            X[i, c] /= d
    for i in range(nv):
        for t in range(start[i], start[i + 1]):
            j = ancestors[t]
            a = LD[i, j]
            for c in range(nv):
                X[i, c] -= a * X[j, c]


@njit(cache=True, fastmath=FMA)
def _solve_rows(start, ancestors, LD, lo, hi, X, lam, inv_w, formed, base, v):
    """Projected Gauss-Seidel: impulses lam [nv] making base + v lie in [lo, hi] per dof, added
    to v through H^-1 (X, formed when a first row needs it: formed[0] says it is)."""
    nv = v.shape[0]
    for k in range(nv):
        lam[k] = 0.0
    for sweep in range(SWEEPS):
        changed = False
        for k in range(nv):
            if lo[k] == -math.inf and hi[k] == math.inf:
                continue
            value = base[k] + v[k]
            if lam[k] == 0.0 and lo[k] <= value <= hi[k]:
                continue
            if formed[0] == 0:
                _inverse(start, ancestors, LD, X)
                for d in range(nv):
                    inv_w[d] = 1.0 / X[d, d] if X[d, d] > 0.0 else 0.0
                formed[0] = 1
            w = X[k, k]
            if not w > 0.0:
                continue
            # the impulses that put the velocity on lo and on hi, and their median with 0
            lam_lo = lam[k] + (lo[k] - value) * inv_w[k]
            lam_hi = lam[k] + (hi[k] - value) * inv_w[k]
            new = max(lam_lo, min(0.0, lam_hi))
            delta = new - lam[k]
            if delta != 0.0:
                for d in range(nv):
                    v[d] += X[d, k] * delta
                lam[k] = new
                # a sweep that moves no row's velocity by more than round-off ends the solve
                if abs(delta) * w > SWEEP_TOLERANCE * (abs(value) + abs(lo[k]) + 1e-9):
                    changed = True
        if not changed:
            break


@njit(cache=True, fastmath=FMA)
def limit_impulses(link_table, dof_table, start, ancestors, LD, q, h, work, X, formed, v, bias):
    """Apply the limit impulses to v [nv] in place and write the position-only bias velocity
    [nv] (see the module docstring); returns True when the bias is not zero. start, ancestors:
    ancestor_lists of the dofs' parents. LD holds the factor
    of the step's inertia; work [6, nv], X [nv, nv] and formed (int64 [1]) are scratch.

    Most steps of most robots have no bound active: the bounds are checked first, and the
    Gauss-Seidel solve (and its columns of H^-1) runs only when some velocity is outside them."""
    nv = v.shape[0]
    formed[0] = 0
    lo, hi, lam, lo_b, hi_b, inv_w = work[0], work[1], work[2], work[3], work[4], work[5]
    outside = False
    for k in range(nv):
        vmax = dof_table[k, DOF_VELOCITY_LIMIT]
        lo[k] = -vmax
        hi[k] = vmax
        lo_b[k] = -math.inf
        hi_b[k] = math.inf
        bias[k] = 0.0
    for i in range(link_table.shape[0]):
        kind = link_table[i, LINK_TYPE]
        if kind != REVOLUTE and kind != PRISMATIC:
            continue
        k = link_table[i, LINK_V_START]
        qi = int(dof_table[k, DOF_Q_INDEX])
        if qi < 0 or dof_table[k, DOF_LIMIT_STIFFNESS] != 0.0:
            continue  # a soft limit (spring) is a passive force instead
        recovery = RECOVERY_SPEED_LINEAR if kind == PRISMATIC else RECOVERY_SPEED_ANGULAR
        x = q[qi]
        lower = dof_table[k, DOF_LOWER]
        upper = dof_table[k, DOF_UPPER]
        if lower > -math.inf:
            if x >= lower:
                lo[k] = max(lo[k], (lower - x) / h)
            else:
                lo[k] = max(lo[k], 0.0)
                lo_b[k] = min(RECOVERY_RATE * (lower - x) / h, recovery)
                outside = True
        if upper < math.inf:
            if x <= upper:
                hi[k] = min(hi[k], (upper - x) / h)
            else:
                hi[k] = min(hi[k], 0.0)
                hi_b[k] = max(RECOVERY_RATE * (upper - x) / h, -recovery)
                outside = True
        if lo[k] > hi[k]:  # a limit tighter than the velocity bound: the position wins
            if x >= upper:
                lo[k] = hi[k]
            else:
                hi[k] = lo[k]
    if outside:
        active = True
    else:
        active = False
        for k in range(nv):
            if not (lo[k] <= v[k] <= hi[k]):
                active = True
                break
    if not active:  # the solve would leave every impulse at zero
        return False
    _solve_rows(start, ancestors, LD, lo, hi, X, lam, inv_w, formed, bias, v)  # bias is zero here
    if outside:
        _solve_rows(start, ancestors, LD, lo_b, hi_b, X, lam, inv_w, formed, v, bias)
    return outside


@njit(cache=True, fastmath=FMA)
def _rotate_back(R, v, start):
    """v[start:start + 3] <- R^T v[start:start + 3]."""
    x, y, z = v[start], v[start + 1], v[start + 2]
    for a in range(3):
        v[start + a] = R[0, a] * x + R[1, a] * y + R[2, a] * z


@njit(cache=True, fastmath=FMA)
def transport_velocity(link_table, bias, h, R, v):
    """Keep the world meaning of the body-frame velocities of free and spherical joints when
    the position-only bias turns them by exp(h w_bias): v <- R^T v. Without it a falling base
    turned by the bias would carry its fall speed off sideways (momentum not kept). R [3, 3] is
    scratch."""
    for i in range(link_table.shape[0]):
        kind = link_table[i, LINK_TYPE]
        if kind != FREE and kind != SPHERICAL:
            continue
        v0 = link_table[i, LINK_V_START]
        w0 = v0 + 3 if kind == FREE else v0
        wx, wy, wz = h * bias[w0], h * bias[w0 + 1], h * bias[w0 + 2]
        angle = math.sqrt(wx * wx + wy * wy + wz * wz)
        if angle == 0.0:
            continue
        x, y, z = wx / angle, wy / angle, wz / angle
        c, s = math.cos(angle), math.sin(angle)
        t = 1.0 - c
        R[0, 0], R[0, 1], R[0, 2] = c + x * x * t, x * y * t - z * s, x * z * t + y * s
        R[1, 0], R[1, 1], R[1, 2] = y * x * t + z * s, c + y * y * t, y * z * t - x * s
        R[2, 0], R[2, 1], R[2, 2] = z * x * t - y * s, z * y * t + x * s, c + z * z * t
        if kind == FREE:
            _rotate_back(R, v, v0)
        _rotate_back(R, v, w0)
