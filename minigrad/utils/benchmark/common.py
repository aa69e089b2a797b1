"""``TaskSpec`` and ``Measurement``: what was timed, and the times with their statistics.

Mirrors ``torch.utils.benchmark.utils.common``. A ``Measurement`` holds raw times of blocks of
``number_per_run`` runs; ``times`` are per run. Its median and quartiles use linear
interpolation (``torch.quantile``'s default, ``numpy.quantile``'s too); ``significant_figures``
estimates the precision from the interquartile points; its ``repr`` carries PyTorch's warning
when the IQR is over 10% (or 25%) of the median.
"""
from __future__ import annotations

import collections
import contextlib
import dataclasses
import math
import textwrap
from typing import Any

import numpy as np

__all__ = ["TaskSpec", "Measurement", "select_unit", "unit_to_english", "trim_sigfig",
           "ordered_unique", "set_torch_threads"]

_MAX_SIGNIFICANT_FIGURES = 4
_MIN_CONFIDENCE_INTERVAL = 25e-9  # 25 ns
_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25


@dataclasses.dataclass(init=True, repr=False, eq=True, frozen=True)
class TaskSpec:
    """What a Timer times (everything but its globals), ``torch.utils.benchmark``'s TaskSpec."""
    stmt: str
    setup: str
    global_setup: str = ""
    label: str | None = None
    sub_label: str | None = None
    description: str | None = None
    env: str | None = None
    num_threads: int = 1

    @property
    def title(self) -> str:
        """The label (or the one-line statement), with the sub-label."""
        if self.label is not None:
            return self.label + (f": {self.sub_label}" if self.sub_label else "")
        if "\n" not in self.stmt:
            return self.stmt + (f": {self.sub_label}" if self.sub_label else "")
        return (f"stmt:{f' ({self.sub_label})' if self.sub_label else ''}\n"
                f"{textwrap.indent(self.stmt, '  ')}")

    def setup_str(self) -> str:
        """``"setup: ..."`` (or nothing for an empty / ``pass`` setup)."""
        if self.setup == "pass" or not self.setup:
            return ""
        if "\n" in self.setup:
            return f"setup:\n{textwrap.indent(self.setup, '  ')}"
        return f"setup: {self.setup}"

    def summarize(self) -> str:
        """The task part of a Measurement's repr."""
        parts = [self.title, self.description or "", self.setup_str()]
        return "\n".join(f"{p}\n" if "\n" in p else p for p in parts if p)


_TASKSPEC_FIELDS = tuple(f.name for f in dataclasses.fields(TaskSpec))


