"""`usdjoints walk S --consumer newton --format json` against Newton 1.8's finalized model.

Oracle: Newton itself (``ModelBuilder().add_usd(S)`` then ``finalize(device="cpu")``, run by
newton_probe.py in a child process). On every stage, each joint Newton builds (labelled by its prim
path in ``joint_label``) must have the walker's type, parent, child, enabled flag, dof count and,
per dof, limits, target gains, effort and velocity limits, armature and friction, after converting
degrees and per-degree gains to Newton's radians; Newton's synthetic free joints must be the walk's
``synthetic_joints``; and a stage Newton refuses must carry an error diagnostic. Stages: the sample
stages, one generated stage per rule (newton_stages.py), robots written by urdf-usd-converter and
mujoco-usd-converter (tests/data/converted_usd, see its MANIFEST.tsv), and example-robot-data
robots with meshes converted afresh when urdf-usd-converter's own environment exists. Skipped when Newton is not installed (the
`oracle-newton` extra).
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sysconfig
from pathlib import Path

import pytest

from newton_compare import compare
from newton_runner import newton_available, run_newton_probe

pytestmark = [pytest.mark.oracle, pytest.mark.skipif(not newton_available(), reason="newton is not installed "
                                                     "(pip install usdjoints[oracle-newton])")]

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = sorted((ROOT / "sample_stages").glob("**/*.usda"))
CONVERTED = sorted((ROOT / "tests" / "data" / "converted_usd").glob("*.usd*"))
# Converters live in their own environments: they bundle a pxr of their own (never beside usd-core).
URDF_CONVERTER = Path(os.environ.get("USDJOINTS_URDF_USD_CONVERTER", "/work/venvs/uuc/bin/urdf_usd_converter"))
# example-robot-data robots with meshes (too large to keep converted in the repository)
ROBOTS = ("ur_description/urdf/ur5_robot.urdf", "panda_description/urdf/panda.urdf", "z1_description/urdf/z1.urdf",
          "a1_description/urdf/a1.urdf", "asr_twodof_description/urdf/TwoDofs.urdf",
          "double_pendulum_description/urdf/double_pendulum.urdf")


def walk_json(stage: Path) -> dict:
    from usdjoints.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["walk", str(stage), "--consumer", "newton", "--format", "json"])
    assert code == 0, f"walk exited {code} on {stage}"
    return json.loads(out.getvalue())


def check_all(stages) -> tuple[int, int]:
    """Compare every stage; returns (stages, fields compared) and fails listing every mismatch."""
    reports = run_newton_probe(stages)
    fields, failures = 0, []
    for stage in stages:
        result = compare(walk_json(stage), reports[str(stage)])
        fields += result.fields
        failures.extend(f"{Path(stage).name}: {m}" for m in result.mismatches)
    assert not failures, "\n".join(failures[:40])
    return len(stages), fields


@pytest.fixture(scope="module")
def rule_stages(tmp_path_factory):
    from newton_stages import write_all

    return write_all(tmp_path_factory.mktemp("newton_rules"))


def test_sample_stages_read_as_newton_reads_them():
    count, fields = check_all(SAMPLES)
    assert count >= 60 and fields > 300


def test_each_rule_stage_reads_as_newton_reads_it(rule_stages):
    count, fields = check_all(rule_stages)
    assert count == len(rule_stages) and fields > 1000


def test_the_refusing_stages_are_refused_by_newton(rule_stages):
    """The generator's refusal cases still make Newton refuse (else the error check above is idle)."""
    from newton_stages import REFUSED

    by_name = {p.stem: p for p in rule_stages}
    reports = run_newton_probe([by_name[name] for name in REFUSED])
    not_refused = [name for name in REFUSED if not reports[str(by_name[name])]["refused"]]
    assert not not_refused
    for name in REFUSED:
        codes = {d.get("code") for d in walk_json(by_name[name])["diagnostics"] if d["severity"] == "error"}
        assert codes & {"newton-refuses-stage", "same-body"}, name


def test_converted_stages_read_as_newton_reads_them():
    assert len(CONVERTED) >= 20
    count, fields = check_all(CONVERTED)
    assert fields > 5000


@pytest.mark.slow
@pytest.mark.skipif(not URDF_CONVERTER.exists(), reason="urdf-usd-converter's environment is absent")
def test_freshly_converted_robots_with_meshes(tmp_path):
    """example-robot-data robots converted now (their meshes make the stages megabytes)."""
    share = Path(sysconfig.get_paths()["purelib"]) / "cmeel.prefix" / "share"
    if not (share / "example-robot-data").is_dir():
        pytest.skip("example-robot-data is not installed (the oracle extra)")
    stages = []
    for relative in ROBOTS:
        source = share / "example-robot-data" / "robots" / relative
        out = tmp_path / source.stem
        subprocess.run([str(URDF_CONVERTER), "--no-layer-structure", "-p", f"example-robot-data={share}",
                        str(source), str(out)], check=True, capture_output=True, timeout=300)
        stages.extend(sorted(out.glob("*.usd*")))
    assert len(stages) == len(ROBOTS)
    check_all(stages)
