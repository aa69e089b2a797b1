"""Covariance and correlation matrices: ``cov`` and ``corrcoef``, PyTorch's composites
(``aten/src/ATen/native/Correlation.cpp``) written with dispatched ops in its order: the
(weighted) mean of each row, the centred rows' ``mm`` with their transpose, one true division
by the degrees of freedom; ``corrcoef`` divides by the standard deviations on both sides and
clamps to [-1, 1].
"""
from __future__ import annotations

import warnings

from .. import dtypes as _dt
from ..dispatch import dispatch, register_op
from ..tensor import Tensor


def _check_weights(w, name, n, integral):
    if w.ndim > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got "
                           f"{name} with {w.ndim} dimensions")
    if w.numel() != n:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are "
                           f"observations in the input but got {w.numel()} != {n}")
    if integral and w.dtype.is_floating_point:
        raise RuntimeError("cov(): expected fweights to have integral dtype")
    if not integral and not w.dtype.is_floating_point:
        raise RuntimeError("cov(): expected aweights to have floating point dtype")
    if bool(dispatch("any", dispatch("lt", w, 0))):
        raise RuntimeError(f"cov(): {name} cannot be negative")


@register_op("cov")
def cov(input, *, correction=1, fweights=None, aweights=None):
    """``cov(input, *, correction=1, fweights=None, aweights=None)`` (``torch.cov``): the
    covariance matrix of the rows of ``input`` (variables x observations; a 1-D input is one
    variable), observations weighted by integer ``fweights`` and/or float ``aweights``;
    ``correction`` 1 is Bessel's. A 0-dim result for one variable. Integer inputs give a float
    result (true division).

    Raises:
        RuntimeError: more than 2 dims; bool input; bad weights (PyTorch's messages); weights
            summing to 0. Warns (UserWarning) when the degrees of freedom are <= 0 (the result
            is then inf/nan, as PyTorch).
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"cov(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {input.ndim} dimensions")
    if input.dtype is _dt.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = dispatch("reshape", input, (1, -1)) if input.ndim < 2 else input
    n = x.shape[1]
    w = None
    if fweights is not None:
        _check_weights(fweights, "fweights", n, True)
        w = fweights
    if aweights is not None:
        _check_weights(aweights, "aweights", n, False)
        w = aweights if w is None else dispatch("mul", w, aweights)
    if w is None:
        w_sum = dispatch("full", (), n, dtype=_dt.int64, device=input.device)
    else:
        w_sum = dispatch("sum", w)
        if not bool(dispatch("ne", w_sum, 0)):
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    avg = dispatch("div", dispatch("sum", x if w is None else dispatch("mul", x, w), 1), w_sum)
    if w is not None and aweights is not None and correction != 0:
        norm = dispatch("sub", w_sum, dispatch("div", dispatch("mul", dispatch(
            "sum", dispatch("mul", w, aweights)), correction), w_sum))
    else:
        norm = dispatch("sub", w_sum, correction)
    if bool(dispatch("le", norm, 0)):
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the number of observations.", UserWarning, stacklevel=2)
        norm = dispatch("zeros_like", norm)
    xc = dispatch("sub", x, dispatch("unsqueeze", avg, 1))
    c = dispatch("mm", xc, dispatch("t", xc if w is None else dispatch("mul", xc, w)))
    return dispatch("squeeze", dispatch("div", c, norm))


@register_op("corrcoef")
def corrcoef(input):
    """``corrcoef(input)`` (``torch.corrcoef``): Pearson correlation coefficients of the rows,
    ``cov / (std_i std_j)`` clamped to [-1, 1]; one variable gives ``c / c`` (1, or nan).

    Raises:
        RuntimeError: more than 2 dims; as ``cov``.
    """
    if isinstance(input, Tensor) and input.ndim > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but got "
                           f"an input with {input.ndim} dimensions")
    c = dispatch("cov", input)
    if c.ndim == 0:
        return dispatch("div", c, c)
    std = dispatch("sqrt", dispatch("diagonal", c, 0, 0, 1))
    c = dispatch("div", c, dispatch("reshape", std, (-1, 1)))
    c = dispatch("div", c, dispatch("reshape", std, (1, -1)))
    return dispatch("clamp", c, -1, 1)
