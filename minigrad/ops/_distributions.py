"""ATen's CPU distribution kernels: how the generator's 32- and 64-bit words become samples.

With these, ``minigrad.manual_seed(s)`` followed by any sampling op gives PyTorch CPU's numbers
after ``torch.manual_seed(s)``: the same words (``minigrad.random``'s mt19937), consumed in the
same order, transformed by the same arithmetic. Each function names the ATen code it mirrors
(``DistributionsHelper.h`` / ``TransformationHelper.h`` / ``cpu/DistributionTemplates.h``):

- ``uniform``: ``uniform_real_distribution``: a 24-bit (53-bit for float64) fraction ``x``;
  ``x * (to - from) + from`` as one fp32 fma (fp64 for float64), rounded into the dtype; a value
  that rounds to ``to`` becomes ``from`` (the result stays in [from, to)).
- ``normal``: 16 or more contiguous elements: ``normal_fill``: uniforms for every element, then
  Box-Muller on blocks of 16 (the last, partial block redrawn from fresh uniforms), in float32
  with ``avx_mathfun``'s log/sincos on an AVX2 machine (16-bit results too, rounded at the
  end), in float64 arithmetic for float64; fewer elements:
  ``normal_distribution<double>`` per element, which caches its second Box-Muller value in the
  generator for the next draw.
- ``randint``: ``uniform_int_from_to_distribution``: ``word % range + low``, a 32-bit word when
  the range fits in 32 bits, else a 64-bit one. ``random_full``: ``random_()``'s ranges.
- ``bernoulli_scalar`` (``bernoulli_(p)``, dropout): a float64 uniform below ``p``;
  ``bernoulli_tensor`` (``bernoulli(probs)``): a float32 uniform (float64 for float64 ``p``).
- ``exponential``: ``-1 / lambda * log1p(-u)`` in float64.
- ``cauchy``: ``median + sigma * tan(pi * (u - 0.5))``; ``log_normal``: ``exp`` of a
  ``normal_distribution<double>`` draw; ``geometric``: ``ceil(log(u) / log1p(-p))`` (float64,
  one 53-bit uniform per element, or per pair of normals).
- ``randperm``: Fisher-Yates swaps with ``word % (n - i)``.
- ``multinomial``: with replacement, a float64 uniform searched in the normalised cumulative
  weights; without (or one sample), the exponential race ``argmax/topk(w / Exp(1))``.

Where PyTorch's result is not reproduced bit for bit it is said in the function's docstring.
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes as _dt
from ..numerics import CPU_CAPABILITY, fma32, fma64
from ._avx_mathfun import log_ps, sincos_ps

from ..memory_layout import permuted, strided_like  # noqa: F401,E402  (D.permuted...)

_F = np.float32


def memory_order(arr, like):
    """``arr`` (draws of ``like``'s shape, in C order of the draw sequence) placed as PyTorch's
    TensorIterator writes them into a tensor with ``like``'s strides: in the order of memory
    (dims by decreasing stride), not of the logical index. A transposed view ``x.t().uniform_()``
    or ``randn_like(x.t())`` so gets PyTorch's numbers in PyTorch's places."""
    if like.ndim < 2 or like.flags.c_contiguous:
        return arr
    perm = sorted(range(like.ndim), key=lambda d: -abs(like.strides[d]))
    shaped = np.asarray(arr).reshape(-1).reshape([like.shape[d] for d in perm])
    return shaped.transpose(np.argsort(perm))


def _fraction(g, n, dt):
    """``n`` uniforms in [0, 1) as ATen's ``uniform_real`` makes them (float64 values): 53 bits
    of a 64-bit word for float64, 24 bits of a 32-bit word otherwise."""
    if dt is _dt.float64:
        return (g._random64(n) & np.uint64((1 << 53) - 1)).astype(np.float64) * 2.0 ** -53
    return (g._random(n) & np.uint64((1 << 24) - 1)).astype(np.float64) * 2.0 ** -24


def uniform(g, n, low, high, dt):
    """``n`` samples of U[low, high) in dtype ``dt`` (storage array), as ``uniform_kernel``."""
    x = _fraction(g, n, dt)
    if dt is _dt.float64:
        v = fma64(x, np.float64(high) - np.float64(low), np.full(n, np.float64(low)))
    else:
        span = _F(_F(high) - _F(low))
        v = fma32(x.astype(_F), np.full(n, span), np.full(n, _F(low)))
    with np.errstate(over="ignore"):
        out = np.asarray(v).astype(dt.np)
        top = np.asarray(high).astype(dt.np)
    return np.where(out == top, np.asarray(low).astype(dt.np), out)


_LIBM = {f: np.frompyfunc(getattr(math, f), 1, 1) for f in ("log", "cos", "sin", "log1p")}


def _libm64(name, x):
    """The C library's double ``name`` (``std::log`` / ``std::cos`` / ``std::sin`` /
    ``std::log1p``, what ATen's scalar code calls) elementwise, through Python's ``math`` module. NumPy's own float64
    log/cos/sin are not always glibc's: on AVX-512 CPUs NumPy dispatches them to SIMD (SVML)
    kernels that differ in the last bit (measured: element 36 of a 333-element float64 randn)."""
    x = np.asarray(x, np.float64)
    return np.asarray(_LIBM[name](x), np.float64).reshape(x.shape)


def _box_muller16(d, mean, std, dt):
    """``normal_fill_16`` on rows of 16 uniforms ``d`` (shape (k, 16)): the first 8 give the
    radii, the last 8 the angles; returns the 16 normals per row in ``dt``."""
    if dt is _dt.float32 and CPU_CAPABILITY != "DEFAULT":         # normal_fill_16_AVX2
        d = d.astype(_F)
        radius = np.sqrt(_F(-2) * log_ps(_F(1) - d[:, :8]))
        s, c = sincos_ps(_F(2 * math.pi) * d[:, 8:])
        m, sd = np.full(radius.shape, _F(mean)), np.full(radius.shape, _F(std))
        return np.concatenate([fma32(radius * c, sd, m), fma32(radius * s, sd, m)], axis=1)
    # the scalar template, every assignment rounded into scalar_t (float math for 16-bit)
    acc = np.float64 if dt is _dt.float64 else _F
    r = (lambda v: np.asarray(v, acc)) if dt is _dt.float64 or dt is _dt.float32 else \
        (lambda v: np.asarray(v, acc).astype(dt.np).astype(acc))
    d = r(d)
    mean, std = r(mean), r(std)
    u1, u2 = r(1 - d[:, :8]), d[:, 8:]
    f64 = acc is np.float64
    log, cos, sin = ((lambda v, f=f: _libm64(f, v)) if f64 else getattr(np, f)
                     for f in ("log", "cos", "sin"))
    radius = r(np.sqrt(acc(-2) * log(u1)))
    theta = r(np.asarray(2.0 * math.pi * u2.astype(np.float64)))
    a = r(radius * cos(theta) * std + mean)
    b = r(radius * sin(theta) * std + mean)
    return np.concatenate([a, b], axis=1)


def normal(g, n, mean, std, dt, contiguous=True):
    """``n`` samples of N(mean, std^2) in dtype ``dt`` (storage array), as ``normal_kernel``.

    fp16/bf16 take the float32 path block by block (16 fresh uniforms per block, so the
    stream advances by ``16 * ceil(n / 16)`` words, not ``n``) and round the normals once.
    Bit-exact with PyTorch on AVX2 machines; on DEFAULT-capability machines NumPy's
    log/cos/sin stand in for the C library's and can move the last bit.
    """
    if n >= 16 and contiguous:                                       # normal_fill
        full = n - n % 16
        low = dt.itemsize == 2      # 16-bit: float32 math, fresh uniforms for every block
        work = _dt.float32 if low else dt
        out = _fraction(g, full if low else n, work).astype(work.np).astype(np.float64)
        out = np.concatenate([out, np.zeros(n - out.size)]) if low else out
        out[:full] = _box_muller16(out[:full].reshape(-1, 16), mean, std, work).reshape(-1)
        if n % 16:              # the last 16 elements again, from 16 fresh uniforms
            tail = _fraction(g, 16, work).astype(work.np).astype(np.float64).reshape(1, 16)
            out[n - 16:] = _box_muller16(tail, mean, std, work).reshape(-1)
        with np.errstate(over="ignore"):      # a huge std overflows to inf, silently
            return out.astype(work.np).astype(dt.np)
    with np.errstate(over="ignore"):
        return normal_doubles(g, n, mean, std).astype(dt.np)  # normal_distribution<double>


def normal_doubles(g, n, mean, std):
    """``n`` draws of ``normal_distribution<double>(mean, std)`` (float64 array), one element at
    a time: Box-Muller on two 53-bit uniforms, the second value cached in the generator for
    the next draw (``maybe_get_next_double_normal_sample``); ``transformation::normal``'s
    ``val * std + mean`` is one fma in PyTorch's build (measured: a plain product and sum
    differ in the last bit for a ``std`` such as 0.7)."""
    out = np.empty(n, np.float64)
    for i in range(n):
        cached = g._next_double_normal
        if cached is not None:
            g._next_double_normal = None
            out[i] = cached
            continue
        u1, u2 = _fraction(g, 2, _dt.float64)
        radius = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        g._next_double_normal = radius * math.sin(theta)
        out[i] = radius * math.cos(theta)
    return fma64(out, np.float64(std), np.full(n, np.float64(mean)))


def cauchy(g, n, median, sigma):
    """``n`` samples of Cauchy(median, sigma) (float64 values): ``cauchy_distribution<double>``,
    ``median + sigma * tan(pi * (u - 0.5))`` on a 53-bit uniform ``u`` (``transformation::
    cauchy``), the last product and sum one fma as PyTorch's build (measured)."""
    u = _fraction(g, n, _dt.float64)
    return fma64(np.tan(math.pi * (u - 0.5)), np.float64(sigma), np.full(n, np.float64(median)))


