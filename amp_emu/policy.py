"""Autocast cast policies as data: PyTorch 2.13's per-op lists for "cuda" and "cpu".

``TORCH_KERNELS[device_type]`` (in ``torch_tables``) is PyTorch's own registration list: every
registered kernel name, with overload, mapped to its ``CastCategory``. ``Policy`` turns it into a
table over *minigrad* op names (the op names ``dispatch`` sees), adds the decision for ops PyTorch
does not list (``UNTOUCHED``) and for minigrad names that differ from PyTorch's
(``cross_entropy`` is ``cross_entropy_loss`` on cpu; on cuda PyTorch decomposes it into
``log_softmax`` (fp32_set_opt_dtype) and ``nll_loss`` (fp32), so its output is fp32, and we model
that as ``FP32``). ``explain`` gives the decision for given input dtypes without computing.

Mirrors ``at::autocast::CastPolicy``; ``Policy`` is our own (user-editable, copyable).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from minigrad import dtypes as _dt

from ._category import CastCategory
from .torch_tables import TORCH_KERNELS, UNTOUCHED_OPS, _ALIASES

__all__ = ["CastCategory", "TORCH_KERNELS", "UNTOUCHED_OPS", "Policy", "Decision", "explain",
           "get_policy", "BANNED_BCE_MESSAGE", "PRIORITIZE_MESSAGE"]

L, F, S, A, P, B, U = (CastCategory.LOWER_PRECISION_FP, CastCategory.FP32,
                       CastCategory.FP32_SET_OPT_DTYPE, CastCategory.FP32_APPEND_DTYPE,
                       CastCategory.PROMOTE, CastCategory.BANNED, CastCategory.UNTOUCHED)

BANNED_BCE_MESSAGE = (
    "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
    "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
    "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n"
    "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
    "safe to autocast.")
PRIORITIZE_MESSAGE = "Unexpected floating ScalarType in at::autocast::prioritize"


_DEFAULT_DTYPE = {"cuda": _dt.float16, "cpu": _dt.bfloat16}
_SUPPORTED = {"cuda": (_dt.float16, _dt.bfloat16, _dt.float32), "cpu": (_dt.bfloat16, _dt.float16)}


class Policy:
    """A cast policy for one device type: minigrad op name -> ``CastCategory``.

    ``Policy("cuda")`` / ``Policy("cpu")`` builds PyTorch 2.13's table; edit it with
    ``set(op, category)`` (e.g. move ``"softmax"`` to ``FP32`` on cpu, or ``"mm"`` to ``FP32``)
    and pass it to ``autocast(..., policy=p)``. ``copy()`` gives an independent copy.

    Attributes:
        device_type: "cuda" or "cpu" (any string for a user policy).
        default_dtype: the region dtype when ``autocast(dtype=None)`` finds none set.
        supported_dtypes: region dtypes accepted (others warn and disable, as PyTorch's cpu).
        torch_names: minigrad op name -> the PyTorch kernel name the decision mirrors.

    Raises:
        ValueError: ``Policy(device_type)`` for a device type with no built-in table and no
            ``table`` given.
    """

    def __init__(self, device_type: str, table=None, default_dtype=None, supported_dtypes=None):
        self.device_type = device_type
        if table is None:
            if device_type not in TORCH_KERNELS:
                raise ValueError(f"no built-in autocast table for device_type {device_type!r}; "
                                 "pass table={op_name: CastCategory}")
            table, names = _build(device_type)
        else:
            table, names = dict(table), {k: k for k in table}
        self._table = table
        self.torch_names = names
        self.notes = {k: v[2] for k, v in _ALIASES.get(device_type, {}).items() if v[2]}
        self.default_dtype = _dt.as_dtype(default_dtype) if default_dtype is not None \
            else _DEFAULT_DTYPE.get(device_type, _dt.float16)
        self.supported_dtypes = tuple(_dt.as_dtype(d) for d in supported_dtypes) \
            if supported_dtypes is not None else _SUPPORTED.get(device_type, (_dt.float16,
                                                                              _dt.bfloat16))

    # ------------------------------------------------------------------ lookup / edit
    def category(self, op_name: str) -> CastCategory:
        """The category of ``op_name`` (``UNTOUCHED`` for names the table does not know)."""
        return self._table.get(op_name, U)

    __getitem__ = category

    def knows(self, op_name: str) -> bool:
        """True when the table holds an explicit decision for ``op_name`` (incl. UNTOUCHED)."""
        return op_name in self._table

    def set(self, op_name: str, category) -> "Policy":
        """Put ``op_name`` in ``category`` (a CastCategory or its value string); returns self."""
        self._table[op_name] = CastCategory(category) if not isinstance(category, CastCategory) \
            else category
        self.torch_names.setdefault(op_name, op_name)
        return self

    move = set

    def ops(self, category) -> list:
        """Sorted op names in ``category``."""
        c = CastCategory(category) if not isinstance(category, CastCategory) else category
        return sorted(k for k, v in self._table.items() if v is c)

    def region(self):
        """A context manager that ``autocast`` enters inside its own region while this policy
        is enabled (a policy that needs more than per-op casts, e.g. ``amp_emu.fp8.Fp8Policy``),
        or None (the table alone: the default)."""
        return None

    def copy(self) -> "Policy":
        """An independent copy (edit it without touching the original)."""
        p = type(self).__new__(type(self))
        p.__dict__.update(self.__dict__)
        p._table = dict(self._table)
        p.torch_names = dict(self.torch_names)
        p.notes = dict(self.notes)
        return p

    def explain(self, op_name, *input_dtypes, dtype=None, **kw) -> "Decision":
        """``explain`` with this policy."""
        return explain(op_name, *input_dtypes, device_type=self.device_type, dtype=dtype,
                       policy=self, **kw)

    def __repr__(self):
        counts = {}
        for v in self._table.values():
            counts[v.value] = counts.get(v.value, 0) + 1
        return f"Policy({self.device_type!r}, {counts})"


def _build(device_type):
    kernels = TORCH_KERNELS[device_type]
    table = {n: U for n in UNTOUCHED_OPS}
    names = {n: n for n in UNTOUCHED_OPS}
    for k, c in kernels.items():
        base = k.split(".")[0]
        table[k] = c
        names[k] = k
        if base not in kernels or base == k:
            table[base] = c
            names[base] = k
    for k, (c, tn, _) in _ALIASES.get(device_type, {}).items():
        table[k], names[k] = c, tn
    return table, names


_BUILTIN = {d: Policy(d) for d in TORCH_KERNELS}


def get_policy(device_type: str) -> Policy:
    """A fresh copy of the built-in policy for ``device_type`` ("cuda" or "cpu")."""
    if device_type not in _BUILTIN:
        raise ValueError(f"no built-in autocast policy for device_type {device_type!r}")
    return _BUILTIN[device_type].copy()


# ---------------------------------------------------------------------- explain
@dataclass
class Decision:
    """What autocast does to one op call (from ``explain``).

    Attributes:
        op: the minigrad op name; torch_name: the PyTorch kernel the decision mirrors.
        device_type, autocast_dtype: the region's profile and low-precision dtype.
        category: the CastCategory.
        input_dtypes: the given input dtypes (None for non-tensors, tuples for tensor lists).
        cast_to: per input, the dtype it is cast to, or None when it is passed unchanged.
        dtype_kwarg: the ``dtype=`` the op receives (fp32_set_opt_dtype / append), else None.
        output_dtype: the predicted output dtype (None when the call raises).
        error: the error message the call raises (banned op, prioritize, dtype mismatch), or None.
        note: remarks (e.g. how PyTorch decomposes the op).
    """

    op: str
    torch_name: str
    device_type: str
    autocast_dtype: object
    category: CastCategory
    input_dtypes: tuple
    cast_to: tuple
    dtype_kwarg: object = None
    output_dtype: object = None
    error: str = None
    note: str = ""
    effective_dtypes: tuple = field(default=(), repr=False)


_ELIGIBLE = (_dt.float32, _dt.float16, _dt.bfloat16)
# ops whose kernels require all tensor operands of one dtype (the native "expected ... same
# dtype" errors); other ops use ordinary type promotion.
_SAME_DTYPE = frozenset("""mm bmm matmul addmm baddbmm addbmm linear mv addmv dot vdot cross
    bilinear einsum tensordot linalg_vecdot prelu conv1d conv2d conv3d conv_transpose1d
    conv_transpose2d conv_transpose3d conv_tbc convolution _convolution
    scaled_dot_product_attention _addmm_activation""".split())
_SAME_FLOAT_DTYPE = frozenset("index_put index_copy scatter_add".split())   # int indices allowed
_BOOL_OUT = frozenset("eq ne lt le gt ge isfinite isnan isinf logical_not logical_and logical_or "
                      "logical_xor all any".split())
_INT_OUT = frozenset("argmax argmin".split())


def _as_dt(d):
    if d is None:
        return None
    if isinstance(d, (list, tuple)):
        return tuple(_as_dt(x) for x in d)
    return _dt.as_dtype(d)


def prioritize(dtypes, low):
    """PyTorch's ``at::autocast::prioritize`` over eligible dtypes, in argument order.

    Raises:
        RuntimeError: "Unexpected floating ScalarType in at::autocast::prioritize" when a 16-bit
            dtype other than ``low`` meets a non-fp32 current type.
    """
    cur = low
    for d in dtypes:
        if d is None or d not in _ELIGIBLE:
            continue
        if cur is _dt.float32 or d is _dt.float32:
            cur = _dt.float32
        elif cur is low and d is low:
            cur = low
        else:
            raise RuntimeError(PRIORITIZE_MESSAGE)
    return cur


def explain(op_name, *input_dtypes, device_type="cuda", dtype=None, policy=None,
            dtype_kwarg=None) -> Decision:
    """The autocast decision for ``op_name`` on inputs of ``input_dtypes``, without computing.

    Args:
        op_name: a minigrad op name ("mm", "softmax", "cross_entropy", ...).
        *input_dtypes: per positional input, a dtype (DType, "bf16", torch dtype...), None for a
            non-tensor argument, or a list of dtypes for a tensor-list argument (cat, stack).
        device_type: "cuda" or "cpu" (the built-in table), unless ``policy`` is given.
        dtype: the region's low-precision dtype (default: the policy's default).
        policy: a ``Policy`` to use instead of the built-in one.
        dtype_kwarg: the ``dtype=`` the caller passes (for fp32_set_opt_dtype ops).

    Returns:
        a ``Decision``. ``output_dtype`` follows ordinary promotion after the casts (bool for
        comparisons; a dtype-mismatch error for ops such as mm/linear/conv whose kernels need
        equal dtypes), which is what PyTorch's native kernels do for the ops minigrad has.
    """
    pol = policy if policy is not None else _BUILTIN.get(device_type)
    if pol is None:
        raise ValueError(f"no built-in autocast policy for device_type {device_type!r}")
    low = _dt.as_dtype(dtype) if dtype is not None else pol.default_dtype
    cat = pol.category(op_name)
    ins = tuple(_as_dt(d) for d in input_dtypes)
    dk = _as_dt(dtype_kwarg)
    d = Decision(op_name, pol.torch_names.get(op_name, op_name), pol.device_type, low, cat, ins,
                 tuple(None if not isinstance(x, tuple) else (None,) * len(x) for x in ins),
                 dtype_kwarg=dk, note=pol.notes.get(op_name, ""))
    flat = [x for i in ins for x in (i if isinstance(i, tuple) else (i,))]
    first = flat[0] if flat else None
    target = None
    if cat is B:
        d.error = BANNED_BCE_MESSAGE
        return d
    if cat is L:
        target = low
    elif cat is F:
        target = _dt.float32
    elif cat is P:
        try:
            target = prioritize(flat, low)
        except RuntimeError as e:
            d.error = str(e)
            return d
    elif cat in (S, A) and first in _ELIGIBLE and dk is None:
        d.dtype_kwarg = dk = _dt.float32
    elif cat is A and dk is None and first is not None:
        d.dtype_kwarg = dk = first

    def cast(x):
        if x is None or target is None or x not in _ELIGIBLE or x is target:
            return None
        return target

    d.cast_to = tuple(tuple(cast(x) for x in i) if isinstance(i, tuple) else cast(i) for i in ins)
    eff = [x if cast(x) is None else target for x in flat if x is not None]
    d.effective_dtypes = tuple(eff)
    d.output_dtype, d.error = _native_output(op_name, eff, dk)
    return d


def _native_output(op, eff, dk):
    if not eff:
        return None, None
    if op in _BOOL_OUT:
        return _dt.bool_, None
    if op in _INT_OUT:
        return _dt.int64, None
    if dk is not None:
        return dk, None
    chk = eff if op in _SAME_DTYPE else \
        [x for x in eff if x.is_floating_point] if op in _SAME_FLOAT_DTYPE else ()
    if len(set(chk)) > 1:
        names = " != ".join(x.name for x in chk)
        return None, f"expected both operands to have the same dtype, but got: {names}"
    floats = [x for x in eff if x.is_floating_point]
    out = None
    for x in (floats or eff):
        out = x if out is None else _dt.promote_types(out, x)
    return out, None
