"""How tensors in shared memory travel to another process (``torch.multiprocessing.reductions``,
in minigrad's terms).

``multiprocessing`` pickles a spawned process's target and arguments, and everything put on a
``Queue``, with its ``ForkingPickler``. ``init_reductions`` registers a reducer there for
minigrad's pickled storage (``minigrad.serialization._Storage``, which every tensor on that
storage refers to): a storage in shared memory (``share_memory_``, ``Module.share_memory``)
sends its memory file's descriptor (``multiprocessing.reduction.DupFd``), and the receiving
process maps the same memory, so both see each other's writes, as with PyTorch's
``file_descriptor`` strategy. Any other storage pickles as usual, as its bytes: the receiver
gets a copy.

Deliberate difference: PyTorch moves a tensor that is not yet shared into shared memory when it
is pickled for another process; minigrad's storage is a NumPy array other tensors may hold, so
it is copied instead (call ``share_memory_`` first to share it). ``torch.save`` / ``pickle`` are
unaffected (they do not use ``ForkingPickler``).
"""
from __future__ import annotations

import numpy as np

__all__ = ["init_reductions"]

_registered = [False]


def _reduce_storage(storage):
    from ..storage import _SharedMemory
    root = storage.root
    mem = root.base
    if not (isinstance(mem, _SharedMemory) and mem.fd is not None):
        return storage.__reduce_ex__(2)             # its bytes: the receiver gets a copy
    from multiprocessing.reduction import DupFd
    from .. import dtypes as _dt
    return (_rebuild_shared_storage, (DupFd(mem.fd), len(mem), _dt.from_numpy(root.dtype).name,
                                      tuple(root.shape), tuple(root.strides)))


def _rebuild_shared_storage(dup_fd, size, dtype_name, shape, strides):
    """The receiving side: the sender's shared memory, mapped again (its root array)."""
    from .. import dtypes as _dt
    from ..storage import _SharedMemory
    mem = _SharedMemory.of_fd(dup_fd.detach(), size)
    return np.ndarray(shape, _dt.as_dtype(dtype_name).np, buffer=mem, strides=strides)


def init_reductions() -> None:
    """Register the shared-storage reducer with ``multiprocessing``'s ``ForkingPickler`` (once;
    ``torch.multiprocessing.reductions.init_reductions``). Called on import of
    ``minigrad.multiprocessing`` and whenever a storage first moves into shared memory."""
    if _registered[0]:
        return
    from multiprocessing.reduction import ForkingPickler
    from ..serialization import _Storage
    ForkingPickler.register(_Storage, _reduce_storage)
    _registered[0] = True
