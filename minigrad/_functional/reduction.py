"""Reductions and scans as torch-level functions (``torch.sum``, ``torch.mean``, ``torch.var``,
``torch.max``, ``torch.argmax``, ``torch.all``, ``torch.logsumexp``, ``torch.cumsum``,
``torch.prod``, ``torch.norm``...): each is one ``dispatch`` call (``norm`` picks PyTorch's
``linalg`` op as ``torch.norm`` does).
"""
from __future__ import annotations

from .._tensor_ops.reduction import max_min_overload
from ..dispatch import dispatch
from ..tensor import Tensor

__all__ = ["sum", "mean", "max", "min", "amax", "amin", "argmax", "argmin", "all", "any",
           "var", "std", "var_mean", "std_mean", "logsumexp", "prod", "cumsum", "cumprod",
           "count_nonzero", "norm", "renorm"]


def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum over ``dim`` (int, tuple, or None for all) (``torch.sum``); ``keepdim`` keeps
    reduced dims as size 1; integer/bool inputs sum to int64; ``dtype`` casts first.
    fp16/bf16 accumulate in fp32.

    Raises:
        IndexError: ``dim`` out of range.
    """
    return dispatch("sum", input, dim, keepdim, dtype=dtype)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    """Mean over ``dim`` (``torch.mean``); floating (or complex) input or ``dtype``
    required; fp16/bf16 accumulate in fp32.

    Raises:
        RuntimeError: integer input without a floating ``dtype`` (PyTorch's message).
        IndexError: ``dim`` out of range.
    """
    return dispatch("mean", input, dim, keepdim, dtype=dtype)


def max(input, *args, dim=None, keepdim=False, other=None):
    """``torch.max``: no ``dim`` -> the 0-dim maximum; with ``dim`` -> ``(values, indices)``
    namedtuple; with a Tensor second argument -> ``maximum``. nan propagates.

    Raises:
        RuntimeError: empty input without ``dim`` (no identity).
        IndexError: ``dim`` out of range.
    """
    return max_min_overload(input, "max", "maximum", args, dim, keepdim, other)


def min(input, *args, dim=None, keepdim=False, other=None):
    """``torch.min``: no ``dim`` -> the 0-dim minimum; with ``dim`` -> ``(values,
    indices)``; with a Tensor second argument -> ``minimum``. nan propagates.

    Raises:
        RuntimeError: empty input without ``dim``.
        IndexError: ``dim`` out of range.
    """
    return max_min_overload(input, "min", "minimum", args, dim, keepdim, other)


def amax(input, dim=(), keepdim=False):
    """Maximum over ``dim`` (default ``()`` = all dims) (``torch.amax``); values only;
    gradient shared evenly among ties.

    Raises:
        RuntimeError: empty input without ``dim`` (no identity).
        IndexError: ``dim`` out of range.
    """
    return dispatch("amax", input, dim, keepdim)


def amin(input, dim=(), keepdim=False):
    """Minimum over ``dim`` (default ``()`` = all dims) (``torch.amin``); values only;
    gradient shared evenly among ties.

    Raises:
        RuntimeError: empty input without ``dim`` (no identity).
        IndexError: ``dim`` out of range.
    """
    return dispatch("amin", input, dim, keepdim)


def argmax(input, dim=None, keepdim=False):
    """int64 index of the maximum (``torch.argmax``), over the flattened input when ``dim``
    is None; first occurrence on ties, nan counts as maximal.

    Raises:
        IndexError: empty input without ``dim``, or ``dim`` out of range.
    """
    return dispatch("argmax", input, dim, keepdim)


def argmin(input, dim=None, keepdim=False):
    """int64 index of the minimum (``torch.argmin``), over the flattened input when ``dim``
    is None; first occurrence on ties.

    Raises:
        IndexError: empty input without ``dim``, or ``dim`` out of range.
    """
    return dispatch("argmin", input, dim, keepdim)


def all(input, dim=None, keepdim=False):
    """True where every element over ``dim`` (int, tuple, or None for all) is nonzero
    (``torch.all``): a bool tensor (uint8 input gives uint8).

    Raises:
        IndexError: ``dim`` out of range.
    """
    return dispatch("all", input, dim, keepdim)


def any(input, dim=None, keepdim=False):
    """True where some element over ``dim`` is nonzero (``torch.any``); see ``all``."""
    return dispatch("any", input, dim, keepdim)


def moment_args(dim, unbiased, correction):
    """PyTorch's overloads of var/std: ``(input, unbiased)``, ``(input, dim, unbiased,
    keepdim)`` and ``(input, dim, *, correction)`` -> ``(dim, correction)``.

    Raises:
        RuntimeError: both ``unbiased`` and ``correction`` given.
    """
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    if unbiased is not None:
        if correction is not None:
            raise RuntimeError("Cannot specify both unbiased and correction")
        correction = 1 if unbiased else 0
    return dim, correction


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Variance over ``dim`` with Bessel's ``correction`` (default 1) (``torch.var``); the
    legacy ``unbiased`` (True: correction 1, False: 0) as PyTorch's overloads. fp16/bf16
    compute in fp32 (float64 accumulation) and round once.

    Raises:
        RuntimeError: integer/bool input ("std and var only support floating point and complex
            dtypes"). IndexError: ``dim`` out of range.
    Warns:
        UserWarning: ``N - correction <= 0`` (result inf/nan).
    """
    dim, correction = moment_args(dim, unbiased, correction)
    return dispatch("var", input, dim, correction=correction, keepdim=keepdim)


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Standard deviation over ``dim`` (``torch.std``): the square root of ``var``."""
    dim, correction = moment_args(dim, unbiased, correction)
    return dispatch("std", input, dim, correction=correction, keepdim=keepdim)


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(var, mean)`` over ``dim`` in one op (``torch.var_mean``); see ``var``."""
    dim, correction = moment_args(dim, unbiased, correction)
    return dispatch("var_mean", input, dim, correction=correction, keepdim=keepdim)


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(std, mean)`` over ``dim`` in one op (``torch.std_mean``); see ``var``."""
    dim, correction = moment_args(dim, unbiased, correction)
    return dispatch("std_mean", input, dim, correction=correction, keepdim=keepdim)


def logsumexp(input, dim, keepdim=False):
    """``log(sum(exp(input)))`` over ``dim`` (int or tuple), stabilised by the maximum
    (``torch.logsumexp``); integer inputs give the default float dtype.

    Raises:
        IndexError: ``dim`` out of range.
    """
    return dispatch("logsumexp", input, dim, keepdim)


def prod(input, dim=None, keepdim=False, *, dtype=None):
    """Product of all elements, or along one ``dim`` (``torch.prod``); integer/bool inputs give
    int64, ``dtype`` casts first.

    Raises:
        IndexError: ``dim`` out of range.
    """
    if dim is None:
        return dispatch("prod", input, dtype=dtype)
    return dispatch("prod.dim_int", input, dim, keepdim, dtype=dtype)


def cumsum(input, dim, *, dtype=None):
    """Running sum along ``dim`` (``torch.cumsum``); integer/bool inputs give int64.

    Raises:
        IndexError: ``dim`` out of range.
    """
    return dispatch("cumsum", input, dim, dtype=dtype)


def cumprod(input, dim, *, dtype=None):
    """Running product along ``dim`` (``torch.cumprod``); integer/bool inputs give int64.

    Raises:
        IndexError: ``dim`` out of range.
    """
    return dispatch("cumprod", input, dim, dtype=dtype)


def count_nonzero(input, dim=None):
    """Number of non-zero elements over ``dim`` (int, tuple or None), int64
    (``torch.count_nonzero``)."""
    return dispatch("count_nonzero", input, dim)


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """``torch.norm`` as PyTorch 2.x routes it: a number ``p`` (or ``'fro'`` over at most two
    dims) is ``linalg.vector_norm``; other string orders go to ``linalg.matrix_norm``.

    Raises:
        RuntimeError: as the linalg op chosen. NotImplementedError: ``out=``, ``'nuc'``.
    """
    if out is not None:
        raise NotImplementedError("norm(out=...) is not supported")
    _dim = [dim] if isinstance(dim, int) else dim
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return dispatch("linalg_vector_norm", input, 2, _dim, keepdim, dtype=dtype)
        if _dim is None:
            _dim = list(range(input.ndim))
        return dispatch("linalg_matrix_norm.str_ord", input, p, _dim, keepdim, dtype=dtype)
    return dispatch("linalg_vector_norm", input, 2.0 if p is None else p, _dim, keepdim,
                    dtype=dtype)


def renorm(input, p, dim, maxnorm):
    """``input`` with each slice along ``dim`` whose ``p``-norm exceeds ``maxnorm`` scaled
    down to norm ``maxnorm`` (``torch.renorm``; the ``renorm`` op, 2+ dim floating input).
    ``out=`` is not supported.

    Raises:
        RuntimeError: ``p <= 0``, ``maxnorm < 0``, fewer than 2 dims, a non-floating input.
        IndexError: ``dim`` out of range.
    """
    return dispatch("renorm", input, p, dim, maxnorm)
