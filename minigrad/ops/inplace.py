"""In-place ops: add_, sub_, mul_, div_, clamp_, relu_, sigmoid_, tanh_, zero_, fill_, copy_.

Semantics as PyTorch's:
- Under ``no_grad`` (or when nothing involved requires grad) the result is computed in opmath,
  rounded once into ``self``'s dtype, written into ``self``'s storage (views see it) and the
  version counter is bumped: what optimizers rely on.
- In grad mode, when ``self`` or an operand requires grad, autograd's checks run first
  (``minigrad.autograd.views.check_inplace``: a leaf that requires grad, a view of one, a view
  made under ``no_grad``/``inference_mode``, an output of ``unbind``/``split``) and the op is
  recorded: the out-of-place op runs on a copy of ``self``'s old value, the result is written
  into ``self``, and ``self``'s history is rebased onto the op's node (``self.grad_fn`` becomes
  e.g. ``MulBackward0``). On a view, the base gets a ``CopySlices`` node and the view's
  ``grad_fn`` becomes ``AsStridedBackward0``, as in PyTorch.
- A result the node saved (``relu_``, ``sigmoid_``, ``tanh_`` save their output) is re-pointed at
  ``self``'s storage and version, so a later in-place change of ``self`` is caught at backward.
- Memory overlap errors as PyTorch's: writing a tensor whose elements alias each other (an
  expanded view; ``fill_``/``zero_`` are allowed), or reading an operand that partly overlaps the
  written tensor (``b.add_(b[0])``, ``b.copy_(b.t())``).
- An inference tensor cannot be updated in place outside ``inference_mode``.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..autograd.grad_mode import _grad_state, grad_enabled
from ..autograd.views import check_inplace, rebase_history
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import broadcast_shapes, check_int_scalar, check_scalar
from .activation import Relu, Sigmoid, Tanh
from .compare import clamp as _clamp
from .elementwise import Add, Mul, Sub, _div
from .factory import _convert

_INTERNAL_OVERLAP = ("unsupported operation: more than one element of the written-to tensor "
                     "refers to a single memory location. Please clone() the tensor before "
                     "performing the operation.")
_PARTIAL_OVERLAP = ("unsupported operation: some elements of the input tensor and the written-to "
                    "tensor refer to a single memory location. Please clone() the tensor before "
                    "performing the operation.")


def _can_cast(src, dst) -> bool:
    """PyTorch's ``canCast``: no float -> integral, no non-bool -> bool."""
    if src.is_floating_point and not dst.is_floating_point:
        return False
    if src is not _dt.bool_ and dst is _dt.bool_:
        return False
    return True


def _check_out(self, res):
    if res._data.shape != self._data.shape:
        raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast "
                           f"shape {list(res.shape)}")
    if res.dtype is not self.dtype and not _can_cast(res.dtype, self.dtype):
        raise RuntimeError(f"result type {res.dtype.scalar_name} can't be cast to the "
                           f"desired output type {self.dtype.scalar_name}")


def has_internal_overlap(arr) -> bool:
    """True when two elements of ``arr`` share memory (a stride-0 dim of size > 1)."""
    return any(s == 0 and n > 1 for n, s in zip(arr.shape, arr.strides))


def check_overlap(self, args, internal=True):
    """PyTorch's memory-overlap checks for an in-place op writing ``self`` and reading ``args``.

    Raises:
        RuntimeError: ``self`` has internally overlapping elements ("unsupported operation: more
            than one element of the written-to tensor refers to a single memory location...")
            when ``internal``; an operand partly overlaps ``self`` ("unsupported operation: some
            elements of the input tensor and the written-to tensor refer to a single memory
            location...").
    """
    out = self._data
    if internal and out.size and has_internal_overlap(out):    # empty: nothing overlaps
        raise RuntimeError(_INTERNAL_OVERLAP)
    for a in args:
        if isinstance(a, Tensor) and a is not self:
            x = a._data
            if x is out or not np.may_share_memory(x, out):
                continue
            same = (x.__array_interface__["data"][0] == out.__array_interface__["data"][0]
                    and x.strides == out.strides and x.shape == out.shape)
            if not same and np.shares_memory(x, out):
                raise RuntimeError(_PARTIAL_OVERLAP)


