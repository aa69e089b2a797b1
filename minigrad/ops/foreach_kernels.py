"""One tensor's arithmetic behind the ``_foreach_*`` ops, rounded as ATen's CPU kernels round.

On CPU, PyTorch's ``_foreach_*`` kernels are a loop of the per-tensor kernels (``add_``,
``mul_``, ``lerp_``, ``addcmul_``, ``addcdiv_``, ``sqrt``, ``div_``, ``maximum_``), so each
function here stands for ONE such kernel call on one tensor: it takes arrays in the storage
dtype and writes its result, rounded once exactly as that kernel rounds, into ``out`` (a new
array when ``out`` is None) and returns it. ``minigrad/ops/foreach.py`` applies them to lists.

Recipes (measured on torch 2.13 CPU, see ``shared/reference/pytorch-2.13-facts.md`` §5/§6), with
``opmath`` = fp32 for fp16/bf16 storage, the storage type itself for fp32/fp64, ``R`` = one
round-to-nearest-even into storage:

- ``add(a, b, alpha)``   = R(fma(b, alpha', a)); ``alpha'`` is alpha rounded to a 16-bit storage
  dtype first (fp32/fp64: alpha converted to opmath). Exception, fp16/bf16 only: ATen's
  vectorised loop handles ``VEC_16BIT`` elements at a time and its scalar tail loop computes in
  the 16-bit type, R(a + R(alpha'*b)), rounding twice. The tail is the last
  ``n % numerics.loop_step(dtype)`` elements of each thread's chunk (``numerics.parallel_chunks``:
  tensors above ``GRAIN_SIZE`` elements are split among ``numerics.get_num_threads()`` threads).
  The machine constants (lanes, threads, fma) are ``minigrad/numerics.py``'s.
- ``mul(a, s)``          = R(a * opmath(s)) (the scalar is NOT rounded to 16 bits by
  ``mul_``; the in-place ``_foreach_mul_`` rounds it first, see ``foreach.py``).
- ``add_scalar(a, s)``   = R(a + s') with s' rounded to a 16-bit storage dtype first.
- ``div_scalar(a, s)``   = R(a / opmath(s)) (true division).
- ``lerp(a, b, w)``      = R(fma(w, b - a, a)) if |w| < 0.5 else R(fma(-(1 - w), b - a, b)).
- ``addcmul(a, b, c, v)`` = R(fma(v * b, c, a)).
- ``addcdiv(a, b, c, v)`` = R(a + (v * b) / c).
- ``sqrt(a)``            = R(sqrt(a)) with the correctly rounded IEEE sqrt. torch's fp32/fp64
  ``sqrt`` on contiguous CPU tensors goes through MKL's vector math, which is not correctly
  rounded (about 1% of fp32 values differ by 1 ulp). We cannot reproduce MKL here, so fp32/fp64
  Adam differs from torch by at most a couple of ulp (a deliberate, documented difference);
  fp16/bf16 are unaffected (torch computes their sqrt in fp32 with a correctly rounded
  instruction, then rounds to 16 bits). ``using_sqrt(fn)`` swaps in another sqrt (tests use
  torch's own to prove every other step bit-exact).

fma(a, b, c) is one rounding of a*b + c (``numerics.fma32`` / ``fma64``: fp32 as float64
a*b + c rounded to fp32, a*b being exact in float64; fp64 by Dekker's error-free product and
Knuth's two-sum; two roundings on a build without fma).

Two paths, same bits. The general path computes in opmath into new arrays, then copies the
result into ``out``. fp32 storage takes a fast path: the result is written straight into
``out``, in chunks of ``CHUNK`` elements with per-thread float64 scratch for the fmas (so each
chunk's multiply -> add -> round chain stays in cache), and single IEEE fp32 operations run as
plain fp32 NumPy ops. Each op keeps its recipe's operand order, so even NaN payloads agree. The
fast path is skipped when an input shares memory with ``out`` other than as the very same array
(a reversed view of the destination, say): writing chunk by chunk would then change inputs not
yet read. ``tests/unit/test_foreach_kernels.py`` runs both paths and compares them bit for bit.
"""
from __future__ import annotations

import contextlib
import threading

import numpy as np

from .. import numerics

