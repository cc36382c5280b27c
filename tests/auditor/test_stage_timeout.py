"""The stage time limit (``--stage-timeout``) and a Dask cluster that has, or keeps, no workers.

Oracles: the in-process ``audit`` of each good stage on its own (every other stage is audited and
its findings are exactly its own); the wall clock (a stage that would loop for ever, or sleep an
hour in one call, ends the run within a bound set by the limit); the kernel's account of the
processes started here (the one worker a segfault killed stays dead: no nanny); the ``--jobs 1``
bytes for every other executor.
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import usdjoints  # noqa: F401
from faults import LOOPS, STUCK, write_segfaulting_stage
from libraries import copy_library
from schema_check import validate_document
from usdjoints.auditor import audit
from usdjoints.auditor.batch import audit_many
from usdjoints.contract.types import CONSUMERS

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
GOOD = ("lower-above-upper", "dangling-body", "cone-one-angle", "default-coupling-ratio", "mimic-reference")
# [s] per stage: far above what a small stage takes on a loaded machine (a 2 s limit timed out a
# good stage at load 20 on 2 cores), far below the looping and stuck stages' forever
LIMIT = 5.0
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
def slow_library(tmp_path_factory):
    """Five stages with findings, one whose rule loops for ever, one stuck in a call that never returns."""
    root = tmp_path_factory.mktemp("slow-library")
    good = copy_library(root, 1, GOOD)
    looping = root / "c000" / f"{LOOPS}.usda"
    stuck = root / "c000" / f"{STUCK}.usda"
    for path in (looping, stuck):
        path.write_bytes(good[0].read_bytes())
    return root, good, looping, stuck


def _check_timed_out(done, good, slow, limit=LIMIT):
    assert done.returncode == 1, done.stderr  # findings decide; the timed-out stages are reported
    data = json.loads(done.stdout)
    validate_document(data)
    failures = {f["stage"]: f for f in data["failures"]}
    assert set(failures) == {str(p) for p in slow}
    for failure in failures.values():
        assert failure["kind"] == "timeout"
        assert failure["message"] == (f"{failure['stage']}: auditing this stage took longer than the time limit of "
                                      f"{limit:g} s per stage (--stage-timeout); the stage was not audited")
        assert failure["message"] in done.stderr
    assert data["summary"]["stages"] == len(good) + len(slow)
    assert data["findings"] == [f.as_json() for f in audit(good).findings]
    return done.stdout


def test_stages_past_the_time_limit_are_reported_locally_and_on_dask(slow_library):
    root, good, looping, stuck = slow_library
    outputs = []
    for options in (["--jobs", "1"], ["--jobs", "2"]):
        begin = time.monotonic()
        done = run_cli(root, "--format", "json", "--stage-timeout", LIMIT, *options)
        # The stuck stage: its limit and grace, its worker ended, again alone: 4 x LIMIT; far from an hour.
        assert time.monotonic() - begin < 120, done.stderr
        outputs.append(_check_timed_out(done, good, (looping, stuck)))
    pytest.importorskip("distributed")
    preload = json.dumps([str(HERE / "faults.py")])
    done = run_cli(root, "--format", "json", "--stage-timeout", LIMIT, "--scheduler", "local:2",
                   DASK_DISTRIBUTED__WORKER__PRELOAD=preload)
    outputs.append(_check_timed_out(done, good, (looping, stuck)))
    assert outputs[1] == outputs[0] and outputs[2] == outputs[0]
    strict = run_cli(looping, good[0], "--format", "json", "--stage-timeout", LIMIT, "--strict-inputs")
    assert strict.returncode == 2 and json.loads(strict.stdout)["failures"][0]["kind"] == "timeout"


def test_the_limit_holds_in_the_driver_process_too(slow_library):
    """Any executor: threads of this process. A stage looping in Python is interrupted; nothing is ended."""
    _, good, looping, _ = slow_library
    paths = [str(good[0]), str(looping), str(good[1])]
    with ThreadPoolExecutor(2) as threads:
        begin = time.monotonic()
        report = audit_many(paths, CONSUMERS, progress=False, executor=threads, stages_per_task=1, stage_timeout=LIMIT)
        took = time.monotonic() - begin
    assert LIMIT <= took < 60
    assert [(f.stage, f.kind) for f in report.failures] == [(str(looping), "timeout")]
    assert report.findings == audit([good[0], good[1]]).findings
    untimed = audit_many([str(good[0])], CONSUMERS, progress=False, stage_timeout=0)
    assert untimed.findings == audit([good[0]]).findings and not untimed.failures


def test_a_limit_shorter_than_the_first_imports_prints_no_traceback():
    """A limit so short that it fires while OpenUSD would still be importing its Python modules
    (the one-time cost of a worker's first stage): each stage is reported past the limit or
    audited, and nothing prints a traceback (the worker imports every pxr module before any
    stage). Oracle: the process's stderr and exit code."""
    repo = HERE.parents[1]
    done = subprocess.run([sys.executable, "-m", "usdjoints", "audit", "--stage-timeout", "0.01",
                           str(repo / "sample_stages" / "bad")], capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr[-3000:]


@pytest.mark.parametrize("value", ["-1", "nan", "soon"])
def test_a_bad_time_limit_is_a_usage_error(slow_library, value):
    _, good, _, _ = slow_library
    done = run_cli(good[0], "--stage-timeout", value, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("usdjoints: error:"), done.stderr


# --- a cluster with no workers, or whose only worker dies and is not restarted ------------------------

WAIT = 5  # USDJOINTS_WORKER_WAIT for these runs


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)


@pytest.fixture
def scheduler(tmp_path):
    """(address, start_worker): a real `dask scheduler` with no workers; every process started is stopped."""
    dist = pytest.importorskip("distributed")
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    dask = [sys.executable, "-m", "dask"]
    started: list[subprocess.Popen] = []

    def start_worker(name: str) -> subprocess.Popen:
        worker = subprocess.Popen([*dask, "worker", address, "--host", "127.0.0.1", "--nthreads", "1", "--no-nanny",
                                   "--no-dashboard", "--name", name, "--death-timeout", "60"],
                                  env=_env(), stdout=subprocess.DEVNULL, stderr=open(tmp_path / f"{name}.log", "w"))
        started.append(worker)
        return worker

    try:
        started.append(subprocess.Popen([*dask, "scheduler", "--host", "127.0.0.1", "--port", str(port),
                                         "--no-dashboard"], env=_env(), stdout=subprocess.DEVNULL,
                                        stderr=open(tmp_path / "scheduler.log", "w")))
        with dist.Client(address, timeout=60):
            pass
        yield address, start_worker
    finally:
        for process in reversed(started):
            _stop(process)


def test_a_scheduler_without_workers_is_an_error_not_a_wait(scheduler, slow_library):
    address, _ = scheduler
    _, good, _, _ = slow_library
    begin = time.monotonic()
    done = run_cli(good[0], "--scheduler", address, timeout=120, USDJOINTS_WORKER_WAIT=str(WAIT))
    took = time.monotonic() - begin
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert lines == [f"usdjoints: error: --scheduler {address}: the scheduler has had no workers for {WAIT} s; "
                     f"start some with `dask worker {address}`"], done.stderr
    assert WAIT <= took < WAIT + 60


def test_the_only_worker_dying_without_a_nanny_ends_the_batch(scheduler, slow_library, tmp_path):
    address, start_worker = scheduler
    _, good, _, _ = slow_library
    worker = start_worker("lonely")
    with distributed_client(address) as client:
        client.wait_for_workers(1, timeout=60)
    crashing = tmp_path / "segfaults-open.usda"
    write_segfaulting_stage(crashing)
    begin = time.monotonic()
    done = run_cli(good[0], crashing, good[1], "--scheduler", address, timeout=180, USDJOINTS_WORKER_WAIT=str(WAIT))
    took = time.monotonic() - begin
    assert worker.wait(timeout=30) != 0  # the stage killed it, and nothing restarted it
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"usdjoints: error: the Dask cluster has had no workers for {WAIT} s"), \
        done.stderr
    assert "stages not audited" in lines[0] and "Traceback" not in done.stderr
    assert WAIT <= took < WAIT + 120


def distributed_client(address):
    import distributed as dist

    return dist.Client(address, timeout=60)
