"""No output destroys anything: every command's outputs are checked before any work.

Oracles: the file system itself (bytes, ``st_dev``/``st_ino``, ``st_mode``, ``st_rdev`` before and
after), the process (exit code, stderr lines, what a fresh interpreter imported), and OpenUSD's
own layer stack (``Usd.Stage.GetUsedLayers``) for what counts as a layer of the stage.
"""
from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
import threading
import time

import pytest

from samples import REPO, pendulum_urdf
from usdjoints.cli import main
from usdjoints.errors import UsageError
from usdjoints.outputs import check_outputs, use_colour, write_file, write_text

# an articulated arm every consumer reads without errors (Newton refuses revolute_basic's standalone
# body-to-body joint), so a clean audit exits 0
STAGE_TEXT = (REPO / "sample_stages" / "arm_articulation.usda").read_text()
URDF = pendulum_urdf()


def snapshot(*paths):
    """Everything about each path a write could change: kind, inode, mode, bytes, mtime."""
    result = []
    for path in paths:
        info = os.lstat(path)
        data = open(path, "rb").read() if stat.S_ISREG(info.st_mode) else None
        result.append((str(path), info.st_mode, info.st_ino, info.st_rdev, info.st_mtime_ns, data))
    return result


def refused(capsys, argv) -> str:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code == 2, (argv, out, err)
    assert len(lines) == 1 and "Traceback" not in err and "internal error" not in err, err
    return lines[0]


@pytest.fixture
def stage(tmp_path):
    path = tmp_path / "stage.usda"
    path.write_text(STAGE_TEXT)
    return path


def _aliases(tmp_path, target, how):
    if how == "direct":
        return target
    alias = tmp_path / f"{how}{target.suffix}"
    (os.symlink if how == "symlink" else os.link)(target, alias)
    return alias


STAGE_OPTIONS = [("audit", "-o"), ("audit", "--fix"), ("simulate", "--out"), ("simulate", "--write-usd"),
                 ("simulate", "--plot")]


