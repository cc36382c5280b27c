"""Finds the file a resource URI (``package://``, ``file://``, relative or absolute path) names.

Search order for ``package://NAME/rest``:

1. ``packages[NAME]`` given by the caller (``--package NAME=DIR``);
2. ``DIR/NAME`` for each directory of ``ROS_PACKAGE_PATH``;
3. ``PREFIX/share/NAME`` for each prefix of ``AMENT_PREFIX_PATH`` (ROS 2 installs);
4. an ancestor directory of the source file named ``NAME`` (a package checked out or installed
   as a tree, the common layout of description packages);
5. ``DIR/NAME`` and ``DIR/rest`` for each caller resource path (``--resource-path DIR``).

Relative paths resolve against the source file's directory, then the resource paths.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence
from urllib.parse import unquote, urlparse


@dataclass(frozen=True, slots=True)
class Resolution:
    """``path`` is the absolute file found (``None`` if none); ``searched`` lists the candidates tried."""

    path: str | None
    searched: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ResourceLocator:
    """Where to look for resources of one source file."""

    source_dir: str
    packages: Mapping[str, str]
    resource_paths: tuple[str, ...] = ()
    use_environment: bool = True
    # the source directory and its ancestors, symlinks resolved once (not once per URI)
    _ancestors: tuple[Path, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        here = Path(self.source_dir).resolve()
        object.__setattr__(self, "_ancestors", (here, *here.parents))

    def resolve(self, uri: str) -> Resolution:
        if uri.startswith("package://"):
            # package:///name/... (an empty authority) is seen in the wild; read it as package://name/...
            name, _, rest = uri[len("package://"):].lstrip("/").partition("/")
            return _first_existing(self._package_candidates(name, rest))
        if uri.startswith("model://"):
            # SDFormat's model URIs resolve like packages against the resource paths.
            name, _, rest = uri[len("model://"):].partition("/")
            return _first_existing([str(Path(d) / name / rest) for d in self._resource_dirs()])
        if uri.startswith("file://"):
            return _first_existing([unquote(urlparse(uri).path)])
        path = Path(uri)
        if path.is_absolute():
            return _first_existing([str(path)])
        candidates = [str(Path(self.source_dir) / path)]
        candidates += [str(Path(d) / path) for d in self.resource_paths]
        return _first_existing(candidates)

    def _resource_dirs(self) -> list[str]:
        dirs = list(self.resource_paths)
        if self.use_environment:
            for variable in ("SDF_PATH", "GZ_SIM_RESOURCE_PATH", "IGN_GAZEBO_RESOURCE_PATH"):
                dirs += _split_env(variable)
        return dirs

    def _package_candidates(self, name: str, rest: str) -> list[str]:
        candidates: list[str] = []
        if name in self.packages:
            candidates.append(str(Path(self.packages[name]) / rest))
        if self.use_environment:
            candidates += [str(Path(d) / name / rest) for d in _split_env("ROS_PACKAGE_PATH")]
            candidates += [str(Path(d) / "share" / name / rest) for d in _split_env("AMENT_PREFIX_PATH")]
        for ancestor in self._ancestors:
            if ancestor.name == name:
                candidates.append(str(ancestor / rest))
                break
        for directory in self.resource_paths:
            candidates.append(str(Path(directory) / name / rest))
            candidates.append(str(Path(directory) / rest))
        return candidates


def _split_env(variable: str) -> list[str]:
    return [d for d in os.environ.get(variable, "").split(os.pathsep) if d]


def _first_existing(candidates: Sequence[str]) -> Resolution:
    for candidate in candidates:
        if os.path.isfile(candidate):
            return Resolution(os.path.abspath(candidate), tuple(candidates))
    return Resolution(None, tuple(candidates))
