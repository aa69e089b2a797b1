"""Fused "beta * input + alpha * product" ops beside ``addmm``: ``baddbmm``, ``addbmm``,
``addmv`` and ``addr``.

Numerics, as PyTorch's CPU kernels:
- ``baddbmm`` and ``addmv``: the product accumulates in opmath (fp32 for 16-bit) and
  ``beta * input + alpha * product`` rounds once; ``beta == 0`` ignores ``input`` (nan too).
- ``addbmm``: ``addmm_`` once per batch into the result (``beta`` on the first only), so 16-bit
  results round once per batch, as ``addbmm_impl_``.
- ``addr``: a ``TensorIterator`` kernel in the storage dtype, ``beta * input + (alpha * vec1) *
  vec2`` with ``alpha``/``beta`` converted to it; inputs promote (unlike the other three).
Summation order differs from MKL's, so fp32 may differ from PyTorch by a few ULPs and 16-bit
products by 1 ULP (the catalogue's stated bound).
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import LOW, broadcast_shapes, opmath, tf32_operands
from .linalg import _check_tensor, _int_scalar, _product
from .loss import _rounder, quiet_wrap

__all__ = ["Baddbmm", "Addbmm", "Addmv", "Addr"]


def _same_dtypes(input, a, b, names):
    if not (input.dtype is a.dtype is b.dtype):
        raise RuntimeError(f"Input dtypes must be the same, got: input {input.dtype.cpp_name}, "
                           f"{names[0]}: {a.dtype.cpp_name}, {names[1]}: {b.dtype.cpp_name}")


def _scalars(dt, alpha, beta, strict=False):
    """``alpha``/``beta`` as the kernel uses them: opmath numbers; for integer dtypes converted
    as c10's ``checked_convert`` (floats truncate), or, ``strict`` (``addr``), float values
    refused as PyTorch's ``addr`` does."""
    if dt.is_floating_point:
        cd = _dt.opmath_dtype(dt).np
        return cd.type(alpha), cd.type(beta)
    if strict and (isinstance(beta, float) or isinstance(alpha, float)):
        raise RuntimeError("For integral input tensors, argument beta must not be a floating "
                           "point number." if isinstance(beta, float) else
                           "For integral input tensors, argument alpha must not be a floating "
                           "point number.")
    return _int_scalar(alpha, dt), _int_scalar(beta, dt)


def _combine(c, prod, alpha, beta):
    """``beta * c + alpha * prod`` (``c`` ignored where ``beta == 0``), in opmath."""
    p = prod if alpha == 1 else prod * alpha
    if beta == 0:
        return p
    return (c if beta == 1 else c * beta) + p


def _scaled(grad, k):
    return grad if k == 1 else dispatch("mul", grad, k)


def _check_batches(op, input, batch1, batch2):
    for x, nm in ((input, "input"), (batch1, "batch1"), (batch2, "batch2")):
        _check_tensor(x, op, nm)
    if batch1.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if batch2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")


def _finish(ctx, out, dt, alpha, beta, first, second):
    """Keep ``alpha``/``beta`` and the factors each gradient needs on the node; wrap ``out``."""
    ctx.alpha, ctx.beta = alpha, beta
    nig = ctx.needs_input_grad
    ctx.save_for_backward(first if nig[2] else None, second if nig[1] else None)
    return quiet_wrap(np.ascontiguousarray(out), dt)


def _expand_input(input, shape):
    if tuple(input.shape) != tuple(shape):
        dispatch("expand", input, shape)          # raises PyTorch's expand message
    return np.broadcast_to(input._data, shape)


