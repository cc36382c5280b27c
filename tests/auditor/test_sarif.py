"""SARIF for code scanning: the official 2.1.0 schema with format checks, URIs that lead back to
the files, fingerprints that survive a second run and a moved checkout, results cut with a note.

Oracles: OASIS's SARIF 2.1.0 JSON Schema (tests/data/sarif, see SOURCE.md) run by jsonschema with
its format checker (RFC 3986 ``uri``/``uri-reference`` through rfc3986-validator); the standard
library's URL parser turning each result's URI back into a path that must be the stage's file.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse
from urllib.request import url2pathname

import pytest

import usdjoints  # noqa: F401
from bad_stages import BAD_DIR
from usdjoints.auditor import audit
from usdjoints.auditor.registry import ALL_RULE_CLASSES as RULE_CLASSES
from usdjoints.auditor.sarif import BASE_ID, FINGERPRINT

jsonschema = pytest.importorskip("jsonschema")
REPO = Path(__file__).resolve().parents[2]
SCHEMA = REPO / "tests" / "data" / "sarif" / "sarif-schema-2.1.0.json"
ODD_FOLDERS = ("with space", "hash#mark", "per%25cent", "ünïcødé 関節")


def validate_sarif(document: dict) -> None:
    checker = jsonschema.FormatChecker()
    assert {"uri", "uri-reference"} <= set(checker.checkers), "rfc3986-validator is needed for URI format checks"
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft4Validator(schema, format_checker=checker).validate(document)


@pytest.fixture(scope="module")
def odd_library(tmp_path_factory):
    root = tmp_path_factory.mktemp("odd library")
    stages = []
    for folder, rule in zip(ODD_FOLDERS, ("dangling-body", "lower-above-upper", "cone-one-angle", "mimic-reference")):
        target = root / folder / f"{rule} #1 %20.usda"
        target.parent.mkdir(parents=True)
        shutil.copyfile(BAD_DIR / f"{rule}.usda", target)
        stages.append(target)
    return root, stages


def _run(root: Path, cwd: Path, *extra) -> tuple[int, dict]:
    done = subprocess.run([sys.executable, "-c", "import sys; from usdjoints.cli import main; sys.exit(main(sys.argv[1:]))",
                           "audit", str(root), "--format", "sarif", *extra], capture_output=True, text=True,
                          timeout=300, cwd=cwd, env={**os.environ, "PYTHONPATH": str(REPO)})
    return done.returncode, json.loads(done.stdout)


def test_odd_paths_validate_and_decode_to_the_files(odd_library):
    root, stages = odd_library
    code, log = _run(root, root.parent)
    assert code == 1
    validate_sarif(log)
    run = log["runs"][0]
    base = run["originalUriBaseIds"][BASE_ID]["uri"]
    assert base.endswith("/") and Path(url2pathname(urlparse(base).path)) == root.parent
    seen = set()
    for result in run["results"]:
        location = result["locations"][0]["physicalLocation"]["artifactLocation"]
        assert location["uriBaseId"] == BASE_ID
        assert not any(c in location["uri"] for c in " #") and location["uri"].isascii()
        path = Path(url2pathname(urlparse(urljoin(base, location["uri"])).path))
        assert path.is_file()
        seen.add(path)
    assert seen == set(stages)
    assert unquote(run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]).endswith(".usda")


def test_fingerprints_stable_across_runs_and_a_moved_checkout(odd_library, tmp_path):
    root, _ = odd_library
    first = _run(root, root.parent)[1]["runs"][0]["results"]
    second = _run(root, root.parent)[1]["runs"][0]["results"]
    moved = tmp_path / "elsewhere" / root.name
    shutil.copytree(root, moved)
    third = _run(moved, moved.parent)[1]["runs"][0]["results"]
    prints = [[r["partialFingerprints"][FINGERPRINT] for r in results] for results in (first, second, third)]
    assert prints[0] == prints[1] == prints[2]
    assert len(set(prints[0])) == len(prints[0])  # one per (rule, stage, prim, attribute)


def test_rules_carry_descriptions_help_and_uri(bad_dir):
    from usdjoints.auditor.writers import render

    log = json.loads(render(audit(bad_dir / "dangling-body.usda"), "sarif"))
    validate_sarif(log)
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [cls.id for cls in RULE_CLASSES]
    for rule, cls in zip(rules, RULE_CLASSES):
        assert rule["fullDescription"]["text"] and cls.id in rule["help"]["markdown"]
        assert rule["helpUri"].endswith(f"#{cls.id}")
    result = next(r for r in log["runs"][0]["results"] if r["ruleId"] == "dangling-body")
    finding = audit(bad_dir / "dangling-body.usda").by_rule("dangling-body")[0]
    assert result["message"]["text"] == finding.message and "Fix:" not in result["message"]["text"]
    assert result["properties"]["fix"] == finding.fix


def test_rule_reference_lists_every_rule():
    from usdjoints.auditor.sarif import DOCS_URL

    text = (REPO / "usdjoints" / "docs" / "audit-rules.md").read_text()
    assert DOCS_URL.endswith("docs/audit-rules.md")
    from urllib.parse import unquote, urlparse

    assert Path(unquote(urlparse(DOCS_URL).path)).read_text() == text  # the URI names the shipped file
    from usdjoints.auditor.writers import rules_reference_markdown

    assert text == rules_reference_markdown()


def test_max_results_and_min_severity_cut_with_a_note(tmp_path):
    root = tmp_path / "lib"
    shutil.copytree(BAD_DIR, root)
    code, full = _run(root, tmp_path)
    all_results = full["runs"][0]["results"]
    levels = [r["level"] for r in all_results]
    code_cut, cut = _run(root, tmp_path, "--max-results", "5")
    validate_sarif(cut)
    results = cut["runs"][0]["results"]
    assert len(results) == 5 and all(r["level"] == "error" for r in results) and code_cut == code == 1
    assert results == [r for r in all_results if r in results]  # report order kept
    notes = [n for n in cut["runs"][0]["invocations"][0]["toolExecutionNotifications"] if n["level"] == "note"]
    assert len(notes) == 1 and f"{len(all_results) - 5} finding(s) left out" in notes[0]["message"]["text"]
    assert sum(cut["runs"][0]["properties"]["omitted"].values()) == len(all_results) - 5
    _, errors_only = _run(root, tmp_path, "--min-severity", "error")
    assert len(errors_only["runs"][0]["results"]) == levels.count("error")
    assert not any(n["level"] == "note" for n in full["runs"][0]["invocations"][0]["toolExecutionNotifications"])


def test_failures_are_execution_notifications(tmp_path):
    from usdjoints.auditor.writers import render
    from usdjoints.auditor.batch import audit_many
    from usdjoints.contract.types import CONSUMERS

    broken = tmp_path / "broken file.usda"
    broken.write_text("#usda 1.0\ndef Xform \"A\" {\n")
    report = audit_many([str(broken), str(BAD_DIR / "same-body.usda")], CONSUMERS, progress=False)
    log = json.loads(render(report, "sarif"))
    validate_sarif(log)
    invocation = log["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    notification = invocation["toolExecutionNotifications"][0]
    assert notification["level"] == "error" and notification["properties"]["kind"] == "unreadable"
    assert str(broken) in notification["message"]["text"]
    assert log["runs"][0]["results"]
