"""Module attributes that load on first use (PEP 562), so importing a package stays cheap."""
from __future__ import annotations

import importlib
import sys
from typing import Iterable, Mapping


def lazy_exports(package: str, sources: Mapping[str, str], public: Iterable[str]):
    """``__getattr__`` and ``__dir__`` for ``package``: each name in ``sources`` is taken from
    the module named there (relative to ``package`` when it starts with a dot) on first access,
    then kept in the package's namespace."""
    public = tuple(public)

    def __getattr__(name: str):
        try:
            module = sources[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        value = getattr(importlib.import_module(module, package), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__():
        return sorted(set(vars(sys.modules[package])) | set(public))

    return __getattr__, __dir__
