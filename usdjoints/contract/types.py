"""The shapes of the column contract: a column, a divergence, a consumer profile.

The contract records, per column of a joint-relevant schema, what each party does with it: the
schema's raw fallback (never stored here; read from ``Usd.SchemaRegistry`` at run time by
:mod:`usdjoints.contract.registry`), what USD population writes (the producer), and what each
consumer assumes when the column is absent (its parser default).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

CONSUMERS = ("ovphysx", "usdphysics", "usdjoints", "newton")


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


@dataclass(frozen=True, slots=True)
class ConsumerProfile:
    """The rules one consumer applies when it reads joints.

    ``limit_enable_rule``: "or" (a limit is on when either bound is finite) or "and" (both).
    ``drive_instances`` / ``limit_instances``: per joint type, the API instances it reads.
    ``reads_unauthored_as``: "producer" (ovphysx reads what USD population wrote) or "usd" (the
    USD value, i.e. the fallback). ``angular_gain_scale`` is applied to rotational gains when the
    consumer converts per-degree gains (documentation of the consumer, not used for output units).
    """

    name: str
    description: str
    limit_enable_rule: str
    drive_instances: Mapping[str, tuple[str, ...]]
    limit_instances: Mapping[str, tuple[str, ...]]
    reads_unauthored_as: str
    notes: tuple[str, ...] = field(default_factory=tuple)
    # The per-dof view: the column each dof value is read from ("{dof}" is the dof name); a value
    # with no column here is one the consumer does not hold ("not_read").
    dof_columns: Mapping[str, str] = field(default_factory=dict)
    # Inside an articulation a D6 keeps only its rotational axes (PhysX articulation joints).
    articulation_d6_rotational_only: bool = False
    # Whether PhysxMimicJointAPI couplings are applied.
    applies_physx_mimics: bool = True
    # A consumer that reads joints through another one's reading and then applies its own rules:
    # ``reads_through`` names that reading, ``refine`` the function "module:name" that takes its
    # StageDescription (and the open stage) and returns this consumer's.
    reads_through: Optional[str] = None
    refine: Optional[str] = None
