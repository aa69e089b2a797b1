"""The Transformer layers of ``torch.nn.modules.transformer`` (Vaswani et al. 2017):
``TransformerEncoderLayer``, ``TransformerEncoder``, ``TransformerDecoderLayer``,
``TransformerDecoder``, ``Transformer``, with PyTorch 2.13's arguments, defaults and submodule
names (``self_attn``, ``multihead_attn``, ``linear1``, ``norm1``, ``layers.N``...), so
``state_dict``s load both ways with torch's. A layer composes ``MultiheadAttention``,
``Linear``, ``Dropout`` and ``LayerNorm``: post-norm ``x = norm(x + block(x))`` by default,
pre-norm ``x = x + block(norm(x))`` with ``norm_first=True`` (Fig. 1 of arXiv:2002.04745).

Deliberate difference: PyTorch's inference fast path (``torch._transformer_encoder_layer_fwd``,
and nested tensors for padded batches), which it may take in eval mode without grad for
``batch_first`` layers with an even head count, is not emulated: minigrad always runs the
composed path. Eval-mode results then agree with torch to a few fp32 ULPs, not bit for bit,
and padded positions, which the nested-tensor path returns as zeros, hold the composed path's
values. ``enable_nested_tensor``/``use_nested_tensor`` are kept, with PyTorch's warning.
"""
from __future__ import annotations

import copy
import warnings

from ..._functional.factories import full
from ..._functional.rearrange import triu
from .. import functional as F
from ..module import Module
from .activation import GELU, MultiheadAttention, ReLU
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .normalization import LayerNorm

__all__ = ["Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
           "TransformerDecoderLayer"]


def _generate_square_subsequent_mask(sz, device=None, dtype=None):
    """The (sz, sz) causal mask: ``-inf`` above the diagonal (future positions), 0 elsewhere
    (``torch.nn.modules.transformer._generate_square_subsequent_mask``); dtype defaults to the
    default float dtype."""
    return triu(full((sz, sz), float("-inf"), dtype=dtype, device=device), diagonal=1)


def _get_seq_len(src, batch_first):
    """Sequence length of (S, E), (S, N, E) or, with ``batch_first``, (N, S, E)."""
    return src.shape[0 if src.dim() == 2 or not batch_first else 1]


def _detect_is_causal_mask(mask, is_causal=None, size=None):
    """PyTorch's ``_detect_is_causal_mask``: ``is_causal=True`` is taken as given; with
    ``is_causal=None`` a mask equal to ``_generate_square_subsequent_mask(size)`` counts as
    causal (any other shape or value: not causal)."""
    make_causal = is_causal is True
    if is_causal is None and mask is not None:
        sz = size if size is not None else mask.shape[-2]
        causal = _generate_square_subsequent_mask(sz, device=mask.device, dtype=mask.dtype)
        make_causal = tuple(mask.shape) == tuple(causal.shape) and bool((mask == causal).all())
    return make_causal


def _get_clones(module, N):
    """``N`` independent deep copies of ``module`` in a ``ModuleList`` (PyTorch's
    ``_get_clones``): the layers start from equal weights, then train apart."""
    return ModuleList([copy.deepcopy(module) for _ in range(N)])


def _get_activation_fn(activation):
    """``"relu"`` -> ``F.relu``, ``"gelu"`` -> ``F.gelu``.

    Raises:
        RuntimeError: any other string (PyTorch's message).
    """
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _canonical_pair(mask, key_padding_mask, mask_name, kpm_name, dtype):
    """Both masks as additive float masks of ``dtype`` (bool -> 0/-inf), warning as PyTorch's
    ``F._canonical_mask`` when one is bool and the other float."""
    key_padding_mask = F._canonical_mask(
        mask=key_padding_mask, mask_name=kpm_name, other_type=F._none_or_dtype(mask),
        other_name=mask_name, target_type=dtype)
    mask = F._canonical_mask(mask=mask, mask_name=mask_name, other_type=None, other_name="",
                             target_type=dtype, check_other=False)
    return mask, key_padding_mask


def _why_no_nested_tensor(layer):
    """The reason PyTorch gives for not using nested tensors with this encoder layer ("" if
    it would)."""
    if not isinstance(layer, TransformerEncoderLayer):
        return "encoder_layer was not TransformerEncoderLayer"
    attn = layer.self_attn
    checks = [(layer.norm_first, "norm_first was True"),
              (not attn.batch_first, "self_attn.batch_first was not True(use batch_first for "
                                     "better inference performance)"),
              (not attn._qkv_same_embed_dim, "self_attn._qkv_same_embed_dim was not True"),
              (attn.in_proj_bias is None, "self_attn was passed bias=False"),
              (not layer.activation_relu_or_gelu, "activation_relu_or_gelu was not True"),
              (layer.norm1.eps != layer.norm2.eps,
               "norm1.eps was not equal to encoder_layer.norm2.eps"),
              (attn.num_heads % 2 == 1, "self_attn.num_heads is odd")]
    return next(("encoder_layer." + why for failed, why in checks if failed), "")


