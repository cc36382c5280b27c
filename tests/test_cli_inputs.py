"""No input hangs or crashes the command line: special files, syntax errors, bad UTF-8, corrupt crates.

Oracles: OpenUSD's own parser (its error text and positions), Python's UTF-8 decoder (the first
bad byte), a plain ``Usd.Stage.Open`` in a child process (which dies by a signal on the corrupt
crate), and the process (exit code, stderr lines, a timeout far above the expected run time).
"""
from __future__ import annotations

import os
import re
import stat
import subprocess
import sys

import pytest

from samples import REPO, TESTS

CLI = [sys.executable, "-m", "usdjoints"]
CORRUPT_CRATE = TESTS / "data" / "usd" / "corrupt_crate_crashes_usd.usdc"
HANG_LIMIT = 60  # s: every case below finishes in a second or two; a hang would not


def run(*argv, env=None, timeout=HANG_LIMIT):
    environment = dict(os.environ, **(env or {}))
    return subprocess.run([*CLI, *map(str, argv)], capture_output=True, text=True, timeout=timeout, cwd=REPO,
                          env=environment)


def one_line(result, code=2) -> str:
    """The single stderr line; under 200 characters besides the file paths it names."""
    assert result.returncode == code, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr and "internal error" not in result.stderr, lines
    assert len(re.sub(r"/[^ :()]+", "/F", lines[0])) < 200, lines[0]
    return lines[0]


def test_fifo_as_stage_is_refused(tmp_path):
    fifo = tmp_path / "stage.usda"
    os.mkfifo(fifo)
    for command in ("walk", "audit", "simulate"):
        line = one_line(run(command, fifo))
        assert str(fifo) in line and "FIFO" in line


@pytest.mark.parametrize("arc", ["sublayer", "reference", "payload"])
def test_fifo_as_layer_is_refused_before_usd_opens_it(tmp_path, arc):
    """USD itself blocks forever on this stage (checked with a timeout); usdjoints refuses it."""
    fifo = tmp_path / "fifo.usda"
    os.mkfifo(fifo)
    root = tmp_path / "root.usda"
    root.write_text({
        "sublayer": '#usda 1.0\n(\n    subLayers = [@./fifo.usda@]\n)\n',
        "reference": '#usda 1.0\ndef Xform "A" (references = @./fifo.usda@) {}\n',
        "payload": '#usda 1.0\ndef Xform "A" (payload = @./fifo.usda@) {}\n',
    }[arc])
    with pytest.raises(subprocess.TimeoutExpired):  # the oracle: OpenUSD alone hangs here
        subprocess.run([sys.executable, "-c", "import sys; from pxr import Usd; Usd.Stage.Open(sys.argv[1])",
                        str(root)], capture_output=True, timeout=5)
    for command in ("walk", "audit"):
        line = one_line(run(command, root))
        assert "fifo.usda" in line and "FIFO" in line and "root.usda" in line, line


@pytest.mark.skipif(os.geteuid() != 0, reason="mknod of a character device needs root")
def test_device_as_stage_is_refused(tmp_path):
    node = tmp_path / "zero.usda"
    os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 5))  # the zero device: reading never ends
    line = one_line(run("walk", node))
    assert "character device" in line
    assert stat.S_ISCHR(os.lstat(node).st_mode)


def test_fifo_as_robot_file_is_refused(tmp_path):
    fifo = tmp_path / "robot.urdf"
    os.mkfifo(fifo)
    line = one_line(run("convert", fifo, "-o", tmp_path / "out.usda"))
    assert "FIFO" in line and not (tmp_path / "out.usda").exists()


SYNTAX = {
    "tuple": ('#usda 1.0\ndef Xform "A" {\n  double x = (1, \n}\n', "Tuple nesting too deep"),
    "brace": ('#usda 1.0\ndef Xform "A" {\n  double x = 1\n', "Expected }"),
    "value": ('#usda 1.0\ndef Xform "A" {\n  double x = "s"\n}\n', "Failed to parse value"),
    "duplicate": ('#usda 1.0\ndef "A" {}\ndef "A" {}\n', "Duplicate prim 'A'"),
    "path": ('#usda 1.0\ndef "A" {\n rel r = <bad path!>\n}\n', "parse error"),
}


