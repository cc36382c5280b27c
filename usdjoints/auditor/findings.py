"""What an audit hands back: findings, one per hazard at one prim, and the report that holds them."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
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


FAILURE_KINDS = ("unreadable", "error", "crashed", "timeout")


@dataclass(frozen=True, slots=True)
class StageFailure:
    """A stage that could not be audited, and why.

    ``kind`` is ``unreadable`` (the file cannot be opened as a stage), ``error`` (auditing it
    raised: a defect in usdjoints, reported instead of stopping the batch) or ``crashed`` (the
    process auditing it died, alone, on a retry: a crash inside OpenUSD, or memory) or ``timeout``
    (auditing it took longer than the stage time limit, ``--stage-timeout``).
    """

    stage: str
    message: str
    kind: str = "unreadable"

    def as_json(self) -> dict:
        return {"stage": self.stage, "kind": self.kind, "message": self.message}


@dataclass(frozen=True, slots=True)
class AuditReport:
    """Every finding of one audit run, sorted by stage, prim and severity.

    ``stages`` lists the stages given, ``consumers`` the consumers considered; ``failures``
    the stages that could not be audited (see :meth:`exit_code`). ``omitted`` counts findings
    audited but left out of the report by ``--min-severity``/``--max-results``, per severity.
    """

    stages: tuple[str, ...]
    consumers: tuple[str, ...]
    findings: tuple[Finding, ...]
    failures: tuple[StageFailure, ...] = field(default_factory=tuple)
    strict: bool = False
    strict_inputs: bool = False
    omitted: tuple[tuple[str, int], ...] = ()
    omitted_failing: bool = False  # an omitted finding is at or above the threshold

    def threshold(self, strict: Optional[bool] = None) -> str:
        return "warning" if (self.strict if strict is None else strict) else "error"

    def failing(self, strict: Optional[bool] = None) -> tuple[Finding, ...]:
        """Findings at or above the threshold: errors, or warnings too when ``strict``."""
        floor = SEVERITY_RANK[self.threshold(strict)]
        return tuple(f for f in self.findings if SEVERITY_RANK[f.severity] >= floor)

    def exit_code(self, strict: Optional[bool] = None) -> int:
        """2 when no stage could be audited, or any could not with ``strict_inputs``; else the
        findings decide: 1 when any is at or above the threshold (left out of the report or not)."""
        if self.failures and (self.strict_inputs or len(self.failures) >= len(self.stages)):
            return 2
        return 1 if self.failing(strict) or self.omitted_failing else 0

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
                "threshold": self.threshold(), "exit_code": self.exit_code(),
                **({"omitted": dict(self.omitted)} if self.omitted else {})}

    def as_json(self) -> dict:
        return {"schema": SCHEMA, "findings": [f.as_json() for f in self.findings], "summary": self.summary(),
                "failures": [x.as_json() for x in self.failures]}

    def limited(self, min_severity: Optional[str] = None, max_results: Optional[int] = None) -> "AuditReport":
        """The report without findings below ``min_severity`` and cut to ``max_results`` findings.

        The cut keeps the most severe findings (in report order within a severity) and records
        what it left out in ``omitted``; the exit code still counts every finding.
        """
        floor = SEVERITY_RANK[min_severity] if min_severity else 0
        kept = [f for f in self.findings if SEVERITY_RANK[f.severity] >= floor]
        if max_results is not None and len(kept) > max_results:
            ranked = sorted(range(len(kept)), key=lambda i: (-SEVERITY_RANK[kept[i].severity], i))
            keep = set(ranked[:max_results])
            kept = [f for i, f in enumerate(kept) if i in keep]
        if len(kept) == len(self.findings):
            return self
        left = {s: 0 for s in SEVERITY_RANK}
        kept_ids = {id(f) for f in kept}
        threshold = SEVERITY_RANK[self.threshold()]
        failing_left = False
        for finding in self.findings:
            if id(finding) not in kept_ids:
                left[finding.severity] += 1
                failing_left = failing_left or SEVERITY_RANK[finding.severity] >= threshold
        omitted = tuple((s, n) for s, n in left.items() if n)
        return replace(self, findings=tuple(kept), omitted=omitted, omitted_failing=self.omitted_failing or failing_left)


def merge_reports(reports, consumers: tuple[str, ...], strict: bool = False, strict_inputs: bool = False
                  ) -> AuditReport:
    """One report out of several (a batch over many files), findings kept in stage order."""
    stages: list[str] = []
    findings: list[Finding] = []
    failures: list[StageFailure] = []
    for report in reports:
        stages.extend(report.stages)
        findings.extend(report.findings)
        failures.extend(report.failures)
    return AuditReport(tuple(stages), consumers, tuple(sorted(findings, key=Finding.sort_key)), tuple(failures),
                       strict, strict_inputs)
