"""Parameter initialisation in place (``torch.nn.init``).

Each function fills ``tensor`` in place under ``no_grad`` and returns it. Samples come from
minigrad's generator (``minigrad.random``; a ``generator=`` may be given): they are drawn in
float64 NumPy arrays owned here, then written with the dispatched ``copy_`` op (which rounds once
into the tensor's dtype). Deliberate difference: the random stream is not PyTorch's, so the same
seed gives other numbers; the distributions, bounds and gains are PyTorch's.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from .. import dtypes as _dt
from ..autograd.grad_mode import no_grad
from ..dispatch import dispatch
from ..random import _gen
from ..tensor import Tensor

__all__ = ["calculate_gain", "uniform_", "normal_", "constant_", "ones_", "zeros_",
           "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_"]

_LINEAR_FNS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
               "conv_transpose3d")


def calculate_gain(nonlinearity, param=None) -> float:
    """The recommended gain for a nonlinearity (``torch.nn.init.calculate_gain``): 1 for linear
    and sigmoid, 5/3 for tanh, sqrt(2) for relu, sqrt(2/(1+slope^2)) for leaky_relu (slope 0.01
    by default), 3/4 for selu.

    Raises:
        ValueError: an unknown nonlinearity or a non-numeric leaky_relu slope.
    """
    if nonlinearity in _LINEAR_FNS or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _check(tensor, fn):
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{fn}(): argument 'tensor' must be Tensor, not {type(tensor).__name__}")


def _write(tensor, arr):
    """Copy the float64 array ``arr`` (owned here) into ``tensor`` with the ``copy_`` op."""
    with no_grad():
        dispatch("copy_", tensor, Tensor._make(arr, _dt.float64))
    return tensor


def uniform_(tensor, a: float = 0.0, b: float = 1.0, generator=None):
    """Fill ``tensor`` with samples of U(a, b) (``torch.nn.init.uniform_``); returns it.

    Raises:
        TypeError: ``tensor`` is not a Tensor.
    """
    _check(tensor, "uniform_")
    arr = _gen(generator).uniform(float(a), float(b), tuple(tensor.shape))
    return _write(tensor, np.asarray(arr, dtype=np.float64))


def normal_(tensor, mean: float = 0.0, std: float = 1.0, generator=None):
    """Fill ``tensor`` with samples of N(mean, std^2) (``torch.nn.init.normal_``); returns it.

    Raises:
        TypeError: ``tensor`` is not a Tensor. RuntimeError: ``std < 0``.
    """
    _check(tensor, "normal_")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    arr = _gen(generator).normal(float(mean), float(std), tuple(tensor.shape))
    return _write(tensor, np.asarray(arr, dtype=np.float64))


def constant_(tensor, val: float):
    """Fill ``tensor`` with ``val`` (``torch.nn.init.constant_``); returns it."""
    _check(tensor, "constant_")
    with no_grad():
        dispatch("fill_", tensor, val)
    return tensor


def ones_(tensor):
    """Fill ``tensor`` with ones (``torch.nn.init.ones_``); returns it."""
    return constant_(tensor, 1.0)


def zeros_(tensor):
    """Fill ``tensor`` with zeros (``torch.nn.init.zeros_``); returns it."""
    return constant_(tensor, 0.0)


def _calculate_fan_in_and_fan_out(tensor):
    """``(fan_in, fan_out)`` of a weight of shape (out, in, *receptive) (PyTorch's helper).

    Raises:
        ValueError: fewer than 2 dims.
    """
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    shape = tuple(tensor.shape)
    receptive = 1
    for s in shape[2:]:
        receptive *= s
    return shape[1] * receptive, shape[0] * receptive


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    valid = ["fan_in", "fan_out"]
    if mode not in valid:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _zero_element(tensor):
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op")
        return True
    return False


def xavier_uniform_(tensor, gain: float = 1.0, generator=None):
    """U(-a, a) with a = gain*sqrt(6/(fan_in+fan_out)) (``torch.nn.init.xavier_uniform_``).

    Raises:
        ValueError: fewer than 2 dims.
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain: float = 1.0, generator=None):
    """N(0, std^2) with std = gain*sqrt(2/(fan_in+fan_out)) (``torch.nn.init.xavier_normal_``).

    Raises:
        ValueError: fewer than 2 dims.
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor, a: float = 0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu", generator=None):
    """U(-bound, bound), bound = gain*sqrt(3/fan) (``torch.nn.init.kaiming_uniform_``); with
    ``a=sqrt(5)`` (``Linear``'s default) bound = 1/sqrt(fan_in). A zero-element tensor is left
    as it is with a warning.

    Raises:
        ValueError: fewer than 2 dims, an unknown mode or nonlinearity.
    """
    if _zero_element(tensor):
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a: float = 0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu", generator=None):
    """N(0, std^2), std = gain/sqrt(fan) (``torch.nn.init.kaiming_normal_``).

    Raises:
        ValueError: fewer than 2 dims, an unknown mode or nonlinearity.
    """
    if _zero_element(tensor):
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return normal_(tensor, 0.0, std, generator)