def check_inference(self):
    """Raises RuntimeError for an in-place update of an inference tensor outside inference
    mode (PyTorch's message)."""
    if self._inference and not _grad_state.inference:
        raise RuntimeError("Inplace update to inference tensor outside InferenceMode is not "
                           "allowed.You can make a clone to get a normal tensor before doing "
                           "inplace update.See https://github.com/pytorch/rfcs/pull/17 for more "
                           "details.")


def _write(self, data):
    if data.dtype != self._data.dtype:
        data = _convert(data, self.dtype)
    self._data[...] = data
    self._vc[0] += 1


def _repoint_saved(node, self):
    """Saved outputs of the rebased node now live in ``self`` (storage and version)."""
    saved = getattr(node, "_saved", None)
    if saved:
        for s in saved:
            if s is not None and s.is_output:
                s.data, s.vc, s.version = self._data, self._vc, self._vc[0]


def _needs_record(self, args):
    if not grad_enabled():
        return False
    if self.requires_grad:
        return True
    for a in args:
        if isinstance(a, Tensor) and (a._requires_grad or (
                a._view is not None and a._view.base._requires_grad)):
            return True
    return False


def run_inplace(self, fn, *args, internal_overlap=True, **kwargs):
    """Run the out-of-place ``fn(self, *args, **kwargs)`` and store its result into ``self``.

    Returns ``self``. See the module docstring for autograd semantics. ``internal_overlap=False``
    skips the check that ``self``'s elements do not alias each other (``fill_``, ``zero_``).

    Raises:
        RuntimeError: autograd's in-place errors (``check_inplace``); memory overlap; an
            inference tensor outside inference mode; a result of another shape ("output with
            shape [3] doesn't match the broadcast shape [2, 3]") or of a dtype that cannot be
            cast to self's ("result type Float can't be cast to the desired output type Long").
        TypeError: ``self`` not a Tensor.
    """
    if not isinstance(self, Tensor):
        raise TypeError(f"in-place op: expected a Tensor, got {type(self).__name__}")
    check_inference(self)
    record = _needs_record(self, args)
    if record:
        check_inplace(self)
    check_overlap(self, args, internal_overlap)
    if not record:
        res = fn(self, *args, **kwargs)
        _check_out(self, res)
        _write(self, res._data)
        return self
    old = Tensor._make(self._data.copy(), self.dtype)
    if self.requires_grad:
        fn0 = self.grad_fn
        if fn0 is not None:
            old._requires_grad = True
            old._grad_fn = fn0
            old._output_nr = self._output_nr
    res = fn(old, *args, **kwargs)
    _check_out(self, res)
    _write(self, res._data)
    node = res._grad_fn
    if node is not None:
        rebase_history(self, res)
        _repoint_saved(node, self)
    return self


_add, _mul, _sub = Add.apply, Mul.apply, Sub.apply


@register_op("add_")
def add_(self, other, *, alpha=1):
    """In-place ``self += alpha * other`` (``Tensor.add_``); errors of ``run_inplace``."""
    return run_inplace(self, _add, other, alpha=alpha)


@register_op("sub_")
def sub_(self, other, *, alpha=1):
    """In-place ``self -= alpha * other`` (``Tensor.sub_``)."""
    return run_inplace(self, _sub, other, alpha=alpha)


@register_op("mul_")
def mul_(self, other):
    """In-place ``self *= other`` (``Tensor.mul_``)."""
    return run_inplace(self, _mul, other)


@register_op("div_")
def div_(self, other, *, rounding_mode=None):
    """In-place ``self /= other`` (``Tensor.div_``); integer ``self`` with true division raises
    "result type Float can't be cast to the desired output type Long"."""
    return run_inplace(self, _div, other, rounding_mode=rounding_mode)


@register_op("clamp_")
def clamp_(self, min=None, max=None):
    """In-place ``clamp`` (``Tensor.clamp_``)."""
    return run_inplace(self, _clamp, min, max)


@register_op("relu_")
def relu_(self):
    """In-place ``relu`` (``Tensor.relu_``, ``F.relu(x, inplace=True)``; ``ReluBackward0``)."""
    return run_inplace(self, Relu.apply)


