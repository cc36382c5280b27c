"""Mass properties of a rigid body read from a stage, in SI units.

PhysicsMassAPI values win where authored (mass, centre of mass, diagonal inertia with its
principal axes); what is missing is computed from the body's collision shapes (cube, sphere,
capsule, cylinder) at their density, as PhysX does. PhysX's default density is 1000 kg/m^3.

What nothing gives a body, PhysX makes up (measured with ovphysx 0.7 on a metres stage, see
tests/sim/test_default_mass.py): a body with no mass and no collider weighs 1 (stage mass unit),
and a body without rotational inertia (none authored, no collider to derive it from; an
authored one, even zero, is kept) gets that of
a small solid sphere, 2/5 m r^2 with r = DEFAULT_SPHERE_RADIUS, so it turns instead of dividing
by zero. PhysX warns in both cases; ``defaulted`` says which value was made up.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

import numpy as np

from ..provenance import Resolved
from .rotation import quat_to_matrix

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
                         kilograms_per_unit: float) -> MassProperties:
    """Mass properties of the body at ``body_path`` [kg, m, kg m^2]."""
    mass = float(columns["physics:mass"].value) * kilograms_per_unit if "physics:mass" in columns else 0.0
    com_authored = "physics:centerOfMass" in columns and columns["physics:centerOfMass"].authored
    diag_authored = "physics:diagonalInertia" in columns and columns["physics:diagonalInertia"].authored
    density = float(columns["physics:density"].value) if "physics:density" in columns else 0.0
    density_si = density * kilograms_per_unit / meters_per_unit ** 3 if density > 0 else DEFAULT_DENSITY
    shape_mass, shape_com, shape_inertia = _shapes(stage, body_path, meters_per_unit, density_si)
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
    if not diag_authored and not np.trace(inertia) > 0.0:  # an authored inertia is kept, even zero
        inertia = np.eye(3) * (0.4 * mass * DEFAULT_SPHERE_RADIUS ** 2)
        defaulted.append("inertia")
    return MassProperties(float(mass), com, inertia, from_shapes, tuple(defaulted))


def _shapes(stage, body_path: str, meters_per_unit: float, density: float):
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
        solid = _solid(prim, scale * meters_per_unit)
        if solid is None:
            continue
        volume, inertia_per_mass = solid
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


def _solid(prim, scale: np.ndarray):
    """(volume [m^3], inertia per unit mass [m^2] about the centre, shape axes) of a primitive."""
    from pxr import UsdGeom

    if prim.IsA(UsdGeom.Cube):
        size = float(UsdGeom.Cube(prim).GetSizeAttr().Get())
        a, b, c = size * scale
        return a * b * c, np.diag([(b * b + c * c), (a * a + c * c), (a * a + b * b)]) / 12.0
    if prim.IsA(UsdGeom.Sphere):
        r = float(UsdGeom.Sphere(prim).GetRadiusAttr().Get()) * float(scale.max())
        return 4.0 / 3.0 * math.pi * r ** 3, np.eye(3) * 0.4 * r * r
    if prim.IsA(UsdGeom.Capsule) or prim.IsA(UsdGeom.Cylinder):
        shape = UsdGeom.Capsule(prim) if prim.IsA(UsdGeom.Capsule) else UsdGeom.Cylinder(prim)
        axis = "XYZ".index(str(shape.GetAxisAttr().Get()))
        others = [k for k in range(3) if k != axis]
        r = float(shape.GetRadiusAttr().Get()) * float(scale[others].max())
        h = float(shape.GetHeightAttr().Get()) * float(scale[axis])
        if prim.IsA(UsdGeom.Cylinder):
            volume = math.pi * r * r * h
            along = 0.5 * r * r
            across = (3 * r * r + h * h) / 12.0
        else:
            cylinder = math.pi * r * r * h
            caps = 4.0 / 3.0 * math.pi * r ** 3
            volume = cylinder + caps
            along = (cylinder * 0.5 * r * r + caps * 0.4 * r * r) / volume
            across = (cylinder * (3 * r * r + h * h) / 12.0
                      + caps * (0.4 * r * r + h * h / 4.0 + 3.0 * h * r / 8.0)) / volume
        diagonal = np.full(3, across)
        diagonal[axis] = along
        return volume, np.diag(diagonal)
    return None
