"""Composite-rigid-body algorithm and the tree-sparse LTDL factorisation of the mass matrix."""
from __future__ import annotations

from . import FMA, INTERNAL, njit
from .jcalc import primitive_nv
from .layout import LINK_PARENT, LINK_TYPE, LINK_V_START
from .spatial import rigid_inertia_add, rigid_inertia_times


@njit(cache=True, fastmath=FMA)
def crba(link_table, S, I6, E, r, armature, Ic_work, M_out):
    """M_out [nv, nv] = joint-space mass matrix plus diag(armature) [kg m^2 | kg].

    Scratch: Ic_work [nlink,6,6] (the composite inertias, rigid-body form: only the entries
    holding Ibar, m and h are formed).
    """
    nlink = link_table.shape[0]
    nv = M_out.shape[0]
    for a in range(nv):
        for b in range(nv):
            M_out[a, b] = 0.0
    for i in range(nlink):
        # only the entries the rigid-body form reads (Ibar, m, h): the rest is never read
        for a in range(3):
            for b in range(3):
                Ic_work[i, a, b] = I6[i, a, b]
        Ic_work[i, 3, 3] = I6[i, 3, 3]
        Ic_work[i, 2, 4] = I6[i, 2, 4]
        Ic_work[i, 0, 5] = I6[i, 0, 5]
        Ic_work[i, 1, 3] = I6[i, 1, 3]
    for i in range(nlink - 1, -1, -1):
        parent = link_table[i, LINK_PARENT]
        if parent >= 0:
            rigid_inertia_add(E, r, i, Ic_work, parent)
    for i in range(nlink):
        n = primitive_nv(link_table[i, LINK_TYPE])
        vi = link_table[i, LINK_V_START]
        for c in range(n):
            # the force f = Ic S[:, c], held in scalars while it is carried to the root
            f0, f1, f2, f3, f4, f5 = rigid_inertia_times(Ic_work, i, S[i, 0, c], S[i, 1, c], S[i, 2, c],
                                                         S[i, 3, c], S[i, 4, c], S[i, 5, c])
            for a in range(c, n):
                s = (S[i, 0, a] * f0 + S[i, 1, a] * f1 + S[i, 2, a] * f2 + S[i, 3, a] * f3
                     + S[i, 4, a] * f4 + S[i, 5, a] * f5)
                M_out[vi + a, vi + c] = s
                M_out[vi + c, vi + a] = s
            j = i
            while link_table[j, LINK_PARENT] >= 0:
                # carry the force one link up: f <- X_j^T f
                g0 = E[j, 0, 0] * f0 + E[j, 1, 0] * f1 + E[j, 2, 0] * f2
                g1 = E[j, 0, 1] * f0 + E[j, 1, 1] * f1 + E[j, 2, 1] * f2
                g2 = E[j, 0, 2] * f0 + E[j, 1, 2] * f1 + E[j, 2, 2] * f2
                f3, f4, f5 = (E[j, 0, 0] * f3 + E[j, 1, 0] * f4 + E[j, 2, 0] * f5,
                              E[j, 0, 1] * f3 + E[j, 1, 1] * f4 + E[j, 2, 1] * f5,
                              E[j, 0, 2] * f3 + E[j, 1, 2] * f4 + E[j, 2, 2] * f5)
                f0 = g0 + (r[j, 1] * f5 - r[j, 2] * f4)
                f1 = g1 + (r[j, 2] * f3 - r[j, 0] * f5)
                f2 = g2 + (r[j, 0] * f4 - r[j, 1] * f3)
                j = link_table[j, LINK_PARENT]
                nj = primitive_nv(link_table[j, LINK_TYPE])
                vj = link_table[j, LINK_V_START]
                for a in range(nj):
                    s = (S[j, 0, a] * f0 + S[j, 1, a] * f1 + S[j, 2, a] * f2 + S[j, 3, a] * f3
                         + S[j, 4, a] * f4 + S[j, 5, a] * f5)
                    M_out[vj + a, vi + c] = s
                    M_out[vi + c, vj + a] = s
    for k in range(nv):
        M_out[k, k] += armature[k]


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def keep_symmetric(dof_parent, M, H):
    """H [nv, nv] <- the whole symmetric matrix of which M holds what the factorisation reads
    (the diagonal and M[k, j] for each ancestor j of dof k): zero between dofs on different
    branches, as a tree's mass matrix is."""
    nv = H.shape[0]
    for k in range(nv):
        for j in range(nv):
            H[k, j] = 0.0
    for k in range(nv):
        H[k, k] = M[k, k]
        j = dof_parent[k]
        while j >= 0:
            H[k, j] = M[k, j]
            H[j, k] = M[k, j]
            j = dof_parent[j]


@njit(cache=True, fastmath=FMA)
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


@njit(cache=True, fastmath=FMA)
def ltdl_solve(dof_parent, LD, x):
    """In place, x <- H^-1 x from the factor ltdl_factor left in LD."""
    ltdl_transpose_solve(dof_parent, LD, x)
    _ltdl_forward(dof_parent, LD, x)


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def ltdl_transpose_solve(dof_parent, LD, x):
    """In place, x <- L^-T x, the first half of ltdl_solve: with y = L^-T a and z = L^-T b,
    a^T H^-1 b = sum_i y_i z_i / D_i (D_i = LD[i, i])."""
    for i in range(LD.shape[0] - 1, -1, -1):
        xi = x[i]
        j = dof_parent[i]
        while j >= 0:
            x[j] -= LD[i, j] * xi
            j = dof_parent[j]


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def ltdl_unit_solve(dof_parent, LD, k, x):
    """x <- H^-1 e_k (column k of H^-1) from the factor ltdl_factor left in LD: ltdl_solve on
    the unit vector, whose L^-T pass touches only k and its ancestors."""
    for d in range(x.shape[0]):
        x[d] = 0.0
    x[k] = 1.0
    i = k
    while i >= 0:
        xi = x[i]
        j = dof_parent[i]
        while j >= 0:
            x[j] -= LD[i, j] * xi
            j = dof_parent[j]
        i = dof_parent[i]
    _ltdl_forward(dof_parent, LD, x)


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def _ltdl_forward(dof_parent, LD, x):
    """x <- L^-1 D^-1 x, each entry summed in a register (x[j] of the ancestors is final)."""
    for i in range(LD.shape[0]):
        s = x[i] / LD[i, i]
        j = dof_parent[i]
        while j >= 0:
            s -= LD[i, j] * x[j]
            j = dof_parent[j]
        x[i] = s
