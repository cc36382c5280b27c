"""A floating tree's momentum and centre of mass kept on the lone-body path in free flight.

With no external force but gravity, a floating tree's linear momentum P, its angular momentum
L about its centre of mass c, and c itself follow the lone body's semi-implicit Euler step:
P' = P + h M g, L' = L, c' = c + h P' / M. The reduced-coordinate step does not keep them: its
velocity update holds them at the start configuration, and the position update then evaluates
them at a new one, an O(h^2) error a step that adds up (measured on random floating trees with a
few links turning at 2 rad/s: 5 cm off the lone-body path after 1 s at dt = 1e-3, halving with dt).

After each Euler step the tree is given back the momentum and centre of mass that path gives it,
by the smallest change there is: one rigid twist added to the whole tree (its joint rates are
untouched), dv = (P' - P) / M at c and dw = I_c^-1 (L' - L), and one translation of the whole
tree by c' - c. Both are rigid motions of the tree, so no joint moves and nothing internal
(drives, limits, loops) sees them. A tree that a contact touches from outside (the world, a
static collider, another tree) in a step, or whose base feels a force from the world (damping,
a spring, a drive or a limit on the free joint, a loop or a coupling reaching out of the tree), is
left as it is and its path starts again from it. A contact between two links of one tree is an
internal force (its impulses and its push apart of an overlap act between the two links, in
joint space), so the tree's path goes on through it: restarting it at every self-contact let a
floating pair of arms whose link hulls overlap drift 4.3 mm from free fall in 2 s.
"""
from __future__ import annotations

import math

from . import FMA, INTERNAL, WRAPPERLESS, njit
from .jcalc import FREE, primitive_nv
from .layout import (
    DOF_DAMPING, DOF_DRIVE_TYPE, DOF_FRICTION_LOSS, DOF_LOWER, DOF_STIFFNESS, DOF_UPPER,
    DOF_VELOCITY_LIMIT, LINK_PARENT, LINK_Q_START, LINK_TYPE, LINK_V_START,
)
from .spatial import link_velocity, subspace_times

# state columns per root link: P (3), L about c (3), c (3), M, valid
STATE_COLUMNS = 11


@njit(cache=True, fastmath=FMA, **WRAPPERLESS)
def kept_roots(link_table, I6, dof_table, coupling_dof, loop_link, root_of, out):
    """out[i] = True for a free root link whose tree's momentum is kept (see the module
    docstring): it has a child, and its base feels nothing from the world; returns True when
    some root is kept. root_of int64 [nlink] receives each link's root."""
    n = link_table.shape[0]
    for i in range(n):
        parent = link_table[i, LINK_PARENT]
        root_of[i] = i if parent < 0 else root_of[parent]
        out[i] = parent < 0 and link_table[i, LINK_TYPE] == FREE
    has_child = [False] * n
    for i in range(n):
        if link_table[i, LINK_PARENT] >= 0:
            has_child[root_of[i]] = True
    for i in range(n):
        if not out[i]:
            continue
        if not has_child[i]:
            out[i] = False  # a lone body: configuration.world_frame_velocity keeps it
            continue
        v0 = link_table[i, LINK_V_START]
        for k in range(v0, v0 + 6):
            if (dof_table[k, DOF_DAMPING] != 0.0 or dof_table[k, DOF_STIFFNESS] != 0.0
                    or dof_table[k, DOF_FRICTION_LOSS] != 0.0 or dof_table[k, DOF_DRIVE_TYPE] != 0.0
                    or dof_table[k, DOF_LOWER] > -math.inf or dof_table[k, DOF_UPPER] < math.inf
                    or dof_table[k, DOF_VELOCITY_LIMIT] < math.inf):
                out[i] = False
    dof_root = [-1] * dof_table.shape[0]
    for i in range(n):
        v0 = link_table[i, LINK_V_START]
        for k in range(v0, v0 + primitive_nv(link_table[i, LINK_TYPE])):
            dof_root[k] = root_of[i]
    for c in range(coupling_dof.shape[0]):
        a, b = dof_root[coupling_dof[c, 0]], dof_root[coupling_dof[c, 1]]
        if a != b:
            if a >= 0:
                out[a] = False
            if b >= 0:
                out[b] = False
    for c in range(loop_link.shape[0]):
        la, lb = loop_link[c, 0], loop_link[c, 1]
        a = root_of[la] if la >= 0 else -1
        b = root_of[lb] if lb >= 0 else -1
        if a != b:
            if a >= 0:
                out[a] = False
            if b >= 0:
                out[b] = False
    kept = False
    for i in range(n):
        kept = kept or out[i]
    return kept


