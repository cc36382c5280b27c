"""Joint primitives: the pose of a joint's moving frame in its joint frame, and quaternions.

Quaternions are (w, x, y, z) and are normalised where they are read, so a configuration slightly
off the unit sphere (an RK4 stage) still yields a rotation.
"""
from __future__ import annotations

import math

from . import FMA, INTERNAL, njit
from ...model.primitives import FREE, PRIMITIVE_NQ, PRIMITIVE_NV, PRISMATIC, REVOLUTE, SPHERICAL
from .layout import DOF_BALL_AXIS, DOF_BALL_Q, DOF_Q_INDEX


@njit(cache=True, fastmath=FMA)
def primitive_nv(kind):
    """The velocity count of primitive ``kind``: model.primitives.PRIMITIVE_NV[kind]."""
    if kind == SPHERICAL:
        return PRIMITIVE_NV[SPHERICAL]
    if kind == FREE:
        return PRIMITIVE_NV[FREE]
    if kind == PRISMATIC:
        return PRIMITIVE_NV[PRISMATIC]
    return PRIMITIVE_NV[REVOLUTE]


@njit(cache=True, fastmath=FMA, **INTERNAL)
def primitive_nq(kind):
    """The coordinate count of primitive ``kind``: model.primitives.PRIMITIVE_NQ[kind]."""
    if kind == SPHERICAL:
        return PRIMITIVE_NQ[SPHERICAL]
    if kind == FREE:
        return PRIMITIVE_NQ[FREE]
    if kind == PRISMATIC:
        return PRIMITIVE_NQ[PRISMATIC]
    return PRIMITIVE_NQ[REVOLUTE]


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def ball_coordinate(q, start, axis):
    """Component ``axis`` (0, 1, 2 = x, y, z) [rad] of the rotation vector of the ball joint whose
    quaternion is q[start:start+4]: the angle times the unit axis of the shorter rotation (w >= 0),
    so each component lies in [-pi, pi]. PhysX reads a spherical articulation joint's three
    positions so (the rotation vector projected on its motion axes), and its per-axis limits and
    drives act on them; a hinge's angle is the same number for a rotation about its axis."""
    w, x, y, z = q[start], q[start + 1], q[start + 2], q[start + 3]
    if w < 0.0:
        w, x, y, z = -w, -x, -y, -z
    s = math.sqrt(x * x + y * y + z * z)
    c = x if axis == 0 else (y if axis == 1 else z)
    if s < 1e-12:
        return 2.0 * c / w if w > 0.0 else 0.0
    return 2.0 * math.atan2(s, w) * c / s


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def dof_position(dof_table, q, k):
    """(has a position, position [rad | m]) of dof k: a hinge's or slider's coordinate, a ball
    joint dof's rotation-vector component (ball_coordinate), or (False, 0) for a free joint's."""
    qi = int(dof_table[k, DOF_Q_INDEX])
    if qi >= 0:
        return True, q[qi]
    b = int(dof_table[k, DOF_BALL_Q])
    if b >= 0:
        return True, ball_coordinate(q, b, int(dof_table[k, DOF_BALL_AXIS]))
    return False, 0.0


@njit(cache=True, fastmath=FMA, **INTERNAL)
def quat_to_rotation(w, x, y, z, R_out):
    n = math.sqrt(w * w + x * x + y * y + z * z)
    w /= n
    x /= n
    y /= n
    z /= n
    R_out[0, 0] = 1.0 - 2.0 * (y * y + z * z)
    R_out[0, 1] = 2.0 * (x * y - w * z)
    R_out[0, 2] = 2.0 * (x * z + w * y)
    R_out[1, 0] = 2.0 * (x * y + w * z)
    R_out[1, 1] = 1.0 - 2.0 * (x * x + z * z)
    R_out[1, 2] = 2.0 * (y * z - w * x)
    R_out[2, 0] = 2.0 * (x * z - w * y)
    R_out[2, 1] = 2.0 * (y * z + w * x)
    R_out[2, 2] = 1.0 - 2.0 * (x * x + y * y)


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def quat_rotate(w, x, y, z, vx, vy, vz):
    """R(q) v as three scalars for a quaternion q normalised here (no 3x3 array formed)."""
    n = math.sqrt(w * w + x * x + y * y + z * z)
    w /= n
    x /= n
    y /= n
    z /= n
    return ((1.0 - 2.0 * (y * y + z * z)) * vx + 2.0 * (x * y - w * z) * vy + 2.0 * (x * z + w * y) * vz,
            2.0 * (x * y + w * z) * vx + (1.0 - 2.0 * (x * x + z * z)) * vy + 2.0 * (y * z - w * x) * vz,
            2.0 * (x * z - w * y) * vx + 2.0 * (y * z + w * x) * vy + (1.0 - 2.0 * (x * x + y * y)) * vz)


