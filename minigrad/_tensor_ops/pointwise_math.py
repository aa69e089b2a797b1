"""Pointwise math methods of ``Tensor``: ``sin``... ``erf``, ``erfinv``, ``log1p``, ``rsqrt``,
``floor``/``ceil``/``round``/``trunc``/``frac``, ``atan2``, ``lerp``, ``addcmul``, ``addcdiv``,
``clamp_min``/``clamp_max``, ``nan_to_num`` (and the ``arc*``/``fix`` aliases), each with its
in-place ``*_`` form, and the in-place ``logical_*_``; ``logaddexp``/``logaddexp2`` (no in-place
form in PyTorch). Each is one ``dispatch`` call.
"""
from __future__ import annotations

from ..dispatch import dispatch

_UNARY = ("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh",
          "atanh", "erf", "erfinv",
          "log1p", "expm1", "log2", "log10", "rsqrt", "floor", "ceil", "trunc", "frac", "sgn",
          "deg2rad", "rad2deg", "exp2")
_ALIASES = {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "fix": "trunc",
            "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh"}


def _method(name, op):
    def method(self):
        return dispatch(op, self)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"``torch.Tensor.{name}``: the ``{op}`` op."
    return method


class PointwiseMathMixin:
    """Pointwise math methods of ``Tensor`` (see each method's ``torch.Tensor`` twin)."""

    __slots__ = ()

    def round(self, decimals=0):
        """``torch.Tensor.round``: the ``round`` op (``round.decimals`` for ``decimals != 0``)."""
        if decimals:
            return dispatch("round.decimals", self, decimals)
        return dispatch("round", self)

    def round_(self, decimals=0):
        """``torch.Tensor.round_``: the ``round_`` op."""
        return dispatch("round_", self, decimals)

    def atan2(self, other):
        """``torch.Tensor.atan2``: the ``atan2`` op."""
        return dispatch("atan2", self, other)

    arctan2 = atan2

    def atan2_(self, other):
        """``torch.Tensor.atan2_``: the ``atan2_`` op."""
        return dispatch("atan2_", self, other)

    arctan2_ = atan2_

    def hypot(self, other):
        """``torch.Tensor.hypot``: the ``hypot`` op."""
        return dispatch("hypot", self, other)

    def hypot_(self, other):
        """``torch.Tensor.hypot_``: the ``hypot_`` op."""
        return dispatch("hypot_", self, other)

    def logaddexp(self, other):
        """``torch.Tensor.logaddexp``: the ``logaddexp`` op (no in-place form, as PyTorch)."""
        return dispatch("logaddexp", self, other)

    def logaddexp2(self, other):
        """``torch.Tensor.logaddexp2``: the ``logaddexp2`` op."""
        return dispatch("logaddexp2", self, other)

    def xlogy(self, other):
        """``torch.Tensor.xlogy``: ``xlogy`` for a Tensor ``other``, ``xlogy.Scalar_Other``
        for a number."""
        return dispatch("xlogy" if isinstance(other, type(self)) or
                        hasattr(other, "_data") else "xlogy.Scalar_Other", self, other)

    def lerp(self, end, weight):
        """``torch.Tensor.lerp``: ``lerp.Tensor`` for a Tensor weight, else ``lerp.Scalar``."""
        from ..tensor import Tensor
        return dispatch("lerp.Tensor" if isinstance(weight, Tensor) else "lerp.Scalar", self,
                        end, weight)

    def lerp_(self, end, weight):
        """``torch.Tensor.lerp_``: the ``lerp_`` op."""
        from ..tensor import Tensor
        return dispatch("lerp_.Tensor" if isinstance(weight, Tensor) else "lerp_.Scalar", self,
                        end, weight)

    def addcmul(self, tensor1, tensor2, *, value=1):
        """``torch.Tensor.addcmul``: the ``addcmul`` op."""
        return dispatch("addcmul", self, tensor1, tensor2, value=value)

    def addcmul_(self, tensor1, tensor2, *, value=1):
        """``torch.Tensor.addcmul_``: the ``addcmul_`` op."""
        return dispatch("addcmul_", self, tensor1, tensor2, value=value)

    def addcdiv(self, tensor1, tensor2, *, value=1):
        """``torch.Tensor.addcdiv``: the ``addcdiv`` op."""
        return dispatch("addcdiv", self, tensor1, tensor2, value=value)

    def addcdiv_(self, tensor1, tensor2, *, value=1):
        """``torch.Tensor.addcdiv_``: the ``addcdiv_`` op."""
        return dispatch("addcdiv_", self, tensor1, tensor2, value=value)

    def clamp_min(self, min):
        """``torch.Tensor.clamp_min``: ``clamp_min`` (``clamp_min.Tensor`` for a Tensor)."""
        from ..tensor import Tensor
        return dispatch("clamp_min.Tensor" if isinstance(min, Tensor) else "clamp_min", self,
                        min)

    def clamp_max(self, max):
        """``torch.Tensor.clamp_max``: ``clamp_max`` (``clamp_max.Tensor`` for a Tensor)."""
        from ..tensor import Tensor
        return dispatch("clamp_max.Tensor" if isinstance(max, Tensor) else "clamp_max", self,
                        max)

    def clamp_min_(self, min):
        """``torch.Tensor.clamp_min_``: the ``clamp_min_`` op."""
        from ..tensor import Tensor
        return dispatch("clamp_min_.Tensor" if isinstance(min, Tensor) else "clamp_min_", self,
                        min)

    def clamp_max_(self, max):
        """``torch.Tensor.clamp_max_``: the ``clamp_max_`` op."""
        from ..tensor import Tensor
        return dispatch("clamp_max_.Tensor" if isinstance(max, Tensor) else "clamp_max_", self,
                        max)

    def nan_to_num(self, nan=0.0, posinf=None, neginf=None):
        """``torch.Tensor.nan_to_num``: the ``nan_to_num`` op."""
        return dispatch("nan_to_num", self, nan, posinf, neginf)

    def nan_to_num_(self, nan=0.0, posinf=None, neginf=None):
        """``torch.Tensor.nan_to_num_``: the ``nan_to_num_`` op."""
        return dispatch("nan_to_num_", self, nan, posinf, neginf)

    def logical_and_(self, other):
        """``torch.Tensor.logical_and_``: the ``logical_and_`` op (0/1 in self's dtype)."""
        return dispatch("logical_and_", self, other)

    def logical_or_(self, other):
        """``torch.Tensor.logical_or_``: the ``logical_or_`` op."""
        return dispatch("logical_or_", self, other)

    def logical_xor_(self, other):
        """``torch.Tensor.logical_xor_``: the ``logical_xor_`` op."""
        return dispatch("logical_xor_", self, other)

    def logical_not_(self):
        """``torch.Tensor.logical_not_``: the ``logical_not_`` op."""
        return dispatch("logical_not_", self)


for _n in _UNARY:
    setattr(PointwiseMathMixin, _n, _method(_n, _n))
    setattr(PointwiseMathMixin, _n + "_", _method(_n + "_", _n + "_"))
for _alias, _n in _ALIASES.items():
    setattr(PointwiseMathMixin, _alias, _method(_alias, _n))
    setattr(PointwiseMathMixin, _alias + "_", _method(_alias + "_", _n + "_"))
