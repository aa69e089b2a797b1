"""The op methods of ``Tensor`` (``torch.Tensor``'s arithmetic, comparison, linalg, reduction,
shape and nn methods and Python operators). Each is one ``dispatch`` call: the ops, their
numerics and their errors live in ``minigrad.ops``. ``Tensor`` inherits them from this mixin,
so ``tensor.py`` keeps only storage, metadata, conversion and autograd.
"""
from __future__ import annotations

import numpy as np

from . import dtypes as _dt
from .dispatch import dispatch
from ._tensor_ops_extra import TensorExtraOpsMixin


def _dtype_arg(d):
    return None if d is None else _dt.as_dtype(d)


def _nd(other):
    """An ``ndarray`` operand of a Python operator as a Tensor of its own dtype (as PyTorch's
    ``t * ndarray``); NumPy defers to us (``Tensor.__array_ufunc__ = None``), so ``ndarray * t``
    is a Tensor too (PyTorch 2.13 raises TypeError for ``ndarray`` +, -, * ``Tensor`` but
    returns a Tensor for ``/``: a deliberate difference, all four return a Tensor here)."""
    if isinstance(other, np.ndarray):
        from .ops.factory import as_tensor
        return as_tensor(other)
    return other


def _shape_args(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return tuple(shape)


class TensorOpsMixin(TensorExtraOpsMixin):
    """Methods of ``Tensor`` that dispatch ops (see each method's ``torch.Tensor`` twin)."""

    __slots__ = ()

    # ------------------------------------------------------------------ arithmetic
    def __add__(self, other):
        """``torch.Tensor.__add__``: the ``add`` op."""
        return dispatch("add", self, _nd(other))

    def __radd__(self, other):
        """``torch.Tensor.__radd__``: the ``add`` op."""
        return dispatch("add", self, _nd(other))

    def __sub__(self, other):
        """``torch.Tensor.__sub__``: the ``sub`` op."""
        return dispatch("sub", self, _nd(other))

    def __rsub__(self, other):
        """``torch.Tensor.__rsub__``: the ``rsub`` op."""
        return dispatch("rsub", self, _nd(other))

    def __mul__(self, other):
        """``torch.Tensor.__mul__``: the ``mul`` op."""
        return dispatch("mul", self, _nd(other))

    def __rmul__(self, other):
        """``torch.Tensor.__rmul__``: the ``mul`` op."""
        return dispatch("mul", self, _nd(other))

    def __truediv__(self, other):
        """``torch.Tensor.__truediv__``: the ``div`` op."""
        return dispatch("div", self, _nd(other))

    def __rtruediv__(self, other):
        """``torch.Tensor.__rtruediv__``: the ``rdiv`` op."""
        return dispatch("rdiv", self, _nd(other))

    def __pow__(self, other):
        """``torch.Tensor.__pow__``: the ``pow`` op."""
        return dispatch("pow", self, _nd(other))

    def __rpow__(self, other):
        """``torch.Tensor.__rpow__``: the ``rpow`` op."""
        return dispatch("rpow", self, _nd(other))

    def __neg__(self):
        """``torch.Tensor.__neg__``: the ``neg`` op."""
        return dispatch("neg", self)

    def __pos__(self):
        """Mirrors ``torch.Tensor.__pos__``."""
        return self

    def __abs__(self):
        """``torch.Tensor.__abs__``: the ``abs`` op."""
        return dispatch("abs", self)

    def __matmul__(self, other):
        """``torch.Tensor.__matmul__``: the ``matmul`` op."""
        return dispatch("matmul", self, other)

    def __rmatmul__(self, other):
        """``torch.Tensor.__rmatmul__``: the ``matmul`` op."""
        return dispatch("matmul", other, self)

    def __eq__(self, other):
        """``torch.Tensor.__eq__``: the ``eq`` op."""
        return dispatch("eq", self, other)

    def __ne__(self, other):
        """``torch.Tensor.__ne__``: the ``ne`` op."""
        return dispatch("ne", self, other)

    def __lt__(self, other):
        """``torch.Tensor.__lt__``: the ``lt`` op."""
        return dispatch("lt", self, other)

    def __le__(self, other):
        """``torch.Tensor.__le__``: the ``le`` op."""
        return dispatch("le", self, other)

    def __gt__(self, other):
        """``torch.Tensor.__gt__``: the ``gt`` op."""
        return dispatch("gt", self, other)

    def __ge__(self, other):
        """``torch.Tensor.__ge__``: the ``ge`` op."""
        return dispatch("ge", self, other)

    def __getitem__(self, index):
        """``torch.Tensor.__getitem__``: the ``index`` op."""
        return dispatch("index", self, index)

    def __setitem__(self, index, value):
        """``torch.Tensor.__setitem__``: the ``index_put_`` op."""
        dispatch("index_put_", self, index, value)

    def __iadd__(self, other):
        """``torch.Tensor.__iadd__``: the ``add_`` op."""
        return dispatch("add_", self, other)

    def __isub__(self, other):
        """``torch.Tensor.__isub__``: the ``sub_`` op."""
        return dispatch("sub_", self, other)

    def __imul__(self, other):
        """``torch.Tensor.__imul__``: the ``mul_`` op."""
        return dispatch("mul_", self, other)

    def __itruediv__(self, other):
        """``torch.Tensor.__itruediv__``: the ``div_`` op."""
        return dispatch("div_", self, other)

    def add(self, other, alpha=1):
        """Mirrors ``torch.Tensor.add``: the ``add`` op (its errors apply)."""
        return dispatch("add", self, other, alpha=alpha)

    def sub(self, other, alpha=1):
        """Mirrors ``torch.Tensor.sub``: the ``sub`` op (its errors apply)."""
        return dispatch("sub", self, other, alpha=alpha)

    def mul(self, other):
        """Mirrors ``torch.Tensor.mul``: the ``mul`` op (its errors apply)."""
        return dispatch("mul", self, other)

    def div(self, other, rounding_mode=None):
        """Mirrors ``torch.Tensor.div``: the ``div`` op (its errors apply)."""
        return dispatch("div", self, other, rounding_mode=rounding_mode)

    def add_(self, other, alpha=1):
        """Mirrors ``torch.Tensor.add_``: the ``add_`` op (its errors apply)."""
        return dispatch("add_", self, other, alpha=alpha)

    def sub_(self, other, alpha=1):
        """Mirrors ``torch.Tensor.sub_``: the ``sub_`` op (its errors apply)."""
        return dispatch("sub_", self, other, alpha=alpha)

    def mul_(self, other):
        """Mirrors ``torch.Tensor.mul_``: the ``mul_`` op (its errors apply)."""
        return dispatch("mul_", self, other)

    def div_(self, other):
        """Mirrors ``torch.Tensor.div_``: the ``div_`` op (its errors apply)."""
        return dispatch("div_", self, other)

    def clamp_(self, min=None, max=None):
        """Mirrors ``torch.Tensor.clamp_``: the ``clamp_`` op (its errors apply)."""
        return dispatch("clamp_", self, min, max)

    def relu_(self):
        """Mirrors ``torch.Tensor.relu_``: the ``relu_`` op (its errors apply)."""
        return dispatch("relu_", self)

    def sigmoid_(self):
        """Mirrors ``torch.Tensor.sigmoid_``: the ``sigmoid_`` op (its errors apply)."""
        return dispatch("sigmoid_", self)

    def tanh_(self):
        """Mirrors ``torch.Tensor.tanh_``: the ``tanh_`` op (its errors apply)."""
        return dispatch("tanh_", self)

    def zero_(self):
        """Mirrors ``torch.Tensor.zero_``: the ``zero_`` op (its errors apply)."""
        return dispatch("zero_", self)

    def fill_(self, value):
        """Mirrors ``torch.Tensor.fill_``: the ``fill_`` op (its errors apply)."""
        return dispatch("fill_", self, value)

    def copy_(self, src):
        """Mirrors ``torch.Tensor.copy_``: the ``copy_`` op (its errors apply)."""
        return dispatch("copy_", self, src)

    def __floordiv__(self, other):
        """``torch.Tensor.__floordiv__``: the ``floor_divide`` op (no derivative, as PyTorch)."""
        return dispatch("floor_divide", self, _nd(other))

    def __rfloordiv__(self, other):
        """``torch.Tensor.__rfloordiv__``: the ``floor_divide`` op."""
        return dispatch("floor_divide", _nd(other), self)

    def __mod__(self, other):
        """``torch.Tensor.__mod__``: the ``remainder`` op (Python's sign convention)."""
        return dispatch("remainder", self, _nd(other))

    def __rmod__(self, other):
        """``torch.Tensor.__rmod__``: the ``remainder`` op with a number ``other``."""
        return dispatch("remainder", _nd(other), self)

    def remainder(self, other):
        """Mirrors ``torch.Tensor.remainder``: the ``remainder`` op (its errors apply)."""
        return dispatch("remainder", self, other)

    def fmod(self, other):
        """Mirrors ``torch.Tensor.fmod``: the ``fmod`` op (its errors apply)."""
        return dispatch("fmod", self, other)

    def floor_divide(self, other):
        """Mirrors ``torch.Tensor.floor_divide``: the ``floor_divide`` op."""
        return dispatch("floor_divide", self, other)

    def reciprocal(self):
        """Mirrors ``torch.Tensor.reciprocal``: the ``reciprocal`` op (its errors apply)."""
        return dispatch("reciprocal", self)

    def neg(self):
        """Mirrors ``torch.Tensor.neg``: the ``neg`` op (its errors apply)."""
        return dispatch("neg", self)

    def pow(self, exponent):
        """Mirrors ``torch.Tensor.pow``: the ``pow`` op (its errors apply)."""
        return dispatch("pow", self, exponent)

    def exp(self):
        """Mirrors ``torch.Tensor.exp``: the ``exp`` op (its errors apply)."""
        return dispatch("exp", self)

    def log(self):
        """Mirrors ``torch.Tensor.log``: the ``log`` op (its errors apply)."""
        return dispatch("log", self)

    def sqrt(self):
        """Mirrors ``torch.Tensor.sqrt``: the ``sqrt`` op (its errors apply)."""
        return dispatch("sqrt", self)

    def abs(self):
        """Mirrors ``torch.Tensor.abs``: the ``abs`` op (its errors apply)."""
        return dispatch("abs", self)

    def maximum(self, other):
        """Mirrors ``torch.Tensor.maximum``: the ``maximum`` op (its errors apply)."""
        return dispatch("maximum", self, other)

    def minimum(self, other):
        """Mirrors ``torch.Tensor.minimum``: the ``minimum`` op (its errors apply)."""
        return dispatch("minimum", self, other)

    def clamp(self, min=None, max=None):
        """Mirrors ``torch.Tensor.clamp``: the ``clamp`` op (its errors apply)."""
        return dispatch("clamp", self, min, max)

    clip = clamp

    def tanh(self):
        """Mirrors ``torch.Tensor.tanh``: the ``tanh`` op (its errors apply)."""
        return dispatch("tanh", self)

    def sigmoid(self):
        """Mirrors ``torch.Tensor.sigmoid``: the ``sigmoid`` op (its errors apply)."""
        return dispatch("sigmoid", self)

    def relu(self):
        """Mirrors ``torch.Tensor.relu``: the ``relu`` op (its errors apply)."""
        return dispatch("relu", self)

    def square(self):
        """Mirrors ``torch.Tensor.square``: the ``pow`` op (its errors apply)."""
        return dispatch("pow", self, 2)

    def eq(self, other):
        """Mirrors ``torch.Tensor.eq``: the ``eq`` op (its errors apply)."""
        return dispatch("eq", self, other)

    def ne(self, other):
        """Mirrors ``torch.Tensor.ne``: the ``ne`` op (its errors apply)."""
        return dispatch("ne", self, other)

    def lt(self, other):
        """Mirrors ``torch.Tensor.lt``: the ``lt`` op (its errors apply)."""
        return dispatch("lt", self, other)

    def le(self, other):
        """Mirrors ``torch.Tensor.le``: the ``le`` op (its errors apply)."""
        return dispatch("le", self, other)

    def gt(self, other):
        """Mirrors ``torch.Tensor.gt``: the ``gt`` op (its errors apply)."""
        return dispatch("gt", self, other)

    def ge(self, other):
        """Mirrors ``torch.Tensor.ge``: the ``ge`` op (its errors apply)."""
        return dispatch("ge", self, other)

    def isfinite(self):
        """Mirrors ``torch.Tensor.isfinite``: the ``isfinite`` op (its errors apply)."""
        return dispatch("isfinite", self)

    def isnan(self):
        """Mirrors ``torch.Tensor.isnan``: the ``isnan`` op (its errors apply)."""
        return dispatch("isnan", self)

    def isinf(self):
        """Mirrors ``torch.Tensor.isinf``: the ``isinf`` op (its errors apply)."""
        return dispatch("isinf", self)

    # ------------------------------------------------------------------ linalg
    def matmul(self, other):
        """Mirrors ``torch.Tensor.matmul``: the ``matmul`` op (its errors apply)."""
        return dispatch("matmul", self, other)

    def mm(self, mat2):
        """Mirrors ``torch.Tensor.mm``: the ``mm`` op (its errors apply)."""
        return dispatch("mm", self, mat2)

    def addmm(self, mat1, mat2, beta=1, alpha=1):
        """Mirrors ``torch.Tensor.addmm``: the ``addmm`` op (its errors apply)."""
        return dispatch("addmm", self, mat1, mat2, beta=beta, alpha=alpha)

    # ------------------------------------------------------------------ reductions
    def sum(self, dim=None, keepdim=False, dtype=None):
        """Mirrors ``torch.Tensor.sum``: the ``sum`` op (its errors apply)."""
        return dispatch("sum", self, dim, keepdim, dtype=_dtype_arg(dtype))

    def mean(self, dim=None, keepdim=False, dtype=None):
        """Mirrors ``torch.Tensor.mean``: the ``mean`` op (its errors apply)."""
        return dispatch("mean", self, dim, keepdim, dtype=_dtype_arg(dtype))

    def max(self, dim=None, keepdim=False):
        """Mirrors ``torch.Tensor.max``: the ``maximum`` op (its errors apply)."""
        if isinstance(dim, TensorOpsMixin):
            return dispatch("maximum", self, dim)
        return dispatch("max", self, dim, keepdim)

    def min(self, dim=None, keepdim=False):
        """Mirrors ``torch.Tensor.min``: the ``minimum`` op (its errors apply)."""
        if isinstance(dim, TensorOpsMixin):
            return dispatch("minimum", self, dim)
        return dispatch("min", self, dim, keepdim)

    def amax(self, dim=(), keepdim=False):
        """Mirrors ``torch.Tensor.amax``: the ``amax`` op (its errors apply)."""
        return dispatch("amax", self, dim, keepdim)

    def amin(self, dim=(), keepdim=False):
        """Mirrors ``torch.Tensor.amin``: the ``amin`` op (its errors apply)."""
        return dispatch("amin", self, dim, keepdim)

    def argmax(self, dim=None, keepdim=False):
        """Mirrors ``torch.Tensor.argmax``: the ``argmax`` op (its errors apply)."""
        return dispatch("argmax", self, dim, keepdim)

    def argmin(self, dim=None, keepdim=False):
        """Mirrors ``torch.Tensor.argmin``: the ``argmin`` op (its errors apply)."""
        return dispatch("argmin", self, dim, keepdim)

    def sum_to_size(self, *size):
        """Mirrors ``torch.Tensor.sum_to_size``: the ``sum_to_size`` op (its errors apply)."""
        if len(size) == 1 and isinstance(size[0], (tuple, list)):
            size = tuple(size[0])
        return dispatch("sum_to_size", self, size)

    def all(self):
        """Mirrors ``torch.Tensor.all``: the ``all`` op (its errors apply)."""
        return dispatch("all", self)

    def any(self):
        """Mirrors ``torch.Tensor.any``: the ``any`` op (its errors apply)."""
        return dispatch("any", self)

    # ------------------------------------------------------------------ shape
    def reshape(self, *shape):
        """Mirrors ``torch.Tensor.reshape``: the ``reshape`` op (its errors apply)."""
        return dispatch("reshape", self, _shape_args(shape))

    def view(self, *shape):
        """Mirrors ``torch.Tensor.view``: the ``view`` op (its errors apply)."""
        if len(shape) == 1 and not isinstance(shape[0], (tuple, list, int)):
            return self.to(shape[0])
        return dispatch("view", self, _shape_args(shape))

    def view_as(self, other):
        """Mirrors ``torch.Tensor.view_as``: the ``view`` op (its errors apply)."""
        return dispatch("view", self, other.shape)

    def reshape_as(self, other):
        """Mirrors ``torch.Tensor.reshape_as``: the ``reshape`` op (its errors apply)."""
        return dispatch("reshape", self, other.shape)

    def flatten(self, start_dim=0, end_dim=-1):
        """Mirrors ``torch.Tensor.flatten``: the ``flatten`` op (its errors apply)."""
        return dispatch("flatten", self, start_dim, end_dim)

    def transpose(self, dim0, dim1):
        """Mirrors ``torch.Tensor.transpose``: the ``transpose`` op (its errors apply)."""
        return dispatch("transpose", self, dim0, dim1)

    def swapaxes(self, dim0, dim1):
        """Mirrors ``torch.Tensor.swapaxes``: the ``transpose`` op (its errors apply)."""
        return dispatch("transpose", self, dim0, dim1)

    def permute(self, *dims):
        """Mirrors ``torch.Tensor.permute``: the ``permute`` op (its errors apply)."""
        return dispatch("permute", self, _shape_args(dims))

    def t(self):
        """Mirrors ``torch.Tensor.t``: the ``t`` op (its errors apply)."""
        return dispatch("t", self)

    @property
    def T(self):
        """Mirrors ``torch.Tensor.T``: the ``permute`` op (its errors apply)."""
        return dispatch("permute", self, tuple(range(self.ndim - 1, -1, -1)))

    @property
    def mT(self):
        """Mirrors ``torch.Tensor.mT``: the ``transpose`` op (its errors apply)."""
        return dispatch("transpose", self, -2, -1)

    def unsqueeze(self, dim):
        """Mirrors ``torch.Tensor.unsqueeze``: the ``unsqueeze`` op (its errors apply)."""
        return dispatch("unsqueeze", self, dim)

    def squeeze(self, dim=None):
        """Mirrors ``torch.Tensor.squeeze``: the ``squeeze`` op (its errors apply)."""
        return dispatch("squeeze", self, dim)

    def expand(self, *sizes):
        """Mirrors ``torch.Tensor.expand``: the ``expand`` op (its errors apply)."""
        return dispatch("expand", self, _shape_args(sizes))

    def expand_as(self, other):
        """Mirrors ``torch.Tensor.expand_as``: the ``expand`` op (its errors apply)."""
        return dispatch("expand", self, other.shape)

    # ------------------------------------------------------------------ nn
    def softmax(self, dim, dtype=None):
        """Mirrors ``torch.Tensor.softmax``: the ``softmax`` op (its errors apply)."""
        return dispatch("softmax", self, dim, dtype=_dtype_arg(dtype))

    def log_softmax(self, dim, dtype=None):
        """Mirrors ``torch.Tensor.log_softmax``: the ``log_softmax`` op (its errors apply)."""
        return dispatch("log_softmax", self, dim, dtype=_dtype_arg(dtype))
