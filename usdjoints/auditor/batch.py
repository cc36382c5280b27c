"""Auditing many stages on any ``concurrent.futures``-style executor, surviving bad stages.

The stages are grouped into tasks (:func:`task_size`); each task audits its stages one by one in
a worker and turns anything a stage raises into a failure of that stage
(:func:`audit_stage_isolated`), so an exception never ends the batch. A task whose worker dies
(a segfault inside OpenUSD, the out-of-memory killer, a killed Dask worker) is split: each of its
stages runs again alone, and a stage whose worker dies again alone is reported by name as
``crashed``. Results are kept by input position, so the report does not depend on the executor,
the number of workers or the order tasks finish in: ``--jobs 1``, ``--jobs N`` and a Dask
cluster give byte-identical output.

Local runs use :class:`~usdjoints.auditor.pool.IsolatingProcessPool` (``--jobs 1`` too: a
crashing stage must not take the command with it); Dask runs use a ``distributed.Client``'s
executor (:mod:`usdjoints.auditor.dask_cluster`). Any other executor can be passed in.

A stage that takes longer than the stage time limit (``--stage-timeout``, :data:`STAGE_TIMEOUT`
seconds by default) is given up on and reported as ``timeout``; the task goes on with its next
stage. A watchdog thread in the worker raises :class:`StageTimedOut` in the thread auditing the
stage; a stage stuck outside Python (inside OpenUSD's C++) that does not come back within
:data:`TIMEOUT_GRACE` seconds more ends its worker process instead (exit status
:data:`TIMEOUT_EXIT`), and is then handled like a crash: the task's stages run again alone, and
the one that runs out of time again alone is reported as ``timeout``. A cluster that has no
worker left (each died, and no nanny restarted it) ends the batch with :class:`BatchError` after
:func:`no_worker_wait` seconds instead of waiting for ever.
"""
from __future__ import annotations

import math
import os
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Executor, wait
from typing import Callable, Optional, Sequence

from ..errors import UsageError, UsdJointsError
from .findings import AuditReport, StageFailure, merge_reports

# Stages per task: enough to pay for a task's round trip (pickling, scheduling: ~1 ms locally,
# a few ms on Dask) against ~5-50 ms per small stage, few enough that a worker death re-runs
# little and the progress bar moves. Each worker gets about TASKS_PER_WORKER tasks, so a slow
# stage does not leave the other workers idle at the end.
MAX_STAGES_PER_TASK = 64
TASKS_PER_WORKER = 4
# Seconds one stage may take (--stage-timeout; 0 or None: no limit). The largest stages the
# benchmarks audit (10,000 joints) take a few seconds; five minutes is a stage that is stuck.
STAGE_TIMEOUT = 300.0
# Seconds past the limit (at most the limit again) for a stage's thread to come back to Python
# before its process is ended.
TIMEOUT_GRACE = 5.0
TIMEOUT_EXIT = 124  # a worker process ended for the time limit exits with this status (as timeout(1))
NO_WORKER_WAIT = 30.0  # seconds a cluster may have no worker at all (USDJOINTS_WORKER_WAIT overrides)
POLL_S = 1.0  # how often the driver looks at the cluster while no task finishes


class BatchError(UsdJointsError):
    """The executor itself failed (not one stage): e.g. Dask workers without usdjoints installed.

    One line and exit code 2 on the command line, like any input the run cannot work with."""


