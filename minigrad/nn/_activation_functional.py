"""The activation functions of ``minigrad.nn.functional`` (``F.gelu``, ``F.silu``...), with
``torch.nn.functional``'s signatures; ``functional.py`` re-exports them. Each is one ``dispatch``
call of the op (``inplace=True``: its in-place ``*_`` op); the kernels are in
``minigrad/ops/smooth_activation.py`` and ``piecewise_activation.py``.
"""
from __future__ import annotations

from ..dispatch import dispatch

__all__ = ["gelu", "silu", "mish", "softplus", "leaky_relu", "leaky_relu_", "elu", "elu_",
           "selu", "hardtanh", "hardtanh_", "relu6", "hardswish", "hardsigmoid", "logsigmoid", "glu"]


def gelu(input, approximate: str = "none"):
    """GELU, ``x * Phi(x)`` (``F.gelu``); ``approximate="tanh"`` uses the tanh formula.

    Raises:
        RuntimeError: ``approximate`` not "none"/"tanh". NotImplementedError: integer input.
    """
    return dispatch("gelu", input, approximate=approximate)


def silu(input, inplace: bool = False):
    """SiLU / swish, ``x * sigmoid(x)`` (``F.silu``); ``inplace=True`` uses ``silu_``."""
    return dispatch("silu_" if inplace else "silu", input)


def mish(input, inplace: bool = False):
    """Mish, ``x * tanh(softplus(x))`` (``F.mish``); ``inplace=True`` uses ``mish_``."""
    return dispatch("mish_" if inplace else "mish", input)


def softplus(input, beta: float = 1.0, threshold: float = 20.0):
    """``log(1 + exp(beta * x)) / beta``, linear where ``beta * x > threshold``
    (``F.softplus``)."""
    return dispatch("softplus", input, beta, threshold)


def leaky_relu(input, negative_slope: float = 0.01, inplace: bool = False):
    """``x if x > 0 else negative_slope * x`` (``F.leaky_relu``); ``inplace=True`` uses
    ``leaky_relu_`` (whose backward raises for a negative slope, as PyTorch's)."""
    if inplace:
        return dispatch("leaky_relu_", input, negative_slope)
    return dispatch("leaky_relu", input, negative_slope)


def leaky_relu_(input, negative_slope: float = 0.01):
    """In-place ``leaky_relu`` (``F.leaky_relu_``)."""
    return dispatch("leaky_relu_", input, negative_slope)


def elu(input, alpha: float = 1.0, inplace: bool = False):
    """ELU, ``x if x > 0 else alpha * (exp(x) - 1)`` (``F.elu``); ``inplace=True`` uses
    ``elu_`` (node ``EluBackward1``)."""
    return dispatch("elu_" if inplace else "elu", input, alpha)


def elu_(input, alpha: float = 1.0):
    """In-place ``elu`` (``F.elu_``)."""
    return dispatch("elu_", input, alpha)


def selu(input, inplace: bool = False):
    """SELU, ``scale * elu(x, alpha)`` with PyTorch's constants (``F.selu``)."""
    return dispatch("selu_" if inplace else "selu", input)


def hardtanh(input, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False):
    """``clamp(x, min_val, max_val)`` (``F.hardtanh``).

    Raises:
        ValueError: ``min_val > max_val`` ("min_val cannot be greater than max_val").
    """
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return dispatch("hardtanh_" if inplace else "hardtanh", input, min_val, max_val)


def hardtanh_(input, min_val: float = -1.0, max_val: float = 1.0):
    """In-place ``hardtanh`` (``F.hardtanh_``)."""
    return dispatch("hardtanh_", input, min_val, max_val)


def relu6(input, inplace: bool = False):
    """``min(max(x, 0), 6)`` (``F.relu6``; node ``HardtanhBackward0``)."""
    return dispatch("relu6_" if inplace else "relu6", input)


def hardswish(input, inplace: bool = False):
    """``x * relu6(x + 3) / 6`` (``F.hardswish``)."""
    return dispatch("hardswish_" if inplace else "hardswish", input)


def hardsigmoid(input, inplace: bool = False):
    """``relu6(x + 3) / 6`` (``F.hardsigmoid``)."""
    return dispatch("hardsigmoid_" if inplace else "hardsigmoid", input)


def logsigmoid(input):
    """``log(sigmoid(x))``, computed stably (``F.logsigmoid``; node ``LogSigmoidBackward0``)."""
    return dispatch("log_sigmoid", input)


def glu(input, dim: int = -1):
    """Gated linear unit ``a * sigmoid(b)`` of the two halves of ``input`` along ``dim``
    (``F.glu``; the ``glu`` op in ``minigrad/ops/glu.py``).

    Raises:
        RuntimeError: "glu does not support scalars because halving size must be even", an odd
            ``dim`` size.
    """
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    return dispatch("glu", input, dim)
