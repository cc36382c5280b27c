"""Batched environments with a coupling and with contact: usdjoints.simulate beside mujoco.rollout.

1. The gripper: the Franka panda with its mimic finger (example-robot-data URDF -> convert ->
   load_model; the mimic is an exact coupling row). The converter's drives (stiffness 0,
   damping = effort / velocity limit) act as viscous joints. Contact is off on both sides: the
   panda's colliders are bounding boxes of its meshes, which overlap their neighbours'.
   MuJoCo: its own URDF import (meshes stripped), which turns <mimic> into a joint equality; the
   same per-joint damping (URDF damping + drive damping) read from our model.
2. The quadruped: solo12 standing on PD drives, four foot spheres on a ground plane (the stage
   of tests/sim/test_quadruped_stance.py, "spheres" variant). MuJoCo: its URDF import with a free
   joint on the base, a floor plane, the same spheres (friction 0.5, PhysX's default material),
   and the PD drives as joint springs (stiffness KP about the target, damping KD).

Each side runs N envs x S steps at dt = 1e-3 on the same threads count (numba threads for us,
a rollout pool of as many MjData for MuJoCo), timed after a warm-up call, --rounds times in
turn. Rates are env-steps per CPU second of the process (time.process_time, all its threads),
so the other work of a shared machine does not lower a side's rate by taking its cores; the
wall-clock rates and the load average are printed with every round. Ratio = ours / MuJoCo, of
the best CPU rate of each side, with the spread of the per-round ratios.
After the run both print the mean base height of the quadruped, so the two did the same work.

Not a test: `python benchmarks/sim_batch_contact.py [--envs 4096] [--steps 200] [--threads 2]`.
Needs example-robot-data and mujoco.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "sim"))
sys.path.insert(0, str(HERE.parent / "tests"))  # samples.py, which the stance test imports

import usdjoints  # noqa: E402,F401  (PhysX schemas before any stage is opened)

DT = 1e-3  # [s]
PANDA = "panda_description/urdf/panda.urdf"
SOLO = "solo_description/robots/solo12.urdf"


def robots_dir() -> Path:
    return Path(metadata.distribution("example-robot-data").locate_file(
        "cmeel.prefix/share/example-robot-data/robots"))


def mujoco_spec(urdf: Path):
    """MuJoCo's URDF import with visual and collision geometry removed (no meshes to find) and
    fixed joints kept as bodies (the feet stay named)."""
    import mujoco
    from lxml import etree

    root = etree.fromstring(urdf.read_bytes())
    for link in root.iter("link"):
        for geometry in link.findall("visual") + link.findall("collision"):
            link.remove(geometry)
    extension = etree.SubElement(root, "mujoco")
    etree.SubElement(extension, "compiler", discardvisual="true", fusestatic="false")
    spec = mujoco.MjSpec.from_string(etree.tostring(root, encoding="unicode"))
    spec.option.timestep = DT
    return spec


def copy_joint_damping(model, mj_model) -> None:
    """MuJoCo's dof damping := our viscous damping (passive + velocity drive) joint by joint."""
    for j, name in enumerate(model.joint_names):
        if model.joint_types[j] == "free":
            continue
        v = int(model.joint_v_start[j])
        dof = int(mj_model.joint(name.rsplit("/", 1)[-1]).dofadr[0])
        mj_model.dof_damping[dof] = model.dof_damping[v] + model.dof_drive_damping[v]
        mj_model.dof_armature[dof] = model.dof_armature[v]


