"""Elementwise arithmetic: add, sub, rsub, mul, div, rdiv, each computing in opmath, rounding once.

Operands follow PyTorch's TensorIterator: tensor operands are first converted to the common
(result) dtype, then upcast to opmath (fp32 for fp16/bf16). Python scalars (and 0-dim tensors in
the ``other`` slot) follow PyTorch's CPU kernels: add/sub scalars and ``alpha`` are rounded to the
16-bit result dtype first; mul/div scalars are used in fp32 unrounded.

One measured quirk is reproduced: a 16-bit add/sub with ``alpha != 1`` rounds ``alpha*other`` to
16 bits in PyTorch's scalar tail loop (the last ``n % 32`` elements of each contiguous row) but
not in its vectorised body; ``tail_mask`` says which elements those are.

Backward formulas are dispatched ops; broadcast reduction and dtype casts of gradients happen
centrally in the engine.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .._autograd_state import _INFERENCE_ACTIVE, inference_enabled
from ..dispatch import dispatch, register_op, register_packet
from ..tensor import Tensor
from ._binary import _check_alpha, _r16, add_kernel, is_scalar_other
from .. import numerics as _nx
from ..numerics import scalar_in
from ._util import LOW, check_scalar_or_tensor
from .kernel import PROMOTE_OPMATH, SCALAR_OPMATH, TRUE_DIVIDE, Kernel, check_operands
_make = Tensor._make      # bound once: cheaper per call than the class attribute
_new = object.__new__
_ND = np.ndarray

# ---------------------------------------------------------------------------------- add / sub
@register_op("add")
class Add(Kernel):
    """``add(input, other, *, alpha=1)`` = input + alpha * other (``torch.add``).

    Shapes broadcast; dtype is ``result_type(input, other)`` (rule ``PROMOTE_OPMATH``: a Python
    number and ``alpha`` are rounded to a 16-bit result dtype first). A scalar ``input`` is
    swapped.

    Raises:
        RuntimeError: non-broadcastable shapes; a float ``alpha`` with an integral result.
        TypeError: non-Tensor/number operands.
    """

    rule = PROMOTE_OPMATH
    operands = 2
    _backward_name = "AddBackward0"
    _scalar_edges = True
    _fast_same_meta = True

    @staticmethod
    def _fast(ctx, args):
        """``Function.apply``'s fast path (see ``Function._fast``): ``input + other`` without
        ``alpha``, when there is nothing to promote or round: two tensors of one shape and one
        dtype that is its own opmath (fp32, fp64, integers, bool), or an fp32/fp64 tensor and a
        Python number, which enters in the tensor's dtype (as ``Rule._fast_load`` takes it)."""
        try:
            input, other = args     # (cheaper than a len() check in 3.11: no call)
        except ValueError:
            return None
        if type(input) is not Tensor:
            return None
        dt = input.dtype
        if dt.opmath is not dt:
            return None
        a = input._data
        if type(other) is Tensor:
            o = other._data
            shape = a.shape
            if dt is not other.dtype or shape != o.shape:
                return None
            if other._base is not None:
                # a view of one element (sum's and mean's backward expand a 0-d gradient):
                # added as that 0-d array, NumPy's scalar loop, instead of the iterator NumPy
                # builds for a strided operand (4x the cost on small tensors); the same sums,
                # the same result layout (input's)
                b0 = o.base
                if b0.__class__ is np.ndarray and b0.ndim == 0 and b0.dtype == o.dtype:
                    o = b0
            res = a + o     # (not quieted: see tests/unit/test_numpy_warnings.py)
            if not shape:
                res = np.asarray(res)       # (NumPy returns a scalar for 0-d operands)
        elif dt.is_floating_point and (other.__class__ is float or other.__class__ is int and
                                       -9223372036854775808 <= other < 18446744073709551616):
            token = _nx.quiet()     # (an int no Scalar holds: the general path raises)
            try:
                res = a + dt.np.type(other)
            finally:
                _nx.unquiet(token)
            if type(res) is not _ND:
                res = np.asarray(res)
        else:
            return None
        if ctx is not None:
            ctx.alpha = 1
        # ``Tensor._make(res, dt)``, written out: the call's frame alone costs ~5% of a small
        # add in CPython 3.11 (test_op_fast_paths checks that both make the same tensor)
        out = _new(Tensor)
        out._data = res
        out.dtype = dt
        out._requires_grad = False
        out._grad_fn = None
        out._output_nr = 0
        out._base = None
        out._view = None
        out._vc = [0]
        if _INFERENCE_ACTIVE[0] and inference_enabled():
            out._inference = True
        return out

    @classmethod
    def forward(cls, ctx, input, other, *, alpha=1):
        ctx.alpha = alpha
        if alpha == 1:
            out = _add_fast(ctx, (input, other))
            if out is not None:
                return out
        if not isinstance(input, Tensor):      # scalar + tensor
            input, other = other, input
        return cls.rule.run(add_kernel, (input, other), (alpha,), op="add")

    @staticmethod
    def backward(ctx, grad):
        return grad, (grad if ctx.alpha == 1 else dispatch("mul", grad, ctx.alpha))


