"""The position projection onto the loops and couplings (enforce_constraints): Newton steps of q
onto c(q) = 0 in the step's inertia metric, then v onto G(q) v = 0 (constraints.py forms the rows).
"""
from __future__ import annotations

import math

from . import FMA, INTERNAL, njit
from .configuration import integrate_configuration
from .constraints import (
    CAPPED_ITERATIONS, MAX_NEWTON_TURN, POSITION_ITERATIONS, POSITION_TOLERANCE, constraint_error,
    constraint_rows, factor_constraints, project_out, solve_factored,
)
from .fk import link_transforms, link_world_poses
from .correction import cap_turn

# a projection of the loops that ends with an error above this and no smaller than it started
# with is taken back (enforce_constraints)
STALLED_ERROR = 1e-9  # [rad | m]


@njit(cache=True, fastmath=FMA, **INTERNAL)
def enforce_constraints(model, constraints, q, v, LD, fk_work, Rw, pw, rows_work):
    """Newton-project q onto c(q) = 0, then v onto G(q) v = 0, in the metric factored in LD.

    A Newton step that would turn a joint by more than MAX_NEWTON_TURN is scaled down to it (the
    loops' rows nearly dependent, the linear step overshoots: a D6 loop pulled 4 rad and 900 m in
    one step); up to CAPPED_ITERATIONS such steps come on top of POSITION_ITERATIONS, so a loop
    far open is still closed in one projection. A projection that ends no closer than it started
    (beyond STALLED_ERROR) is taken back: loops that cannot all close (two ball joints between
    the same two bodies whose anchors lie at different distances on each) are left where they
    are instead of being chased round their nearest, which moved a free base by metres a step.

    Model: model, constraints (PackedModel.model_args(), constraint_args()).
    Data in: LD [nv, nv], the factor of the step's inertia.
    Data out: q [nq], v [nv], in place.
    Scratch: fk_work = (E, r, R3, p3), Rw, pw; rows_work = (G, c, Y, A, lam, dq, q_back), the
    constraint rows' arrays (constraints.py) and the configuration the projection starts from."""
    (link_table, link_axis, R_pj, p_pj, R_jc, p_jc, basis, S, I6, dof_parent, dof_table, armature,
     gravity, body_link, body_R_link, body_p_link) = model
    (coupling_dof, coupling_coeff, coupling_offset, loop_type, loop_link, loop_R, loop_p,
     loop_axis) = constraints
    E, r, R3, p3 = fk_work
    G, c, Y, A, lam, dq, q_back = rows_work
    m = 0
    nonlinear = loop_type.shape[0] > 0
    iteration = 0
    capped = 0
    start = math.inf  # the error the projection starts from
    reverted = False
    for a in range(q.shape[0]):
        q_back[a] = q[a]
    while True:
        if nonlinear:  # coupling rows read q alone
            link_transforms(link_table, link_axis, R_pj, p_pj, R_jc, p_jc, basis, q, R3, p3, E, r)
            link_world_poses(link_table, E, r, Rw, pw)
        m = constraint_rows(link_table, S, dof_table, coupling_dof, coupling_coeff, coupling_offset,
                            loop_type, loop_link, loop_R, loop_p, loop_axis, q, Rw, pw, G, c)
        factor_constraints(dof_parent, LD, G, m, Y, A)
        error = constraint_error(c, m)
        if math.isinf(start):
            start = error
        if reverted or error < POSITION_TOLERANCE or (iteration > 0 and not nonlinear):
            break
        if iteration >= POSITION_ITERATIONS:
            if nonlinear and error > STALLED_ERROR and not error < start:
                # no closer than at the start: back there, its rows formed once more for the
                # velocity projection
                for a in range(q.shape[0]):
                    q[a] = q_back[a]
                reverted = True
                continue
            break
        for k in range(m):
            lam[k] = c[k]
        solve_factored(A, m, lam)
        for d in range(dq.shape[0]):
            dq[d] = 0.0
        for k in range(m):
            for d in range(dq.shape[0]):
                dq[d] -= Y[k, d] * lam[k]
        # a capped step counts as an iteration only past CAPPED_ITERATIONS of them
        if nonlinear and cap_turn(link_table, dq, 1.0, MAX_NEWTON_TURN) and capped < CAPPED_ITERATIONS:
            capped += 1
        else:
            iteration += 1
        integrate_configuration(link_table, I6, q, dq, 1.0, q)
        if not nonlinear:  # a linear constraint is met after one step: skip the re-check
            break
    project_out(G, Y, A, m, v, lam)
