"""``checkpoint(..., debug=True)``: log the ops of the forward and of the recomputation, and
show both logs when a ``CheckpointError`` is raised (PyTorch's ``_get_debug_context_and_cb``).

The log is a dispatch mode (``minigrad.dispatch``) that writes one line per op, as PyTorch's
``LoggingTensorMode`` does: ``$2: f32[3] = aten.exp.default($1)``. Deliberate difference: each op
carries the Python frame that called it, not PyTorch's Python/TorchScript/C++ traces.
"""
from __future__ import annotations

import traceback

from ..dispatch import DispatchMode
from ..tensor import Tensor

__all__ = ["debug_context_and_callback"]

_TEMPLATE = """ \
An error happened while unpacking tensors; dumping logs of latest computation
because you passed `debug=True` to `torch.utils.checkpoint.checkpoint()`.
Scroll all the way down for guidance on how to navigate these logs.

+~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~+
|        1. Stack traces of the operators that ran in the original forward     |
+------------------------------------------------------------------------------+

{forward_traces}
+~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~+
|        2. Stack traces of the operators that ran during recomputation        |
+------------------------------------------------------------------------------+

{recompute_traces}
+~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~+
|       3. Log of operators in the original forward and recomputation          |
+------------------------------------------------------------------------------+
(Scroll up to correlate stack traces with each operation listed below. This
 helps identify their source in the code.)

IMPORTANT: Differences in "detach" calls between the original forward and the
           recomputation are expected. They are introduced by the checkpointing
           mechanism and can be ignored.

Operations executed during the original forward:

{forward_ops}

Operations executed during recomputation:

{recompute_ops}

+------------------------------------------------------------------------------+
 ERROR: Detected non-determinism while running activation checkpointing

 You are seeing this error because you passed `debug=True` to checkpoint and
 tensors to be saved during the original forward and differ between those saved
 during recomputation. This can happen if different operators were ran in the
 original forward and in the recomputation.

 To identify where the mismatch may be coming from, you can do the following:

 1) Compare the operators ran during original forward and recomputation to
    see where they differ. These operators are printed above in the order they
    were executed.

 2) Review the stack trace for each operator to locate its invocation source.
    Each operator's stack trace is printed in their execution order.

 Note that the logs can be quite long. Here's how they are structured:
 (Tip: you can Ctrl-f for these headers)

 1. Stack traces of the operators that ran in the original forward
 2. Stack traces of the operators that ran during recomputation
 3. Log of operators in the original forward and recomputation
 4. Error message                                             <--- You are here
--------------------------------------------------------------------------------
"""


def _meta(t):
    """PyTorch's log notation of a tensor: ``f32[2, 3]``, ``bf16[4]``, ``i64[]``, ``b8[3]``."""
    d = t.dtype
    if d.is_floating_point:
        kind = "bf" if d.name == "bfloat16" else "f"
    else:
        kind = "b" if d.name == "bool" else ("i" if d.is_signed else "u")
    return f"{kind}{d.itemsize * 8}{list(t.shape)}"


class _LoggingMode(DispatchMode):
    """Writes one line per dispatched op: ``$k: <dtype>[shape] = aten.<op>(<args>)``, tensors
    named ``$i`` in order of first sight, and the calling frame of each op."""

    def __init__(self):
        self.logs, self.tbs, self._names = [], [], {}

    def _name(self, t):
        k = id(t)
        if k not in self._names:
            self._names[k] = (f"${len(self._names)}", t)   # keep t: ids stay unique
        return self._names[k][0]

    def __minigrad_dispatch__(self, op_name, args, kwargs, call_next):
        shown = ", ".join(self._name(a) if isinstance(a, Tensor) else repr(a) for a in args)
        op = op_name if "." in op_name else op_name + ".default"
        i = len(self.logs)
        self.logs.append(f"aten.{op}({shown})")     # logged before it runs, as PyTorch's log
        self.tbs.append(traceback.extract_stack(limit=12)[:-3])
        out = call_next(args, kwargs)
        outs = out if isinstance(out, tuple) else (out,)
        res = ", ".join(f"{self._name(o)}: {_meta(o)}" for o in outs if isinstance(o, Tensor))
        self.logs[i] = f"{res} = {self.logs[i]}"
        return out


def debug_context_and_callback(error_cls):
    """``(context_fn, unpack_error_cb)`` for ``debug=True``: the context_fn logs the forward and
    the recomputation; the callback raises ``error_cls`` with both logs, from the original
    error."""
    fwd, rec = _LoggingMode(), _LoggingMode()

    def context_fn():
        return fwd, rec

    def traces(label, mode):
        n = len(mode.logs)
        out = ""
        for i, (log, tb) in enumerate(zip(mode.logs, mode.tbs)):
            out += f"{log}   ({i + 1} of {n} in {label})\n\n"
            out += "".join(f"{f.filename}:{f.lineno}:{f.name}\n" for f in tb[-4:]) + "\n\n"
        return out

    def unpack_error_cb(e):
        raise error_cls(_TEMPLATE.format(
            forward_traces=traces("original", fwd), recompute_traces=traces("recompute", rec),
            forward_ops="\n".join(fwd.logs), recompute_ops="\n".join(rec.logs))) from e

    return context_fn, unpack_error_cb

