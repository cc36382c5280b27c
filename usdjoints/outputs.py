"""Every file usdjoints reads or writes on a user's behalf passes through here.

Inputs (:func:`regular_input`): only regular files on disk are read. A FIFO, socket or device, or
a file of the kernel's file systems (/proc/kmsg), could block forever or never end, so it is
refused with one line before any reader sees it.

Outputs (:func:`check_outputs`, then :func:`write_file` / :func:`write_text` / :func:`write_bytes`),
one behaviour for every command, all checked before any work is done:

- the output's directory must exist (it is never created): otherwise exit 2, one line;
- an output that is an input file, directly, through a symlink or through a hard link (same
  ``st_dev``/``st_ino``), or a layer of an input stage (sublayer, reference, payload, value clip),
  is refused;
- two outputs of one command naming the same file are refused;
- an existing regular file is replaced atomically (a temporary file in its folder, then
  ``os.replace``); a symlink is followed, so the file it names is replaced and the link stays;
- a character device or a FIFO is never replaced: it is opened and written in place. A FIFO is
  opened without blocking when it is checked: with no reader there it is refused (no hang);
- directories, sockets and block devices are refused;
- a new file gets ``0666 & ~umask`` (0644 under umask 022); a replaced file keeps its mode.
"""
from __future__ import annotations

import errno
import fcntl
import os
import shutil
import stat
import tempfile
from typing import Callable, Iterable, Optional, Sequence, Union

from .errors import InputError, UsageError

PathLike = Union[str, os.PathLike]


# ---------------------------------------------------------------------------------------------
# inputs

def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "FIFO"), (stat.S_ISSOCK, "socket"), (stat.S_ISCHR, "character device"),
                       (stat.S_ISBLK, "block device"), (stat.S_ISDIR, "directory")):
        if test(mode):
            return name
    return "special file"


def regular_input(path: PathLike, what: str = "file", referrer: Optional[str] = None) -> os.stat_result:
    """``os.stat`` of ``path`` if it is a regular file usdjoints may read; :class:`InputError` if not.

    ``referrer`` names the layer that points at ``path`` (a sublayer or reference), so the message
    says where the bad path comes from.
    """
    name = os.fspath(path)
    via = f" ({what} of {referrer})" if referrer else ""
    try:
        info = os.stat(name)
    except FileNotFoundError:
        raise InputError(name, f"no such file{via}", "check the path") from None
    except OSError as error:
        raise InputError(name, f"cannot read{via}: {error.strerror}") from None
    if stat.S_ISREG(info.st_mode):
        kernel = kernel_file_system(info)
        if kernel is not None:
            raise InputError(name, f"is a file of the kernel's {kernel} file system, not a file on disk{via}; "
                             "refused: reading it could block")
        return info
    if stat.S_ISDIR(info.st_mode):
        raise InputError(name, f"is a directory, not a {what}{via}")
    raise InputError(name, f"is a {_kind(info.st_mode)}, not a regular file{via}; refused: reading it could block")


# File systems whose regular files are the kernel's, not data: a read of one may block for ever
# (/proc/kmsg waits for the next kernel message) or never end.
_KERNEL_FILE_SYSTEMS = frozenset({"proc", "sysfs", "debugfs", "tracefs", "securityfs", "configfs", "efivarfs",
                                  "cgroup", "cgroup2", "bpf", "pstore", "fusectl", "binfmt_misc"})
_kernel_devices: Optional[dict] = None


def kernel_file_system(info: os.stat_result) -> Optional[str]:
    """The name of the kernel file system (``proc``, ``sysfs``...) holding the file ``info`` is of,
    or None (a file on disk, or no /proc/self/mountinfo to tell)."""
    global _kernel_devices
    if _kernel_devices is None:
        devices = {}
        try:
            with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as mounts:
                for line in mounts:
                    fields = line.split()
                    if " - " not in line or len(fields) < 3:
                        continue
                    fs_type = line.split(" - ", 1)[1].split()[0]
                    if fs_type in _KERNEL_FILE_SYSTEMS:
                        major, _, minor = fields[2].partition(":")
                        devices[os.makedev(int(major), int(minor))] = fs_type
        except (OSError, ValueError):
            pass
        _kernel_devices = devices
    return _kernel_devices.get(info.st_dev)


def identity(path: PathLike) -> Optional[tuple[int, int]]:
    """``(st_dev, st_ino)`` of the file ``path`` names (symlinks followed), or None."""
    try:
        info = os.stat(os.fspath(path))
    except (OSError, ValueError):
        return None
    return info.st_dev, info.st_ino


# ---------------------------------------------------------------------------------------------
# outputs

