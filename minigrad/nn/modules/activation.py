"""Activation modules: ``ReLU``, ``Tanh``, ``Sigmoid``, ``Softmax``, ``LogSoftmax``, ``GELU``,
``SiLU``, ``Mish``, ``Softplus``, ``LeakyReLU``, ``ELU``, ``SELU``, ``Hardtanh``, ``ReLU6``,
``Hardswish``, ``Hardsigmoid``, ``LogSigmoid``, ``MultiheadAttention`` (``torch.nn.modules.activation``: same
constructor arguments, attributes and ``repr``). Each ``forward`` is the ``F`` function of the
same name (``minigrad/nn/_activation_functional.py`` for the ones of issue 7).
"""
from __future__ import annotations

import warnings

from .. import functional as F
from ..module import Module

__all__ = ["ReLU", "Tanh", "Sigmoid", "Softmax", "LogSoftmax", "GELU", "SiLU", "Mish",
           "Softplus", "LeakyReLU", "ELU", "SELU", "Hardtanh", "ReLU6", "Hardswish",
           "Hardsigmoid", "LogSigmoid", "GLU", "MultiheadAttention"]


class ReLU(Module):
    """max(x, 0) elementwise (``torch.nn.ReLU``); ``inplace=True`` overwrites the input."""

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Tanh(Module):
    """tanh elementwise (``torch.nn.Tanh``)."""

    def forward(self, input):
        return F.tanh(input)


class Sigmoid(Module):
    """Logistic sigmoid elementwise (``torch.nn.Sigmoid``)."""

    def forward(self, input):
        return F.sigmoid(input)


class Softmax(Module):
    """Softmax along ``dim`` (``torch.nn.Softmax``); ``dim=None`` uses PyTorch's implicit,
    deprecated choice with a warning."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """Log-softmax along ``dim`` (``torch.nn.LogSoftmax``)."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.log_softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


def _inplace_repr(inplace):
    return "inplace=True" if inplace else ""


class GELU(Module):
    """GELU (``torch.nn.GELU``): ``x * Phi(x)``, or its tanh approximation for
    ``approximate="tanh"``. Shape kept."""

    def __init__(self, approximate: str = "none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class SiLU(Module):
    """SiLU / swish, ``x * sigmoid(x)`` (``torch.nn.SiLU``); ``inplace`` overwrites the input."""

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.silu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class Mish(Module):
    """Mish, ``x * tanh(softplus(x))`` (``torch.nn.Mish``)."""

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.mish(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class Softplus(Module):
    """``log(1 + exp(beta * x)) / beta``, linear above ``threshold`` (``torch.nn.Softplus``)."""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class LeakyReLU(Module):
    """``x if x > 0 else negative_slope * x`` (``torch.nn.LeakyReLU``)."""

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"negative_slope={self.negative_slope}{inplace}"


class ELU(Module):
    """ELU, ``x if x > 0 else alpha * (exp(x) - 1)`` (``torch.nn.ELU``)."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"alpha={self.alpha}{inplace}"


class SELU(Module):
    """SELU with PyTorch's constants (``torch.nn.SELU``)."""

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.selu(input, self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class Hardtanh(Module):
    """``clamp(x, min_val, max_val)`` (``torch.nn.Hardtanh``); the deprecated ``min_value`` /
    ``max_value`` keywords are accepted with PyTorch's warning.

    Raises:
        AssertionError: ``max_val <= min_val`` (as PyTorch's ``assert``).
    """

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False,
                 min_value=None, max_value=None):
        super().__init__()
        if min_value is not None:
            warnings.warn("keyword argument `min_value` is deprecated and rename to `min_val`",
                          FutureWarning, stacklevel=2)
            min_val = min_value
        if max_value is not None:
            warnings.warn("keyword argument `max_value` is deprecated and rename to `max_val`",
                          FutureWarning, stacklevel=2)
            max_val = max_value
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        assert self.max_val > self.min_val

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"min_val={self.min_val}, max_val={self.max_val}{inplace}"


class ReLU6(Hardtanh):
    """``min(max(x, 0), 6)`` (``torch.nn.ReLU6``, a ``Hardtanh(0, 6)``)."""

    def __init__(self, inplace: bool = False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class Hardswish(Module):
    """``x * relu6(x + 3) / 6`` (``torch.nn.Hardswish``); ``repr`` shows no arguments, as
    PyTorch's."""

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.hardswish(input, self.inplace)


class Hardsigmoid(Module):
    """``relu6(x + 3) / 6`` (``torch.nn.Hardsigmoid``); ``repr`` shows no arguments."""

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.hardsigmoid(input, self.inplace)


class LogSigmoid(Module):
    """``log(sigmoid(x))`` (``torch.nn.LogSigmoid``)."""

    def forward(self, input):
        return F.logsigmoid(input)


class GLU(Module):
    """Gated linear unit ``a * sigmoid(b)`` over the halves of ``dim`` (``torch.nn.GLU``)."""

    def __init__(self, dim: int = -1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


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
