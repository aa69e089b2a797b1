"""Normalization layers over features (``torch.nn.modules.normalization``): ``LayerNorm``,
``RMSNorm``, ``GroupNorm`` and ``LocalResponseNorm``, with PyTorch's constructor arguments,
parameter names, initialisation (weight ones, bias zeros) and ``repr``."""
from __future__ import annotations

import numbers

from ..._functional.factories import empty
from .. import functional as F
from .. import init
from ..module import Module
from ..parameter import Parameter

__all__ = ["LayerNorm", "RMSNorm", "GroupNorm", "LocalResponseNorm"]


def _shape(normalized_shape):
    if isinstance(normalized_shape, numbers.Integral):
        return (int(normalized_shape),)
    return tuple(normalized_shape)


def affine_parameters(module, shape, affine, bias, factory_kwargs):
    """Give ``module`` PyTorch's ``weight`` and ``bias`` Parameters of ``shape`` (uninitialised:
    see ``reset_affine``), registered as None when ``affine`` (or ``bias``) is False."""
    if affine:
        module.weight = Parameter(empty(shape, **factory_kwargs))
        if bias:
            module.bias = Parameter(empty(shape, **factory_kwargs))
        else:
            module.register_parameter("bias", None)
    else:
        module.register_parameter("weight", None)
        module.register_parameter("bias", None)


def reset_affine(module):
    """PyTorch's init of a normalization layer's affine parameters: weight ones, bias zeros."""
    if module.weight is not None:
        init.ones_(module.weight)
    if getattr(module, "bias", None) is not None:
        init.zeros_(module.bias)


class LayerNorm(Module):
    """Layer normalization over the trailing ``normalized_shape`` dims (``torch.nn.LayerNorm``).

    Args:
        normalized_shape: int or sequence, the trailing dims to normalise.
        eps: added to the variance (default 1e-5).
        elementwise_affine: learn ``weight`` (ones) and, with ``bias=True``, ``bias`` (zeros),
            both of shape ``normalized_shape``.
        bias: learn the additive bias (default True).
        device, dtype: of the parameters.

    Shapes: input ``(*, *normalized_shape)`` -> output of the same shape.
    """

    def __init__(self, normalized_shape, eps: float = 1e-5, elementwise_affine: bool = True,
                 bias: bool = True, device=None, dtype=None):
        super().__init__()
        factory_kwargs = {"device": device, "dtype": dtype}
        self.normalized_shape = _shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        affine_parameters(self, self.normalized_shape, elementwise_affine, bias, factory_kwargs)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Weight to ones, bias to zeros (PyTorch's init)."""
        reset_affine(self)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class RMSNorm(Module):
    """Root-mean-square normalization over the trailing dims (``torch.nn.RMSNorm``).

    Args:
        normalized_shape: int or sequence, the trailing dims to normalise.
        eps: added to the mean square; None (default) is ``finfo(input's opmath dtype).eps``.
        elementwise_affine: learn ``weight`` (ones) of shape ``normalized_shape``.
        device, dtype: of the parameter.
    """

    def __init__(self, normalized_shape, eps=None, elementwise_affine: bool = True,
                 device=None, dtype=None):
        super().__init__()
        factory_kwargs = {"device": device, "dtype": dtype}
        self.normalized_shape = _shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(empty(self.normalized_shape, **factory_kwargs))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Weight to ones."""
        reset_affine(self)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


class GroupNorm(Module):
    """Group normalization (``torch.nn.GroupNorm``): ``num_channels`` split into
    ``num_groups`` groups normalised per sample, then a per-channel affine.

    Args:
        num_groups: number of groups; must divide ``num_channels``.
        num_channels: ``C`` of the ``(N, C, *)`` input.
        eps: added to the variance (default 1e-5).
        affine: learn ``weight`` (ones) and, with ``bias=True``, ``bias`` (zeros), of shape (C,).
        device, dtype: of the parameters.

    Raises:
        ValueError: ``num_channels`` not divisible by ``num_groups``.
    """

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5,
                 affine: bool = True, device=None, dtype=None, *, bias: bool = True):
        super().__init__()
        factory_kwargs = {"device": device, "dtype": dtype}
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        affine_parameters(self, (num_channels,), affine, bias, factory_kwargs)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Weight to ones, bias to zeros."""
        reset_affine(self)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class LocalResponseNorm(Module):
    """Local response normalization across channels (``torch.nn.LocalResponseNorm``); see
    ``F.local_response_norm``. No parameters."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
