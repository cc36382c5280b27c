"""The Jacobian rows of a contact (contact_solve.py): its normal and two tangent directions, the
rows of a point fixed to each of its two links, and the dofs those rows live on."""
from __future__ import annotations

import math

from . import FMA, INTERNAL, njit
from .contact import _dot
from .jcalc import primitive_nv
from .layout import LINK_PARENT, LINK_TYPE, LINK_V_START


@njit(cache=True, fastmath=FMA, **INTERNAL)
def tangents(n, t1, t2):
    """t1, t2 [3]: unit vectors completing the unit normal n to a right-handed frame."""
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


@njit(cache=True, fastmath=FMA, **INTERNAL)
def contact_rows(link_table, S, Rw, pw, link, point, dirs, scale, J, r0):
    """J[r0 + k] += scale * d(dirs[k] . velocity)/dv (k = 0, 1, 2) for the point [m] fixed to
    ``link`` (world coordinates): constraints.accumulate_jacobian for a contact's three
    directions in one walk to the root."""
    j = link
    while j >= 0:
        v0 = link_table[j, LINK_V_START]
        dx = point[0] - pw[j, 0]
        dy = point[1] - pw[j, 1]
        dz = point[2] - pw[j, 2]
        for c in range(primitive_nv(link_table[j, LINK_TYPE])):
            wx = Rw[j, 0, 0] * S[j, 0, c] + Rw[j, 0, 1] * S[j, 1, c] + Rw[j, 0, 2] * S[j, 2, c]
            wy = Rw[j, 1, 0] * S[j, 0, c] + Rw[j, 1, 1] * S[j, 1, c] + Rw[j, 1, 2] * S[j, 2, c]
            wz = Rw[j, 2, 0] * S[j, 0, c] + Rw[j, 2, 1] * S[j, 1, c] + Rw[j, 2, 2] * S[j, 2, c]
            lx = Rw[j, 0, 0] * S[j, 3, c] + Rw[j, 0, 1] * S[j, 4, c] + Rw[j, 0, 2] * S[j, 5, c] + wy * dz - wz * dy
            ly = Rw[j, 1, 0] * S[j, 3, c] + Rw[j, 1, 1] * S[j, 4, c] + Rw[j, 1, 2] * S[j, 5, c] + wz * dx - wx * dz
            lz = Rw[j, 2, 0] * S[j, 3, c] + Rw[j, 2, 1] * S[j, 4, c] + Rw[j, 2, 2] * S[j, 5, c] + wx * dy - wy * dx
            for k in range(3):
                J[r0 + k, v0 + c] += scale * (dirs[k, 0] * lx + dirs[k, 1] * ly + dirs[k, 2] * lz)
        j = link_table[j, LINK_PARENT]


@njit(cache=True, fastmath=FMA, **INTERNAL)
def contact_support(link_table, la, lb, mark, out):
    """The dofs a contact's rows between links la and lb (-1: the world) can be nonzero on,
    those of both links' chains to the root, into out in decreasing order; returns their
    number. The set holds every ancestor of its dofs, so the half solve L^-T of such a row stays
    in it. mark bool [nv] is scratch, all False before and after."""
    for side in range(2):
        j = la if side == 0 else lb
        while j >= 0:
            v0 = link_table[j, LINK_V_START]
            for c in range(primitive_nv(link_table[j, LINK_TYPE])):
                mark[v0 + c] = True
            j = link_table[j, LINK_PARENT]
    n = 0
    for d in range(mark.shape[0] - 1, -1, -1):
        if mark[d]:
            out[n] = d
            n += 1
            mark[d] = False
    return n
