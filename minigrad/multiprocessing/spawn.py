"""``spawn`` / ``start_processes`` (``torch.multiprocessing.spawn``): run ``fn(i, *args)`` in
``nprocs`` new processes, wait for them, and raise the first failure in the parent with the
child's traceback (``ProcessRaisedException``) or its exit code / signal
(``ProcessExitedException``); the other processes are then terminated."""
from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import tempfile
import time
import warnings

__all__ = ["ProcessContext", "ProcessException", "ProcessExitedException",
           "ProcessRaisedException", "spawn", "SpawnContext", "start_processes"]


class ProcessException(Exception):
    """A spawned process failed: ``error_index`` (its ``i``) and ``error_pid``."""

    __slots__ = ["error_index", "error_pid"]

    def __init__(self, msg: str, error_index: int, error_pid: int):
        super().__init__(msg)
        self.msg, self.error_index, self.error_pid = msg, error_index, error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """The process's ``fn`` raised; the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """The process exited with a non-zero ``exit_code`` or was killed by ``signal_name``."""

    __slots__ = ["exit_code"]

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid, self.exit_code,
                            self.signal_name)


def _run(fn, i, args, error_file):
    """A spawned process's entry: ``fn(i, *args)``; an exception's traceback goes to
    ``error_file`` for the parent, and the process exits with status 1."""
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass                                    # the parent is terminating us
    except Exception:                           # noqa: BLE001 - reported to the parent
        import traceback
        with open(error_file, "wb") as fh:
            pickle.dump(traceback.format_exc(), fh)
        sys.exit(1)


class ProcessContext:
    """The processes ``start_processes(join=False)`` started: ``pids()``, ``join()``."""

    def __init__(self, processes, error_files):
        self.processes, self.error_files = processes, error_files
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self):
        """The processes' ids, by index."""
        return [int(p.pid) for p in self.processes]

    def join(self, timeout=None, grace_period=None):
        """Wait (at most ``timeout`` seconds) for a process to end. Returns True once all have
        ended successfully, False while some still run.

        Raises:
            ProcessRaisedException / ProcessExitedException: a process failed; the others are
                terminated first (after ``grace_period`` seconds, if given).
        """
        if not self.sentinels:
            return True
        failed = None
        for sentinel in multiprocessing.connection.wait(list(self.sentinels), timeout=timeout):
            i = self.sentinels.pop(sentinel)
            self.processes[i].join()
            if self.processes[i].exitcode != 0:
                failed = i
                break
        if failed is None:
            return not self.sentinels
        self._stop_others(grace_period)
        self._raise(failed)

    def _stop_others(self, grace_period):
        deadline = time.monotonic() + (grace_period or 0)
        for p in self.processes:
            p.join(max(0.0, deadline - time.monotonic()))
        for p in self.processes:
            if p.is_alive():
                p.terminate()
        deadline = time.monotonic() + (30 if grace_period is None else grace_period)
        for p in self.processes:
            p.join(max(0.0, deadline - time.monotonic()))
            if p.is_alive():
                p.kill()
                p.join()

    def _raise(self, i):
        p, path = self.processes[i], self.error_files[i]
        if os.access(path, os.R_OK):
            with open(path, "rb") as fh:
                trace = pickle.load(fh)
            raise ProcessRaisedException(
                f"\n\n-- Process {i:d} terminated with the following error:\n" + trace, i, p.pid)
        code = p.exitcode
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"<Unknown signal {-code}>"
            raise ProcessExitedException(f"process {i:d} terminated with signal {name}", i,
                                         p.pid, code, name)
        raise ProcessExitedException(f"process {i:d} terminated with exit code {code:d}", i,
                                     p.pid, code)


class SpawnContext(ProcessContext):
    """The old name of ``ProcessContext`` (warns, as PyTorch)."""

    def __init__(self, processes, error_files):
        warnings.warn("SpawnContext is renamed to ProcessContext since 1.4 release.",
                      stacklevel=2)
        super().__init__(processes, error_files)


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Start ``nprocs`` processes running ``fn(i, *args)`` (``i`` = 0 .. nprocs-1) with the
    ``multiprocessing`` start method ``start_method``. ``fn`` must be importable (a module's
    top-level function) for "spawn" and "forkserver".

    Returns:
        None after all processes ended (``join=True``), else a ``ProcessContext``.

    Raises:
        ProcessRaisedException / ProcessExitedException: as ``ProcessContext.join``.
    """
    ctx = multiprocessing.get_context(start_method)
    processes, error_files = [], []
    for i in range(nprocs):
        fd, path = tempfile.mkstemp(prefix="minigrad-errorfile-", suffix=".pickle")
        os.close(fd)
        os.unlink(path)                 # the child writes it only when fn raises
        p = ctx.Process(target=_run, args=(fn, i, args, path), daemon=daemon)
        p.start()
        processes.append(p)
        error_files.append(path)
    context = ProcessContext(processes, error_files)
    if not join:
        return context
    while not context.join():
        pass


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """``start_processes`` with the "spawn" start method (``torch.multiprocessing.spawn``;
    another ``start_method`` warns with PyTorch's FutureWarning and is ignored)."""
    if start_method != "spawn":
        warnings.warn(f"This method only supports start_method=spawn (got: {start_method}).\n"
                      "To use a different start_method use:\n\t\t"
                      " torch.multiprocessing.start_processes(...)", FutureWarning, stacklevel=2)
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