class Output(os.PathLike):
    """A checked output: where the bytes go and how (``file``: atomic replace; ``device``/``fifo``:
    written in place through ``fd``, opened at check time). Usable wherever a path is."""

    def __init__(self, option: str, path: str, target: str, kind: str, fd: Optional[int] = None,
                 mode: Optional[int] = None, ident: Optional[tuple[int, int]] = None):
        self.option, self.path, self.target, self.kind = option, path, target, kind
        self.fd, self.mode, self.ident = fd, mode, ident

    def __fspath__(self) -> str:
        return self.path

    def __str__(self) -> str:
        return self.path

    def __repr__(self) -> str:
        return f"Output({self.option!r}, {self.path!r}, kind={self.kind!r})"

    def close(self) -> None:
        if self.fd is not None:
            fd, self.fd = self.fd, None
            try:
                os.close(fd)
            except OSError:
                pass


class Outputs(dict):
    """The checked outputs of one command, by option; closes any device or FIFO left open."""

    def __enter__(self) -> "Outputs":
        return self

    def __exit__(self, *exc) -> None:
        for output in self.values():
            output.close()


def _label(option: str) -> str:
    return f" ({option})" if option and option != "output" else ""


def check_output(path: Union[PathLike, Output], option: str = "output", inputs: Iterable[PathLike] = (),
                 stages: Iterable = ()) -> Output:
    """Check one output before any work [module doc]; ``stages`` are open ``Usd.Stage`` objects or
    stage paths whose layers the output must not be."""
    if isinstance(path, Output):
        output = path
    else:
        output = _check_destination(os.fspath(path), option)
    _refuse_inputs(output, inputs)
    _refuse_stage_layers(output, stages)
    return output


#: the endings of a USD layer this package writes (OpenUSD cannot write a .usdz package
#: through SdfLayer.Export)
USD_LAYER_EXTENSIONS = (".usda", ".usdc", ".usd")
USD_FILE_EXTENSIONS = USD_LAYER_EXTENSIONS + (".usdz",)  # what OpenUSD opens as a stage


def check_outputs(pairs: Sequence[tuple[str, Optional[PathLike]]], inputs: Iterable[PathLike] = (),
                  stages: Iterable = (), *, to_stdout: Iterable[str] = (),
                  extensions: Optional[dict] = None) -> Outputs:
    """Check every ``(option, path)`` of a command (None is skipped) before any work.

    ``-`` is standard output for the options in ``to_stdout`` (skipped here) and refused for
    the others; ``extensions`` maps an option to the endings its file may have (a device or a
    FIFO is not held to them). Refuses an output equal to another output, to an input file, or
    to a layer of a stage.
    """
    inputs, stages = list(inputs), list(stages)
    stdout_options = set(to_stdout)
    endings = extensions or {}
    checked = Outputs()
    try:
        for option, path in pairs:
            if path is None:
                continue
            if not isinstance(path, Output) and os.fspath(path) == "-":
                if option in stdout_options:
                    continue
                raise UsageError(f"{option} -: this output goes to a file, not to standard output; give a path")
            output = check_output(path, option, inputs, stages)
            try:
                for other in checked.values():
                    if _same(output, other):
                        raise UsageError(f"{option} {output.path} and {other.option} {other.path} name the same "
                                         "file; give each output its own file")
                allowed = endings.get(option)
                if allowed and output.kind == "file" and not output.path.lower().endswith(tuple(allowed)):
                    raise UsageError(f"{output.path}: {option} writes {'/'.join(e.lstrip('.') for e in allowed)}; "
                                     f"the file must end with one of {', '.join(allowed)}")
            except BaseException:
                output.close()
                raise
            checked[option] = output
    except BaseException:
        checked.__exit__(None, None, None)
        raise
    return checked


def _same(a: Output, b: Output) -> bool:
    if a.ident is not None and a.ident == b.ident:
        return True
    return os.path.realpath(a.target) == os.path.realpath(b.target)


