"""Fast float32 <-> float16 conversion with NumPy integer/float ops, bit-identical to ``astype``.

NumPy's own float16 casts run a scalar, branchy software routine per element (~1.9 ns/element
for fp32 -> fp16 and ~1.0 ns for fp16 -> fp32 here), which dominates fp16 emulation. The two
functions below do the same conversion with a handful of vectorised whole-chunk ufunc passes,
chunk by chunk (``CHUNK`` elements, preallocated scratch, so every pass stays in cache).

``float32_to_float16(x)`` (round to nearest even, as ``x.astype(np.float16)``):
    For ``a = |x|`` (its bit pattern ``A``), let ``G`` be the float ``2**(max(e, -14) + 13)`` where
    ``e`` is ``a``'s binary exponent. The spacing of floats near ``G`` is ``2**(max(e,-14) - 10)``,
    which is exactly the fp16 spacing at ``a``; so the FPU's own addition ``a + G`` rounds ``a``
    to fp16 precision with round-to-nearest-even (subnormals, zero and fp32 subnormals included),
    and ``D = (a + G) - G`` is that rounded value, exactly (Sterbenz). ``D`` is an fp16 value, so
    ``D * 2**-112`` is exact too (fp16's exponent bias 15 is fp32's 127 less 112; fp16
    subnormals become fp32 subnormals, multiples of 2**-136) and its fp32 bit pattern is the fp16
    pattern shifted left by 13, as ``float16_to_float32`` below reads it backwards. Its bits
    28..30 are 0 (the exponent field is at most 30), so the sign of ``x``, moved from bit 31 to
    bit 28 and or-ed in, lands at bit 15 with the shift right by 13 that puts ``|h|`` at bits
    0..14 (the carry of the rounding into the exponent included): one narrowing to uint16
    gives the fp16 pattern. A chunk
    holding ``|x| >= 65520``, inf or NaN (one max reduction of ``A`` tells) is converted by
    ``astype`` instead, so overflow, NaN payloads and FP warnings are NumPy's own. Needs the
    FPU's flush-to-zero mode off (NumPy's default; ``D * 2**-112`` is an fp32 subnormal for
    fp16 subnormals), as ``float16_to_float32`` needs denormals-are-zero off.

``float16_to_float32(h)`` (exact, as ``h.astype(np.float32)``):
    ``h`` is sign-extended to int32 and shifted left by 13, which puts ``|h|`` at fp32's
    exponent/mantissa position (bits 13..27) and the sign at bits 28..31; masking bits 28..30
    leaves ``sign | |h| << 13``, a float ``2**-112`` times the fp16 value, and a multiply by
    ``2**112`` rebiases it exactly (zero and subnormals included: fp16 subnormals become fp32
    subnormals, whose multiply is slow on x86 - chunks with many fp16 subnormals convert at
    about ``astype``'s speed). inf/NaN would come out as finite ``+-2**16..2**17``: a chunk
    holding one is converted by ``astype`` instead (NumPy keeps NaN payloads and signalling
    NaNs). Two max reductions of the fp16 bits tell, before any work: read as int16, +inf and
    the +NaNs are the patterns ``>= 0x7C00``; read as uint16, -inf and the -NaNs are those
    ``>= 0xFC00`` (half the bytes of a reduction over the fp32 result). Needs the FPU's
    denormals-are-zero mode off (NumPy's default).

Measured here (medians, random-normal data, 64K-2M elements): fp32 -> fp16 ~1.3-1.4 ns/element
against ``astype``'s ~1.75-1.9 (20-26% faster); fp16 -> fp32 ~0.5-0.6 against ~0.93-1.0
(36-46% faster). The uint16 tail of fp32 -> fp16 and the inf/NaN test on the fp16 bits took
another ~8-10% off each (process-time minima, 128K-400K elements, on a loaded machine). Reading
``|h|`` off ``D * 2**-112`` (a float subtract and multiply, one shift, one narrowing) instead of
adding the exponent term on uint16 (two narrowings, a shift, two adds) took fp32 -> fp16 from
12.4 to 11.7 instructions per element (callgrind); the sign or-ed in at bit 28 before the one
narrowing (instead of a second shift and narrowing of the sign and two uint16 passes) and
the ufuncs' ``out`` passed positionally to 11.4 (64K-element chunks; see ``CHUNK``).

Both functions fall back to ``astype`` for arrays smaller than ``MIN_SIZE`` elements (where the
fixed per-call cost of the passes outweighs the per-element saving). They accept any shape and
return a new array that owns its memory, as ``astype``'s does (a view of a private buffer would
stop AccumulateGrad from taking a gradient over without a copy): column-major (F-contiguous)
for a column-major input such as ``weight.t()``, whose C-contiguous transpose is converted
without a strided copy (the layout ``astype``'s default ``order="K"`` keeps too), else
C-contiguous (other non-contiguous inputs are made contiguous first).
"""
from __future__ import annotations

import threading

import numpy as np

__all__ = ["float32_to_float16", "float16_to_float32", "float32_to_float16_widened", "CHUNK",
           "MIN_SIZE"]

