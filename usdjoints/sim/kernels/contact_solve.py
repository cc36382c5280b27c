"""Contact impulses: a dissipative velocity-level solve of the points contact.py detects.

Impulses (after the step's velocity update): every contact has a normal row and two tangent
rows, solved at the velocity level by projected Gauss-Seidel with the effective inverse
inertia of the step, projected onto the equality constraints (contacts never break a coupling):

* the normal row asks for a separating velocity of at least gap / h for a gap (the pair may
  close it in the step, not more) and 0 for an overlap (restitution 0: the approach stops, no
  push is kept); a bouncy pair meeting this step leaves at e times its approach speed;
* the tangent rows carry Coulomb friction, |lambda_t| <= mu lambda_n (a disc, so the sliding
  force is exactly mu times the normal one); a sticking pair gets the exact minimiser of its
  2 x 2 block;
* each normal row is regularised by a fixed fraction of its own effective inverse mass, so the
  solve is strictly convex and its impulses bounded for any link mass;
* joint rows join the solve for every dof the contact impulses would carry past its limit or
  velocity bound (limits.py's interval of the step), so a contact pressing a limited joint is
  held by the limit in the same solve; the joint rows are swept last, so where the two cannot
  both hold the contact gives way.

Impulses only push (lambda_n >= 0) towards targets <= 0, friction only opposes sliding and the
limits only stop, so the converged impulses do no positive work on the velocity they leave, and
the semi-implicit Euler step then cannot gain energy from them (see _solve); a final scaling of
all impulses by one factor in [0, 1] keeps that true of the iterate the sweeps stopped at.
Overlaps are removed by split impulses: a second solve of the normal (and joint) rows gives a
velocity that moves only this step's positions, at depth / time constant (at most PhysX's
default maxDepenetrationVelocity, 3 m/s), and is then dropped, so pushing an overlap apart adds
no kinetic energy, and a robot whose colliders overlap at the start is not thrown apart. The
step then holds that push within the joint limits exactly (limits.hold_push): the joint rows
swept here stop most of it, but many coupled rows (a converted rodent's spine) are left far
from converged.
"""
from __future__ import annotations

import math

import numpy as np

from . import FMA, INTERNAL, WRAPPERLESS, njit, plain_argument_types
from .constraints import project_out
from .contact import SETTING_ITERATIONS, SETTING_MAX_DEPENETRATION, SETTING_TIME_CONSTANT
from .contact_direct import direct_solve
from .contact_rows import contact_rows, contact_support, tangents
from .crba import ltdl_solve

# A sweep of the Gauss-Seidel solve that changes no row's velocity by more than this ends it
# [m/s, rad/s]
CONVERGED = 1e-10
# Each contact normal row's compliance as a fraction of its effective inverse mass W_rr (see
# solve_contacts): the response to a contact is then the same for a 1 g link as for a 10 kg one.
REGULARISATION = 1e-6


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def _row_velocity(J, r, w):
    """J[r] . w, in four partial sums: one sum is a chain of dependent multiply-adds (FMA keeps
    their order, so the compiler cannot split it), four are independent and overlap; the W of
    four foot contacts took a quarter of the contact solve's time as one chain."""
    n = w.shape[0]
    s0 = 0.0
    s1 = 0.0
    s2 = 0.0
    s3 = 0.0
    d = 0
    while d + 4 <= n:
        s0 += J[r, d] * w[d]
        s1 += J[r, d + 1] * w[d + 1]
        s2 += J[r, d + 2] * w[d + 2]
        s3 += J[r, d + 3] * w[d + 3]
        d += 4
    while d < n:
        s0 += J[r, d] * w[d]
        d += 1
    return (s0 + s1) + (s2 + s3)


@njit(cache=True, fastmath=FMA, **INTERNAL)
def _add_column(PJ, r, amount, w):
    for d in range(w.shape[0]):
        w[d] += PJ[r, d] * amount


