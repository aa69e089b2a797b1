"""Parameter initialisation in place (``torch.nn.init``).

Each function fills ``tensor`` in place under ``no_grad`` and returns it. Samples come from
minigrad's generator (``minigrad.random``; a ``generator=`` may be given): they are drawn in
float64 NumPy arrays owned here, then written with the dispatched ``copy_`` op (which rounds once
into the tensor's dtype). Deliberate difference: the random stream is not PyTorch's, so the same
seed gives other numbers; the distributions, bounds and gains are PyTorch's.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from .. import dtypes as _dt
from ..autograd.grad_mode import no_grad
from ..dispatch import dispatch
from ..tensor import Tensor

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_",
           "zeros_", "eye_", "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
           "kaiming_normal_", "orthogonal_", "sparse_",
           # deprecated aliases (FutureWarning), as in PyTorch
           "uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal",
           "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse"]

_LINEAR_FNS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
               "conv_transpose3d")


def calculate_gain(nonlinearity, param=None) -> float:
    """The recommended gain for a nonlinearity (``torch.nn.init.calculate_gain``): 1 for linear
    and sigmoid, 5/3 for tanh, sqrt(2) for relu, sqrt(2/(1+slope^2)) for leaky_relu (slope 0.01
    by default), 3/4 for selu.

    Raises:
        ValueError: an unknown nonlinearity or a non-numeric leaky_relu slope.
    """
    if nonlinearity in _LINEAR_FNS or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _check(tensor, fn):
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{fn}(): argument 'tensor' must be Tensor, not {type(tensor).__name__}")


def _check_floating(tensor, kernel):
    if not tensor.dtype.is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{tensor.dtype.scalar_name}'")


def _write(tensor, arr):
    """Copy the float64 array ``arr`` (owned here) into ``tensor`` with the ``copy_`` op."""
    with no_grad():
        dispatch("copy_", tensor, Tensor._make(arr, _dt.float64))
    return tensor


def uniform_(tensor, a: float = 0.0, b: float = 1.0, generator=None):
    """Fill ``tensor`` with samples of U(a, b) (``torch.nn.init.uniform_``); returns it.

    Raises:
        TypeError: ``tensor`` is not a Tensor. RuntimeError: ``a > b``. NotImplementedError: an
            integer or bool tensor (PyTorch's "check_uniform_bounds" message).
    """
    _check(tensor, "uniform_")
    _check_floating(tensor, "check_uniform_bounds")
    if a > b:
        raise RuntimeError("uniform_ expects to return a [from, to) range, but found "
                           f"from={a:g} > to={b:g}")
    with no_grad():
        return dispatch("uniform_", tensor, float(a), float(b), generator=generator)


def normal_(tensor, mean: float = 0.0, std: float = 1.0, generator=None):
    """Fill ``tensor`` with samples of N(mean, std^2) (``torch.nn.init.normal_``); returns it.

    Raises:
        TypeError: ``tensor`` is not a Tensor. RuntimeError: ``std < 0``. NotImplementedError:
            an integer or bool tensor.
    """
    _check(tensor, "normal_")
    _check_floating(tensor, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    with no_grad():
        return dispatch("normal_", tensor, float(mean), float(std), generator=generator)


def _norm_cdf(x: float) -> float:
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def trunc_normal_(tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator=None):
    """Fill ``tensor`` with N(mean, std^2) truncated to [a, b] (``torch.nn.init.trunc_normal_``);
    returns it.

    As PyTorch's: when the normal puts more than 30% of its mass in [a, b], ``normal_`` draws
    and every sample outside [a, b] (the bounds rounded to the tensor's dtype) is replaced from
    a fresh ``normal_`` draw of the whole shape, until none is left; otherwise candidates come
    from ``uniform_(a, b)`` and are accepted where ``log(uniform_()) <= -((x - mean) / std)**2 / 2
    - log_peak`` (``log_peak``: that exponent at the mode, the mean clamped to [a, b]), each
    step a dispatched in-place op in the tensor's dtype, as PyTorch's sequence.

    Raises:
        RuntimeError: ``a > b`` ("uniform_ expects to return a [from, to) range...").
        ZeroDivisionError: ``std == 0`` (as PyTorch).
        NotImplementedError: an integer or bool tensor.

    Warns:
        UserWarning: the mean is more than 2 std outside [a, b].
    """
    _check(tensor, "trunc_normal_")
    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The "
                      "distribution of values may be incorrect.", stacklevel=2)
    p = _norm_cdf((b - mean) / std) - _norm_cdf((a - mean) / std)
    _check_floating(tensor, "check_uniform_bounds" if p <= 0.3 else "normal_kernel_cpu")
    if a > b:
        raise RuntimeError("uniform_ expects to return a [from, to) range, but found "
                           f"from={a:g} > to={b:g}")
    with no_grad():
        if p > 0.3:
            lo = dispatch("tensor", a, dtype=tensor.dtype).item()
            hi = dispatch("tensor", b, dtype=tensor.dtype).item()
            result = dispatch("normal_", tensor, mean, std, generator=generator)
            while True:
                mask = dispatch("logical_or", dispatch("lt", result, lo),
                                dispatch("gt", result, hi))
                if not mask.any():
                    break
                fresh = dispatch("normal_", dispatch("empty_like", result), mean, std,
                                 generator=generator)
                result = dispatch("where", mask, fresh, result)
            if result is not tensor:
                dispatch("copy_", tensor, result)
            return tensor
        log_peak = -0.5 * ((max(a, min(mean, b)) - mean) / std) ** 2

        def log_pdf_excess(c):          # -((c - mean) / std)**2 / 2 - log_peak, op by op
            for op, v in (("sub", mean), ("div", std), ("pow", 2), ("mul", -0.5),
                          ("sub", log_peak)):
                c = dispatch(op, c, v)
            return c

        def rejected(c):
            u = dispatch("uniform_", dispatch("empty_like", tensor), generator=generator)
            return dispatch("gt", dispatch("log", u), c)

        dispatch("uniform_", tensor, a, b, generator=generator)
        pending = rejected(log_pdf_excess(tensor))
        result = tensor
        while pending.any():
            cand = dispatch("uniform_", dispatch("empty_like", tensor), a, b,
                            generator=generator)
            result = dispatch("where", pending, cand, result)
            pending = dispatch("where", pending, rejected(log_pdf_excess(cand)), pending)
        if result is not tensor:
            dispatch("copy_", tensor, result)
    return tensor


def constant_(tensor, val: float):
    """Fill ``tensor`` with ``val`` (``torch.nn.init.constant_``); returns it."""
    _check(tensor, "constant_")
    with no_grad():
        dispatch("fill_", tensor, val)
    return tensor


def ones_(tensor):
    """Fill ``tensor`` with ones (``torch.nn.init.ones_``); returns it."""
    return constant_(tensor, 1.0)


def zeros_(tensor):
    """Fill ``tensor`` with zeros (``torch.nn.init.zeros_``); returns it."""
    return constant_(tensor, 0.0)


def eye_(tensor):
    """Fill a 2-D ``tensor`` with the identity matrix (ones on the main diagonal, also when
    not square) (``torch.nn.init.eye_``); returns it.

    Raises:
        ValueError: not 2-D ("Only tensors with 2 dimensions are supported").
    """
    _check(tensor, "eye_")
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _write(tensor, np.eye(*tuple(tensor.shape), dtype=np.float64))


def dirac_(tensor, groups: int = 1):
    """Fill a 3/4/5-D conv weight (out, in, *kernel) with the Dirac delta
    (``torch.nn.init.dirac_``): in each of ``groups`` groups of out channels, channel ``d`` gets
    a 1 at input channel ``d`` and the kernel's centre, for ``d < min(out/groups, in)``; zeros
    elsewhere. Returns ``tensor``.

    Raises:
        ValueError: not 3/4/5-D; dim 0 not divisible by ``groups``.
    """
    _check(tensor, "dirac_")
    if tensor.dim() not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tuple(tensor.shape)
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = sizes[0] // groups
    centre = tuple(k // 2 for k in sizes[2:])
    arr = np.zeros(sizes, dtype=np.float64)
    for g in range(groups):
        for d in range(min(per_group, sizes[1])):
            arr[(g * per_group + d, d) + centre] = 1.0
    return _write(tensor, arr)


def _calculate_fan_in_and_fan_out(tensor):
    """``(fan_in, fan_out)`` of a weight of shape (out, in, *receptive) (PyTorch's helper).

    Raises:
        ValueError: fewer than 2 dims.
    """
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    shape = tuple(tensor.shape)
    receptive = 1
    for s in shape[2:]:
        receptive *= s
    return shape[1] * receptive, shape[0] * receptive


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    valid = ["fan_in", "fan_out"]
    if mode not in valid:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _zero_element(tensor):
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return True
    return False


def xavier_uniform_(tensor, gain: float = 1.0, generator=None):
    """U(-a, a) with a = gain*sqrt(6/(fan_in+fan_out)) (``torch.nn.init.xavier_uniform_``).

    Raises:
        ValueError: fewer than 2 dims.
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain: float = 1.0, generator=None):
    """N(0, std^2) with std = gain*sqrt(2/(fan_in+fan_out)) (``torch.nn.init.xavier_normal_``).

    Raises:
        ValueError: fewer than 2 dims.
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor, a: float = 0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu", generator=None):
    """U(-bound, bound), bound = gain*sqrt(3/fan) (``torch.nn.init.kaiming_uniform_``); with
    ``a=sqrt(5)`` (``Linear``'s default) bound = 1/sqrt(fan_in). A zero-element tensor is left
    as it is with a warning.

    Raises:
        ValueError: fewer than 2 dims, an unknown mode or nonlinearity.
    """
    if _zero_element(tensor):
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a: float = 0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu", generator=None):
    """N(0, std^2), std = gain/sqrt(fan) (``torch.nn.init.kaiming_normal_``).

    Raises:
        ValueError: fewer than 2 dims, an unknown mode or nonlinearity.
    """
    if _zero_element(tensor):
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor, gain: float = 1, generator=None):
    """Fill ``tensor`` with a (semi-)orthogonal matrix times ``gain``
    (``torch.nn.init.orthogonal_``); dims after the first are flattened, so the (rows, cols)
    view has orthonormal rows (rows <= cols) or columns. Returns ``tensor``.

    As PyTorch: the QR factorisation of a standard-normal matrix (transposed when
    rows < cols), Q's columns multiplied by the signs of R's diagonal (Haar-uniform). Computed in
    float64, rounded once into the tensor's dtype. A zero-element tensor is left as it is.

    Raises:
        ValueError: fewer than 2 dims.
    """
    _check(tensor, "orthogonal_")
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    with no_grad():
        flat = dispatch("normal_", dispatch("empty", (rows, cols), dtype=tensor.dtype), 0.0,
                        1.0, generator=generator)._data.astype(np.float64)
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    return _write(tensor, (q * gain).reshape(tuple(tensor.shape)))


def sparse_(tensor, sparsity: float, std: float = 0.01, generator=None):
    """Fill a 2-D ``tensor`` with N(0, std^2) samples, then zero ``ceil(sparsity * rows)``
    randomly chosen entries in each column (``torch.nn.init.sparse_``); returns it.

    As PyTorch, the rows to zero are drawn from the global generator whatever ``generator``
    is (only the normal samples come from ``generator``).

    Raises:
        ValueError: not 2-D.
    """
    _check(tensor, "sparse_")
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tuple(tensor.shape)
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        dispatch("normal_", tensor, 0.0, std, generator=generator)
        for col in range(cols):
            rows_to_zero = dispatch("randperm", rows)[:num_zeros]
            dispatch("index_put_", tensor, (rows_to_zero, dispatch("tensor", col)),
                     dispatch("tensor", 0.0, dtype=tensor.dtype))
    return tensor


def _make_deprecate(meth):
    new_name = meth.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of "
                      f"`nn.init.{new_name}`.", FutureWarning, stacklevel=2)
        return meth(*args, **kwargs)

    deprecated_init.__doc__ = (f"``{old_name}(...)``: deprecated alias of ``{new_name}`` "
                               f"(warns FutureWarning, as ``torch.nn.init.{old_name}``).")
    deprecated_init.__name__ = deprecated_init.__qualname__ = old_name
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
eye = _make_deprecate(eye_)
dirac = _make_deprecate(dirac_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
orthogonal = _make_deprecate(orthogonal_)
sparse = _make_deprecate(sparse_)
