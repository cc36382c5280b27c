"""The first compile of the simulator on two cores.

A cold ``simulate`` compiles the step loop (``integrate.simulate_envs``) and the large kernels it
calls through their addresses (kernels/entry.py): the dynamics, the limit solve and, with
contact, the contact detection and solve. None of these compiles needs another's code, so when
numba's cache does not hold the step loop for this model's types, this process and a second one
share them: each takes the next kernel of one list, longest first, that the other has not taken
(a file created exclusively in a shared folder claims it), compiles it into numba's cache and
goes on. Then this process loads them all from the cache. The trajectory is the same either
way: the same code, compiled once.

The step loop's own types are exact (this process passes them to the other, pickled). The
argument types it passes to its callees are recorded in ``kernel_signatures.json`` by
``tools/record_kernel_signatures.py`` (tests/sim/test_precompile.py fails when they drift). The
constraint row count ``m_eq`` is a literal 0 on models without couplings or loops (numba prunes
their rows) and an int64 otherwise; the limit solve's equality rows ``G`` are then None (its
variant for rows of the dofs alone leaves the general solve out) and an array otherwise.
Anything that goes wrong here only loses the head start: ``entry.resolve`` compiles whatever is
left, for the exact types.
"""
from __future__ import annotations

import importlib
import inspect
import json
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SIGNATURES = Path(__file__).with_name("kernel_signatures.json")
STEP_LOOP = "integrate:simulate_envs"
#: the kernels compiled ahead, longest first (seconds of their first compile for the driven
#: panda arm on this project's 2-core machine in the comments), each with the part of the model
#: that has the step loop call it ("always", "euler", "contact", "limits" or "contact+limits").
#: The step loop's own compile includes that of the small kernels it calls directly.
AHEAD = {STEP_LOOP: "always",  # 6.4
         "contact_solve:solve_contacts": "contact",  # 6.6
         "integrate:acceleration": "euler",  # 5.8
         "contact:detect_contacts": "contact",  # 3.4
         "integrate:_limit_correction": "limits",  # 2.5
         "limits:limit_impulses": "limits",  # 1.5
         "limits:hold_push": "contact+limits",
         "contact_solve:solve_workspace": "contact", "configuration:tied_roots": "limits",
         "contact:detect_workspace": "contact", "contact:collider_world_poses": "contact",
         "configuration:world_frame_velocity": "euler", "fk:body_world_poses": "always",
         "configuration:integrate_configuration": "always", "fk:link_world_poses": "always"}
HELPER_TIMEOUT_S = 600.0
ENABLED = True  # tools/record_kernel_signatures.py turns it off to see the step loop's own types


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
    # G: like Y with rows, else None
    if key in ("limits:limit_impulses", "limits:hold_push", "contact_solve:solve_contacts"):
        args[parameters.index("G")] = args[parameters.index("Y")] if constraints else types.none
    if limits is not None:
        for name, value in (("distances", limits[1]), ("drives", limits[2])):
            if name in parameters:
                args[parameters.index(name)] = typeof(value)
    return tuple(args)


def before_first_compile(step_loop, args, *, constraints: bool, limits, euler: bool, contact: bool) -> None:
    """Compile the step loop for ``args`` (its arguments, as the run passes them) and the kernels
    it calls in two processes (module docstring), unless numba's cache holds it already.
    ``limits``: the step loop's limit rows (PackedModel.limit_args(), with writable arrays), or
    None."""
    if not ENABLED:
        return
    try:
        signature = tuple(step_loop.typeof_pyval(a) for a in args)
        if _cached(step_loop, signature):
            return
        recorded = json.loads(SIGNATURES.read_text())["kernels"]
        needed = {"always": True, "euler": euler, "limits": limits is not None, "contact": contact,
                  "contact+limits": contact and limits is not None}
        jobs = []
        for key, part in AHEAD.items():
            if needed[part]:
                jobs.append((key, signature if key == STEP_LOOP else _signature(key, recorded, constraints, limits)))
        folder = tempfile.mkdtemp(prefix="usdjoints-compile-")
    except (OSError, ValueError, KeyError, SyntaxError, TypeError, NameError):
        return
    try:
        helper = subprocess.Popen(helper_command(), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        try:
            helper.stdin.write(pickle.dumps((folder, jobs)))
            helper.stdin.close()
        except OSError:
            pass
    except OSError:
        shutil.rmtree(folder, ignore_errors=True)
        return
    try:
        _work(folder, jobs)
        helper.wait(timeout=HELPER_TIMEOUT_S)
    except BaseException:  # an interrupt, or a helper that hangs: do not leave it running
        helper.kill()
        helper.wait()
        if not isinstance(sys.exc_info()[1], subprocess.TimeoutExpired):
            raise
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _cached(dispatcher, signature) -> bool:
    """Whether ``dispatcher`` is compiled for ``signature`` in this process or in numba's cache,
    or cannot be cached at all (then a second process cannot help)."""
    if signature in dispatcher.overloads:
        return True
    cache = getattr(dispatcher, "_cache", None)
    try:
        index = Path(cache._cache_file._index_path)
        key = cache._index_key(signature, dispatcher.targetctx.codegen())
    except AttributeError:
        return True
    if index.exists():
        return key in cache._cache_file._load_index()
    folder = index.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return not os.access(folder, os.W_OK)


def _work(folder: str, jobs) -> None:
    """Compile each job (kernel key, argument types) that no other process has claimed."""
    for number, (key, signature) in enumerate(jobs):
        try:
            claim = os.open(os.path.join(folder, str(number)), os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            continue
        except OSError:  # the folder is gone: this process was told to stop
            return
        os.close(claim)
        try:
            _kernel(key).compile(signature)
        except Exception:  # noqa: BLE001  a drifted record: entry.resolve compiles the right one
            pass


def helper_command() -> list[str]:
    """The second process's command line (it reads its jobs, pickled, on stdin). It imports this
    very usdjoints, from the folder this process imported it from (not resolved: numba names its
    cache folders after the source files' paths), ahead of the working directory, which
    ``python -c`` and ``-m`` put first on the path: started from a source checkout beside an
    installed usdjoints, the child compiled the checkout's kernels into cache folders this
    process never read (the installed `usdjoints simulate` of the sample arm, run from the
    repository: cold 40-44 s instead of 28-30 s)."""
    root = str(Path(os.path.abspath(__file__)).parents[2])
    boot = (f"import sys; sys.path.insert(0, {root!r}); from usdjoints.sim.precompile import main; "
            "sys.exit(main())")
    return [sys.executable, "-c", boot]


def main() -> int:
    """The second process: (claims folder, jobs), pickled, on stdin."""
    folder, jobs = pickle.loads(sys.stdin.buffer.read())
    _work(folder, jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
