"""Side by side in one run: the simulator against its anchors.

1. Single-robot ABA kernel against pinocchio's aba (same float64 tree; target ours/pin <= 0.5).
   Ours is a compiled call per repetition (the link transforms from q and ABA fused in one
   entry, aba.aba_from_q, as pinocchio's aba computes its kinematics from q inside), pinocchio's
   a call from a Python loop on the same q, v, tau; its per-call
   floor (the loop and the binding, measured on a one-joint model in the same interleaved
   rounds as each robot) is printed, and the computation alone is compared too: our kernel
   inlined in its loop against pinocchio's time less the floor.
2. 4,096 environments of the Franka panda arm (example-robot-data URDF -> usdjoints convert ->
   a layer adding a position drive on every joint -> load_model(contact=False); limits and
   drives active), env-steps/s against mujoco.rollout with 2 threads on the same URDF (meshes
   stripped, a position actuator with the same gains on every joint, contacts off; target
   ours/mujoco >= 3). The two sides run in turn, --rounds times each; the best rate of each
   side makes the ratio, and every round's rates are printed. Contact is off on both sides: the converted panda's finger box colliders
   would cost us a pair test every step that MuJoCo's side does not pay.
   Rates are env-steps per CPU second of the process (time.process_time, every thread of
   either side counted), so a machine shared with other work does not lower a side's rate by
   taking its cores away; the wall-clock rates and the load average are printed beside them.
   MuJoCo has no joint velocity limit, while the panda's URDF velocity limits hold on our side
   (an impulse solve on most steps here); a second line runs our side without them, the same
   constraints as MuJoCo's.
3. Cold and warm start of `usdjoints simulate` on that stage (cold: NUMBA_CACHE_DIR is an empty
   temporary folder, so every kernel compiles; warm: the same folder, filled by the cold run).

Not a test: run `python benchmarks/sim_vs_anchors.py [--envs 4096] [--steps 200]`. Needs the
`oracle` extra (pinocchio, example-robot-data) and mujoco.
"""
from __future__ import annotations

import argparse
import dataclasses
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from sim_vs_pinocchio import bench_robot, pinocchio_call_floor, robots_dir  # noqa: E402

PANDA = "panda_description/urdf/panda.urdf"
DT = 1e-3  # [s]
KP = 100.0  # [N m/rad | N/m] position-drive stiffness on every joint
KD = 10.0  # [N m s/rad | N s/m]


def panda_urdf(folder: Path) -> Path:
    """The panda URDF without mimic tags: the fingers become two independent joints, so both
    sides step the same 9 unconstrained dofs with no coupling to hold."""
    text = (robots_dir() / PANDA).read_text()
    text = re.sub(r"<mimic\b[^>]*/>", "", text)
    path = folder / "panda.urdf"
    path.write_text(text)
    return path


def panda_stage(urdf: Path, folder: Path) -> tuple[Path, dict]:
    """Convert (fixed base), then a layer setting every joint's drive gains and a mid-range
    target; the converter's drive keeps the URDF effort as its max force."""
    import usdjoints  # noqa: F401  (registers the PhysX schemas first)
    from pxr import Sdf, Usd, UsdPhysics

    from usdjoints.convert import convert_urdf

    converted = folder / "panda_converted.usda"
    convert_urdf(urdf, converted, floating_base=False)
    stage_path = folder / "panda_driven.usda"
    layer = Sdf.Layer.CreateNew(str(stage_path))
    layer.subLayerPaths.append(str(converted))
    stage = Usd.Stage.Open(layer)
    source = Usd.Stage.Open(str(converted))
    for key in ("metersPerUnit", "kilogramsPerUnit", "upAxis"):
        stage.SetMetadata(key, source.GetMetadata(key))
    stage.SetEditTarget(layer)
    targets = {}
    for prim in stage.Traverse():
        if prim.IsA(UsdPhysics.RevoluteJoint) or prim.IsA(UsdPhysics.PrismaticJoint):
            angular = prim.IsA(UsdPhysics.RevoluteJoint)
            joint = UsdPhysics.RevoluteJoint(prim) if angular else UsdPhysics.PrismaticJoint(prim)
            lo, hi = joint.GetLowerLimitAttr().Get(), joint.GetUpperLimitAttr().Get()
            mid = 0.5 * (lo + hi)
            drive = UsdPhysics.DriveAPI.Apply(prim, "angular" if angular else "linear")
            per = math.pi / 180.0 if angular else 1.0  # USD angular gains are per degree
            drive.CreateStiffnessAttr(KP * per)
            drive.CreateDampingAttr(KD * per)
            drive.CreateTargetPositionAttr(mid)
            targets[prim.GetName()] = math.radians(mid) if angular else mid
    layer.Save()
    return stage_path, targets


