"""Moving the configuration by a position-only correction (the limits' bias, limits.py; the
contacts' push apart of overlaps, contact_solve.py; the loops' Newton steps, projection.py):
each joint's turn capped, the free and spherical velocities carried along the rotation, and a
free base moved back so its tree's centre of mass stays where it was.
"""
from __future__ import annotations

import math

from . import FMA, INTERNAL, njit
from .jcalc import FREE, REVOLUTE, SPHERICAL
from .layout import LINK_PARENT, LINK_Q_START, LINK_TYPE, LINK_V_START


# the largest turn [rad] of one joint in one step of the position-only correction: the bias is
# a linearisation, good for the 0.5 rad a joint starting past its limit asks (PhysX puts such a
# hinge back in one step), while a distance joint starting metres outside may ask a short link
# to turn by many radians, which the linear step would overshoot into a larger error each step
MAX_CORRECTION_TURN = 0.6


@njit(cache=True, fastmath=FMA, **INTERNAL)
def cap_correction(link_table, bias, h):
    """Scale the position-only bias [nv] (in place) so that no joint turns by more than
    MAX_CORRECTION_TURN in the step h: the rest of a large correction is left to the next steps."""
    cap_turn(link_table, bias, h, MAX_CORRECTION_TURN)


@njit(cache=True, fastmath=FMA, **INTERNAL)
def cap_turn(link_table, x, h, turn):
    """Scale the joint-space rate x [nv] (in place) so that no joint turns by more than ``turn``
    [rad] in the time h (a hinge by its angle, a ball or free joint by its rotation vector's
    length); returns whether it scaled x."""
    largest = 0.0
    for i in range(link_table.shape[0]):
        kind = link_table[i, LINK_TYPE]
        v0 = link_table[i, LINK_V_START]
        if kind == REVOLUTE:
            largest = max(largest, abs(x[v0]))
        elif kind == SPHERICAL or kind == FREE:
            w0 = v0 if kind == SPHERICAL else v0 + 3
            largest = max(largest, math.sqrt(x[w0] ** 2 + x[w0 + 1] ** 2 + x[w0 + 2] ** 2))
    if h * largest > turn:
        scale = turn / (h * largest)
        for k in range(x.shape[0]):
            x[k] *= scale
        return True
    return False


@njit(cache=True, fastmath=FMA, **INTERNAL)
def _rotate_back(R, v, start):
    """v[start:start + 3] <- R^T v[start:start + 3]."""
    x, y, z = v[start], v[start + 1], v[start + 2]
    for a in range(3):
        v[start + a] = R[0, a] * x + R[1, a] * y + R[2, a] * z


@njit(cache=True, fastmath=FMA, **INTERNAL)
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


@njit(cache=True, fastmath=FMA, **INTERNAL)
def has_free_root(link_table):
    """True when some tree of the model is rooted on a free joint."""
    for i in range(link_table.shape[0]):
        if link_table[i, LINK_PARENT] < 0 and link_table[i, LINK_TYPE] == FREE:
            return True
    return False


@njit(cache=True, fastmath=FMA, **INTERNAL)
def tree_centres_of_mass(link_table, I6, Rw, pw, root_of, out):
    """Per tree, the mass-weighted sum of its links' world centres of mass and its mass:
    out[root] = (sum m c [kg m], sum m [kg]) on each root link's row, zeros elsewhere. Rw, pw
    are fk.link_world_poses' output; I6 the spatial inertias at the link origins (m c read from
    their off-diagonal block); root_of int64 [nlink] is scratch."""
    for i in range(link_table.shape[0]):
        for a in range(4):
            out[i, a] = 0.0
        parent = link_table[i, LINK_PARENT]
        root = i if parent < 0 else root_of[parent]
        root_of[i] = root
        m = I6[i, 3, 3]
        if m == 0.0:
            continue
        # I6[:3, 3:] = m [c]x: m c = (I6[2, 4], I6[0, 5], I6[1, 3]) in link axes
        mc0, mc1, mc2 = I6[i, 2, 4], I6[i, 0, 5], I6[i, 1, 3]
        for a in range(3):
            out[root, a] += m * pw[i, a] + Rw[i, a, 0] * mc0 + Rw[i, a, 1] * mc1 + Rw[i, a, 2] * mc2
        out[root, 3] += m


@njit(cache=True, fastmath=FMA, **INTERNAL)
def keep_centres_of_mass(link_table, R_pj, before, after, q):
    """Translate every free root so that its tree's centre of mass is back where `before`
    (tree_centres_of_mass before the position-only correction) had it; `after` is the same
    sum after the correction. A free root's origin moves by R_pj times its position
    coordinates' change, the whole tree with it."""
    for i in range(link_table.shape[0]):
        if link_table[i, LINK_PARENT] >= 0 or link_table[i, LINK_TYPE] != FREE:
            continue
        m = before[i, 3]
        if not m > 0.0:
            continue
        d0 = (before[i, 0] - after[i, 0]) / m
        d1 = (before[i, 1] - after[i, 1]) / m
        d2 = (before[i, 2] - after[i, 2]) / m
        q0 = link_table[i, LINK_Q_START]
        for a in range(3):  # R_pj^T d
            q[q0 + a] += R_pj[i, 0, a] * d0 + R_pj[i, 1, a] * d1 + R_pj[i, 2, a] * d2
