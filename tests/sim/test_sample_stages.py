"""sample_stages/sim holds exactly what tests/sim_stages.py writes: the closed-form and bad-input
tests read those files, with the parameters kept beside their builders.

Oracle: the builders' text (a file edited by hand, or a parameter changed without writing the
stages again with `python tests/sim_stages.py`, fails here).
"""
import pytest

import sim_stages


@pytest.mark.parametrize("name", sorted(sim_stages.STAGES))
def test_sample_stage_is_written_by_its_builder(name):
    assert sim_stages.path(name).read_text() == sim_stages.STAGES[name]()


def test_no_stray_sample_stage():
    written = {f"{name}.usda" for name in sim_stages.STAGES}
    assert {p.name for p in sim_stages.FOLDER.glob("*.usda")} == written
