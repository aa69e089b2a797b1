"""A tensor's memory layout as PyTorch reports it: ``Tensor.stride()``, ``storage_offset()``,
``data_ptr()`` and ``untyped_storage()`` (an ``UntypedStorage`` with ``nbytes()``), and the
move into shared memory (``share_memory_()`` / ``is_shared()``).

minigrad's storage is a NumPy array, and a view's array is a NumPy view of its base's: the
figures are read from NumPy (``strides`` in bytes divided by the element size; the offset and
the storage size from the root array the view chain starts at). They describe minigrad's real
layout, which is PyTorch's for the views both libraries make (``t()``, slicing, ``expand``'s
zero strides, ``view``); where minigrad copies and PyTorch views (or the reverse), they show the
copy.
"""
from __future__ import annotations

import mmap
import os
import weakref

import numpy as np

__all__ = ["UntypedStorage", "StorageMixin"]


def _root(a: np.ndarray) -> np.ndarray:
    """The array a chain of NumPy views starts at (the storage)."""
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def _address(a: np.ndarray) -> int:
    return int(a.__array_interface__["data"][0])


class _SharedMemory(mmap.mmap):
    """A ``MAP_SHARED`` mapping: the memory ``share_memory_`` moves a storage into. Processes
    forked afterwards (``multiprocessing``'s default start method on Linux) see each other's
    writes to it, which is what Hogwild-style training needs. Where the OS has
    ``memfd_create`` (Linux), the mapping is of an anonymous memory file whose descriptor
    ``fd`` it keeps open, so that pickling for another process (``minigrad.multiprocessing``:
    a spawned process's arguments, a ``Queue``) sends the descriptor instead of the bytes and
    the receiver maps the same memory, as PyTorch's ``file_descriptor`` sharing strategy does;
    elsewhere ``fd`` is None and only forked processes share it."""

    fd = None

    @classmethod
    def new(cls, nbytes: int) -> "_SharedMemory":
        """A fresh zero-filled shared mapping of ``nbytes`` (at least 1: mmap maps no 0)."""
        size = max(nbytes, 1)
        if not hasattr(os, "memfd_create"):
            return cls(-1, size)
        fd = os.memfd_create("minigrad-shared", os.MFD_CLOEXEC)
        os.ftruncate(fd, size)
        return cls.of_fd(fd, size)

    @classmethod
    def of_fd(cls, fd: int, size: int) -> "_SharedMemory":
        """A mapping of the memory file ``fd`` (``size`` bytes), which it owns: the descriptor
        is closed when the mapping is collected."""
        mem = cls(fd, size)
        mem.fd = fd
        weakref.finalize(mem, os.close, fd)
        return mem


def _is_shared(a: np.ndarray) -> bool:
    return isinstance(_root(a).base, _SharedMemory)


def _to_shared(a: np.ndarray) -> np.ndarray:
    """``a`` as the same view (shape, strides, offset) of a copy of its storage made in shared
    memory; the new storage array is the view's base, as NumPy views chain."""
    root = _root(a)
    mem = _SharedMemory.new(root.nbytes)
    from .multiprocessing.reductions import init_reductions
    init_reductions()           # pickled for another process, the storage sends its descriptor
    new_root = np.ndarray(root.shape, root.dtype, buffer=mem, strides=root.strides)
    new_root[...] = root
    offset = _address(a) - _address(root)
    return np.ndarray(a.shape, a.dtype, buffer=new_root, offset=offset, strides=a.strides)