def _parser_says(path):
    """OpenUSD's own location and reason for ``path`` (the oracle)."""
    from pxr import Sdf, Tf

    with pytest.raises(Tf.ErrorException) as info:
        Sdf.Layer.OpenAsAnonymous(str(path))
    texts = [e.commentary for e in info.value.args]
    located = next(t for t in texts if re.match(rf"{re.escape(str(path))}:\d+:\d+: ", t))
    return re.match(rf"{re.escape(str(path))}:(\d+):(\d+): ", located).groups(), texts


@pytest.mark.parametrize("case", sorted(SYNTAX))
def test_syntax_error_is_file_line_column_and_the_parsers_reason(tmp_path, case):
    text, reason = SYNTAX[case]
    path = tmp_path / f"{case}.usda"
    path.write_text(text)
    (line_no, column), texts = _parser_says(path)
    assert any(reason in t for t in texts)
    line = one_line(run("walk", path))
    assert line.startswith(f"usdjoints: error: {path}:{line_no}:{column}: "), line
    assert reason in line and "pxrInternal" not in line and "_RaiseErrorPEGTL" not in line
    verbose = run("walk", path, "--verbose")  # after the subcommand, and the same exit code
    assert verbose.returncode == 2 and "Traceback" in verbose.stderr
    assert verbose.stderr.strip().splitlines()[-1] == line


def test_syntax_error_in_a_sublayer_names_the_sublayer(tmp_path):
    (tmp_path / "sub.usda").write_text(SYNTAX["tuple"][0])
    root = tmp_path / "root.usda"
    root.write_text('#usda 1.0\n(\n    subLayers = [@./sub.usda@]\n)\n')
    line = one_line(run("walk", root))
    assert f"{tmp_path / 'sub.usda'}:4:1: Tuple nesting too deep" in line


@pytest.mark.parametrize("where,text", [
    ("prim name", b'#usda 1.0\ndef Xform "A\xff" {\n}\n'),
    ("string", b'#usda 1.0\ndef Xform "A" {\n  custom string s = "\xc3\x28"\n}\n'),
    ("comment", b'#usda 1.0\n# note \xfe\ndef Xform "A" {\n}\n'),
])
def test_invalid_utf8_is_located_not_a_crash(tmp_path, where, text):
    path = tmp_path / "bad.usda"
    path.write_bytes(text)
    problem = pytest.raises(UnicodeDecodeError, text.decode, "utf-8").value  # the oracle: the decoder
    line_no = text[:problem.start].count(b"\n") + 1
    column = problem.start - (text[:problem.start].rfind(b"\n") + 1) + 1
    for command in ("walk", "audit"):
        result = run(command, path)
        assert result.returncode == 2 and "Traceback" not in result.stderr and "internal" not in result.stderr
        assert f"bad.usda:{line_no}:{column}: invalid UTF-8" in result.stderr, result.stderr


@pytest.mark.parametrize("ext", ["usda", "usdc"])
def test_a_value_clip_that_is_not_a_layer_is_blamed_not_the_stage(tmp_path, ext):
    """A stage whose value clip is a text file (the fuzzer's case: clips naming secret.txt): one
    line led by the clip (it was led by the stage), with the reason and the stage naming it, the
    same for a text and a binary stage. The crate
    was said to be corrupt, and OpenUSD's warning about the clip came after the error line, when
    the interpreter exited."""
    from pxr import Sdf, Usd

    (tmp_path / "notes.txt").write_text("not a layer\n")
    layer = Sdf.Layer.CreateAnonymous(".usda")
    authoring = Usd.Stage.Open(layer)
    clips = Usd.ClipsAPI(authoring.DefinePrim("/World", "Xform"))
    clips.SetClipAssetPaths([Sdf.AssetPath("./notes.txt")])
    clips.SetClipActive([(0.0, 0)])
    clips.SetClipPrimPath("/World")
    stage = tmp_path / f"clipped.{ext}"
    layer.Export(str(stage))
    line = one_line(run("walk", stage))
    assert line == (f"usdjoints: error: {tmp_path / 'notes.txt'}: USD cannot read this file: no file format "
                    f"for its extension (an asset of {stage})"), line


