"""Instance normalization layers (``torch.nn.modules.instancenorm``): ``InstanceNorm1d`` and
``InstanceNorm2d`` on ``_NormBase`` (defaults ``affine=False``, ``track_running_stats=False``),
unbatched inputs accepted, with PyTorch's input-dim errors and num_features check.
"""
from __future__ import annotations

import warnings

from .. import functional as F
from .batchnorm import _NormBase

__all__ = ["InstanceNorm1d", "InstanceNorm2d"]


class _InstanceNorm(_NormBase):
    """Instance norm over ``(N, C, *)`` or unbatched ``(C, *)`` input; arguments as
    ``_NormBase`` with ``affine=False`` and ``track_running_stats=False`` by default.

    Raises:
        ValueError: the input rank (subclasses) or, with ``affine=True``, a channel count other
            than ``num_features`` (warns instead without affine).
    """

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1,
                 affine: bool = False, track_running_stats: bool = False, device=None,
                 dtype=None, *, bias: bool = True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)

    def _get_no_batch_dim(self):
        raise NotImplementedError

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        """PyTorch's check of pre-0.4 checkpoints: a state dict without version metadata that
        holds ``running_mean`` / ``running_var`` for a module that tracks no running stats
        gets PyTorch's error message (and the keys are dropped)."""
        if local_metadata.get("version", None) is None and not self.track_running_stats:
            keys = [prefix + n for n in ("running_mean", "running_var")
                    if prefix + n in state_dict]
            if keys:
                klass = type(self).__name__
                error_msgs.append(
                    "Unexpected running stats buffer(s) {} for {} with track_running_stats="
                    "False. If state_dict is a checkpoint saved before 0.4.0, this may be "
                    "expected because {} does not track running stats by default since 0.4.0. "
                    "Please remove these keys from state_dict. If the running stats are "
                    "actually needed, instead set track_running_stats=True in {} to enable "
                    "them. See the documentation of {} for details.".format(
                        " and ".join(f'"{k}"' for k in keys), klass, klass, klass, klass))
                for k in keys:
                    state_dict.pop(k)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    def _apply_instance_norm(self, input):
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight,
                               self.bias, self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)

    def forward(self, input):
        self._check_input_dim(input)
        feature_dim = input.ndim - self._get_no_batch_dim()
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match "
                                 f"num_features ({self.num_features}), but got: "
                                 f"{input.shape[feature_dim]}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You "
                          "can silence this warning by not passing in num_features, which is "
                          "not used because affine=False", stacklevel=2)
        if input.ndim == self._get_no_batch_dim():
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization of a ``(N, C, L)`` or ``(C, L)`` input
    (``torch.nn.InstanceNorm1d``).

    Raises:
        ValueError: another input rank ("expected 2D or 3D input (got 4D input)").
    """

    def _get_no_batch_dim(self):
        return 2

    def _check_input_dim(self, input):
        if input.ndim not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.ndim}D input)")


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization of a ``(N, C, H, W)`` or ``(C, H, W)`` input
    (``torch.nn.InstanceNorm2d``).

    Raises:
        ValueError: another input rank ("expected 3D or 4D input (got 2D input)").
    """

    def _get_no_batch_dim(self):
        return 3

    def _check_input_dim(self, input):
        if input.ndim not in (3, 4):
            raise ValueError(f"expected 3D or 4D input (got {input.ndim}D input)")
