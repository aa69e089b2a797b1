"""Window functions (``torch.hann_window``, ``hamming_window``, ``blackman_window``,
``bartlett_window``), built as ATen builds them (``TensorFactories.cpp``) from ``arange`` and
pointwise ops in the result's dtype, so that each value is PyTorch's bit for bit:

- hamming: ``alpha - beta * cos(arange(N) * (2*pi / (N-1)))`` (hann: alpha = beta = 0.5);
- blackman: ``0.08 * cos(4w) - 0.5 * cos(2w) + 0.42`` with ``w = arange(N) * (pi / (N-1))``;
- bartlett: ``arange(N) * (2 / (N-1))``, its second half mirrored (``2 - x``).

``periodic=True`` (the default, for spectral analysis) computes ``N + 1`` points and drops the
last. ``window_length`` 0 gives an empty tensor and 1 a single one.
"""
from __future__ import annotations

import math

__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window"]


def _window_start(name, window_length, periodic, dtype, device, layout):
    """Check the arguments as ATen's ``window_function_checks``; returns ``(n, ones_or_None,
    dtype)`` where ``n`` is the number of points to compute (``window_length + 1`` when
    periodic) and ``ones_or_None`` the finished result for lengths 0 and 1."""
    from .. import dtypes as _dt
    from .factories import empty, ones
    if layout is not None and str(layout) not in ("torch.strided", "minigrad.strided", "strided"):
        raise RuntimeError(f"{name} is not implemented for sparse types, got: {layout}")
    dtype = _dt.get_default_dtype() if dtype is None else dtype
    if not dtype.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: TensorOptions("
                           f"dtype={dtype.cpp_name}, device=cpu, layout=Strided (default), "
                           "requires_grad=false (default), pinned_memory=false, "
                           "memory_format=(nullopt))")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got "
                           f"window_length={window_length}")
    if window_length == 0:
        return 0, empty(0, dtype=dtype, device=device), dtype
    if window_length == 1:
        return 1, ones(1, dtype=dtype, device=device), dtype
    return window_length + 1 if periodic else window_length, None, dtype


def _finish(window, periodic, requires_grad):
    if periodic:
        window = window.narrow(0, 0, window.shape[0] - 1)
    if requires_grad:
        window.requires_grad_(True)
    return window


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
                   layout=None, device=None, requires_grad=False):
    """The Hamming window ``alpha - beta * cos(2 pi n / (N - 1))`` (``torch.hamming_window``),
    a 1-D tensor of ``window_length`` values of ``dtype`` (floating; default dtype if None).

    Raises:
        RuntimeError: a negative length or a non-floating dtype (PyTorch's messages).
    """
    from .factories import arange
    n, done, dtype = _window_start("hamming_window", window_length, periodic, dtype, device,
                                   layout)
    if done is not None:
        return _finish(done, False, requires_grad)
    w = arange(n, dtype=dtype, device=device)
    w = w.mul_(math.pi * 2.0 / float(n - 1)).cos_().mul_(-beta).add_(alpha)
    return _finish(w, periodic, requires_grad)


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                requires_grad=False):
    """The Hann window ``0.5 - 0.5 * cos(2 pi n / (N - 1))`` (``torch.hann_window``): ATen's
    ``hamming_window`` with alpha = beta = 0.5. See ``hamming_window`` for the arguments.

    Raises:
        RuntimeError: a negative length or a non-floating dtype (PyTorch's messages).
    """
    _window_start("hann_window", window_length, periodic, dtype, device, layout)
    return hamming_window(window_length, periodic, 0.5, 0.5, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    requires_grad=False):
    """The Blackman window ``0.42 - 0.5 cos(2 pi n / (N-1)) + 0.08 cos(4 pi n / (N-1))``
    (``torch.blackman_window``). See ``hamming_window`` for the arguments.

    Raises:
        RuntimeError: a negative length or a non-floating dtype (PyTorch's messages).
    """
    from .factories import arange
    n, done, dtype = _window_start("blackman_window", window_length, periodic, dtype, device,
                                   layout)
    if done is not None:
        return _finish(done, False, requires_grad)
    w = arange(n, dtype=dtype, device=device).mul_(math.pi / float(n - 1))
    w = w.mul(4).cos_().mul_(0.08) - w.mul(2).cos_().mul_(0.5) + 0.42
    return _finish(w, periodic, requires_grad)


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    requires_grad=False):
    """The triangular Bartlett window ``1 - |2n / (N - 1) - 1|`` (``torch.bartlett_window``).
    See ``hamming_window`` for the arguments.

    Raises:
        RuntimeError: a negative length or a non-floating dtype (PyTorch's messages).
    """
    from .factories import arange
    n, done, dtype = _window_start("bartlett_window", window_length, periodic, dtype, device,
                                   layout)
    if done is not None:
        return _finish(done, False, requires_grad)
    w = arange(n, dtype=dtype, device=device).mul_(2.0 / float(n - 1))
    half = ((n - 1) >> 1) + 1
    w.narrow(0, half, n - half).mul_(-1).add_(2)     # the second half mirrored, in place
    return _finish(w, periodic, requires_grad)
