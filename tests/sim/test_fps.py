"""simulate --fps records at the requested times and at t = duration; the compile notice reaches
a stderr that is not a terminal.

Oracles: the times themselves (k / fps, then duration); the run recorded at every step, whose
states at step times the resampled trajectory must return exactly and between which it blends
linearly; the CLI contract for the notice.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from usdjoints import cli
from usdjoints.model.build import load_model
from usdjoints.sim import api
from usdjoints.sim.trajectory import resample, sample_times

REPO = Path(__file__).resolve().parents[2]
ARM = REPO / "sample_stages" / "arm_articulation.usda"


def test_sample_times():
    times = sample_times(1.0, 60.0)
    assert len(times) == 61 and times[-1] == 1.0
    np.testing.assert_allclose(np.diff(times), 1.0 / 60.0, rtol=1e-12)
    odd = sample_times(0.5005, 60.0)  # duration not on the 60 fps grid: it is added
    assert odd[-1] == 0.5005 and odd[-2] == pytest.approx(30 / 60.0)


def test_plan_records_directly_when_the_period_is_whole_steps():
    assert api.recording_plan(50.0, 1e-3, 1.0, 1) == (20, None)
    every, times = api.recording_plan(60.0, 1e-3, 1.0, 1)
    assert every == 1 and len(times) == 61


def test_resample_returns_step_states_and_blends_between():
    model = load_model(str(ARM))
    full = api.simulate(model, 0.1, 1e-3)
    times = np.array([0.0, 0.0165, 0.05, 0.1])
    out = resample(full, times, api.quaternion_starts(model))
    np.testing.assert_array_equal(out.t, times)
    np.testing.assert_array_equal(out.q[2], full.q[50])
    np.testing.assert_array_equal(out.q[3], full.q[100])
    np.testing.assert_allclose(out.q[1], 0.5 * (full.q[16] + full.q[17]), rtol=0, atol=1e-15)
    np.testing.assert_allclose(out.qd[1], 0.5 * (full.qd[16] + full.qd[17]), rtol=0, atol=1e-15)
    quats = out.body_poses[:, :, 3:]
    np.testing.assert_allclose(np.linalg.norm(quats, axis=-1), 1.0, rtol=0, atol=1e-12)


def test_cli_fps_records_the_requested_times(tmp_path, capsys):
    out = tmp_path / "t.npz"
    assert cli.main(["simulate", str(ARM), "--duration", "0.512", "--fps", "60", "--out", str(out)]) == 0
    capsys.readouterr()
    t = np.load(out)["t"]
    np.testing.assert_allclose(t[:-1], np.arange(31) / 60.0, rtol=0, atol=1e-12)
    assert t[-1] == pytest.approx(0.512, abs=1e-12)


def test_compile_notice_reaches_a_non_terminal_stderr(tmp_path, capsys, monkeypatch):
    """A notice timer of 0 s fires even for a load from the cache: the line must come out on a
    captured (non-terminal) stderr."""
    monkeypatch.setattr(cli, "COMPILE_NOTICE_AFTER", 0.0)
    import time

    real = api.simulate

    def slow(*args, **kwargs):  # give the timer thread its moment before the load ends
        time.sleep(0.2)
        return real(*args, **kwargs)

    monkeypatch.setattr(api, "simulate", slow)
    assert cli.main(["simulate", str(ARM), "--duration", "0.01"]) == 0
    assert "compiling the simulator's kernels" in capsys.readouterr().err


@pytest.mark.parametrize("fps, duration", [(1e300, 1.0), (1e9, 0.01)])
def test_more_samples_than_steps_and_memory_is_a_usage_error(fps, duration):
    """A rate far above the step rate would interpolate more samples than could be held (1e300
    of them raised numpy's ValueError): refused, naming the step rate (1/dt) as the bound."""
    from usdjoints.errors import UsageError

    with pytest.raises(UsageError, match="--fps 1000 or less"):
        api.recording_plan(fps, 1e-3, duration, 1)


def test_a_rate_above_the_step_rate_that_fits_is_interpolated():
    every, times = api.recording_plan(2000.0, 1e-3, 0.01, 1)
    assert every == 1 and len(times) == 21  # 0, 0.5 ms, ..., 10 ms


@pytest.mark.parametrize("fps, dt, duration, every", [(1e-300, 1e-9, 1e-6, 1000), (60.0, 5e-324, 5e-324, 1),
                                                       (0.5, 1e-3, 1.0, 1000)])
def test_a_sample_period_longer_than_the_run_records_its_two_ends(fps, dt, duration, every):
    """1 / fps beyond the duration (even beyond float range in steps, fps dt = 6e-310 or 0): the
    requested times are t = 0 and t = duration, recorded directly."""
    assert api.recording_plan(fps, dt, duration, 1) == (every, None)
