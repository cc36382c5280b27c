"""The shapes of the column contract: a column and a divergence (a consumer profile is
:class:`usdjoints.profiles.base.Profile`).

The contract records, per column of a joint-relevant schema, what each party does with it: the
schema's raw fallback (never stored here; read from ``Usd.SchemaRegistry`` at run time by
:mod:`usdjoints.contract.registry`), what USD population writes (the producer), and what each
consumer assumes when the column is absent (its parser default).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Mapping, Optional

from ..profiles import NAMES as CONSUMERS  # noqa: F401  the registry is the one list of consumers
from ..profiles.base import Profile as ConsumerProfile  # noqa: F401  the profile shape lives with the profiles


class Producer(str, enum.Enum):
    """What USD population publishes for a column, when it is not a literal value."""

    RESOLVED = "resolved"  # the resolved USD value: authored, else the raw fallback
    NOT_WRITTEN = "not written"  # only when authored (relationships, optional columns)

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class Divergence:
    """A known disagreement between schema, producer and consumer for one column.

    ``kind``: defect (wrong behaviour), fragile (correct today by accident), note (worth knowing).
    ``side``: consumer or producer (or "" when it concerns neither alone). ``effect`` is written
    for a user of usdjoints; ``page`` is the contract page it was recorded on.
    """

    kind: str
    side: str
    effect: str
    page: str


@dataclass(frozen=True, slots=True)
class ColumnSpec:
    """One column of a schema as the consumers read it.

    ``name`` is the USD property name; for a multiple-apply API it holds ``<inst>`` where the
    instance name goes (``drive:<inst>:physics:stiffness``). ``parser_defaults`` maps a consumer
    name to the value it uses when the column is absent (``None`` = the side/feature is absent,
    e.g. a relationship anchors to the world). ``producer`` is a :class:`Producer` or a literal.
    ``conversion`` names the function in :mod:`usdjoints.units` a consumer applies (or None).
    """

    owner: str
    name: str
    value_type: str
    units: str
    producer: Any
    parser_defaults: Mapping[str, Any]
    if_absent: str
    kind: str = "attribute"  # attribute | relationship | metadata
    conversion: Optional[str] = None
    page: str = ""
    divergences: tuple[Divergence, ...] = ()

    @property
    def multiple_apply(self) -> bool:
        return "<inst>" in self.name

    def property_name(self, instance: Optional[str] = None) -> str:
        if self.multiple_apply:
            if not instance:
                raise ValueError(f"{self.owner}.{self.name} needs an instance name")
            return self.name.replace("<inst>", instance)
        return self.name
