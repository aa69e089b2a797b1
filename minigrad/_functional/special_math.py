"""Torch-level functions of the special pointwise ops: ``sinc``, ``logit``, ``copysign``,
``heaviside``, ``ldexp``, ``nextafter``, ``gcd``, ``lcm``, ``float_power`` and the in-place
functions PyTorch exports (``sinc_``, ``logit_``, ``ldexp_``, ``gcd_``, ``lcm_``). Each is one
``dispatch`` of the op of its name (``minigrad/ops/special_pointwise.py``); ``float_power`` is
``pow`` in float64, as PyTorch's composite."""
from __future__ import annotations

from .. import dtypes as _dt
from ..dispatch import dispatch

__all__ = ["sinc", "sinc_", "logit", "logit_", "copysign", "heaviside", "ldexp", "ldexp_",
           "nextafter", "gcd", "gcd_", "lcm", "lcm_", "float_power", "erfc", "erfc_",
           "conj_physical", "conj_physical_", "put"]


def _is_tensor(x):
    from ..tensor import Tensor
    return isinstance(x, Tensor)


def sinc(input):
    """``sin(pi x) / (pi x)``, 1 at 0 (``torch.sinc``): the ``sinc`` op."""
    return dispatch("sinc", input)


def sinc_(input):
    """In-place ``sinc`` (``torch.sinc_``)."""
    return dispatch("sinc_", input)


def logit(input, eps=None):
    """``log(x / (1 - x))``, ``x`` clamped to ``[eps, 1 - eps]`` when ``eps`` is given
    (``torch.logit``): the ``logit`` op."""
    return dispatch("logit", input, eps)


def logit_(input, eps=None):
    """In-place ``logit`` (``torch.logit_``)."""
    return dispatch("logit_", input, eps)


def copysign(input, other):
    """``|input|`` with the sign of ``other`` (``torch.copysign``): ``copysign.Tensor`` for a
    tensor ``other``, ``copysign.Scalar`` for a number."""
    from ..ops.special_pointwise import copysign_op
    return dispatch(copysign_op(other), input, other)


def heaviside(input, values):
    """The Heaviside step, ``values`` at 0 (``torch.heaviside``): the ``heaviside`` op
    (``input`` and ``values`` of one dtype; no derivative)."""
    return dispatch("heaviside", input, values)


def ldexp(input, other):
    """``input * 2**other`` (``torch.ldexp``): the ``ldexp`` op."""
    return dispatch("ldexp", input, other)


def ldexp_(input, other):
    """In-place ``ldexp`` (``torch.ldexp_``)."""
    return dispatch("ldexp_", input, other)


def nextafter(input, other):
    """The next float after ``input`` towards ``other`` (``torch.nextafter``)."""
    return dispatch("nextafter", input, other)


def gcd(input, other):
    """The greatest common divisor of integer tensors (``torch.gcd``)."""
    return dispatch("gcd", input, other)


def gcd_(input, other):
    """In-place ``gcd`` (``torch.gcd_``)."""
    return dispatch("gcd_", input, other)


def lcm(input, other):
    """The least common multiple of integer tensors (``torch.lcm``)."""
    return dispatch("lcm", input, other)


def lcm_(input, other):
    """In-place ``lcm`` (``torch.lcm_``)."""
    return dispatch("lcm_", input, other)


def float_power(input, exponent):
    """``input ** exponent`` in float64 (``torch.float_power``): both converted to float64
    (a number stays a number), then the ``pow`` op (nodes ``PowBackward0/1/2`` and
    ``ToCopyBackward0``, as PyTorch's composite).

    Raises:
        TypeError: neither argument a Tensor.
    """
    f64 = _dt.float64
    if not _is_tensor(input) and not _is_tensor(exponent):
        raise TypeError("float_power() received an invalid combination of arguments - got "
                        f"({type(input).__name__}, {type(exponent).__name__})")
    a = input.to(f64) if _is_tensor(input) else float(input)
    b = exponent.to(f64) if _is_tensor(exponent) else float(exponent)
    return dispatch("pow", a, b) if _is_tensor(a) else dispatch("rpow", b, a)


def erfc(input):
    """``1 - erf(x)`` (``torch.erfc``): the ``erfc`` op."""
    return dispatch("erfc", input)


def erfc_(input):
    """In-place ``erfc`` (``torch.erfc_``)."""
    return dispatch("erfc_", input)


def conj_physical(input):
    """``torch.conj_physical``: for a real tensor (minigrad has no complex dtypes), the tensor
    itself, as PyTorch returns it."""
    return input


def conj_physical_(input):
    """In-place ``conj_physical`` (``torch.conj_physical_``): the ``conj_physical_`` op."""
    return dispatch("conj_physical_", input)


def put(input, index, source, accumulate=False):
    """``input`` with ``source`` written at the flat ``index`` (``torch.put``): the ``put``
    op."""
    return dispatch("put", input, index, source, accumulate)
