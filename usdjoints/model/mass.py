"""Mass properties of a rigid body read from a stage, in SI units.

PhysicsMassAPI values win where authored (mass, centre of mass, diagonal inertia with its
principal axes); what is missing is computed from the body's collision shapes (cube, sphere,
capsule, cylinder) at their density, as PhysX does. PhysX's default density is 1000 kg/m^3.

What nothing gives a body, PhysX makes up (measured with ovphysx 0.7 on a metres stage, see
tests/sim/test_default_mass.py): a body with no mass and no collider weighs 1 (stage mass unit),
and a body without rotational inertia (none authored, no collider to derive it from) gets that of
a small solid sphere, 2/5 m r^2 with r = DEFAULT_SPHERE_RADIUS, so it turns instead of dividing
by zero. PhysX warns in both cases; ``defaulted`` says which value was made up. An authored
diagonal inertia of (0, 0, 0), the schema's fallback, counts as not authored, as in PhysX: the
inertia comes from the colliders, or is the small sphere's (measured: 0.01328 for m = 2 on a
0.2 m cube, m s^2 / 6 = 0.01333; 0.00795 with no collider, tests/sim/test_zero_inertia_physx.py).

Shape dimensions are read as the walker reads values (``values.SchemaValues``): a wrongly typed
one is the schema fallback, with an ``invalid-value-type`` error. A shape whose volume is not a
finite positive number (a zero, negative, non-finite or overflowing dimension) gives its body no
mass, with a ``collider-no-mass`` warning. Mass properties that are not finite in SI units (a
huge metersPerUnit, a non-finite authored value) leave nothing to simulate: an InputError naming
the body.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from ..descriptors import Diagnostic
from ..errors import InputError
from ..provenance import Resolved
from .rotation import quat_to_matrix
from .values import SchemaValues

DEFAULT_DENSITY = 1000.0  # [kg/m^3], PhysX's default when neither body nor material gives one
DEFAULT_MASS = 1.0  # [stage mass units], PhysX's mass for a body nothing gives one
DEFAULT_SPHERE_RADIUS = 0.1  # [m], the "small sphere" whose inertia PhysX gives a body without one


@dataclass(frozen=True)
class MassProperties:
    mass: float  # [kg]
    com: np.ndarray  # [m] in the body frame
    inertia: np.ndarray  # [kg m^2] about the com, body axes
    from_shapes: bool
    defaulted: tuple[str, ...] = ()  # "mass", "inertia": made up as PhysX does (nothing gave them)


def body_mass_properties(stage, body_path: str, columns: Mapping[str, Resolved], meters_per_unit: float,
                         kilograms_per_unit: float, values: SchemaValues | None = None) -> MassProperties:
    """Mass properties of the body at ``body_path`` [kg, m, kg m^2]; ``values`` reads the shapes'
    dimensions and collects their diagnostics."""
    values = values if values is not None else SchemaValues()
    with np.errstate(over="ignore", invalid="ignore"):
        properties = _mass_properties(stage, body_path, columns, np.float64(meters_per_unit),
                                      np.float64(kilograms_per_unit), values)
    bad = [name for name, value in (("mass", properties.mass), ("centre of mass", properties.com),
                                    ("inertia", properties.inertia)) if not np.all(np.isfinite(value))]
    if bad:
        raise InputError(body_path, f"not finite in SI units: its {', '.join(bad)} (physics:mass, "
                         f"physics:centerOfMass, physics:diagonalInertia or its shapes' sizes, metersPerUnit "
                         f"{meters_per_unit:g}, kilogramsPerUnit {kilograms_per_unit:g})")
    return properties


def _mass_properties(stage, body_path, columns, meters_per_unit, kilograms_per_unit, values) -> MassProperties:
    mass = float(columns["physics:mass"].value) * kilograms_per_unit if "physics:mass" in columns else 0.0
    com_authored = "physics:centerOfMass" in columns and columns["physics:centerOfMass"].authored
    diag_authored = ("physics:diagonalInertia" in columns and columns["physics:diagonalInertia"].authored
                     and any(float(v) != 0.0 for v in columns["physics:diagonalInertia"].value))
    density = float(columns["physics:density"].value) if "physics:density" in columns else 0.0
    density_si = density * kilograms_per_unit / meters_per_unit ** 3 if density > 0 else DEFAULT_DENSITY
    shape_mass, shape_com, shape_inertia = _shapes(stage, body_path, meters_per_unit, density_si, values)
    from_shapes = mass <= 0.0 or not diag_authored
    if mass <= 0.0:
        mass = shape_mass
    if com_authored:
        com = np.array(columns["physics:centerOfMass"].value, dtype=float) * meters_per_unit
    else:
        com = shape_com
    if diag_authored:
        diagonal = np.array(columns["physics:diagonalInertia"].value, dtype=float)
        diagonal = diagonal * kilograms_per_unit * meters_per_unit ** 2
        axes = quat_to_matrix(columns["physics:principalAxes"].value) if "physics:principalAxes" in columns \
            else np.eye(3)
        inertia = axes @ np.diag(diagonal) @ axes.T
    elif shape_mass > 0.0:
        inertia = shape_inertia * (mass / shape_mass)
    else:
        inertia = np.zeros((3, 3))
    defaulted = []
    if not mass > 0.0:
        mass = DEFAULT_MASS * kilograms_per_unit
        defaulted.append("mass")
    if not diag_authored and not np.trace(inertia) > 0.0:  # an authored nonzero inertia is kept
        inertia = np.eye(3) * (0.4 * mass * DEFAULT_SPHERE_RADIUS ** 2)
        defaulted.append("inertia")
    return MassProperties(float(mass), com, inertia, from_shapes, tuple(defaulted))


def _shapes(stage, body_path: str, meters_per_unit: float, density: float, values: SchemaValues):
    """Total mass [kg], com [m] and inertia about that com [kg m^2] of the body's colliders."""
    from pxr import Gf, Usd, UsdGeom, UsdPhysics

    body = stage.GetPrimAtPath(body_path)
    from ..walker.bodies import local_to_world  # an xformOp USD cannot evaluate counts as identity

    cache = UsdGeom.XformCache(Usd.TimeCode.Default())
    body_world = local_to_world(cache, body)
    body_inverse = body_world.GetInverse()
    parts = []
    for prim in Usd.PrimRange(body):
        if prim != body and prim.HasAPI(UsdPhysics.RigidBodyAPI):
            continue  # a nested body owns its own shapes
        if not prim.HasAPI(UsdPhysics.CollisionAPI):
            continue
        relative = local_to_world(cache, prim) * body_inverse
        transform = Gf.Transform(relative)
        scale = np.abs(np.array(transform.GetScale(), dtype=float))
        rotation = quat_to_matrix(_quat(transform.GetRotation().GetQuat()))
        centre = np.array(transform.GetTranslation(), dtype=float) * meters_per_unit
        solid = _solid(prim, scale * meters_per_unit, values)
        if solid is None:
            continue
        volume, inertia_per_mass = solid
        if not (np.isfinite(volume) and volume > 0.0 and np.all(np.isfinite(inertia_per_mass))):
            values.diagnostics.append(Diagnostic(
                "warning", str(prim.GetPath()), f"collider volume is {float(volume):g} m^3 (its size, radius or "
                "height is zero, negative, not finite or too large): it gives its body no mass", "collider-no-mass"))
            continue
        m = volume * density
        parts.append((m, centre, rotation @ (inertia_per_mass * m) @ rotation.T))
    total = sum(p[0] for p in parts)
    if total <= 0.0:
        return 0.0, np.zeros(3), np.zeros((3, 3))
    com = sum(p[0] * p[1] for p in parts) / total
    inertia = np.zeros((3, 3))
    for m, centre, inertia_c in parts:
        d = centre - com
        inertia += inertia_c + m * (float(d @ d) * np.eye(3) - np.outer(d, d))
    return total, com, inertia


