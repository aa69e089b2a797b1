"""``minigrad.distributed`` (mirrors ``torch.distributed``) for one process: world size 1.

minigrad runs in one Python process with no communication backend, so the only process group is
the trivial one: ``init_process_group`` accepts ``world_size=1`` (from the argument or the
``WORLD_SIZE`` environment variable, as ``torchrun --nproc_per_node=1`` sets it) and rank 0; a
collective on a group of one leaves its tensors as they are, which is what PyTorch computes for
one rank. Before ``init_process_group`` every call raises PyTorch's ValueError. A larger world
raises RuntimeError: deliberate difference, there are no other processes to talk to.
"""
from __future__ import annotations

import enum
import os

__all__ = ["is_available", "is_initialized", "init_process_group", "destroy_process_group",
           "get_rank", "get_world_size", "barrier", "all_reduce", "broadcast", "all_gather",
           "reduce", "ReduceOp", "get_backend"]

_group = {}          # the default group once initialised: {"backend": str}

_NOT_INIT = ("Default process group has not been initialized, please make sure to call "
             "init_process_group.")


class ReduceOp(enum.Enum):
    """Mirrors ``torch.distributed.ReduceOp`` (the reductions a collective may apply)."""
    SUM = "sum"
    AVG = "avg"
    PRODUCT = "product"
    MIN = "min"
    MAX = "max"


def is_available() -> bool:
    """True: the one-process group is available (``torch.distributed.is_available``)."""
    return True


def is_initialized() -> bool:
    """Whether ``init_process_group`` has run (``torch.distributed.is_initialized``)."""
    return bool(_group)


def _require():
    if not _group:
        raise ValueError(_NOT_INIT)


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1,
                       store=None, group_name="", pg_options=None, device_id=None):
    """Mirrors ``torch.distributed.init_process_group`` for a world of one process.

    Args:
        backend: "gloo", "nccl"... (recorded; nothing is sent anywhere).
        world_size, rank: -1 reads ``WORLD_SIZE`` / ``RANK`` from the environment (default 1, 0).
        init_method, timeout, store, group_name, pg_options, device_id: accepted and ignored.

    Raises:
        RuntimeError: a world size other than 1 or a rank other than 0 (deliberate difference),
            or a second call ("trying to initialize the default process group twice!").
    """
    if _group:
        raise RuntimeError("trying to initialize the default process group twice!")
    ws = int(os.environ.get("WORLD_SIZE", 1)) if world_size == -1 else int(world_size)
    rk = int(os.environ.get("RANK", 0)) if rank == -1 else int(rank)
    if ws != 1 or rk != 0:
        raise RuntimeError(f"minigrad.distributed runs one process only (world_size=1, rank=0); "
                           f"got world_size={ws}, rank={rk}")
    _group["backend"] = str(backend) if backend is not None else "gloo"


def destroy_process_group(group=None) -> None:
    """Mirrors ``torch.distributed.destroy_process_group``.

    Raises:
        ValueError: no process group (PyTorch's message).
    """
    _require()
    _group.clear()


def get_backend(group=None) -> str:
    """The backend name given to ``init_process_group`` (``torch.distributed.get_backend``)."""
    _require()
    return _group["backend"]


def get_rank(group=None) -> int:
    """0 (``torch.distributed.get_rank``). Raises ValueError before ``init_process_group``."""
    _require()
    return 0


def get_world_size(group=None) -> int:
    """1 (``torch.distributed.get_world_size``). Raises ValueError before ``init_process_group``."""
    _require()
    return 1


def barrier(group=None, async_op=False, device_ids=None):
    """Nothing to wait for with one process (``torch.distributed.barrier``).

    Raises:
        ValueError: no process group (PyTorch's message).
    """
    _require()


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """With one rank the reduction of ``tensor`` is ``tensor``: left unchanged
    (``torch.distributed.all_reduce``). Raises ValueError before ``init_process_group``."""
    _require()


def reduce(tensor, dst=0, op=ReduceOp.SUM, group=None, async_op=False):
    """Left unchanged, as ``all_reduce`` (``torch.distributed.reduce``)."""
    _require()


def broadcast(tensor, src=0, group=None, async_op=False):
    """Rank 0's tensor is this one: unchanged (``torch.distributed.broadcast``)."""
    _require()


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Fills the one-element ``tensor_list`` with ``tensor`` (``torch.distributed.all_gather``).

    Raises:
        ValueError: no process group. RuntimeError: a list whose length is not 1.
    """
    _require()
    if len(tensor_list) != 1:
        raise RuntimeError("all_gather: tensor_list must hold world_size (1) tensors")
    from .autograd.grad_mode import no_grad
    with no_grad():
        tensor_list[0].copy_(tensor)
