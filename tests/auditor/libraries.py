"""Libraries of stages written under tmp_path for the batch tests."""
from __future__ import annotations

import shutil
from pathlib import Path

from bad_stages import BAD_DIR


def copy_library(root: Path, copies: int, names=None) -> list[Path]:
    """``copies`` copies of every bad sample stage (or the ones named), in sub-folders ``c000``..."""
    sources = sorted(BAD_DIR.glob("*.usda")) if names is None else [BAD_DIR / f"{n}.usda" for n in names]
    written = []
    for copy in range(copies):
        folder = root / f"c{copy:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        for source in sources:
            target = folder / source.name
            shutil.copyfile(source, target)
            written.append(target)
    return written
