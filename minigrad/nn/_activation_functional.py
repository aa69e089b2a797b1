"""The activation functions of ``minigrad.nn.functional`` (``F.gelu``, ``F.silu``...), with
``torch.nn.functional``'s signatures; ``functional.py`` re-exports them. Each is one ``dispatch``
call of the op (``inplace=True``: its in-place ``*_`` op); the kernels are in
``minigrad/ops/smooth_activation.py``, ``piecewise_activation.py``, ``shrink.py`` and
``slope_relu.py``. ``softsign``, ``tanhshrink`` and ``softmin`` are PyTorch's Python composites
(nodes ``DivBackward0``, ``SubBackward0``, ``SoftmaxBackward0``), and so is ``gumbel_softmax``.
"""
from __future__ import annotations

from ..dispatch import dispatch

__all__ = ["gelu", "silu", "mish", "softplus", "leaky_relu", "leaky_relu_", "elu", "elu_",
           "selu", "selu_", "celu", "celu_", "hardtanh", "hardtanh_", "relu6", "hardswish",
           "hardsigmoid", "logsigmoid", "glu", "relu_", "threshold", "threshold_", "hardshrink",
           "softshrink", "softsign", "tanhshrink", "prelu", "rrelu", "rrelu_", "softmin",
           "gumbel_softmax"]


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


def selu_(input):
    """In-place ``selu`` (``F.selu_``; node ``EluBackward1``)."""
    return dispatch("selu_", input)


def celu(input, alpha: float = 1.0, inplace: bool = False):
    """CELU, ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))`` (``F.celu``; node
    ``CeluBackward0``, in place ``CeluBackward1``).

    Raises:
        RuntimeError: ``alpha == 0`` ("ZeroDivisionError: alpha cannot be 0 for CELU").
    """
    return dispatch("celu_" if inplace else "celu", input, alpha)


def celu_(input, alpha: float = 1.0):
    """In-place ``celu`` (``F.celu_``)."""
    return dispatch("celu_", input, alpha)


def relu_(input):
    """In-place ``relu`` (``F.relu_``)."""
    return dispatch("relu_", input)


def threshold(input, threshold: float, value: float, inplace: bool = False):
    """``value`` where ``input <= threshold``, else ``input`` (``F.threshold``; dtype kept,
    integers too; node ``ThresholdBackward0``, in place ``ThresholdBackward1``).

    Raises:
        NotImplementedError: bool input.
    """
    return dispatch("threshold_" if inplace else "threshold", input, threshold, value)


def threshold_(input, threshold: float, value: float):
    """In-place ``threshold`` (``F.threshold_``)."""
    return dispatch("threshold_", input, threshold, value)


def hardshrink(input, lambd: float = 0.5):
    """0 where ``|x| <= lambd``, else ``x`` (``F.hardshrink``; node ``HardshrinkBackward0``).

    Raises:
        NotImplementedError: integer or bool input.
    """
    return dispatch("hardshrink", input, lambd)


def softshrink(input, lambd: float = 0.5):
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0
    (``F.softshrink``; node ``SoftshrinkBackward0``).

    Raises:
        RuntimeError: a negative ``lambd`` (PyTorch's "lambda must be in range ...").
        NotImplementedError: integer or bool input.
    """
    return dispatch("softshrink", input, lambd)


def softsign(input):
    """``x / (1 + |x|)`` (``F.softsign``, PyTorch's composite: ``input / (input.abs() + 1)``)."""
    return dispatch("div", input, dispatch("add", dispatch("abs", input), 1))


def tanhshrink(input):
    """``x - tanh(x)`` (``F.tanhshrink``, PyTorch's composite)."""
    return dispatch("sub", input, dispatch("tanh", input))


def prelu(input, weight):
    """``x if x > 0 else weight * x`` with one weight or one per channel (dim 1)
    (``F.prelu``; node ``PreluKernelBackward0``).

    Raises:
        RuntimeError: dtype mismatch, a zero-dim input with several weights, a weight count
            that is not the channel count, a weight of more than one dimension (PyTorch's
            messages).
    """
    return dispatch("prelu", input, weight)


def rrelu(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False):
    """Randomized leaky ReLU (``F.rrelu``): in training each negative element gets a slope
    drawn from ``U(lower, upper)``; in eval the slope is ``(lower + upper) / 2``. Node
    ``RreluWithNoiseBackward0``. The slopes are ATen's draws (PyTorch's after the same seed;
    fp32 results within 2 ulp).

    Raises:
        RuntimeError: "Lower bound should be less than or equal to the upper bound".
    """
    return dispatch("rrelu_" if inplace else "rrelu", input, lower, upper, training)


def rrelu_(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False):
    """In-place ``rrelu`` (``F.rrelu_``)."""
    return dispatch("rrelu_", input, lower, upper, training)


def softmin(input, dim=None, _stacklevel: int = 3, dtype=None):
    """``softmax(-input, dim)`` (``F.softmin``); ``dim=None`` picks PyTorch's implicit dim with
    its deprecation warning; ``dtype`` casts first."""
    if dim is None:
        from .functional import _get_softmax_dim
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    return dispatch("softmax", dispatch("neg", input), dim, dtype=dtype)


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


def gumbel_softmax(logits, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1):
    """A sample from the Gumbel-softmax (concrete) distribution (``F.gumbel_softmax``):
    ``softmax((logits + g) / tau)`` with ``g = -log(Exp(1))`` noise drawn by ``exponential_``
    (the same draws as PyTorch from the same seed). With ``hard``, the one-hot of the argmax
    in the forward pass, with the soft sample's gradient (straight-through:
    ``y_hard - y_soft.detach() + y_soft``). ``eps`` is unused, as in PyTorch.
    """
    gumbels = -dispatch("empty_like", logits).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = dispatch("zeros_like", logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
