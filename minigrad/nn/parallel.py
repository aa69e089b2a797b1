"""``minigrad.nn.parallel`` (mirrors ``torch.nn.parallel``): ``DistributedDataParallel`` and
``DataParallel`` wrappers for minigrad's one process.

With one process (``minigrad.distributed``'s world of size 1) and one emulated device, data
parallelism has nothing to split or average: each wrapper runs the wrapped module unchanged and
exposes it as ``.module``, so a script that wraps its model (nanoGPT under ``torchrun``) runs and
trains exactly as the bare model. ``state_dict`` keys gain PyTorch's ``module.`` prefix.
"""
from __future__ import annotations

import contextlib

from .module import Module

__all__ = ["DistributedDataParallel", "DataParallel"]


class DataParallel(Module):
    """Mirrors ``torch.nn.DataParallel``: runs ``module`` on the one device.

    Args:
        module: the wrapped Module (``self.module``).
        device_ids, output_device, dim: accepted and ignored (one device).
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.dim = dim

    def forward(self, *inputs, **kwargs):
        """``self.module(*inputs, **kwargs)``."""
        return self.module(*inputs, **kwargs)


class DistributedDataParallel(Module):
    """Mirrors ``torch.nn.parallel.DistributedDataParallel`` for a world of one process: the
    gradient all-reduce over one rank leaves each gradient as it is.

    Args:
        module: the wrapped Module (``self.module``).
        device_ids, output_device, dim, broadcast_buffers, process_group, bucket_cap_mb,
            find_unused_parameters, gradient_as_bucket_view, static_graph: accepted, ignored.

    Raises:
        ValueError: no process group ("Default process group has not been initialized...").
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0,
                 broadcast_buffers=True, process_group=None, bucket_cap_mb=None,
                 find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False, **kwargs):
        from .. import distributed
        if process_group is None:
            distributed.get_world_size()        # raises PyTorch's ValueError if uninitialised
        super().__init__()
        self.module = module
        self.device_ids = device_ids
        self.dim = dim
        self.require_backward_grad_sync = True

    def forward(self, *inputs, **kwargs):
        """``self.module(*inputs, **kwargs)``."""
        return self.module(*inputs, **kwargs)

    @contextlib.contextmanager
    def no_sync(self):
        """Skip the gradient all-reduce inside the block (there is none with one rank)."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old
