"""Borrowed views (usdjoints/sim/kernels/borrow.py): the same memory as the array they are taken
from, read and written in place, with the type unchanged (oracle: numpy's own view of that memory)."""
from __future__ import annotations

import numpy as np
import pytest

numba = pytest.importorskip("numba")

from usdjoints.sim.kernels.borrow import borrow, keep_alive  # noqa: E402


@numba.njit
def _write_through(a, b):
    owners = (a, (b, None))
    va, (vb, nothing) = borrow(owners)
    for i in range(va.shape[0]):
        va[i] = 2.0 * i
    vb[1, 2] = 7
    keep_alive(owners)
    return nothing is None, va.shape[0], vb.shape[1], vb.strides[0]


def test_borrowed_views_share_memory_and_shape():
    a = np.zeros(5)
    b = np.zeros((3, 4), dtype=np.int64)
    is_none, n, cols, stride = _write_through(a, b)
    assert is_none and n == 5 and cols == 4 and stride == b.strides[0]
    np.testing.assert_array_equal(a, 2.0 * np.arange(5))
    assert b[1, 2] == 7 and b.sum() == 7


@numba.njit
def _sum_of_slice(a):
    v = borrow(a[1:, ::2])
    s = 0.0
    for i in range(v.shape[0]):
        for j in range(v.shape[1]):
            s += v[i, j]
    return s


def test_borrowed_view_of_a_strided_slice():
    a = np.arange(20.0).reshape(4, 5)
    assert _sum_of_slice(a) == a[1:, ::2].sum()
