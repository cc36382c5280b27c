"""The probe child that reads binary layers calls a file corrupt only when reading it crashes twice.

Oracle: OpenUSD's crate reader on a sound and on a corrupt crate, read in a real child process. A
corrupt crate (tests/data/usd/corrupt_crate_crashes_usd.usdc) crashes the reader on every read; a
sound crate never does, so a child that died from a signal once while reading it was killed from
outside (the kernel's out-of-memory killer, a signal under heavy load), which says nothing about
the file. Here the first child "dies" from SIGKILL before reading (it is not started), and the
second is the real child.
"""
from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from samples import REPO, TESTS
from usdjoints.errors import InputError
from usdjoints.walker import stage_probe

CORRUPT_CRATE = TESTS / "data" / "usd" / "corrupt_crate_crashes_usd.usdc"


@pytest.fixture
def killed_once(monkeypatch):
    """Replace the first probe child by one killed from outside; the calls made, in order."""
    real = stage_probe._run_child
    calls = []

    def run_child(command, env, timeout):
        calls.append(command)
        if len(calls) == 1:
            return -signal.SIGKILL, []
        return real(command, env, timeout)

    monkeypatch.setattr(stage_probe, "_run_child", run_child)
    return calls


def test_a_sound_crate_whose_first_reader_was_killed_is_read_again(tmp_path, killed_once):
    from pxr import Sdf

    crate = tmp_path / "arm.usdc"
    Sdf.Layer.FindOrOpen(str(REPO / "sample_stages" / "arm_articulation.usda")).Export(str(crate))
    stage_probe.probe_layers(str(crate), str(crate))
    assert len(killed_once) == 2


def test_a_corrupt_crate_crashes_the_second_reader_too(killed_once):
    plain = subprocess.run([sys.executable, "-c", "import sys; from pxr import Usd; Usd.Stage.Open(sys.argv[1])",
                            str(CORRUPT_CRATE)], capture_output=True, timeout=60)
    if plain.returncode >= 0:
        pytest.skip(f"this OpenUSD opens the corrupt crate (exit {plain.returncode}): nothing to guard")
    with pytest.raises(InputError, match=r"OpenUSD crashed \(SIG\w+\) reading this binary layer") as raised:
        stage_probe.probe_layers(str(CORRUPT_CRATE), str(CORRUPT_CRATE))
    assert "SIGKILL" not in str(raised.value)  # the second, real reader's signal is the one reported
    assert len(killed_once) == 2