def audit_many(paths: Sequence[str], consumers: Sequence[str], rule_ids: Optional[Sequence[str]] = None,
               strict: bool = False, jobs: int = 1, progress: Optional[bool] = None,
               executor: Optional[Executor] = None, strict_inputs: bool = False,
               stages_per_task: Optional[int] = None,
               on_progress: Optional[Callable[[int, int], None]] = None,
               stage_timeout: Optional[float] = STAGE_TIMEOUT) -> AuditReport:
    """One combined report over ``paths``; stages that cannot be audited become failures.

    ``executor`` runs the tasks (any object with ``submit(fn, *args) -> Future``: a
    ``distributed.Client.get_executor()``, a ``ThreadPoolExecutor``, ...); without one, ``jobs``
    worker processes of an :class:`IsolatingProcessPool` do. ``progress`` draws a bar with rate
    and ETA on stderr (default: when stderr is a terminal); ``on_progress(done, total)`` is called
    instead when given. ``strict_inputs`` makes any failure exit 2 (see ``AuditReport.exit_code``).
    ``stage_timeout`` is the time limit of one stage in seconds (``None`` or 0: none); a stage that
    runs out of it is a ``timeout`` failure. The limit is enforced in the process that audits the
    stage; only a worker process is ended for a stage stuck outside Python.
    """
    if stage_timeout is not None and not stage_timeout >= 0:
        raise UsageError("the stage time limit must be a number of seconds >= 0")
    consumers = tuple(consumers)
    rule_ids = tuple(rule_ids) if rule_ids else None
    names = [os.fspath(p) for p in paths]
    if not names:
        return merge_reports([], consumers, strict, strict_inputs)
    # Workers may run in another directory (Dask): they open absolute paths, findings keep the given names.
    stages = [(name, os.path.abspath(name)) for name in names]
    reporter = on_progress or _default_progress(progress, len(stages))
    own = executor is None
    jobs = max(1, min(int(jobs), len(stages)))  # never more worker processes than stages
    if own:
        from .pool import IsolatingProcessPool

        executor = IsolatingProcessPool(max(1, jobs), initializer=worker_init)
    workers = max(1, jobs) if own else executor_width(executor)
    size = stages_per_task or task_size(len(stages), workers)
    try:
        # past the longest wait the platform's clock takes (threading.TIMEOUT_MAX, ~292 years on
        # Linux), a limit is no limit
        limit = None if not stage_timeout or stage_timeout >= threading.TIMEOUT_MAX else float(stage_timeout)
        reports = _run(executor, stages, size, (consumers, rule_ids, strict, limit), reporter)
    except BaseException:
        if own:
            executor.shutdown(wait=False, cancel_futures=True)
            executor.terminate()
        raise
    else:
        if own:
            executor.shutdown(wait=True)
    finally:
        close = getattr(reporter, "close", None)
        if close is not None:
            close()
    return merge_reports(reports, consumers, strict, strict_inputs)


def task_size(n_stages: int, workers: int) -> int:
    """Stages per task: about TASKS_PER_WORKER tasks per worker, at most MAX_STAGES_PER_TASK."""
    return max(1, min(MAX_STAGES_PER_TASK, math.ceil(n_stages / (workers * TASKS_PER_WORKER))))


def executor_width(executor: Executor) -> int:
    """How many tasks ``executor`` runs at once, as far as it says (``_max_workers``), else 4."""
    width = getattr(executor, "_max_workers", None) or getattr(executor, "usdjoints_width", None)
    return int(width) if width else 4


