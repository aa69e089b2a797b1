"""``minigrad.cuda.nvtx`` (``torch.cuda.nvtx``): NVTX ranges for Nsight, kept as a stack.

There is no Nsight to show them, so the ranges only nest: ``range_push`` returns the depth of the
new range (0 for the first), ``range_pop`` the depth left after popping it, -1 when none is
open, as NVTX's ``nvtxRangePush`` / ``nvtxRangePop`` return. ``mark`` does nothing; ``range``
is a context manager (and decorator) pushing and popping one range. To see where time goes, use
``minigrad.profiler`` and ``record_function``.
"""
from __future__ import annotations

import contextlib

__all__ = ["range_push", "range_pop", "range_start", "range_end", "mark", "range"]

_stack: list = []
_ids = [0]


def range_push(msg: str) -> int:
    """Open a nested range named ``msg``; its depth (0 for the outermost)."""
    _stack.append(msg)
    return len(_stack) - 1


def range_pop() -> int:
    """Close the innermost range; the depth left, or -1 when no range was open."""
    if not _stack:
        return -1
    _stack.pop()
    return len(_stack)


def range_start(msg: str) -> int:
    """Start a range that may overlap others; an id for :func:`range_end`."""
    _ids[0] += 1
    return _ids[0]


def range_end(range_id: int) -> None:
    """End the range :func:`range_start` returned ``range_id`` for."""


def mark(msg: str) -> None:
    """An instant marker: nothing is recorded."""


@contextlib.contextmanager
def range(msg: str, *args, **kwargs):  # noqa: A001 (PyTorch's name)
    """``with torch.cuda.nvtx.range("fwd"):`` pushes ``msg.format(*args, **kwargs)`` and pops it."""
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
