"""Tensor contractions built on ``mm`` as PyTorch builds them (``aten/src/ATen/native/
Linear.cpp``): ``outer``, ``tensordot``, ``linalg_multi_dot`` (compositions of dispatched views
and products, so graphs show PyTorch's nodes and 16-bit results round where PyTorch's do), and
``_trilinear`` (a kernel; ``bilinear`` is composed of it). ``einsum`` is in ``einsum.py``.
"""
from __future__ import annotations

import numpy as np

from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import opmath, wrap_dim
from .linalg import _check_tensor, _numel
from .loss import _rounder, quiet_wrap

__all__ = ["outer", "tensordot", "linalg_multi_dot", "Trilinear", "bilinear"]


@register_op("outer")
def outer(input, vec2):
    """``outer(input, vec2)`` = ``input.reshape(-1, 1) * vec2`` (``torch.outer``, alias
    ``torch.ger``): an (n, m) tensor of the promoted dtype, node ``MulBackward0``.

    Raises:
        RuntimeError: "outer: Expected 1-D argument self, but got 2-D" (and vec2).
    """
    _check_tensor(input, "outer", "input")
    _check_tensor(vec2, "outer", "vec2")
    if input.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument self, but got {input.ndim}-D")
    if vec2.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument vec2, but got {vec2.ndim}-D")
    return dispatch("mul", dispatch("view", input, (input.shape[0], 1)), vec2)


# ---------------------------------------------------------------------------- tensordot

@register_op("tensordot")
def tensordot(a, b, dims=2):
    """``tensordot(a, b, dims=2)`` (``torch.tensordot``): contract the last ``dims`` dims of
    ``a`` with the first ``dims`` of ``b``, or the dim lists ``dims = (dims_a, dims_b)``; as
    PyTorch: size-1 contracted dims summed first, both operands permuted and reshaped to 2-D,
    one ``mm``, reshaped to the result.

    Raises:
        RuntimeError: "tensordot expects dims >= 0, but got dims=-1", "both dimension lists
            should have same length", "both inputs should have same dtype", "contracted
            dimensions need to match, but first has size 3 in dim 1 and second has size 4 in dim
            0".
    """
    _check_tensor(a, "tensordot", "a")
    _check_tensor(b, "tensordot", "b")
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.ndim, b.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        d1, d2 = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    else:
        d1, d2 = dims
        d1 = [d1] if isinstance(d1, int) else list(d1)
        d2 = [d2] if isinstance(d2, int) else list(d2)
    if len(d1) != len(d2):
        raise RuntimeError("both dimension lists should have same length")
    if a.dtype is not b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    d1 = [wrap_dim(d, a.ndim) for d in d1]
    d2 = [wrap_dim(d, b.ndim) for d in d2]
    t1, t2, csize = a, b, 1
    for x, y in zip(d1, d2):
        s1, s2 = a.shape[x], b.shape[y]
        if s2 == 1:             # (PyTorch sums in the operand's own dtype)
            t1 = dispatch("sum", t1, x, True, dtype=t1.dtype)
        elif s1 == 1:
            t2 = dispatch("sum", t2, y, True, dtype=t2.dtype)
        else:
            if s1 != s2:
                raise RuntimeError(f"contracted dimensions need to match, but first has size "
                                   f"{s1} in dim {x} and second has size {s2} in dim {y}")
            csize *= s1
    p1 = [i for i in range(a.ndim) if i not in d1]
    p2 = [i for i in range(b.ndim) if i not in d2]
    rsizes = [t1.shape[i] for i in p1] + [t2.shape[i] for i in p2]
    size1, size2 = _numel([t1.shape[i] for i in p1]), _numel([t2.shape[i] for i in p2])
    t1 = dispatch("reshape", dispatch("permute", t1, tuple(p1 + d1)), (size1, csize))
    t2 = dispatch("reshape", dispatch("permute", t2, tuple(d2 + p2)), (csize, size2))
    return dispatch("reshape", dispatch("mm", t1, t2), tuple(rsizes))


# ---------------------------------------------------------------------------- multi_dot

