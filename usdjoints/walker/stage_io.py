"""Opening a stage for a walk: whole-file problems become one-line :class:`InputError`.

Before OpenUSD composes a stage, every layer it would open is checked here, one at a time:

- the root layer, and every sublayer, reference and payload (found from each opened layer's
  ``GetCompositionAssetDependencies`` and resolved the way the stage resolves them), and every
  value clip (which USD opens only when a value is read), must be a regular file. A FIFO, socket or device is refused before USD opens it: USD would block on it.
- a text layer with a syntax error gives ``file:line:column: reason`` from the parser's own text;
  invalid UTF-8 (which the text parser rejects) gives the line and column of the first bad byte.
- binary (crate) layers are read first in a child process (``probe``): a corrupt crate can crash
  OpenUSD itself (SIGSEGV), which no Python code can catch. A child that dies or does not finish
  is reported in one line naming the layer; only then does this process open the stage. Text
  layers are opened in-process directly, so a walk of .usda files pays nothing for this.
- a stage whose composition would repeat the same prims without end (references that double
  at every level: 2^30 prims from a few kB) is refused before OpenUSD composes it (stage_size.py).
- a stage refused because of one of its files is not read again by the same process while none
  of the files read for it has changed (``_REFUSED``): one command opens its stage several times,
  and OpenUSD can take seconds to refuse a damaged crate.
"""
from __future__ import annotations

import contextlib
import os
import re
import tempfile
from typing import Union

from .._schemas import ensure_physx_schemas
from ..args import path_arg
from ..errors import InputError
from ..outputs import regular_input
from .stage_probe import IN_PROBE, probe_layers
from .stage_size import refuse_expansion

StageLike = Union[str, os.PathLike, "Usd.Stage"]  # noqa: F821 (pxr loads lazily)

CRATE_MAGIC = b"PXR-USDC"
ZIP_MAGIC = b"PK\x03\x04"  # .usdz packages may hold crate layers


def open_stage(stage_or_path: StageLike, *, probe: bool | None = None):
    """Return a ``Usd.Stage`` for a path or pass an open stage through.

    A missing file, a file USD cannot read, a non-regular file among the stage's layers and a
    stage with composition errors raise :class:`InputError` naming the file. Prim-level problems
    are left to the walker's diagnostics. ``probe`` (default: on, unless ``USDJOINTS_PROBE=0``)
    reads binary layers in a child process first [module doc].
    """
    ensure_physx_schemas()
    from pxr import Tf, Usd

    if isinstance(stage_or_path, Usd.Stage):
        return stage_or_path
    path = path_arg(stage_or_path, "stage")
    _check_root(path)
    if probe is None:
        probe = os.environ.get("USDJOINTS_PROBE", "1") != "0" and not os.environ.get(IN_PROBE)
    _raise_if_refused(path)
    visited: list[str] = []
    try:
        layers = _open_layers(path, path, probe, visited)
        try:
            refuse_expansion(layers, path)
        except Tf.ErrorException as error:  # a damaged crate whose specs Sdf cannot unpack
            raise InputError(None, usd_error_text(error, path, path)) from None
        try:
            with captured_native_stderr():
                stage = Usd.Stage.Open(layers[0], Usd.Stage.LoadAll)
        except Tf.ErrorException as error:
            raise InputError(None, usd_error_text(error, path, path)) from None
        finally:
            del layers  # the stage holds what it uses
        if stage is None:
            raise InputError(path, "USD cannot read this file")
    except InputError as error:
        _remember_refusal(path, visited, error)
        raise
    # not remembered: a composition error can name a file that does not exist yet
    errors = stage.GetCompositionErrors() if hasattr(stage, "GetCompositionErrors") else []
    if errors:
        # OpenUSD's order of the errors varies from one opening to the next: the one reported is
        # the first in text order, so the same file always gets the same message
        folder = os.path.dirname(os.path.abspath(path.split("[", 1)[0])) + os.sep
        reasons = sorted(_first_line(error, folder) for error in errors)
        raise InputError(
            path,
            f"composition error: {reasons[0]}",
            f"{len(errors)} composition error(s) in all; fix the composition arcs it names (sublayers, "
            "references, payloads, inherits, specializes, variants)",
        )
    return stage


