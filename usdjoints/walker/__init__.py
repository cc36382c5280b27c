"""The stage walker: ``Usd.Stage`` -> :class:`~usdjoints.descriptors.StageDescription`.

One pass over the stage collects rigid bodies, colliders, articulation roots and joints; joints
are then resolved against the bodies, articulations are gathered, and each joint is finished with
the limits and drives the chosen consumer reads.
"""
from __future__ import annotations

from ..contract.consumers import profile
from ..descriptors import Diagnostic, StageDescription
from .articulations import build_articulations
from .columns import ColumnTable
from .joints import JOINT_TYPE_BY_SCHEMA, consumer_joint_type, finish_joint, read_joint
from .stage_io import StageLike, open_stage
from .units import read_units

__all__ = ["walk"]

_JOINT_COLUMN_HINTS = ("physics:body0", "physics:body1", "physics:localPos0", "physics:localPos1",
                       "physics:localRot0", "physics:localRot1")


def walk(stage: StageLike, consumer: str = "ovphysx") -> StageDescription:
    """Read every joint of ``stage`` as ``consumer`` (ovphysx, usdphysics or usdjoints) reads it.

    ``stage`` is an open ``Usd.Stage`` or a path. Nothing is written to the stage.
    """
    profile(consumer)  # validates the name
    stage = open_stage(stage)
    from pxr import Usd, UsdPhysics

    from .bodies import BodyIndex

    joint_schema = UsdPhysics.Joint
    table = ColumnTable(consumer)
    bodies = BodyIndex(stage)
    diagnostics: list[Diagnostic] = []
    joint_prims = []
    roots: list[str] = []
    root_is_joint: dict[str, bool] = {}
    body_order: list[str] = []
    type_cache: dict[str, tuple[bool, bool]] = {}

    for prim in Usd.PrimRange.Stage(stage, Usd.TraverseInstanceProxies(Usd.PrimDefaultPredicate)):
        type_name = prim.GetTypeName()
        kind = type_cache.get(type_name)
        if kind is None:
            schema_type = prim.GetPrimTypeInfo().GetSchemaType()
            kind = (bool(type_name) and prim.IsA(joint_schema), schema_type.isUnknown or not type_name)
            type_cache[type_name] = kind
        is_joint, untyped = kind
        applied = prim.GetAppliedSchemas()
        if is_joint:
            joint_prims.append((prim, type_name))
            if "PhysicsArticulationRootAPI" in applied:
                roots.append(str(prim.GetPath()))
                root_is_joint[str(prim.GetPath())] = True
            continue
        if untyped:
            _check_typo(prim, type_name, diagnostics)
        if not applied:
            continue
        if "PhysicsRigidBodyAPI" in applied:
            bodies.add_body(prim, table.read(prim, type_name, tuple(applied)).columns)
            body_order.append(str(prim.GetPath()))
        if "PhysicsCollisionAPI" in applied:
            bodies.add_collider(prim)
        if "PhysicsArticulationRootAPI" in applied:
            roots.append(str(prim.GetPath()))

    for body in bodies.descs:
        if body.mirrored:
            diagnostics.append(Diagnostic("warning", body.path, "body transform is mirrored (negative determinant): "
                                          "PhysX bodies cannot mirror, joint frames and axes tilt", "mirrored-body"))

    records = []
    for prim, type_name in joint_prims:
        joint_type = consumer_joint_type(type_name, True, consumer)
        records.append(read_joint(prim, type_name, joint_type, table, bodies, consumer))

    result = build_articulations(roots, root_is_joint, records, bodies, consumer, body_order)
    diagnostics.extend(result.diagnostics)
    joints = []
    for record in records:
        joint, notes = finish_joint(record, result.joint_articulation.get(record.path), consumer)
        joints.append(joint)
        diagnostics.extend(notes)

    return StageDescription(
        stage=stage.GetRootLayer().identifier,
        consumer=consumer,
        units=read_units(stage, consumer),
        bodies=tuple(bodies.descs),
        articulations=result.articulations,
        joints=tuple(joints),
        diagnostics=tuple(diagnostics),
    )


def _check_typo(prim, type_name: str, diagnostics: list) -> None:
    """A prim whose type is no joint but which carries joint columns (often a misspelt type)."""
    names = prim.GetAuthoredPropertyNames()
    hints = [n for n in _JOINT_COLUMN_HINTS if n in names]
    if hints:
        what = f"type {type_name!r} is no joint type" if type_name else "it has no type"
        diagnostics.append(Diagnostic(
            "error", str(prim.GetPath()),
            f"carries joint columns ({', '.join(hints)}) but {what}: every consumer ignores it",
            "not-a-joint"))


_ = JOINT_TYPE_BY_SCHEMA
