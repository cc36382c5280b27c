"""Public simulator functions: validate once, then hand contiguous arrays to the kernels.

numba is imported inside these functions, so importing this module stays light.
"""
from __future__ import annotations

import math

import numpy as np

from ..args import bool_arg, float_array_arg, is_real, real_arg, whole_arg
from ..errors import SimulationError, UsageError
from ..model.articulated import ArticulatedModel
from ..model.articulated import FREE
from . import divergence, precompile
from .divergence import dof_label, mass_diagonal
from .memory import out_of_memory, require_memory, threads
from .packed import PackedModel, pack
from .start_overlaps import held_start_overlaps
from .trajectory import Trajectory

INTEGRATORS = {"euler": 0, "rk4": 1}
# Contact: the time constant [s] at which an overlap is pushed apart (see kernels/contact_solve.py), how
# far apart [m] two colliders may be and still get a (gap-closing, speculative) contact, and the
# most Gauss-Seidel sweeps over the contact rows.
CONTACT_TIME_CONSTANT = 0.02
CONTACT_MARGIN = 5e-3
CONTACT_ITERATIONS = 50
# PhysX's default physxRigidBody:maxDepenetrationVelocity (3 m/s; 3 / metersPerUnit stage units):
# the fastest an overlap is pushed apart.
MAX_DEPENETRATION_VELOCITY = 3.0  # [m/s]
# the most steps a run may ask for: step and sample counts stay exact in float64
MAX_STEPS = 2 ** 53


def _state(name: str, value, size: int) -> np.ndarray:
    array = np.ascontiguousarray(float_array_arg(value, name))
    if not array.flags.writeable:  # numba compiles a read-only array as another type
        array = array.copy()
    if array.shape != (size,):
        raise UsageError(f"{name} must have shape ({size},), got {array.shape}")
    if not np.all(np.isfinite(array)):
        raise UsageError(f"{name} contains a non-finite value")
    return array


def _model(model) -> PackedModel:
    if not isinstance(model, ArticulatedModel):
        raise UsageError(f"expected an ArticulatedModel, got {type(model).__name__}")
    return pack(model)


def forward_kinematics(model: ArticulatedModel, q) -> tuple[np.ndarray, np.ndarray]:
    """World poses of the bodies: (positions [nbody, 3] [m], quaternions [nbody, 4] w x y z)."""
    from .kernels.fk import forward_kinematics as fk_kernel

    pm = _model(model)
    q = _state("q", q, pm.nq)
    pose = np.empty((model.nbody, 7))
    fk_kernel(pm.link_table, pm.link_axis, pm.R_parent_joint, pm.p_parent_joint,
              pm.R_joint_child, pm.p_joint_child, pm.revolute_basis, pm.body_link, pm.body_R_link, pm.body_p_link,
              q, pose)
    return pose[:, :3].copy(), pose[:, 3:].copy()


def inverse_dynamics(model: ArticulatedModel, q, qd, qdd) -> np.ndarray:
    """Joint forces [N m | N], shape [nv], giving acceleration qdd at (q, qd): (M + diag(armature))
    qdd + C qd + g, gravity included; no passive, drive or limit forces."""
    from .kernels.rnea import rnea

    pm = _model(model)
    q = _state("q", q, pm.nq)
    qd = _state("qd", qd, pm.nv)
    qdd = _state("qdd", qdd, pm.nv)
    nl = pm.link_table.shape[0]
    E, r = pm.link_transforms(q)
    tau = np.empty(pm.nv)
    rnea(pm.link_table, pm.S, pm.I6, E, r, pm.gravity, qd, qdd, np.empty((nl, 6)),
         np.empty((nl, 6)), np.empty((nl, 6)), tau)
    return tau + pm.armature * qdd


def mass_matrix(model: ArticulatedModel, q) -> np.ndarray:
    """Joint-space mass matrix including armature, [nv, nv] [kg m^2 | kg m | kg]."""
    from .kernels.crba import crba

    pm = _model(model)
    q = _state("q", q, pm.nq)
    nl = pm.link_table.shape[0]
    E, r = pm.link_transforms(q)
    M = np.empty((pm.nv, pm.nv))
    crba(pm.link_table, pm.S, pm.I6, E, r, pm.armature, np.empty((nl, 6, 6)), M)
    return M