@register_op("baddbmm")
class Baddbmm(Function):
    """``baddbmm(input, batch1, batch2, *, beta=1, alpha=1)`` = ``beta * input + alpha *
    bmm(batch1, batch2)`` (``torch.baddbmm``); ``input`` broadcasts to (b, n, p); one rounding
    for 16-bit. Node ``BaddbmmBackward0``.

    Raises:
        RuntimeError: "batch1 must be a 3D tensor", "Expected size for first two dimensions of
            batch2 tensor to be: [2, 4] but got: [3, 4].", "Input dtypes must be the same, got:
            input double, batch1: float, batch2: float", expand's message for ``input``.
    """

    _backward_name = "BaddbmmBackward0"

    @staticmethod
    def forward(ctx, input, batch1, batch2, *, beta=1, alpha=1):
        _check_batches("baddbmm", input, batch1, batch2)
        b, n, m = batch1.shape
        if tuple(batch2.shape[:2]) != (b, m):
            raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                               f"[{b}, {m}] but got: [{batch2.shape[0]}, {batch2.shape[1]}].")
        shape = (b, n, batch2.shape[2])
        c = _expand_input(input, shape)
        _same_dtypes(input, batch1, batch2, ("batch1", "batch2"))
        dt = input.dtype
        al, be = _scalars(dt, alpha, beta)
        with np.errstate(all="ignore"):
            out = _combine(opmath(c, dt), _product(batch1, batch2, dt), al, be)
        return _finish(ctx, out, dt, alpha, beta, batch1, batch2)

    @staticmethod
    def backward(ctx, grad):
        b1, b2 = ctx.saved_tensors
        n = ctx.needs_input_grad
        gi = _scaled(grad, ctx.beta) if n[0] else None
        g1 = _scaled(dispatch("bmm", grad, dispatch("transpose", b2, 1, 2)), ctx.alpha) \
            if n[1] else None
        g2 = _scaled(dispatch("bmm", dispatch("transpose", b1, 1, 2), grad), ctx.alpha) \
            if n[2] else None
        return gi, g1, g2


@register_op("addbmm")
class Addbmm(Function):
    """``addbmm(input, batch1, batch2, *, beta=1, alpha=1)`` = ``beta * input + alpha *
    sum_i batch1[i] @ batch2[i]`` (``torch.addbmm``); ``input`` broadcasts to (n, p). 16-bit
    results round after each batch (PyTorch adds one ``addmm_`` per batch into the result).
    Node ``AddbmmBackward0``.

    Raises:
        RuntimeError: "batch1 must be a 3D tensor", "batch1 and batch2 must have same number of
            batches, got 2 and 3", "Incompatible matrix sizes for bmm (3x4 and 5x5)", "self and
            mat2 must have the same dtype, but got Double and Float".
    """

    _backward_name = "AddbmmBackward0"

    @staticmethod
    def forward(ctx, input, batch1, batch2, *, beta=1, alpha=1):
        _check_batches("addbmm", input, batch1, batch2)
        if batch1.shape[0] != batch2.shape[0]:
            raise RuntimeError(f"batch1 and batch2 must have same number of batches, got "
                               f"{batch1.shape[0]} and {batch2.shape[0]}")
        if batch1.shape[2] != batch2.shape[1]:
            raise RuntimeError(f"Incompatible matrix sizes for bmm ({batch1.shape[1]}x"
                               f"{batch1.shape[2]} and {batch2.shape[1]}x{batch2.shape[2]})")
        shape = (batch1.shape[1], batch2.shape[2])
        c = _expand_input(input, shape)
        if input.dtype is not batch2.dtype:
            raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                               f"{input.dtype.scalar_name} and {batch2.dtype.scalar_name}")
        if batch1.dtype is not batch2.dtype:
            raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got "
                               f"{batch1.dtype.scalar_name} and {batch2.dtype.scalar_name}")
        dt = input.dtype
        al, be = _scalars(dt, alpha, beta)
        rnd = _rounder(dt) if dt.is_floating_point else (lambda v: v)
        acc = opmath(c, dt)
        with np.errstate(all="ignore"):
            if batch1.shape[0] == 0:
                acc = acc * be if be != 0 else np.zeros(shape, acc.dtype)
            a1, a2 = tf32_operands(dt, batch1, opmath(batch1, dt), opmath(batch2, dt))
            k = be
            for i in range(batch1.shape[0]):
                acc = rnd(_combine(acc, np.matmul(a1[i], a2[i]), al, k))
                k = 1
        ctx.shapes = (batch1.shape, batch2.shape)
        return _finish(ctx, acc, dt, alpha, beta, batch1, batch2)

    @staticmethod
    def backward(ctx, grad):
        b1, b2 = ctx.saved_tensors
        (b, n, m), (_, _, p) = ctx.shapes
        nig = ctx.needs_input_grad
        gi = _scaled(grad, ctx.beta) if nig[0] else None
        g1 = g2 = None
        if nig[1]:
            ge = dispatch("expand", dispatch("unsqueeze", grad, 0), (b, n, p))
            g1 = _scaled(dispatch("bmm", ge, dispatch("transpose", b2, 1, 2)), ctx.alpha)
        if nig[2]:
            ge = dispatch("expand", dispatch("unsqueeze", grad, 0), (b, n, p))
            g2 = _scaled(dispatch("bmm", dispatch("transpose", b1, 1, 2), ge), ctx.alpha)
        return gi, g1, g2


