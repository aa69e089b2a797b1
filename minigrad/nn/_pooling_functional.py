"""Pooling in ``torch.nn.functional``: ``max_pool1d/2d`` (``return_indices``), ``avg_pool1d/2d``,
``adaptive_avg_pool1d/2d``, ``adaptive_max_pool1d/2d``; each a ``dispatch`` of the aten op of
its name (``max_pool2d`` without indices, ``max_pool2d_with_indices`` with them, as PyTorch).
``max_unpool1d/2d``: PyTorch's output-size rules around ``aten::max_unpool2d``.
"""
from __future__ import annotations

from ..dispatch import dispatch

__all__ = ["max_pool1d", "max_pool2d", "max_pool1d_with_indices", "max_pool2d_with_indices",
           "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
           "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool1d_with_indices",
           "adaptive_max_pool2d_with_indices"]
__all__ += ["max_unpool1d", "max_unpool2d"]


def _stride(stride):
    if stride is None:
        return ()
    if isinstance(stride, int) and stride == 0 or \
            not isinstance(stride, int) and any(s == 0 for s in stride):
        raise RuntimeError("stride should not be zero")
    return stride


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """``F.max_pool1d_with_indices``: ``(values, indices)`` of a 1-D max pool."""
    return dispatch("max_pool1d_with_indices", input, kernel_size, _stride(stride), padding,
                    dilation, ceil_mode)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """1-D max pooling (``F.max_pool1d``).

    Shapes: (N, C, L) or (C, L) -> (.., C, L_out), L_out = floor or ceil (``ceil_mode``) of
    (L + 2p - d(k-1) - 1) / s, + 1; ``stride`` defaults to ``kernel_size``. With
    ``return_indices`` also the int64 argmax positions in L. Exact in every dtype but bool.

    Raises:
        RuntimeError: wrong rank, padding over half the kernel, an empty output (PyTorch's
            messages).
    """
    if return_indices:
        return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return dispatch("max_pool1d", input, kernel_size, _stride(stride), padding, dilation,
                    ceil_mode)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """``F.max_pool2d_with_indices``: ``(values, indices)`` (``max_pool2d_with_indices``)."""
    return dispatch("max_pool2d_with_indices", input, kernel_size, _stride(stride), padding,
                    dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """2-D max pooling (``F.max_pool2d``).

    Shapes: (N, C, H, W) or (C, H, W) -> (.., C, H_out, W_out); ``kernel_size``/``stride``/
    ``padding``/``dilation`` an int or a pair, ``stride`` defaulting to the kernel. With
    ``return_indices`` also int64 indices, flat positions ``h * W + w`` in each input plane
    (what ``MaxUnpool2d`` takes). A NaN in a window wins. Exact in every dtype but bool.

    Raises:
        RuntimeError: wrong rank, non-positive sizes, padding over half the effective kernel,
            an empty output (PyTorch's messages).
    """
    if return_indices:
        return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return dispatch("max_pool2d", input, kernel_size, _stride(stride), padding, dilation,
                    ceil_mode)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """1-D average pooling (``F.avg_pool1d``): (N, C, L) or (C, L) -> (.., C, L_out).

    ``count_include_pad``: zero padding counts in the divisor. 16-bit sums in fp32, one rounding.

    Raises:
        RuntimeError: wrong rank, padding over half the kernel, an empty output.
    """
    return dispatch("avg_pool1d", input, kernel_size, () if stride is None else stride, padding,
                    ceil_mode, count_include_pad)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """2-D average pooling (``F.avg_pool2d``): (N, C, H, W) or (C, H, W) -> (.., C, H_out,
    W_out).

    ``count_include_pad``: zero padding counts in the divisor; ``divisor_override``: divide every
    window sum by this instead. 16-bit sums in fp32, one rounding; integer inputs truncate.

    Raises:
        RuntimeError: wrong rank, padding over half the kernel, an empty output, a zero
            ``divisor_override``.
    """
    return dispatch("avg_pool2d", input, kernel_size, () if stride is None else stride, padding,
                    ceil_mode, count_include_pad, divisor_override)


def adaptive_avg_pool1d(input, output_size):
    """``F.adaptive_avg_pool1d``: (N, C, L) or (C, L) -> (.., C, output_size), each output the
    mean of its adaptive window (floating dtypes).

    Raises:
        RuntimeError: wrong rank, empty dims. NotImplementedError: integer inputs.
    """
    return dispatch("adaptive_avg_pool1d", input, output_size)


def _list_with_default(input, output_size):
    """PyTorch's ``_list_with_default`` check: a sized ``output_size`` needs more input dims.

    Raises:
        ValueError: "Input dimension should be at least 3".
    """
    if not isinstance(output_size, int) and hasattr(input, "ndim") and \
            input.ndim <= len(output_size):
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")


def adaptive_avg_pool2d(input, output_size):
    """``F.adaptive_avg_pool2d``: (N, C, H, W) or (C, H, W) -> (.., C, *output_size);
    ``output_size`` an int, or a pair whose ``None`` entries keep the input's size. A 1x1
    output is a ``mean`` (as PyTorch).

    Raises:
        ValueError: a sized ``output_size`` on an input of that many dims or fewer.
        RuntimeError: wrong rank, empty dims, negative sizes. NotImplementedError: integers.
    """
    _list_with_default(input, output_size)
    return dispatch("adaptive_avg_pool2d", input, output_size)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """``F.adaptive_max_pool1d_with_indices``: ``(values, indices)``."""
    return dispatch("adaptive_max_pool1d", input, output_size)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """``F.adaptive_max_pool1d``: (N, C, L) or (C, L) -> (.., C, output_size) (with the int64
    indices when ``return_indices``)."""
    out = dispatch("adaptive_max_pool1d", input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """``F.adaptive_max_pool2d_with_indices``: ``(values, indices)``."""
    _list_with_default(input, output_size)
    return dispatch("adaptive_max_pool2d", input, output_size)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """``F.adaptive_max_pool2d``: (N, C, H, W) or (C, H, W) -> (.., C, *output_size), the
    maximum of each adaptive window (with flat int64 indices when ``return_indices``).

    Raises:
        ValueError: a sized ``output_size`` on an input of that many dims or fewer.
        RuntimeError: wrong rank, empty dims, negative sizes. NotImplementedError: integers.
    """
    _list_with_default(input, output_size)
    out = dispatch("adaptive_max_pool2d", input, output_size)
    return out if return_indices else out[0]


def _tuple(v, n):
    if isinstance(v, (list, tuple)):
        return tuple(int(a) for a in v)
    return (int(v),) * n


def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    """PyTorch's ``_unpool_output_size``: ``(in - 1) * stride + kernel - 2 * padding`` per
    spatial dim, or the given ``output_size`` (its last dims) when within a stride of that.

    Raises:
        ValueError: ``output_size`` of the wrong length or too far from the default; a
            negative size (PyTorch's messages).
    """
    n = len(kernel_size)
    default = [(input.shape[-n + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d]
               for d in range(n)]
    if output_size is None:
        ret = default
    else:
        if len(output_size) == n + 2:
            output_size = output_size[2:]
        if len(output_size) != n:
            raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} "
                             f"elements, but it has a length of '{len(output_size)}'")
        for d in range(n):
            lo, hi = default[d] - stride[d], default[d] + stride[d]
            if not lo < output_size[d] < hi:
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be '
                                 f"between {lo} and {hi})")
        ret = output_size
    for d in range(n):
        if ret[d] < 0:
            raise ValueError("max_unpooling: output_size must contain non-negative spatial "
                             f"dimensions, but got output_size[{d}]={ret[d]}")
    return [int(r) for r in ret]


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of ``max_pool1d`` (``F.max_unpool1d``): (N, C, L) or (C, L) values
    placed at their int64 ``indices`` in zeros of length ``(L - 1) * stride + kernel - 2 *
    padding`` (or ``output_size``, within a stride of that); through ``max_unpool2d`` on a
    width-1 image, as PyTorch.

    Raises:
        ValueError: a bad ``output_size`` (see ``_unpool_output_size``).
        RuntimeError / NotImplementedError: the ``max_unpool2d`` op's checks.
    """
    out = _unpool(input, indices, kernel_size, stride, padding, output_size, 1)
    return dispatch("squeeze", out, -1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of ``max_pool2d`` (``F.max_unpool2d``): (N, C, H, W) or (C, H, W)
    values placed at their int64 flat ``indices`` (``h * W_out + w``) in zeros of size
    ``(in - 1) * stride + kernel - 2 * padding`` per dim (or ``output_size``: 2 or 4 sizes,
    within a stride of that). Exact; non-selected positions get no gradient.

    Raises:
        ValueError: a bad ``output_size`` (see ``_unpool_output_size``).
        RuntimeError / NotImplementedError: the ``max_unpool2d`` op's checks.
    """
    return _unpool(input, indices, kernel_size, stride, padding, output_size, 2)


def _unpool(input, indices, kernel_size, stride, padding, output_size, n):
    """``max_unpool2d`` of an ``n``-d unpooling (1-d: on a width-1 image, as PyTorch)."""
    kernel = _tuple(kernel_size, n)
    st = kernel if stride is None else _tuple(stride, n)
    size = _unpool_output_size(input, kernel, st, _tuple(padding, n), output_size)
    if n == 1:
        input, indices, size = dispatch("unsqueeze", input, -1), \
            dispatch("unsqueeze", indices, -1), size + [1]
    return dispatch("max_unpool2d", input, indices, size)
