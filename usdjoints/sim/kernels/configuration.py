"""The configuration and its rates: q (+) h v on each joint's manifold, dq/dt, unit quaternions,
and the world-frame velocity of lone free bodies (integrate.py steps with these).
"""
from __future__ import annotations

import math

import numpy as np

from . import FMA, INTERNAL, WRAPPERLESS, njit, plain_argument_types
from .jcalc import FREE, SPHERICAL, quat_multiply_exp, quat_rotate
from .layout import LINK_PARENT, LINK_Q_START, LINK_TYPE, LINK_V_START


@njit(cache=True, fastmath=FMA)
def integrate_configuration(link_table, I6, q, v, h, q_out):
    """q_out = q (+) h v: exact rotation for quaternions, linear for scalar coordinates (q_out
    may alias q). A free joint turns by exp(h w) about its link's centre of mass c (I6's m [c]x
    block; the origin where the link has no mass), which moves by h R (v + w x c): the origin
    goes to p + R (h (v + w x c) + c - exp(h w) c). Stepping the origin in a straight line
    instead moved the centre of mass of a base turning fast far from its origin by h R (w x c)
    - (R' - R) c a step, off the path its momentum gives it."""
    for i in range(link_table.shape[0]):
        kind = link_table[i, LINK_TYPE]
        q0 = link_table[i, LINK_Q_START]
        v0 = link_table[i, LINK_V_START]
        if kind == SPHERICAL:
            quat_multiply_exp(q, q0, v[v0], v[v0 + 1], v[v0 + 2], h, q_out)
        elif kind == FREE:
            wx, wy, wz = v[v0 + 3], v[v0 + 4], v[v0 + 5]
            m = I6[i, 3, 3]
            cx = cy = cz = 0.0
            if m > 0.0:
                cx, cy, cz = I6[i, 2, 4] / m, I6[i, 0, 5] / m, I6[i, 1, 3] / m
            # c - exp(h w) c by Rodrigues' formula (k the unit axis, angle = h |w|)
            angle = h * math.sqrt(wx * wx + wy * wy + wz * wz)
            bx = by = bz = 0.0
            if angle > 0.0 and m > 0.0:
                kx, ky, kz = h * wx / angle, h * wy / angle, h * wz / angle
                co, si = math.cos(angle), math.sin(angle)
                kc = (kx * cx + ky * cy + kz * cz) * (1.0 - co)
                bx = cx - (cx * co + (ky * cz - kz * cy) * si + kx * kc)
                by = cy - (cy * co + (kz * cx - kx * cz) * si + ky * kc)
                bz = cz - (cz * co + (kx * cy - ky * cx) * si + kz * kc)
            dx = h * (v[v0] + wy * cz - wz * cy) + bx
            dy = h * (v[v0 + 1] + wz * cx - wx * cz) + by
            dz = h * (v[v0 + 2] + wx * cy - wy * cx) + bz
            d0, d1, d2 = quat_rotate(q[q0 + 3], q[q0 + 4], q[q0 + 5], q[q0 + 6], dx, dy, dz)
            q_out[q0] = q[q0] + d0
            q_out[q0 + 1] = q[q0 + 1] + d1
            q_out[q0 + 2] = q[q0 + 2] + d2
            quat_multiply_exp(q, q0 + 3, wx, wy, wz, h, q_out)
        else:
            q_out[q0] = q[q0] + h * v[v0]


@njit(cache=True, fastmath=FMA, **INTERNAL)
def configuration_rate(link_table, q, v, qdot_out):
    """dq/dt for velocity v [nq]: quaternions move by q * (0, w) / 2, free positions by R v."""
    for i in range(link_table.shape[0]):
        kind = link_table[i, LINK_TYPE]
        q0 = link_table[i, LINK_Q_START]
        v0 = link_table[i, LINK_V_START]
        if kind == SPHERICAL or kind == FREE:
            s = q0 if kind == SPHERICAL else q0 + 3
            w0 = v0 if kind == SPHERICAL else v0 + 3
            w, x, y, z = q[s], q[s + 1], q[s + 2], q[s + 3]
            ox, oy, oz = v[w0], v[w0 + 1], v[w0 + 2]
            qdot_out[s] = 0.5 * (-x * ox - y * oy - z * oz)
            qdot_out[s + 1] = 0.5 * (w * ox + y * oz - z * oy)
            qdot_out[s + 2] = 0.5 * (w * oy - x * oz + z * ox)
            qdot_out[s + 3] = 0.5 * (w * oz + x * oy - y * ox)
            if kind == FREE:
                d0, d1, d2 = quat_rotate(w, x, y, z, v[v0], v[v0 + 1], v[v0 + 2])
                qdot_out[q0] = d0
                qdot_out[q0 + 1] = d1
                qdot_out[q0 + 2] = d2
        else:
            qdot_out[q0] = v[v0]


@njit(cache=True, fastmath=FMA, **INTERNAL)
def normalise_quaternions(link_table, q):
    for i in range(link_table.shape[0]):
        kind = link_table[i, LINK_TYPE]
        if kind == SPHERICAL or kind == FREE:
            s = link_table[i, LINK_Q_START] + (0 if kind == SPHERICAL else 3)
            n = math.sqrt(q[s] ** 2 + q[s + 1] ** 2 + q[s + 2] ** 2 + q[s + 3] ** 2)
            for a in range(4):
                q[s + a] /= n


