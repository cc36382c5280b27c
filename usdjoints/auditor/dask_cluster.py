"""``--scheduler ADDRESS``: a Dask distributed executor for batch audits (the ``dask`` extra).

``tcp://host:port`` (or any address ``distributed.Client`` takes) connects to a running scheduler;
``local:N`` starts a ``LocalCluster`` of N single-threaded worker processes for this run. Every
worker must be able to import usdjoints and read the stage paths (a shared filesystem); the
driver sends absolute paths.
"""
from __future__ import annotations

import contextlib
import re
from typing import Iterator

from ..errors import UsageError

_LOCAL = re.compile(r"local:(\d+)$")
CONNECT_TIMEOUT = "30s"


def _distributed():
    try:
        import distributed
    except ImportError as error:
        raise UsageError("--scheduler needs Dask: pip install 'usdjoints[dask]'") from error
    return distributed


def _log_level() -> int:
    """Dask's own log lines (a worker restarted after a crash) only with ``--verbose``: the report
    names every stage that crashed a worker."""
    import logging
    import os

    return logging.WARNING if os.environ.get("USDJOINTS_VERBOSE") else logging.CRITICAL


@contextlib.contextmanager
def dask_executor(address: str) -> Iterator[object]:
    """A ``concurrent.futures`` executor on the cluster at ``address``, closed on exit.

    The executor's ``usdjoints_width`` is the number of worker threads, which sizes the tasks.
    """
    distributed = _distributed()
    import dask

    local = _LOCAL.match(address)
    with contextlib.ExitStack() as stack:
        if local:
            n_workers = int(local.group(1))
            if n_workers < 1:
                raise UsageError("--scheduler local:N needs N >= 1")
            # A death is a task's own retry in usdjoints (each stage again, alone): Dask should not
            # rerun it three more times on other workers first. The dashboard is not needed.
            stack.enter_context(dask.config.set({"distributed.scheduler.allowed-failures": 0}))
            cluster = stack.enter_context(distributed.LocalCluster(
                n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=None,
                host="127.0.0.1", silence_logs=_log_level()))
            client = stack.enter_context(distributed.Client(cluster))
        else:
            if "://" not in address and not re.match(r"[\w.-]+:\d+$", address):
                raise UsageError(f"--scheduler {address!r}: expected tcp://HOST:PORT (or HOST:PORT) or local:N")
            try:
                client = stack.enter_context(distributed.Client(address, timeout=CONNECT_TIMEOUT))
            except (OSError, TimeoutError) as error:
                raise UsageError(f"--scheduler {address}: cannot reach a Dask scheduler there ({error}); "
                                 f"start one with `dask scheduler` and workers with `dask worker {address}`") from error
            try:
                client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
            except TimeoutError as error:
                raise UsageError(f"--scheduler {address}: the scheduler has no workers; start some with "
                                 f"`dask worker {address}`") from error
        executor = client.get_executor(pure=False)
        executor.usdjoints_width = max(1, sum(client.nthreads().values()))
        yield executor
