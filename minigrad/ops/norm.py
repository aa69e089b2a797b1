"""``linalg_vector_norm`` (``torch.linalg.vector_norm``: the p-norm over ``dim``, or over all
elements), ``linalg_matrix_norm`` (``torch.linalg.matrix_norm``, PyTorch's composite of
vector norms and amax/amin) and ``renorm`` (``torch.renorm``: each slice along a dim scaled down
to a maximal norm), forward and backward.

Kernel as PyTorch's CPU one: ``sum |x|^p`` accumulated in opmath (fp32 for fp16/bf16/fp32,
fp64 for fp64), so the sum over- and underflows where PyTorch's does; a one-element reduction
gives ``|x|`` exactly; ``inf``/``-inf`` are max/min of ``|x|``; ``0`` counts non-zeros. The sum
itself is taken in float64 and then rounded to the accumulation dtype (results can differ from
PyTorch's by about one ulp: summation order). One rounding into the result dtype.

The fp32 2-norm (``x.norm()``, ``clip_grad_norm_``'s per-grad norms, ``F.normalize``...) follows
ATen's own summation order instead (``fp32_two_norm``), bit for bit as measured against
PyTorch 2.13 on this CPU: over a dense tensor's last dim (or all of it) the vectorised
``binary_kernel_reduce_lastdim`` loop, otherwise ``binary_kernel_reduce``'s sequential fp32
accumulation per output.
"""
from __future__ import annotations

import math
import struct

import numpy as np

from .. import dtypes as _dt
from .. import numerics as _nx
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import opmath, wrap, wrap_dim, wrap_dims
from .factory import _convert
from .inplace import run_inplace

_INF = float("inf")


def norm_kernel(a, p, dtype, what="linalg.vector_norm"):
    """The p-norm of the float64 array ``a`` along its last axis as PyTorch's kernel for
    ``dtype`` computes it; returns float64 values (not yet rounded into ``dtype``), one per row.

    Raises:
        RuntimeError: ``inf``/``-inf`` norm of an empty tensor (no identity), as PyTorch.
    """
    if a.shape[-1] == 0 and p in (_INF, -_INF):
        raise RuntimeError(f"{what} cannot compute the {'inf' if p > 0 else '-inf'} norm on an "
                           "empty tensor because the operation does not have an identity")
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        if p == 2 and a.shape[-1] > 1:
            # the 2-norm without the |a| pass: a*a is |a|*|a| bit for bit, except for a NaN
            # input (the NaN's sign), which makes its sum NaN: then all take the path below
            s = np.add.reduce(a * a, axis=-1)
            if not np.isnan(s).any():
                return np.sqrt(np.asarray(s).astype(_dt.opmath_dtype(dtype).np)
                               .astype(np.float64))
        x = np.abs(a)
        if p == 0:
            return np.count_nonzero(x, axis=-1).astype(np.float64)
        if p == _INF:
            return np.maximum.reduce(x, axis=-1)
        if p == -_INF:
            return np.minimum.reduce(x, axis=-1)
        if x.shape[-1] == 1:
            return x[..., 0]
        acc = _dt.opmath_dtype(dtype).np
        s = np.add.reduce(x if p == 1 else x * x if p == 2 else x ** p, axis=-1)
        s = np.asarray(s).astype(acc).astype(np.float64)   # over/underflow like the kernel
        return s if p == 1 else np.sqrt(s) if p == 2 else s ** (1.0 / p)


_LANES = 8      # the fp32 accumulator lanes of ATen's norm loop on this build (measured)


