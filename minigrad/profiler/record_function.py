"""``record_function(name)``: a named range in the profile (``torch.profiler.record_function``).

Everything dispatched inside the range nests under it in the table's totals and in the trace.
Outside a recording profiler it costs one look-up and records nothing, so library code may use
it unconditionally (``optim``'s ``Optimizer.step#AdamW.step`` and
``Optimizer.zero_grad#AdamW.zero_grad``, the profiler's own ``ProfilerStep#N``).
"""
from __future__ import annotations

import contextlib

from . import recorder as _recorder

__all__ = ["record_function", "observers"]

# callables ``observer(name, entering)`` told of every range opened and closed, profiler or not
# (``minigrad.memory.track`` watches ``Optimizer.step#...`` through it)
observers = []


class record_function(contextlib.ContextDecorator):
    """Context manager and decorator that records a range named ``name``.

    Args:
        name: the event's name, shown as is in the table and the trace (category
            ``user_annotation``).
        args: PyTorch's optional string argument attached to the range; accepted and kept in
            ``self.args``, not shown.

    Example:
        >>> with minigrad.profiler.record_function("attention"):
        ...     y = f(x)

    Mirrors ``torch.autograd.profiler.record_function``.
    """

    def __init__(self, name: str, args: str | None = None):
        self.name = name
        self.args = args
        self._events = []      # one entry per active __enter__ (None when nothing recorded)

    def __enter__(self):
        if observers:
            for o in observers:
                o(self.name, True)
        r = _recorder.current()
        self._events.append(None if r is None else (r, r.open(self.name, user_annotation=True)))
        return self

    def __exit__(self, *exc):
        entry = self._events.pop() if self._events else None
        if entry is not None:
            r, ev = entry
            if _recorder.current() is r:
                r.close(ev)
        if observers:
            for o in observers:
                o(self.name, False)
        return False