def panda_pair(folder: Path):
    from usdjoints.convert import convert_urdf
    from usdjoints.model.build import load_model

    urdf = robots_dir() / PANDA
    converted = folder / "panda.usda"
    convert_urdf(urdf, converted, floating_base=False)
    model = load_model(str(converted), contact=False)
    assert model.coupling_names, "the panda's mimic finger must become a coupling"
    assert not np.any(model.dof_drive_stiffness), "converted drives are velocity drives"
    spec = mujoco_spec(urdf)
    spec.option.disableflags |= 1 << 3  # mjDSBL_CONTACT, as contact=False on our side
    mj_model = spec.compile()
    assert mj_model.neq == 1, "MuJoCo's URDF import turns <mimic> into one joint equality"
    copy_joint_damping(model, mj_model)
    rng = np.random.default_rng(0)

    def starts(n):
        q = model.dof_lower + rng.random((n, model.nv)) * (model.dof_upper - model.dof_lower)
        q[:, model.q_slice("/panda/joints/panda_finger_joint2")] = q[:, model.q_slice("/panda/joints/panda_finger_joint1")]
        return q

    q0 = starts(1 << 16)
    return model, mj_model, q0, q0.copy()  # same joint order on both sides (URDF order)


def solo_pair(folder: Path):
    import mujoco

    import test_quadruped_stance as stance

    model, pose, q0 = stance._build(folder, "spheres")
    spec = mujoco_spec(robots_dir() / SOLO)
    spec.body("base_link").add_freejoint()
    spec.worldbody.add_geom(type=mujoco.mjtGeom.mjGEOM_PLANE, size=[0, 0, 1], friction=[0.5, 0.005, 0.0001])
    for leg in stance.LEGS:
        spec.body(f"{leg}_FOOT").add_geom(type=mujoco.mjtGeom.mjGEOM_SPHERE, size=[stance.FOOT_RADIUS, 0, 0],
                                          friction=[0.5, 0.005, 0.0001])
    mj_model = spec.compile()
    for joint, angle in pose.items():
        # the PD drive as a joint spring about the target, its damping as joint damping
        mj_joint = mj_model.joint(joint)
        mj_model.jnt_stiffness[mj_joint.id] = stance.KP
        mj_model.qpos_spring[mj_joint.qposadr[0]] = angle
        mj_model.dof_damping[mj_joint.dofadr[0]] = stance.KD
    mj_q0 = np.zeros(mj_model.nq)
    mj_q0[:7] = q0[:7]  # free joint: position then quaternion w x y z on both sides
    for joint, angle in pose.items():
        mj_q0[mj_model.joint(joint).qposadr[0]] = q0[model.q_slice(f"/solo/joints/{joint}")][0]
    return model, mj_model, q0, mj_q0


def timed(fn, n_env_steps: int):
    """(env-steps per CPU second of the process, per wall second, fn's result)."""
    c0, t0 = time.process_time(), time.perf_counter()
    result = fn()
    return n_env_steps / (time.process_time() - c0), n_env_steps / (time.perf_counter() - t0), result


def bench_ours(model, q0, n_envs: int, n_steps: int, threads: int):
    """A call running the envs once: (CPU rate, wall rate, trajectory)."""
    import numba

    from usdjoints.sim import api

    numba.set_num_threads(threads)
    q0 = np.broadcast_to(q0, (n_envs, model.nq)) if q0.ndim == 1 else q0[:n_envs]
    api.simulate(model, 2 * DT, DT, n_envs=2, q0=q0[:2], record_every=2)  # compile or load
    return lambda: timed(lambda: api.simulate(model, n_steps * DT, DT, n_envs=n_envs, q0=q0,
                                              record_every=n_steps), n_envs * n_steps)