def _add_feedforward_and_norms(layer, n_blocks, d_model, dim_feedforward, dropout, eps,
                               norm_first, bias, fk):
    """Give ``layer`` PyTorch's feed-forward block (``linear1``, ``dropout``, ``linear2``) and
    one ``norm<i>``/``dropout<i>`` per residual block, registered in PyTorch's order (so the
    ``state_dict`` keys come in torch's order)."""
    layer.linear1 = Linear(d_model, dim_feedforward, bias=bias, **fk)
    layer.dropout = Dropout(dropout)
    layer.linear2 = Linear(dim_feedforward, d_model, bias=bias, **fk)
    layer.norm_first = norm_first
    for i in range(1, n_blocks + 1):
        setattr(layer, f"norm{i}", LayerNorm(d_model, eps=eps, bias=bias, **fk))
    for i in range(1, n_blocks + 1):
        setattr(layer, f"dropout{i}", Dropout(dropout))


class TransformerEncoderLayer(Module):
    """Self-attention then a feed-forward block (``torch.nn.TransformerEncoderLayer``).

    Args:
        d_model: width of the input and output features.
        nhead: attention heads (``d_model`` divisible by it).
        dim_feedforward: hidden width of the feed-forward block (default 2048).
        dropout: dropout probability in attention and after each block (default 0.1).
        activation: ``F.relu`` (default), ``F.gelu``, ``"relu"``/``"gelu"`` or any callable.
        layer_norm_eps: LayerNorm epsilon. batch_first: (N, S, E) instead of (S, N, E).
        norm_first: pre-norm instead of post-norm. bias: biases in Linear and LayerNorm.
        device, dtype: for the parameters.

    Shapes: src (S, N, E), (N, S, E) with batch_first, or unbatched (S, E); src_mask (S, S) or
    (N*nhead, S, S), bool (True = not allowed) or float (added); src_key_padding_mask (N, S)
    (True = padding). Output has the shape of src.

    Raises:
        RuntimeError: an activation string other than relu/gelu.
        AssertionError: ``d_model`` not divisible by ``nhead``; masks neither bool nor float.
    """

    __constants__ = ["norm_first"]

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None) -> None:
        fk = {"device": device, "dtype": dtype}
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, **fk)
        _add_feedforward_and_norms(self, 2, d_model, dim_feedforward, dropout, layer_norm_eps,
                                   norm_first, bias, fk)
        if isinstance(activation, str):
            activation = _get_activation_fn(activation)
        # PyTorch records which activation the fused fast path would use (1 relu, 2 gelu)
        if activation is F.relu or isinstance(activation, ReLU):
            self.activation_relu_or_gelu = 1
        elif activation is F.gelu or isinstance(activation, GELU):
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self.activation = activation

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "activation"):
            self.activation = F.relu

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        """One encoder layer on ``src``; ``is_causal=True`` is a hint that ``src_mask`` is the
        causal mask (it is then not applied as a tensor: attention runs causal)."""
        src_mask, src_key_padding_mask = _canonical_pair(
            src_mask, src_key_padding_mask, "src_mask", "src_key_padding_mask", src.dtype)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)


class TransformerDecoderLayer(Module):
    """Self-attention, attention over the encoder's ``memory``, then a feed-forward block
    (``torch.nn.TransformerDecoderLayer``). Arguments as ``TransformerEncoderLayer``.

    Shapes: tgt (T, N, E) (or (N, T, E) with batch_first, or (T, E)), memory (S, N, E);
    tgt_mask (T, T), memory_mask (T, S), tgt_key_padding_mask (N, T),
    memory_key_padding_mask (N, S). Output has the shape of tgt.

    Raises:
        RuntimeError: an activation string other than relu/gelu.
    """

    __constants__ = ["norm_first"]

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None) -> None:
        fk = {"device": device, "dtype": dtype}
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                            batch_first=batch_first, bias=bias, **fk)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                                 batch_first=batch_first, bias=bias, **fk)
        _add_feedforward_and_norms(self, 3, d_model, dim_feedforward, dropout, layer_norm_eps,
                                   norm_first, bias, fk)
        self.activation = _get_activation_fn(activation) if isinstance(activation, str) \
            else activation

    def __setstate__(self, state):
        state.setdefault("activation", F.relu)
        super().__setstate__(state)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        """One decoder layer; the ``*_is_causal`` flags are hints that the matching mask is
        causal."""
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask,
                                   tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask,
                                    memory_key_padding_mask, memory_is_causal)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask,
                                              tgt_is_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask,
                                               memory_key_padding_mask, memory_is_causal))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           is_causal=is_causal, need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal=False):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask,
                                key_padding_mask=key_padding_mask, is_causal=is_causal,
                                need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout3(x)


