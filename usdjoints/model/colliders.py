"""Collision shapes (PhysicsCollisionAPI prims) as primitive colliders fixed to model links.

Spheres, capsules, cubes and planes map to themselves (scale baked in: a sphere takes its
largest scale, a capsule's radius the largest scale across its axis). Every other gprim (meshes,
cylinders, cones) becomes the box of its local extent: a documented bounding primitive, not a
convex hull. A collider belongs to the nearest rigid body at or above it; one under no simulated
body is fixed in the world.

Friction and restitution come from the PhysicsMaterialAPI bound for physics
(``material:binding:physics``, else ``material:binding``) on the collider or an ancestor: the
dynamic friction is the Coulomb coefficient. Without a bound material PhysX's default material
applies (friction 0.5, restitution 0). Pairs on one link, on two static colliders or on bodies
joined by a joint never collide (PhysX filters jointed bodies the same way).
"""
from __future__ import annotations

import numpy as np

from ..descriptors import Diagnostic, StageDescription
from .articulated import COLLIDER_BOX, COLLIDER_CAPSULE, COLLIDER_PLANE, COLLIDER_SPHERE
from .rotation import quat_to_matrix

DEFAULT_FRICTION = 0.5     # PhysX's default material
DEFAULT_RESTITUTION = 0.0
# Rotations taking a collider's z axis onto the stage axis X, Y or Z (cyclic permutations).
_Z_TO_AXIS = {
    "X": np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]),
    "Y": np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]),
    "Z": np.eye(3),
}


def _material(prim):
    from pxr import UsdPhysics

    while prim and prim.GetPath().pathString != "/":
        for name in ("material:binding:physics", "material:binding"):
            rel = prim.GetRelationship(name)
            targets = rel.GetTargets() if rel else []
            if targets:
                material = prim.GetStage().GetPrimAtPath(targets[0])
                if material and material.HasAPI(UsdPhysics.MaterialAPI):
                    api = UsdPhysics.MaterialAPI(material)
                    return float(api.GetDynamicFrictionAttr().Get()), float(api.GetRestitutionAttr().Get())
        prim = prim.GetParent()
    return DEFAULT_FRICTION, DEFAULT_RESTITUTION


def _shape(prim, scale: np.ndarray, mpu: float):
    """(kind, size [3] [m], R_shape_in_prim, centre in prim [m]) of a collider prim."""
    from pxr import UsdGeom

    if prim.IsA(UsdGeom.Sphere):
        r = float(UsdGeom.Sphere(prim).GetRadiusAttr().Get()) * float(scale.max())
        return COLLIDER_SPHERE, np.array([r * mpu, 0.0, 0.0]), np.eye(3), np.zeros(3)
    if prim.IsA(UsdGeom.Capsule):
        capsule = UsdGeom.Capsule(prim)
        axis = str(capsule.GetAxisAttr().Get())
        k = "XYZ".index(axis)
        across = float(np.delete(scale, k).max())
        r = float(capsule.GetRadiusAttr().Get()) * across
        half = 0.5 * float(capsule.GetHeightAttr().Get()) * float(scale[k])
        return COLLIDER_CAPSULE, np.array([r, half, 0.0]) * mpu, _Z_TO_AXIS[axis], np.zeros(3)
    if prim.IsA(UsdGeom.Cube):
        half = 0.5 * float(UsdGeom.Cube(prim).GetSizeAttr().Get()) * scale
        return COLLIDER_BOX, half * mpu, np.eye(3), np.zeros(3)
    if prim.IsA(UsdGeom.Plane):
        axis = str(UsdGeom.Plane(prim).GetAxisAttr().Get())
        return COLLIDER_PLANE, np.zeros(3), _Z_TO_AXIS[axis], np.zeros(3)
    if prim.IsA(UsdGeom.Boundable):
        extent = UsdGeom.Boundable(prim).GetExtentAttr().Get()
        if extent is None and prim.IsA(UsdGeom.PointBased):
            points = UsdGeom.PointBased(prim).GetPointsAttr().Get()
            if points:
                p = np.array(points, dtype=float)
                extent = [p.min(axis=0), p.max(axis=0)]
        if extent is not None:
            lo, hi = np.array(extent[0], dtype=float) * scale, np.array(extent[1], dtype=float) * scale
            return COLLIDER_BOX, 0.5 * (hi - lo) * mpu, np.eye(3), 0.5 * (hi + lo) * mpu
    return None


