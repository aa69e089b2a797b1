"""In-place forms of the pointwise math and activation ops: ``sin_``... ``atanh_``, ``erfinv_``,
``floor_``... ``nan_to_num_``, ``clamp_min_``/``clamp_max_``, ``lerp_``, ``addcmul_``,
``addcdiv_``, ``atan2_``, ``logical_*_`` and the activations' ``silu_``, ``mish_``, ``elu_``,
``selu_``, ``celu_``, ``leaky_relu_``, ``hardtanh_``, ``relu6_``, ``hardswish_``,
``hardsigmoid_``, ``threshold_``.

``asinh_``/``acosh_``/``atanh_`` record PyTorch's ``AsinhBackward1``... nodes, which raise
NotImplementedError in backward (PyTorch gives these in-place forms no derivative).

Each is ``run_inplace`` (``minigrad/ops/inplace.py``: autograd's checks, memory overlap, the
write into ``self``'s storage, history rebased onto the op's node) around the out-of-place op's
``apply``, so the values are the out-of-place kernel's, rounded once into ``self``'s dtype.
``elu_``/``selu_``, ``celu_`` and ``leaky_relu_`` record the result-reading nodes
``EluBackward1``, ``CeluBackward1`` and ``LeakyReluBackward1``, and ``threshold_`` records
``ThresholdBackward1`` (reading the old input), as PyTorch does.
"""
from __future__ import annotations

from ..autograd.function import Function
from ..dispatch import register_op
from . import erf, rounding, shrink, ternary
from . import piecewise_activation as pw
from . import smooth_activation as sm
from . import transcendental as tr
from .bitwise import logical_xor
from .compare import logical_and, logical_not, logical_or
from .inplace import run_inplace


def _inplace(name, fn, doc):
    """Register ``name`` as the in-place form of ``fn`` (an out-of-place op's ``apply``)."""
    def op(self, *args, **kwargs):
        return run_inplace(self, fn, *args, **kwargs)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc + "\n\n    Raises:\n        RuntimeError: ``run_inplace``'s errors " \
        "(a leaf that requires grad, overlap, a result that cannot be cast to self's dtype)."
    return register_op(name, op)


_UNARY = {
    "sin_": tr.Sin, "cos_": tr.Cos, "tan_": tr.Tan, "asin_": tr.Asin, "acos_": tr.Acos,
    "atan_": tr.Atan, "sinh_": tr.Sinh, "cosh_": tr.Cosh, "exp2_": tr.Exp2, "log1p_": tr.Log1p,
    "expm1_": tr.Expm1, "log2_": tr.Log2, "log10_": tr.Log10, "rsqrt_": tr.Rsqrt,
    "erf_": erf.Erf, "erfinv_": erf.Erfinv, "floor_": rounding.Floor, "ceil_": rounding.Ceil,
    "trunc_": rounding.Trunc, "frac_": rounding.Frac, "nan_to_num_": rounding.NanToNum,
    "atan2_": tr.Atan2, "hypot_": tr.Hypot, "lerp_.Scalar": ternary.Lerp,
    "lerp_.Tensor": ternary.LerpTensor,
    "addcmul_": ternary.Addcmul, "addcdiv_": ternary.Addcdiv,
    "clamp_min_": rounding.ClampMin, "clamp_min_.Tensor": rounding.ClampMinTensor,
    "clamp_max_": rounding.ClampMax, "clamp_max_.Tensor": rounding.ClampMaxTensor,
    "silu_": sm.Silu, "mish_": sm.Mish, "elu_": pw.EluResult,
    "leaky_relu_": pw.LeakyReluResult, "hardtanh_": pw.Hardtanh,
    "hardswish_": pw.Hardswish, "hardsigmoid_": pw.Hardsigmoid, "celu_": pw.CeluResult,
    "threshold_": shrink.ThresholdResult,
}
for _name, _cls in _UNARY.items():
    _base = _name.split("_.")[0].rstrip("_")
    _inplace(_name, _cls.apply, f"In-place ``{_base}`` (``Tensor.{_name.split('.')[0]}``; "
             f"node ``{_cls._backward_name}``).")


def _no_derivative(op, cls):
    """The node PyTorch records for an in-place op it gives no derivative (``acosh_``...):
    ``<Op>Backward1``, whose backward raises NotImplementedError."""
    def forward(ctx, input):
        return cls.apply(input)           # grad mode is off in forward: a plain result

    def backward(ctx, grad):
        raise NotImplementedError(f"the derivative for 'inplace version of {op}' is not "
                                  "implemented.")
    name = op.capitalize()
    return type(f"{name}Inplace", (Function,), {
        "__doc__": f"``{op}_``'s node ``{name}Backward1`` (no derivative, as PyTorch).",
        "_backward_name": f"{name}Backward1", "forward": staticmethod(forward),
        "backward": staticmethod(backward)})


for _op, _cls in (("asinh", tr.Asinh), ("acosh", tr.Acosh), ("atanh", tr.Atanh)):
    _inplace(_op + "_", _no_derivative(_op, _cls).apply,
             f"In-place ``{_op}`` (``Tensor.{_op}_``); as in PyTorch it has no derivative: "
             f"the node ``{_op.capitalize()}Backward1`` raises NotImplementedError (\"the "
             f"derivative for 'inplace version of {_op}' is not implemented.\") in backward.")


def _round_(self, decimals=None):
    return rounding.Round.apply(self) if not decimals else \
        rounding.RoundDecimals.apply(self, decimals)


_inplace("round_", _round_, "In-place ``round`` (``Tensor.round_``, optional ``decimals``).")
_inplace("selu_", lambda self: pw.EluResult.apply(self, pw.SELU_ALPHA, pw.SELU_SCALE),
         "In-place ``selu`` (``torch.selu_``; node ``EluBackward1``).")
_inplace("relu6_", lambda self: pw.Hardtanh.apply(self, 0, 6),
         "In-place ``relu6`` (``F.relu6(x, inplace=True)``; node ``HardtanhBackward0``).")


def _logical(fn):
    return lambda self, other: fn(self, other)


_inplace("logical_and_", _logical(logical_and), "In-place ``logical_and`` (0/1 in self's "
         "dtype; ``Tensor.logical_and_``).")
_inplace("logical_or_", _logical(logical_or), "In-place ``logical_or`` (``Tensor.logical_or_``).")
_inplace("logical_xor_", _logical(logical_xor),
         "In-place ``logical_xor`` (``Tensor.logical_xor_``).")
_inplace("logical_not_", lambda self: logical_not(self),
         "In-place ``logical_not`` (``Tensor.logical_not_``).")
