"""Sample stage paths for the audit tests."""
from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SAMPLES = sorted((REPO / "sample_stages").glob("*.usda"))
CLEAN_STAGES = sorted((REPO / "sample_stages" / "clean").glob("*.usda"))
BAD_STAGES = sorted((REPO / "sample_stages" / "bad").glob("*.usda"))
CLEAN_SAMPLES = [p for p in SAMPLES if not p.name.startswith("bad_")] + CLEAN_STAGES
BAD_SAMPLES = [p for p in SAMPLES if p.name.startswith("bad_")]
