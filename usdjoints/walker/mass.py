"""Each body's mass properties as each consumer resolves them, in SI units.

PhysX and usdjoints: PhysicsMassAPI values win where authored (mass, centre of mass, diagonal
inertia with its principal axes); what is missing is computed from the body's colliders (cube,
sphere, capsule, cylinder) at the body's physics:density, else (profiles with
``material_density``) each collider's bound material density, else PhysX's default density of
1000 kg/m^3 (measured with ovphysx 0.7: tests/oracle/test_walk_vs_ovphysx.py). Which density
each collider was weighed at, and where it came from, is the MassDesc's ``densities``. What nothing gives a body PhysX makes up (measured with ovphysx 0.7 on a metres
stage, tests/sim/test_default_mass.py; ../shared/reference/FACTS.md): a body with no mass and no
collider weighs 1 (stage mass unit) and falls under gravity; a body without rotational inertia
(none authored, no collider to derive it from) gets that of a solid sphere of radius 0.1 m,
2/5 m r^2. An authored diagonal inertia of (0, 0, 0), the schema's fallback, counts as not
authored, as PhysX reads it (measured: 0.01328 for m = 2 on a 0.2 m cube, m s^2 / 6 = 0.01333;
0.00795 with no collider; tests/sim/test_zero_inertia_physx.py). OpenUSD's parser computes no mass: its reading is the
authored values alone (``unset`` where none).

A collider whose volume is not a finite positive number gives its body no mass, with a
``collider-no-mass`` warning. Values that overflow in SI units stay non-finite here: the model
builder refuses them, naming the body.
"""
from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from ..descriptors import ColliderDesc, Diagnostic, MassDesc
from ..provenance import Resolved
from ..profiles import PROFILES

DEFAULT_DENSITY = 1000.0  # [kg/m^3], PhysX's default when neither body nor material gives one
DEFAULT_MASS = 1.0  # [stage mass units], PhysX's mass for a body nothing gives one
DEFAULT_SPHERE_RADIUS = 0.1  # [m], the "small sphere" whose inertia PhysX gives a body without one


def quat_to_matrix(q) -> np.ndarray:
    """Rotation matrix of a quaternion (w, x, y, z), normalised first (as model/rotation.py)."""
    w, x, y, z = (float(c) for c in q)
    n = math.sqrt(w * w + x * x + y * y + z * z) or 1.0
    w, x, y, z = w / n, x / n, y / n, z / n
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def resolve(path, columns, colliders, consumer, mpu, kpu, stand_in, link: bool = False) -> MassDesc:
    """One body's MassDesc (``colliders``: the colliders it owns; ``link``: the body is a link of
    an articulation in this consumer's reading)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return _resolve(path, columns, colliders, consumer, np.float64(mpu), np.float64(kpu), stand_in, link)


def collider_volume_diagnostics(colliders: tuple[ColliderDesc, ...], meters_per_unit: float) -> list[Diagnostic]:
    """A ``collider-no-mass`` warning for each body collider whose volume is no finite positive
    number (it gives its body no mass)."""
    notes = []
    with np.errstate(over="ignore", invalid="ignore"):
        for collider in colliders:
            if collider.body is None:
                continue
            solid = _solid(collider, np.array(collider.body_scale, dtype=float) * np.float64(meters_per_unit))
            if solid is None:
                continue
            volume, inertia_per_mass = solid
            if not (np.isfinite(volume) and volume > 0.0 and np.all(np.isfinite(inertia_per_mass))):
                notes.append(Diagnostic(
                    "warning", collider.path, f"collider volume is {float(volume):g} m^3 (its size, radius or "
                    "height is zero, negative, not finite or too large): it gives its body no mass",
                    "collider-no-mass"))
    return notes


def zero_moment(diagonal) -> bool:
    """An authored diagonal with a zero entry beside an entry above 0 (one with none above 0 is
    read as not authored): the model builder's warning for a body outside an articulation."""
    return (diagonal is not None and any(float(v) > 0.0 for v in diagonal)
            and any(float(v) == 0.0 for v in diagonal))


def _vec(matrix) -> tuple:
    return tuple(tuple(float(c) for c in row) for row in np.asarray(matrix).tolist())


