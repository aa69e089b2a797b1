"""The normalization functions of ``minigrad.nn.functional`` (``F.layer_norm``,
``F.batch_norm``...), with ``torch.nn.functional``'s signatures and Python-level checks;
``functional.py`` re-exports them. Each dispatches the composite op of its name
(``minigrad/ops/layer_norm.py``, ``group_norm.py``, ``batch_norm.py``), except
``local_response_norm``, which is a composite in PyTorch's Python too.
"""
from __future__ import annotations

from ..dispatch import dispatch

__all__ = ["layer_norm", "rms_norm", "group_norm", "batch_norm", "instance_norm",
           "local_response_norm"]


def _verify_batch_size(size):
    n = size[0]
    for s in size[2:]:
        n *= s
    if n == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                         f"{size}")


def _verify_spatial_size(size):
    n = 1
    for s in size[2:]:
        n *= s
    if n == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                         f"{size}")


def layer_norm(input, normalized_shape, weight=None, bias=None, eps: float = 1e-5):
    """Layer normalization over the trailing ``normalized_shape`` dims (``F.layer_norm``):
    ``(x - mean) / sqrt(var + eps) * weight + bias`` with the biased variance.

    Shapes: input ``(*, *normalized_shape)``; weight/bias ``normalized_shape`` or None. fp16/bf16
    inputs compute in fp32 and round once; fp32 weight with a 16-bit input is allowed (autocast's
    mixed case).

    Raises:
        RuntimeError: shape mismatches or mixed dtypes. NotImplementedError: integer input.
    """
    return dispatch("layer_norm", input, normalized_shape, weight, bias, eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """Root-mean-square normalization (``F.rms_norm``): ``x * rsqrt(mean(x^2) + eps) *
    weight`` over the trailing dims; ``eps=None`` is ``finfo(opmath dtype).eps``. PyTorch's CPU
    composite, op for op (16-bit inputs computed in fp32, cast back).

    Raises:
        RuntimeError: shape mismatches.
    """
    return dispatch("rms_norm", input, normalized_shape, weight, eps)


def group_norm(input, num_groups: int, weight=None, bias=None, eps: float = 1e-5):
    """Group normalization (``F.group_norm``): the ``C`` channels of ``(N, C, *)`` split into
    ``num_groups`` groups, each normalised per sample; weight/bias ``(C,)``.

    Raises:
        RuntimeError: fewer than 2 dims, ``C`` not divisible by ``num_groups``.
        ValueError: one value per group ("Expected more than 1 value per channel when
            training...").
    """
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.ndim}")
    _verify_batch_size([input.shape[0] * input.shape[1] // num_groups, num_groups] +
                       list(input.shape[2:]))
    return dispatch("group_norm", input, num_groups, weight, bias, eps)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Batch normalization (``F.batch_norm``): per channel of ``(N, C, *)`` over the batch and
    spatial dims; in training the batch statistics are used and the running stats (if given)
    updated in place (``momentum``; unbiased variance), in evaluation the running stats are used.

    Raises:
        ValueError: training with one value per channel. RuntimeError: running stats missing in
            evaluation, parameters of the wrong size.
    """
    if training:
        _verify_batch_size(input.size())
    return dispatch("batch_norm", input, weight, bias, running_mean, running_var, training,
                    momentum, eps)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats: bool = True, momentum: float = 0.1, eps: float = 1e-5):
    """Instance normalization (``F.instance_norm``): each sample's channels over their spatial
    dims; running stats (if given) receive the batch mean of the per-sample updates.

    Raises:
        ValueError: ``use_input_stats`` with one spatial element.
    """
    if use_input_stats:
        _verify_spatial_size(input.size())
    return dispatch("instance_norm", input, weight, bias, running_mean, running_var,
                    use_input_stats, momentum, eps)


def local_response_norm(input, size: int, alpha: float = 1e-4, beta: float = 0.75,
                        k: float = 1.0):
    """Local response normalization across channels (``F.local_response_norm``):
    ``x / (k + alpha * mean(x^2 over a window of size channels))^beta``, the window zero-padded
    by ``size // 2`` before and ``(size - 1) // 2`` after.

    Deliberate difference: PyTorch averages the window with ``avg_pool2d``/``avg_pool3d`` over a
    ``constant_pad_nd``; here the padded window sum is ``cat`` + a sum of ``size`` shifted slices
    divided by ``size`` (same value in fp32/fp64 up to rounding; in fp16/bf16 each partial sum
    rounds, so results may differ by a few ulp).

    Raises:
        ValueError: fewer than 3 dims.
    """
    dim = input.ndim
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input "
                         f"(got {dim} dimensions)")
    if input.numel() == 0:
        return input
    sq = dispatch("mul", input, input)
    c = input.shape[1]
    before, after = size // 2, (size - 1) // 2
    parts = []
    if before:
        parts.append(dispatch("zeros", (input.shape[0], before) + tuple(input.shape[2:]),
                              dtype=input.dtype))
    parts.append(sq)
    if after:
        parts.append(dispatch("zeros", (input.shape[0], after) + tuple(input.shape[2:]),
                              dtype=input.dtype))
    padded = dispatch("cat", parts, 1) if len(parts) > 1 else sq
    win = None
    for i in range(size):
        part = padded[:, i:i + c]
        win = part if win is None else dispatch("add", win, part)
    div = dispatch("div", win, size)
    div = dispatch("pow", dispatch("add", dispatch("mul", div, alpha), k), beta)
    return dispatch("div", input, div)
