"""Finite differences and the trapezoidal rule: ``diff`` and ``trapezoid``, composites of
dispatched ops in PyTorch's order (``aten/src/ATen/native/ReduceOps.cpp``,
``Integration.cpp``), so autograd and every mode see the ``sub``/``sum``/``mul`` they are made
of, and the values round where PyTorch's do.
"""
from __future__ import annotations

from .. import dtypes as _dt
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import wrap_dim


def _narrow(t, dim, start, length):
    return dispatch("index", t, (slice(None),) * dim + (slice(start, start + length),))


@register_op("diff")
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """``diff(input, n=1, dim=-1, prepend=None, append=None)`` (``torch.diff``): the ``n``-th
    forward difference along ``dim`` (``out[i] = x[i + 1] - x[i]``, repeated ``n`` times; bool
    inputs use ``logical_xor``), after concatenating ``prepend``/``append`` along ``dim``.
    ``n`` at least the length gives an empty result.

    Raises:
        RuntimeError: a 0-dim input ("diff expects input to be at least one-dimensional");
            ``n < 0`` ("order must be non-negative but got -1"). IndexError: ``dim``.
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"diff(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = wrap_dim(dim, input.ndim)
    if n == 0:
        return input              # as PyTorch: prepend/append are not even concatenated
    x = input
    if prepend is not None or append is not None:
        parts = [t for t in (prepend, input, append) if t is not None]
        x = dispatch("cat", parts, d)
    size = x.shape[d]
    if n >= size:
        return _narrow(x, d, 0, 0)
    out_len = size - 1
    op = "logical_xor" if x.dtype is _dt.bool_ else "sub"
    for _ in range(n):
        x = dispatch(op, _narrow(x, d, 1, out_len), _narrow(x, d, 0, out_len))
        out_len -= 1
    return x


@register_op("trapezoid")
def trapezoid(y, x=None, *, dx=None, dim=-1):
    """``trapezoid(y, x=None, *, dx=None, dim=-1)`` (``torch.trapezoid``, also
    ``torch.trapz``): the integral of ``y`` along ``dim`` by the trapezoidal rule, with
    constant spacing ``dx`` (default 1: ``(sum(y) - (y[0] + y[-1]) * 0.5) * dx``) or sample
    points ``x`` (``sum(dx_i * (y[i + 1] + y[i])) * 0.5``); an empty dim gives zeros.

    Raises:
        RuntimeError: bool ``y`` ("trapezoid: received a bool input for `y`, but bool is not
            supported"); ``x`` and ``dx`` both given; "trapezoid: There must be one `x` value
            for each sample point".
    """
    if not isinstance(y, Tensor):
        raise TypeError(f"trapezoid(): argument 'y' (position 1) must be Tensor, not "
                        f"{type(y).__name__}")
    if x is not None and dx is not None:
        raise RuntimeError("trapezoid() received an invalid combination of arguments: x and "
                           "dx cannot both be given")
    d = wrap_dim(dim, y.ndim)
    if y.shape[d] == 0:
        shape = tuple(s for i, s in enumerate(y.shape) if i != d)
        return dispatch("zeros", shape, dtype=y.dtype, device=y.device)
    if y.dtype is _dt.bool_:
        raise RuntimeError("trapezoid: received a bool input for `y`, but bool is not supported")
    if x is None:
        step = 1 if dx is None else dx
        first = dispatch("index", y, (slice(None),) * d + (0,))
        last = dispatch("index", y, (slice(None),) * d + (-1,))
        # (ATen's C++ multiplies by a Scalar: mul.Scalar, MulBackward1, nothing saved)
        ends = dispatch("mul.Scalar", dispatch("add", first, last), 0.5)
        return dispatch("mul.Scalar", dispatch("sub", dispatch("sum", y, d), ends), step)
    if x.ndim == 1:
        if x.shape[0] != y.shape[d]:
            raise RuntimeError("trapezoid: There must be one `x` value for each sample point")
        xv = dispatch("reshape", x, tuple(x.shape[0] if i == d else 1 for i in range(y.ndim)))
    elif x.ndim < y.ndim:
        xv = dispatch("reshape", x, (1,) * (y.ndim - x.ndim) + tuple(x.shape))
    else:
        xv = x
    m = xv.shape[d]
    step = dispatch("sub", _narrow(xv, d, 1, m - 1), _narrow(xv, d, 0, m - 1))
    n = y.shape[d]
    pair = dispatch("add", _narrow(y, d, 1, n - 1), _narrow(y, d, 0, n - 1))
    return dispatch("mul.Scalar", dispatch("sum", dispatch("mul", step, pair), d), 0.5)
