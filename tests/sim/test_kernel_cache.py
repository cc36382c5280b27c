"""numba's cache holds a compiled kernel together with every kernel it calls, so an entry must
not outlive a change to any of them.

Oracle: numba's own cache statistics (dispatcher.stats: a hit loaded the entry, a miss compiled
it). numba keys an entry by its own function's bytecode and its own file's time stamp only: after
an edit of jcalc.py, fk.forward_kinematics (fk.py, which compiles jcalc's joint transforms into
itself) was loaded from the cache with the old jcalc. usdjoints keys every entry by the kernels'
sources as well (kernels/__init__.py). Each run is a fresh process on a copy of the package, with
a cache folder of its own.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from samples import REPO

pytestmark = pytest.mark.slow

CHILD = """
import json, numpy as np
from usdjoints.model.build import load_model
from usdjoints.sim import api
from usdjoints.sim.kernels import fk
model = load_model({stage!r})
api.forward_kinematics(model, np.array(model.q_initial, dtype=float))
stats = fk.forward_kinematics.stats
print(json.dumps([sum(stats.cache_hits.values()), sum(stats.cache_misses.values())]))
"""


def _run(package_parent, cache) -> str:
    """"hit" or "miss": how the child got fk.forward_kinematics."""
    env = dict(os.environ, PYTHONPATH=str(package_parent), NUMBA_CACHE_DIR=str(cache))
    env.pop("NUMBA_DISABLE_JIT", None)
    stage = str(REPO / "sample_stages" / "arm_articulation.usda")
    done = subprocess.run([sys.executable, "-c", CHILD.format(stage=stage)], capture_output=True, text=True,
                          env=env, timeout=600, cwd=str(package_parent))
    assert done.returncode == 0, done.stderr
    hits, misses = json.loads(done.stdout.strip().splitlines()[-1])
    assert hits + misses == 1, (hits, misses)
    return "hit" if hits else "miss"


def test_an_edit_of_a_called_kernel_recompiles_its_callers(tmp_path):
    copy = tmp_path / "pkg"
    shutil.copytree(REPO / "usdjoints", copy / "usdjoints", ignore=shutil.ignore_patterns("__pycache__"))
    cache = tmp_path / "cache"
    assert _run(copy, cache) == "miss"  # an empty cache: compiled
    assert _run(copy, cache) == "hit"   # the same sources: loaded
    jcalc = copy / "usdjoints" / "sim" / "kernels" / "jcalc.py"
    jcalc.write_text(jcalc.read_text() + "\n# an edit of a kernel that fk.forward_kinematics calls\n")
    assert _run(copy, cache) == "miss"  # fk.py is as it was; the kernels it compiles in are not
