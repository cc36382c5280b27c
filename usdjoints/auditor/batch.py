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
"""
from __future__ import annotations

import math
import os
import sys
from concurrent.futures import FIRST_COMPLETED, Executor, wait
from typing import Callable, Optional, Sequence

from ..errors import UsdJointsError
from .findings import AuditReport, StageFailure, merge_reports

# Stages per task: enough to pay for a task's round trip (pickling, scheduling: ~1 ms locally,
# a few ms on Dask) against ~5-50 ms per small stage, few enough that a worker death re-runs
# little and the progress bar moves. Each worker gets about TASKS_PER_WORKER tasks, so a slow
# stage does not leave the other workers idle at the end.
MAX_STAGES_PER_TASK = 64
TASKS_PER_WORKER = 4


class BatchError(UsdJointsError):
    """The executor itself failed (not one stage): e.g. Dask workers without usdjoints installed.

    One line and exit code 2 on the command line, like any input the run cannot work with."""


def audit_many(paths: Sequence[str], consumers: Sequence[str], rule_ids: Optional[Sequence[str]] = None,
               strict: bool = False, jobs: int = 1, progress: Optional[bool] = None,
               executor: Optional[Executor] = None, strict_inputs: bool = False,
               stages_per_task: Optional[int] = None,
               on_progress: Optional[Callable[[int, int], None]] = None) -> AuditReport:
    """One combined report over ``paths``; stages that cannot be audited become failures.

    ``executor`` runs the tasks (any object with ``submit(fn, *args) -> Future``: a
    ``distributed.Client.get_executor()``, a ``ThreadPoolExecutor``, ...); without one, ``jobs``
    worker processes of an :class:`IsolatingProcessPool` do. ``progress`` draws a bar with rate
    and ETA on stderr (default: when stderr is a terminal); ``on_progress(done, total)`` is called
    instead when given. ``strict_inputs`` makes any failure exit 2 (see ``AuditReport.exit_code``).
    """
    consumers = tuple(consumers)
    rule_ids = tuple(rule_ids) if rule_ids else None
    names = [os.fspath(p) for p in paths]
    if not names:
        return merge_reports([], consumers, strict, strict_inputs)
    # Workers may run in another directory (Dask): they open absolute paths, findings keep the given names.
    stages = [(name, os.path.abspath(name)) for name in names]
    reporter = on_progress or _default_progress(progress, len(stages))
    own = executor is None
    if own:
        from .pool import IsolatingProcessPool

        executor = IsolatingProcessPool(max(1, jobs), initializer=worker_init)
    workers = max(1, jobs) if own else executor_width(executor)
    size = stages_per_task or task_size(len(stages), workers)
    try:
        reports = _run(executor, stages, size, (consumers, rule_ids, strict), reporter)
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
    while pending:
        finished, _ = wait(pending, return_when=FIRST_COMPLETED)
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
                reports[indices[0]] = _failure_report(
                    name, options[0], options[2], "crashed",
                    f"{name}: the process auditing this stage died, and again when the stage was retried alone "
                    f"(a crash inside OpenUSD, or out of memory); the stage was not audited")
                _log_death(name, error)
                done_count += 1
                reporter(done_count, len(stages))
    return reports  # type: ignore[return-value]


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


def audit_stages(stages: Sequence[tuple[str, str]], consumers, rule_ids, strict) -> list[AuditReport]:
    """A task: ``(name, absolute path)`` pairs audited in order, each isolated. Runs in a worker."""
    return [audit_stage_isolated(name, path, consumers, rule_ids, strict) for name, path in stages]


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

    Nothing more than the import: ``Work.SetConcurrencyLimit(1)`` or ``gc.freeze()`` here each
    halved the throughput of 2 workers on 2 cores (measured with benchmarks/audit_batch.py).
    """
    import usdjoints  # noqa: F401  (PhysX schemas before any stage is opened in the worker)


def _default_progress(progress: Optional[bool], total: int):
    show = sys.stderr.isatty() if progress is None else progress
    if not show:
        return lambda done, total: None
    from ..progress import RateProgress

    return RateProgress("audit", total, unit="stages")
