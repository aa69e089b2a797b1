"""Devices: ``minigrad.device`` objects, their parsing, and the rule for which device an op runs on.

Mirrors ``torch.device``. minigrad has two devices that tensors can live on:

- ``cpu``: host memory, NumPy kernels.
- ``cuda``: an *emulated* GPU. Its tensors also live in host memory and run the very same NumPy
  kernels with the same round-once numerics, but they carry the device, and everything PyTorch ties
  to the device follows it: ``autocast("cuda")`` only touches cuda tensors, an op mixing cpu and
  cuda tensors raises PyTorch's error, ``.numpy()`` on a cuda tensor raises. There is one emulated
  GPU (``cuda:0``). Setting the environment variable ``MINIGRAD_EMULATE_CUDA=0`` turns the
  emulation off: ``minigrad.cuda.is_available()`` is then False and making a cuda tensor raises
  PyTorch's error for a build without CUDA, so a script takes its CPU path.

Every tensor reads its device from ``Tensor._device``, a class attribute (cpu) that a cuda tensor
overrides on the instance, so the per-op hot path pays nothing while no cuda tensor exists
(``state.cuda_seen`` stays False until the first one is made). From then on the dispatcher calls
``run_on_device`` for every op: it applies PyTorch's same-device rule to the op's tensor
arguments, runs the op, and puts its results on that device.

The same-device rule is checked where a user calls an op. Ops that a kernel or a backward
formula dispatches internally (``depth > 0``, or while the autograd engine runs) only follow the
device of their inputs, without the check: their helper tensors (masks, constants made with
``Tensor._make``) are implementation details that PyTorch would have made on the device.
"""
from __future__ import annotations

import contextlib
import os
import re
import threading

from . import dtypes as _dt

__all__ = ["device", "CPU", "CUDA0", "as_device", "common_device", "place", "check_available",
           "run_on_device", "parse_to", "map_location", "restore_device", "OWN_DEVICE",
           "LENIENT", "set_default_device", "get_default_device", "default_device",
           "DEVICE_CONSTRUCTORS"]

# PyTorch's device types, in the order of its "Expected one of ..." message; the number is
# c10::DeviceType, used (as PyTorch does) in the hash.
_TYPES = {"cpu": 0, "cuda": 1, "ipu": 18, "xpu": 12, "mkldnn": 2, "opengl": 3, "opencl": 4,
          "ideep": 5, "hip": 6, "ve": 16, "fpga": 7, "maia": 8, "xla": 9, "lazy": 17,
          "vulkan": 10, "mps": 13, "meta": 14, "hpu": 15, "mtia": 19, "privateuseone": 20}
_STRING_RE = re.compile(r"([A-Za-z_]+)(?::(0|[1-9][0-9]*))?")


_NO_INDEX = object()


