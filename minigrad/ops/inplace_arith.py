"""In-place forms of the arithmetic, comparison, matrix-product, scan, triangle and masking ops:
``exp_``, ``log_``, ``sqrt_``, ``abs_``, ``neg_``, ``reciprocal_``, ``sign_``, ``square_``,
``pow_``, ``remainder_``, ``fmod_``, ``floor_divide_``, ``xlogy_``, ``eq_``... ``ge_``,
``addmm_``, ``addmv_``, ``addr_``, ``baddbmm_``, ``addbmm_``, ``cumsum_``, ``cumprod_``,
``tril_``, ``triu_``, ``masked_fill_``.

Each is ``run_inplace`` (``minigrad/ops/inplace.py``: autograd's checks, memory overlap, the
write into ``self``'s storage rounded once into ``self``'s dtype, the version bump, history
rebased onto the op's node, ``CopySlices`` on a view) around the out-of-place op. The
out-of-place op is called directly, not through ``dispatch``: the mode stack (autocast, the
profiler) sees the in-place op once, under its own name, as in PyTorch, where an in-place op is
not autocast.

The nodes are PyTorch's: ``x.exp_()`` records ``ExpBackward0``, ``x.square_()`` and
``x.pow_(2)`` ``PowBackward0``, ``x.pow_(t)`` ``PowBackward1``, ``x.floor_divide_(y)`` the
``NotImplemented`` node. The comparisons write 0/1 into ``self`` and record ``EqBackward0``
(number ``other``) or ``EqBackward1`` (tensor ``other``), whose gradients are zeros.
"""
from __future__ import annotations

from ..autograd.function import Function
from ..dispatch import get_op, register_op, resolve
from ..tensor import Tensor
from .distribution_loss import Xlogy, xlogy_scalar_other
from .factory import _convert
from .inplace import run_inplace
from .modulo import _NotDifferentiable


def _direct(name):
    """The registered op ``name`` (a packet is resolved first), called without the mode stack."""
    def call(*args, **kwargs):
        op, args, kwargs = resolve(name, args, kwargs)
        f = get_op(op)
        return getattr(f, "apply", f)(*args, **kwargs)
    return call


def _inplace(name, fn, doc):
    """Register ``name`` as ``run_inplace`` around ``fn`` (an out-of-place op)."""
    def op(self, *args, **kwargs):
        return run_inplace(self, fn, *args, **kwargs)
    op.__name__ = op.__qualname__ = name.replace(".", "_")
    op.__doc__ = doc + "\n\n    Raises:\n        RuntimeError: ``run_inplace``'s errors " \
        "(a leaf that requires grad, memory overlap, a result that cannot be cast to self's " \
        "dtype: \"result type Float can't be cast to the desired output type Long\"); the " \
        "out-of-place op's errors."
    return register_op(name, op)


# ------------------------------------------------------------------ ops with the same arguments
_SAME = {
    "exp_": "exp", "log_": "log", "sqrt_": "sqrt", "abs_": "abs", "neg_": "neg",
    "reciprocal_": "reciprocal", "sign_": "sign", "sgn_": "sgn", "deg2rad_": "deg2rad",
    "rad2deg_": "rad2deg", "remainder_": "remainder", "fmod_": "fmod",
    "addmm_": "addmm", "addmv_": "addmv", "addr_": "addr", "baddbmm_": "baddbmm", "addbmm_": "addbmm", "cumsum_": "cumsum",
    "cumprod_": "cumprod", "tril_": "tril", "triu_": "triu", "masked_fill_.Scalar":
    "masked_fill", "pow_.Scalar": "pow.Tensor_Scalar", "pow_.Tensor": "pow.Tensor_Tensor",
}
for _name, _op in _SAME.items():
    _inplace(_name, _direct(_op), f"In-place ``{_op.split('.')[0]}`` (``Tensor."
             f"{_name.split('.')[0]}``): the out-of-place ``{_op}`` op written into ``self``.")


def _square(self):
    return _direct("pow.Tensor_Scalar")(self, 2)