@pytest.mark.parametrize("how", ["direct", "symlink", "hardlink"])
@pytest.mark.parametrize("command,option", STAGE_OPTIONS)
def test_output_that_is_the_stage_is_refused(capsys, tmp_path, stage, command, option, how):
    out = _aliases(tmp_path, stage, how)
    before = snapshot(stage, out)
    line = refused(capsys, [command, stage, option, out])
    assert "refusing to overwrite an input" in line and str(out) in line
    if how != "direct":
        assert f"through a {how.replace('hardlink', 'hard link')}" in line
    assert snapshot(stage, out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted({stage.name, out.name})  # no temporary left


@pytest.mark.parametrize("how", ["direct", "symlink", "hardlink"])
def test_convert_output_that_is_the_input_is_refused(capsys, tmp_path, how):
    source = tmp_path / "robot.usda"  # a URDF with a USD name: the one case -o can name it
    source.write_text(URDF)
    out = _aliases(tmp_path, source, how)
    before = snapshot(source, out)
    line = refused(capsys, ["convert", source, "-o", out])
    assert "refusing to overwrite an input" in line
    assert snapshot(source, out) == before


def test_convert_api_refuses_its_input(tmp_path):
    """``convert_urdf(x.usda, x.usda)`` used to overwrite its input."""
    from usdjoints import convert_urdf

    source = tmp_path / "x.usda"
    source.write_text(URDF)
    before = snapshot(source)
    with pytest.raises(UsageError, match="refusing to overwrite an input"):
        convert_urdf(source, source)
    assert snapshot(source) == before


LAYERED = """#usda 1.0
(
    subLayers = [@./sub.usda@]
)
def Xform "Referenced" (references = @./ref.usda@) {}
def Xform "Paid" (payload = @./pay.usda@) {}
def Xform "Clipped" (
    clips = {
        dictionary default = {
            double2[] active = [(0, 0)]
            asset[] assetPaths = [@./clip.usda@]
            string primPath = "/P"
            double2[] times = [(0, 0)]
        }
    }
)
{
}
"""


@pytest.mark.parametrize("layer", ["sub.usda", "ref.usda", "pay.usda", "clip.usda"])
@pytest.mark.parametrize("command,option", STAGE_OPTIONS)
def test_output_that_is_a_layer_of_the_stage_is_refused(capsys, tmp_path, command, option, layer):
    from pxr import Usd

    root = tmp_path / "root.usda"
    root.write_text(LAYERED)
    (tmp_path / "sub.usda").write_text(STAGE_TEXT)
    for name in ("ref.usda", "pay.usda", "clip.usda"):
        (tmp_path / name).write_text('#usda 1.0\n(defaultPrim = "P")\ndef Xform "P" {}\n')
    composed = Usd.Stage.Open(str(root))
    used = {os.path.realpath(layer.realPath) for layer in composed.GetUsedLayers() if layer.realPath}
    del composed
    from pxr import UsdUtils

    # the oracle: OpenUSD composes this file (a value clip is opened once a value is read: `audit -o
    # CLIP` overwrote it, the stage's own layers were refused)
    used |= {os.path.realpath(layer.realPath) for layer in UsdUtils.ComputeAllDependencies(str(root))[0]}
    assert os.path.realpath(tmp_path / layer) in used
    files = [tmp_path / n for n in ("root.usda", "sub.usda", "ref.usda", "pay.usda", "clip.usda")]
    before = snapshot(*files)
    line = refused(capsys, [command, root, option, tmp_path / layer])
    assert "a layer (sublayer, reference, payload or value clip) of the stage" in line
    assert snapshot(*files) == before


@pytest.mark.parametrize("argv", [
    ["audit", "{stage}", "-o", "{missing}/r.json"],
    ["audit", "{stage}", "--fix", "{missing}/fix.usda"],
    ["simulate", "{stage}", "--out", "{missing}/t.npz"],
    ["simulate", "{stage}", "--write-usd", "{missing}/m.usda"],
    ["simulate", "{stage}", "--plot", "{missing}/p.png"],
    ["convert", "{urdf}", "-o", "{missing}/r.usda"],
    ["audit", "--list-rules", "-o", "{missing}/rules.txt"],
])
def test_missing_output_directory_is_one_behaviour_everywhere(capsys, tmp_path, stage, argv):
    urdf = tmp_path / "r.urdf"
    urdf.write_text(URDF)
    missing = tmp_path / "missing" / "dir"
    line = refused(capsys, [a.format(stage=stage, urdf=urdf, missing=missing) for a in argv])
    assert "the output directory" in line and "does not exist" in line
    assert not (tmp_path / "missing").exists()  # never created


@pytest.mark.parametrize("argv", [
    ["audit", "{stage}", "-o", "{link}"],
    ["audit", "{stage}", "--fix", "{link}"],
    ["simulate", "{stage}", "--out", "{link}"],
    ["convert", "{urdf}", "-o", "{link}"],
])
def test_dangling_symlink_output_names_the_missing_directory_of_its_target(capsys, tmp_path, stage, argv):
    """A symlink whose target's folder is gone: the line names that folder, not the link's own
    folder (which exists; the oracle is the file system: ``os.path.isdir`` of each)."""
    urdf = tmp_path / "r.urdf"
    urdf.write_text(URDF)
    link = tmp_path / "out.usda"
    os.symlink(tmp_path / "gone" / "out.usda", link)
    line = refused(capsys, [a.format(stage=stage, urdf=urdf, link=link) for a in argv])
    assert f"whose directory {tmp_path / 'gone'} does not exist" in line, line
    assert os.path.isdir(tmp_path) and not os.path.exists(tmp_path / "gone")
    assert os.path.islink(link)  # the link is left as it was


def test_option_clash_is_refused_before_the_run(tmp_path, stage):
    """``--envs 64 --out T.npz --write-usd M.usda``: refused before the simulator is even imported."""
    script = ("import sys\nfrom usdjoints.cli import main\n"
              f"code = main(['simulate', {str(stage)!r}, '--envs', '64', '--out', {str(tmp_path / 'T.npz')!r}, "
              f"'--write-usd', {str(tmp_path / 'M.usda')!r}])\n"
              "print(code, 'numba' in sys.modules)\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.stdout.split() == ["2", "False"], result
    assert "--write-usd" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "T.npz").exists() and not (tmp_path / "M.usda").exists()


def test_two_outputs_naming_one_file_are_refused(capsys, tmp_path, stage):
    line = refused(capsys, ["simulate", stage, "--out", tmp_path / "x.npz", "--plot", tmp_path / "x.npz"])
    assert "name the same file" in line
    line = refused(capsys, ["audit", stage, "--fix", tmp_path / "f.usda", "-o", tmp_path / "f.usda"])
    assert "name the same file" in line
    assert not (tmp_path / "x.npz").exists() and not (tmp_path / "f.usda").exists()


@pytest.mark.parametrize("argv", [
    ["convert", "{urdf}", "-o", "-"],
    ["audit", "{stage}", "--fix", "-"],
    ["simulate", "{stage}", "--duration", "0.01", "--out", "-"],
    ["simulate", "{stage}", "--duration", "0.01", "--write-usd", "-"],
    ["simulate", "{stage}", "--duration", "0.01", "--plot", "-"],
])
def test_dash_is_standard_output_only_for_the_audit_report(capsys, tmp_path, stage, argv):
    """``-`` names standard output for ``audit -o`` (the report); a stage, trajectory or plot
    output refuses it before any work instead of failing after the run."""
    urdf = tmp_path / "r.urdf"
    urdf.write_text(URDF)
    before = snapshot(stage)
    line = refused(capsys, [a.format(stage=stage, urdf=urdf) for a in argv])
    assert "standard output" in line and argv[-2] in line
    assert snapshot(stage) == before and not (tmp_path / "-").exists()
    assert main(["audit", str(stage), "-o", "-"]) == 0
    assert "stage(s)" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [
    ["convert", "{urdf}", "-o", "{tmp}/r.usdz"],
    ["audit", "{stage}", "--fix", "{tmp}/f.usdz"],
    ["audit", "{stage}", "--fix", "{tmp}/f.txt"],
    ["simulate", "{stage}", "--duration", "0.01", "--write-usd", "{tmp}/m.usdz"],
    ["simulate", "{stage}", "--duration", "0.01", "--plot", "{tmp}/p.txt"],
])
def test_output_extension_is_checked_before_the_work(capsys, tmp_path, stage, argv):
    """A stage layer goes to .usda/.usdc/.usd (OpenUSD writes no .usdz package through a layer
    export), a plot to .png: any other ending is refused up front, nothing written."""
    urdf = tmp_path / "r.urdf"
    urdf.write_text(URDF)
    line = refused(capsys, [a.format(stage=stage, urdf=urdf, tmp=tmp_path) for a in argv])
    assert "must end with one of" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.urdf", "stage.usda"]


