"""OpenUSD's own physics parser, normalised into the vocabulary of ``usdjoints walk --format json``.

:func:`parse_with_usdphysics` runs ``UsdPhysics.UsdPhysicsLoadStageFromPrimRange`` (usd-core 26.11;
``LoadUsdPhysicsFromRange`` is its deprecated name) over the whole stage and rewrites the
descriptors it reports so that a test can compare them key by key with what the walker says for
``consumer="usdphysics"``. Values stay as the parser reports them: angles in degrees, lengths in
stage units with each resolved body's world scale baked into ``localPos``, quaternions
``[w, x, y, z]`` normalised, non-finite floats as Python floats (``math.inf``); use
:func:`jsonable` to turn them into the walker's ``"inf"`` strings.

Python signature, read from the 26.11 binary (the docstring is empty)::

    UsdPhysicsLoadStageFromPrimRange(stage, includePaths, excludePaths=[],
                                     customTokens=UsdPhysicsCustomTokens(), simulationOwners=[])

It returns ``{ObjectType: (paths, descriptors)}``. Passing a ``UsdPhysicsCustomTokens`` as the third
positional argument (the pre-26.8 order) fails with an unrelated-looking ``__repr__`` argument error.

What the parser does that a reader might not expect (each has a test in
``tests/test_usdphysics_oracle.py``):

* Revolute and prismatic limits follow an AND rule: the limit is enabled only when both
  ``lowerLimit`` and ``upperLimit`` are finite. A one-sided limit (only ``lowerLimit``) is
  reported disabled, while PhysX enables it (OR rule) and, inside an articulation, locks the
  joint at [0, 0].
* A non-unit ``localRot`` is normalised silently; nothing says the authored value was not a
  rotation.
* A body relationship that targets a missing prim resolves to the world (empty path) with no
  warning, ``rel0``/``rel1`` still holding the dangling target, and inside an articulation that
  joint is then elected its root (``rootPrims``) as if it were a deliberate world anchor.
* ``DistanceJointDesc.limit.enabled`` is always false; the real switches are ``minEnabled`` /
  ``maxEnabled`` (a negative ``minDistance``/``maxDistance``, the fallback -1, disables a side).
  Here the distance limit is ``enabled`` when either side is, with ``low_enabled`` /
  ``high_enabled`` beside it.
* Spherical cone limits come back as ``limit.lower = coneAngle0``, ``limit.upper = coneAngle1``,
  enabled only when both are non-negative (-1 is the "unlimited" sentinel).
* D6 limit instances are reported verbatim, enabled, including the lock convention
  ``low > high``; an unauthored ``low``/``high`` reads as -inf/+inf.
* Drive force limit: FLT_MAX (3.4028234663852886e38) when no ``PhysicsDriveAPI`` is applied, but
  +inf when it is applied with ``maxForce`` unauthored. Drives on an instance a joint type does not
  read (``drive:linear`` on a revolute) are dropped silently.
* ``ArticulationDesc.articulatedBodies`` contains the empty path for the world in a fixed-base
  articulation; here it is removed from ``links`` and reported as ``fixed_base``.
* A one-body articulation welded to the world reports ``articulatedBodies = [world]``: the body
  itself is missing from its own articulation.
* ``ArticulationDesc.articulatedJoints`` lists every enabled joint of its links, one with ``excludeFromArticulation = true``
  (the four-bar's loop-closing hinge); only the descriptor's flag says it is excluded. ``joints``
  here keeps the parser's list; ``loop_free_joints`` drops the excluded ones.
* A disabled joint (``jointEnabled = false``) is still reported, with ``enabled`` false.
* A mirrored body (negative-determinant transform) is decomposed as scale (-1, -1, -1) with a
  180 degree rotation, so every baked ``localPos`` on it changes sign on all three axes.
* PhysX rack-and-pinion and gear joints are reported as a free D6 joint unless their type names
  are passed as custom joint tokens; then they are custom joints with base fields only (no ratio,
  no hinge relationships). This module passes them by default.
* A prim whose type is no joint (``DistancePhysicsJoint``, a typo) is ignored without a message
  even though it carries ``physics:body0``/``physics:body1``.
"""
from __future__ import annotations

