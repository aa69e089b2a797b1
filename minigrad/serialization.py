"""Saving and loading objects holding Tensors (mirrors ``torch.save`` / ``torch.load``).

The file is a plain pickle (not PyTorch's zip archive, so files are not interchangeable with
torch's): Tensors and Parameters pickle their storage array in its real format (float16,
``ml_dtypes.bfloat16``...), dtype and ``requires_grad``; autograd history is not saved (as in
PyTorch, only leaves with ``requires_grad`` keep the flag). ``load(weights_only=True)`` (the
default, as in PyTorch >= 2.6) unpickles only tensors, dtypes, devices, ``Size`` and plain
containers/scalars (``OrderedDict`` and ``Counter`` included), plus globals allowed with
``add_safe_globals`` or the ``safe_globals`` context manager: as in PyTorch, a NumPy array or
scalar, a ``slice``, ``frozenset`` or ``defaultdict`` is refused by default (tensors carry their
storage as raw bytes, so they need no NumPy global).

Whole models: ``save(model, f)`` pickles the module objects, which name their classes by path:
minigrad's layers live under PyTorch's paths (``minigrad.nn.modules.linear.Linear``,
``minigrad.nn.modules.container.Sequential``...), so a whole-model checkpoint names the same
classes as a PyTorch one, and ``load(f)`` (``weights_only=True``) refuses it with PyTorch's
message naming the first class to allow; ``load(f, weights_only=False)`` or allowlisting every
class named (the model's own class, each layer class) loads it.

Views share their storage in the file, as in PyTorch: a Tensor pickles as its *storage* (the
root NumPy array under it and its views, written once per pickle however many tensors use it)
plus its own offset, shape and strides into that storage (``_rebuild_tensor``). After ``load``,
``t`` and ``t[1:]`` / ``t.view(...)`` / ``t.T`` saved together still share memory (writing one
shows in the other) and keep their offsets and strides; each loaded tensor is a leaf, not a
view of the other (``_base`` is None), with ``_version`` 1, as PyTorch's. As in PyTorch the
whole storage is written even when only a slice of it is saved.
"""
from __future__ import annotations

import mmap as _mmap
import os
import pickle
import weakref

import numpy as np

from . import devices as _devices
from . import dtypes as _dt

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals",
           "safe_globals"]

# PyTorch 2.13's default allowlist (torch._weights_only_unpickler._get_allowed_globals), with
# minigrad's rebuild functions in place of torch's: no NumPy global is allowed by default.
_DEFAULT_ALLOWED = {
    ("minigrad.tensor", "_rebuild"), ("minigrad.tensor", "Size"),
    ("minigrad.nn.parameter", "_rebuild_parameter"), ("minigrad.dtypes", "as_dtype"),
    ("minigrad.serialization", "_rebuild_storage"), ("minigrad.serialization", "_rebuild_tensor"),
    ("minigrad.serialization", "_rebuild_storage"), ("minigrad.serialization", "_rebuild_tensor"),
    ("minigrad.devices", "device"), ("_codecs", "encode"),
    ("collections", "OrderedDict"), ("collections", "Counter"),
    ("builtins", "set"), ("builtins", "complex"), ("builtins", "bytearray"),
}
_marked_safe_globals: dict = {}      # the entries given, in order (a dict used as a set)


def add_safe_globals(safe_globals) -> None:
    """Allow these classes/functions in ``load(weights_only=True)``
    (``torch.serialization.add_safe_globals``).

    A checkpoint names each global by its full path ``{__module__}.{__qualname__}``
    (``minigrad.nn.modules.linear.Linear``, ``__main__.Net``); an entry matches that path, or
    the path given with it.

    Args:
        safe_globals: a list of objects, or of ``(obj, "module.qualname")`` pairs. Entries are
            checked when a file is loaded (as in PyTorch): a tuple not of length 2 raises
            ValueError, a non-str path TypeError.
    """
    for g in safe_globals:
        _marked_safe_globals[g] = None


def get_safe_globals() -> list:
    """The entries added by ``add_safe_globals`` (``torch.serialization.get_safe_globals``),
    as given (objects or ``(obj, path)`` pairs)."""
    return list(_marked_safe_globals)


