"""Loads a stage into PhysX (ovphysx, CPU) and prints what the runtime holds, as one JSON document.

Usage: python tests/oracle/ovphysx_probe.py STAGE.usda [--steps N] [--dt DT]

This is a test oracle, so it deliberately shares no code with usdjoints: every number it prints
comes from ovphysx's own reads, and OpenUSD (pxr) is used only to learn the joint types and the
relationships PhysX has no read for (which hinge a coupling names, a standalone joint's frame).

Units: ovphysx reports angular joint quantities in USD's units (degrees, gains per degree). The
probe converts them to PhysX's own units: angles [rad], rates [rad/s], angular stiffness
[torque/rad], angular damping [torque·s/rad]. Linear quantities and forces/torques are unchanged
(stage units). FLT_MAX, PhysX's "unbounded", becomes the string "inf" / "-inf", and so does any
other non-finite number: the output never contains bare Infinity or NaN. Quaternions are
[w, x, y, z]. The JSON layout is described in tests/oracle/README.md.

Everything the PhysX runtime prints is captured into "messages"; stdout carries only the JSON.
"""
from __future__ import annotations

import argparse
import gc
import json
import logging
import math
import os
import sys
from pathlib import Path

import numpy as np
from probe_motion import COUPLING_TYPES, coupling, standalone_motion

SCHEMA = "usdjoints.ovphysx_probe/1"
FLT_MAX = 3.4028234663852886e38
DEG_PER_RAD = 180.0 / math.pi

JOINT_PROPERTIES = (
    "jointLimit", "jointStiffness", "jointDamping", "jointMaxForce", "jointMaxVelocity",
    "jointDriveType", "jointPositionTarget", "jointVelocityTarget",
)
JOINT_STATE = ("jointPosition", "jointVelocity")
BODY_STATE = ("position", "orientation", "linearVelocity", "angularVelocity")
ARTICULATION_COLUMNS = ("dofCount", "linkCount", "jointCount", "isFixedBase", "dofJointPath")
DRIVE_TYPES = {0: "none", 1: "force", 2: "acceleration"}

# PxArticulationAxis order, which is the row order of every articulation-joint column.
D6_AXES = ("rotX", "rotY", "rotZ", "transX", "transY", "transZ")


# ----------------------------------------------------------------------------------------------
# JSON hygiene and unit conversion


def finite_or_token(value: float) -> float | str:
    """A float as JSON allows it: FLT_MAX (PhysX's "no bound") and non-finite become strings."""
    value = float(value)
    if math.isnan(value):
        return "nan"
    if value >= FLT_MAX or value == math.inf:
        return "inf"
    if value <= -FLT_MAX or value == -math.inf:
        return "-inf"
    return value


