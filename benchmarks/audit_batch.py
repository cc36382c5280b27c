"""Auditor throughput: a batch of small stages in parallel, and one large stage against its walk.

1. Writes ``--stages`` small random stages (tests/stagegen.py ``generate_stage(seed)``) to a
   temporary folder and audits them all with ``--jobs`` worker processes, as
   ``usdjoints audit DIR --jobs N`` does; prints stages per second.
2. Writes a stage of ``--joints`` revolute joints in chained articulations
   (benchmarks/make_chain_stage.py), opens it once, and times, alternately, the walk every rule
   reads (``walk_many`` over the three consumers: one scan) and the full audit of the open stage
   (that walk plus every rule); prints both medians and audit / walk (target <= 2).

Usage: ``python benchmarks/audit_batch.py [--stages 1000] [--jobs 2] [--joints 10000] [--repeats 3]``
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


def batch(n_stages: int, jobs: int) -> None:
    with tempfile.TemporaryDirectory(prefix="usdjoints-audit-batch-") as folder:
        paths = []
        for seed in range(n_stages):
            path = Path(folder) / f"stage_{seed:05d}.usda"
            stage = generate_stage(seed)  # held: the layer dies with a temporary stage
            stage.GetRootLayer().Export(str(path))
            paths.append(str(path))
        start = time.perf_counter()
        report = audit_many(paths, CONSUMERS, jobs=jobs, progress=False)
        elapsed = time.perf_counter() - start
    summary = report.summary()
    print(f"batch: {n_stages} stages, --jobs {jobs}: {elapsed:.2f} s, {n_stages / elapsed:.0f} stages/s "
          f"({summary['findings']} findings: {summary['error']} errors, {summary['warning']} warnings, "
          f"{summary['info']} info; {summary['failures']} unreadable)")


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
    parser.add_argument("--stages", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--joints", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    batch(args.stages, args.jobs)
    large(args.joints, args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
