"""Saving and loading objects holding Tensors (mirrors ``torch.save`` / ``torch.load``), in
PyTorch's checkpoint format: files are interchangeable with PyTorch 2.13's both ways.

The file (PyTorch's ``torch.serialization._save`` / ``_load``) is an uncompressed zip archive
whose records sit in one folder, ``<name>/`` (the file name without its extension, or
``archive/`` for a file object): ``data.pkl`` (the object, pickled with protocol 2),
``.format_version`` ("1"), ``.storage_alignment`` ("64"), ``byteorder`` ("little"),
``data/<key>`` (each storage's raw bytes, little-endian), ``version`` ("3") and
``.data/serialization_id``; each record's bytes start at a multiple of 64 in the file (the local
header's extra field is padded), so a memory map sees aligned storages. In ``data.pkl`` a
storage is a persistent id ``('storage', torch.FloatStorage, '0', 'cpu', numel)`` (the legacy
storage class names the dtype: ``torch.BFloat16Storage``, ``torch.HalfStorage``,
``torch.BoolStorage``...; the float8 formats use ``torch.storage.UntypedStorage`` and name their
dtype in ``_rebuild_tensor_v3``); a tensor is ``torch._utils._rebuild_tensor_v2(storage,
storage_offset, size, stride, requires_grad, OrderedDict())`` (offset and strides in elements),
a Parameter ``torch._utils._rebuild_parameter(data, requires_grad, OrderedDict())``, a dtype
``torch.float32``, a device ``torch.device('cuda', 0)``, a shape ``torch.Size``. minigrad never
imports torch: ``save`` writes those names itself (a pure-Python pickler whose ``save_global``
writes them), and ``load`` maps them to minigrad's objects. Autograd history is not saved
(requires_grad is, as in PyTorch); a state dict's ``_metadata`` travels as an attribute of its
``OrderedDict``; attributes set on a tensor travel as PyTorch's (``_rebuild_from_type_v2`` /
``_rebuild_parameter_with_state``).

``load(weights_only=True)`` (the default, as in PyTorch >= 2.6) unpickles only tensors, dtypes,
devices, ``Size``, storages and plain containers/scalars (``OrderedDict`` and ``Counter``
included), PyTorch's rebuild functions (its ``_weights_only_unpickler`` allowlist), plus globals
allowed with ``add_safe_globals`` or the ``safe_globals`` context manager: as in PyTorch, a
NumPy array or scalar, a ``slice``, ``frozenset`` or ``defaultdict`` is refused by default.
``load`` still reads the plain pickles that ``minigrad.save`` wrote before it wrote PyTorch's
format (not a zip archive: ``_rebuild_tensor`` and ``_rebuild_storage`` below).

Whole models: ``save(model, f)`` pickles the module objects, which name their classes by path:
minigrad's layers live under PyTorch's paths (``minigrad.nn.modules.linear.Linear``,
``minigrad.nn.modules.container.Sequential``...), so a whole-model checkpoint names the same
classes as a PyTorch one, and ``load(f)`` (``weights_only=True``) refuses it with PyTorch's
message naming the first class to allow; ``load(f, weights_only=False)`` or allowlisting every
class named (the model's own class, each layer class) loads it. A whole model saved by PyTorch
loads the same way, as minigrad's modules: ``torch.nn.modules.linear.Linear`` in the file is
``minigrad.nn.modules.linear.Linear`` (allowlisted by either path).

Views share their storage in the file, as in PyTorch: a Tensor pickles as its *storage* (the
root NumPy array under it and its views, written once per file however many tensors use it)
plus its own offset, shape and strides into that storage. After ``load``,
``t`` and ``t[1:]`` / ``t.view(...)`` / ``t.T`` saved together still share memory (writing one
shows in the other) and keep their offsets and strides; each loaded tensor is a leaf, not a
view of the other (``_base`` is None), with ``_version`` 1, as PyTorch's. As in PyTorch the
whole storage is written even when only a slice of it is saved.
"""
from __future__ import annotations

import io
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