def test_invalid_utf8_in_a_crate_names_the_byte_in_hex():
    """A crate (made by the fuzzer from a sample stage, one byte flipped) whose name or value is
    not UTF-8: one line naming the file and the byte as the text reader does, not a Python bytes
    literal. Oracle: the byte is in the file, and it cannot start a UTF-8 sequence (0x80-0xbf)."""
    path = TESTS / "data" / "usd" / "crate_invalid_utf8_name.usdc"
    line = one_line(run("walk", path))
    assert f"{path}: holds a name or value that is not valid UTF-8 (byte 0x9a)" in line and "b'" not in line
    assert b"\x9a" in path.read_bytes() and 0x80 <= 0x9a <= 0xbf


def test_corrupt_crate_is_one_line_naming_the_file_never_a_silent_signal(tmp_path):
    plain = subprocess.run([sys.executable, "-c", "import sys; from pxr import Usd; Usd.Stage.Open(sys.argv[1])",
                            str(CORRUPT_CRATE)], capture_output=True, timeout=HANG_LIMIT)
    if plain.returncode >= 0:
        pytest.skip(f"this OpenUSD opens the corrupt crate (exit {plain.returncode}): nothing to guard")
    before = CORRUPT_CRATE.read_bytes()
    for command in ("walk", "audit"):
        line = one_line(run(command, CORRUPT_CRATE))
        assert str(CORRUPT_CRATE) in line and "OpenUSD crashed" in line
    assert CORRUPT_CRATE.read_bytes() == before


def test_corrupt_crate_as_a_sublayer_names_the_stage(tmp_path):
    root = tmp_path / "root.usda"
    root.write_text(f'#usda 1.0\n(\n    subLayers = [@{CORRUPT_CRATE}@]\n)\n')
    result = run("walk", root)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "OpenUSD crashed" in result.stderr or "cannot read" in result.stderr, result.stderr


@pytest.mark.parametrize("name", ["corrupt_crate_vector_append.usdc", "corrupt_crate_vector_max_size.usdc"])
def test_crate_with_sizes_out_of_range_says_its_data_is_corrupt(name):
    path = TESTS / "data" / "usd" / name
    line = one_line(run("walk", path))
    assert f"{path}: USD cannot read this file: its binary (usdc) data is corrupt: a count or size in it is out of range" in line
    reason = line.split("USD cannot read this file: ", 1)[1]
    assert "vector" not in reason and "Encountered" not in reason


@pytest.mark.parametrize("probe", ["1", "0"])
def test_crate_whose_arcs_cannot_be_unpacked_says_its_data_is_corrupt(probe):
    """The layer opens; listing its composition arcs is where the crate reader throws."""
    path = TESTS / "data" / "usd" / "corrupt_crate_unpack_value.usdc"
    before = path.read_bytes()
    for command in ("walk", "audit"):
        line = one_line(run(command, path, env={"USDJOINTS_PROBE": probe}))
        assert f"{path}: USD cannot read this file: its binary (usdc) data is corrupt" in line, line
    assert path.read_bytes() == before


def test_valid_crate_walks_like_its_text(tmp_path):
    """The child that reads binary layers first changes nothing about the walk."""
    import json

    from pxr import Sdf

    text = REPO / "sample_stages" / "arm_articulation.usda"
    crate = tmp_path / "arm.usdc"
    Sdf.Layer.FindOrOpen(str(text)).Export(str(crate))
    a, b = run("walk", text, "--format", "json"), run("walk", crate, "--format", "json")
    assert a.returncode == b.returncode == 0, b.stderr
    first, second = json.loads(a.stdout), json.loads(b.stdout)
    first.pop("stage"), second.pop("stage")
    assert first == second


