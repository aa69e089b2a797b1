"""``quantile`` and ``nanquantile``: PyTorch's composite (``aten/src/ATen/native/Sorting.cpp``,
``quantile_impl``) of dispatched ops: sort the values (the reduced dim moved last), rank
``q * (n - 1)`` (``nanquantile``: ``n`` counts the non-NaN values; ``quantile``: a slice with a
NaN ranks at its last, NaN, element), adjust the rank by the interpolation mode, gather the
values below and above and ``lerp`` between them. The gradient flows through ``sort``,
``gather`` and ``lerp``, as in PyTorch.
"""
from __future__ import annotations

from .. import dtypes as _dt
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import wrap_dim

_MODES = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan, name):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if input.numel() == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if input.dtype not in (_dt.float32, _dt.float64):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    scalar_q = not isinstance(q, Tensor)
    if scalar_q:
        if not 0 <= q <= 1:
            raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q}")
        qt = dispatch("full", (), float(q), dtype=input.dtype, device=input.device)
    else:
        if q.ndim > 1:
            raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
        if q.dtype is not input.dtype:
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
        if not bool(dispatch("all", dispatch("logical_and", dispatch("ge", q, 0),
                                             dispatch("le", q, 1)))):
            raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
        qt = q
    if interpolation not in _MODES:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    if dim is None:
        x = dispatch("reshape", input, (-1,))
        out_shape = (1,) * input.ndim if keepdim else ()
    else:
        d = wrap_dim(dim, input.ndim)
        x = dispatch("transpose", dispatch("unsqueeze", input, -1), d, -1) if input.ndim \
            else dispatch("reshape", input, (1,))
        out_shape = tuple(1 if i == d else s for i, s in enumerate(input.shape)) if keepdim \
            else tuple(s for i, s in enumerate(input.shape) if i != d)
    srt = dispatch("sort", x, -1)[0]
    n = srt.shape[-1]
    nq = 1 if qt.ndim == 0 else qt.shape[0]
    qv = dispatch("reshape", qt, (nq,))
    nan = dispatch("isnan", srt)
    if ignore_nan:
        count = dispatch("sum", dispatch("logical_not", nan), -1, True)
        ranks = dispatch("mul", qv, dispatch("sub", count, 1))
        # an all-NaN slice ranks at -q: PyTorch sets it to 0 (the value there is NaN)
        ranks = dispatch("where", dispatch("lt", ranks, 0), 0.0, ranks)
    else:
        ranks = dispatch("mul", qv, n - 1)
        ranks = dispatch("where", dispatch("any", nan, -1, True), float(n - 1), ranks)
    if tuple(ranks.shape) != tuple(srt.shape[:-1]) + (nq,):
        ranks = dispatch("expand", ranks, tuple(srt.shape[:-1]) + (nq,))
    if interpolation == "lower":
        ranks = dispatch("floor", ranks)
    elif interpolation == "higher":
        ranks = dispatch("ceil", ranks)
    elif interpolation == "nearest":
        ranks = dispatch("round", ranks)
    below = dispatch("_to_copy", ranks, dtype=_dt.int64)
    vals = dispatch("gather", srt, -1, below)
    if interpolation in ("linear", "midpoint"):
        w = dispatch("full_like", ranks, 0.5) if interpolation == "midpoint" else \
            dispatch("sub", ranks, below)
        above = dispatch("_to_copy", dispatch("ceil", ranks), dtype=_dt.int64)
        vals = dispatch("lerp.Tensor", vals, dispatch("gather", srt, -1, above), w)
    # q's dim goes first
    if scalar_q or qt.ndim == 0:
        return dispatch("reshape", vals, out_shape)
    vals = dispatch("permute", vals, (vals.ndim - 1,) + tuple(range(vals.ndim - 1)))
    return dispatch("reshape", vals, (nq,) + out_shape)


@register_op("quantile")
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """``quantile(input, q, dim=None, keepdim=False, *, interpolation='linear')``
    (``torch.quantile``): the ``q``-quantiles (a number or a 1-D tensor of the input's dtype,
    its dim first in the result) over all elements or along ``dim``; a slice with a NaN gives
    NaN. ``interpolation``: ``linear``, ``lower``, ``higher``, ``midpoint``, ``nearest``.

    Raises:
        RuntimeError: PyTorch's messages: empty input, a non-float/double input, ``q`` out of
            [0, 1], of another dtype or more than 1-D, an unknown interpolation.
    """
    return _quantile(input, q, dim, keepdim, interpolation, False, "quantile")


@register_op("nanquantile")
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """``nanquantile(...)`` (``torch.nanquantile``): as ``quantile``, ignoring NaNs (a slice of
    NaNs only gives NaN).

    Raises:
        RuntimeError: as ``quantile`` (the same "quantile()" messages, as PyTorch).
    """
    return _quantile(input, q, dim, keepdim, interpolation, True, "quantile")
