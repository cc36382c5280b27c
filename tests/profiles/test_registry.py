"""The profile registry is the one list of consumers, and the walker asks no consumer by name.

Oracles: the package's own source (no consumer-name comparison outside usdjoints/profiles), the
command line's parser (its --consumer choices), and closed-form unit conversions.
"""
from __future__ import annotations

import math
import pathlib
import re

import pytest

from usdjoints.errors import UsageError
from usdjoints.profiles import NAMES, PROFILES, profile

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "usdjoints"


def test_no_consumer_name_branch_outside_the_profiles():
    pattern = re.compile(r"consumer\s*==")
    hits = []
    for path in PACKAGE.rglob("*.py"):
        if "profiles" in path.relative_to(PACKAGE).parts:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line):
                hits.append(f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}")
    assert hits == []


def test_every_name_has_its_profile():
    assert tuple(PROFILES) == NAMES
    for name in NAMES:
        assert PROFILES[name].name == name


def test_unknown_consumer_is_a_usage_error_naming_the_choices():
    with pytest.raises(UsageError, match="choose one of ovphysx"):
        profile("bullet")


def test_command_line_auditor_and_inspector_offer_the_registry():
    from usdjoints.auditor.engine import resolve_consumers
    from usdjoints.cli import _build_parser
    from usdjoints.usdview.inspect import CONSUMERS as INSPECTED

    parser = _build_parser()
    walk = parser._subparsers._group_actions[0].choices["walk"]
    choices = next(a.choices for a in walk._actions if a.dest == "consumer")
    assert tuple(choices) == NAMES
    assert resolve_consumers(None) == NAMES
    assert INSPECTED == NAMES


def test_a_new_profile_borrows_parser_defaults_and_overrides_some(monkeypatch):
    """The way a new consumer gets its parser defaults without a column in every table."""
    import usdjoints.profiles as registry
    from usdjoints.contract import parser_default
    from usdjoints.profiles.base import Profile

    new = Profile(name="example", title="Example", description="a consumer under test",
                  parser_defaults_from="ovphysx",
                  parser_default_overrides={("PhysicsRevoluteJoint", "physics:upperLimit"): 45.0})
    monkeypatch.setattr(registry, "_MODULES", {**registry._MODULES, "example": "example"})
    monkeypatch.setitem(registry.PROFILES._loaded, "example", new)
    for column in ("physics:lowerLimit", "physics:jointEnabled"):
        assert parser_default("example", "PhysicsRevoluteJoint", column) == \
            parser_default("ovphysx", "PhysicsRevoluteJoint", column)
    assert parser_default("example", "PhysicsRevoluteJoint", "physics:upperLimit") == 45.0


@pytest.mark.parametrize("name, degrees, expected", [
    ("ovphysx", 90.0, math.pi / 2),    # PhysX holds angles in radians
    ("usdphysics", 90.0, 90.0),        # the parser keeps USD degrees
    ("usdjoints", 180.0, math.pi),     # the simulator works in radians
])
def test_angle_units(name, degrees, expected):
    assert PROFILES[name].to_consumer_units("angle", degrees) == pytest.approx(expected)


def test_angular_gain_units():
    # a gain per degree is 180/pi times larger per radian
    assert PROFILES["ovphysx"].to_consumer_units("angular_gain", 1.0) == pytest.approx(180.0 / math.pi)
    assert PROFILES["usdphysics"].to_consumer_units("angular_gain", 1.0) == 1.0
