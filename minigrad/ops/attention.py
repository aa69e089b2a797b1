"""Scaled dot-product attention: PyTorch 2.13's CPU kernel
``_scaled_dot_product_flash_attention_for_cpu`` and its backward, each one op that rounds its
results once.

``F.scaled_dot_product_attention`` on CPU dispatches this fused op for every dtype when
``dropout_p == 0`` (a bool mask is first turned into an additive 0/-inf float mask); with
dropout it takes the math decomposition (``minigrad/nn/_attention_functional.py``).

Forward, per (batch, head), ``q`` (L, E), ``k`` (S, E), ``v`` (S, Ev), in opmath (fp32 for
16-bit inputs)::

    s = (q @ k^T) * scale + mask            (causal: -inf above the diagonal, top-left aligned)
    m = max_j s,  e = exp(s - m),  l = sum_j e
    out = (e @ v) / l,  logsumexp = m + log(l)

For fp16/bf16 PyTorch's kernel stores ``e`` in the input dtype before its ``e @ v`` gemm (the
row sum ``l`` uses the unrounded values); we do the same. That is exact for sequences within one
key/value block (PyTorch's ``kvSplitSize``, 512 keys); longer ones rescale block by block in
PyTorch, which can move a 16-bit result by an ulp. A row whose keys are all masked gives 0, as
PyTorch's kernel. Grouped-query attention (fewer key/value heads than query heads, dividing
them) repeats each key/value head, as ``enable_gqa=True``.

Backward (``_scaled_dot_product_flash_attention_for_cpu_backward``), in opmath with one rounding
per gradient: ``p = exp(s - logsumexp)``, ``dv = p^T dO``, ``dp = dO v^T``,
``ds = p * (dp - rowsum(dO * out))``, ``dq = ds k * scale``, ``dk = ds^T q * scale``; for
fp16/bf16, ``p`` (for ``dv``) and ``ds`` (for ``dq``, ``dk``) are stored in the input dtype
before their gemms, as PyTorch's kernel. That is bit-exact for short rows (up to ~6 keys,
measured); for longer ones PyTorch's fp32 sums (``exp`` row sums, ``dO . out``) run in its SIMD
lane order, not reproduced here, so its 16-bit ``p``/``ds`` roundings differ on a few percent of
elements and so do the gradients (a 16-bit ulp or two of the larger gradients; tiny ones more in
ulps; the forward stays bit-exact). With grouped-query attention
the key/value gradients of a group's query heads are summed in fp32 (PyTorch's 16-bit result
differs by up to an ulp of the largest gradient: its exact accumulation order is not
reproduced). The mask
gets no gradient (PyTorch's fused backward returns none) and, as in PyTorch, the backward op has
no derivative of its own.
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import LOW, broadcast_shapes, opmath, wrap


def check_qkv(query, key, value):
    """Raises PyTorch's TypeError for a non-tensor q/k/v and RuntimeError for mixed dtypes."""
    for name, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor):
            raise TypeError(f"scaled_dot_product_attention(): argument '{name}' must be Tensor, "
                            f"not {type(t).__name__}")
    if not (query.dtype is key.dtype is value.dtype):
        raise RuntimeError("Expected query, key, and value to have the same dtype, but got "
                           f"query.dtype: {query.dtype.cpp_name} key.dtype: "
                           f"{key.dtype.cpp_name} and value.dtype: {value.dtype.cpp_name} "
                           "instead.")


def _check(query, key, value, attn_mask):
    check_qkv(query, key, value)
    if not query.dtype.is_floating_point:
        raise RuntimeError(f"\"scaled_dot_product_attention\" not implemented for "
                           f"'{query.dtype.scalar_name}'")
    if query.ndim != 4 or key.ndim != 4 or value.ndim != 4:
        raise RuntimeError("scaled_dot_product_flash_attention_for_cpu: Q/K/V should have 4 "
                           "dimensions (batch, heads, seq_len, head_dim)")
    hq, hk = query.shape[1], key.shape[1]
    if query.shape[-1] != key.shape[-1] or key.shape[-2] != value.shape[-2] or \
            query.shape[0] != key.shape[0] or key.shape[:2] != value.shape[:2] or \
            (hq != hk and (hk == 0 or hq % hk)):
        raise RuntimeError(f"scaled_dot_product_attention: incompatible shapes query "
                           f"{list(query.shape)}, key {list(key.shape)}, value "
                           f"{list(value.shape)}")
    if attn_mask is not None:
        if attn_mask.dtype is _dt.bool_:
            raise RuntimeError("_scaled_dot_product_flash_attention_for_cpu expects a floating "
                               "attn_mask (F.scaled_dot_product_attention converts bool masks)")
        broadcast_shapes(tuple(attn_mask.shape), tuple(query.shape[:-1]) + (key.shape[-2],))


