"""Auditing many stages: in parallel processes, with a progress bar on a terminal."""
from __future__ import annotations

import sys
from concurrent.futures import ProcessPoolExecutor
from typing import Optional, Sequence

from .engine import audit_path_safely
from .findings import AuditReport, merge_reports


def audit_many(paths: Sequence[str], consumers: Sequence[str], rule_ids: Optional[Sequence[str]] = None,
               strict: bool = False, jobs: int = 1, progress: Optional[bool] = None) -> AuditReport:
    """One combined report over ``paths``; unreadable files become failures of the report.

    ``jobs`` > 1 audits in that many worker processes (each opens its own stages: USD stages do
    not cross process boundaries). ``progress`` defaults to "stderr is a terminal".
    """
    show = sys.stderr.isatty() if progress is None else progress
    consumers = tuple(consumers)
    rule_ids = tuple(rule_ids) if rule_ids else None
    reports: list[Optional[AuditReport]] = [None] * len(paths)
    if jobs <= 1 or len(paths) <= 1:
        for index, path in enumerate(paths):
            reports[index] = audit_path_safely(path, consumers, rule_ids, strict)
            _progress(show, index + 1, len(paths))
    else:
        with ProcessPoolExecutor(max_workers=jobs, initializer=_worker_init) as pool:
            chunk = max(1, len(paths) // (jobs * 8))
            results = pool.map(audit_path_safely, paths, [consumers] * len(paths), [rule_ids] * len(paths),
                               [strict] * len(paths), chunksize=chunk)
            for index, report in enumerate(results):
                reports[index] = report
                _progress(show, index + 1, len(paths))
    if show:
        sys.stderr.write("\n")
    return merge_reports(reports, consumers, strict)


def _worker_init() -> None:
    import usdjoints  # noqa: F401  (PhysX schemas before any stage is opened in the worker)


def _progress(show: bool, done: int, total: int) -> None:
    if not show:
        return
    width = 30
    filled = width * done // total
    sys.stderr.write(f"\raudit [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
    sys.stderr.flush()