def _dot_seq(m, v):
    """``m @ v`` (fp32 arrays) as a scalar loop: ``sum += m[:, j] * v[j]`` in fp32, j in order
    (ATen's generic ``gemv`` 't' branch; the 16-bit products are exact in fp32)."""
    s = np.zeros(m.shape[0], np.float32)
    for j in range(m.shape[1]):
        s += m[:, j] * v[j]
    return s


def _lane_sum(a):
    """``vec_reduce_all`` of fp32 registers (the last axis): halves added until one lane."""
    while a.shape[-1] > 1:
        h = a.shape[-1] // 2
        a = a[..., :h] + a[..., h:]
    return a[..., 0]


def _dot_fp32_arith(m, v):
    """``m @ v`` (fp32 arrays) as ATen's ``fp16_dot_with_fp32_arith`` (the x86 fp16 gemv fast
    path): 8 fp32 registers of ``VECTOR_BYTES / 4`` lanes over blocks of 8 registers, the
    registers added pairwise (0+1, 2+3, ..., then 0+2, 4+6, then 0+4) and their lanes reduced;
    then one register-sized chunk at a time (each reduced, then added); then the last elements
    one by one."""
    from ..numerics import VECTOR_BYTES
    n, k = m.shape
    e = VECTOR_BYTES // 4
    it = 8 * e
    p = (m * v).astype(np.float32)
    full = k - k % it
    acc = np.zeros((n, 8, e), np.float32)
    for j in range(0, full, it):               # the blocks accumulate one after the other
        acc += p[:, j:j + it].reshape(n, 8, e)
    x = [acc[:, r] for r in range(8)]
    x0, x2, x4, x6 = x[0] + x[1], x[2] + x[3], x[4] + x[5], x[6] + x[7]
    s = _lane_sum((x0 + x2) + (x4 + x6))
    vec = k - k % e
    for j in range(full, vec, e):
        s = s + _lane_sum(p[:, j:j + e])
    for j in range(vec, k):
        s = s + p[:, j]
    return s


