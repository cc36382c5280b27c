"""Repeat loops for benchmarks: the per-call cost of a kernel without Python dispatch.

Each call recomputes the link transforms from q, as pinocchio's aba/rnea do from q.
aba_repeat makes one compiled call per repetition (aba.aba_from_q: the link transforms and ABA
fused, what calling the forward dynamics from other compiled code costs, argument passing
included), on borrowed views of its arrays as the step loop passes them (borrow.py: a view
without an owner costs no atomic reference count per argument and call); aba_repeat_inline inlines the same kernel into the loop: the computation alone.
"""
from __future__ import annotations

import numpy as np

from . import FMA, njit
from .aba import aba_from_q, aba_inline
from .borrow import borrow, keep_alive
from .fk import link_transforms, link_transforms_inline
from .rnea import rnea


@njit(cache=True, fastmath=FMA)
def _aba_scratch(nl, nv):
    """E, r, R3, p3 for the link transforms, then ABA's scratch in its argument order."""
    return (np.empty((nl, 3, 3)), np.empty((nl, 3)), np.empty((3, 3)), np.empty(3),
            np.empty((nl, 6)), np.empty((nl, 6)), np.empty((nl, 6)), np.empty((nl, 6, 6)),
            np.empty((nl, 6, 6)), np.empty((nl, 6, 6)), np.empty(nv), np.empty((6, 12)))


@njit(cache=True, fastmath=FMA)
def aba_repeat(link_table, link_axis, R_pj, p_pj, R_jc, p_jc, basis, S, I6, armature, gravity, q,
               qd, tau, n_calls, qdd_out):
    scratch = _aba_scratch(link_table.shape[0], qd.shape[0])
    E, r, R3, p3, v_w, c_w, pA_w, IA_w, U_w, Dinv_w, u_w, inverse_w = borrow(scratch)
    (link_table, link_axis, R_pj, p_pj, R_jc, p_jc, basis, S, I6, armature, gravity, q, qd, tau,
     qdd_out) = borrow((link_table, link_axis, R_pj, p_pj, R_jc, p_jc, basis, S, I6, armature,
                        gravity, q, qd, tau, qdd_out))
    for _ in range(n_calls):
        aba_from_q(link_table, link_axis, R_pj, p_pj, R_jc, p_jc, basis, S, I6, armature, gravity,
                   q, qd, tau, E, r, R3, p3, v_w, c_w, pA_w, IA_w, U_w, Dinv_w, u_w, inverse_w,
                   qdd_out)
    keep_alive(scratch)


@njit(cache=True, fastmath=FMA)
def aba_repeat_inline(link_table, link_axis, R_pj, p_pj, R_jc, p_jc, basis, S, I6, armature,
                      gravity, q, qd, tau, n_calls, qdd_out):
    E, r, R3, p3, v_w, c_w, pA_w, IA_w, U_w, Dinv_w, u_w, inverse_w = _aba_scratch(
        link_table.shape[0], qd.shape[0])
    for _ in range(n_calls):
        link_transforms_inline(link_table, link_axis, R_pj, p_pj, R_jc, p_jc, basis, q, R3, p3,
                               E, r)
        aba_inline(link_table, S, I6, E, r, armature, gravity, qd, tau, v_w, c_w, pA_w, IA_w,
                   U_w, Dinv_w, u_w, inverse_w, qdd_out)


@njit(cache=True, fastmath=FMA)
def rnea_repeat(link_table, link_axis, R_pj, p_pj, R_jc, p_jc, basis, S, I6, gravity, q, qd, qdd,
                n_calls, tau_out):
    nl = link_table.shape[0]
    E = np.empty((nl, 3, 3))
    r = np.empty((nl, 3))
    R3 = np.empty((3, 3))
    p3 = np.empty(3)
    v_w = np.empty((nl, 6))
    a_w = np.empty((nl, 6))
    f_w = np.empty((nl, 6))
    for _ in range(n_calls):
        link_transforms(link_table, link_axis, R_pj, p_pj, R_jc, p_jc, basis, q, R3, p3, E, r)
        rnea(link_table, S, I6, E, r, gravity, qd, qdd, v_w, a_w, f_w, tau_out)
