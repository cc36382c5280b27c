"""The first compile on two cores (usdjoints/sim/precompile.py).

Oracles: numba's own compile events in a fresh process with an empty cache (no kernel compiled
ahead is compiled twice there, and some were compiled by the second process only) and in a
second process on the cache it filled (nothing compiled, none of numba's lowering modules
imported, and a new kernel calling a loaded one still compiles),
the types numba compiles the kernels for when nothing runs ahead (the recorded signatures must
be those), and the same simulation run in this process (the trajectory is bit for bit the same).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from usdjoints.model.build import load_model
from usdjoints.sim import api, precompile

REPO = Path(__file__).resolve().parents[2]
STAGE = REPO / "sample_stages" / "arm_articulation.usda"

CHILD = r"""
import json, sys
import numpy as np
from numba.core import event
compiled = []
class Recorder(event.Listener):
    def on_start(self, ev):
        pass
    def on_end(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__qualname__)
event.register("numba:compile", Recorder())
from usdjoints.model.build import load_model
from usdjoints.sim import api
trajectory = api.simulate(load_model(sys.argv[1]), 0.05, 1e-3)
np.save(sys.argv[2], trajectory.q)
print(json.dumps(compiled))
"""


def test_recorded_signatures_are_the_step_loops():
    done = subprocess.run([sys.executable, str(REPO / "tools" / "record_kernel_signatures.py"), "--check"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr


WARM_CHILD = CHILD + r"""
print(json.dumps(sorted(m for m in ("numba.typed.typeddict", "numba.np.random.generator_core", "numba.np.npdatetime")
                        if m in sys.modules)))
import numba
from usdjoints.sim.kernels.contact import BOX, max_contacts
@numba.njit
def uses_both(col_type, pairs, a):
    return max_contacts(col_type, pairs) + np.sqrt(np.sum(a * a))
print(json.dumps(uses_both(np.array([BOX, BOX]), np.array([[0, 1]]), np.array([3.0, 4.0]))))
"""


@pytest.fixture(scope="module")
def cold_run(tmp_path_factory):
    """(numba cache folder, trajectory file, kernels compiled) of the sample arm's first run."""
    folder = tmp_path_factory.mktemp("cold")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(folder / "cache")}
    done = subprocess.run([sys.executable, "-c", CHILD, str(STAGE), str(folder / "q.npy")], capture_output=True,
                          text=True, timeout=600, env=env, cwd=REPO, check=True)
    return folder / "cache", folder / "q.npy", json.loads(done.stdout.strip().splitlines()[-1])


def test_the_kernels_compiled_ahead_are_shared_between_the_two_processes(cold_run):
    cache, q_file, compiled = cold_run
    ahead = [key.split(":")[1] for key in precompile.AHEAD]
    here = [name for name in ahead if name in compiled]
    assert here and len(here) < len(ahead), compiled  # each process took some (the sample arm has contact)
    for name in ahead:  # none compiled twice here: the step loop's compile and entry.resolve found them cached
        assert compiled.count(name) <= 1, (name, compiled)
    trajectory = api.simulate(load_model(str(STAGE)), 0.05, 1e-3).q
    assert np.array_equal(np.load(q_file), trajectory)


def test_a_warm_run_loads_every_kernel_without_numbas_lowering_modules(cold_run, tmp_path):
    cache, q_file, _ = cold_run
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-c", WARM_CHILD, str(STAGE), str(tmp_path / "q.npy")],
                          capture_output=True, text=True, timeout=600, env=env, cwd=REPO, check=True)
    compiled, lowering, total = (json.loads(line) for line in done.stdout.strip().splitlines()[-3:])
    assert compiled == [], compiled  # every kernel loaded from the cache
    assert lowering == [], lowering  # loaded with numba's runtime alone (kernels/__init__.py)
    assert total == 16 + 5.0  # two boxes' room, and a compile after those loads refreshes numba itself
    assert np.array_equal(np.load(tmp_path / "q.npy"), np.load(q_file))


def test_the_second_process_imports_this_usdjoints_whatever_the_working_directory(tmp_path):
    """Started from a folder holding another usdjoints (a source checkout beside an installed
    one), the second process still imports this one, from the same path: numba names its cache
    folders after the source files' paths, so another copy's kernels would be compiled into
    folders the step loop never reads."""
    decoy = tmp_path / "usdjoints"
    (decoy / "sim").mkdir(parents=True)
    (decoy / "__init__.py").write_text("raise ImportError('the decoy usdjoints was imported')\n")
    (decoy / "sim" / "__init__.py").write_text("")
    (decoy / "sim" / "precompile.py").write_text("raise ImportError('the decoy precompile was imported')\n")
    command = precompile.helper_command()
    command[2] = command[2].replace("sys.exit(main())", "import usdjoints.sim.precompile as p; print(p.__file__)")
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=tmp_path, check=True)
    assert done.stdout.strip() == os.path.abspath(precompile.__file__)