def log_normal(g, n, mean, std):
    """``n`` samples of LogNormal(mean, std) (float64 values): ``lognormal_distribution<double>``,
    ``exp`` of a ``normal_distribution<double>`` draw (cached pairs, ``normal_doubles``)."""
    # the C library's exp per element (NumPy's SIMD exp can differ in the last bit of fp64)
    return np.array([math.exp(v) if v < 709.8 else math.inf
                     for v in normal_doubles(g, n, mean, std).tolist()], np.float64)


def geometric(g, n, p):
    """``n`` samples of Geometric(p) on {1, 2, ...} (float64 values): ``geometric_distribution
    <double>``, ``ceil(log(u) / log1p(-p))`` on a 53-bit uniform ``u``."""
    u = _fraction(g, n, _dt.float64)
    with np.errstate(divide="ignore"):
        return np.ceil(np.log(u) / math.log1p(-p))


def randint(g, n, low, high):
    """``n`` integers uniform in [low, high) (int64 array), as ``random_from_to``."""
    span = int(high) - int(low)
    words = g._random(n) if span < (1 << 32) else g._random64(n)
    return (words % np.uint64(span)).astype(np.int64) + np.int64(low) if span < (1 << 63) else \
        ((words % np.uint64(span)) + np.uint64(int(low) % (1 << 64))).view(np.int64)


