"""Side by side: usdjoints' ABA / RNEA kernels and batched Euler stepping against pinocchio.

Each robot is loaded from example-robot-data into pinocchio; our model is built from the float64
parameters pinocchio holds (joint placements, types, axes, inertias), so both run the same tree.
Checks agreement first, then prints microseconds per call and the ratio (ours / pinocchio).
Times are the calling thread's CPU time (time.thread_time; both sides run on that one thread),
so other work on a shared machine slows neither side's number by taking its core away.
Not a test: run `python benchmarks/sim_vs_pinocchio.py [--envs 4096] [--steps 200]`.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from importlib import metadata
from pathlib import Path

import numpy as np
import pinocchio as pin

from usdjoints.sim import api
from usdjoints.sim.packed import pack

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from reference.from_pinocchio import model_from_pinocchio  # noqa: E402  (the tests' own builder)

ROBOTS = {  # name: (path under robots/, floating base)
    "ur5": ("ur_description/urdf/ur5_robot.urdf", False),
    "panda": ("panda_description/urdf/panda.urdf", False),
    "solo12": ("solo_description/robots/solo12.urdf", True),
    "talos": ("talos_data/robots/talos_reduced.urdf", True),
}


def robots_dir() -> Path:
    return Path(metadata.distribution("example-robot-data").locate_file(
        "cmeel.prefix/share/example-robot-data/robots"))


def load_pinocchio(name):
    path, floating = ROBOTS[name]
    urdf = str(robots_dir() / path)
    return pin.buildModelFromUrdf(urdf, pin.JointModelFreeFlyer()) if floating else pin.buildModelFromUrdf(urdf)


def q_from_pinocchio(model, q_pin):
    q = np.array(q_pin, dtype=float)
    for i in range(model.nlink):
        kind, s = int(model.link_type[i]), int(model.link_q_start[i])
        start = s if kind == 2 else s + 3 if kind == 3 else None
        if start is not None:
            q[start:start + 4] = np.roll(q_pin[start:start + 4], 1)
    return q


# CPU time of the calling thread [s]: what the call itself costs, not the time the machine's
# other work holds the core
clock = time.thread_time


def per_call_pinocchio(fn, n):
    fn()
    t0 = clock()
    for _ in range(n):
        fn()
    return (clock() - t0) / n


def best_of(fn, repeats=5):
    return min(fn() for _ in range(repeats))


def best_of_interleaved(fns, rounds=5):
    """The best time of each of ``fns`` over ``rounds`` rounds that call each once in turn, so
    that a slow spell of the machine falls on every side alike rather than on one side's block."""
    best = [math.inf] * len(fns)
    for _ in range(rounds):
        for k, fn in enumerate(fns):
            best[k] = min(best[k], fn())
    return best


def pinocchio_floor_timer(n_calls):
    """A call returning the per-call time [s] of pinocchio's aba from Python on a one-joint
    model: the Python loop and the binding's argument conversion, which every pinocchio time
    below includes (ours run in a compiled loop)."""
    model = pin.Model()
    joint = model.addJoint(0, pin.JointModelRZ(), pin.SE3.Identity(), "joint")
    model.appendBodyToJoint(joint, pin.Inertia(1.0, np.zeros(3), np.eye(3)), pin.SE3.Identity())
    data = model.createData()
    q, v, tau = np.zeros(1), np.zeros(1), np.zeros(1)
    return lambda: per_call_pinocchio(lambda: pin.aba(model, data, q, v, tau), n_calls)


def pinocchio_call_floor(n_calls):
    """pinocchio_floor_timer's best of 5 [s]."""
    return best_of(pinocchio_floor_timer(n_calls))


