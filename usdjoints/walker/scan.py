"""One pass over a stage that every consumer's reading shares.

It finds joints, rigid bodies, colliders and articulation roots, reads what each of those prims
authors (values, blocks, time samples, relationship targets) and the bodies' world transforms.
Nothing here depends on the consumer: :func:`usdjoints.walker.walk_many` dresses one scan for
several consumers without touching USD again.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..descriptors import Diagnostic
from .bodies import BodyIndex
from .columns import ColumnView, RawColumns, Signatures, value_diagnostics
from .stage_io import captured_native_stderr, refuse_crowded_prim

_JOINT_COLUMN_HINTS = ("physics:body0", "physics:body1", "physics:localPos0", "physics:localPos1",
                       "physics:localRot0", "physics:localRot1")


@dataclass
class StageScan:
    stage: object
    signatures: Signatures
    bodies: BodyIndex
    joints: list = field(default_factory=list)  # (path, RawColumns)
    roots: list = field(default_factory=list)
    root_is_joint: dict = field(default_factory=dict)
    body_order: list = field(default_factory=list)
    diagnostics: list = field(default_factory=list)
    scenes: list = field(default_factory=list)  # PhysicsScene paths, stage order
    collision_groups: list = field(default_factory=list)  # PhysicsCollisionGroup paths
    filtering: list = field(default_factory=list)  # prims with PhysicsFilteredPairsAPI
    collider_order: list = field(default_factory=list)  # PhysicsCollisionAPI prims, stage order
    mass_stand_ins: set = field(default_factory=set)  # bodies with customData usdjoints:massStandIn


def scan_stage(stage) -> StageScan:
    signatures = Signatures(stage)
    neutral = ColumnView(signatures, "usdjoints")  # body flags resolve the same for every consumer
    scan = StageScan(stage, signatures, BodyIndex(stage))
    with captured_native_stderr() as held:  # OpenUSD warns as it first builds a prim's definition
        _scan_prims(stage, scan, signatures, neutral)
    if NAMELESS_WARNING in "".join(held):
        with captured_native_stderr():
            _nameless_instances(stage, scan.diagnostics)
    for path, reason in scan.bodies.transform_errors.items():
        scan.diagnostics.append(Diagnostic(
            "error", path, f"an xformOp cannot be evaluated ({reason}): consumers take it as the identity",
            "invalid-xform-op"))
    for record in scan.bodies.records.values():
        if record.mirrored:
            scan.diagnostics.append(Diagnostic(
                "warning", record.path, "body transform is mirrored (negative determinant): PhysX bodies cannot "
                "mirror, joint frames and axes tilt", "mirrored-body"))
    return scan


def _scan_prims(stage, scan: StageScan, signatures: Signatures, neutral: ColumnView) -> None:
    from pxr import Usd, UsdPhysics

    joint_schema = UsdPhysics.Joint
    scene_schema, group_schema = UsdPhysics.Scene, UsdPhysics.CollisionGroup
    type_cache: dict[str, tuple[bool, bool]] = {}
    for prim in Usd.PrimRange.Stage(stage, Usd.TraverseInstanceProxies(Usd.PrimDefaultPredicate)):
        type_name = prim.GetTypeName()
        kind = type_cache.get(type_name)
        if kind is None:
            schema_type = prim.GetPrimTypeInfo().GetSchemaType()
            kind = (bool(type_name) and prim.IsA(joint_schema), schema_type.isUnknown or not type_name,
                    bool(type_name) and prim.IsA(scene_schema), bool(type_name) and prim.IsA(group_schema))
            type_cache[type_name] = kind
        is_joint, untyped, is_scene, is_group = kind
        if is_scene:
            scan.scenes.append(str(prim.GetPath()))
        elif is_group:
            scan.collision_groups.append(str(prim.GetPath()))
        refuse_crowded_prim(prim)
        applied = tuple(prim.GetAppliedSchemas())
        if is_joint:
            path = str(prim.GetPath())
            _nameless_instance(prim, scan.diagnostics)
            scan.joints.append((path, signatures.read(prim, type_name, applied)))
            if "PhysicsArticulationRootAPI" in applied:
                scan.roots.append(path)
                scan.root_is_joint[path] = True
            continue
        if untyped:
            _check_typo(prim, type_name, scan.diagnostics)
        if not applied:
            continue
        if "PhysicsRigidBodyAPI" in applied:
            raw: RawColumns = signatures.read(prim, type_name, applied)
            body_path = str(prim.GetPath())
            scan.diagnostics.extend(value_diagnostics(body_path, raw))
            scan.bodies.add_body(prim, raw, neutral.columns(raw))
            scan.body_order.append(body_path)
            if prim.GetCustomDataByKey("usdjoints:massStandIn"):
                scan.mass_stand_ins.add(body_path)
        if "PhysicsCollisionAPI" in applied:
            scan.bodies.add_collider(prim)
            scan.collider_order.append(str(prim.GetPath()))
        if "PhysicsFilteredPairsAPI" in applied:
            scan.filtering.append(str(prim.GetPath()))
        if "PhysicsArticulationRootAPI" in applied:
            scan.roots.append(str(prim.GetPath()))


# what OpenUSD prints (and then drops the schema) for a multiple-apply API schema listed without
# an instance name, e.g. apiSchemas = ["PhysicsDriveAPI"]
NAMELESS_WARNING = "without an instance name"
# an instance the message suggests, per schema (a revolute joint's drive, a D6 axis's limit)
EXAMPLE_INSTANCE = {"PhysicsDriveAPI": "angular", "PhysicsLimitAPI": "rotX", "PhysxLimitAPI": "rotX",
                    "PhysxJointAxisAPI": "angular", "PhysicsJointStateAPI": "angular",
                    "PhysxDrivePerformanceEnvelopeAPI": "angular", "PhysxMimicJointAPI": "rotZ"}


def _nameless_instances(stage, diagnostics: list) -> None:
    """Every prim but the joints (checked as they are scanned) through _nameless_instance: run
    when OpenUSD warned of one, which it does once per process for each prim definition."""
    from pxr import Usd, UsdPhysics

    for prim in Usd.PrimRange.Stage(stage, Usd.TraverseInstanceProxies(Usd.PrimDefaultPredicate)):
        if not prim.IsA(UsdPhysics.Joint):
            _nameless_instance(prim, diagnostics)


def _nameless_instance(prim, diagnostics: list) -> None:
    """A diagnostic for each multiple-apply API schema the prim lists without an instance name:
    OpenUSD leaves it out of the prim's schemas, so no consumer reads its values."""
    from pxr import Usd

    listed = prim.GetMetadata("apiSchemas")
    if not listed:
        return
    for name in dict.fromkeys(listed.ApplyOperations([])):
        if ":" not in name and Usd.SchemaRegistry.IsMultipleApplyAPISchema(name):
            diagnostics.append(Diagnostic(
                "warning", str(prim.GetPath()), f"{name} is applied without an instance name (such as "
                f"{name}:{EXAMPLE_INSTANCE.get(name, 'name')}): OpenUSD drops it, so no consumer reads its "
                "values", "nameless-instance"))


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
