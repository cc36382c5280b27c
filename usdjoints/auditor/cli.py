"""``usdjoints audit``: the command line of the auditor.

Exit codes: 0 nothing at or above the threshold (errors; warnings too with ``--strict``), 1
findings, 2 usage error, or no STAGE could be audited, or any could not with ``--strict-inputs``
(stages that cannot be audited, crashed or ran past ``--stage-timeout`` are always reported, on
stderr and in the report), or a Dask cluster without workers (none for 30 s: the batch ends).
"""
from __future__ import annotations

import argparse
import sys

from ..profiles import NAMES as CONSUMERS
from .batch import STAGE_TIMEOUT

MAX_JOBS = 1024  # local worker processes (--jobs): past this many, a cluster is the way (--scheduler)


def register(subparsers) -> None:
    """Add the ``audit`` subcommand to the ``usdjoints`` parser."""
    parser = subparsers.add_parser(
        "audit", help="report what each consumer will really do with the joints of stages",
        description="Audit USD stages (files, directories, glob patterns) for joint hazards, per consumer.")
    parser.add_argument("stages", nargs="*", metavar="STAGE", help="USD files, directories or glob patterns")
    parser.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    parser.add_argument("--strict", action="store_true", help="warnings fail too (exit 1)")
    # Checked by resolve_consumers, not argparse choices: an unknown name is one error line.
    parser.add_argument("--consumer", action="append", metavar="NAME",
                        help=f"consider only this consumer (repeatable; {', '.join(CONSUMERS)})")
    parser.add_argument("--rule", action="append", metavar="ID", help="run only this rule (repeatable)")
    parser.add_argument("--fix", metavar="OUT",
                        help="write a layer over the (single) STAGE pinning divergent defaults; the stage is read "
                             "once, in this process, for the layer and the report (no --jobs, --scheduler, "
                             "--stage-timeout or --progress)")
    parser.add_argument("--list-rules", action="store_true", help="print every rule and exit")
    parser.add_argument("-o", "--output", default="-", metavar="OUT", help="write the report to OUT ('-' = stdout)")
    _add_batch_arguments(parser)
    _add_report_arguments(parser)
    parser.set_defaults(run=run)


def _add_batch_arguments(parser) -> None:
    """Where and how a batch runs; none of these changes the report."""
    batch = parser.add_argument_group("batch")
    where = batch.add_mutually_exclusive_group()
    where.add_argument("--jobs", type=int, default=1, metavar="N", help="audit in N local worker processes")
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="audit on a Dask cluster: tcp://HOST:PORT of a running scheduler, or local:N to start "
                            "N local worker processes (needs the dask extra)")
    batch.add_argument("--strict-inputs", action="store_true",
                       help="exit 2 when any STAGE cannot be audited (default: only when none can)")
    batch.add_argument("--stage-timeout", type=float, default=None, metavar="SECONDS",
                       help="give up on a stage that takes longer and report it as timed out, like a stage that "
                            f"crashed (default: {STAGE_TIMEOUT:g}; 0: no limit)")
    batch.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                       help="progress bar with rate and ETA on stderr (default: when stderr is a terminal)")


def _add_report_arguments(parser) -> None:
    """What the report keeps; the exit code still counts every finding."""
    report = parser.add_argument_group("report")
    report.add_argument("--min-severity", choices=("info", "warning", "error"), metavar="LEVEL",
                        help="leave out findings below LEVEL (info, warning, error)")
    report.add_argument("--max-results", type=int, metavar="N",
                        help="keep at most N findings, the most severe first (GitHub code scanning takes 25,000 "
                             "per run); the report says how many were left out")


def run(args: argparse.Namespace) -> int:
    from ..errors import UsageError
    from .engine import expand_inputs, resolve_consumers
    from .registry import select_rules
    from .writers import list_rules_text, render
    from ..outputs import USD_LAYER_EXTENSIONS, check_outputs, use_colour, write_to

    if args.list_rules:
        write_to(check_outputs([("-o", args.output)], to_stdout=("-o",)).get("-o", "-"), list_rules_text())
        return 0
    if not args.stages:
        raise UsageError("audit needs at least one STAGE (or --list-rules)")
    if not 1 <= args.jobs <= MAX_JOBS:
        raise UsageError(f"--jobs must be from 1 to {MAX_JOBS} (worker processes, each holding a stage)")
    if args.scheduler is not None and not args.scheduler.strip():  # an unset shell variable, not "run here"
        raise UsageError("--scheduler needs an address: tcp://HOST:PORT (or HOST:PORT) or local:N")
    if args.stage_timeout is not None and not args.stage_timeout >= 0:
        raise UsageError("--stage-timeout must be a number of seconds >= 0 (0: no limit)")
    if args.max_results is not None and args.max_results < 0:
        raise UsageError("--max-results must be at least 0")
    consumers = resolve_consumers(args.consumer)
    if args.rule:
        select_rules(args.rule)  # an unknown id is a usage error before any work
    paths = expand_inputs(args.stages)
    outputs = check_outputs([("-o", args.output), ("--fix", args.fix)], inputs=paths, stages=paths,
                            to_stdout=("-o",), extensions={"--fix": USD_LAYER_EXTENSIONS})  # before work
    if args.fix:
        report = _fix_and_audit(args, paths, consumers, outputs["--fix"])
    else:
        report = _audit_batch(args, paths, consumers)
    report = report.limited(args.min_severity, args.max_results)
    colour = args.output == "-" and use_colour(sys.stdout)
    write_to(outputs.get("-o", "-"), render(report, args.format, colour))
    for failure in report.failures:
        print(f"usdjoints: error: {failure.message}", file=sys.stderr)
    return report.exit_code()


def _fix_and_audit(args: argparse.Namespace, paths, consumers, out):
    """--fix: one stage, walked once in this process by every consumer; the fix layer and the
    report are both made from those readings (an audit in a worker would walk it a second time)."""
    from ..errors import UsageError
    from ..walker import walk_many
    from ..walker.stage_io import open_stage
    from .engine import report_of_walks
    from .findings import merge_reports
    from .fix import write_fix_layer
    from .registry import select_rules

    if len(paths) != 1:
        raise UsageError("--fix takes exactly one STAGE")
    clashes = [option for option, given in (("--jobs", args.jobs != 1), ("--scheduler", args.scheduler),
                                            ("--stage-timeout", args.stage_timeout is not None),
                                            ("--progress", args.progress)) if given]
    if clashes:
        raise UsageError(f"--fix reads its STAGE in this process: {' and '.join(clashes)} cannot apply")
    stage = open_stage(paths[0])
    walks = walk_many(stage, CONSUMERS)
    result = write_fix_layer(stage, out, walks=walks)
    getattr(args, "quiet", False) or print(
        f"usdjoints: wrote {result.out}: {len(result.pinned)} value(s) pinned over {result.source}", file=sys.stderr)
    report = report_of_walks(stage, paths[0], walks, consumers, select_rules(args.rule), args.strict)
    return merge_reports([report], consumers, args.strict, args.strict_inputs)


def _audit_batch(args: argparse.Namespace, paths, consumers):
    from .batch import audit_many

    timeout = STAGE_TIMEOUT if args.stage_timeout is None else args.stage_timeout
    options = dict(rule_ids=args.rule, strict=args.strict, progress=args.progress, strict_inputs=args.strict_inputs,
                   stage_timeout=timeout)
    if args.scheduler:
        from .dask_cluster import dask_executor

        with dask_executor(args.scheduler) as executor:
            return audit_many(paths, consumers, executor=executor, **options)
    return audit_many(paths, consumers, jobs=args.jobs, **options)