class UntypedStorage:
    """The bytes under a tensor (``torch.UntypedStorage``, read-only here): ``nbytes()``,
    ``size()`` / ``len()`` (bytes), ``data_ptr()``, ``element_size()`` (1) and ``device``."""

    def __init__(self, array: np.ndarray, device):
        self._array = array
        self.device = device

    def nbytes(self) -> int:
        """Size of the storage in bytes (``UntypedStorage.nbytes``)."""
        return int(self._array.nbytes)

    def size(self) -> int:
        """Bytes in the storage (an untyped storage counts bytes)."""
        return self.nbytes()

    __len__ = size

    def element_size(self) -> int:
        """1: an untyped storage is bytes."""
        return 1

    def data_ptr(self) -> int:
        """Address of the storage's first byte."""
        return _address(self._array)

    def is_shared(self) -> bool:
        """Whether the bytes are in shared memory (``UntypedStorage.is_shared``; True on cuda,
        as PyTorch)."""
        return self.device.type == "cuda" or _is_shared(self._array)

    def cpu(self) -> "UntypedStorage":
        """This storage on the cpu (``UntypedStorage.cpu``); the bytes are not copied here (a
        callable ``map_location`` in ``minigrad.load`` returns it to pick the device)."""
        from .devices import CPU
        return self if self.device == CPU else UntypedStorage(self._array, CPU)

    def cuda(self, device=None, non_blocking=False) -> "UntypedStorage":
        """This storage on a cuda device (``UntypedStorage.cuda``; ``device`` an index, string
        or device, default the current one); the bytes are not copied (as ``cpu``)."""
        from .devices import as_device
        if device is None:
            dev = as_device("cuda")
        elif isinstance(device, int):
            dev = as_device(f"cuda:{device}")
        else:
            dev = as_device(device)
        return UntypedStorage(self._array, dev)

    def __repr__(self):
        return f"UntypedStorage(nbytes={self.nbytes()}, device={self.device})"


class StorageMixin:
    """``Tensor``'s layout methods (see the module docstring)."""

    __slots__ = ()

    def stride(self, dim=None):
        """Strides in elements (``torch.Tensor.stride``): a tuple, or one int for ``dim``.

        Raises:
            IndexError: ``dim`` out of range ("Dimension out of range (expected to be in range
                of [-2, 1], but got 2)"; "Dimension specified as 0 but tensor has no
                dimensions" for a 0-dim tensor).
        """
        a = self._data
        if a.size == 0 and a.ndim and not any(a.strides):
            # NumPy gives a new empty array zero strides (its views keep their base's);
            # PyTorch gives a new empty tensor its sizes' contiguous strides, a dim of size 0
            # counted as 1 ((2, 0, 4) -> (4, 4, 1)).
            strides, step = [], 1
            for n in reversed(a.shape):
                strides.append(step)
                step *= max(n, 1)
            strides = tuple(reversed(strides))
        else:
            strides = tuple(int(s) // a.itemsize for s in a.strides)
        if dim is None:
            return strides
        from .ops._util import wrap_dim
        if self.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        return strides[wrap_dim(dim, self.ndim)]

    def storage_offset(self) -> int:
        """Offset of the first element from the storage's start, in elements
        (``torch.Tensor.storage_offset``)."""
        return (_address(self._data) - _address(_root(self._data))) // self._data.itemsize

    def data_ptr(self) -> int:
        """Address of the first element (``torch.Tensor.data_ptr``): equal for tensors that
        share their first element, different across distinct storages."""
        return _address(self._data)

    def untyped_storage(self) -> UntypedStorage:
        """The storage under this tensor and its views (``torch.Tensor.untyped_storage``)."""
        return UntypedStorage(_root(self._data), self.device)

    def is_shared(self) -> bool:
        """Whether this tensor's storage is in shared memory (``torch.Tensor.is_shared``): after
        ``share_memory_``, or always for a (emulated) cuda tensor, as PyTorch."""
        return self._device.type == "cuda" or _is_shared(self._data)

    def share_memory_(self):
        """Move this tensor's storage into shared memory (``torch.Tensor.share_memory_``), so
        that processes forked afterwards share its values; a no-op when it already is there,
        or on cuda. Returns self. Values, strides, offset, ``_version`` and autograd
        state are unchanged.

        PyTorch moves the storage itself, so every view of it follows. Here the storage is a
        NumPy array that other tensors may hold too: this tensor (and the tensors viewing it
        that are created afterwards) get the shared copy, tensors already viewing the old
        storage keep it. ``Module.share_memory`` moves each parameter and buffer, which is
        what Hogwild training needs.
        """
        if not self.is_shared():
            self._data = _to_shared(self._data)
        return self