_inplace("square_", _square, "In-place ``square`` (``Tensor.square_``): ``pow_(2)``, node "
         "``PowBackward0`` as in PyTorch.")


def _xlogy(self, other):
    if isinstance(other, Tensor):
        return Xlogy.apply(self, other)
    return xlogy_scalar_other(self, other)          # node XlogyBackward2


_inplace("xlogy_", _xlogy, "In-place ``xlogy`` (``Tensor.xlogy_``; node ``XlogyBackward0`` "
         "for a tensor ``other``, ``XlogyBackward2`` for a number).")


def _floor_divide(self, other):
    def run(a, b):
        return _direct("div")(a, b, rounding_mode="floor")
    return _NotDifferentiable.apply("floor_divide_", run, self, other)


_inplace("floor_divide_", _floor_divide, "In-place ``floor_divide`` (``Tensor.floor_divide_``): "
         "no derivative, as PyTorch (node ``NotImplemented``: \"derivative for "
         "aten::floor_divide_ is not implemented\").")


class _MaskedFillTensor(Function):
    """``input`` with the 0-dim tensor ``value`` where ``mask``; node ``MaskedFillBackward1``:
    the input's gradient is ``grad`` zeroed under the mask, the value's the sum of ``grad``
    under it."""

    _backward_name = "MaskedFillBackward1"

    @staticmethod
    def forward(ctx, input, mask, value):
        ctx.mask = mask
        return _direct("masked_fill")(input, mask, value.item())

    @staticmethod
    def backward(ctx, grad):
        from ..dispatch import dispatch
        nig = ctx.needs_input_grad
        gi = dispatch("masked_fill", grad, ctx.mask, 0.0) if nig[0] else None
        gv = None
        if nig[2]:
            gv = dispatch("sum", dispatch("where", ctx.mask, grad, 0.0))
        return gi, None, gv


def _masked_fill_tensor(self, mask, value):
    if value.ndim:
        raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.ndim} dimension(s).")
    return _MaskedFillTensor.apply(self, mask, value)


_inplace("masked_fill_.Tensor", _masked_fill_tensor,
         "In-place ``masked_fill`` with a 0-dim tensor ``value`` (``Tensor.masked_fill_``; node "
         "``MaskedFillBackward1``).")


# --------------------------------------------------------------------------------- comparisons
class _CompareInto(Function):
    """``op(input, other)`` as 0/1 in ``input``'s dtype, with a node of zero gradients (what
    PyTorch's in-place comparisons record: ``EqBackward0``/``EqBackward1``...)."""

    _op = None

    @staticmethod
    def forward(ctx, input, other):
        cls = ctx._function
        ctx.other = (tuple(other.shape), other.dtype) if isinstance(other, Tensor) else None
        res = _direct(cls._op)(input, other)
        if res.shape != input.shape:          # broadcast past self's shape: run_inplace says so
            return res
        return Tensor._make(_convert(res._data, input.dtype), input.dtype)

    @staticmethod
    def backward(ctx, grad):
        from ..dispatch import dispatch
        gi = dispatch("zeros_like", grad)
        if ctx.other is None:
            return gi, None
        shape, dtype = ctx.other
        return gi, dispatch("zeros", shape, dtype=dtype)


def _compare_class(op, k):
    name = op[0].upper() + op[1:]
    return type(f"{name}Inplace{k}", (_CompareInto,),
                {"_op": op, "_backward_name": f"{name}Backward{k}", "__doc__":
                 f"``{op}_`` node ``{name}Backward{k}`` (zero gradients)."})


for _op in ("eq", "ne", "lt", "le", "gt", "ge"):
    for _k, _over in ((0, "Scalar"), (1, "Tensor")):
        _inplace(f"{_op}_.{_over}", _compare_class(_op, _k).apply,
                 f"In-place ``{_op}`` (``Tensor.{_op}_``, {_over} ``other``): 1 where "
                 f"``{_op}`` holds, else 0, in ``self``'s dtype; node "
                 f"``{_op[0].upper() + _op[1:]}Backward{_k}`` (zero gradients).")