def _chain_order(shapes):
    """PyTorch's ``matrix_chain_order``: the split table of the cheapest parenthesisation."""
    n = len(shapes)
    p = [s[0] for s in shapes] + [shapes[-1][1]]
    m = [[0] * n for _ in range(n)]
    s = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            m[i][j] = None
            for k in range(i, j):
                q = m[i][k] + m[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if m[i][j] is None or q < m[i][j]:
                    m[i][j], s[i][j] = q, k
    return s


def _chain(ts, order, i, j):
    if i == j:
        return ts[i]
    k = order[i][j]
    return dispatch("mm", _chain(ts, order, i, k), _chain(ts, order, k + 1, j))


@register_op("linalg_multi_dot")
def linalg_multi_dot(tensors):
    """``linalg.multi_dot(tensors)``: the product of 2-D tensors (the first may be 1-D, a row;
    the last 1-D, a column) in the cheapest order, as PyTorch chooses it (three matrices by the
    two costs, more by ``matrix_chain_order``); each product an ``mm``, the result viewed to
    its shape.

    Raises:
        RuntimeError: "multi_dot(): expected at least 2 tensors but got 1", "multi_dot(): the
            first tensor must be 1D or 2D but got 3D", "multi_dot(): tensor 1 must be 2D but got
            1D", "multi_dot(): tensors 0 and 1 with shapes [2, 3] and [4, 5] cannot be
            multiplied",
            "multi_dot(): all tensors must have be the same dtype but tensor 0 is Float and
            tensor 1 is Double".
    """
    ts = list(tensors)
    n = len(ts)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first, last = ts[0].ndim, ts[-1].ndim
    if first not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first}D")
    if last not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last}D")
    for i in range(1, n - 1):
        if ts[i].ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {ts[i].ndim}D")
    for i in range(1, n):
        if ts[i].dtype is not ts[0].dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor "
                               f"0 is {ts[0].dtype.scalar_name} and tensor {i} is "
                               f"{ts[i].dtype.scalar_name}")
    if first == 1:
        ts[0] = dispatch("unsqueeze", ts[0], 0)
    if last == 1:
        ts[-1] = dispatch("unsqueeze", ts[-1], -1)
    for i in range(n - 1):
        if ts[i].shape[1] != ts[i + 1].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes "
                               f"{list(ts[i].shape)} and {list(ts[i + 1].shape)} cannot be "
                               "multiplied")
    if n == 2:
        result = dispatch("mm", ts[0], ts[1])
    elif n == 3:
        a, b, c, d = ts[0].shape[0], ts[1].shape[0], ts[2].shape[0], ts[2].shape[1]
        if (a * c) * (b + d) > (b * d) * (a + c):
            result = dispatch("mm", ts[0], dispatch("mm", ts[1], ts[2]))
        else:
            result = dispatch("mm", dispatch("mm", ts[0], ts[1]), ts[2])
    else:
        result = _chain(ts, _chain_order([t.shape for t in ts]), 0, n - 1)
    shape = ([] if first == 1 else [ts[0].shape[0]]) + ([] if last == 1 else [ts[-1].shape[1]])
    return dispatch("view", result, tuple(shape))


# ---------------------------------------------------------------------------- _trilinear, bilinear

def _expanded(t, dims, dt):
    a = opmath(t, dt)
    for d in sorted(dims):
        a = np.expand_dims(a, d)
    return a


