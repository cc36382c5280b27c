"""sin and cos of one angle together, for the revolute joints of every step.

The angle is reduced to y in [-pi/4, pi/4] by the nearest multiple k of pi/2, with pi/2 split in
three parts of 33, 33 and 53 bits (Cody and Waite) so that k times each of the first two is exact
for |k| < 2^20; the Taylor series of sin (to y^17) and cos (to y^16) then truncate below 1e-19
there, and the quadrant k mod 4 swaps and negates them. Beyond REDUCTION_BOUND the library
functions take over. One reduction serves both values, about half the cost of math.sin plus
math.cos.
"""
from __future__ import annotations

import math

from . import FMA, INTERNAL, njit

# pi/2 = _HALF_PI_1 + _HALF_PI_2 + _HALF_PI_3 to ~1e-37; the first two carry 33 significant bits
_HALF_PI_1 = 1.5707963267341256
_HALF_PI_2 = 6.077100506303966e-11
_HALF_PI_3 = 2.0222662487959506e-21
_TWO_OVER_PI = 0.6366197723675814
# |angle| [rad] up to which the three-part reduction is exact enough (|k| < 2^17)
REDUCTION_BOUND = 1e5

# 1/n! for the series
_S3, _S5, _S7, _S9 = -1.0 / 6.0, 1.0 / 120.0, -1.0 / 5040.0, 1.0 / 362880.0
_S11, _S13 = -1.0 / 39916800.0, 1.0 / 6227020800.0
_S15, _S17 = -1.0 / 1307674368000.0, 1.0 / 355687428096000.0
_C2, _C4, _C6, _C8 = -0.5, 1.0 / 24.0, -1.0 / 720.0, 1.0 / 40320.0
_C10, _C12 = -1.0 / 3628800.0, 1.0 / 479001600.0
_C14, _C16 = -1.0 / 87178291200.0, 1.0 / 20922789888000.0


@njit(cache=True, fastmath=FMA, forceinline=True, **INTERNAL)
def sin_cos(angle):
    """(sin angle, cos angle) [rad], within a few units in the last place of math.sin/cos."""
    if not (abs(angle) < REDUCTION_BOUND):  # also NaN and inf
        return math.sin(angle), math.cos(angle)
    k = math.floor(angle * _TWO_OVER_PI + 0.5)
    y = ((angle - k * _HALF_PI_1) - k * _HALF_PI_2) - k * _HALF_PI_3
    z = y * y
    s = y + y * z * (_S3 + z * (_S5 + z * (_S7 + z * (_S9 + z * (_S11 + z * (_S13 + z * (
        _S15 + z * _S17)))))))
    c = 1.0 + z * (_C2 + z * (_C4 + z * (_C6 + z * (_C8 + z * (_C10 + z * (_C12 + z * (
        _C14 + z * _C16)))))))
    quadrant = k % 4  # k is an int; `int(k) & 3` is the same but keeps numba's reference-count
    # pruning from removing the callers' array counts (measured on the compiled code)
    if quadrant == 0:
        return s, c
    if quadrant == 1:
        return c, -s
    if quadrant == 2:
        return -s, -c
    return -c, s
