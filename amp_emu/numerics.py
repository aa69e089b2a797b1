"""The numerics lab: watch every overflow, NaN, underflow and subnormal of a low-precision run.

``NumericsMonitor`` is a dispatch mode. For every op it sees, and every floating result in a
watched format (float16 and bfloat16 by default), it counts per op, per tensor role and per
format:

* ``overflow``: values that were finite before the op's one rounding and became ±inf in it;
* ``underflow``: values that were non-zero before the rounding and flushed to zero in it;
* ``nan``: NaN results; ``inf``: ±inf results (new or carried);
* ``subnormal``: results in the format's subnormal range (non-zero, below its smallest
  normal), where precision is lost bit by bit;
* an exponent histogram (``frexp`` exponents of the non-zero finite results).

"Before the rounding" is the op's opmath (fp32) value (so for a watched fp32 format, whose ops
compute in fp32 itself, overflow and underflow are counted for casts only): the monitor listens to the kernel base's
single rounding (``minigrad.ops._util.wrap``) and, for casts (``_to_copy``), compares input and
output. Roles: ``activation`` (forward results), ``gradient`` (results made while the autograd
engine runs, and GradScaler's unscaling), ``weight`` (casts of parameters, and writes into
parameters inside ``Optimizer.step``), ``optimizer state`` (other results of the step).

``report()`` prints the table; ``plot(path)`` draws the exponent histograms against each
format's range (matplotlib). ``first_nonfinite_gradient`` names the first op whose gradient
went non-finite in the last backward: ``GradScaler`` reads it for its skipped-steps warning
(``amp_emu.grad_scaler``).

Example::

    with amp_emu.numerics.NumericsMonitor() as mon:
        loss = model(x).float().pow(2).mean()
        loss.backward()
    print(mon.report())

Not in PyTorch (there is no such tool there); our own API.
"""
from __future__ import annotations

import numpy as np

from minigrad import dtypes as _dt
from minigrad.dispatch import DispatchMode, flat_tensors
from minigrad.nn.parameter import Parameter
from minigrad.tensor import Tensor

__all__ = ["NumericsMonitor", "Counts", "last_monitor"]

_FIELDS = ("values", "overflow", "underflow", "nan", "inf", "subnormal")
_LAST = [None]


def last_monitor():
    """The most recently entered ``NumericsMonitor`` that is still active, or None."""
    m = _LAST[0]
    return m if m is not None and m.active else None


class Counts:
    """Counters for one (op, role, format): ``values`` seen, ``overflow``, ``underflow``,
    ``nan``, ``inf``, ``subnormal`` (see the module docstring)."""

    __slots__ = _FIELDS

    def __init__(self):
        for f in _FIELDS:
            setattr(self, f, 0)

    def as_dict(self) -> dict:
        """The counters as a dict."""
        return {f: getattr(self, f) for f in _FIELDS}

    def __repr__(self):
        return "Counts(" + ", ".join(f"{k}={v}" for k, v in self.as_dict().items()) + ")"


_tensors = flat_tensors


def _finfo(d):
    fi = _dt.finfo(d)
    return float(fi.tiny), float(fi.max)