class device:
    """Where a tensor lives (``torch.device``).

    ``device("cpu")``, ``device("cuda")``, ``device("cuda:0")``, ``device("cuda", 0)`` or
    ``device(other_device)``. Immutable and hashable; equal when type and index are equal
    (``device("cuda") != device("cuda:0")``, as in PyTorch).

    Attributes:
        type: the device type string ("cpu", "cuda", "meta"...).
        index: the device ordinal, or None when not given.

    Raises:
        RuntimeError: an unknown device type ("Expected one of cpu, cuda, ... device type at start
            of device string: banana"), a malformed string ("Invalid device string: 'cuda:x'"),
            a negative index, or an index passed both in the string and as an argument.
        TypeError: arguments of the wrong types (PyTorch's overload message).

    Deliberate difference: ``device(0)`` (a bare ordinal) means ``cuda:0`` whether or not the
    emulation is on; PyTorch raises when no accelerator is present.
    """

    __slots__ = ("_type", "_index")

    def __new__(cls, type_or_device=None, index=_NO_INDEX):
        """Parse and validate; see the class docstring."""
        explicit = index is not _NO_INDEX        # even None counts as given, as in PyTorch
        index = None if index is _NO_INDEX else index
        if isinstance(type_or_device, device):
            if explicit:
                raise TypeError(_overload_message(type_or_device, index))
            return type_or_device
        if isinstance(type_or_device, int) and not isinstance(type_or_device, bool) \
                and not explicit:
            type_or_device, index = "cuda", type_or_device
        if not isinstance(type_or_device, str):
            raise TypeError(_overload_message(type_or_device, index))
        if index is not None and (isinstance(index, bool) or not isinstance(index, int)):
            raise TypeError(f"device(): argument 'index' (position 2) must be int, not "
                            f"{type(index).__name__}")
        dtype_str, parsed = _parse(type_or_device)
        if parsed is not None and explicit:
            raise RuntimeError("type (string) must not include an index because index was passed "
                               f"explicitly: {type_or_device}")
        idx = parsed if parsed is not None else index
        if idx is not None and idx < 0:
            raise RuntimeError("Device index must not be negative")
        self = object.__new__(cls)
        object.__setattr__(self, "_type", dtype_str)
        object.__setattr__(self, "_index", idx)
        return self

    @property
    def type(self) -> str:
        """The device type ("cpu", "cuda"...)."""
        return self._type

    @property
    def index(self):
        """The device ordinal, or None."""
        return self._index

    def __setattr__(self, name, value):
        raise AttributeError(f"attribute '{name}' of 'minigrad.device' objects is not writable")

    def __eq__(self, other):
        """Equal to another device of the same type and index (never to a string, as PyTorch)."""
        if not isinstance(other, device):
            return NotImplemented
        return self._type == other._type and self._index == other._index

    def __hash__(self):
        """PyTorch's hash: the device type number shifted left 16, or'd with the index byte."""
        idx = -1 if self._index is None else self._index
        return (_TYPES[self._type] << 16) | (idx & 0xFF)

    def __repr__(self):
        """``device(type='cuda', index=0)``, as PyTorch."""
        if self._index is None:
            return f"device(type='{self._type}')"
        return f"device(type='{self._type}', index={self._index})"

    def __str__(self):
        """``cuda:0`` / ``cpu``, as PyTorch."""
        return self._type if self._index is None else f"{self._type}:{self._index}"

    def __reduce__(self):
        """Pickle as ``device(str(self))``."""
        return (device, (str(self),))

    def __enter__(self):
        """``with minigrad.device("cuda"):``: inside the block the factory functions (and so
        modules' parameters) are made on this device when no ``device=`` is given (PyTorch's
        ``DeviceContext``; see ``set_default_device``)."""
        _default.stack.append(self)
        _default.current = self
        return self

    def __exit__(self, type, value, tb):
        """Back to the device in effect before the ``with`` block."""
        st = _default.stack
        st.pop()
        _default.current = st[-1] if st else _default.set


def _overload_message(*got):
    names = ", ".join(type(g).__name__ for g in got if g is not None) or "NoneType"
    return (f"device() received an invalid combination of arguments - got ({names}), but "
            "expected one of:\n * (minigrad.device device)\n * (str type, int index = -1)\n")


def _parse(s):
    """``"cuda:0"`` -> ("cuda", 0); ``"cpu"`` -> ("cpu", None), with PyTorch's errors: a name of
    letters/underscores, then optionally ``:`` and an index without leading zeros; the name is
    checked against the known types last."""
    m = _STRING_RE.fullmatch(s)
    if m is None:
        raise RuntimeError(f"Invalid device string: '{s}'")
    name, idx = m.group(1), m.group(2)
    if idx is not None and int(idx) > 2 ** 31 - 1:       # C++ stoi's range
        raise RuntimeError(f"Could not parse device index '{idx}' in device string '{s}'")
    if name not in _TYPES:
        raise RuntimeError(f"Expected one of {', '.join(_TYPES)} device type at start of device "
                           f"string: {s}")
    return name, None if idx is None else int(idx)


CPU = device("cpu")
CUDA0 = device("cuda", 0)


# called (no argument) when ``state.cuda_seen`` is set: the dispatcher's ``OPERATOR2`` table
ON_CUDA_SEEN = []


class _State:
    """Process-wide facts the hot path tests: has any cuda tensor been made yet?"""

    def __init__(self):
        self.cuda_seen = False      # an instance attribute: the dispatcher's read of it is cheap
        self.cuda_storages = None   # the cuda device's StorageRegistry, made with the first one

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        if name == "cuda_seen":
            for fn in ON_CUDA_SEEN:
                fn()


state = _State()