def bench_mujoco(mj_model, qpos, n_envs: int, n_steps: int, threads: int):
    """A call rolling the envs out once: (CPU rate, wall rate, final states), and one freeing
    the thread pool."""
    import mujoco
    from mujoco import rollout

    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    data = mujoco.MjData(mj_model)
    states = np.empty((n_envs, mujoco.mj_stateSize(mj_model, spec)))
    qpos = np.broadcast_to(qpos, (n_envs, mj_model.nq)) if qpos.ndim == 1 else qpos[:n_envs]
    for e in range(n_envs):
        mujoco.mj_resetData(mj_model, data)
        data.qpos[:] = qpos[e]
        mujoco.mj_getState(mj_model, data, states[e], spec)
    datas = [mujoco.MjData(mj_model) for _ in range(threads)]
    runner = rollout.Rollout(nthread=threads)
    runner.rollout(mj_model, datas, states[:2], nstep=2)  # warm the pool
    return (lambda: timed(lambda: runner.rollout(mj_model, datas, states, nstep=n_steps)[0],
                          n_envs * n_steps)), runner.close


def load_average() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def compare(name: str, run_ours, run_theirs, rounds: int):
    """Both sides --rounds times in turn; prints every round and the ratio; returns the last
    results of each side."""
    results = []
    for _ in range(rounds):  # in turn, so a slow spell of the machine hits both
        results.append((run_ours(), run_theirs(), load_average()))
    print(f"{name}:")
    for a, b, load in results:
        print(f"   ours {a[0] / 1e6:.3f} M env-steps per CPU s ({a[1] / 1e6:.3f} per wall s)   "
              f"mujoco {b[0] / 1e6:.3f} ({b[1] / 1e6:.3f})   x{a[0] / b[0]:.2f}   load {load}")
    ours, theirs = max(r[0][0] for r in results), max(r[1][0] for r in results)
    ratios = [r[0][0] / r[1][0] for r in results]
    print(f"   best of {rounds}: usdjoints simulate (euler) {ours / 1e6:.3f} M env-steps per CPU s   "
          f"mujoco.rollout {theirs / 1e6:.3f}   ratio ours/mujoco x{ours / theirs:.2f} "
          f"(per round x{min(ratios):.2f}..x{max(ratios):.2f})")
    return results[-1][0][2], results[-1][1][2]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3, help="runs of each side, in turn")
    args = parser.parse_args()
    n, s, th = args.envs, args.steps, args.threads
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print(f"== {n} envs x {s} steps, dt = {DT:g} s, {th} threads each, load average {load_average()}")
        (folder / "panda").mkdir()
        model, mj_model, q0, mj_q0 = panda_pair(folder / "panda")
        run_theirs, close = bench_mujoco(mj_model, mj_q0, n, s, th)
        try:
            trajectory, state = compare(f"gripper (panda, mimic finger, {model.nv} dofs, 1 coupling)",
                                        bench_ours(model, q0, n, s, th), run_theirs, args.rounds)
        finally:
            close()
        f1, f2 = (trajectory.q[:, -1, model.q_slice(f"/panda/joints/panda_finger_joint{i}")][:, 0] for i in (1, 2))
        m1, m2 = (state[:, -1, 1 + mj_model.joint(f"panda_finger_joint{i}").qposadr[0]] for i in (1, 2))
        print(f"   max |finger2 - finger1| after {s * DT:g} s [m]: ours {np.abs(f2 - f1).max():.2g} (exact row)   "
              f"mujoco {np.abs(m2 - m1).max():.2g} (soft equality)")

        (folder / "solo").mkdir()
        model, mj_model, q0, mj_q0 = solo_pair(folder / "solo")
        run_theirs, close = bench_mujoco(mj_model, mj_q0, n, s, th)
        try:
            trajectory, state = compare(
                f"quadruped (solo12, PD stance, 4 foot spheres on a plane, {model.nv} dofs)",
                bench_ours(model, q0, n, s, th), run_theirs, args.rounds)
        finally:
            close()
        base_z_ours = trajectory.q[:, -1, 2].mean()
        base_z_mujoco = state[:, -1, 1 + 2].mean()  # FULLPHYSICS state: time, then qpos
        print(f"   base height after {s * DT:g} s [m]: ours {base_z_ours:.4f}   mujoco {base_z_mujoco:.4f}   "
              f"start {q0[2]:.4f}")


if __name__ == "__main__":
    main()