def save(obj, f, pickle_module=pickle, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False) -> None:
    """Save ``obj`` (a Tensor, a ``state_dict``, an optimizer ``state_dict``, any picklable
    object) to ``f`` in PyTorch's zip format (mirrors ``torch.save``; ``torch.load`` reads it).

    Args:
        obj: the object; Tensors inside keep dtype (fp16/bf16 storage exactly), shape, strides,
            storage offset, values and ``requires_grad``; tensors shared inside ``obj`` stay
            shared after ``load``, and so do views of one storage (``t``, ``t[1:]``, ``t.T``:
            see the module docstring).
        f: a path (``str``/``os.PathLike``) or a binary file object with ``write``. A path
            names the archive's folder (``ckpt.pt`` -> ``ckpt/``), a file object ``archive/``.
        pickle_module: the module whose pure-Python ``_Pickler`` (``pickle``'s) or ``Pickler``
            (``dill``'s...) writes ``data.pkl``.
        pickle_protocol: pickle protocol (default 2, PyTorch's ``DEFAULT_PROTOCOL``).
        _use_new_zipfile_serialization: must be True (the legacy pre-1.6 format is not
            written).
        _disable_byteorder_record: leave out the ``byteorder`` record.

    Raises:
        AttributeError / pickle.PicklingError: ``obj`` holds something unpicklable (lambdas,
            autograd graph nodes...).
        RuntimeError: tensors viewing one storage as different dtypes (PyTorch's message); a
            path whose name gives an empty archive name (``.hidden``).
        NotImplementedError: ``_use_new_zipfile_serialization=False``.
    """
    if not _use_new_zipfile_serialization:
        raise NotImplementedError("minigrad.save writes only the zip format "
                                  "(_use_new_zipfile_serialization=True)")
    data = io.BytesIO()
    base = getattr(pickle_module, "_Pickler", None) or pickle_module.Pickler
    pickler = _zip_pickler_class(base)(data, pickle_protocol)
    pickler.dump(obj)
    if _is_path(f):
        name = _archive_name(f)
        with open(f, "wb") as fh:
            _write_zip(fh, name, data.getvalue(), pickler.storages, _disable_byteorder_record)
    else:
        _write_zip(f, "archive", data.getvalue(), pickler.storages, _disable_byteorder_record)


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """Load an object saved by ``save`` or by ``torch.save`` (mirrors ``torch.load``).

    Reads PyTorch's zip checkpoints (``torch.save``'s and ``save``'s: ``.pt`` / ``.pth`` files,
    state dicts, optimizer state dicts, whole models) and the plain pickles that ``save``
    wrote before it wrote PyTorch's format. Tensors come back with their dtype (fp16/bf16 bits
    exactly), shape, strides, storage offset and ``requires_grad``; views saved together share
    memory again.

    Args:
        f: a path or a binary file object with ``read``/``readline`` (and ``seek``/``tell``
            for a zip checkpoint; one without them is read into memory first).
        map_location: where tensors go: a device or string for all, a dict from saved to
            wanted device strings (``{"cuda:0": "cpu"}``), or a callable
            ``f(storage, location)`` called once per storage as in PyTorch
            (``lambda s, loc: s`` loads on the cpu, ``lambda s, loc: s.cuda()`` on cuda;
            returning None keeps the saved device); None keeps the saved devices.
        pickle_module: with ``weights_only=False``, the module whose ``Unpickler`` is used.
        weights_only: True (default when ``pickle_module`` is not given, as in PyTorch >= 2.6):
            only tensors, dtypes, devices, primitive containers, PyTorch's rebuild functions and
            ``add_safe_globals`` entries are unpickled. False: arbitrary pickle (trusted files;
            PyTorch's classes ``torch.nn...`` load as minigrad's ``minigrad.nn...``).
        mmap: True reads the file through a read-only memory map (``f`` must be a path, as in
            PyTorch). Deliberate difference: PyTorch's tensors then live in the mapped file
            (copy-on-write pages); minigrad's storages are copied out of the map into their
            own arrays, which behave the same (writes never reach the file).
        **pickle_load_args: passed to the Unpickler (e.g. ``encoding``).

    Returns:
        The saved object.

    Raises:
        pickle.UnpicklingError: ``weights_only=True`` and the file references another global
            (PyTorch's message, naming it); a persistent id that is not a storage.
        RuntimeError: ``weights_only=True`` together with a ``pickle_module``; a zip archive
            with no ``data.pkl``.
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

    def seek(self, pos, whence=0):
        return self._m.seek(pos, whence)

    def tell(self):
        return self._m.tell()

    def seekable(self):
        return True


_ZIP_MAGIC = b"PK\x03\x04"


def _load(fh, weights_only, pickle_module, kw):
    if hasattr(fh, "peek"):
        head = fh.peek(4)[:4]
    else:
        pos = fh.tell() if hasattr(fh, "tell") and hasattr(fh, "seek") else None
        head = fh.read(4) if pos is not None else b""
        if pos is not None:
            fh.seek(pos)
    if head == _ZIP_MAGIC:
        return _load_zip(fh, weights_only, pickle_module, kw)
    if weights_only:          # a plain pickle: minigrad.save's format before the zip one
        obj = _WeightsOnlyUnpickler(fh, **kw).load()
    else:
        obj = (pickle_module or pickle).Unpickler(fh, **kw).load()
    if type(obj) is int and obj == _LEGACY_MAGIC:
        raise RuntimeError("this file is in PyTorch's legacy (pre-1.6) serialization format "
                           "(torch.save(..., _use_new_zipfile_serialization=False)), which "
                           "minigrad does not read; re-save it with PyTorch's default format")
    return obj


#: PyTorch dtypes (and their storage classes) minigrad has no counterpart for
_TORCH_ONLY_DTYPES = {n: kind for kind, names in (
    ("unsigned 16/32/64-bit", ("uint16", "uint32", "uint64")),
    ("complex", ("complex32", "complex64", "complex128", "cfloat", "cdouble", "chalf",
                 "ComplexFloatStorage", "ComplexDoubleStorage", "ComplexHalfStorage")),
    ("quantized", ("qint8", "quint8", "qint32", "quint4x2", "QInt8Storage", "QUInt8Storage",
                   "QInt32Storage"))) for n in names}

#: the first pickled object of PyTorch's legacy (pre-1.6, non-zip) format
_LEGACY_MAGIC = 0x1950a86a20f9469cfc6c


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


# ---------------------------------------------------------------- PyTorch's zip format
# The legacy storage class naming each dtype's storage in a checkpoint (torch.FloatStorage...);
# the dtypes without one (the float8 formats) save an UntypedStorage of bytes and name their
# dtype in ``_rebuild_tensor_v3``, as PyTorch 2.13 does.
_STORAGE_CLASS = {d.name: d.legacy_name.replace("Tensor", "Storage")     # DoubleStorage...
                  for d in _dt.all_dtypes if not d.is_float8}
_STORAGE_ALIGNMENT = 64          # each record's bytes start at a multiple of 64 in the file


class _TorchName:
    """A global of PyTorch's (``torch._utils._rebuild_tensor_v2``, ``torch.FloatStorage``...)
    as ``save`` writes it into ``data.pkl``: the pickler writes ``GLOBAL module name`` for it
    (minigrad never imports torch); it is never called."""

    __slots__ = ("module", "name")

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __call__(self, *args):          # pickle requires a reduce's callable to be callable
        raise TypeError(f"{self.module}.{self.name} stands for PyTorch's global in a file")

    def __reduce__(self):
        return self.name                # "save as a global": the pickler's save_global


_names: dict = {}


def _torch_name(module, name) -> _TorchName:
    """One ``_TorchName`` per global, so the pickler's memo writes each once per file."""
    key = (module, name)
    g = _names.get(key)
    if g is None:
        g = _names[key] = _TorchName(module, name)
    return g


