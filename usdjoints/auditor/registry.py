"""Every audit rule, in listing order, and selection by id."""
from __future__ import annotations

from typing import Iterable, Optional

from ..args import names_arg
from ..errors import UsageError
from . import (rules_articulations, rules_bodies, rules_couplings, rules_defaults, rules_instances, rules_limits,
               rules_mass, rules_newton, rules_stock, rules_units, rules_values)
from .rule import Rule

RULE_CLASSES: tuple[type[Rule], ...] = (
    rules_defaults.RULES + rules_limits.RULES + rules_instances.RULES + rules_couplings.RULES
    + rules_bodies.RULES + rules_mass.RULES + rules_articulations.RULES + rules_values.RULES + rules_units.RULES
    + rules_newton.RULES
)
# OpenUSD's UsdPhysics validators, run by the audit (their ids are usdphysics:<ValidatorName>);
# usdjoints' own rules are RULE_CLASSES, the ones it registers as validators in turn.
STOCK_RULE_CLASSES: tuple[type[Rule], ...] = rules_stock.RULES
ALL_RULE_CLASSES: tuple[type[Rule], ...] = RULE_CLASSES + STOCK_RULE_CLASSES
RULES_BY_ID: dict[str, type[Rule]] = {cls.id: cls for cls in ALL_RULE_CLASSES}
assert len(RULES_BY_ID) == len(ALL_RULE_CLASSES), "rule ids must be unique"


def select_rules(ids: Optional[Iterable[str]] = None) -> tuple[Rule, ...]:
    """Instances of the named rules (all, OpenUSD's validators included, when ``ids`` is None); an
    unknown id is a usage error."""
    if ids is None:
        return tuple(cls() for cls in ALL_RULE_CLASSES)
    ids = names_arg(ids, "rules")
    chosen = []
    for rule_id in ids:
        cls = RULES_BY_ID.get(rule_id) if isinstance(rule_id, str) else None
        if cls is None:
            raise UsageError(f"unknown rule {rule_id!r}: `usdjoints audit --list-rules` lists them")
        chosen.append(cls())
    return tuple(chosen)
