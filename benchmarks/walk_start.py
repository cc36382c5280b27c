"""Start-up of ``usdjoints walk`` against bare OpenUSD, each in a fresh process.

Each round starts two new interpreters on the same small stage: one runs
``usdjoints walk STAGE --format json`` through the CLI's ``main``, the other imports ``pxr``,
opens the stage and runs ``UsdPhysics.LoadUsdPhysicsFromRange`` (the least any USD physics
reader does). The process CPU time (user + system, from ``getrusage``) of each is recorded, and
the medians and their ratio are printed, with the modules each process had loaded.

Usage: ``python benchmarks/walk_start.py [--stage sample_stages/revolute_basic.usda] [--rounds 7]``
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

_WALK = """
import resource, sys
from usdjoints.cli import main
import io, contextlib
with contextlib.redirect_stdout(io.StringIO()):
    code = main(['walk', sys.argv[1], '--format', 'json'])
u = resource.getrusage(resource.RUSAGE_SELF)
print(u.ru_utime + u.ru_stime, len(sys.modules), code)
"""

_BARE = """
import resource, sys, warnings
from pxr import Sdf, Usd, UsdPhysics
stage = Usd.Stage.Open(sys.argv[1])
with warnings.catch_warnings():
    warnings.simplefilter('ignore', DeprecationWarning)
    UsdPhysics.LoadUsdPhysicsFromRange(stage, [Sdf.Path.absoluteRootPath])
u = resource.getrusage(resource.RUSAGE_SELF)
print(u.ru_utime + u.ru_stime, len(sys.modules), 0)
"""


def _run(script: str, stage: str) -> tuple[float, int]:
    result = subprocess.run([sys.executable, "-c", script, stage], capture_output=True, text=True,
                            check=True, cwd=REPO)
    seconds, modules, code = result.stdout.split()
    if code != "0":
        raise SystemExit(f"walk exited {code}: {result.stderr.strip()}")
    return float(seconds), int(modules)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stage", default=str(REPO / "sample_stages" / "revolute_basic.usda"))
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    walk, bare = [], []
    for index in range(args.rounds):
        # Alternate which side goes first, so a warming page cache favours neither.
        order = [(walk, _WALK), (bare, _BARE)] if index % 2 == 0 else [(bare, _BARE), (walk, _WALK)]
        for samples, script in order:
            samples.append(_run(script, args.stage))
    walk_s = statistics.median(s for s, _ in walk)
    bare_s = statistics.median(s for s, _ in bare)
    print(f"stage: {args.stage}  rounds: {args.rounds}")
    print(f"usdjoints walk   {walk_s:7.3f} s CPU  ({walk[0][1]} modules)")
    print(f"pxr open+parse   {bare_s:7.3f} s CPU  ({bare[0][1]} modules)")
    print(f"ratio walk/bare  {walk_s / bare_s:7.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
