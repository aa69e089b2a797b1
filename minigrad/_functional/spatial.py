"""Torch-level functions on spatial (N, C, *S) tensors: ``torch.conv1d``, ``torch.conv2d``,
``torch.conv_transpose1d``, ``torch.conv_transpose2d``, ``torch.max_pool1d``,
``torch.max_pool2d``, ``torch.avg_pool1d``, ``torch.adaptive_avg_pool1d``,
``torch.adaptive_max_pool1d``, ``torch.pixel_shuffle``, ``torch.pixel_unshuffle``: one
``dispatch`` of the aten op of each name (the ``F.*`` versions, with their docstrings, are in
``minigrad.nn._conv_functional`` / ``_pooling_functional`` / ``_sampling_functional``).
"""
from __future__ import annotations

from ..dispatch import dispatch

__all__ = ["conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d", "max_pool1d",
           "max_pool2d", "avg_pool1d", "adaptive_avg_pool1d", "adaptive_max_pool1d",
           "pixel_shuffle", "pixel_unshuffle"]


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """``torch.conv1d``: see ``F.conv1d``."""
    return dispatch("conv1d", input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """``torch.conv2d``: see ``F.conv2d``."""
    return dispatch("conv2d", input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """``torch.conv_transpose1d``: see ``F.conv_transpose1d``."""
    return dispatch("conv_transpose1d", input, weight, bias, stride, padding, output_padding,
                    groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """``torch.conv_transpose2d``: see ``F.conv_transpose2d``."""
    return dispatch("conv_transpose2d.input", input, weight, bias, stride, padding,
                    output_padding, groups, dilation)


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``torch.max_pool1d`` (values only): see ``F.max_pool1d``."""
    return dispatch("max_pool1d", input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``torch.max_pool2d`` (values only): see ``F.max_pool2d``."""
    return dispatch("max_pool2d", input, kernel_size, stride, padding, dilation, ceil_mode)


def avg_pool1d(input, kernel_size, stride=(), padding=0, ceil_mode=False,
               count_include_pad=True):
    """``torch.avg_pool1d``: see ``F.avg_pool1d``."""
    return dispatch("avg_pool1d", input, kernel_size, stride, padding, ceil_mode,
                    count_include_pad)


def adaptive_avg_pool1d(input, output_size):
    """``torch.adaptive_avg_pool1d``: see ``F.adaptive_avg_pool1d``."""
    return dispatch("adaptive_avg_pool1d", input, output_size)


def adaptive_max_pool1d(input, output_size):
    """``torch.adaptive_max_pool1d`` -> ``(values, indices)``: see ``F.adaptive_max_pool1d``."""
    return dispatch("adaptive_max_pool1d", input, output_size)


def pixel_shuffle(input, upscale_factor):
    """``torch.pixel_shuffle``: see ``F.pixel_shuffle``."""
    return dispatch("pixel_shuffle", input, upscale_factor)


def pixel_unshuffle(input, downscale_factor):
    """``torch.pixel_unshuffle``: see ``F.pixel_unshuffle``."""
    return dispatch("pixel_unshuffle", input, downscale_factor)
