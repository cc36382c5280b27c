"""Mass properties of a rigid body for the model, in SI units, from the description.

The walker resolves them as PhysX does (usdjoints/walker/mass.py: authored values, else the
colliders at the body's density or PhysX's default 1000 kg/m^3, else PhysX's 1 stage mass unit
and a 0.1 m sphere's inertia); this module turns a :class:`~usdjoints.descriptors.MassDesc`
into arrays and refuses what is not finite in SI units (a huge metersPerUnit, a non-finite
authored value): an InputError naming the body.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..descriptors import MassDesc
from ..errors import InputError
from ..walker.mass import DEFAULT_DENSITY, DEFAULT_MASS, DEFAULT_SPHERE_RADIUS  # noqa: F401 (the values PhysX uses)


@dataclass(frozen=True)
class MassProperties:
    mass: float  # [kg]
    com: np.ndarray  # [m] in the body frame
    inertia: np.ndarray  # [kg m^2] about the com, body axes
    from_shapes: bool
    defaulted: tuple[str, ...] = ()  # "mass", "inertia": made up as PhysX does (nothing gave them)


def body_mass_properties(body_path: str, desc: MassDesc, meters_per_unit: float,
                         kilograms_per_unit: float) -> MassProperties:
    """The body's mass properties [kg, m, kg m^2] from its description."""
    properties = MassProperties(float(desc.mass), np.array(desc.center_of_mass, dtype=float),
                                np.array(desc.inertia, dtype=float),
                                desc.source in ("shapes", "density") or desc.inertia_source == "shapes",
                                desc.defaulted)
    bad = [name for name, value in (("mass", properties.mass), ("centre of mass", properties.com),
                                    ("inertia", properties.inertia)) if not np.all(np.isfinite(value))]
    if bad:
        raise InputError(body_path, f"not finite in SI units: its {', '.join(bad)} (physics:mass, "
                         f"physics:centerOfMass, physics:diagonalInertia or its shapes' sizes, metersPerUnit "
                         f"{meters_per_unit:g}, kilogramsPerUnit {kilograms_per_unit:g})")
    return properties
