"""Dtype objects and PyTorch's type-promotion rules.

Mirrors ``torch.dtype``, ``torch.promote_types``, ``torch.result_type``, ``torch.finfo`` and
``torch.iinfo``. NumPy's own helpers (``np.finfo``, ``np.result_type``, ``np.issubdtype``) do not
know bfloat16 correctly, so every dtype fact in minigrad comes from this module.

Storage formats: float16 is ``np.float16``, bfloat16 is ``ml_dtypes.bfloat16`` (true 2-byte
storage), the float8 formats ``float8_e4m3fn``, ``float8_e5m2``, ``float8_e4m3fnuz`` and
``float8_e5m2fnuz`` are ``ml_dtypes``' (1 byte; storage dtypes only: PyTorch promotes them with
nothing, and its CPU kernels refuse arithmetic on them; casts in ``minigrad._fp8``).
"""
from __future__ import annotations

import builtins

import ml_dtypes
import numpy as np

from . import _namespace

__all__ = [
    "DType", "float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "int8",
    "uint8", "bool_", "double", "float", "half", "long", "int", "short", "all_dtypes",
    "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_dtypes",
    "from_numpy", "as_dtype", "promote_types", "result_type", "opmath_dtype", "finfo", "iinfo",
    "get_default_dtype", "set_default_dtype", "is_floating_point", "NAMES",
]


class DType:
    """A tensor element type (mirrors ``torch.dtype``).

    Attributes:
        name: PyTorch's name, e.g. ``"float32"``; ``repr`` gives ``minigrad.float32``.
        np: the NumPy dtype used for storage (``ml_dtypes.bfloat16`` for bfloat16).
        itemsize: bytes per element.
        is_floating_point: True for float64/32/16, bfloat16 and the float8 formats.
        is_float8: True for the four float8 formats (storage only, see the module docstring).
        is_signed: as ``torch.dtype.is_signed``.
        scalar_name, cpp_name, c10_name, legacy_name: the names PyTorch's messages use for it
            (``NAMES``): ``"Float"``, ``"float"``, ``"float"``, ``"FloatTensor"`` for float32.
    """

    __slots__ = ("name", "np", "itemsize", "is_floating_point", "is_signed", "_kind", "_rank",
                 "opmath", "scalar_name", "cpp_name", "c10_name", "legacy_name", "is_float8")

    def __init__(self, name, np_dtype, kind, rank):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.itemsize = self.np.itemsize
        self._kind = kind          # 0 bool, 1 integer, 2 floating (PyTorch's categories)
        self._rank = rank
        self.is_floating_point = kind == 2
        self.is_signed = name not in ("bool", "uint8")
        self.is_float8 = name.startswith("float8")
        self.opmath = self      # the compute dtype; float16/bfloat16 get float32 below
        self.scalar_name, self.cpp_name, self.c10_name, self.legacy_name = NAMES[name]

    @property
    def is_complex(self):
        return False

    def to_real(self):
        return self

    def __repr__(self):
        return f"{_namespace.display_name()}.{self.name}"

    def __reduce__(self):
        return (as_dtype, (self.name,))


# The one table of dtype names. Per dtype, the names PyTorch's messages use:
#   ScalarType  ("expected scalar type Float but found Half", '"..." not implemented for 'Long'')
#   C++ type    (typeid names: "mask with dtype long int", "float != c10::Half")
#   c10 name    (c10::checked_convert: "value cannot be converted to type int64_t without overflow")
#   legacy      (legacy tensor types: "torch.FloatTensor")
NAMES = {
    "bool": ("Bool", "bool", "bool", "BoolTensor"),
    "uint8": ("Byte", "unsigned char", "uint8_t", "ByteTensor"),
    "int8": ("Char", "signed char", "int8_t", "CharTensor"),
    "int16": ("Short", "short int", "int16_t", "ShortTensor"),
    "int32": ("Int", "int", "int", "IntTensor"),
    "int64": ("Long", "long int", "int64_t", "LongTensor"),
    "float16": ("Half", "c10::Half", "c10::Half", "HalfTensor"),
    "bfloat16": ("BFloat16", "c10::BFloat16", "c10::BFloat16", "BFloat16Tensor"),
    "float32": ("Float", "float", "float", "FloatTensor"),
    "float64": ("Double", "double", "double", "DoubleTensor"),
    "float8_e4m3fn": ("Float8_e4m3fn", "c10::Float8_e4m3fn", "c10::Float8_e4m3fn",
                      "Float8_e4m3fnTensor"),
    "float8_e5m2": ("Float8_e5m2", "c10::Float8_e5m2", "c10::Float8_e5m2", "Float8_e5m2Tensor"),
    "float8_e4m3fnuz": ("Float8_e4m3fnuz", "c10::Float8_e4m3fnuz", "c10::Float8_e4m3fnuz",
                        "Float8_e4m3fnuzTensor"),
    "float8_e5m2fnuz": ("Float8_e5m2fnuz", "c10::Float8_e5m2fnuz", "c10::Float8_e5m2fnuz",
                        "Float8_e5m2fnuzTensor"),
}

