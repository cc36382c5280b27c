"""Public entry points: a robot description file in, a UsdPhysics layer and a ConversionReport out."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping, Sequence

from ..errors import UsageError
from .ir import MeshRef, RobotIR
from .report import ConversionReport
from ..args import bool_arg, path_arg, paths_arg
from ..outputs import Output, regular_input

URDF_EXTENSIONS = (".urdf",)
SDFORMAT_EXTENSIONS = (".sdf", ".world")


def read_robot(input_path: str | os.PathLike, *, packages: Mapping[str, str] | None = None,
               resource_paths: Sequence[str] | None = None, confine: bool = False,
               world: str | None = None) -> RobotIR:
    """Reads a .urdf, .sdf or .world file into a RobotIR, choosing the reader by extension.

    ``confine``: resources (meshes, and SDFormat includes) are read only from the input's folder,
    the ``packages`` folders (URDF) and the ``resource_paths``; any other is refused with an
    InputError naming file:line. Folders from the environment (``ROS_PACKAGE_PATH``,
    ``GZ_SIM_RESOURCE_PATH``, ``SDF_PATH``...) are searched but not trusted. ``world`` names the
    world of an SDFormat file to read (needed when it holds several; a UsageError for URDF).
    """
    path = str(input_path)
    world = _checked_world(world)
    regular_input(path, "robot file")  # a FIFO or device would block the XML reader
    suffix = Path(path).suffix.lower()
    if suffix in URDF_EXTENSIONS:
        from .urdf import read_urdf

        if world is not None:
            raise UsageError(f"{path}: --world names a world of an SDFormat file; a URDF file has none")
        return _without_mimic_cycles(read_urdf(path, packages=packages, resource_paths=resource_paths,
                                               confine=confine))
    if suffix in SDFORMAT_EXTENSIONS:
        from .sdformat import read_sdformat  # imported lazily: the SDFormat reader is its own module

        return _without_mimic_cycles(read_sdformat(path, resource_paths=list(resource_paths or ()),
                                                   confine=confine, world=world))
    raise UsageError(f"{path}: unknown input kind {suffix!r}; expected .urdf, .sdf or .world")


def convert_file(input_path: str | os.PathLike, output_path: str | os.PathLike, *,
                 packages: Mapping[str, str] | None = None, resource_paths: Sequence[str] | None = None,
                 floating_base: bool | None = None, strict: bool = False,
                 confine: bool = False, world: str | None = None) -> ConversionReport:
    """Converts a URDF or SDFormat file into a UsdPhysics layer at ``output_path`` (.usda/.usdc/.usd).

    ``packages`` maps ``package://`` names to directories; ``resource_paths`` are extra search
    directories; ``floating_base`` overrides the base found in the file (None: keep it);
    ``confine`` refuses reads outside the input's folder, ``packages`` and ``resource_paths``;
    ``world`` names the world of an SDFormat file that holds several. The
    layer is written to a temporary file and renamed, so a failed conversion leaves nothing behind,
    and never onto the input or a file it references.
    Raises :class:`InputError` (file:line) for invalid input, and with ``strict`` for any warning.
    """
    from .usd_writer import write_usd

    input_path, packages, resource_paths = _checked_inputs(input_path, packages, resource_paths)
    floating_base, strict, confine = _checked_flags(floating_base, strict, confine)
    output_path = _checked_output(input_path, output_path)
    robot = read_robot(input_path, packages=packages, resource_paths=resource_paths, confine=confine, world=world)
    _check_output_not_read(robot, output_path)
    return write_usd(robot, output_path, floating_base=floating_base, input_path=str(input_path), strict=strict)


def convert_urdf(input_path: str | os.PathLike, output_path: str | os.PathLike, *,
                 packages: Mapping[str, str] | None = None, resource_paths: Sequence[str] | None = None,
                 floating_base: bool | None = None, strict: bool = False,
                 confine: bool = False) -> ConversionReport:
    """:func:`convert_file` for a URDF file, whatever its extension."""
    from .urdf import read_urdf
    from .usd_writer import write_usd

    input_path, packages, resource_paths = _checked_inputs(input_path, packages, resource_paths)
    floating_base, strict, confine = _checked_flags(floating_base, strict, confine)
    output_path = _checked_output(input_path, output_path)
    robot = _without_mimic_cycles(read_urdf(input_path, packages=packages, resource_paths=resource_paths,
                                            confine=confine))
    _check_output_not_read(robot, output_path)
    return write_usd(robot, output_path, floating_base=floating_base, input_path=str(input_path), strict=strict)


def convert_sdformat(input_path: str | os.PathLike, output_path: str | os.PathLike, *,
                     resource_paths: Sequence[str] | None = None,
                     floating_base: bool | None = None, strict: bool = False,
                     confine: bool = False, world: str | None = None) -> ConversionReport:
    """:func:`convert_file` for an SDFormat file."""
    from .sdformat import read_sdformat
    from .usd_writer import write_usd

    input_path, _, resource_paths = _checked_inputs(input_path, None, resource_paths)
    floating_base, strict, confine = _checked_flags(floating_base, strict, confine)
    output_path = _checked_output(input_path, output_path)
    robot = _without_mimic_cycles(read_sdformat(str(input_path), resource_paths=list(resource_paths or ()),
                                                confine=confine, world=_checked_world(world)))
    _check_output_not_read(robot, output_path)
    return write_usd(robot, output_path, floating_base=floating_base, input_path=str(input_path), strict=strict)


def _checked_inputs(input_path, packages, resource_paths):
    """The input path, ``packages`` and ``resource_paths`` as str paths (UsageError for other types)."""
    input_path = path_arg(input_path, "input_path")
    if packages is not None:
        if not isinstance(packages, Mapping):
            raise UsageError(f"packages must map package names to directories, got {type(packages).__name__}")
        for name in packages:
            if not isinstance(name, str):
                raise UsageError(f"packages: a package name must be a str, got {type(name).__name__} {name!r}")
        packages = {name: path_arg(folder, f"packages[{name!r}]") for name, folder in packages.items()}
    if resource_paths is not None:
        resource_paths = paths_arg(resource_paths, "resource_paths", "directories")
    return input_path, packages, resource_paths


def _without_mimic_cycles(robot: RobotIR) -> RobotIR:
    from .topology import refuse_mimic_cycles

    refuse_mimic_cycles(robot.joints)
    return robot


def _checked_world(world):
    if world is not None and not isinstance(world, str):
        raise UsageError(f"world must be a world's name (str) or None, got {type(world).__name__}")
    return world


def _checked_flags(floating_base, strict, confine):
    """``floating_base`` None, True or False; ``strict`` and ``confine`` True or False."""
    if floating_base is not None:
        floating_base = bool_arg(floating_base, "floating_base (or None)")
    return floating_base, bool_arg(strict, "strict"), bool_arg(confine, "confine")


def _checked_output(input_path, output_path):
    """The output, checked before any work: never the input (path, symlink, hard link), never a
    directory or socket, its folder must exist (see :mod:`usdjoints.outputs`)."""
    from ..outputs import check_output

    if not isinstance(output_path, Output):
        output_path = path_arg(output_path, "output_path")
    regular_input(input_path, "robot file")  # a FIFO or device would block the XML reader
    return check_output(output_path, "-o", inputs=[input_path])


def _same_file(a: str, b: str) -> bool:
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)  # hard links
    except (OSError, ValueError):
        return False


def _check_output_not_read(robot: RobotIR, output_path) -> None:
    output = str(output_path)
    if not os.path.exists(output):
        return
    for link in robot.links:
        for shape in (*link.visuals, *link.collisions):
            geometry = shape.geometry
            if isinstance(geometry, MeshRef) and geometry.path and _same_file(geometry.path, output):
                raise UsageError(f"{output}: the output is a mesh the input references ({shape.source}); "
                                 "choose another output path")
