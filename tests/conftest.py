"""Shared test setup: the repository root on sys.path (for tests/ helpers) and sample stage paths."""
from __future__ import annotations

import sys
from pathlib import Path

import usdjoints  # noqa: F401  (registers the PhysX schemas before any stage is opened)

REPO = Path(__file__).resolve().parents[1]
TESTS = REPO / "tests"
SAMPLE_STAGES = sorted((REPO / "sample_stages").glob("*.usda"))
SHARED_CORPUS = REPO.parent / "shared" / "corpus"

if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
