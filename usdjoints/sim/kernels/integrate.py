"""Time stepping: semi-implicit Euler with implicit springs/dampers/drives, and RK4; whole
trajectories (one env, or many in parallel) stepped inside compiled code.

Euler step: with K, D the diagonal stiffness and damping of the passive and drive forces,
    (M + h D + h^2 K) a = tau(q, v) - C(q, v) v - g(q) - h K v,   v' = v + h a,   q' = q (+) h v'
which linearises the forces at the end of the step (as MuJoCo's implicit damping), so gains far
beyond the explicit bound stay stable. RK4 treats every force explicitly. Couplings and loop
closures are projected out of each step (constraints.py); contact impulses follow the Euler
velocity update (contact_solve.py). The limit impulses (limits.py) act after the loop projection, in
its constrained metric, and again after the contact impulses, so the velocity a step integrates
keeps every hard limit; their position-only correction follows the position update, and they
hold the contacts' position-only push apart of overlaps as well (limits.hold_push). A lone free
body's linear velocity is integrated in the world frame (world_frame_velocity), so spinning adds
it no energy.
"""
from __future__ import annotations

import math

import numpy as np

from . import FMA, INTERNAL, WRAPPERLESS, njit
from .constraints import (
    constraint_row_count, constraint_rows, factor_constraints, project_out,
)
from .contact import (
    SETTING_MARGIN, bounding_radii, collider_world_poses, detect_contacts, detect_workspace, max_contacts,
)
from .contact_solve import solve_contacts, solve_workspace
from .borrow import borrow, keep_alive
from .entry import call_entry
from .configuration import (
    configuration_rate, integrate_configuration, lone_free_bodies, normalise_quaternions, tied_roots,
    world_frame_velocity,
)
from .crba import keep_symmetric, ltdl_factor, ltdl_solve
from .fk import body_world_poses, link_transforms, link_transforms_inline, link_world_poses
from .jcalc import FREE, PRISMATIC, primitive_nq, primitive_nv
from .layout import LINK_Q_START, LINK_TYPE, LINK_V_START
from .momentum import STATE_COLUMNS, keep_momenta, kept_roots, restart_touched, tree_momenta
from .correction import (
    cap_correction, has_free_root, keep_centres_of_mass, transport_velocity, tree_centres_of_mass,
)
from .limits import hold_push, limit_impulses
from .passive import drive_inertia, passive_forces, passive_forces_inline
from .projection import enforce_constraints
from .world_dynamics import allocate_world_workspace, bias_and_mass, bias_and_mass_inline

# settings entries after contact.py's: the speeds [m/s], [rad/s] past which a state is taken as
# diverged, not physics (api.py sets them from the stage's scale)
SETTING_LINEAR_BOUND = 3
SETTING_ANGULAR_BOUND = 4


@njit(cache=True, fastmath=FMA, **WRAPPERLESS)
def allocate_workspace(nlink, nv):
    """Scratch arrays shared by one env's steps (allocated once per trajectory)."""
    E = np.empty((nlink, 3, 3))
    r = np.empty((nlink, 3))
    R3 = np.empty((3, 3))
    p3 = np.empty(3)
    M = np.empty((nv, nv))
    # separate vectors, not rows of one array: a row view costs a reference count per use
    vecs = (np.empty(nv), np.empty(nv), np.empty(nv), np.empty(nv), np.empty(nv), np.empty(nv))
    LD_drive = np.empty((nv, nv))  # passive.drive_inertia's factor of M
    return E, r, R3, p3, M, vecs, LD_drive