class _SavedStorage:
    """One storage in a file being saved: its persistent id
    ``('storage', <storage class>, key, location, numel)`` and the array whose memory it is."""

    __slots__ = ("pid", "root", "dtype")

    def __init__(self, pid, root, dtype):
        self.pid, self.root, self.dtype = pid, root, dtype


class _AsData:
    """``Parameter.data`` as ``_rebuild_parameter``'s first argument pickles it: the
    parameter's storage view with ``requires_grad`` False."""

    __slots__ = ("t",)

    def __init__(self, t):
        self.t = t


def _location(dev) -> str:
    """PyTorch's ``location_tag`` of a storage on ``dev``: "cpu", "cuda:0"."""
    if dev.type == "cpu":
        return "cpu"
    return f"{dev.type}:{0 if dev.index is None else dev.index}"


def _zip_pickler_class(base):
    """A pickler class on ``base`` (``pickle._Pickler``: the pure-Python one, whose
    ``save_global`` can name PyTorch's globals) writing what ``torch.save`` writes: tensors as
    ``torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad,
    OrderedDict())`` over a persistent id per storage, parameters as
    ``torch._utils._rebuild_parameter(data, requires_grad, OrderedDict())``, dtypes as
    ``torch.float32``..., devices as ``torch.device('cuda', 0)``, shapes as ``torch.Size``."""
    from collections import OrderedDict

    from .devices import device
    from .nn.parameter import Parameter, UninitializedParameter
    from .storage_accounting import root_of
    from .tensor import Size, Tensor

    class _ZipPickler(base):
        def __init__(self, file, protocol):
            super().__init__(file, protocol)
            self.storages: dict = {}           # key -> _SavedStorage, in order of appearance
            self._by_root: dict = {}           # id(root) -> _SavedStorage
            self._keep: list = []              # copies made here live until the pickle ends

        def persistent_id(self, obj):
            return obj.pid if type(obj) is _SavedStorage else None

        def save_global(self, obj, name=None):
            if type(obj) is _TorchName:
                module, name = obj.module, obj.name
            elif isinstance(obj, _dt.DType):
                module, name = "torch", obj.name
            else:
                return super().save_global(obj, name)
            self.write(pickle.GLOBAL + module.encode() + b"\n" + name.encode() + b"\n")
            self.memoize(obj)

        def _storage(self, root, dtype, location):
            """The ``_SavedStorage`` of ``root`` (one per root per file)."""
            s = self._by_root.get(id(root))
            if s is not None:
                if s.dtype is not dtype and s.dtype.name in _STORAGE_CLASS:
                    raise RuntimeError("Cannot save multiple tensors or storages that view the "
                                       "same data as different types")
                return s
            key = str(len(self.storages))
            if dtype.name in _STORAGE_CLASS:
                cls = _torch_name("torch", _STORAGE_CLASS[dtype.name])
                numel = root.nbytes // dtype.np.itemsize
            else:
                cls, numel = _torch_name("torch.storage", "UntypedStorage"), root.nbytes
            s = _SavedStorage(("storage", cls, key, location, numel), root, dtype)
            self.storages[key] = self._by_root[id(root)] = s
            self._keep.append(root)
            return s

        def _reduce_tensor(self, t, requires_grad):
            arr, dtype = t._data, t.dtype
            size = dtype.np.itemsize
            root = root_of(arr)
            strides = arr.strides
            offset = (int(arr.__array_interface__["data"][0])
                      - int(root.__array_interface__["data"][0])) if arr.size else 0
            if not (root.flags.c_contiguous or root.flags.f_contiguous) or offset % size \
                    or any(st < 0 or st % size for st in strides):
                # not expressible as (offset, strides) in elements of one block: a copy of
                # the tensor alone is its storage (PyTorch's storages are always one block)
                arr = root = np.ascontiguousarray(arr)
                strides, offset = arr.strides, 0
            if arr.size == 0:
                strides = tuple(t.stride())
            else:
                strides = tuple(st // size for st in strides)
            s = self._storage(root, dtype, _location(t._device))
            args = (s, offset // size, tuple(arr.shape), strides, requires_grad,
                    OrderedDict())
            if dtype.name in _STORAGE_CLASS:
                return (_torch_name("torch._utils", "_rebuild_tensor_v2"), args)
            return (_torch_name("torch._utils", "_rebuild_tensor_v3"), args + (dtype,))

        def reducer_override(self, obj):
            tp = type(obj)
            if tp is _AsData:
                return self._reduce_tensor(obj.t, False)
            if not isinstance(obj, Tensor) or isinstance(obj, UninitializedParameter):
                pass
            elif isinstance(obj, Parameter):
                # a Parameter pickles its data; attributes set on it travel as
                # _rebuild_parameter_with_state's state
                args = (_AsData(obj), obj._requires_grad, OrderedDict())
                state = _user_state(obj)
                if not state:
                    return (_torch_name("torch._utils", "_rebuild_parameter"), args)
                return (_torch_name("torch._utils", "_rebuild_parameter_with_state"),
                        args + (state,))
            else:
                rv = self._reduce_tensor(obj, obj._requires_grad)
                state = _user_state(obj)
                if tp is Tensor and not state:
                    return rv
                # a Tensor subclass, or attributes set on a Tensor:
                # _rebuild_from_type_v2(func, type, args, attributes)
                return (_torch_name("torch._tensor", "_rebuild_from_type_v2"),
                        (rv[0], tp, rv[1], state))
            if tp is device:
                return (_torch_name("torch", "device"),
                        (obj.type,) if obj.index is None else (obj.type, obj.index))
            if tp is Size:
                return (_torch_name("torch", "Size"), (tuple(obj),))
            if isinstance(obj, _dt.DType):
                return obj.name                # save_global writes GLOBAL torch <name>
            return NotImplemented

    return _ZipPickler


def _user_state(t) -> dict:
    """The attributes a user set on the tensor ``t`` (its ``__dict__`` less minigrad's own
    bookkeeping, which ``Tensor`` declares at class level: ``_grad``, ``_device``...)."""
    from .tensor import Tensor
    d = getattr(t, "__dict__", None)
    return {k: v for k, v in d.items() if not hasattr(Tensor, k)} if d else {}


def _archive_name(f) -> str:
    """The folder of PyTorch's archive for the path ``f``: its file name without the last
    extension (``ckpt.pt`` -> ``ckpt``, ``a.b.pt`` -> ``a.b``)."""
    base = os.path.basename(os.fsdecode(os.fspath(f)))
    stem = base.rpartition(".")[0] if "." in base else base
    if not stem:
        raise RuntimeError(f"invalid file name: {os.fsdecode(os.fspath(f))}")
    return stem


def _write_zip(fh, name, pkl, storages, no_byteorder):
    """The archive as PyTorch 2.13 writes it: records ``data.pkl``, ``.format_version``,
    ``.storage_alignment``, ``byteorder``, ``data/<key>`` for each storage (its raw bytes,
    little-endian), ``version``, ``.data/serialization_id``; uncompressed, each record's bytes
    aligned to 64 in the file by padding its local header's extra field (PyTorch's "FB"
    field), so a memory map of the file sees aligned storages."""
    import random
    import struct
    import zipfile

    with zipfile.ZipFile(fh, "w", zipfile.ZIP_STORED, allowZip64=True) as z:
        def record(rname, data):
            info = zipfile.ZipInfo(f"{name}/{rname}", date_time=(1980, 1, 1, 0, 0, 0))
            nbytes = data.nbytes if isinstance(data, np.ndarray) else len(data)
            zip64 = 20 if nbytes * 1.05 > zipfile.ZIP64_LIMIT else 0   # zipfile's own test
            start = z.fp.tell() + 30 + len(info.filename.encode()) + 4 + zip64
            pad = -start % _STORAGE_ALIGNMENT
            info.extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
            z.writestr(info, data)

        record("data.pkl", pkl)
        record(".format_version", b"1")
        record(".storage_alignment", str(_STORAGE_ALIGNMENT).encode())
        if not no_byteorder:
            record("byteorder", b"little")
        for key, s in storages.items():
            r = s.root if s.root.flags.c_contiguous else s.root.T    # memory order
            r = r.reshape(-1).view(np.uint8)
            if r.dtype.byteorder == ">":                            # never on x86 / arm
                r = r.byteswap()
            record(f"data/{key}", r)
        record("version", b"3\n")
        record(".data/serialization_id",
               "".join(random.choice("0123456789") for _ in range(40)).encode())


class _StorageClass:
    """A storage class named in a checkpoint's persistent ids (``torch.FloatStorage``,
    ``torch.storage.UntypedStorage``): the dtype of the storage's elements."""

    __slots__ = ("dtype",)

    def __init__(self, dtype):
        self.dtype = dtype


def _torch_globals() -> dict:
    """(module, name) -> minigrad's object, for every PyTorch global ``load`` reads from a zip
    checkpoint with ``weights_only=True`` (PyTorch 2.13's ``_get_allowed_globals`` less the
    quantized, sparse and nested tensors that minigrad does not have)."""
    from .devices import device
    from .nn.parameter import Parameter
    from .tensor import Size, Tensor
    g = {("torch._utils", "_rebuild_tensor"): _rebuild_tensor_v1,
         ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor_v2,
         ("torch._utils", "_rebuild_tensor_v3"): _rebuild_tensor_v3,
         ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
         ("torch._utils", "_rebuild_parameter_with_state"): _rebuild_parameter_with_state,
         ("torch._tensor", "_rebuild_from_type_v2"): _rebuild_from_type_v2,
         ("torch", "Size"): Size, ("torch", "device"): device, ("torch", "Tensor"): Tensor,
         ("torch.nn.parameter", "Parameter"): Parameter,
         ("torch.storage", "UntypedStorage"): _StorageClass(_dt.as_dtype("uint8"))}
    for dname, cls in _STORAGE_CLASS.items():
        g[("torch", cls)] = _StorageClass(_dt.as_dtype(dname))
    for d in list(vars(_dt).values()):
        if isinstance(d, _dt.DType):
            g[("torch", d.name)] = d
    return g


def _load_zip(fh, weights_only, pickle_module, kw):
    """Read a zip checkpoint (``torch.save``'s or ``save``'s): ``data.pkl`` unpickled with
    each persistent id ``('storage', <class>, key, location, numel)`` read from ``data/<key>``
    once (views share it), placed by ``map_location`` (``minigrad.devices.restore_device``)."""
    import io as _io
    import zipfile
    if not (hasattr(fh, "seek") and hasattr(fh, "tell")):
        fh = _io.BytesIO(fh.read())
    z = zipfile.ZipFile(fh)
    pkl = [n for n in z.namelist() if n.endswith("/data.pkl") and n.count("/") == 1] or \
        [n for n in z.namelist() if n == "data.pkl" or n.endswith("/data.pkl")]
    if not pkl:
        raise RuntimeError("PytorchStreamReader failed locating file data.pkl: file not found")
    prefix = pkl[0][:-len("data.pkl")]
    names = set(z.namelist())
    from .devices import restore_device
    swap = prefix + "byteorder" in names and z.read(prefix + "byteorder") == b"big"
    loaded: dict = {}

    def persistent_load(pid):
        if not (isinstance(pid, tuple) and len(pid) >= 5 and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"Only persistent_load of storage is allowed, but "
                                         f"got {pid[0] if isinstance(pid, tuple) else pid}")
        _, cls, key, location, numel = pid[:5]
        if key not in loaded:
            if not isinstance(cls, _StorageClass):
                raise pickle.UnpicklingError(f"unknown storage type {cls!r}")
            arr = _read_storage(z, fh, prefix + f"data/{key}", cls.dtype.np, swap)
            loaded[key] = (arr, restore_device(location, arr))
        return loaded[key]

    table = _torch_globals()
    from_torch = _zip_unpickler_class(_WeightsOnlyUnpickler if weights_only else
                                      (pickle_module or pickle).Unpickler, table)
    u = from_torch(_io.BytesIO(z.read(pkl[0])), **kw)
    u.persistent_load = persistent_load
    return u.load()


def _zip_unpickler_class(base, table):
    import _compat_pickle

    class _ZipUnpickler(base):
        def find_class(self, module, name):
            # protocol 2 names some modules as Python 2 did (__builtin__...)
            if (module, name) in _compat_pickle.NAME_MAPPING:
                module, name = _compat_pickle.NAME_MAPPING[(module, name)]
            elif module in _compat_pickle.IMPORT_MAPPING:
                module = _compat_pickle.IMPORT_MAPPING[module]
            got = table.get((module, name))
            if got is not None:
                return got
            if module == "torch" and name in _TORCH_ONLY_DTYPES:
                raise RuntimeError(f"this checkpoint holds torch.{name} tensors "
                                   f"({_TORCH_ONLY_DTYPES[name]}): minigrad has no such dtype; "
                                   "convert them in PyTorch before saving (e.g. .to(torch.int64) "
                                   "or .real)")
            if module == "torch" or module.startswith("torch."):
                # PyTorch's classes (a whole torch.nn model) load as minigrad's counterparts
                # under the same path (minigrad.nn.modules.linear.Linear...); under
                # weights_only they must be allowlisted (by either path)
                ours = "minigrad" + module[5:]
                if isinstance(self, _WeightsOnlyUnpickler):
                    got = self._user_allowed.get(f"{ours}.{name}")
                    if got is not None:
                        return got
                else:
                    try:
                        return super().find_class(ours, name)
                    except (ImportError, AttributeError):
                        pass
            return super().find_class(module, name)

    return _ZipUnpickler


def _read_storage(z, fh, rname, np_dtype, swap):
    """The record ``rname`` as a fresh writable 1-D array of ``np_dtype``: an uncompressed
    record's bytes are read straight into it (one copy), a compressed one through zipfile."""
    import struct
    import zipfile
    info = z.getinfo(rname)
    out = np.empty(info.file_size, dtype=np.uint8)
    if info.compress_type == zipfile.ZIP_STORED and info.file_size:
        fh.seek(info.header_offset + 26)
        n, e = struct.unpack("<HH", fh.read(4))
        start = info.header_offset + 30 + n + e
        if isinstance(fh, _MappedFile):
            out[:] = np.frombuffer(fh._m, np.uint8, info.file_size, start)
        else:
            fh.seek(start)
            if hasattr(fh, "readinto"):
                fh.readinto(memoryview(out))
            else:
                out[:] = np.frombuffer(fh.read(info.file_size), np.uint8)
    elif info.file_size:
        out[:] = np.frombuffer(z.read(rname), np.uint8)
    arr = out.view(np_dtype)
    return arr.byteswap() if swap and arr.itemsize > 1 else arr


def _tensor_on(storage, dtype, storage_offset, size, stride, requires_grad):
    """A Tensor viewing the loaded storage ``(array, device)`` as PyTorch's
    ``Tensor.set_(storage, storage_offset, size, stride)`` does (offset and strides counted in
    ``dtype`` elements)."""
    from .devices import track_storage
    from .tensor import Tensor
    root, dev = storage
    if root.dtype != dtype.np:
        root = root.view(dtype.np)
    item = dtype.np.itemsize
    size, stride = tuple(size), tuple(stride)
    if storage_offset == 0 and root.shape == size and root.strides == tuple(
            s * item for s in stride):
        arr = root
    else:
        arr = np.ndarray(size, dtype=dtype.np, buffer=root, offset=storage_offset * item,
                         strides=tuple(s * item for s in stride))
    t = Tensor._make(arr, dtype)
    t._requires_grad = bool(requires_grad)
    t._vc = [1]                 # PyTorch's rebuild sets the storage in place: version 1
    if dev is not t._device:
        t._device = dev
        track_storage(t)
    return t


def _rebuild_tensor_v1(storage, storage_offset, size, stride):
    """``torch._utils._rebuild_tensor`` (checkpoints of PyTorch < 1.?: no requires_grad)."""
    from .dtypes import from_numpy
    return _tensor_on(storage, from_numpy(storage[0].dtype), storage_offset, size, stride,
                      False)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       metadata=None):
    """``torch._utils._rebuild_tensor_v2``: a tensor of the storage's dtype (hooks and the
    conj/neg metadata of complex tensors, which minigrad lacks, are dropped)."""
    from .dtypes import from_numpy
    return _tensor_on(storage, from_numpy(storage[0].dtype), storage_offset, size, stride,
                      requires_grad)


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       dtype, metadata=None):
    """``torch._utils._rebuild_tensor_v3``: a tensor of ``dtype`` on an untyped storage (the
    dtypes with no legacy storage class: float8...)."""
    return _tensor_on(storage, dtype, storage_offset, size, stride, requires_grad)


def _rebuild_parameter(data, requires_grad, backward_hooks):
    """``torch._utils._rebuild_parameter``: ``Parameter(data, requires_grad)``."""
    from .nn.parameter import Parameter
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    """``torch._utils._rebuild_parameter_with_state``: a Parameter with Python attributes."""
    return _set_obj_state(_rebuild_parameter(data, requires_grad, backward_hooks), state)


def _set_obj_state(obj, state):
    """``torch._utils._set_obj_state``: ``state`` is a dict of attributes or a
    ``(dict, slots dict)`` pair."""
    if isinstance(state, tuple):
        dict_state, slots = state
    else:
        dict_state, slots = state, None
    for k, v in (dict_state or {}).items():
        setattr(obj, k, v)
    for k, v in (slots or {}).items():
        setattr(obj, k, v)
    return obj


def _rebuild_from_type_v2(func, new_type, args, state):
    """``torch._tensor._rebuild_from_type_v2``: ``func(*args)`` as an instance of ``new_type``
    (a Tensor subclass) with the attributes ``state``."""
    ret = func(*args)
    if type(ret) is not new_type:
        ret.__class__ = new_type
    return _set_obj_state(ret, state)