def clear_safe_globals() -> None:
    """Forget every ``add_safe_globals`` entry (``torch.serialization.clear_safe_globals``)."""
    _marked_safe_globals.clear()


class safe_globals:
    """Context manager allowing globals for ``load(weights_only=True)`` inside its block
    (``torch.serialization.safe_globals``): ``add_safe_globals(entries)`` on entry, and on exit
    those entries are removed again (also when they had been added before the block, as in
    PyTorch).

    Args:
        safe_globals: as for ``add_safe_globals``.
    """

    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        add_safe_globals(self.safe_globals)

    def __exit__(self, type, value, tb):
        for g in self.safe_globals:
            _marked_safe_globals.pop(g, None)


def _user_allowed_globals() -> dict:
    """Full path -> object for every allowlisted entry (PyTorch's checks of the pairs)."""
    out = {}
    for g in _marked_safe_globals:
        if isinstance(g, tuple):
            if len(g) != 2:
                raise ValueError("Expected tuple of length 2 (global, str of callable full "
                                 f"path), but got tuple of length: {len(g)}")
            if type(g[1]) is not str:
                raise TypeError("Expected second item in tuple to be str of callable full path, "
                                f"but got: {type(g[1])}")
            out[g[1]] = g[0]
        else:
            out[f"{g.__module__}.{g.__qualname__}"] = g
    return out


def _weights_only_message(full: str) -> str:
    """PyTorch 2.13's text for a global that ``weights_only=True`` refuses, with minigrad's
    names."""
    return (
        "Weights only load failed. This file can still be loaded, to do so you have two options, "
        "\x1b[1mdo those steps only if you trust the source of the checkpoint\x1b[0m. \n"
        "\t(1) In PyTorch 2.6, we changed the default value of the `weights_only` argument in "
        "`torch.load` from `False` to `True` (minigrad.load's default is the same). Re-running "
        "`minigrad.load` with `weights_only` set to `False` will likely succeed, but it can "
        "result in arbitrary code execution. Do it only if you got the file from a trusted "
        "source.\n"
        "\t(2) Alternatively, to load with `weights_only=True` please check the recommended "
        "steps in the following error message.\n"
        f"\tWeightsUnpickler error: Unsupported global: GLOBAL {full} was not an allowed global "
        f"by default. Please use `minigrad.serialization.add_safe_globals([{full}])` or the "
        f"`minigrad.serialization.safe_globals([{full}])` context manager to allowlist this "
        "global if you trust this class/function.\n\n"
        "Check the documentation of minigrad.load (torch.load's) to learn more about types "
        "accepted by default with weights_only "
        "https://pytorch.org/docs/stable/generated/torch.load.html.")


class _WeightsOnlyUnpickler(pickle.Unpickler):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._user_allowed = _user_allowed_globals()

    def find_class(self, module, name):
        if (module, name) in _DEFAULT_ALLOWED:
            return super().find_class(module, name)
        full = f"{module}.{name}"
        if full in self._user_allowed:
            return self._user_allowed[full]
        if module == "builtins":     # PyTorch names builtins bare: "GLOBAL slice"
            full = name
        raise pickle.UnpicklingError(_weights_only_message(full))


def _is_path(f) -> bool:
    return isinstance(f, (str, os.PathLike))