@njit(cache=True, fastmath=FMA, **INTERNAL)
def acceleration(model, q, qd, h, fk_work, dynamics_work, qdd_out) -> None:
    """qdd_out = (M + h D + h^2 K)^-1 (tau - bias - h K v); h = 0 gives the explicit map.

    Model: model (PackedModel.model_args()).
    Data in: q [nq], qd [nv], h [s].
    Data out: qdd_out [nv]; dynamics_work's M holds the factor of M + h D + h^2 K, and its H,
    when it has nv rows (a model with limit rows), M + h D + h^2 K itself.
    Scratch: fk_work = (E, r, R3, p3), dynamics_work = (wR, wp, ws, wvaf, wI, M, vecs, LD_drive, H),
    as allocate_workspace and allocate_world_workspace make them.

    Its parts are inlined into it (as compiled calls, passing their ~30 arrays cost about a sixth
    of a 9-dof step); it is itself one compiled call from the step loop: inlining it there as
    well made simulate_envs' first compile ~5 s (a sixth) longer for no measurable speed.
    acceleration_call serves the other sites."""
    (link_table, link_axis, R_pj, p_pj, R_jc, p_jc, basis, S, I6, dof_parent, dof_table, armature,
     gravity, body_link, body_R_link, body_p_link) = model
    E, r, R3, p3 = fk_work
    wR, wp, ws, wvaf, wI, M, vecs, LD_drive, H = dynamics_work
    bias, y, tau, K, D, inertia = vecs
    link_transforms_inline(link_table, link_axis, R_pj, p_pj, R_jc, p_jc, basis, q, R3, p3, E, r)
    bias_and_mass_inline(link_table, S, I6, E, r, gravity, armature, qd, wR, wp, ws, wvaf, wI,
                         bias, M)
    drive_inertia(dof_parent, dof_table, M, LD_drive, y, inertia)
    passive_forces_inline(dof_table, q, qd, M, inertia, h, tau, K, D)
    _implicit_solve(dof_parent, qd, h, M, bias, tau, K, D, qdd_out, H)


@njit(cache=True, fastmath=FMA, **INTERNAL)
def acceleration_call(model, q, qd, h, fk_work, dynamics_work, qdd_out):
    """acceleration (same arguments) for the sites off the Euler hot path (RK4 stages, the
    initial projection), through the compiled calls of its parts: inlining them here as well
    took a third of the first compile of simulate."""
    (link_table, link_axis, R_pj, p_pj, R_jc, p_jc, basis, S, I6, dof_parent, dof_table, armature,
     gravity, body_link, body_R_link, body_p_link) = model
    E, r, R3, p3 = fk_work
    wR, wp, ws, wvaf, wI, M, vecs, LD_drive, H = dynamics_work
    bias, y, tau, K, D, inertia = vecs
    link_transforms(link_table, link_axis, R_pj, p_pj, R_jc, p_jc, basis, q, R3, p3, E, r)
    bias_and_mass(link_table, S, I6, E, r, gravity, armature, qd, wR, wp, ws, wvaf, wI, bias, M)
    drive_inertia(dof_parent, dof_table, M, LD_drive, y, inertia)
    passive_forces(dof_table, q, qd, M, inertia, h, tau, K, D)
    _implicit_solve(dof_parent, qd, h, M, bias, tau, K, D, qdd_out, H)


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def _implicit_solve(dof_parent, qd, h, M, bias, tau, K, D, qdd_out, H):
    """qdd_out = (M + h D + h^2 K)^-1 (tau - bias - h K v), M factored in place; H [nv, nv] (or
    [0, 0]: not kept) gets M + h D + h^2 K whole, for the limit solve (limits.solve_unit_rows)."""
    nv = qd.shape[0]
    for k in range(nv):
        M[k, k] += h * D[k] + h * h * K[k]
        qdd_out[k] = tau[k] - bias[k] - h * K[k] * qd[k]
    if H.shape[0] == nv:
        keep_symmetric(dof_parent, M, H)
    ltdl_factor(dof_parent, M)
    ltdl_solve(dof_parent, M, qdd_out)


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def _within_intervals(lim_work, qd):
    """Whether every dof's velocity lies in the interval limits.limit_impulses left in the first
    two vectors of lim_work."""
    lo = lim_work[0]
    hi = lim_work[1]
    for k in range(qd.shape[0]):
        if not (lo[k] <= qd[k] <= hi[k]):
            return False
    return True