def cuda_storages():
    """The emulated cuda device's ``StorageRegistry`` (``minigrad.storage_accounting``) over its
    caching allocator (``minigrad.cuda.allocator``); made on first use."""
    reg = state.cuda_storages
    if reg is None:
        from .cuda.allocator import CachingAllocator
        from .storage_accounting import StorageRegistry
        reg = state.cuda_storages = StorageRegistry(CachingAllocator(device=0))
    return reg


def track_storage(t) -> None:
    """Count the storage of the cuda tensor ``t`` in the device's memory figures
    (``minigrad.cuda.memory_allocated``...). Called wherever a cuda tensor gets new storage: op
    outputs (``place``), factories, moves and copies; a storage already counted costs one
    look-up."""
    reg = state.cuda_storages
    (reg if reg is not None else cuda_storages()).track(t)


class _Depth(threading.local):
    """How many device-checked ops (or backward passes) are running on this thread."""

    def __init__(self):
        self.n = 0


depth = _Depth()

# ops that choose their results' device themselves (moves, copies, factories with device=);
# the factories and casts add their names when they register
OWN_DEVICE = {"_to_copy", "copy_"}
# ops where PyTorch accepts cpu tensors next to cuda ones beyond 0-dim scalars (cpu indices)
LENIENT = {"index", "index_put_"}


def emulation_enabled() -> bool:
    """Whether the emulated cuda device is on (``MINIGRAD_EMULATE_CUDA`` is not "0")."""
    return os.environ.get("MINIGRAD_EMULATE_CUDA", "1").strip().lower() not in ("0", "false",
                                                                                 "no", "off")


def check_available(dev) -> None:
    """Raise PyTorch's errors for a device a tensor cannot be placed on.

    Raises:
        AssertionError: cuda with the emulation off ("Torch not compiled with CUDA enabled", the
            error of a CPU-only PyTorch build).
        RuntimeError: a cuda ordinal other than 0 ("CUDA error: invalid device ordinal"), or a
            device type minigrad has no storage for.
    """
    if dev._type == "cuda":
        if not emulation_enabled():
            raise AssertionError("Torch not compiled with CUDA enabled")
        if dev._index not in (None, 0):
            raise RuntimeError("CUDA error: invalid device ordinal")
    elif dev._type != "cpu":
        raise RuntimeError(f"minigrad tensors live on cpu or the emulated cuda device; got "
                           f"device '{dev}'")


def as_device(d):
    """A tensor-placement device from ``None``/str/int/``device``: None -> None, "cuda" ->
    ``cuda:0`` (the current device, as PyTorch fills the index), "cpu" -> cpu.

    Raises:
        The errors of ``device`` and ``check_available``.
    """
    if d is None:
        return None
    if d is CPU or d is CUDA0:
        return d
    dev = d if isinstance(d, device) else device(d)
    check_available(dev)
    if dev._type == "cpu":
        return CPU
    state.cuda_seen = True          # from now on the dispatcher checks devices
    return CUDA0


def _mixed(a, b):
    raise RuntimeError("Expected all tensors to be on the same device, but found at least two "
                       f"devices, {a} and {b}!")


def run_on_device(op_name, fn, args, kwargs):
    """Run ``fn(*args, **kwargs)`` (the op ``op_name``) on the device of its tensor arguments.

    Raises:
        RuntimeError: PyTorch's "Expected all tensors to be on the same device..." for a
            user-level op whose tensors are on different devices (see ``common_device``).
    """
    if op_name in OWN_DEVICE:
        out = fn(*args, **kwargs)
        if out is not None and op_name[-1] != "_":
            _track_cuda(out)
        return out
    d = depth
    dev = common_device(args, kwargs, strict=d.n == 0 and op_name not in LENIENT,
                        inplace=op_name[-1] == "_")
    d.n += 1
    try:
        out = fn(*args, **kwargs)
    finally:
        d.n -= 1
    if dev is not CPU:
        if out is not None:
            place(out, dev, args)
        if op_name[-1] == "_":      # an in-place op may have given its operands new arrays
            _track_cuda(args)
    return out


def _track_cuda(out):
    """``track_storage`` for each cuda tensor in ``out`` (a Tensor, a list or tuple of them)."""
    for o in (out if type(out) is tuple or type(out) is list else (out,)):
        d = getattr(o, "_device", CPU)
        if d is not CPU and type(d) is device and hasattr(o, "_data"):
            track_storage(o)
        elif type(o) is list or type(o) is tuple:
            _track_cuda(o)