# A stage refused for one of its files is refused again without reopening it while none of the
# files read for it has changed (device, inode, size, mtime, ctime): a damaged crate can take
# OpenUSD seconds to refuse, and one command (the output check, then the walk, audit or model)
# opens its stage several times.
_REFUSED: dict[str, tuple[tuple, InputError]] = {}
_MAX_REFUSED = 64


def _identity(path: str):
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _files_identity(files) -> tuple:
    return tuple((f, _identity(f)) for f in files)


def _remember_refusal(path: str, visited: list[str], error: InputError) -> None:
    files = [path] + [f for f in visited if f != path]
    if len(_REFUSED) >= _MAX_REFUSED:
        _REFUSED.pop(next(iter(_REFUSED)))
    # a copy without the traceback: the original's frames hold the stage's layers, which OpenUSD
    # would otherwise close at the interpreter's exit, past captured_native_stderr (a clip layer it
    # cannot read warned then, after the one-line error)
    _REFUSED[os.path.realpath(path)] = (_files_identity(files), InputError(error.where, error.message, error.hint))


def _raise_if_refused(path: str) -> None:
    entry = _REFUSED.get(os.path.realpath(path))
    if entry is None:
        return
    files, error = entry
    if files[0][1] is not None and _files_identity(f for f, _ in files) == files:
        raise InputError(error.where, error.message, error.hint)
    del _REFUSED[os.path.realpath(path)]


def layer_files(stage_path) -> list[str]:
    """The files of the stage's root layer and of every sublayer, reference, payload and value clip
    it reaches (each checked as :func:`open_stage` checks them)."""
    ensure_physx_schemas()
    path = os.fspath(stage_path)
    _check_root(path)
    probe = os.environ.get("USDJOINTS_PROBE", "1") != "0" and not os.environ.get(IN_PROBE)
    _raise_if_refused(path)
    visited: list[str] = []
    try:
        files = [_file_of(layer) for layer in _open_layers(path, path, probe, visited)]
    except InputError as error:
        _remember_refusal(path, visited, error)
        raise
    return files + [f for f in visited if f not in files]  # and the value clips its layers name


def _check_root(path: str) -> None:
    from pxr import Sdf

    if not os.path.lexists(path):
        raise InputError(path, "no such file", "check the path")
    regular_input(path, "USD file")
    if not Sdf.FileFormat.FindByExtension(os.path.splitext(path)[1].lstrip(".") or "x"):
        raise InputError(path, "not a USD file (unknown extension)", "use .usda, .usdc or .usd")
    if not _utf8(os.path.abspath(path)):  # the file system allows any bytes; OpenUSD's paths are UTF-8
        raise InputError(path, "the path is not valid UTF-8, and OpenUSD opens UTF-8 paths only",
                         "rename the file or its folder")


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # bytes the file system decoder kept as surrogates
        return False
    return True


def _file_of(layer) -> str:
    real = layer.realPath or layer.identifier
    return real.split("[", 1)[0] if real.endswith("]") and "[" in real else real


