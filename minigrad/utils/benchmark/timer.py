"""``Timer``: ``timeit`` with warm-up, thread control and replicates (``torch.utils.benchmark``).

Mirrors ``torch.utils.benchmark.utils.timer``. The statement runs in blocks of ``number`` runs;
``blocked_autorange`` first grows the block (1, 10, 100...) until the timer's own overhead is
under 0.01% of a block and a block takes at least ``min_run_time / 1000``, then measures blocks
until ``min_run_time`` has passed; ``adaptive_autorange`` keeps measuring until the IQR is under
``threshold`` of the median (or ``max_run_time``). ``num_threads`` sets the emulated intra-op
thread count while timing (``minigrad.set_num_threads``, which decides how the kernels chunk
their reductions). The emulated cuda device computes synchronously, so the default timer needs
no synchronisation. Python statements only (PyTorch's C++ ``language`` and Callgrind
collection are not provided).
"""
from __future__ import annotations

import enum
import textwrap
import timeit

import numpy as np

from . import common

__all__ = ["Timer", "timer", "Language"]


def timer() -> float:
    """The default clock: ``timeit.default_timer`` (``time.perf_counter``)."""
    return timeit.default_timer()


class Language(enum.Enum):
    """Statement languages (``torch.utils.benchmark.Language``); only PYTHON runs here."""
    PYTHON = 0
    CPP = 1


class Timer:
    """Time a Python statement (``torch.utils.benchmark.Timer``).

    Args:
        stmt: the code timed (dedented; a leading newline and trailing space are dropped).
        setup: code run once before timing, in the same namespace.
        global_setup: C++ only in PyTorch; must be empty here.
        timer: the clock, a function returning seconds.
        globals: the namespace ``stmt`` and ``setup`` run in (copied); ``torch`` is bound to
            ``minigrad`` unless given, so PyTorch statements run unchanged.
        label, sub_label, description, env: names used by ``Measurement`` and ``Compare``
            (label: the table; sub_label: the row; description: the column; env: A/B tag).
        num_threads: emulated intra-op threads while timing.

    Raises:
        ValueError: ``stmt`` not a str ("Currently only a `str` stmt is supported."), a
            ``global_setup`` ("global_setup is C++ only, ..."), or a language other than Python.
    """

    _timer_cls = timeit.Timer

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=timer, globals=None,
                 label=None, sub_label=None, description=None, env=None, num_threads=1,
                 language=Language.PYTHON):
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        if language not in (Language.PYTHON, "py", "python"):
            raise ValueError(f"Invalid language `{language}`: minigrad's Timer runs Python "
                             "statements only.")
        if global_setup:
            raise ValueError(f"global_setup is C++ only, got `{global_setup}`. Most likely this "
                             "code can simply be moved to `setup`.")
        import minigrad
        self._globals = dict(globals or {})
        self._globals.setdefault("torch", minigrad)
        stmt = textwrap.dedent(stmt)
        stmt = (stmt[1:] if stmt and stmt[0] == "\n" else stmt).rstrip()
        setup = textwrap.dedent(setup)
        setup = (setup[1:] if setup and setup[0] == "\n" else setup).rstrip()
        self._timer = self._timer_cls(stmt=stmt, setup=setup, timer=timer, globals=self._globals)
        self._task_spec = common.TaskSpec(stmt=stmt, setup=setup, global_setup=global_setup,
                                          label=label, sub_label=sub_label,
                                          description=description, env=env,
                                          num_threads=num_threads)

    def _timeit(self, number: int) -> float:
        # a zero time would make relative figures infinite
        return max(self._timer.timeit(number), 1e-9)

    def timeit(self, number: int = 1000000) -> common.Measurement:
        """Run ``stmt`` ``number`` times after a warm-up of ``max(number // 100, 2)`` runs;
        one raw time (``timeit.Timer.timeit``'s semantics)."""
        with common.set_torch_threads(self._task_spec.num_threads):
            self._timeit(number=max(int(number // 100), 2))
            return common.Measurement(number_per_run=number,
                                      raw_times=[self._timeit(number=number)],
                                      task_spec=self._task_spec)

    def repeat(self, repeat: int = -1, number: int = -1):
        """Not provided, as in PyTorch.

        Raises:
            NotImplementedError: "See `Timer.blocked_autorange.`"
        """
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback=None):
        """Not provided, as in PyTorch.

        Raises:
            NotImplementedError: "See `Timer.blocked_autorange.`"
        """
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _measurement_loop(self, number, stop_hook, min_run_time, max_run_time=None,
                          callback=None):
        total, can_stop, times = 0.0, False, []
        with common.set_torch_threads(self._task_spec.num_threads):
            while total < min_run_time or not can_stop:
                t = self._timeit(number)
                times.append(t)
                total += t
                if callback:
                    callback(number, t)
                can_stop = stop_hook(times)
                if max_run_time and total > max_run_time:
                    break
        return times

    def _estimate_block_size(self, min_run_time: float) -> int:
        with common.set_torch_threads(self._task_spec.num_threads):
            overhead = float(np.median([self._timeit(0) for _ in range(5)]))
            number = 1
            while True:
                taken = self._timeit(number)
                if overhead / taken <= 1e-4 and taken >= min_run_time / 1000:
                    break
                if taken > min_run_time or number * 10 > 2147483647:
                    break
                number *= 10
        return number

    def blocked_autorange(self, callback=None, min_run_time: float = 0.2) -> common.Measurement:
        """Measure blocks of a calibrated size until ``min_run_time`` seconds have passed.

        Args:
            callback: called as ``callback(number, seconds)`` after each block.
            min_run_time: total seconds of measured blocks (at least one block).
        """
        number = self._estimate_block_size(min_run_time)
        times = self._measurement_loop(number, lambda times: True, min_run_time,
                                       callback=callback)
        return common.Measurement(number_per_run=number, raw_times=times,
                                  task_spec=self._task_spec)

    def adaptive_autorange(self, threshold: float = 0.1, *, min_run_time: float = 0.01,
                           max_run_time: float = 10.0, callback=None) -> common.Measurement:
        """Like ``blocked_autorange``, but measure until more than 3 blocks give
        ``iqr / median < threshold`` (after ``min_run_time``) or ``max_run_time`` passes."""
        number = self._estimate_block_size(min_run_time=0.05)

        def stop_hook(times):
            if len(times) > 3:
                return common.Measurement(number_per_run=number, raw_times=times,
                                          task_spec=self._task_spec
                                          ).meets_confidence(threshold=threshold)
            return False

        times = self._measurement_loop(number, stop_hook, min_run_time, max_run_time,
                                       callback=callback)
        return common.Measurement(number_per_run=number, raw_times=times,
                                  task_spec=self._task_spec)