CHUNK = 1 << 18          # elements per chunk (scratch 1 MiB per uint32 array, in L2/L3). Each
# pass is one ufunc call, ~5k instructions of NumPy's own: with 64K-element chunks that was ~1
# instruction per element of fp32 -> fp16's 11.4 (14 calls a chunk); 256K-element chunks take
# it to ~0.3 and were faster in wall time too, also on data cold in cache (1.49 -> 1.33 ns per
# element for fp32 -> fp16, 0.44 -> 0.38 for fp16 -> fp32, 40 arrays of 512x784 in turn)
MIN_SIZE = 4096          # below this, astype is as fast or faster

_U = np.uint32
_ABS = _U(0x7FFFFFFF)
_EXP = _U(0x7F800000)
_MAG13 = _U(13 << 23)                 # 2**13 in the exponent field
_HALF = _U(0x3F000000)                # 0.5f: the magic of the subnormal range (2**(-14+13))
_SH13 = _U(13)
_SIGN = _U(0x80000000)
_SH3 = _U(3)
_M112 = np.float32(2.0 ** -112)       # fp32 bits of (an fp16 value * 2**-112) = fp16 bits << 13
_OVF = _U(0x477FF000)                 # 65520.0f: from here fp16 rounds to inf
_P112 = np.float32(2.0 ** 112)
_MAX = np.maximum.reduce
_I13 = np.int32(13)
_KEEP = _U(0x8FFFFFFF)
_INF16 = np.int16(0x7C00)              # +inf's bits: as int16, +inf and +NaN are the largest
_NEGINF16 = np.uint16(0xFC00)          # -inf's bits: as uint16, -inf and -NaN are the largest


class _Scratch:
    """Preallocated per-chunk work arrays (one set per thread)."""

    def __init__(self, n):
        self.a = np.empty(n, np.uint32)
        self.g = np.empty(n, np.uint32)
        self.lo = np.full(n, 0x38800000, np.uint32)   # 2**-14: the clamp of the exponent
        # (np.maximum against a full array is vectorised; against a scalar it is 3x slower)


_local = threading.local()


def _column_major(x):
    """True for an F-contiguous array that is not also C-contiguous (a transposed matrix)."""
    f = x.flags
    return f.f_contiguous and not f.c_contiguous


def _flat_pair(x, dtype, bits):
    """The source and a new result for a conversion of ``x`` to ``dtype``, both as flat arrays:
    ``(flat source, result, flat result viewed as the unsigned int type bits)``.

    The result owns its memory (its ``base`` is None, as ``astype``'s result), so that code which
    takes over a buffer nobody else holds (AccumulateGrad stealing a gradient,
    ``autograd.engine._sole_owner``) can take it; it is column-major when ``x`` is (e.g.
    ``weight.t()``: its C-contiguous transpose is read, no strided copy), else C-contiguous
    (other non-contiguous inputs are made contiguous first)."""
    if _column_major(x):
        out = np.empty(x.shape, dtype, order="F")
        return x.T.reshape(-1), out, out.T.reshape(-1).view(bits)
    out = np.empty(x.shape, dtype)
    return np.ascontiguousarray(x).reshape(-1), out, out.reshape(-1).view(bits)


def _scratch():
    s = getattr(_local, "s", None)
    if s is None:
        s = _local.s = _Scratch(CHUNK)
    return s


def _f32_to_f16_chunk(x, u, out, a, g, lo, w=None):
    """fp32 chunk ``x`` (its bits ``u``) -> fp16 bit patterns written into ``out`` (uint16);
    ``a`` and ``g`` (uint32) are scratch, ``lo`` the exponent clamp; ``w`` (uint32), when
    given, gets the fp32 bits of the rounded values (``sign | D``: the fp16 result widened).
    (The ufuncs take ``out`` positionally: the keyword costs NumPy a few hundred instructions
    a call.)"""
    np.bitwise_and(u, _ABS, a)                         # A = |x| bits
    if _MAX(a) >= _OVF:                                # overflow, inf or NaN: NumPy's own cast
        h = out.view(np.float16)
        h[...] = x                                     # (same bits, same FP warnings)
        if w is not None:
            w.view(np.float32)[...] = h
        return
    np.bitwise_and(a, _EXP, g)                         # 2**e
    np.maximum(g, lo, out=g)                           # 2**e' = 2**max(e, -14)
    np.add(g, _MAG13, g)                               # G = 2**(e'+13)
    af = a.view(np.float32)
    gf = g.view(np.float32)
    np.add(af, gf, af)                                 # Y = a + G: the FPU rounds a to fp16 (RNE)
    np.subtract(af, gf, af)                            # D = Y - G: |x| rounded, exactly
    np.bitwise_and(u, _SIGN, g)
    if w is not None:
        np.bitwise_or(a, g, w)                         # sign | D: the fp16 value as fp32
    np.multiply(af, _M112, af)                         # bits(D * 2**-112) = |h| << 13
    # the sign goes to bit 28, which is 0 in bits(D * 2**-112) (its exponent field is at most
    # 30 < 2**5), so one shift puts it at bit 15 next to |h| and one narrowing makes the fp16
    np.right_shift(g, _SH3, g)
    np.bitwise_or(a, g, a)
    np.right_shift(a, _SH13, a)
    np.copyto(out, a, casting="unsafe")