def _head(path: str) -> bytes:
    """The first bytes of a regular file (opened without blocking, then checked again)."""
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as error:
        raise InputError(path, f"cannot read: {error.strerror}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            regular_input(path)  # raises the one-line refusal
        return os.read(fd, 8)
    finally:
        os.close(fd)


def _open_layers(root: str, shown: str, probe: bool, visited: list[str] | None = None) -> list:
    """Open the root layer and every layer it composes, checking each file before USD reads it
    (the files are appended to ``visited`` as they are reached)."""
    visited = [] if visited is None else visited
    from pxr import Ar, Sdf, Tf

    resolver = Ar.GetResolver()
    layers, seen, probed = [], set(), not probe
    pending = [(root, None, "stage")]
    with Ar.ResolverContextBinder(resolver.CreateDefaultContextForAsset(root)):
        while pending:
            path, referrer, what = pending.pop(0)
            outer = path.split("[", 1)[0] if path.endswith("]") and "[" in path else path
            key = os.path.realpath(outer) + path[len(outer):]
            if key in seen:
                continue
            seen.add(key)
            visited.append(outer)
            regular_input(outer, what, referrer)
            head = _head(outer)
            if not probed and head.startswith((CRATE_MAGIC, ZIP_MAGIC)):
                probe_layers(root, shown, outer)
                probed = True
            if not head.startswith((CRATE_MAGIC, ZIP_MAGIC)) and outer == path:
                _refuse_deep_nesting(outer, shown if referrer is None else outer)
            try:
                with captured_native_stderr():
                    layer = Sdf.Layer.FindOrOpen(path)
            except Tf.ErrorException as error:
                error = InputError(None, usd_error_text(error, path, shown if referrer is None else path))
                if referrer:  # say which layer brought this one in, as for a layer USD cannot read
                    error = InputError(None, f"{error} ({what} of {referrer})")
                raise error from None
            if layer is None:
                raise InputError(shown if referrer is None else path, "USD cannot read this file"
                                 + (f" ({what} of {referrer})" if referrer else ""))
            layers.append(layer)
            visited.extend(_check_clip_assets(layer, outer, resolver))
            try:
                dependencies = layer.GetCompositionAssetDependencies()
            except Tf.ErrorException as error:  # a damaged crate whose arcs Sdf cannot unpack
                raise InputError(None, usd_error_text(error, outer, shown if referrer is None else outer)) from None
            for asset in dependencies:
                resolved = _resolve_asset(resolver, layer, asset)
                if not resolved:
                    continue  # unresolvable: USD reports it as a composition error, without blocking
                kind = "sublayer" if asset in layer.subLayerPaths else "reference or payload"
                pending.append((resolved, _file_of(layer) if referrer is not None else shown, kind))
    return layers


# OpenUSD's text parser takes time and memory growing with the square of a value's bracket depth
# (16,000 nested parentheses: 21 s and 2.4 GB before its own "Tuple nesting too deep" error;
# 100,000: past 9.7 GB). No value nests more than a few levels ([(x, y, z), ...]); a text layer
# with MAX_TEXT_NESTING brackets opened in a row, none closed, is refused before it is parsed.
MAX_TEXT_NESTING = 64
_DEEP_NESTING = re.compile(rb"(?:[(\[](?=([^()\[\]\"']*))\1){%d}" % MAX_TEXT_NESTING)  # atomic runs
# what holds text, not structure: strings (triple-quoted first), asset paths and comments
_NOT_STRUCTURE = re.compile(rb'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\''
                            rb"|@@@[\s\S]*?@@@|@[^@\n]*@|#[^\n]*")


# OpenUSD builds a prim's definition (on the first read of its schemas or of any property) in time
# growing with the square of the API schemas applied to it: 1,000 instances of PhysicsDriveAPI take
# 2 s, 10,000 over five minutes, in every tool that reads the prim. A D6 joint carrying every
# UsdPhysics and PhysX instance a consumer reads applies about 50; a prim applying more than
# MAX_APPLIED_SCHEMAS schemas OpenUSD knows is refused before its definition is built.
MAX_APPLIED_SCHEMAS = 256


def refuse_crowded_prim(prim) -> None:
    """An :class:`InputError` naming ``prim`` when it applies more than MAX_APPLIED_SCHEMAS known
    API schemas. Reads the prim's type info only, which OpenUSD composes without the definition."""
    from pxr import Usd

    listed = prim.GetPrimTypeInfo().GetAppliedAPISchemas()
    if len(listed) <= MAX_APPLIED_SCHEMAS:
        return
    registry = Usd.SchemaRegistry()
    known = sum(1 for name in listed  # a name OpenUSD does not know costs nothing: it is dropped
                if registry.FindAppliedAPIPrimDefinition(Usd.SchemaRegistry.GetTypeNameAndInstance(name)[0]))
    if known > MAX_APPLIED_SCHEMAS:
        raise InputError(str(prim.GetPath()), f"applies {known:,} API schemas; OpenUSD needs time growing with "
                         "their number squared to build the prim's definition",
                         f"remove all but the {MAX_APPLIED_SCHEMAS} at most a physics prim can need")


def _structure(data: bytes) -> bytes:
    """``data`` with its strings, asset paths and comments left out but their line breaks kept:
    the brackets in it are the layer's own nesting."""
    return _NOT_STRUCTURE.sub(lambda m: b"\n" * m.group().count(b"\n"), data)


def _refuse_deep_nesting(path: str, shown: str) -> None:
    try:
        with open(path, "rb") as stream:
            data = stream.read()
    except OSError:
        return  # USD's own open reports it
    found = _DEEP_NESTING.search(data)
    if found:
        data = _structure(data)  # the run may be text in a string or a comment
        found = _DEEP_NESTING.search(data)
    if found:
        line = data.count(b"\n", 0, found.start()) + 1
        raise InputError(f"{shown}:{line}", f"brackets nested more than {MAX_TEXT_NESTING} deep; OpenUSD's text "
                         "parser needs time and memory growing with the square of the depth (no stage value "
                         "nests so deep)")


def _resolve_asset(resolver, layer, asset: str) -> str:
    """The file an asset path of ``layer`` names, or "" when USD cannot resolve it (an empty path
    raises in Sdf; USD itself reports such a path as a composition error when the stage opens)."""
    from pxr import Sdf, Tf

    if not asset:
        return ""
    try:
        return str(resolver.Resolve(Sdf.ComputeAssetPathRelativeToLayer(layer, asset)) or "")
    except Tf.ErrorException:
        return ""


def _check_clip_assets(layer, file: str, resolver) -> list[str]:
    """Value clips are opened when a value is read, long after the stage opened: a FIFO among
    them would block the walk. Every clip asset path of a layer is checked (text layers are
    searched for the word first, which costs a read of a file already in the cache); with a
    template clip set, whose files are named by a pattern, every asset path of the layer is.
    Other asset-valued attributes (a texture, a mesh file) are never opened by OpenUSD, so a device
    or FIFO there is no reason to refuse the stage. Returns the files found, which the stage reads too."""
    from pxr import Tf

    if not _head(file).startswith((CRATE_MAGIC, ZIP_MAGIC)):
        with open(file, "rb") as stream:
            if b"clips" not in stream.read():
                return []
    try:
        assets = _clip_assets(layer)
        if assets is None:
            from pxr import UsdUtils  # imported only here: a sixtieth of a warm `simulate`

            _, assets, _ = UsdUtils.ExtractExternalReferences(layer.identifier)
    except Tf.ErrorException as error:  # a damaged crate whose specs Sdf cannot enumerate
        raise InputError(None, usd_error_text(error, file, file)) from None
    found = []
    for asset in assets:
        resolved = _resolve_asset(resolver, layer, asset)
        outer = resolved.split("[", 1)[0]
        if outer and os.path.lexists(outer):
            regular_input(outer, "value clip or asset", _file_of(layer))
            found.append(outer)
    return found


def _clip_assets(layer) -> list[str] | None:
    """The asset paths of the value clips authored in ``layer`` (``clips`` metadata:
    ``assetPaths`` and ``manifestAssetPath`` of each clip set); None when a clip set names its
    files by ``templateAssetPath``."""
    from pxr import Sdf

    paths = []
    layer.Traverse(Sdf.Path.absoluteRootPath, lambda path: paths.append(path) if path.IsPrimPath() else None)
    assets: list[str] = []
    for path in paths:
        spec = layer.GetPrimAtPath(path)
        if spec is None or not spec.HasInfo("clips"):
            continue
        clips = spec.GetInfo("clips")
        for clip_set in (clips.values() if isinstance(clips, dict) else ()):
            if not isinstance(clip_set, dict):
                continue
            if clip_set.get("templateAssetPath"):
                return None
            for asset in list(clip_set.get("assetPaths") or ()) + [clip_set.get("manifestAssetPath")]:
                text = getattr(asset, "path", asset)
                if isinstance(text, str) and text:
                    assets.append(text)
    return assets


# ---------------------------------------------------------------------------------------------
# binary layers: read them in a child first

# ---------------------------------------------------------------------------------------------
# messages

@contextlib.contextmanager
def captured_native_stderr():
    """Hold back USD's own warnings while a stage opens or is first read; the walk reports
    problems itself. Yields a list that holds, once the block has ended, the text held back.

    USD prints composition warnings from C++ straight to file descriptor 2. They are replayed when
    ``USDJOINTS_VERBOSE`` is set, so nothing is lost for someone debugging a stage.
    """
    text: list[str] = []
    try:
        saved = os.dup(2)
    except OSError:  # no real stderr (embedded interpreter): nothing to hold back
        yield text
        return
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), 2)
        try:
            yield text
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            held.seek(0)
            output = held.read()
            text.append(output.decode("utf-8", "replace"))
            if os.environ.get("USDJOINTS_VERBOSE"):
                os.write(2, output)




