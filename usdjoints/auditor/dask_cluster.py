"""``--scheduler ADDRESS``: a Dask distributed executor for batch audits (the ``dask`` extra).

``tcp://host:port`` (or any address ``distributed.Client`` takes) connects to a running scheduler;
``local:N`` starts a ``LocalCluster`` of N single-threaded worker processes for this run. Every
worker must be able to import usdjoints and read the stage paths (a shared filesystem); the
driver sends absolute paths.

Each worker imports usdjoints once, when it joins (:class:`WarmUp`, a worker plugin that also
runs on a worker the nanny restarted after a crash), not in its first task. The executor says
how many workers the cluster has at the moment (``usdjoints_workers``), so a batch on a cluster
whose workers are all gone ends with an error instead of waiting (see ``batch.NO_WORKER_WAIT``),
and which stages a worker gave up on for the stage time limit (``usdjoints_timed_out``).
"""
from __future__ import annotations

import contextlib
import os
import re
from typing import Iterator

from ..errors import UsageError

try:  # the plugin's base class; without Dask, --scheduler is refused in _distributed()
    from distributed.diagnostics.plugin import WorkerPlugin as _WorkerPlugin
except ImportError:  # pragma: no cover - the dask extra is not installed
    _WorkerPlugin = object

_LOCAL = re.compile(r"local:(\d+)$")
TIMEOUT_TOPIC = "usdjoints-stage-timeout"


def connect_timeout() -> float:
    """Seconds to wait for a scheduler to answer, and for its first worker: 30, or
    ``USDJOINTS_WORKER_WAIT`` (the same bound as for a cluster that loses every worker mid-run)."""
    from .batch import no_worker_wait

    return no_worker_wait()


# For local:N. A death is a task's own retry in usdjoints (each stage again, alone): Dask should
# not rerun it on other workers first. Dask's own housekeeping in each worker (the statistical
# profiler every 10 ms, the event-loop tick every 20 ms, the system monitor every 0.5 s) took
# ~10 % of a worker's CPU next to small stages (per-thread CPU in a worker, 100 stages): on a
# machine whose cores the workers fill, that is 10 % of the throughput. A batch needs none of it
# that often; the memory monitor stays (the nanny restarts a worker past its memory limit).
LOCAL_CONFIG = {
    "distributed.scheduler.allowed-failures": 0,
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.admin.system-monitor.gil.enabled": False,
}


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

    return logging.WARNING if os.environ.get("USDJOINTS_VERBOSE") else logging.CRITICAL


class WarmUp(_WorkerPlugin):
    """Imports usdjoints (the PhysX schemas) in each worker when it joins the cluster, and tells
    the stage watchdog that it runs in a Dask worker (see ``batch.mark_worker_process``).

    OpenUSD's own thread count is left alone: ``Work.SetConcurrencyLimit(1)`` saved 3-6 % of a
    worker's CPU on small stages, but it halved local workers' throughput (see ``worker_init``)
    and the one benchmark round of Dask with it ran at a third of the local rate.
    """

    name = "usdjoints-warm-up"

    def setup(self, worker) -> None:
        from .batch import mark_worker_process, worker_init

        worker_init()
        mark_worker_process(worker)


@contextlib.contextmanager
def dask_executor(address: str) -> Iterator[object]:
    """A ``concurrent.futures`` executor on the cluster at ``address``, closed on exit.

    The executor's ``usdjoints_width`` is the number of worker threads, which sizes the tasks.
    """
    distributed = _distributed()
    import dask

    wait_s = connect_timeout()
    local = _LOCAL.match(address)
    with contextlib.ExitStack() as stack:
        if local:
            from .cli import MAX_JOBS

            n_workers = int(local.group(1))
            if not 1 <= n_workers <= MAX_JOBS:  # as --jobs: each worker is a process holding a stage
                raise UsageError(f"--scheduler local:N needs N from 1 to {MAX_JOBS} (worker processes, each "
                                 "holding a stage)")
            stack.enter_context(dask.config.set(LOCAL_CONFIG))
            cluster = stack.enter_context(distributed.LocalCluster(
                n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=None,
                # no dashboard; the scheduler's few HTTP routes on a free port, not 8787 (often taken)
                scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},
                host="127.0.0.1", silence_logs=_log_level()))
            client = stack.enter_context(distributed.Client(cluster))
        else:
            if "://" not in address and not re.match(r"[\w.-]+:\d+$", address):
                raise UsageError(f"--scheduler {address!r}: expected tcp://HOST:PORT (or HOST:PORT) or local:N")
            try:
                client = stack.enter_context(distributed.Client(address, timeout=f"{wait_s}s"))
            except (OSError, TimeoutError) as error:
                raise UsageError(f"--scheduler {address}: cannot reach a Dask scheduler there ({error}); "
                                 f"start one with `dask scheduler` and workers with `dask worker {address}`") from error
            except ValueError as error:  # Dask's own parse of the address: '[::1' (no closing bracket)
                raise UsageError(f"--scheduler {address!r}: not an address Dask can parse ({error}); "
                                 "expected tcp://HOST:PORT (or HOST:PORT) or local:N") from error
            try:
                client.wait_for_workers(1, timeout=wait_s)
            except TimeoutError as error:
                raise UsageError(f"--scheduler {address}: the scheduler has had no workers for {wait_s:g} s; "
                                 f"start some with `dask worker {address}`") from error
        try:
            client.register_plugin(WarmUp())
        except Exception as error:  # e.g. a worker without usdjoints cannot unpickle the plugin
            raise UsageError(f"--scheduler {address}: the workers cannot import usdjoints "
                             f"({type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}); "
                             f"install it on every worker") from error
        executor = client.get_executor(pure=False)
        executor.usdjoints_width = max(1, sum(client.nthreads().values()))
        executor.usdjoints_workers = lambda: len(client.nthreads())
        executor.usdjoints_timed_out = lambda: _timed_out(client)
        yield executor


def _timed_out(client) -> set[str]:
    """The stages whose worker gave up on them for the time limit (``batch``'s watchdog logs each
    to the scheduler before it ends the worker process)."""
    try:
        return {str(message) for _, message in client.get_events(TIMEOUT_TOPIC)}
    except Exception:  # the scheduler is gone: nothing can be said, the stage counts as crashed
        return set()
