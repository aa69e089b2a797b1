"""``F.conv1d``, ``F.conv2d``, ``F.conv_transpose1d``, ``F.conv_transpose2d``
(``torch.nn.functional``'s signatures; each one ``dispatch`` of the op of its name, which reaches
``convolution``)."""
from __future__ import annotations

from ..dispatch import dispatch

__all__ = ["conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d"]


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution (``F.conv1d``).

    Shapes: input (N, C_in, L) or unbatched (C_in, L); weight (C_out, C_in/groups, k); bias
    (C_out,) or None -> (N, C_out, L_out), L_out = (L + 2p - d(k-1) - 1) // s + 1. ``padding``:
    int, 1-tuple, ``"valid"`` or ``"same"`` (stride 1). Dtypes of input, weight and bias must
    match; fp16/bf16 accumulate in fp32 and round once.

    Raises:
        RuntimeError: PyTorch's shape, channel, groups, padding and dtype messages.
    """
    return dispatch("conv1d", input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution (``F.conv2d``).

    Shapes: input (N, C_in, H, W) or unbatched (C_in, H, W); weight (C_out, C_in/groups, kH, kW);
    bias (C_out,) or None -> (N, C_out, H_out, W_out). ``stride``/``padding``/``dilation``: int
    or pair; ``padding`` also ``"valid"`` or ``"same"`` (stride 1 only; an odd total padding puts
    the extra zero on the right/bottom, as PyTorch). fp16/bf16 accumulate in fp32, round once.

    Raises:
        RuntimeError: PyTorch's shape, channel, groups, padding and dtype messages (e.g.
            "Given groups=1, weight of size [3, 3, 3, 3], expected input[2, 4, 6, 6] to have 3
            channels, but got 4 channels instead").
    """
    return dispatch("conv2d", input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """1-D transposed convolution (``F.conv_transpose1d``), the adjoint of ``conv1d`` in its
    input.

    Shapes: input (N, C_in, L) or (C_in, L); weight (C_in, C_out/groups, k) -> (N, C_out,
    L_out), L_out = (L-1)s - 2p + d(k-1) + output_padding + 1.

    Raises:
        RuntimeError: PyTorch's messages (channels, output_padding not smaller than stride or
            dilation...). TypeError: a string ``padding``.
    """
    return dispatch("conv_transpose1d", input, weight, bias, stride, padding, output_padding,
                    groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """2-D transposed convolution (``F.conv_transpose2d``), the adjoint of ``conv2d`` in its
    input (the op ``conv_transpose2d.input``).

    Shapes: input (N, C_in, H, W) or (C_in, H, W); weight (C_in, C_out/groups, kH, kW) ->
    (N, C_out, H_out, W_out), H_out = (H-1)s - 2p + d(kH-1) + output_padding + 1.

    Raises:
        RuntimeError: PyTorch's messages. TypeError: a string ``padding``.
    """
    return dispatch("conv_transpose2d.input", input, weight, bias, stride, padding,
                    output_padding, groups, dilation)