MAX_REASON = 160  # characters of a parser's reason kept in the one-line message
_NAMESPACE = re.compile(r"\b(?:pxrInternal_v\d+_\d+(?:_\d+)?__pxrReserved___?(?:pegtl)?::|Sdf_TextFileFormatParser::|"
                        r"Sdf_PathParser::|tao::pegtl::|pegtl::)")
_LOCATION = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<column>\d+): (?P<reason>.*)$", re.S)


def usd_error_text(error, path: str, shown: str) -> str:
    """One line for a ``Tf.ErrorException`` raised reading ``path``: ``shown:line:column: reason``
    in the parser's words (never a C++ function name), or the first bad byte of invalid UTF-8."""
    texts = []
    for item in getattr(error, "args", ()) or (error,):
        try:
            texts.append(str(getattr(item, "commentary", item)))
        except UnicodeDecodeError:  # the parser quotes bytes that are not UTF-8
            return ((None if _is_binary(path) else _utf8_problem(path, shown))
                    or f"{shown}: USD cannot read this file (its message quotes bytes that are not UTF-8)")
    located, reasons = None, []
    for text in texts:
        text = " ".join(text.split())
        match = _LOCATION.match(text)
        if match and located is None:
            located = match
        elif not match and text:
            reasons.append(text)
    if located is not None:
        reason = located["reason"]
        if reason.startswith("parse error matching") and reasons:
            reason = reasons[0]  # the parser's own words for what it expected
        return f"{shown}:{located['line']}:{located['column']}: {_tidy(reason)}"
    if reasons:
        reason = reasons[0].replace(f"<{os.path.abspath(path)}>", "").replace(f"<{path}>", "").strip()
        other = _UNKNOWN_FORMAT.search(reason)
        if other and os.path.abspath(other[1]) != os.path.abspath(path):  # a clip or asset the file names
            return (f"{other[1]}: USD cannot read this file: no file format for its extension (an asset "
                    f"of {shown})")
        utf8 = None if _is_binary(path) else _utf8_problem(path, shown)
        if utf8:
            return utf8
        reason = re.sub(r",? while reading @[^@]*@", "", reason)
        if reason.startswith("is "):
            return f"{shown}: {_tidy(reason)}"
        if _is_binary(path, (CRATE_MAGIC,)) and not _ASSET.search(reason):
            reason = _crate_reason(reason)  # (a reason naming an asset is about that asset, not the crate)
        return f"{shown}: USD cannot read this file: {_tidy(reason)}"
    return f"{shown}: USD cannot read this file"


