"""The range of the 32-bit floats that UsdPhysics' attributes (mass, inertia, joint frames,
limits, gains) hold: a source value beyond it would be written as an infinity, and a mass
below its smallest positive value as 0, which UsdPhysics reads as "no mass authored"."""
from __future__ import annotations

import numpy as np

FLOAT32_MAX = float(np.finfo(np.float32).max)               # 3.4028235e38
FLOAT32_SMALLEST = float(np.finfo(np.float32).smallest_subnormal)  # 1.4e-45


def beyond_float32(values) -> bool:
    """Whether some finite value of ``values`` has no finite 32-bit float."""
    return any(abs(v) > FLOAT32_MAX for v in values)


def overflow_message(what: str) -> str:
    return f"{what} holds a value beyond the range of the 32-bit floats UsdPhysics stores it in (+-3.4e38)"


def mass_underflows(mass: float) -> bool:
    """Whether a positive mass rounds to 0 as a 32-bit float."""
    return 0.0 < mass and float(np.float32(mass)) == 0.0


def underflow_message(mass: float) -> str:
    return (f"mass {mass:g} is below the smallest 32-bit float: written as 0, which UsdPhysics reads as "
            "no mass authored")
