"""Paths the tests share: the repository, the bundled sample stages, the optional shared corpus."""
from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TESTS = REPO / "tests"
SAMPLE_STAGES = sorted((REPO / "sample_stages").rglob("*.usda"))
SHARED_CORPUS = REPO.parent / "shared" / "corpus"
