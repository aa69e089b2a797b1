"""Pooling layers (``torch.nn.modules.pooling``): ``MaxPool1d``, ``MaxPool2d``, ``AvgPool1d``,
``AvgPool2d``, ``AdaptiveAvgPool1d``, ``AdaptiveAvgPool2d``, ``AdaptiveMaxPool1d``,
``AdaptiveMaxPool2d``, ``MaxUnpool1d``, ``MaxUnpool2d``; PyTorch's constructor arguments, stored
attributes and ``extra_repr``. No parameters or buffers."""
from __future__ import annotations

from .. import functional as F
from ..module import Module

__all__ = ["MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d",
           "AdaptiveAvgPool2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d"]
__all__ += ["MaxUnpool1d", "MaxUnpool2d"]


class _MaxPoolNd(Module):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    """1-D max pooling (``torch.nn.MaxPool1d``): (N, C, L) or (C, L) -> (.., C, L_out); see
    ``F.max_pool1d``. Args: kernel_size, stride=None (the kernel), padding=0, dilation=1,
    return_indices=False, ceil_mode=False."""

    def forward(self, input):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool2d(_MaxPoolNd):
    """2-D max pooling (``torch.nn.MaxPool2d``): (N, C, H, W) or (C, H, W) -> (.., C, H_out,
    W_out); see ``F.max_pool2d``. Arguments as ``MaxPool1d``, sizes an int or a pair."""

    def forward(self, input):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


def _single(v):
    return tuple(v) if isinstance(v, (list, tuple)) else (v,)


class AvgPool1d(Module):
    """1-D average pooling (``torch.nn.AvgPool1d``): (N, C, L) or (C, L) -> (.., C, L_out).
    Args: kernel_size, stride=None (the kernel), padding=0, ceil_mode=False,
    count_include_pad=True (stored as 1-tuples, as PyTorch)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class AvgPool2d(Module):
    """2-D average pooling (``torch.nn.AvgPool2d``): (N, C, H, W) or (C, H, W) -> (.., C,
    H_out, W_out). Args: kernel_size, stride=None (the kernel), padding=0, ceil_mode=False,
    count_include_pad=True, divisor_override=None."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input):
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class _AdaptiveAvgPoolNd(Module):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Adaptive 1-D average pooling (``torch.nn.AdaptiveAvgPool1d``): (N, C, L) or (C, L) ->
    (.., C, output_size)."""

    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Adaptive 2-D average pooling (``torch.nn.AdaptiveAvgPool2d``): (N, C, H, W) or (C, H, W)
    -> (.., C, *output_size); ``None`` entries keep the input's size."""

    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)


class _AdaptiveMaxPoolNd(Module):
    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Adaptive 1-D max pooling (``torch.nn.AdaptiveMaxPool1d``); ``return_indices`` also
    gives the int64 positions."""

    def forward(self, input):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Adaptive 2-D max pooling (``torch.nn.AdaptiveMaxPool2d``): (N, C, H, W) or (C, H, W)
    -> (.., C, *output_size); ``return_indices`` also gives flat int64 positions."""

    def forward(self, input):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class _MaxUnpoolNd(Module):
    def __init__(self, kernel_size, stride=None, padding=0, n=2):
        super().__init__()
        tup = (lambda v: tuple(v) if isinstance(v, (list, tuple)) else (v,) * n)
        self.kernel_size = tup(kernel_size)
        self.stride = tup(stride if stride is not None else kernel_size)
        self.padding = tup(padding)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool1d`` (``torch.nn.MaxUnpool1d``): ``forward(input,
    indices, output_size=None)``, (N, C, L) or (C, L) -> (.., C, L_out); see
    ``F.max_unpool1d``. Args: kernel_size, stride=None (the kernel), padding=0 (stored as
    1-tuples, as PyTorch)."""

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__(kernel_size, stride, padding, n=1)

    def forward(self, input, indices, output_size=None):
        return F.max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)


class MaxUnpool2d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool2d`` (``torch.nn.MaxUnpool2d``): ``forward(input,
    indices, output_size=None)``, (N, C, H, W) or (C, H, W) -> (.., C, H_out, W_out); see
    ``F.max_unpool2d``. Args as ``MaxUnpool1d``, stored as pairs."""

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__(kernel_size, stride, padding, n=2)

    def forward(self, input, indices, output_size=None):
        return F.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)
