"""Fixtures of the audit tests: the folder of bad sample stages (one per rule, read-only), and a
check that every usdjoints JSON document these tests produce matches its shipped schema."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from bad_stages import BAD_DIR, EXPECTED  # noqa: E402,F401


@pytest.fixture(scope="session")
def bad_dir() -> Path:
    """sample_stages/bad: tests read these files and write only under tmp_path."""
    return BAD_DIR


@pytest.fixture(autouse=True)
def every_document_matches_its_schema(monkeypatch):
    """Every document written through ``usdjoints.jsonio.dumps`` in these tests is validated
    against the schema it names (documents read back from a subprocess are validated by the test)."""
    import usdjoints.jsonio as jsonio

    try:
        from schema_check import is_usdjoints_document, validate_document
    except pytest.skip.Exception:  # jsonschema absent: tests/auditor/test_schemas.py says so
        yield
        return
    original = jsonio.dumps

    def checked_dumps(obj, indent=2):
        text = original(obj, indent)
        plain = jsonio.to_jsonable(obj)
        if is_usdjoints_document(plain):
            validate_document(plain)
        return text

    monkeypatch.setattr(jsonio, "dumps", checked_dumps)
    for module in ("usdjoints.auditor.writers",):
        imported = sys.modules.get(module)
        if imported is not None and getattr(imported, "dumps", None) is original:
            monkeypatch.setattr(imported, "dumps", checked_dumps)
    yield
