"""What a run's memory costs, checked before anything is allocated."""
from __future__ import annotations

import math

from ..errors import UsageError
from ..model.articulated import ArticulatedModel
from .packed import PackedModel


def threads(n_envs: int) -> int:
    """The threads a run of ``n_envs`` envs takes (numba's thread count, at most one per env)."""
    import numba

    return max(1, min(n_envs, int(numba.get_num_threads())))


def _machine_memory() -> float:
    """This machine's physical memory [bytes] (inf where the system does not say)."""
    import os

    try:
        return float(os.sysconf("SC_PAGE_SIZE")) * float(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return math.inf


def run_memory(model: ArticulatedModel, pm: PackedModel, n_envs: int, states: int) -> tuple[float, float]:
    """(trajectory, workspace) [bytes] a run needs: the recorded states of every env, and per
    thread the step's dense nv x nv matrices (the mass matrix; with limit rows two more, each
    nd rows larger with nd distance joints) and the contact solve's rows and matrices
    (kernels/integrate.py simulate_envs)."""
    from .kernels.contact import MAX_CONTACTS

    per_state = pm.nq + pm.nv + 7 * model.nbody
    trajectory = 8.0 * n_envs * (float(states) * per_state + pm.nq + pm.nv)  # and the start states
    nv, nd = float(pm.nv), float(pm.dist_link.shape[0])
    limits = (nv + nd) * nv + (nv + nd) ** 2 + nd * nv if pm.has_limit_rows() else 0.0
    contact = 0.0
    if pm.pairs.shape[0]:
        # the contact rows and their columns, the joint rows' columns, and the Delassus matrix
        # with the joint rows and the direct solve's block (contact_solve.solve_workspace)
        d = min(3.0 * MAX_CONTACTS, nv)
        contact = 2 * 3 * MAX_CONTACTS * nv + nv ** 2 + (d + nv) ** 2 + d ** 2
    workspace = 8.0 * threads(n_envs) * (nv ** 2 + limits + contact)
    return trajectory, workspace


def require_memory(model: ArticulatedModel, pm: PackedModel, n_envs: int, states: int) -> None:
    """Refuse, before any allocation, a run that needs more memory than the machine has."""
    trajectory, workspace = run_memory(model, pm, n_envs, states)
    have = _machine_memory()
    if trajectory + workspace <= have:
        return
    if workspace > trajectory:
        raise UsageError(
            f"this model's {pm.nv} dofs need {workspace / 1e9:.3g} GB for the step's dense {pm.nv} x {pm.nv} "
            f"matrices, more than this machine's {have / 1e9:.3g} GB: the simulator handles models of a "
            "few thousand dofs")
    raise UsageError(
        f"recording {_count(states)} state(s) of {_count(n_envs)} env(s) needs {trajectory / 1e9:.3g} GB, more than this "
        f"machine's {have / 1e9:.3g} GB: record fewer states (a shorter duration, a larger step, or "
        "record_every / --fps), or fewer envs")


def _count(n: int) -> str:
    return f"{n:,}" if n < 10 ** 15 else f"{float(n):.3g}"


def out_of_memory(model: ArticulatedModel, pm: PackedModel, n_envs: int, states: int) -> UsageError:
    trajectory, workspace = run_memory(model, pm, n_envs, states)
    return UsageError(f"the run ran out of memory: it needs {(trajectory + workspace) / 1e9:.3g} GB "
                      f"({trajectory / 1e9:.3g} GB for {_count(states)} recorded states of {_count(n_envs)} env(s)); record "
                      "fewer states or run fewer envs")