@plain_argument_types
@njit(cache=True, fastmath=FMA, **INTERNAL)
def _sweeps(J, PJ, diag, w12, n_c, target, reg, mu, floor, friction, n_j, dof_of, x_of, PJl,
            diag_j, lo, hi, jbase, floor_j, iterations, unit, x, lam, lam_j):
    """Projected Gauss-Seidel on the rows' velocities, kept in x, one of two ways:

    * unit False, in velocity space: x [nv] is the velocity w with the impulses so far, a
      row's velocity J_r w is read from it and each impulse change added to it through the
      row's column PJ_r = H^-1 J_r (a sweep costs rows x nv);
    * unit True, in the rows' own space: x [rows + joint rows] holds each row's velocity
      itself (x[r] = J_r w), and PJ's row r is row r of the Delassus matrix W = J H^-1 J^T,
      so an impulse change adds W_r times it (a sweep costs rows^2: fewer when rows < nv).

    Contact c: a normal row 3c (lam >= 0 asking J w >= target, regularised by reg), then two
    tangent rows in the disc |lam_t| <= mu lam_n when ``friction`` (else left at zero); diag
    holds J_r PJ_r and w12 [n_c] the tangent block's coupling J_r1 PJ_r2. Joint row l holds dof
    k = dof_of[l] in lo[k] <= jbase[k] + x[x_of[l]] <= hi[k] (its column PJl[l], diagonal
    diag_j[l]), pushing only towards the bound it holds. Both ways take the same steps."""
    for _ in range(iterations):
        change = 0.0  # the largest velocity change [m/s, rad/s] a row's update made this sweep
        for c in range(n_c):
            rn = 3 * c
            if diag[rn] > floor:
                old = lam[rn]
                u = x[rn] if unit else _row_velocity(J, rn, x)
                new = max(0.0, old - (u + reg[rn] * old - target[rn]) / (diag[rn] + reg[rn]))
                if new != old:
                    change = max(change, abs(new - old) * diag[rn])
                    _add_column(PJ, rn, new - old, x)
                    lam[rn] = new
            if not friction:
                continue
            bound = mu[c] * lam[rn]
            r1 = rn + 1
            r2 = rn + 2
            old1 = lam[r1]
            old2 = lam[r2]
            new1, new2 = 0.0, 0.0
            h11 = diag[r1]
            h22 = diag[r2]
            if h11 > floor and h22 > floor and bound > 0.0:
                u1 = x[r1] if unit else _row_velocity(J, r1, x)
                u2 = x[r2] if unit else _row_velocity(J, r2, x)
                # sticking: the exact minimiser of the 2 x 2 friction block (a diagonal step
                # overshoots when both directions move one light link's single freedom)
                h12 = w12[c]
                det = h11 * h22 - h12 * h12
                if det > 1e-9 * h11 * h22:
                    new1 = old1 - (h22 * u1 - h12 * u2) / det
                    new2 = old2 - (h11 * u2 - h12 * u1) / det
                else:  # the two directions move one freedom: the exact step along (1, sgn)
                    sgn = 1.0 if h12 >= 0.0 else -1.0
                    step = (u1 + sgn * u2) / (h11 + h22 + 2.0 * abs(h12))
                    new1 = old1 - step
                    new2 = old2 - sgn * step
                if math.sqrt(new1 * new1 + new2 * new2) > bound:
                    # sliding: the diagonal step, whose projection onto the disc opposes the slip
                    new1 = old1 - u1 / h11
                    new2 = old2 - u2 / h22
                    norm = math.sqrt(new1 * new1 + new2 * new2)
                    if norm > bound:
                        new1 *= bound / norm
                        new2 *= bound / norm
            if new1 != old1 or new2 != old2:
                change = max(change, abs(new1 - old1) * h11, abs(new2 - old2) * h22)
                _add_column(PJ, r1, new1 - old1, x)
                _add_column(PJ, r2, new2 - old2, x)
                lam[r1] = new1
                lam[r2] = new2
        for l in range(n_j):
            dj = diag_j[l]
            if dj <= floor_j:
                continue
            k = dof_of[l]
            old = lam_j[l]
            free = jbase[k] + x[x_of[l]] - dj * old
            new = 0.0
            if free < lo[k]:
                new = (lo[k] - free) / dj
            elif free > hi[k]:
                new = (hi[k] - free) / dj
            if new != old:
                change = max(change, abs(new - old) * dj)
                _add_column(PJl, l, new - old, x)
                lam_j[l] = new
        if change <= CONVERGED:  # another sweep would move no row's velocity by more
            break