def save(obj, f, pickle_module=pickle, pickle_protocol=pickle.DEFAULT_PROTOCOL) -> None:
    """Save ``obj`` (a Tensor, a ``state_dict``, an optimizer ``state_dict``, any picklable
    object) to ``f`` (mirrors ``torch.save``).

    Args:
        obj: the object; Tensors inside keep dtype (fp16/bf16 storage exactly), shape, values
            and ``requires_grad``; tensors shared inside ``obj`` stay shared after ``load``,
            and so do views of one storage (``t``, ``t[1:]``, ``t.T``: see the module
            docstring).
        f: a path (``str``/``os.PathLike``) or a binary file object with ``write``.
        pickle_module: module providing ``Pickler`` (default ``pickle``).
        pickle_protocol: pickle protocol (default ``pickle.DEFAULT_PROTOCOL``; torch uses 2).

    Raises:
        AttributeError / pickle.PicklingError: ``obj`` holds something unpicklable (lambdas,
            autograd graph nodes...).
    """
    if _is_path(f):
        with open(f, "wb") as fh:
            pickle_module.Pickler(fh, protocol=pickle_protocol).dump(obj)
    else:
        pickle_module.Pickler(f, protocol=pickle_protocol).dump(obj)


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """Load an object saved by ``save`` (mirrors ``torch.load``).

    Args:
        f: a path or a binary file object with ``read``/``readline``.
        map_location: where tensors go: a device or string for all, a dict from saved to
            wanted device strings (``{"cuda:0": "cpu"}``), or a callable
            ``f(storage, location)`` as in PyTorch (``lambda s, loc: s`` loads on the cpu,
            ``lambda s, loc: s.cuda()`` on cuda; returning None keeps the saved device); None
            keeps the saved devices.
        pickle_module: with ``weights_only=False``, the module whose ``Unpickler`` is used.
        weights_only: True (default when ``pickle_module`` is not given, as in PyTorch >= 2.6):
            only tensors, dtypes, NumPy arrays/scalars, primitive containers and
            ``add_safe_globals`` entries are unpickled. False: arbitrary pickle (trusted files).
        mmap: True reads the file through a read-only memory map (``f`` must be a path, as in
            PyTorch). Deliberate difference: PyTorch's tensors then live in the mapped file
            (copy-on-write pages); minigrad's storages are copied out of the map into their
            own arrays, which behave the same (writes never reach the file).
        **pickle_load_args: passed to the Unpickler (e.g. ``encoding``).

    Returns:
        The saved object.

    Raises:
        pickle.UnpicklingError: ``weights_only=True`` and the file references another global.
        RuntimeError: ``weights_only=True`` together with a ``pickle_module``; a
            ``torch.save`` file (a zip archive): the message gives the conversion recipe
            (``torch.load``, then ``load_state_dict`` or ``minigrad.testing.from_torch``).
        ValueError: ``mmap=True`` with a file object ("f must be a file path in order to use
            the mmap argument", PyTorch's).
        FileNotFoundError: no such path.
    """
    if weights_only is None:
        weights_only = pickle_module is None
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is "
                           "specified")
    if pickle_load_args and weights_only:
        import warnings
        warnings.warn("pickle_load_args only works if `weights_only=False`.")
    if mmap and not _is_path(f):
        raise ValueError("f must be a file path in order to use the mmap argument")
    with _devices.map_location(map_location):
        if mmap:
            with open(f, "rb") as fh:
                if os.fstat(fh.fileno()).st_size == 0:      # mmap cannot map an empty file
                    return _load(fh, weights_only, pickle_module, pickle_load_args)
                with _mmap.mmap(fh.fileno(), 0, access=_mmap.ACCESS_READ) as m:
                    return _load(_MappedFile(m), weights_only, pickle_module,
                                 pickle_load_args)
        if _is_path(f):
            with open(f, "rb") as fh:
                return _load(fh, weights_only, pickle_module, pickle_load_args)
        return _load(f, weights_only, pickle_module, pickle_load_args)


class _MappedFile:
    """A memory map read as a binary file (``read``, ``readline``, ``peek``, ``readinto``) by
    the unpickler, without reading the whole file into one ``bytes`` first."""

    def __init__(self, m):
        self._m = m

    def read(self, n=-1):
        return self._m.read(n)

    def readline(self):
        return self._m.readline()

    def readinto(self, b):
        data = self._m.read(len(b))
        b[:len(data)] = data
        return len(data)

    def peek(self, n=1):
        pos = self._m.tell()
        return self._m[pos:pos + n]


_ZIP_MAGIC = b"PK\x03\x04"
_TORCH_FILE_MSG = (
    "this file was written by torch.save (a zip archive), which minigrad.load cannot read: "
    "minigrad.save writes a plain pickle. Convert it with PyTorch installed: "
    "sd = torch.load(path, map_location='cpu'); model.load_state_dict(sd) accepts torch "
    "tensors directly, or convert each one with minigrad.testing.from_torch(t) "
    "(e.g. {k: from_torch(v) for k, v in sd.items()}) and minigrad.save the result.")


