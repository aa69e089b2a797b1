"""Layers: ``Linear``, ``Identity``, activations, ``Flatten`` (``torch.nn`` modules of the same
names, same constructor arguments, same ``repr``)."""
from __future__ import annotations

import math

from .._functional.factories import empty
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

__all__ = ["Linear", "Identity", "ReLU", "Tanh", "Sigmoid", "Softmax", "LogSoftmax", "Flatten"]


class Identity(Module):
    """Returns its input unchanged (``torch.nn.Identity``); any constructor arguments are
    ignored."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """``y = x @ weight.T + bias`` (``torch.nn.Linear``).

    Args:
        in_features: size of the last input dim.
        out_features: size of the last output dim.
        bias: learn an additive bias (default True).
        device: where the parameters live ("cpu", "cuda"...; default cpu).
        dtype: parameter dtype (default: the default float dtype).

    Shapes: input (*, in_features) -> output (*, out_features). weight (out_features,
    in_features) ~ U(-1/sqrt(in_features), 1/sqrt(in_features)) via
    ``kaiming_uniform_(a=sqrt(5))``; bias (out_features,) ~ the same bound (PyTorch's init,
    minigrad's random stream).
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None,
                 dtype=None):
        super().__init__()
        factory_kwargs = {"device": device, "dtype": dtype}
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in_features), **factory_kwargs))
        if bias:
            self.bias = Parameter(empty((out_features,), **factory_kwargs))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Re-draw weight and bias with PyTorch's default init."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


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


class Flatten(Module):
    """Flatten dims ``start_dim..end_dim`` into one (``torch.nn.Flatten``); shape (N, *) ->
    (N, prod(*)) by default."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"
