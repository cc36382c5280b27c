"""Reference-count operations per simulated step: how many atomic NRT_incref calls numba's
compiled code makes in one step of each robot (each has its NRT_decref).

numba counts the references to the arrays a kernel holds; where its pruning pass cannot prove a
pair redundant, each is a call with an atomic add (see usdjoints/sim/kernels/__init__.py). With
NUMBA_DEBUG_NRT=1 every NRT_incref prints a line; a child process runs N and then 3 N steps of one
env, and (lines at 3 N - lines at N) / 2 N is the count per step, free of the start-up's.

The robots: the driven panda of sim_vs_anchors.py (9 dofs, limits and velocity limits, contact
off) and solo12 standing on its four foot spheres (sim_batch_contact.py's quadruped: a free base,
drives and contact). Each row also prints the step's CPU time from a run of 256 envs without the
debug printing, for scale.

Not a test: `python benchmarks/sim_refcounts.py [--steps 100]`. Needs example-robot-data.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests" / "sim"))
sys.path.insert(0, str(HERE.parent / "tests"))

DT = 1e-3  # [s]


def build(robot: str, folder: Path):
    """(model, q0 [nq]) of a benchmark robot."""
    if robot == "panda":
        import sim_vs_anchors

        from usdjoints.model.build import load_model

        urdf = sim_vs_anchors.panda_urdf(folder)
        stage_path, _ = sim_vs_anchors.panda_stage(urdf, folder)
        model = load_model(stage_path, contact=False)
        rng = np.random.default_rng(0)
        return model, model.dof_lower + rng.random(model.nv) * (model.dof_upper - model.dof_lower)
    import test_quadruped_stance as stance

    model, _, q0 = stance._build(folder, "spheres")
    return model, q0


def child(robot: str, steps: int) -> None:
    """Build the robot, warm the kernels, print a marker, then run `steps` steps of one env."""
    from usdjoints.sim import api

    with tempfile.TemporaryDirectory() as tmp:
        model, q0 = build(robot, Path(tmp))
        api.simulate(model, 2 * DT, DT, n_envs=1, q0=q0[None], record_every=2)
        sys.stdout.write("STEPS START\n")
        sys.stdout.flush()
        api.simulate(model, steps * DT, DT, n_envs=1, q0=q0[None], record_every=steps)


def increfs(robot: str, steps: int, cache: str) -> int:
    env = dict(os.environ, NUMBA_DEBUG_NRT="1", NUMBA_CACHE_DIR=cache)
    done = subprocess.run([sys.executable, __file__, "--child", robot, "--steps", str(steps)],
                          env=env, capture_output=True, text=True, check=True)
    after = done.stdout.split("STEPS START\n", 1)[1]
    return after.count("*** NRT_Incref")


def step_time(robot: str, n_envs: int = 256, steps: int = 200) -> float:
    """CPU seconds per env-step (one thread)."""
    import numba

    from usdjoints.sim import api

    numba.set_num_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        model, q0 = build(robot, Path(tmp))
    q0s = np.repeat(q0[None], n_envs, axis=0)
    api.simulate(model, 2 * DT, DT, n_envs=2, q0=q0s[:2], record_every=2)
    best = np.inf
    for _ in range(3):
        c0 = time.process_time()
        api.simulate(model, steps * DT, DT, n_envs=n_envs, q0=q0s, record_every=steps)
        best = min(best, (time.process_time() - c0) / (n_envs * steps))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--child", choices=("panda", "quadruped"))
    args = parser.parse_args()
    if args.child:
        child(args.child, args.steps)
        return
    with tempfile.TemporaryDirectory() as cache:  # kernels compiled once, shared by the runs
        os.environ["NUMBA_CACHE_DIR"] = cache
        for robot in ("panda", "quadruped"):
            n1 = increfs(robot, args.steps, cache)
            n3 = increfs(robot, 3 * args.steps, cache)
            per_step = (n3 - n1) / (2 * args.steps)
            seconds = step_time(robot)
            print(f"{robot:10s} NRT_incref per step {per_step:7.1f}   step {seconds * 1e6:.2f} us "
                  f"(CPU, one thread)")


if __name__ == "__main__":
    main()