def forward_dynamics(model: ArticulatedModel, q, qd, tau, *, constrained: bool = False) -> np.ndarray:
    """Joint accelerations [rad/s^2 | m/s^2], shape [nv], under joint forces tau: the rigid-body
    map (gravity and armature included; no passive, drive, limit or contact forces).

    ``constrained=True`` adds the coupling and loop-closure forces: the acceleration is projected
    onto G qdd = 0 in the mass-matrix metric, the solution of [M G^T; G 0] (exact for couplings,
    whose G is constant; loops omit the G-dot v term, which simulate's projection absorbs).
    """
    from .kernels.aba import aba

    pm = _model(model)
    constrained = bool_arg(constrained, "constrained")
    q = _state("q", q, pm.nq)
    qd = _state("qd", qd, pm.nv)
    tau = _state("tau", tau, pm.nv)
    nl = pm.link_table.shape[0]
    E, r = pm.link_transforms(q)
    qdd = np.empty(pm.nv)
    aba(pm.link_table, pm.S, pm.I6, E, r, pm.armature, pm.gravity, qd, tau, np.empty((nl, 6)),
        np.empty((nl, 6)), np.empty((nl, 6)), np.empty((nl, 6, 6)), np.empty((nl, 6, 6)),
        np.empty((nl, 6, 6)), np.empty(pm.nv), np.empty((6, 12)), qdd)
    if constrained:
        G, _ = constraint_jacobian(model, q)
        if G.shape[0]:
            Minv_Gt = np.linalg.solve(mass_matrix(model, q), G.T)
            lam = np.linalg.lstsq(G @ Minv_Gt, G @ qdd, rcond=1e-12)[0]
            qdd = qdd - Minv_Gt @ lam
    return qdd


def constraint_jacobian(model: ArticulatedModel, q) -> tuple[np.ndarray, np.ndarray]:
    """(G [rows, nv], c [rows]): the coupling and loop-closure rows at q, c(q) = 0 and G v = 0
    when they hold (couplings first, in model order; then up to six rows per loop)."""
    from .kernels.constraints import constraint_row_count, constraint_rows

    pm = _model(model)
    q = _state("q", q, pm.nq)
    Rw, pw = pm.link_world_poses(q)
    rows = constraint_row_count(pm.coupling_dof, pm.loop_type)
    G, c = np.empty((rows, pm.nv)), np.empty(rows)
    m = constraint_rows(pm.link_table, pm.S, pm.dof_table, pm.coupling_dof, pm.coupling_coeff,
                        pm.coupling_offset, pm.loop_type, pm.loop_link, pm.loop_R, pm.loop_p,
                        pm.loop_axis, q, Rw, pw, G, c)
    return G[:m].copy(), c[:m].copy()


def integrate_configuration(model: ArticulatedModel, q, v, dt: float) -> np.ndarray:
    """q (+) dt v [nq]: scalar coordinates move linearly, quaternions rotate exactly by the body
    angular velocity; a free joint turns about its link's centre of mass, which moves by dt times
    its velocity (kernels/configuration.py integrate_configuration)."""
    from .kernels.configuration import integrate_configuration as integrate_kernel

    pm = _model(model)
    q = _state("q", q, pm.nq)
    v = _state("v", v, pm.nv)
    out = np.empty(pm.nq)
    integrate_kernel(pm.link_table, pm.I6, q, v, real_arg(dt, "dt"), out)
    return out


def _batch(name: str, value, default: np.ndarray, n_envs: int) -> np.ndarray:
    array = default if value is None else float_array_arg(value, name)
    size = default.shape[0]
    if array.ndim == 1:
        array = _state(name, array, size)
        array = np.broadcast_to(array, (n_envs, size))
    elif array.shape != (n_envs, size):
        raise UsageError(f"{name} must have shape ({size},) or ({n_envs}, {size}), got {array.shape}")
    elif not np.all(np.isfinite(array)):
        raise UsageError(f"{name} contains a non-finite value")
    return np.ascontiguousarray(array, dtype=np.float64)


def _writable_parts(parts: tuple) -> tuple:
    """``parts`` with each array writable (_writable), nested tuples and Nones kept."""
    return tuple(None if part is None else _writable_parts(part) if isinstance(part, tuple) else _writable(part)
                 for part in parts)


def _writable(array: np.ndarray) -> np.ndarray:
    return array if array.flags.writeable and array.flags.c_contiguous else np.array(array, order="C")


