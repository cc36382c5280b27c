"""One joint prim as a consumer reads it: type, bodies, frames, limits, drives and couplings."""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Mapping, Optional

from ..descriptors import (Diagnostic, GearCoupling, JointDesc, JointStateDesc, MimicCoupling,
                           RackAndPinionCoupling)
from ..profiles import PROFILES
from ..provenance import Resolved
from . import limits as limit_rules
from .bodies import BodyIndex, ResolvedSide
from .columns import ColumnView, RawColumns, extra_physics_columns, value_diagnostics

JOINT_TYPE_BY_SCHEMA = {
    "PhysicsJoint": "d6",
    "PhysicsRevoluteJoint": "revolute",
    "PhysicsPrismaticJoint": "prismatic",
    "PhysicsSphericalJoint": "spherical",
    "PhysicsFixedJoint": "fixed",
    "PhysicsDistanceJoint": "distance",
    "PhysxPhysicsRackAndPinionJoint": "rack_and_pinion",
    "PhysxPhysicsGearJoint": "gear",
}
# Relationship names a coupling is sometimes authored under that no schema declares.
MISSPELT_COUPLING_RELATIONSHIPS = ("physxGearJoint:hinge0", "physxGearJoint:hinge1",
                                   "physxRackAndPinionJoint:hinge", "physxRackAndPinionJoint:prismatic")


@dataclass(frozen=True, slots=True)
class JointRecord:
    """A joint read from the stage, before articulation membership is known."""

    path: str
    type: str
    schema_type: str
    applied: frozenset[str]
    columns: Mapping[str, Resolved]
    side0: ResolvedSide
    side1: ResolvedSide
    enabled: bool
    excluded: bool
    diagnostics: tuple[Diagnostic, ...]


def consumer_joint_type(schema_type: str, consumer: str) -> str:
    """The joint type ``consumer`` sees for a prim whose schema type derives from PhysicsJoint."""
    return PROFILES[consumer].joint_type(JOINT_TYPE_BY_SCHEMA.get(schema_type, "custom"))


def read_joint(path: str, raw: RawColumns, joint_type: str, view: ColumnView, bodies: BodyIndex,
               consumer: str, shared: dict) -> JointRecord:
    """The joint at ``path`` from its authored columns ``raw``, as ``consumer`` resolves it.

    ``shared`` keeps, across the consumers of one scan, the findings that do not depend on them.
    """
    schema_type, applied = raw.signature
    columns = view.columns(raw)
    side0 = bodies.resolve_side(path, 0, columns["physics:body0"].value if columns["physics:body0"].authored
                                else None, columns["physics:localPos0"].value, columns["physics:localRot0"].value,
                                consumer)
    side1 = bodies.resolve_side(path, 1, columns["physics:body1"].value if columns["physics:body1"].authored
                                else None, columns["physics:localPos1"].value, columns["physics:localRot1"].value,
                                consumer)
    common = shared.get(path)
    if common is None:
        common = shared[path] = _authoring_diagnostics(path, raw, columns)
    diagnostics = list(common)
    diagnostics.extend(side0.diagnostics)
    diagnostics.extend(side1.diagnostics)
    if side0.body is None and side1.body is None:
        diagnostics.append(Diagnostic("warning", path, "neither side resolves to a rigid body: no joint is created",
                                      "no-body"))
    elif side0.body == side1.body:
        diagnostics.append(Diagnostic("error", path, f"both sides resolve to the same body {side0.body}",
                                      "same-body"))
    enabled = bool(columns["physics:jointEnabled"].value)
    excluded = bool(columns["physics:excludeFromArticulation"].value)
    return JointRecord(path, joint_type, schema_type, frozenset(applied), columns, side0, side1, enabled, excluded,
                       tuple(diagnostics))


def _authoring_diagnostics(path: str, raw: RawColumns, columns) -> tuple[Diagnostic, ...]:
    """What is wrong with the authored values themselves, whoever reads them."""
    diagnostics: list[Diagnostic] = value_diagnostics(path, raw)
    for name, targets in raw.targets.items():
        if len(targets) > 1:
            diagnostics.append(Diagnostic("warning", path, f"{name} has several targets: consumers read only the "
                                          "first", "several-targets"))
    for name in ("physics:localPos0", "physics:localPos1", "physics:localRot0", "physics:localRot1"):
        resolved = columns[name]
        if not resolved.authored or resolved.value is None:
            continue
        if not all(math.isfinite(c) for c in resolved.value):
            diagnostics.append(Diagnostic("error", path, f"{name} = {resolved.value} is not finite: "
                                          "consumers produce an undefined frame", "non-finite"))
        elif name.startswith("physics:localRot"):
            norm = sum(c * c for c in resolved.value) ** 0.5
            if abs(norm - 1.0) > 1e-3:
                diagnostics.append(Diagnostic("warning", path, f"{name} has norm {norm:.6g}: consumers normalise it",
                                              "non-unit-quaternion"))
    for name in extra_physics_columns(raw.authored, columns):
        if name in MISSPELT_COUPLING_RELATIONSHIPS:
            diagnostics.append(Diagnostic("error", path, f"{name} is no schema relationship: consumers ignore it",
                                          "unknown-coupling-relationship"))
    return tuple(diagnostics)


