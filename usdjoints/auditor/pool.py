"""A process pool that survives its workers dying: the local executor of batch audits.

``concurrent.futures.ProcessPoolExecutor`` breaks as a whole when one worker dies (a segfault in
OpenUSD, the out-of-memory killer): every pending future fails with ``BrokenProcessPool`` and no
one can tell which task killed it. :class:`IsolatingProcessPool` gives each worker process one
task at a time, so a death is pinned on exactly the task that was running (its future raises
:class:`WorkerDied`), the process is replaced and the other tasks carry on. That is the same
contract a Dask cluster gives (``KilledWorker`` for the task that was running), so the batch
driver treats both alike.
"""
from __future__ import annotations

import multiprocessing
import os
import queue
import signal
import sys
import threading
from concurrent.futures import Executor, Future
from multiprocessing.connection import wait
from typing import Callable, Optional


class WorkerDied(RuntimeError):
    """The worker process running a task ended before handing back a result."""

    def __init__(self, exitcode: Optional[int]):
        self.exitcode = exitcode
        super().__init__(f"the worker process {describe_exit(exitcode)}")


def describe_exit(exitcode: Optional[int]) -> str:
    """``killed by SIGSEGV`` for -11, ``exited with status 3`` for 3."""
    if exitcode is None:
        return "vanished"
    if exitcode < 0:
        try:
            return f"was killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"was killed by signal {-exitcode}"
    return f"exited with status {exitcode}"


def _die_with(parent: int) -> None:
    """Have the kernel end this worker when the thread that started it ends (Linux's
    PR_SET_PDEATHSIG), so a pool killed mid-task (SIGKILL, the out-of-memory killer) leaves no
    worker auditing on for nobody; elsewhere the closed pipe ends the worker after its task."""
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the pool went before the signal was armed
        os._exit(1)


def _serve(connection, initializer: Optional[Callable[[], None]], inherited: tuple[int, ...] = (),
           parent: Optional[int] = None) -> None:
    """Worker loop: receive ``(fn, args)``, send back ``(True, result)`` or ``(False, exception)``.

    ``inherited`` are the pool's ends of the pipes (the other workers' and this one's own), which
    a forked worker holds copies of: closed, so each worker sees the end of its own pipe when the
    pool goes away. ``parent``: the pool's process id, when this worker was forked on Linux.
    """
    if parent is not None and sys.platform.startswith("linux"):
        _die_with(parent)
    for descriptor in inherited:
        try:
            os.close(descriptor)
        except OSError:
            pass
    if initializer is not None:
        initializer()
    while True:
        try:
            message = connection.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        fn, args = message
        try:
            outcome = (True, fn(*args))
        except BaseException as error:  # handed back to the caller's future, as concurrent.futures does
            outcome = (False, error)
        connection.send(outcome)


class _Slot:
    """One worker process and the thread that feeds it, one task at a time."""

    def __init__(self, pool: "IsolatingProcessPool"):
        self.pool = pool
        self.process = None
        self.connection = None
        self.thread = threading.Thread(target=self._run, name="usdjoints-audit-slot", daemon=True)
        self.thread.start()

    def _start(self) -> None:
        with self.pool.starting:  # no other worker forks while this pipe's child end is open
            parent, child = self.pool.context.Pipe()
            inherited, pool_pid = (), None
            if self.pool.context.get_start_method() == "fork":
                inherited = tuple(s.connection.fileno() for s in self.pool.slots
                                  if s is not self and s.connection is not None) + (parent.fileno(),)
                pool_pid = os.getpid()
            self.process = self.pool.context.Process(
                target=_serve, args=(child, self.pool.initializer, inherited, pool_pid), daemon=True)
            self.process.start()
            child.close()
            self.connection = parent

    def _stop(self) -> None:
        if self.process is None:
            return
        try:
            self.connection.send(None)
        except (BrokenPipeError, OSError):
            pass
        self.process.join(timeout=5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self._forget()

    def _forget(self) -> None:
        with self.pool.starting:
            self.connection.close()
            self.process = self.connection = None

    def _run(self) -> None:
        while True:
            item = self.pool.tasks.get()
            if item is None:
                self._stop()
                return
            future, fn, args = item
            if not future.set_running_or_notify_cancel():
                continue
            if self.process is not None and not self.process.is_alive():
                self._forget()  # died between tasks (killed while idle): replaced below
            if self.process is None:
                try:
                    self._start()
                except BaseException as error:  # no worker process: the task fails, the caller hears it
                    future.set_exception(error)
                    continue
            try:
                self.connection.send((fn, args))
                ready = wait([self.connection, self.process.sentinel])
                if self.connection in ready:
                    ok, value = self.connection.recv()
                else:
                    raise EOFError
            except (EOFError, OSError):
                self.process.join(timeout=5)
                exitcode = self.process.exitcode
                self._forget()
                future.set_exception(WorkerDied(exitcode))
                continue
            except BaseException as error:  # the task could not be sent (unpicklable arguments)
                future.set_exception(error)
                continue
            if ok:
                future.set_result(value)
            else:
                future.set_exception(value)


class IsolatingProcessPool(Executor):
    """``max_workers`` processes; a task whose process dies fails alone with :class:`WorkerDied`.

    Processes start on first use with ``initializer`` run once in each; a dead one is replaced
    before its slot takes the next task. ``fork`` is used where the platform has it (workers start
    in milliseconds and inherit the imported modules), ``spawn`` elsewhere.
    """

    def __init__(self, max_workers: int, initializer: Optional[Callable[[], None]] = None,
                 context: Optional[str] = None):
        if max_workers < 1:
            raise ValueError("max_workers must be at least 1")
        methods = multiprocessing.get_all_start_methods()
        self.context = multiprocessing.get_context(context or ("fork" if "fork" in methods else "spawn"))
        self.initializer = initializer
        self.tasks: "queue.SimpleQueue" = queue.SimpleQueue()
        self._max_workers = max_workers
        self.starting = threading.Lock()
        self.slots: list[_Slot] = []
        self.slots.extend(_Slot(self) for _ in range(max_workers))
        self._shutdown = False
        self._lock = threading.Lock()

    def submit(self, fn, /, *args, **kwargs) -> Future:
        if kwargs:
            raise TypeError("IsolatingProcessPool.submit takes positional arguments only")
        with self._lock:
            if self._shutdown:
                raise RuntimeError("cannot submit to a pool that was shut down")
            future: Future = Future()
            self.tasks.put((future, fn, args))
            return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._lock:
            if self._shutdown:
                return
            self._shutdown = True
        if cancel_futures:
            while True:
                try:
                    item = self.tasks.get_nowait()
                except queue.Empty:
                    break
                if item is not None:
                    item[0].cancel()
        for _ in self.slots:
            self.tasks.put(None)
        if wait:
            for slot in self.slots:
                slot.thread.join()

    def terminate(self) -> None:
        """Kill the worker processes now (after an interrupt): running tasks are lost."""
        for slot in self.slots:
            process = slot.process
            if process is not None and process.is_alive():
                process.kill()
