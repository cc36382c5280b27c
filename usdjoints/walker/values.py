"""Values the walker reads from prims outside its joint contract (collider shapes, materials, the
physics scene), with the walker's decision on each (usdjoints/walker/columns.py,
tests/walker/test_wrong_types.py): a value authored with another value type than the schema
declares, of another shape, or one USD cannot read, reads as the schema fallback (OpenUSD's
parser does the same) with an ``invalid-value-type`` error; a blocked value reads as the
fallback."""
from __future__ import annotations

from ..descriptors import Diagnostic
from .columns import BLOCKED, ColumnInfo, Invalid, RawColumns, _read_value, to_python, value_diagnostics


class SchemaValues:
    """Reads declared attributes of prims; ``diagnostics`` collects the wrongly typed ones (once
    per prim and attribute)."""

    def __init__(self):
        self._seen: dict[tuple[str, str], object] = {}
        self.diagnostics: list[Diagnostic] = []

    def value(self, prim, name: str):
        """The attribute's value as the walker reads it; None when the prim's schema does not
        declare it."""
        path = str(prim.GetPath())
        key = (path, name)
        if key in self._seen:
            return self._seen[key]
        definition = prim.GetPrimDefinition()
        spec = definition.GetSchemaAttributeSpec(name)
        raw_fallback = definition.GetAttributeFallbackValue(name) if spec else None
        fallback = to_python(raw_fallback)
        value = fallback
        attribute = prim.GetAttribute(name)
        if spec is not None and (not attribute or attribute.HasAuthoredValue() or prim.HasRelationship(name)):
            info = ColumnInfo(name, prim.GetTypeName(), False, fallback, None, str(spec.typeName),
                              None if raw_fallback is None else type(raw_fallback))
            read, sampled = _read_value(prim, name, info, False)
            if type(read) is Invalid:
                self.diagnostics.extend(value_diagnostics(path, RawColumns((), {name: (read, sampled)}, {},
                                                                          frozenset((name,)))))
            elif read is not BLOCKED:
                value = read
        self._seen[key] = value
        return value

    def record(self, prim, name: str, value) -> None:
        """Keep ``value`` as the reading of the attribute (a later read neither warns again nor
        differs)."""
        self._seen[(str(prim.GetPath()), name)] = value
