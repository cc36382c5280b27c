"""The ``usdjoints`` command line: argparse, kebab-case flags, ``main() -> int``.

Exit codes: 0 ok; 1 findings at or above the threshold (audit) or a failed run; 2 usage error or
unreadable input. Errors are one line on stderr; ``--verbose`` adds the traceback.
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Callable, Optional, Sequence

from .auditor.cli import register as _register_audit
from .schemas import register as _register_schema
from .errors import UsageError, UsdJointsError
from .profiles import NAMES as CONSUMER_CHOICES  # the registry of consumer profiles


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors with exit code 2 in one line."""

    def error(self, message: str) -> None:  # pragma: no cover - exercised through main()
        self.print_usage(sys.stderr)
        self.exit(2, f"usdjoints: error: {message}\n")


def _cmd_walk(args: argparse.Namespace) -> int:
    from .walker import walk
    from .walker.render import render_text, walk_json
    from .walker.stage_io import open_stage
    from .jsonio import dumps

    stage = open_stage(args.stage)
    description = walk(stage, consumer=args.consumer)
    if args.format == "json":
        _write(dumps(walk_json(description)))
    else:
        _write(render_text(description))
    return 0


def _cmd_columns(args: argparse.Namespace) -> int:
    from .contract.render import columns_json, render_columns_text
    from .jsonio import dumps

    if args.format == "json":
        _write(dumps(columns_json(args.name)))
    else:
        _write(render_columns_text(args.name))
    return 0


# env-steps past which a run on a terminal shows a progress bar (about a second of stepping)
LONG_RUN_ENV_STEPS = 500_000
LONG_RUN_NOTICE_S = 60.0  # an estimated stepping time [s] worth a note on stderr
# seconds of loading the kernels after which a terminal is told they are being compiled
COMPILE_NOTICE_AFTER = 3.0


def _cmd_simulate(args: argparse.Namespace) -> int:
    from .trajectory_io import plot_backend
    from .walker.stage_io import open_stage

    from .outputs import USD_FILE_EXTENSIONS, USD_LAYER_EXTENSIONS, check_outputs

    if args.duration < 0 or args.dt <= 0 or args.envs < 1:
        raise UsageError("--duration must be >= 0, --dt > 0 and --envs >= 1")
    if args.write_usd and args.envs != 1:
        raise UsageError(f"--write-usd writes one environment; --envs {args.envs} cannot go with it "
                         "(run with --envs 1, or drop --write-usd)")
    requested = [("--out", args.out), ("--write-usd", args.write_usd), ("--plot", args.plot)]
    stage = open_stage(args.stage)
    # every output checked once, before the run (a FIFO opened here stays open until it is written)
    with check_outputs(requested, inputs=[args.stage], stages=[stage],
                       extensions={"--write-usd": USD_LAYER_EXTENSIONS, "--plot": (".png",)}) as outputs:
        # after the checks that protect the stage and its layers, whose messages matter more
        if args.out and os.path.splitext(args.out)[1].lower() in USD_FILE_EXTENSIONS:
            raise UsageError(f"{args.out}: --out writes an npz archive, which a USD name would hide; "
                             "--write-usd writes the motion as USD time samples")
        if args.plot:
            plot_backend()  # before the run: no outputs from a run whose plot cannot be drawn
        return _simulate_checked(args, stage, outputs)


