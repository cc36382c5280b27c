"""Finds the file a resource URI (``package://``, ``file://``, relative or absolute path) names.

Search order for ``package://NAME/rest``:

1. ``packages[NAME]`` given by the caller (``--package NAME=DIR``);
2. ``DIR/NAME`` for each directory of ``ROS_PACKAGE_PATH``;
3. ``PREFIX/share/NAME`` for each prefix of ``AMENT_PREFIX_PATH`` (ROS 2 installs);
4. an ancestor directory of the source file named ``NAME`` (a package checked out or installed
   as a tree, the common layout of description packages);
5. ``DIR/NAME`` and ``DIR/rest`` for each caller resource path (``--resource-path DIR``).

Relative paths (and ``file://`` URIs whose path is relative) resolve against the source file's
directory, then the resource paths. Backslashes are read as path separators (files written on
Windows: ``meshes\\box.stl``, ``package://pkg\\meshes\\x.stl``).

Only regular files are found. A candidate that exists but is a FIFO, socket or device is refused
(:class:`ResourceRefused`): reading one could block forever or never end. With ``confine`` a
candidate is used only when its real path (symlinks resolved) lies inside the source directory, a
``packages`` directory or a resource path (or the ``confine_roots`` the caller names instead);
other candidates are skipped, and when only such a candidate exists the resource is refused.
:class:`Confinement` is that rule alone, for readers with their own search order (SDFormat
includes).
"""
from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence
from urllib.parse import unquote

from ..outputs import kernel_file_system


class ResourceRefused(Exception):
    """A resource that exists but must not be read (outside the confinement, or a special file)."""


