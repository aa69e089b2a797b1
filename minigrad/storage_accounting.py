"""Which storages are alive on a device: the bridge between tensors and an allocator.

A tensor's storage is the *root* NumPy buffer under its array: the array that owns the memory,
found by following ``ndarray.base`` (NumPy points a view's ``base`` at the owner). Views,
``detach()``, ``.data``, aliases and ``Tensor._make(t._data)`` re-wraps all reach the same root,
so a storage is counted once however many tensors use it. The registry allocates a block for a
root the first time a tensor of the device is seen holding it, and frees the block when the root
array is deallocated: a ``weakref`` callback on the root, which CPython runs as soon as the last
reference goes (the last tensor, view, or saved-for-backward holder). Reference cycles delay that
to the next garbage collection, as they delay a tensor's free in PyTorch's Python objects.

``watchers`` (the memory trackers of ``minigrad.memory``, the profiler with ``profile_memory``)
are told of each allocation and free: ``watcher.allocated(registry, key, block)`` and
``watcher.freed(registry, key, size)`` (the block's size; the block itself may have merged).
"""
from __future__ import annotations

import weakref

import numpy as np

__all__ = ["StorageRegistry", "root_of"]

_ND = np.ndarray


def root_of(arr):
    """The array owning the memory of ``arr`` (``arr`` itself when it owns it)."""
    while True:
        b = arr.base
        if b is None:
            return arr
        if type(b) is _ND or isinstance(b, _ND):
            arr = b
            continue
        inner = getattr(b, "base", None)        # as_strided's DummyArray, memoryviews...
        if isinstance(inner, _ND):
            arr = inner
            continue
        return arr


class StorageRegistry:
    """The live storages of one device and their blocks in ``allocator``.

    Attributes:
        allocator: a ``minigrad.cuda.allocator.CachingAllocator``.
        blocks: ``{id(root array): Block}`` for every live storage.
        watchers: objects told of each allocation and free (see the module docstring).
    """

    def __init__(self, allocator):
        self.allocator = allocator
        self.blocks = {}
        self._refs = {}
        self.watchers = []

    def track(self, t) -> None:
        """Count the storage of tensor ``t`` (nothing when it is counted already or empty)."""
        root = root_of(t._data)
        key = id(root)
        if key in self.blocks:
            return
        n = root.nbytes
        if n == 0:
            return              # PyTorch allocates nothing for an empty storage
        block = self.allocator.malloc(n)
        self.blocks[key] = block
        self._refs[key] = weakref.ref(root, lambda _r, k=key: self._release(k))
        for w in self.watchers:
            w.allocated(self, key, block)

    def track_all(self, out) -> None:
        """``track`` every Tensor in ``out`` (a Tensor, or a list/tuple of Tensors and others)."""
        if type(out) is tuple or type(out) is list:
            for o in out:
                if getattr(o, "_data", None) is not None and hasattr(o, "_grad_fn"):
                    self.track(o)
        elif getattr(out, "_data", None) is not None and hasattr(out, "_grad_fn"):
            self.track(out)

    def key_of(self, t):
        """The registry key of ``t``'s storage, or None when it is not counted here."""
        key = id(root_of(t._data))
        return key if key in self.blocks else None

    def _release(self, key):
        block = self.blocks.pop(key, None)
        self._refs.pop(key, None)
        if block is None:
            return
        size = block.size          # (a freed block merges with its free neighbours)
        self.allocator.free(block)
        for w in self.watchers:
            w.freed(self, key, size)

    def clear(self) -> None:
        """Forget every storage (their blocks freed), e.g. when cpu accounting is switched off."""
        for key in list(self.blocks):
            self._release(key)