@njit(cache=True, fastmath=FMA, **INTERNAL)
def rotation_to_quat(R, quat_out):
    """Shepperd's method, w >= 0."""
    trace = R[0, 0] + R[1, 1] + R[2, 2]
    if trace > 0.0:
        s = math.sqrt(trace + 1.0) * 2.0
        w, x, y, z = 0.25 * s, (R[2, 1] - R[1, 2]) / s, (R[0, 2] - R[2, 0]) / s, (R[1, 0] - R[0, 1]) / s
    elif R[0, 0] > R[1, 1] and R[0, 0] > R[2, 2]:
        s = math.sqrt(1.0 + R[0, 0] - R[1, 1] - R[2, 2]) * 2.0
        w, x, y, z = (R[2, 1] - R[1, 2]) / s, 0.25 * s, (R[0, 1] + R[1, 0]) / s, (R[0, 2] + R[2, 0]) / s
    elif R[1, 1] > R[2, 2]:
        s = math.sqrt(1.0 + R[1, 1] - R[0, 0] - R[2, 2]) * 2.0
        w, x, y, z = (R[0, 2] - R[2, 0]) / s, (R[0, 1] + R[1, 0]) / s, 0.25 * s, (R[1, 2] + R[2, 1]) / s
    else:
        s = math.sqrt(1.0 + R[2, 2] - R[0, 0] - R[1, 1]) * 2.0
        w, x, y, z = (R[1, 0] - R[0, 1]) / s, (R[0, 2] + R[2, 0]) / s, (R[1, 2] + R[2, 1]) / s, 0.25 * s
    if w < 0.0:
        w, x, y, z = -w, -x, -y, -z
    quat_out[0] = w
    quat_out[1] = x
    quat_out[2] = y
    quat_out[3] = z


@njit(cache=True, fastmath=FMA, **INTERNAL)
def axis_angle_rotation(x, y, z, angle, R_out):
    """Rodrigues' formula for the unit axis (x, y, z) [rad]."""
    c = math.cos(angle)
    s = math.sin(angle)
    t = 1.0 - c
    R_out[0, 0] = t * x * x + c
    R_out[0, 1] = t * x * y - s * z
    R_out[0, 2] = t * x * z + s * y
    R_out[1, 0] = t * x * y + s * z
    R_out[1, 1] = t * y * y + c
    R_out[1, 2] = t * y * z - s * x
    R_out[2, 0] = t * x * z - s * y
    R_out[2, 1] = t * y * z + s * x
    R_out[2, 2] = t * z * z + c


@njit(cache=True, fastmath=FMA, **INTERNAL)
def joint_motion_pose(kind, link_axis, i, q, q_start, R_out, p_out):
    """Pose of the moving frame in the joint frame for configuration q[q_start:]; link_axis[i]
    is the joint's unit axis (indexed in place: a view would cost a reference count)."""
    if kind == REVOLUTE:
        axis_angle_rotation(link_axis[i, 0], link_axis[i, 1], link_axis[i, 2], q[q_start], R_out)
        p_out[0] = 0.0
        p_out[1] = 0.0
        p_out[2] = 0.0
    elif kind == PRISMATIC:
        for a in range(3):
            for b in range(3):
                R_out[a, b] = 1.0 if a == b else 0.0
            p_out[a] = link_axis[i, a] * q[q_start]
    elif kind == SPHERICAL:
        quat_to_rotation(q[q_start], q[q_start + 1], q[q_start + 2], q[q_start + 3], R_out)
        p_out[0] = 0.0
        p_out[1] = 0.0
        p_out[2] = 0.0
    else:
        quat_to_rotation(q[q_start + 3], q[q_start + 4], q[q_start + 5], q[q_start + 6], R_out)
        p_out[0] = q[q_start]
        p_out[1] = q[q_start + 1]
        p_out[2] = q[q_start + 2]


@njit(cache=True, fastmath=FMA, **INTERNAL)
def quat_multiply_exp(q, start, wx, wy, wz, h, q_out):
    """q_out[start:start+4] = q[start:start+4] * exp(h * omega / 2), renormalised: the exact
    rotation by a constant body angular velocity omega [rad/s] over h [s]."""
    angle = h * math.sqrt(wx * wx + wy * wy + wz * wz)
    if angle > 1e-12:
        s = math.sin(0.5 * angle) / (angle / h)
        dw, dx, dy, dz = math.cos(0.5 * angle), wx * s, wy * s, wz * s
    else:
        dw, dx, dy, dz = 1.0, 0.5 * h * wx, 0.5 * h * wy, 0.5 * h * wz
    w, x, y, z = q[start], q[start + 1], q[start + 2], q[start + 3]
    nw = w * dw - x * dx - y * dy - z * dz
    nx = w * dx + x * dw + y * dz - z * dy
    ny = w * dy - x * dz + y * dw + z * dx
    nz = w * dz + x * dy - y * dx + z * dw
    n = math.sqrt(nw * nw + nx * nx + ny * ny + nz * nz)
    q_out[start] = nw / n
    q_out[start + 1] = nx / n
    q_out[start + 2] = ny / n
    q_out[start + 3] = nz / n
