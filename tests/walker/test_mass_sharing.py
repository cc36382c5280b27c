"""The consumers of one scan share each body's resolved mass when they weigh it alike
(walker/massmap.py). Oracle: each consumer's own walk of the same stage, which shares nothing;
the masses must be the same values."""
from __future__ import annotations

import pytest

from samples import SAMPLE_STAGES
from usdjoints.profiles import NAMES
from usdjoints.walker import walk, walk_many

HEAVY = [p for p in SAMPLE_STAGES if "mass" in p.name or "densit" in p.name or "inertia" in p.name] \
    or SAMPLE_STAGES[:10]


@pytest.mark.parametrize("stage", HEAVY + SAMPLE_STAGES[::9], ids=lambda p: p.name)
def test_shared_masses_are_each_consumers_own(stage):
    together = walk_many(str(stage), NAMES)
    for consumer in NAMES:
        alone = walk(str(stage), consumer)
        assert {b.path: alone.mass(b.path) for b in alone.bodies} == \
               {b.path: together[consumer].mass(b.path) for b in together[consumer].bodies}, consumer


def test_consumers_weighing_alike_share_one_resolution():
    """PhysX and the simulator both weigh colliders at their materials' density: one MassDesc."""
    stage = next(p for p in HEAVY if walk(str(p)).bodies)
    both = walk_many(str(stage), ("ovphysx", "usdjoints"))
    body = both["ovphysx"].bodies[0].path
    assert both["ovphysx"].mass(body) is both["usdjoints"].mass(body)
