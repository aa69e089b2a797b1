"""``matmul`` and ``linear``: compositions of the Functions in ``linalg.py``, following
``at::matmul`` (fold / squeeze / expand + bmm, PyTorch's ``should_fold``) and ``F.linear``
(``addmm`` with a bias) so that graphs show PyTorch's nodes and 16-bit gradients round where
PyTorch's do.
"""
from __future__ import annotations

from .. import memory_layout as _mf
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import broadcast_shapes
from .linalg import _check_tensor, _numel


# ---------------------------------------------------------------------------- matmul, linear

def _should_fold(input, other):
    """PyTorch's ``should_fold``: fold an N-D (N >= 3) operand with a 1-/2-D one into mm/mv."""
    first_larger = input.ndim >= other.ndim
    big, small = (input, other) if first_larger else (other, input)
    if not (big.ndim >= 3 and small.ndim <= 2):
        return False
    if small.requires_grad:
        return True      # avoids a large expanded gradient of the small operand in backward
    if input.ndim == 2:
        return False     # 2-D @ N-D would need a transposed copy
    if big.numel() == 0:
        return True
    shape = list(big.shape)
    st = list(big._data.strides)
    if not first_larger:     # t1 = other.mT
        shape[-1], shape[-2] = shape[-2], shape[-1]
        st[-1], st[-2] = st[-2], st[-1]
    return all(st[i] == st[i + 1] * shape[i + 1] for i in range(big.ndim - 2))


@register_op("matmul")
def matmul(input, other):
    """``matmul(input, other)`` with all of ``torch.matmul``'s cases: 1-D·1-D -> ``dot``,
    2-D·1-D -> ``mv``, 1-D·2-D and 2-D·2-D -> ``mm``, N-D·(1|2)-D folded into one ``mm``/``mv``
    when PyTorch's ``should_fold`` says so, otherwise expand the batch dims and ``bmm``. Two 3-D
    operands whose batch sizes differ and one of which has batch 1 and requires grad: that one is
    squeezed to 2-D first (so its gradient is one fp32-accumulated ``mm``), as in PyTorch.

    Raises:
        RuntimeError: "both arguments to matmul need to be at least 1D, but they are 0D and 1D",
            batch dims that do not broadcast, and the errors of dot/mv/mm/bmm (no dtype
            promotion, as in PyTorch).
    """
    _check_tensor(input, "matmul", "input")
    _check_tensor(other, "matmul", "other")
    da, db = input.ndim, other.ndim
    if da == 0 or db == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{da}D and {db}D")
    if da == 1 and db == 1:
        return dispatch("dot", input, other)
    if da == 2 and db == 1:
        return dispatch("mv", input, other)
    if da == 1 and db == 2:
        return dispatch("_squeeze_result", dispatch("mm", dispatch("unsqueeze", input, 0), other),
                        (0,))
    if da == 2 and db == 2:
        return dispatch("mm", input, other)
    if _should_fold(input, other):
        return _matmul_folded(input, other)
    return _matmul_batched(input, other)


def _matmul_folded(input, other):
    da, db = input.ndim, other.ndim
    if da >= 3:
        lead = tuple(input.shape[:-1])
        # explicit sizes, not -1: a zero-size contraction ((5, 5, 0) @ (0, 5)) must fold too
        folded = dispatch("reshape", input, (_numel(lead), input.shape[-1]))
        if db == 1:
            return dispatch("_unsafe_view", dispatch("mv", folded, other), lead)
        return dispatch("_unsafe_view", dispatch("mm", folded, other), lead + (other.shape[1],))
    # (1|2)-D @ N-D: fold other.mT, so input's gradient is one fp32-accumulated product
    lead = tuple(other.shape[:-2])
    p = other.shape[-1]
    folded = dispatch("reshape", dispatch("transpose", other, -1, -2),
                      (_numel(lead) * p, other.shape[-2]))
    if da == 1:
        return dispatch("_unsafe_view", dispatch("mv", folded, input), lead + (p,))
    out = dispatch("mm", folded, dispatch("t", input))
    out = dispatch("_unsafe_view", out, lead + (p, input.shape[0]))
    out = dispatch("transpose", out, -1, -2)
    # PyTorch's .contiguous(): no copy when the transposed result is already contiguous
    if p == 1 or input.shape[0] == 1 or out.numel() == 0:
        return out
    return dispatch("clone", out, memory_format=_mf.contiguous_format)


def _matmul_batched(input, other):
    da, db = input.ndim, other.ndim
    n = input.shape[-2] if da > 1 else 1
    m1 = input.shape[-1]
    m2 = other.shape[-2] if db > 1 else other.shape[0]
    p = other.shape[-1] if db > 1 else 1
    ba = tuple(input.shape[:-2]) if da > 2 else ()
    bb = tuple(other.shape[:-2]) if db > 2 else ()
    if da == 3 and db == 3 and ba[0] != bb[0]:
        if ba[0] == 1 and input.requires_grad:
            return dispatch("matmul", dispatch("squeeze", input, 0), other)
        if bb[0] == 1 and other.requires_grad:
            return dispatch("matmul", input, dispatch("squeeze", other, 0))
    batch = broadcast_shapes(ba, bb)
    bsz = _numel(batch)
    a = dispatch("reshape", dispatch("expand", input, batch + (n, m1)), (bsz, n, m1))
    if db == 1:
        b = dispatch("reshape", dispatch("expand", other, batch + (m2,)), (bsz, m2))
        b = dispatch("unsqueeze", b, 2)
        out = dispatch("squeeze", dispatch("bmm", a, b), -1)
    else:
        b = dispatch("reshape", dispatch("expand", other, batch + (m2, p)), (bsz, m2, p))
        out = dispatch("bmm", a, b)
    shape = batch + ((n,) if da > 1 else ()) + ((p,) if db > 1 else ())
    return dispatch("_unsafe_view", out, shape)


@register_op("linear")
def linear(input, weight, bias=None):
    """``linear(input, weight, bias=None)`` = input @ weight.T + bias (``F.linear``).

    Shapes: input (*, in), weight (out, in) (or (in,) -> output (*)), bias (out,) or None.
    Dtypes must match exactly (no promotion, PyTorch's errors). With a bias, the product
    and the bias add round once (``addmm``); N-D inputs are folded to 2-D and viewed back.

    Raises:
        RuntimeError: "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)", "expected m1 and
            m2 to have the same dtype, but got: float != double", bias dtype/shape errors.
    """
    if not (isinstance(input, Tensor) and isinstance(weight, Tensor)):
        _check_tensor(input, "linear", "input")
        _check_tensor(weight, "linear", "weight")
    if bias is not None and not isinstance(bias, Tensor):
        raise TypeError(f"linear(): argument 'bias' (position 3) must be Tensor, not "
                        f"{type(bias).__name__}")
    wt = dispatch("t", weight)
    if bias is None:
        return dispatch("matmul", input, wt)
    if weight.ndim == 2 and input.ndim == 2:
        return dispatch("addmm", bias, input, wt)
    if weight.ndim == 2 and input.ndim >= 1:
        lead = tuple(input.shape[:-1])
        x2 = dispatch("reshape", input, (_numel(lead), input.shape[-1]))
        return dispatch("view", dispatch("addmm", bias, x2, wt), lead + (weight.shape[0],))
    return dispatch("add", dispatch("matmul", input, wt), bias)