def _simulate_checked(args: argparse.Namespace, stage, outputs) -> int:
    import math
    import threading
    import time

    from .model.build import build_model
    from .progress import ProgressBar
    from .sim.api import check_run, quaternion_starts, recording_plan, simulate, step_flops, step_seconds
    from .sim.limit_excess import SHOWN_LIMITS_PASSED, limits_passed
    from .sim.loop_gaps import open_loops
    from .sim.trajectory import resample
    from .trajectory_io import write_npz, write_plot, write_usd_time_samples
    from .walker import walk

    record_every, times = recording_plan(args.fps, args.dt, args.duration, args.envs)  # bad numbers: before any work
    description = walk(stage, consumer="usdjoints")
    for diagnostic in description.diagnostics:  # a unit the stage cannot give: the run scales by the fallback
        if diagnostic.code == "invalid-stage-units":
            _note(args, f"usdjoints: warning: {diagnostic.message}")
    model = build_model(description, stage, contact=args.contact)
    for diagnostic in model.diagnostics:  # what the model made of the stage (PhysX's rules)
        if diagnostic.severity == "warning":
            _note(args, f"usdjoints: warning: {diagnostic.prim}: {diagnostic.message}")
    n_steps, _ = check_run(model, args.duration, args.dt, args.envs, record_every)  # before the compile
    flops = step_flops(model)
    seconds = (n_steps + 1) * args.envs * step_seconds(model, flops) / max(1, min(args.envs, os.cpu_count() or 1))
    if seconds > LONG_RUN_NOTICE_S:  # many steps, or a long chain (its factorisation: n^3 / 3 flops)
        _note(args, f"usdjoints: note: {n_steps + 1:,} steps of {args.envs:,} env(s) of {model.nv:,} dofs "
                    f"(factored in about {flops:.2g} flops a step) may take {_duration(seconds)}")
    show = args.progress if args.progress is not None else (
        not args.quiet and sys.stderr.isatty()
        and (n_steps * args.envs >= LONG_RUN_ENV_STEPS or seconds > LONG_RUN_NOTICE_S))
    # compile (or load) the kernels first, so the rate below times the stepping alone
    notice = threading.Timer(COMPILE_NOTICE_AFTER, print, (
        "usdjoints: compiling the simulator's kernels; this happens once per numba cache "
        "and takes up to a minute",), {"file": sys.stderr, "flush": True})
    if not args.quiet:
        notice.start()  # on any stderr, a log too; a load from the cache ends well before it fires
    try:
        simulate(model, 0.0, args.dt, integrator=args.integrator, n_envs=1)
    finally:
        notice.cancel()
    started = time.perf_counter()
    trajectory = simulate(model, args.duration, args.dt, integrator=args.integrator, n_envs=args.envs,
                          record_every=record_every, progress=ProgressBar("simulate") if show else None)
    elapsed = time.perf_counter() - started
    for loop, gap in open_loops(model, trajectory.q):  # before resampling: the states the run reached
        _note(args, f"usdjoints: warning: {loop}: this loop-closing joint opened by {gap:.3g} m in the run: "
                    "the step could not hold it together with the mechanism's other loops, couplings "
                    "and limits")
    passed = limits_passed(model, trajectory.q, trajectory.t)  # the states the run reached
    for label, value, unit, when in passed[:SHOWN_LIMITS_PASSED]:
        _note(args, f"usdjoints: warning: {label} went {value:.3g} {unit} past its limit (worst at t = {when:.4g} s): "
                    "the step could not hold the limit together with the mechanism's loops, couplings and "
                    "contacts")
    if len(passed) > SHOWN_LIMITS_PASSED:
        _note(args, f"usdjoints: warning: {len(passed) - SHOWN_LIMITS_PASSED} more joint(s) went past their limits")
    if times is not None:
        trajectory = resample(trajectory, times, quaternion_starts(model))
    if args.out:
        write_npz(trajectory, outputs["--out"])
    if args.write_usd:
        write_usd_time_samples(trajectory, description, stage, outputs["--write-usd"])
    if args.plot:
        write_plot(trajectory, outputs["--plot"])
    q_last = trajectory.q[-1] if trajectory.n_envs == 1 else trajectory.q[0, -1]
    lines = [f"{args.stage}: {model.nq} coordinates, {len(model.joint_names)} joints, "
             f"{len(trajectory.t)} samples over {args.duration:g} s ({args.integrator}, dt={args.dt:g} s)"]
    for j, name in enumerate(model.joint_names):
        start, count = int(model.joint_q_start[j]), int(model.joint_nq[j])
        values = ", ".join(f"{v:.6g}" for v in q_last[start:start + count])
        lines.append(f"  {name} ({model.joint_types[j]}): q(t_end) = [{values}]")
    if args.envs > 1:
        import numba

        rate = n_steps * args.envs / elapsed if elapsed > 0 else math.inf
        lines.append(f"{args.envs} envs x {n_steps} steps in {elapsed:.3f} s: {rate / 1e6:.3f} M env-steps/s "
                     f"on {min(args.envs, numba.get_num_threads())} threads")
    _write("\n".join(lines))
    return 0