__all__ = ["using_sqrt", "opmath_np", "add", "add_all", "mul", "add_scalar",
           "div_scalar", "lerp", "addcmul", "addcdiv", "sqrt", "maximum", "neg", "new_out",
           "mul_tensors", "div_tensors", "lerp_tensors",
           "CHUNK"]

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
CHUNK = 32768         # elements per chunk of the fp32 fast path (scratch mostly in L2)
BCHUNK = 2 * CHUNK    # elements per piece of the fp32 bracket (``_axpy_bracket``): its scratch
#                       is fp32, so the same bytes hold twice as many
BRACKET_MIN = 16384   # smaller tensors: the emulation (the bracket's extra NumPy calls cost about
#                       what its cheaper passes save: measured on the small MLP's 8192)
_sqrt_impl = [None]   # None: NumPy's correctly rounded sqrt; else a replacement (using_sqrt)
_local = threading.local()
FAST_FP32 = True      # tests switch the fp32 fast path off to compare it with the general path
FP32_BRACKET = True   # tests switch ``_axpy_bracket`` off to compare it with the float64 emulation
FLAT_MAX = CHUNK      # lists of at most this many elements in all: ``add_all``'s one pass
FLAT = True           # False: ``add_all`` declines every list (the per-tensor loop runs)
# ``np.may_share_memory`` without its array-function dispatcher (a Python-level frame per call)
_may_share_memory = getattr(np.may_share_memory, "_implementation", np.may_share_memory)


@contextlib.contextmanager
def using_sqrt(fn):
    """Within the block, ``sqrt`` of fp32/fp64 arrays calls ``fn(array) -> array`` instead of
    NumPy's correctly rounded sqrt (``None`` keeps NumPy's). Restored on exit."""
    old = _sqrt_impl[0]
    _sqrt_impl[0] = fn
    try:
        yield
    finally:
        _sqrt_impl[0] = old


