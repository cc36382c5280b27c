"""Where a value came from: the one idea the walker, auditor and model share.

A :class:`Resolved` carries the value a consumer uses together with the three values that can
disagree with it: the schema's raw fallback, what USD population (the producer) writes, and what
the consumer assumes when the column is absent (its parser default).
"""
from __future__ import annotations

import enum
from typing import Any, Generic, NamedTuple, TypeVar

T = TypeVar("T")


class Source(str, enum.Enum):
    """Provenance of a resolved column value."""

    AUTHORED = "authored"  # a layer holds a default value or time samples
    FALLBACK = "fallback"  # unauthored; the schema's fallback (what USD resolves to)
    PARSER_DEFAULT = "parser_default"  # the column does not exist for this consumer; its default
    BLOCKED = "blocked"  # an opinion blocks the value; consumers see the column as absent
    MISSING = "missing"  # no schema attribute, no opinion and no consumer default
    INVALID = "invalid"  # authored with the wrong value type or unreadable; consumers see it as absent

    def __str__(self) -> str:  # JSON and text output use the plain name
        return self.value


class Resolved(NamedTuple, Generic[T]):
    """A column value with its provenance (immutable; a tuple, so cheap to make by the million).

    ``value`` is what the consumer named by the walk uses. ``fallback`` is read from the schema
    registry (``None`` where the schema declares none); ``producer`` is what USD population
    publishes (``None`` for "not written"); ``parser_default`` is the consumer's value when the
    column is absent. ``time_sampled``: the column also has time samples, which consumers reading
    at the default time do not see.
    """

    value: T
    source: Source
    fallback: Any = None
    parser_default: Any = None
    producer: Any = None
    time_sampled: bool = False

    @property
    def authored(self) -> bool:
        return self.source is Source.AUTHORED