def _cmd_convert(args: argparse.Namespace) -> int:
    from .convert.api import convert_file
    from .convert.report import EntryKind
    from .convert.usd_writer import MASSLESS_MASS
    from .outputs import USD_FILE_EXTENSIONS, USD_LAYER_EXTENSIONS, check_outputs

    packages = {}
    for item in args.package:
        name, sep, directory = item.partition("=")
        if not sep or not name or not directory:
            raise UsageError(f"--package expects NAME=DIR, got {item!r}")
        packages[name] = directory
    floating = True if args.floating_base else (False if args.fixed_base else None)
    with check_outputs([("-o", args.output)], inputs=[args.input],
                       extensions={"-o": USD_LAYER_EXTENSIONS}) as outputs:
        report = convert_file(args.input, outputs["-o"], packages=packages, resource_paths=args.resource_path,
                              floating_base=floating, strict=args.strict, confine=args.confine,
                              world=args.world)
    for entry in report.warnings:
        _note(args, f"usdjoints: warning: {entry.where}: {entry.element}: {entry.message}")
    stand_ins = sum(1 for e in report.entries if e.kind is EntryKind.CHOICE and e.element.endswith(" mass")
                    and e.message.startswith("no <inertial>"))
    if report.body_count >= 2 and stand_ins >= report.body_count:  # robotics-toolbox's puma560 URDF
        _note(args, f"usdjoints: note: none of the {report.body_count} bodies has an <inertial>: each is written "
                    f"as a {MASSLESS_MASS:g} kg stand-in, so a simulation of this stage does not move as the robot does")
    if args.report == "json":
        from .jsonio import dumps

        _write(dumps(report.to_json()))
    else:
        _write(f"{args.input} -> {args.output}: {report.body_count} bodies, {report.joint_count} joints, "
               f"{report.base_text}, {len(report.defaults)} spec defaults used, "
               f"{len(report.dropped)} dropped, {len(report.kept)} kept, {len(report.warnings)} warnings")
    return 0


def _cmd_plugin_path(args: argparse.Namespace) -> int:
    from .plugin_path import plugin_search_path

    _write(plugin_search_path())
    return 0


def _write(text: str) -> None:
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


def _duration(seconds: float) -> str:
    """About how long ``seconds`` is, in the largest unit that fits."""
    for unit, size in (("days", 86400.0), ("hours", 3600.0), ("minutes", 60.0)):
        if seconds >= size:
            return f"about {seconds / size:.2g} {unit}"
    return f"about {seconds:.2g} s"


def _note(args: argparse.Namespace, line: str) -> None:
    """A warning or a notice on stderr (one line each); ``--quiet`` keeps them back."""
    if not getattr(args, "quiet", False):
        print(line, file=sys.stderr)


class _HelpFormatter(argparse.HelpFormatter):
    """Help that shows every default: ``(default: X)`` after each option that has one."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if ("%(default)" in text or "default:" in text or default in (None, False, argparse.SUPPRESS)
                or default == [] or not (action.option_strings or action.nargs in ("?", "*"))):
            return text
        return f"{text} (default: %(default)s)" if text else "default: %(default)s"

    def _format_action(self, action: argparse.Action) -> str:
        if not action.help and self._get_help_string(action):
            action.help = self._get_help_string(action)  # options without help still show their default
        return super()._format_action(action)


def _version() -> str:
    try:
        from importlib.metadata import PackageNotFoundError, version

        return version("usdjoints")
    except PackageNotFoundError:  # run from a source tree that is not installed
        from . import __version__

        return __version__


class _VersionAction(argparse.Action):
    """``--version``: the installed version, read when asked (importlib.metadata is not imported
    on every start)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS,
                 help="show program's version number and exit"):
        super().__init__(option_strings=option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"usdjoints {_version()}")  # on stdout, as argparse's own version action
        parser.exit()


