"""What the normalization kernels (layer, group, batch norm) share: argument checks with
PyTorch's messages, row moments, and double backward.

- ``check_floating`` / ``param_dtype``: PyTorch's CPU rules for input and parameter dtypes
  (measured over all dtype combinations): parameters of the input's dtype, or, for a
  float16/bfloat16 input, all float32 (the "mixed dtype" path autocast uses); 16-bit inputs
  compute in float32 either way.
- ``row_moments``: mean and biased variance of each row of a 2-D array, accumulated in float64
  and rounded once into the opmath dtype (PyTorch's ``RowwiseMoments`` accumulates in the opmath
  dtype with a cascade of Welford merges: the rounded results agree to about one ulp of fp32).
- ``double_backward``: the gradient of a fused backward kernel (``native_layer_norm_backward``...)
  obtained by differentiating the op's composite forward formula twice with dispatched ops.
  PyTorch writes these as closed formulas (``layer_norm_double_backward``,
  ``batchnorm_double_backward``); the values agree to rounding.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .. import numerics as _nx
from ..dispatch import dispatch
from ..tensor import Tensor
from ._util import LOW, wrap


def check_floating(input, kernel):
    """Raise PyTorch's errors for a non-tensor or non-floating ``input`` of ``kernel``.

    Raises:
        TypeError: ``input`` is not a Tensor. NotImplementedError: integer/bool input
            ('"LayerNormKernelImpl" not implemented for 'Long'').
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"expected Tensor as element 0 in argument 0, but got "
                        f"{type(input).__name__}")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{input.dtype.scalar_name}'")


def param_dtype(input, *params):
    """The dtype of the given (not None) parameters, checked with PyTorch's CPU rules; the
    input's dtype when there are none. As ``is_mixed_type`` / ``checkMixedDataTypes``: the first
    given parameter decides whether the call is "mixed" (its dtype differs from the input's).

    Raises:
        RuntimeError: not mixed, a later parameter of another dtype ("expected scalar type Half
            but found Float"); mixed, a parameter that is not float32 ("mixed dtype (CPU):
            expect parameter to have scalar type of Float") or an input that is not 16-bit
            ("mixed dtype (CPU): all inputs must share same datatype.").
    """
    given = [p for p in params if p is not None]
    if not given:
        return input.dtype
    if given[0].dtype is input.dtype:
        for p in given[1:]:
            if p.dtype is not input.dtype:
                raise RuntimeError(f"expected scalar type {input.dtype.scalar_name} but found "
                                   f"{p.dtype.scalar_name}")
        return input.dtype
    if any(p.dtype is not _dt.float32 for p in given):
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    if input.dtype not in LOW:
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    return _dt.float32


def as_opmath(t, cd):
    """The array of tensor ``t`` in the opmath numpy dtype ``cd`` (None stays None)."""
    if t is None:
        return None
    a = t._data
    return a if a.dtype == cd else a.astype(cd)


