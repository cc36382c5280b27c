"""A run that needs more memory than the machine has is refused before anything is allocated,
in one line saying what the memory is for (a long recording, or a model too large for the
step's dense matrices), instead of a MemoryError from numpy or numba.

Oracle: the arrays a small run really returns (their bytes are the trajectory's closed form),
and the machine's own page count.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from samples import REPO
from usdjoints.errors import UsageError
from usdjoints.model.build import load_model
from usdjoints.sim import api, memory

ARM = REPO / "sample_stages" / "arm_articulation.usda"


def test_the_trajectory_estimate_is_what_a_run_allocates():
    model = load_model(str(ARM), contact=False)
    run = api.simulate(model, 0.01, 0.001, n_envs=3)
    trajectory, _ = memory.run_memory(model, api.pack(model), 3, len(run.t))
    starts = 3 * 8 * (model.nq + model.nv)  # the start states q0 and qd0 of each env
    assert trajectory == run.q.nbytes + run.qd.nbytes + run.body_poses.nbytes + starts


def test_a_recording_larger_than_the_machine_is_refused():
    model = load_model(str(ARM), contact=False)
    have = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    states = int(have / (8 * (model.nq + model.nv + 7 * model.nbody))) + 1  # one state more than fits
    with pytest.raises(UsageError, match="recording .* state.* more than this machine"):
        api.simulate(model, states * 1e-3, 1e-3)


def test_dense_matrices_larger_than_the_machine_are_refused(monkeypatch):
    """The step's nv x nv matrices: a long chain asks for them before its first step."""
    model = load_model(str(ARM), contact=False)
    pm = api.pack(model)
    trajectory, workspace = memory.run_memory(model, pm, 1, 11)
    assert workspace >= 8 * pm.nv ** 2
    monkeypatch.setattr(memory, "_machine_memory", lambda: (trajectory + workspace) * 0.999)
    monkeypatch.setattr(memory, "run_memory", lambda *a: (trajectory, workspace * 1e6))
    with pytest.raises(UsageError, match=f"{pm.nv} dofs need .* dense"):
        api.simulate(model, 0.01, 0.001)


@pytest.mark.parametrize("option", [["--duration", "1e9"], ["--envs", "1000000000"]])
def test_the_command_line_says_it_in_one_line(option, tmp_path):
    """Refused before any kernel is compiled: with an empty numba cache, no compile notice."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "usdjoints", "simulate", str(ARM), *option],
                          capture_output=True, text=True, timeout=120, cwd=REPO, env=env)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and "more than this machine" in lines[0], done.stderr
    assert "internal error" not in done.stderr
    assert done.stdout == ""  # refused before the run: nothing simulated, nothing printed


def test_check_run_counts_what_simulate_records():
    """check_run's (steps, states) are the run's: simulate records that many states."""
    model = load_model(str(ARM), contact=False)
    steps, states = api.check_run(model, 0.05, 0.001, n_envs=2, record_every=5)
    run = api.simulate(model, 0.05, 0.001, n_envs=2, record_every=5)
    assert (steps, states) == (50, 11) and run.q.shape[1] == states
    with pytest.raises(UsageError, match="n_envs"):
        api.check_run(model, 0.05, 0.001, n_envs=2.5)
