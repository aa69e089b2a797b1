"""Convolution layers (``torch.nn.modules.conv``): ``Conv1d``, ``Conv2d``, ``ConvTranspose1d``,
``ConvTranspose2d``, with PyTorch's constructor arguments, checks, parameter names and shapes,
default initialisation, ``padding_mode`` and ``extra_repr``.

Weights: (out_channels, in_channels / groups, *kernel_size), transposed (in_channels,
out_channels / groups, *kernel_size); ``kaiming_uniform_(a=sqrt(5))``, bias ~ U(-1/sqrt(fan_in),
1/sqrt(fan_in)) (minigrad's random stream).
"""
from __future__ import annotations

import math

from ..._functional.factories import empty
from .. import functional as F
from .. import init
from ..module import Module
from ..parameter import Parameter
from ...tensor import Size

__all__ = ["Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d"]

_PADDING_STRINGS = {"same", "valid"}
_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


def _ntuple(v, n):
    if isinstance(v, str):
        return v
    if isinstance(v, (list, tuple)):
        return tuple(v)
    return (v,) * n


class _ConvNd(Module):
    """What every convolution layer shares (``torch.nn.modules.conv._ConvNd``)."""

    _nd = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 transposed, output_padding, groups, bias, padding_mode, device=None,
                 dtype=None):
        super().__init__()
        factory_kwargs = {"device": device, "dtype": dtype}
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in _PADDING_STRINGS:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 f"{_PADDING_STRINGS}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {_PADDING_MODES}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.dilation, self.transposed = dilation, transposed
        self.output_padding, self.groups, self.padding_mode = output_padding, groups, padding_mode
        if isinstance(padding, str):
            pad = [0, 0] * len(kernel_size)
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(len(kernel_size) - 1, -1, -1)):
                    total = d * (k - 1)
                    left = total // 2
                    pad[2 * i], pad[2 * i + 1] = left, total - left
        else:
            pad = tuple(p for p in reversed(padding) for _ in range(2))
        self._reversed_padding_repeated_twice = pad
        shape = ((in_channels, out_channels // groups) if transposed else
                 (out_channels, in_channels // groups)) + tuple(kernel_size)
        self.weight = Parameter(empty(shape, **factory_kwargs))
        if bias:
            self.bias = Parameter(empty((out_channels,), **factory_kwargs))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Re-draw weight and bias with PyTorch's default init."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, " \
            f"stride={self.stride}"
        if self.padding != (0,) * len(self.padding):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class _Conv(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        n = self._nd
        super().__init__(in_channels, out_channels, _ntuple(kernel_size, n), _ntuple(stride, n),
                         padding if isinstance(padding, str) else _ntuple(padding, n),
                         _ntuple(dilation, n), False, _ntuple(0, n), groups, bias,
                         padding_mode, device=device, dtype=dtype)

    def _conv_forward(self, input, weight, bias):
        conv = F.conv1d if self._nd == 1 else F.conv2d
        if self.padding_mode != "zeros":
            return conv(F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode),
                        weight, bias, self.stride, _ntuple(0, self._nd), self.dilation,
                        self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    """1-D convolution layer (``torch.nn.Conv1d``): (N, C_in, L) or (C_in, L) -> (N, C_out,
    L_out).

    Args: in_channels, out_channels, kernel_size, stride=1, padding=0 (int, tuple, "valid" or
    "same"), dilation=1, groups=1, bias=True, padding_mode="zeros" ("reflect", "replicate",
    "circular" pad with ``F.pad`` first), device, dtype.

    Raises:
        ValueError: PyTorch's constructor checks (groups, channels, padding strings/modes).
    """

    _nd = 1


class Conv2d(_Conv):
    """2-D convolution layer (``torch.nn.Conv2d``): (N, C_in, H, W) or (C_in, H, W) ->
    (N, C_out, H_out, W_out). Arguments as ``Conv1d``, sizes an int or a pair.

    Raises:
        ValueError: PyTorch's constructor checks (groups, channels, padding strings/modes).
    """

    _nd = 2


class _ConvTransposeNd(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for '
                             f"{self.__class__.__name__}")
        n = self._nd
        super().__init__(in_channels, out_channels, _ntuple(kernel_size, n), _ntuple(stride, n),
                         _ntuple(padding, n), _ntuple(dilation, n), True,
                         _ntuple(output_padding, n), groups, bias, padding_mode, device=device,
                         dtype=dtype)

    def _output_padding(self, input, output_size):
        """PyTorch's ``_ConvTransposeNd._output_padding``: the output_padding that gives
        ``output_size``.

        Raises:
            ValueError: an output_size of the wrong length or out of the reachable range.
        """
        if output_size is None:
            return self.output_padding
        n = self._nd
        non_spatial = 2 if input.ndim == n + 2 else 1
        output_size = list(output_size)
        if len(output_size) == non_spatial + n:
            output_size = output_size[non_spatial:]
        if len(output_size) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.ndim}D input, output_size must "
                             f"have {n} or {non_spatial + n} elements (got {len(output_size)})")
        mins, maxs = [], []
        for d in range(n):
            size = ((input.shape[d + non_spatial] - 1) * self.stride[d] - 2 * self.padding[d] +
                    self.dilation[d] * (self.kernel_size[d] - 1) + 1)
            mins.append(size)
            maxs.append(size + self.stride[d] - 1)
        for i, size in enumerate(output_size):
            if size < mins[i] or size > maxs[i]:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes "
                                 f"range from {mins} to {maxs} (for an input of "
                                 f"{Size(input.shape[non_spatial:])!r})")
        return tuple(output_size[d] - mins[d] for d in range(n))

    def forward(self, input, output_size=None):
        op = self._output_padding(input, output_size)
        conv = F.conv_transpose1d if self._nd == 1 else F.conv_transpose2d
        return conv(input, self.weight, self.bias, self.stride, self.padding, op, self.groups,
                    self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """1-D transposed convolution layer (``torch.nn.ConvTranspose1d``): (N, C_in, L) ->
    (N, C_out, L_out), L_out = (L-1)s - 2p + d(k-1) + output_padding + 1; ``forward(input,
    output_size=None)`` picks the output_padding for a requested size.

    Args: in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
    groups=1, bias=True, dilation=1, padding_mode="zeros" (the only mode), device, dtype.
    """

    _nd = 1


class ConvTranspose2d(_ConvTransposeNd):
    """2-D transposed convolution layer (``torch.nn.ConvTranspose2d``): (N, C_in, H, W) ->
    (N, C_out, H_out, W_out); arguments as ``ConvTranspose1d``, sizes an int or a pair."""

    _nd = 2