@register_op("sigmoid_")
def sigmoid_(self):
    """In-place ``sigmoid`` (``Tensor.sigmoid_``; ``SigmoidBackward0``).

    Raises:
        RuntimeError: on an integer tensor (the float result cannot be cast back).
    """
    return run_inplace(self, Sigmoid.apply)


@register_op("tanh_")
def tanh_(self):
    """In-place ``tanh`` (``Tensor.tanh_``; ``TanhBackward0``).

    Raises:
        RuntimeError: on an integer tensor (the float result cannot be cast back).
    """
    return run_inplace(self, Tanh.apply)


class Zero(Function):
    """Zeros of the input's shape and dtype; node ``ZeroBackward0`` (zero gradient)."""

    _backward_name = "ZeroBackward0"

    @staticmethod
    def forward(ctx, input):
        return Tensor._make(np.zeros_like(input._data), input.dtype)

    @staticmethod
    def backward(ctx, grad):
        return dispatch("zeros_like", grad)


@register_op("zero_")
def zero_(self):
    """In-place fill with zeros (``Tensor.zero_``); allowed on expanded views, as PyTorch."""
    return run_inplace(self, Zero.apply, internal_overlap=False)


class Fill(Function):
    """``input`` filled with ``value`` (cast to input's dtype); node ``FillBackward2``."""

    _backward_name = "FillBackward2"

    @staticmethod
    def forward(ctx, input, value):
        if not isinstance(value, Tensor) and input.numel() != 1:
            # (a one-element tensor takes PyTorch's scalar_fill: a plain cast, no range check)
            check_scalar(value, input.dtype)
        v = value._data if isinstance(value, Tensor) else np.asarray(value)
        return Tensor._make(np.full(input.shape, _convert(v, input.dtype), input.dtype.np),
                            input.dtype)

    @staticmethod
    def backward(ctx, grad):
        return dispatch("zeros_like", grad), None


class FillTensor(Fill):
    _backward_name = "FillBackward3"

    @staticmethod
    def backward(ctx, grad):
        return dispatch("zeros_like", grad), dispatch("sum", grad)


@register_op("fill_")
def fill_(self, value):
    """In-place fill with a number or 0-dim tensor ``value`` (``Tensor.fill_``).

    Raises:
        RuntimeError: a value tensor with dimensions ("fill_ only supports 0-dimension value
            tensor but got tensor with 1 dimensions.").
    """
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value.ndim} dimensions.")
        return run_inplace(self, FillTensor.apply, value, internal_overlap=False)
    if not isinstance(value, (bool, int, float, np.number, np.bool_)):
        raise TypeError(f"fill_(): argument 'value' must be Number, not {type(value).__name__}")
    if value.__class__ is int:
        check_int_scalar(value)             # the argument parser's Scalar: OverflowError
    return run_inplace(self, Fill.apply, value, internal_overlap=False)


class Copy(Function):
    """``src`` broadcast to ``input``'s shape and cast to its dtype; node ``CopyBackwards``."""

    _backward_name = "torch::autograd::CopyBackwards"

    @staticmethod
    def forward(ctx, input, src):
        if src.shape != input.shape:
            out = broadcast_shapes(input.shape, src.shape)
            if out != tuple(input.shape):
                raise RuntimeError(f"output with shape {list(input.shape)} doesn't match the "
                                   f"broadcast shape {list(out)}")
        data = np.broadcast_to(_convert(src._data, input.dtype), input.shape)
        return Tensor._make(np.array(data, copy=True), input.dtype)

    @staticmethod
    def backward(ctx, grad):
        nig = ctx.needs_input_grad
        return (dispatch("zeros_like", grad) if nig[0] else None), (grad if nig[1] else None)


@register_op("copy_")
def copy_(self, src, non_blocking=False):
    """Copy ``src`` (broadcast, cast to ``self``'s dtype) into ``self`` (``Tensor.copy_``).

    Raises:
        TypeError: ``src`` not a Tensor. RuntimeError: shapes that do not broadcast to self's.
    """
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'other' (position 1) must be Tensor, not "
                        f"{type(src).__name__}")
    if src is self or (src._data is self._data):
        return self                      # PyTorch: copying a tensor onto itself is a no-op
    return run_inplace(self, Copy.apply, src)