def float32_to_float16(x) -> np.ndarray:
    """Round a float32 array to float16, bit-identical to ``x.astype(np.float16)``.

    Args:
        x: np.ndarray of dtype float32, any shape.

    Returns:
        A new float16 array of ``x``'s shape that owns its memory: column-major when ``x`` is,
        else C-contiguous.

    Raises:
        TypeError: if ``x`` is not a float32 array.
    """
    if not isinstance(x, np.ndarray) or x.dtype != np.float32:
        raise TypeError(f"float32_to_float16 expects a float32 ndarray, got "
                        f"{getattr(x, 'dtype', type(x).__name__)}")
    n = x.size
    if n < MIN_SIZE:
        with np.errstate(over="ignore"):      # overflow gives inf, silently, as in PyTorch
            return x.astype(np.float16)
    xf, result, out = _flat_pair(x, np.float16, np.uint16)
    u = xf.view(np.uint32)
    s = _scratch()
    for i in range(0, n, CHUNK):
        j = min(i + CHUNK, n)
        m = j - i
        _f32_to_f16_chunk(xf[i:j], u[i:j], out[i:j], s.a[:m], s.g[:m], s.lo[:m])
    return result


def float32_to_float16_widened(x):
    """``float32_to_float16(x)`` and that result widened back to float32, in one pass:
    ``(h, w)`` with ``w`` bit-identical to ``h.astype(np.float32)`` (the rounded values; one
    more whole-chunk pass than the rounding alone, where a later widening takes five).

    Args:
        x: np.ndarray of dtype float32 of at least ``MIN_SIZE`` elements, any shape.

    Returns:
        Two new arrays of ``x``'s shape owning their memory, in the layout
        ``float32_to_float16`` gives (column-major when ``x`` is, else C-contiguous).

    Raises:
        TypeError: if ``x`` is not a float32 array; ValueError: fewer than ``MIN_SIZE``
            elements.
    """
    if not isinstance(x, np.ndarray) or x.dtype != np.float32:
        raise TypeError(f"float32_to_float16_widened expects a float32 ndarray, got "
                        f"{getattr(x, 'dtype', type(x).__name__)}")
    n = x.size
    if n < MIN_SIZE:
        raise ValueError(f"float32_to_float16_widened needs at least {MIN_SIZE} elements")
    xf, result, out = _flat_pair(x, np.float16, np.uint16)
    wide = np.empty(x.shape, np.float32, order="F" if _column_major(x) else "C")
    wf = (wide.T if _column_major(x) else wide).reshape(-1).view(np.uint32)
    u = xf.view(np.uint32)
    s = _scratch()
    for i in range(0, n, CHUNK):
        j = min(i + CHUNK, n)
        m = j - i
        _f32_to_f16_chunk(xf[i:j], u[i:j], out[i:j], s.a[:m], s.g[:m], s.lo[:m], wf[i:j])
    return result, wide


def _f16_to_f32_chunk(x, h, out):
    """fp16 chunk ``x`` (its bits ``h``) -> fp32 bit patterns written into ``out`` (uint32)."""
    if _MAX(h.view(np.int16)) >= _INF16 or _MAX(h) >= _NEGINF16:   # +inf/NaN, -inf/NaN:
        out.view(np.float32)[...] = x                  # NumPy's own cast for this chunk
        return
    v = out.view(np.int32)
    np.copyto(v, h.view(np.int16))                     # sign-extend: bits 15..31 = the sign
    np.left_shift(v, _I13, v)                          # sign at 28..31, |h| at 13..27
    np.bitwise_and(out, _KEEP, out)                    # sign at 31, |h| << 13
    of = out.view(np.float32)
    np.multiply(of, _P112, of)                         # exact rebias (subnormals included)


def float16_to_float32(h) -> np.ndarray:
    """Widen a float16 array to float32, bit-identical to ``h.astype(np.float32)``.

    Args:
        h: np.ndarray of dtype float16, any shape.

    Returns:
        A new float32 array of ``h``'s shape that owns its memory: column-major when ``h`` is,
        else C-contiguous.

    Raises:
        TypeError: if ``h`` is not a float16 array.
    """
    if not isinstance(h, np.ndarray) or h.dtype != np.float16:
        raise TypeError(f"float16_to_float32 expects a float16 ndarray, got "
                        f"{getattr(h, 'dtype', type(h).__name__)}")
    n = h.size
    if n < MIN_SIZE:
        return h.astype(np.float32)
    hf, result, out = _flat_pair(h, np.float32, np.uint32)
    b = hf.view(np.uint16)
    for i in range(0, n, CHUNK):
        j = min(i + CHUNK, n)
        _f16_to_f32_chunk(hf[i:j], b[i:j], out[i:j])
    return result
