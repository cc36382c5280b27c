"""Report writers: text (grouped by stage and prim), JSON (``usdjoints.audit/1``) and SARIF 2.1.0."""
from __future__ import annotations

import os
from itertools import groupby
from pathlib import Path

from .. import __version__
from ..jsonio import dumps
from .findings import AuditReport
from .registry import RULE_CLASSES

_COLOURS = {"error": "\033[31m", "warning": "\033[33m", "info": "\033[36m"}
_RESET = "\033[0m"
_SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def render(report: AuditReport, fmt: str, colour: bool = False) -> str:
    if fmt == "json":
        return dumps(report.as_json())
    if fmt == "sarif":
        return dumps(sarif(report))
    return render_text(report, colour)


def render_text(report: AuditReport, colour: bool = False) -> str:
    """Findings grouped by stage, then prim; a summary line last. ``colour`` only for a terminal."""
    lines: list[str] = []
    for failure in report.failures:
        lines.append(f"cannot audit: {failure.message}")
    for stage, stage_findings in groupby(report.findings, key=lambda f: f.stage):
        lines.append(stage)
        for prim, prim_findings in groupby(stage_findings, key=lambda f: f.prim):
            lines.append(f"  {prim or '(stage)'}")
            for finding in prim_findings:
                severity = finding.severity
                tag = f"{_COLOURS[severity]}{severity}{_RESET}" if colour else severity
                where = f" {finding.attribute}" if finding.attribute else ""
                lines.append(f"    {tag} [{finding.rule}]{where}: {finding.message}")
                lines.append(f"      consumers: {', '.join(finding.consumers)}")
                if finding.fix:
                    lines.append(f"      fix: {finding.fix}")
    summary = report.summary()
    lines.append(f"{summary['stages']} stage(s), {summary['error']} error(s), {summary['warning']} warning(s), "
                 f"{summary['info']} info" + (f", {summary['failures']} unreadable" if summary["failures"] else ""))
    return "\n".join(lines) + "\n"


def list_rules_text() -> str:
    lines = []
    for cls in RULE_CLASSES:
        lines.append(f"{cls.id}  [{cls.severity}; {', '.join(cls.consumers)}]")
        lines.append(f"    {cls.description}")
        if cls.fix:
            lines.append(f"    fix: {cls.fix}")
    return "\n".join(lines) + "\n"


def sarif(report: AuditReport) -> dict:
    """SARIF 2.1.0: one run, every rule in tool.driver.rules, the file and prim path as location."""
    rules = [{
        "id": cls.id,
        "name": "".join(part.capitalize() for part in cls.id.split("-")),
        "shortDescription": {"text": cls.description},
        "help": {"text": cls.fix or cls.description},
        "defaultConfiguration": {"level": _SARIF_LEVEL[cls.severity]},
        "properties": {"consumers": list(cls.consumers)},
    } for cls in RULE_CLASSES]
    index = {cls.id: i for i, cls in enumerate(RULE_CLASSES)}
    results = []
    for finding in report.findings:
        logical = finding.prim or "/"
        if finding.attribute and finding.prim:
            logical = f"{finding.prim}.{finding.attribute}"
        message = finding.message + (f" Fix: {finding.fix}" if finding.fix else "")
        results.append({
            "ruleId": finding.rule,
            "ruleIndex": index[finding.rule],
            "level": _SARIF_LEVEL[finding.severity],
            "message": {"text": message},
            "locations": [{
                "physicalLocation": {"artifactLocation": {"uri": _uri(finding.stage)}},
                "logicalLocations": [{"fullyQualifiedName": logical,
                                      "kind": "member" if finding.attribute else "object"}],
            }],
            "properties": {"prim": finding.prim, "attribute": finding.attribute,
                           "consumers": list(finding.consumers)},
        })
    notifications = [{"level": "error", "message": {"text": f.message},
                      "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(f.stage)}}}]}
                     for f in report.failures]
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "usdjoints", "version": __version__,
                                "rules": rules}},
            "invocations": [{"executionSuccessful": not report.failures,
                             "toolExecutionNotifications": notifications}],
            "results": results,
        }],
    }


def _uri(stage: str) -> str:
    """A relative path stays relative (SARIF viewers resolve it against the checkout)."""
    if "://" in stage or stage.startswith("anon:"):
        return stage
    path = Path(stage)
    return path.as_posix() if not path.is_absolute() else path.as_uri()


def write_output(text: str, out: str) -> None:
    """``-`` is stdout; a file is written to a temporary name and renamed into place."""
    import sys
    import tempfile

    if out == "-":
        sys.stdout.write(text)
        return
    directory = os.path.dirname(os.path.abspath(out))
    handle, temporary = tempfile.mkstemp(prefix=".usdjoints-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, out)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
