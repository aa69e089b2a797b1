"""Reductions: sum, sum_to_size, mean, max/min, amax/amin, argmax/argmin.

16-bit inputs accumulate in fp32 and round each output once, except PyTorch's multithreaded full
``sum`` of a 16-bit tensor, which rounds each thread's partial sum to 16 bits before combining
(``numerics.thread_partial_sum``, following ``numerics.get_num_threads()``); ``mean`` sums in
fp32 throughout, as PyTorch's does.
"""
from __future__ import annotations

import numpy as np

from .. import _namespace
from .. import dtypes as _dt
from .. import numerics as _nx
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._binary import arr
from ._util import LOW as _LOW, opmath, opmath_read, refuse_float8, wrap, wrap_dim, wrap_dims


def _sum_dtype(input, dtype, fname="sum"):
    if dtype is not None:
        return _dt.dtype_arg(dtype, fname)
    d = input.dtype
    return _dt.int64 if not d.is_floating_point else d


def _expand_back(grad, in_shape, dims, keepdim):
    """Broadcast a reduced gradient back to ``in_shape``."""
    if not keepdim:
        kshape = tuple(1 if i in dims else s for i, s in enumerate(in_shape))
        grad = dispatch("reshape", grad, kshape)
    return dispatch("expand", grad, tuple(in_shape))


class Sum(Function):
    """``sum(input, dim=None, keepdim=False, *, dtype=None)`` (``torch.sum``).

    Integer and bool inputs sum to int64; ``dtype`` casts the input first. The node is
    ``SumBackward0`` for a full sum and ``SumBackward1`` when dims (or keepdim) are given, as in
    PyTorch (whose ``x.sum(dim=None)`` also says ``SumBackward1``; here only an explicit dim does).
    """

    _backward_name = "SumBackward0"

    @staticmethod
    def forward(ctx, input, dim=None, keepdim=False, *, dtype=None):
        if not isinstance(input, Tensor):
            raise TypeError(f"sum(): argument 'input' must be Tensor, not {type(input).__name__}")
        rt = _sum_dtype(input, dtype)
        dims = wrap_dims(dim, input.ndim)
        a = opmath(input, rt)
        axes = dims if input.ndim else None
        ctx.in_shape, ctx.dims, ctx.keepdim = input.shape, dims, keepdim
        if rt in _LOW and input.dtype is rt and len(dims) == input.ndim and \
                input.numel() > _nx.GRAIN_SIZE:
            out = _nx.thread_partial_sum(a, rt)
            if keepdim:
                out = np.reshape(out, (1,) * input.ndim)
        else:
            token = _nx.quiet()     # inf + -inf, overflow: no NumPy warning, as PyTorch
            try:
                out = np.add.reduce(a, axis=axes, keepdims=keepdim if input.ndim else False)
            finally:
                _nx.unquiet(token)
        return wrap(out, rt)

    @staticmethod
    def backward(ctx, grad):
        return _expand_back(grad, ctx.in_shape, ctx.dims, ctx.keepdim)


class _SumDim(Sum):
    _backward_name = "SumBackward1"


_sum_apply, _sum_dim_apply = Sum.apply, _SumDim.apply


@register_op("sum")
def sum_(input, dim=None, keepdim=False, *, dtype=None):
    """``sum(input, dim=None, keepdim=False, *, dtype=None)``; see ``Sum``. A float8 input
    needs a ``dtype`` (NotImplementedError '"sum_cpu" not implemented for ...', as PyTorch)."""
    if dtype is None:
        refuse_float8(input, "sum_cpu")
    if dim is None and not keepdim:
        return _sum_apply(input, None, False, dtype=dtype)
    return _sum_dim_apply(input, dim, keepdim, dtype=dtype)