def test_missing_stage_is_one_line_once(tmp_path):
    line = one_line(run("walk", tmp_path / "nope.usda"))
    assert "nope.usda: no such file" in line


CLIPPED = """#usda 1.0
def Xform "A" (
    prepend apiSchemas = ["PhysicsRigidBodyAPI"]
    clips = {
        dictionary default = {
            asset[] assetPaths = [@./fifo.usda@]
            asset manifestAssetPath = @./fifo.usda@
            string primPath = "/A"
            double2[] active = [(0, 0)]
        }
    }
)
{
    double3 xformOp:translate = (1, 0, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}
"""


def test_fifo_as_value_clip_is_refused(tmp_path):
    """USD opens value clips only when time samples are read: the walk used to block there."""
    os.mkfifo(tmp_path / "fifo.usda")
    root = tmp_path / "clipped.usda"
    root.write_text(CLIPPED)
    reads_value = ("import sys; from pxr import Usd; s = Usd.Stage.Open(sys.argv[1]); "
                   "s.GetPrimAtPath('/A').GetAttribute('xformOp:translate').GetTimeSamples()")
    with pytest.raises(subprocess.TimeoutExpired):  # the oracle: OpenUSD alone blocks reading the samples
        subprocess.run([sys.executable, "-c", reads_value, str(root)], capture_output=True, timeout=5)
    line = one_line(run("walk", root))
    assert "fifo.usda" in line and "FIFO" in line and "value clip" in line


def test_fifo_as_value_clip_of_a_binary_layer_is_refused(tmp_path):
    """A binary layer's clips are listed as a text layer's are, with the probe on and off."""
    from pxr import Sdf

    os.mkfifo(tmp_path / "fifo.usda")
    layer = Sdf.Layer.CreateAnonymous(".usda")
    assert layer.ImportFromString(CLIPPED)
    root = tmp_path / "clipped.usdc"
    assert layer.Export(str(root)) and root.read_bytes()[:8] == b"PXR-USDC"
    for env in ({}, {"USDJOINTS_PROBE": "0"}):
        line = one_line(run("walk", root, env=env))
        assert "fifo.usda" in line and "FIFO" in line and "value clip" in line, (env, line)


def test_empty_sublayer_path_is_read_as_openusd_reads_it(tmp_path):
    """An empty sublayer path (``@@``) raises in Sdf's path arithmetic; OpenUSD's own stage open
    ignores it, so the walk does too (oracle: Usd.Stage.Open on the same file)."""
    from pxr import Usd

    stage = tmp_path / "empty_sublayer.usda"
    stage.write_text('#usda 1.0\n(\n    subLayers = [\n        @@\n    ]\n)\ndef Xform "World" {}\n')
    assert Usd.Stage.Open(str(stage)).GetPrimAtPath("/World")
    result = run("walk", stage)
    assert result.returncode == 0, result.stderr
    assert "0 bodies, 0 joints" in result.stdout


SLOW_CRATE = TESTS / "fuzz" / "repros" / "crate_slow_open.usdc"  # OpenUSD takes seconds to refuse it


def test_a_refused_stage_is_not_reopened_until_one_of_its_files_changes(tmp_path, monkeypatch):
    """One command opens its stage several times (the output check, then the walk, audit or
    model): a refusal is remembered while the files read for it are unchanged (same inode, size,
    mtime), so a file USD takes seconds to refuse costs that once."""
    from usdjoints.errors import InputError
    from usdjoints.walker import stage_io

    opened = []
    real = stage_io._open_layers
    monkeypatch.setattr(stage_io, "_open_layers", lambda *a, **k: opened.append(a[0]) or real(*a, **k))
    sub, root = tmp_path / "sub.usda", tmp_path / "root.usda"
    sub.write_text(SYNTAX["tuple"][0])
    root.write_text('#usda 1.0\n(\n    subLayers = [@./sub.usda@]\n)\n')
    messages = []
    for call in (stage_io.layer_files, stage_io.open_stage, stage_io.open_stage):
        with pytest.raises(InputError) as refused:
            call(str(root))
        messages.append(str(refused.value))
    assert len(opened) == 1 and len(set(messages)) == 1 and "sub.usda:4:1" in messages[0]
    sub.write_text('#usda 1.0\ndef Xform "A" {\n}\n')  # the sublayer fixed: the stage is read again
    assert stage_io.open_stage(str(root)).GetPrimAtPath("/A")
    assert len(opened) == 2


