"""The command line: exit codes, one-line errors, JSON shape, start-up cost.

Oracles: the public interface in ARCHITECTURE.md (exit codes 0/1/2, JSON keys, no bare
Infinity/NaN) and the process itself (what `python -X importtime`-free checks can see: numba is
not loaded, the run is short).
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from samples import REPO, SAMPLE_STAGES
from usdjoints.cli import main

WALK_KEYS = {"schema", "stage", "consumer", "units", "bodies", "articulations", "joints", "diagnostics"}
JOINT_KEYS = {"path", "type", "enabled", "exclude_from_articulation", "articulation", "body0", "body1",
              "local_pose0", "local_pose1", "axis", "limits", "drives", "coupling", "columns"}


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("path", SAMPLE_STAGES, ids=lambda p: p.stem)
@pytest.mark.parametrize("consumer", ["ovphysx", "usdphysics", "usdjoints"])
def test_walk_json_for_every_sample(capsys, path, consumer):
    code, out, err = run(capsys, "walk", str(path), "--consumer", consumer, "--format", "json")
    assert code == 0, err
    assert "Infinity" not in out and "NaN" not in out
    document = json.loads(out)
    assert WALK_KEYS <= set(document)
    assert document["schema"] == "usdjoints.walk/1" and document["consumer"] == consumer
    for joint in document["joints"]:
        assert JOINT_KEYS <= set(joint)
        for column in joint["columns"].values():
            assert column["source"] in ("authored", "fallback", "parser_default", "blocked", "missing", "invalid")


def test_walk_text(capsys):
    code, out, _ = run(capsys, "walk", str(REPO / "sample_stages" / "bad_onesided_limit.usda"))
    assert code == 0
    assert "locks the hinge at [0, 0]" in out


def test_columns_rack_shows_seed_columns(capsys):
    code, out, _ = run(capsys, "columns", "PhysxPhysicsRackAndPinionJoint")
    assert code == 0
    for name in ("physics:body0", "physics:body1", "physics:localPos0", "physics:localRot0", "physics:localPos1",
                 "physics:localRot1", "physics:jointEnabled", "physics:collisionEnabled", "physics:breakForce",
                 "physics:breakTorque", "physics:excludeFromArticulation", "physics:ratio", "physics:hinge",
                 "physics:prismatic"):
        assert name in out


def test_columns_json(capsys):
    code, out, _ = run(capsys, "columns", "PhysicsRevoluteJoint", "--format", "json")
    assert code == 0
    document = json.loads(out)
    names = {c["name"] for c in document["columns"]}
    assert {"physics:lowerLimit", "physics:upperLimit", "physics:axis"} <= names


def _one_line_error(capsys, *argv) -> str:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def test_missing_file(capsys, tmp_path):
    line = _one_line_error(capsys, "walk", str(tmp_path / "nope.usda"))
    assert "nope.usda" in line


def test_not_usd(capsys, tmp_path):
    path = tmp_path / "garbage.usda"
    path.write_text("this is not a layer {{{")
    line = _one_line_error(capsys, "walk", str(path))
    assert "garbage.usda" in line


def test_unknown_extension(capsys, tmp_path):
    path = tmp_path / "robot.txt"
    path.write_text("#usda 1.0\n")
    assert "robot.txt" in _one_line_error(capsys, "walk", str(path))


def test_composition_error(capsys, tmp_path):
    path = tmp_path / "broken.usda"
    path.write_text('#usda 1.0\ndef Xform "A" (references = @missing_asset.usda@) {}\n')
    line = _one_line_error(capsys, "walk", str(path))
    assert "broken.usda" in line and "composition" in line


def test_composition_error_names_no_session_layer(capsys, tmp_path):
    """An inherit cycle: OpenUSD names the layer stack with the stage's empty session layer at
    its address (@anon:0x...:cycle-session.usda@); the message keeps the user's own layer and
    the prim, and drops the address."""
    path = tmp_path / "cycle.usda"
    path.write_text('#usda 1.0\ndef Xform "X" (\n    inherits = </X>\n)\n{\n}\n')
    line = _one_line_error(capsys, "walk", str(path))
    assert "cycle.usda" in line and "</X>" in line and "Cycle" in line
    assert "anon:" not in line and "0x" not in line and "session" not in line


def test_reference_to_a_file_usd_cannot_read_names_the_referrer(capsys, tmp_path):
    """A reference to a text file: OpenUSD cannot tell its format; the message names that file
    and the layer whose reference brought it in."""
    (tmp_path / "notes.txt").write_text("some notes\n")
    path = tmp_path / "root.usda"
    path.write_text('#usda 1.0\ndef Xform "A" (references = @./notes.txt@</X>) {}\n')
    line = _one_line_error(capsys, "walk", str(path))
    assert "notes.txt: USD cannot read this file" in line and line.endswith("(reference or payload of "
                                                                            f"{path})"), line


def test_text_after_the_layer_header_expects_the_end_of_the_file(capsys, tmp_path):
    """OpenUSD's parser names the end of the file by its grammar rule, internal::eof."""
    path = tmp_path / "stray.usda"
    path.write_text('#usda 1.0\n(\n    upAxis = "Z"\n)\n\n    prepend apiSchemas = ["X"]\n)\n')
    line = _one_line_error(capsys, "walk", str(path))
    assert "stray.usda:6:5: parse error: expected the end of the file" in line and "internal" not in line