def random_full(g, n, dt):
    """``random_()`` without bounds: [0, 2**digits] for floating dtypes, [0, max] for integers,
    {0, 1} for bool; a 64-bit word for int64/float64, else 32 bits."""
    words = g._random64(n) if dt in (_dt.int64, _dt.float64) else g._random(n)
    if dt is _dt.bool_:
        return (words & np.uint64(1)).astype(np.int64)
    if dt.is_floating_point:
        digits = {"float64": 53, "float32": 24, "float16": 11, "bfloat16": 8}[dt.name]
        return (words % np.uint64((1 << digits) + 1)).astype(np.int64)
    return (words % np.uint64(int(np.iinfo(dt.np).max) + 1)).astype(np.int64)


def bernoulli_scalar(g, n, p):
    """``n`` 0/1 draws of probability ``p`` in [0, 1] (bool array):
    ``bernoulli_distribution<double>``, ``u < p`` for the 53-bit uniform ``u = m * 2**-53``
    (``_fraction``: ``m`` the low 53 bits of a 64-bit word, the first 32-bit word high).

    Tested as integers, the same test exactly: ``m * 2**-53`` and ``p * 2**53`` are exact
    doubles, so for the integer ``m``, ``u < p`` iff ``m < T = ceil(p * 2**53)``; and ``m <
    T`` compares the words' halves lexicographically (high 21 bits, then the low word), without
    forming the 64-bit words or the doubles (3x fewer instructions than ``_fraction``)."""
    w = g._random(2 * n)
    hi, lo = w[0::2] & np.uint64((1 << 21) - 1), w[1::2]
    t = math.ceil(p * 2.0 ** 53)
    th, tl = np.uint64(t >> 32), np.uint64(t & 0xFFFFFFFF)
    below = hi < th
    below |= np.logical_and(hi == th, lo < tl)
    return below