def test_damaged_crate_is_refused_in_one_line_once_per_command(tmp_path):
    """The crate declares a section of gigabytes: the probe's memory limit refuses it (not a UTF-8
    position a binary file has not); simulate checks its outputs against the stage's layers and
    then opens it: one refusal."""
    crate = tmp_path / "damaged.usdc"
    crate.write_bytes(SLOW_CRATE.read_bytes())
    from pxr import Sdf, Tf
    with pytest.raises(Tf.ErrorException) as usd:  # the oracle: OpenUSD's parser refuses it
        Sdf.Layer.OpenAsAnonymous(str(crate))
    assert "out-of-bounds" in str(usd.value)
    line = one_line(run("simulate", crate, "--out", tmp_path / "t.npz", "--write-usd", tmp_path / "o.usda"))
    assert f"{crate}: OpenUSD asked for more than" in line and "UTF-8" not in line
    assert not (tmp_path / "t.npz").exists() and not (tmp_path / "o.usda").exists()


DEEP_VALUES = {"parentheses": "(" * 100000 + ")" * 100000, "tuples": "(0, " * 2000 + "0" + ")" * 2000}


@pytest.mark.parametrize("where", ["stage", "sublayer"])
@pytest.mark.parametrize("kind", sorted(DEEP_VALUES))
def test_deeply_nested_brackets_are_refused_before_openusd_parses_them(tmp_path, where, kind):
    """OpenUSD's text parser takes time and memory growing with the square of a value's depth
    (100,000 parentheses: past 9.7 GB and 2 minutes before its own error); the layer is refused
    in one line naming its file and line, well inside the hang limit. Oracle: the process."""
    deep = f'#usda 1.0\ndef Xform "A"\n{{\n    double3 x = {DEEP_VALUES[kind]}\n}}\n'
    stage = tmp_path / "stage.usda"
    if where == "stage":
        stage.write_text(deep)
        shown = f"{stage}:4"
    else:
        (tmp_path / "deep.usda").write_text(deep)
        stage.write_text('#usda 1.0\n(\n    subLayers = [@./deep.usda@]\n)\n')
        shown = "deep.usda:4"
    for command in ("walk", "audit"):
        line = one_line(run(command, stage, "--strict-inputs" if command == "audit" else "--consumer=usdphysics"))
        assert shown in line and "nested more than 64 deep" in line, line


@pytest.mark.parametrize("text", [
    'custom string note = "' + "(" * 100 + '"',
    "custom string note = '" + "[" * 100 + "'",
    'custom string note = """\n' + "(" * 100 + '\n"""',
    "custom asset a = @./" + "(" * 100 + ".usda@",
    "# " + "[" * 100])
def test_brackets_in_strings_and_comments_are_text(tmp_path, text):
    """A run of brackets inside a string, an asset path or a comment nests nothing: the layer
    opens (the oracle: OpenUSD's own parser opens it) and walks."""
    from pxr import Sdf

    stage = tmp_path / "stage.usda"
    stage.write_text(f'#usda 1.0\ndef Xform "A"\n{{\n    {text}\n}}\n')
    assert Sdf.Layer.FindOrOpen(str(stage))
    result = run("walk", stage)
    assert result.returncode == 0, result.stderr


# A file name the file system holds as bytes that are not UTF-8 (Python keeps them as surrogates).
NOT_UTF8 = os.fsdecode(b"\xff\xfe")


