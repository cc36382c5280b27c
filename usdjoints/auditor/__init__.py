"""The auditor: what each consumer will really do with a stage, as findings with fix hints.

``audit(stage_or_paths, consumers=None, strict=False)`` returns an :class:`AuditReport`;
``write_fix_layer`` writes a layer that pins divergent defaults; ``usdjoints audit`` is the CLI.
"""
from __future__ import annotations

from .engine import audit
from .findings import AuditReport, Finding, StageFailure
from .registry import RULE_CLASSES, RULES_BY_ID

__all__ = ["audit", "AuditReport", "Finding", "StageFailure", "RULE_CLASSES", "RULES_BY_ID", "write_fix_layer"]


def __getattr__(name: str):
    if name == "write_fix_layer":
        from .fix import write_fix_layer

        return write_fix_layer
    raise AttributeError(f"module 'usdjoints.auditor' has no attribute {name!r}")