@njit(cache=True, fastmath=FMA, **INTERNAL)
def tree_momenta(link_table, S, I6, E, r, Rw, pw, root_of, kept, qd, V, out):
    """Per kept root, out[root] = (P, L about c, c, M, 1) of its tree at the state whose link
    transforms (E, r) and world poses (Rw, pw) are given, with joint velocities qd; V [nlink, 6]
    is scratch (the links' spatial velocities in link coordinates)."""
    n = link_table.shape[0]
    for i in range(n):
        for a in range(STATE_COLUMNS):
            out[i, a] = 0.0
    for i in range(n):
        nv = primitive_nv(link_table[i, LINK_TYPE])
        j0, j1, j2, j3, j4, j5 = subspace_times(S, i, nv, qd, link_table[i, LINK_V_START])
        v0, v1, v2, v3, v4, v5 = link_velocity(E, r, i, link_table[i, LINK_PARENT], V, j0, j1, j2, j3, j4, j5)
        V[i, 0], V[i, 1], V[i, 2], V[i, 3], V[i, 4], V[i, 5] = v0, v1, v2, v3, v4, v5
        root = root_of[i]
        m = I6[i, 3, 3]
        if not kept[root] or m == 0.0:
            continue
        # the link's momentum I6 V in link coordinates: angular about its origin, then linear
        a0 = I6[i, 0, 0] * v0 + I6[i, 0, 1] * v1 + I6[i, 0, 2] * v2 + I6[i, 0, 3] * v3 + I6[i, 0, 4] * v4 + I6[i, 0, 5] * v5
        a1 = I6[i, 1, 0] * v0 + I6[i, 1, 1] * v1 + I6[i, 1, 2] * v2 + I6[i, 1, 3] * v3 + I6[i, 1, 4] * v4 + I6[i, 1, 5] * v5
        a2 = I6[i, 2, 0] * v0 + I6[i, 2, 1] * v1 + I6[i, 2, 2] * v2 + I6[i, 2, 3] * v3 + I6[i, 2, 4] * v4 + I6[i, 2, 5] * v5
        l0 = I6[i, 3, 0] * v0 + I6[i, 3, 1] * v1 + I6[i, 3, 2] * v2 + I6[i, 3, 3] * v3 + I6[i, 3, 4] * v4 + I6[i, 3, 5] * v5
        l1 = I6[i, 4, 0] * v0 + I6[i, 4, 1] * v1 + I6[i, 4, 2] * v2 + I6[i, 4, 3] * v3 + I6[i, 4, 4] * v4 + I6[i, 4, 5] * v5
        l2 = I6[i, 5, 0] * v0 + I6[i, 5, 1] * v1 + I6[i, 5, 2] * v2 + I6[i, 5, 3] * v3 + I6[i, 5, 4] * v4 + I6[i, 5, 5] * v5
        w0 = Rw[i, 0, 0] * l0 + Rw[i, 0, 1] * l1 + Rw[i, 0, 2] * l2
        w1 = Rw[i, 1, 0] * l0 + Rw[i, 1, 1] * l1 + Rw[i, 1, 2] * l2
        w2 = Rw[i, 2, 0] * l0 + Rw[i, 2, 1] * l1 + Rw[i, 2, 2] * l2
        out[root, 0] += w0
        out[root, 1] += w1
        out[root, 2] += w2
        # L about the world origin: R (angular about the link origin) + p x (world linear)
        out[root, 3] += Rw[i, 0, 0] * a0 + Rw[i, 0, 1] * a1 + Rw[i, 0, 2] * a2 + pw[i, 1] * w2 - pw[i, 2] * w1
        out[root, 4] += Rw[i, 1, 0] * a0 + Rw[i, 1, 1] * a1 + Rw[i, 1, 2] * a2 + pw[i, 2] * w0 - pw[i, 0] * w2
        out[root, 5] += Rw[i, 2, 0] * a0 + Rw[i, 2, 1] * a1 + Rw[i, 2, 2] * a2 + pw[i, 0] * w1 - pw[i, 1] * w0
        # m c = (I6[2, 4], I6[0, 5], I6[1, 3]) in link axes (I6[:3, 3:] = m [c]x)
        mc0, mc1, mc2 = I6[i, 2, 4], I6[i, 0, 5], I6[i, 1, 3]
        for a in range(3):
            out[root, 6 + a] += m * pw[i, a] + Rw[i, a, 0] * mc0 + Rw[i, a, 1] * mc1 + Rw[i, a, 2] * mc2
        out[root, 9] += m
    for i in range(n):
        if not kept[i] or not out[i, 9] > 0.0:
            continue
        m = out[i, 9]
        c0, c1, c2 = out[i, 6] / m, out[i, 7] / m, out[i, 8] / m
        out[i, 6], out[i, 7], out[i, 8] = c0, c1, c2
        p0, p1, p2 = out[i, 0], out[i, 1], out[i, 2]
        out[i, 3] -= c1 * p2 - c2 * p1  # L about c = L_o - c x P
        out[i, 4] -= c2 * p0 - c0 * p2
        out[i, 5] -= c0 * p1 - c1 * p0
        out[i, 10] = 1.0


