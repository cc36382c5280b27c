"""The child process that reads a stage's binary layers before this process opens it.

A corrupt crate layer can crash OpenUSD itself (SIGSEGV), loop for ever or ask for terabytes,
none of which Python code can catch. :func:`probe_layers` opens the stage and reads every value
in a child process with limits on its CPU time and data memory (:func:`probe_main`); a child that
dies, runs out of time or out of memory becomes one :class:`InputError` line naming the layer it
was reading. stage_io.py calls it before opening a stage that has binary layers.
"""
from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import tempfile

from ..errors import InputError

# A child reading binary layers gets USDJOINTS_PROBE_TIMEOUT seconds of CPU time, once more for
# every PROBE_MB_PER_TIMEOUT MB of the root and the first binary layer (CPU time, so a busy
# machine does not refuse a sound stage; reading takes about 2 s per MB of crate; the wall
# clock allows PROBE_WALL_FACTOR times as much), and USDJOINTS_PROBE_MEMORY_MB megabytes (plus
# PROBE_MEMORY_PER_MB per MB of those layers) of data memory: a damaged crate can declare a
# section of gigabytes, which OpenUSD allocates (and fills, for tens of seconds) before it finds
# the file too short. Under the limit the allocation fails at once and OpenUSD refuses the layer.
PROBE_TIMEOUT = 30.0  # [s of CPU] default of USDJOINTS_PROBE_TIMEOUT
PROBE_MB_PER_TIMEOUT = 3.0
PROBE_WALL_FACTOR = 10.0
PROBE_MEMORY_MB = 2048.0  # [MB] default of USDJOINTS_PROBE_MEMORY_MB
PROBE_MEMORY_PER_MB = 64.0
IN_PROBE = "USDJOINTS_IN_PROBE"


def probe_layers(root: str, shown: str, crate: str | None = None) -> None:
    """Open ``root`` and read every value of its layers in a child process; a crash or a hang
    there becomes one :class:`InputError` line naming the layer being read."""
    # the limits grow with the root layer and the first binary layer found (often a referenced crate)
    size_mb = sum(os.path.getsize(f) for f in {os.path.realpath(root), os.path.realpath(crate or root)}) / 1e6
    cpu_seconds = max(1, math.ceil(_probe_setting("USDJOINTS_PROBE_TIMEOUT", PROBE_TIMEOUT)
                                   * (1.0 + size_mb / PROBE_MB_PER_TIMEOUT)))  # whole seconds, as RLIMIT_CPU counts
    timeout = PROBE_WALL_FACTOR * cpu_seconds + 1.0
    memory_mb = _probe_setting("USDJOINTS_PROBE_MEMORY_MB", PROBE_MEMORY_MB) + PROBE_MEMORY_PER_MB * size_mb
    package = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, **{IN_PROBE: "1"})
    env["PYTHONPATH"] = package + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    command = [sys.executable, "-c", "from usdjoints.walker.stage_probe import probe_main; probe_main()", root,
               repr(memory_mb), repr(cpu_seconds)]
    code, lines = _run_child(command, env, timeout)
    if code is not None and code < 0 and code != -getattr(signal, "SIGXCPU", 0):
        # a crash is read again before the file is called corrupt: a corrupt layer crashes the
        # reader every time, while a child killed from outside (the kernel's out-of-memory
        # killer, a signal under heavy load) says nothing about the file
        code, lines = _run_child(command, env, timeout)
    if code == 0:
        return
    reading = [line[len("reading "):] for line in lines if line.startswith("reading ")]
    layer = reading[-1] if reading else root
    layer = shown if os.path.realpath(layer) == os.path.realpath(root) else layer
    if code == 2 and lines and lines[-1] == "memory":
        raise InputError(layer, f"OpenUSD asked for more than {memory_mb:.0f} MB reading this binary layer; "
                                "the file is likely corrupt", "USDJOINTS_PROBE_MEMORY_MB raises the limit")
    if code == 2 and lines and lines[-1].startswith("error "):
        raise InputError(None, lines[-1][len("error "):])
    if code is None or code == -getattr(signal, "SIGXCPU", 0):
        spent = f"{cpu_seconds} s of CPU time" if code is not None else f"{timeout:.3g} s"
        raise InputError(layer, f"OpenUSD did not finish reading this binary layer in {spent}; "
                                "the file is likely corrupt", "USDJOINTS_PROBE_TIMEOUT raises the limit")
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        raise InputError(layer, f"OpenUSD crashed ({name}) reading this binary layer; the file is corrupt",
                         "re-export it from its source")
    # any other outcome (a bug of usdjoints in the child): this process opens it and reports it


