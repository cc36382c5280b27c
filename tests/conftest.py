"""Shared test setup: PhysX schemas registered first, and tests/ importable for its helpers."""
from __future__ import annotations

import sys
from pathlib import Path

import usdjoints  # noqa: F401  (registers the PhysX schemas before any stage is opened)

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
