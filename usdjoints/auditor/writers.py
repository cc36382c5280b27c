"""Report writers: text (grouped by stage and prim), JSON (``usdjoints.audit/1``) and SARIF 2.1.0."""
from __future__ import annotations

import os
from itertools import groupby

from ..jsonio import dumps
from .findings import AuditReport
from .registry import ALL_RULE_CLASSES as RULE_CLASSES

_COLOURS = {"error": "\033[31m", "warning": "\033[33m", "info": "\033[36m"}
_RESET = "\033[0m"


def render(report: AuditReport, fmt: str, colour: bool = False) -> str:
    if fmt == "json":
        return dumps(report.as_json())
    if fmt == "sarif":
        from .sarif import sarif

        return dumps(sarif(report))
    return render_text(report, colour)


def render_text(report: AuditReport, colour: bool = False) -> str:
    """Findings grouped by stage, then prim; a summary line last. ``colour`` only for a terminal."""
    lines: list[str] = []
    for failure in report.failures:
        lines.append(f"not audited ({failure.kind}): {failure.message}")
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
    line = (f"{summary['stages']} stage(s), {summary['error']} error(s), {summary['warning']} warning(s), "
            f"{summary['info']} info" + (f", {summary['failures']} not audited" if summary["failures"] else ""))
    if report.omitted:
        line += f" ({sum(n for _, n in report.omitted)} more finding(s) left out by --min-severity/--max-results)"
    lines.append(line)
    return "\n".join(lines) + "\n"


def list_rules_text() -> str:
    lines = []
    for cls in RULE_CLASSES:
        lines.append(f"{cls.id}  [{'/'.join(cls.all_severities())}; {', '.join(cls.consumers)}]")
        lines.append(f"    {cls.description}")
        if cls.fix:
            lines.append(f"    fix: {cls.fix}")
    return "\n".join(lines) + "\n"


def rules_reference_markdown() -> str:
    """usdjoints/docs/audit-rules.md: one heading per rule id (the anchors SARIF's ``helpUri`` points at)."""
    lines = ["# usdjoints audit rules", "",
             "Generated from the rules (`usdjoints audit --list-rules` prints the same); a test keeps it current.", ""]
    for cls in RULE_CLASSES:
        lines += [f"## {cls.id}", "", f"Severity: {' or '.join(cls.all_severities())}. Consumers: {', '.join(cls.consumers)}.", "",
                  cls.description[:1].upper() + cls.description[1:] + "."]
        if cls.fix:
            lines += ["", f"Fix: {cls.fix}"]
        lines.append("")
    return "\n".join(lines)


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
