"""``Tensor`` methods of the special pointwise ops (``sinc``, ``logit``, ``copysign``,
``heaviside``, ``ldexp``, ``nextafter``, ``gcd``, ``lcm``, ``float_power``) and their in-place
forms; each is one ``dispatch`` (``minigrad/ops/special_pointwise.py``)."""
from __future__ import annotations

from .. import dtypes as _dt
from ..dispatch import dispatch


def _is_tensor(x):
    from ..tensor import Tensor
    return isinstance(x, Tensor)


class SpecialMathMixin:
    """Special pointwise methods of ``Tensor`` (see each method's ``torch.Tensor`` twin)."""

    __slots__ = ()

    def sinc(self):
        """Mirrors ``torch.Tensor.sinc``: the ``sinc`` op."""
        return dispatch("sinc", self)

    def sinc_(self):
        """Mirrors ``torch.Tensor.sinc_``: the ``sinc_`` op."""
        return dispatch("sinc_", self)

    def logit(self, eps=None):
        """Mirrors ``torch.Tensor.logit``: the ``logit`` op."""
        return dispatch("logit", self, eps)

    def logit_(self, eps=None):
        """Mirrors ``torch.Tensor.logit_``: the ``logit_`` op."""
        return dispatch("logit_", self, eps)

    def copysign(self, other):
        """Mirrors ``torch.Tensor.copysign``: ``copysign.Tensor`` / ``copysign.Scalar``."""
        return dispatch("copysign.Tensor" if _is_tensor(other) else "copysign.Scalar", self,
                        other)

    def copysign_(self, other):
        """Mirrors ``torch.Tensor.copysign_``: ``copysign_.Tensor`` / ``copysign_.Scalar``."""
        return dispatch("copysign_.Tensor" if _is_tensor(other) else "copysign_.Scalar", self,
                        other)

    def heaviside(self, values):
        """Mirrors ``torch.Tensor.heaviside``: the ``heaviside`` op."""
        return dispatch("heaviside", self, values)

    def heaviside_(self, values):
        """Mirrors ``torch.Tensor.heaviside_``: the ``heaviside_`` op."""
        return dispatch("heaviside_", self, values)

    def ldexp(self, other):
        """Mirrors ``torch.Tensor.ldexp``: the ``ldexp`` op."""
        return dispatch("ldexp", self, other)

    def ldexp_(self, other):
        """Mirrors ``torch.Tensor.ldexp_``: the ``ldexp_`` op."""
        return dispatch("ldexp_", self, other)

    def nextafter(self, other):
        """Mirrors ``torch.Tensor.nextafter``: the ``nextafter`` op."""
        return dispatch("nextafter", self, other)

    def nextafter_(self, other):
        """Mirrors ``torch.Tensor.nextafter_``: the ``nextafter_`` op."""
        return dispatch("nextafter_", self, other)

    def gcd(self, other):
        """Mirrors ``torch.Tensor.gcd``: the ``gcd`` op."""
        return dispatch("gcd", self, other)

    def gcd_(self, other):
        """Mirrors ``torch.Tensor.gcd_``: the ``gcd_`` op."""
        return dispatch("gcd_", self, other)

    def lcm(self, other):
        """Mirrors ``torch.Tensor.lcm``: the ``lcm`` op."""
        return dispatch("lcm", self, other)

    def lcm_(self, other):
        """Mirrors ``torch.Tensor.lcm_``: the ``lcm_`` op."""
        return dispatch("lcm_", self, other)

    def erfc(self):
        """Mirrors ``torch.Tensor.erfc``: the ``erfc`` op."""
        return dispatch("erfc", self)

    def erfc_(self):
        """Mirrors ``torch.Tensor.erfc_``: the ``erfc_`` op."""
        return dispatch("erfc_", self)

    def conj_physical(self):
        """Mirrors ``torch.Tensor.conj_physical``: a real tensor is returned as is."""
        return self

    def conj_physical_(self):
        """Mirrors ``torch.Tensor.conj_physical_``: the ``conj_physical_`` op (values kept,
        version bumped)."""
        return dispatch("conj_physical_", self)

    def put(self, index, source, accumulate=False):
        """Mirrors ``torch.Tensor.put``: the ``put`` op (flat indices)."""
        return dispatch("put", self, index, source, accumulate)

    def take(self, index):
        """Mirrors ``torch.Tensor.take``: the ``take`` op (flat indices)."""
        return dispatch("take", self, index)

    def put_(self, index, source, accumulate=False):
        """Mirrors ``torch.Tensor.put_``: the ``put_`` op (flat indices)."""
        return dispatch("put_", self, index, source, accumulate)

    def float_power(self, exponent):
        """Mirrors ``torch.Tensor.float_power``: ``torch.float_power(self, exponent)``."""
        from .._functional.special_math import float_power
        return float_power(self, exponent)

    def float_power_(self, exponent):
        """Mirrors ``torch.Tensor.float_power_``: ``pow_`` of the float64 exponent into a
        float64 ``self``.

        Raises:
            RuntimeError: ``self`` not float64 ("the base given to float_power_ has dtype
                Float but the operation's result requires dtype Double").
        """
        if self.dtype is not _dt.float64:
            raise RuntimeError(f"the base given to float_power_ has dtype "
                               f"{self.dtype.scalar_name} but the operation's result requires "
                               "dtype Double")
        if _is_tensor(exponent):
            return dispatch("pow_.Tensor", self, exponent.to(_dt.float64))
        return dispatch("pow_.Scalar", self, float(exponent))

    # --- the modified Bessel function I0 (minigrad/ops/special_bessel.py)
    def i0(self):
        """Mirrors ``torch.Tensor.i0``: the ``i0`` op."""
        return dispatch("i0", self)

    def i0_(self):
        """Mirrors ``torch.Tensor.i0_``: the ``i0_`` op."""
        return dispatch("i0_", self)

    # --- the gamma family (minigrad/ops/gamma.py)
    def lgamma(self):
        """Mirrors ``torch.Tensor.lgamma``: the ``lgamma`` op."""
        return dispatch("lgamma", self)

    def digamma(self):
        """Mirrors ``torch.Tensor.digamma``: the ``digamma`` op."""
        return dispatch("digamma", self)

    def polygamma(self, n):
        """Mirrors ``torch.Tensor.polygamma(n)``: the ``polygamma`` op."""
        return dispatch("polygamma", self, n)

    def mvlgamma(self, p):
        """Mirrors ``torch.Tensor.mvlgamma(p)``: the ``mvlgamma`` op."""
        return dispatch("mvlgamma", self, p)
