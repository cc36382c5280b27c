"""The auditor: what each consumer will really do with a stage, as findings with fix hints.

``audit(stage_or_paths, consumers=None, strict=False)`` returns an :class:`AuditReport`;
``write_fix_layer`` writes a layer that pins divergent defaults; ``usdjoints audit`` is the CLI.
Names load on first use, so the command line can register ``audit`` without loading the rules.
"""
from __future__ import annotations

from .._lazy import lazy_exports

__all__ = ["audit", "AuditReport", "Finding", "StageFailure", "RULE_CLASSES", "RULES_BY_ID", "write_fix_layer"]

_LAZY = {
    "audit": ".engine",
    "AuditReport": ".findings",
    "Finding": ".findings",
    "StageFailure": ".findings",
    "RULE_CLASSES": ".registry",
    "RULES_BY_ID": ".registry",
    "write_fix_layer": ".fix",
}

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__)