def _is_bool(x):
    return x.dtype is _dt.bool_ if isinstance(x, Tensor) else isinstance(x, (bool, np.bool_))


def _check_sub(input, other):
    """PyTorch's ``sub_check``: no bool operands."""
    bi, bo = _is_bool(input), _is_bool(other)
    if bi and bo:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if bi or bo:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")


@register_op("sub")
class Sub(Kernel):
    """``sub(input, other, *, alpha=1)`` = input - alpha * other (``torch.sub``; rule
    ``PROMOTE_OPMATH``).

    Raises:
        RuntimeError: bool operands (PyTorch's message), non-broadcastable shapes, float
            ``alpha`` with an integral result.
    """

    rule = PROMOTE_OPMATH
    operands = 2
    _backward_name = "SubBackward0"
    _scalar_edges = True

    @classmethod
    def forward(cls, ctx, input, other, *, alpha=1):
        check_operands((input, other), "sub")
        _check_sub(input, other)
        ctx.alpha = alpha
        return cls.rule.run(add_kernel, (input, other), (alpha, True), op="sub")

    @staticmethod
    def backward(ctx, grad):
        g = None
        if len(ctx.needs_input_grad) > 1 and ctx.needs_input_grad[1]:
            g = dispatch("neg", grad)
            if ctx.alpha != 1:
                g = dispatch("mul", g, ctx.alpha)
        return grad, g


def _rsub_kernel(rt, a, b, alpha, tensor_other):
    if tensor_other:
        return add_kernel(rt, b, a, alpha, negate=True)
    _check_alpha(alpha, rt)
    if alpha != 1:
        a = a * scalar_in(alpha, rt)
    return b - a


@register_op("rsub.Scalar")
class Rsub(Kernel):
    """``rsub(input, other, *, alpha=1)`` = other - alpha * input (``torch.rsub``); Python's
    ``scalar - tensor`` dispatches ``rsub(tensor, scalar)``. Node ``RsubBackward1`` for a scalar
    ``other``, ``RsubBackward0`` for a tensor.

    Raises:
        RuntimeError: bool operands, non-broadcastable shapes.
    """

    rule = PROMOTE_OPMATH
    operands = 2
    _backward_name = "RsubBackward1"

    @classmethod
    def forward(cls, ctx, input, other, *, alpha=1):
        check_operands((input, other), "rsub")
        _check_sub(input, other)
        ctx.alpha = alpha
        return cls.rule.run(_rsub_kernel, (input, other), (alpha, isinstance(other, Tensor)),
                            op="rsub")

    @staticmethod
    def backward(ctx, grad):
        g = dispatch("neg", grad)
        if ctx.alpha != 1:
            g = dispatch("mul", g, ctx.alpha)
        return g, grad


@register_op("rsub.Tensor")
class _RsubTensor(Rsub):
    _backward_name = "RsubBackward0"


@register_packet("rsub")
def _rsub(args, kwargs):
    """``rsub`` -> ``rsub.Tensor`` for a Tensor ``other``, else ``rsub.Scalar``."""
    tensor_other = len(args) > 1 and isinstance(args[1], Tensor)
    return ("rsub.Tensor" if tensor_other else "rsub.Scalar"), args, kwargs


# ---------------------------------------------------------------------------------- mul
def _mul_kernel(rt, a, b):
    return np.logical_and(a, b) if rt is _dt.bool_ else a * b


