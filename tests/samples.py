"""Paths the tests share: the repository, the bundled sample stages, the optional shared corpus."""
from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TESTS = REPO / "tests"
SAMPLE_STAGES = sorted((REPO / "sample_stages").rglob("*.usda"))
SHARED_CORPUS = REPO.parent / "shared" / "corpus"


def robots_dir() -> Path:
    """example-robot-data's robots folder; the calling test is skipped without it."""
    import pytest
    from importlib import metadata

    try:
        distribution = metadata.distribution("example-robot-data")
    except metadata.PackageNotFoundError:
        pytest.skip("example-robot-data is not installed")
    root = Path(distribution.locate_file("cmeel.prefix/share/example-robot-data/robots"))
    if not root.is_dir():
        pytest.skip(f"example-robot-data robots not found at {root}")
    return root