def _run(executor: Executor, stages, size: int, options: tuple, reporter) -> list[AuditReport]:
    """Submit the tasks, split the ones whose worker died, keep every report at its input position."""
    reports: list[Optional[AuditReport]] = [None] * len(stages)
    pending: dict = {}  # future -> (stage indices, whether this is the stage's retry alone)

    def submit(indices: tuple[int, ...], retry: bool) -> None:
        pending[executor.submit(audit_stages, tuple(stages[i] for i in indices), *options)] = (indices, retry)

    for start in range(0, len(stages), size):
        submit(tuple(range(start, min(start + size, len(stages)))), False)
    done_count = 0
    watch = _WorkerWatch(executor, pending, stages)
    while pending:
        finished, _ = wait(pending, timeout=watch.poll, return_when=FIRST_COMPLETED)
        if not finished:
            watch.check()
            continue
        watch.since = None
        for future in finished:
            indices, retry = pending.pop(future)
            error = future.exception()
            if error is None:
                for index, report in zip(indices, future.result()):
                    reports[index] = report
                done_count += len(indices)
                reporter(done_count, len(stages))
            elif not is_worker_death(error):
                raise BatchError(f"the executor could not run the audit: {type(error).__name__}: {error} (on a Dask "
                                 f"cluster every worker needs usdjoints installed)") from error
            elif not retry:  # one of them (or the machine) killed the worker: each again, alone
                for index in indices:
                    submit((index,), True)
            else:
                name = stages[indices[0]][0]
                if _ran_out_of_time(executor, error, name):
                    reports[indices[0]] = _timeout_report(name, options[0], options[2], options[3])
                else:
                    reports[indices[0]] = _failure_report(
                        name, options[0], options[2], "crashed",
                        f"{name}: the process auditing this stage died, and again when the stage was retried alone "
                        f"(a crash inside OpenUSD, or out of memory); the stage was not audited")
                _log_death(name, error)
                done_count += 1
                reporter(done_count, len(stages))
    return reports  # type: ignore[return-value]


def no_worker_wait() -> float:
    """Seconds a cluster may have no worker before the batch gives up: ``USDJOINTS_WORKER_WAIT``
    (a positive number) or :data:`NO_WORKER_WAIT`."""
    value = os.environ.get("USDJOINTS_WORKER_WAIT")
    if not value:
        return NO_WORKER_WAIT
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not seconds > 0 or math.isinf(seconds):
        raise UsageError(f"USDJOINTS_WORKER_WAIT={value!r}: expected a number of seconds > 0")
    return seconds


class _WorkerWatch:
    """Ends a batch whose cluster has had no worker for :func:`no_worker_wait` seconds.

    Only executors that say how many workers they have (``usdjoints_workers``, as the Dask one
    does) are watched: a local pool replaces its dead processes itself.
    """

    def __init__(self, executor, pending: dict, stages):
        self.count = getattr(executor, "usdjoints_workers", None)
        self.poll = POLL_S if self.count is not None else None
        self.limit = no_worker_wait() if self.count is not None else None
        self.pending = pending
        self.total = len(stages)
        self.since: Optional[float] = None

    def check(self) -> None:
        try:
            workers = self.count()
        except Exception:  # the scheduler itself does not answer: as good as no workers
            workers = 0
        if workers:
            self.since = None
            return
        now = time.monotonic()
        if self.since is None:
            self.since = now
        elif now - self.since >= self.limit:
            left = sum(len(indices) for indices, _ in self.pending.values())
            raise BatchError(f"the Dask cluster has had no workers for {self.limit:g} s, {left} of {self.total} stages "
                             f"not audited (a worker that dies without a nanny is not replaced: start workers with "
                             f"`dask worker ADDRESS`, which keeps one)")


def _ran_out_of_time(executor, error: BaseException, name: str) -> bool:
    """Whether a worker that died alone with ``name`` was ended for the stage time limit: our pool
    tells by the exit status, a Dask worker logs the stage to the scheduler first."""
    from .pool import WorkerDied

    if isinstance(error, WorkerDied):
        return error.exitcode == TIMEOUT_EXIT
    timed_out = getattr(executor, "usdjoints_timed_out", None)
    return timed_out is not None and name in timed_out()


def is_worker_death(error: BaseException) -> bool:
    """A task lost with its worker: our pool's WorkerDied, a broken stdlib pool, Dask's KilledWorker."""
    from concurrent.futures import BrokenExecutor

    from .pool import WorkerDied

    return isinstance(error, (WorkerDied, BrokenExecutor)) or type(error).__name__ == "KilledWorker"


def _log_death(name: str, error: BaseException) -> None:
    """How the worker died (a signal locally, Dask's account on a cluster): on stderr with
    ``--verbose`` only, since it differs between executors and the report must not."""
    if os.environ.get("USDJOINTS_VERBOSE"):
        print(f"usdjoints: {name}: {type(error).__name__}: {error}", file=sys.stderr)