def row_moments(rows, cd):
    """``(mean, var)`` of each row of the 2-D array ``rows`` (biased variance), accumulated in
    float64 and rounded once into ``cd``; rows of length 0 give NaN."""
    a = np.asarray(rows, np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        if a.shape[1] == 0:
            nan = np.full(a.shape[0], np.nan)
            return nan.astype(cd), nan.astype(cd)
        mean = a.mean(axis=1)
        var = np.square(a - mean[:, None]).mean(axis=1)
    return mean.astype(cd), var.astype(cd)


def rsqrt_eps(var, eps, cd):
    """``1 / sqrt(var + eps)`` in ``cd`` arithmetic, as the kernels compute ``rstd``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return (cd.type(1) / np.sqrt(var + cd.type(eps))).astype(cd)


def double_backward(forward, tensors, grads):
    """Gradients of a fused backward kernel, for double backward.

    ``forward(*tensors)`` is the op's composite forward written in dispatched ops; its first-order
    gradients ``vjp(grad_out)`` are differentiated once more against ``grads`` (the incoming
    gradients of the backward kernel's outputs ``grad_input, grad_weight, grad_bias``).

    Args:
        forward: callable on ``tensors[1:]`` (input, weight, bias...) returning the output.
        tensors: ``(grad_out, input, weight, ...)``; None entries are skipped.
        grads: one incoming gradient (or None) per first-order gradient, in the order of
            ``tensors[1:]``.

    Returns:
        a list with one gradient (or None) per entry of ``tensors``.

    Deliberate difference: the result is computed on detached copies, so it carries no graph
    (third-order gradients of these kernels are not supported).
    """
    from ..autograd import grad as _grad
    from ..autograd.grad_mode import enable_grad

    with enable_grad():
        leaves = [None if t is None else t.detach().requires_grad_(True) for t in tensors]
        go, rest = leaves[0], leaves[1:]
        out = forward(*rest)
        wrt = [t for t in rest if t is not None]
        first = _grad([out], wrt, [go], create_graph=True, allow_unused=True)
        by_id = dict(zip(map(id, wrt), first))
        pairs = [(by_id[id(t)], g) for t, g in zip(rest, grads)
                 if t is not None and g is not None and by_id[id(t)] is not None
                 and by_id[id(t)].requires_grad]
        targets = [t for t in leaves if t is not None]
        if not pairs:
            return [None] * len(tensors)
        second = _grad([p for p, _ in pairs], targets, [g.detach() for _, g in pairs],
                       allow_unused=True)
    it = iter(second)
    return [None if t is None else next(it) for t in leaves]



def recovered_eps(var, rstd, dtype):
    """The ``eps`` a saved ``rstd`` was computed with, ``1 / rstd^2 - var`` (float64, elementwise
    against the float64 biased variance ``var`` of rstd's shape), as a constant Tensor of
    ``dtype``: the backward kernels' signatures carry no eps, and their double backward only
    needs ``var + eps = 1 / rstd^2``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = 1.0 / np.square(np.asarray(rstd._data, np.float64)) - var
    return wrap(eps.reshape(rstd.shape), dtype)


def thread_row_sums(u, v, buf_dtype):
    """``sum(u * v, axis=0)`` (``v`` None: ``sum(u)``) of ``(M, N)`` opmath arrays the way
    PyTorch's CPU layer-/group-norm backward reduces dgamma and dbeta: ``at::parallel_for(0, M,
    1)`` hands each thread a chunk of rows, which it adds row by row into its own buffer of
    ``buf_dtype`` (a 16-bit buffer rounds after every row; an fp32 buffer takes each product as
    an fma), then the thread buffers are added in opmath. Returns the opmath sums (not yet
    rounded into the result dtype).

    The fp32 fma case runs ``_fma_row_sums32`` (a few NumPy calls per row instead of
    ``fma32``'s twenty; the same bits), plain sums into an opmath buffer one ``accumulate``;
    everything else ``_row_sums_loop``."""
    cd = u.dtype
    m, n = u.shape
    chunks = _nx.parallel_chunks(m, 1)
    size = chunks[0][1] - chunks[0][0] if m else 0
    k = len(chunks)
    pad = k * size - m
    if pad:
        u = np.concatenate([u, np.zeros((pad, n), cd)])
        v = None if v is None else np.concatenate([v, np.zeros((pad, n), cd)])
    u3 = u.reshape(k, size, n)
    v3 = None if v is None else v.reshape(k, size, n)
    low = _dt.as_dtype(buf_dtype) if not isinstance(buf_dtype, _dt.DType) else buf_dtype
    low = low if low in LOW else None
    if v3 is not None and cd == np.float32 and _nx.HAS_FMA and size:
        buf = _fma_row_sums32(u3, v3, low)
    elif v3 is None and low is None and size:
        # the plain sums (dbeta) as one running sum along the rows, adding in order as the
        # loop: ``reduce`` over the middle axis when rows have several columns (NumPy's inner
        # loop then runs along a row, out[c] += u[j, c], row after row: 0.66M instructions
        # for (1, 512, 128) against accumulate's 1.07M); a single column would make the
        # reduced axis the inner loop, summed pairwise, so it takes ``accumulate``.
        # ``+ 0`` turns a -0.0 into the loop's 0 + -0.0 = 0.0
        with np.errstate(invalid="ignore", over="ignore"):
            buf = (np.add.reduce(u3, axis=1) if n > 1 else
                   np.add.accumulate(u3, axis=1)[:, -1]) + cd.type(0)
    else:
        buf = _row_sums_loop(u3, v3, low)
    with np.errstate(invalid="ignore", over="ignore"):
        total = np.zeros(n, cd)
        for t in range(k):
            total = total + buf[t]
    return total


def _row_sums_loop(u3, v3, low):
    """The thread buffers of ``thread_row_sums``, ``(k, N)``: for each row ``j`` of the chunks
    ``u3``/``v3`` (``(k, size, N)``), ``buf += u3[:, j] * v3[:, j]`` (fp32: ``fma32``; ``v3``
    None: ``buf += u3[:, j]``), rounded into ``low`` after every row when ``low`` is a 16-bit
    dtype. The general path, and the reference ``_fma_row_sums32`` is tested against."""
    k, size, n = u3.shape
    cd = u3.dtype
    buf = np.zeros((k, n), cd)
    with np.errstate(invalid="ignore", over="ignore"):
        for j in range(size):
            if v3 is None:
                buf = buf + u3[:, j]
            elif cd == np.float32:
                buf = _nx.fma32(u3[:, j], v3[:, j], buf)
            else:
                buf = buf + u3[:, j] * v3[:, j]
            if low is not None:
                buf = _nx.round_to(buf, low)
    return buf


def _fma_row_sums32(u3, v3, low):
    """``_row_sums_loop`` for fp32 ``u3``/``v3`` with an fma, bit for bit, faster.

    ``fma32`` computes the exact float64 product ``p``, ``r = p + z`` in float64, and moves an
    even ``r`` whose sum was inexact to its odd neighbour (round-to-odd) before rounding to fp32.
    Here all rows' products are taken at once, and the sequential loop only adds and rounds
    (``Z[j + 1] = fp32(p[j] + Z[j])``); afterwards ``fma32``'s test for the round-to-odd fix runs
    on every row at once (after a cheap filter: only an ``r`` on an fp32 halfway point or a
    nonzero one below fp32's normal range can need it; an exact zero sum never does), keeping
    the elements where the fix changes the fp32 result (rare). If there is one, the first such
    row's buffer is recomputed with ``fma32`` itself and the loop resumes from the next row."""
    k, size, n = u3.shape
    with np.errstate(all="ignore"):
        p = np.ascontiguousarray((u3.astype(np.float64) * v3.astype(np.float64))
                                 .transpose(1, 0, 2))            # (size, k, n), exact
        z = np.empty((size + 1, k, n), np.float32)               # z[j]: the buffer before row j
        z[0] = 0
        r = np.empty((size, k, n))            # r[j]: row j's float64 sum p[j] + z[j]
        acc = np.empty(k * n)                 # the buffer z[j] as float64 (exact)
        # the row views, made once, each row's k chunks as one 1-D run (contiguous: a 1-D
        # operand costs NumPy's ufunc and assignment calls ~10% less than a (k, n) one)
        rows_p, rows_z, rows_r = (list(a.reshape(a.shape[0], k * n)) for a in (p, z, r))
        add = np.add
        start = 0
        while True:
            # float64 sum, rounded to fp32: the kernel's main cost is NumPy's per-call overhead
            # (M rows in sequence), so each row takes three cheap calls, a same-dtype add
            # (``out`` positional: as a keyword NumPy spends ~2k instructions more per call)
            # and two assignments that round it to fp32 and widen it back (8.9k instructions a
            # row for 128 columns), instead of one add that casts its operand and output
            # (13.4k); the float64 sums r also serve the round-to-odd check below
            acc[...] = rows_z[start]
            for pj, rj, zn in zip(rows_p[start:], rows_r[start:], rows_z[start + 1:]):
                add(pj, acc, rj)
                zn[...] = rj
                if low is not None:
                    zn[...] = zn.astype(low.np)
                acc[...] = zn
            # fma32's round-to-odd condition, on rows start.. at once; first its cheap filter
            # (an fp32 halfway point or a nonzero sum below fp32's normal range): usually clear
            ps = p[start:]
            rs = r[start:]
            halfway = (rs.view(np.uint64) & np.uint64(0x1FFFFFFF)) == np.uint64(0x10000000)
            tiny = np.abs(rs) < 2.0 ** -126
            if not (halfway.any() or (tiny.any() and (tiny & (rs != 0)).any())):
                return z[size]
            zs = z[start:size].astype(np.float64)
            bb = rs - ps
            e = (ps - (rs - bb)) + (zs - bb)
            fix = (e != 0) & ((rs.view(np.int64) & 1) == 0) & np.isfinite(rs)
            moved = np.nextafter(rs, np.where(e > 0, np.inf, -np.inf)).astype(np.float32)
            fix &= moved.view(np.int32) != rs.astype(np.float32).view(np.int32)
            rows = np.flatnonzero(fix.any(axis=(1, 2)))
            if not rows.size:
                return z[size]
            j = start + int(rows[0])
            z[j + 1] = _nx.fma32(u3[:, j], v3[:, j], z[j])
            if low is not None:
                z[j + 1] = _nx.round_to(z[j + 1], low)
            start = j + 1


def fma(x, y, z):
    """``x * y + z`` with one rounding in the opmath dtype of the arrays (fp32 or fp64), as the
    kernels' vectorised ``fmadd``."""
    if np.result_type(x, y, z) == np.float32:
        return _nx.fma32(x, y, z)
    return _nx.fma64(np.asarray(x, np.float64), np.asarray(y, np.float64),
                     np.asarray(z, np.float64))


def composite_normalize(x, dims, eps, mean=None, var=None):
    """``(x - mean) * rsqrt(var + eps)`` in dispatched ops (differentiable twice), the reference
    formula the double backward differentiates: batch statistics over ``dims`` unless ``mean``
    and ``var`` are given (evaluation's running stats); ``eps`` a number or a tensor."""
    if mean is None:
        mean = dispatch("mean", x, dims, True)
        centred = dispatch("sub", x, mean)
        var = dispatch("mean", dispatch("mul", centred, centred), dims, True)
    else:
        centred = dispatch("sub", x, mean)
    return dispatch("mul", centred, dispatch("rsqrt", dispatch("add", var, eps)))


def composite_affine(y, weight, bias, shape=None):
    """``y * weight + bias`` in dispatched ops, the parameters reshaped to ``shape`` if given;
    None parameters are skipped."""
    if weight is not None:
        y = dispatch("mul", y, weight if shape is None else dispatch("reshape", weight, shape))
    if bias is not None:
        y = dispatch("add", y, bias if shape is None else dispatch("reshape", bias, shape))
    return y
