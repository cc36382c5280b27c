"""Joint limits and velocity limits as joint-space impulses (one-sided velocity constraints).

After the velocity update of a step, every dof k gets an interval [lo_k, hi_k] its end-of-step
velocity must lie in:

* a hard position limit (finite bound, no soft-limit spring authored): the step may not carry
  the joint past the bound, v_k >= (lower - x) / h (speculative, so a joint arriving at its
  limit stops on it); a joint already outside comes back at RECOVERY_RATE of its depth per
  step, at most RECOVERY_SPEED, so a joint that starts outside is returned, not launched;
* a velocity limit: -v_max <= v_k <= v_max.

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
from .crba import ltdl_solve
from .jcalc import PRISMATIC, REVOLUTE
from .layout import (
    DOF_LIMIT_STIFFNESS, DOF_LOWER, DOF_Q_INDEX, DOF_UPPER, DOF_VELOCITY_LIMIT, LINK_TYPE,
    LINK_V_START,
)

RECOVERY_RATE = 0.2  # of a limit violation removed per step
RECOVERY_SPEED_ANGULAR = 2.0  # [rad/s], the fastest return from outside a limit
RECOVERY_SPEED_LINEAR = 0.2  # [m/s]
SWEEPS = 8


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
def limit_impulses(link_table, dof_table, dof_parent, LD, q, h, lo, hi, C, lam, ready, v):
    """Apply the limit impulses to v [nv] in place (see the module docstring). LD holds the
    factor of the step's inertia; lo, hi, lam [nv], C [nv, nv], ready (int64 [nv]) are scratch.
    Returns the number of dofs that carried an impulse."""
    nv = v.shape[0]
    for k in range(nv):
        vmax = dof_table[k, DOF_VELOCITY_LIMIT]
        lo[k] = -vmax
        hi[k] = vmax
        lam[k] = 0.0
        ready[k] = 0
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
            bound = (lower - x) / h if x >= lower else min(RECOVERY_RATE * (lower - x) / h, recovery)
            if bound > lo[k]:
                lo[k] = bound
        if upper < math.inf:
            bound = (upper - x) / h if x <= upper else max(RECOVERY_RATE * (upper - x) / h, -recovery)
            if bound < hi[k]:
                hi[k] = bound
        if lo[k] > hi[k]:  # a limit tighter than the velocity bound: the position wins
            if x >= upper:
                lo[k] = hi[k]
            else:
                hi[k] = lo[k]
    active = 0
    for sweep in range(SWEEPS):
        changed = False
        for k in range(nv):
            if lo[k] == -math.inf and hi[k] == math.inf:
                continue
            if lam[k] == 0.0 and lo[k] <= v[k] <= hi[k]:
                continue
            if ready[k] == 0:
                for d in range(nv):
                    C[k, d] = 0.0
                C[k, k] = 1.0
                ltdl_solve(dof_parent, LD, C[k])  # H^-1 e_k
                ready[k] = 1
                active += 1
            w = C[k, k]
            if not w > 0.0:
                continue
            lam_lo = lam[k] + (lo[k] - v[k]) / w
            lam_hi = lam[k] + (hi[k] - v[k]) / w
            new = max(lam_lo, min(0.0, lam_hi))
            delta = new - lam[k]
            if delta != 0.0:
                for d in range(nv):
                    v[d] += C[k, d] * delta
                lam[k] = new
                changed = True
        if not changed:
            break
    return active
