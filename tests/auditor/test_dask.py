"""A real Dask cluster on 127.0.0.1: `dask scheduler` and two `dask worker` processes, free ports.

Oracle: the bytes of ``usdjoints audit --jobs 1`` on the same 516 stages. The cluster's result
must be identical, and identical again when one worker is killed by its PID mid-run (its task
re-runs on the other worker: nothing lost, nothing twice). Everything started here is stopped.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")

import usdjoints  # noqa: E402,F401
from libraries import copy_library  # noqa: E402
from schema_check import validate_document  # noqa: E402
from usdjoints.auditor.batch import audit_many  # noqa: E402
from usdjoints.auditor.dask_cluster import dask_executor  # noqa: E402
from usdjoints.auditor.writers import render  # noqa: E402
from usdjoints.contract.types import CONSUMERS  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
COPIES = 12  # x 43 bad stages = 516
START_TIMEOUT = 60


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
    return env


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """(address, [worker processes]): workers without a nanny, so a killed one stays dead."""
    logs = tmp_path_factory.mktemp("dask-logs")
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    dask = [sys.executable, "-m", "dask"]
    started: list[subprocess.Popen] = []
    try:
        started.append(subprocess.Popen([*dask, "scheduler", "--host", "127.0.0.1", "--port", str(port),
                                         "--no-dashboard"], env=_env(), stdout=subprocess.DEVNULL,
                                        stderr=open(logs / "scheduler.log", "w")))
        for index in range(2):
            started.append(subprocess.Popen(
                [*dask, "worker", address, "--host", "127.0.0.1", "--nthreads", "1", "--no-nanny",
                 "--no-dashboard", "--name", f"w{index}", "--death-timeout", "60"],
                env=_env(), stdout=subprocess.DEVNULL, stderr=open(logs / f"worker{index}.log", "w")))
        with distributed.Client(address, timeout=START_TIMEOUT) as client:
            client.wait_for_workers(2, timeout=START_TIMEOUT)
        yield address, started[1:]
    finally:
        for process in reversed(started):
            _stop(process)


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    root = tmp_path_factory.mktemp("dask-library")
    paths = copy_library(root, COPIES)
    assert len(paths) >= 500
    return root, [str(p) for p in paths]


def _cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "import sys; from usdjoints.cli import main; sys.exit(main(sys.argv[1:]))",
                           "audit", *map(str, args)], capture_output=True, text=True, timeout=300, env=_env())


@pytest.fixture(scope="module")
def serial(library):
    root, _ = library
    done = _cli(root, "--format", "json", "--jobs", "1")
    assert done.returncode == 1, done.stderr
    validate_document(json.loads(done.stdout))
    return done.stdout


def test_cluster_equals_jobs_1(cluster, library, serial):
    address, _ = cluster
    root, _ = library
    done = _cli(root, "--format", "json", "--scheduler", address)
    assert done.returncode == 1, done.stderr
    assert done.stdout == serial


def test_a_worker_killed_mid_run_loses_and_repeats_nothing(cluster, library, serial):
    address, workers = cluster
    _, paths = library
    victim = workers[0]
    killed_at = []

    def kill_once(done: int, total: int) -> None:
        if not killed_at and done >= total // 4:
            os.kill(victim.pid, signal.SIGKILL)
            killed_at.append(done)

    with dask_executor(address) as executor:
        report = audit_many(paths, CONSUMERS, executor=executor, on_progress=kill_once)
    assert killed_at and killed_at[0] < len(paths)
    assert victim.wait(timeout=30) == -signal.SIGKILL
    assert render(report, "json") == serial
    with distributed.Client(address, timeout=START_TIMEOUT) as client:
        assert len(client.scheduler_info()["workers"]) == 1  # the rest ran on the survivor
