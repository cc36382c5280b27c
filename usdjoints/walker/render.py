"""A StageDescription as the JSON document of ARCHITECTURE.md, or as readable text."""
from __future__ import annotations

from typing import Any

from ..descriptors import JointDesc, Pose, StageDescription
from ..provenance import Resolved
from .dofs import dof_json

SCHEMA = "usdjoints.walk/1"


def walk_json(description: StageDescription) -> dict[str, Any]:
    """The ``usdjoints.walk/1`` document (non-finite floats are made strings by ``jsonio``)."""
    return {
        "schema": SCHEMA,
        "stage": description.stage,
        "consumer": description.consumer,
        "units": {
            "metersPerUnit": description.units.meters_per_unit.value,
            "kilogramsPerUnit": description.units.kilograms_per_unit.value,
            "upAxis": description.units.up_axis.value,
            "columns": {
                "metersPerUnit": resolved_json(description.units.meters_per_unit),
                "kilogramsPerUnit": resolved_json(description.units.kilograms_per_unit),
                "upAxis": resolved_json(description.units.up_axis),
            },
        },
        "bodies": [
            {"path": b.path, "dynamic": b.dynamic, "kinematic": b.kinematic, "enabled": b.enabled,
             "world_pose": pose_json(b.world_pose), "world_scale": list(b.world_scale), "mirrored": b.mirrored,
             **({"mass": mass_json(description.masses[b.path])} if b.path in description.masses else {})}
            for b in description.bodies
        ],
        **scene_and_colliders_json(description),
        "articulations": [
            {"root": a.root, "fixed_base": a.fixed_base, "base": a.base, "links": list(a.links),
             "joints": list(a.joints), "loop_joints": list(a.loop_joints), "anchor_joints": list(a.anchor_joints),
             "root_prims": list(a.root_prims)}
            for a in description.articulations
        ],
        "joints": [joint_json(j) for j in description.joints],
        "synthetic_joints": [
            {"type": s.type, "body0": s.body0, "body1": s.body1, "reason": s.reason,
             "dofs": [dof_json(d) for d in s.dofs]}
            for s in description.synthetic_joints
        ],
        "diagnostics": [
            {"severity": d.severity, "prim": d.prim, "message": d.message, "code": d.code,
             **({"attribute": d.attribute} if d.attribute else {}), **({"related": list(d.related)} if d.related else {})}
            for d in description.diagnostics
        ],
    }


def joint_json(joint: JointDesc) -> dict[str, Any]:
    coupling = None
    if joint.coupling is not None:
        coupling = {"kind": joint.coupling.kind}
        coupling.update({k: getattr(joint.coupling, k) for k in joint.coupling.__slots__ if k != "kind"})
    return {
        "path": joint.path,
        "type": joint.type,
        "schema_type": joint.schema_type,
        "enabled": joint.enabled,
        "exclude_from_articulation": joint.exclude_from_articulation,
        "articulation": joint.articulation,
        "body0": joint.body0,
        "body1": joint.body1,
        "body0_target": joint.body0_target,
        "body1_target": joint.body1_target,
        "local_pose0": pose_json(joint.local_pose0),
        "local_pose1": pose_json(joint.local_pose1),
        "axis": joint.axis,
        "limits": [{"dof": l.dof, "enabled": l.enabled, "low": l.low, "high": l.high} for l in joint.limits],
        "drives": [
            {"dof": d.dof, "type": d.type, "stiffness": d.stiffness, "damping": d.damping,
             "max_force": d.max_force, "target_position": d.target_position, "target_velocity": d.target_velocity}
            for d in joint.drives
        ],
        "coupling": coupling,
        "mimics": [{"dof": m.dof, "reference": m.reference, "reference_dof": m.reference_dof,
                    "gearing": m.gearing, "offset": m.offset} for m in joint.mimics],
        "states": [{"dof": s.dof, "position": s.position.value, "velocity": s.velocity.value} for s in joint.states],
        "columns": {name: resolved_json(value) for name, value in joint.columns.items()},
        "applied_schemas": list(joint.applied_schemas),
        "dofs": [dof_json(d) for d in joint.dofs],
        "dropped": joint.dropped,
        "merged_into": joint.merged_into,
    }


def mass_json(mass) -> dict[str, Any]:
    return {"mass": mass.mass, "center_of_mass": list(mass.center_of_mass),
            "inertia": [list(row) for row in mass.inertia], "source": mass.source,
            "inertia_source": mass.inertia_source, "colliders": list(mass.colliders)}