def _gemv16(c, mat, vec, alpha, beta, dt):
    """``beta * input + alpha * (mat @ vec)`` for fp16/bf16 as ``addmv_impl_cpu``'s call of
    ``cpublas::gemv<scalar_t>`` computes it (measured against PyTorch 2.13 on x86, bit-exact
    on thousands of random cases but for a rare last-bit difference of summation order in the
    fp16 fast path): ``alpha`` and ``beta`` are converted to the 16-bit type, products summed
    in fp32. Which gemv runs depends on ``mat``'s layout, as ATen picks it:

    - ``'n'`` (``mat.stride(0) == 1``: column-major, or a single column): ``y`` is scaled by
      ``beta`` in place (``scal``, one 16-bit rounding), then ``alpha * (mat @ vec)`` rounded
      to 16 bits is added (another rounding): ``r(r(beta * c) + r(alpha * prod))``;
    - ``'t'`` (row-major, or copied to it), fp16 with ``alpha == 1`` and a contiguous ``vec``:
      the fast path
      (``fp16_gemv_trans``: ``_dot_fp32_arith``, then ``r(beta * c + dot)`` in fp32);
    - ``'t'`` otherwise (bf16; fp16 with ``alpha != 1``): the generic loop, a sequential fp32
      sum, then ``r(r(beta * c) + alpha * sum)`` (the 16-bit product ``beta * y`` rounds first).

    ``beta == 0`` ignores ``c`` (nan too). ``c`` is an fp32 array; returns fp32 values.
    """
    f32 = np.float32
    rnd = _rounder(dt)
    al, be = (f32(rnd(np.asarray(x, f32))) for x in (alpha, beta))
    m, v = opmath(mat, dt), opmath(vec, dt)
    r, k = mat.shape
    st = mat.stride()
    if st[0] == 1 and (k == 1 or st[1] >= max(1, r)):            # gemv 'n'
        p = rnd(_product(mat, vec, dt) * al)
        if beta == 0:
            return p
        y = c if beta == 1 else rnd(c * be)
        return rnd(y + p)
    if dt is _dt.float16 and alpha == 1 and (k == 1 or vec.stride()[0] == 1):  # fast path
        d = _dot_fp32_arith(m, v)
        return rnd(d) if beta == 0 else rnd(c * be + d)
    p = _dot_seq(m, v) * al
    if beta == 0:
        return rnd(p)
    y = c if beta == 1 else rnd(c * be)
    return rnd(y + p)


@register_op("addmv")
class Addmv(Function):
    """``addmv(input, mat, vec, *, beta=1, alpha=1)`` = ``beta * input + alpha * (mat @ vec)``
    (``torch.addmv``); ``input`` broadcasts to (n,); one rounding for 16-bit. Node
    ``AddmvBackward0``.

    Raises:
        RuntimeError: "vector + matrix @ vector expected, got 1, 2, 2", "size mismatch, got
            input (3), mat (3x4), vec (5)", "addmv input tensors must have the same dtype, but
            got Double, Float, and Float".
    """

    _backward_name = "AddmvBackward0"

    @staticmethod
    def forward(ctx, input, mat, vec, *, beta=1, alpha=1):
        for x, nm in ((input, "input"), (mat, "mat"), (vec, "vec")):
            _check_tensor(x, "addmv", nm)
        if mat.ndim != 2 or vec.ndim != 1 or input.ndim > 1:
            raise RuntimeError(f"vector + matrix @ vector expected, got {input.ndim}, "
                               f"{mat.ndim}, {vec.ndim}")
        n = mat.shape[0]
        if mat.shape[1] != vec.shape[0] or (input.numel() != 1 and input.shape != (n,)):
            raise RuntimeError(f"size mismatch, got input ({input.shape[0] if input.ndim else 1})"
                               f", mat ({mat.shape[0]}x{mat.shape[1]}), vec ({vec.shape[0]})")
        if not (input.dtype is mat.dtype is vec.dtype):
            raise RuntimeError(f"addmv input tensors must have the same dtype, but got "
                               f"{input.dtype.scalar_name}, {mat.dtype.scalar_name}, and "
                               f"{vec.dtype.scalar_name}")
        dt = input.dtype
        al, be = _scalars(dt, alpha, beta)
        ctx.empty = mat.numel() == 0
        with np.errstate(all="ignore"):
            if ctx.empty:
                # PyTorch's shortcut for an empty matrix: zeros of the result's shape (n,) when
                # beta == 0, else beta * input in input's own shape
                c = opmath(input, dt)
                out = np.zeros((n,), c.dtype) if be == 0 else np.array(c * be).reshape(input.shape)
                ctx.save_for_backward(mat, vec)
                ctx.alpha, ctx.beta = alpha, beta
                return quiet_wrap(out, dt)
            c = np.broadcast_to(input._data.reshape(-1), (n,))
            if dt in LOW:
                out = _gemv16(opmath(c, dt), mat, vec, alpha, beta, dt)
            else:
                out = _combine(opmath(c, dt), _product(mat, vec, dt), al, be)
        return _finish(ctx, out, dt, alpha, beta, mat, vec)

    @staticmethod
    def backward(ctx, grad):
        mat, vec = ctx.saved_tensors
        nig = ctx.needs_input_grad
        gi = _scaled(grad, ctx.beta) if nig[0] else None
        if ctx.empty:
            return (gi, dispatch("zeros_like", mat) if nig[1] else None,
                    dispatch("zeros_like", vec) if nig[2] else None)
        gm = _scaled(dispatch("outer", grad, vec), ctx.alpha) if nig[1] else None
        gv = _scaled(dispatch("mv", dispatch("t", mat), grad), ctx.alpha) if nig[2] else None
        return gi, gm, gv


