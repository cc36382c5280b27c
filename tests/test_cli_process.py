"""The command line behaves like a Unix tool: version, ``python -m``, flags anywhere, closed pipes,
defaults in help, unencodable text, one-line warnings, exit codes that --verbose never changes.

Oracles: the process (exit code, stdout, stderr), the package metadata, argparse's own list of
each subcommand's options and defaults, and a pseudo-terminal for colour.
"""
from __future__ import annotations

import argparse
import os
import pty
import subprocess
import sys
from importlib import metadata

import pytest

from samples import REPO, pendulum_urdf
from usdjoints import cli
from usdjoints.cli import main

CLI = [sys.executable, "-m", "usdjoints"]
STAGE = REPO / "sample_stages" / "revolute_basic.usda"
URDF_WITH_MISSING_MESH = pendulum_urdf('\n    <visual><geometry><mesh filename="missing_mesh.stl"/></geometry></visual>')


def run(*argv, env=None, **kwargs):
    return subprocess.run([*CLI, *map(str, argv)], capture_output=True, text=True, timeout=120, cwd=REPO,
                          env=dict(os.environ, **(env or {})), **kwargs)


def test_version_from_package_metadata():
    result = run("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"usdjoints {metadata.version('usdjoints')}"


def test_python_dash_m_help():
    result = run("--help")
    assert result.returncode == 0 and "walk" in result.stdout and "audit" in result.stdout


def test_verbose_and_quiet_after_the_subcommand(capsys, tmp_path):
    assert main(["walk", str(STAGE), "--verbose"]) == 0
    assert main(["walk", str(STAGE), "--quiet", "--format", "json"]) == 0
    assert main(["--verbose", "walk", str(STAGE)]) == 0
    with pytest.raises(SystemExit) as info:
        main(["walk", str(STAGE), "--verbose", "--quiet"])
    assert info.value.code == 2


def test_quiet_holds_back_warnings_but_not_errors(tmp_path):
    source = tmp_path / "r.urdf"
    source.write_text(URDF_WITH_MISSING_MESH)
    loud = run("convert", source, "-o", tmp_path / "a.usda")
    assert loud.returncode == 0
    warnings = loud.stderr.strip().splitlines()
    assert len(warnings) == 1 and warnings[0].count(": warning:") == 1, warnings  # not "warning: ...: warning:"
    assert warnings[0].startswith("usdjoints: warning: ") and "missing_mesh.stl" in warnings[0]
    quiet = run("convert", source, "-o", tmp_path / "b.usda", "--quiet")
    assert quiet.returncode == 0 and quiet.stderr == ""
    error = run("walk", tmp_path / "nope.usda", "--quiet")
    assert error.returncode == 2 and "nope.usda" in error.stderr


@pytest.mark.parametrize("argv", [["columns", "--format", "json"], ["columns"], ["walk", str(STAGE)], ["--help"]])
def test_closed_stdout_exits_quietly(argv):
    """``usdjoints columns --format json | true``: nothing on stderr (it used to be an internal error)."""
    command = " ".join(f"'{a}'" for a in [*CLI, *argv])
    result = subprocess.run(["bash", "-c", f"set -o pipefail; {command} | true"], capture_output=True, text=True,
                            timeout=120, cwd=REPO)
    assert result.stderr == ""
    assert result.returncode in (0, cli.EXIT_BROKEN_PIPE)  # 0 when the output fit in the pipe before it closed


def test_closed_stdout_before_a_large_write_is_sigpipe_status():
    """A reader that is gone before the write: the status of a tool killed by SIGPIPE, nothing said."""
    read, write = os.pipe()
    os.close(read)
    try:
        result = subprocess.run([*CLI, "columns", "--format", "json"], stdout=write, stderr=subprocess.PIPE,
                                text=True, timeout=120, cwd=REPO)
    finally:
        os.close(write)
    assert result.stderr == "" and result.returncode == cli.EXIT_BROKEN_PIPE


def _subcommands():
    parser = cli._build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action.choices


@pytest.mark.parametrize("name", sorted(_subcommands()))
def test_help_shows_every_default(name):
    sub = _subcommands()[name]
    text = " ".join(sub.format_help().split())
    for action in sub._actions:
        default = action.default
        if default in (None, False, argparse.SUPPRESS) or default == [] or not action.option_strings:
            continue
        assert f"default: {default}" in text, (name, action.option_strings, default)


def test_unencodable_text_is_escaped(tmp_path):
    folder = tmp_path / "bühne"
    folder.mkdir()
    stage = folder / "gelenk_ü.usda"
    stage.write_text(STAGE.read_text(), encoding="utf-8")
    result = run("walk", stage, env={"PYTHONIOENCODING": "ascii"})
    assert result.returncode == 0, result.stderr
    assert "b\\xfchne" in result.stdout and "Traceback" not in result.stderr
    missing = run("walk", folder / "nicht_dä.usda", env={"PYTHONIOENCODING": "ascii"})
    assert missing.returncode == 2 and "nicht_d\\xe4.usda" in missing.stderr


def _on_a_terminal(argv, env):
    """Run with stdout on a pseudo-terminal; returns what the terminal received."""
    leader, follower = pty.openpty()
    try:
        process = subprocess.Popen([*CLI, *argv], stdout=follower, stderr=subprocess.DEVNULL, cwd=REPO,
                                   env=dict(os.environ, **env))
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        process.wait(timeout=120)
    finally:
        os.close(leader)
    return b"".join(chunks)


def test_no_color_is_honoured_on_a_terminal(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    bad = str(REPO / "sample_stages" / "bad_onesided_limit.usda")
    coloured = _on_a_terminal(["audit", bad], {"TERM": "xterm"})
    plain = _on_a_terminal(["audit", bad], {"TERM": "xterm", "NO_COLOR": "1"})
    assert b"\x1b[" in coloured  # the auditor colours a terminal...
    assert b"\x1b[" not in plain and b"locked-hinge" in plain  # ...but not with NO_COLOR


def _with_command(monkeypatch, run_command):
    """Swap ``columns`` for ``run_command`` to see what main() does with what it raises or warns."""
    real = cli._build_parser

    def build():
        parser = real()
        _subcommands_of(parser)["columns"].set_defaults(run=run_command)
        return parser

    monkeypatch.setattr(cli, "_build_parser", build)


def _subcommands_of(parser):
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices


def test_numpy_runtime_warnings_do_not_leak(monkeypatch, capsys):
    import numpy as np

    def noisy(args):
        np.array([0.0]) / np.array([0.0])
        return 0

    _with_command(monkeypatch, noisy)
    assert main(["columns"]) == 0
    assert capsys.readouterr().err == ""
    with pytest.warns(RuntimeWarning, match="invalid value encountered"):  # --verbose lets them through
        assert main(["columns", "--verbose"]) == 0


def test_other_python_warnings_are_one_line(monkeypatch, capsys):
    import warnings

    def warns(args):
        warnings.warn("something odd\nover two lines", UserWarning)
        return 0

    _with_command(monkeypatch, warns)
    assert main(["columns"]) == 0
    assert capsys.readouterr().err == "usdjoints: warning: something odd over two lines\n"


def test_internal_error_is_one_line_and_verbose_keeps_the_code(monkeypatch, capsys):
    def broken(args):
        raise ValueError("a bug")

    _with_command(monkeypatch, broken)
    assert main(["columns"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error: ValueError: a bug" in err and "report it" in err
    assert main(["columns", "--verbose"]) == 1
    assert "Traceback" in capsys.readouterr().err


def test_usage_error_keeps_exit_2_with_verbose(capsys, tmp_path):
    assert main(["walk", str(tmp_path / "nope.usda")]) == 2
    plain = capsys.readouterr().err
    assert main(["walk", str(tmp_path / "nope.usda"), "--verbose"]) == 2
    verbose = capsys.readouterr().err
    assert "Traceback" in verbose and verbose.strip().splitlines()[-1] == plain.strip()
