"""Prim names from source names: valid USD identifiers, unique among siblings."""
from __future__ import annotations

from pxr import Tf


def unique_child_name(source_name: str, used: set[str]) -> str:
    """A valid identifier for ``source_name`` not in ``used`` (which it joins); ``_1``, ``_2``... on clashes."""
    base = Tf.MakeValidIdentifier(source_name) if source_name else "_"
    name, counter = base, 0
    while name in used:
        counter += 1
        name = f"{base}_{counter}"
    used.add(name)
    return name
