"""Steps a stage in PhysX (ovphysx, CPU) and prints, as one JSON document, which bodies PhysX
reports in contact at every step and how far each articulation joint moved.

Usage: python tests/oracle/ovphysx_contacts.py STAGE.usda --steps N --dt DT

A test oracle like ovphysx_probe.py: the contacts are PhysX's own contact report (a contact
binding over every rigid body that carries PhysxContactReportAPI, read with
read_raw_contact_data), the joint positions its own joint-state reads. The stage must apply
PhysxContactReportAPI to the bodies to report (tests do it in a layer).

Output: {"bodies": [...], "steps": [{"pairs": {"A|B": {"count": n, "min_separation": s}}}, ...],
"joints": {path: {"initial": [...], "final": [...]}}}; step k is the contact report of the k-th
step (before its solve moved anything, the first one is the start pose's contacts).
Separations are in stage units, negative when overlapping.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import sys

import numpy as np
from ovphysx_probe import _read_joint_columns

CAPACITY = 4096


def _bodies(stage_path: str) -> list[str]:
    import physx_usd_schemas  # noqa: F401  (must register before the first stage is opened)
    from pxr import Usd, UsdPhysics

    stage = Usd.Stage.Open(stage_path)
    return [str(p.GetPath()) for p in stage.Traverse()
            if p.HasAPI(UsdPhysics.RigidBodyAPI) and "PhysxContactReportAPI" in p.GetAppliedSchemas()]


def run(stage_path: str, steps: int, dt: float) -> dict:
    import ovphysx
    import ovstage
    from ovphysx import PhysX
    from ovphysx.samples.python_samples.schema_support import physx_schema_paths

    bodies = _bodies(stage_path)
    if not bodies:
        raise SystemExit(f"{stage_path}: no rigid body carries PhysxContactReportAPI")
    PhysX.set_cpu_mode(True)
    physx = PhysX()
    ovphysx.enable_default_log_output(False)
    ovstage.population.register_usd_schemas([str(path) for path in physx_schema_paths()])
    stage = ovstage.Stage("usdjoints-ovphysx-contacts")
    ovstage.population.open_usd(stage, stage_path, ordinal=1, domains=ovstage.PopulationDomain.ALL)
    stage.advance_write_floor(ordinal=1).wait()
    physx.wait_task(physx.attach_ovstage(stage, read_ordinal=1))
    binding = physx.create_contact_binding(sensor_patterns=bodies, max_contact_data_count=CAPACITY)
    initial = _read_joint_columns(physx, ("jointPosition",))["jointPosition"]
    forces = np.zeros((CAPACITY, 1), dtype=np.float32)
    points = np.zeros((CAPACITY, 3), dtype=np.float32)
    normals = np.zeros((CAPACITY, 3), dtype=np.float32)
    separations = np.zeros((CAPACITY, 1), dtype=np.float32)
    layout = np.zeros((binding.sensor_count, 2), dtype=np.int32)
    ids = np.zeros((CAPACITY, 2), dtype=np.uint64)
    names: dict[int, str] = {}
    history = []
    for _ in range(steps):
        physx.step_sync(dt)
        total = binding.read_raw_contact_data(forces, points, normals, separations, layout, ids)
        if total > CAPACITY:
            raise SystemExit(f"{stage_path}: {total} contacts in one step, more than {CAPACITY}")
        unknown = sorted({int(i) for i in ids[:total].ravel()} - names.keys())
        if unknown:
            names.update(zip(unknown, binding.get_other_actor_paths_from_ids(np.array(unknown, dtype=np.uint64))))
        pairs: dict[str, dict] = {}
        for c in range(total):
            key = "|".join(sorted((names[int(ids[c, 0])], names[int(ids[c, 1])])))
            entry = pairs.setdefault(key, {"count": 0, "min_separation": float("inf")})
            entry["count"] += 1
            entry["min_separation"] = min(entry["min_separation"], float(separations[c, 0]))
        history.append({"pairs": pairs})
    final = _read_joint_columns(physx, ("jointPosition",))["jointPosition"]
    binding.destroy()
    gc.collect()
    physx.wait_task(physx.detach_ovstage())
    physx.wait_all()
    physx.destroy()
    stage.destroy()
    joints = {path: {"initial": [float(v) for v in np.atleast_1d(initial[path])],
                     "final": [float(v) for v in np.atleast_1d(final[path])]} for path in initial}
    return {"bodies": bodies, "steps": history, "joints": joints, "dt": dt}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="PhysX's contact report, step by step, as JSON.")
    parser.add_argument("stage")
    parser.add_argument("--steps", type=int, default=1)
    parser.add_argument("--dt", type=float, default=1.0 / 60.0)
    args = parser.parse_args(argv)
    if args.steps < 1 or not args.dt > 0.0:
        print("--steps must be >= 1 and --dt > 0", file=sys.stderr)
        return 2
    # the runtime (Warp) prints to the process's stdout: only the JSON goes there
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        report = run(args.stage, args.steps, args.dt)
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)
    json.dump(report, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
