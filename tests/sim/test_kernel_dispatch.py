"""How the simulator's kernels are compiled (usdjoints/sim/kernels/__init__.py).

Oracle: numba's own record of the signatures it compiled a kernel for, and the kernel's
contract (an internal kernel has no Python entry point, so a call from Python is refused).
"""
from __future__ import annotations

import numpy as np
import pytest

from usdjoints.sim.kernels import INTERNAL, njit, plain_argument_types


def _scale(x, factor, flip):
    return -factor * x if flip else factor * x


def test_constant_arguments_compile_one_signature():
    """A caller passing 2, 3, True and False compiles a plain_argument_types kernel once, for
    int64 and bool, not once per constant (numba's default types each constant as a literal of
    its own, as the plain kernel below shows)."""
    scale = plain_argument_types(njit(fastmath={"contract"})(_scale))
    literal = njit(fastmath={"contract"})(_scale)
    assert njit()(lambda x: literal(x, 2, True) + literal(x, 3, False))(1.0) == 1.0
    assert len(literal.signatures) == 2

    def both(x):
        return scale(x, 2, True) + scale(x, 3, False) + scale(x, 2, False)

    caller = njit(fastmath={"contract"})(both)
    assert caller(1.5) == -3.0 + 4.5 + 3.0
    assert len(scale.signatures) == 1
    assert all("Literal" not in str(t) for t in scale.signatures[0])


def test_internal_kernel_refuses_a_call_from_python():
    from usdjoints.sim.kernels import contact

    with pytest.raises(TypeError, match="called only from other kernels"):
        contact._dot(np.ones(3), np.ones(3))
    inner = njit(**INTERNAL)(_scale)
    outer = njit()(lambda x: inner(x, 2.0, False))
    assert outer(1.5) == 3.0  # from a kernel it runs


def _same(a):
    return a


def _total(a):
    s = 0.0
    for x in a:
        s += x
    return s


def test_uncounted_kernel_refuses_to_return_an_array():
    """An INTERNAL kernel counts no references, so an array it returned would reach its caller
    uncounted (and be freed under it): such a kernel is refused at compile time, while one that
    only reads its arrays runs (the closed-form sum below)."""
    from usdjoints.sim.kernels import WRAPPERLESS

    same = njit(**INTERNAL)(_same)
    caller = njit()(lambda a: same(a)[0])
    with pytest.raises(TypeError, match="counts no references"):
        caller(np.ones(3))
    counted = njit(**WRAPPERLESS)(_same)
    assert njit()(lambda a: counted(a)[0])(np.arange(3.0)) == 0.0
    total = njit(**INTERNAL)(_total)
    assert njit()(lambda a: total(a))(np.arange(5.0)) == 10.0