def test_directory_and_socket_outputs_are_refused(capsys, tmp_path, stage):
    folder = tmp_path / "folder"
    folder.mkdir()
    assert "is a directory" in refused(capsys, ["audit", stage, "-o", folder])
    server = socket.socket(socket.AF_UNIX)
    sock = tmp_path / "s.sock"
    server.bind(str(sock))
    try:
        before = snapshot(sock)
        assert "is a socket" in refused(capsys, ["audit", stage, "-o", sock])
        assert snapshot(sock) == before
    finally:
        server.close()


@pytest.mark.skipif(os.geteuid() != 0, reason="mknod of a character device needs root")
def test_device_node_is_written_in_place_never_replaced(capsys, tmp_path, stage):
    """``audit -o NODE`` (think ``-o /dev/null`` as root) used to replace the node with a file.
    The node is made here, under a temporary folder: /dev is never touched."""
    node = tmp_path / "null.usda"
    os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # the null device
    before = snapshot(node, stage)
    assert main(["audit", str(stage), "-o", str(node)]) == 0
    assert main(["audit", str(stage), "--fix", str(node)]) == 0
    urdf = tmp_path / "r.urdf"
    urdf.write_text(URDF)
    assert main(["convert", str(urdf), "-o", str(node)]) == 0
    capsys.readouterr()
    after = snapshot(node, stage)
    assert after == before
    assert stat.S_ISCHR(os.lstat(node).st_mode) and os.lstat(node).st_rdev == os.makedev(1, 3)


@pytest.mark.skipif(os.geteuid() != 0, reason="mknod of a character device needs root")
def test_device_node_without_a_usd_ending_takes_every_stage_layer(capsys, tmp_path, stage):
    """``convert -o /dev/null`` (a dry run) was refused as not ending in .usda while ``audit
    --fix /dev/null`` and ``simulate --write-usd /dev/null`` wrote to it: a device is not held to
    an ending, in every command. The node is made here: /dev is never touched."""
    node = tmp_path / "null"
    os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # the null device
    urdf = tmp_path / "r.urdf"
    urdf.write_text(URDF)
    before = snapshot(node, stage, urdf)
    assert main(["convert", str(urdf), "-o", str(node)]) == 0
    assert main(["audit", str(stage), "--fix", str(node)]) == 0
    capsys.readouterr()
    assert snapshot(node, stage, urdf) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null", "r.urdf", "stage.usda"]