bool_ = DType("bool", np.bool_, 0, 0)
uint8 = DType("uint8", np.uint8, 1, 1)
int8 = DType("int8", np.int8, 1, 2)
int16 = DType("int16", np.int16, 1, 3)
int32 = DType("int32", np.int32, 1, 4)
int64 = DType("int64", np.int64, 1, 5)
float16 = DType("float16", np.float16, 2, 6)
bfloat16 = DType("bfloat16", ml_dtypes.bfloat16, 2, 6)
float32 = DType("float32", np.float32, 2, 7)
float64 = DType("float64", np.float64, 2, 8)
float8_e4m3fn = DType("float8_e4m3fn", ml_dtypes.float8_e4m3fn, 2, 6)
float8_e5m2 = DType("float8_e5m2", ml_dtypes.float8_e5m2, 2, 6)
float8_e4m3fnuz = DType("float8_e4m3fnuz", ml_dtypes.float8_e4m3fnuz, 2, 6)
float8_e5m2fnuz = DType("float8_e5m2fnuz", ml_dtypes.float8_e5m2fnuz, 2, 6)
float8_dtypes = (float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz)

float16.opmath = bfloat16.opmath = float32
for _d in float8_dtypes:
    _d.opmath = float32

# PyTorch's aliases
double, float, half, long, int, short = float64, float32, float16, int64, int32, int16

all_dtypes = (bool_, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64) + \
    float8_dtypes
_BY_NP = {d.np: d for d in all_dtypes}
_BY_NAME = {d.name: d for d in all_dtypes}
_BY_NAME.update({"double": float64, "float": float32, "half": float16, "long": int64,
                 "int": int32, "short": int16, "bf16": bfloat16, "fp16": float16,
                 "fp32": float32, "fp64": float64})

_default_dtype = float32


def get_default_dtype() -> DType:
    """The dtype of float Python scalars and float factories (``torch.get_default_dtype``)."""
    return _default_dtype


def set_default_dtype(d) -> None:
    """Set the default float dtype (``torch.set_default_dtype``); float32 or float64 only.

    Raises:
        TypeError: for a non-floating dtype, as PyTorch does.
    """
    global _default_dtype
    d = as_dtype(d)
    if d not in (float32, float64, float16, bfloat16):
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _default_dtype = d


def from_numpy(np_dtype) -> DType:
    """The minigrad dtype that stores as ``np_dtype``.

    Raises:
        TypeError: for NumPy dtypes minigrad has no counterpart for (complex, strings, ...).
    """
    try:
        return _BY_NP[np.dtype(np_dtype)]
    except (KeyError, TypeError):
        raise TypeError(f"minigrad has no dtype for numpy dtype {np_dtype!r}") from None


