"""Where usdjoints' plugInfo lives, for ``PXR_PLUGINPATH_NAME``."""
from __future__ import annotations

from pathlib import Path


def plugin_path() -> str:
    """The directory holding usdjoints' ``plugInfo.json``.

    In a wheel it is ``usdjoints/plugInfo``; in a source checkout it is the top-level ``plugInfo``.
    """
    here = Path(__file__).resolve().parent
    for candidate in (here / "plugInfo", here.parent / "plugInfo"):
        if (candidate / "plugInfo.json").is_file():
            return str(candidate)
    raise FileNotFoundError("usdjoints' plugInfo.json is not installed beside the package")