@njit(cache=True, fastmath=FMA, **INTERNAL)
def _velocity(dof_parent, LD, J, PJ, columns, rows, PJl, n_j, dof_of, lam, lam_j, w0, x, w):
    """w [nv] <- w0 + H^-1 (J^T lam + sum_l e_k(l) lam_j[l]): the velocity the impulses leave
    (the Delassus-space sweeps keep only the rows' velocities). With ``columns`` from the rows'
    columns PJ and PJl; else (no constraints: PJ holds L^-T J^T only) by one solve of the
    summed impulse (x [nv] scratch)."""
    nv = w.shape[0]
    if columns:
        for d in range(nv):
            w[d] = w0[d]
        for r in range(rows):
            if lam[r] != 0.0:
                _add_column(PJ, r, lam[r], w)
        for l in range(n_j):
            if lam_j[l] != 0.0:
                _add_column(PJl, l, lam_j[l], w)
        return
    for d in range(nv):
        x[d] = 0.0
    for r in range(rows):
        if lam[r] != 0.0:
            _add_column(J, r, lam[r], x)
    for l in range(n_j):
        x[dof_of[l]] += lam_j[l]
    ltdl_solve(dof_parent, LD, x)
    for d in range(nv):
        w[d] = w0[d] + x[d]


@njit(cache=True, fastmath=FMA, **INTERNAL)
def _outside(value, lo, hi):
    tol = 1e-9 * (1.0 + abs(value))
    return value < lo - tol or value > hi + tol