def as_dtype(d) -> DType:
    """Accept a DType, a name ("float16"), a NumPy dtype, or the Python types float/int/bool.

    Raises:
        TypeError: when ``d`` names no dtype.
    """
    if isinstance(d, DType):
        return d
    if d is builtins.float:
        return float64         # PyTorch: the Python type float is double, whatever the default
    if d is builtins.int:
        return int64
    if d is builtins.bool:
        return bool_
    if isinstance(d, str):
        try:
            return _BY_NAME[d.replace("minigrad.", "").replace("torch.", "")]
        except KeyError:
            raise TypeError(f"unknown dtype name {d!r}") from None
    name = getattr(d, "name", None)   # torch.dtype objects: map by name
    if name is None and type(d).__name__ == "dtype" and str(d).startswith("torch."):
        name = str(d)[6:]
    if isinstance(name, str) and name in _BY_NAME and not isinstance(d, np.dtype):
        return _BY_NAME[name]
    return from_numpy(d)


def dtype_arg(d, fname: str) -> DType:
    """A public ``dtype=`` argument of ``fname`` (``zeros``, ``tensor``, ``cumsum``...) as a
    DType, refusing what PyTorch's argument parser refuses.

    Accepted: a minigrad dtype, the Python types ``float``/``int``/``bool`` (as PyTorch), and,
    as deliberate extensions for interop, a ``torch.dtype`` or a NumPy dtype/type minigrad has.

    Raises:
        TypeError: anything else, a dtype name string included (``zeros(2, dtype="float32")``):
            PyTorch's ``"zeros(): argument 'dtype' must be torch.dtype, not str"`` (naming
            ``minigrad.dtype``). (For
            ``rand``/``randint``/``eye``/``linspace``/``randperm``/``arange`` PyTorch words it
            "received an invalid combination of arguments"; the type and the named argument
            are the same.)
    """
    if isinstance(d, DType):
        return d
    if isinstance(d, str) or isinstance(d, (builtins.int, builtins.float, builtins.complex)) \
            or d is None:
        raise TypeError(f"{fname}(): argument 'dtype' must be minigrad.dtype, not "
                        f"{type(d).__name__}")
    return as_dtype(d)


def is_floating_point(d) -> bool:
    """True for float64, float32, float16, bfloat16 and the float8 formats."""
    return as_dtype(d).is_floating_point


def promote_types(a, b) -> DType:
    """The smallest dtype both ``a`` and ``b`` convert to safely (``torch.promote_types``).

    float16 with bfloat16 gives float32; an integer with a float gives that float; bool is below
    every other type; uint8 with a signed integer gives the next wider signed type (as PyTorch).

    Raises:
        RuntimeError: a float8 dtype with any other dtype ("Promotion for Float8 Types is not
            supported, attempted to promote Float8_e4m3fn and Float"), as PyTorch.
    """
    a, b = as_dtype(a), as_dtype(b)
    if a is b:
        return a
    if a.is_float8 or b.is_float8:
        raise RuntimeError("Promotion for Float8 Types is not supported, attempted to promote "
                           f"{a.scalar_name} and {b.scalar_name}")
    if {a, b} == {float16, bfloat16}:
        return float32
    if a._kind != b._kind:
        return a if a._kind > b._kind else b
    if a._kind == 1 and uint8 in (a, b):
        other = b if a is uint8 else a
        return int16 if other is int8 else other
    return a if a._rank > b._rank else b


