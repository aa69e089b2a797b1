"""The ``out=`` argument of torch-level functions (``torch.add(a, b, out=c)``).

PyTorch's ``out=`` variants compute the result and write it into the given tensor, which is
then returned. minigrad does the same in three steps, each through the dispatcher, so modes
see every write: the op itself (``add``), ``resize_`` when ``out`` has another shape, and
``copy_`` into ``out`` (which bumps its version). What PyTorch checks first, we check first:

- autograd: with grad mode on, no argument may require grad ("add(): functions with out=...
  arguments don't support automatic differentiation, but one of the arguments requires
  grad.");
- the device: ``out`` on the result's device;
- the dtype, per op family: most ops (TensorIterator's) write any dtype the result
  can be cast to ("result type Float can't be cast to the desired output type Long"); the
  matrix products, softmax, gather, tril/triu and a few more want exactly the result's dtype
  ("Expected out tensor to have dtype float, but got double instead", or the op's own
  message); ``sum``/``prod``/``cumsum``/``cumprod`` compute in ``out``'s dtype, as if given
  ``dtype=out.dtype`` (a ``dtype`` given too must be out's); ``cat``/``stack`` raise
  PyTorch's TypeError for a dtype they cannot write; the ``(values, indices)`` outs must have
  exactly the values' dtype and int64;
- the shape: ``out`` is resized to the result's shape, with PyTorch's deprecation warning when
  it had elements;
- partial overlap of ``out`` with an input is refused ("unsupported operation: some elements
  of the input tensor and the written-to tensor refer to a single memory location..."); ``out``
  being an input itself is allowed.

Functions returning ``(values, indices)`` (``max(dim)``, ``sort``, ``topk``...) take a tuple of
two tensors. ``OUT_FUNCTIONS`` names the functions PyTorch 2.13 gives ``out=`` (measured on
``torch``'s own argument parser). Deliberate difference: a ``TorchDispatchMode`` sees PyTorch's
``aten::add.out``; a minigrad mode sees ``add``, ``resize_`` and ``copy_``.
"""
from __future__ import annotations

import functools
import warnings

import numpy as np

from .. import dtypes as _dt
from ..autograd.grad_mode import _grad_state
from ..dispatch import dispatch, flat_tensors
from ..ops.inplace import _can_cast
from ..tensor import Tensor

__all__ = ["OUT_FUNCTIONS", "with_out"]

OUT_FUNCTIONS = frozenset("""
abs absolute acos acosh add addbmm addcdiv addcmul addmm addmv addr all amax amin any arccos
arccosh arcsin arcsinh arctan arctan2 arctanh argmax argmin argsort asin asinh atan atan2 atanh
baddbmm bernoulli bitwise_and bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift
bitwise_xor bmm bucketize cat ceil clamp clamp_max clamp_min clip conj_physical copysign cos cosh
cumprod cumsum deg2rad diag div divide dot eq erf erfc erfinv exp exp2 expm1 fix float_power floor
floor_divide fmod frac gather gcd ge ger greater greater_equal gt hardshrink heaviside hypot i0
index_add index_select isin kthvalue lcm ldexp le lerp less less_equal log log10 log1p log2
log_softmax logaddexp logaddexp2 logical_and logical_not logical_or logical_xor logit logsumexp
lt masked_select
matmul max maximum mean median min minimum mm mul multinomial multiply mv nan_to_num ne neg
negative nextafter nonzero norm not_equal outer pow prod rad2deg reciprocal remainder round rsqrt
scatter scatter_add scatter_reduce searchsorted sgn sigmoid sign sin sinc sinh softmax sort sqrt
square stack std sub subtract sum take_along_dim tan tanh tensordot threshold topk tril triu
true_divide trunc var where xlogy
""".split())

# ops whose out must have the result's dtype exactly: the message PyTorch gives
_EXPECTED = "Expected out tensor to have dtype {want}, but got {got} instead"
_STRICT = {
    **{n: _EXPECTED for n in ("mm", "bmm", "addmm", "baddbmm", "addmv", "softmax",
                              "log_softmax", "gather", "tril", "triu", "norm", "argmax",
                              "argmin", "take_along_dim")},
    "dot": "result dtype {Got} does not match input dtype {Want}",
    "matmul": "result dtype {Got} does not match input dtype {Want}",
    "mv": "result dtype {Got} does not match input dtype {Want}",
    "amax": "Expected the dtype for input and out to match, but got {Want} for input's dtype "
            "and {Got} for out's dtype.",
    "amin": "Expected the dtype for input and out to match, but got {Want} for input's dtype "
            "and {Got} for out's dtype.",
    "tensordot": "tensordot: Expected the output tensor to have dtype {Want}, but got an "
                 "output tensor with dtype {Got}",
    "nonzero": "nonzero: Expected out tensor to have scalar type {Want} but got scalar "
               "type{Got}",
    "masked_select": "masked_select(): self and result must have the same scalar type",
    "index_select": "index_select(): self and result must have the same scalar type",
}
# ops that compute in out's dtype (PyTorch passes it on as ``dtype``); a ``dtype`` given too
# must be out's (``_EXPECTED``)
_OUT_DTYPE = frozenset(("sum", "prod", "cumsum", "cumprod"))
# (values, indices) ops: both outs want exactly the result's dtype (int64 indices); the messages
# per op, for the values and for the indices
_PAIR = {
    "kthvalue": ("output values must be of same type as input",
                 "output indices must be of scalar type Long"),
    "median": ("Expected tensor for 'values' to have the same type as tensor for argument #2 "
               "'self'; but type {got_type} does not equal {want_type} (while checking "
               "arguments for median)",
               "Expected tensor for argument #1 'indices' to have scalar type Long; but got "
               "{got_type} instead (while checking arguments for median)"),
}