def _add_common(parser: argparse.ArgumentParser, top: bool) -> None:
    """``--verbose``/``--quiet``, accepted before and after the subcommand alike."""
    default = {} if top else {"default": argparse.SUPPRESS}  # a subcommand never resets the top-level value
    parser.add_argument("--verbose", action="store_true", help="add the traceback to an error (same exit code)",
                        **default)
    parser.add_argument("--quiet", action="store_true", help="print errors only: no warnings, notices or progress",
                        **default)


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="usdjoints", formatter_class=_HelpFormatter,
                     description="Read, audit, convert and simulate the joints of OpenUSD physics stages.")
    parser.add_argument("--version", action=_VersionAction)
    _add_common(parser, top=True)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    walk = commands.add_parser("walk", help="print every joint as one consumer reads it, with provenance")
    walk.add_argument("stage", metavar="STAGE", help="a .usda, .usdc or .usd file")
    walk.add_argument("--consumer", choices=CONSUMER_CHOICES, default="ovphysx", help="whose reading to print")
    walk.add_argument("--format", choices=("text", "json"), default="text", help="output format on stdout")
    walk.set_defaults(run=_cmd_walk)

    columns = commands.add_parser("columns", help="print the column contract of a joint type or API")
    columns.add_argument("name", nargs="?", metavar="TYPE_OR_API", help="one joint type or API (default: all)")
    columns.add_argument("--format", choices=("text", "json"), default="text", help="output format on stdout")
    columns.set_defaults(run=_cmd_columns)

    convert = commands.add_parser("convert", help="convert a URDF or SDFormat robot into a UsdPhysics stage")
    convert.add_argument("input", metavar="INPUT.urdf|INPUT.sdf", help="the robot description")
    convert.add_argument("-o", "--output", required=True, metavar="OUT.usda|OUT.usdc",
                         help="the stage to write (its folder must exist; never the input)")
    convert.add_argument("--package", action="append", default=[], metavar="NAME=DIR",
                         help="where package://NAME/ resolves (repeatable; ROS_PACKAGE_PATH is searched too; "
                              "default: none)")
    convert.add_argument("--resource-path", action="append", default=[], metavar="DIR",
                         help="where model:// and relative includes resolve (repeatable; default: none)")
    base = convert.add_mutually_exclusive_group()
    base.add_argument("--fixed-base", action="store_true",
                      help="weld the root link to the world (default: as the file says)")
    base.add_argument("--floating-base", action="store_true",
                      help="leave the root link free (default: as the file says)")
    convert.add_argument("--strict", action="store_true", help="treat conversion warnings as errors (default: off)")
    convert.add_argument("--confine", action="store_true",
                         help="read meshes and includes only inside the input's folder, --package and "
                              "--resource-path folders (for untrusted files; default: off)")
    convert.add_argument("--world", metavar="NAME", default=None,
                         help="the world to convert, of an SDFormat file that holds several (default: its only one)")
    convert.add_argument("--report", choices=("text", "json"), default="text", help="summary format on stdout")
    convert.set_defaults(run=_cmd_convert)

    sim = commands.add_parser("simulate", help="run the stage in usdjoints' reduced-coordinate simulator")
    sim.add_argument("stage", metavar="STAGE", help="a .usda, .usdc or .usd file")
    sim.add_argument("--duration", type=float, default=1.0, help="simulated time [s]")
    sim.add_argument("--dt", type=float, default=1e-3, help="time step [s]")
    sim.add_argument("--integrator", choices=("euler", "rk4"), default="euler", help="time integrator")
    sim.add_argument("--envs", type=int, default=1, help="identical environments run side by side")
    sim.add_argument("--fps", type=float, default=60.0, help="recorded samples per second (0 = every step)")
    sim.add_argument("--out", metavar="TRAJ.npz", help="write the trajectory as an npz archive (default: none)")
    sim.add_argument("--write-usd", metavar="OUT.usda",
                     help="write body motion as time samples over the stage (default: none; needs --envs 1)")
    sim.add_argument("--plot", metavar="OUT.png", help="plot joint coordinates (needs matplotlib; default: none)")
    sim.add_argument("--contact", action=argparse.BooleanOptionalAction, default=True,
                     help="collide the stage's colliders; --no-contact leaves them out")
    sim.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                     help="progress bar on stderr (default: on a terminal, for runs of 500,000 env-steps or more)")
    sim.set_defaults(run=_cmd_simulate)

    plugin = commands.add_parser("plugin-path", help="print the value for PXR_PLUGINPATH_NAME")
    plugin.set_defaults(run=_cmd_plugin_path)

    for register in _EXTRA_COMMANDS:
        register(commands)
    for sub in commands.choices.values():
        sub.formatter_class = _HelpFormatter
        _add_common(sub, top=False)
    return parser