def _check_destination(path: str, option: str) -> Output:
    if not path:
        raise UsageError(f"empty output path{_label(option)}")
    try:
        info = os.stat(path)  # follows symlinks (and /dev/stdout to whatever it is)
    except FileNotFoundError:
        info = None
    except OSError as error:
        raise UsageError(f"{path}: cannot write{_label(option)}: {error.strerror}") from None
    if info is not None and stat.S_ISCHR(info.st_mode):
        return Output(option, path, path, "device", _open_in_place(path, option, 0), ident=(info.st_dev, info.st_ino))
    if info is not None and stat.S_ISFIFO(info.st_mode):
        return Output(option, path, path, "fifo", _open_in_place(path, option, os.O_NONBLOCK),
                      ident=(info.st_dev, info.st_ino))
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise UsageError(f"{path}: is a {_kind(info.st_mode)}{_label(option)}; refusing to write over it")
    target = os.path.realpath(path)  # a symlink: the file it names is replaced, the link stays
    directory = os.path.dirname(target) or "."
    if not os.path.isdir(directory):
        if os.path.islink(path):  # a dangling link: the folder missing is the one its target names
            raise UsageError(f"{path}: is a symlink to {target}, whose directory {directory} does not exist"
                             f"{_label(option)}; create it first or remove the link")
        shown = os.path.dirname(path) or directory
        raise UsageError(f"{path}: the output directory {shown} does not exist{_label(option)}; create it first")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise UsageError(f"{path}: cannot write in {directory}{_label(option)}: permission denied")
    if info is not None and not os.access(target, os.W_OK):
        raise UsageError(f"{path}: the file is read-only{_label(option)}; refusing to replace it")
    if info is None:
        return Output(option, path, target, "file")
    return Output(option, path, target, "file", mode=stat.S_IMODE(info.st_mode), ident=(info.st_dev, info.st_ino))


def _open_in_place(path: str, option: str, flags: int) -> int:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NOCTTY | flags)
    except OSError as error:
        if error.errno == errno.ENXIO:
            raise UsageError(f"{path}: is a FIFO with no reader{_label(option)}; start the reader first") from None
        raise UsageError(f"{path}: cannot open for writing{_label(option)}: {error.strerror}") from None
    if flags & os.O_NONBLOCK:  # a reader is there: from now on writes wait for it as usual
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    return fd


def _refuse_inputs(output: Output, inputs: Iterable[PathLike]) -> None:
    if output.ident is None:
        return  # a file that does not exist yet is no input
    for source in inputs:
        if source is None:
            continue
        if identity(source) == output.ident:
            how = _how_same(output.path, os.fspath(source))
            raise UsageError(f"{output.path}{_label(output.option)}: is the input {os.fspath(source)}{how}; "
                             "refusing to overwrite an input")


def _how_same(out: str, source: str) -> str:
    if os.path.abspath(out) == os.path.abspath(source):
        return ""
    if os.path.realpath(out) == os.path.realpath(source):
        return " (through a symlink)"
    return " (through a hard link)"


def _refuse_stage_layers(output: Output, stages: Iterable) -> None:
    if output.ident is None or output.kind != "file":
        return  # a new file is no layer; a device or FIFO is no layer USD reads (it refuses them)
    for stage in stages:
        if stage is None:
            continue
        if isinstance(stage, (str, os.PathLike)):
            if not _may_be_layer(output.target):
                continue  # a file that is not a USD layer cannot be one of the stage's layers
            from .walker.stage_io import layer_files

            name, files = os.fspath(stage), layer_files(stage)
        else:
            name, files = _stage_name(stage), stage_layer_files(stage)
        for layer in files:
            if identity(layer) == output.ident:
                raise UsageError(f"{output.path}{_label(output.option)}: is {layer}, a layer (sublayer, reference, "
                                 f"payload or value clip) of the stage {name}; refusing to overwrite it")


_LAYER_MAGIC = (b"#usda", b"#sdf", b"PXR-USDC", b"PK\x03\x04")


def _may_be_layer(path: str) -> bool:
    """Whether the existing file ``path`` could be a layer USD reads (by extension or content)."""
    if os.path.splitext(path)[1].lower() in USD_FILE_EXTENSIONS + (".sdf",):
        return True
    try:
        with open(path, "rb") as stream:
            head = stream.read(8)
    except OSError:
        return True
    return head.startswith(_LAYER_MAGIC)


def _stage_name(stage) -> str:
    root = stage.GetRootLayer()
    return root.realPath or root.identifier


def stage_layer_files(stage) -> list[str]:
    """The files of every layer an open ``Usd.Stage`` uses (root, sublayers, references, payloads)."""
    files = []
    for layer in [stage.GetRootLayer(), *stage.GetUsedLayers()]:
        real = layer.realPath
        if real:
            files.append(_package_file(real))
    return files


def _package_file(path: str) -> str:
    """``a.usdz[b.usda]`` is stored in ``a.usdz``."""
    return path.split("[", 1)[0] if path.endswith("]") and "[" in path else path


# ---------------------------------------------------------------------------------------------
# writing

def _umask() -> int:
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)  # no /proc: read it the only portable way (and put it back)
    os.umask(mask)
    return mask


