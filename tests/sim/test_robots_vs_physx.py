"""Acceptance (issue 16): driven real robots holding a position target under gravity end the same
2 s run at the same joint positions as PhysX, to 1e-2 rad (1e-2 m).

Oracle: ovphysx 0.7 on the CPU (extra `oracle`), run on the very same stage file by
tests/oracle/ovphysx_runner.py, 2,000 steps of 1 ms (usdjoints' defaults: euler, dt = 1e-3).

The robots are converted by usdjoints from their URDF (sim_robots.py). The converter writes
velocity-damping drives (stiffness 0), so a layer over each stage gives every driven joint a
position drive: stiffness K = 2,000 N m/rad (N/m), damping K / 20, unbounded force, a target
0.2 rad (m for prismatic: 0.01) from a start that lies inside the limits. The layer also switches
off what PhysX adds and usdjoints does not model: the 0.05 /s default body damping, sleeping
(a fixed-base articulation at rest falls asleep short of its steady state) and, to compare the
drives alone, self-collision (enabledSelfCollisions = false, read by both engines).
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

import sim_robots

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "oracle"))
from ovphysx_runner import ovphysx_available, run_ovphysx_probe  # noqa: E402

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

STIFFNESS = 2000.0   # [N m/rad | N/m]
DAMPING = STIFFNESS / 20.0
STEP = {"angular": 0.2, "linear": 0.01}  # target - start [rad | m]
BOUND = 1e-2         # [rad | m], the bound
ROBOTS = ["ur5", "ur5e", "panda", "iiwa14", "kinova_gen3"]  # yumi agrees too (1.1e-4 rad), left out for time:
# `python tests/sim/test_robots_vs_physx.py yumi`


def _hold_layer(stage_path: Path, out: Path) -> dict[str, tuple[str, float, float]]:
    """Write the overriding layer; return {joint: (kind, start, target)} in SI units."""
    from pxr import Usd, UsdGeom, UsdPhysics

    stage = Usd.Stage.Open(str(stage_path))
    mpu, kpu = UsdGeom.GetStageMetersPerUnit(stage), UsdPhysics.GetStageKilogramsPerUnit(stage)
    # a root layer's own metadata sets the stage units (a sublayer's are not read): copy them
    lines = ["#usda 1.0", "(", f"    metersPerUnit = {mpu!r}", f"    kilogramsPerUnit = {kpu!r}",
             f'    upAxis = "{UsdGeom.GetStageUpAxis(stage)}"', f"    subLayers = [@{stage_path.as_posix()}@]", ")"]
    overs: dict[str, list[str]] = {}
    apis: dict[str, list[str]] = {}
    plan = {}
    for prim in stage.Traverse():
        path = str(prim.GetPath())
        if prim.HasAPI(UsdPhysics.ArticulationRootAPI):
            apis.setdefault(path, []).append("PhysxArticulationAPI")
            overs.setdefault(path, []).extend([
                "bool physxArticulation:enabledSelfCollisions = 0",
                "float physxArticulation:sleepThreshold = 0",
                "float physxArticulation:stabilizationThreshold = 0"])
        if prim.HasAPI(UsdPhysics.RigidBodyAPI):
            apis.setdefault(path, []).append("PhysxRigidBodyAPI")
            overs.setdefault(path, []).extend(["float physxRigidBody:angularDamping = 0",
                                               "float physxRigidBody:linearDamping = 0"])
        for kind in ("angular", "linear"):
            if not prim.HasAPI(UsdPhysics.DriveAPI, kind):
                continue
            joint = UsdPhysics.RevoluteJoint(prim) if kind == "angular" else UsdPhysics.PrismaticJoint(prim)
            lower, upper = joint.GetLowerLimitAttr().Get(), joint.GetUpperLimitAttr().Get()
            lower = -math.inf if lower is None or not math.isfinite(lower) else lower
            upper = math.inf if upper is None or not math.isfinite(upper) else upper
            # USD angles are degrees, lengths stage units; forces kpu * mpu N, torques kpu * mpu^2 N m
            scale = 180.0 / math.pi if kind == "angular" else 1.0 / mpu
            gain = 1.0 / (kpu * mpu * mpu * scale) if kind == "angular" else 1.0 / kpu
            margin = 0.05 * scale if kind == "angular" else 0.002 * scale
            start = min(max(0.0, lower + margin), upper - margin)
            target = start + STEP[kind] * scale
            if target > upper - margin:
                target = start - STEP[kind] * scale
            apis.setdefault(path, []).append("PhysicsJointStateAPI:" + kind)
            overs.setdefault(path, []).extend([
                f"float drive:{kind}:physics:stiffness = {STIFFNESS * gain!r}",
                f"float drive:{kind}:physics:damping = {DAMPING * gain!r}",
                f"float drive:{kind}:physics:maxForce = inf",
                f"float drive:{kind}:physics:targetPosition = {target!r}",
                f"float state:{kind}:physics:position = {start!r}",
                f"float state:{kind}:physics:velocity = 0"])
            plan[path] = (kind, start / scale, target / scale)
    # overs nest along the path
    tree: dict = {}
    for path in set(overs) | set(apis):
        node = tree
        for part in path.strip("/").split("/"):
            node = node.setdefault(part, {})

    def emit(node, prefix, depth):
        for name, child in node.items():
            path = f"{prefix}/{name}"
            pad = "    " * depth
            schema = apis.get(path)
            meta = f' (prepend apiSchemas = [{", ".join(chr(34) + a + chr(34) for a in schema)}])' if schema else ""
            lines.append(f'{pad}over "{name}"{meta}')
            lines.append(pad + "{")
            for line in overs.get(path, []):
                lines.append(pad + "    " + line)
            emit(child, path, depth + 1)
            lines.append(pad + "}")
    emit(tree, "", 0)
    out.write_text("\n".join(lines) + "\n")
    return plan


def compare(name: str, workdir: Path) -> list[tuple[str, float, float, float]]:
    """[(joint, usdjoints q, PhysX q, target)] at t = 2 s [rad | m]."""
    from usdjoints.model.build import load_model
    from usdjoints.sim import api

    converted = sim_robots.BY_NAME[name].stage(workdir)
    held = workdir / f"{name}_hold.usda"
    plan = _hold_layer(converted, held)
    steps = round(sim_robots.DURATION / sim_robots.DT)
    report = run_ovphysx_probe(held, steps=steps, dt=sim_robots.DT)
    model = load_model(str(held))
    trajectory = api.simulate(model, sim_robots.DURATION, sim_robots.DT, record_every=steps)
    rows = []
    for joint, (_, start, target) in sorted(plan.items()):
        ours = float(trajectory.q[-1, model.q_slice(joint)][0])
        assert float(trajectory.q[0, model.q_slice(joint)][0]) == pytest.approx(start, abs=1e-6)
        theirs = float(report["joints"][joint]["dofs"][0]["position"])
        rows.append((joint, ours, theirs, target))
    return rows


@pytest.mark.parametrize("name", ROBOTS)
def test_held_pose_after_two_seconds_agrees_with_physx(name, tmp_path):
    if not ovphysx_available():
        pytest.skip("ovphysx is not installed")
    if sim_robots.BY_NAME[name].stage(tmp_path) is None:
        pytest.skip("the robot's source is not installed")
    rows = compare(name, tmp_path)
    assert len(rows) >= 6
    worst = max(abs(ours - theirs) for _, ours, theirs, _ in rows)
    sag = max(abs(theirs - target) for _, _, theirs, target in rows)
    print(f"\n{name}: {len(rows)} driven joints, largest |usdjoints - PhysX| {worst:.2e}, "
          f"largest PhysX sag from the target {sag:.2e}")
    for joint, ours, theirs, target in rows:
        assert abs(ours - theirs) < BOUND, (joint, ours, theirs, target)


if __name__ == "__main__":
    import tempfile

    for robot in sys.argv[1:] or ROBOTS:
        with tempfile.TemporaryDirectory() as tmp:
            rows = compare(robot, Path(tmp))
        print(robot, f"max diff {max(abs(a - b) for _, a, b, _ in rows):.3e}",
              f"max sag {max(abs(b - t) for _, _, b, t in rows):.3e}")
        for joint, ours, theirs, target in rows:
            print(f"   {joint}: ours {ours:.6f} physx {theirs:.6f} target {target:.6f}")
