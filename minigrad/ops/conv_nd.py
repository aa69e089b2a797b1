"""``conv1d``, ``conv2d``, ``conv_transpose1d``, ``conv_transpose2d``: the aten composites that
resolve the Python-level conveniences (unbatched inputs, ``padding="same"``/``"valid"``) and
reach the one ``convolution`` op (``minigrad/ops/conv.py``).

They are ops of their own (not just functions) because autocast lists them by these names
(``conv2d`` is lower-precision on CPU, ``convolution`` is not), as PyTorch's autocast sees them.
"""
from __future__ import annotations

import warnings

from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from .conv import _ints


def _batched(input, nd, name):
    """PyTorch's ``batchify``: (C, *S) gets a batch dim of 1; returns (input, was_unbatched).

    Raises:
        RuntimeError: "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input
            of size: [4, 6]".
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to "
                           f"{name}, but got input of size: {list(input.shape)}")
    if input.ndim == nd + 1:
        return dispatch("unsqueeze", input, 0), True
    return input, False


def _conv(input, weight, bias, stride, padding, dilation, groups, nd, name):
    x, unbatched = _batched(input, nd, name)
    stride, dilation = _ints(stride, nd, "stride"), _ints(dilation, nd, "dilation")
    if isinstance(padding, str):
        x, padding = _string_padding(x, weight, padding, stride, dilation, nd)
    out = dispatch("convolution", x, weight, bias, stride, padding, dilation, False, (0,) * nd,
                   groups)
    return dispatch("squeeze", out, 0) if unbatched else out


def _string_padding(x, weight, padding, stride, dilation, nd):
    """``"valid"`` is no padding; ``"same"`` pads d*(k-1) in total per dim, the odd one on the
    right by an explicit ``constant_pad_nd`` (PyTorch's ``_convolution_mode``).

    Raises:
        RuntimeError: "Invalid padding string: 'foo'", "padding='same' is not supported for
            strided convolutions".
    """
    if padding == "valid":
        return x, (0,) * nd
    if padding != "same":
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    total = [dilation[i] * (weight.shape[2 + i] - 1) for i in range(nd)]
    sym = tuple(t // 2 for t in total)
    if any(t % 2 for t in total):
        warnings.warn("Using padding='same' with even kernel lengths and odd dilation may require "
                      "a zero-padded copy of the input be created")
        pad = []
        for i in reversed(range(nd)):     # constant_pad_nd lists the last dim first
            pad += [0, total[i] - 2 * sym[i]]
        x = dispatch("constant_pad_nd", x, pad)
    return x, sym


def _conv_t(input, weight, bias, stride, padding, output_padding, groups, dilation, nd, name):
    if isinstance(padding, str):
        raise TypeError(f"{name}(): argument 'padding' must be tuple of ints, not str")
    x, unbatched = _batched(input, nd, name)
    out = dispatch("convolution", x, weight, bias, _ints(stride, nd, "stride"),
                   _ints(padding, nd, "padding"), _ints(dilation, nd, "dilation"), True,
                   _ints(output_padding, nd, "output_padding"), groups)
    return dispatch("squeeze", out, 0) if unbatched else out


@register_op("conv1d")
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """``conv1d``: input (N, Cin, L) or (Cin, L), weight (Cout, Cin/groups, k) -> (N, Cout, L');
    ``padding`` an int, a 1-tuple, ``"valid"`` or ``"same"`` (stride 1 only)."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


@register_op("conv2d")
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """``conv2d``: input (N, Cin, H, W) or (Cin, H, W), weight (Cout, Cin/groups, kh, kw) ->
    (N, Cout, H', W'); ``padding`` an int, a pair, ``"valid"`` or ``"same"`` (stride 1 only)."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


@register_op("conv_transpose1d")
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """``conv_transpose1d``: input (N, Cin, L), weight (Cin, Cout/groups, k) -> (N, Cout, L')
    with L' = (L-1)s - 2p + d(k-1) + output_padding + 1."""
    return _conv_t(input, weight, bias, stride, padding, output_padding, groups, dilation, 1,
                   "conv_transpose1d")


@register_op("conv_transpose2d.input")
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """``conv_transpose2d`` (aten overload ``conv_transpose2d.input``): input (N, Cin, H, W),
    weight (Cin, Cout/groups, kh, kw) -> (N, Cout, H', W')."""
    return _conv_t(input, weight, bias, stride, padding, output_padding, groups, dilation, 2,
                   "conv_transpose2d")
