"""The auditor: what each consumer will really do with a stage, as findings with fix hints.

``audit(stage_or_paths, consumers=None, strict=False)`` returns an :class:`AuditReport`;
``write_fix_layer`` writes a layer that pins divergent defaults; ``usdjoints audit`` is the CLI.
Names load on first use, so the command line can register ``audit`` without loading the rules.
"""
from __future__ import annotations

import importlib

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


def __getattr__(name: str):
    try:
        module = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'usdjoints.auditor' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