import math
import warnings
from typing import Any, Iterable, Optional

import usdjoints  # noqa: F401  (registers the PhysX schemas before any stage is opened)
from pxr import Sdf, Usd, UsdPhysics

PHYSX_COUPLING_TYPES = ("PhysxPhysicsRackAndPinionJoint", "PhysxPhysicsGearJoint")

_JOINT_TYPE_NAMES = {
    "FixedJoint": "fixed",
    "RevoluteJoint": "revolute",
    "PrismaticJoint": "prismatic",
    "SphericalJoint": "spherical",
    "DistanceJoint": "distance",
    "D6Joint": "d6",
    "CustomJoint": "custom",
}
_CUSTOM_SCHEMA_TYPES = {
    "PhysxPhysicsRackAndPinionJoint": "rack_and_pinion",
    "PhysxPhysicsGearJoint": "gear",
}
_DOF_NAMES = {
    "TransX": "transX", "TransY": "transY", "TransZ": "transZ",
    "RotX": "rotX", "RotY": "rotY", "RotZ": "rotZ", "Distance": "distance",
}
D6_DOF_ORDER = ("transX", "transY", "transZ", "rotX", "rotY", "rotZ", "distance")


def load_descriptors(stage: Usd.Stage, custom_joint_tokens: Iterable[str] = PHYSX_COUPLING_TYPES) -> dict:
    """Run the parser over the whole stage; returns ``{ObjectType name: [(path, desc), ...]}``."""
    tokens = UsdPhysics.UsdPhysicsCustomTokens()
    for token in custom_joint_tokens:
        tokens.jointTokens.append(token)
    raw = UsdPhysics.UsdPhysicsLoadStageFromPrimRange(stage, [Sdf.Path.absoluteRootPath], [], tokens)
    return {object_type.name: list(zip(paths, descs)) for object_type, (paths, descs) in raw.items()}


