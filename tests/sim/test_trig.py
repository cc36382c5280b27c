"""sin_cos against the C library's sin and cos (math.sin / math.cos) on the same angles."""
import math

import numpy as np
import pytest
from numba import njit

from usdjoints.sim.kernels.trig import REDUCTION_BOUND, sin_cos


@njit(cache=True)
def _table(angles, out):
    for i in range(angles.shape[0]):
        out[i, 0], out[i, 1] = sin_cos(angles[i])


def _errors(angles):
    out = np.empty((angles.shape[0], 2))
    _table(angles, out)
    with np.errstate(invalid="ignore"):  # sin(inf) is NaN on both sides
        expected = np.stack([np.sin(angles), np.cos(angles)], axis=1)
    return np.abs(out - expected), out


@pytest.mark.parametrize("scale", [1.0, 10.0, 1e3, REDUCTION_BOUND])
def test_matches_the_library_to_round_off(scale):
    """Absolute error <= 4e-16 (a couple of ulps of values up to 1, for any angle in range: the
    reduction is exact to ~1e-21 there, so the error does not grow with the angle)."""
    angles = np.random.default_rng(7).uniform(-scale, scale, 200_000)
    errors, _ = _errors(angles)
    assert errors.max() <= 4e-16


def test_quadrant_edges_and_exact_values():
    """Multiples of pi/4 near each quadrant boundary, zero, and the fallback beyond the bound."""
    k = np.arange(-400, 401)
    angles = np.concatenate([k * (math.pi / 4), np.nextafter(k * (math.pi / 4), np.inf),
                             [0.0, -0.0, 2.5 * REDUCTION_BOUND, -1e12]])
    errors, out = _errors(angles)
    assert errors.max() <= 4e-16
    assert out[-4, 0] == 0.0 and out[-4, 1] == 1.0


def test_non_finite_angles_give_nan():
    _, out = _errors(np.array([np.nan, np.inf, -np.inf]))
    assert np.isnan(out).all()