def bench_robot(name, n_calls, floor=None):
    from usdjoints.sim.kernels.timing import aba_repeat, aba_repeat_inline, rnea_repeat

    pm = load_pinocchio(name)
    pd = pm.createData()
    model = model_from_pinocchio(pm)
    rng = np.random.default_rng(0)
    q_pin = pin.randomConfiguration(pm, -np.ones(pm.nq), np.ones(pm.nq)) if pm.nq else np.zeros(0)
    qd, tau = rng.normal(size=pm.nv), rng.normal(size=pm.nv)
    q = q_from_pinocchio(model, q_pin)
    err_aba = np.max(np.abs(api.forward_dynamics(model, q, qd, tau) - pin.aba(pm, pd, q_pin, qd, tau)))
    err_rnea = np.max(np.abs(api.inverse_dynamics(model, q, qd, tau) - pin.rnea(pm, pd, q_pin, qd, tau)))
    k = pack(model)
    out = np.empty(model.nv)

    def ours_aba():
        t0 = clock()
        aba_repeat(k.link_table, k.link_axis, k.R_parent_joint, k.p_parent_joint, k.R_joint_child,
                   k.p_joint_child, k.revolute_basis, k.S, k.I6, k.armature, k.gravity, q, qd, tau, n_calls, out)
        return (clock() - t0) / n_calls

    def ours_aba_inline():
        t0 = clock()
        aba_repeat_inline(k.link_table, k.link_axis, k.R_parent_joint, k.p_parent_joint,
                          k.R_joint_child, k.p_joint_child, k.revolute_basis, k.S, k.I6, k.armature,
                          k.gravity, q, qd, tau, n_calls, out)
        return (clock() - t0) / n_calls

    def ours_rnea():
        t0 = clock()
        rnea_repeat(k.link_table, k.link_axis, k.R_parent_joint, k.p_parent_joint, k.R_joint_child,
                    k.p_joint_child, k.revolute_basis, k.S, k.I6, k.gravity, q, qd, tau, n_calls, out)
        return (clock() - t0) / n_calls

    expected = pin.aba(pm, pd, q_pin, qd, tau).copy()
    ours_rnea()  # compile or load from cache; the two ABA loops' results are checked
    for loop in (ours_aba_inline, ours_aba):
        loop()
        assert np.max(np.abs(out - expected)) <= 1e-9 * max(1.0, np.max(np.abs(expected))), name
    # the floor in the same rounds as the rest, so that its subtraction sees the same machine
    timers = (ours_aba, ours_aba_inline, ours_rnea,
              lambda: per_call_pinocchio(lambda: pin.aba(pm, pd, q_pin, qd, tau), n_calls),
              lambda: per_call_pinocchio(lambda: pin.rnea(pm, pd, q_pin, qd, tau), n_calls))
    if floor is not None:
        timers += (pinocchio_floor_timer(n_calls),)
    t_aba, t_inline, t_rnea, p_aba, p_rnea, *rest = best_of_interleaved(timers)
    if floor is not None:
        floor = rest[0]
    t_api = best_of(lambda: per_call_pinocchio(lambda: api.forward_dynamics(model, q, qd, tau), n_calls // 10))
    net = (f" [computation alone: ours inlined {t_inline * 1e6:.2f} us vs pin less its call floor "
           f"{floor * 1e6:.2f}: {(p_aba - floor) * 1e6:.2f} us, x{t_inline / (p_aba - floor):4.2f}]"
           if floor is not None else "")
    print(f"{name:7s} nv={model.nv:3d}  aba {t_aba * 1e6:6.2f} us vs pin {p_aba * 1e6:6.2f} us "
          f"(x{t_aba / p_aba:4.2f}){net}  rnea {t_rnea * 1e6:6.2f} vs {p_rnea * 1e6:6.2f} us "
          f"(x{t_rnea / p_rnea:4.2f})  api.forward_dynamics from Python {t_api * 1e6:6.2f} us  "
          f"max |diff| aba {err_aba:.1e} rnea {err_rnea:.1e}")
    return model, pm


def bench_stepping(model, pm, n_envs, n_steps, dt=1e-3):
    api.simulate(model, 2 * dt, dt, n_envs=2, record_every=2)  # compile or load from cache
    t0 = time.process_time()  # the CPU time of every thread of the process
    api.simulate(model, n_steps * dt, dt, n_envs=n_envs, record_every=n_steps)
    ours = n_envs * n_steps / (time.process_time() - t0)
    pd = pm.createData()
    q = pin.neutral(pm)
    v = np.zeros(pm.nv)
    tau = np.zeros(pm.nv)
    steps = 2000
    t0 = time.process_time()
    for _ in range(steps):
        v = v + dt * pin.aba(pm, pd, q, v, tau)
        q = pin.integrate(pm, q, v * dt)
    theirs = steps / (time.process_time() - t0)
    print(f"euler stepping: {n_envs} envs x {n_steps} steps: {ours / 1e6:.3f} M env-steps per CPU s vs "
          f"pinocchio Python loop (aba + integrate, 1 env) {theirs / 1e6:.3f} M steps per CPU s "
          f"(x{ours / theirs:.1f})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robots", nargs="*", default=["ur5", "panda", "solo12", "talos"])
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--envs", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=200)
    args = parser.parse_args()
    for name in args.robots:
        model, pm = bench_robot(name, args.calls)
    model, pm = bench_robot("panda", 10) if "panda" not in args.robots else (model_from_pinocchio(load_pinocchio("panda")), load_pinocchio("panda"))
    bench_stepping(model, pm, args.envs, args.steps)


if __name__ == "__main__":
    main()