def test_stage_whose_path_is_not_utf8_is_one_line_naming_it(tmp_path):
    """OpenUSD takes paths as UTF-8 text only: such a stage was an internal error (UnicodeEncodeError
    from the resolver) in walk and in every audit format; now one line each, and a batch goes on."""
    stage = tmp_path / f"{NOT_UTF8}.usda"
    stage.write_text((REPO / "sample_stages" / "arm_articulation.usda").read_text())
    line = one_line(run("walk", stage))
    assert "not valid UTF-8" in line and "\\udcff\\udcfe.usda" in line
    for fmt in ("text", "json", "sarif"):
        result = run("audit", "--format", fmt, stage, REPO / "sample_stages" / "arm_articulation.usda")
        assert result.returncode == 0 and "internal error" not in result.stderr, result  # the batch rule
        assert result.stderr.count("not valid UTF-8") == 1
    result = run("audit", "--format", "sarif", stage)
    # RFC 3986 percent-encodes the name's own bytes, as pathlib's as_uri does
    assert "%FF%FE.usda" in result.stdout and "internal error" not in result.stderr, result


def test_robot_files_and_outputs_whose_names_are_not_utf8_convert(tmp_path):
    """The file system allows any bytes in a name: a URDF or SDFormat file so named converts (an SDFormat
    file's meshes found beside it), into an output so named, whose exact bytes name the new file.
    Both were internal errors (lxml and OpenUSD take UTF-8 text only)."""
    folder = tmp_path / NOT_UTF8
    (folder / "meshes").mkdir(parents=True)
    (folder / "meshes" / "t.stl").write_text("solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\n"
                                             "vertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid t\n")
    sdf = folder / f"{NOT_UTF8}.sdf"
    sdf.write_text('<?xml version="1.0"?>\n<sdf version="1.9"><model name="m"><link name="l"><inertial>'
                   '<mass>1</mass></inertial><visual name="v"><geometry><mesh><uri>meshes/t.stl</uri></mesh>'
                   '</geometry></visual></link></model></sdf>\n')
    urdf = folder / f"{NOT_UTF8}.urdf"
    from samples import pendulum_urdf

    urdf.write_text(pendulum_urdf())
    for source in (sdf, urdf):
        out = folder / f"out{NOT_UTF8}.usda"
        result = run("convert", source, "-o", out)
        assert result.returncode == 0 and "warning" not in result.stderr, result
        assert os.fsencode(out.name) in os.listdir(os.fsencode(folder))
        if source is sdf:
            assert "points = " in out.read_text()  # the mesh beside the file was found
        out.unlink()
    assert sorted(os.listdir(folder)) == sorted(["meshes", sdf.name, urdf.name])  # no temporary left


def test_fix_layer_whose_name_is_not_utf8_is_written(tmp_path):
    stage = tmp_path / "stage.usda"
    stage.write_text((REPO / "sample_stages" / "revolute_basic.usda").read_text())
    out = tmp_path / f"fix{NOT_UTF8}.usda"
    result = run("audit", stage, "--fix", out)
    assert result.returncode in (0, 1) and "internal error" not in result.stderr, result
    assert out.read_text().startswith("#usda 1.0")
    assert sorted(os.listdir(tmp_path)) == sorted([stage.name, out.name])


ASSET_VALUES = """#usda 1.0
def Xform "A" (
    prepend apiSchemas = ["PhysicsRigidBodyAPI"]
    clips = {
        dictionary default = {
            asset[] assetPaths = [@./clip.usda@]
            string primPath = "/A"
            double2[] active = [(0, 0)]
        }
    }
)
{
    double3 xformOp:translate = (1, 0, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}
def Shader "S"
{
    asset inputs:file = @/dev/null@
    asset inputs:fifo = @./fifo.png@
}
"""


