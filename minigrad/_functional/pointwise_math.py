"""Pointwise math as torch-level functions: the transcendental functions (``torch.sin``,
``torch.erf``, ``torch.log1p``...), rounding (``torch.floor``, ``torch.round``...),
``torch.lerp``, ``torch.addcmul``, ``torch.addcdiv``, ``torch.clamp_min``/``clamp_max``,
``torch.nan_to_num``, ``torch.selu``, and their in-place ``torch.*_`` forms. Each is one
``dispatch`` call of the op of the same name (kernels: ``minigrad/ops/transcendental.py``,
``erf.py``, ``rounding.py``, ``ternary.py``, ``piecewise_activation.py``).
"""
from __future__ import annotations

from ..dispatch import dispatch
from ..tensor import Tensor

_UNARY = {
    "sin": "sine", "cos": "cosine", "tan": "tangent", "asin": "arcsine (nan outside [-1, 1])",
    "acos": "arccosine (nan outside [-1, 1])", "atan": "arctangent",
    "sinh": "hyperbolic sine", "cosh": "hyperbolic cosine", "asinh": "inverse hyperbolic sine",
    "acosh": "inverse hyperbolic cosine (nan below 1)",
    "atanh": "inverse hyperbolic tangent (nan outside [-1, 1])", "erf": "error function",
    "erfinv": "inverse error function (+-inf at +-1, nan outside [-1, 1])",
    "log1p": "log(1 + x)", "expm1": "exp(x) - 1", "log2": "base-2 logarithm",
    "log10": "base-10 logarithm", "rsqrt": "1 / sqrt(x)",
    "floor": "largest integer <= x (dtype kept)", "ceil": "smallest integer >= x (dtype kept)",
    "trunc": "x rounded toward zero (dtype kept)", "frac": "x - trunc(x)",
    "sgn": "signum (for real tensors the sign, dtype kept)", "deg2rad": "x * pi / 180",
    "rad2deg": "x * 180 / pi", "exp2": "2 ** x",
}
_ALIASES = {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "fix": "trunc",
            "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh"}


def _unary(name, op, what):
    def fn(input):
        return dispatch(op, input)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"Elementwise {what} (``torch.{name}``), one dispatch of the ``{op}`` op; "
                  "integer inputs give the default float dtype unless the dtype is kept.\n\n"
                  "    Raises:\n        TypeError: ``input`` not a Tensor; the op's own errors "
                  "(NotImplementedError for an unsupported dtype).")
    return fn


def _unary_(name, op, what):
    def fn(input):
        return dispatch(op, input)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"In-place elementwise {what} (``torch.{name}``): the ``{op}`` op.\n\n"
                  "    Raises:\n        RuntimeError: PyTorch's in-place errors (a leaf that "
                  "requires grad, a float result into an integer tensor...).")
    return fn


_NO_TORCH_INPLACE = {"erfinv", "sgn"}   # torch.erfinv_ / torch.sgn_ do not exist (methods do)
for _n, _what in _UNARY.items():
    globals()[_n] = _unary(_n, _n, _what)
    if _n not in _NO_TORCH_INPLACE:
        globals()[_n + "_"] = _unary_(_n + "_", _n + "_", _what)
for _alias, _n in _ALIASES.items():
    globals()[_alias] = _unary(_alias, _n, _UNARY[_n])
    globals()[_alias + "_"] = _unary_(_alias + "_", _n + "_", _UNARY[_n])


def round(input, *, decimals=0):
    """``input`` rounded to ``decimals`` decimal places, halves to even (``torch.round``); dtype
    kept. ``decimals=0`` is the exact ``round`` op, otherwise ``round.decimals``.

    Raises:
        NotImplementedError: ``decimals`` given for an integer tensor.
    """
    if decimals:
        return dispatch("round.decimals", input, decimals)
    return dispatch("round", input)


def round_(input, *, decimals=0):
    """In-place ``round`` (``torch.round_``)."""
    return dispatch("round_", input, decimals)


def atan2(input, other):
    """Elementwise angle of the point (``other``, ``input``) in radians (``torch.atan2``),
    broadcasting; integers give the default float.

    Raises:
        TypeError: ``other`` not a Tensor. RuntimeError: shapes that do not broadcast.
    """
    return dispatch("atan2", input, other)


arctan2 = atan2


def hypot(input, other):
    """Elementwise ``sqrt(input**2 + other**2)`` without overflow (``torch.hypot``), one
    dispatch of the ``hypot`` op.

    Raises:
        TypeError: ``other`` not a Tensor. NotImplementedError: integer operands.
    """
    return dispatch("hypot", input, other)