@plain_argument_types
@njit(cache=True, fastmath=FMA, **INTERNAL)
def _solve(dof_parent, LD, G, Y, A, m_eq, lam_eq, J, PJ, W, unit, columns, diag, w12, n_c, target,
           reg, mu, floor, friction, iterations, jbase, bounds, safeguard, w, lam, work):
    """Solve the contact rows (see _sweeps) from the velocity w [nv] (updated in place), with
    the joint rows their push would carry past a bound: a joint row (J = e_k) joins while
    jbase + w leaves bounds[0] <= . <= bounds[1] for its dof k (an active set around the
    sweeps), so a contact pressing a limited joint is held by the limit in the same solve
    instead of being undone by it, or undoing it. W [rows + nv, rows + nv] holds the Delassus
    matrix of the contact rows when they are no more than the dofs (``unit``, solve_contacts),
    and the sweeps then run on the rows' velocities. ``columns``: PJ holds the rows'
    columns H^-1 J^T (projected onto the constraints), else only L^-T J^T (W holds what the
    sweeps need). With ``safeguard`` the velocity change is
    scaled at the end by one s in [0, 1] (all impulses alike: momentum-neutral between links,
    inside every cone) so that the impulses' work on the velocity they leave, lam . J w, is no
    more than the positive targets ask for (restitution 0: none), whatever iterate the sweeps
    stopped at. That work is what decides the step's energy: with v' the velocity after the
    step's forces and a = h H^-1 tau_gravity, the semi-implicit Euler step changes kinetic plus
    potential energy by lam . J w - |a + dw|_H^2 / 2, so impulses that do no positive work on
    the end velocity (an inelastic stop: J w = 0; a gap closing: lam > 0 at J w < 0; friction
    opposing the slip) can only remove energy.
    When no contact slides (the common case of a body resting or held), one direct solve
    (contact_direct.direct_solve) gives the sweeps' fixed point exactly; the sweeps run when it
    does not hold or a joint row has to join.
    work: solve_workspace's scratch of _solve (w0, dof_of, x_of, lam_j, diag_j, joined, PJl,
    u, x, and direct_solve's A_d, b_d, idx_d, active_d)."""
    nv = w.shape[0]
    rows = 3 * n_c
    for r in range(rows):
        lam[r] = 0.0
    w0, dof_of, x_of, lam_j, diag_j, joined, PJl, u, x, A_d, b_d, idx_d, active_d = work
    for d in range(nv):
        w0[d] = w[d]
        lam_j[d] = 0.0
        joined[d] = False
    lo = bounds[0]
    hi = bounds[1]
    n_j = 0
    floor_j = 0.0
    # fewer rows than dofs: sweep in the rows' own space, on the Delassus matrix W (_sweeps)
    direct = False
    if unit:
        for r in range(rows):
            u[r] = _row_velocity(J, r, w)
        direct = direct_solve(W, diag, reg, target, mu, floor, friction, n_c, u, lam, A_d, b_d, idx_d,
                         active_d)
        if direct:
            _velocity(dof_parent, LD, J, PJ, columns, rows, PJl, 0, dof_of, lam, lam_j, w0, x, w)
            for k in range(nv):
                if _outside(jbase[k] + w[k], lo[k], hi[k]):
                    direct = False  # a joint row joins: the sweeps solve from the start
                    break
        if not direct:
            for r in range(rows):
                lam[r] = 0.0
            for d in range(nv):
                w[d] = w0[d]
    for _ in range(0 if direct else nv + 1):
        if unit:
            _sweeps(J, W, diag, w12, n_c, target, reg, mu, floor, friction, n_j, dof_of, x_of,
                    W[rows:], diag_j, lo, hi, jbase, floor_j, iterations, True, u[:rows + n_j],
                    lam, lam_j)
            _velocity(dof_parent, LD, J, PJ, columns, rows, PJl, n_j, dof_of, lam, lam_j, w0, x, w)
        else:
            _sweeps(J, PJ, diag, w12, n_c, target, reg, mu, floor, friction, n_j, dof_of, x_of,
                    PJl, diag_j, lo, hi, jbase, floor_j, iterations, False, w, lam, lam_j)
        added = False
        for k in range(nv):
            if joined[k] or not _outside(jbase[k] + w[k], lo[k], hi[k]):
                continue
            joined[k] = True
            added = True
            col = PJl[n_j]
            for d in range(nv):
                col[d] = 0.0
            col[k] = 1.0
            ltdl_solve(dof_parent, LD, col)
            if G is not None and m_eq > 0:
                project_out(G, Y, A, m_eq, col, lam_eq)
            diag_j[n_j] = col[k]
            floor_j = max(floor_j, 1e-9 * col[k])
            dof_of[n_j] = k
            x_of[n_j] = rows + n_j if unit else k
            if unit:  # the joint row's entries of W (J_k = e_k) and its velocity
                a = rows + n_j
                for r in range(rows):
                    W[a, r] = _row_velocity(J, r, col)
                    W[r, a] = W[a, r]
                for l in range(n_j + 1):
                    W[a, rows + l] = col[dof_of[l]]
                    W[rows + l, a] = W[a, rows + l]
                u[a] = w[k]
            n_j += 1
        if not added:
            break
    if n_j > 0:
        # the limits have the last word: where the sweeps left a contact (one the limit leaves
        # no way to satisfy, a light finger pushed against its stop) and a joint row in
        # conflict, the joint rows alone are swept once more, so the step never carries a
        # joint past its bound and the contact gives way instead
        if unit:
            _sweeps(J, W, diag, w12, 0, target, reg, mu, floor, friction, n_j, dof_of, x_of,
                    W[rows:], diag_j, lo, hi, jbase, floor_j, iterations, True, u[:rows + n_j],
                    lam, lam_j)
            _velocity(dof_parent, LD, J, PJ, columns, rows, PJl, n_j, dof_of, lam, lam_j, w0, x, w)
        else:
            _sweeps(J, PJ, diag, w12, 0, target, reg, mu, floor, friction, n_j, dof_of, x_of,
                    PJl, diag_j, lo, hi, jbase, floor_j, iterations, False, w, lam, lam_j)
    if not safeguard:
        return
    # the work on the end velocity at scale s is s a + s^2 b with dw = w - w0 = sum PJ lam:
    # a = lam . J w0, b = lam . J dw = dw' H dw >= 0
    a = 0.0
    b = 0.0
    budget = 0.0
    for r in range(rows):
        if lam[r] == 0.0:
            continue
        u0 = _row_velocity(J, r, w0)
        a += lam[r] * u0
        b += lam[r] * (_row_velocity(J, r, w) - u0)
        if r % 3 == 0 and target[r] > 0.0:
            budget += lam[r] * target[r]
    for l in range(n_j):
        k = dof_of[l]
        a += lam_j[l] * w0[k]
        b += lam_j[l] * (w[k] - w0[k])
        budget += max(0.0, lam_j[l] * (lo[k] if lam_j[l] > 0.0 else hi[k]))
    s = 1.0
    if a + b > budget:
        if b > 0.0:
            s = max(0.0, min(1.0, (math.sqrt(max(a * a + 4.0 * b * budget, 0.0)) - a) / (2.0 * b)))
        else:
            s = 0.0
    if s < 1.0:
        for d in range(nv):
            w[d] = w0[d] + s * (w[d] - w0[d])


