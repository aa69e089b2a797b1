"""``repr`` of tensors in PyTorch's style: ``tensor([1.0000, 2.5000], dtype=minigrad.float16,
grad_fn=<AddBackward0>)``. Integral floats print as ``1.``, others with 4 decimals, or in
scientific notation when magnitudes span more than 1e3..1e-4: PyTorch's ``_tensor_str`` rules
(one formatter for all values, ``linewidth`` wrapping, ``...`` summaries past ``threshold``).

``set_printoptions`` (``torch.set_printoptions``) sets ``precision``, ``threshold``,
``edgeitems``, ``linewidth`` and ``sci_mode`` for every later ``repr``."""
from __future__ import annotations

import math

import numpy as np

from . import dtypes as _dt

__all__ = ["set_printoptions", "get_printoptions"]

_DEFAULT_SHOWN = (_dt.int64, _dt.bool_)

_PROFILES = {
    "default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    "full": dict(precision=4, threshold=math.inf, edgeitems=3, linewidth=80),
}
_OPTS = dict(_PROFILES["default"], sci_mode=None)


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """Set how tensors print (``torch.set_printoptions``); arguments left None keep their
    value (``profile`` first resets all but ``sci_mode`` to "default", "short" or "full").

    Args:
        precision: digits after the decimal point (default 4).
        threshold: more elements than this are summarised with ``...`` (default 1000).
        edgeitems: items kept at each end of a summarised dim (default 3).
        linewidth: characters per line (default 80).
        profile: "default", "short" (precision 2, edgeitems 2) or "full" (no summary).
        sci_mode: True / False force or forbid scientific notation; None lets the values
            decide (PyTorch's rule).

    A process-wide setting, as PyTorch's: restore it (``set_printoptions(profile="default")``)
    when done.
    """
    if profile in _PROFILES:         # PyTorch ignores an unknown profile
        _OPTS.update(_PROFILES[profile])
    for name, value in (("precision", precision), ("threshold", threshold),
                        ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if value is not None:
            _OPTS[name] = value
    _OPTS["sci_mode"] = sci_mode


def get_printoptions():
    """The current print options as a dict (``torch.get_printoptions``)."""
    return dict(_OPTS)


class _Formatter:
    """PyTorch's ``_tensor_str._Formatter``: one width and one mode (int / fixed / scientific)
    for all the (summarised) values of a tensor."""

    def __init__(self, flat, floating):
        self.floating = floating
        self.int_mode, self.sci_mode, self.max_width = True, False, 1
        p = _OPTS["precision"]
        if not floating:
            for v in flat.tolist():
                self.max_width = max(self.max_width, len(f"{v}"))
            return
        vals = flat[np.isfinite(flat) & (flat != 0)]
        if vals.size == 0:
            return
        absn = np.abs(vals)
        lo, hi = float(absn.min()), float(absn.max())
        self.int_mode = bool(np.all(vals == np.ceil(vals)))
        forced = _OPTS["sci_mode"]
        self.sci_mode = (hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4) if forced is None \
            else forced
        if self.sci_mode:
            widths = (len(f"{v:.{p}e}") for v in vals.tolist())
        elif self.int_mode:
            widths = (len(f"{v:.0f}") + 1 for v in vals.tolist())
        else:
            widths = (len(f"{v:.{p}f}") for v in vals.tolist())
        self.max_width = max(self.max_width, max(widths))

    def format(self, v):
        p = _OPTS["precision"]
        if not self.floating:
            ret = f"{v}"
        elif self.sci_mode:
            ret = f"{v:{self.max_width}.{p}e}"
        elif self.int_mode:
            ret = f"{v:.0f}"
            if not (math.isinf(v) or math.isnan(v)):
                ret += "."
        else:
            ret = f"{v:.{p}f}"
        return (self.max_width - len(ret)) * " " + ret


def _summarized(a, edge):
    """The elements PyTorch formats for a summarised tensor: ``edge`` at each end of every
    dim."""
    for d in range(a.ndim):
        if a.shape[d] > 2 * edge:
            idx = list(range(edge)) + list(range(a.shape[d] - edge, a.shape[d]))
            a = np.take(a, idx, axis=d)
    return a


def _vector_str(a, indent, summarize, fmt):
    edge = _OPTS["edgeitems"]
    per_line = max(1, int(math.floor((_OPTS["linewidth"] - indent) / (fmt.max_width + 2))))
    if summarize and not edge:
        data = ["..."]
    elif summarize and a.shape[0] > 2 * edge:
        data = [fmt.format(v) for v in a[:edge].tolist()] + [" ..."] + \
            [fmt.format(v) for v in a[-edge:].tolist()]
    else:
        data = [fmt.format(v) for v in a.tolist()]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _nested_str(a, indent, summarize, fmt):
    """PyTorch's ``_tensor_str_with_formatter``: rows of rows, ``...`` for skipped ones."""
    if a.ndim == 0:
        return fmt.format(a.item())
    if a.ndim == 1:
        return _vector_str(a, indent, summarize, fmt)
    edge = _OPTS["edgeitems"]
    if summarize and a.shape[0] > 2 * edge:
        slices = [_nested_str(a[i], indent + 1, summarize, fmt) for i in range(edge)] + \
            ["..."] + [_nested_str(a[i], indent + 1, summarize, fmt)
                       for i in range(a.shape[0] - edge, a.shape[0])]
    else:
        slices = [_nested_str(a[i], indent + 1, summarize, fmt) for i in range(a.shape[0])]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(slices) + "]"


def format_tensor(t) -> str:
    a = t._data
    floating = t.dtype.is_floating_point
    if floating:
        a = a.astype(np.float64)
    elif t.dtype is _dt.bool_:
        a = a.astype(bool)
    if a.size == 0:
        body = "[]"
    else:
        summarize = a.size > _OPTS["threshold"]
        shown = _summarized(a, _OPTS["edgeitems"]) if summarize else a
        fmt = _Formatter(shown.reshape(-1), floating)
        body = _nested_str(a, 7, summarize, fmt)
    extras = []
    if t._device.type != "cpu":               # PyTorch names a non-default device first
        extras.append(f"device='{t._device}'")
    if (t.numel() == 0 and t.ndim != 1) or (t.numel() > 0 and not _OPTS["edgeitems"]):
        extras.append(f"size={tuple(t.shape)}")
    if t.dtype is not _dt.get_default_dtype() and (t.dtype not in _DEFAULT_SHOWN or
                                                   t.numel() == 0):   # torch: empty shows it
        extras.append(f"dtype={t.dtype!r}")
    try:
        fn = t.grad_fn
        fn_name = None if fn is None else type(fn).__name__
    except RuntimeError:        # a multi-output view modified in place: PyTorch prints on
        fn_name = "Invalid"
    if fn_name is not None:
        extras.append(f"grad_fn=<{fn_name}>")
    elif t._requires_grad:
        extras.append("requires_grad=True")
    return _add_suffixes("tensor(" + body, extras, linewidth=_OPTS["linewidth"])


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