def _logaddexp(name, input, other):
    from ..tensor import Tensor
    if not isinstance(input, Tensor):       # PyTorch's argument parser names the input
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return dispatch(name, input, other)


def logaddexp(input, other):
    """Elementwise ``log(exp(input) + exp(other))`` without overflow (``torch.logaddexp``),
    broadcasting, one dispatch of the ``logaddexp`` op (node ``LogaddexpBackward0``).

    Raises:
        TypeError: an operand that is not a Tensor. NotImplementedError: integer or bool
        operands. RuntimeError: shapes that do not broadcast.
    """
    return _logaddexp("logaddexp", input, other)


def logaddexp2(input, other):
    """Elementwise ``log2(2**input + 2**other)`` without overflow (``torch.logaddexp2``),
    broadcasting, one dispatch of the ``logaddexp2`` op (node ``Logaddexp2Backward0``).

    Raises:
        As ``logaddexp``.
    """
    return _logaddexp("logaddexp2", input, other)


def lerp(input, end, weight):
    """``input + weight * (end - input)`` (``torch.lerp``), ``weight`` a number or a Tensor,
    broadcasting; ATen's two-sided fma formula (exact at ``weight`` 0 and 1).

    Raises:
        RuntimeError: ``end``/``weight`` of another dtype; shapes that do not broadcast.
    """
    if isinstance(weight, Tensor):
        return dispatch("lerp.Tensor", input, end, weight)
    return dispatch("lerp.Scalar", input, end, weight)


def addcmul(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 * tensor2`` (``torch.addcmul``), broadcasting, one rounding.

    Raises:
        RuntimeError: shapes that do not broadcast. TypeError: non-Tensor operands.
    """
    return dispatch("addcmul", input, tensor1, tensor2, value=value)


def addcdiv(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 / tensor2`` (``torch.addcdiv``), broadcasting, one rounding.

    Raises:
        RuntimeError: integer ``tensor1`` and ``tensor2`` (PyTorch's message); shapes that do
            not broadcast.
    """
    return dispatch("addcdiv", input, tensor1, tensor2, value=value)


def clamp_min(input, min):
    """``max(input, min)`` with ``min`` a number or a Tensor (``torch.clamp_min``); NaN
    propagates; promotes like ``clamp``."""
    return dispatch("clamp_min.Tensor" if isinstance(min, Tensor) else "clamp_min", input, min)


def clamp_max(input, max):
    """``min(input, max)`` with ``max`` a number or a Tensor (``torch.clamp_max``)."""
    return dispatch("clamp_max.Tensor" if isinstance(max, Tensor) else "clamp_max", input, max)


def clamp_min_(input, min):
    """In-place ``clamp_min`` (``torch.clamp_min_``)."""
    return dispatch("clamp_min_.Tensor" if isinstance(min, Tensor) else "clamp_min_", input,
                    min)


def clamp_max_(input, max):
    """In-place ``clamp_max`` (``torch.clamp_max_``)."""
    return dispatch("clamp_max_.Tensor" if isinstance(max, Tensor) else "clamp_max_", input,
                    max)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """``input`` with NaN, +inf, -inf replaced by ``nan``, ``posinf`` (default: the dtype's max)
    and ``neginf`` (default: its lowest value) (``torch.nan_to_num``); integers unchanged."""
    return dispatch("nan_to_num", input, nan, posinf, neginf)


def nan_to_num_(input, nan=0.0, posinf=None, neginf=None):
    """In-place ``nan_to_num`` (``torch.nan_to_num_``)."""
    return dispatch("nan_to_num_", input, nan, posinf, neginf)


def selu(input):
    """Scaled ELU, ``elu(input, 1.6732632..., 1.0507009...)`` (``torch.selu``, node
    ``EluBackward0``).

    Raises:
        NotImplementedError: integer or bool input ('"elu_cpu" not implemented for ...').
    """
    return dispatch("selu", input)


def selu_(input):
    """In-place ``selu`` (``torch.selu_``, node ``EluBackward1``)."""
    return dispatch("selu_", input)


__all__ = sorted([*_UNARY, *(n + "_" for n in _UNARY if n not in _NO_TORCH_INPLACE),
                  *_ALIASES, *(n + "_" for n in _ALIASES),
                  "round", "round_", "atan2", "arctan2", "hypot", "logaddexp", "logaddexp2", "lerp", "addcmul", "addcdiv",
                  "clamp_min", "clamp_max", "clamp_min_", "clamp_max_", "nan_to_num",
                  "nan_to_num_", "selu", "selu_"])