@njit(cache=True, fastmath=FMA, **WRAPPERLESS)
def solve_workspace(contacts, nv):
    """solve_contacts' scratch for at most ``contacts`` contacts of a model of nv dofs, allocated
    once per trajectory (each allocation in a step is a call, and reference counts on the array):
    (t1, t2, dirs [3, 3], mu and w12 per contact, diag and reg per row, the Delassus matrix W
    with room for the joint rows [n, n], a zero vector [nv], each contact's dofs
    (contact_rows.contact_support) [contacts, nv] and their number [contacts], flags [nv]), then
    _solve's (w0, dof_of, x_of, lam_j, diag_j, joined [nv], the joint rows' columns PJl [nv, nv],
    the rows' velocities u [n], x [nv], and direct_solve's A [d, d], b, idx and active [d]). W, u
    and direct_solve's are used when the contact rows are no more than the dofs, so
    d = min(3 contacts, nv) and n = d + nv."""
    rows = 3 * contacts
    d = min(rows, nv)
    n = d + nv
    return ((np.empty(3), np.empty(3), np.empty((3, 3)), np.empty(contacts), np.empty(contacts),
             np.empty(rows), np.empty(rows), np.empty((n, n)), np.empty(nv),
             np.empty((contacts, nv), dtype=np.int64), np.empty(contacts, dtype=np.int64),
             np.zeros(nv, dtype=np.bool_)),
            (np.empty(nv), np.empty(nv, dtype=np.int64), np.empty(nv, dtype=np.int64), np.empty(nv),
             np.empty(nv), np.empty(nv, dtype=np.bool_), np.empty((nv, nv)), np.empty(n),
             np.empty(nv), np.empty((d, d)), np.empty(d), np.empty(d, dtype=np.int64),
             np.empty(d, dtype=np.bool_)))


