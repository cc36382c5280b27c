"""Batch audits that survive bad stages, locally and on Dask, with output independent of the executor.

Oracles: the in-process ``audit`` of each good stage on its own (every other stage is audited and
its findings are exactly its own), the kernel's account of the dead worker (``SIGSEGV``), and the
``--jobs 1`` bytes for every other executor.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import usdjoints  # noqa: F401
from faults import RAISES, write_segfaulting_stage
from libraries import copy_library
from schema_check import validate_document
from usdjoints.auditor import audit
from usdjoints.auditor.batch import audit_many, task_size
from usdjoints.auditor.pool import IsolatingProcessPool, WorkerDied
from usdjoints.contract.types import CONSUMERS

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
GOOD = ("lower-above-upper", "dangling-body", "cone-one-angle", "default-coupling-ratio", "mimic-reference")
_CLI = "import sys, faults; from usdjoints.cli import main; sys.exit(main(sys.argv[1:]))"


def _env(**extra) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), str(REPO), env.get("PYTHONPATH", "")])
    env.update(extra)
    return env


def run_cli(*args, timeout=240, **env):
    return subprocess.run([sys.executable, "-c", _CLI, "audit", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env=_env(**env))


@pytest.fixture(scope="module")
def bad_library(tmp_path_factory):
    """Five stages with findings, one whose rule raises, one that segfaults Usd.Stage.Open."""
    root = tmp_path_factory.mktemp("library")
    good = copy_library(root, 1, GOOD)
    raising = root / "c000" / f"{RAISES}.usda"
    raising.write_bytes(good[0].read_bytes())
    crashing = root / "c000" / "segfaults-open.usda"
    write_segfaulting_stage(crashing)
    return root, good, raising, crashing


def test_the_crashing_stage_really_segfaults_openusd(bad_library):
    _, _, _, crashing = bad_library
    done = subprocess.run([sys.executable, "-c", "import sys; from pxr import Usd; Usd.Stage.Open(sys.argv[1])",
                           str(crashing)], capture_output=True, timeout=120)
    assert done.returncode == -signal.SIGSEGV


def _check_isolated(done, good, raising, crashing):
    assert done.returncode == 1, done.stderr  # findings decide; the two failures are reported
    data = json.loads(done.stdout)
    validate_document(data)
    failures = {f["stage"]: f for f in data["failures"]}
    assert set(failures) == {str(raising), str(crashing)}
    assert failures[str(raising)]["kind"] == "error" and "TypeError: must be real number" in failures[str(raising)]["message"]
    assert failures[str(crashing)]["kind"] == "crashed"
    for failure in failures.values():
        assert failure["message"].startswith(failure["stage"])
        assert failure["message"] in done.stderr
    assert data["summary"]["stages"] == len(good) + 2
    expected = [f.as_json() for f in audit(good).findings]
    assert data["findings"] == expected
    return done.stdout


def test_a_raising_and_a_segfaulting_stage_are_reported_locally_and_on_dask(bad_library):
    root, good, raising, crashing = bad_library
    outputs = []
    for options in (["--jobs", "1"], ["--jobs", "2"]):
        outputs.append(_check_isolated(run_cli(root, "--format", "json", *options), good, raising, crashing))
    pytest.importorskip("distributed")
    preload = json.dumps([str(HERE / "faults.py")])
    outputs.append(_check_isolated(run_cli(root, "--format", "json", "--scheduler", "local:2",
                                           DASK_DISTRIBUTED__WORKER__PRELOAD=preload), good, raising, crashing))
    assert outputs[1] == outputs[0] and outputs[2] == outputs[0]


def test_strict_inputs_makes_a_failure_exit_2(bad_library, tmp_path):
    root, good, raising, _ = bad_library
    assert run_cli(raising, good[0], "--format", "json").returncode == 1
    done = run_cli(raising, good[0], "--format", "json", "--strict-inputs")
    assert done.returncode == 2 and json.loads(done.stdout)["failures"][0]["stage"] == str(raising)
    validate_document(json.loads(done.stdout))
    missing = run_cli(tmp_path / "missing.usda")
    assert missing.returncode == 2 and len(missing.stderr.strip().splitlines()) == 1


def test_any_executor_takes_the_same_path(bad_library):
    root, good, raising, _ = bad_library
    paths = [str(p) for p in good] + [str(raising)]
    serial = audit_many(paths, CONSUMERS, progress=False)
    with ThreadPoolExecutor(3) as threads:
        threaded = audit_many(paths, CONSUMERS, progress=False, executor=threads, stages_per_task=2)
    assert threaded == serial
    assert [f.stage for f in serial.failures] == [str(raising)] and serial.failures[0].kind == "error"


def test_results_keep_input_order_whatever_finishes_first(bad_library):
    root, good, _, _ = bad_library
    paths = [str(p) for p in reversed(good)]
    seen = []
    report = audit_many(paths, CONSUMERS, jobs=2, stages_per_task=1, on_progress=lambda d, t: seen.append((d, t)))
    assert report.stages == tuple(paths)
    assert seen[-1] == (len(paths), len(paths)) and [d for d, _ in seen] == sorted(d for d, _ in seen)


def _die_on(value):
    if value == "die":
        os.kill(os.getpid(), signal.SIGSEGV)
    return value * 2


def test_pool_pins_a_death_on_its_task_and_carries_on():
    with IsolatingProcessPool(2) as pool:
        futures = [pool.submit(_die_on, v) for v in ("a", "die", "b", "c", "die", "d")]
        outcomes = [f.exception() or f.result() for f in futures]
    assert [o for o in outcomes if isinstance(o, str)] == ["aa", "bb", "cc", "dd"]
    deaths = [o for o in outcomes if not isinstance(o, str)]
    assert len(deaths) == 2 and all(isinstance(d, WorkerDied) and d.exitcode == -signal.SIGSEGV for d in deaths)
    assert "SIGSEGV" in str(deaths[0])


POOL_KILLED_MID_TASK = """
import os, sys, time
from usdjoints.auditor.pool import IsolatingProcessPool
pool = IsolatingProcessPool(1)
print(pool.submit(os.getpid).result(), flush=True)
pool.submit(time.sleep, 120)
time.sleep(120)
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat_file:
            return stat_file.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_pool_killed_mid_task_leaves_no_worker():
    """SIGKILL (or the out-of-memory killer) on the process that owns the pool, while a worker
    is busy: the worker ends too instead of running on for nobody. Oracle: /proc."""
    pool_owner = subprocess.Popen([sys.executable, "-c", POOL_KILLED_MID_TASK], stdout=subprocess.PIPE, text=True)
    try:
        worker = int(pool_owner.stdout.readline())
        assert worker != pool_owner.pid and _alive(worker)
    finally:
        pool_owner.kill()
        pool_owner.wait()
    for _ in range(100):
        if not _alive(worker):
            break
        time.sleep(0.1)
    else:
        os.kill(worker, signal.SIGKILL)
        pytest.fail("the worker outlived the pool's process")