@njit(cache=True, fastmath=FMA, **INTERNAL)
def speed_bounds(link_table, settings, bound_out) -> None:
    """bound_out [nv]: each dof's divergence bound, settings[SETTING_LINEAR_BOUND] [m/s] for a
    linear dof (a slider, a free joint's translation), settings[SETTING_ANGULAR_BOUND] [rad/s]
    for an angular one."""
    linear_bound = settings[SETTING_LINEAR_BOUND]
    angular_bound = settings[SETTING_ANGULAR_BOUND]
    for i in range(link_table.shape[0]):
        kind = link_table[i, LINK_TYPE]
        v0 = link_table[i, LINK_V_START]
        for a in range(primitive_nv(kind)):
            linear = kind == PRISMATIC or (kind == FREE and a < 3)
            bound_out[v0 + a] = linear_bound if linear else angular_bound


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def failing_dof(link_table, speed_bound, q, qd):
    """The first dof whose speed is not below its bound (speed_bounds; NaN is not), else the
    first dof of the first link whose coordinates are not all finite, else -1."""
    for k in range(qd.shape[0]):
        if not (abs(qd[k]) < speed_bound[k]):
            return k
    finite = True
    for a in range(q.shape[0]):
        finite = finite and math.isfinite(q[a])
    if finite:
        return -1
    for i in range(link_table.shape[0]):
        q0 = link_table[i, LINK_Q_START]
        for a in range(primitive_nq(link_table[i, LINK_TYPE])):
            if not math.isfinite(q[q0 + a]):
                return link_table[i, LINK_V_START]
    return -1


@njit(cache=True, fastmath=FMA, **INTERNAL)
def _limit_correction(model, free, tied, capped, bias, h, fk_work, Rw, pw, root_of, com, R, q,
                      qd) -> None:
    """Move q by the limits' position-only bias (limits.py) and carry the free and spherical
    velocities along its rotation; with a free base, then translate each free root back so its
    tree's centre of mass is where it was (the bias keeps it to first order only).

    Model: model (PackedModel.model_args()); free: some tree has a free root; tied bool
    [nlink]: the free roots whose tree a distance joint ties to the world or to another tree
    (its bias is no internal motion: the tree's centre of mass moves with it); capped: the
    model has distance joints, whose rows are not linear in q (the bias is capped:
    correction.cap_correction; a joint limit's own part is exact, as q moves linearly along its
    dof, and a loop's part is capped by limit_impulses when it falls back to the tree alone).
    Data in: bias [nv] [1/s | m/s], h [s].
    Data out: q [nq], qd [nv], in place.
    Scratch: fk_work = (E, r, R3, p3), Rw, pw (the step's FK scratch); root_of int64 [nlink],
    com [2, nlink, 4], R [3, 3]."""
    (link_table, link_axis, R_pj, p_pj, R_jc, p_jc, basis, S, I6, dof_parent, dof_table, armature,
     gravity, body_link, body_R_link, body_p_link) = model
    E, r, R3, p3 = fk_work
    if capped:
        cap_correction(link_table, bias, h)  # a distance's correction is not linear in q
    if free:
        link_transforms(link_table, link_axis, R_pj, p_pj, R_jc, p_jc, basis, q, R3, p3, E, r)
        link_world_poses(link_table, E, r, Rw, pw)
        tree_centres_of_mass(link_table, I6, Rw, pw, root_of, com[0])
        for i in range(link_table.shape[0]):
            if tied[i]:
                com[0, i, 3] = 0.0  # keep_centres_of_mass leaves a massless tree where it is
    integrate_configuration(link_table, I6, q, bias, h, q)
    transport_velocity(link_table, bias, h, R, qd)
    if free:
        link_transforms(link_table, link_axis, R_pj, p_pj, R_jc, p_jc, basis, q, R3, p3, E, r)
        link_world_poses(link_table, E, r, Rw, pw)
        tree_centres_of_mass(link_table, I6, Rw, pw, root_of, com[1])
        keep_centres_of_mass(link_table, R_pj, com[0], com[1], q)