def parse_with_usdphysics(
    stage: Usd.Stage, custom_joint_tokens: Iterable[str] = PHYSX_COUPLING_TYPES
) -> dict:
    """Joints, articulations and rigid bodies as OpenUSD's parser reads ``stage``.

    Returns ``{"joints": {path: joint}, "articulations": [...], "bodies": {path: body}}`` with the
    walker's JSON keys (see the module docstring for where values deliberately stay raw).
    Limits [deg] for angular dofs and [stage length] for linear ones; drive gains as authored
    (per degree for angular dofs).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        by_type = load_descriptors(stage, custom_joint_tokens)
    joints = {}
    for type_name, kind in _JOINT_TYPE_NAMES.items():
        for path, desc in by_type.get(type_name, ()):
            joints[str(path)] = _joint(stage, kind, desc)
    articulations = sorted(
        (_articulation(path, desc, joints) for path, desc in by_type.get("Articulation", ())),
        key=lambda art: art["root"],
    )
    bodies = {str(path): _body(desc) for path, desc in by_type.get("RigidBody", ())}
    return {"joints": joints, "articulations": articulations, "bodies": bodies}


def jsonable(value: Any) -> Any:
    """``value`` with non-finite floats replaced by ``"inf"``, ``"-inf"``, ``"nan"`` (walker JSON)."""
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {key: jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(item) for item in value]
    return value


def _path_or_none(path: Sdf.Path) -> Optional[str]:
    return str(path) if path and not path.isEmpty else None


def _vec(v) -> list[float]:
    return [float(v[0]), float(v[1]), float(v[2])]


def _quat(q) -> list[float]:
    imaginary = q.GetImaginary()
    return [float(q.GetReal()), float(imaginary[0]), float(imaginary[1]), float(imaginary[2])]


def _limit(dof: str, limit, enabled: Optional[bool] = None) -> dict:
    return {
        "dof": dof,
        "enabled": bool(limit.enabled if enabled is None else enabled),
        "low": float(limit.lower),
        "high": float(limit.upper),
    }


def _drive(dof: str, drive) -> dict:
    return {
        "dof": dof,
        "type": "acceleration" if drive.acceleration else "force",
        "stiffness": float(drive.stiffness),
        "damping": float(drive.damping),
        "max_force": float(drive.forceLimit),
        "target_position": float(drive.targetPosition),
        "target_velocity": float(drive.targetVelocity),
    }


def _limits_and_drives(kind: str, desc) -> tuple[list, list]:
    if kind in ("revolute", "prismatic"):
        dof = "angular" if kind == "revolute" else "linear"
        drives = [_drive(dof, desc.drive)] if desc.drive.enabled else []
        return [_limit(dof, desc.limit)], drives
    if kind == "spherical":
        return [_limit("cone", desc.limit)], []
    if kind == "distance":
        entry = _limit("distance", desc.limit, enabled=desc.minEnabled or desc.maxEnabled)
        entry["low_enabled"] = bool(desc.minEnabled)
        entry["high_enabled"] = bool(desc.maxEnabled)
        return [entry], []
    if kind == "d6":
        limits = [_limit(_DOF_NAMES[pair.first.name], pair.second) for pair in desc.jointLimits]
        drives = [_drive(_DOF_NAMES[pair.first.name], pair.second) for pair in desc.jointDrives if pair.second.enabled]
        # The parser reports instances in an internal order; sort so two runs compare equal.
        by_dof = lambda entry: D6_DOF_ORDER.index(entry["dof"])  # noqa: E731
        return sorted(limits, key=by_dof), sorted(drives, key=by_dof)
    return [], []


def _joint(stage: Usd.Stage, kind: str, desc) -> dict:
    prim = stage.GetPrimAtPath(desc.primPath)
    schema_type = str(prim.GetTypeName()) if prim else ""
    if kind == "custom":
        kind = _CUSTOM_SCHEMA_TYPES.get(schema_type, "custom")
    limits, drives = _limits_and_drives(kind if kind in _JOINT_TYPE_NAMES.values() else "custom", desc)
    axis = desc.axis.name if kind in ("revolute", "prismatic", "spherical") else None
    return {
        "type": kind,
        "schema_type": schema_type,
        "enabled": bool(desc.jointEnabled),
        "exclude_from_articulation": bool(desc.excludeFromArticulation),
        "collision_enabled": bool(desc.collisionEnabled),
        "body0": _path_or_none(desc.body0),
        "body1": _path_or_none(desc.body1),
        "body0_target": _path_or_none(desc.rel0),
        "body1_target": _path_or_none(desc.rel1),
        "local_pose0": {"position": _vec(desc.localPose0Position), "orientation": _quat(desc.localPose0Orientation)},
        "local_pose1": {"position": _vec(desc.localPose1Position), "orientation": _quat(desc.localPose1Orientation)},
        "axis": axis,
        "limits": limits,
        "drives": drives,
        "break_force": float(desc.breakForce),
        "break_torque": float(desc.breakTorque),
    }


def _articulation(path: Sdf.Path, desc, joints: dict) -> dict:
    bodies = [_path_or_none(body) for body in desc.articulatedBodies]
    articulated = sorted(str(joint) for joint in desc.articulatedJoints)
    return {
        "root": str(path),
        "root_prims": sorted(str(prim) for prim in desc.rootPrims),
        "fixed_base": None in bodies,
        "links": sorted(body for body in bodies if body is not None),
        "joints": articulated,
        "loop_free_joints": [
            joint for joint in articulated
            if not joints.get(joint, {}).get("exclude_from_articulation", False)
        ],
    }


def _body(desc) -> dict:
    return {
        "enabled": bool(desc.rigidBodyEnabled),
        "kinematic": bool(desc.kinematicBody),
        "position": _vec(desc.position),
        "orientation": _quat(desc.rotation),
        "scale": _vec(desc.scale),
        "velocity": _vec(desc.linearVelocity),
        "angular_velocity": _vec(desc.angularVelocity),
    }
