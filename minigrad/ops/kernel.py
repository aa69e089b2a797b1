"""One kernel base for elementwise ops: promotion, opmath, the kernel, one rounding, the wrap.

A PyTorch elementwise kernel (a ``TensorIterator`` loop over ``opmath_type``) does the same steps
around its one line of maths, and so does every elementwise op here:

1. check the operands: a Tensor first, then Tensors or Python numbers; shapes that broadcast;
2. choose the result dtype by the op's *rule* (PyTorch's type promotion, "integers give the
   default float", "keeps the input dtype", "bool result");
3. load each operand as an array in the compute dtype (opmath: float32 for fp16/bf16); a Python
   number as the rule's scalar policy says (PyTorch rounds an add/sub scalar to a 16-bit tensor's
   dtype first, but uses a mul/div scalar in fp32 unrounded);
4. run the op's kernel on those arrays;
5. round the result ONCE into the result dtype and wrap it as the output Tensor.

``Kernel`` writes steps 1-3 and 5 once; an op declares its ``rule`` and supplies ``kernel`` (step
4), the names of what it saves for backward, and ``backward``::

    @register_op("sqrt")
    class Sqrt(Kernel):
        rule = FLOAT_OPMATH
        saves = ("result",)
        _backward_name = "SqrtBackward0"

        @staticmethod
        def kernel(dtype, a):           # a: the input in opmath; dtype: the result dtype
            return np.sqrt(a)

        @staticmethod
        def backward(ctx, grad):
            (out,) = ctx.saved_tensors
            return dispatch("div", grad, dispatch("mul", out, 2))

Ops that are not differentiable (comparisons, bit operations) and ops with optional operands
(``clamp``) use the same steps through ``Rule.run``. Elementwise ops that stay outside the base,
with the reason: ``where`` (its condition takes no part in promotion, and both values may be
numbers), the dtype casts (``_to_copy``: the conversion *is* the op, ``ops.cast``), and the
``_foreach_*`` list ops (PyTorch's optimizer kernels round per step, recipes in
``ops.foreach_kernels``). The rules
are data (``Rule`` values below); the 16-bit recipes a kernel may need (PyTorch's scalar rules,
scalar-tail rounding, fma, per-thread partial sums) are in ``minigrad.numerics``. A kernel rounds
an intermediate only where PyTorch's kernel does, and its docstring says so.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import dtypes as _dt
from .. import numerics as _nx
from ..autograd.function import Function
from ..tensor import Tensor
from ._util import broadcast_shapes, check_scalar_or_tensor, opmath, wrap
from .factory import _convert

__all__ = ["Rule", "Kernel", "PROMOTE_OPMATH", "FLOAT_OPMATH", "FLOAT_FP64", "KEEP_DTYPE",
           "BOOL_RESULT", "EXACT", "SCALAR_OPMATH", "TRUE_DIVIDE", "ROUNDED_SCALAR", "check_operands",
           "check_float8"]

_F64 = np.dtype(np.float64)
_ND = np.ndarray
_make = Tensor._make      # bound once: cheaper per call than the class attribute


@dataclass(frozen=True)
class Rule:
    """How an elementwise op picks its result dtype and what its kernel computes in.

    Attributes:
        name: a short description ("promote, opmath, round once").
        result: ``"promote"``: ``result_type`` of the operands (PyTorch's promotion, Python
            numbers weak); ``"float"``: the same, then integer and bool results give the default
            float dtype (TensorIterator's ``promote_integer_inputs_to_float``); ``"same"``: the
            first operand's dtype; ``"bool"``: a bool tensor, the operands compared in their
            promoted dtype.
        compute: ``"opmath"``: the kernel sees arrays in ``opmath(result)`` (fp32 for fp16/bf16)
            and its result is rounded once; ``"storage"``: the kernel sees the operands converted
            to the result dtype itself (exact ops: neg, abs, relu, selections, bit operations);
            ``"float64"``: fp32 and 16-bit results compute in float64 and round to fp32 first,
            then once into storage (a correctly rounded stand-in for PyTorch's vectorised fp32
            transcendental functions, which NumPy's fp32 loops are not).
        scalars: ``"round"``: a Python number is converted to the result dtype first (rounded to
            a 16-bit dtype, wrapped modulo 2**n for integers), as PyTorch's add/sub/compare
            kernels take it; ``"opmath"``: a floating result takes the number straight in
            opmath, unrounded (mul, div).
        cpu_scalar: a 0-dim tensor after a dimensioned first operand is taken as a number
            (PyTorch's "CPU scalar" path: mul, div, remainder, fmod).
    """

    name: str
    result: str = "promote"
    compute: str = "opmath"
    scalars: str = "round"
    cpu_scalar: bool = False

    def __post_init__(self):
        # the dtypes ``_fast_load`` takes: their own opmath (fp32, fp64, integers, bool), not
        # promoted to float by the rule, and fp64 only when the rule computes in float64
        fast = frozenset(d for d in _dt.all_dtypes if d.opmath is d and not (
            self.result == "float" and not d.is_floating_point) and not (
            self.compute == "float64" and d is not _dt.float64))
        object.__setattr__(self, "_fast_dtypes", fast)

    def __repr__(self):
        return f"Rule({self.name!r})"

    # ------------------------------------------------------------------ the steps
    def result_dtype(self, operands):
        """Step 2: ``(compute_dtype, out_dtype)`` for these operands (Tensors and numbers)."""
        if self.result == "same":
            rt = operands[0].dtype
            return rt, rt
        rt = operands[0].dtype if len(operands) == 1 else _dt.result_type(*operands)
        if self.result == "float" and not rt.is_floating_point:
            rt = _dt.get_default_dtype()
        return rt, (_dt.bool_ if self.result == "bool" else rt)

    def load(self, x, rt, cpu_scalar=False):
        """Step 3: operand ``x`` as an array (or NumPy scalar) in this rule's compute dtype for
        result dtype ``rt``; ``cpu_scalar``: take a 0-dim tensor as a number (``run`` decides)."""
        if isinstance(x, Tensor) and not cpu_scalar:
            a = x._data
            if self.compute == "storage":
                return a if x.dtype is rt else _convert(a, rt)
            if x.dtype is not rt:
                a = _convert(a, rt)
            a = opmath(a, rt)
            if self.compute == "float64" and rt.is_floating_point:
                return a.astype(_F64)
            return a
        return self._number(x.item() if isinstance(x, Tensor) else x, rt)

    def _number(self, v, rt):
        if self.scalars == "opmath" and rt.is_floating_point:
            s = _nx.scalar_mul(v, rt)
        else:
            s = _nx.scalar_in(v, rt)
        if self.compute == "float64" and rt.is_floating_point:
            return np.float64(s)
        if self.compute == "storage":
            return rt.np.type(s)
        return s

    def store(self, out, rt, out_dt):
        """Step 5: round ``out`` once into ``out_dt`` storage and wrap it."""
        if out_dt is _dt.bool_:
            return Tensor._make(np.asarray(out, dtype=np.bool_), _dt.bool_)
        if self.compute == "float64" and rt is not _dt.float64 and rt.is_floating_point:
            out = np.asarray(out).astype(np.float32)
        return wrap(out, out_dt)

    def run(self, kernel, operands, extra=(), kwargs=None, op="op"):
        """All five steps: checks, result dtype, load, ``kernel(dtype, *arrays, *extra,
        **kwargs)``, one rounding. Returns the output Tensor.

        Raises:
            TypeError: a first operand that is not a Tensor, or another that is neither a
                Tensor nor a number.
            RuntimeError: shapes that do not broadcast (PyTorch's message).
        """
        # no NumPy warnings for inf/nan results or numbers out of range, as PyTorch
        token = _nx.quiet()
        try:
            arrays = self._fast_load(operands)
            if arrays is not None:
                rt = operands[0].dtype
                out_dt = _dt.bool_ if self.result == "bool" else rt
                if kwargs:
                    out = kernel(rt, *arrays, *extra, **kwargs)
                elif extra:
                    out = kernel(rt, *arrays, *extra)
                # one or two operands only (most ops): a plain call, cheaper in CPython 3.11
                # than the ``*arrays`` splat
                elif len(arrays) == 2:
                    out = kernel(rt, arrays[0], arrays[1])
                else:
                    out = kernel(rt, arrays[0])
                # the kernel gave an array in the result's own format already (fp32 maths on
                # fp32 operands, a comparison's bools): nothing to round, ``store`` would only
                # wrap it
                if type(out) is _ND and out.dtype is out_dt.np:
                    return _make(out, out_dt)
                return self.store(out, rt, out_dt)
            check_operands(operands, op)
            rt, out_dt = self.result_dtype(operands)
            if rt.is_float8:
                check_float8(op, operands, self.cpu_scalar, kwargs, extra)
            # PyTorch's "CPU scalar": a 0-dim tensor after a dimensioned first operand enters
            # as a number where the rule says so (mul, div, remainder, fmod)
            cpu = self.cpu_scalar and operands[0].ndim > 0
            arrays = [self.load(x, rt, cpu and i > 0 and isinstance(x, Tensor) and x.ndim == 0)
                      for i, x in enumerate(operands)]
            out = kernel(rt, *arrays, *extra, **kwargs) if kwargs else kernel(rt, *arrays, *extra)
            return self.store(out, rt, out_dt)
        finally:
            _nx.unquiet(token)

    def _fast_load(self, operands):
        """The fast path beside steps 1-3: when every operand is a Tensor of one dtype that is
        its own opmath (fp32, fp64, integers, bool) and of one shape, or a floating tensor and a
        Python number, there is nothing to check, promote or convert: the stored arrays (and the
        number in the tensor's dtype) are the kernel's inputs (None otherwise).
        ``tests/unit/test_kernel_base.py`` checks it against the general path."""
        first = operands[0]
        if not isinstance(first, Tensor) or first.dtype not in self._fast_dtypes:
            return None
        a = first._data
        n = len(operands)
        if n == 1:
            return [a]
        if n == 2:
            b = operands[1]
            dt = first.dtype
            if isinstance(b, Tensor):
                if b.dtype is dt and b._data.shape == a.shape:
                    return [a, b._data]
            elif dt.is_floating_point and (b.__class__ is float or b.__class__ is int and
                                           -9223372036854775808 <= b < 18446744073709551616):
                # a Python number: weak, in the tensor's own dtype (an int no Scalar holds
                # takes the general path, which raises PyTorch's OverflowError)
                return [a, dt.np.type(b)]
        return None


def check_operands(operands, op):
    """Step 1: the first operand is a Tensor, the others Tensors or numbers, shapes broadcast.

    Raises:
        TypeError: PyTorch's "argument 'input' (position 1) must be Tensor" message, or
            "argument 'other' must be Tensor or Number".
        RuntimeError: non-broadcastable shapes.
    """
    x = operands[0]
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(x).__name__}")
    shape = x._data.shape
    for y in operands[1:]:
        if isinstance(y, Tensor):
            if y._data.shape != shape:
                broadcast_shapes(*(o.shape for o in operands if isinstance(o, Tensor)))
        else:
            check_scalar_or_tensor(y, op)


# ---------------------------------------------------------------------------------- float8
# PyTorch's CPU kernel names in its float8 refusal ('"add_stub" not implemented for
# 'Float8_e4m3fn''), measured on torch 2.13 per op; an op not named here says "<op>_cpu".
_F8_NAMES = {
    "add": "add_stub", "sub": "add_stub", "rsub": "add_stub", "mul": "mul_cpu_reduced_float",
    "deg2rad": "mul_cpu_reduced_float", "rad2deg": "mul_cpu_reduced_float",
    "sigmoid": "sigmoid_cpu_reduced_float", "sign": "sign_cpu", "sgn": "sign_cpu", "pow": "pow",
    "relu": "clamp_min_scalar_cpu", "clamp_min": "clamp_min_scalar_cpu",
    "clamp_max": "clamp_max_scalar_cpu", "hardtanh": "clamp_scalar_cpu",
    "threshold": "threshold_cpu", "threshold_backward": "threshold_cpu", "celu": "elu_cpu",
    "hardtanh_backward": "hardshrink_backward_cpu", "hardsigmoid_backward": "hardsigmoid_backward",
    "gelu": "GeluKernelImpl", "gelu_backward": "GeluBackwardKernelImpl",
    "hardshrink_backward": "shrink_backward_cpu", "softshrink_backward": "shrink_backward_cpu",
    "softshrink": "softshrink_check", "_prelu_kernel": "prelu_cpu",
    "rrelu_with_noise_backward": "leaky_relu_backward_cpu", "exp2": "exp2",
    "nan_to_num": "nan_to_num", "isinf": "isinf", "isfinite": "isfinite", "addcmul": "addcmul_cpu_out", "addcdiv": "addcdiv_cpu_out",
    **{f: f + "_vml_cpu" for f in ("exp", "log", "sqrt", "tanh", "erf", "erfinv", "log1p",
                                   "expm1", "log2", "log10", "sin", "cos", "tan", "asin",
                                   "acos", "atan", "floor", "ceil", "trunc", "round")},
}
_F8_ALLOWED = ("eq", "ne", "abs", "isnan")     # PyTorch's CPU kernels that do take float8


def check_float8(op, operands, cpu_scalar=False, kwargs=None, extra=()):
    """PyTorch's refusal of float8 arithmetic on the CPU, for every op of the kernel base.

    Only ``eq``/``ne``, ``abs`` and a product of two float8 tensors (not a number, not a 0-dim
    "CPU scalar" after a dimensioned tensor) run; every other elementwise op raises with the
    name of PyTorch's kernel (``_F8_NAMES``). Mixing a float8 dtype with any other raises earlier,
    in ``dtypes.promote_types``.

    Raises:
        NotImplementedError: '"add_stub" not implemented for 'Float8_e4m3fn''.
    """
    if op in _F8_ALLOWED:
        return
    tensors = [x for x in operands if isinstance(x, Tensor)]
    numbers = len(tensors) < len(operands) or (
        cpu_scalar and operands[0].ndim > 0 and any(t.ndim == 0 for t in tensors[1:]))
    name = _F8_NAMES.get(op, op + "_cpu")
    if op == "mul" and not numbers:
        return
    if op == "div":
        mode = extra[0] if extra else None       # div's kernel takes (rounding_mode, ...)
        name = "div_cpu" if mode is None else f"div_{mode}_cpu"
        if numbers:
            name += "_reduced_float"
    elif op in ("clamp_min", "clamp_max") and len(tensors) > 1:
        name = "maximum_cpu" if op == "clamp_min" else "minimum_cpu"
    elif op == "clamp":
        lo, hi = (kwargs or {}).get("lo"), (kwargs or {}).get("hi")
        if isinstance(lo, Tensor) or isinstance(hi, Tensor):
            name = "clamp_cpu"
        else:
            name = ("clamp_scalar_cpu" if lo is not None and hi is not None else
                    "clamp_min_scalar_cpu" if lo is not None else "clamp_max_scalar_cpu")
    elif op == "lerp":
        name = "lerp_kernel_tensor" if len(tensors) == 3 else "lerp_kernel_scalar"
    dt = next(t.dtype for t in tensors if t.dtype.is_float8)
    raise NotImplementedError(f'"{name}" not implemented for \'{dt.scalar_name}\'')


# ---------------------------------------------------------------------------------- the rules
PROMOTE_OPMATH = Rule("promote, opmath, round once")
"""add, sub, maximum, the fused backward kernels: PyTorch's promotion, fp32 for 16-bit."""

SCALAR_OPMATH = Rule("promote, opmath, round once; numbers unrounded in opmath",
                     scalars="opmath", cpu_scalar=True)
"""mul, div: as ``PROMOTE_OPMATH``, but a Python number (or 0-dim tensor) enters unrounded."""

TRUE_DIVIDE = Rule("integers give the default float, opmath, round once; numbers unrounded in "
                   "opmath", result="float", scalars="opmath", cpu_scalar=True)
"""div (true division): integer operands give the default float dtype."""

ROUNDED_SCALAR = Rule("promote, opmath, round once; numbers and 0-dim tensors rounded to the "
                      "result dtype first", cpu_scalar=True)
"""remainder, fmod: a number (or 0-dim tensor) operand is converted to the result dtype."""

FLOAT_OPMATH = Rule("integers give the default float, opmath, round once", result="float")
"""sqrt, reciprocal, sigmoid: an integer input gives the default float dtype."""

FLOAT_FP64 = Rule("integers give the default float; fp32 and 16-bit via a correctly rounded "
                  "fp32 value", result="float", compute="float64")
"""exp, log, tanh: PyTorch's vectorised fp32 functions are (nearly always) correctly rounded."""

KEEP_DTYPE = Rule("keeps the input dtype, exact", result="same", compute="storage")
"""neg, abs, relu: exact in the input's own format."""

BOOL_RESULT = Rule("bool result, compared in the promoted dtype", result="bool")
"""eq, ne, lt, le, gt, ge."""

EXACT = Rule("promote, exact in the result dtype", compute="storage")
"""bit operations, selections (threshold_backward): exact in the result dtype's own format."""


# ---------------------------------------------------------------------------------- the base
class Kernel(Function):
    """Base class of elementwise op kernels (see the module docstring).

    Class attributes an op declares:
        rule: a ``Rule``.
        args: the names of ``forward``'s positional parameters, operands first (default
            ``("input", "other")``); ``operands`` of them are operands.
        operands: how many leading positional arguments are operands (default 1).
        saves: names from ``args``, or ``"result"``, saved for backward in that order.
        keeps: names of non-operand arguments kept on the node as attributes (``ctx.threshold``).
        kernel: ``kernel(dtype, *arrays, *other_args, **kwargs)`` -> the result array in the
            compute dtype (``dtype`` is the result dtype; the arrays are in its opmath).
        check: optional ``check(*args, **kwargs)`` raising the op's own PyTorch errors before
            any computation.
    """

    rule: Rule = PROMOTE_OPMATH
    args = ("input", "other")
    operands = 1
    saves = ()
    keeps = ()

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        names = list(cls.args)
        cls._save_idx = tuple(-1 if s == "result" else names.index(s) for s in cls.saves)
        cls._keep_idx = tuple((k, names.index(k)) for k in cls.keeps)
        cls._op_short = None      # the op's name without its overload (``forward`` sets it)

    @staticmethod
    def kernel(dtype, *arrays, **kwargs):
        raise NotImplementedError("a Kernel subclass supplies kernel(dtype, *arrays)")

    check = None

    @classmethod
    def forward(cls, ctx, *args, **kwargs):
        n = cls.operands
        if cls.check is not None:
            cls.check(*args, **kwargs)
        op = cls._op_short
        if op is None:      # the op's name without its overload, for error messages (cached)
            op = cls._op_short = (cls._op_name or cls.__name__.lower()).split(".")[0]
        out = cls.rule.run(cls.kernel, args[:n] if len(args) != n else args, args[n:], kwargs, op)
        if cls._save_idx:
            saved = []      # a loop, not a list comprehension: cheaper in CPython 3.11
            for i in cls._save_idx:
                saved.append(out if i < 0 else args[i])
            ctx.save_for_backward(*saved)
        for k, i in cls._keep_idx:
            setattr(ctx, k, args[i] if i < len(args) else kwargs.get(k))
        return out