@register_op("mul")
class Mul(Kernel):
    """``mul(input, other)`` (``torch.mul``; rule ``SCALAR_OPMATH``: a Python number or 0-dim
    tensor ``other`` is used in opmath unrounded).

    Raises:
        RuntimeError: non-broadcastable shapes. TypeError: non-Tensor/number operands.
    """

    rule = SCALAR_OPMATH
    operands = 2
    _backward_name = "MulBackward0"
    _saved_names = ("self", "other")
    _saved_scalars = {"other": "scalar"}
    _scalar_edges = True
    _fast_same_meta = True

    @staticmethod
    def _fast(ctx, args):
        """``Function.apply``'s fast path (see ``Function._fast``): ``input * other`` for two
        fp32/fp64 tensors of one shape and dtype, nothing to promote or round (the kernel base's
        steps without their checks; no NumPy warnings, as there). Saves as ``forward``."""
        try:
            input, other = args     # (cheaper than a len() check in 3.11: no call)
        except ValueError:
            return None
        if type(input) is not Tensor or type(other) is not Tensor:
            return None
        dt = input.dtype
        shape = input._data.shape
        if other.dtype is not dt or dt.opmath is not dt or not dt.is_floating_point or \
                shape != other._data.shape:
            return None
        token = _nx.quiet()
        try:
            res = input._data * other._data
        finally:
            _nx.unquiet(token)
        # ``Tensor._make(res, dt)``, written out as in ``Add._fast``
        if not shape:
            res = np.asarray(res)       # (NumPy returns a scalar for 0-d operands)
        out = _new(Tensor)
        out._data = res
        out.dtype = dt
        out._requires_grad = False
        out._grad_fn = None
        out._output_nr = 0
        out._base = None
        out._view = None
        out._vc = [0]
        if _INFERENCE_ACTIVE[0] and inference_enabled():
            out._inference = True
        if ctx is not None:
            nig = ctx.needs_input_grad
            ctx.save_for_backward(input if nig[1] else None, other if nig[0] else None)
            ctx.scalar = None
        return out

    @classmethod
    def forward(cls, ctx, input, other):
        if not isinstance(input, Tensor):
            input, other = other, input
        out = cls.rule.run(_mul_kernel, (input, other), op="mul")
        if isinstance(other, Tensor):
            nig = ctx.needs_input_grad
            ctx.save_for_backward(input if len(nig) > 1 and nig[1] else None,
                                  other if nig[0] else None)
            ctx.scalar = None
        else:
            ctx.scalar = other
            ctx.save_for_backward()   # PyTorch saves the wrapped scalar: freed after backward
        return out

    @staticmethod
    def backward(ctx, grad):
        if ctx.scalar is not None:
            ctx.saved_tensors        # raises once the graph was freed, as PyTorch
            return dispatch("mul", grad, ctx.scalar), None
        input, other = ctx.saved_tensors
        nig = ctx.needs_input_grad
        ga = dispatch("mul", grad, other) if nig[0] else None
        gb = dispatch("mul", grad, input) if len(nig) > 1 and nig[1] else None
        return ga, gb


_add_fast = Add._fast       # (Add.forward's own shortcut: the same function)


# ---------------------------------------------------------------------------------- div
_MODES = (None, "trunc", "floor")


def _floor_div_float(a, b, r):
    """PyTorch's ``div_floor_floating`` (Python semantics); ``r`` rounds each intermediate."""
    with np.errstate(all="ignore"):
        mod = np.fmod(a, b)
        div = r(r(a - mod) / b)
        div = np.where((mod != 0) & ((b < 0) != (mod < 0)), r(div - 1), div)
        fl = np.floor(div)
        fl = np.where(r(div - fl) > 0.5, r(fl + 1), fl)
        q = a / b
        out = np.where(div != 0, fl, np.copysign(np.zeros_like(q), q))
        return np.where(b == 0, q, out)


def _div_int(a, b, mode):
    if np.any(b == 0):
        raise RuntimeError("ZeroDivisionError")
    q = np.floor_divide(a, b)
    if mode == "trunc":
        q = q + ((np.remainder(a, b) != 0) & ((a < 0) != (b < 0)))
    return q


def div_kernel(rt, a, b, mode, scalar):
    """``a / b`` in opmath with ``rounding_mode`` ``mode``; ``scalar``: the divisor took
    PyTorch's CPU-scalar path (a number, or a 0-dim tensor after a dimensioned input)."""
    if rt is _dt.bool_ and mode is not None:
        raise NotImplementedError(f"\"div_{mode}_cpu\" not implemented for 'Bool'")
    if not rt.is_floating_point:
        return _div_int(a, b, mode)
    if mode is None:
        return a / b
    # ATen's 16-bit trunc/floor compute in fp32 and round once when the divisor is a single
    # element (TensorIterator's is_scalar(2)); otherwise in 16-bit arithmetic, each
    # intermediate rounded
    low = rt in LOW and not scalar and np.size(b) != 1
    if mode == "trunc":
        q = a / b
        return np.trunc(_r16(q, rt) if low else q)
    return _floor_div_float(a, b, (lambda x: _r16(x, rt)) if low else (lambda x: x))