@njit(cache=True, fastmath=FMA, **INTERNAL)
def restart_touched(col_link, pairs, pair_of, n_contacts, root_of, kept, before) -> bool:
    """before[root, 10] = 0 (no valid start: the path starts again) for every tree one of the
    step's n_contacts contacts joins to something outside it: a collider on the world (link -1),
    or one of another tree. Returns whether some kept tree still has a valid start (else the
    step has nothing to keep). col_link [n_col], pairs [n_pairs, 2+], pair_of [>= n_contacts] as
    contact.detect_contacts leaves them; root_of, kept [nlink] as kept_roots fills them."""
    for c in range(n_contacts):
        p = pair_of[c]
        la = col_link[pairs[p, 0]]
        lb = col_link[pairs[p, 1]]
        ra = root_of[la] if la >= 0 else -1
        rb = root_of[lb] if lb >= 0 else -1
        if ra == rb and ra >= 0:
            continue  # both links in one tree: an internal force
        if ra >= 0:
            before[ra, 10] = 0.0
        if rb >= 0:
            before[rb, 10] = 0.0
    for i in range(root_of.shape[0]):
        if kept[i] and before[i, 10] > 0.0:
            return True
    return False


@njit(cache=True, fastmath=FMA, **WRAPPERLESS)
def keep_momenta(link_table, S, I6, R_pj, Rw, pw, root_of, kept, gravity, h, before, after, Ic, q, qd):
    """Give each kept tree the momentum and centre of mass of the lone-body step from `before`
    (tree_momenta at the step's start, or the last targets) to now (`after`, tree_momenta at the
    step's end): a rigid twist added to its free root's velocity and a translation of its root.
    `before` receives the targets. Ic [nlink, 9] is scratch."""
    n = link_table.shape[0]
    for i in range(n):
        for a in range(9):
            Ic[i, a] = 0.0
    for i in range(n):  # rotational inertia of each tree about its centre of mass, world axes
        root = root_of[i]
        m = I6[i, 3, 3]
        if not kept[root] or m == 0.0 or not after[root, 10] > 0.0:
            continue
        cl0, cl1, cl2 = I6[i, 2, 4] / m, I6[i, 0, 5] / m, I6[i, 1, 3] / m
        # the link's inertia about its own centre of mass (link axes): I_o - m (|c|^2 1 - c c^T)
        cc = cl0 * cl0 + cl1 * cl1 + cl2 * cl2
        cl = (cl0, cl1, cl2)
        J = [0.0] * 9
        for a in range(3):
            for b in range(3):
                J[3 * a + b] = I6[i, a, b] - m * ((cc if a == b else 0.0) - cl[a] * cl[b])
        d = [0.0] * 3
        for a in range(3):
            d[a] = pw[i, a] + Rw[i, a, 0] * cl0 + Rw[i, a, 1] * cl1 + Rw[i, a, 2] * cl2 - after[root, 6 + a]
        dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
        for a in range(3):
            for b in range(3):
                s = 0.0
                for k in range(3):
                    for l in range(3):
                        s += Rw[i, a, k] * J[3 * k + l] * Rw[i, b, l]
                Ic[root, 3 * a + b] += s + m * ((dd if a == b else 0.0) - d[a] * d[b])
    for i in range(n):
        if not kept[i] or not (before[i, 10] > 0.0 and after[i, 10] > 0.0):
            continue
        m = after[i, 9]
        P = [before[i, a] + h * m * gravity[a] for a in range(3)]
        c = [before[i, 6 + a] + h * P[a] / m for a in range(3)]
        dv = [(P[a] - after[i, a]) / m for a in range(3)]
        e = [before[i, 3 + a] - after[i, 3 + a] for a in range(3)]
        dw = _solve3(Ic, i, e)
        # the root's origin velocity change (world), then both in link coordinates
        rel = [pw[i, a] - after[i, 6 + a] for a in range(3)]
        u = [dv[0] + dw[1] * rel[2] - dw[2] * rel[1], dv[1] + dw[2] * rel[0] - dw[0] * rel[2],
             dv[2] + dw[0] * rel[1] - dw[1] * rel[0]]
        wl = [Rw[i, 0, a] * dw[0] + Rw[i, 1, a] * dw[1] + Rw[i, 2, a] * dw[2] for a in range(3)]
        vl = [Rw[i, 0, a] * u[0] + Rw[i, 1, a] * u[1] + Rw[i, 2, a] * u[2] for a in range(3)]
        # the free joint's rates from a link-coordinate twist: S = [[0, E], [E, B]] (columns
        # linear then angular), so w_m = E^T w_l and v_m = E^T (v_l - B w_m)
        v0 = link_table[i, LINK_V_START]
        wm = [S[i, 0, 3 + a] * wl[0] + S[i, 1, 3 + a] * wl[1] + S[i, 2, 3 + a] * wl[2] for a in range(3)]
        rest = [vl[b] - (S[i, 3 + b, 3] * wm[0] + S[i, 3 + b, 4] * wm[1] + S[i, 3 + b, 5] * wm[2]) for b in range(3)]
        for a in range(3):
            qd[v0 + a] += S[i, 3, a] * rest[0] + S[i, 4, a] * rest[1] + S[i, 5, a] * rest[2]
            qd[v0 + 3 + a] += wm[a]
        q0 = link_table[i, LINK_Q_START]
        t = [c[a] - after[i, 6 + a] for a in range(3)]
        for a in range(3):  # R_pj^T t: the root's position coordinates are in its parent frame
            q[q0 + a] += R_pj[i, 0, a] * t[0] + R_pj[i, 1, a] * t[1] + R_pj[i, 2, a] * t[2]
        for a in range(3):
            before[i, a] = P[a]
            before[i, 6 + a] = c[a]
        # L about c is kept as it was: before[i, 3:6] unchanged
        before[i, 9] = m
        before[i, 10] = 1.0


