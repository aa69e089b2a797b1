"""Attention in ``torch.nn.functional``: ``scaled_dot_product_attention`` and
``multi_head_attention_forward`` (re-exported by ``F``), as PyTorch 2.13 computes them on CPU.

``scaled_dot_product_attention`` picks PyTorch's CPU backend: the fused
``_scaled_dot_product_flash_attention_for_cpu`` op (``minigrad/ops/attention.py``) for 4-D
inputs with equal head dims, without dropout and with a mask that needs no gradient (a bool mask becomes an additive
0/-inf mask first); otherwise the math decomposition of ATen's
``_scaled_dot_product_attention_math``, made of dispatched ops (16-bit inputs computed in fp32
and cast back, as PyTorch; ``_safe_softmax``'s all-masked rows give 0).

``multi_head_attention_forward`` follows ``torch.nn.functional.multi_head_attention_forward``:
packed or separate input projections, ``bias_k``/``bias_v``, ``add_zero_attn``,
``key_padding_mask``, ``attn_mask`` (2-D or 3-D, bool or float), ``need_weights`` (the explicit
bmm/softmax path, returning weights averaged over heads or per head) or not (SDPA). Deliberate
difference: where PyTorch uses ``baddbmm(attn_mask, q, k^T)`` we add the mask after ``bmm`` (one
more rounding in 16-bit); the eval-mode fast path (``_native_multi_head_attention``) is not
emulated, its results are computed by this same path.
"""
from __future__ import annotations

import math
import warnings

from .. import dtypes as _dt
from ..dispatch import dispatch
from ..tensor import Tensor

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]

_NEG_INF = float("-inf")


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p: float = 0.0,
                                 is_causal: bool = False, scale=None, enable_gqa: bool = False,
                                 *, generator=None):
    """``softmax(q @ k^T * scale + mask) @ v`` (``F.scaled_dot_product_attention``): the
    ``scaled_dot_product_attention`` op (``minigrad/ops/attention_backend.py``: backend choice,
    shapes, errors). ``generator`` (not in PyTorch) drives the dropout mask."""
    return dispatch("scaled_dot_product_attention", query, key, value, attn_mask, dropout_p,
                    is_causal, scale=scale, enable_gqa=enable_gqa, generator=generator)


# ------------------------------------------------------------------------------ multi-head
def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """PyTorch's ``F._canonical_mask``: a bool mask becomes an additive float mask of
    ``target_type`` (-inf where True = masked, 0 elsewhere); a float mask is returned as is.

    Args:
        mask: None, a bool tensor or a floating tensor.
        mask_name, other_name: names used in the messages.
        other_type: the dtype of the companion mask (``_none_or_dtype(other)``) or None.
        target_type: dtype of the float mask made from a bool one.
        check_other: warn (``UserWarning``, PyTorch's text) when ``mask`` and the companion
            mask have different dtypes.

    Raises:
        AssertionError: a mask that is neither bool nor floating (PyTorch's message).
    """
    if mask is None:
        return None
    is_float = mask.dtype.is_floating_point
    if mask.dtype is not _dt.bool_ and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. "
                      "Use same type for both instead.", stacklevel=2)
    if is_float:
        return mask
    zeros = dispatch("zeros_like", mask, dtype=target_type)
    return dispatch("masked_fill", zeros, mask, _NEG_INF)


def _none_or_dtype(input):
    """PyTorch's ``F._none_or_dtype``: None for None, else the tensor's dtype.

    Raises:
        RuntimeError: anything else (PyTorch's message).
    """
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _pad_last(t):
    """Append one zero column on the last dim (``F.pad(t, (0, 1))``)."""
    z = dispatch("zeros", tuple(t.shape[:-1]) + (1,), dtype=t.dtype, device=t.device)
    return dispatch("cat", [t, z], -1)


