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
    origin = {"authored": "physics:mass", "density": "the colliders' sizes and density",
              "shapes": "the colliders' sizes", "default": "the default",
              "rejected": "PhysX's link default"}
    bad = []
    if not np.isfinite(properties.mass):
        bad.append(f"mass {properties.mass:g} kg (from {origin.get(desc.source, desc.source)})")
    if not np.all(np.isfinite(properties.com)):
        bad.append(f"centre of mass {_shown(properties.com)} m (physics:centerOfMass, or the colliders')")
    if not np.all(np.isfinite(properties.inertia)):
        authored = desc.authored_diagonal
        if authored is not None and not np.all(np.isfinite(np.asarray(authored, dtype=float))):
            bad.append(f"inertia (physics:diagonalInertia = {_shown(authored)})")
        elif authored is not None:  # finite as authored: the units carry it out of range
            bad.append(f"inertia (physics:diagonalInertia = {_shown(authored)} in stage units)")
        else:
            bad.append(f"inertia diagonal {_shown(np.diag(properties.inertia))} kg m^2 (from "
                       f"{origin.get(desc.inertia_source, desc.inertia_source)})")
    if bad:
        raise InputError(body_path, f"not finite in SI units: its {'; '.join(bad)} (metersPerUnit "
                         f"{meters_per_unit:g}, kilogramsPerUnit {kilograms_per_unit:g})")
    return properties


def _shown(values) -> str:
    return "(" + ", ".join(f"{float(v):g}" for v in np.ravel(values)) + ")"