def _quat(q):
    imaginary = q.GetImaginary()
    return (q.GetReal(), imaginary[0], imaginary[1], imaginary[2])


def _solid(prim, scale: np.ndarray, values: SchemaValues):
    """(volume [m^3], inertia per unit mass [m^2] about the centre, shape axes) of a primitive;
    dimensions as numpy floats, so an overflow is an infinity for the caller to refuse."""
    from pxr import UsdGeom

    def number(name):
        return np.float64(values.value(prim, name))

    if prim.IsA(UsdGeom.Cube):
        size = number("size")
        a, b, c = size * scale
        return a * b * c, np.diag([(b * b + c * c), (a * a + c * c), (a * a + b * b)]) / 12.0
    if prim.IsA(UsdGeom.Sphere):
        r = number("radius") * scale.max()
        return 4.0 / 3.0 * np.pi * r ** 3, np.eye(3) * 0.4 * r * r
    if prim.IsA(UsdGeom.Capsule) or prim.IsA(UsdGeom.Cylinder):
        axis = "XYZ".index(shape_axis(prim, values))
        others = [k for k in range(3) if k != axis]
        r = number("radius") * scale[others].max()
        h = number("height") * scale[axis]
        if prim.IsA(UsdGeom.Cylinder):
            volume = np.pi * r * r * h
            along = 0.5 * r * r
            across = (3 * r * r + h * h) / 12.0
        else:
            cylinder = np.pi * r * r * h
            caps = 4.0 / 3.0 * np.pi * r ** 3
            volume = cylinder + caps
            if not (np.isfinite(volume) and volume > 0.0):
                return volume, np.eye(3)
            along = (cylinder * 0.5 * r * r + caps * 0.4 * r * r) / volume
            across = (cylinder * (3 * r * r + h * h) / 12.0
                      + caps * (0.4 * r * r + h * h / 4.0 + 3.0 * h * r / 8.0)) / volume
        diagonal = np.full(3, across)
        diagonal[axis] = along
        return volume, np.diag(diagonal)
    return None


def shape_axis(prim, values: SchemaValues) -> str:
    """A capsule's, cylinder's or plane's axis token; one outside X, Y, Z (allowedTokens) reads as
    the schema fallback Z, as a wrongly typed value does, with an ``invalid-value-type`` error."""
    axis = values.value(prim, "axis")
    if axis in ("X", "Y", "Z"):
        return axis
    values.diagnostics.append(Diagnostic(
        "error", str(prim.GetPath()), f"axis is {axis!r}, not one of X, Y, Z: usdjoints reads the fallback Z",
        "invalid-value-type"))
    values.record(prim, "axis", "Z")
    return "Z"
