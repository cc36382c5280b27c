"""Values that stand for a rule rather than a number in the contract tables.

A parser default is usually a plain value (the consumer's descriptor default). Three cases are
not: the consumer falls back to the schema (resolved live, never typed here), the consumer never
reads the column, the consumer leaves it uninitialised, or nobody has recorded what it does. A fourth, :class:`UnitsScaled`, is a
default that depends on the stage's ``metersPerUnit``.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

import numpy as np

#: The largest finite float32 [-]; PhysX and OpenUSD's parser use it to mean "unlimited".
FLT_MAX = float(np.finfo(np.float32).max)


class Marker(str, enum.Enum):
    """A parser default that is a rule, not a value."""

    FALLBACK = "schema fallback"  # the consumer uses the schema's raw fallback
    NOT_READ = "not read"  # the consumer never reads this column
    NOT_RECORDED = "not recorded"  # no public source states the consumer's default
    UNDEFINED = "undefined"  # the consumer leaves the value uninitialised

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class UnitsScaled:
    """A default of ``coefficient * (10 / metersPerUnit) ** power`` in stage units.

    PhysX scales speed thresholds by its tolerance speed, 10 m/s expressed in stage units.
    """

    coefficient: float
    power: int

    def at(self, meters_per_unit: float) -> float:
        """The default on a stage with this ``metersPerUnit`` [m per stage length unit]."""
        return self.coefficient * (10.0 / meters_per_unit) ** self.power

    def __str__(self) -> str:
        return f"{self.coefficient:g} * (10 / metersPerUnit)^{self.power}"
