"""``repr`` of tensors in PyTorch's style: ``tensor([1.0000, 2.5000], dtype=minigrad.float16,
grad_fn=<AddBackward0>)``. Integral floats print as ``1.``, others with 4 decimals, or in
scientific notation when magnitudes span more than 1e3..1e-4 (PyTorch's ``_tensor_str`` rules,
simplified: no summarisation thresholds other than NumPy's)."""
from __future__ import annotations

import numpy as np

from . import dtypes as _dt

_DEFAULT_SHOWN = (_dt.int64, _dt.bool_)


def _float_formatter(a):
    finite = a[np.isfinite(a)]
    if finite.size == 0:
        return lambda v: _special(v) or f"{v:.4f}"
    absn = np.abs(finite)
    nz = absn[absn > 0]
    integral = bool(np.all(finite == np.round(finite)))
    wide = bool(nz.size) and (nz.max() / nz.min() > 1000 or nz.max() > 1e8)
    if integral and not wide:       # torch's int_mode (sci mode too when the span is wide)
        return lambda v: _special(v) or f"{v:.0f}."
    if wide or (nz.size and nz.min() < 1e-4):
        return lambda v: _special(v) or f"{v:.4e}"
    return lambda v: _special(v) or f"{v:.4f}"


def _special(v):
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return None


def format_tensor(t) -> str:
    a = t._data
    if t.dtype.is_floating_point:
        a64 = a.astype(np.float64)
        fmt = _float_formatter(a64.reshape(-1))
        flat = a64.reshape(-1)
        finite = flat[np.isfinite(flat) & (flat != 0)] if flat.size <= 1000 else flat[:0]
        width = max((len(fmt(v)) for v in finite), default=0)   # torch: nan/inf/0 don't widen
        body = np.array2string(a64, separator=", ", prefix="tensor(", threshold=1000,
                               formatter={"float_kind": lambda v: fmt(v).rjust(width)},
                               max_line_width=80)
    elif t.dtype is _dt.bool_:
        body = np.array2string(a, separator=", ", prefix="tensor(", threshold=1000,
                               formatter={"bool": lambda v: ("True" if v else "False").rjust(
                                   5 if a.any() and not a.all() else 0)})
    else:
        body = np.array2string(a, separator=", ", prefix="tensor(", threshold=1000)
    extras = []
    if t._device.type != "cpu":               # PyTorch names a non-default device first
        extras.append(f"device='{t._device}'")
    if t.numel() == 0 and t.ndim != 1:
        extras.append(f"size={tuple(t.shape)}")
    if t.dtype is not _dt.get_default_dtype() and (t.dtype not in _DEFAULT_SHOWN or
                                                   t.numel() == 0):   # torch: empty shows it
        extras.append(f"dtype={t.dtype!r}")
    if t.grad_fn is not None:
        extras.append(f"grad_fn=<{type(t.grad_fn).__name__}>")
    elif t._requires_grad:
        extras.append("requires_grad=True")
    return _add_suffixes("tensor(" + body, extras)


def _add_suffixes(text, suffixes, indent=7, linewidth=80):
    """PyTorch's ``_add_suffixes``: a suffix that would pass ``linewidth`` on the last line
    goes on a new line, indented. Lengths are measured with PyTorch's ``torch.`` prefix so the
    layout is PyTorch's (``minigrad.`` is three characters longer)."""
    out = [text]
    last = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        n = len(suffix.replace("minigrad.", "torch."))
        if last + n + 2 > linewidth:
            out.append(",\n" + " " * indent + suffix)
            last = indent + n
        else:
            out.append(", " + suffix)
            last += n + 2
    return "".join(out) + ")"