class TransformerEncoder(Module):
    """A stack of ``num_layers`` deep copies of ``encoder_layer``, then ``norm`` if given
    (``torch.nn.TransformerEncoder``).

    Args:
        encoder_layer: the layer to clone (each clone starts from its weights).
        num_layers: how many. norm: an optional final module (a ``LayerNorm``).
        enable_nested_tensor: kept as PyTorch's attribute, with its warning when the layer
            could not use nested tensors; minigrad never converts to nested tensors.
        mask_check: kept as PyTorch's attribute (used by PyTorch's fast path only).

    ``forward(src, mask=None, src_key_padding_mask=None, is_causal=None)``: with
    ``is_causal=None`` a mask equal to the causal mask is detected as causal.
    """

    __constants__ = ["norm"]

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                 mask_check=True) -> None:
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why_not = _why_no_nested_tensor(encoder_layer)
        if enable_nested_tensor and why_not:
            warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False "
                          f"because {why_not}", stacklevel=2)
            self.use_nested_tensor = False

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        """Pass ``src`` through every layer (shapes as ``TransformerEncoderLayer``)."""
        mask, src_key_padding_mask = _canonical_pair(
            mask, src_key_padding_mask, "mask", "src_key_padding_mask", src.dtype)
        seq_len = _get_seq_len(src, self.layers[0].self_attn.batch_first)
        is_causal = _detect_is_causal_mask(mask, is_causal, seq_len)
        output = src
        for mod in self.layers:
            output = mod(output, src_mask=mask, is_causal=is_causal,
                         src_key_padding_mask=src_key_padding_mask)
        if self.norm is not None:
            output = self.norm(output)
        return output


class TransformerDecoder(Module):
    """A stack of ``num_layers`` deep copies of ``decoder_layer``, then ``norm`` if given
    (``torch.nn.TransformerDecoder``). ``forward(tgt, memory, tgt_mask, memory_mask,
    tgt_key_padding_mask, memory_key_padding_mask, tgt_is_causal=None,
    memory_is_causal=False)``: ``tgt_is_causal=None`` detects a causal ``tgt_mask``."""

    __constants__ = ["norm"]

    def __init__(self, decoder_layer, num_layers, norm=None) -> None:
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        """Pass ``tgt`` through every layer, each attending to ``memory``."""
        seq_len = _get_seq_len(tgt, self.layers[0].self_attn.batch_first)
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, seq_len)
        output = tgt
        for mod in self.layers:
            output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                         tgt_key_padding_mask=tgt_key_padding_mask,
                         memory_key_padding_mask=memory_key_padding_mask,
                         tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        if self.norm is not None:
            output = self.norm(output)
        return output


class Transformer(Module):
    """Encoder-decoder Transformer (``torch.nn.Transformer``): ``num_encoder_layers`` encoder
    layers and ``num_decoder_layers`` decoder layers, each stack ending in a ``LayerNorm``
    (``encoder.norm``, ``decoder.norm``), or ``custom_encoder`` / ``custom_decoder``.
    ``_reset_parameters`` applies ``xavier_uniform_`` to every parameter with more than one
    dimension (the whole model, custom parts included), as PyTorch.

    Args: ``d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
    dim_feedforward=2048, dropout=0.1, activation=F.relu, custom_encoder=None,
    custom_decoder=None, layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
    device=None, dtype=None``, as PyTorch.

    Shapes: src (S, N, E), tgt (T, N, E) ((N, *, E) with batch_first; unbatched (S, E),
    (T, E)); masks as the layers; output (T, N, E).

    Raises:
        RuntimeError: batched src and tgt with different batch sizes ("the batch number of
            src and tgt must be equal"); a last dimension other than d_model ("the feature
            number of src and tgt must be equal to d_model").
    """

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation=F.relu, custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False,
                 norm_first=False, bias=True, device=None, dtype=None) -> None:
        fk = {"device": device, "dtype": dtype}
        super().__init__()
        layer_args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                      batch_first, norm_first, bias)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            self.encoder = TransformerEncoder(
                TransformerEncoderLayer(*layer_args, **fk), num_encoder_layers,
                LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            self.decoder = TransformerDecoder(
                TransformerDecoderLayer(*layer_args, **fk), num_decoder_layers,
                LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk))
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                src_key_padding_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        """Encode ``src`` into memory, then decode ``tgt`` attending to it."""
        is_batched = src.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if is_batched and src.shape[batch_dim] != tgt.shape[batch_dim]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        """The (sz, sz) causal float mask: ``-inf`` above the diagonal, 0 on and below it."""
        return _generate_square_subsequent_mask(sz, dtype=dtype, device=device)

    def _reset_parameters(self):
        """``xavier_uniform_`` on every parameter with ``dim() > 1`` (PyTorch's init)."""
        from ..init import xavier_uniform_
        for p in self.parameters():
            if p.dim() > 1:
                xavier_uniform_(p)