@register_op("_trilinear")
class Trilinear(Function):
    """``_trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim=1)``: each
    input unsqueezed at its ``expand`` dims, the three multiplied (broadcast) and summed over
    ``sumdim`` (PyTorch's kernel under ``bilinear``), in PyTorch's two stages: ``i1 * i2``
    summed over the ``sumdim`` dims ``i3`` lacks, stored in the dtype (16-bit: rounded), then
    times ``i3`` summed over the rest, stored again; slices of a summed ``unroll_dim`` are
    added into the result one by one. Node ``TrilinearBackward0``, whose gradients are
    ``_trilinear`` calls with the roles swapped (PyTorch's ``_trilinear_backward``).

    Raises:
        RuntimeError: inputs of different dtypes.
    """

    _backward_name = "TrilinearBackward0"

    @staticmethod
    def forward(ctx, i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim=1):
        dt = i1.dtype
        if not (i2.dtype is dt and i3.dtype is dt):
            raise RuntimeError(f"expected scalar type {dt.scalar_name} but found "
                               f"{(i2 if i2.dtype is not dt else i3).dtype.scalar_name}")
        rnd = _rounder(dt)
        a1, a2, a3 = (_expanded(t, e, dt) for t, e in ((i1, expand1), (i2, expand2),
                                                      (i3, expand3)))
        total = a1.ndim
        unroll = unroll_dim % total if total else 0
        s12 = tuple(d for d in sumdim if d in expand3 and d != unroll)
        s23 = tuple(d for d in sumdim if d not in expand3 and d != unroll)
        with np.errstate(all="ignore"):
            buf = rnd(np.sum(a1 * a2, axis=s12, keepdims=True))
            buf = rnd(np.sum(buf * a3, axis=s23, keepdims=True))
            if unroll in sumdim and total:
                acc = np.zeros(tuple(1 if d == unroll else n for d, n in enumerate(buf.shape)),
                               buf.dtype)
                for k in range(buf.shape[unroll]):
                    acc = rnd(acc + np.take(buf, [k], axis=unroll))
                buf = acc
            out = np.squeeze(buf, axis=tuple(sumdim)) if sumdim else buf
        ctx.expands = (tuple(expand1), tuple(expand2), tuple(expand3), tuple(sumdim))
        ctx.save_for_backward(i1, i2, i3)
        return quiet_wrap(np.ascontiguousarray(out), dt)

    @staticmethod
    def backward(ctx, grad):
        i1, i2, i3 = ctx.saved_tensors
        e1, e2, e3, s = ctx.expands
        n = ctx.needs_input_grad
        g1 = dispatch("_trilinear", grad, i2, i3, s, e2, e3, e1) if n[0] else None
        g2 = dispatch("_trilinear", i1, grad, i3, e1, s, e3, e2) if n[1] else None
        g3 = dispatch("_trilinear", i1, i2, grad, e1, e2, s, e3) if n[2] else None
        return g1, g2, g3, None, None, None, None, None


@register_op("bilinear")
def bilinear(input1, input2, weight, bias=None):
    """``bilinear(input1, input2, weight, bias=None)`` = ``x1^T A x2 + b`` per output feature
    (``torch.bilinear``, ``F.bilinear``), as PyTorch: inputs flattened to 2-D, one
    ``_trilinear``, reshaped, plus ``bias`` (node ``AddBackward0`` over ``ViewBackward0``...).

    Shapes: input1 (*, in1), input2 (*, in2), weight (out, in1, in2), bias (out,) -> (*, out).

    Raises:
        RuntimeError: "All tensors must have the same dtype, got input1: float, input2: double,
            weight: float", "bilinear(): input dimensions do not match: got 2 and 1",
            "bilinear(): input1 size does not match weight size: got 3 but expected 4", and the
            batch/input2/bias size checks.
    """
    for t, nm in ((input1, "input1"), (input2, "input2"), (weight, "weight")):
        _check_tensor(t, "bilinear", nm)
    tensors = [input1, input2, weight] + ([bias] if bias is not None else [])
    if any(t.dtype is not input1.dtype for t in tensors):
        names = ["input1", "input2", "weight", "bias"]
        got = ", ".join(f"{nm}: {t.dtype.cpp_name}" for nm, t in zip(names, tensors))
        raise RuntimeError(f"All tensors must have the same dtype, got {got}")
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and "
                           f"{input2.ndim}")
    for i in range(input1.ndim - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: got "
                               f"{input1.shape[i]} and {input2.shape[i]}")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got "
                           f"{input1.shape[-1]} but expected {weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got "
                           f"{input2.shape[-1]} but expected {weight.shape[2]}")
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                           f"{bias.shape[0]} but expected {weight.shape[0]}")
    out_size = tuple(input1.shape[:-1]) + (weight.shape[0],)
    x1 = dispatch("reshape", input1, (-1, input1.shape[-1]))
    x2 = dispatch("reshape", input2, (-1, input2.shape[-1]))
    out = dispatch("reshape", dispatch("_trilinear", x1, weight, x2, [1, 3], [0], [1, 2], [2, 3]),
                   out_size)
    return dispatch("add", out, bias) if bias is not None else out

