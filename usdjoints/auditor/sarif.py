"""SARIF 2.1.0 for code-scanning tools (GitHub code scanning, SARIF viewers).

Stage files are ``artifactLocation``s relative to one base folder named in ``originalUriBaseIds``
(``STAGEROOT``): the current directory when every stage lies under it, else the stages' deepest
common folder. URIs are percent-encoded (a space, ``#``, ``%`` or a non-ASCII letter in a path
cannot change its meaning). Every result carries ``partialFingerprints`` from its rule, stage
path relative to the base, prim and attribute, so a tracker follows a finding across runs and
checkouts; the fix hint is the result's ``properties.fix``, not part of its message.
"""
from __future__ import annotations

import hashlib
import inspect
import os
from pathlib import Path
from typing import Optional
from urllib.parse import quote

from .. import __version__
from .findings import AuditReport, Finding
from .registry import ALL_RULE_CLASSES as RULE_CLASSES

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
BASE_ID = "STAGEROOT"
FINGERPRINT = "usdjointsFinding/v1"
# The rule reference (one heading per rule id) as installed with the package: a file the reader of the
# log has wherever usdjoints ran, rather than a web address the project may not be published at.
DOCS_URL = (Path(__file__).resolve().parent.parent / "docs" / "audit-rules.md").as_uri()
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def sarif(report: AuditReport, base: Optional[str] = None) -> dict:
    """The SARIF log of ``report``: one run, every rule in ``tool.driver.rules``."""
    base = os.path.abspath(base) if base else stage_base(report.stages)
    index = {cls.id: i for i, cls in enumerate(RULE_CLASSES)}
    results = [_result(finding, index[finding.rule], base) for finding in report.findings]
    notifications = [{
        "level": "error",
        "message": {"text": failure.message},
        "locations": [{"physicalLocation": {"artifactLocation": artifact_location(failure.stage, base)}}],
        "properties": {"kind": failure.kind},
    } for failure in report.failures]
    run_properties = {}
    if report.omitted:
        left = dict(report.omitted)
        counts = ", ".join(f"{n} {severity}" for severity, n in left.items())
        notifications.append({"level": "note", "message": {
            "text": f"{sum(left.values())} finding(s) left out of this run ({counts}) by --min-severity or "
                    f"--max-results; the exit code counts them"}})
        run_properties["omitted"] = left
    run = {
        "tool": {"driver": {"name": "usdjoints", "version": __version__, "informationUri": DOCS_URL,
                            "rules": [rule_descriptor(cls) for cls in RULE_CLASSES]}},
        "originalUriBaseIds": {BASE_ID: {"uri": folder_uri(base)}},
        "invocations": [{"executionSuccessful": not report.failures, "exitCode": report.exit_code(),
                         "toolExecutionNotifications": notifications}],
        "results": results,
    }
    if run_properties:
        run["properties"] = run_properties
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def rule_descriptor(cls) -> dict:
    consumers = ", ".join(cls.consumers)
    full = cls.description[:1].upper() + cls.description[1:] + "."
    doc = cls.__dict__.get("__doc__")
    if doc:
        full += " " + " ".join(inspect.cleandoc(doc).split())
    full += f" Reported at most as {cls.severity}, for {consumers}."
    markdown = [f"**{cls.id}** ({cls.severity}; {consumers})", "", full]
    if cls.fix:
        markdown += ["", f"**Fix:** {cls.fix}"]
    descriptor = {
        "id": cls.id,
        "name": "".join(part.capitalize() for part in cls.id.split("-")),
        "shortDescription": {"text": cls.description},
        "fullDescription": {"text": full},
        "help": {"text": full + (f" Fix: {cls.fix}" if cls.fix else ""), "markdown": "\n".join(markdown)},
        "helpUri": f"{DOCS_URL}#{cls.id}",
        "defaultConfiguration": {"level": _LEVEL[cls.severity]},
        "properties": {"consumers": list(cls.consumers)},
    }
    return descriptor


def _result(finding: Finding, rule_index: int, base: str) -> dict:
    logical = finding.prim or "/"
    if finding.attribute and finding.prim:
        logical = f"{finding.prim}.{finding.attribute}"
    properties = {"prim": finding.prim, "attribute": finding.attribute, "consumers": list(finding.consumers)}
    if finding.fix:
        properties["fix"] = finding.fix
    return {
        "ruleId": finding.rule,
        "ruleIndex": rule_index,
        "level": _LEVEL[finding.severity],
        "message": {"text": finding.message},
        "locations": [{
            "physicalLocation": {"artifactLocation": artifact_location(finding.stage, base)},
            "logicalLocations": [{"fullyQualifiedName": logical, "kind": "member" if finding.attribute else "object"}],
        }],
        "partialFingerprints": {FINGERPRINT: fingerprint(finding, base)},
        "properties": properties,
    }


def fingerprint(finding: Finding, base: str) -> str:
    """sha256 of rule, stage path relative to ``base`` (``/``-separated), prim and attribute."""
    parts = (finding.rule, _relative(finding.stage, base) or finding.stage, finding.prim or "", finding.attribute or "")
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogateescape")).hexdigest()


def stage_base(stages) -> str:
    """The current directory if every file stage lies under it, else their deepest common folder."""
    files = [os.path.abspath(s) for s in stages if _is_file(s)]
    cwd = os.getcwd()
    if not files or all(_under(f, cwd) for f in files):
        return cwd
    return os.path.commonpath([os.path.dirname(f) for f in files])


def artifact_location(stage: str, base: str) -> dict:
    relative = _relative(stage, base)
    if relative is None:  # an in-memory stage or a URL: its identifier, percent-encoded
        return {"uri": quote(_file_bytes(stage), safe=":/")}
    return {"uri": quote(_file_bytes(relative), safe="/"), "uriBaseId": BASE_ID}


def _file_bytes(path: str) -> bytes:
    """A path's bytes as the file system holds them (a name that is not UTF-8 keeps its own bytes,
    which percent-encoding writes as they are, as ``Path.as_uri`` does)."""
    return path.encode("utf-8", "surrogateescape")


def folder_uri(folder: str) -> str:
    uri = Path(folder).as_uri()
    return uri if uri.endswith("/") else uri + "/"


def _relative(stage: str, base: str) -> Optional[str]:
    if not _is_file(stage):
        return None
    path = os.path.abspath(stage)
    if not _under(path, base):
        return None
    return Path(os.path.relpath(path, base)).as_posix()


def _under(path: str, folder: str) -> bool:
    return os.path.commonpath([path, folder]) == folder


def _is_file(stage: str) -> bool:
    return "://" not in stage and not stage.startswith("anon:")