@register_op("sum_to_size")
class SumToSize(Function):
    """``sum_to_size(input, size)``: sum the broadcast dims away so the result has ``size``
    (``Tensor.sum_to_size``); the engine uses it to reduce broadcast gradients. When a dim is
    summed, integer and bool inputs give int64 (as ``sum``); otherwise the input's dtype.

    Raises:
        RuntimeError: when ``input`` is not expandable from ``size``.
    """

    _backward_name = "SumToSizeBackward0"

    @staticmethod
    def _fast(ctx, args):
        """``Function.apply``'s fast path (see ``Function._fast``): ``forward``'s sum for an
        fp32/fp64 input (its own opmath and result dtype: no cast, no rounding) with dims to
        sum, as the engine's broadcast gradients (a bias's); errors and the no-sum copy are
        left to ``forward``."""
        if len(args) != 2 or type(args[0]) is not Tensor:
            return None
        input, size = args
        dt = input.dtype
        if dt.opmath is not dt or not dt.is_floating_point:
            return None
        a = input._data
        shape = a.shape
        size = tuple(size)
        lead = len(shape) - len(size)
        if lead < 0:
            return None
        axes = list(range(lead))
        for i, s in enumerate(size):
            if s != shape[lead + i]:
                if s != 1:
                    return None
                axes.append(lead + i)
        if not axes:
            return None
        token = _nx.quiet()         # inf + -inf: no NumPy warning, as PyTorch
        try:
            if size and len(axes) == lead:
                # only leading dims (a bias's gradient): the sum has ``size`` already and is a
                # fresh array (a reshaped keepdims result is a view, which the engine's
                # AccumulateGrad would copy instead of taking); the same sums
                out = np.add.reduce(a, axis=tuple(axes))
            else:
                out = np.add.reduce(a, axis=tuple(axes), keepdims=True)
        finally:
            _nx.unquiet(token)
        if not (size and len(axes) == lead) and lead:
            out = out.reshape(size)
        if ctx is not None:
            ctx.in_shape = input.shape
        return Tensor._make(out, dt)

    @staticmethod
    def forward(ctx, input, size):
        size = tuple(size)
        shape = input.shape
        lead = len(shape) - len(size)
        if lead < 0 or any(s != 1 and s != t for s, t in zip(size, shape[lead:])):
            raise RuntimeError(f"size {list(size)} is not expandable to size {list(shape)}.")
        axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size)
                                          if s == 1 and shape[lead + i] != 1)
        ctx.in_shape = shape
        if not axes:
            return Tensor._make(input._data.copy(), input.dtype)
        rt = _sum_dtype(input, None)      # a real sum: integer and bool inputs give int64
        a = opmath_read(input, rt)        # (a gradient, its fp16 widening cached for a matmul)
        token = _nx.quiet()
        try:
            out = np.add.reduce(a, axis=axes, keepdims=True)
        finally:
            _nx.unquiet(token)
        if lead:
            out = out.reshape(size)
        return wrap(out, rt)

    @staticmethod
    def backward(ctx, grad):
        return dispatch("expand", grad, tuple(ctx.in_shape))


# ---------------------------------------------------------------------------------- mean


def _check_input(input, op):
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")