def fp32_two_norm(x, dims):
    """The 2-norm of the float32 array ``x`` over ``dims`` (a tuple of axes, all of them for a
    full reduction) as ATen's CPU kernels sum it; returns float32 values, or None where this
    summation order is not known to be ATen's (several reduced dims that are not the trailing
    dims of a C-contiguous array, or a full reduction of a non-dense array: the caller falls
    back to the float64 sum).

    Two kernels, chosen as ``norm_kernel_tensor_iterator_impl`` does:

    - reduced elements contiguous in memory (a full reduction of a dense array, the trailing
      dims of a C-contiguous one, or one dim of stride 1): ``binary_kernel_reduce_lastdim``.
      Per row, ``acc[lane] += x*x`` over blocks of 8 (fp32 product, then fp32 add), the lanes
      summed in order into ``acc[0]``, then the tail: its first 4 elements squared and added
      (the compiler's 4-wide product), the rest by fma (one rounding each); ``sqrt``.
    - one reduced dim of any other stride: ``binary_kernel_reduce``, ``acc = acc + x*x``
      element by element in order (fp32 product and add), then ``sqrt``.
    """
    nd = x.ndim
    out_shape = tuple(n for i, n in enumerate(x.shape) if i not in dims)
    if x.size == int(np.prod(out_shape, dtype=np.int64)):
        return None             # one element per output: |x| exactly (no x*x overflow), below
    if len(dims) == nd:
        if not (x.flags.c_contiguous or x.flags.f_contiguous):
            return None
        rows = x.ravel(order="K")[None]
    elif x.flags.c_contiguous and tuple(sorted(dims)) == tuple(range(nd - len(dims), nd)):
        rows = x.reshape(out_shape + (-1,))
    elif len(dims) == 1 and x.strides[dims[0]] == x.itemsize:
        rows = np.moveaxis(x, dims[0], -1)
    elif len(dims) == 1:
        moved = np.moveaxis(x, dims[0], 0)      # the reduced axis outermost: added in order
        sq = np.ascontiguousarray(moved * moved).reshape(moved.shape[0], -1)
        if sq.shape[1] == 1:        # one output: cumsum adds in order (a 1-D reduce is pairwise)
            acc = np.cumsum(sq[:, 0])[-1:] if sq.shape[0] else np.zeros(1, np.float32)
        else:
            acc = np.add.reduce(sq, axis=0) if sq.shape[0] else np.zeros(sq.shape[1:],
                                                                         np.float32)
        return np.sqrt(acc).reshape(out_shape)
    else:
        return None
    n = rows.shape[-1]
    m = n - n % _LANES
    body = rows[..., :m]
    blocks = (body * body).reshape(rows.shape[:-1] + (m // _LANES, _LANES))
    lanes = np.add.reduce(blocks, axis=-2)        # over blocks, in order (not pairwise)
    tail = rows[..., m:]
    start = 4 if tail.shape[-1] >= 4 else 0
    if start:
        lanes = np.concatenate([lanes, tail[..., :4] * tail[..., :4]], axis=-1)
    # acc[0] + acc[1] + ... + acc[7] (+ the 4 tail squares), in order: cumsum adds sequentially
    acc = np.cumsum(lanes, axis=-1)[..., -1]
    if acc.size == 1:           # one row: its <= 3 fmas in Python floats
        a = float(acc.reshape(-1)[0])
        for v in tail.reshape(-1)[start:].tolist():
            a = _fma32_py(v, a)
        acc = np.full(acc.shape, a, np.float32)
    else:
        for j in range(start, tail.shape[-1]):
            t = np.ascontiguousarray(tail[..., j])
            acc = _nx.fma32(t, t, acc)
    return np.sqrt(acc).reshape(out_shape)


def _fma32_py(v: float, a: float) -> float:
    """``fma(v, v, a)`` rounded once to fp32, for fp32 values given as Python floats: ``v*v``
    is exact in binary64; the sum is made round-to-odd (TwoSum's error decides, an inexact sum
    gets an odd last bit towards the exact value), so its rounding to fp32 is the correctly
    rounded fma (``numerics.fma32``'s method, without its array machinery)."""
    p = v * v
    s = p + a
    if not math.isfinite(s):
        return float(np.float32(s))
    b = s - p
    err = (p - (s - b)) + (a - b)
    if err != 0 and not struct.unpack("<Q", struct.pack("<d", s))[0] & 1:
        s = math.nextafter(s, math.inf if err > 0 else -math.inf)
    return float(np.float32(s))


#: below this sum of squares no rounding into fp32 overflows (FLT_MAX is 3.4e38)
_SQUARES_FP32_SAFE = 1e38


def _two_norm_of_all(a):
    """``norm_kernel``'s 2-norm over every element of the fp64 array ``a`` (the
    ``linalg_vector_norm(x)`` that ``clip_grad_norm_`` takes of each gradient), without the
    general path's per-call machinery (a transpose to rows, NaN passes, 0-d array rounding): the
    same float64 squares in C order summed by the same ``np.add.reduce``, rounded into ``a``'s
    dtype and square-rooted in float64 (``math.sqrt`` is IEEE's correctly rounded root, as
    ``np.sqrt``). Returns a float, or None where the sum is NaN, inf or large enough to overflow
    the fp32 rounding: the general path decides those."""
    flat = np.asarray(a, dtype=np.float64).reshape(-1)
    with np.errstate(over="ignore"):        # huge float64 squares: inf, silently, as the kernel
        s = np.add.reduce(flat * flat)
    if not s < _SQUARES_FP32_SAFE:
        return None
    return math.sqrt(float(s.astype(a.dtype)))


def _rows(a, dims):
    """``a`` with the reduced ``dims`` moved last and flattened: shape (kept..., n)."""
    kept = [i for i in range(a.ndim) if i not in dims]
    t = np.transpose(a, kept + list(dims))
    return t.reshape(tuple(a.shape[i] for i in kept) + (int(np.prod([a.shape[i] for i in dims],
                                                                   dtype=np.int64)),))


class VectorNorm(Function):
    """``linalg_vector_norm(input, ord=2, dim=None, keepdim=False, *, dtype=None)``: the
    ``ord``-norm over ``dim`` (an int, a tuple, or None/() for all elements)
    (``torch.linalg.vector_norm``), in the input's (or ``dtype``'s) floating dtype.

    Raises:
        RuntimeError: a non-floating input ("linalg.vector_norm: Expected a floating point or
            complex tensor as input. Got Long"); the inf norm over an empty dim (no identity);
            a repeated dim. IndexError: a dim out of range.
    """

    _backward_name = "LinalgVectorNormBackward0"

    @staticmethod
    def forward(ctx, input, ord=2, dim=None, keepdim=False, *, dtype=None):
        if not isinstance(input, Tensor):
            raise TypeError(f"linalg_vector_norm(): argument 'input' must be Tensor, not "
                            f"{type(input).__name__}")
        dt = input.dtype if dtype is None else _dt.dtype_arg(dtype, "linalg_vector_norm")
        if not input.dtype.is_floating_point or not dt.is_floating_point:
            name = input.dtype.scalar_name
            raise RuntimeError("linalg.vector_norm: Expected a floating point or complex "
                               f"tensor as input. Got {name}")
        p = float(ord)
        full = dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0)
        dims = wrap_dims(dim, input.ndim) if input.ndim else ()
        if not full and input.ndim and p in (_INF, -_INF):
            for d in dims:
                if input.shape[d] == 0:
                    raise RuntimeError(f"linalg.vector_norm cannot compute the "
                                       f"{'inf' if p > 0 else '-inf'} norm on the dimension "
                                       f"{d}because this dimension is empty and the operation "
                                       "does not have an identity")
        res = None
        if p == 2 and dt is _dt.float32 and input.dtype is _dt.float32 and input.ndim:
            with np.errstate(over="ignore", under="ignore", invalid="ignore"):
                res = fp32_two_norm(input._data, dims)
            if res is not None and np.isnan(res).any():
                res = None          # NaN signs: the general path below
        elif full and p == 2 and dtype is None and input._data.size > 1 and \
                input._data.dtype == np.float64:
            res = _two_norm_of_all(input._data)     # the common case, without the machinery
        if res is None:
            src = np.asarray(input._data if dtype is None else input._data.astype(dt.np),
                             dtype=np.float64)
            res = norm_kernel(_rows(src, dims), p, dt)
        out = np.asarray(res, np.float64)
        if keepdim:
            out = out.reshape(tuple(1 if i in dims else s for i, s in enumerate(input.shape)))
        res = wrap(out, dt)
        ctx.p, ctx.dims, ctx.keepdim = p, dims, keepdim
        ctx.save_for_backward(input, res)
        return res

    @staticmethod
    def backward(ctx, grad):
        # PyTorch's norm_backward (FunctionsManual.cpp), op for op
        x, norm = ctx.saved_tensors
        p, dims = ctx.p, ctx.dims
        if x.dtype is not norm.dtype:
            x = dispatch("_to_copy", x, dtype=norm.dtype)
        if not ctx.keepdim and x.ndim:
            for d in dims:
                grad = dispatch("unsqueeze", grad, d)
                norm = dispatch("unsqueeze", norm, d)
        if p == 0:
            return dispatch("zeros_like", x)
        if p == 1:
            return dispatch("mul", dispatch("sign", x), grad)
        if p == 2:
            scaled = dispatch("masked_fill", dispatch("div", x, norm), dispatch("eq", norm, 0), 0)
            return dispatch("mul", grad, scaled)
        ax = dispatch("abs", x)
        if p in (_INF, -_INF):
            both_nan = dispatch("logical_and", dispatch("isnan", x), dispatch("isnan", norm))
            hit = dispatch("_to_copy", dispatch("logical_or", dispatch("eq", ax, norm), both_nan),
                           dtype=norm.dtype)
            self_scaled = dispatch("mul", dispatch("sign", x), hit)
            nb = dispatch("count_nonzero", hit, dims if x.ndim else None)
            if x.ndim:
                for d in dims:
                    nb = dispatch("unsqueeze", nb, d)
            scale = dispatch("div", grad, nb)
        elif p < 1:
            self_scaled = dispatch("mul", dispatch("sign", x), dispatch(
                "masked_fill", dispatch("pow", ax, p - 1), dispatch("eq", x, 0), 0))
            scale = dispatch("mul", grad, dispatch("pow", norm, 1 - p))
        else:
            self_scaled = dispatch("mul", dispatch("sign", x), dispatch("pow", ax, p - 1)) \
                if p < 2 else dispatch("mul", x, dispatch("pow", ax, p - 2))
            scale = dispatch("masked_fill", dispatch("div", grad, dispatch("pow", norm, p - 1)),
                             dispatch("eq", norm, 0), 0)
        return dispatch("mul", self_scaled, scale)


register_op("linalg_vector_norm", VectorNorm)


# ----------------------------------------------------------------------------- matrix norms
def _matrix_checks(A, dim, what="linalg.matrix_norm"):
    if not isinstance(A, Tensor):
        raise TypeError(f"linalg_matrix_norm(): argument 'input' must be Tensor, not "
                        f"{type(A).__name__}")
    if A.ndim < 2:
        raise RuntimeError(f"{what}: The input tensor A must have at least 2 dimensions.")
    if not A.dtype.is_floating_point:
        raise RuntimeError(f"{what}: Expected a floating point or complex tensor as input. "
                           f"Got {A.dtype.scalar_name}")
    dim = tuple(dim)
    if len(dim) != 2:
        raise RuntimeError(f"{what}: dim must be a 2-tuple. Got {', '.join(map(str, dim))}")
    d = tuple(wrap_dim(x, A.ndim) for x in dim)
    if d[0] == d[1]:
        raise RuntimeError(f"{what}: dims must be different. Got ({dim[0]}, {dim[1]})")
    return list(d)


@register_op("linalg_matrix_norm")
def linalg_matrix_norm(A, ord, dim=(-2, -1), keepdim=False, *, dtype=None):
    """``linalg_matrix_norm(A, ord, dim=(-2, -1), keepdim=False, *, dtype=None)`` with a
    numeric ``ord`` (``torch.linalg.matrix_norm``): ``1``/``-1`` the max/min column abs-sum,
    ``inf``/``-inf`` the max/min row abs-sum, as PyTorch's composite (``linalg_vector_norm`` of
    ord 1 over one dim, then ``amax``/``amin`` over the other); ``2``/``-2`` the largest /
    smallest singular value (``_svdvals_norm``).

    Raises:
        RuntimeError: fewer than 2 dims, a non-floating input, ``dim`` not two distinct dims,
            or another order ("Order 3 not supported.").
    """
    d = _matrix_checks(A, dim)
    if ord in (2, -2):
        return _svdvals_norm(A, d, "amax" if ord == 2 else "amin", keepdim, dtype)
    if ord not in (1, -1, _INF, -_INF):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if abs(ord) == _INF:
        d = [d[1], d[0]]
    if not keepdim and d[0] < d[1]:
        d[1] -= 1
    v = dispatch("linalg_vector_norm", A, 1.0, (d[0],), keepdim, dtype=dtype)
    return dispatch("amax" if ord > 0 else "amin", v, d[1], keepdim)


@register_op("linalg_matrix_norm.str_ord")
def linalg_matrix_norm_str(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """``linalg_matrix_norm(A, ord='fro', ...)`` (``torch.linalg.matrix_norm``): ``'fro'``, the
    Frobenius norm, is ``linalg_vector_norm(A, 2, dim)`` as in PyTorch; ``'nuc'`` the sum of the
    singular values (``_svdvals_norm``).

    Raises:
        RuntimeError: as ``linalg_matrix_norm``; an order other than 'fro'/'nuc' ("Order nuc2 not
            supported.").
    """
    d = _matrix_checks(A, dim)
    if ord == "nuc":
        return _svdvals_norm(A, d, "sum", keepdim, dtype)
    if ord != "fro":
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    return dispatch("linalg_vector_norm", A, 2.0, tuple(d), keepdim, dtype=dtype)


def _svdvals_norm(A, d, reduce, keepdim, dtype):
    """PyTorch's composite for ``ord`` 2, -2 and 'nuc': the two dims ``d`` moved to the end,
    the singular values (``_linalg_svd``, U and Vh only when a gradient is needed), then their
    ``amax``, ``amin`` or ``sum``; ``keepdim`` puts size-1 dims back where ``d`` were."""
    if dtype is not None:
        A = dispatch("_to_copy", A, dtype=dtype)
    rest = [i for i in range(A.ndim) if i not in d]
    perm = rest + list(d)
    B = dispatch("permute", A, perm)
    s = dispatch("_linalg_svd", B, False, B.requires_grad)[1]
    r = dispatch(reduce, s, -1)
    if keepdim:
        r = dispatch("unsqueeze", dispatch("unsqueeze", r, -1), -1)
        back = [perm.index(i) for i in range(A.ndim)]
        r = dispatch("permute", r, back)
    return r


# ----------------------------------------------------------------------------- renorm
def _renorm_checks(input, p, maxnorm):
    if not float(p) > 0.0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if not float(maxnorm) >= 0.0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {float(maxnorm):g}")
    if input.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} "
                           "dimensions")