def _scores(q, k, scale, mask, is_causal, cd):
    """``q @ k^T * scale + mask``, -inf above the diagonal when causal: a new array, which the
    callers then overwrite in place."""
    s = np.matmul(q, np.swapaxes(k, -1, -2))
    s *= cd.type(scale)
    if mask is not None:
        s = s + mask
    if is_causal:
        # -inf right of the diagonal (keys j > query i), row by row: one slice assignment per
        # query row (0.5M instructions for (8, 4, 64, 64)) instead of building ``~tril(ones)``
        # and a masked copy (2.2M); the same elements get the same value
        L, S = s.shape[-2:]
        ninf = cd.type(-np.inf)
        for i in range(min(L, S - 1)):
            s[..., i, i + 1:] = ninf
    return s


def _heads(x, hq):
    """Grouped-query attention: repeat each key/value head ``hq // hk`` times (as
    ``repeat_interleave`` on dim 1)."""
    r = hq // x.shape[1]
    return x if r == 1 else np.repeat(x, r, axis=1)


def _unheads(g, hk, dt):
    """The key/value gradient of grouped-query attention: each key/value head sums the
    gradients of its query heads, one after the other; a 16-bit gradient rounds after each
    (PyTorch's gemm accumulates into the 16-bit output)."""
    n, hq = g.shape[:2]
    if hq == hk:
        return g
    parts = g.reshape((n, hk, hq // hk) + g.shape[2:])
    if dt in LOW:
        parts = parts.astype(dt.np).astype(g.dtype)
    return parts.sum(axis=2)


def _scale(scale, e):
    """The softmax scale: ``scale``, or ``1/sqrt(E)`` (inf for E = 0, as C++'s float division:
    the scores are then empty sums, zeros)."""
    if scale is not None:
        return float(scale)
    return 1.0 / math.sqrt(e) if e else math.inf


@register_op("_scaled_dot_product_flash_attention_for_cpu")
class FlashAttentionCPU(Function):
    """``_scaled_dot_product_flash_attention_for_cpu(query, key, value, dropout_p=0.0,
    is_causal=False, *, attn_mask=None, scale=None)`` -> ``(output, logsumexp)``.

    Shapes: query (N, H, L, E), key (N, H, S, E), value (N, H, S, Ev), attn_mask broadcastable
    to (N, H, L, S) (additive, floating); output (N, H, L, Ev) in the inputs' dtype, logsumexp
    (N, H, L) float32 (float64 for float64 inputs). ``scale`` defaults to ``1/sqrt(E)``. Node
    ``ScaledDotProductFlashAttentionForCpuBackward0``.

    Raises:
        RuntimeError: mismatched dtypes or shapes, non-floating inputs, a bool mask, or
            ``dropout_p > 0`` (PyTorch's F takes the math path for dropout).
    """

    _backward_name = "ScaledDotProductFlashAttentionForCpuBackward0"

    @staticmethod
    def forward(ctx, query, key, value, dropout_p=0.0, is_causal=False, *, attn_mask=None,
                scale=None):
        _check(query, key, value, attn_mask)
        if dropout_p > 0:
            raise RuntimeError("_scaled_dot_product_flash_attention_for_cpu: dropout is not "
                               "supported here; use F.scaled_dot_product_attention")
        dt = query.dtype
        cd = dt.opmath.np
        sc = _scale(scale, query.shape[-1])
        hq = query.shape[1]
        q, k, v = opmath(query, dt), _heads(opmath(key, dt), hq), _heads(opmath(value, dt), hq)
        mask = None if attn_mask is None else opmath(attn_mask, dt)
        with np.errstate(all="ignore"):
            s = _scores(q, k, sc, mask, is_causal, cd)
            m = np.max(s, axis=-1, keepdims=True) if s.shape[-1] else \
                np.full(s.shape[:-1] + (1,), -np.inf, cd)
            dead = m == -np.inf                 # every key masked: output 0, as PyTorch
            e = np.exp(np.subtract(s, np.where(dead, 0, m), out=s), out=s)
            l = np.sum(e, axis=-1, keepdims=True)
            if dt in LOW:
                e = e.astype(dt.np).astype(cd)
            out = np.matmul(e, v)
            out /= np.where(dead, 1, l)
            if dead.any():
                np.copyto(out, 0, where=dead)
            lse = (m + np.log(l))[..., 0]
        ctx.is_causal, ctx.scale = is_causal, scale
        o = wrap(out, dt)
        ctx.save_for_backward(query, key, value, attn_mask, o)
        lse_t = wrap(lse, _dt.float64 if dt is _dt.float64 else _dt.float32)
        ctx.lse = lse_t
        ctx.mark_non_differentiable(lse_t)
        return o, lse_t

    @staticmethod
    def backward(ctx, grad_out, grad_lse=None):
        q, k, v, mask, out = ctx.saved_tensors
        dq, dk, dv = dispatch("_scaled_dot_product_flash_attention_for_cpu_backward", grad_out,
                              q, k, v, out, ctx.lse, 0.0, ctx.is_causal, attn_mask=mask,
                              scale=ctx.scale)
        return dq, dk, dv, None, None


@register_op("_scaled_dot_product_flash_attention_for_cpu_backward")
class FlashAttentionCPUBackward(Function):
    """``_scaled_dot_product_flash_attention_for_cpu_backward(grad_out, query, key, value, out,
    logsumexp, dropout_p, is_causal, *, attn_mask=None, scale=None)`` -> ``(grad_query,
    grad_key, grad_value)``, each in the inputs' dtype with one rounding (formulas in the module
    docstring). Not differentiable (as PyTorch: its node raises).
    """

    _backward_name = "torch::autograd::NotImplemented"

    @staticmethod
    def forward(ctx, grad_out, query, key, value, out, logsumexp, dropout_p, is_causal, *,
                attn_mask=None, scale=None):
        dt = query.dtype
        cd = dt.opmath.np
        sc = _scale(scale, query.shape[-1])
        hq, hk = query.shape[1], key.shape[1]
        q, g, o = (opmath(t, dt) for t in (query, grad_out, out))
        k, v = _heads(opmath(key, dt), hq), _heads(opmath(value, dt), hq)
        mask = None if attn_mask is None else opmath(attn_mask, dt)
        with np.errstate(all="ignore"):
            s = _scores(q, k, sc, mask, is_causal, cd)
            lse = logsumexp._data.astype(cd)[..., None]
            p = np.exp(np.subtract(s, lse, out=s), out=s)
            dead = lse == -np.inf               # every key masked: no gradient
            if dead.any():
                np.copyto(p, 0, where=dead)
            low = dt in LOW
            p16 = p.astype(dt.np).astype(cd) if low else p
            dv = np.matmul(np.swapaxes(p16, -1, -2), g)
            dp = np.matmul(g, np.swapaxes(v, -1, -2))
            dsum = np.sum(g * o, axis=-1, keepdims=True)
            ds = np.multiply(p, np.subtract(dp, dsum, out=dp), out=dp)
            if low:
                ds = ds.astype(dt.np).astype(cd)
            dq = np.matmul(ds, k)
            dq *= cd.type(sc)
            dk = np.matmul(np.swapaxes(ds, -1, -2), q)
            dk *= cd.type(sc)
        return wrap(dq, dt), wrap(_unheads(dk, hk, dt), dt), wrap(_unheads(dv, hk, dt), dt)

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError("derivative for aten::_scaled_dot_product_flash_attention_for_cpu_"
                           "backward is not implemented")
