"""Generalised forces that do not come from rigid-body dynamics: damping, springs, dry friction,
soft limits and drives, with their derivatives for the implicit integrator.

K_out and D_out are the diagonal stiffness (-d tau/d q) and damping (-d tau/d v) the integrator
treats implicitly, so stiff springs, limits and drives stay stable at large steps.
"""
from __future__ import annotations

import math

from . import FMA, INTERNAL, njit
from .crba import ltdl_factor, ltdl_unit_solve
from .jcalc import dof_position
from .layout import (
    DOF_DAMPING, DOF_DRIVE_DAMPING, DOF_DRIVE_MAX_FORCE, DOF_DRIVE_STIFFNESS,
    DOF_DRIVE_TARGET_POSITION, DOF_DRIVE_TARGET_VELOCITY, DOF_DRIVE_TYPE, DOF_EFFORT_LIMIT,
    DOF_FRICTION_LOSS, DOF_LIMIT_DAMPING, DOF_LIMIT_STIFFNESS, DOF_LOWER,
    DOF_SPRING_REF, DOF_STIFFNESS, DOF_UPPER,
)

# Dry friction is tanh-regularised: below this speed [rad/s | m/s] it acts like a stiff viscous
# damper (treated implicitly), so a joint held by friction creeps at most this fast.
FRICTION_SPEED = 1e-3
DRIVE_ACCELERATION = 2


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def drive_inertia(dof_parent, dof_table, M, LD, y, out):
    """out[k] = 1 / (M^-1)_kk for each dof k with an acceleration drive (other entries are left
    as they are): the inertia the joint shows to its own force with every other joint free.
    PhysX scales an acceleration drive's gains by it. Measured with ovphysx 0.7 on a two-link arm
    (100 steps of 1 ms, tests/sim/test_passive_and_drives.py): the driven joint moved as a force
    drive with the gains times 1 / (M^-1)_kk moves, to 0.2 %, for a drive on the shoulder and
    on the elbow; M_kk (every other joint locked) made the elbow's drive 9 times stiffer.

    M [nv, nv] the joint-space inertia (armature included), not factored; LD [nv, nv] and
    y [nv] scratch (column k of M^-1, from crba's factor). Nothing is done when no dof has an
    acceleration drive."""
    nv = dof_table.shape[0]
    needed = False
    for k in range(nv):
        if int(dof_table[k, DOF_DRIVE_TYPE]) == DRIVE_ACCELERATION:
            needed = True
            break
    if not needed:
        return
    for a in range(nv):
        for b in range(nv):
            LD[a, b] = M[a, b]
    ltdl_factor(dof_parent, LD)
    for k in range(nv):
        if int(dof_table[k, DOF_DRIVE_TYPE]) == DRIVE_ACCELERATION:
            ltdl_unit_solve(dof_parent, LD, k, y)  # y = M^-1 e_k
            out[k] = 1.0 / y[k] if y[k] > 0.0 else 0.0


@njit(cache=True, fastmath=FMA)
def passive_forces(dof_table, q, qd, M, drive_inertia_of, h, tau_out, K_out, D_out):
    """passive_forces_inline as one compiled call."""
    passive_forces_inline(dof_table, q, qd, M, drive_inertia_of, h, tau_out, K_out, D_out)


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def passive_forces_inline(dof_table, q, qd, M, drive_inertia_of, h, tau_out, K_out, D_out):
    """tau_out [nv] passive + drive forces [N m | N]; K_out, D_out [nv] their implicit
    stiffness and damping. M [nv, nv] supplies the inertia of the saturation test;
    drive_inertia_of [nv] (drive_inertia) the gain scale of acceleration drives; h [s] is the
    implicit step (0 for the explicit map).

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
        has_q, x = dof_position(dof_table, q, k)
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
                kp *= drive_inertia_of[k]
                kd *= drive_inertia_of[k]
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