def common_device(args, kwargs, strict=True, inplace=False):
    """The device an op on ``args``/``kwargs`` runs on, with PyTorch's same-device rule.

    The first non-cpu device among the tensor arguments (also inside lists/tuples) wins; every
    other tensor must be on it, except 0-dim cpu tensors, which mix freely (PyTorch's cpu
    scalars), unless it is the output of an in-place op (``inplace``: the first argument).
    With ``strict`` False the device is found without the check.

    Raises:
        RuntimeError: "Expected all tensors to be on the same device, but found at least two
            devices, cuda:0 and cpu!".
    """
    tensors = []
    common = CPU
    for a in (args if not kwargs else (*args, *kwargs.values())):
        d = getattr(a, "_device", None)
        if d is not None:
            tensors.append(a)
            if common is CPU and d is not CPU:
                common = d
        elif type(a) is list or type(a) is tuple:
            for x in a:
                d = getattr(x, "_device", None)
                if d is not None:
                    tensors.append(x)
                    if common is CPU and d is not CPU:
                        common = d
    if common is CPU or not strict:
        return common
    out = tensors[0] if inplace else None
    for t in tensors:
        d = t._device
        if d is not common and not (d is CPU and t._data.ndim == 0 and t is not out):
            _mixed(common, d)
    return common


def place(out, dev, args):
    """Put the tensors in ``out`` (a Tensor or a tuple) and their graph nodes on ``dev``;
    outputs that are inputs (in-place ops return ``self``) keep their own device."""
    for o in (out if isinstance(out, (tuple, list)) else (out,)):
        if getattr(o, "_device", dev) is not dev:
            for a in args:
                if o is a:
                    break
            else:
                o._device = dev
                node = o.grad_fn
                if node is not None and node._device is not dev:
                    node._device = dev
        if getattr(o, "_device", None) is dev:
            track_storage(o)
    return out


_TO_KEYWORDS = ("device", "dtype", "non_blocking", "copy", "memory_format")


def _is_py_type(a) -> bool:
    return a is float or a is int or a is bool


def parse_to(args, kwargs):
    """Parse ``Tensor.to``'s (and ``Module.to``'s) overloads into (device or None, dtype or
    None, copy), as PyTorch's ``_parse_to``.

    Raises:
        TypeError: PyTorch's "to() received an invalid combination of arguments" message.
    """
    if set(kwargs) - set(_TO_KEYWORDS):
        _bad_to(args, kwargs)
    dev, dtype = kwargs.get("device"), kwargs.get("dtype")
    copy = bool(kwargs.get("copy", False))
    # the Python types float / int / bool stand for float64 / int64 / bool, as in PyTorch
    rest = [_dt.as_dtype(a) if _is_py_type(a) else a for a in args]
    if _is_py_type(dtype):
        dtype = _dt.as_dtype(dtype)
    given = set(kwargs) & {"device", "dtype"}     # a keyword may not repeat a positional
    if rest and hasattr(rest[0], "_device"):      # a Tensor
        if given:
            _bad_to(args, kwargs)
        other = rest.pop(0)
        dev, dtype = other._device, other.dtype
    elif rest and isinstance(rest[0], _dt.DType):
        if given:
            _bad_to(args, kwargs)
        dtype = rest.pop(0)
    elif rest and (isinstance(rest[0], (str, device)) or
                   (isinstance(rest[0], int) and not isinstance(rest[0], bool))):
        if "device" in given:
            _bad_to(args, kwargs)
        dev = rest.pop(0)
        if rest and (rest[0] is None or isinstance(rest[0], _dt.DType)):
            if "dtype" in given:
                _bad_to(args, kwargs)
            dtype = rest.pop(0)
    elif rest and rest[0] is None:
        rest.pop(0)
    if rest and isinstance(rest[0], bool):       # non_blocking
        rest.pop(0)
    if rest and isinstance(rest[0], bool):
        copy = rest.pop(0)
    if rest or isinstance(dtype, str):      # a dtype name is no dtype (PyTorch's TypeError)
        _bad_to(args, kwargs)
    return dev, dtype, copy


