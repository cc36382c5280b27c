"""``python -m tests.fuzz --cases 10000 --jobs 2``: a fuzzing campaign, with the counts printed."""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from .campaign import CLASSES, Campaign, default_workdir
from .seeds import KINDS


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__)
    parser.add_argument("--cases", type=int, default=1000, help="number of cases (default 1000)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--kinds", default=",".join(KINDS), help=f"input kinds (default {','.join(KINDS)})")
    parser.add_argument("--out", type=Path, default=None, help="working folder (default: a new temporary one)")
    parser.add_argument("--simulate-rate", type=float, default=0.02,
                        help="share of USD cases also simulated for 4 steps (default 0.02)")
    parser.add_argument("--cli-rate", type=float, default=0.02,
                        help="share of cases also run through the command line (default 0.02)")
    parser.add_argument("--minimise", action="store_true", help="shrink one example of each distinct failure")
    parser.add_argument("--progress", type=int, default=250, help="print a progress line every N cases")
    args = parser.parse_args(argv)
    kinds = tuple(k for k in args.kinds.split(",") if k)
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        parser.error(f"unknown kinds {unknown}; choose from {list(KINDS)}")
    out = args.out or default_workdir()
    out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with open(out / "results.jsonl", "w") as log:
        campaign = Campaign(args.cases, args.jobs, args.seed, out, kinds, simulate_rate=args.simulate_rate,
                            cli_rate=args.cli_rate, log=log).run(progress=args.progress)
    elapsed = time.monotonic() - started
    print(f"{args.cases} cases in {elapsed:.0f} s (seed {args.seed}, {args.jobs} jobs), working folder {out}")
    print("class counts: " + " ".join(f"{c}={campaign.counts.get(c, 0)}" for c in CLASSES))
    print("per kind:")
    for kind in kinds:
        counts = campaign.by_kind.get(kind, {})
        print(f"  {kind:5s} " + " ".join(f"{c}={counts.get(c, 0)}" for c in CLASSES))
    print(f"distinct failures: {len(campaign.distinct)}")
    for entry in sorted(campaign.distinct.values(), key=lambda e: -e["count"]):
        step = entry["step"]
        print(f"  {entry['count']:5d}  {'/'.join(str(k) for k in entry['key'])}  [{entry['kind']} {step['step']}] "
              f"{(step.get('message') or '')[:120]}  -> {entry['example']}")
    if args.minimise and campaign.distinct:
        from .minimise import minimise_all

        minimise_all(campaign, out / "minimal")
    (out / "summary.json").write_text(json.dumps({
        "cases": args.cases, "seed": args.seed, "counts": campaign.counts,
        "per_kind": {k: dict(v) for k, v in campaign.by_kind.items()},
        "distinct": list(campaign.distinct.values())}, indent=1, default=str))
    bad = sum(campaign.counts.get(c, 0) for c in CLASSES[2:])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