def _norm_backward(grad, x, p, norm, dims):
    """PyTorch's ``norm_backward`` (``FunctionsManual.cpp``) with ``keepdim=True``, op for op:
    ``x`` stays in its own dtype (``|x|**(p-1)`` is rounded there) and ``grad``/``norm``, in
    the accumulation dtype, promote the products, as in renorm's backward."""
    D = dispatch
    if p == 1:
        return D("mul", D("sgn", x), grad)
    if p == 2:
        return D("mul", grad, D("masked_fill", D("div", x, norm), D("eq", norm, 0), 0))
    ax = D("abs", x)
    if p == _INF:
        mask = D("logical_or", D("eq", ax, norm), D("isnan", ax))
        return D("mul", D("sgn", x), D("mul", D("div", grad, D("sum", mask, dims, True)), mask))
    if p < 1:
        scaled = D("mul", D("sgn", x), D("masked_fill", D("pow", ax, p - 1), D("eq", x, 0), 0))
        return D("mul", D("mul", scaled, grad), D("pow", norm, 1 - p))
    scaled = D("mul", D("sgn", x), D("pow", ax, p - 1)) if p < 2 else \
        D("mul", x, D("pow", ax, p - 2))
    scale = D("masked_fill", D("div", grad, D("pow", norm, p - 1)), D("eq", norm, 0), 0)
    return D("mul", scaled, scale)


