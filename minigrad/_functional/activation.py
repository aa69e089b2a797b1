"""The activations PyTorch also has at torch level: ``torch.celu``, ``torch.prelu``,
``torch.rrelu``, ``torch.hardshrink``, ``torch.threshold``, ``torch.relu_`` and the in-place
``celu_``, ``rrelu_``, ``threshold_``. Each is the ``F`` function of the same name
(``minigrad/nn/_activation_functional.py``), one dispatched op.
"""
from __future__ import annotations

from ..dispatch import dispatch

__all__ = ["celu", "celu_", "prelu", "rrelu", "rrelu_", "hardshrink", "threshold", "threshold_",
           "relu_"]


def celu(input, alpha=1.0):
    """``torch.celu``: ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))`` (node
    ``CeluBackward0``).

    Raises:
        RuntimeError: ``alpha == 0``. NotImplementedError: integer input.
    """
    return dispatch("celu", input, alpha)


def celu_(input, alpha=1.0):
    """``torch.celu_``: in-place ``celu`` (node ``CeluBackward1``)."""
    return dispatch("celu_", input, alpha)


def prelu(input, weight):
    """``torch.prelu``: ``x if x > 0 else weight * x``, one weight or one per channel.

    Raises:
        RuntimeError: PyTorch's weight/channel/dtype messages (see ``F.prelu``).
    """
    return dispatch("prelu", input, weight)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """``torch.rrelu``: randomized leaky ReLU (see ``F.rrelu``).

    Raises:
        RuntimeError: ``lower > upper``.
    """
    return dispatch("rrelu", input, lower, upper, training, generator)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """``torch.rrelu_``: in-place ``rrelu`` (node ``RreluWithNoiseBackward1``)."""
    return dispatch("rrelu_", input, lower, upper, training, generator)


def hardshrink(input, lambd=0.5):
    """``torch.hardshrink``: 0 where ``|x| <= lambd``, else ``x``.

    Raises:
        NotImplementedError: integer input.
    """
    return dispatch("hardshrink", input, lambd)


def threshold(input, threshold, value):
    """``torch.threshold``: ``value`` where ``x <= threshold``, else ``x`` (dtype kept).

    Raises:
        NotImplementedError: bool input. RuntimeError: a number out of the dtype's range.
    """
    return dispatch("threshold", input, threshold, value)


def threshold_(input, threshold, value):
    """``torch.threshold_``: in-place ``threshold`` (node ``ThresholdBackward1``)."""
    return dispatch("threshold_", input, threshold, value)


def relu_(input):
    """``torch.relu_``: in-place ``relu``."""
    return dispatch("relu_", input)
