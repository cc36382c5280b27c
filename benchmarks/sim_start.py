"""Start-up of `usdjoints simulate`, cold (an empty numba cache: the kernels compile) and warm (the
cache filled by the cold run), beside the start of MuJoCo and pinocchio doing the same kind of
first work: import, load a small robot, take one step of forward dynamics.

Every run is a fresh process, timed by wall clock from its launch to its exit and by the CPU time
it used (user + sys of the child, from getrusage): on a shared, loaded machine the wall clock
mostly measures the other processes, the CPU time what the start itself costs.

* usdjoints cold: `python -m usdjoints simulate STAGE --duration 1` with NUMBA_CACHE_DIR set to an
  empty folder of its own;
* usdjoints warm: the same command again with that folder (the median of --repeat runs);
* mujoco: `import mujoco`, a two-link arm from an XML string, one mj_step;
* pinocchio: `import pinocchio`, the same arm built in code, one aba.

Ratio = usdjoints / the other (CPU time); the anchors' times are medians of --repeat runs. The
machine's load average is printed with the numbers: a loaded machine slows the compile most.

Not a test: `python benchmarks/sim_start.py [--stage sample_stages/arm_articulation.usda]
[--repeat 3]`. Needs mujoco and pinocchio.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_STAGE = HERE.parent / "sample_stages" / "arm_articulation.usda"

MUJOCO = """
import mujoco
xml = '''<mujoco><worldbody><body><joint type="hinge" axis="0 1 0"/>
<geom type="capsule" size="0.05" fromto="0 0 0 0.5 0 0" mass="1"/>
<body pos="0.5 0 0"><joint type="hinge" axis="0 1 0"/>
<geom type="capsule" size="0.05" fromto="0 0 0 0.5 0 0" mass="1"/></body></body>
</worldbody></mujoco>'''
model = mujoco.MjModel.from_xml_string(xml)
data = mujoco.MjData(model)
mujoco.mj_step(model, data)
"""

PINOCCHIO = """
import numpy as np
import pinocchio as pin
model = pin.Model()
parent = 0
for i in range(2):
    placement = pin.SE3(np.eye(3), np.array([0.5 * i, 0.0, 0.0]))
    parent = model.addJoint(parent, pin.JointModelRY(), placement, f"j{i}")
    model.appendBodyToJoint(parent, pin.Inertia.FromCylinder(1.0, 0.05, 0.5), pin.SE3.Identity())
data = model.createData()
pin.aba(model, data, np.zeros(model.nq), np.zeros(model.nv), np.zeros(model.nv))
"""


def timed(command: list[str], env: dict) -> tuple[float, float]:
    """(wall [s], CPU user + sys [s]) of one run of ``command`` in a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


def median_of(command: list[str], env: dict, repeat: int) -> tuple[float, float]:
    runs = [timed(command, env) for _ in range(repeat)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stage", default=str(DEFAULT_STAGE))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    env = dict(os.environ)
    ours = [sys.executable, "-m", "usdjoints", "simulate", args.stage, "--duration", "1", "--quiet"]
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as cache:
        env["NUMBA_CACHE_DIR"] = cache
        cold = timed(ours, env)
        warm = median_of(ours, env, args.repeat)
    env.pop("NUMBA_CACHE_DIR")
    mujoco = median_of([sys.executable, "-c", MUJOCO], env, args.repeat)
    pinocchio = median_of([sys.executable, "-c", PINOCCHIO], env, args.repeat)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"stage: {args.stage}")
    print(f"usdjoints simulate --duration 1: cold CPU {cold[1]:.2f} s (wall {cold[0]:.2f} s, empty numba "
          f"cache), warm CPU {warm[1]:.2f} s (wall {warm[0]:.2f} s)")
    for name, (w, c) in (("mujoco (import, load, step)", mujoco), ("pinocchio (import, build, aba)", pinocchio)):
        print(f"python + {name}: CPU {c:.2f} s (wall {w:.2f} s)   ratios cold x{cold[1] / c:.1f}, "
              f"warm x{warm[1] / c:.1f}")
    print("targets: cold <= 15 s (stretch 5 s), warm <= 0.8 s")


if __name__ == "__main__":
    main()