# Subcommands contributed by other modules: each is ``register(subparsers)`` setting ``run``.
_EXTRA_COMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [_register_audit, _register_schema]

# One line per error (messages are written to stay under ~200 characters plus the paths they name);
# anything longer is cut here, the full text is in the --verbose traceback.
MAX_ERROR_LINE = 1000


def _one_line(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= MAX_ERROR_LINE else text[:MAX_ERROR_LINE - 3] + "..."


def _escape_unencodable() -> None:
    """Text the terminal's encoding cannot hold (PYTHONIOENCODING=ascii) is escaped, not a crash."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and getattr(stream, "errors", None) in ("strict", "surrogateescape"):
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # a stream that cannot be reconfigured: leave it
                pass


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Python warnings as one line each, like every other usdjoints message."""
    print(f"usdjoints: warning: {_one_line(message)}", file=sys.stderr)


# closed stdout (``usdjoints columns | head -1``): quiet, with the status of a tool killed by SIGPIPE
EXIT_BROKEN_PIPE = 141


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run one command; returns the exit code. Nothing a user types reaches a traceback: usage and
    input problems are one line and exit 2 (``--verbose`` adds the traceback, never changes the code)."""
    import warnings

    _escape_unencodable()
    try:
        parser = _build_parser()
        args, extra = parser.parse_known_args(argv)
        if extra:
            # audit's stages may sit on both sides of its options (audit a.usda --strict b.usda), as
            # in most tools; argparse leaves the ones after an option over
            if isinstance(getattr(args, "stages", None), list) and not any(e.startswith("-") for e in extra):
                args.stages.extend(extra)
            else:
                parser.error(f"unrecognized arguments: {' '.join(extra)}")
        if args.verbose and args.quiet:
            parser.error("--verbose and --quiet cannot go together")
        saved_verbose = os.environ.get("USDJOINTS_VERBOSE")
        if args.verbose:
            os.environ["USDJOINTS_VERBOSE"] = "1"
        try:
            with warnings.catch_warnings():
                if args.quiet:
                    warnings.simplefilter("ignore")
                elif not args.verbose:
                    # NumPy's floating-point warnings: the commands report non-finite results themselves
                    warnings.filterwarnings("ignore", category=RuntimeWarning, message=r".* encountered in ")
                    warnings.showwarning = _show_warning
                code = _run(args)
        finally:
            if saved_verbose is None:
                os.environ.pop("USDJOINTS_VERBOSE", None)
            else:
                os.environ["USDJOINTS_VERBOSE"] = saved_verbose
        sys.stdout.flush()  # a closed pipe shows here, inside the handler below, not at exit
        return code
    except BrokenPipeError:
        _stdout_to_devnull()
        return EXIT_BROKEN_PIPE


def _run(args: argparse.Namespace) -> int:
    try:
        return int(args.run(args))
    except BrokenPipeError:
        raise
    except UsdJointsError as error:
        if args.verbose:
            import traceback

            traceback.print_exc()
        print(f"usdjoints: error: {_one_line(error)}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        return 130
    except Exception as error:  # a defect in usdjoints: say so in one line, traceback on --verbose
        if args.verbose:
            import traceback

            traceback.print_exc()
        print(_one_line(f"usdjoints: internal error: {type(error).__name__}: {error}")
              + " (rerun with --verbose and report it)", file=sys.stderr)
        return 1


def _stdout_to_devnull() -> None:
    """Point stdout at /dev/null so the interpreter's final flush finds nothing to complain about
    (the recipe of Python's signal documentation for SIGPIPE)."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, ValueError, OSError):
        return  # not a real file (a test's capture): nothing is flushed at exit
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