class NumericsMonitor(DispatchMode):
    """Count overflows, underflows, NaNs and subnormals per op and role (module docstring).

    Args:
        formats: the dtypes (or names) to watch; default float16 and bfloat16 (add
            ``"float32"`` to watch fp32 too).
        histogram: also keep exponent histograms.

    Attributes:
        counts: ``{(op, role, format name): Counts}``.
        histograms: ``{(role, format name): {exponent: count}}``.
        first_nonfinite_gradient: ``(op, format)`` of the first op that made a non-finite
            gradient in the most recent backward, or None.
    """

    def __init__(self, formats=("float16", "bfloat16"), histogram: bool = True):
        self.formats = {_dt.as_dtype(f).name for f in formats}
        self.histogram = histogram
        self.counts = {}
        self.histograms = {}
        self.first_nonfinite_gradient = None
        self.active = False
        self._stack = []
        self._in_step = 0
        self._in_backward = False

    # -------------------------------------------------------------------- mode plumbing
    def __enter__(self):
        from minigrad.ops import _util
        from minigrad.profiler.record_function import observers
        _util.ROUNDING_WATCHERS.append(self._on_round)
        observers.append(self._observe)
        self.active = True
        _LAST[0] = self
        return super().__enter__()

    def __exit__(self, *exc):
        from minigrad.ops import _util
        from minigrad.profiler.record_function import observers
        _util.ROUNDING_WATCHERS.remove(self._on_round)
        observers.remove(self._observe)
        self.active = False
        return super().__exit__(*exc)

    def _observe(self, name, entering):
        if name.startswith("Optimizer.step#"):
            self._in_step += 1 if entering else -1

    def _role(self, op_name, args):
        if self._in_step:
            first = args[0] if args else None
            firsts = first if isinstance(first, (list, tuple)) else [first]
            if op_name.endswith("_") and firsts and isinstance(firsts[0], Parameter):
                return "weight"
            return "optimizer state"
        from minigrad.autograd.engine import _current_graph_task_id
        if _current_graph_task_id() != -1 or op_name.startswith("_amp_"):
            return "gradient"
        if op_name == "_to_copy" and args and isinstance(args[0], Parameter):
            return "weight"
        return "activation"

    def __minigrad_dispatch__(self, op_name, args, kwargs, call_next):
        role = self._role(op_name, args)
        from minigrad.autograd.engine import _current_graph_task_id
        in_bw = _current_graph_task_id() != -1
        if in_bw and not self._in_backward:
            self.first_nonfinite_gradient = None       # a new backward starts
        self._in_backward = in_bw
        self._stack.append((op_name, role))
        try:
            out = call_next(args, kwargs)
        finally:
            self._stack.pop()
        res = out if out is not None else (args[0] if op_name.endswith("_") and args else None)
        outs = _tensors(res if isinstance(res, (list, tuple)) else [res])
        if op_name == "_to_copy" and outs and args and isinstance(args[0], Tensor):
            self._on_round(args[0]._data, outs[0]._data, outs[0].dtype, op=(op_name, role))
        views = not op_name.endswith("_")       # an in-place op's result has new values
        for t in outs:
            if views and any(np.may_share_memory(t._data, a._data) for a in _tensors(args)):
                continue                            # a view (t, expand...): no new values
            self._count_values(op_name, role, t)
        return out

    # -------------------------------------------------------------------- counting
    def _bucket(self, op, role, dname):
        key = (op, role, dname)
        c = self.counts.get(key)
        if c is None:
            c = self.counts[key] = Counts()
        return c

    def _on_round(self, src, dst, dtype, op=None):
        """Told of one rounding ``src`` (opmath values) -> ``dst`` (``dtype`` storage)."""
        if dtype.name not in self.formats or dst.size == 0:
            return
        if op is None:
            if not self._stack or self._stack[-1][0] == "_to_copy":
                return                  # casts are counted from their input and output
            op = self._stack[-1]
        s = np.asarray(src, np.float64)
        d = np.asarray(dst).astype(np.float64)
        c = self._bucket(op[0], op[1], dtype.name)
        with np.errstate(invalid="ignore"):
            c.overflow += int(np.count_nonzero(np.isfinite(s) & np.isinf(d)))
            c.underflow += int(np.count_nonzero((s != 0) & np.isfinite(s) & (d == 0)))

    def _count_values(self, op, role, t):
        d = t.dtype
        if d.name not in self.formats or t._data.size == 0:
            return
        a = np.asarray(t._data).astype(np.float64).ravel()
        tiny, _ = _finfo(d)
        c = self._bucket(op, role, d.name)
        nan = int(np.count_nonzero(np.isnan(a)))
        inf = int(np.count_nonzero(np.isinf(a)))
        c.values += a.size
        c.nan += nan
        c.inf += inf
        mag = np.abs(a[np.isfinite(a)])
        c.subnormal += int(np.count_nonzero((mag > 0) & (mag < tiny)))
        if (nan or inf) and role == "gradient" and self.first_nonfinite_gradient is None:
            self.first_nonfinite_gradient = (op, d.name)
        if self.histogram:
            nz = mag[mag > 0]
            if nz.size:
                _, e = np.frexp(nz)
                vals, cnt = np.unique(e, return_counts=True)
                h = self.histograms.setdefault((role, d.name), {})
                for v, n in zip(vals.tolist(), cnt.tolist()):
                    h[v] = h.get(v, 0) + n

    # -------------------------------------------------------------------- results
    def totals(self, role=None, dtype=None) -> Counts:
        """The counters summed over ops (optionally for one role and/or format)."""
        tot = Counts()
        dname = None if dtype is None else _dt.as_dtype(dtype).name
        for (op, r, dn), c in self.counts.items():
            if (role is None or r == role) and (dname is None or dn == dname):
                for f in _FIELDS:
                    setattr(tot, f, getattr(tot, f) + getattr(c, f))
        return tot

    def report(self, only_events: bool = True) -> str:
        """The table: role, op, format and the counters, one row per (op, role, format);
        with ``only_events`` (default) only rows with an overflow, underflow, NaN, inf or
        subnormal."""
        head = f"{'role':<16} {'op':<36} {'format':<9} " + \
               " ".join(f"{f:>10}" for f in _FIELDS)
        lines = [head, "-" * len(head)]
        for (op, role, dn), c in sorted(self.counts.items(), key=lambda kv: (kv[0][1],
                                                                              kv[0][0])):
            vals = c.as_dict()
            if only_events and not any(vals[f] for f in _FIELDS[1:]):
                continue
            lines.append(f"{role:<16} {op:<36} {dn:<9} " +
                         " ".join(f"{vals[f]:>10}" for f in _FIELDS))
        for role in ("activation", "gradient", "weight", "optimizer state"):
            t = self.totals(role)
            if t.values:
                pct = 100.0 * (t.underflow + t.subnormal) / t.values
                lines.append(f"{role}: {t.values} values, {t.overflow} overflowed, "
                             f"{t.underflow} flushed to zero, {t.subnormal} subnormal, "
                             f"{t.nan} NaN ({pct:.2f}% lost to underflow or subnormal)")
        return "\n".join(lines)

    def plot(self, path=None):
        """Draw the exponent histograms, one panel per (role, format), with the format's
        smallest subnormal, smallest normal and largest exponents marked; saved to ``path``
        when given. Returns the matplotlib figure (needs matplotlib)."""
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        keys = sorted(self.histograms)
        fig, axes = plt.subplots(len(keys) or 1, 1, figsize=(8, 2.2 * max(1, len(keys))),
                                 squeeze=False)
        for ax, key in zip(axes[:, 0], keys):
            h = self.histograms[key]
            xs = sorted(h)
            ax.bar(xs, [h[x] for x in xs], width=0.9)
            d = _dt.as_dtype(key[1])
            fi = np.finfo(d.np) if d.name != "bfloat16" else None
            tiny, mx = _finfo(d)
            lo_norm = int(np.frexp(tiny)[1])
            hi = int(np.frexp(mx)[1])
            mant = 10 if d.name == "float16" else 7 if d.name == "bfloat16" else \
                (fi.nmant if fi is not None else 23)
            for x, label in ((lo_norm - mant, "smallest subnormal"),
                             (lo_norm, "smallest normal"), (hi, "max")):
                ax.axvline(x - 0.5, color="red", linestyle="--", linewidth=0.8)
                ax.text(x - 0.5, ax.get_ylim()[1] * 0.9, label, fontsize=7, rotation=90)
            ax.set_title(f"{key[0]} ({key[1]})", fontsize=9)
            ax.set_yscale("log")
        axes[-1, 0].set_xlabel("binary exponent (frexp)")
        fig.tight_layout()
        if path is not None:
            fig.savefig(path)
        return fig
