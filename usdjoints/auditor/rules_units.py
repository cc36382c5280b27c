"""Units: angular gains that read like per-radian values, and lengths or masses that read like
metres or kilograms on a stage declaring other units."""
from __future__ import annotations

import math
from typing import Iterator

from ..provenance import Source
from ..units import angular_gain_per_deg_to_per_rad
from .rule import AuditContext, Rule, fmt

# A 60 Hz step resolves motion up to its Nyquist frequency; a drive stiffer than that only makes
# sense with sub-stepping [rad/s].
NYQUIST_60HZ = math.pi * 60.0
# A mechanism whose whole extent is below this once scaled reads as authored in metres [m].
TINY_EXTENT = 0.05
# ... provided its numbers look like a robot measured in metres [stage units].
METRE_LIKE_EXTENT = 5.0
ROTATIONAL_DRIVES = ("angular", "rotX", "rotY", "rotZ")


class AngularGainPerRadian(Rule):
    """Heuristic: rotational stiffness is per degree in USD and PhysX multiplies it by 180/pi.

    With the driven body's largest principal inertia I, the natural frequency PhysX sees is
    sqrt(k * 180/pi / I). When that is above the Nyquist frequency of a 60 Hz step but the same
    number read per radian, sqrt(k / I), is below it, the gain was most likely written per radian.
    """

    id = "angular-gain-per-radian"
    description = "an angular drive stiffness that, read per degree, is too stiff for its body but fits per radian"
    severity = "info"
    consumers = ("ovphysx",)
    fix = "if the gain was computed per radian, multiply by pi/180 before authoring it (UsdPhysics gains are per degree)"

    def check(self, ctx: AuditContext) -> Iterator:
        walk = ctx.primary
        inertia = {b.path: _largest_inertia(b.columns) for b in walk.bodies}
        for joint in walk.joints:
            for drive in joint.drives:
                if drive.dof not in ROTATIONAL_DRIVES or not drive.stiffness > 0.0:
                    continue
                if not math.isfinite(drive.stiffness):
                    continue
                moment = 1.0 if drive.type == "acceleration" else inertia.get(joint.body1 or joint.body0)
                if not moment:
                    continue
                read = math.sqrt(angular_gain_per_deg_to_per_rad(drive.stiffness) / moment)
                per_radian = math.sqrt(drive.stiffness / moment)
                if read > NYQUIST_60HZ >= per_radian:
                    name = f"drive:{drive.dof}:physics:stiffness"
                    yield self.finding(ctx, joint.path, f"{name} = {fmt(drive.stiffness)} per degree gives a natural "
                                       f"frequency of {read:.0f} rad/s on inertia {moment:g}; read per radian it "
                                       f"would be {per_radian:.0f} rad/s", name)


def _largest_inertia(columns) -> float:
    resolved = columns.get("physics:diagonalInertia")
    if resolved is None or resolved.source is not Source.AUTHORED:
        return 0.0
    values = [float(v) for v in resolved.value if math.isfinite(v)]
    return max(values) if values else 0.0


class UnitsLookMetres(Rule):
    id = "units-look-metres"
    description = "metersPerUnit (or kilogramsPerUnit) is not 1 but lengths (or masses) look authored in metres (kilograms)"
    severity = "warning"
    fix = "scale the values to the declared stage units, or author metersPerUnit = 1 / kilogramsPerUnit = 1"

    def check(self, ctx: AuditContext) -> Iterator:
        walk = ctx.primary
        units = walk.units
        metres = float(units.meters_per_unit.value)
        if units.meters_per_unit.source is Source.AUTHORED and metres < 1.0:
            extent = _extent(walk)
            if 0.0 < extent <= METRE_LIKE_EXTENT and extent * metres < TINY_EXTENT:
                yield self.finding(ctx, None, f"metersPerUnit is {fmt(metres)} but every body and joint frame lies "
                                   f"within {extent:g} units ({extent * metres:g} m): the values look like metres",
                                   "metersPerUnit")
        kilograms = float(units.kilograms_per_unit.value)
        if units.kilograms_per_unit.source is Source.AUTHORED and kilograms < 1.0:
            masses = [float(b.columns["physics:mass"].value) for b in walk.bodies
                      if "physics:mass" in b.columns and b.columns["physics:mass"].source is Source.AUTHORED]
            total = sum(m for m in masses if m > 0.0)
            if 0.0 < total <= 1000.0 and total * kilograms < 0.01:
                yield self.finding(ctx, None, f"kilogramsPerUnit is {fmt(kilograms)} but the bodies weigh "
                                   f"{total:g} units in all ({total * kilograms:g} kg): the masses look like kilograms",
                                   "kilogramsPerUnit")


def _extent(walk) -> float:
    """The largest coordinate of any body origin or authored joint frame [stage units]."""
    extent = 0.0
    for body in walk.bodies:
        extent = max(extent, *(abs(c) for c in body.world_pose.position))
    for joint in walk.joints:
        for name in ("physics:localPos0", "physics:localPos1"):
            resolved = joint.columns.get(name)
            if resolved is not None and resolved.source is Source.AUTHORED:
                extent = max(extent, *(abs(c) for c in resolved.value if math.isfinite(c)))
    return extent


RULES = (AngularGainPerRadian, UnitsLookMetres)
