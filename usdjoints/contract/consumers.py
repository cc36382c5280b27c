"""The consumer profiles, kept here under their old names: they live in :mod:`usdjoints.profiles`."""
from __future__ import annotations

from ..profiles import PROFILES, profile
from ..profiles.base import D6_INSTANCES, ROTATIONAL_DOFS

__all__ = ["D6_INSTANCES", "PROFILES", "ROTATIONAL_DOFS", "profile"]