_RESIZED = ("An output with one or more elements was resized since it had shape {old}, which "
            "does not match the required output shape {new}. This behavior is deprecated, and "
            "in a future PyTorch release outputs will not be resized unless they have zero "
            "elements. You can explicitly reuse an out tensor t by resizing it, inplace, to "
            "zero elements with t.resize_(0).")
_OVERLAP = ("unsupported operation: some elements of the input tensor and the written-to "
            "tensor refer to a single memory location. Please clone() the tensor before "
            "performing the operation.")


def _check_dtype(name, result, out, pair=None):
    if out.dtype is result.dtype:
        return
    msg = _STRICT.get(name) if pair is None else _PAIR.get(name, (_EXPECTED,) * 2)[pair]
    if pair is not None:
        raise RuntimeError(msg.format(want=result.dtype.cpp_name, got=out.dtype.cpp_name,
                                      want_type=result.type(), got_type=out.type()))
    if name in ("cat", "stack") and not _can_cast(result.dtype, out.dtype):
        raise TypeError("torch.cat(): input types can't be cast to the desired output type "
                        f"{out.dtype.scalar_name}")
    if msg is not None:
        raise RuntimeError(msg.format(want=result.dtype.cpp_name, got=out.dtype.cpp_name,
                                      Want=result.dtype.scalar_name,
                                      Got=out.dtype.scalar_name))
    if not _can_cast(result.dtype, out.dtype):
        raise RuntimeError(f"result type {result.dtype.scalar_name} can't be cast to the "
                           f"desired output type {out.dtype.scalar_name}")


def _same_view(a, b) -> bool:
    return (a.__array_interface__["data"][0] == b.__array_interface__["data"][0]
            and a.shape == b.shape and a.strides == b.strides)


def _check_overlap(out, inputs):
    o = out._data
    for t in inputs:
        if t is out or not isinstance(t, Tensor):
            continue
        if o.size and t._data.size and np.may_share_memory(o, t._data) \
                and not _same_view(o, t._data):
            raise RuntimeError(_OVERLAP)


def _write(name, result, out, pair=None):
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if out.device != result.device:
        raise RuntimeError(f"Expected out tensor to have device {result.device}, but got "
                           f"{out.device} instead")
    _check_dtype(name, result, out, pair)
    if tuple(out.shape) != tuple(result.shape):
        if out.numel() != 0:
            warnings.warn(_RESIZED.format(old=list(out.shape), new=list(result.shape)),
                          UserWarning, stacklevel=3)
        dispatch("resize_", out, tuple(result.shape))
    dispatch("copy_", out, result)


def with_out(fn):
    """``fn`` (a torch-level function) with PyTorch's ``out=`` keyword (see the module
    docstring); without ``out`` it is ``fn`` itself, called as it is.

    Raises:
        RuntimeError: an argument requires grad under grad mode; ``out`` on another device,
            of a dtype the op cannot write, or partly overlapping an input.
        TypeError: ``out`` not a Tensor (or not a tuple of two for ``(values, indices)``).
    """
    name = fn.__name__

    @functools.wraps(fn)
    def f(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        inputs = flat_tensors(list(args) + list(kwargs.values()))
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        if _grad_state.enabled and any(isinstance(t, Tensor) and t.requires_grad
                                       for t in inputs + outs):
            raise RuntimeError(f"{name}(): functions with out=... arguments don't support "
                               "automatic differentiation, but one of the arguments requires "
                               "grad.")
        for o in outs:
            if isinstance(o, Tensor):
                _check_overlap(o, inputs)
        if name in _OUT_DTYPE and isinstance(out, Tensor):
            dt = kwargs.get("dtype")
            if dt is None:
                kwargs = {**kwargs, "dtype": out.dtype}
            elif _dt.as_dtype(dt) is not out.dtype:
                raise RuntimeError(_EXPECTED.format(want=_dt.as_dtype(dt).cpp_name,
                                                    got=out.dtype.cpp_name))
        result = fn(*args, **kwargs)
        if isinstance(result, tuple):           # (values, indices)
            if not isinstance(out, (tuple, list)) or len(out) != len(result):
                raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not "
                                f"{type(out).__name__}")
            pairs = list(enumerate(zip(result, out)))
            for i, (r, o) in pairs[::-1] if name == "median" else pairs:   # PyTorch's order
                if isinstance(o, Tensor):
                    _check_dtype(name, r, o, pair=i)
            for r, o in zip(result, out):
                _write(name, r, o)
            return type(result)(*out) if hasattr(result, "_fields") else tuple(out)
        if isinstance(out, (tuple, list)):
            raise TypeError(f"{name}(): argument 'out' must be Tensor, not "
                            f"{type(out).__name__}")
        _write(name, result, out)
        return out

    f.__doc__ = (fn.__doc__ or "") + "\n\n    ``out=``: see ``minigrad._functional.out_argument``."
    return f
