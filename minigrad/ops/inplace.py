"""In-place ops: add_, sub_, mul_, div_, clamp_, zero_, fill_, copy_.

Semantics as PyTorch's:
- Under ``no_grad`` (or when nothing involved requires grad) the result is computed in opmath,
  rounded once into ``self``'s dtype, written into ``self``'s storage (views see it) and the
  version counter is bumped: what optimizers rely on.
- In grad mode, on a leaf that requires grad: RuntimeError "a leaf Variable that requires grad
  is being used in an in-place operation.".
- In grad mode on a non-leaf (or when ``other`` requires grad): the op is recorded and ``self``'s
  history is rebased onto the new node (``self.grad_fn`` becomes e.g. ``MulBackward0``), as
  PyTorch does. The node sees a copy of ``self``'s old value, so formulas that need it work.

Deliberate differences: in-place ops on a *view* of a tensor that requires grad raise (PyTorch
records ``CopySlices``); a result saved by the rebased node is a private copy, so modifying
``self`` in place again is not detected by the saved-tensor version check.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..autograd.grad_mode import _grad_state
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import broadcast_shapes, check_scalar
from .cast import ToCopy
from .compare import clamp as _clamp
from .elementwise import Add, Mul, Sub, _div
from .factory import _convert


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


def _write(self, data):
    if data.dtype != self._data.dtype:
        data = _convert(data, self.dtype)
    try:
        self._data[...] = data
    except ValueError:
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           "tensor before performing the operation.") from None
    self._vc[0] += 1


def run_inplace(self, fn, *args, **kwargs):
    """Run the out-of-place ``fn(self, *args, **kwargs)`` and store its result into ``self``.

    Returns ``self``. See the module docstring for autograd semantics.

    Raises:
        RuntimeError: leaf requiring grad in grad mode; a result of another shape ("output
            with shape [3] doesn't match the broadcast shape [2, 3]") or of a dtype that cannot
            be cast to self's ("result type Float can't be cast to the desired output type
            Long"); a view of a tensor requiring grad in grad mode.
        TypeError: ``self`` not a Tensor.
    """
    if not isinstance(self, Tensor):
        raise TypeError(f"in-place op: expected a Tensor, got {type(self).__name__}")
    record = False
    if _grad_state.enabled:
        record = self._requires_grad
        if not record:
            for a in args:
                if isinstance(a, Tensor) and a._requires_grad:
                    record = True
    if not record:
        res = fn(self, *args, **kwargs)
        _check_out(self, res)
        _write(self, res._data)
        return self
    if self._requires_grad and self.grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    base = self._base
    if base is not None:
        if base._requires_grad and base.grad_fn is None:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in "
                               "an in-place operation.")
        raise RuntimeError("minigrad does not support in-place operations on a view when "
                           "autograd must record them (PyTorch would use CopySlices); use an "
                           "out-of-place op instead")
    old = Tensor._make(self._data.copy(), self.dtype)
    if self._requires_grad:
        old._requires_grad = True
        old.grad_fn = self.grad_fn
        old._output_nr = self._output_nr
    res = fn(old, *args, **kwargs)
    _check_out(self, res)
    if res.dtype is not self.dtype:
        res = ToCopy.apply(res, dtype=self.dtype)
    _write(self, res._data)
    if res.grad_fn is not None:
        self.grad_fn = res.grad_fn
        self._output_nr = res._output_nr
        self._requires_grad = True
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
    """In-place fill with zeros (``Tensor.zero_``)."""
    return run_inplace(self, Zero.apply)


class Fill(Function):
    """``input`` filled with ``value`` (cast to input's dtype); node ``FillBackward2``."""

    _backward_name = "FillBackward2"

    @staticmethod
    def forward(ctx, input, value):
        if not isinstance(value, Tensor):
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
        return run_inplace(self, FillTensor.apply, value)
    if not isinstance(value, (bool, int, float, np.number, np.bool_)):
        raise TypeError(f"fill_(): argument 'value' must be Number, not {type(value).__name__}")
    return run_inplace(self, Fill.apply, value)


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
    return run_inplace(self, Copy.apply, src)
