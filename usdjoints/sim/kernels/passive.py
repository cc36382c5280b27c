"""Generalised forces that do not come from rigid-body dynamics: damping, springs, dry friction,
soft limits and drives, with their derivatives for the implicit integrator.

K_out and D_out are the diagonal stiffness (-d tau/d q) and damping (-d tau/d v) the integrator
treats implicitly, so stiff springs, limits and drives stay stable at large steps.
"""
from __future__ import annotations

import math

from . import FMA, INTERNAL, njit
from .layout import (
    DOF_DAMPING, DOF_DRIVE_DAMPING, DOF_DRIVE_MAX_FORCE, DOF_DRIVE_STIFFNESS,
    DOF_DRIVE_TARGET_POSITION, DOF_DRIVE_TARGET_VELOCITY, DOF_DRIVE_TYPE, DOF_EFFORT_LIMIT,
    DOF_FRICTION_LOSS, DOF_LIMIT_DAMPING, DOF_LIMIT_STIFFNESS, DOF_LOWER, DOF_Q_INDEX,
    DOF_SPRING_REF, DOF_STIFFNESS, DOF_UPPER,
)

# Dry friction is tanh-regularised: below this speed [rad/s | m/s] it acts like a stiff viscous
# damper (treated implicitly), so a joint held by friction creeps at most this fast.
FRICTION_SPEED = 1e-3
DRIVE_ACCELERATION = 2


@njit(cache=True, fastmath=FMA)
def passive_forces(dof_table, q, qd, M, h, tau_out, K_out, D_out):
    """passive_forces_inline as one compiled call."""
    passive_forces_inline(dof_table, q, qd, M, h, tau_out, K_out, D_out)


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def passive_forces_inline(dof_table, q, qd, M, h, tau_out, K_out, D_out):
    """tau_out [nv] passive + drive forces [N m | N]; K_out, D_out [nv] their implicit
    stiffness and damping. M [nv, nv] supplies the effective inertia of acceleration drives and
    of the saturation test; h [s] is the implicit step (0 for the explicit map).

    A drive saturates when the force it would exert at the end of the implicit step exceeds its
    bound: with G = F - h kp v and the dof's inertia M_kk, that force is
    G M_kk / (M_kk + h kd + h^2 kp). Deciding on the start-of-step force F instead lets a stiff
    drive on a light link take the constant bound, which carries the joint far past its target
    in one step and then chatters. Since the constant bound is below the implicit end-of-step
    force, one saturated step moves the joint no further than the implicit drive would, which
    stops at its target.
    """
    nv = dof_table.shape[0]
    for k in range(nv):
        v = qd[k]
        qi = int(dof_table[k, DOF_Q_INDEX])
        has_q = qi >= 0
        x = q[qi] if has_q else 0.0
        tau = 0.0
        stiff = 0.0
        damp = dof_table[k, DOF_DAMPING]
        tau -= damp * v
        if has_q:
            spring = dof_table[k, DOF_STIFFNESS]
            tau -= spring * (x - dof_table[k, DOF_SPRING_REF])
            stiff += spring
        friction = dof_table[k, DOF_FRICTION_LOSS]
        if friction > 0.0:
            th = math.tanh(v / FRICTION_SPEED)
            tau -= friction * th
            damp += friction / FRICTION_SPEED * (1.0 - th * th)
        if has_q:
            lower = dof_table[k, DOF_LOWER]
            upper = dof_table[k, DOF_UPPER]
            k_lim = dof_table[k, DOF_LIMIT_STIFFNESS]
            d_lim = dof_table[k, DOF_LIMIT_DAMPING]
            # the damping only opposes motion deeper into the limit, so it never pulls the joint
            # back towards the violation and cannot add energy at the boundary
            if x < lower:
                tau += k_lim * (lower - x)
                stiff += k_lim
                if v < 0.0:
                    tau -= d_lim * v
                    damp += d_lim
            elif x > upper:
                tau -= k_lim * (x - upper)
                stiff += k_lim
                if v > 0.0:
                    tau -= d_lim * v
                    damp += d_lim
        drive_type = int(dof_table[k, DOF_DRIVE_TYPE])
        if drive_type > 0:
            kp = dof_table[k, DOF_DRIVE_STIFFNESS]
            kd = dof_table[k, DOF_DRIVE_DAMPING]
            if drive_type == DRIVE_ACCELERATION:
                kp *= M[k, k]
                kd *= M[k, k]
            force = kd * (dof_table[k, DOF_DRIVE_TARGET_VELOCITY] - v)
            if has_q:
                force += kp * (dof_table[k, DOF_DRIVE_TARGET_POSITION] - x)
            bound = min(dof_table[k, DOF_DRIVE_MAX_FORCE], dof_table[k, DOF_EFFORT_LIMIT])
            inertia = M[k, k]
            ahead = force - h * kp * v if has_q else force
            if inertia > 0.0:
                ahead *= inertia / (inertia + h * kd + (h * h * kp if has_q else 0.0))
            if ahead > bound:
                tau += bound  # saturated: constant in q and v, nothing to treat implicitly
            elif ahead < -bound:
                tau -= bound
            else:
                tau += force
                damp += kd
                if has_q:
                    stiff += kp
        tau_out[k] = tau
        K_out[k] = stiff
        D_out[k] = damp