def _resolve(path, columns: Mapping[str, Resolved], colliders, consumer, mpu, kpu, stand_in, link) -> MassDesc:
    authored_mass = float(columns["physics:mass"].value) if "physics:mass" in columns else 0.0
    com_authored = "physics:centerOfMass" in columns and columns["physics:centerOfMass"].authored
    diag_authored = "physics:diagonalInertia" in columns and columns["physics:diagonalInertia"].authored
    authored_diagonal = tuple(float(c) for c in columns["physics:diagonalInertia"].value) if diag_authored else None
    if diag_authored:
        diagonal = np.array(columns["physics:diagonalInertia"].value, dtype=float) * kpu * mpu ** 2
        axes = quat_to_matrix(columns["physics:principalAxes"].value) if "physics:principalAxes" in columns \
            else np.eye(3)
        authored_inertia = axes @ np.diag(diagonal) @ axes.T
    com = np.array(columns["physics:centerOfMass"].value, dtype=float) * mpu if com_authored else np.zeros(3)
    profile = PROFILES[consumer]
    if not profile.computes_mass:  # the parser reports what is authored and computes nothing
        mass = authored_mass * kpu
        inertia = authored_inertia if diag_authored else np.zeros((3, 3))
        return MassDesc(float(mass), tuple(float(c) for c in com), _vec(inertia),
                        "authored" if authored_mass > 0.0 else "unset", "authored" if diag_authored else "unset",
                        (), authored_diagonal, stand_in)
    density = float(columns["physics:density"].value) if "physics:density" in columns else 0.0
    body_density = density * kpu / mpu ** 3 if density > 0 else None
    # the colliders' mass, centre and inertia are only needed for what is not authored; which
    # colliders give mass (and at what density) is reported either way
    # PhysX (measured with ovphysx 0.7, tests/sim/test_zero_inertia_physx.py): an authored
    # diagonal with no entry above 0 ((0, 0, 0), (-1, -1, 0)) is not authored: it is computed from
    # the colliders, else the small sphere's; one with an entry above 0 is used as its absolute
    # value, entry by entry ((-1, 2, 3) as (1, 2, 3), with a warning of the negative diagonal)
    diag_authored = diag_authored and any(float(c) > 0.0 for c in authored_diagonal)
    rejected = False
    if diag_authored:
        authored_inertia = axes @ np.diag(np.abs(diagonal)) @ axes.T
        # on an articulation link PhysX rejects a tensor with a zero moment beside a positive one
        # ("components must be > 0 for articulations") and the link keeps its default, 1 stage
        # unit about each axis (measured with ovphysx 0.7, tests/sim/test_zero_moment_link_physx.py)
        if link and profile.link_zero_moment_default and not np.all(np.abs(diagonal) > 0.0):
            authored_inertia, rejected = np.eye(3) * (kpu * mpu ** 2), True
    geometry = not (authored_mass * kpu > 0.0 and com_authored and diag_authored)
    shape_mass, shape_com, shape_inertia, used, densities = _shapes(colliders, mpu, kpu, body_density,
                                                                     profile.material_density, geometry)
    mass = authored_mass * kpu
    source = "authored"
    if not mass > 0.0:
        weighed = any(origin != "default" for _path, _density, origin in densities)
        mass, source = shape_mass, ("density" if weighed else "shapes")
    if not com_authored:
        com = shape_com
    if diag_authored:
        inertia, inertia_source = authored_inertia, "rejected" if rejected else "authored"
    elif shape_mass > 0.0:
        inertia, inertia_source = shape_inertia * (mass / shape_mass), "shapes"
    else:
        inertia, inertia_source = np.zeros((3, 3)), "shapes"
    if not mass > 0.0:
        mass, source = DEFAULT_MASS * kpu, "default"
    if not diag_authored and not np.trace(inertia) > 0.0:  # an authored nonzero inertia is kept
        inertia, inertia_source = np.eye(3) * (0.4 * mass * DEFAULT_SPHERE_RADIUS ** 2), "default"
    return MassDesc(float(mass), tuple(float(c) for c in com), _vec(inertia), source, inertia_source,
                    used, authored_diagonal, stand_in, densities)


