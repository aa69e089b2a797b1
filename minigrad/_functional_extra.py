"""More top-level functional forms (``torch.bitwise_and``, ``torch.isclose``, ``torch.split``...).

Each mirrors the torch function of the same name and signature and is one ``dispatch`` call or
a composition of dispatched ops (so autograd and autocast see the ops it is made of).
"""
from __future__ import annotations

import warnings as _warnings

from .dispatch import dispatch
from .tensor import Tensor
from . import dtypes as _dt

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_left_shift",
           "bitwise_right_shift", "logical_xor", "isclose", "allclose", "equal", "is_tensor",
           "numel", "masked_fill", "chunk", "split", "unbind"]

_NUM = (bool, int, float)


def bitwise_and(input, other):
    """Elementwise AND of bool/integer tensors (``torch.bitwise_and``), broadcasting; either
    operand may be a Python number; dtype ``result_type(input, other)``.

    Raises:
        NotImplementedError: a floating result dtype ('"bitwise_and_cpu" not implemented for
            'Float'').
        RuntimeError: shapes not broadcastable.
    """
    return dispatch("bitwise_and", input, other)


def bitwise_or(input, other):
    """Elementwise OR of bool/integer tensors (``torch.bitwise_or``); as ``bitwise_and``.

    Raises:
        NotImplementedError: a floating result dtype ('"bitwise_or_cpu" not implemented ...').
        RuntimeError: shapes not broadcastable.
    """
    return dispatch("bitwise_or", input, other)


def bitwise_xor(input, other):
    """Elementwise XOR of bool/integer tensors (``torch.bitwise_xor``); as ``bitwise_and``.

    Raises:
        NotImplementedError: a floating result dtype ('"bitwise_xor_cpu" not implemented ...').
        RuntimeError: shapes not broadcastable.
    """
    return dispatch("bitwise_xor", input, other)


def bitwise_not(input):
    """Elementwise NOT (``torch.bitwise_not``): logical for bool, two's complement for ints.

    Raises:
        NotImplementedError: a floating tensor ('"bitwise_not_cpu" not implemented for ...').
    """
    return dispatch("bitwise_not", input)


def bitwise_left_shift(input, other):
    """``input << other`` for integer tensors (``torch.bitwise_left_shift``), wrapping in the
    result dtype; shifts < 0 or >= the bit width give 0.

    Raises:
        NotImplementedError: floating or bool result dtype ('"lshift_cpu" not implemented ...').
    """
    return dispatch("bitwise_left_shift", input, other)


def bitwise_right_shift(input, other):
    """``input >> other`` for integer tensors (``torch.bitwise_right_shift``), arithmetic for
    signed dtypes.

    Raises:
        NotImplementedError: floating or bool result dtype ('"rshift_cpu" not implemented ...').
    """
    return dispatch("bitwise_right_shift", input, other)


def logical_xor(input, other):
    """Elementwise XOR of truth values (``torch.logical_xor``), broadcasting; bool result.

    Raises:
        TypeError: ``other`` not a Tensor. RuntimeError: shapes not broadcastable.
    """
    return dispatch("logical_xor", input, other)


def _close_checks(name, input, other, rtol, atol):
    for pos, (arg, x) in enumerate((("input", input), ("other", other)), 1):
        if not isinstance(x, Tensor):
            raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not "
                            f"{type(x).__name__}")
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{_dt_name(input.dtype)} did not match {_dt_name(other.dtype)}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")