def rates(run, n_env_steps: int) -> tuple[float, float]:
    """(env-steps per CPU second of the process, env-steps per wall second) of one run()."""
    c0, t0 = time.process_time(), time.perf_counter()
    run()
    return n_env_steps / (time.process_time() - c0), n_env_steps / (time.perf_counter() - t0)


def load_average() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def ours_runner(stage_path: Path, n_envs: int, n_steps: int, threads: int,
                velocity_limits: bool = True):
    """A call that runs the envs once and returns (CPU, wall) env-steps/s (kernels compiled or
    loaded). velocity_limits=False sets every dof's velocity limit to infinity."""
    import numba

    from usdjoints.model.build import load_model
    from usdjoints.sim import api

    model = load_model(stage_path, contact=False)  # as MuJoCo's side: flag contact disable
    assert np.isfinite(model.dof_lower).all() and (model.dof_drive_type > 0).all()
    if not velocity_limits:
        model = dataclasses.replace(model, dof_velocity_limit=np.full(model.nv, np.inf))
    rng = np.random.default_rng(0)
    q0 = model.dof_lower + rng.random((n_envs, model.nv)) * (model.dof_upper - model.dof_lower)
    numba.set_num_threads(threads)
    api.simulate(model, 2 * DT, DT, n_envs=2, q0=q0[:2], record_every=2)  # compile or load

    def run() -> tuple[float, float]:
        return rates(lambda: api.simulate(model, n_steps * DT, DT, n_envs=n_envs, q0=q0,
                                          record_every=n_steps), n_envs * n_steps)

    return run


def mujoco_model(urdf: Path, targets: dict):
    """MuJoCo's own URDF import with meshes stripped, plus a position actuator per joint."""
    import mujoco
    from lxml import etree

    root = etree.fromstring(urdf.read_bytes())
    for link in root.iter("link"):
        for geometry in link.findall("visual") + link.findall("collision"):
            link.remove(geometry)
    extension = etree.SubElement(root, "mujoco")
    etree.SubElement(extension, "compiler", discardvisual="true", fusestatic="false")
    model = mujoco.MjModel.from_xml_string(etree.tostring(root, encoding="unicode"))
    with tempfile.TemporaryDirectory() as tmp:
        xml_path = os.path.join(tmp, "panda.xml")
        mujoco.mj_saveLastXML(xml_path, model)
        mjcf = etree.parse(xml_path).getroot()
    option = mjcf.find("option")
    if option is None:
        option = etree.SubElement(mjcf, "option")
    option.set("timestep", repr(DT))
    option.set("integrator", "implicitfast")  # actuator damping implicit, like our drives
    flags = etree.SubElement(option, "flag")
    flags.set("contact", "disable")
    actuators = etree.SubElement(mjcf, "actuator")
    efforts = {j.get("name"): float(j.find("limit").get("effort")) for j in root.iter("joint")
               if j.find("limit") is not None}
    for name in targets:  # the URDF effort bounds the actuator, as maxForce bounds our drive
        etree.SubElement(actuators, "position", joint=name, kp=repr(KP), kv=repr(KD),
                         forcelimited="true", forcerange=f"{-efforts[name]!r} {efforts[name]!r}")
    model = mujoco.MjModel.from_xml_string(etree.tostring(mjcf, encoding="unicode"))
    for j in range(model.njnt):
        assert model.jnt_limited[j], "every panda joint is limited in the URDF"
    return model


def mujoco_runner(urdf: Path, targets: dict, n_envs: int, n_steps: int, threads: int):
    """A call that rolls the envs out once and returns (CPU, wall) env-steps/s, and one that
    frees the thread pool."""
    import mujoco
    from mujoco import rollout

    model = mujoco_model(urdf, targets)
    ctrl = np.array([targets[model.joint(int(model.actuator_trnid[a, 0])).name] for a in range(model.nu)])
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    data = mujoco.MjData(model)
    rng = np.random.default_rng(0)
    lo, hi = model.jnt_range[:, 0], model.jnt_range[:, 1]
    states = np.empty((n_envs, mujoco.mj_stateSize(model, spec)))
    for e in range(n_envs):
        mujoco.mj_resetData(model, data)
        data.qpos[:] = lo + rng.random(model.nq) * (hi - lo)
        mujoco.mj_getState(model, data, states[e], spec)
    control = np.broadcast_to(ctrl, (n_envs, n_steps, model.nu)).copy()
    datas = [mujoco.MjData(model) for _ in range(threads)]
    runner = rollout.Rollout(nthread=threads)
    runner.rollout(model, datas, states[:2], control[:2, :2])  # warm the pool

    def run() -> tuple[float, float]:
        return rates(lambda: runner.rollout(model, datas, states, control), n_envs * n_steps)

    return run, runner.close