# env ranges per thread: a thread that finishes early (or a core that is slowed) takes the next
# range instead of leaving the run waiting for one long range
CHUNKS_PER_THREAD = 8


# pieces of a run that reports progress, and the least env-steps worth a piece of its own
PROGRESS_SEGMENTS = 40
PROGRESS_SEGMENT_ENV_STEPS = 100_000


def _segments(record_rows: int, env_steps: int, reporting: bool) -> list[int]:
    """Recorded rows per piece of a run (the rows after its start state). One piece unless
    progress is reported; then pieces of at least PROGRESS_SEGMENT_ENV_STEPS env-steps each,
    since every piece allocates each env's scratch again."""
    pieces = 1
    if reporting and record_rows > 1:
        pieces = max(1, min(PROGRESS_SEGMENTS, record_rows, env_steps // PROGRESS_SEGMENT_ENV_STEPS))
    bounds = [record_rows * i // pieces for i in range(pieces + 1)]
    return [bounds[i + 1] - bounds[i] for i in range(pieces)]


def _run_in_pieces(kernel, model_args, q0, qd0, dt, n_steps, record_every, outputs, n_envs,
                   progress) -> None:
    """Run ``kernel`` over all envs in the pieces of _segments, each from the state the last
    one recorded, reporting the fraction done after each; failing steps count from the start."""
    q_traj, qd_traj, poses, status = outputs
    T = q_traj.shape[1]
    start_row = 0
    for rows in _segments(T - 1, n_steps * n_envs, progress is not None):
        # rows start_row .. start_row + rows of the trajectory; the first is the start state
        whole = rows == T - 1
        window = (q_traj, qd_traj, poses) if whole else (  # contiguous, as the compiled kernel takes
            np.empty((n_envs, rows + 1) + q_traj.shape[2:]), np.empty((n_envs, rows + 1) + qd_traj.shape[2:]),
            np.empty((n_envs, rows + 1) + poses.shape[2:]))
        steps = rows * record_every if start_row + rows < T - 1 else n_steps - start_row * record_every
        _run_envs(kernel, model_args, (q0, qd0, dt, steps, record_every), (*window, status), n_envs)
        if not whole:
            q_traj[:, start_row:start_row + rows + 1] = window[0]
            qd_traj[:, start_row:start_row + rows + 1] = window[1]
            poses[:, start_row:start_row + rows + 1] = window[2]
        if (status[:, 0] >= 0).any():
            status[:, 0] = np.where(status[:, 0] >= 0, status[:, 0] + start_row * record_every, -1)
            return
        start_row += rows
        if start_row < T - 1:
            q0 = np.ascontiguousarray(q_traj[:, start_row])
            qd0 = np.ascontiguousarray(qd_traj[:, start_row])
        if progress is not None:
            progress(start_row * record_every / n_steps if start_row < T - 1 else 1.0)


def _run_envs(kernel, model_args, run_args, outputs, n_envs: int) -> None:
    """One compiled kernel for every batch size: contiguous env ranges on threads (the kernel
    releases the GIL), so a single env and 4,096 share the same machine code and cache entry."""
    workers = threads(n_envs)
    if workers == 1:
        kernel(*model_args, *run_args, 0, n_envs, *outputs)
        return
    from concurrent.futures import ThreadPoolExecutor

    chunks = min(n_envs, workers * CHUNKS_PER_THREAD)
    bounds = [n_envs * i // chunks for i in range(chunks + 1)]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(kernel, *model_args, *run_args, bounds[i], bounds[i + 1], *outputs)
                   for i in range(chunks)]
        for future in futures:
            future.result()


def _states_before(kernel, model_args, q_rows, qd_rows, nbody: int, step: int, record_every: int,
                   dt: float) -> np.ndarray:
    """q [n, nq] at every step from the last recorded state before the failing ``step`` up to it
    (a step reads nothing but the state, so the run from that row repeats the recorded one)."""
    row = (step - 1) // record_every
    steps = step - row * record_every
    q_out = np.full((1, steps + 1, q_rows.shape[1]), np.nan)
    outputs = (q_out, np.empty((1, steps + 1, qd_rows.shape[1])),
               np.empty((1, steps + 1, nbody, 7)), np.empty((1, 2), dtype=np.int64))
    _run_envs(kernel, model_args, (np.ascontiguousarray(q_rows[row:row + 1]),
                                   np.ascontiguousarray(qd_rows[row:row + 1]), dt, steps, 1), outputs, 1)
    failed = int(outputs[3][0, 0])
    return q_out[0, :failed if failed >= 0 else steps + 1]


def _require_regular_mass_matrix(model: ArticulatedModel, q0) -> None:
    """A dof with no mass or inertia (a zero diagonal of M at the start: a free body whose
    inertia is authored zero, a hinge on a point mass's axis) cannot be solved for: refuse it
    before the run, naming the joint or body, instead of dividing by zero inside the kernels."""
    if not model.nv:
        return
    with np.errstate(all="ignore"):  # an overflow is named below, without numpy's warning first
        diagonal = mass_diagonal(model, np.asarray(q0, dtype=float).reshape(-1, model.nq)[0])
    huge = np.nonzero(~np.isfinite(diagonal))[0]
    if huge.size:
        raise SimulationError(
            f"the joint-space mass matrix is not finite at {dof_label(model, int(huge[0]))}: the masses "
            "and inertias it moves overflow in SI units (check the stage's kilogramsPerUnit and "
            "metersPerUnit)")
    empty = np.nonzero(~(diagonal > 0.0))[0]
    if empty.size:
        raise SimulationError(
            f"the joint-space mass matrix is singular: {dof_label(model, int(empty[0]))} moves no mass or "
            "inertia in SI units (give its bodies physics:mass and physics:diagonalInertia, or armature)")


def check_run(model: ArticulatedModel, duration: float, dt: float, n_envs: int = 1,
              record_every: int = 1) -> tuple[int, int]:
    """(steps, recorded states) of a run, or the UsageError :func:`simulate` would raise for its
    timing, counts or memory, found before any kernel is compiled or any memory allocated."""
    check_timing(duration, dt)
    n_envs, record_every = whole_arg(n_envs, "n_envs"), whole_arg(record_every, "record_every")
    n_steps = int(round(float(duration) / float(dt)))
    states = n_steps // record_every + 1
    require_memory(model, _model(model), n_envs, states)
    return n_steps, states


def simulate(model: ArticulatedModel, duration: float, dt: float, integrator: str = "euler",
             q0=None, qd0=None, n_envs: int = 1, record_every: int = 1, *,
             contact_time_constant: float = CONTACT_TIME_CONSTANT, progress=None) -> Trajectory:
    """Simulate ``duration`` [s] at step ``dt`` [s] with passive forces, limits, drives,
    couplings, loop closures and contact.

    Couplings and loop closures hold exactly (the initial state is projected onto them first);
    contact impulses follow the "euler" velocity update (with "rk4" they act on each finished
    step, first order in time); ``contact_time_constant`` [s]
    is the period of the penetration spring (smaller is stiffer, at least 2 dt is used).

    ``integrator``: "euler" (semi-implicit, springs, dampers and drives implicit) or "rk4"
    (explicit). ``q0``/``qd0`` default to the model's initial state; give shape [nq] / [nv]
    for every env or [n_envs, nq] / [n_envs, nv] per env. Every ``record_every``-th state is kept.
    ``progress``, if given, is called with the fraction of steps done (ending with 1.0); the run
    is then taken in up to PROGRESS_SEGMENTS pieces, each going on from the state the last one
    recorded. A step reads nothing but that state, so the pieces give the same trajectory as one
    run; on a model with couplings or loops each piece first re-projects its (already projected)
    start state, a change at round-off level.
    Raises SimulationError naming the joint and time when the state diverges.
    """
    from .kernels import entry
    from .kernels.integrate import simulate_envs

    pm = _model(model)
    if not (isinstance(integrator, str) and integrator in INTEGRATORS):
        raise UsageError(f"integrator must be one of {sorted(INTEGRATORS)}, got {integrator!r}")
    check_timing(duration, dt)
    duration, dt = float(duration), float(dt)
    contact_time_constant = real_arg(contact_time_constant, "contact_time_constant")
    if not (math.isfinite(contact_time_constant) and contact_time_constant > 0):
        raise UsageError(f"contact_time_constant must be a positive number of seconds, got {contact_time_constant!r}")
    if progress is not None and not callable(progress):
        raise UsageError(f"progress must be a callable taking the fraction done, or None, got {type(progress).__name__}")
    n_steps, T = check_run(model, duration, dt, n_envs, record_every)
    n_envs, record_every = int(n_envs), int(record_every)
    q0 = _batch("q0", q0, np.asarray(model.q_initial, dtype=np.float64), n_envs)
    qd0 = _batch("qd0", qd0, np.asarray(model.qd_initial, dtype=np.float64), n_envs)
    _require_regular_mass_matrix(model, q0)
    try:
        q_traj = np.empty((n_envs, T, pm.nq))
        qd_traj = np.empty((n_envs, T, pm.nv))
        poses = np.empty((n_envs, T, model.nbody, 7))
    except MemoryError:
        raise out_of_memory(model, pm, n_envs, T) from None
    status = np.empty((n_envs, 2), dtype=np.int64)
    bounds = divergence.bounds(model, duration, q0, qd0)
    settings = np.array([max(contact_time_constant, 2.0 * dt), CONTACT_MARGIN, CONTACT_ITERATIONS, *bounds,
                         MAX_DEPENETRATION_VELOCITY], dtype=np.float64)
    # one signature whatever the model: numba types read-only and writable arrays apart
    constraints = pm.constraint_args()
    limits = pm.limit_args()
    limits = None if limits is None else _writable_parts(limits)

    def step_args(contact):
        return (tuple(_writable(a) for a in pm.model_args()),
                None if constraints is None else tuple(_writable(a) for a in constraints),
                None if contact is None else tuple(_writable(a) for a in contact),
                limits,
                True if integrator == "rk4" else None,
                True if _floating_tree(model) else None,
                settings)

    q0, qd0 = _writable(q0), _writable(qd0)
    run_args = (q0, qd0, float(dt), n_steps, record_every, 0, n_envs, q_traj, qd_traj, poses, status)
    no_entries = np.zeros(entry.SLOTS, dtype=np.int64)
    # before the start overlaps, whose contact detection is among the kernels compiled ahead: the
    # contact arguments' types do not depend on the overlaps
    precompile.before_first_compile(simulate_envs, (*step_args(pm.contact_args()), no_entries, *run_args),
                                    constraints=constraints is not None, limits=limits,
                                    euler=integrator == "euler", contact=pm.pairs.shape[0] > 0)
    args = step_args(pm.contact_args(held_start_overlaps(model)) if pm.pairs.shape[0] else None)
    args += (entry.resolve(simulate_envs, (*args, no_entries, *run_args)),)
    try:
        _run_in_pieces(simulate_envs, args, q0, qd0, float(dt), n_steps, record_every,
                       (q_traj, qd_traj, poses, status), n_envs, progress)
    except ZeroDivisionError:
        raise SimulationError(
            "the joint-space mass matrix is singular: a joint moves no mass or inertia (give its "
            "bodies physics:mass and physics:diagonalInertia, or the joint armature)") from None
    except MemoryError:  # the machine's free memory, not its size, ran out
        raise out_of_memory(model, pm, n_envs, T) from None
    failed = np.nonzero(status[:, 0] >= 0)[0]
    if failed.size:
        env = int(failed[0])
        step, dof = int(status[env, 0]), int(status[env, 1])
        where = f" (env {env})" if n_envs > 1 else ""
        locked = None
        if divergence.locking_joints(model):
            states = _states_before(simulate_envs, args, q_traj[env], qd_traj[env], model.nbody, step,
                                    record_every, float(dt))
            locked = divergence.locked_joint(model, states)
        fast = divergence.fast_start(model, duration, q0[env], qd0[env])
        raise SimulationError(divergence.message(model, dof, step * dt, integrator, bounds, where, locked,
                                                 fast))
    t = np.arange(T) * dt * record_every
    if n_envs == 1:
        q_traj, qd_traj, poses = q_traj[0], qd_traj[0], poses[0]
    return Trajectory(t=t, q=q_traj, qd=qd_traj, body_poses=poses,
                      joint_names=model.joint_names, q_start=np.asarray(model.joint_q_start).copy(),
                      v_start=np.asarray(model.joint_v_start).copy(), body_names=model.body_names,
                      n_envs=n_envs, joint_types=model.joint_types)


# Above this many recorded numbers, a --fps whose period is not a whole number of steps records
# at the nearest steps instead of every step (interpolated to the exact times).
EXACT_FPS_MAX_VALUES = 50_000_000


def _floating_tree(model: ArticulatedModel) -> bool:
    """Whether some tree of more than one link has a free root (kernels/momentum.py)."""
    parents = set(int(p) for p in model.link_parent if p >= 0)
    return any(int(model.link_parent[i]) < 0 and int(model.link_type[i]) == FREE and i in parents
               for i in range(model.nlink))


def check_timing(duration, dt) -> None:
    """A positive finite step and a finite duration of at least zero, in seconds, whose step
    count is a number (UsageError otherwise)."""
    if not (is_real(dt) and math.isfinite(dt) and dt > 0):
        raise UsageError(f"dt must be a positive number of seconds, got {dt!r}")
    if not (is_real(duration) and math.isfinite(duration) and duration >= 0):
        raise UsageError(f"duration must be a non-negative number of seconds, got {duration!r}")
    if not math.isfinite(duration / dt) or duration / dt > MAX_STEPS:
        raise UsageError(f"duration / dt is {duration / dt:.3g} steps: use a larger dt or a shorter duration")
    if duration > 0 and round(duration / dt) == 0:
        raise UsageError(f"dt {dt:g} s is more than twice the duration {duration:g} s: the run would take no "
                         "step; use a smaller dt")


# floating-point operations a second one step's dense factorisation runs at here (measured:
# a 5,000-dof chain, 4.2e10 flops a step, took 43 s a step on a 2-core machine), and the rest of
# a step per dof (the 9-dof panda: 3.45 us a step, benchmarks/sim_refcounts.py)
FACTOR_FLOPS_PER_S = 1e9
STEP_SECONDS_PER_DOF = 4e-7


def step_seconds(model: ArticulatedModel, flops: float | None = None) -> float:
    """About how long one step of one env takes here [s] (a guide for long runs, not a timing);
    ``flops``: step_flops(model), when the caller has it."""
    flops = step_flops(model) if flops is None else flops
    return flops / FACTOR_FLOPS_PER_S + STEP_SECONDS_PER_DOF * max(1, model.nv)


def step_flops(model: ArticulatedModel) -> float:
    """The floating-point work of one step's factorisation of the joint-space inertia
    (crba.ltdl_factor): sum over dofs of (ancestor dofs + 1)^2, n^3 / 3 for a chain of n dofs,
    which dominates the step of a long chain."""
    depth = np.zeros(model.nv)
    for k, parent in enumerate(np.asarray(model.dof_parent, dtype=np.int64)):
        depth[k] = 1.0 + (depth[parent] if parent >= 0 else 0.0)
    return float(np.sum(depth * depth))


def recording_plan(fps: float, dt: float, duration: float, n_envs: int, values_per_state: int = 64):
    """(record_every, times or None) for a run recorded at ``fps`` samples per second: the
    requested times 0, 1/fps, ... and ``duration``. When those are whole numbers of steps the
    kernel records them directly (times None); otherwise every step is recorded and
    :func:`usdjoints.sim.trajectory.resample` interpolates the exact times."""
    from .trajectory import sample_times

    check_timing(duration, dt)
    if not fps:
        return 1, None
    if not (is_real(fps) and math.isfinite(fps) and fps > 0):
        raise UsageError(f"--fps must be a positive number of samples per second (or 0), got {fps!r}")
    n_steps = int(round(duration / dt))
    samples = duration * fps
    if samples > n_steps + 1 and n_envs * samples * values_per_state > EXACT_FPS_MAX_VALUES:
        raise UsageError(f"--fps {fps:g} asks for {samples:.3g} samples in {duration:g} s, more than the run's "
                         f"{n_steps + 1:,} steps and too many to record: use --fps {1.0 / dt:g} or less "
                         "(0 records every step)")
    with np.errstate(over="ignore", divide="ignore"):
        period = float(np.float64(1.0) / (np.float64(fps) * np.float64(dt)))  # steps between samples
    if not period <= n_steps:  # one sample period is longer than the run: t = 0 and t = duration
        return max(1, n_steps), None
    every = max(1, round(period))
    if abs(period - every) < 1e-9 * period and n_steps % every == 0:
        return every, None
    if n_envs * (n_steps + 1) * values_per_state > EXACT_FPS_MAX_VALUES:
        return every, None
    return 1, sample_times(n_steps * dt, fps)


def quaternion_starts(model: ArticulatedModel) -> list[int]:
    """The q index of each quaternion (spherical and free joints)."""
    from ..model.articulated import SPHERICAL

    out = []
    for i in range(model.nlink):
        kind, start = int(model.link_type[i]), int(model.link_q_start[i])
        if kind == SPHERICAL:
            out.append(start)
        elif kind == FREE:
            out.append(start + 3)
    return out
