"""``MultiheadAttention`` (``torch.nn.MultiheadAttention``), kept in its own module for length;
PyTorch defines it in ``torch.nn.modules.activation``, and so does minigrad's public path: the
class is re-exported there and names that module as its ``__module__``, so a pickled model
names ``minigrad.nn.modules.activation.MultiheadAttention`` as PyTorch's names
``torch.nn.modules.activation.MultiheadAttention``.
"""
from __future__ import annotations

from .. import functional as F
from ..module import Module

__all__ = ["MultiheadAttention"]


class MultiheadAttention(Module):
    """Multi-head attention (``torch.nn.MultiheadAttention``): same constructor arguments,
    parameter names (``in_proj_weight`` or ``q_proj_weight``/``k_proj_weight``/
    ``v_proj_weight`` when kdim/vdim differ from embed_dim, ``in_proj_bias``, ``bias_k``,
    ``bias_v``, ``out_proj`` a ``NonDynamicallyQuantizableLinear``) and initialisation
    (``_reset_parameters``: xavier_uniform_ projections, zero biases, xavier_normal_ bias_k/v).

    Args:
        embed_dim, num_heads: model width and head count (embed_dim divisible by num_heads).
        dropout: dropout on the attention weights in training.
        bias, add_bias_kv, add_zero_attn, kdim, vdim, batch_first, device, dtype: as PyTorch.

    Shapes: query (L, N, E) (or (N, L, E) with batch_first; unbatched (L, E)); returns
    ``(attn_output, attn_weights)`` as ``F.multi_head_attention_forward``. A bool
    ``key_padding_mask`` / ``attn_mask`` (True = not allowed) first becomes a 0/-inf float
    mask (``F._canonical_mask``, warning as PyTorch when one is bool and the other float);
    ``is_causal=True`` is a hint that ``attn_mask`` is the causal mask.

    Raises:
        ValueError: ``embed_dim``/``num_heads`` not positive. AssertionError: embed_dim not
            divisible by num_heads ("embed_dim must be divisible by num_heads").
    """

    __constants__ = ["batch_first"]

    __module__ = "minigrad.nn.modules.activation"     # PyTorch's path (module docstring)

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None) -> None:
        from ..._functional.factories import empty
        from ..parameter import Parameter
        from .linear import NonDynamicallyQuantizableLinear
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        super().__init__()
        fk = {"device": device, "dtype": dtype}
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        assert self.head_dim * num_heads == self.embed_dim, \
            "embed_dim must be divisible by num_heads"
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(empty((embed_dim, embed_dim), **fk))
            self.k_proj_weight = Parameter(empty((embed_dim, self.kdim), **fk))
            self.v_proj_weight = Parameter(empty((embed_dim, self.vdim), **fk))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(empty((3 * embed_dim, embed_dim), **fk))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(empty(3 * embed_dim, **fk))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **fk)
        if add_bias_kv:
            self.bias_k = Parameter(empty((1, 1, embed_dim), **fk))
            self.bias_v = Parameter(empty((1, 1, embed_dim), **fk))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        from .. import init
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        is_batched = query.dim() == 3
        key_padding_mask = F._canonical_mask(
            mask=key_padding_mask, mask_name="key_padding_mask",
            other_type=F._none_or_dtype(attn_mask), other_name="attn_mask",
            target_type=query.dtype)
        attn_mask = F._canonical_mask(mask=attn_mask, mask_name="attn_mask", other_type=None,
                                      other_name="", target_type=query.dtype,
                                      check_other=False)
        if self.batch_first and is_batched:
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        out, w = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight, average_attn_weights=average_attn_weights,
            is_causal=is_causal)
        if self.batch_first and is_batched:
            return out.transpose(1, 0), w
        return out, w