_UNKNOWN_FORMAT = re.compile(r"Cannot determine file format for @([^@]+)@")


# what the C++ library says when a size read from a corrupt file is out of range (not bad_alloc:
# memory running out under the probe's limit is its own message, stage_probe.py)
_CPP_SIZE = re.compile(r"vector::_M_|std::vector larger than max_size|std::length_error")


_ASSET = re.compile(r"@[^@]+@")


def _crate_reason(reason: str) -> str:
    """A binary (usdc) layer's reader failure in words about the file: OpenUSD passes on the
    C++ exception its crate reader met ("Encountered: vector::_M_default_append")."""
    reason = re.sub(r"^(?:Encountered:|Corrupt asset ?:)\s*", "", reason)
    if _CPP_SIZE.search(reason):
        reason = "a count or size in it is out of range"
    return f"its binary (usdc) data is corrupt: {reason}"


# OpenUSD names a layer stack as "@root.usda@,@anon:0x55bf217cccc0:root-session.usda@": the
# second is the empty session layer every stage gets, whose address means nothing to a user
_SESSION_LAYER = re.compile(r",@anon:0x[0-9a-fA-F]+:[^@]*-session\.usda@")
_ANONYMOUS_LAYER = re.compile(r"@anon:0x[0-9a-fA-F]+:?([^@]*)@")