def scene_and_colliders_json(description: StageDescription) -> dict[str, Any]:
    """The scene, the colliders and the collision filters (absent from descriptions built by hand)."""
    out: dict[str, Any] = {}
    scene = description.scene
    if scene is not None:
        out["scene"] = {"path": scene.path, "gravity": list(scene.gravity), "scenes": list(scene.scenes),
                        "columns": {"physics:gravityDirection": resolved_json(scene.direction),
                                    "physics:gravityMagnitude": resolved_json(scene.magnitude)}}
    out["colliders"] = [
        {"path": c.path, "shape": c.shape, "body": c.body, "enabled": c.enabled,
         "world_pose": pose_json(c.world_pose), "world_scale": list(c.world_scale),
         "body_pose": pose_json(c.body_pose), "body_scale": list(c.body_scale),
         "radius": c.radius, "height": c.height, "size": c.size, "axis": c.axis,
         "extent": None if c.extent is None else [list(c.extent[0]), list(c.extent[1])],
         "material": {"path": c.material.path, "dynamic_friction": c.material.dynamic_friction,
                      "static_friction": c.material.static_friction, "restitution": c.material.restitution,
                      "density": c.material.density},
         "group": c.group}
        for c in description.colliders
    ]
    filters = description.collision_filters
    out["collision_filters"] = {
        "filtered_pairs": [list(pair) for pair in filters.filtered_pairs],
        "groups": {group: list(named) for group, named in filters.groups.items()},
        "inverted": filters.inverted,
        "self_collisions": dict(filters.self_collisions),
    }
    return out


def pose_json(pose: Pose) -> dict[str, list[float]]:
    return {"position": list(pose.position), "orientation": list(pose.orientation)}


def resolved_json(resolved: Resolved) -> dict[str, Any]:
    out = {
        "value": resolved.value,
        "source": resolved.source.value,
        "fallback": resolved.fallback,
        "parser_default": resolved.parser_default,
        "producer": str(resolved.producer) if hasattr(resolved.producer, "value") else resolved.producer,
    }
    if resolved.time_sampled:
        out["time_sampled"] = True
    return out


def render_text(description: StageDescription) -> str:
    """A readable summary: units, articulations, then each joint with its non-fallback columns."""
    units = description.units
    lines = [
        f"{description.stage}  (as {description.consumer} reads it)",
        f"units: metersPerUnit={units.meters_per_unit.value} [{units.meters_per_unit.source}]  "
        f"kilogramsPerUnit={units.kilograms_per_unit.value} [{units.kilograms_per_unit.source}]  "
        f"upAxis={units.up_axis.value} [{units.up_axis.source}]",
        f"{len(description.bodies)} bodies, {len(description.joints)} joints, "
        f"{len(description.articulations)} articulations",
    ]
    for index, art in enumerate(description.articulations):
        base = "fixed base" if art.fixed_base else "floating base"
        lines.append(f"articulation {index}: {art.root} ({base}, base link {art.base}, {len(art.links)} links)")
        if art.loop_joints:
            lines.append(f"  loop closed by: {', '.join(art.loop_joints)}")
    for joint in description.joints:
        where = "standalone" if joint.articulation is None else f"articulation {joint.articulation}"
        state = "" if joint.enabled else ", disabled"
        lines.append("")
        lines.append(f"{joint.path}  {joint.type}{' axis ' + joint.axis if joint.axis else ''}  ({where}{state})")
        lines.append(f"  body0 {joint.body0 or 'world'}   body1 {joint.body1 or 'world'}")
        if joint.dropped:
            lines.append(f"  not built by {description.consumer}")
        if joint.merged_into:
            lines.append(f"  merged into {joint.merged_into}")
        for dof in joint.dofs:
            lines.append("  " + _dof_text(dof, joint.path))
        for limit in joint.limits:
            flag = "on " if limit.enabled else "off"
            lines.append(f"  limit {limit.dof:<9} {flag} [{_num(limit.low)}, {_num(limit.high)}]")
        for drive in joint.drives:
            lines.append(f"  drive {drive.dof:<9} {drive.type} stiffness={_num(drive.stiffness)} "
                         f"damping={_num(drive.damping)} maxForce={_num(drive.max_force)} "
                         f"target={_num(drive.target_position)} velocity={_num(drive.target_velocity)}")
        if joint.coupling is not None:
            fields = ", ".join(f"{k}={getattr(joint.coupling, k)}" for k in joint.coupling.__slots__ if k != "kind")
            lines.append(f"  coupling {joint.coupling.kind}: {fields}")
        for name, value in joint.columns.items():
            if value.source.value in ("authored", "blocked", "invalid", "parser_default"):
                default_note = ""
                if value.parser_default is not None and value.parser_default != value.value:
                    default_note = f"  (absent: {value.parser_default})"
                lines.append(f"  {name} = {value.value} [{value.source}]{default_note}")
    for synthetic in description.synthetic_joints:
        lines.append("")
        lines.append(f"(added) {synthetic.type} joint  world -> {synthetic.body1}: {synthetic.reason}")
    if description.diagnostics:
        lines.append("")
        lines.append("diagnostics:")
        for diagnostic in description.diagnostics:
            lines.append(f"  {diagnostic.severity:<7} {diagnostic.prim or '-'}: {diagnostic.message}")
    return "\n".join(lines)


def _dof_text(dof, joint_path: str) -> str:
    origin = "" if dof.source == joint_path else f" (from {dof.source})"
    return (f"dof {dof.dof:<9} [{_num(dof.limit_lower.value)}, {_num(dof.limit_upper.value)}] "
            f"ke={_num(dof.target_ke.value)} kd={_num(dof.target_kd.value)} effort={_num(dof.effort_limit.value)} "
            f"velocity={_num(dof.velocity_limit.value)} armature={_num(dof.armature.value)} "
            f"friction={_num(dof.friction.value)}{origin}")


def _num(value: float) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)