@register_op("div.Tensor")
class Div(Kernel):
    """``div(input, other, *, rounding_mode=None)`` (``torch.div`` / ``true_divide``).

    True division has rule ``TRUE_DIVIDE`` (integers give the default float dtype; a number
    divisor is used in opmath unrounded); 'trunc'/'floor' (``div.Tensor_mode``) keep the
    promoted dtype (``SCALAR_OPMATH``; 16-bit floor/trunc by a tensor round each intermediate as
    PyTorch's kernel does). Node ``DivBackward0`` (``DivBackward2`` with a rounding mode; its
    gradients are zero).

    Raises:
        RuntimeError: an unknown rounding_mode; integer division by zero ("ZeroDivisionError");
            non-broadcastable shapes.
    """

    rule = TRUE_DIVIDE
    operands = 2
    _backward_name = "DivBackward0"
    _saved_names = ("self", "other")
    _saved_scalars = {"other": "other"}
    _scalar_edges = True

    @classmethod
    def forward(cls, ctx, input, other, *, rounding_mode=None):
        check_operands((input, other), "div")
        if rounding_mode not in _MODES:
            raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or "
                               f"'floor' but found '{rounding_mode}'")
        nig = ctx.needs_input_grad
        if isinstance(other, Tensor):
            ctx.other = None
            ctx.save_for_backward(input if len(nig) > 1 and nig[1] else None, other)
        else:
            ctx.other = other
            ctx.save_for_backward()   # PyTorch saves the wrapped scalar: freed after backward
        return cls.rule.run(div_kernel, (input, other),
                            (rounding_mode, is_scalar_other(other, input)), op="div")

    @staticmethod
    def backward(ctx, grad):
        nig = ctx.needs_input_grad
        if ctx.other is not None:
            ctx.saved_tensors        # raises once the graph was freed, as PyTorch
            return dispatch("div", grad, ctx.other), None
        input, other = ctx.saved_tensors
        ga = dispatch("div", grad, other) if nig[0] else None
        gb = None
        if len(nig) > 1 and nig[1]:
            q = dispatch("div", dispatch("div", input, other), other)
            gb = dispatch("mul", dispatch("neg", grad), q)
        return ga, gb


@register_op("div.Tensor_mode")
class _DivMode(Div):
    rule = SCALAR_OPMATH
    _backward_name = "DivBackward2"

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors            # PyTorch saves ``other`` here too: raises once freed
        nig = ctx.needs_input_grad
        z = dispatch("zeros_like", grad)
        return (z if nig[0] else None), (z if len(nig) > 1 and nig[1] else None)


def _div(input, other, *, rounding_mode=None):
    """The ``div`` overload for ``rounding_mode``, applied directly (for ``div_``'s kernel)."""
    if rounding_mode is None:
        return Div.apply(input, other)
    return _DivMode.apply(input, other, rounding_mode=rounding_mode)


@register_packet("div")
def _div_overload(args, kwargs):
    """``div`` -> ``div.Tensor``, or ``div.Tensor_mode`` with a ``rounding_mode``."""
    if kwargs.get("rounding_mode") is None:
        if "rounding_mode" in kwargs:
            kwargs = {k: v for k, v in kwargs.items() if k != "rounding_mode"}
        return "div.Tensor", args, kwargs
    return "div.Tensor_mode", args, kwargs


@register_packet("true_divide")
def _true_divide(args, kwargs):
    """``true_divide`` is ``div.Tensor`` (PyTorch dispatches the same kernel)."""
    return "div.Tensor", args, kwargs


@register_op("rdiv")
def rdiv(input, other):
    """``other / input``: PyTorch's ``Tensor.__rtruediv__`` computes ``input.reciprocal() *
    other`` (two roundings in 16-bit; nodes MulBackward0 and ReciprocalBackward0), for a number
    or a Tensor ``other``."""
    if not isinstance(input, Tensor):
        raise TypeError(f"rdiv(): argument 'input' must be Tensor, not {type(input).__name__}")
    check_scalar_or_tensor(other, "rdiv")
    return dispatch("mul", dispatch("reciprocal", input), other)


# ---------------------------------------------------------------------------------- .Scalar
# PyTorch's C++ code (e.g. cross_entropy's mean) calls the ``.Scalar`` overloads, whose nodes are
# ``AddBackward1``, ``SubBackward1``, ``MulBackward1``, ``DivBackward1``; Python's ``x * 2`` uses
# the Tensor overloads (``...Backward0``). Same kernels and formulas, other node names.
class _AddScalar(Add):
    _backward_name = "AddBackward1"
    _scalar_edges = False


class _SubScalar(Sub):
    _backward_name = "SubBackward1"
    _scalar_edges = False


class _MulScalar(Mul):
    _backward_name = "MulBackward1"
    _scalar_edges = False

    @staticmethod
    def backward(ctx, grad):    # MulBackward1 keeps the number, no tensor: runs again
        return dispatch("mul", grad, ctx.scalar), None


class _DivScalar(Div):
    _backward_name = "DivBackward1"
    _scalar_edges = False

    @staticmethod
    def backward(ctx, grad):    # DivBackward1 keeps the number, no tensor: runs again
        return dispatch("div", grad, ctx.other), None


register_op("add.Scalar", _AddScalar)
register_op("sub.Scalar", _SubScalar)
register_op("mul.Scalar", _MulScalar)
register_op("div.Scalar", _DivScalar)