def test_task_size():
    assert task_size(10, 2) == 2 and task_size(10_000, 2) == 64 and task_size(1, 8) == 1


@pytest.mark.parametrize("argv", [["--scheduler", "not an address"], ["--scheduler", "local:0"],
                                  ["--jobs", "2", "--scheduler", "local:2"], ["--max-results", "-1"]])
def test_batch_usage_errors_are_one_line(argv, bad_library):
    pytest.importorskip("distributed")
    done = run_cli(bad_library[1][0], *argv, timeout=120)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert "Traceback" not in done.stderr and lines[-1].startswith("usdjoints: error:"), done.stderr


@pytest.mark.parametrize("address,words", [("local:99999", "from 1 to 1024"), ("tcp://[::1", "not an address"),
                                           ("", "needs an address"), (" ", "needs an address")])
def test_scheduler_addresses_that_cannot_work_are_one_line_before_any_worker(address, words, bad_library):
    """local:N takes --jobs's bound (each worker a process holding a stage): local:99999 started
    99,999 worker processes (stopped after 60 s, none ready); an address Dask cannot parse ('[::1',
    no closing bracket) was an internal error (ValueError); an empty one (an unset shell variable)
    audited in this process as if no --scheduler were given."""
    pytest.importorskip("distributed")
    done = run_cli(bad_library[1][0], "--scheduler", address, timeout=60)
    assert done.returncode == 2, done
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("usdjoints: error: --scheduler") and words in line, line


def test_an_executor_that_cannot_run_the_task_is_one_clear_error(bad_library):
    from concurrent.futures import Future

    from usdjoints.auditor.batch import BatchError
    from usdjoints.errors import UsdJointsError

    class WorkersWithoutUsdjoints(ThreadPoolExecutor):
        def submit(self, fn, *args):
            future = Future()
            future.set_exception(ModuleNotFoundError("No module named 'usdjoints'"))
            return future

    with WorkersWithoutUsdjoints(1) as executor, pytest.raises(BatchError) as raised:
        audit_many([str(p) for p in bad_library[1]], CONSUMERS, executor=executor, progress=False)
    assert isinstance(raised.value, UsdJointsError) and "No module named 'usdjoints'" in str(raised.value)