def _load(fh, weights_only, pickle_module, kw):
    if hasattr(fh, "peek"):
        head = fh.peek(4)[:4]
    else:
        pos = fh.tell() if hasattr(fh, "tell") and hasattr(fh, "seek") else None
        head = fh.read(4) if pos is not None else b""
        if pos is not None:
            fh.seek(pos)
    if head == _ZIP_MAGIC:
        raise RuntimeError(_TORCH_FILE_MSG)
    if weights_only:
        return _WeightsOnlyUnpickler(fh, **kw).load()
    return (pickle_module or pickle).Unpickler(fh, **kw).load()


# ---------------------------------------------------------------- tensors and their storages
class _Storage:
    """One storage (the root array under a tensor and its views) as it pickles: the pickler's
    memo writes it once per file, and every tensor on it refers to it (PyTorch's storages in
    ``torch.save``). ``_live`` hands all tensors pickled together on one root the same
    ``_Storage`` object; it lives only as long as a pickler (or a caller) holds it."""

    __slots__ = ("root", "__weakref__")

    def __init__(self, root):
        self.root = root

    def __reduce_ex__(self, proto):
        r = self.root
        try:
            dtype_name = _dt.from_numpy(r.dtype).name
            shape = tuple(r.shape) if r.flags.c_contiguous else (r.size,)
        except TypeError:                 # a NumPy dtype minigrad has no name for: raw bytes
            dtype_name, shape = "uint8", (r.nbytes,)
        # order="A": the bytes as they lie in memory (C order, or F order for an F root)
        return (_rebuild_storage, (r.tobytes(order="A"), shape, dtype_name))


_live: "weakref.WeakValueDictionary[int, _Storage]" = weakref.WeakValueDictionary()


def _storage_of(root) -> _Storage:
    s = _live.get(id(root))
    if s is None or s.root is not root:
        s = _live[id(root)] = _Storage(root)
    return s


def reduce_tensor(t, kind, fallback):
    """``Tensor.__reduce_ex__`` (``kind`` "Tensor") / ``Parameter.__reduce_ex__`` ("Parameter"):
    ``(_rebuild_tensor, (storage, byte offset, shape, byte strides, dtype name, requires_grad,
    device, kind))``; ``(fallback, minigrad.tensor._storage_args(t))`` (a contiguous copy of
    ``t`` alone) when ``t``'s root is not one block of memory."""
    from .storage_accounting import root_of
    from .tensor import _storage_args
    arr = t._data
    root = root_of(arr)
    if not (root.flags.c_contiguous or root.flags.f_contiguous):
        return (fallback, _storage_args(t))
    offset = (int(arr.__array_interface__["data"][0])
              - int(root.__array_interface__["data"][0])) if arr.size else 0
    return (_rebuild_tensor, (_storage_of(root), offset, tuple(arr.shape), tuple(arr.strides),
                              t.dtype.name, t._requires_grad, str(t._device), kind))


def _rebuild_storage(data, shape, dtype_name):
    """Unpickles a storage: a fresh, writable array owning its memory."""
    return np.frombuffer(data, dtype=_dt.as_dtype(dtype_name).np).reshape(shape).copy()


def _rebuild_tensor(root, offset, shape, strides, dtype_name, requires_grad, device,
                    kind="Tensor"):
    """Unpickles a Tensor (``kind`` "Tensor") or Parameter (``kind`` "Parameter") on the
    storage ``root`` (PyTorch's ``_rebuild_tensor_v2``): the root itself when the tensor is all
    of it, laid out as it is; else a NumPy view into it at ``offset`` with ``strides`` (bytes)."""
    from .devices import restore_device, track_storage
    from .tensor import Tensor
    dtype = _dt.as_dtype(dtype_name)
    if (offset == 0 and root.dtype == dtype.np and root.shape == tuple(shape)
            and root.strides == tuple(strides)):
        arr = root
    else:
        arr = np.ndarray(shape, dtype=dtype.np, buffer=root, offset=offset, strides=strides)
    if kind == "Parameter":
        from .nn.parameter import Parameter
        t = Parameter._make(arr, dtype, requires_grad)
    else:
        t = Tensor._make(arr, dtype)
        t._requires_grad = requires_grad
    t._vc = [1]                 # PyTorch's rebuild sets the storage in place: version 1
    dev = restore_device(device, root)
    if dev is not t._device:
        t._device = dev
        track_storage(t)
    return t