def audit_stages(stages: Sequence[tuple[str, str]], consumers, rule_ids, strict,
                 timeout: Optional[float] = None) -> list[AuditReport]:
    """A task: ``(name, absolute path)`` pairs audited in order, each isolated and, with
    ``timeout``, given at most that many seconds. Runs in a worker."""
    if not timeout:
        return [audit_stage_isolated(name, path, consumers, rule_ids, strict) for name, path in stages]
    return [_audit_limited(name, path, consumers, rule_ids, strict, timeout) for name, path in stages]


class StageTimedOut(BaseException):
    """Raised by the watchdog in a thread whose stage ran past the time limit.

    A ``BaseException``, so that no ``except Exception`` on the way turns it into an ``error``."""


def _audit_limited(name: str, path: str, consumers, rule_ids, strict, timeout: float) -> AuditReport:
    """:func:`audit_stage_isolated` under the watchdog; the stage's report or its ``timeout`` failure.

    The watchdog raises :class:`StageTimedOut` once, at a moment of its choosing: inside the
    audit (caught here), or just after it ended (then ``fired`` is set, and the exception is
    waited for here so that it never lands in the next stage or in the worker's own code).
    """
    watch = _WATCHDOG.begin(name, timeout)
    try:
        try:
            report = audit_stage_isolated(name, path, consumers, rule_ids, strict)
        finally:
            fired = _WATCHDOG.end(watch)
        if fired:
            for _ in range(1000):  # raised within a few interpreter steps of being set
                time.sleep(0.001)
            return _timeout_report(name, consumers, strict, timeout)
    except StageTimedOut:
        _WATCHDOG.end(watch)
        return _timeout_report(name, consumers, strict, timeout)
    return report


def _timeout_report(name: str, consumers, strict: bool, timeout: float) -> AuditReport:
    return _failure_report(name, consumers, strict, "timeout",
                           f"{name}: auditing this stage took longer than the time limit of {timeout:g} s per stage "
                           f"(--stage-timeout); the stage was not audited")


class _Watch:
    __slots__ = ("ident", "name", "timeout", "deadline", "fired")

    def __init__(self, ident: int, name: str, timeout: float):
        self.ident, self.name, self.timeout, self.fired = ident, name, timeout, False
        self.deadline = time.monotonic() + timeout


class _Watchdog:
    """One thread per process that holds every auditing thread to its stage's deadline."""

    def __init__(self):
        self._reset()
        if hasattr(os, "register_at_fork"):  # a forked worker starts with no watches and no thread
            os.register_at_fork(after_in_child=self._reset)
        self.worker = None  # where a stuck stage may end the process: "local", or a Dask worker

    def _reset(self) -> None:
        self.lock = threading.Lock()
        self.changed = threading.Condition(self.lock)
        self.watches: dict[int, _Watch] = {}
        self.thread: Optional[threading.Thread] = None

    def begin(self, name: str, timeout: float) -> _Watch:
        watch = _Watch(threading.get_ident(), name, timeout)
        with self.lock:
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, name="usdjoints-stage-watchdog", daemon=True)
                self.thread.start()
            self.watches[watch.ident] = watch
            self.changed.notify()
        return watch

    def end(self, watch: _Watch) -> bool:
        """Stop watching; whether the watchdog already raised in the thread."""
        with self.lock:
            if self.watches.get(watch.ident) is watch:
                del self.watches[watch.ident]
            return watch.fired

    def _run(self) -> None:
        import ctypes

        with self.lock:
            while True:
                now = time.monotonic()
                for watch in list(self.watches.values()):
                    if now < watch.deadline:
                        continue
                    if not watch.fired:
                        watch.fired = True
                        watch.deadline = now + min(TIMEOUT_GRACE, watch.timeout)
                        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(watch.ident),
                                                                   ctypes.py_object(StageTimedOut))
                    elif self.worker is not None:
                        self._end_process(watch)
                deadlines = [w.deadline for w in self.watches.values() if w.deadline > now]
                self.changed.wait(timeout=min(deadlines) - now if deadlines else None)

    def _end_process(self, watch: _Watch) -> None:
        """The stage's thread is stuck outside Python: only ending the worker process frees it."""
        if self.worker != "local":
            try:  # the driver reads it from the scheduler when the task's death reaches it
                self.worker.log_event(_dask_timeout_topic(), watch.name)
                time.sleep(1.0)
            except Exception:
                pass
        os._exit(TIMEOUT_EXIT)