@njit(cache=True, fastmath=FMA)
def lone_free_bodies(link_table, I6, out):
    """out[i] = True for a lone free body: a free root link with mass and no child; returns
    True when there is one. Its linear momentum is integrated in the world frame
    (world_frame_velocity)."""
    n = link_table.shape[0]
    for i in range(n):
        out[i] = link_table[i, LINK_TYPE] == FREE and link_table[i, LINK_PARENT] < 0 and I6[i, 3, 3] > 0.0
    for i in range(n):
        parent = link_table[i, LINK_PARENT]
        if parent >= 0:
            out[parent] = False
    any_lone = False
    for i in range(n):
        any_lone = any_lone or out[i]
    return any_lone


@plain_argument_types
@njit(cache=True, fastmath=FMA)
def world_frame_velocity(link_table, I6, lone, v_start, h, v, rotate):
    """The lone free bodies' linear momentum integrated in the world frame.

    A free joint's velocity is the body-frame twist (v, w) of the link origin; the rate of the
    centre of mass' velocity u = v + w x c in body axes carries the frame term -w x u. Stepped
    explicitly, |u + h (-w x u)|^2 = |u|^2 + h^2 |w x u|^2: a body spinning in flight gains
    m h^2 |w x u|^2 / 2 of kinetic energy every step (mjc_quadruped's ball: 0.067 J a step at
    24 rad/s and 4 m/s) and its momentum grows. Instead the step takes u's world-frame rate in
    the axes of the start of the step (``rotate`` False, after the velocity update: the frame
    term added back from v_start, the velocities the acceleration was computed with), and once
    the body has turned by exp(h w) (integrate_configuration, with the end angular velocity)
    re-expresses u in the new axes (``rotate`` True): u <- exp(h w)^T u. The linear momentum
    m R u then changes by exactly the impulses of gravity and the contacts, and turning adds no
    energy, as PhysX and MuJoCo integrate a rigid body's linear velocity in the world frame.
    Lone bodies only: in a tree the base's momentum is the whole tree's, and the base rows'
    frame term stays in the body-frame step. c is the centre of mass in link axes (from I6's
    m [c]x block)."""
    for i in range(link_table.shape[0]):
        if not lone[i]:
            continue
        v0 = link_table[i, LINK_V_START]
        m = I6[i, 3, 3]
        cx, cy, cz = I6[i, 2, 4] / m, I6[i, 0, 5] / m, I6[i, 1, 3] / m
        if not rotate:
            wx, wy, wz = v_start[v0 + 3], v_start[v0 + 4], v_start[v0 + 5]
            x = v_start[v0] + wy * cz - wz * cy
            y = v_start[v0 + 1] + wz * cx - wx * cz
            z = v_start[v0 + 2] + wx * cy - wy * cx
            v[v0] += h * (wy * z - wz * y)
            v[v0 + 1] += h * (wz * x - wx * z)
            v[v0 + 2] += h * (wx * y - wy * x)
            continue
        wx, wy, wz = v[v0 + 3], v[v0 + 4], v[v0 + 5]
        angle = h * math.sqrt(wx * wx + wy * wy + wz * wz)
        if angle == 0.0:
            continue
        kx, ky, kz = h * wx / angle, h * wy / angle, h * wz / angle
        c, s = math.cos(angle), math.sin(angle)
        rx, ry, rz = wy * cz - wz * cy, wz * cx - wx * cz, wx * cy - wy * cx  # w x c
        x, y, z = v[v0] + rx, v[v0 + 1] + ry, v[v0 + 2] + rz
        kv = (kx * x + ky * y + kz * z) * (1.0 - c)
        # exp(h w)^T u = u cos - (k x u) sin + k (k . u)(1 - cos), then v = u - w x c
        v[v0] = x * c - (ky * z - kz * y) * s + kx * kv - rx
        v[v0 + 1] = y * c - (kz * x - kx * z) * s + ky * kv - ry
        v[v0 + 2] = z * c - (kx * y - ky * x) * s + kz * kv - rz


@njit(cache=True, fastmath=FMA, **WRAPPERLESS)
def tied_roots(link_table, dist_link):
    """bool [nlink]: True on each root link whose tree a distance joint (dist_link [nd, 2], -1
    the world) ties to the world or to another tree."""
    n = link_table.shape[0]
    root_of = np.empty(n, dtype=np.int64)
    tied = np.zeros(n, dtype=np.bool_)
    for i in range(n):
        parent = link_table[i, LINK_PARENT]
        root_of[i] = i if parent < 0 else root_of[parent]
    for j in range(dist_link.shape[0]):
        a = root_of[dist_link[j, 0]] if dist_link[j, 0] >= 0 else -1
        b = root_of[dist_link[j, 1]] if dist_link[j, 1] >= 0 else -1
        if a != b:
            if a >= 0:
                tied[a] = True
            if b >= 0:
                tied[b] = True
    return tied