@dataclasses.dataclass(init=True, repr=False)
class Measurement:
    """Times of one statement (``torch.utils.benchmark.Measurement``).

    Attributes:
        number_per_run: runs of the statement per raw time.
        raw_times: seconds per block of ``number_per_run`` runs.
        task_spec: the TaskSpec timed; its fields (``stmt``, ``label``, ``num_threads``...) are
            readable on the Measurement too.
        metadata: a free dict for the user.

    Properties: ``times`` (seconds per run), ``median``, ``mean``, ``iqr`` (seconds),
    ``significant_figures``, ``has_warnings``.
    """
    number_per_run: int
    raw_times: list
    task_spec: TaskSpec
    metadata: dict | None = None

    def __post_init__(self) -> None:
        self._sorted_times: tuple = ()
        self._warnings: tuple = ()
        self._median = self._mean = self._p25 = self._p75 = -1.0

    def __getattr__(self, name: str) -> Any:
        if name in _TASKSPEC_FIELDS:
            return getattr(self.task_spec, name)
        return super().__getattribute__(name)

    @property
    def times(self) -> list:
        """Seconds per run: each raw time divided by ``number_per_run``."""
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self) -> float:
        self._lazy_init()
        return self._median

    @property
    def mean(self) -> float:
        self._lazy_init()
        return self._mean

    @property
    def iqr(self) -> float:
        """The interquartile range (75th less 25th percentile) of ``times``."""
        self._lazy_init()
        return self._p75 - self._p25

    @property
    def significant_figures(self) -> int:
        """An estimate (1 to 4) of the digits of the median that the spread supports: the
        median over a 90% confidence half-width from the interquartile points (PyTorch's
        rough rule, used by ``Compare.trim_significant_figures``)."""
        self._lazy_init()
        n = len(self._sorted_times)
        pts = self._sorted_times[n // 4:math.ceil(3 * n / 4)]
        std = float(np.std(np.asarray(pts, dtype=np.float64)))
        ci = max(1.645 * std / math.sqrt(len(pts)), _MIN_CONFIDENCE_INTERVAL)
        figures = int(math.floor(math.log10(self._median / ci)))
        return min(max(figures, 1), _MAX_SIGNIFICANT_FIGURES)

    @property
    def has_warnings(self) -> bool:
        self._lazy_init()
        return bool(self._warnings)

    def _lazy_init(self) -> None:
        if self.raw_times and not self._sorted_times:
            self._sorted_times = tuple(sorted(self.times))
            t = np.asarray(self._sorted_times, dtype=np.float64)
            self._median = float(np.quantile(t, 0.5))
            self._mean = float(t.mean())
            self._p25 = float(np.quantile(t, 0.25))
            self._p75 = float(np.quantile(t, 0.75))

            def add_warning(msg):
                rel_iqr = self.iqr / self.median * 100
                self._warnings += (f"  WARNING: Interquartile range is {rel_iqr:.1f}% "
                                   f"of the median measurement.\n           {msg}",)

            if not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD):
                add_warning("This suggests significant environmental influence.")
            elif not self.meets_confidence(_IQR_WARN_THRESHOLD):
                add_warning("This could indicate system fluctuation.")

    def meets_confidence(self, threshold: float = _IQR_WARN_THRESHOLD) -> bool:
        """Whether ``iqr / median < threshold``."""
        return self.iqr / self.median < threshold

    @property
    def title(self) -> str:
        return self.task_spec.title

    @property
    def env(self):
        """The env tag (None when unset). PyTorch's property means to say "Unspecified env"
        then, but a misspelt attribute sends it to ``__getattr__``, which returns the raw tag:
        we return what PyTorch returns."""
        return self.task_spec.env

    @property
    def as_row_name(self) -> str:
        """The row name in a Compare table: the sub-label, else the statement."""
        return self.sub_label or self.stmt or "[Unknown]"

    def __repr__(self) -> str:
        """PyTorch's multi-line summary: the task, the median (and IQR with 4+ points), the
        counts, and the IQR warning when there is one."""
        self._lazy_init()
        n = len(self._sorted_times)
        unit, scale = select_unit(self._median)
        lines = [object.__repr__(self), self.task_spec.summarize(),
                 f"  {'Median: ' if n > 1 else ''}{self._median / scale:.2f} {unit}"]
        if n >= 4:
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} "
                         f"({self._p25 / scale:.2f} to {self._p75 / scale:.2f})")
        per = "per measurement," if n > 1 else ","
        lines.append(f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs {per} "
                     f"{self.num_threads} thread{'s' if self.num_threads > 1 else ''}")
        lines.extend(self._warnings)
        return "\n".join(lines).strip()

    @staticmethod
    def merge(measurements) -> list:
        """Merge replicates of the same TaskSpec into one Measurement each (times per run,
        ``number_per_run=1``, no metadata)."""
        groups = collections.defaultdict(list)
        for m in measurements:
            groups[m.task_spec].append(m)
        return [Measurement(number_per_run=1, raw_times=[t for m in g for t in m.times],
                            task_spec=spec, metadata=None) for spec, g in groups.items()]


def select_unit(t: float) -> tuple:
    """``(unit, scale)`` that writes ``t`` seconds with an O(1) number: ns, us, ms or s."""
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(int(math.log10(t) // 3), "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[unit]


def unit_to_english(u: str) -> str:
    """``"us"`` -> ``"microsecond"``..."""
    return {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}[u]


def trim_sigfig(x: float, n: int) -> float:
    """``x`` rounded to ``n`` significant figures (3.14159, 2 -> 3.1).

    Raises:
        AssertionError: ``n`` is not an integer.
    """
    if n != int(n):
        raise AssertionError("Number of significant figures must be an integer")
    magnitude = int(math.ceil(math.log10(abs(x))))
    scale = 10 ** (magnitude - n)
    return float(np.round(x / scale) * scale)


def ordered_unique(elements) -> list:
    """The distinct elements in first-seen order."""
    return list(dict.fromkeys(elements))


@contextlib.contextmanager
def set_torch_threads(n: int):
    """Emulate ``n`` intra-op threads inside (``minigrad.set_num_threads``), then restore."""
    from ... import numerics
    with numerics.num_threads(n):
        yield
