"""Fixtures of the audit tests: the bad stages written to a temporary directory."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from bad_stages import BAD  # noqa: E402


@pytest.fixture(scope="session")
def bad_dir(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("bad")
    for rule_id, (text, _, _) in BAD.items():
        (directory / f"{rule_id}.usda").write_text(text)
    return directory