def start_times(stage_path: Path) -> tuple[float, float]:
    """Wall time of `usdjoints simulate STAGE --duration 0.1` with an empty, then a filled
    numba cache [s]."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        # as on a user's machine, where pip compiled the bytecode at install: with
        # PYTHONDONTWRITEBYTECODE set, every start compiles numba's and usdjoints' sources again
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        command = [sys.executable, "-m", "usdjoints.cli", "simulate", str(stage_path), "--duration", "0.1"]
        times = []
        for _ in range(2):
            t0 = time.perf_counter()
            subprocess.run(command, env=env, check=True, capture_output=True)
            times.append(time.perf_counter() - t0)
    return times[0], times[1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robots", nargs="*", default=["ur5", "panda", "solo12", "talos"])
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--envs", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=5, help="env-step runs of each side, in turn")
    parser.add_argument("--no-start", action="store_true",
                        help="leave out part 3 (the cold start compiles every kernel: minutes on a loaded machine)")
    args = parser.parse_args()

    print(f"load average {load_average()}")
    print("== 1. ABA kernel vs pinocchio.aba (ratio = ours / pinocchio, target <= 0.5), CPU time "
          "of the calling thread, best of 5 interleaved rounds")
    floor = pinocchio_call_floor(args.calls)
    print(f"ours: a compiled call per repetition; pinocchio: a call from a Python loop, whose floor "
          f"(aba of a one-joint model) is {floor * 1e6:.2f} us here, and is measured again in each "
          f"robot's rounds. In brackets, the computation alone: our kernel inlined in its loop "
          f"against pinocchio's time less that robot's floor")
    for name in args.robots:
        bench_robot(name, args.calls, floor)

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        urdf = panda_urdf(folder)
        stage_path, targets = panda_stage(urdf, folder)
        print(f"\n== 2. {args.envs} envs x {args.steps} steps of the panda ({len(targets)} driven, "
              f"limited joints), dt = {DT:g} s, {args.threads} threads each, "
              f"contact off on both sides")
        run_ours = ours_runner(stage_path, args.envs, args.steps, args.threads)
        run_free = ours_runner(stage_path, args.envs, args.steps, args.threads, velocity_limits=False)
        run_theirs, close = mujoco_runner(urdf, targets, args.envs, args.steps, args.threads)
        rounds = []
        try:
            for _ in range(args.rounds):  # in turn, so a slow spell of the machine hits all
                rounds.append((run_ours(), run_free(), run_theirs(), load_average()))
        finally:
            close()
        print("each round, ours/ours without velocity limits/mujoco, M env-steps per CPU s "
              "(per wall s), load average:")
        for a, f, b, load in rounds:
            print(f"   {a[0] / 1e6:.3f}/{f[0] / 1e6:.3f}/{b[0] / 1e6:.3f} "
                  f"({a[1] / 1e6:.3f}/{f[1] / 1e6:.3f}/{b[1] / 1e6:.3f})   x{a[0] / b[0]:.2f} "
                  f"x{f[0] / b[0]:.2f}   load {load}")
        for label, k in (("usdjoints simulate (euler)", 0),
                         ("usdjoints without velocity limits (MuJoCo has none)", 1)):
            ours = [r[k][0] for r in rounds]
            ratios = [r[k][0] / r[2][0] for r in rounds]
            theirs = max(r[2][0] for r in rounds)
            print(f"{label}: {max(ours) / 1e6:.3f} M env-steps per CPU s   mujoco.rollout: "
                  f"{theirs / 1e6:.3f} (best of {args.rounds} rounds each)   ratio ours/mujoco "
                  f"x{max(ours) / theirs:.2f}, per round x{min(ratios):.2f}..x{max(ratios):.2f} "
                  f"(target >= 3)")
        if args.no_start:
            return
        print(f"\n== 3. `usdjoints simulate` start time on the driven panda stage (0.1 s simulated)")
        cold, warm = start_times(stage_path)
        print(f"cold (empty NUMBA_CACHE_DIR) {cold:.2f} s   warm {warm:.2f} s   ratio x{cold / warm:.1f}")


if __name__ == "__main__":
    main()