def tokens_for_non_finite(value):
    """``value`` with every non-finite float in it (a body state PhysX lost to NaN) as its token."""
    if isinstance(value, float):
        return finite_or_token(value)
    if isinstance(value, dict):
        return {key: tokens_for_non_finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [tokens_for_non_finite(item) for item in value]
    return value


def to_physx_units(value: float, kind: str | None, power: int) -> float | str:
    """Converts a value read in USD units to PhysX units.

    ``power`` is the exponent of degrees in the quantity: +1 for an angle or a rate [deg, deg/s],
    -1 for a gain per degree [torque/deg, torque·s/deg], 0 for a torque. Linear DOFs and
    unknown kinds are returned unchanged; an unbounded value stays unbounded.
    """
    token = finite_or_token(value)
    if isinstance(token, str) or kind != "angular" or power == 0:
        return token
    return token * (DEG_PER_RAD ** -power)


# ----------------------------------------------------------------------------------------------
# What OpenUSD says about the joints (types and relationships only)


class UnreadableStage(Exception):
    """The stage cannot be opened: a usage error (exit code 2), not a PhysX finding."""


def read_usd_joints(stage_path: str) -> dict[str, dict]:
    """Joint type, bodies, axis, frames and coupling targets of every joint prim, by path."""
    import physx_usd_schemas  # noqa: F401  (must register before the first stage is opened)
    from pxr import Usd, UsdGeom, UsdPhysics

    try:
        stage = Usd.Stage.Open(stage_path)
    except Exception as error:  # noqa: BLE001  (pxr raises Tf.ErrorException for a bad layer)
        detail = " ".join(str(error).split())[:300]
        raise UnreadableStage(f"{stage_path}: OpenUSD could not open the stage: {detail}") from error
    if stage is None:
        raise UnreadableStage(f"{stage_path}: OpenUSD could not open the stage")
    xform_cache = UsdGeom.XformCache()
    joints: dict[str, dict] = {}
    for prim in stage.Traverse():
        if not prim.IsA(UsdPhysics.Joint):
            continue
        joint = UsdPhysics.Joint(prim)
        info = {
            "type": str(prim.GetTypeName()),
            "body0": _first_target(joint.GetBody0Rel()),
            "body1": _first_target(joint.GetBody1Rel()),
            "axis": _attr(prim, "physics:axis"),
            "local_rot0": _quat_wxyz(_attr(prim, "physics:localRot0")),
            "body0_world_rot": None,
            "locked_d6_axes": _locked_d6_axes(prim),
            "relationships": {},
        }
        if info["body0"] is not None:
            body0 = stage.GetPrimAtPath(info["body0"])
            if body0.IsValid():
                rotation = xform_cache.GetLocalToWorldTransform(body0).ExtractRotationQuat()
                info["body0_world_rot"] = [rotation.GetReal(), *rotation.GetImaginary()]
        for name in ("physics:hinge", "physics:prismatic", "physics:hinge0", "physics:hinge1"):
            rel = prim.GetRelationship(name)
            if rel:
                info["relationships"][name.split(":")[1]] = _first_target(rel)
        for name in ("physics:ratio", "physics:gearRatio"):
            attr = prim.GetAttribute(name)
            if attr and attr.HasAuthoredValue():
                info.setdefault("authored", {})[name.split(":")[1]] = float(attr.Get())
        joints[str(prim.GetPath())] = info
    return joints


def _first_target(rel) -> str | None:
    targets = rel.GetTargets() if rel else []
    return str(targets[0]) if targets else None


def _attr(prim, name: str):
    attr = prim.GetAttribute(name)
    return attr.Get() if attr and attr.HasValue() else None


def _quat_wxyz(quat) -> list[float]:
    if quat is None:
        return [1.0, 0.0, 0.0, 0.0]
    return [float(quat.GetReal()), *map(float, quat.GetImaginary())]


def _locked_d6_axes(prim) -> list[str]:
    """Axes a generic joint locks with a limit whose low exceeds its high (UsdPhysics's rule)."""
    locked = []
    for axis in D6_AXES:
        low = _attr(prim, f"limit:{axis}:physics:low")
        high = _attr(prim, f"limit:{axis}:physics:high")
        if low is not None and high is not None and low > high:
            locked.append(axis)
    return locked


def dof_kinds(joint_type: str, locked_d6_axes: list[str], dof_count: int) -> list[str | None]:
    """Angular or linear, per DOF row, in PhysX's axis order; None where it cannot be told."""
    if joint_type == "PhysicsRevoluteJoint":
        kinds = ["angular"]
    elif joint_type == "PhysicsPrismaticJoint":
        kinds = ["linear"]
    elif joint_type == "PhysicsSphericalJoint":
        kinds = ["angular"] * 3
    elif joint_type == "PhysicsJoint":
        free = [axis for axis in D6_AXES if axis not in locked_d6_axes]
        kinds = ["angular" if axis.startswith("rot") else "linear" for axis in free]
    else:
        kinds = []
    return kinds if len(kinds) == dof_count else [None] * dof_count


# ----------------------------------------------------------------------------------------------
# What PhysX holds


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.records: list[dict] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append({
            "severity": record.levelname.lower(),
            "channel": getattr(record, "ovphysx_channel", "") or "",
            "text": record.getMessage(),
        })


def run_physx(stage_path: str, steps: int, dt: float) -> dict:
    """Loads the stage on the CPU, reads joints/articulations/bodies, steps, reads again."""
    import ovphysx
    import ovstage
    from ovphysx import PhysX
    from ovphysx.samples.python_samples.schema_support import physx_schema_paths

    collector = _Collect()
    logger = logging.getLogger("ovphysx_probe.physx")
    logger.addHandler(collector)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False

    PhysX.set_cpu_mode(True)
    physx = PhysX()
    ovphysx.enable_python_logging(logger.name, min_severity=ovphysx.LogLevel.WARNING)
    ovphysx.enable_default_log_output(False)
    ovstage.population.register_usd_schemas([str(path) for path in physx_schema_paths()])
    stage = ovstage.Stage("usdjoints-ovphysx-probe")
    failure = None
    try:
        result = _load_read_step(physx, stage, stage_path, steps, dt)
    except Exception as error:  # noqa: BLE001  (reported below, after PhysX is torn down)
        failure = f"{type(error).__name__}: {error}"
    # A traceback keeps read arrays alive and PhysX refuses to be destroyed while they are.
    gc.collect()
    physx.wait_all()
    physx.destroy()
    stage.destroy()
    if failure is not None:
        raise SystemExit(f"{stage_path}: ovphysx failed: {failure}")
    result["messages"] = collector.records
    result["ovphysx_version"] = ovphysx.__version__
    return result


def _load_read_step(physx, stage, stage_path: str, steps: int, dt: float) -> dict:
    import ovstage

    ovstage.population.open_usd(stage, stage_path, ordinal=1, domains=ovstage.PopulationDomain.ALL)
    stage.advance_write_floor(ordinal=1).wait()
    physx.wait_task(physx.attach_ovstage(stage, read_ordinal=1))
    result = {
        "articulations": _read_articulations(physx),
        "joint_properties": _read_joint_columns(physx, JOINT_PROPERTIES),
        "joint_state_initial": _read_joint_columns(physx, JOINT_STATE),
        "bodies_initial": _read_bodies(physx),
    }
    # Poses after every step, so a standalone joint's turn is unwrapped past half a revolution.
    result["body_history"] = [result["bodies_initial"]]
    for _ in range(steps):
        physx.step_sync(dt)
        result["body_history"].append(_read_bodies(physx))
    result["joint_state_final"] = _read_joint_columns(physx, JOINT_STATE)
    result["bodies_final"] = result["body_history"][-1]
    physx.wait_task(physx.detach_ovstage())
    return result


def _read(physx, object_type, attributes):
    """{attribute: {prim path: numpy copy}} for one object type, all prims."""
    from ovphysx.types import ObjectScope

    columns: dict[str, dict] = {name: {} for name in attributes}
    with physx.read_sync(object_type, list(attributes), scope=ObjectScope.ALL) as read:
        names = read.dictionary
        for group in read.groups:
            if group.is_delete or not group.tensors:
                continue
            attribute = names.token_to_string(group.attribute)
            paths = names.get_path_strings(group.prim_list)
            if group.is_array:  # one tensor per prim
                rows = [tensor.numpy().copy() for tensor in group.tensors]
            else:  # one stacked tensor, one row per prim
                rows = list(group.tensors[0].numpy().copy())
            if attribute == "dofJointPath":
                rows = [[names.path_to_string(int(h)) if int(h) else None for h in np.atleast_1d(row)]
                        for row in rows]
            columns.setdefault(attribute, {}).update(zip(paths, rows))
        read.groups.clear()
    return columns


def _read_joint_columns(physx, attributes):
    from ovphysx.types import SimObjectType

    return _read(physx, SimObjectType.ARTICULATION_JOINT, attributes)


def _read_articulations(physx) -> list[dict]:
    from ovphysx.types import SimObjectType

    columns = _read(physx, SimObjectType.ARTICULATION, ARTICULATION_COLUMNS)
    articulations = []
    for root, dof_count in columns["dofCount"].items():
        dof_count = int(dof_count)
        articulations.append({
            "root": root,
            "fixed_base": bool(int(columns["isFixedBase"][root])),
            "dof_count": dof_count,
            "link_count": int(columns["linkCount"][root]),
            "joint_count": int(columns["jointCount"][root]),
            "dof_joints": list(columns.get("dofJointPath", {}).get(root, []))[:dof_count],
        })
    return articulations


def _read_bodies(physx) -> dict[str, dict]:
    from ovphysx.types import SimObjectType

    bodies: dict[str, dict] = {}
    for object_type, is_link in ((SimObjectType.RIGID_BODY, False), (SimObjectType.ARTICULATION_LINK, True)):
        columns = _read(physx, object_type, BODY_STATE)
        for path, position in columns["position"].items():
            x, y, z, w = (float(v) for v in columns["orientation"][path])  # PhysX lanes are xyzw
            bodies[path] = {
                "articulation_link": is_link,
                "position": [float(v) for v in position],
                "orientation": [w, x, y, z],
                "linear_velocity": [float(v) for v in columns["linearVelocity"][path]],
                "angular_velocity": [float(v) for v in columns["angularVelocity"][path]],
            }
    return dict(sorted(bodies.items()))


# ----------------------------------------------------------------------------------------------
# Assembling the report


def articulated_joint(path: str, usd: dict | None, physx: dict) -> dict:
    """One articulation joint: its DOFs in PhysX units, plus the raw rows ovphysx returned."""
    props, initial, final = physx["joint_properties"], physx["joint_state_initial"], physx["joint_state_final"]
    limits = props["jointLimit"][path].reshape(-1, 2)
    joint_type = usd["type"] if usd else None
    kinds = dof_kinds(joint_type or "", usd["locked_d6_axes"] if usd else [], len(limits))
    dofs = []
    for index, kind in enumerate(kinds):
        def column(columns, name, power):
            return to_physx_units(columns[name][path].reshape(-1)[index], kind, power)

        dofs.append({
            "index": index,
            "kind": kind,
            "lower": to_physx_units(limits[index][0], kind, 1),
            "upper": to_physx_units(limits[index][1], kind, 1),
            "stiffness": column(props, "jointStiffness", -1),
            "damping": column(props, "jointDamping", -1),
            "max_force": column(props, "jointMaxForce", 0),
            "max_velocity": column(props, "jointMaxVelocity", 1),
            "drive_type": DRIVE_TYPES.get(int(props["jointDriveType"][path].reshape(-1)[index]), "unknown"),
            "target_position": column(props, "jointPositionTarget", 1),
            "target_velocity": column(props, "jointVelocityTarget", 1),
            "position_initial": column(initial, "jointPosition", 1),
            "velocity_initial": column(initial, "jointVelocity", 1),
            "position": column(final, "jointPosition", 1),
            "velocity": column(final, "jointVelocity", 1),
        })
    raw = {name: [[finite_or_token(v) for v in row] for row in props[name][path].reshape(len(limits), -1)]
           for name in JOINT_PROPERTIES}
    return {"type": joint_type, "articulated": True, **_bodies_of(usd), "dofs": dofs, "as_read": raw}


def standalone_joint(usd: dict, history: list[dict], time: float) -> dict:
    """A joint PhysX keeps outside any articulation: only its bodies' motion shows what it does."""
    motion = standalone_motion(usd, history, time)
    motion.update({name: finite_or_token(motion[name]) for name in ("rate", "displacement", "mean_rate")
                   if motion[name] is not None})
    # ovphysx reads no rows for a zero-DOF joint, so a fixed joint may still sit in an articulation.
    articulated = None if usd["type"] == "PhysicsFixedJoint" else False
    return {"type": usd["type"], "articulated": articulated, **_bodies_of(usd), **motion}


def _bodies_of(usd: dict | None) -> dict:
    if usd is None:
        return {"body0": None, "body1": None, "axis": None}
    return {"body0": usd["body0"], "body1": usd["body1"], "axis": usd["axis"]}


def build_report(stage_path: str, steps: int, dt: float, usd: dict, physx: dict) -> dict:
    articulated_paths = set(physx["joint_properties"]["jointLimit"])
    joints: dict[str, dict] = {}
    for path in sorted(articulated_paths | set(usd)):
        info = usd.get(path)
        if path in articulated_paths:
            joints[path] = articulated_joint(path, info, physx)
        elif info["type"] not in COUPLING_TYPES:
            joints[path] = standalone_joint(info, physx["body_history"], steps * dt)
    couplings = {path: coupling(info, joints, steps * dt) for path, info in sorted(usd.items())
                 if info["type"] in COUPLING_TYPES}
    bodies = {path: {"initial": physx["bodies_initial"].get(path), "final": state}
              for path, state in physx["bodies_final"].items()}
    return {
        "schema": SCHEMA,
        "stage": stage_path,
        "ovphysx_version": physx["ovphysx_version"],
        "units": {"angle": "rad", "angular_rate": "rad/s", "angular_stiffness": "torque/rad",
                  "angular_damping": "torque*s/rad", "length": "stage unit", "quaternion": "wxyz"},
        "steps": steps,
        "dt": dt,
        "time": steps * dt,
        "articulations": physx["articulations"],
        "joints": joints,
        "couplings": couplings,
        "bodies": bodies,
        "messages": physx["messages"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Print what PhysX (ovphysx, CPU) reads from a stage, as JSON.")
    parser.add_argument("stage", help="a .usda/.usdc/.usd stage")
    parser.add_argument("--steps", type=int, default=0, help="simulation steps before the final read [count]")
    parser.add_argument("--dt", type=float, default=1.0 / 60.0, help="step size [s]")
    args = parser.parse_args(argv)
    stage_path = str(Path(args.stage).resolve())
    if not Path(stage_path).is_file():
        print(f"{args.stage}: no such stage file", file=sys.stderr)
        return 2
    if args.steps < 0 or not args.dt > 0.0:
        print("--steps must be >= 0 and --dt > 0", file=sys.stderr)
        return 2

    # PhysX, Warp and Carbonite write banners to stdout; keep the real stdout for the JSON.
    json_out = os.fdopen(os.dup(1), "w")
    sys.stdout.flush()
    os.dup2(2, 1)
    try:
        usd = read_usd_joints(stage_path)
    except UnreadableStage as error:
        print(error, file=sys.stderr)
        return 2
    physx = run_physx(stage_path, args.steps, args.dt)
    report = build_report(stage_path, args.steps, args.dt, usd, physx)
    json.dump(tokens_for_non_finite(report), json_out, indent=1, allow_nan=False)
    json_out.write("\n")
    json_out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