def finish_joint(record: JointRecord, articulation: Optional[int],
                 consumer: str) -> tuple[JointDesc, tuple[Diagnostic, ...]]:
    """The joint as ``consumer`` reads it, now that articulation membership is known."""
    in_articulation = articulation is not None
    columns = record.columns
    diagnostics = list(record.diagnostics)
    if record.type == "d6":
        limits, limit_notes = limit_rules.d6_limits(record.applied, columns, consumer, in_articulation, record.path)
    else:
        limits, limit_notes = limit_rules.typed_limits(record.type, columns, consumer, in_articulation, record.path)
    drives, drive_notes = limit_rules.drives(record.type, record.applied, columns, consumer, in_articulation,
                                            record.path)
    diagnostics.extend(limit_notes)
    diagnostics.extend(drive_notes)
    for schema in limit_rules.unread_instances(record.type, record.applied, consumer):
        diagnostics.append(Diagnostic("warning", record.path, f"{schema} is applied but a {record.type} joint "
                                      "does not read it", "unread-instance"))
    axis = columns.get("physics:axis")
    axis_token = None
    if axis is not None:
        axis_token = axis.value if axis.value in ("Y", "Z") else "X"
    coupling, coupling_notes = _coupling(record, consumer)
    diagnostics.extend(coupling_notes)
    state_dofs, mimic_dofs = _instances(record.applied)
    mimics = _mimics(record, mimic_dofs) if mimic_dofs else ()
    states = tuple(JointStateDesc(dof, columns[f"state:{dof}:physics:position"], columns[f"state:{dof}:physics:velocity"])
                   for dof in state_dofs)
    joint = JointDesc(
        path=record.path, type=record.type, schema_type=record.schema_type, enabled=record.enabled,
        exclude_from_articulation=record.excluded, articulation=articulation,
        body0=record.side0.body, body1=record.side1.body,
        body0_target=record.side0.target, body1_target=record.side1.target,
        local_pose0=record.side0.pose, local_pose1=record.side1.pose, axis=axis_token,
        limits=limits, drives=drives, coupling=coupling or (mimics[0] if mimics else None), mimics=mimics,
        states=states, columns=columns,
    )
    return joint, tuple(diagnostics)


def _coupling(record: JointRecord, consumer: str):
    columns = record.columns
    notes: list[Diagnostic] = []
    if record.type == "rack_and_pinion":
        hinge = columns["physics:hinge"].value
        prismatic = columns["physics:prismatic"].value
        ratio = float(columns["physics:ratio"].value)
        if hinge is None or prismatic is None:
            notes.append(Diagnostic("error", record.path, "rack-and-pinion without physics:hinge or "
                                    "physics:prismatic: PhysX creates no joint", "coupling-missing-relationship"))
        if ratio == 0.0:
            notes.append(Diagnostic("error", record.path, "physics:ratio is 0: the pinion never moves",
                                    "coupling-zero-ratio"))
        return RackAndPinionCoupling(ratio, hinge, prismatic), tuple(notes)
    if record.type == "gear":
        hinge0 = columns["physics:hinge0"].value
        hinge1 = columns["physics:hinge1"].value
        ratio = float(columns["physics:gearRatio"].value)
        if hinge0 is None or hinge1 is None:
            notes.append(Diagnostic("error", record.path, "gear without physics:hinge0 or physics:hinge1: "
                                    "PhysX creates no gear", "coupling-missing-relationship"))
        if ratio == 0.0:
            notes.append(Diagnostic("error", record.path, "physics:gearRatio is 0: the second hinge never moves",
                                    "coupling-zero-ratio"))
        return GearCoupling(ratio, hinge0, hinge1), tuple(notes)
    if JOINT_TYPE_BY_SCHEMA.get(record.schema_type) in ("rack_and_pinion", "gear"):
        # a consumer that reads the coupling schema as another joint type does not see the coupling
        notes.append(Diagnostic("info", record.path, f"{PROFILES[consumer].title} reads this {record.schema_type} as a "
                                f"free {record.type.upper()} joint: the coupling is not seen", "coupling-unseen"))
    return None, tuple(notes)


@lru_cache(maxsize=None)
def _instances(applied: frozenset) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The PhysicsJointStateAPI and PhysxMimicJointAPI instance names of a set of applied schemas."""
    def named(api: str) -> tuple[str, ...]:
        return tuple(sorted(s.partition(":")[2] for s in applied if s.startswith(api + ":")))

    return named("PhysicsJointStateAPI"), named("PhysxMimicJointAPI")


def _mimics(record: JointRecord, dofs: tuple[str, ...]) -> tuple[MimicCoupling, ...]:
    result = []
    for dof in dofs:
        prefix = f"physxMimicJoint:{dof}:"
        axis = record.columns.get(prefix + "referenceJointAxis")
        result.append(MimicCoupling(
            dof=dof,
            reference=record.columns[prefix + "referenceJoint"].value,
            reference_dof=None if axis is None else axis.value,
            gearing=float(record.columns[prefix + "gearing"].value),
            offset=float(record.columns[prefix + "offset"].value),
        ))
    return tuple(result)