def _combine(higher, lower):
    """PyTorch's combine_categories (c10 ResultTypeState)."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.is_floating_point:
        return higher
    if higher is bool_ or lower.is_floating_point:
        return promote_types(higher, lower)
    return higher


def result_type(*args) -> DType:
    """The dtype of an op's result over tensors and Python scalars (``torch.result_type``).

    PyTorch's three-tier rule: dimensioned tensors, then 0-dim tensors, then Python scalars
    ("wrapped numbers": float -> default dtype, int -> int64, bool -> bool); a lower tier only
    matters when its category (bool < integer < float) is higher. So ``fp16_tensor * 2.5`` stays
    float16, ``int_tensor * 2.5`` is float32 and ``fp16 + bf16`` is float32.

    Raises:
        TypeError: for an argument that is neither a Tensor nor a bool/int/float.
    """
    if len(args) == 2:                     # fast paths for the common binary cases
        a, b = args
        da = getattr(a, "dtype", None)
        db = getattr(b, "dtype", None)
        if da is db and da is not None and type(da) is DType:
            return da
        if type(da) is DType and db is None and da._kind == 2 and \
                isinstance(b, (builtins.int, builtins.float)) and a.ndim > 0:
            return da
    dim = zero = wrapped = None
    for x in args:
        d = getattr(x, "dtype", None)
        if isinstance(d, DType):
            if x.ndim > 0:
                dim = d if dim is None else promote_types(dim, d)
            else:
                zero = d if zero is None else promote_types(zero, d)
        elif isinstance(x, (builtins.bool, np.bool_)):
            wrapped = bool_ if wrapped is None else promote_types(wrapped, bool_)
        elif isinstance(x, (builtins.int, np.integer)):
            wrapped = int64 if wrapped is None else promote_types(wrapped, int64)
        elif isinstance(x, (builtins.float, np.floating)):
            wrapped = _default_dtype if wrapped is None else promote_types(wrapped, _default_dtype)
        elif isinstance(x, DType):
            dim = x if dim is None else promote_types(dim, x)
        elif x is None:
            continue
        else:
            raise TypeError(f"result_type() got an argument of type {type(x).__name__}; "
                            "expected Tensor, bool, int or float")
    out = _combine(dim, _combine(zero, wrapped))
    if out is None:
        raise TypeError("result_type() needs at least one Tensor or scalar")
    return out


def legacy_type_name(d) -> str:
    """PyTorch's legacy tensor type name used in its messages, with our prefix
    (``minigrad.FloatTensor`` for float32)."""
    return _namespace.display_name() + "." + as_dtype(d).legacy_name


def opmath_dtype(d) -> DType:
    """The dtype a kernel computes in (``at::opmath_type``): float32 for float16/bfloat16."""
    if type(d) is not DType:
        d = as_dtype(d)
    return d.opmath


# torch.finfo of the float8 formats: (eps, max, smallest_normal)
_FLOAT8_LIMITS = {"float8_e4m3fn": (2.0 ** -3, 448.0, 2.0 ** -6),
                  "float8_e5m2": (2.0 ** -2, 57344.0, 2.0 ** -14),
                  "float8_e4m3fnuz": (2.0 ** -3, 240.0, 2.0 ** -7),
                  "float8_e5m2fnuz": (2.0 ** -3, 57344.0, 2.0 ** -15)}


class finfo:
    """Machine limits of a floating dtype (``torch.finfo``), bfloat16 included.

    Attributes: bits, eps, max, min, tiny (== smallest_normal), smallest_normal, resolution,
    dtype (the name, as PyTorch's ``finfo.dtype``). Values are Python floats.

    Raises:
        TypeError: for a non-floating dtype.
    """

    def __init__(self, type=None):
        d = _default_dtype if type is None else as_dtype(type)
        if not d.is_floating_point:
            raise TypeError(f"finfo is only for floating dtypes, got {d}")
        self.bits = d.itemsize * 8
        if d.is_float8:     # PyTorch's numeric_limits (its e5m2fnuz eps is 2**-3, not 2**-2)
            self.eps, self.max, self.smallest_normal = _FLOAT8_LIMITS[d.name]
            self.min, self.tiny, self.resolution = -self.max, self.smallest_normal, 1.0
            self.dtype = d.name
            return
        info = ml_dtypes.finfo(d.np) if d is bfloat16 else np.finfo(d.np)
        self.eps = builtins.float(info.eps)
        self.max = builtins.float(info.max)
        self.min = builtins.float(info.min)
        self.tiny = self.smallest_normal = builtins.float(info.smallest_normal)
        self.resolution = 10.0 ** -builtins.int(info.precision)   # torch: exactly 10**-precision
        self.dtype = d.name

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Limits of an integer dtype (``torch.iinfo``): bits, min, max, dtype.

    Raises:
        TypeError: for a floating dtype.
    """

    def __init__(self, type):
        d = as_dtype(type)
        if d.is_floating_point:
            raise TypeError(f"iinfo is only for integer dtypes, got {d}")
        if d is bool_:
            self.bits, self.min, self.max = 8, 0, 1
        else:
            info = np.iinfo(d.np)
            self.bits, self.min, self.max = info.bits, builtins.int(info.min), builtins.int(info.max)
        self.dtype = d.name