def _dask_timeout_topic() -> str:
    from .dask_cluster import TIMEOUT_TOPIC

    return TIMEOUT_TOPIC


_WATCHDOG = _Watchdog()


def mark_worker_process(worker="local") -> None:
    """This process audits stages for a driver elsewhere, which survives it being ended: a stage
    stuck outside Python past its time limit may end it. ``worker`` is a Dask worker, or "local"."""
    _WATCHDOG.worker = worker


def audit_stage_isolated(name: str, path: str, consumers, rule_ids, strict) -> AuditReport:
    """The report of one stage; an unreadable file or any exception becomes its failure.

    ``path`` is opened; findings and failures are named ``name`` (the path as the user gave it),
    which is also what is opened when it leads to the same file from the worker's directory.
    """
    from dataclasses import replace

    from ..errors import InputError
    from .engine import audit_stage
    from .registry import select_rules

    target = name if os.path.abspath(name) == path else path
    try:
        report = audit_stage(target, consumers, select_rules(rule_ids), strict)
    except InputError as error:
        message = str(error)
        if target != name:
            message = message.replace(target, name)
        return _failure_report(name, consumers, strict, "unreadable", message)
    except Exception as error:  # a defect in usdjoints met by this stage: reported, the batch goes on
        return _failure_report(name, consumers, strict, "error",
                               f"{name}: auditing raised {type(error).__name__}: {error} at {_raised_at(error)} "
                               f"(a defect in usdjoints met by this stage; the other stages were audited)")
    if target != name:
        report = replace(report, stages=(name,), findings=tuple(replace(f, stage=name) for f in report.findings))
    return report


def _raised_at(error: BaseException) -> str:
    """``file.py:line`` of the innermost frame, so a report of the defect says where it is."""
    import traceback

    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return "an unknown place"
    last = frames[-1]
    return f"{os.path.basename(last.filename)}:{last.lineno} ({last.name})"


def _failure_report(name: str, consumers, strict: bool, kind: str, message: str) -> AuditReport:
    return AuditReport((name,), tuple(consumers), (), (StageFailure(name, message, kind),), strict)


def worker_init() -> None:
    """Run once in each local worker process before its first stage.

    The imports only: ``Work.SetConcurrencyLimit(1)`` or ``gc.freeze()`` here each halved the
    throughput of 2 workers on 2 cores (measured with benchmarks/audit_batch.py). Every ``pxr``
    module is imported here (0.15 s), not when OpenUSD's script-module loader first needs it
    inside a stage: a stage's watchdog (``--stage-timeout``) firing during that import printed
    OpenUSD's traceback of it and left the module broken for the worker's later stages.
    """
    import importlib
    import pkgutil

    import usdjoints  # noqa: F401  (PhysX schemas before any stage is opened in the worker)
    import pxr

    for module in pkgutil.iter_modules(pxr.__path__):
        try:
            importlib.import_module(f"pxr.{module.name}")
        except Exception:  # noqa: BLE001  a module this build cannot load: OpenUSD does without it
            pass
    mark_worker_process("local")


def _default_progress(progress: Optional[bool], total: int):
    show = sys.stderr.isatty() if progress is None else progress
    if not show:
        return lambda done, total: None
    from ..progress import RateProgress

    return RateProgress("audit", total, unit="stages")