def bernoulli_tensor(g, p, p_dtype):
    """0/1 draws (bool array) of the probabilities ``p`` (any shape, float64 values of dtype
    ``p_dtype``): a float64 uniform for float64 ``p``, a float32 one otherwise."""
    if p_dtype is _dt.float64:
        return _fraction(g, p.size, _dt.float64).reshape(p.shape) < p
    u = _fraction(g, p.size, _dt.float32).astype(_F).reshape(p.shape)
    return u < p.astype(_F)


def exponential(g, n, lambd):
    """``n`` samples of Exp(lambd) (float64 values): ``-1 / lambd * log1p(-u)``."""
    u = _fraction(g, n, _dt.float64)
    return (-1.0 / lambd) * _libm64("log1p", -u)


def randperm(g, n):
    """A permutation of ``0..n-1`` (int64 array) as ``randperm_cpu``: for ``i`` in 0..n-2 swap
    element ``i`` with element ``i + word % (n - i)``."""
    r = np.arange(n, dtype=np.int64)
    if n < 2:
        return r
    z = (g._random(n - 1) % np.arange(n, 1, -1, dtype=np.uint64)).astype(np.int64)
    z += np.arange(n - 1)
    lst = r.tolist()
    for i, k in enumerate(z.tolist()):
        lst[i], lst[k] = lst[k], lst[i]
    return np.array(lst, dtype=np.int64)


def multinomial(g, w, num_samples, replacement, dt):
    """Category indices (int64, shape ``(rows, num_samples)``) for the weights ``w`` (float64
    values of dtype ``dt``, shape ``(rows, categories)``), as ``multinomial_out``."""
    rows, k = w.shape
    if replacement and num_samples > 1:
        out = np.empty((rows, num_samples), np.int64)
        acc = np.float64 if dt is _dt.float64 else _F
        for i in range(rows):
            cum = np.cumsum(w[i].astype(acc), dtype=acc)
            total = cum[-1]
            cum = cum / total
            cum[-1] = 1
            u = _fraction(g, num_samples, _dt.float64)
            out[i] = np.searchsorted(cum.astype(np.float64), u, side="left")
        return out
    q = exponential(g, w.size, 1.0).astype(dt.np).astype(np.float64).reshape(w.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        keys = (w / q).astype(dt.np).astype(np.float64)
    return np.argsort(-keys, axis=1, kind="stable")[:, :num_samples]     # topk / argmax
