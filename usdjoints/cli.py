"""The ``usdjoints`` command line: argparse, kebab-case flags, ``main() -> int``.

Exit codes: 0 ok; 1 findings at or above the threshold (audit) or a failed run; 2 usage error or
unreadable input. Errors are one line on stderr; ``--verbose`` adds the traceback.
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Callable, Optional, Sequence

from .errors import UsdJointsError

CONSUMER_CHOICES = ("ovphysx", "usdphysics", "usdjoints")


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


def _cmd_plugin_path(args: argparse.Namespace) -> int:
    from .plugin_path import plugin_path

    _write(plugin_path())
    return 0


def _write(text: str) -> None:
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="usdjoints", description="Read, audit, convert and simulate the joints of OpenUSD physics stages.")
    parser.add_argument("--verbose", action="store_true", help="show tracebacks on errors")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    walk = commands.add_parser("walk", help="print every joint as one consumer reads it, with provenance")
    walk.add_argument("stage", metavar="STAGE")
    walk.add_argument("--consumer", choices=CONSUMER_CHOICES, default="ovphysx")
    walk.add_argument("--format", choices=("text", "json"), default="text")
    walk.set_defaults(run=_cmd_walk)

    columns = commands.add_parser("columns", help="print the column contract of a joint type or API")
    columns.add_argument("name", nargs="?", metavar="TYPE_OR_API")
    columns.add_argument("--format", choices=("text", "json"), default="text")
    columns.set_defaults(run=_cmd_columns)

    plugin = commands.add_parser("plugin-path", help="print the value for PXR_PLUGINPATH_NAME")
    plugin.set_defaults(run=_cmd_plugin_path)

    for register in _EXTRA_COMMANDS:
        register(commands)
    return parser


# Subcommands contributed by other modules: each is ``register(subparsers)`` setting ``run``.
_EXTRA_COMMANDS: list[Callable[[argparse._SubParsersAction], None]] = []


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = _build_parser()
    args = parser.parse_args(argv)
    if args.verbose:
        os.environ["USDJOINTS_VERBOSE"] = "1"
    try:
        return int(args.run(args))
    except UsdJointsError as error:
        if args.verbose:
            raise
        print(f"usdjoints: error: {error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
