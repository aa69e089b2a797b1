"""Batch normalization layers (``torch.nn.modules.batchnorm``): ``BatchNorm1d/2d/3d`` on the
shared ``_NormBase`` (parameters ``weight``/``bias``, buffers ``running_mean``, ``running_var``,
``num_batches_tracked``), with PyTorch's constructor arguments, init, ``repr`` and input-dim
errors; ``_BatchNorm.forward`` is PyTorch's logic (``momentum=None``: cumulative average via
``num_batches_tracked``; evaluation without running stats uses batch statistics).
"""
from __future__ import annotations

from ..._functional.factories import ones, tensor, zeros
from ... import dtypes as _dt
from .. import functional as F
from ..module import Module
from .normalization import affine_parameters, reset_affine

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm"]


class _NormBase(Module):
    """Common base of ``_BatchNorm`` and ``_InstanceNorm`` (``torch.nn.modules.batchnorm``).

    Args:
        num_features: ``C`` of the ``(N, C, *)`` input.
        eps: added to the variance (default 1e-5).
        momentum: running-stats factor (default 0.1); None: cumulative moving average.
        affine: learn ``weight`` (ones) and, with ``bias=True``, ``bias`` (zeros).
        track_running_stats: keep ``running_mean`` (zeros), ``running_var`` (ones) and
            ``num_batches_tracked`` (int64 0) buffers.
        device, dtype: of the parameters and running stats.
        bias: learn the additive bias (keyword only, default True).
    """

    _version = 2

    def __init__(self, num_features: int, eps: float = 1e-5, momentum=0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None, *,
                 bias: bool = True):
        super().__init__()
        factory_kwargs = {"device": device, "dtype": dtype}
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        affine_parameters(self, (num_features,), affine, bias, factory_kwargs)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, **factory_kwargs))
            self.register_buffer("running_var", ones(num_features, **factory_kwargs))
            self.register_buffer("num_batches_tracked",
                                 tensor(0, dtype=_dt.int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        """Running mean to zeros, running var to ones, ``num_batches_tracked`` to 0."""
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        """Reset the running stats; weight to ones, bias to zeros."""
        self.reset_running_stats()
        reset_affine(self)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        """PyTorch's upgrade of older checkpoints: a state dict saved before version 2 (or
        without ``_metadata``, a plain dict) may lack ``num_batches_tracked``; it loads as
        the module's current count."""
        version = local_metadata.get("version", None)
        key = prefix + "num_batches_tracked"
        if (version is None or version < 2) and self.track_running_stats \
                and key not in state_dict:
            state_dict[key] = (self.num_batches_tracked if self.num_batches_tracked is not None
                               else tensor(0, dtype=_dt.int64))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class _BatchNorm(_NormBase):
    """Batch norm over ``(N, C, *)`` (the shared ``forward`` of ``BatchNorm1d/2d/3d``)."""

    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:          # cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked)
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        use_buffers = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if use_buffers else None,
                            self.running_var if use_buffers else None, self.weight, self.bias,
                            bn_training, factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """Batch normalization of a ``(N, C)`` or ``(N, C, L)`` input (``torch.nn.BatchNorm1d``);
    arguments as ``_NormBase``.

    Raises:
        ValueError: another input rank ("expected 2D or 3D input (got 4D input)").
    """

    def _check_input_dim(self, input):
        if input.ndim not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.ndim}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalization of a ``(N, C, H, W)`` input (``torch.nn.BatchNorm2d``).

    Raises:
        ValueError: another input rank ("expected 4D input (got 3D input)").
    """

    def _check_input_dim(self, input):
        if input.ndim != 4:
            raise ValueError(f"expected 4D input (got {input.ndim}D input)")


class BatchNorm3d(_BatchNorm):
    """Batch normalization of a ``(N, C, D, H, W)`` input (``torch.nn.BatchNorm3d``).

    Raises:
        ValueError: another input rank ("expected 5D input (got 4D input)").
    """

    def _check_input_dim(self, input):
        if input.ndim != 5:
            raise ValueError(f"expected 5D input (got {input.ndim}D input)")


class SyncBatchNorm(_BatchNorm):
    """Batch norm whose statistics are reduced over a process group in distributed training
    (``torch.nn.SyncBatchNorm``). minigrad runs in one process (``minigrad.distributed`` has no
    process groups), where PyTorch's module computes plain batch norm: so does this one, with
    PyTorch's arguments, ``repr`` and ``convert_sync_batchnorm``, so DDP scripts that convert
    their model unconditionally run unchanged.

    Raises:
        ValueError: an input of fewer than 2 dims ("expected at least 2D input (got 1D
            input)").
    """

    def __init__(self, num_features: int, eps: float = 1e-5, momentum=0.1, affine: bool = True,
                 track_running_stats: bool = True, process_group=None, device=None,
                 dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.ndim < 2:
            raise ValueError(f"expected at least 2D input (got {input.ndim}D input)")

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """``module`` with every ``BatchNorm*d`` in it replaced by a ``SyncBatchNorm`` holding
        the same parameters and buffers (the same tensors) and training flag
        (``torch.nn.SyncBatchNorm.convert_sync_batchnorm``); other modules are returned as
        they are, their children converted."""
        out = module
        if isinstance(module, _BatchNorm) and not isinstance(module, SyncBatchNorm):
            out = cls(module.num_features, module.eps, module.momentum, module.affine,
                      module.track_running_stats, process_group)
            if module.affine:
                out.weight, out.bias = module.weight, module.bias
            out.running_mean = module.running_mean
            out.running_var = module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
            if hasattr(module, "qconfig"):
                out.qconfig = module.qconfig
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out