def _tail_slices(n: int, npd):
    """Slices of a flat length-n 16-bit tensor that ATen's scalar (non-vectorised) loop handles."""
    step = numerics.loop_step(npd)
    if step is None:
        return []
    out = []
    for s, e in numerics.parallel_chunks(n):
        start = s + ((e - s) // step) * step
        if start < e:
            out.append(slice(start, e))
    return out


def opmath_np(npd: np.dtype) -> np.dtype:
    """The NumPy compute dtype for storage ``npd``: float64 stays, everything else is fp32."""
    return _F64 if npd == _F64 else _F32


def _up(a, cd):
    return a if a.dtype == cd else a.astype(cd)


def _is_low(npd):
    return npd != _F32 and npd != _F64


def _store(x, npd, out):
    """Round ``x`` once into ``npd`` and put it in ``out`` (or return it when out is None)."""
    if out is None:
        return x if x.dtype == npd else x.astype(npd)
    out[...] = x if x.dtype == npd else x.astype(npd)
    return out


def _fma(a, b, c, cd):
    """One rounding of a*b + c in compute dtype ``cd`` (arrays or scalars of dtype ``cd``)."""
    if cd == _F32:
        return numerics.fma32(a, b, c)
    return numerics.fma64(a, b, c)


def storage_scalar(s, npd):
    """The number ``s`` rounded to a 16-bit storage dtype ``npd`` (unchanged for fp32/fp64)."""
    return npd.type(s) if _is_low(npd) else s


def _scalar(s, npd, round_to_storage: bool):
    cd = opmath_np(npd)
    if round_to_storage and _is_low(npd):
        return cd.type(npd.type(s))
    return cd.type(s)


# ---------------------------------------------------------------------- the fp32 fast path
def _scratch():
    """Per-thread scratch of CHUNK elements: two float64 arrays and one fp32 array."""
    s = getattr(_local, "bufs", None)
    if s is None:
        s = _local.bufs = (np.empty(CHUNK, _F64), np.empty(CHUNK, _F64), np.empty(CHUNK, _F32))
    return s


def _bracket_scratch():
    """Per-thread scratch of ``BCHUNK`` elements for ``_axpy_bracket``: three fp32 arrays and
    a bool one, the first two and the last viewing ``_scratch``'s arrays."""
    s = getattr(_local, "bracket", None)
    if s is None:
        s64a, s64b, t = _scratch()
        s = _local.bracket = (s64a.view(_F32), s64b.view(_F32), np.empty(BCHUNK, _F32),
                              t.view(np.bool_)[:BCHUNK])
    return s


def _scratch_shaped(shape, n):
    """The per-thread scratch (``_scratch``) cut to ``n`` (<= CHUNK) elements and viewed as
    ``shape``, the views kept per shape: slicing and reshaping three arrays costs more than a
    small tensor's arithmetic, and an optimizer meets the same few shapes every step. (Each
    kernel call overwrites the scratch, as with fresh views of it.)"""
    views = getattr(_local, "views", None)
    if views is None:
        views = _local.views = {}
    v = views.get(shape)
    if v is None:
        if len(views) >= 64:        # many shapes (not an optimizer's few): start over
            views.clear()
        s64a, s64b, t = _scratch()
        f32a = s64a.view(_F32)
        v = views[shape] = (s64a[:n].reshape(shape), s64b[:n].reshape(shape),
                            t[:n].reshape(shape),
                            # fp32 and bool views of the same scratch (``_axpy_bracket``)
                            f32a[:n].reshape(shape), f32a[CHUNK:CHUNK + n].reshape(shape),
                            s64b.view(_F32)[:n].reshape(shape),
                            t.view(np.bool_)[:n].reshape(shape))
    return v


def _fast(out, *inputs) -> bool:
    """True when the fp32 fast path may write ``out`` chunk by chunk: all arrays fp32, ``out``
    C-contiguous and writeable, no input overlapping ``out`` unless it is ``out`` itself."""
    # (``is``: NumPy's fp32 dtype is one object; an equal other one only takes the general
    # path, with the same bits)
    if out is None or out.dtype is not _F32 or not FAST_FP32 or not numerics.HAS_FMA:
        return False
    flags = out.flags
    if not flags.c_contiguous or not flags.writeable:
        return False
    owns = out.base is None
    for x in inputs:
        if x is not out and isinstance(x, np.ndarray):
            if x.dtype is not _F32:
                return False
            # two arrays that own their memory (no base) cannot overlap: no bounds to compare
            if (not owns or x.base is not None) and _may_share_memory(x, out):
                return False
    return True


def _flat(x, n):
    """A flat length-n fp32 view (a copy if ``x`` is not C-contiguous), or the scalar."""
    if isinstance(x, np.ndarray):
        return np.ascontiguousarray(x).reshape(n)
    return x


def new_out(a):
    """A fresh C-contiguous result array for an out-of-place op on ``a`` when the fp32 fast
    path can fill it directly; None otherwise (the general path then makes its own)."""
    if FAST_FP32 and numerics.HAS_FMA and a.dtype == _F32:
        return np.empty(a.shape, _F32)
    return None


def _fma_chunk(dst, x, y, c, sc):
    """dst = fma(x, y, c) in fp32 for one chunk: x, y arrays or fp32 scalars, ``c`` an array;
    dst may be c; ``sc`` the chunk's scratch. The float64 product is exact, the float64 sum is
    rounded to fp32 by ``_round_sum32`` (which fixes the rare double rounding). (``s[...] = x``
    is ``np.copyto(s, x)`` without the array-function dispatch.)"""
    s, s2 = sc[0], sc[1]
    if isinstance(x, np.ndarray):
        s[...] = x
        if isinstance(y, np.ndarray):
            s2[...] = y
            np.multiply(s, s2, out=s)
        else:
            np.multiply(s, _F64.type(y), out=s)
    else:
        s[...] = y
        np.multiply(_F64.type(x), s, out=s)
    s2[...] = c
    np.add(s, s2, out=s)
    _round_sum32(dst, s, s2, x, y, c)


def _round_sum32(dst, r, spare, x, y, z):
    """``dst = fp32(r)``, where ``r`` is the float64 sum ``x*y + z`` (the product exact), with
    the bits of the correctly rounded fma ``numerics.fma32``.

    Rounding twice (exact -> float64 -> fp32) differs from rounding once only when ``r`` lands
    exactly on an fp32 halfway point that the exact value is not on (float64 rounding is
    monotonic and every fp32 halfway point is a float64 number, so otherwise the exact value and
    ``r`` lie between the same two halfway points). A halfway point has at most 25 significant
    bits, so the low 28 bits of its float64 significand are zero, in the normal range (bit 28
    set) as in fp32's subnormal range (fewer bits). One ``&`` into ``spare`` (free float64
    scratch, viewed as uint64) and a ``minimum`` find whether any element has those bits zero
    (exact fp32 numbers, zeros, halfway points: a superset, usually empty). The masked bits are
    read as float64 (tiny subnormals, or zero where all 28 are zero: no NaN), whose ``minimum``
    is vectorised, where uint64's is not on AVX2 (``count_nonzero`` and ``all`` are not either).
    Then ``_halfway`` narrows these suspects to the halfway points, and only those go through
    ``fma32``'s round-to-odd test (``numerics._fma32_exact``). Their operands are read before
    ``dst`` is written, as ``dst`` may be ``z`` (or ``x``/``y``)."""
    np.bitwise_and(r.view(np.uint64), _LOW28, out=spare.view(np.uint64))
    if np.minimum.reduce(spare, axis=None, initial=1.0):    # no element has them all zero
        dst[...] = r
        return
    m = np.asarray(spare.view(np.uint64) == 0)   # the suspects (r's shape; 0-dim: an array)
    sus = r[m]
    keep = _halfway(sus)
    if not keep.any():                 # exact fp32 numbers only: fp32(r) is the fma
        dst[...] = r
        return
    m[m] = keep                        # the halfway points among the suspects
    p = np.multiply(x[m] if isinstance(x, np.ndarray) else x,
                    y[m] if isinstance(y, np.ndarray) else y, dtype=_F64)
    fixed = numerics._fma32_exact(p, z[m].astype(_F64), sus[keep])
    dst[...] = r
    dst[m] = fixed


def _halfway(s):
    """Which of the float64 numbers ``s`` (each with its low 28 significand bits zero) may be
    fp32 halfway points: in fp32's normal range those with bit 28 set (bit 28 clear: an fp32
    number, which both roundings give: the exact value lies within half a float64 ulp of it),
    and below it (|s| < 2**-126, where fp32 subnormals have fewer bits) all of them. (inf: an
    fp32 number; NaN: no matter, ``fma32`` would only convert it as ``dst[...] = r`` does.)"""
    return ((s.view(np.uint64) & _BIT28) != 0) | (np.abs(s) < _F64.type(2.0 ** -126))


_LOW28 = np.uint64(0x0FFFFFFF)      # the low 28 bits of a float64 significand
_BIT28 = np.uint64(0x10000000)      # the next one: the lowest bit an fp32 number may have set


def _chunked(out, fn, *inputs):
    """Run ``fn(out_chunk, *input_chunks, scratch)`` over CHUNK-sized pieces of flat views (a
    tensor of at most CHUNK elements is one piece: its arrays as they are, scratch in its
    shape). Inputs are arrays of ``out``'s shape (or broadcast to it) and scalars."""
    n = out.size
    if n <= CHUNK:      # one chunk: the arrays as they are (any layout), scratch shaped as out
        fn(out, *inputs, _scratch_shaped(out.shape, n))
        return out
    s64a, s64b, t = _scratch()
    of = out.reshape(n)
    flats = [_flat(x, n) for x in inputs]
    arrays = [isinstance(x, np.ndarray) for x in flats]
    for i in range(0, n, CHUNK):
        j = min(i + CHUNK, n)
        k = j - i
        chunk = []          # a loop, not a list comprehension: cheaper in CPython 3.11
        for x, arr in zip(flats, arrays):
            chunk.append(x[i:j] if arr else x)
        fn(of[i:j], *chunk, (s64a[:k], s64b[:k], t[:k]))
    return out


def _axpy(out, x, alpha, y):
    """out = fma(x, alpha, y) in fp32 for arrays ``x``, ``y`` and an fp32 scalar ``alpha``
    (``add``'s fma): ``_chunked(out, _fma_chunk, x, alpha, y)`` written out for this one
    pattern, the optimizers' most frequent kernel (``p.add_(buf, alpha=-lr)``). Each piece
    first tries the fp32 bracket (``_axpy_bracket``); a piece where it decides too few
    elements runs the float64 emulation (``_axpy_piece``), and so do the later pieces."""
    n = out.size
    al = _alpha64(alpha)
    bracket = _bracket_scalars(alpha) if FP32_BRACKET and n >= BRACKET_MIN and \
        x.shape == out.shape else None
    if n <= CHUNK:      # one piece: the arrays as they are (any layout), scratch shaped as out
        s, s2, _, c, a32, b, ne = _scratch_shaped(out.shape, n)
        if bracket is None or not _axpy_bracket(out, x, bracket, y, c, a32, b, ne):
            _axpy_piece(out, x, al, y, s, s2)
        return out
    of, xf, yf = out.reshape(n), _flat(x, n), _flat(y, n)
    if bracket is not None:
        c32, a32, b32, ne = _bracket_scratch()
        for i in range(0, n, BCHUNK):
            j = i + BCHUNK  # slices end at n: only the last piece's scratch is cut shorter
            k = BCHUNK if j <= n else n - i
            if not _axpy_bracket(of[i:j], xf[i:j], bracket, yf[i:j], c32[:k], a32[:k],
                                 b32[:k], ne[:k]):
                break       # (data on which the bracket fails: the emulation from here on)
        else:
            return out
    else:
        i = 0
    s, s2, _ = _scratch()
    for i in range(i, n, CHUNK):
        j = i + CHUNK
        k = CHUNK if j <= n else n - i
        _axpy_piece(of[i:j], xf[i:j], al, yf[i:j], s[:k], s2[:k])
    return out


def _alpha64(alpha):
    """The fp32 scalar ``alpha`` as float64, remembered as ``_fp32_of``'s (zeros not)."""
    al = _ALPHA64.get(alpha)
    if al is None or not al:
        if len(_ALPHA64) >= 64:
            _ALPHA64.clear()
        al = _ALPHA64[alpha] = _F64.type(alpha)
    return al


def add_all(outs, a_list, b_list, alpha) -> bool:
    """``add(a, b, alpha, out=out)`` for every ``(out, a, b)`` of the three lists of arrays at
    once (``_foreach_add_``'s loop of ``p.add_(buf, alpha=-lr)``), or False, with nothing
    written, where this does not apply; the caller then runs the per-tensor loop.

    It applies to fp32 arrays that own their memory (``base`` None), ``a`` and ``b`` of their
    ``out``'s shape, ``outs`` distinct and writeable, no ``out`` another index's ``a`` or ``b``,
    an fp32 ``alpha'`` other than 1, at most ``FLAT_MAX`` elements in all: the float64 emulation
    of ``_axpy_piece`` (the same operations in the same order, so the same bits) over the
    concatenated tensors, one NumPy call per pass for the whole list, where a small tensor's
    pass costs less than the call. Every input is read before any output is written; the loop
    writes tensor by tensor, which is the same while no output is another index's input (arrays
    that own their memory overlap only when they are the same array)."""
    if not (FLAT and FAST_FP32 and numerics.HAS_FMA) or alpha == 1:
        return False
    al = _fp32_of(alpha)
    if al == 1:
        return False
    n = 0
    shapes = []
    for o, a, b in zip(outs, a_list, b_list):
        # (``is not _F32``: see ``_fast``; ``a is o`` for the in-place op: checked once)
        if o.dtype is not _F32 or b.dtype is not _F32 or o.base is not None or \
                b.base is not None or not o.flags.writeable:
            return False
        shape = o.shape
        if b.shape != shape or a is not o and (
                a.dtype is not _F32 or a.base is not None or a.shape != shape):
            return False
        n += o.size
        if n > FLAT_MAX:
            return False
        shapes.append(shape)
    if len(outs) != len(a_list) or len(outs) != len(b_list):
        return False
    ids = {id(o) for o in outs}
    if len(ids) != len(outs):
        return False
    for o, a, b in zip(outs, a_list, b_list):
        if (a is not o and id(a) in ids) or (b is not o and id(b) in ids):
            return False
    t, t2, r32, t_views, r32_views = _flat_scratch(tuple(shapes), n)
    np.concatenate(b_list, axis=None, out=t)       # x, as float64
    np.multiply(t, _alpha64(al), out=t)
    np.concatenate(a_list, axis=None, out=t2)      # y
    np.add(t, t2, out=t)
    np.bitwise_and(t.view(np.uint64), _LOW28, out=t2.view(np.uint64))
    if np.minimum.reduce(t2, axis=None, initial=1.0):     # as _round_sum32: no suspect
        src = t_views
    else:       # suspects: _round_sum32 on the whole list, its operands concatenated
        _round_sum32(r32, t, t2, np.concatenate(b_list, axis=None), al,
                     np.concatenate(a_list, axis=None))
        src = r32_views
    for o, v in zip(outs, src):
        o[...] = v
    return True


def _flat_scratch(shapes, n):
    """Float64 scratch ``t``, ``t2`` and fp32 ``r32`` of ``n`` (<= CHUNK) elements (views of
    ``_scratch``'s arrays) and the views of ``t`` and of ``r32`` shaped as the tensors of
    ``shapes`` laid end to end, kept per ``shapes`` as ``_scratch_shaped`` keeps its views."""
    views = getattr(_local, "flat_views", None)
    if views is None:
        views = _local.flat_views = {}
    v = views.get(shapes)
    if v is None:
        if len(views) >= 64:
            views.clear()
        s64a, s64b, s32 = _scratch()
        t, r32 = s64a[:n], s32[:n]
        tv, rv = [], []
        i = 0
        for shape in shapes:
            k = 1
            for d in shape:
                k *= d
            tv.append(t[i:i + k].reshape(shape))
            rv.append(r32[i:i + k].reshape(shape))
            i += k
        v = views[shapes] = (t, s64b[:n], r32, tv, rv)
    return v


def _axpy_piece(d, x, al, y, t, t2):
    """d = fma(x, al, y) in fp32 for one piece (the float64 product exact, the float64 sum
    rounded by ``_round_sum32``), ``t``/``t2`` its float64 scratch. (Copies, then float64
    ops: NumPy's in-ufunc conversion, ``dtype=``, measured no cheaper.)"""
    t[...] = x
    np.multiply(t, al, out=t)
    t2[...] = y
    np.add(t, t2, out=t)
    _round_sum32(d, t, t2, x, al, y)


def _bracket_scalars(alpha):
    """``(alpha, up, down)`` for ``_axpy_bracket``: ``alpha`` as fp32 and its two fp32
    neighbours, the one away from zero and the one towards it; None unless ``alpha`` is a
    normal fp32 number below the largest (the bracket's proof needs a normal ``alpha``)."""
    a = _F32.type(alpha)
    if not _TINY32 <= abs(a) < _HUGE32:
        return None
    up, down = np.nextafter(a, _INF32 if a > 0 else -_INF32), np.nextafter(a, _ZERO32)
    return a, up, down


def _axpy_bracket(d, x, sc, y, c, s, b, ne):
    """``d = fma(x, a, y)`` for one piece in fp32 arithmetic only, ``sc = (a, up, down)``
    (``_bracket_scalars``), ``c``/``s``/``b`` fp32 and ``ne`` bool scratch of the piece's
    shape; False (``d`` untouched) when more than 1/32 of the elements would need the float64
    emulation, which then does the whole piece.

    Why it gives the fma's bits: the exact product ``P = x*a`` lies between ``fp32(x*up)``
    and ``fp32(x*down)`` (their exact values are ``P`` scaled by more than ``1 + 2**-24`` and
    at most ``1 - 2**-24``, which one rounding cannot undo while ``|P| >= 2**-126``).
    Rounding is monotonic, so where ``A = fp32(y + fp32(x*up))`` and
    ``B = fp32(y + fp32(x*down))`` agree, the correctly rounded ``y + P`` (the fma) is that
    value too. Where the product is below 2**-126 (the bracket may fail there) an agreeing
    result is still right when ``|y|`` is far above it: ``y`` is then its own rounding, no
    rounding boundary within reach; a result of at least 2**-60 guarantees that (tested as
    ``B*B >= 2**-120``). A product that overflows is caught by ``B*B`` not being finite
    (which also sends results of 2**64 and more to the emulation), a NaN by ``A != B``.
    The elements where ``A != B`` or ``B`` is out of range (mostly sums landing near an fp32
    rounding boundary: about ``|P| / |y|`` of them, under 1% for SGD's update) are gathered
    before ``d`` is written (``d`` may be ``y`` or ``x``) and rounded as ``_axpy_piece``
    rounds; the rest is ``A``, recomputed into ``d`` from ``c = fp32(x*up)``."""
    a, up, down = sc
    np.multiply(x, up, out=c)
    np.add(c, y, out=s)                          # A
    np.multiply(x, down, out=b)
    np.add(b, y, out=b)                          # B
    np.not_equal(s, b, out=ne)
    np.multiply(b, b, out=b)
    if not (_min(b, axis=None) >= _LOW_SQ and _max(b, axis=None) < _INF32):
        ne |= b < _LOW_SQ                        # out of range: those elements too
        ne |= b == _INF32
    at = ne.reshape(-1).nonzero()[0]
    if len(at) * 32 > ne.size:
        return False
    if not len(at):
        np.add(c, y, out=d)
        return True
    xs, ys = _take(x, at), _take(y, at)          # (read before d is written)
    r = np.multiply(xs, a, dtype=_F64)           # exact
    np.add(r, ys, out=r)
    fixed = np.empty(len(at), _F32)
    _round_sum32(fixed, r, np.empty_like(r), xs, a, ys)
    np.add(c, y, out=d)
    d.reshape(-1)[at] = fixed
    return True


def _take(v, at):
    """``v``'s elements at flat (C-order) indices ``at``, for any layout of ``v``."""
    return v.reshape(-1)[at] if v.flags.c_contiguous else v.flat[at]


_TINY32 = _F32.type(2.0 ** -126)                  # fp32's smallest normal
_HUGE32 = np.finfo(np.float32).max
_INF32 = _F32.type(np.inf)
_ZERO32 = _F32.type(0)
_LOW_SQ = _F32.type(2.0 ** -120)                  # (2**-60)**2: the bracket's smallest |result|**2
_min, _max, _any = np.minimum.reduce, np.maximum.reduce, np.logical_or.reduce


def _lerp_chunk(o, a, b, w, sc):
    d = np.subtract(b, a, out=sc[2])
    if abs(w) < 0.5:
        _fma_chunk(o, w, d, a, sc)
    else:
        _fma_chunk(o, -(_F32.type(1) - w), d, b, sc)


def _addcmul_chunk(o, a, b, c, v, sc):
    vb = np.multiply(v, b, out=sc[2])
    _fma_chunk(o, vb, c, a, sc)


def _addcdiv_chunk(o, a, b, c, v, sc):
    q = np.multiply(v, b, out=sc[2])
    np.divide(q, c, out=q)
    np.add(q, a, out=o)


# ---------------------------------------------------------------------- the recipes
def neg(a, out=None):
    """``-a`` (exact)."""
    return np.negative(a, out=out)


def add(a, b, alpha=1.0, out=None):
    """``a.add(b, alpha=alpha)``: R(fma(b, alpha', a)); alpha rounded to 16-bit storage first."""
    if _fast(out, a, b) and a.shape == out.shape:     # fp32: alpha' is fp32(alpha)
        if alpha == 1:      # (before building the fp32 scalar: a plain add, the most frequent)
            return np.add(a, b, out=out)
        al = _fp32_of(alpha)
        if al == 1:
            return np.add(a, b, out=out)
        return _axpy(out, b, al, a)      # fma(b, alpha', a)
    npd = a.dtype
    cd = opmath_np(npd)
    al = _scalar(alpha, npd, True)
    a32, b32 = _up(a, cd), _up(b, cd)
    if al == 1:
        return _store(a32 + b32, npd, out)
    res = _fma(b32, al, a32, cd)
    res = res if res.dtype == npd else res.astype(npd)
    if _is_low(npd):
        res = np.asarray(res)           # a 0-dim result may come back as a NumPy scalar
        if not res.flags.c_contiguous:
            res = res.copy(order="C")
        flat_out = res.reshape(-1)   # a view of the fresh C-contiguous result
        fa, fb = a32.reshape(-1), b32.reshape(-1)
        for sl in _tail_slices(res.size, npd):
            prod = (al * fb[sl]).astype(npd).astype(cd)
            flat_out[sl] = (fa[sl] + prod).astype(npd)
    return _store(res, npd, out)


_FP32_OF: dict = {}
_ALPHA64: dict = {}     # fp32 alpha -> its float64 value (``_axpy``)


def _fp32_of(alpha):
    """``np.float32(alpha)``, remembered per value: an optimizer passes the same ``-lr`` (or
    momentum) to every tensor of every step, and building a NumPy scalar (~3k instructions)
    costs more than a small tensor's add. (Equal numbers of any type share an entry: their fp32
    rounding is the same.)"""
    al = _FP32_OF.get(alpha)
    if al is None or not al:    # (zeros are not kept: 0.0 and -0.0 are one key, two values)
        if len(_FP32_OF) >= 64:     # many values (a schedule, NaN keys): start over
            _FP32_OF.clear()
        al = _FP32_OF[alpha] = _F32.type(alpha)
    return al


def mul(a, s, out=None):
    """``a.mul(s)`` for a Python scalar: R(a * opmath(s))."""
    if _fast(out, a):
        return np.multiply(a, _fp32_of(s), out=out)
    npd = a.dtype
    return _store(_up(a, opmath_np(npd)) * opmath_np(npd).type(s), npd, out)


def add_scalar(a, s, out=None):
    """``a.add(s)`` for a Python scalar: s rounded to 16-bit storage first, then R(a + s)."""
    npd = a.dtype
    cd = opmath_np(npd)
    if _fast(out, a):
        return np.add(a, _fp32_of(s), out=out)
    return _store(_up(a, cd) + _scalar(s, npd, True), npd, out)


def div_scalar(a, s, out=None):
    """``a.div(s)`` for a Python scalar: R(a / opmath(s)), a true division."""
    npd = a.dtype
    cd = opmath_np(npd)
    if _fast(out, a):
        return np.divide(a, _fp32_of(s), out=out)
    return _store(_up(a, cd) / cd.type(s), npd, out)


def lerp(a, b, w, out=None):
    """``a.lerp(b, w)`` for a Python scalar weight (ATen's two-sided fma formula)."""
    npd = a.dtype
    cd = opmath_np(npd)
    w = cd.type(w)
    if _fast(out, a, b) and a.shape == out.shape:
        return _chunked(out, _lerp_chunk, a, b, w)
    a32 = _up(a, cd)
    b32 = _up(b, cd)
    diff = b32 - a32
    if abs(w) < 0.5:
        return _store(_fma(w, diff, a32, cd), npd, out)
    return _store(_fma(-(cd.type(1) - w), diff, b32, cd), npd, out)


def addcmul(a, b, c, value=1.0, out=None):
    """``a.addcmul(b, c, value=v)``: R(fma(v*b, c, a))."""
    npd = a.dtype
    cd = opmath_np(npd)
    if _fast(out, a, b, c) and a.shape == b.shape == c.shape == out.shape:
        return _chunked(out, _addcmul_chunk, a, b, c, cd.type(value))
    vb = cd.type(value) * _up(b, cd)
    return _store(_fma(vb, _up(c, cd), _up(a, cd), cd), npd, out)


def addcdiv(a, b, c, value=1.0, out=None):
    """``a.addcdiv(b, c, value=v)``: R(a + (v*b)/c), each step in opmath (``q + a`` order)."""
    npd = a.dtype
    cd = opmath_np(npd)
    if _fast(out, a, b, c) and a.shape == b.shape == c.shape == out.shape:
        return _chunked(out, _addcdiv_chunk, a, b, c, cd.type(value))
    q = cd.type(value) * _up(b, cd)
    q /= _up(c, cd)
    q += _up(a, cd)
    return _store(q, npd, out)


def sqrt(a, out=None):
    """``a.sqrt()``: correctly rounded in opmath, then R (see the module note for fp32/fp64)."""
    npd = a.dtype
    fn = _sqrt_impl[0]
    if fn is not None and not _is_low(npd):
        return _store(np.asarray(fn(a), dtype=npd), npd, out)
    if _fast(out, a):
        return np.sqrt(a, out=out)
    return _store(np.sqrt(_up(a, opmath_np(npd))), npd, out)


def maximum(a, b, out=None):
    """``torch.maximum(a, b)`` (NaN propagates); exact."""
    return np.maximum(a, b, out=out)


def mul_tensors(a, b, out=None):
    """``a.mul(b)`` for a tensor ``b``: R(a * b) in opmath."""
    npd = a.dtype
    if _fast(out, a, b):
        return np.multiply(a, b, out=out)
    cd = opmath_np(npd)
    return _store(_up(a, cd) * _up(b, cd), npd, out)


def div_tensors(a, b, out=None):
    """``a.div(b)`` for a tensor ``b``: R(a / b) in opmath (true division)."""
    npd = a.dtype
    if _fast(out, a, b):
        return np.divide(a, b, out=out)
    cd = opmath_np(npd)
    return _store(_up(a, cd) / _up(b, cd), npd, out)


def lerp_tensors(a, b, w, out=None):
    """``a.lerp(b, w)`` for a tensor weight ``w``: the two-sided formula of ``lerp``, chosen
    per element by |w| < 0.5."""
    npd = a.dtype
    cd = opmath_np(npd)
    a32, b32, w32 = _up(a, cd), _up(b, cd), _up(w, cd)
    diff = b32 - a32
    small = np.abs(w32) < 0.5
    res = np.where(small, _fma(w32, diff, a32, cd), _fma(-(cd.type(1) - w32), diff, b32, cd))
    return _store(res, npd, out)