class Mean(Function):
    """``mean(input, dim=None, keepdim=False, *, dtype=None)`` (``torch.mean``).

    16-bit inputs sum in fp32, divide, and round once. Backward: the gradient expanded back,
    divided by the number of reduced elements. Node ``MeanBackward0`` (all dims) or
    ``MeanBackward1`` (with ``dim``).

    Raises:
        RuntimeError: integer/bool input without ``dtype`` ("mean(): could not infer output
            dtype. Input dtype must be either a floating point or complex dtype. Got: Long").
        IndexError: a dim out of range.
    """

    _backward_name = "MeanBackward0"

    @staticmethod
    def forward(ctx, input, dim=None, keepdim=False, *, dtype=None):
        _check_input(input, "mean")
        rt = input.dtype if dtype is None else _dt.dtype_arg(dtype, "mean")
        if not rt.is_floating_point:
            got = rt.scalar_name
            which = "Input" if dtype is None else "Optional"       # PyTorch's two wordings
            raise RuntimeError(f"mean(): could not infer output dtype. {which} dtype must be "
                               f"either a floating point or complex dtype. Got: {got}")
        dims = wrap_dims(dim, input.ndim)
        a = arr(input, rt)
        n = 1
        for d in dims if input.ndim else ():
            n *= input.shape[d]
        ctx.in_shape, ctx.dims, ctx.keepdim, ctx.n = input.shape, dims, keepdim, n
        if input.ndim == 0:
            return wrap(a.copy(), rt)
        with np.errstate(invalid="ignore", divide="ignore"):
            s = np.add.reduce(a, axis=dims, keepdims=keepdim)
            return wrap(s / a.dtype.type(n), rt)

    @staticmethod
    def backward(ctx, grad):
        g = _expand_back(grad, ctx.in_shape, ctx.dims, ctx.keepdim)
        return dispatch("div", g, ctx.n)


class _MeanDim(Mean):
    _backward_name = "MeanBackward1"


_mean_apply, _mean_dim_apply = Mean.apply, _MeanDim.apply


@register_op("mean")
def mean(input, dim=None, keepdim=False, *, dtype=None):
    """``mean(input, dim=None, keepdim=False, *, dtype=None)``; see ``Mean``. A float8 input
    needs a ``dtype`` (NotImplementedError '"sum_cpu" not implemented for ...', as PyTorch)."""
    if dtype is None:
        refuse_float8(input, "sum_cpu")
    if dim is None:
        return _mean_apply(input, None, keepdim, dtype=dtype)
    return _mean_dim_apply(input, dim, keepdim, dtype=dtype)


# ---------------------------------------------------------------------------------- max / min
class _Ret(tuple):
    """A (values, indices) pair with attribute access, like ``torch.return_types.max``."""

    __slots__ = ()
    _name = "max"

    def __new__(cls, values, indices):
        return tuple.__new__(cls, (values, indices))

    @property
    def values(self):
        return self[0]

    @property
    def indices(self):
        return self[1]

    def __repr__(self):
        return f"{_namespace.display_name()}.return_types.{self._name}(\nvalues={self[0]!r},\nindices={self[1]!r})"


class max_ret(_Ret):
    __slots__ = ()
    _name = "max"


class min_ret(_Ret):
    __slots__ = ()
    _name = "min"


def _cmp_array(input):
    """Storage as an array NumPy compares correctly (bf16 -> fp32, exact)."""
    d = input._data
    return d.astype(np.float32) if input.dtype is _dt.bfloat16 else d


def _empty_check(input, op, dims, full):
    if input.numel() == 0:
        if full:
            err = IndexError if op in ("argmax", "argmin") else RuntimeError
            tail = "" if err is IndexError else (" Specify the reduction dim with the 'dim' "
                                                  "argument.")
            raise err(f"{op}(): Expected reduction dim to be specified for input.numel() == 0."
                      + tail)
        for d in dims:
            if input.shape[d] == 0:
                raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")


def _evenly(grad, input, value):
    """PyTorch's ``evenly_distribute_backward``: grad split over all elements equal to value."""
    if value.dtype.is_floating_point and bool(np.isnan(_cmp_array(value)).any()):
        mask = dispatch("isnan", input)
    else:
        mask = dispatch("eq", input, value)
    g = dispatch("div", grad, dispatch("sum", mask))
    return dispatch("where", mask, g, 0.0)