def _dt_name(d):
    from .ops.compare import _TORCH_NAMES
    return _TORCH_NAMES[d.name]


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``|input - other| <= atol + rtol * |other|`` (``torch.isclose``), or exactly
    equal (so equal infinities are close); NaNs are close to each other only when
    ``equal_nan``. Composed of dispatched ops as PyTorch composes it, so the tolerance
    arithmetic runs in the inputs' dtype (fp16 inputs: fp16 rounding), bool inputs in the
    default float dtype. Bool result of the broadcast shape; no gradient.

    Raises:
        TypeError: a non-Tensor operand. RuntimeError: different dtypes ("Float did not match
            Long"), a negative rtol/atol, shapes not broadcastable.
    """
    _close_checks("isclose", input, other, rtol, atol)
    close = dispatch("eq", input, other)
    if equal_nan and input.dtype.is_floating_point:
        close = dispatch("logical_or", close, dispatch("logical_and", dispatch("isnan", input),
                                                       dispatch("isnan", other)))
    if rtol == 0 and atol == 0:
        return close
    a, b = input, other
    if a.dtype is _dt.bool_:
        a = dispatch("_to_copy", a, dtype=_dt.get_default_dtype())
        b = dispatch("_to_copy", b, dtype=_dt.get_default_dtype())
    allowed = dispatch("add", dispatch("abs", dispatch("mul", b, rtol)), atol)
    actual = dispatch("abs", dispatch("sub", a, b))
    finite_close = dispatch("logical_and", dispatch("isfinite", actual),
                            dispatch("le", actual, allowed))
    return dispatch("logical_or", close, finite_close)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True when ``isclose(input, other, rtol, atol, equal_nan)`` holds everywhere
    (``torch.allclose``); a Python bool.

    Raises:
        The errors of ``isclose``.
    """
    return bool(dispatch("all", isclose(input, other, rtol, atol, equal_nan)).item())


def equal(input, other):
    """True when both tensors have the same shape and equal elements (``torch.equal``); dtypes
    are promoted for the comparison; NaN is never equal. A Python bool.

    Raises:
        TypeError: a non-Tensor operand.
    """
    for pos, (arg, x) in enumerate((("input", input), ("other", other)), 1):
        if not isinstance(x, Tensor):
            raise TypeError(f"equal(): argument '{arg}' (position {pos}) must be Tensor, not "
                            f"{type(x).__name__}")
    if tuple(input.shape) != tuple(other.shape):
        return False
    return bool(dispatch("all", dispatch("eq", input, other)).item())


def is_tensor(obj):
    """True when ``obj`` is a minigrad Tensor (``torch.is_tensor``)."""
    return isinstance(obj, Tensor)


def numel(input):
    """The number of elements of ``input`` (``torch.numel``).

    Raises:
        TypeError: ``input`` not a Tensor.
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"numel(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input.numel()


def masked_fill(input, mask, value):
    """``input`` with ``value`` where the bool ``mask`` (broadcast) is True
    (``torch.masked_fill``). ``value`` is a number (the ``masked_fill`` op,
    ``MaskedFillBackward0``) or a 0-dim tensor, cast to ``input``'s dtype and differentiable
    (composed as ``where(mask, value.to(input.dtype), input)``: its gradient is the sum of
    ``grad`` under the mask, as PyTorch's ``MaskedFillBackward1``; the node is named
    ``WhereBackward0`` here).

    Raises:
        RuntimeError: a non-bool mask ("masked_fill_ only supports boolean masks, but got mask
            with dtype long int"); a value tensor with dimensions ("masked_fill_ only supports
            a 0-dimensional value tensor, but got tensor with 1 dimension(s)."); shapes that do
            not broadcast.
        TypeError: ``input``/``mask`` not Tensors.
    """
    for pos, (arg, x) in enumerate((("input", input), ("mask", mask)), 1):
        if not isinstance(x, Tensor):
            raise TypeError(f"masked_fill(): argument '{arg}' (position {pos}) must be Tensor, "
                            f"not {type(x).__name__}")
    if not isinstance(value, Tensor):
        return dispatch("masked_fill", input, mask, value)
    if mask.dtype is not _dt.bool_:
        from .ops.index import _CPP_NAMES
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{_CPP_NAMES.get(mask.dtype.name, mask.dtype.name)}")
    if value.ndim:
        raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.ndim} dimension(s).")
    if value.dtype is not input.dtype:
        value = dispatch("_to_copy", value, dtype=input.dtype)
    return dispatch("where", mask, value, input)


def _check_split_input(name, input, dim):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if input.ndim == 0:
        raise RuntimeError(f"{name} expects at least a 1-dimensional tensor")
    from .ops._util import wrap_dim
    return wrap_dim(dim, input.ndim)


def _pieces(input, dim, sizes, op="split"):
    return dispatch(op, input, tuple(sizes), dim)


def split(tensor, split_size_or_sections, dim=0):
    """Split ``tensor`` along ``dim`` into views (``torch.split``): pieces of
    ``split_size_or_sections`` elements (the last may be smaller), or of the listed sizes,
    which must sum to the dimension's size. Returns a tuple of views with one ``SplitBackward0``
    (``SplitWithSizesBackward0`` for a list) node, as PyTorch.

    Raises:
        RuntimeError: a 0-dim tensor; a negative size; ``split_size`` 0 on a non-empty
            dimension; sections that do not sum to the size.
        IndexError: ``dim`` out of range.
    """
    dim = _check_split_input("split", tensor, dim)
    n = tensor.shape[dim]
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = [int(s) for s in split_size_or_sections]
        if any(s < 0 for s in sizes):
            raise RuntimeError("split_with_sizes expects split_sizes have only non-negative "
                               f"entries, but got split_sizes={sizes}")
        if sum(sizes) != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} "
                               f"(input tensor's size at dimension {dim}), but got "
                               f"split_sizes={sizes}")
        return _pieces(tensor, dim, sizes, "split_with_sizes")
    s = int(split_size_or_sections)
    if s < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={s}")
    if s == 0 and n != 0:
        raise RuntimeError("split_size can only be 0 if dimension size is 0, but got dimension "
                           f"size of {n}")
    count = max(-(-n // s), 1) if s else 1
    return _pieces(tensor, dim, [min(s, n - i * s) for i in range(count)])


def chunk(input, chunks, dim=0):
    """Split ``input`` into ``chunks`` pieces of ``ceil(size / chunks)`` along ``dim``
    (``torch.chunk``); fewer pieces may come back; an empty dimension gives ``chunks`` empty
    pieces. Returns a tuple of views; gradients flow (see ``split``).

    Raises:
        RuntimeError: ``chunks`` <= 0 ("chunk expects `chunks` to be greater than 0, got: 0"),
            a 0-dim tensor. IndexError: ``dim`` out of range.
    """
    dim = _check_split_input("chunk", input, dim)
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    n = input.shape[dim]
    if n == 0:
        return _pieces(input, dim, [0] * chunks)
    return split(input, -(-n // chunks), dim)


def unbind(input, dim=0):
    """The slices of ``input`` along ``dim``, with that dimension removed (``torch.unbind``):
    a tuple of views with one ``UnbindBackward0`` node, as PyTorch.

    Raises:
        IndexError: a 0-dim tensor ("Dimension specified as 0 but tensor has no dimensions"),
            ``dim`` out of range.
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"unbind(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return dispatch("unbind", input, dim)


def _new_tensor_warning():
    _warnings.warn("To copy construct from a tensor, it is recommended to use "
                   "sourceTensor.detach().clone() or sourceTensor.detach().clone()"
                   ".requires_grad_(True), rather than tensor.new_tensor(sourceTensor).",
                   UserWarning, stacklevel=3)