def _prepared(output: Union[PathLike, Output], option: str) -> Output:
    if isinstance(output, Output):
        if output.kind == "file":  # it may have changed since it was checked
            try:
                info = os.stat(output.target)
            except FileNotFoundError:
                info = None
            if info is not None and not stat.S_ISREG(info.st_mode):
                raise UsageError(f"{output.path}: became a {_kind(info.st_mode)}; refusing to write over it")
        elif output.fd is None:
            raise UsageError(f"{output.path}: the output was closed before it was written")
        return output
    return check_output(output, option)


def write_file(output: Union[PathLike, Output], writer: Callable[[str], object], option: str = "output") -> str:
    """Write ``output`` through ``writer(path)``, which creates a file at the path it is given.

    A regular file is written beside its destination under a temporary name with the same
    extension (USD and matplotlib pick the format from it) and renamed into place; a device or
    FIFO gets the bytes copied in. Returns the output's path.
    """
    checked = _prepared(output, option)
    suffix = os.path.splitext(checked.target)[1]
    if checked.kind == "file":
        _write_regular(checked, writer, suffix)
    else:
        with tempfile.TemporaryDirectory(prefix="usdjoints-") as folder:
            temporary = os.path.join(folder, "out" + suffix)
            writer(temporary)
            with open(temporary, "rb") as stream:
                _copy_in_place(checked, stream)
    return checked.path


def write_bytes(output: Union[PathLike, Output], data: bytes, option: str = "output") -> str:
    checked = _prepared(output, option)
    if checked.kind == "file":
        def writer(path: str) -> None:
            with open(path, "wb") as stream:
                stream.write(data)

        _write_regular(checked, writer, os.path.splitext(checked.target)[1])
    else:
        import io

        _copy_in_place(checked, io.BytesIO(data))
    return checked.path


def write_text(output: Union[PathLike, Output], text: str, option: str = "output") -> str:
    return write_bytes(output, text.encode("utf-8"), option)


def _write_regular(output: Output, writer: Callable[[str], object], suffix: str) -> None:
    directory = os.path.dirname(output.target) or "."
    # the temporary name goes to writers (OpenUSD, matplotlib) that take UTF-8 text only: bytes of
    # the destination's name that are not UTF-8 are left out of it (the rename needs no writer)
    name = _utf8_only(os.path.basename(output.target))
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=_utf8_only(suffix), dir=directory)
    except FileNotFoundError:
        if os.path.isdir(directory):  # /proc, /sys: the folder exists, its file system makes no new files
            raise UsageError(f"{output.path}: cannot create a file in {directory}: its file system makes no new "
                             "files (write it elsewhere)") from None
        raise UsageError(f"{output.path}: the output directory {directory} does not exist") from None
    except OSError as error:
        raise UsageError(f"{output.path}: cannot write in {directory}: {error.strerror}") from None
    os.close(handle)
    folder_fd = None
    try:
        given = temporary
        if _utf8_only(temporary) != temporary:  # a folder whose name is not UTF-8: reach it through its descriptor
            folder_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
            given = f"/proc/self/fd/{folder_fd}/{os.path.basename(temporary)}"
            if not os.path.exists(given):
                raise UsageError(f"{output.path}: the folder's name is not UTF-8, which the writer cannot take; "
                                 "write the file elsewhere and move it")
        writer(given)
        if not os.path.isfile(temporary):
            raise UsageError(f"{output.path}: nothing was written")
        os.chmod(temporary, output.mode if output.mode is not None else 0o666 & ~_umask())
        os.replace(temporary, output.target)
    except OSError as error:
        raise UsageError(f"{output.path}: cannot write: {error.strerror or error}") from None
    finally:
        if folder_fd is not None:
            os.close(folder_fd)
        if os.path.lexists(temporary):
            os.unlink(temporary)


def _utf8_only(text: str) -> str:
    return text.encode("utf-8", "ignore").decode("utf-8")


def _copy_in_place(output: Output, stream) -> None:
    fd = output.fd
    try:
        with os.fdopen(os.dup(fd), "wb") as sink:
            shutil.copyfileobj(stream, sink)
    except OSError as error:
        raise UsageError(f"{output.path}: cannot write: {error.strerror or error}") from None
    finally:
        output.close()


# ---------------------------------------------------------------------------------------------
# terminals

def use_colour(stream) -> bool:
    """Colour only on a terminal, never with ``NO_COLOR`` set (https://no-color.org) or TERM=dumb."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def write_to(output: Union[str, Output], text: str) -> None:
    """``-``: stdout; otherwise :func:`write_text` (atomic, or in place for a device or FIFO)."""
    if not isinstance(output, Output) and output == "-":
        import sys

        sys.stdout.write(text)
        return
    write_text(output, text)
