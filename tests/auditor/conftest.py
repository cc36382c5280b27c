"""Fixtures of the audit tests: the folder of bad sample stages (one per rule, read-only)."""
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
