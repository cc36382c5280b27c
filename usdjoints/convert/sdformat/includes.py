"""Finding the file an ``<include>`` names.

Search order for a URI, libsdformat's ``findFile`` (URI path map, then the scheme stripped and
the path tried in the local directory, as written, in ``SDF_PATH``, then the find callback that
gz-sim points at ``GZ_SIM_RESOURCE_PATH``), with the including file's folder as the local one:

1. ``model://NAME/...``: ``NAME/...`` in each resource directory;
2. the scheme (``file://``, ``model://``, any ``xxx://``) stripped: an absolute path as it is;
   a relative one in the including file's folder, then the current directory, then each
   resource directory.

The resource directories are the caller's ``resource_paths``, then ``GZ_SIM_RESOURCE_PATH``,
``IGN_GAZEBO_RESOURCE_PATH`` and ``SDF_PATH`` (each a list separated by ``os.pathsep``). A
directory is a model directory: its ``model.config`` names one SDFormat file per version and
the newest version this reader supports is taken; without a config, ``model.sdf``.

With a :class:`usdjoints.convert.resolve.Confinement` (``--confine``) a candidate whose real path
(symlinks resolved) lies outside its folders is skipped, and when only such a candidate exists the
include is refused; a model directory's ``model.config`` and the file it names are held to the
same rule.
"""
from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from usdjoints.errors import InputError
from usdjoints.outputs import regular_input

from .. import xml_tinyxml
from ..resolve import Confinement, kernel_file_system
from .parse import SUPPORTED_VERSIONS, version_tuple

ENVIRONMENT_VARIABLES = ("GZ_SIM_RESOURCE_PATH", "IGN_GAZEBO_RESOURCE_PATH", "SDF_PATH")


def search_directories(resource_paths: tuple[str | Path, ...]) -> tuple[Path, ...]:
    """The caller's directories first, then those of the environment variables."""
    directories = [Path(p) for p in resource_paths]
    for variable in ENVIRONMENT_VARIABLES:
        for entry in os.environ.get(variable, "").split(os.pathsep):
            if entry:
                directories.append(Path(entry))
    return tuple(directories)


def resolve_uri(uri: str, base_dir: Path, directories: tuple[Path, ...], where: str,
                confinement: Confinement | None = None) -> Path:
    """The SDFormat file an include URI points at (inside ``confinement``'s folders when given)."""
    if uri.startswith(("http://", "https://")):
        raise InputError(where, f"include uri '{uri}' is remote; usdjoints does not download models",
                         "download the model and pass its parent directory with --resource-path")
    candidates: list[Path] = []
    if uri.startswith("model://"):
        candidates += [d / uri[len("model://"):] for d in directories]
    stripped = uri.split("://", 1)[1] if "://" in uri else uri
    if not stripped:
        raise InputError(where, f"include uri '{uri}' names no file")
    if os.path.isabs(stripped):
        candidates.append(Path(stripped))
    else:
        candidates += [base_dir / stripped, Path.cwd() / stripped] + [d / stripped for d in directories]
    outside = None
    unusable = None
    for candidate in candidates:
        kind, problem = _kind(candidate)
        unusable = unusable or problem
        if kind is None:
            continue
        is_dir = kind == "dir"
        if confinement is not None and not confinement.admits(candidate):
            outside = outside or candidate
            continue
        if is_dir:
            return model_file_in(candidate, where, uri, confinement)
        return candidate
    if outside is not None:
        raise InputError(where, str(confinement.refusal(uri, outside, "include ")))
    if unusable is not None:  # libsdformat's findFile does not find such a path either
        raise InputError(where, f"cannot find include uri '{_shortened(uri)}': {unusable}")
    searched = ", ".join(dict.fromkeys(str(c) for c in candidates)) or "no resource directory"  # each once
    raise InputError(where, f"cannot find include uri '{uri}' (searched {searched})",
                     "add the model's parent directory with --resource-path or GZ_SIM_RESOURCE_PATH")


def _kind(candidate: Path) -> tuple[str | None, str | None]:
    """("dir" | "file" | None, why the path cannot be looked at): a name longer than the file
    system allows or a loop of symlinks is a path no file is found at, not a crash."""
    try:
        mode = os.stat(candidate).st_mode
    except OSError as e:
        if e.errno in (errno.ENOENT, errno.ENOTDIR):
            return None, None
        return None, e.strerror or str(e)
    except ValueError as e:  # an embedded NUL byte
        return None, str(e)
    if stat.S_ISDIR(mode):
        return "dir", None
    if stat.S_ISREG(mode):
        kernel = kernel_file_system(os.stat(candidate))
        if kernel is not None:  # /proc/kmsg: a read waits for the next kernel message
            return None, f"{candidate} is a file of the kernel's {kernel} file system, not a file on disk"
        return "file", None
    return None, None


def _shortened(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def model_file_in(directory: Path, where: str, uri: str = "", confinement: Confinement | None = None) -> Path:
    """The SDFormat file of a model directory, the newest supported version in model.config."""
    def admitted(path: Path) -> Path:
        if confinement is not None and not confinement.admits(path):
            raise InputError(where, str(confinement.refusal(uri, path, "include ")))
        return path

    config = directory / "model.config"
    if config.is_file():
        admitted(config)
        regular_input(config, "model.config")  # a file of the kernel's (/proc/kmsg) would block the read
        try:
            data = config.read_bytes()
        except OSError as e:
            raise InputError(str(config), f"cannot read model.config: {e.strerror or e}") from e
        # read as libsdformat reads it (tinyxml2); from bytes, an encoding error has its line
        root = xml_tinyxml.parse(str(config), data, "libsdformat", base_url=str(config))[0].getroot()
        best: tuple[tuple[int, int], Path] | None = None
        for sdf in root.findall("sdf"):
            version = (sdf.get("version") or "").strip()
            name = (sdf.text or "").strip()
            if not name or (version and version not in SUPPORTED_VERSIONS):
                continue
            key = version_tuple(version) if version else (0, 0)
            if best is None or key > best[0]:
                best = (key, directory / name)
        if best is not None:
            return admitted(best[1])
        raise InputError(f"{config}:{root.sourceline}", "model.config lists no SDFormat file of a supported version")
    fallback = directory / "model.sdf"
    if fallback.is_file():
        return admitted(fallback)
    for name in ("model.config", "model.sdf"):
        if (directory / name).exists() or (directory / name).is_symlink():  # a FIFO, a device, a folder
            raise InputError(where, f"{directory / name} is not a regular file: an include reads only files")
    raise InputError(where, f"model directory {directory} has neither model.config nor model.sdf")