def _run_child(command: list[str], env: dict, timeout: float) -> tuple[int | None, list[str]]:
    """Run the probe child; its exit code (negative: the signal that ended it; None: killed at
    ``timeout`` seconds of wall clock) and the lines it printed."""
    with tempfile.TemporaryFile() as progress:
        child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=progress, stderr=subprocess.DEVNULL,
                                 env=env)
        try:
            code = child.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
            code = None
        except BaseException:
            child.kill()
            child.wait()
            raise
        progress.seek(0)
        lines = progress.read().decode("utf-8", "replace").splitlines()
    return code, lines


def _probe_setting(name: str, default: float) -> float:
    """A positive number of seconds or megabytes from the environment (``default`` when unset)."""
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise InputError(None, f"{name} must be a positive number, got {text[:40]!r}")
    return value


def _limit_cpu(seconds: float) -> None:
    """SIGXCPU after ``seconds`` of CPU time (SIGKILL two seconds later)."""
    try:
        import resource
    except ImportError:  # not a POSIX system: the wall-clock limit alone bounds the probe
        return
    soft = max(1, math.ceil(seconds))
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    try:
        resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 2 if hard == resource.RLIM_INFINITY else hard))
    except (ValueError, OSError):
        pass


def _limit_memory(megabytes: float) -> None:
    """Cap this process's data memory (heap and anonymous mappings) at ``megabytes``."""
    try:
        import resource
    except ImportError:  # not a POSIX system: the time limit alone bounds the probe
        return
    which = getattr(resource, "RLIMIT_DATA", None) if sys.platform.startswith("linux") else None
    which = resource.RLIMIT_AS if which is None else which
    limit = int(megabytes * 1e6)
    _, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    try:
        resource.setrlimit(which, (limit, hard))
    except (ValueError, OSError):
        pass  # below what the process already uses: leave the limit as it is


def probe_main() -> None:
    """The child of :func:`probe_layers`: open the stage, then read every field of every binary layer
    and every authored composed value, printing which layer it is reading. A memory error (the limit of
    ``argv[2]`` MB, set first, with ``argv[3]`` s of CPU time) prints ``memory`` and exits 2."""
    from .stage_io import _file_of, open_stage, refuse_crowded_prim

    path = sys.argv[1]
    if len(sys.argv) > 3:
        _limit_memory(float(sys.argv[2]))
        _limit_cpu(float(sys.argv[3]))
    try:
        stage = open_stage(path, probe=False)
        for layer in stage.GetUsedLayers():
            if layer.anonymous:
                continue
            print(f"reading {_file_of(layer)}", flush=True)
            layer.ExportToString()  # unpacks every field and time sample
        print(f"reading {path}", flush=True)
        # authored properties only: an unauthored one reads the schema's fallback, which no
        # layer holds (the walk reads the same values; half the properties of a converted robot)
        for prim in stage.TraverseAll():
            refuse_crowded_prim(prim)
            for attribute in prim.GetAuthoredAttributes():
                attribute.Get()
            for relationship in prim.GetAuthoredRelationships():
                relationship.GetTargets()
    except InputError as error:
        if "bad_alloc" in str(error):
            print("memory", flush=True)
        else:
            print(f"error {' '.join(str(error).split())}", flush=True)
        sys.exit(2)
    except MemoryError:
        print("memory", flush=True)
        sys.exit(2)
    except Exception as error:  # noqa: BLE001 - the parent opens the stage itself and reports it
        if "bad_alloc" in str(error):  # a Tf.ErrorException reading a value under the limit
            print("memory", flush=True)
            sys.exit(2)
        sys.exit(3)
    sys.exit(0)
