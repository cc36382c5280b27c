"""The walker against OpenUSD's own parser on the same stage, in the same process.

Writes (or reuses) a stage of 10,000 revolute joints in chained articulations, opens it once,
then times ``usdjoints.walk`` (every column with its provenance) and
``UsdPhysics.LoadUsdPhysicsFromRange`` alternately, and prints their medians, the ratio and the
peak memory of each. For context it also times the parser limited to one thread, and the bare
USD reads any Python walker must make (nothing kept, no provenance).

Usage: ``python benchmarks/walk_vs_usdphysics.py [--joints 10000] [--repeats 5] [--consumer ovphysx]``
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import usdjoints  # noqa: E402  (PhysX schemas before any stage is opened)
from make_chain_stage import make_chain_stage  # noqa: E402
from pxr import Sdf, Usd, UsdPhysics  # noqa: E402


def _parse(stage):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return UsdPhysics.LoadUsdPhysicsFromRange(stage, [Sdf.Path.absoluteRootPath])


def _timed(function, repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return times


def _peak_python_memory(function) -> float:
    """Peak Python-heap allocation [MB] while ``function`` runs (USD's C++ heap is not seen)."""
    tracemalloc.start()
    function()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 1e6


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--joints", type=int, default=10_000)
    parser.add_argument("--chain-length", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--consumer", default="ovphysx", choices=("ovphysx", "usdphysics", "usdjoints"))
    args = parser.parse_args(argv)

    path = Path(tempfile.gettempdir()) / f"usdjoints_chain_{args.joints}_{args.chain_length}.usdc"
    if not path.exists():
        make_chain_stage(path, args.joints, args.chain_length)
    stage = Usd.Stage.Open(str(path))
    walk = lambda: usdjoints.walk(stage, consumer=args.consumer)  # noqa: E731
    parse = lambda: _parse(stage)  # noqa: E731
    walk(), parse()  # warm caches on both sides
    walk_times, parse_times = [], []
    for _ in range(args.repeats):  # interleaved so both see the same machine state
        walk_times += _timed(walk, 1)
        parse_times += _timed(parse, 1)
    walk_median, parse_median = statistics.median(walk_times), statistics.median(parse_times)
    description = walk()
    columns = sum(len(j.columns) for j in description.joints)
    print(f"stage: {path} ({len(description.joints)} joints, {len(description.bodies)} bodies, "
          f"{len(description.articulations)} articulations, {columns} columns with provenance)")
    print(f"threads available to OpenUSD's parser: {os.cpu_count()}")
    print(f"usdjoints.walk ({args.consumer}):     median {walk_median:.3f} s  "
          f"(min {min(walk_times):.3f}, max {max(walk_times):.3f})")
    print(f"LoadUsdPhysicsFromRange:      median {parse_median:.3f} s  "
          f"(min {min(parse_times):.3f}, max {max(parse_times):.3f})")
    print(f"ratio walk / parser: {walk_median / parse_median:.2f}  (target <= 1.5, stretch 1.0)")
    print(f"peak Python heap: walk {_peak_python_memory(walk):.1f} MB, parser {_peak_python_memory(parse):.1f} MB")

    # Context for the ratio: the parser on one thread (the walk runs on one: USD's Python calls
    # hold the interpreter lock), and the least any Python reader of the same values pays.
    from pxr import Work

    limit = Work.GetConcurrencyLimit()
    Work.SetConcurrencyLimit(1)
    try:
        single = statistics.median(_timed(parse, args.repeats))
    finally:
        Work.SetConcurrencyLimit(limit)
    floor = statistics.median(_timed(lambda: _bare_reads(stage), args.repeats))
    print(f"LoadUsdPhysicsFromRange on 1 thread: median {single:.3f} s   ratio walk / that: "
          f"{walk_median / single:.2f}")
    print(f"bare USD reads from Python (traversal, type, applied schemas, authored names, every "
          f"authored physics value and relationship, body world transforms, nothing kept): median "
          f"{floor:.3f} s = {floor / parse_median:.2f} x the parser, {floor / walk_median:.0%} of the walk")
    return 0


def _bare_reads(stage) -> int:
    """The USD calls a Python walker cannot avoid, with no provenance and nothing kept."""
    from pxr import UsdGeom

    cache = UsdGeom.XformCache(Usd.TimeCode.Default())
    count = 0
    for prim in Usd.PrimRange.Stage(stage, Usd.TraverseInstanceProxies(Usd.PrimDefaultPredicate)):
        prim.GetTypeName()
        applied = prim.GetAppliedSchemas()
        for name in prim.GetAuthoredPropertyNames():
            if name.startswith(("physics:", "drive:", "limit:", "physx")):
                attribute = prim.GetAttribute(name)
                if attribute:
                    attribute.Get()
                else:
                    prim.GetRelationship(name).GetTargets()
                count += 1
        if "PhysicsRigidBodyAPI" in applied:
            cache.GetLocalToWorldTransform(prim)
    return count


if __name__ == "__main__":
    sys.exit(main())