def _check_vec(v, name):
    if v.ndim != 1:
        raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.ndim}-D")


@register_op("addr")
class Addr(Function):
    """``addr(input, vec1, vec2, *, beta=1, alpha=1)`` = ``beta * input + alpha * outer(vec1,
    vec2)`` (``torch.addr``): a pointwise kernel in the promoted dtype, each step rounded there
    (``alpha``/``beta`` converted to it); ``input`` broadcasts to (n, m). Node
    ``AddrBackward0``.

    Raises:
        RuntimeError: "addr: Expected 1-D argument vec1, but got 2-D", "For integral input
            tensors, argument beta must not be a floating point number.", expand's message.
    """

    _backward_name = "AddrBackward0"

    @staticmethod
    def forward(ctx, input, vec1, vec2, *, beta=1, alpha=1):
        for x, nm in ((input, "input"), (vec1, "vec1"), (vec2, "vec2")):
            _check_tensor(x, "addr", nm)
        _check_vec(vec1, "vec1")
        _check_vec(vec2, "vec2")
        shape = (vec1.shape[0], vec2.shape[0])
        if tuple(input.shape) != shape:
            broadcast_shapes(input.shape, shape)
            dispatch("expand", input, shape)
        dt = _dt.result_type(input, vec1, vec2)
        if dt is _dt.bool_:
            out = np.logical_or(np.logical_and(bool(beta), input._data),
                                np.logical_and(bool(alpha), np.outer(vec1._data, vec2._data)))
            ctx.alpha, ctx.beta = alpha, beta
            ctx.save_for_backward(vec1, vec2)
            return Tensor._make(np.ascontiguousarray(np.broadcast_to(out, shape)), dt)
        al, be = _scalars(dt, alpha, beta, strict=True)
        rnd = _rounder(dt) if dt.is_floating_point else (lambda v: v)
        if dt.is_floating_point:
            al, be = rnd(al), rnd(be)
        load = (lambda t: opmath(t._data.astype(dt.np), dt))
        with np.errstate(all="ignore"):
            p = rnd(rnd(al * load(vec1))[:, None] * load(vec2)[None, :])
            out = p if be == 0 else rnd(rnd(be * load(input)) + p)
        return _finish(ctx, np.broadcast_to(out, shape), dt, alpha, beta, vec1, vec2)

    @staticmethod
    def backward(ctx, grad):
        v1, v2 = ctx.saved_tensors
        nig = ctx.needs_input_grad
        gi = _scaled(grad, ctx.beta) if nig[0] else None
        g1 = _scaled(dispatch("mv", grad, v2), ctx.alpha) if nig[1] else None
        g2 = _scaled(dispatch("mv", dispatch("t", grad), v1), ctx.alpha) if nig[2] else None
        return gi, g1, g2