def test_fifo_without_a_usd_ending_gets_the_converted_layer(tmp_path):
    """A FIFO reader (``convert R.urdf -o >(usdcat ...)``) gets the layer as text, whatever its name."""
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    urdf = tmp_path / "r.urdf"
    urdf.write_text(URDF)
    received = []
    reader = threading.Thread(target=lambda: received.append(open(fifo, "rb").read()), daemon=True)
    reader.start()
    time.sleep(0.2)
    result = subprocess.run([sys.executable, "-m", "usdjoints", "convert", str(urdf), "-o", str(fifo)],
                            capture_output=True, text=True, timeout=120, cwd=REPO)
    reader.join(30)
    assert result.returncode == 0, result
    assert received[0].startswith(b"#usda 1.0")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_fifo_without_reader_is_refused_without_hanging(tmp_path, stage):
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "usdjoints", "audit", str(stage), "-o", str(fifo)],
                            capture_output=True, text=True, timeout=60, cwd=REPO)
    assert result.returncode == 2 and "FIFO with no reader" in result.stderr, result
    assert time.monotonic() - started < 30
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_fifo_with_reader_gets_the_report(tmp_path, stage):
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(open(fifo, "rb").read()), daemon=True)
    reader.start()
    time.sleep(0.2)
    result = subprocess.run([sys.executable, "-m", "usdjoints", "audit", str(stage), "-o", str(fifo),
                             "--format", "json"], capture_output=True, text=True, timeout=120, cwd=REPO)
    reader.join(30)
    assert result.returncode in (0, 1), result
    import json

    assert json.loads(received[0])["schema"] == "usdjoints.audit/1"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


@pytest.mark.parametrize("mask,mode", [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600)])
def test_new_files_follow_the_umask(capsys, tmp_path, stage, mask, mode):
    urdf = tmp_path / "r.urdf"
    urdf.write_text(URDF)
    old = os.umask(mask)
    try:
        assert main(["audit", str(stage), "-o", str(tmp_path / "r.json"), "--format", "json"]) == 0
        assert main(["audit", str(stage), "--fix", str(tmp_path / "fix.usda")]) == 0
        assert main(["convert", str(urdf), "-o", str(tmp_path / "r.usda")]) == 0
        write_file(tmp_path / "direct.bin", lambda p: open(p, "wb").write(b"x"))
    finally:
        os.umask(old)
    capsys.readouterr()
    for name in ("r.json", "fix.usda", "r.usda", "direct.bin"):
        assert stat.S_IMODE(os.stat(tmp_path / name).st_mode) == mode, name


def test_replaced_file_keeps_its_mode_and_a_symlink_stays_a_link(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("old")
    os.chmod(real, 0o600)
    link = tmp_path / "link.json"
    os.symlink(real, link)
    write_text(link, "new")
    assert os.path.islink(link) and real.read_text() == "new"
    assert stat.S_IMODE(os.stat(real).st_mode) == 0o600


def test_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "keep.usda"
    target.write_text("old")

    def half_then_fail(path):
        open(path, "w").write("half")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        write_file(target, half_then_fail)
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.usda"]


def test_read_only_output_and_unwritable_folder_are_refused_before_work(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root writes anywhere")
    target = tmp_path / "ro.json"
    target.write_text("x")
    os.chmod(target, 0o400)
    with pytest.raises(UsageError, match="read-only"):
        check_outputs([("-o", target)])


def test_no_colour_with_no_color():
    class Terminal:
        def isatty(self):
            return True

    old = os.environ.pop("NO_COLOR", None)
    try:
        assert use_colour(Terminal())
        os.environ["NO_COLOR"] = "1"
        assert not use_colour(Terminal())
    finally:
        os.environ.pop("NO_COLOR", None)
        if old is not None:
            os.environ["NO_COLOR"] = old


def test_output_in_a_folder_whose_file_system_makes_no_files_says_so(tmp_path):
    """/proc exists (a folder) but creating a file in it fails with ENOENT (the kernel's answer): the
    line says the folder makes no new files, not that it does not exist."""
    if not os.path.isdir("/proc/self"):
        pytest.skip("no /proc on this system")
    with pytest.raises(UsageError) as raised:
        write_text("/proc/usdjoints-output.json", "{}")
    assert "cannot create a file in /proc" in str(raised.value) and "does not exist" not in str(raised.value)
    assert not os.path.exists("/proc/usdjoints-output.json")
