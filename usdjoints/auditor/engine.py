"""The audit: walk a stage once per consumer considered, run the rules, collect the findings.

``audit`` takes an open ``Usd.Stage``, a path, or several paths (directories expand to the USD
files under them). It only reads: no layer is saved or edited.
"""
from __future__ import annotations

import glob
import os
from typing import Iterable, Optional, Sequence, Union

from ..profiles import NAMES as CONSUMERS, profile
from ..args import bool_arg, names_arg, paths_arg
from ..errors import InputError
from ..walker import paused_cycle_collection, unreadable_values_rejected, walk_many
from ..walker.stage_io import open_stage
from .findings import AuditReport, Finding, StageFailure, merge_reports
from .registry import select_rules
from .rule import AuditContext, Rule

USD_EXTENSIONS = (".usda", ".usdc", ".usd", ".usdz")


def audit(stage_or_paths, consumers: Optional[Iterable[str]] = None, strict: bool = False,
          rules: Optional[Iterable[str]] = None) -> AuditReport:
    """Audit one stage (``Usd.Stage`` or path) or several paths and return an :class:`AuditReport`.

    ``consumers`` restricts the consumers considered (default: all three); ``rules`` restricts the
    rules by id. ``strict`` makes warnings count toward :meth:`AuditReport.exit_code`. An
    unreadable input raises :class:`~usdjoints.errors.InputError`.
    """
    strict = bool_arg(strict, "strict")
    chosen = resolve_consumers(consumers)
    selected = select_rules(rules)
    if _is_stage(stage_or_paths) or isinstance(stage_or_paths, (str, bytes, os.PathLike)):
        inputs = [stage_or_paths] if _is_stage(stage_or_paths) else expand_inputs([stage_or_paths])
    else:
        inputs = expand_inputs(stage_or_paths)
    reports = [audit_stage(item, chosen, selected, strict) for item in inputs]
    return merge_reports(reports, chosen, strict)


def resolve_consumers(consumers: Optional[Iterable[str]]) -> tuple[str, ...]:
    if not consumers:
        return CONSUMERS
    names = []
    for name in names_arg(consumers, "consumers"):
        profile(name)  # raises UsageError for an unknown name
        if name not in names:
            names.append(name)
    return tuple(c for c in CONSUMERS if c in names)


def audit_stage(stage_or_path, consumers: Sequence[str], rules: Sequence[Rule], strict: bool = False) -> AuditReport:
    """One stage: one scan read by every consumer, every applicable rule, findings sorted."""
    stage = open_stage(stage_or_path)
    return report_of_walks(stage, stage_name(stage_or_path, stage), walk_many(stage, consumers), consumers, rules,
                           strict)


def report_of_walks(stage, name: str, walks: dict, consumers: Sequence[str], rules: Sequence[Rule],
                    strict: bool = False) -> AuditReport:
    """The report of one stage from its readings (``walks``: consumer -> StageDescription, at
    least every one of ``consumers``): what :func:`audit_stage` does once the stage is walked."""
    ctx = AuditContext(stage, name, {consumer: walks[consumer] for consumer in consumers})
    findings: list[Finding] = []
    # rules build many small acyclic findings (see the walker); what USD cannot hand over (text
    # that is not UTF-8, a value it refuses) rejects the stage as the walker does
    with paused_cycle_collection(), unreadable_values_rejected(stage):
        for rule in rules:
            if rule.applies(consumers):
                findings.extend(rule.check(ctx))
    return AuditReport((name,), tuple(consumers), tuple(sorted(findings, key=Finding.sort_key)), (), strict)


def audit_path_safely(path: str, consumers: Sequence[str], rule_ids: Optional[Sequence[str]],
                      strict: bool = False) -> AuditReport:
    """``audit_stage`` for batch runs: an unreadable file becomes a failure, not an exception."""
    try:
        return audit_stage(path, consumers, select_rules(rule_ids), strict)
    except InputError as error:
        return AuditReport((path,), tuple(consumers), (), (StageFailure(path, str(error)),), strict)


def stage_name(stage_or_path, stage) -> str:
    if _is_stage(stage_or_path):
        layer = stage.GetRootLayer()
        return layer.realPath or layer.identifier
    return os.fspath(stage_or_path)


def expand_inputs(items: Iterable[Union[str, os.PathLike]]) -> list[str]:
    """Files, directories (every USD file below, sorted) and glob patterns -> file paths.

    A directory without USD files, or a pattern matching nothing, is an :class:`InputError`.
    """
    paths: list[str] = []
    for text in paths_arg(items, "stages", "stage paths"):
        if os.path.isdir(text):
            found = sorted(os.path.join(root, f) for root, _, files in os.walk(text) for f in files
                           if f.lower().endswith(USD_EXTENSIONS))
            if not found:
                raise InputError(text, "directory holds no USD stage (.usda, .usdc, .usd, .usdz)")
            paths.extend(found)
        elif glob.has_magic(text) and not os.path.exists(text):
            found = sorted(p for p in glob.glob(text, recursive=True) if p.lower().endswith(USD_EXTENSIONS))
            if not found:
                raise InputError(text, "pattern matches no USD stage")
            paths.extend(found)
        else:
            paths.append(text)
    return paths


def _is_stage(obj) -> bool:
    return type(obj).__name__ == "Stage" and hasattr(obj, "GetRootLayer")