class Confinement:
    """The folders reads are confined to: a path is admitted when its real path lies inside one."""

    __slots__ = ("roots",)

    def __init__(self, roots: Sequence[str | os.PathLike]):
        self.roots = tuple(dict.fromkeys(os.path.realpath(r) for r in roots))

    def admits(self, path: str | os.PathLike) -> bool:
        real = os.path.realpath(path)
        return any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in self.roots)

    def refusal(self, uri: str, path: str | os.PathLike, what: str = "") -> ResourceRefused:
        """The error for ``uri`` (a ``what``: "include ", or a mesh) found only at ``path``, outside every root."""
        return ResourceRefused(
            f"{what}{uri!r} resolves to {os.path.realpath(path)}, outside the folders reads are confined to "
            f"({', '.join(self.roots)}); add its folder with --resource-path (or --package for a URDF "
            "package), or convert without --confine")


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
    confine: bool = False  # read only inside source_dir, the packages' and the resource paths' folders
    confine_roots: tuple[str, ...] | None = None  # with confine: these folders instead of those
    # the source directory and its ancestors, symlinks resolved once (not once per URI)
    _ancestors: tuple[Path, ...] = field(init=False, repr=False, compare=False)
    _confinement: Confinement | None = field(init=False, repr=False, compare=False)
    # each URI's answer, once per locator (robots name the same mesh for visual and collision)
    _answers: dict = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        here = Path(self.source_dir).resolve()
        object.__setattr__(self, "_ancestors", (here, *here.parents))
        confinement = None
        if self.confine:
            roots = self.confine_roots
            if roots is None:
                roots = (self.source_dir, *self.packages.values(), *self.resource_paths)
            confinement = Confinement(roots)
        object.__setattr__(self, "_confinement", confinement)
        object.__setattr__(self, "_answers", {})

    @property
    def allowed_roots(self) -> tuple[str, ...]:
        """The folders reads are confined to (empty when not confined)."""
        return self._confinement.roots if self._confinement is not None else ()

    def resolve(self, uri: str) -> Resolution:
        """The first regular file the URI names. Raises :class:`ResourceRefused` (see module doc)."""
        answer = self._answers.get(uri)
        if answer is None:
            try:
                answer = self._resolve(uri)
            except ResourceRefused as error:
                answer = error
            self._answers[uri] = answer
        if isinstance(answer, ResourceRefused):
            raise answer
        return answer

    def _resolve(self, uri: str) -> Resolution:
        uri = uri.replace("\\", "/")
        if uri.startswith("package://"):
            # package:///name/... (an empty authority) is seen in the wild; read it as package://name/...
            name, _, rest = uri[len("package://"):].lstrip("/").partition("/")
            return self._first_existing(uri, self._package_candidates(name, rest))
        if uri.startswith("model://"):
            # SDFormat's model URIs resolve like packages against the resource paths.
            name, _, rest = uri[len("model://"):].partition("/")
            return self._first_existing(uri, [str(Path(d) / name / rest) for d in self._resource_dirs()])
        if uri.startswith("file://"):
            # file:///abs/path, file://localhost/abs/path, and file://relative/path as written in the wild
            path = unquote(uri[len("file://"):])
            if path.startswith("localhost/"):
                path = path[len("localhost"):]
            uri_path = Path(path)
        else:
            uri_path = Path(uri)
        if uri_path.is_absolute():
            return self._first_existing(uri, [str(uri_path)])
        candidates = [str(Path(self.source_dir) / uri_path)]
        candidates += [str(Path(d) / uri_path) for d in self.resource_paths]
        return self._first_existing(uri, candidates)

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

    def _first_existing(self, uri: str, candidates: Sequence[str]) -> Resolution:
        outside = None
        for candidate in candidates:
            try:
                mode = os.stat(candidate).st_mode
            except (OSError, ValueError):  # absent, unreadable folder, or a NUL in the name
                continue
            if stat.S_ISDIR(mode):
                continue
            if self._confinement is not None and not self._confinement.admits(candidate):
                outside = outside or candidate
                continue
            if not stat.S_ISREG(mode):
                raise ResourceRefused(f"{uri!r} is {_file_kind(mode)} ({candidate}), not a regular file; "
                                      "it is not read")
            kernel = kernel_file_system(os.stat(candidate))
            if kernel is not None:
                raise ResourceRefused(f"{uri!r} is a file of the kernel's {kernel} file system ({candidate}), "
                                      "not a file on disk; it is not read")
            return Resolution(os.path.abspath(candidate), tuple(candidates))
        if outside is not None:
            raise self._confinement.refusal(uri, outside)
        return Resolution(None, tuple(candidates))


def not_found_message(uri: str, searched: Sequence[str]) -> str:
    """The report's words for a resource that was not found; a package URI names the flag that maps it."""
    text = f"{uri!r} not found"
    package = package_name(uri)
    if package is None:
        return f"{text} (searched: {'; '.join(searched) or 'nowhere'})"
    fix = f"pass --package {package}=DIR (or put its parent folder on ROS_PACKAGE_PATH)"
    if not searched:
        return f"{text}: no folder is known for package {package!r}; {fix}"
    return f"{text} (searched: {'; '.join(searched)}); if package {package!r} is elsewhere, {fix}"


def package_name(uri: str) -> str | None:
    """NAME of a ``package://NAME/...`` URI (None for other URIs)."""
    uri = uri.replace("\\", "/")
    if not uri.startswith("package://"):
        return None
    return uri[len("package://"):].lstrip("/").partition("/")[0]


def regular_file_problem(path: str) -> str | None:
    """Why ``path`` cannot be read as an input file (None: it is a regular file)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return "no such file"
    except OSError as error:
        return f"cannot read the file: {error.strerror or error}"
    except ValueError:
        return "no such file"
    mode = info.st_mode
    if stat.S_ISREG(mode):
        kernel = kernel_file_system(info)
        return None if kernel is None else f"is a file of the kernel's {kernel} file system, not a file on disk"
    return f"is {_file_kind(mode)}, not a regular file"


def _file_kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def _split_env(variable: str) -> list[str]:
    return [d for d in os.environ.get(variable, "").split(os.pathsep) if d]
