"""The first compile of the simulator on two cores: the contact kernels in a second process.

A cold ``simulate`` of a model with contact spends about a third of its compile in the contact
detection and solve (measured on the sample arm: 6.3 of 19 s). Those kernels do not depend on
the rest, so when numba's cache holds neither, a second process compiles them (with the other
kernels only contact needs) into the cache while this one compiles the dynamics, limit and
configuration kernels the step loop calls; the step loop's compile then finds them all in the
cache and compiles only itself. The trajectory is the same either way: the same code, compiled
once. Measured on the sample arm, back to back on a quiet 2-core machine: cold 40-44 s wall with
every kernel the step loop calls compiled ahead, 45-47 s with only the contact detection and
solve and the dynamics and limit kernels ahead. The halves are uneven (18 s and 29 s, each
alone) because the kernels this process compiles share their helpers: moving the dynamics to the
second process made it 32 s and this one 23 s.

The argument types the step loop passes are recorded in ``kernel_signatures.json`` by
``tools/record_kernel_signatures.py`` (tests/sim/test_precompile.py fails when they drift). The
constraint row count ``m_eq`` is a literal 0 on models without couplings or loops (numba prunes
their rows) and an int64 otherwise; the limit solve's equality rows ``G`` are then None (its
variant for rows of the dofs alone leaves the general solve out) and an array otherwise. Anything that goes wrong here only loses the head start:
the step loop's compile does whatever is left.
"""
from __future__ import annotations

import importlib
import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

SIGNATURES = Path(__file__).with_name("kernel_signatures.json")
#: kernels the second process compiles, and kernels this one compiles meanwhile, each with the
#: part of the model that has the step loop call it ("always", "euler" or "limits"): the step
#: loop's own compile then finds every kernel it calls in the cache and compiles only itself
HELPER_KERNELS = ("contact:detect_contacts", "contact_solve:solve_contacts", "contact:max_contacts",
                  "contact:collider_world_poses", "contact:bounding_radii", "contact:detect_workspace",
                  "contact_solve:solve_workspace")
HERE_KERNELS = {"integrate:acceleration": "euler", "limits:limit_impulses": "limits",
                "integrate:_limit_correction": "limits", "configuration:tied_roots": "limits",
                "limits:has_free_root": "limits", "configuration:integrate_configuration": "always",
                "configuration:world_frame_velocity": "euler", "configuration:lone_free_bodies": "always",
                "integrate:failing_dof": "always", "integrate:allocate_workspace": "always",
                "world_dynamics:allocate_world_workspace": "always", "fk:link_transforms": "always",
                "fk:link_world_poses": "always", "fk:body_world_poses": "always",
                "limits:cap_correction": "always", "limits:transport_velocity": "always"}
HELPER_TIMEOUT_S = 600.0
ENABLED = True  # tools/record_kernel_signatures.py turns it off to see the step loop's own types

_done = False


def _kernel(key: str):
    module, name = key.split(":")
    return getattr(importlib.import_module(f"usdjoints.sim.kernels.{module}"), name)


def _signature(key: str, recorded: dict, constraints: bool, limits=None):
    """The numba argument types of kernel ``key`` as the step loop passes them; ``limits`` the
    step loop's limit rows (PackedModel.limit_args()), whose bound rows and drives, or Nones,
    type limit_impulses' own arguments of those names."""
    from numba import typeof
    from numba.core import types

    names = {name: getattr(types, name) for name in dir(types) if not name.startswith("_")}
    text = recorded[key].replace("Literal[int](", "literal(")
    args = list(eval(text, {"__builtins__": {}, "literal": types.literal, **names}))  # numba's own reprs
    parameters = list(inspect.signature(_kernel(key).py_func).parameters)
    if "m_eq" in parameters:
        args[parameters.index("m_eq")] = types.int64 if constraints else types.literal(0)
    if key in ("limits:limit_impulses", "contact_solve:solve_contacts"):  # G: like Y with rows, else None
        args[parameters.index("G")] = args[parameters.index("Y")] if constraints else types.none
    if limits is not None:
        for name, value in (("distances", limits[1]), ("drives", limits[2])):
            if name in parameters:
                args[parameters.index(name)] = typeof(value)
    return tuple(args)


def _cached(key: str) -> bool:
    """Whether numba's cache holds an index for the kernel (it was compiled on this cache before),
    or the kernel cannot be cached at all (then a second process cannot help)."""
    cache = getattr(_kernel(key), "_cache", None)
    try:
        index = Path(cache._cache_file._index_path)
    except AttributeError:
        return True
    if index.exists():
        return True
    folder = index.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return not os.access(folder, os.W_OK)


def before_first_compile(*, contact: bool, constraints: bool, limits, euler: bool) -> None:
    """Compile the contact kernels in a second process and the dynamics kernels here, when the
    model has contact and numba's cache holds neither contact kernel; once per process.
    ``limits``: the step loop's limit rows (PackedModel.limit_args(), with writable arrays), or
    None."""
    global _done
    if _done or not ENABLED or not contact:
        return
    _done = True
    needed = {"always": True, "euler": euler, "limits": limits is not None}
    try:
        if all(_cached(key) for key in HELPER_KERNELS):
            return
        recorded = json.loads(SIGNATURES.read_text())["kernels"]
        helper = subprocess.Popen(helper_command(constraints), stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except (OSError, ValueError, KeyError):
        return
    try:
        here = [key for key, part in HERE_KERNELS.items() if needed[part]]
        for key in here:
            try:
                _kernel(key).compile(_signature(key, recorded, constraints, limits))
            except Exception:  # noqa: BLE001  a drifted record: the step loop compiles it
                pass
        helper.wait(timeout=HELPER_TIMEOUT_S)
    except BaseException:  # an interrupt, or a helper that hangs: do not leave it running
        helper.kill()
        helper.wait()
        if not isinstance(sys.exc_info()[1], subprocess.TimeoutExpired):
            raise


def helper_command(constraints: bool) -> list[str]:
    """The second process's command line. It imports this very usdjoints, from the folder this
    process imported it from (not resolved: numba names its cache folders after the source
    files' paths), ahead of the working directory, which ``python -c`` and ``-m`` put first on
    the path: started from a source checkout beside an installed usdjoints, the child compiled
    the checkout's kernels into cache folders this process never read (the installed `usdjoints
    simulate` of the sample arm, run from the repository: cold 40-44 s instead of 28-30 s)."""
    root = str(Path(os.path.abspath(__file__)).parents[2])
    boot = (f"import sys; sys.path.insert(0, {root!r}); from usdjoints.sim.precompile import main; "
            "sys.exit(main(sys.argv[1:]))")
    return [sys.executable, "-c", boot, "1" if constraints else "0"]


def main(argv: list[str]) -> int:
    """The second process: argv is ["1"] for a model with couplings or loops, else ["0"]."""
    return _helper(argv[:1] == ["1"])


def _helper(constraints: bool) -> int:
    recorded = json.loads(SIGNATURES.read_text())["kernels"]
    for key in HELPER_KERNELS:
        _kernel(key).compile(_signature(key, recorded, constraints))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