def _density(collider, kpu, mpu, body_density, material_density: bool):
    """(density [kg/m^3], origin) a collider is weighed at: the body's physics:density ("body"),
    else its material's (the material's path), else PhysX's default ("default")."""
    if body_density is not None:
        return body_density, "body"
    material = collider.material
    if material_density and material.path is not None and material.density > 0.0:
        return material.density * kpu / mpu ** 3, material.path
    return DEFAULT_DENSITY, "default"


def _shapes(colliders, mpu, kpu, body_density, material_density: bool, geometry: bool = True):
    """Total mass [kg], com [m] and inertia about that com [kg m^2] of a body's colliders, the
    colliders that gave mass, and (collider, density [kg/m^3], origin) of each. Without
    ``geometry`` (a body authoring its mass, centre and inertia) only the total mass, the
    colliders and their densities are computed; the centre and inertia returned are zero."""
    parts, used, densities = [], [], []
    for collider in colliders:
        scale = np.array(collider.body_scale, dtype=float)
        local_centre = np.zeros(3)
        solid = _solid(collider, scale * mpu)
        if solid is None:
            solid = _hull_solid(collider, scale * mpu)
            if solid is None:
                continue
            local_centre = solid[2]
        volume, inertia_per_mass = solid[:2]
        if not (np.isfinite(volume) and volume > 0.0 and np.all(np.isfinite(inertia_per_mass))):
            continue  # collider-no-mass (collider_volume_diagnostics)
        density, origin = _density(collider, kpu, mpu, body_density, material_density)
        m = volume * density
        if geometry:
            rotation = quat_to_matrix(collider.body_pose.orientation)
            centre = np.array(collider.body_pose.position, dtype=float) * mpu + rotation @ local_centre
            parts.append((m, centre, rotation @ (inertia_per_mass * m) @ rotation.T))
        else:
            parts.append((m,))
        used.append(collider.path)
        densities.append((collider.path, float(density), origin))
    total = sum(p[0] for p in parts)
    if total <= 0.0:
        return 0.0, np.zeros(3), np.zeros((3, 3)), (), ()
    if not geometry:
        return total, np.zeros(3), np.zeros((3, 3)), tuple(used), tuple(densities)
    com = sum(p[0] * p[1] for p in parts) / total
    inertia = np.zeros((3, 3))
    for m, centre, inertia_c in parts:
        d = centre - com
        inertia += inertia_c + m * (float(d @ d) * np.eye(3) - np.outer(d, d))
    return total, com, inertia, tuple(used), tuple(densities)


def _hull_solid(collider: ColliderDesc, scale: np.ndarray):
    """(volume [m^3], inertia per unit mass [m^2] about its centroid, centroid [m] in the
    collider's frame) of a mesh collider's convex hull (its walker hull points, scaled), or None.

    PhysX gives a dynamic body's mesh collider the mass of its cooked convex hull (measured with
    ovphysx 0.7: a 0.2 m cube mesh, convexHull, 8.019 kg at 1000 kg/m^3, its hull's 8.000 kg);
    a bounding cube or sphere approximation is not weighed here."""
    if (collider.shape != "mesh" or collider.hull is None
            or collider.approximation in ("boundingCube", "boundingSphere")):
        return None
    from ..hull import hull_mass_properties

    points = np.array(collider.hull, dtype=float) * scale
    if not np.all(np.isfinite(points)):
        return None
    found = hull_mass_properties(points)
    if found is None:
        return None
    volume, centroid, inertia_per_density = found
    return volume, inertia_per_density / volume, centroid


def _solid(collider: ColliderDesc, scale: np.ndarray):
    """(volume [m^3], inertia per unit mass [m^2] about the centre, shape axes) of a primitive."""
    def number(value):
        return np.float64(value if value is not None else np.nan)

    if collider.shape == "cube":
        a, b, c = number(collider.size) * scale
        return a * b * c, np.diag([(b * b + c * c), (a * a + c * c), (a * a + b * b)]) / 12.0
    if collider.shape == "sphere":
        r = number(collider.radius) * scale.max()
        return 4.0 / 3.0 * np.pi * r ** 3, np.eye(3) * 0.4 * r * r
    if collider.shape in ("capsule", "cylinder"):
        axis = "XYZ".index(collider.axis or "Z")
        others = [k for k in range(3) if k != axis]
        r = number(collider.radius) * scale[others].max()
        h = number(collider.height) * scale[axis]
        if collider.shape == "cylinder":
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
