"""Golden JSON reports of the bad and clean sample stages.

Oracle: the reports in tests/auditor/golden/, each checked by hand when it was written (every bad
stage's finding is measured in tests/oracle/test_audit_claims.py or tests/auditor/test_parser_claims.py).
A change in any finding, message or severity shows here as a diff.

To regenerate after a deliberate change, then review the diff before committing:

    USDJOINTS_REGEN_GOLDEN=1 python -m pytest -q tests/auditor/test_golden.py
"""
from __future__ import annotations

import json
import os

import pytest

import usdjoints  # noqa: F401
from tests_paths import BAD_STAGES, CLEAN_STAGES, REPO
from usdjoints.auditor import audit
from usdjoints.auditor.writers import render

GOLDEN = REPO / "tests" / "auditor" / "golden"
REGENERATE = os.environ.get("USDJOINTS_REGEN_GOLDEN") == "1"


def relative_report(path) -> dict:
    """The JSON report with every absolute repository path made relative (stage, messages)."""
    text = render(audit(path), "json").replace(str(REPO) + os.sep, "")
    return json.loads(text)


def _golden_path(stage):
    return GOLDEN / stage.parent.name / f"{stage.stem}.json"


@pytest.mark.parametrize("stage", BAD_STAGES + CLEAN_STAGES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_report_matches_golden(stage):
    report = relative_report(stage)
    golden = _golden_path(stage)
    if REGENERATE:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    assert golden.exists(), f"no golden report {golden}: regenerate (see module docstring)"
    assert report == json.loads(golden.read_text()), (
        f"{stage.name}: report differs from {golden.relative_to(REPO)}; if the change is intended, regenerate "
        "with USDJOINTS_REGEN_GOLDEN=1 (see module docstring)")


def test_golden_folder_has_no_stale_reports():
    expected = {_golden_path(s) for s in BAD_STAGES + CLEAN_STAGES}
    assert set(GOLDEN.glob("*/*.json")) == expected


# Measured: Newton 1.8 builds no gear or rack-and-pinion joint, so a coupling stage is clean for
# every consumer but Newton, which the audit tells (newton-joint-dropped).
NEWTON_CANNOT_COUPLE = {"gear_driven", "rack_pinion_driven"}


def test_clean_golden_reports_carry_no_warning_or_error():
    for stage in CLEAN_STAGES:
        report = json.loads(_golden_path(stage).read_text())
        summary = report["summary"]
        if stage.stem in NEWTON_CANNOT_COUPLE:
            loud = [f for f in report["findings"] if f["severity"] != "info"]
            assert [(f["rule"], f["consumers"]) for f in loud] == [("newton-joint-dropped", ["newton"])], stage.name
            continue
        assert (summary["error"], summary["warning"], summary["exit_code"]) == (0, 0, 0), stage.name