@njit(cache=True, fastmath=FMA, nogil=True, no_cfunc_wrapper=True)
def simulate_envs(model, constraints, contact, limits, rk4, floating, settings, entries,
                  q0, qd0, dt, n_steps, record_every, env_begin, env_end,
                  q_traj_out, qd_traj_out, pose_traj_out, status_out):
    """Step envs env_begin..env_end-1 n_steps times each from (q0[e], qd0[e]), recording every
    record_every steps. The one compiled entry point for single and batched runs: it releases
    the GIL, so callers run disjoint env ranges on threads (envs are independent, so the result
    does not depend on the split).

    Model (PackedModel's fields, in its *_args tuples):
      model: PackedModel.model_args(), the tree, its inertias and the bodies;
      constraints: PackedModel.constraint_args(), or None when there is no coupling or loop;
      contact: PackedModel.contact_args(), or None when no collision pair is simulated;
      limits: PackedModel.limit_args(), the limit rows (limits.limit_impulses), or None
        when no dof has a hard position limit or a velocity limit and no distance joint;
      rk4: True for RK4, None for semi-implicit Euler;
      floating: True when a tree of several links has a free root (momentum.py keeps its
        momentum in free flight), else None;
      settings: float64 [6], contact.py's SETTING_* and the divergence bounds below;
      entries: int64 [entry.SLOTS], the addresses of the large kernels this loop calls
        (entry.resolve(simulate_envs, args) gives them; zeros under NUMBA_DISABLE_JIT).
    A None leaves that part out of the compiled kernel (numba prunes a branch on `x is None`
    by x's type), so a model compiles, and its cache holds, only what it uses.
    Data in: q0 [n_envs, nq], qd0 [n_envs, nv], dt [s], n_steps, record_every, the env range.
    Data out: q_traj_out [n_envs, T, nq], qd_traj_out [n_envs, T, nv], pose_traj_out
      [n_envs, T, nbody, 7] with T = n_steps // record_every + 1; status_out [n_envs, 2] =
      (failing step, failing dof), -1 when fine.

    Couplings and loops (see constraints.py) hold exactly: the initial state is projected onto
    them, then every step's velocity and position. Contact impulses (contact_solve.py) follow the Euler
    velocity update; with RK4 they act on the finished step (first order in contact).
    """
    (link_table, link_axis, R_pj, p_pj, R_jc, p_jc, basis, S, I6, dof_parent, dof_table,
     armature, gravity, body_link, body_R_link, body_p_link) = model
    nlink = link_table.shape[0]
    nq = q0.shape[1]
    nv = qd0.shape[1]
    E, r, R3, p3, M, vecs, LD_drive = allocate_workspace(nlink, nv)
    wR, wp, ws, wvaf, wI = allocate_world_workspace(nlink, nv)
    fk_work = (E, r, R3, p3)
    # M + h D + h^2 K whole, kept unfactored for the limit solve
    H = np.empty((nv, nv)) if limits is not None else np.empty((0, 0))
    dynamics_work = (wR, wp, ws, wvaf, wI, M, vecs, LD_drive, H)
    Rw = np.empty((nlink, 3, 3))
    pw = np.empty((nlink, 3))
    q = np.empty(nq)
    qd = np.empty(nv)
    qdd = np.empty(nv)
    v_start = np.empty(nv)
    speed_bound = np.empty(nv)
    speed_bounds(link_table, settings, speed_bound)
    if rk4 is not None:
        k_q = np.empty((5, nq))   # RK4: q stage, 4 rates
        k_v = np.empty((5, nv))   # RK4: v stage, 4 accelerations
    rows = 0
    if constraints is not None:
        (coupling_dof, coupling_coeff, coupling_offset, loop_type, loop_link, loop_R, loop_p,
         loop_axis) = constraints
        rows = constraint_row_count(coupling_dof, loop_type)
    G = np.empty((rows, nv))
    c = np.empty(rows)
    Y = np.empty((rows, nv))
    A = np.empty((rows, rows))
    lam = np.empty(rows)
    dq = np.empty(nv)
    rows_work = (G, c, Y, A, lam, dq, np.empty(nq))
    contacts = 0
    # limit_impulses leaves each dof's velocity interval in the first two vectors; without
    # limits they stay unbounded for the contact solve
    nd = 0
    if limits is not None:
        nd = limits[0].shape[0]
    n_lim = nv + nd
    lim_work = (np.full(n_lim, -math.inf), np.full(n_lim, math.inf), np.empty(n_lim),
                np.empty(n_lim), np.empty(n_lim), np.empty(n_lim), np.empty(n_lim), np.empty(n_lim),
                np.empty(nv))
    if contact is not None:
        (col_type, col_link, col_R, col_p, col_size, hull_rows, hull_index, col_friction, col_restitution, pairs,
         pair_allowance) = contact
        contacts = max_contacts(col_type, pairs)
        n_col = col_type.shape[0]
        Rc = np.empty((n_col, 3, 3))
        pc = np.empty((n_col, 3))
        pair_of = np.empty(contacts, dtype=np.int64)
        points = np.empty((contacts, 3))
        normals = np.empty((contacts, 3))
        depths = np.empty(contacts)
        J = np.empty((3 * contacts, nv))
        PJ = np.empty((3 * contacts, nv))
        lam_c = np.empty(3 * contacts)
        target = np.empty(3 * contacts)
        detect_work = detect_workspace(col_type, hull_index)
        col_radius = np.empty(n_col)
        bounding_radii(col_type, col_size, col_radius)
        c_bias = np.empty(nv)
        c_R = np.empty((3, 3))
        solve_work = solve_workspace(contacts, nv)
    c_biased = False
    lone = np.empty(nlink, dtype=np.bool_)
    any_lone = lone_free_bodies(link_table, I6, lone)
    # floating trees in free flight keep the lone-body momentum and centre of mass (momentum.py)
    mom_kept = np.empty(nlink, dtype=np.bool_)
    mom_root = np.empty(nlink, dtype=np.int64)
    any_kept = False
    if floating is not None:
        # a distance joint ties its links' trees as a loop closure does
        ties = np.empty((0, 2), dtype=np.int64) if limits is None else limits[0]
        if constraints is not None:
            ties = np.concatenate((constraints[4], ties))
            any_kept = kept_roots(link_table, I6, dof_table, constraints[0], ties, mom_root, mom_kept)
        else:
            any_kept = kept_roots(link_table, I6, dof_table, np.empty((0, 2), dtype=np.int64),
                                  ties, mom_root, mom_kept)
    any_kept = any_kept and rk4 is None
    mom_before = np.zeros((nlink, STATE_COLUMNS))
    mom_after = np.zeros((nlink, STATE_COLUMNS))
    mom_V = np.empty((nlink, 6))
    mom_Ic = np.empty((nlink, 9))
    if limits is not None:
        lim_iwork = (np.empty(n_lim, dtype=np.int64), np.empty(n_lim, dtype=np.int64),
                     np.empty(n_lim, dtype=np.int64), np.empty(nv))
        lim_C = np.empty((n_lim, nv))
        lim_A = np.empty((n_lim, n_lim))
        lim_J = np.empty((nd, nv))
        lim_tied = tied_roots(link_table, limits[0])
        lim_bias = np.empty(nv)
        lim_R = np.empty((3, 3))
        lim_free = has_free_root(link_table)
        lim_root_of = np.empty(nlink, dtype=np.int64)
        lim_com = np.empty((2, nlink, 4))
        push_work = (np.empty(n_lim), np.empty(n_lim), np.empty(nv))  # limits.hold_push's
    # from here on every array is a borrowed view (borrow.py): the step loop passes them to its
    # kernels without counting references; `owners` holds the arrays until the loop has ended
    owners = (fk_work, dynamics_work, Rw, pw, q, qd, qdd, v_start, speed_bound, rows_work, lim_work)
    model = borrow(model)
    (link_table, link_axis, R_pj, p_pj, R_jc, p_jc, basis, S, I6, dof_parent, dof_table,
     armature, gravity, body_link, body_R_link, body_p_link) = model
    fk_work, dynamics_work, Rw, pw, q, qd, qdd, v_start, speed_bound, rows_work, lim_work = borrow(owners)
    E, r, R3, p3 = fk_work
    wR, wp, ws, wvaf, wI, M, vecs, LD_drive, H = dynamics_work
    G, c, Y, A, lam, dq, q_back = rows_work
    # the equality rows the limit and contact solves keep: None without couplings and loops, so
    # that numba compiles those solves without them (and the limit solve for rows of the dofs
    # alone without its general active set: limits.limit_impulses)
    G_rows = G if constraints is not None else None
    q0, qd0, entries = borrow(q0), borrow(qd0), borrow(entries)
    q_traj_out, qd_traj_out, pose_traj_out, status_out = borrow(
        (q_traj_out, qd_traj_out, pose_traj_out, status_out))
    if rk4 is not None:
        rk4_owners = (k_q, k_v)
        k_q, k_v = borrow(rk4_owners)
    if constraints is not None:
        borrowed_constraints = borrow(constraints)
        (coupling_dof, coupling_coeff, coupling_offset, loop_type, loop_link, loop_R, loop_p,
         loop_axis) = borrowed_constraints
    if contact is not None:
        contact_owners = (Rc, pc, pair_of, points, normals, depths, J, PJ, lam_c, target,
                          detect_work, col_radius, c_bias, c_R, solve_work)
        (Rc, pc, pair_of, points, normals, depths, J, PJ, lam_c, target, detect_work, col_radius,
         c_bias, c_R, solve_work) = borrow(contact_owners)
        (col_type, col_link, col_R, col_p, col_size, hull_rows, hull_index, col_friction,
         col_restitution, pairs, pair_allowance) = borrow(contact)
    if limits is not None:
        limit_rows, row_drives = borrow(limits[1]), borrow(limits[2])
        limit_owners = (lim_iwork, lim_C, lim_A, lim_J, lim_bias, lim_R, lim_root_of, lim_com, push_work)
        lim_iwork, lim_C, lim_A, lim_J, lim_bias, lim_R, lim_root_of, lim_com, push_work = borrow(limit_owners)
    momentum_owners = (lone, mom_kept, mom_root, mom_before, mom_after, mom_V, mom_Ic)
    lone, mom_kept, mom_root, mom_before, mom_after, mom_V, mom_Ic = borrow(momentum_owners)
    for e in range(env_begin, env_end):
        q_traj = q_traj_out[e]
        qd_traj = qd_traj_out[e]
        pose_traj = pose_traj_out[e]
        status = status_out[e]
        for a in range(nq):
            q[a] = q0[e, a]
        for k in range(nv):
            qd[k] = qd0[e, k]
        biased = False
        status[0] = -1
        status[1] = -1
        for i in range(nlink):
            mom_before[i, 10] = 0.0
        if limits is not None:
            held = lim_iwork[2]
            for k in range(n_lim):  # no limit row held before the env's first step
                held[k] = 0
            gap = lim_iwork[3]
            for k in range(nv):  # no joint corrected by the tree alone before it
                gap[k] = math.inf
        if constraints is not None:
            acceleration_call(model, q, qd, dt, fk_work, dynamics_work, qdd)
            enforce_constraints(model, borrowed_constraints, q, qd, M, fk_work, Rw, pw, rows_work)
        if floating is not None:
            if any_kept:  # the path starts from the start state's momentum
                link_transforms(link_table, link_axis, R_pj, p_pj, R_jc, p_jc, basis, q, R3, p3, E, r)
                link_world_poses(link_table, E, r, Rw, pw)
                tree_momenta(link_table, S, I6, E, r, Rw, pw, mom_root, mom_kept, qd, mom_V, mom_before)
        row = 0
        for step in range(n_steps + 1):
            if step % record_every == 0:
                for a in range(nq):  # element loops: a row assignment compiles a shape check
                    q_traj[row, a] = q[a]
                for k in range(nv):
                    qd_traj[row, k] = qd[k]
                link_transforms(link_table, link_axis, R_pj, p_pj, R_jc, p_jc, basis, q, R3, p3, E, r)
                link_world_poses(link_table, E, r, Rw, pw)
                body_world_poses(body_link, body_R_link, body_p_link, Rw, pw, R3, pose_traj[row])
                row += 1
            if step == n_steps:
                break
            pushed = False
            n_contacts = 0
            if rk4 is None:
                call_entry(entries, 0, acceleration, (model, q, qd, dt, fk_work, dynamics_work, qdd))
                for k in range(nv):
                    v_start[k] = qd[k]
                    qd[k] += dt * qdd[k]
                if any_lone:
                    world_frame_velocity(link_table, I6, lone, v_start, dt, qd, False)
                m = 0
                if rows > 0 or contacts > 0 or nd > 0:
                    link_world_poses(link_table, E, r, Rw, pw)
                if constraints is not None:
                    m = constraint_rows(link_table, S, dof_table, coupling_dof, coupling_coeff,
                                        coupling_offset, loop_type, loop_link, loop_R, loop_p,
                                        loop_axis, q, Rw, pw, G, c)
                    factor_constraints(dof_parent, M, G, m, Y, A)
                    project_out(G, Y, A, m, qd, lam)
                if limits is not None:  # in the loops' constrained metric: they stay closed
                    biased = call_entry(entries, 1, limit_impulses, (
                        link_table, dof_table, dof_parent, M, H, q, dt, lim_work, lim_iwork, lim_C, lim_A, qd,
                        lim_bias, G_rows, Y, A, m, lam, S, I6, Rw, pw, limit_rows, row_drives, lim_J, dt))
                if contact is not None:
                    collider_world_poses(col_link, col_R, col_p, Rw, pw, Rc, pc)
                    n_contacts = call_entry(entries, 2, detect_contacts, (
                        col_type, col_size, col_radius, hull_rows, hull_index, Rc, pc, pairs, pair_allowance,
                        settings[SETTING_MARGIN], detect_work, pair_of, points, normals, depths))
                    c_biased = False
                    pushed = n_contacts > 0
                    if n_contacts > 0:
                        c_biased = call_entry(entries, 3, solve_contacts, (
                            link_table, S, Rw, pw, dof_parent, M, G_rows, Y, A, m, lam, col_link, col_friction,
                            col_restitution, pairs, n_contacts, pair_of, points, normals, depths, v_start, dt,
                            settings, J, PJ, lam_c, target, lim_work, solve_work, qd, c_bias))
                        if limits is not None and (biased or nd > 0 or constraints is not None
                                                   or not _within_intervals(lim_work, qd)):
                            # the contact solve held the limits; this pass keeps the last word on
                            # the velocity with the loops' metric. Without loops, distance rows
                            # or a joint outside its limits it would only find every velocity
                            # inside the intervals the first pass left in lim_work (q has not
                            # moved since): then it is skipped
                            biased = call_entry(entries, 4, limit_impulses, (
                                link_table, dof_table, dof_parent, M, H, q, dt, lim_work, lim_iwork, lim_C,
                                lim_A, qd, lim_bias, G_rows, Y, A, m, lam, S, I6, Rw, pw, limit_rows,
                                row_drives, lim_J, 0.0))
                        if limits is not None and c_biased:
                            # nor may the push apart of overlaps carry a joint past its limit
                            call_entry(entries, 10, hold_push, (
                                dof_parent, M, H, lim_work, lim_iwork, lim_C, lim_A, qd, lim_bias,
                                c_bias, push_work, G_rows, Y, A, m, lam, limit_rows, lim_J))
                integrate_configuration(link_table, I6, q, qd, dt, q)
                if any_lone:
                    world_frame_velocity(link_table, I6, lone, v_start, dt, qd, True)
                if contact is not None:
                    if c_biased:  # the contacts' position-only push apart of overlaps
                        cap_correction(link_table, c_bias, dt)  # linear in q to first order only
                        integrate_configuration(link_table, I6, q, c_bias, dt, q)
                        transport_velocity(link_table, c_bias, dt, c_R, qd)
                if limits is not None:
                    if biased:  # the position-only return of joints outside their limits
                        call_entry(entries, 5, _limit_correction, (
                            model, lim_free, lim_tied, nd > 0, lim_bias, dt, fk_work, Rw, pw, lim_root_of, lim_com,
                            lim_R, q, qd))
            else:
                for stage in range(4):
                    h = 0.0 if stage == 0 else (0.5 * dt if stage < 3 else dt)
                    for a in range(nq):
                        k_q[4, a] = q[a] + h * k_q[stage - 1, a] if stage > 0 else q[a]
                    for k in range(nv):
                        k_v[4, k] = qd[k] + h * k_v[stage - 1, k] if stage > 0 else qd[k]
                    normalise_quaternions(link_table, k_q[4])
                    configuration_rate(link_table, k_q[4], k_v[4], k_q[stage])
                    acceleration_call(model, k_q[4], k_v[4], 0.0, fk_work, dynamics_work, k_v[stage])
                    if constraints is not None:
                        # the constrained acceleration (the G-dot v term is left to the projection)
                        link_world_poses(link_table, E, r, Rw, pw)
                        m = constraint_rows(link_table, S, dof_table, coupling_dof, coupling_coeff,
                                            coupling_offset, loop_type, loop_link, loop_R, loop_p,
                                            loop_axis, k_q[4], Rw, pw, G, c)
                        factor_constraints(dof_parent, M, G, m, Y, A)
                        project_out(G, Y, A, m, k_v[stage], lam)
                for a in range(nq):
                    q[a] += dt / 6.0 * (k_q[0, a] + 2.0 * k_q[1, a] + 2.0 * k_q[2, a] + k_q[3, a])
                for k in range(nv):
                    qd[k] += dt / 6.0 * (k_v[0, k] + 2.0 * k_v[1, k] + 2.0 * k_v[2, k] + k_v[3, k])
                normalise_quaternions(link_table, q)
                if limits is not None or contacts > 0:
                    # the end state's inertia, factored, for the limit and contact impulses
                    acceleration_call(model, q, qd, 0.0, fk_work, dynamics_work, qdd)
                if limits is not None:
                    m = 0
                    if constraints is not None or nd > 0:
                        link_world_poses(link_table, E, r, Rw, pw)
                    if constraints is not None:
                        m = constraint_rows(link_table, S, dof_table, coupling_dof, coupling_coeff,
                                            coupling_offset, loop_type, loop_link, loop_R, loop_p,
                                            loop_axis, q, Rw, pw, G, c)
                        factor_constraints(dof_parent, M, G, m, Y, A)
                    biased = call_entry(entries, 6, limit_impulses, (
                        link_table, dof_table, dof_parent, M, H, q, dt, lim_work, lim_iwork, lim_C, lim_A, qd,
                        lim_bias, G_rows, Y, A, m, lam, S, I6, Rw, pw, limit_rows, row_drives, lim_J, dt))
                    if biased:
                        call_entry(entries, 7, _limit_correction, (
                            model, lim_free, lim_tied, nd > 0, lim_bias, dt, fk_work, Rw, pw, lim_root_of, lim_com,
                            lim_R, q, qd))
                if contact is not None:
                    # contact as an impulse on the finished step: the next step moves q with it
                    link_world_poses(link_table, E, r, Rw, pw)
                    m = 0
                    if constraints is not None:
                        m = constraint_rows(link_table, S, dof_table, coupling_dof, coupling_coeff,
                                            coupling_offset, loop_type, loop_link, loop_R, loop_p,
                                            loop_axis, q, Rw, pw, G, c)
                        factor_constraints(dof_parent, M, G, m, Y, A)
                    collider_world_poses(col_link, col_R, col_p, Rw, pw, Rc, pc)
                    n_contacts = call_entry(entries, 8, detect_contacts, (
                        col_type, col_size, col_radius, hull_rows, hull_index, Rc, pc, pairs, pair_allowance,
                        settings[SETTING_MARGIN], detect_work, pair_of, points, normals, depths))
                    if n_contacts > 0:
                        for k in range(nv):
                            v_start[k] = qd[k]
                        if call_entry(entries, 9, solve_contacts, (
                                link_table, S, Rw, pw, dof_parent, M, G_rows, Y, A, m, lam, col_link, col_friction,
                                col_restitution, pairs, n_contacts, pair_of, points, normals, depths, v_start, dt,
                                settings, J, PJ, lam_c, target, lim_work, solve_work, qd, c_bias)):
                            if limits is not None:
                                for k in range(nv):  # q has moved by this step's velocity already
                                    qdd[k] = 0.0
                                call_entry(entries, 11, hold_push, (
                                    dof_parent, M, H, lim_work, lim_iwork, lim_C, lim_A, qdd, lim_bias,
                                    c_bias, push_work, G_rows, Y, A, m, lam, limit_rows, lim_J))
                            integrate_configuration(link_table, I6, q, c_bias, dt, q)
                            transport_velocity(link_table, c_bias, dt, c_R, qd)
            if constraints is not None:
                enforce_constraints(model, borrowed_constraints, q, qd, M, fk_work, Rw, pw, rows_work)
            if floating is not None:
                if any_kept:
                    keeping = True
                    if contact is not None and pushed:
                        # a tree touched from outside starts its path again from the next step;
                        # with every kept tree touched (a robot on the ground) nothing is kept
                        keeping = restart_touched(col_link, pairs, pair_of, n_contacts, mom_root, mom_kept,
                                                  mom_before)
                    if keeping:
                        link_transforms(link_table, link_axis, R_pj, p_pj, R_jc, p_jc, basis, q, R3, p3, E, r)
                        link_world_poses(link_table, E, r, Rw, pw)
                        tree_momenta(link_table, S, I6, E, r, Rw, pw, mom_root, mom_kept, qd, mom_V, mom_after)
                        keep_momenta(link_table, S, I6, R_pj, Rw, pw, mom_root, mom_kept, gravity, dt,
                                     mom_before, mom_after, mom_Ic, q, qd)
                        for i in range(nlink):  # a tree without a valid start takes this state as one
                            if mom_before[i, 10] == 0.0:
                                for a in range(STATE_COLUMNS):
                                    mom_before[i, a] = mom_after[i, a]
            bad = failing_dof(link_table, speed_bound, q, qd)
            if bad >= 0:
                status[0] = step + 1
                status[1] = bad
                break
    keep_alive(owners)
    keep_alive(momentum_owners)
    if rk4 is not None:
        keep_alive(rk4_owners)
    if contact is not None:
        keep_alive(contact_owners)
    if limits is not None:
        keep_alive(limit_owners)
