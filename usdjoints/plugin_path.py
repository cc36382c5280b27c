"""Where usdjoints' plugInfo lives, for ``PXR_PLUGINPATH_NAME`` and ``Plug.Registry``.

The rules' UsdValidation validators read PhysX typed prims (rack-and-pinion, gear joints), so the
PhysX schemas must be known to USD before the first stage is opened: a tool that opens the stage
first and loads the validators afterwards (usdchecker does) cannot register them in time itself.
:func:`plugin_search_path` therefore lists physx-usd-schemas' resource folders too.
"""
from __future__ import annotations

import os
from pathlib import Path


def plugin_path() -> str:
    """The directory holding usdjoints' ``plugInfo.json`` (for ``Plug.Registry().RegisterPlugins``).

    In a wheel it is ``usdjoints/plugInfo``; in a source checkout it is the top-level ``plugInfo``.
    Importing usdjoints (which calling this does) registers the PhysX schemas already.
    """
    here = Path(__file__).resolve().parent
    for candidate in (here / "plugInfo", here.parent / "plugInfo"):
        if (candidate / "plugInfo.json").is_file():
            return str(candidate)
    raise FileNotFoundError("usdjoints' plugInfo.json is not installed beside the package")


def plugin_paths() -> list[str]:
    """usdjoints' plugInfo directory, then physx-usd-schemas' resource folders."""
    from physx_usd_schemas import schema_paths

    return [plugin_path(), *(str(p) for p in schema_paths())]


def plugin_search_path() -> str:
    """The value for ``PXR_PLUGINPATH_NAME``: :func:`plugin_paths` joined with ``os.pathsep``."""
    return os.pathsep.join(plugin_paths())
