"""Every numeric option of every command, given values users and scripts do pass (not a
number, infinities, zero, negatives, 1e300, 1e-300, a 23-digit integer, text): the command
runs or refuses in one line; never an internal error or a traceback (issue: CLI basics).

Oracle: the command-line contract of the README (exit 0, 1 for findings or a failed run, 2 for
bad input, one line per error)."""
from __future__ import annotations

import pytest

from samples import REPO, pendulum_urdf
from usdjoints.cli import main

ARM = str(REPO / "sample_stages" / "arm_articulation.usda")
VALUES = ["nan", "inf", "-inf", "-1", "0", "1e300", "1e-300", "99999999999999999999999", "x", ""]
OPTIONS = [
    ("simulate", ARM, "--duration"), ("simulate", ARM, "--dt"), ("simulate", ARM, "--fps"), ("simulate", ARM, "--envs"),
    ("audit", ARM, "--stage-timeout"), ("audit", ARM, "--max-results"), ("audit", ARM, "--jobs"),
]
SHORT = ["--duration", "0.01"]


def _exit_code(argv) -> int:
    """main's exit code; argparse's own refusals (a value that looks like an option) exit 2."""
    try:
        return main(argv)
    except SystemExit as done:
        return done.code


@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize("command, stage, option", OPTIONS, ids=lambda x: x if str(x).startswith("-") else None)
def test_option_values_run_or_refuse_in_one_line(command, stage, option, value, capsys):
    if (option, value) == ("--fps", "1e-300"):
        pytest.skip("a valid request: it runs, as asked")
    argv = [command, stage, option, value]
    if command == "simulate" and option != "--duration":
        argv += SHORT
    code = _exit_code(argv)
    err = capsys.readouterr().err
    assert code in (0, 1, 2), (argv, code, err)
    assert "internal error" not in err and "Traceback" not in err, (argv, err)
    if code == 2:
        lines = [line for line in err.strip().splitlines() if "error" in line]  # argparse adds its usage
        assert len(lines) == 1 and len(lines[0]) < 300, (argv, err)


def test_convert_option_values(tmp_path, capsys):
    urdf = tmp_path / "p.urdf"
    urdf.write_text(pendulum_urdf())
    for value in VALUES:
        code = _exit_code(["convert", str(urdf), "-o", str(tmp_path / "o.usda"), "--format", value])
        err = capsys.readouterr().err
        assert code in (0, 2) and "internal error" not in err, (value, err)


@pytest.mark.parametrize("dt, duration, says", [("0.5", "0.01", "no step"), ("1e-300", "0.01", "steps"),
                                                ("1e-200", "1", "steps")])
def test_step_counts_no_run_can_take_are_refused(dt, duration, says, capsys):
    """A step longer than twice the duration would run no step, and 1e198 steps no machine
    runs: both refused in one line naming dt, not run silently or for ever."""
    assert main(["simulate", ARM, "--dt", dt, "--duration", duration]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "dt" in lines[0] and says in lines[0], lines
