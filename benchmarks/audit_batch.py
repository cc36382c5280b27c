"""Auditor throughput: a batch of small stages, local processes against Dask, and one large stage
against its walk.

1. Writes ``--stages`` small random stages (tests/stagegen.py ``generate_stage(seed)``) to a
   temporary folder and audits them all, in turn, with ``--jobs`` local worker processes
   (``usdjoints audit DIR --jobs N``) and on a Dask LocalCluster of as many single-threaded
   worker processes (``--scheduler local:N``), in rounds whose order alternates (local then Dask,
   Dask then local, ...: the machine may be shared); prints each round's stages per second, its
   Dask / local ratio and the load average, then the medians (the cluster's start-up, timed
   apart), and checks that every run's report is identical to the first, to the byte.
2. Writes a stage of ``--joints`` revolute joints in chained articulations
   (benchmarks/make_chain_stage.py), opens it once, and times, alternately, the walk every rule
   reads (``walk_many`` over the three consumers: one scan) and the full audit of the open stage
   (that walk plus every rule); prints both medians and audit / walk (target <= 2).

Usage: ``python benchmarks/audit_batch.py [--stages 10000] [--jobs 2] [--rounds 4] [--joints 10000] [--repeats 3]
[--no-large]``
"""
from __future__ import annotations

import argparse
import os
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


def _load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def batch(n_stages: int, jobs: int, rounds: int) -> None:
    """Rounds of one local run and one Dask run, the order alternating (A B, B A, ...), so drifting
    load from other users of the machine falls on both; the ratio of each round, and their median."""
    from usdjoints.auditor.dask_cluster import dask_executor
    from usdjoints.auditor.writers import render

    with tempfile.TemporaryDirectory(prefix="usdjoints-audit-batch-") as folder:
        paths = []
        for seed in range(n_stages):
            path = Path(folder) / f"stage_{seed:05d}.usda"
            stage = generate_stage(seed)  # held: the layer dies with a temporary stage
            stage.GetRootLayer().Export(str(path))
            paths.append(str(path))
        print(f"batch: {n_stages} stages written; {_load()}", flush=True)
        start = time.perf_counter()
        rates: dict[str, list[float]] = {"local": [], "dask": []}
        ratios = []
        reference = None
        identical = True
        with dask_executor(f"local:{jobs}") as executor:
            startup_s = time.perf_counter() - start  # the cluster's start and each worker's import of usdjoints
            runs = {"local": lambda: audit_many(paths, CONSUMERS, jobs=jobs, progress=False),
                    "dask": lambda: audit_many(paths, CONSUMERS, executor=executor, progress=False)}
            for round_ in range(rounds):
                order = ("local", "dask") if round_ % 2 == 0 else ("dask", "local")
                load = _load()
                for side in order:
                    begin = time.perf_counter()
                    report = runs[side]()
                    rates[side].append(n_stages / (time.perf_counter() - begin))
                    if reference is None:
                        reference, reference_json = report, render(report, "json")
                    else:  # the same work: every run's report equals the first, to the byte
                        identical = identical and report == reference and render(report, "json") == reference_json
                ratios.append(rates["dask"][-1] / rates["local"][-1])
                print(f"  round {round_ + 1} ({' then '.join(order)}; {load} at its start): --jobs {jobs} "
                      f"{rates['local'][-1]:.0f} stages/s, --scheduler local:{jobs} {rates['dask'][-1]:.0f} stages/s, "
                      f"Dask / local = {ratios[-1]:.3f}", flush=True)
    summary = reference.summary()
    print(f"batch: {n_stages} stages ({summary['findings']} findings: {summary['error']} errors, "
          f"{summary['warning']} warnings, {summary['info']} info; {summary['failures']} not audited)")
    print(f"  median of {rounds} rounds each ({_load()} at the end):")
    print(f"  --jobs {jobs}:            {statistics.median(rates['local']):6.0f} stages/s")
    print(f"  --scheduler local:{jobs}: {statistics.median(rates['dask']):6.0f} stages/s "
          f"(+ {startup_s:.1f} s once to start the cluster)")
    print(f"  Dask / local = {statistics.median(ratios):.3f} in stages/s, median of the rounds' ratios "
          f"(each: {', '.join(f'{r:.3f}' for r in ratios)}; target >= 0.85); every report identical: {identical}")


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
    parser.add_argument("--rounds", type=int, default=4,
                        help="rounds of one run of each side, the order alternating; the median ratio counts")
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
