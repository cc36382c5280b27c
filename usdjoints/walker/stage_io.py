"""Opening a stage for a walk: whole-file problems become one-line :class:`InputError`."""
from __future__ import annotations

import contextlib
import os
import re
import tempfile
from typing import Union

from .._schemas import ensure_physx_schemas
from ..errors import InputError

StageLike = Union[str, os.PathLike, "Usd.Stage"]  # noqa: F821 (pxr loads lazily)


def open_stage(stage_or_path: StageLike):
    """Return a ``Usd.Stage`` for a path or pass an open stage through.

    A missing file, a file USD cannot read, and a stage with composition errors raise
    :class:`InputError` naming the file. Prim-level problems are left to the walker's diagnostics.
    """
    ensure_physx_schemas()
    from pxr import Sdf, Tf, Usd

    if isinstance(stage_or_path, Usd.Stage):
        return stage_or_path
    path = os.fspath(stage_or_path)
    if not os.path.exists(path):
        raise InputError(path, "no such file", "check the path")
    if os.path.isdir(path):
        raise InputError(path, "is a directory, not a USD file")
    if not Sdf.FileFormat.FindByExtension(os.path.splitext(path)[1].lstrip(".") or "x"):
        raise InputError(path, "not a USD file (unknown extension)", "use .usda, .usdc or .usd")
    try:
        with _captured_native_stderr():
            stage = Usd.Stage.Open(path, Usd.Stage.LoadAll)
    except Tf.ErrorException as error:
        raise InputError(path, f"USD cannot read this file: {_first_line(error)}") from error
    if stage is None:
        raise InputError(path, "USD cannot read this file")
    errors = stage.GetCompositionErrors() if hasattr(stage, "GetCompositionErrors") else []
    if errors:
        raise InputError(
            path,
            f"composition error: {_first_line(errors[0])}",
            f"{len(errors)} composition error(s) in all; fix the references or payloads",
        )
    return stage


@contextlib.contextmanager
def _captured_native_stderr():
    """Hold back USD's own warnings while a stage opens; the walk reports problems itself.

    USD prints composition warnings from C++ straight to file descriptor 2. They are replayed when
    ``USDJOINTS_VERBOSE`` is set, so nothing is lost for someone debugging a stage.
    """
    try:
        saved = os.dup(2)
    except OSError:  # no real stderr (embedded interpreter): nothing to hold back
        yield
        return
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            if os.environ.get("USDJOINTS_VERBOSE"):
                held.seek(0)
                os.write(2, held.read())


def _first_line(error) -> str:
    """The reason of a USD error in one line, without C++ function names."""
    text = str(error)
    quoted = re.findall(r"'([^']{8,})'", text)
    if quoted:
        text = quoted[0]
    return " ".join(text.split())[:300]