@pytest.mark.parametrize("ext", ["usda", "usdc"])
def test_asset_values_naming_a_device_or_fifo_are_not_refused(tmp_path, ext):
    """An asset-valued attribute (a texture) is a path OpenUSD resolves, never opens: a stage whose
    shader names /dev/null or a FIFO was refused as a value clip would be ('reading it could
    block'); only the clips' own files are checked now."""
    from pxr import Sdf

    os.mkfifo(tmp_path / "fifo.png")
    (tmp_path / "clip.usda").write_text('#usda 1.0\ndef Xform "A" {\n    double3 xformOp:translate.timeSamples = '
                                        '{0: (2, 0, 0)}\n}\n')
    root = tmp_path / f"stage.{ext}"
    layer = Sdf.Layer.CreateAnonymous(".usda")
    assert layer.ImportFromString(ASSET_VALUES) and layer.Export(str(root))
    reads_every_value = ("import sys; from pxr import Usd; s = Usd.Stage.Open(sys.argv[1]); "
                         "[a.Get() for p in s.Traverse() for a in p.GetAttributes()]")
    # the oracle: OpenUSD alone opens the stage and reads every value, the assets included
    subprocess.run([sys.executable, "-c", reads_every_value, str(root)], check=True, timeout=30)
    result = run("walk", root)
    assert result.returncode == 0 and result.stderr == "", result
    (tmp_path / "clip.usda").unlink()
    os.mkfifo(tmp_path / "clip.usda")  # the clip itself stays refused
    line = one_line(run("walk", root))
    assert "clip.usda" in line and "FIFO" in line and "value clip" in line


def _file_system_of(path) -> str:
    """The oracle: the kernel's own mount table names the file system holding ``path``."""
    device = os.stat(path).st_dev
    with open("/proc/self/mountinfo") as mounts:
        for line in mounts:
            major, _, minor = line.split()[2].partition(":")
            if os.makedev(int(major), int(minor)) == device:
                return line.split(" - ", 1)[1].split()[0]
    return ""


@pytest.mark.skipif(os.geteuid() != 0 or not os.path.exists("/proc/kmsg"), reason="/proc/kmsg opens for root only")
@pytest.mark.parametrize("role", ["stage", "sublayer", "robot", "mesh", "include"])
def test_a_kernel_file_is_refused_never_read(tmp_path, role):
    """/proc/kmsg is a regular file (stat says so, size 0) whose read waits for the next kernel
    message: through a symlink, as a stage, a sublayer, a robot file, a mesh or an included
    model.sdf, the command blocked for ever. Files of the kernel's file systems are refused now,
    before anything opens them."""
    kmsg = "/proc/kmsg"
    assert stat.S_ISREG(os.stat(kmsg).st_mode) and _file_system_of(kmsg) == "proc"
    link = {"stage": "k.usda", "sublayer": "k.usda", "robot": "k.urdf", "mesh": "k.stl",
            "include": "models/km/model.sdf"}[role]
    (tmp_path / link).parent.mkdir(parents=True, exist_ok=True)
    os.symlink(kmsg, tmp_path / link)
    argv = {"stage": ["walk", tmp_path / "k.usda"], "sublayer": ["walk", tmp_path / "root.usda"],
            "robot": ["convert", tmp_path / "k.urdf", "-o", tmp_path / "out.usda"],
            "mesh": ["convert", tmp_path / "r.urdf", "-o", tmp_path / "out.usda"],
            "include": ["convert", tmp_path / "w.sdf", "-o", tmp_path / "out.usda", "--resource-path",
                        tmp_path / "models"]}[role]
    (tmp_path / "root.usda").write_text("#usda 1.0\n(\n    subLayers = [@k.usda@]\n)\n")
    (tmp_path / "r.urdf").write_text('<robot name="r"><link name="a"><visual><geometry><mesh filename="k.stl"/>'
                                     "</geometry></visual></link></robot>")
    (tmp_path / "models" / "km").mkdir(parents=True, exist_ok=True)
    (tmp_path / "models" / "km" / "model.config").write_text(
        '<?xml version="1.0"?><model><name>km</name><sdf version="1.9">model.sdf</sdf></model>')
    (tmp_path / "w.sdf").write_text('<?xml version="1.0"?><sdf version="1.9"><world name="w"><include>'
                                    "<uri>model://km</uri></include></world></sdf>")
    line = one_line(run(*argv, timeout=HANG_LIMIT))
    assert "kernel's proc file system" in line and "k" in line
    assert not (tmp_path / "out.usda").exists()
