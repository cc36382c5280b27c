"""The fix layer: divergence rules go silent, inputs stay byte-identical, and no value a consumer
reads changes except the ones the layer pins.

Oracle: re-walking the fixed stage with each consumer (the walker is cross-checked against
OpenUSD's parser in tests/walker) and sha256 of the inputs.
"""
from __future__ import annotations

import hashlib

import pytest

import usdjoints  # noqa: F401
from tests_paths import BAD_STAGES, CLEAN_STAGES, SAMPLES
from usdjoints.auditor import RULE_CLASSES, audit, write_fix_layer
from usdjoints.auditor.rule import same_value
from usdjoints.contract.types import CONSUMERS
from usdjoints.walker import walk

PINNED_RULES = {cls.id for cls in RULE_CLASSES if cls.pinned_by_fix_layer}


def _inputs():
    return list(BAD_STAGES) + list(CLEAN_STAGES) + list(SAMPLES)


def _sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def fixed(bad_dir, tmp_path_factory):
    out_dir = tmp_path_factory.mktemp("fixed")
    results = {}
    for path in _inputs():
        before = _sha(path)
        out = out_dir / path.name
        result = write_fix_layer(path, str(out))
        results[path] = (out, result, before)
    return results


def test_inputs_are_unchanged(fixed):
    for path, (_, _, before) in fixed.items():
        assert _sha(path) == before, path


def test_divergence_rules_go_silent(fixed):
    for path, (out, result, _) in fixed.items():
        left = [f.rule for f in audit(out).findings if f.rule in PINNED_RULES]
        assert left == [], (path.name, left)


def test_fix_pins_producer_values_and_changes_nothing_else(fixed):
    """Every column of every joint reads the same before and after, for every consumer, except the
    pinned ones, which now read the producer value (what USD population writes)."""
    for path, (out, result, _) in fixed.items():
        pinned = {(p.prim, p.name): p.value for p in result.pinned if p.prim}
        for consumer in CONSUMERS:
            before, after = walk(str(path), consumer), walk(str(out), consumer)
            assert [j.path for j in before.joints] == [j.path for j in after.joints]
            for old, new in zip(before.joints, after.joints):
                for name, resolved in old.columns.items():
                    if (old.path, name) in pinned:
                        value = pinned[(old.path, name)]
                        if isinstance(value, tuple) and value and isinstance(value[0], str):
                            value = value[0]  # a relationship: consumers read its first target
                        assert new.columns[name].value == value
                        assert new.columns[name].authored
                    else:
                        assert same_value(new.columns[name].value, resolved.value), \
                            (path.name, consumer, old.path, name)

def test_fix_copies_misspelt_gear_relationships(fixed, bad_dir):
    out, result, _ = fixed[bad_dir / "coupling-misspelt-relationship.usda"]
    gear = walk(str(out)).joint("/World/G")
    assert (gear.coupling.hinge0, gear.coupling.hinge1) == ("/World/H0", "/World/H1")
    report = audit(out)
    assert not report.by_rule("coupling-missing-relationship")
    assert not report.by_rule("coupling-misspelt-relationship")


def test_fix_refuses_to_overwrite_its_input(bad_dir):
    from usdjoints.errors import UsageError

    path = bad_dir / "default-joint-limits.usda"
    with pytest.raises(UsageError):
        write_fix_layer(path, str(path))