def collider_arrays(stage, description: StageDescription, model, joints) -> tuple[dict, list]:
    """Collider arrays (see ArticulatedModel) and diagnostics; ``joints`` are the joints whose
    bodies do not collide with each other."""
    from pxr import Gf, Usd, UsdGeom, UsdPhysics

    mpu = float(description.units.meters_per_unit.value)
    bodies = {b.path: b for b in description.bodies}
    from ..walker.bodies import local_to_world  # an xformOp USD cannot evaluate counts as identity

    cache = UsdGeom.XformCache(Usd.TimeCode.Default())
    rows, notes = [], []
    for prim in Usd.PrimRange.Stage(stage):
        if not prim.HasAPI(UsdPhysics.CollisionAPI):
            continue
        if not UsdPhysics.CollisionAPI(prim).GetCollisionEnabledAttr().Get():
            continue
        owner = prim
        while owner and owner.GetPath().pathString != "/" and owner.GetPath().pathString not in bodies:
            owner = owner.GetParent()
        body = owner.GetPath().pathString if owner and owner.GetPath().pathString in bodies else None
        transform = Gf.Transform(local_to_world(cache, prim))
        scale = np.abs(np.array(transform.GetScale(), dtype=float))
        q = transform.GetRotation().GetQuat()
        R_world = quat_to_matrix((q.GetReal(), *q.GetImaginary()))
        p_world = np.array(transform.GetTranslation(), dtype=float) * mpu
        shape = _shape(prim, scale, mpu)
        if shape is None:
            notes.append(Diagnostic("warning", prim.GetPath().pathString, "collider shape not simulated",
                                    "collider-unsupported"))
            continue
        kind, size, R_shape, centre = shape
        R_world, p_world = R_world @ R_shape, p_world + R_world @ centre
        if body is not None and body in model.body_names:
            b = model.body_names.index(body)
            world = bodies[body].world_pose
            R_wb = quat_to_matrix(world.orientation)
            p_wb = np.array(world.position, dtype=float) * mpu
            R_bc, p_bc = R_wb.T @ R_world, R_wb.T @ (p_world - p_wb)
            R_lb, p_lb = np.asarray(model.body_R_link[b]), np.asarray(model.body_p_link[b])
            link, R, p = int(model.body_link[b]), R_lb @ R_bc, p_lb + R_lb @ p_bc
        else:
            link, R, p = -1, R_world, p_world
        friction, restitution = _material(prim)
        rows.append((prim.GetPath().pathString, kind, link, R, p, size, friction, restitution, body))
    jointed = set()
    link_of = {name: int(model.body_link[i]) for i, name in enumerate(model.body_names)}
    for joint in joints:
        # the world is no actor: a world-anchored joint filters nothing
        if joint.body0 in link_of and joint.body1 in link_of:
            a, b = link_of[joint.body0], link_of[joint.body1]
            jointed.add((min(a, b), max(a, b)))
    pairs = []
    for i in range(len(rows)):
        for j in range(i + 1, len(rows)):
            li, lj = rows[i][2], rows[j][2]
            if li == lj or (rows[i][1] == COLLIDER_PLANE and rows[j][1] == COLLIDER_PLANE):
                continue
            if (min(li, lj), max(li, lj)) in jointed:
                continue
            pairs.append((i, j))
    n = len(rows)
    return dict(
        collider_names=tuple(r[0] for r in rows),
        collider_type=np.array([r[1] for r in rows], dtype=np.int64),
        collider_link=np.array([r[2] for r in rows], dtype=np.int64),
        collider_R_link=np.array([r[3] for r in rows], dtype=float).reshape(n, 3, 3),
        collider_p_link=np.array([r[4] for r in rows], dtype=float).reshape(n, 3),
        collider_size=np.array([r[5] for r in rows], dtype=float).reshape(n, 3),
        collider_friction=np.array([r[6] for r in rows], dtype=float),
        collider_restitution=np.array([r[7] for r in rows], dtype=float),
        collision_pairs=np.array(pairs, dtype=np.int64).reshape(-1, 2),
    ), notes