def _tidy(reason: str) -> str:
    reason = _NAMESPACE.sub("", reason)
    reason = _SESSION_LAYER.sub("", reason)
    reason = _ANONYMOUS_LAYER.sub(lambda m: f"@(anonymous layer {m.group(1)})@" if m.group(1)
                                  else "@(anonymous layer)@", reason)
    reason = re.sub(r"parse error matching ([A-Za-z_:]+)<([A-Za-z_:]+)[,>].*", r"parse error: expected \2", reason)
    reason = re.sub(r"parse error matching (\w+)", r"parse error: expected \1", reason)
    reason = reason.replace("expected internal::eof", "expected the end of the file")  # PEGTL's rule name
    if len(reason) > MAX_REASON:
        reason = reason[:MAX_REASON - 3].rstrip() + "..."
    return reason


def _is_binary(path: str, magic=(CRATE_MAGIC, ZIP_MAGIC)) -> bool:
    """A crate or package layer (or only those of the given magic numbers): its bytes are not
    text, so no UTF-8 position applies."""
    try:
        with open(path.split("[", 1)[0], "rb") as stream:
            return stream.read(8).startswith(magic)
    except OSError:
        return False


def _utf8_problem(path: str, shown: str) -> str | None:
    """``shown:line:column: invalid UTF-8 (byte 0x..)`` for the first undecodable byte, if any."""
    try:
        with open(path, "rb") as stream:
            data = stream.read()
    except OSError:
        return None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as problem:
        before = data[:problem.start]
        line = before.count(b"\n") + 1
        column = len(before) - (before.rfind(b"\n") + 1) + 1
        return (f"{shown}:{line}:{column}: invalid UTF-8 (byte 0x{data[problem.start]:02x}); "
                "USD text layers must be UTF-8")
    return None


def _first_line(error, folder: str | None = None) -> str:
    """The reason of a USD error in one line, without C++ function names; files in ``folder``
    (the stage's, ending in a separator) named relative to it, which leaves more of the reason
    within MAX_REASON."""
    try:
        text = str(error)
    except UnicodeDecodeError:
        return "(a message that is not valid UTF-8)"
    if folder:
        text = text.replace(f"@{folder}", "@")
    quoted = re.findall(r"'([^']{8,})'", text)
    if quoted:
        text = quoted[0]
    return _tidy(" ".join(text.split()))
