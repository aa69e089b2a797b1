"""The ``scaled_dot_product_attention`` op: PyTorch 2.13's CPU backend choice and its math
decomposition (a composite of dispatched ops, registered so that autocast sees it: PyTorch lists
it as lower-precision on cpu and cuda).

Backend choice, as PyTorch's CPU ``_fused_sdp_choice``: the fused
``_scaled_dot_product_flash_attention_for_cpu`` (``minigrad/ops/attention.py``) for 4-D inputs
with equal head dims, no dropout and a mask that needs no gradient (a bool mask becomes an
additive 0/-inf mask first); otherwise ATen's ``_scaled_dot_product_attention_math``: 16-bit
inputs computed in fp32 and cast back, both ``q`` and ``k^T`` scaled by ``sqrt(scale)``, the
mask added, ``_safe_softmax`` (all-masked rows give 0), dropout, then ``@ v``.
The emulated cuda device uses the same choice (PyTorch's CUDA kernels differ). The SDPA backend
flags (``minigrad.backends.cuda.enable_*_sdp``, ``nn.attention.sdpa_kernel``) gate both
kernels, with PyTorch's errors when none may run.
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes as _dt
from ..backends import cuda as _sdp_flags
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from .attention import check_qkv

_NEG_INF = float("-inf")


def _float_mask(mask, dtype):
    """A bool mask (True = attend) as an additive float mask (0 / -inf); float masks pass."""
    if mask is None or mask.dtype is not _dt.bool_:
        return mask
    zeros = dispatch("zeros", tuple(mask.shape), dtype=dtype, device=mask.device)
    return dispatch("masked_fill", zeros, dispatch("logical_not", mask), _NEG_INF)


def _causal_mask(L, S, dtype, device):
    arr = np.triu(np.full((L, S), -np.inf), k=1)
    return dispatch("tensor", arr, dtype=dtype, device=device)


def _safe_softmax(x, dim):
    """Softmax whose rows that are entirely -inf give 0 instead of NaN (ATen's
    ``_safe_softmax``), from dispatched ops."""
    dead = dispatch("all", dispatch("eq", x, _NEG_INF), dim, keepdim=True)
    # a dead row is softmaxed as zeros (finite), then zeroed: its gradient is 0, as ATen's
    # _safe_softmax backward (softmax_backward on the zeroed output), not NaN
    live = dispatch("masked_fill", x, dead, 0.0)
    return dispatch("masked_fill", dispatch("softmax", live, dim), dead, 0.0)


def _sdpa_math(query, key, value, attn_mask, dropout_p, is_causal, scale, generator=None):
    dt = query.dtype
    if dt in (_dt.float16, _dt.bfloat16):        # PyTorch keeps q, k, v in fp32 here
        query, key, value = (t.to(_dt.float32) for t in (query, key, value))
        if attn_mask is not None and attn_mask.dtype.is_floating_point:
            attn_mask = attn_mask.to(_dt.float32)
    L, S = query.shape[-2], key.shape[-2]
    if is_causal:
        attn_mask = _causal_mask(L, S, query.dtype, query.device)
    attn_mask = _float_mask(attn_mask, query.dtype)
    e = query.shape[-1]
    # sqrt of the scale, applied to q and to k (PyTorch's order); E = 0: inf, on empty tensors
    sf = math.sqrt((1.0 / math.sqrt(e) if e else math.inf) if scale is None else scale)
    q = dispatch("mul", query, sf)
    attn = dispatch("matmul", q, dispatch("mul", dispatch("transpose", key, -2, -1), sf))
    if attn_mask is not None:
        attn = dispatch("add", attn, attn_mask)
    attn = _safe_softmax(attn, -1)
    if dropout_p > 0.0:
        attn = dispatch("dropout", attn, dropout_p, True, generator=generator)
    out = dispatch("matmul", attn, value)
    return out.to(dt) if out.dtype is not dt else out


def _repeat_heads(x, hq):
    """``x.repeat_interleave(hq // x.size(-3), -3)`` (each key/value head repeated for its
    group of query heads), from dispatched views."""
    hk = x.shape[-3]
    if hk == hq:
        return x
    r = hq // hk
    lead, tail = tuple(x.shape[:-3]), tuple(x.shape[-2:])
    x = dispatch("unsqueeze", x, x.ndim - 2)
    x = dispatch("expand", x, lead + (hk, r) + tail)
    return dispatch("reshape", x, lead + (hq,) + tail)


def _gqa_check(query, key, value):
    """ATen's ``pre_process_group_query_attention_input`` check for ``enable_gqa=True``: the
    key and value head counts (dim -3) equal the query's or both divide it.

    Raises:
        RuntimeError: PyTorch's message, cut short as PyTorch prints it ("Number of heads in
            key and value must divide the number of heads in ").
    """
    hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
    if hq == hk == hv:
        return
    if hk == 0 or hv == 0 or hq % hk or hq % hv:
        raise RuntimeError("Number of heads in key and value must divide the number of heads "
                           "in ")


def _fused_shapes_ok(query, key, value, enable_gqa):
    """``check_batch_size_and_num_heads_dense`` of PyTorch's CPU flash choice: equal batch
    sizes, and equal head counts (with ``enable_gqa``: key and value heads equal and dividing
    the query's). Otherwise the math path runs, which broadcasts batch and heads as matmul
    does."""
    if not query.shape[0] == key.shape[0] == value.shape[0]:
        return False
    hq, hk, hv = query.shape[1], key.shape[1], value.shape[1]
    if hq == hk == hv:
        return True
    return enable_gqa and hk == hv and hk > 0 and hq % hk == 0


def _backends_allowed(query):
    """(fused allowed, math allowed) under ``minigrad.backends.cuda``'s SDPA flags
    (``nn.attention.sdpa_kernel``). On cpu only the flash flag allows the fused kernel, as in
    PyTorch; on the emulated cuda device the efficient and cudnn flags allow it too (their
    kernels are not emulated apart: see ``minigrad.nn.attention``)."""
    sdp = _sdp_flags._SDP
    fused = sdp["flash"] or (query.device.type == "cuda" and
                             (sdp["mem_efficient"] or sdp["cudnn"]))
    return fused, sdp["math"]


def _check_dtypes(query, key, value, attn_mask):
    """PyTorch's ``validate_sdpa_input`` dtype checks, with its messages."""
    check_qkv(query, key, value)
    if attn_mask is not None and attn_mask.dtype not in (_dt.bool_, _dt.float32, query.dtype):
        raise RuntimeError("Expected attn_mask dtype to be bool or float or to match query dtype, "
                           f"but got attn_mask.dtype: {attn_mask.dtype.cpp_name} and  "
                           f"query.dtype: {query.dtype.cpp_name} instead.")
    if not query.dtype.is_floating_point:
        raise RuntimeError(f"expected scalar type Float but found {query.dtype.scalar_name}")


@register_op("scaled_dot_product_attention")
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p: float = 0.0,
                                 is_causal: bool = False, *, scale=None, enable_gqa: bool = False,
                                 generator=None):
    """``softmax(q @ k^T * scale + mask) @ v`` (``F.scaled_dot_product_attention``).

    Shapes: query (N, ..., Hq, L, E), key (N, ..., H, S, E), value (N, ..., H, S, Ev) ->
    (N, ..., Hq, L, Ev). ``attn_mask`` broadcastable to (N, ..., L, S): bool (True = attend)
    or additive float. ``is_causal``: a lower-triangular (top-left) mask. ``scale`` defaults to
    ``1/sqrt(E)``. ``enable_gqa``: the key/value head counts (dim -3) may divide ``Hq`` (each
    head repeated for its group, ``repeat_interleave``). Without it, batch and head dims
    broadcast as in ``matmul`` (PyTorch's math path: 1 query head against 2 key/value heads
    gives 2 output heads). ``generator`` (not in PyTorch) drives the dropout mask.

    Raises:
        RuntimeError: q/k/v of different dtypes, a mask that is not bool, float32 or the
            query's dtype, an integer query (PyTorch's messages); on the math path,
            ``attn_mask`` together with ``is_causal`` ("_scaled_dot_product_attention:
            Explicit attn_mask should not be set when is_causal=True"); mismatched shapes or
            dtypes (the op's errors); batch/head dims that do not broadcast (matmul's
            message); with ``enable_gqa``, key/value head counts that do not divide the query's
            ("Number of heads in key and value must divide the number of heads in ").
        ValueError: ``dropout_p`` outside [0, 1].
    """
    _check_dtypes(query, key, value, attn_mask)
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise RuntimeError("Expected query, key, and value to all be  at least 2 dimensional, "
                           f"but got query.dim: {query.ndim} key.dim: {key.ndim} and "
                           f"value.dim: {value.ndim} instead.")
    if not 0.0 <= dropout_p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    mask_grad = isinstance(attn_mask, Tensor) and attn_mask.requires_grad
    fused_on, math_on = _backends_allowed(query)
    if fused_on and query.ndim == 4 and key.ndim == 4 and value.ndim == 4 and \
            dropout_p == 0.0 and not mask_grad and \
            query.shape[-1] == key.shape[-1] == value.shape[-1] and \
            _fused_shapes_ok(query, key, value, enable_gqa):
        mask = _float_mask(attn_mask, query.dtype)
        return dispatch("_scaled_dot_product_flash_attention_for_cpu", query, key, value, 0.0,
                        is_causal, attn_mask=mask, scale=scale)[0]
    if not math_on:
        raise RuntimeError("No available kernel.  Aborting execution." if fused_on else
                           "No viable backend for scaled_dot_product_attention was found. This "
                           "is likely due to turning off both the math kernel and the fused "
                           "kernels.")
    if attn_mask is not None and is_causal:        # the fused kernel applies both
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set "
                           "when is_causal=True")
    if enable_gqa and query.ndim >= 3 and key.ndim >= 3 and value.ndim >= 3:
        _gqa_check(query, key, value)
        hq = query.shape[-3]
        key, value = _repeat_heads(key, hq), _repeat_heads(value, hq)
    return _sdpa_math(query, key, value, attn_mask, dropout_p, is_causal, scale, generator)
