"""Composite-rigid-body algorithm and the tree-sparse LTDL factorisation of the mass matrix."""
from __future__ import annotations

from numba import njit

from .jcalc import primitive_nv
from .layout import LINK_PARENT, LINK_TYPE, LINK_V_START
from .spatial import rigid_inertia_add


@njit(cache=True)
def crba(link_table, S, I6, E, r, armature, Ic_work, X_work, F_work, M_out):
    """M_out [nv, nv] = joint-space mass matrix plus diag(armature) [kg m^2 | kg].

    Scratch: Ic_work [nlink,6,6], X_work [2,6,6], F_work [2,6,6].
    """
    nlink = link_table.shape[0]
    nv = M_out.shape[0]
    for a in range(nv):
        for b in range(nv):
            M_out[a, b] = 0.0
    for i in range(nlink):
        for a in range(6):
            for b in range(6):
                Ic_work[i, a, b] = I6[i, a, b]
    for i in range(nlink - 1, -1, -1):
        parent = link_table[i, LINK_PARENT]
        if parent >= 0:
            rigid_inertia_add(E[i], r[i], Ic_work[i], Ic_work[parent])
    F = F_work[0]
    G = F_work[1]
    for i in range(nlink):
        n = primitive_nv(link_table[i, LINK_TYPE])
        vi = link_table[i, LINK_V_START]
        for k in range(6):
            for c in range(n):
                s = 0.0
                for m in range(6):
                    s += Ic_work[i, k, m] * S[i, m, c]
                F[k, c] = s
        for a in range(n):
            for c in range(a, n):
                s = 0.0
                for k in range(6):
                    s += S[i, k, a] * F[k, c]
                M_out[vi + a, vi + c] = s
                M_out[vi + c, vi + a] = s
        j = i
        while link_table[j, LINK_PARENT] >= 0:
            # carry the force set one link up: F <- X_j^T F
            Ej = E[j]
            rj = r[j]
            for c in range(n):
                for k in range(3):
                    G[k, c] = Ej[0, k] * F[0, c] + Ej[1, k] * F[1, c] + Ej[2, k] * F[2, c]
                    G[3 + k, c] = Ej[0, k] * F[3, c] + Ej[1, k] * F[4, c] + Ej[2, k] * F[5, c]
                G[0, c] += rj[1] * G[5, c] - rj[2] * G[4, c]
                G[1, c] += rj[2] * G[3, c] - rj[0] * G[5, c]
                G[2, c] += rj[0] * G[4, c] - rj[1] * G[3, c]
                for k in range(6):
                    F[k, c] = G[k, c]
            j = link_table[j, LINK_PARENT]
            nj = primitive_nv(link_table[j, LINK_TYPE])
            vj = link_table[j, LINK_V_START]
            for a in range(nj):
                for c in range(n):
                    s = 0.0
                    for k in range(6):
                        s += S[j, k, a] * F[k, c]
                    M_out[vj + a, vi + c] = s
                    M_out[vi + c, vj + a] = s
    for k in range(nv):
        M_out[k, k] += armature[k]


@njit(cache=True)
def ltdl_factor(dof_parent, H):
    """In place, H = L^T D L with L unit lower-triangular following the tree (dof_parent [nv]):
    afterwards the strict lower triangle of H holds L and its diagonal holds D."""
    nv = H.shape[0]
    for k in range(nv - 1, -1, -1):
        i = dof_parent[k]
        while i >= 0:
            a = H[k, i] / H[k, k]
            j = i
            while j >= 0:
                H[i, j] -= a * H[k, j]
                j = dof_parent[j]
            H[k, i] = a
            i = dof_parent[i]


@njit(cache=True)
def ltdl_solve(dof_parent, LD, x):
    """In place, x <- H^-1 x from the factor ltdl_factor left in LD."""
    nv = LD.shape[0]
    for i in range(nv - 1, -1, -1):
        j = dof_parent[i]
        while j >= 0:
            x[j] -= LD[i, j] * x[i]
            j = dof_parent[j]
    for i in range(nv):
        x[i] /= LD[i, i]
    for i in range(nv):
        j = dof_parent[i]
        while j >= 0:
            x[i] -= LD[i, j] * x[j]
            j = dof_parent[j]