@njit(cache=True, fastmath=FMA, **WRAPPERLESS)
def _solve3(Ic, i, e):
    """Ic[i] (a 3x3 symmetric inertia, row-major) solved for e by Cramer's rule; zeros when it is
    singular to round-off (a tree whose mass lies on a line: no angular correction)."""
    a, b, c = Ic[i, 0], Ic[i, 1], Ic[i, 2]
    d, f, g = Ic[i, 3], Ic[i, 4], Ic[i, 5]
    k, l, m = Ic[i, 6], Ic[i, 7], Ic[i, 8]
    det = a * (f * m - g * l) - b * (d * m - g * k) + c * (d * l - f * k)
    scale = (abs(a) + abs(f) + abs(m)) ** 3
    if not abs(det) > 1e-12 * scale:
        return [0.0, 0.0, 0.0]
    x0 = (e[0] * (f * m - g * l) - b * (e[1] * m - g * e[2]) + c * (e[1] * l - f * e[2])) / det
    x1 = (a * (e[1] * m - g * e[2]) - e[0] * (d * m - g * k) + c * (d * e[2] - e[1] * k)) / det
    x2 = (a * (f * e[2] - e[1] * l) - b * (d * e[2] - e[1] * k) + e[0] * (d * l - f * k)) / det
    return [x0, x1, x2]
