"""Record the argument types the simulator's step loop passes to the kernels that
usdjoints.sim.precompile compiles ahead of it (writes usdjoints/sim/kernel_signatures.json).

Runs ``simulate`` on the sample arm (contact and limits, no couplings or loops) in a fresh process
with an empty numba cache, and keeps the types numba compiled each kernel for.

Usage: python tools/record_kernel_signatures.py [--check]
  --check: compare with the file instead of writing it (exit 1 when they differ)
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "usdjoints" / "sim" / "kernel_signatures.json"
STAGE = REPO / "sample_stages" / "arm_articulation.usda"

CHILD = r"""
import json, sys
from numba.core import event
from usdjoints.sim import precompile
precompile.ENABLED = False
wanted = set(precompile.AHEAD) - {precompile.STEP_LOOP}
found = {}
class Recorder(event.Listener):
    def on_start(self, ev):
        pass
    def on_end(self, ev):
        function = ev.data["dispatcher"].py_func
        key = function.__module__.rsplit(".", 1)[-1] + ":" + function.__qualname__
        if key in wanted:
            found[key] = repr(ev.data["args"])
event.register("numba:compile", Recorder())
from usdjoints.model.build import load_model
from usdjoints.sim import api
api.simulate(load_model(sys.argv[1]), 0.0, 1e-3)
print(json.dumps(found, sort_keys=True))
"""


def record() -> dict:
    import numba

    with tempfile.TemporaryDirectory() as cache:
        done = subprocess.run([sys.executable, "-c", CHILD, str(STAGE)], capture_output=True, text=True, check=True,
                              env={**os.environ, "NUMBA_CACHE_DIR": cache}, cwd=REPO)
    return {"numba": numba.__version__, "stage": STAGE.relative_to(REPO).as_posix(),
            "kernels": json.loads(done.stdout.strip().splitlines()[-1])}


def main(argv: list[str]) -> int:
    recorded = record()
    if argv == ["--check"]:
        shipped = json.loads(OUT.read_text())
        if shipped["kernels"] != recorded["kernels"]:
            print(f"{OUT} is out of date: run python tools/record_kernel_signatures.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
    print(f"{OUT}: {len(recorded['kernels'])} kernels")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
