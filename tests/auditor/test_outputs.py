"""Report formats and the command line: JSON schema, SARIF 2.1.0 shape, text grouping, exit codes.

Oracle: the documented formats (ARCHITECTURE.md for JSON, the SARIF 2.1.0 specification's
required properties) parsed back with the standard json module (strict: no bare Infinity/NaN).
"""
from __future__ import annotations

import json

import pytest

import usdjoints  # noqa: F401
import usdjoints.cli as cli
from tests_paths import CLEAN_SAMPLES
from usdjoints.auditor import RULE_CLASSES, audit
from usdjoints.auditor.registry import ALL_RULE_CLASSES
from usdjoints.auditor.cli import register
from usdjoints.auditor.writers import render


def _strict_json(text):
    def reject(constant):
        raise ValueError(f"bare {constant} in JSON")
    return json.loads(text, parse_constant=reject)


@pytest.fixture
def main(monkeypatch):
    if register not in cli._EXTRA_COMMANDS:
        monkeypatch.setattr(cli, "_EXTRA_COMMANDS", [*cli._EXTRA_COMMANDS, register])
    return cli.main


def test_json_report_shape(bad_dir):
    report = audit([bad_dir / "locked-hinge.usda", bad_dir / "non-finite-value.usda"])
    data = _strict_json(render(report, "json"))
    assert data["schema"] == "usdjoints.audit/1"
    keys = {"rule", "severity", "stage", "prim", "attribute", "consumers", "message", "fix"}
    assert data["findings"] and all(set(f) == keys for f in data["findings"])
    assert data["summary"]["stages"] == 2 and data["summary"]["error"] >= 2


def test_sarif_report_shape(bad_dir):
    report = audit(bad_dir / "dangling-body.usda")
    data = _strict_json(render(report, "sarif"))
    assert data["version"] == "2.1.0"
    run = data["runs"][0]
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert rule_ids == [cls.id for cls in ALL_RULE_CLASSES]  # usdjoints' own, then OpenUSD's validators
    result = next(r for r in run["results"] if r["ruleId"] == "dangling-body")
    assert result["level"] == "error" and rule_ids[result["ruleIndex"]] == "dangling-body"
    location = result["locations"][0]
    assert location["physicalLocation"]["artifactLocation"]["uri"].endswith("dangling-body.usda")
    assert location["logicalLocations"][0]["fullyQualifiedName"] == "/World/J.physics:body1"


def test_text_groups_by_stage_then_prim_without_colour(bad_dir):
    text = render(audit(bad_dir / "lower-above-upper.usda"), "text", colour=False)
    lines = text.splitlines()
    assert lines[0].endswith("lower-above-upper.usda")
    assert "  /World/J" in lines
    assert "\033[" not in text
    assert "\033[31m" in render(audit(bad_dir / "lower-above-upper.usda"), "text", colour=True)


def test_exit_codes(main, bad_dir, tmp_path, capsys):
    clean = str(CLEAN_SAMPLES[0])
    assert main(["audit", clean]) == 0
    assert main(["audit", str(bad_dir / "lower-above-upper.usda")]) == 1
    # warnings only for PhysX and OpenUSD; Newton refuses the stage (a standalone body pair), an error
    assert main(["audit", "--consumer", "ovphysx", "--consumer", "usdphysics",
                 str(bad_dir / "cone-one-angle.usda")]) == 0
    assert main(["audit", str(bad_dir / "cone-one-angle.usda")]) == 1
    assert main(["audit", "--strict", "--consumer", "ovphysx", str(bad_dir / "cone-one-angle.usda")]) == 1
    capsys.readouterr()
    for argv in (["audit", str(tmp_path / "missing.usda")], ["audit", str(tmp_path)],
                 ["audit", "--rule", "no-such-rule", clean], ["audit", "--consumer", "nobody", clean], ["audit"]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "Traceback" not in err[0], (argv, err)


def test_list_rules_and_output_file(main, bad_dir, tmp_path, capsys):
    assert main(["audit", "--list-rules"]) == 0
    listing = capsys.readouterr().out
    assert all(cls.id in listing for cls in RULE_CLASSES)
    out = tmp_path / "report.sarif"
    assert main(["audit", str(bad_dir), "--jobs", "2", "--format", "sarif", "-o", str(out)]) == 1
    data = _strict_json(out.read_text())
    assert {r["ruleId"] for r in data["runs"][0]["results"]} >= {cls.id for cls in RULE_CLASSES}


def test_parallel_batch_equals_serial(bad_dir):
    from usdjoints.auditor.batch import audit_many
    from usdjoints.auditor.engine import expand_inputs
    from usdjoints.contract.types import CONSUMERS

    paths = expand_inputs([bad_dir])
    serial = audit_many(paths, CONSUMERS, jobs=1, progress=False)
    parallel = audit_many(paths, CONSUMERS, jobs=2, progress=False)
    assert serial.findings == parallel.findings and len(serial.stages) == len(paths)


def test_fix_from_the_command_line(main, bad_dir, tmp_path):
    source = bad_dir / "default-coupling-ratio.usda"
    out = tmp_path / "fixed.usda"
    main(["audit", str(source), "--fix", str(out)])
    assert not audit(out).by_rule("default-coupling-ratio")


@pytest.mark.parametrize("name", ["default-coupling-ratio.usda", "locked-hinge.usda", "non-finite-value.usda",
                                  "dangling-body.usda"])
@pytest.mark.parametrize("options", [[], ["--consumer", "ovphysx", "--consumer", "newton"], ["--strict"]])
def test_the_report_with_fix_is_the_report_without(main, bad_dir, tmp_path, capsys, name, options):
    """--fix reads the stage once for the layer and the report. Oracle: the batch audit of the
    same stage without --fix, byte for byte, and the same exit code."""
    source = str(bad_dir / name)
    plain = main(["audit", source, "--format", "json", *options])
    want = capsys.readouterr().out
    fixed = main(["audit", source, "--format", "json", "--fix", str(tmp_path / "fix.usda"), *options])
    assert (fixed, capsys.readouterr().out) == (plain, want)
    assert (tmp_path / "fix.usda").is_file()


@pytest.mark.parametrize("option", [["--jobs", "2"], ["--stage-timeout", "5"], ["--progress"],
                                    ["--scheduler", "local:1"]])
def test_fix_refuses_the_batch_options_before_any_work(main, bad_dir, tmp_path, capsys, option):
    out = tmp_path / "fix.usda"
    assert main(["audit", str(bad_dir / "locked-hinge.usda"), "--fix", str(out), *option]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and option[0] in err[0] and "--fix" in err[0], err
    assert not out.exists()
