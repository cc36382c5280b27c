"""Validation of usdjoints' JSON documents against the schemas shipped in usdjoints/schemas."""
from __future__ import annotations

import pytest

jsonschema = pytest.importorskip("jsonschema")

from usdjoints.schemas import schema_for  # noqa: E402

_VALIDATORS: dict = {}


def validate_document(document: dict) -> None:
    """Raise ``jsonschema.ValidationError`` unless ``document`` matches the schema it names."""
    name = document["schema"]
    if name not in _VALIDATORS:
        schema = schema_for(document)
        jsonschema.Draft202012Validator.check_schema(schema)
        _VALIDATORS[name] = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
    _VALIDATORS[name].validate(document)


def is_usdjoints_document(obj) -> bool:
    return isinstance(obj, dict) and str(obj.get("schema", "")).startswith("usdjoints.")
