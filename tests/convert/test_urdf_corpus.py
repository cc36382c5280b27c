"""A corpus of real URDFs from public robot repositories (tests/data/urdf_corpus, see MANIFEST.tsv).

Oracle: pinocchio, whose URDF reader is urdfdom. Each file either

* loads in pinocchio and converts with every link pose equal to pinocchio's at the neutral
  configuration (1e-8; body transforms are doubles), or
* is refused by both: the CLI exits 2 with one line naming file:line, and urdfdom's message
  (captured from its console output) names the same cause (``REFUSED_BY_BOTH``), or
* converts although urdfdom refuses it, for a reason listed in ``URDFDOM_ONLY`` (Drake's and
  Gazebo's files: revolute joints without <limit>, a <limit> without effort, negative efforts).
  These are compared with pinocchio on a copy whose <limit> elements are completed with positive
  effort and velocity: limits do not move links at the neutral configuration.

Meshes are not in the corpus: their warnings are expected, and the poses do not depend on them.
"""
from __future__ import annotations

import csv
from pathlib import Path

import pytest
from lxml import etree

from usdjoints.cli import main
from usdjoints.convert import convert_urdf

from urdf_oracle import pinocchio_link_poses, pose_mismatches, usd_link_poses

CORPUS = Path(__file__).resolve().parents[1] / "data" / "urdf_corpus"
FILES = sorted(p.name for p in CORPUS.glob("*.urdf"))
# file: (words of our one-line error, words of urdfdom's error)
REFUSED_BY_BOTH = {
    "oems__rethink_electric_gripper.urdf": ("parent link 'left_hand', which is not defined",
                                            "parent link [left_hand] of joint [left_gripper_base] not found"),
    "drake_repo__Acrobot.urdf": ("parent link 'world', which is not defined",
                                 "parent link [world] of joint [base_weld] not found"),
}
# file: words of urdfdom's (or pinocchio's) refusal, for files usdjoints converts with a report entry
URDFDOM_ONLY = {
    "drake__robotiq_tendons.urdf": "limit has no effort",
    "drake_repo__cassie_v2.urdf": "does not specify limits",
    "drake_repo__kuka_iiwa_robot.urdf": "does not specify limits",
    "oems__eve_r3.urdf": "min_effort are greater than max_effort",  # pinocchio's check of effort -1
}
EXCLUDED_SOURCES = ("pybullet_data", "unitreerobotics/unitree_ros", "anymal_c", "osrf/gazebo_models")


def _manifest() -> dict[str, dict[str, str]]:
    with open(CORPUS / "MANIFEST.tsv", newline="") as stream:
        rows = [line for line in stream if not line.startswith("#")]
    fields = ("file", "repository", "commit", "path", "license")
    return {row["file"]: row for row in csv.DictReader(rows, fieldnames=fields, delimiter="\t")}


def test_the_corpus_is_described_by_its_manifest():
    manifest = _manifest()
    assert len(FILES) >= 30 and sorted(manifest) == FILES
    for row in manifest.values():
        assert len(row["commit"]) == 40 and row["license"] and row["path"].endswith((".urdf", ".URDF"))
        assert not any(source in f"{row['repository']}/{row['path']}" for source in EXCLUDED_SOURCES)


def _completed_limits(source: Path, target: Path) -> None:
    """The file with each joint's <limit> (added to revolute/prismatic joints without one) given
    positive effort and velocity."""
    tree = etree.parse(str(source))
    for joint in tree.getroot().iter("joint"):
        limit = joint.find("limit")
        if limit is None and joint.get("type") in ("revolute", "prismatic"):
            limit = etree.SubElement(joint, "limit", lower="-1", upper="1")
        if limit is not None:
            for key in ("effort", "velocity"):
                value = float(limit.get(key, "1"))
                limit.set(key, str(abs(value) or 1.0))
    tree.write(str(target))


@pytest.mark.parametrize("name", FILES)
def test_corpus_file_matches_pinocchio_or_is_refused_by_both(tmp_path, capfd, name):
    pytest.importorskip("pinocchio")
    source = CORPUS / name
    out = tmp_path / "out.usda"
    if name in REFUSED_BY_BOTH:
        ours, theirs = REFUSED_BY_BOTH[name]
        with pytest.raises(ValueError):
            pinocchio_link_poses(source)
        assert theirs in capfd.readouterr().err
        assert main(["convert", str(source), "-o", str(out)]) == 2
        lines = capfd.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and f"{source}:" in lines[0] and ours in lines[0], lines
        assert not out.exists()
        return
    report = convert_urdf(source, out)
    oracle_input = source
    if name in URDFDOM_ONLY:
        with pytest.raises(ValueError) as refused:
            pinocchio_link_poses(source)
        assert URDFDOM_ONLY[name] in capfd.readouterr().err + str(refused.value)
        oracle_input = tmp_path / name
        _completed_limits(source, oracle_input)
        assert any(e.kind.value in ("warning", "default") and ("limit" in e.message or "effort" in e.element)
                   for e in report.entries), report.to_text()
    expected = pinocchio_link_poses(oracle_input)
    assert pose_mismatches(expected, usd_link_poses(out)) == []
    assert len(expected) - ("world" in expected) <= len(usd_link_poses(out))