def _bad_to(args, kwargs):
    pos = ", ".join(type(a).__name__ for a in args)
    kw = "".join(f"{k}={type(v).__name__}, " for k, v in kwargs.items())
    raise TypeError(f"to() received an invalid combination of arguments - got ({pos}"
                    f"{', ' if pos and kw else ''}{kw}), but expected one of:\n"
                    " * (minigrad.dtype dtype, bool non_blocking = False, bool copy = False)\n"
                    " * (minigrad.device device = None, minigrad.dtype dtype = None, "
                    "bool non_blocking = False, bool copy = False)\n"
                    " * (Tensor tensor, bool non_blocking = False, bool copy = False)\n")


class _DefaultDevice(threading.local):
    """The default device of this thread (PyTorch keeps it per thread too): ``set`` from
    ``set_default_device``, ``stack`` the devices of the open ``with device(...)`` blocks, and
    ``current`` the one in effect (the innermost block's, else ``set``; None: the cpu)."""

    def __init__(self):
        self.set = None
        self.stack = []
        self.current = None


_default = _DefaultDevice()

# the torch-level functions that take the default device when called without ``device=``
# (``torch.utils._device._device_constructors``, those minigrad has): not the ``*_like``
# factories (their input's device), ``normal``, ``from_numpy`` or ``frombuffer``
DEVICE_CONSTRUCTORS = frozenset(("arange", "as_tensor", "empty", "eye", "full", "linspace",
                                 "logspace", "ones", "rand", "randint", "randn", "randperm",
                                 "tensor", "zeros"))


def default_device():
    """The default device in effect, or None when it is the cpu's default (nothing set): the
    factories' fast check."""
    return _default.current


def set_default_device(device) -> None:
    """Make ``device`` the default for tensors made by the factory functions
    (``torch.set_default_device``; ``minigrad.zeros``, ``tensor``, ``arange``, ``randn``...,
    and so the parameters of modules built afterwards) when they get no ``device=``; None
    resets it to the cpu. Per thread, as in PyTorch; an open ``with device(...)`` block wins
    inside it. The ``*_like`` factories keep their input's device, and ``from_numpy`` /
    ``frombuffer`` the cpu, as in PyTorch.

    Deliberate difference: set inside a ``with device(...)`` block, it is in effect after the
    block ends (PyTorch puts back the default from before the block).
    """
    _default.set = None if device is None else as_device(device)
    if not _default.stack:
        _default.current = _default.set


def get_default_device() -> device:
    """The device factories use without ``device=`` (``torch.get_default_device``), with its
    index as a tensor made there reports it (``cuda:0`` for "cuda"); ``cpu`` when none is
    set."""
    d = _default.current
    if d is None:
        return CPU
    if d.index is not None:
        return d
    from ._functional.factories import tensor
    return tensor([], device=d).device


class _LoadMap(threading.local):
    def __init__(self):
        self.map = None


_load_map = _LoadMap()


@contextlib.contextmanager
def map_location(location):
    """While ``minigrad.load`` unpickles: where saved tensors go (``torch.load``'s
    ``map_location``: a device or string for all, a dict from saved to wanted device strings or
    devices, or a callable ``f(storage, location)``: see ``restore_device``)."""
    prev = _load_map.map
    _load_map.map = location
    try:
        yield
    finally:
        _load_map.map = prev


def restore_device(saved: str, storage=None):
    """The device a tensor saved on ``saved`` ("cpu", "cuda:0") is rebuilt on.

    A callable ``map_location`` is called as PyTorch calls it, ``f(storage, saved)`` with the
    storage on the cpu (a ``minigrad.storage.UntypedStorage``): a returned storage's device is
    used (``lambda s, loc: s`` keeps the cpu, ``lambda s, loc: s.cuda()`` the cuda device);
    None keeps the saved device. A real ``torch.device`` is read by its name.

    Raises:
        AssertionError: a cuda tensor with the emulation off (as PyTorch without CUDA).
        TypeError: a ``map_location`` of another kind ("'int' object is not callable", as
            PyTorch, which calls it).
    """
    m = _load_map.map
    if m is None:
        target = saved
    elif isinstance(m, dict):
        target = m.get(saved, saved)
    elif isinstance(m, (str, device)):
        target = m
    elif type(m).__name__ == "device" and hasattr(m, "type"):   # a real torch.device
        target = str(m)
    elif callable(m):
        from .storage import UntypedStorage
        got = m(UntypedStorage(storage, CPU), saved)
        target = saved if got is None else got.device
    else:       # PyTorch calls whatever else it is given
        raise TypeError(f"'{type(m).__name__}' object is not callable")
    return as_device(target)
