"""The first compile on two cores (usdjoints/sim/precompile.py).

Oracles: numba's own compile events in a fresh process with an empty cache (no kernel compiled
ahead is compiled twice there, and some were compiled by the second process only),
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


def test_the_kernels_compiled_ahead_are_shared_between_the_two_processes(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-c", CHILD, str(STAGE), str(tmp_path / "q.npy")], capture_output=True,
                          text=True, timeout=600, env=env, cwd=REPO, check=True)
    compiled = json.loads(done.stdout.strip().splitlines()[-1])
    ahead = [key.split(":")[1] for key in precompile.AHEAD]
    here = [name for name in ahead if name in compiled]
    assert here and len(here) < len(ahead), compiled  # each process took some (the sample arm has contact)
    for name in ahead:  # none compiled twice here: the step loop's compile and entry.resolve found them cached
        assert compiled.count(name) <= 1, (name, compiled)
    trajectory = api.simulate(load_model(str(STAGE)), 0.05, 1e-3).q
    assert np.array_equal(np.load(tmp_path / "q.npy"), trajectory)


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