@njit(cache=True, fastmath=FMA, **INTERNAL)
def solve_contacts(link_table, S, Rw, pw, dof_parent, LD, G, Y, A, m_eq, lam_eq, col_link,
                   col_friction, col_restitution, pairs, n_contacts, pair_of, points, normals,
                   depths, v_start, h, settings, J, PJ, lam, target, bounds, work, v, bias) -> bool:
    """Add the contact impulses' velocity change to v [nv] (the end-of-step velocity after the
    limit impulses) and write the position-only correction velocity bias [nv] (split impulses:
    it moves this step's positions, then is dropped); returns True when bias is not zero.
    v_start [nv] is the velocity at the start of the step (for restitution). bounds: a tuple
    whose first two [nv] vectors are each dof's velocity interval for this step from
    limits.limit_impulses (-inf, inf where none). J, PJ [3 nc, nv], lam, target [3 nc] and work
    (solve_workspace) are scratch. G is None on a model without couplings or loops (numba then
    compiles no projection)."""
    nv = v.shape[0]
    rows = 3 * n_contacts
    (t1, t2, dirs, mu, w12, diag, reg, W, zero, support, support_n, mark), solve_work = work
    max_push = max(settings[SETTING_MAX_DEPENETRATION], 0.0)
    rate = 1.0 / settings[SETTING_TIME_CONSTANT]
    overlapping = False
    # no more rows than dofs: the sweeps run on the Delassus matrix W = J H^-1 J^T (_sweeps),
    # formed once for both solves; without constraints from half solves y_r = L^-T J_r^T
    # (W_rs = sum_i y_ri y_si / D_i; PJ then holds y_r / sqrt(D), which nothing else reads),
    # with them from the rows' projected columns
    unit = rows <= nv
    columns = not unit or m_eq > 0
    for c in range(n_contacts):
        ca = pairs[pair_of[c], 0]
        cb = pairs[pair_of[c], 1]
        mu[c] = 0.5 * (col_friction[ca] + col_friction[cb])
        tangents(normals[c], t1, t2)
        for a in range(3):
            dirs[0, a] = normals[c, a]
            dirs[1, a] = t1[a]
            dirs[2, a] = t2[a]
        for k in range(3):
            for d in range(nv):
                J[3 * c + k, d] = 0.0
        contact_rows(link_table, S, Rw, pw, col_link[cb], points[c], dirs, 1.0, J, 3 * c)
        contact_rows(link_table, S, Rw, pw, col_link[ca], points[c], dirs, -1.0, J, 3 * c)
        for k in range(3):
            r = 3 * c + k
            for d in range(nv):
                PJ[r, d] = J[r, d]
            if columns:
                ltdl_solve(dof_parent, LD, PJ[r])
                if G is not None and m_eq > 0:
                    project_out(G, Y, A, m_eq, PJ[r], lam_eq)
        if not columns:  # the half solve L^-T J_r^T on the rows' dofs alone
            n_s = contact_support(link_table, col_link[ca], col_link[cb], mark, support[c])
            support_n[c] = n_s
            for k in range(3):
                r = 3 * c + k
                for a in range(n_s):
                    i = support[c, a]
                    xi = PJ[r, i]
                    j = dof_parent[i]
                    while j >= 0:
                        PJ[r, j] -= LD[i, j] * xi
                        j = dof_parent[j]
        e = 0.5 * (col_restitution[ca] + col_restitution[cb])
        target[3 * c + 1] = 0.0
        target[3 * c + 2] = 0.0
        u_n = _row_velocity(J, 3 * c, v_start) if e > 1e-6 else 0.0
        if e > 1e-6 and u_n < 0.0 and (depths[c] >= 0.0 or u_n * h < depths[c]):
            target[3 * c] = min(-e * u_n, max_push)  # an impact this step: Newton's restitution
        elif depths[c] < 0.0:
            target[3 * c] = depths[c] / h  # a gap: approach no faster than closes it in the step
        else:
            target[3 * c] = 0.0  # restitution 0: stop the approach, keep no push
        if depths[c] > 0.0:
            overlapping = True
    if unit:
        if not columns:  # y_r / sqrt(D): then W_rs is a plain dot product, no division in it
            for d in range(nv):
                zero[d] = 1.0 / math.sqrt(LD[d, d])
            for r in range(rows):
                for d in range(nv):
                    PJ[r, d] *= zero[d]
        for r in range(rows):
            for t in range(r + 1):
                value = _row_velocity(J, r, PJ[t]) if columns else _row_velocity(PJ, r, PJ[t])
                W[r, t] = value
                W[t, r] = value
            diag[r] = W[r, r]
        for c in range(n_contacts):
            w12[c] = W[3 * c + 1, 3 * c + 2]
    else:
        for r in range(rows):
            diag[r] = _row_velocity(J, r, PJ[r])
        for c in range(n_contacts):
            w12[c] = _row_velocity(J, 3 * c + 1, PJ[3 * c + 2])
    # a row the constraints leave (almost) no freedom to move has a round-off diagonal: an
    # impulse target / W on it would be round-off amplified, so such rows carry none
    floor = 0.0
    for r in range(rows):
        floor = max(floor, diag[r])
    floor *= 1e-9
    # Regularisation R_r = REGULARISATION W_rr on the normal rows (a compliance in each row's
    # own effective mass): the solve minimises 1/2 lam'(W + R) lam + lam'(u0 - target) over the
    # friction cones, strictly convex whatever the links' masses, so a link held between two
    # contacts (infeasible rigid targets) gets bounded impulses. The friction rows stay rigid
    # (a resting box must not creep), bounded by the cone of the regularised normal impulse.
    for r in range(rows):
        reg[r] = REGULARISATION * diag[r] if r % 3 == 0 else 0.0
    iterations = int(settings[SETTING_ITERATIONS])
    for d in range(nv):
        zero[d] = 0.0
    _solve(dof_parent, LD, G, Y, A, m_eq, lam_eq, J, PJ, W, unit, columns, diag, w12, n_contacts,
           target, reg, mu, floor, True, iterations, zero, bounds, True, v, lam, solve_work)
    if not overlapping:
        return False
    # Split impulses: overlaps are pushed apart by a velocity that moves only this step's
    # positions (depth / time constant, at most PhysX's maxDepenetrationVelocity), normal rows
    # only, the limits holding against it as against the velocities; it never enters v, so
    # removing an overlap adds no kinetic energy.
    for c in range(n_contacts):
        target[3 * c] = min(depths[c] * rate, max_push) if depths[c] > 0.0 else -math.inf
    for d in range(nv):
        bias[d] = 0.0
    _solve(dof_parent, LD, G, Y, A, m_eq, lam_eq, J, PJ, W, unit, columns, diag, w12, n_contacts,
           target, reg, mu, floor, False, iterations, v, bounds, False, bias, lam, solve_work)
    for d in range(nv):
        if bias[d] != 0.0:
            return True
    return False
