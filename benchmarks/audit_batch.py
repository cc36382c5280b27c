"""Auditor throughput: a batch of small stages, local processes against Dask, and one large stage
against its walk.

1. Writes ``--stages`` small random stages (tests/stagegen.py ``generate_stage(seed)``) to a
   temporary folder and audits them all, in turn, with ``--jobs`` local worker processes
   (``usdjoints audit DIR --jobs N``) and on a Dask LocalCluster of as many single-threaded
   worker processes (``--scheduler local:N``); prints stages per second for each (the cluster's
   start-up, timed apart), Dask / local, and checks the two reports are identical.
2. Writes a stage of ``--joints`` revolute joints in chained articulations
   (benchmarks/make_chain_stage.py), opens it once, and times, alternately, the walk every rule
   reads (``walk_many`` over the three consumers: one scan) and the full audit of the open stage
   (that walk plus every rule); prints both medians and audit / walk (target <= 2).

Usage: ``python benchmarks/audit_batch.py [--stages 10000] [--jobs 2] [--rounds 2] [--joints 10000] [--repeats 3]
[--no-large]``
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests"))
import usdjoints  # noqa: E402  (PhysX schemas before any stage is opened)
from make_chain_stage import make_chain_stage  # noqa: E402
from stagegen import generate_stage  # noqa: E402
from usdjoints.auditor.batch import audit_many  # noqa: E402
from usdjoints.auditor.engine import audit_stage  # noqa: E402
from usdjoints.auditor.registry import select_rules  # noqa: E402
from usdjoints.contract.types import CONSUMERS  # noqa: E402
from usdjoints.walker import walk_many  # noqa: E402


def batch(n_stages: int, jobs: int, rounds: int) -> None:
    from usdjoints.auditor.dask_cluster import dask_executor

    with tempfile.TemporaryDirectory(prefix="usdjoints-audit-batch-") as folder:
        paths = []
        for seed in range(n_stages):
            path = Path(folder) / f"stage_{seed:05d}.usda"
            stage = generate_stage(seed)  # held: the layer dies with a temporary stage
            stage.GetRootLayer().Export(str(path))
            paths.append(str(path))
        start = time.perf_counter()
        local_times, dask_times = [], []
        with dask_executor(f"local:{jobs}") as executor:
            startup_s = time.perf_counter() - start
            for _ in range(rounds):  # in turn, so both sides see the same load on a shared machine
                start = time.perf_counter()
                local = audit_many(paths, CONSUMERS, jobs=jobs, progress=False)
                local_times.append(time.perf_counter() - start)
                start = time.perf_counter()
                distributed = audit_many(paths, CONSUMERS, executor=executor, progress=False)
                dask_times.append(time.perf_counter() - start)
                print(f"  round: --jobs {jobs} {n_stages / local_times[-1]:.0f} stages/s, "
                      f"--scheduler local:{jobs} {n_stages / dask_times[-1]:.0f} stages/s", flush=True)
    local_s, dask_s = min(local_times), min(dask_times)
    summary = local.summary()
    print(f"batch: {n_stages} stages ({summary['findings']} findings: {summary['error']} errors, "
          f"{summary['warning']} warnings, {summary['info']} info; {summary['failures']} not audited)")
    print(f"  best of {rounds} rounds each:")
    print(f"  --jobs {jobs}:            {local_s:7.2f} s, {n_stages / local_s:6.0f} stages/s")
    print(f"  --scheduler local:{jobs}: {dask_s:7.2f} s, {n_stages / dask_s:6.0f} stages/s "
          f"(+ {startup_s:.1f} s to start the cluster)")
    print(f"  Dask / local = {local_s / dask_s:.2f} in stages/s (target >= 0.85); reports identical: "
          f"{distributed == local}")


def large(n_joints: int, repeats: int) -> None:
    from pxr import Usd

    with tempfile.TemporaryDirectory(prefix="usdjoints-audit-chain-") as folder:
        path = make_chain_stage(Path(folder) / "chain.usdc", n_joints)
        stage = Usd.Stage.Open(str(path))
        rules = select_rules()
        walk_times, audit_times, single_times = [], [], []
        findings = 0
        for _ in range(repeats):
            start = time.perf_counter()
            walk_many(stage, ("ovphysx",))  # what `usdjoints walk` does
            single_times.append(time.perf_counter() - start)
            start = time.perf_counter()
            walk_many(stage, CONSUMERS)
            walk_times.append(time.perf_counter() - start)
            start = time.perf_counter()
            findings = len(audit_stage(stage, CONSUMERS, rules).findings)
            audit_times.append(time.perf_counter() - start)
    walk_s, audit_s = statistics.median(walk_times), statistics.median(audit_times)
    single_s = statistics.median(single_times)
    print(f"large: {n_joints} joints, median of {repeats}: walk (one consumer) {single_s:.3f} s, "
          f"walk (3 consumers, one scan) {walk_s:.3f} s, audit {audit_s:.3f} s ({findings} findings)")
    print(f"audit / walk = {audit_s / single_s:.2f} (target <= 2); audit / 3-consumer walk = {audit_s / walk_s:.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stages", type=int, default=10_000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2, help="batch runs of each side, in turn (best counts)")
    parser.add_argument("--joints", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--large", action=argparse.BooleanOptionalAction, default=True,
                        help="also time the large stage against its walk")
    args = parser.parse_args()
    batch(args.stages, args.jobs, args.rounds)
    if args.large:
        large(args.joints, args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