class _FullMax(Function):
    _backward_name = "MaxBackward1"
    _np = staticmethod(np.max)
    _op = "max"

    @classmethod
    def forward(cls, ctx, input):
        _empty_check(input, cls._op, (), True)
        out = Tensor._make(np.asarray(cls._np(input._data if input.dtype is not _dt.bfloat16
                                              else _cmp_array(input))).astype(input.dtype.np),
                           input.dtype)
        ctx.save_for_backward(input, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        input, out = ctx.saved_tensors
        return _evenly(grad, input, out)


class _FullMin(_FullMax):
    _backward_name = "MinBackward1"
    _np = staticmethod(np.min)
    _op = "min"


def _select_back(grad, indices, dim, in_shape, keepdim):
    """PyTorch's ``value_selecting_reduction_backward``: grad scattered to ``indices``."""
    if len(in_shape) == 0:
        return grad
    if not keepdim:
        grad = dispatch("unsqueeze", grad, dim)
        indices = dispatch("unsqueeze", indices, dim)
    shape = [1] * len(in_shape)
    shape[dim] = in_shape[dim]
    pos = dispatch("reshape", dispatch("arange", in_shape[dim]), tuple(shape))
    return dispatch("where", dispatch("eq", pos, indices), grad, 0.0)


class _DimMax(Function):
    _backward_name = "MaxBackward0"
    _arg = staticmethod(np.argmax)
    _op = "max"
    _ret = max_ret

    @classmethod
    def forward(cls, ctx, input, dim, keepdim=False):
        d = wrap_dim(dim, input.ndim)
        _empty_check(input, cls._op, (d,) if input.ndim else (), False)
        if input.ndim == 0:
            idx = np.zeros((), np.int64)
            vals = input._data.copy()
        else:
            idx = cls._arg(_cmp_array(input), axis=d, keepdims=True)
            vals = np.take_along_axis(input._data, idx, axis=d)
            if not keepdim:
                idx, vals = np.squeeze(idx, d), np.squeeze(vals, d)
        ind = Tensor._make(np.asarray(idx, np.int64), _dt.int64)
        ctx.mark_non_differentiable(ind)
        ctx.save_for_backward(ind)
        ctx.dim, ctx.keepdim, ctx.in_shape = d, keepdim, input.shape
        return cls._ret(Tensor._make(np.asarray(vals), input.dtype), ind)

    @staticmethod
    def backward(ctx, grad, grad_idx=None):
        (ind,) = ctx.saved_tensors
        return _select_back(grad, ind, ctx.dim, ctx.in_shape, ctx.keepdim)


class _DimMin(_DimMax):
    _backward_name = "MinBackward0"
    _arg = staticmethod(np.argmin)
    _op = "min"
    _ret = min_ret


def _max_min(full, bydim, input, dim, keepdim):
    _check_input(input, full._op)
    refuse_float8(input, f"{full._op}_all" if dim is None else f"{full._op}_cpu")
    if dim is None:
        return full.apply(input)
    out = bydim.apply(input, dim, keepdim)
    return bydim._ret(out[0], out[1])


@register_op("max")
def max_(input, dim=None, keepdim=False):
    """``max(input)`` (full reduction, ``MaxBackward1``: gradient shared evenly among ties) or
    ``max(input, dim, keepdim=False)`` -> ``(values, indices)`` with ``.values``/``.indices``
    (``MaxBackward0``: gradient to the first maximal index) (``torch.max``). NaN propagates.

    Raises:
        RuntimeError: full reduction of an empty tensor. IndexError: reducing an empty dim, a
            dim out of range.
    """
    return _max_min(_FullMax, _DimMax, input, dim, keepdim)


@register_op("min")
def min_(input, dim=None, keepdim=False):
    """``min(input)`` or ``min(input, dim, keepdim=False)`` -> ``(values, indices)``; see
    ``max`` (``torch.min``)."""
    return _max_min(_FullMin, _DimMin, input, dim, keepdim)


@register_op("max.dim")
def max_dim(input, dim, keepdim=False):
    """``max(input, dim, keepdim=False)`` -> ``(values, indices)`` (aten ``max.dim``, the
    overload ``torch.max`` with a dim dispatches to); see ``max``."""
    _check_input(input, "max")
    refuse_float8(input, "max_cpu")
    out = _DimMax.apply(input, dim, keepdim)
    return max_ret(out[0], out[1])


@register_op("min.dim")
def min_dim(input, dim, keepdim=False):
    """``min(input, dim, keepdim=False)`` -> ``(values, indices)`` (aten ``min.dim``); see
    ``max``."""
    _check_input(input, "min")
    refuse_float8(input, "min_cpu")
    out = _DimMin.apply(input, dim, keepdim)
    return min_ret(out[0], out[1])


class Amax(Function):
    """``amax(input, dim=(), keepdim=False)`` (``torch.amax``; ``()`` reduces all dims); the
    gradient is split evenly among all maximal elements (``AmaxBackward0``)."""

    _backward_name = "AmaxBackward0"
    _np = staticmethod(np.max)
    _op = "amax"

    @classmethod
    def forward(cls, ctx, input, dim=(), keepdim=False):
        _check_input(input, cls._op)
        refuse_float8(input, "max_values_cpu" if cls._op == "amax" else "min_values_cpu")
        dims = wrap_dims(dim, input.ndim)
        _empty_check(input, cls._op, dims, input.numel() == 0 and len(dims) == input.ndim
                     and (dim is None or dim == () or dim == []))
        if input.ndim == 0:
            out = input._data.copy()
        else:
            out = cls._np(_cmp_array(input), axis=dims, keepdims=keepdim)
        res = Tensor._make(np.asarray(out).astype(input.dtype.np), input.dtype)
        ctx.save_for_backward(input, res)
        ctx.dims, ctx.keepdim = dims, keepdim
        return res

    @staticmethod
    def backward(ctx, grad):
        input, res = ctx.saved_tensors
        dims, shape = ctx.dims, input.shape
        if not ctx.keepdim and input.ndim:
            kshape = tuple(1 if i in dims else s for i, s in enumerate(shape))
            grad = dispatch("reshape", grad, kshape)
            res = dispatch("reshape", res, kshape)
        mask = dispatch("eq", res, input)
        count = dispatch("sum", mask, dims, True) if input.ndim else dispatch("sum", mask)
        return dispatch("mul", dispatch("div", grad, count), mask)


@register_op("amin")
class Amin(Amax):
    """``amin(input, dim=(), keepdim=False)`` (``torch.amin``, ``AminBackward0``)."""

    _backward_name = "AminBackward0"
    _np = staticmethod(np.min)
    _op = "amin"


register_op("amax", Amax)


def _arg_reduce(op, fn, input, dim, keepdim):
    _check_input(input, op)
    refuse_float8(input, f"{op}_cpu")
    if input.dtype is _dt.bool_:
        raise RuntimeError(f"{op}(): does not support bool input")
    if dim is None:
        _empty_check(input, op, (), True)
        idx = np.asarray(fn(_cmp_array(input)), np.int64)
        if keepdim:
            idx = idx.reshape((1,) * input.ndim)
        return Tensor._make(idx, _dt.int64)
    d = wrap_dim(dim, input.ndim)
    if input.ndim == 0:
        return Tensor._make(np.zeros((), np.int64), _dt.int64)
    _empty_check(input, op, (d,), False)
    idx = fn(_cmp_array(input), axis=d, keepdims=keepdim)
    return Tensor._make(np.asarray(idx, np.int64), _dt.int64)


@register_op("argmax")
def argmax(input, dim=None, keepdim=False):
    """Index of the first maximum (NaN counts as maximal), int64, no gradient
    (``torch.argmax``); ``dim=None`` indexes the flattened tensor.

    Raises:
        IndexError: an empty input without dim or an empty reduced dim; dim out of range.
    """
    return _arg_reduce("argmax", np.argmax, input, dim, keepdim)


@register_op("argmin")
def argmin(input, dim=None, keepdim=False):
    """Index of the first minimum, int64 (``torch.argmin``); see ``argmax``."""
    return _arg_reduce("argmin", np.argmin, input, dim, keepdim)