@register_op("renorm")
class Renorm(Function):
    """``renorm(input, p, dim, maxnorm)``: each slice ``input.select(dim, i)`` whose ``p``-norm
    exceeds ``maxnorm`` scaled by ``maxnorm / (norm + 1e-7)``, the others unchanged
    (``torch.renorm``; node ``RenormBackward0``). Shape and dtype of ``input`` (2+ dims,
    floating).

    Numerics as PyTorch's CPU kernel (``renorm_out``): the norms over all dims but ``dim`` in
    fp32 for fp16/bf16/fp32 (fp64 for fp64), as ``linalg_vector_norm``; the factor in that
    dtype (``maxnorm`` and ``1e-7`` rounded into it), rounded into the input's dtype; then one
    ``mul``. Backward PyTorch's ``renorm_backward`` composite, whose norms and sums run in the
    CPU accumulation dtype (fp64 for fp32 inputs), the gradient cast back to the input's dtype.

    Raises:
        RuntimeError: ``p <= 0`` ("renorm: non-positive-norm not supported"), ``maxnorm < 0``
            ("renorm: expected maxnorm to be >= 0 but got -1"), fewer than 2 dims ("renorm:
            input needs at least 2 dimensions, got 1 dimensions"), a non-floating input
            (``linalg.vector_norm``'s message). IndexError: ``dim`` out of range.
    """

    _backward_name = "RenormBackward0"

    @staticmethod
    def forward(ctx, input, p, dim, maxnorm):
        _renorm_checks(input, p, maxnorm)
        d = wrap_dim(dim, input.ndim)
        if not input.dtype.is_floating_point:
            raise RuntimeError("linalg.vector_norm: Expected a floating point or complex "
                               f"tensor as input. Got {input.dtype.scalar_name}")
        dims = tuple(k for k in range(input.ndim) if k != d)
        dt = input.dtype
        acc = (_dt.float64 if dt is _dt.float64 else _dt.float32).np   # toAccumulateType(cuda)
        norm = norm_kernel(_rows(np.asarray(input._data, np.float64), dims), float(p),
                           dt if dt is _dt.float64 else _dt.float32).astype(acc)
        m, eps = acc.type(maxnorm), acc.type(1e-7)
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            factor = np.where(norm > m, m / (norm + eps), acc.type(1))
        factor = _convert(factor, dt).reshape(
            tuple(s if k == d else 1 for k, s in enumerate(input.shape)))
        ctx.p, ctx.dims, ctx.maxnorm = float(p), dims, maxnorm
        ctx.save_for_backward(input)
        return wrap(opmath(input, dt) * opmath(factor, dt), dt)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        p, dims, maxnorm = ctx.p, ctx.dims, ctx.maxnorm
        acc = _dt.float32 if x.dtype.itemsize == 2 else _dt.float64  # toAccumulateType(cpu)
        norm = dispatch("linalg_vector_norm", x, p, dims, True, dtype=acc)
        gout = dispatch("sum", dispatch("mul", x, grad), dims, True, dtype=acc)
        nb = _norm_backward(gout, x, p, norm, dims)
        invnorm = dispatch("reciprocal", dispatch("add", norm, 1e-7))
        factor = dispatch("mul", invnorm, maxnorm)
        scaled = dispatch("mul", factor, dispatch("sub", grad, dispatch("mul", invnorm, nb)))
        gi = dispatch("where", dispatch("gt", norm, maxnorm), scaled, grad)
        if gi.dtype is not x.dtype:                 # autograd casts to the input's dtype
            gi = dispatch("_to_copy", gi, dtype=x.dtype)
        return gi, None, None, None


@register_op("renorm_")
def renorm_(self, p, dim, maxnorm):
    """In-place ``renorm`` (``Tensor.renorm_``); returns ``self``."""
    return run_inplace(self, Renorm.apply, p, dim, maxnorm)