def test_composition_errors_give_the_same_message_every_time(capsys, tmp_path):
    """Two composition errors, which OpenUSD lists in an order that varies between openings: the
    message is the first in text order, the same on every run. Files in the stage's folder are
    named relative to it (OpenUSD gives them whole)."""
    path = tmp_path / "two.usda"
    path.write_text('#usda 1.0\ndef Xform "A" (inherits = </A>) {}\n'
                    'def Xform "B" (references = @./missing.usda@) {}\n')
    lines = {_one_line_error(capsys, "walk", str(path)) for _ in range(6)}
    assert len(lines) == 1
    assert "Could not open asset @missing.usda@ for reference introduced by @two.usda@</B>" in lines.pop()


def test_sublayer_composition_error_hint_names_sublayers(capsys, tmp_path):
    """A sublayer offset of nan is a composition error: the hint names every kind of arc, not only
    references and payloads."""
    (tmp_path / "odd.usda").write_text("#usda 1.0\n")
    path = tmp_path / "root.usda"
    path.write_text('#usda 1.0\n(\n    subLayers = [@./odd.usda@ (offset = nan)]\n)\n')
    line = _one_line_error(capsys, "walk", str(path))
    assert "composition error: Invalid sublayer offset" in line and "sublayers, references" in line, line


def test_unknown_consumer_is_usage_error(capsys, tmp_path):
    with pytest.raises(SystemExit) as exit_info:
        main(["walk", str(SAMPLE_STAGES[0]), "--consumer", "bullet"])
    assert exit_info.value.code == 2


def test_empty_stage(capsys, tmp_path):
    path = tmp_path / "empty.usda"
    path.write_text("#usda 1.0\n")
    code, out, _ = run(capsys, "walk", str(path), "--format", "json")
    assert code == 0
    document = json.loads(out)
    assert document["joints"] == [] and document["bodies"] == []


def test_nan_pose_and_dangling_target_are_diagnostics(capsys, tmp_path):
    path = tmp_path / "bad_prims.usda"
    path.write_text("""#usda 1.0
def Xform "World" {
    def Xform "A" (prepend apiSchemas = ["PhysicsRigidBodyAPI"]) {}
    def PhysicsRevoluteJoint "J" {
        rel physics:body0 = </World/Missing>
        rel physics:body1 = </World/A>
        point3f physics:localPos0 = (nan, 0, inf)
    }
}
""")
    code, out, _ = run(capsys, "walk", str(path), "--format", "json")
    assert code == 0
    assert "NaN" not in out and "Infinity" not in out
    document = json.loads(out)
    codes = {d["code"] for d in document["diagnostics"]}
    assert {"non-finite", "dangling-body"} <= codes
    joint = document["joints"][0]
    assert joint["body0"] is None and joint["body1"] == "/World/A"
    assert joint["columns"]["physics:localPos0"]["value"] == ["nan", 0.0, "inf"]


def test_walk_never_imports_numba_or_the_simulator(tmp_path):
    """`walk` imports neither numba nor the simulator, which is what keeps it starting fast.

    The start-up time itself is measured side by side with bare OpenUSD by
    ``benchmarks/walk_start.py``, not here.
    """
    script = (
        "import sys\n"
        "from usdjoints.cli import main\n"
        f"code = main(['walk', {str(REPO / 'sample_stages' / 'revolute_basic.usda')!r}, '--format', 'json'])\n"
        "heavy = sorted(m for m in ('numba', 'llvmlite', 'scipy', 'usdjoints.sim') if m in sys.modules)\n"
        "sys.stderr.write(f'{code} {\",\".join(heavy) or \"none\"}\\n')\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    code, heavy = result.stderr.strip().splitlines()[-1].split()
    assert code == "0"
    assert heavy == "none"


def test_audit_stages_on_both_sides_of_its_options(capsys):
    """``audit A --format json B`` audits A and B, as ``audit A B --format json`` does (most tools
    take operands between options); it stopped with 'unrecognized arguments: B'. An unknown option
    among them, or a second operand of a command that takes one, is still a usage error."""
    a, b = str(REPO / "sample_stages" / "revolute_basic.usda"), str(REPO / "sample_stages" / "gear_pair.usda")
    code, out, err = run(capsys, "audit", a, "--format", "json", b)
    expected_code, expected, _ = run(capsys, "audit", a, b, "--format", "json")
    assert code == expected_code and json.loads(out) == json.loads(expected), err
    assert json.loads(out)["summary"]["stages"] == 2
    for argv in (["audit", a, "--bogus", b], ["walk", a, b]):
        with pytest.raises(SystemExit) as exit_info:
            main(argv)
        assert exit_info.value.code == 2
        assert "unrecognized arguments" in capsys.readouterr().err
