"""SDFormat (1.4 to 1.12, and 1.3 as libsdformat converts it) reader: a ``.sdf`` file -> :class:`usdjoints.convert.ir.RobotIR`.

Stages: parse.py (lxml, version) -> scope.py (declarations, includes expanded by includes.py)
-> frames.py (the relative_to and attached_to graphs) -> links.py / joints.py / axes.py ->
robot.py (one RobotIR).
"""
from __future__ import annotations

import os
from typing import Sequence

from pathlib import Path

from ..ir import RobotIR
from ..resolve import Confinement
from .document import resolve_document
from .includes import search_directories
from .robot import SDFORMAT_DEFAULTS, build_robot

__all__ = ["read_sdformat", "SDFORMAT_DEFAULTS"]


def read_sdformat(path: str | os.PathLike, *, resource_paths: Sequence[str | os.PathLike] | None = None,
                  confine: bool = False, world: str | None = None) -> RobotIR:
    """Read ``path`` into a RobotIR; ``resource_paths`` are searched for includes and meshes first.

    ``confine``: includes and meshes are read only from inside the file's folder and the
    ``resource_paths`` (symlinks resolved); the folders of ``GZ_SIM_RESOURCE_PATH``,
    ``IGN_GAZEBO_RESOURCE_PATH`` and ``SDF_PATH`` are still searched but not trusted, so a file
    found only there is refused unless its folder is passed in ``resource_paths`` too.
    ``world``: the name of the world to read, needed when the file holds several.

    Raises :class:`usdjoints.errors.InputError` (``file:line``) for malformed input: bad XML, an
    unknown version, a missing include, a dangling or cyclic frame reference, a joint to itself.
    Everything the IR cannot carry is listed in ``RobotIR.notes``.
    """
    paths = tuple(str(p) for p in resource_paths or ())
    roots = (str(Path(path).resolve().parent), *paths) if confine else None
    confinement = Confinement(roots) if roots is not None else None
    # meshes are searched where includes are: the caller's paths, then GZ_SIM_RESOURCE_PATH & co.
    return build_robot(resolve_document(path, paths, confinement), search_directories(paths), confine_roots=roots,
                       world=world)
