"""Linear layers: ``Identity``, ``Linear`` and ``Bilinear`` (``torch.nn.modules.linear``: same constructor
arguments, parameter names, default initialisation and ``repr``)."""
from __future__ import annotations

import math

from ..._functional.factories import empty
from .. import functional as F
from .. import init
from ..module import Module
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin

__all__ = ["Identity", "Linear", "LazyLinear", "Bilinear", "NonDynamicallyQuantizableLinear"]


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


class LazyLinear(LazyModuleMixin, Linear):
    """A ``Linear`` whose ``in_features`` is inferred from the first input's last dim
    (``torch.nn.LazyLinear``): ``weight`` and ``bias`` are ``UninitializedParameter``s until
    the first call, which materializes them as ``(out_features, in_features)`` and
    ``(out_features,)``, draws them with ``Linear``'s init (the same numbers as a ``Linear``
    built at that moment, after the same seed), and turns the module into a ``Linear``.

    Args:
        out_features: size of the last output dim.
        bias: learn an additive bias (default True).
        device, dtype: of the parameters.

    Shapes: input (*, in_features) -> output (*, out_features); ``in_features`` is 0 until
    the first call.
    """

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__(0, 0, False)      # no bias tensor that would be thrown away
        self.weight = UninitializedParameter(**factory_kwargs)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(**factory_kwargs)

    def reset_parameters(self) -> None:
        """``Linear``'s init, once the parameters have their shapes."""
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        """Materialize weight and bias for ``in_features = input.shape[-1]`` and draw them."""
        if self.has_uninitialized_params():
            from ...autograd.grad_mode import no_grad
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()


class Bilinear(Module):
    """``y = x1^T A x2 + b`` (``torch.nn.Bilinear``).

    Args:
        in1_features, in2_features: sizes of the last dims of the two inputs.
        out_features: size of the last output dim.
        bias: learn an additive bias (default True).
        device, dtype: of the parameters.

    Shapes: input1 (*, in1), input2 (*, in2) -> (*, out). weight (out, in1, in2) and bias
    (out,) ~ U(-1/sqrt(in1), 1/sqrt(in1)) (PyTorch's init, minigrad's random stream).
    """

    def __init__(self, in1_features: int, in2_features: int, out_features: int,
                 bias: bool = True, device=None, dtype=None):
        super().__init__()
        factory_kwargs = {"device": device, "dtype": dtype}
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in1_features, in2_features),
                                      **factory_kwargs))
        if bias:
            self.bias = Parameter(empty((out_features,), **factory_kwargs))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Re-draw weight and bias from U(-1/sqrt(in1_features), 1/sqrt(in1_features))."""
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class NonDynamicallyQuantizableLinear(Linear):
    """A ``Linear`` under PyTorch's name for ``MultiheadAttention.out_proj``
    (``torch.nn.modules.linear.NonDynamicallyQuantizableLinear``), so checkpoints and reprs
    name the same class; it behaves exactly as ``Linear``."""