def _in_projection(query, key, value, w, b, wq, wk, wv, bq, bk, bv):
    if w is not None:
        E = query.shape[-1]
        if key is value and query is key:
            return dispatch("linear", query, w, b).chunk(3, dim=-1)
        ws = w.split(E)
        bs = b.split(E) if b is not None else (None, None, None)
        if key is value:
            q = dispatch("linear", query, ws[0], bs[0])
            kv_w = w[E:]
            kv_b = b[E:] if b is not None else None
            k, v = dispatch("linear", key, kv_w, kv_b).chunk(2, dim=-1)
            return q, k, v
        return tuple(dispatch("linear", x, wi, bi) for x, wi, bi in
                     zip((query, key, value), ws, bs))
    return (dispatch("linear", query, wq, bq), dispatch("linear", key, wk, bk),
            dispatch("linear", value, wv, bv))


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """Multi-head attention on (L, N, E) query and (S, N, Ek)/(S, N, Ev) key/value, or
    unbatched (L, E) (``F.multi_head_attention_forward``). Returns ``(attn_output (L, N, E),
    attn_weights)``: weights (N, L, S) averaged over heads, (N, num_heads, L, S) per head, or
    None when ``need_weights`` is False.

    Raises:
        AssertionError: PyTorch's shape assertions (embed dim, head divisibility, key/value
            shapes, mask shapes).
        RuntimeError: ``is_causal`` without ``attn_mask``; a bad attn_mask shape; with
            ``need_weights``, a float attn_mask (or key_padding_mask) whose dtype is not the
            query's (PyTorch's ``baddbmm`` error).
        NotImplementedError: ``static_k``/``static_v`` (not supported in minigrad).

    Warns:
        UserWarning: key_padding_mask and attn_mask of different dtypes (PyTorch's deprecation).
    """
    if static_k is not None or static_v is not None:
        raise NotImplementedError("multi_head_attention_forward: static_k/static_v are not "
                                  "supported in minigrad")
    is_batched = query.ndim == 3
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       _none_or_dtype(attn_mask), "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype,
                                    check_other=False)
        if key_padding_mask is not None:
            is_causal = False
    if not is_batched:
        query, key, value = (dispatch("unsqueeze", t, 1) for t in (query, key, value)) \
            if not (key is value and query is key) else (dispatch("unsqueeze", query, 1),) * 3
        if key_padding_mask is not None:
            key_padding_mask = dispatch("unsqueeze", key_padding_mask, 0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    assert embed_dim == embed_dim_to_check, \
        f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}"
    head_dim = embed_dim // num_heads
    assert head_dim * num_heads == embed_dim, \
        f"embed_dim {embed_dim} not divisible by num_heads {num_heads}"
    if use_separate_proj_weight:
        assert key.shape[:2] == value.shape[:2], \
            f"key's sequence and batch dims {key.shape[:2]} do not match value's " \
            f"{value.shape[:2]}"
    else:
        assert key.shape == value.shape, \
            f"key shape {key.shape} does not match value shape {value.shape}"
    if use_separate_proj_weight:
        bq = bk = bv = None
        if in_proj_bias is not None:
            bq, bk, bv = in_proj_bias.split(embed_dim)
        q, k, v = _in_projection(query, key, value, None, None, q_proj_weight, k_proj_weight,
                                 v_proj_weight, bq, bk, bv)
    else:
        q, k, v = _in_projection(query, key, value, in_proj_weight, in_proj_bias, None, None,
                                 None, None, None, None)
    if attn_mask is not None:
        if attn_mask.ndim == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {tuple(attn_mask.shape)}, "
                                   f"but should be {(tgt_len, src_len)}.")
            attn_mask = dispatch("unsqueeze", attn_mask, 0)
        elif attn_mask.ndim == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {tuple(attn_mask.shape)}, "
                                   f"but should be {(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.ndim} is not supported")
    if bias_k is not None and bias_v is not None:
        k = dispatch("cat", [k, dispatch("expand", bias_k, (1, bsz, embed_dim))], 0)
        v = dispatch("cat", [v, dispatch("expand", bias_v, (1, bsz, embed_dim))], 0)
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = k.reshape(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    v = v.reshape(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    if add_zero_attn:
        zshape = (bsz * num_heads, 1, head_dim)
        k = dispatch("cat", [k, dispatch("zeros", zshape, dtype=k.dtype, device=k.device)], 1)
        v = dispatch("cat", [v, dispatch("zeros", zshape, dtype=v.dtype, device=v.device)], 1)
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    src_len = k.shape[1]
    if key_padding_mask is not None:
        assert tuple(key_padding_mask.shape) == (bsz, src_len), \
            f"expecting key_padding_mask shape of {(bsz, src_len)}, but got " \
            f"{tuple(key_padding_mask.shape)}"
        kpm = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(
            bsz, num_heads, 1, src_len).reshape(bsz * num_heads, 1, src_len)
        attn_mask = kpm if attn_mask is None else dispatch("add", attn_mask, kpm)
    if not training:
        dropout_p = 0.0
    if need_weights:
        B, Nt, E = q.shape
        q_scaled = dispatch("mul", q, math.sqrt(1.0 / float(E)))
        w = dispatch("bmm", q_scaled, k.transpose(-2, -1))
        if attn_mask is not None:
            if attn_mask.dtype is not q_scaled.dtype:    # PyTorch's baddbmm(attn_mask, q, k^T)
                raise RuntimeError(f"Input dtypes must be the same, got: input "
                                   f"{attn_mask.dtype.cpp_name}, batch1: "
                                   f"{q_scaled.dtype.cpp_name}, batch2: {k.dtype.cpp_name}")
            w = dispatch("add", w, attn_mask)
        w = dispatch("softmax", w, -1)
        if dropout_p > 0.0:
            w = dispatch("dropout", w, dropout_p, True)
        out = dispatch("bmm", w, v)
        out = out.transpose(0, 1).contiguous().reshape(tgt_len * bsz, embed_dim)
        out = dispatch("linear", out, out_proj_weight, out_proj_bias)
        out = out.reshape(tgt_len, bsz, out.shape[1])
        w = w.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            w = dispatch("mean", w, 1)
        if not is_batched:
            out, w = dispatch("squeeze", out, 1), dispatch("squeeze", w, 0)
        return out, w
    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.ndim == 3:
            attn_mask = dispatch("unsqueeze", attn_mask, 0)
        else:
            attn_mask = attn_mask.reshape(bsz, num_heads, -1, src_len)
    q = q.reshape(bsz, num_heads, tgt_len, head_dim)
    k = k.reshape(bsz, num_heads, src_len, head_dim)
    v = v.reshape(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).contiguous().reshape(bsz * tgt_len, embed_dim)
    out = dispatch("linear", out, out_proj_weight, out_proj_bias)
    out = out.reshape(tgt_len, bsz, out.shape[1])
    if not is_batched:
        out = dispatch("squeeze", out, 1)
    return out, None
