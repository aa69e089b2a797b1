"""Activation modules: ``ReLU``, ``Tanh``, ``Sigmoid``, ``Softmax``, ``LogSoftmax``, ``GELU``,
``SiLU``, ``Mish``, ``Softplus``, ``LeakyReLU``, ``ELU``, ``SELU``, ``Hardtanh``, ``ReLU6``,
``Hardswish``, ``Hardsigmoid``, ``LogSigmoid`` (``torch.nn.modules.activation``: same
constructor arguments, attributes and ``repr``). Each ``forward`` is the ``F`` function of the
same name (``minigrad/nn/_activation_functional.py`` for the ones of issue 7).
"""
from __future__ import annotations

import warnings

from .. import functional as F
from ..module import Module

__all__ = ["ReLU", "Tanh", "Sigmoid", "Softmax", "LogSoftmax", "GELU", "SiLU", "Mish",
           "Softplus", "LeakyReLU", "ELU", "SELU", "Hardtanh", "ReLU6", "Hardswish",
           "Hardsigmoid", "LogSigmoid", "GLU"]


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
