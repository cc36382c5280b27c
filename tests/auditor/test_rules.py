"""Every rule fires on its bad stage at the right prim and attribute, and the clean sample stages
carry no warning or error.

Oracle: each bad stage is written by hand to contain exactly the mistake its rule names (see
bad_stages.py); where a hazard is a parser's behaviour, OpenUSD's parser (via the walker's
usdphysics profile, cross-checked against it in tests/walker) or the PhysX contract decides.
"""
from __future__ import annotations

import pytest

import usdjoints  # noqa: F401
from conftest import EXPECTED
from usdjoints.auditor import RULE_CLASSES, audit
from usdjoints.auditor.findings import SEVERITY_RANK

from tests_paths import CLEAN_SAMPLES


def test_every_rule_has_a_bad_stage(bad_dir):
    assert sorted(EXPECTED) == sorted(cls.id for cls in RULE_CLASSES)
    assert sorted(p.stem for p in bad_dir.glob("*.usda")) == sorted(EXPECTED)


def test_rule_ids_are_kebab_case_and_described():
    for cls in RULE_CLASSES:
        assert cls.id == cls.id.lower() and " " not in cls.id and "_" not in cls.id
        assert cls.description and cls.severity in SEVERITY_RANK and cls.consumers


@pytest.mark.parametrize("rule_id", sorted(EXPECTED))
def test_rule_fires_at_prim_and_attribute(rule_id, bad_dir):
    prim, attribute = EXPECTED[rule_id]
    report = audit(bad_dir / f"{rule_id}.usda")
    hits = [(f.prim, f.attribute) for f in report.by_rule(rule_id)]
    assert (prim, attribute) in hits, f"{rule_id}: {hits}"


@pytest.mark.parametrize("path", CLEAN_SAMPLES, ids=lambda p: p.name)
def test_clean_sample_has_no_warning_or_error(path):
    # The sample stages are written for PhysX and OpenUSD; many hold a standalone joint between two
    # bodies, a stage Newton refuses as a whole (measured). What Newton does with each sample stage
    # is asserted against Newton itself in tests/oracle/test_walk_vs_newton.py.
    report = audit(path, consumers=("ovphysx", "usdphysics", "usdjoints"))
    loud = [(f.rule, f.prim, f.message) for f in report.findings if f.severity != "info"]
    assert loud == []
    assert report.exit_code(strict=True) == 0


def test_locked_hinge_only_inside_an_articulation(bad_dir):
    """PhysX locks a one-sided revolute limit only inside an articulation (FACTS.md, ovphysx 0.7)."""
    standalone = audit(bad_dir / "one-sided-limit.usda")
    assert not standalone.by_rule("locked-hinge")
    disagreement = standalone.by_rule("limit-enable-disagreement")[0]
    assert disagreement.message.endswith("off for usdphysics")  # OpenUSD's AND rule; PhysX and usdjoints: on
    articulated = audit(bad_dir / "locked-hinge.usda")
    assert articulated.by_rule("locked-hinge")[0].severity == "error"
    assert not articulated.by_rule("limit-enable-disagreement")


def test_unauthored_defaults_are_info_and_blocked_ones_warn(bad_dir, tmp_path):
    """A blocked column reads as absent (parser default) for every consumer; unauthored only for
    hand-populated PhysX stages. Oracle: the contract's parser defaults (PhysicsRevoluteJoint.md)."""
    text = (bad_dir / "default-joint-limits.usda").read_text().replace('rel physics:body0', 'float physics:lowerLimit = None\n rel physics:body0')
    path = tmp_path / "blocked.usda"
    path.write_text(text)
    findings = audit(path).by_rule("default-joint-limits")
    by_attribute = {f.attribute: f for f in findings}
    assert by_attribute["physics:lowerLimit"].severity == "warning"
    assert "usdphysics" in by_attribute["physics:lowerLimit"].consumers
    assert by_attribute["physics:upperLimit"].severity == "info"
    assert by_attribute["physics:upperLimit"].consumers == ("ovphysx",)


def test_consumer_restriction(bad_dir):
    report = audit(bad_dir / "locked-hinge.usda", consumers=["usdphysics"])
    assert report.consumers == ("usdphysics",)
    assert not report.by_rule("locked-hinge")  # a PhysX-only hazard
    assert all(f.consumers == ("usdphysics",) for f in report.findings)


def test_audit_never_saves_or_edits_the_stage(bad_dir):
    from pxr import Usd

    stage = Usd.Stage.Open(str(bad_dir / "default-joint-limits.usda"))
    before = stage.GetRootLayer().ExportToString()
    report = audit(stage)
    assert report.stages == (stage.GetRootLayer().realPath,)
    assert not stage.GetRootLayer().dirty
    assert stage.GetRootLayer().ExportToString() == before
