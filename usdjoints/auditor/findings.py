"""What an audit hands back: findings, one per hazard at one prim, and the report that holds them."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

SEVERITY_RANK = {"error": 2, "warning": 1, "info": 0}
SCHEMA = "usdjoints.audit/1"


@dataclass(frozen=True, slots=True)
class Finding:
    """One hazard at one prim (and attribute) of one stage, for the consumers it concerns.

    ``fix`` is a hint a user can act on, or ``None`` when nothing safe can be suggested.
    """

    rule: str
    severity: str
    stage: str
    prim: Optional[str]
    attribute: Optional[str]
    consumers: tuple[str, ...]
    message: str
    fix: Optional[str] = None

    def as_json(self) -> dict:
        return {"rule": self.rule, "severity": self.severity, "stage": self.stage, "prim": self.prim,
                "attribute": self.attribute, "consumers": list(self.consumers), "message": self.message,
                "fix": self.fix}

    def sort_key(self) -> tuple:
        return (self.stage, self.prim or "", -SEVERITY_RANK[self.severity], self.rule, self.attribute or "")


@dataclass(frozen=True, slots=True)
class StageFailure:
    """An input that could not be audited (unreadable file, composition error)."""

    stage: str
    message: str


@dataclass(frozen=True, slots=True)
class AuditReport:
    """Every finding of one audit run, sorted by stage, prim and severity.

    ``stages`` lists the stages audited, ``consumers`` the consumers considered; ``failures``
    the inputs that could not be read (the CLI exits 2 when there is any).
    """

    stages: tuple[str, ...]
    consumers: tuple[str, ...]
    findings: tuple[Finding, ...]
    failures: tuple[StageFailure, ...] = field(default_factory=tuple)
    strict: bool = False

    def threshold(self, strict: Optional[bool] = None) -> str:
        return "warning" if (self.strict if strict is None else strict) else "error"

    def failing(self, strict: Optional[bool] = None) -> tuple[Finding, ...]:
        """Findings at or above the threshold: errors, or warnings too when ``strict``."""
        floor = SEVERITY_RANK[self.threshold(strict)]
        return tuple(f for f in self.findings if SEVERITY_RANK[f.severity] >= floor)

    def exit_code(self, strict: Optional[bool] = None) -> int:
        if self.failures:
            return 2
        return 1 if self.failing(strict) else 0

    def by_rule(self, rule: str) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.rule == rule)

    def summary(self) -> dict:
        counts = {s: 0 for s in SEVERITY_RANK}
        rules: dict[str, int] = {}
        for finding in self.findings:
            counts[finding.severity] += 1
            rules[finding.rule] = rules.get(finding.rule, 0) + 1
        return {"stages": len(self.stages), "failures": len(self.failures), "findings": len(self.findings),
                **counts, "rules": dict(sorted(rules.items())), "consumers": list(self.consumers),
                "threshold": self.threshold(), "exit_code": self.exit_code()}

    def as_json(self) -> dict:
        return {"schema": SCHEMA, "findings": [f.as_json() for f in self.findings], "summary": self.summary(),
                "failures": [{"stage": x.stage, "message": x.message} for x in self.failures]}


def merge_reports(reports, consumers: tuple[str, ...], strict: bool = False) -> AuditReport:
    """One report out of several (a batch over many files), findings kept in stage order."""
    stages: list[str] = []
    findings: list[Finding] = []
    failures: list[StageFailure] = []
    for report in reports:
        stages.extend(report.stages)
        findings.extend(report.findings)
        failures.extend(report.failures)
    return AuditReport(tuple(stages), consumers, tuple(sorted(findings, key=Finding.sort_key)), tuple(failures),
                       strict)
