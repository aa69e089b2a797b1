"""``torch.layer_norm``, ``torch.rms_norm``, ``torch.group_norm``, ``torch.batch_norm``,
``torch.instance_norm`` and the kernels ``torch.native_layer_norm``,
``torch.native_group_norm``, ``torch.native_batch_norm`` as torch-level functions (one
``dispatch`` call each; the ops are in ``minigrad/ops/layer_norm.py``, ``group_norm.py`` and
``batch_norm.py``). ``minigrad.nn.functional`` has the ``F.*`` forms with their Python checks.
"""
from __future__ import annotations

from ..dispatch import dispatch

__all__ = ["layer_norm", "rms_norm", "group_norm", "batch_norm", "instance_norm",
           "native_layer_norm", "native_group_norm", "native_batch_norm"]


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    """``torch.layer_norm``: normalise over the trailing ``normalized_shape`` dims; see
    ``F.layer_norm``."""
    return dispatch("layer_norm", input, normalized_shape, weight, bias, eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``torch.rms_norm``: ``x * rsqrt(mean(x^2) + eps) * weight``; see ``F.rms_norm``."""
    return dispatch("rms_norm", input, normalized_shape, weight, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    """``torch.group_norm``; see ``F.group_norm`` (without its Python-level size check)."""
    return dispatch("group_norm", input, num_groups, weight, bias, eps)


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled=True):
    """``torch.batch_norm`` (PyTorch's argument order: weight and bias before the running
    stats); see ``F.batch_norm``."""
    return dispatch("batch_norm", input, weight, bias, running_mean, running_var, training,
                    momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                  eps, cudnn_enabled=True):
    """``torch.instance_norm`` (PyTorch's argument order); see ``F.instance_norm``."""
    return dispatch("instance_norm", input, weight, bias, running_mean, running_var,
                    use_input_stats, momentum, eps)


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """``torch.native_layer_norm`` -> ``(output, mean, rstd)``."""
    return dispatch("native_layer_norm", input, list(normalized_shape), weight, bias, eps)


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """``torch.native_group_norm`` -> ``(output, mean, rstd)``, mean/rstd of shape
    ``(N, group)``."""
    return dispatch("native_group_norm", input, weight, bias, N, C, HxW, group, eps)


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """``torch.native_batch_norm`` -> ``(output, save_mean, save_invstd)``; updates the running
    stats in place in training."""
    return dispatch("native_batch_norm", input, weight, bias, running_mean, running_var,
                    training, momentum, eps)
