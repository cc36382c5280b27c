"""simulate(progress=...): a run taken in pieces gives the run taken whole.

Oracle: the one-piece run of the same model. A step reads nothing but (q, qd), so pieces that go
on from the recorded state reproduce it bit for bit on a tree; with loops or couplings each piece
re-projects its already projected start state (round-off).
"""
from __future__ import annotations

import numpy as np
import pytest

from samples import REPO
from test_passive_and_drives import Drive, _rotor
from usdjoints.errors import SimulationError
from usdjoints.model.build import load_model
from usdjoints.sim import api


@pytest.fixture
def small_pieces(monkeypatch):
    monkeypatch.setattr(api, "PROGRESS_SEGMENT_ENV_STEPS", 10)  # a piece per few steps


@pytest.mark.parametrize("n_envs, duration, record_every", [(1, 0.5, 7), (3, 0.2, 1), (40, 0.1, 16)])
def test_pieces_equal_one_run(small_pieces, n_envs, duration, record_every):
    model = load_model(REPO / "sample_stages" / "arm_articulation.usda")
    whole = api.simulate(model, duration, 1e-3, n_envs=n_envs, record_every=record_every)
    seen = []
    pieces = api.simulate(model, duration, 1e-3, n_envs=n_envs, record_every=record_every, progress=seen.append)
    assert len(seen) > 1
    assert seen == sorted(seen) and seen[-1] == 1.0
    np.testing.assert_array_equal(pieces.t, whole.t)
    np.testing.assert_array_equal(pieces.q, whole.q)
    np.testing.assert_array_equal(pieces.qd, whole.qd)
    np.testing.assert_array_equal(pieces.body_poses, whole.body_poses)


def test_pieces_on_a_loop_differ_by_round_off(small_pieces):
    """Tolerance 1e-12: the re-projection of a start state that already meets the loop."""
    model = load_model(REPO / "sample_stages" / "four_bar_loop.usda")
    whole = api.simulate(model, 0.5, 1e-3, record_every=5)
    pieces = api.simulate(model, 0.5, 1e-3, record_every=5, progress=lambda fraction: None)
    np.testing.assert_allclose(pieces.q, whole.q, rtol=0, atol=1e-12)


def test_divergence_time_counts_from_the_start_of_the_run(small_pieces):
    """The failing step of a later piece is reported in the run's time, as without pieces: an
    undamped drive at w dt = 2.846, just past explicit RK4's bound (2.83), grows for tens of steps
    (pieces here are 25 steps) before it passes the divergence speed (ten times the drive's own
    w |target - q0|)."""
    model = _rotor(inertia=1e-3, drive=Drive(stiffness=8100.0, damping=0.0, target_position=0.5))
    messages = []
    for progress in (None, lambda fraction: None):
        with pytest.raises(SimulationError) as error:
            api.simulate(model, 1.0, 1e-3, integrator="rk4", progress=progress)
        messages.append(str(error.value))
    assert "diverged at t = 0.056 s" in messages[0]  # step 56: in the third piece
    assert messages[0] == messages[1]
