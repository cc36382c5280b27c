"""Every diagnostic the walker emits reaches the audit, at a severity the rule lists.

Oracles: the walker's own sources (every ``Diagnostic(...)`` it constructs, read with ``ast``)
for the static half; the walks and audits of every sample stage for the dynamic half (each
diagnostic of a walk has a finding of its rule on the same prim and attribute).
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

import usdjoints  # noqa: F401
from tests_paths import BAD_STAGES, CLEAN_STAGES, REPO
from usdjoints.auditor import audit
from usdjoints.auditor.registry import RULE_CLASSES, RULES_BY_ID
from usdjoints.auditor.writers import list_rules_text
from usdjoints.walker import codes, walk_many

WALKER = REPO / "usdjoints" / "walker"


def rules_for(code: str) -> list:
    return [cls for cls in RULE_CLASSES if getattr(cls, "code", None) == code or code in cls.covers]


def _constructed() -> list[tuple[str, int, str | None, str | None]]:
    """(file, line, severity literal, code literal) of every Diagnostic(...) in the walker."""
    out = []
    for path in sorted(WALKER.glob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Diagnostic"):
                continue
            args = list(node.args)
            keywords = {k.arg: k.value for k in node.keywords}
            code = keywords.get("code", args[3] if len(args) > 3 else None)
            severity = keywords.get("severity", args[0] if args else None)
            literal = lambda n: n.value if isinstance(n, ast.Constant) else None  # noqa: E731
            out.append((path.name, node.lineno, literal(severity) if severity is not None else None,
                        literal(code) if code is not None else None))
    return out


def test_every_walker_diagnostic_has_a_known_code():
    sites = _constructed()
    assert len(sites) > 25
    for name, line, severity, code in sites:
        assert code is not None, f"{name}:{line}: a Diagnostic without a literal code"
        assert code in codes.ALL, f"{name}:{line}: code {code!r} is not in usdjoints/walker/codes.py"
        if severity is not None:
            assert severity in codes.SEVERITY[code], f"{name}:{line}: {code} emitted as {severity}"


@pytest.mark.parametrize("code", sorted(codes.ALL))
def test_every_code_has_a_rule_listing_its_severities(code):
    rules = rules_for(code)
    assert rules, f"no audit rule reports the walker's {code!r}"
    direct = [cls for cls in rules if getattr(cls, "code", None) == code]
    for cls in direct:
        assert set(codes.SEVERITY[code]) <= set(cls.all_severities()), (cls.id, code)


def test_list_rules_names_every_severity_a_rule_reports():
    listing = list_rules_text()
    for cls in RULE_CLASSES:
        assert f"{cls.id}  [{'/'.join(cls.all_severities())};" in listing
    # default divergences: blocked columns warn, unauthored ones inform
    assert RULES_BY_ID["default-joint-limits"].all_severities() == ("warning", "info")


STAGES = BAD_STAGES + CLEAN_STAGES + sorted(Path(REPO / "sample_stages").glob("*.usda"))


@pytest.mark.parametrize("stage", STAGES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_walker_diagnostics_reach_the_audit(stage):
    report = audit(str(stage))
    for finding in report.findings:
        assert finding.severity in RULES_BY_ID[finding.rule].all_severities(), finding
    found = {(f.rule, f.prim) for f in report.findings}
    found_attribute = {(f.rule, f.prim, f.attribute) for f in report.findings}
    for consumer, description in walk_many(str(stage), report.consumers).items():
        for diagnostic in description.diagnostics:
            rules = rules_for(diagnostic.code)
            assert rules, diagnostic
            hit = [cls.id for cls in rules if (cls.id, diagnostic.prim) in found
                   or any(p == diagnostic.prim for r, p in found if r == cls.id)]
            if not hit and diagnostic.related:
                hit = [cls.id for cls in rules if any((cls.id, p) in found for p in diagnostic.related)]
            assert hit, (consumer, diagnostic)
            direct = [cls for cls in rules if getattr(cls, "code", None) == diagnostic.code]
            if direct and diagnostic.attribute and direct[0].id in hit:
                assert (direct[0].id, diagnostic.prim, diagnostic.attribute) in found_attribute, diagnostic
