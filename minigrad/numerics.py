"""The machine PyTorch's CPU kernels run on, and the 16-bit recipes that follow from it.

A PyTorch CPU kernel's last bits depend on the machine: how many lanes one SIMD register holds
(ATen's *CPU capability*), how many threads split a large tensor, and whether a multiply-add is
fused. minigrad reproduces those bits, so the machine constants are defined here, once, and every
op (and the optimizers) reads them from this module:

- ``CPU_CAPABILITY``: ``"AVX512"``, ``"AVX2"`` or ``"DEFAULT"``, chosen as ATen's
  ``compute_cpu_capability`` does: the ``ATEN_CPU_CAPABILITY`` environment variable
  (``avx512``/``avx2``/``default``) wins, else AVX512 when the CPU has avx512vl, avx512bw,
  avx512dq and fma, else AVX2 when it has avx2 and fma, else DEFAULT
  (``torch.backends.cpu.get_cpu_capability()``).
- ``VECTOR_BYTES``: the width of ATen's ``Vectorized<T>``: 64 bytes with AVX512, 32 otherwise
  (the DEFAULT build's generic ``Vectorized`` is 32 bytes too). ``lanes(dtype, kernel)`` gives
  ``Vectorized<T>::size()``: fp32 16/8, fp64 8/4, fp16/bf16 32/16.
- ``AVX512_KERNELS`` / ``kernel_capability(kernel)``: on an AVX512 CPU only the kernels ATen
  registers with ``ALSO_REGISTER_AVX512_DISPATCH`` run their AVX512 build; every other one
  runs its AVX2 build (32-byte vectors), so the lane width and tails are per kernel.
- ``HAS_FMA``: ``vec::fmadd`` is one fused rounding (AVX2, AVX512) or two (DEFAULT).
- ``GRAIN_SIZE``: ``at::internal::GRAIN_SIZE`` (32768), and ``get_num_threads`` /
  ``set_num_threads``: the intra-op thread count (``torch.get_num_threads``), which decides how
  ``at::parallel_for`` chunks a tensor (``parallel_chunks``).

The recipes built on them: ``tail_mask`` (which elements TensorIterator's scalar tail loop
computes, where a few kernels round differently), ``reduce_all`` (the summation order of ATen's
``vec::reduce_all``: lane-wise accumulation, then a butterfly across the lanes),
``thread_partial_sum`` (a multithreaded 16-bit full sum rounds each thread's part), ``round_to``
(one rounding into a 16-bit format and back to fp32), and the fused multiply-adds ``fma32`` and
``fma64``; and PyTorch's scalar rules: ``scalar_add`` (an add/sub/compare scalar is rounded to a
16-bit tensor's dtype first), ``scalar_mul`` (a mul/div scalar is used in fp32 unrounded) and
``scalar_in`` (``scalar_add``, with integers wrapping modulo 2**n as C++'s conversion does).
"""
from __future__ import annotations

import contextlib
import functools
import math
import os
import struct
from fractions import Fraction

import numpy as np

__all__ = ["CPU_CAPABILITY", "VECTOR_BYTES", "HAS_FMA", "GRAIN_SIZE", "AVX512_KERNELS",
           "kernel_capability", "lanes", "get_num_threads",
           "set_num_threads", "num_threads", "parallel_chunks", "loop_step", "tail_mask",
           "reduce_all", "thread_partial_sum", "round_to", "fma32", "fma64", "cpu_flags", "onednn_takes", "onednn_bf16_flush", "scalar_add",
           "scalar_mul", "scalar_in", "quiet", "unquiet"]

GRAIN_SIZE = 32768          # at::internal::GRAIN_SIZE


# ------------------------------------------------------------------------ the machine constants
def cpu_flags() -> frozenset:
    """The CPU feature flags of ``/proc/cpuinfo`` (empty where there is none)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return frozenset(line.split(":", 1)[1].split())
    except OSError:                                  # pragma: no cover - not Linux
        pass
    return frozenset()


def _capability(env, flags) -> str:
    """ATen's ``compute_cpu_capability`` (x86 build with AVX2 and AVX512 kernels)."""
    forced = {"avx512": "AVX512", "avx2": "AVX2", "default": "DEFAULT"}.get(env or "")
    if forced:
        return forced
    if {"avx512vl", "avx512bw", "avx512dq", "fma"} <= flags:
        return "AVX512"
    if {"avx2", "fma"} <= flags:
        return "AVX2"
    return "DEFAULT"


CPU_CAPABILITY = _capability(os.environ.get("ATEN_CPU_CAPABILITY"), cpu_flags())
VECTOR_BYTES = 64 if CPU_CAPABILITY == "AVX512" else 32
HAS_FMA = CPU_CAPABILITY != "DEFAULT"
# whether PyTorch's CPU build routes 16-bit convolutions to oneDNN on this machine
# (``mkldnn_bf16_device_check`` / ``mkldnn_fp16_device_check``: cpuinfo's AVX-512 core flags for
# bf16, AVX-512-FP16 or AMX-FP16 for fp16); it changes which error a mixed-dtype call raises
ONEDNN_BF16 = {"avx512bw", "avx512vl", "avx512dq"} <= cpu_flags()
ONEDNN_FP16 = bool({"avx512_fp16", "amx_fp16"} & cpu_flags())
# oneDNN picks its JIT kernels from cpuid itself (``ATEN_CPU_CAPABILITY`` does not reach it):
# its AVX-512 ones (``avx512_core``) where the CPU has avx512f/bw/vl/dq, unless oneDNN's own
# ``ONEDNN_MAX_CPU_ISA`` caps it below (measured: fp32 gelu with ONEDNN_MAX_CPU_ISA=AVX2 here
# gives the AVX2 machine's values)
_ONEDNN_ISA = os.environ.get("ONEDNN_MAX_CPU_ISA", "ALL").upper()
ONEDNN_AVX512 = ({"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= cpu_flags()
                 and (_ONEDNN_ISA in ("ALL", "DEFAULT", "")
                      or _ONEDNN_ISA.startswith(("AVX512", "AVX10"))))

# ATen's CPU ``_scaled_mm`` sends two float8 operands of one dtype to oneDNN's float8 gemm only
# where cpuinfo reports AMX-INT8 (``cpuinfo_has_x86_amx_int8()``; Sapphire Rapids and later);
# elsewhere, and for mixed float8 dtypes (oneDNN needs AMX-FP16 there: not reproduced), it runs
# its emulated path (minigrad/ops/scaled_mm.py)
ONEDNN_FP8 = "amx_int8" in cpu_flags()

# MKL (the BLAS of PyTorch's x86 CPU build) also picks its gemm kernels from cpuid: the AVX-512
# ones where the CPU has avx512f/bw/vl/dq unless ``MKL_ENABLE_INSTRUCTIONS`` caps it below. Their
# summation order differs from the AVX2 kernels' (measured: a (2, 4) @ (4, 2) fp32 addmm here
# sums the products pairwise, 4 ulp from the AVX2 result, which MKL_ENABLE_INSTRUCTIONS=AVX2
# restores); minigrad follows the AVX2 order, so fp32 gemm results on such a CPU are only
# within the summation bound K * 2**-24 * sum|terms| of PyTorch's.
_MKL_ISA = os.environ.get("MKL_ENABLE_INSTRUCTIONS", "").upper()
MKL_AVX512 = ({"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= cpu_flags()
              and (_MKL_ISA == "" or _MKL_ISA.startswith("AVX512")))


def onednn_bf16_flush(x):
    """``x`` (fp32 values) with every subnormal set to a zero of its sign: what oneDNN's bf16
    instructions do (``vdpbf16ps`` reads subnormal inputs as zero and ``vcvtneps2bf16`` writes
    subnormal results as zero; measured: a bf16 convolution whose exact result is 2**-127, or
    bf16 gelu(2**-126), gives 0 from torch on an AVX512-BF16 CPU)."""
    x = np.asarray(x)
    tiny = np.abs(x) < np.finfo(np.float32).tiny
    if not tiny.any():
        return x
    return np.where(tiny, np.copysign(x.dtype.type(0), x), x)


def onednn_takes(dtype) -> bool:
    """Whether PyTorch's CPU build hands a 16-bit ``dtype`` (a minigrad dtype) to oneDNN where
    ATen routes by ``mkldnn_bf16_device_check`` / ``mkldnn_fp16_device_check`` (16-bit
    convolutions, and ``use_mkldnn`` of Activation.cpp for ``gelu`` / ``gelu_backward``):
    bf16 with ``ONEDNN_BF16``, fp16 with ``ONEDNN_FP16``; False for any other dtype."""
    name = getattr(dtype, "name", str(dtype))
    return (name == "bfloat16" and ONEDNN_BF16) or (name == "float16" and ONEDNN_FP16)


# The ATen kernels (named after their ``DispatchStub``, without ``_stub``) that keep an AVX512
# build: ``ALSO_REGISTER_AVX512_DISPATCH``. A stub registered with plain ``REGISTER_DISPATCH``
# stores nullptr in its AVX512 slot (DispatchStub.h), so on an AVX512 CPU it runs its AVX2
# kernel: 32-byte vectors, the AVX2 tails. Only the kernels minigrad emulates a tail or lane
# width of are listed; each was checked on this AVX512 machine by comparing torch 2.13 natively
# with ``ATEN_CPU_CAPABILITY=avx2`` on inputs whose scalar tail rounds or compares differently
# (listed: the tail moves; every other emulated one, e.g. fused Adam/SGD/Adagrad, maximum,
# minimum, clamp, add, rsqrt, hardtanh_backward, leaky_relu_backward: bit-identical).
AVX512_KERNELS = frozenset({
    "pow_tensor_scalar",                   # PowKernel.cpp
    "logaddexp", "logaddexp2",             # BinaryOpsKernel.cpp
    "sinh", "cosh",                        # UnaryOpsKernel.cpp
    "hardswish_backward", "elu_backward",  # Activation.cpp
    "softmax_lastdim", "log_softmax_lastdim", "softmax", "softmax_backward_lastdim",
    "log_softmax_backward_lastdim",        # SoftMaxKernel.cpp
})


def kernel_capability(kernel=None) -> str:
    """The capability ATen's ``kernel`` (a name of ``AVX512_KERNELS``, or None for any plain
    ``REGISTER_DISPATCH`` kernel) runs with here: ``CPU_CAPABILITY``, except AVX2 for a kernel
    without an AVX512 build on an AVX512 CPU."""
    if CPU_CAPABILITY == "AVX512" and kernel not in AVX512_KERNELS:
        return "AVX2"
    return CPU_CAPABILITY


def lanes(dtype, kernel=None) -> int:
    """``Vectorized<T>::size()`` for ``dtype`` (a minigrad dtype, NumPy dtype or item size) in
    the build ATen's ``kernel`` runs (``kernel_capability``; None: a ``REGISTER_DISPATCH``
    kernel, the AVX2 build on an AVX512 CPU)."""
    if isinstance(dtype, int):
        size = dtype
    elif hasattr(dtype, "is_floating_point"):        # a minigrad dtype
        size = dtype.itemsize
    else:
        size = np.dtype(dtype).itemsize
    width = VECTOR_BYTES if kernel_capability(kernel) == CPU_CAPABILITY else 32
    return width // size


def _default_num_threads() -> int:
    """PyTorch's default intra-op thread count: ``OMP_NUM_THREADS`` (then ``MKL_NUM_THREADS``)
    when set, else the number of CPUs this process may run on."""
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        try:
            n = int(os.environ.get(var, ""))
        except ValueError:
            continue
        if n > 0:
            return n
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:                           # pragma: no cover - not Linux
        return os.cpu_count() or 1


_threads = [_default_num_threads()]


def get_num_threads() -> int:
    """The thread count whose chunking the emulated kernels follow (``torch.get_num_threads``)."""
    return _threads[0]


def set_num_threads(n: int) -> None:
    """Set the emulated intra-op thread count (``torch.set_num_threads``).

    Raises:
        RuntimeError: ``n`` < 1 ("set_num_threads expects a positive integer") or not an int
            ("set_num_threads expects an int, but got float"), PyTorch 2.13's checks.
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise RuntimeError(f"set_num_threads expects an int, but got {type(n).__name__}")
    if n < 1:
        raise RuntimeError("set_num_threads expects a positive integer")
    _threads[0] = int(n)


_interop = {"threads": None, "set": False}


def get_num_interop_threads() -> int:
    """The inter-op thread count (``torch.get_num_interop_threads``): the core count unless
    ``set_num_interop_threads`` set it. minigrad runs ops one after another, so nothing uses
    it."""
    return _interop["threads"] or _default_num_threads()


def set_num_interop_threads(n: int) -> None:
    """Set the inter-op thread count once (``torch.set_num_interop_threads``).

    Raises:
        RuntimeError: ``n`` not an int or < 1 (PyTorch's texts), or a second call ("Error:
            cannot set number of interop threads after parallel work has started or
            set_num_interop_threads called", as PyTorch, whose pool starts once).
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise RuntimeError(f"set_num_interop_threads expects an int, but got {type(n).__name__}")
    if n < 1:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    if _interop["set"]:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work "
                           "has started or set_num_interop_threads called")
    _interop.update(threads=int(n), set=True)


@contextlib.contextmanager
def num_threads(n: int):
    """Context manager: emulate ``n`` threads inside, restore the previous count after."""
    old = _threads[0]
    set_num_threads(n)
    try:
        yield
    finally:
        _threads[0] = old


def parallel_chunks(n: int, grain: int = GRAIN_SIZE):
    """The ``(begin, end)`` ranges ``at::parallel_for(0, n, grain, f)`` hands to its threads.

    It runs serially unless ``n > grain`` (and more than one thread); otherwise it uses
    ``min(threads, ceil(n / grain))`` tasks of ``ceil(n / tasks)`` elements each.
    """
    nt = _threads[0]
    if n <= max(grain, 1) or nt == 1 or n <= 1:
        return [(0, n)]
    tasks = min(nt, -(-n // grain)) if grain > 0 else nt
    chunk = -(-n // tasks)
    return [(b, min(b + chunk, n)) for b in range(0, n, chunk)]


# --------------------------------------------------------------------------------- the recipes
def loop_step(dtype, kernel=None) -> int:
    """Elements one iteration of TensorIterator's vectorised loop covers for ``dtype`` in ATen's
    ``kernel`` (``cpu_kernel_vec``: two ``Vectorized`` registers, ``2 * lanes(dtype, kernel)``);
    the rest of a row is the scalar tail.

    Measured against torch 2.13: AVX2 and DEFAULT fp64 8, fp32 16, fp16/bf16 32; on an AVX512
    CPU a kernel of ``AVX512_KERNELS`` steps fp64 16, fp32 32, fp16/bf16 64 (hardswish_backward,
    elu_backward, pow, sinh: the tail of 120 elements starts at 112, 96, 64), every other one as
    AVX2. Kernels whose DEFAULT build rounds differently inside the body say so where they use it.
    """
    return 2 * lanes(dtype, kernel)


def _inner_row(out_shape, in_shapes):
    """The length of TensorIterator's coalesced inner row: the product of the output's trailing
    dims (size-1 dims skipped) that every operand of ``in_shapes`` covers or broadcasts alike."""
    nd = len(out_shape)
    pads = [(1,) * (nd - len(s)) + tuple(s) for s in in_shapes]
    inner, kind = 1, None
    for j in range(nd - 1, -1, -1):
        n = out_shape[j]
        if n == 1:
            continue
        k = tuple(p[j] == n for p in pads)
        if kind is None:
            kind = k
        elif k != kind:
            break
        inner *= n
    return inner


def tail_mask(out_shape, in_shapes, step):
    """Bool mask of the elements PyTorch's CPU loops compute in their scalar tail.

    TensorIterator coalesces the output's trailing dims that every operand either fully covers
    or broadcasts alike into one inner row; rows (split further into ``at::parallel_for`` chunks
    when ``numel`` exceeds ``GRAIN_SIZE``) are processed ``step`` elements at a time, and the
    remainder of each segment goes through the scalar loop. Returns None for an empty output.

    Built from the segments (at most one per row and chunk) rather than element by element:
    a fresh all-False / all-True array when no segment has a tail / every segment is shorter
    than ``step``, else the few tail elements marked by index (``_tail_mask_reference`` states
    the rule element by element; the tests compare the two).
    """
    n_all = 1
    for s in out_shape:
        n_all *= s
    if n_all == 0:
        return None
    inner = _inner_row(out_shape, in_shapes)
    chunks = parallel_chunks(n_all)
    chunk = chunks[0][1]
    if inner < step:         # every segment is shorter than one step: all scalar tail
        return np.ones(out_shape, bool)
    if inner % step == 0 and (len(chunks) == 1 or chunk % step == 0):
        return np.zeros(out_shape, bool)     # every segment a whole number of steps: no tail
    # the segments start at every row start and every chunk start; each one's last
    # ``len % step`` (< step) elements are the tail, marked through their indices
    starts = np.arange(0, n_all, inner)
    if len(chunks) > 1:
        starts = np.union1d(starts, np.arange(0, n_all, chunk))
    ends = np.append(starts[1:], n_all)
    tail_start = ends - (ends - starts) % step
    pos = tail_start[:, None] + np.arange(step)
    mask = np.zeros(n_all, bool)
    mask[pos[pos < ends[:, None]]] = True
    return mask.reshape(out_shape)


def _tail_mask_reference(out_shape, in_shapes, step):
    """``tail_mask`` element by element (an index array the size of the output): the plain
    statement of the rule, which the tests compare the fast construction with."""
    n_all = int(np.prod(out_shape, dtype=np.int64))
    if n_all == 0:
        return None
    inner = _inner_row(out_shape, in_shapes)
    idx = np.arange(n_all)
    seg_start = idx - idx % inner
    seg_end = seg_start + inner
    chunks = parallel_chunks(n_all)
    if len(chunks) > 1:
        chunk = chunks[0][1]
        c0 = idx - idx % chunk
        seg_start = np.maximum(seg_start, c0)
        seg_end = np.minimum(seg_end, np.minimum(c0 + chunk, n_all))
    m = seg_end - seg_start
    return ((idx - seg_start) >= (m // step) * step).reshape(out_shape)


def elementwise_tail(dtype, *arrays, kernel=None):
    """``tail_mask`` for ATen's elementwise ``kernel`` (see ``loop_step``) of result dtype
    ``dtype`` over ``arrays`` (their broadcast shape): the elements ATen computes with the
    scalar lambda instead of the ``Vectorized`` one. None when empty."""
    shapes = [np.shape(x) for x in arrays]
    return tail_mask(np.broadcast_shapes(*shapes), shapes, loop_step(dtype, kernel))


def reduce_all(x, y=None, kernel=None):
    """``vec::reduce_all(+)`` of ``x`` along its last axis (keepdims), in ``x``'s float dtype;
    with ``y``, ``vec::map2_reduce_all(x*y, +)``, the sum of the products; inside ATen's
    ``kernel`` (its build decides the lanes, see ``lanes``).

    ATen loads ``L = lanes(dtype, kernel)`` elements at a time and adds them lane-wise; a partial
    last load adds into the first lanes only (for fp32 products that add is fused into an fma, but
    only when torch runs on one thread, and never for fp64: measured bit-exact on AVX2 and
    DEFAULT with 1, 2 and 3 threads). The ``L`` lane sums are then combined: fp32 with AVX2/AVX512
    by a butterfly (lane ``i`` plus lane ``i ^ L/2``, then ``i ^ L/4``, ... 1), anything else by
    the slow path, ``((l0 + l1) + l2) + ...``. A row shorter than ``L`` is summed left to right.
    The result differs from NumPy's pairwise sum in the last bits.
    """
    x = np.asarray(x)
    n = x.shape[-1]
    L = lanes(x.dtype, kernel)
    p = x if y is None else x * y
    if n < L:
        acc = p[..., :1].copy() if n else np.zeros(x.shape[:-1] + (1,), x.dtype)
        for i in range(1, n):
            acc += p[..., i:i + 1]
        return acc
    full = n - n % L
    acc = p[..., :L].copy()
    for d in range(L, full, L):
        acc += p[..., d:d + L]
    if full < n:
        if y is not None and x.dtype == np.float32 and _threads[0] == 1:
            acc[..., :n - full] = fma32(x[..., full:], y[..., full:], acc[..., :n - full])
        else:
            acc[..., :n - full] += p[..., full:]
    if x.dtype == np.float32 and kernel_capability(kernel) != "DEFAULT":
        # the butterfly sets lane i to lane i plus lane i ^ h, h = L/2, ..., 1, and keeps lane 0.
        # Lane 0 only reads lanes below h at each step, and there i ^ h == i + h: so each step
        # is one add of two slices, the same operands in the same order (same bits, NaN
        # payloads included), and the lanes halve until one is left
        h = L // 2
        while h:
            acc = acc[..., :h] + acc[..., h:2 * h]
            h //= 2
        return acc
    out = acc[..., :1].copy()
    for i in range(1, L):
        out += acc[..., i:i + 1]
    return out


def thread_partial_sum(a, dtype):
    """A full ``sum`` of a 16-bit tensor as ATen's multithreaded reduction computes it: each
    ``parallel_chunks`` chunk of the flattened fp32 array ``a`` is summed in fp32 and stored in
    the 16-bit ``dtype``; the partials are added in fp32 (the caller rounds once more into
    ``dtype``). One chunk (``numel <= GRAIN_SIZE`` or one thread) is a plain fp32 sum.
    Measured: 120/120 random fp16/bf16 sums of 20k-300k elements on 2 threads (a single
    rounding matched 87).
    """
    flat = np.asarray(a).reshape(-1)
    chunks = parallel_chunks(flat.size)
    if len(chunks) == 1:
        return np.add.reduce(flat)
    acc = np.float32(0)
    for b, e in chunks:
        part = np.float32(np.add.reduce(flat[b:e], dtype=np.float64))
        acc = np.float32(acc + np.asarray(part).astype(dtype.np).astype(np.float32))
    return acc


def round_to(x, dtype):
    """``x`` (an fp32 array) rounded once to the 16-bit ``dtype`` and back to fp32: what a kernel
    that stores an intermediate in 16 bits sees when it reads it again."""
    return np.asarray(x, np.float32).astype(dtype.np).astype(np.float32)


def round_tf32(x):
    """An fp32 array on TF32's grid: the mantissa rounded to its top 10 bits, to nearest with ties
    away from zero (PTX ``cvt.rna.tf32.f32``, CUTLASS's ``round_to_nearest``), the result still
    stored as fp32; inf and nan pass through, and a value past TF32's largest rounds to inf (the
    exponent range is fp32's). What a cuBLAS / cuDNN TF32 kernel feeds its tensor cores;
    accumulation stays fp32.

    Deliberate difference: the GPU's own conversion inside cuBLAS is not documented (some
    kernels truncate); this is the rounding the TF32 format's definition and CUTLASS use.
    """
    b = np.ascontiguousarray(x, np.float32).view(np.uint32)
    finite = (b & np.uint32(0x7F800000)) != np.uint32(0x7F800000)
    r = np.where(finite, (b + np.uint32(0x1000)) & np.uint32(0xFFFFE000), b)
    return r.astype(np.uint32).view(np.float32).reshape(np.shape(x))


def fma32(x, y, z, *, subtract=False, normal=False):
    """``x*y + z`` for fp32 operands with one rounding, as ``vec::fmadd`` (two roundings when the
    build has no fma); ``subtract=True``: ``z - x*y``, as ``vec::fnmadd`` (a NaN operand comes
    out unchanged, sign included, as from ``z - x*y``: negating an operand first would flip it).
    ``normal=True``: the caller knows that no result rounds below fp32's normal range but to
    zero (``1 - t*t`` for ``|t| <= 1``: 0 or at least 2**-24), so that test is skipped.
    The float64 product of two fp32 values is exact; the float64 sum is made round-to-odd (an
    inexact sum gets an odd last bit, towards the exact value), so that its rounding to fp32 is
    the correctly rounded fma even when the product is an fp32 tie and ``z`` is tiny (a double
    rounding would break such a tie to even).

    Arrays take a shortcut with the same bits: moving the float64 sum ``r`` to a neighbour can
    change its fp32 rounding only when ``r`` is an fp32 halfway point (bits 0-28 of its
    significand ``0x10000000``) or lies below fp32's normal range (then its fp32 rounding is at
    most 2**-126 in magnitude, the test used: a superset) and is not zero (the operands are
    multiples of 2**-298, so a float64 sum of 0 is exact), so only those elements go through the
    round-to-odd test (``_fma32_exact``). The product and sum are
    formed in one float64 buffer (``dtype=``/``out=``: no converted copies of the operands)."""
    token = quiet()       # np.errstate(all="ignore") as two C calls
    try:
        return _fma32_quiet(x, y, z, subtract, normal)
    finally:
        unquiet(token)


def _fma32_quiet(x, y, z, subtract, normal=False):
    """``fma32``'s body, with NumPy's floating-point warnings off."""
    if not HAS_FMA:
        if np.ndim(x) == 0:
            xy, z = np.float32(x) * np.float32(y), np.float32(z)
        else:
            xy = np.asarray(x, np.float32) * np.asarray(y, np.float32)
            z = np.asarray(z, np.float32)
        return z - xy if subtract else xy + z
    if type(y) is np.ndarray and y.ndim and 0 < y.size <= _POW2_MAX and y.dtype == _F32 and \
            type(x) is np.ndarray and x.dtype == _F32 and type(z) is np.ndarray and \
            z.dtype == _F32:
        out = _fma32_pow2(x, y, z, subtract)
        if out is not None:
            return out
    r = np.multiply(x, y, dtype=np.float64)
    if r.ndim == 0 and np.ndim(z) == 0:
        p = np.float64(r)
        z = np.float64(z)
        return _fma32_exact(-p, z, z - p) if subtract else _fma32_exact(p, z, p + z)
    zshape = z.shape if isinstance(z, np.ndarray) else np.shape(z)
    ufunc, a, b = (np.subtract, z, r) if subtract else (np.add, r, z)
    r = ufunc(a, b, out=r, dtype=np.float64) if not zshape or zshape == r.shape else \
        ufunc(a, b, dtype=np.float64)
    out = r.astype(np.float32)
    suspect = (r.view(np.uint64) & _LOW29) == _BIT28
    # (``any`` as the ufunc's reduce: ``ndarray.any`` adds a Python-level wrapper)
    if not normal:
        tiny = np.abs(out) <= _FP32_TINY
        if _any(tiny, axis=None):   # an exact zero sum (r == 0: p + z is exactly 0) is fine
            suspect |= tiny & (r != 0)
    if not _any(suspect, axis=None):
        return out
    # the (few) suspects by index, then gathers of those elements: for a large N-d mask the
    # C-order indices of the flattened mask, unravelled (the same index arrays as
    # ``suspect.nonzero()``, whose N-d loop costs ~15x more: 6M instructions for a 262,144-element
    # 3-D mask, against 0.4M; for a small one the two extra calls cost more)
    shape = r.shape
    at = suspect.nonzero() if suspect.ndim <= 1 or suspect.size <= 4096 else \
        np.unravel_index(suspect.reshape(-1).nonzero()[0], shape)
    xs, ys, zs = _gather(x, shape, at), _gather(y, shape, at), _gather(z, shape, at)
    if len(at[0]) <= FMA32_FEW:
        _fma32_exact_few(out, at, xs.tolist(), ys.tolist(), zs.tolist(), r[at].tolist(),
                         subtract)
        return out
    p = np.multiply(xs, ys, dtype=np.float64)
    if subtract:
        p = np.negative(p, out=p)      # z - x*y = (-p) + z, exactly
    out[at] = _fma32_exact(p, np.asarray(zs, np.float64), r[at])
    return out


#: at most this many suspects go through ``_fma32_exact_few`` (Python floats) rather than
#: ``_fma32_exact`` (about twenty NumPy calls, each costing more than a suspect's Python loop);
#: tests set it to 0 to compare the two
FMA32_FEW = 32


def _fma32_exact_few(out, at, xs, ys, zs, rs, subtract):
    """``out[at] = _fma32_exact(...)`` for a few suspects given as Python floats (``xs``,
    ``ys``, ``zs``: the operands, ``rs``: their float64 sums ``r[at]``), written only where
    round-to-odd moves ``r`` (elsewhere ``out`` already holds ``fp32(r)``, NaN payloads kept).
    Python floats are IEEE binary64, so the products (exact), the two-sum and ``nextafter``
    are ``_fma32_exact``'s operations on the same values."""
    for k, (xk, yk, zk, rk) in enumerate(zip(xs, ys, zs, rs)):
        p = xk * yk
        if subtract:
            p = -p
        bb = rk - p                                     # Knuth's two-sum: p + z = r + e
        e = (p - (rk - bb)) + (zk - bb)
        if e != 0 and math.isfinite(rk) and not struct.unpack("<q", struct.pack("<d", rk))[0] & 1:
            out[tuple([a[k] for a in at])] = math.nextafter(rk, math.inf if e > 0 else -math.inf)


#: ``y`` arrays of at most this many elements are tested for powers of two (``_fma32_pow2``)
_POW2_MAX = 256
_F32 = np.dtype(np.float32)
_SIG32 = np.uint32(0x007FFFFF)      # an fp32 significand's bits
_INF32 = np.float32(np.inf)


def _fma32_pow2(x, y, z, subtract):
    """``fma32`` of fp32 arrays when every element of ``y`` (a small array: a row sum, a scale)
    is a power of two: ``x*y`` is then exact in fp32 wherever it lies strictly between fp32's
    smallest normal and infinity (a shift of ``x``'s significand), so ``z - x*y`` (or
    ``x*y + z``) rounded once is one fp32 subtract (add) of the fp32 product, operands in
    ``fma32``'s order (NaN payloads of ``z`` come through as there). None where that does not
    hold (a ``y`` with significand bits: not a power of two; a product that is zero, at most
    2**-126 in magnitude, inf or NaN; no element): ``fma32`` then runs its float64 emulation.
    (The softmax backward of a mean loss over a batch of 2**k rows meets ``y = -2**-k``.)"""
    if _max(y.view(np.uint32) & _SIG32, axis=None):
        return None
    p = np.multiply(x, y)
    a = np.abs(p)
    if not (a.size and _min(a, axis=None) > _FP32_TINY and _max(a, axis=None) < _INF32):
        return None
    if z.shape == p.shape:      # into the product, so the result's layout is the emulation's
        return np.subtract(z, p, out=p) if subtract else np.add(p, z, out=p)
    return np.subtract(z, p) if subtract else np.add(p, z)


_min, _max = np.minimum.reduce, np.maximum.reduce


def _gather(v, shape, at):
    """``np.broadcast_to(v, shape)[at]`` (``at``: index arrays, one per dim), without building
    the broadcast view where ``v`` is an array of ``shape``'s rank (a size-1 dim indexed by 0)."""
    if isinstance(v, np.ndarray) and v.ndim == len(shape):
        vs = v.shape
        if vs == shape:
            return v[at]
        idx = []
        kept = False
        for i, a, b in zip(at, vs, shape):
            if a == b and a != 1:
                idx.append(i)
                kept = True
            elif a == 1:
                idx.append(0)
            else:
                break
        else:
            if kept:            # (at least one index array: the result is 1-D, as below)
                return v[tuple(idx)]
    return np.broadcast_to(v, shape)[at]


#: fp32's smallest normal
_FP32_TINY = np.float32(2.0 ** -126)
_LOW29, _BIT28 = np.uint64(0x1FFFFFFF), np.uint64(0x10000000)   # float64 significand bits
_any = np.logical_or.reduce


def _fma32_exact(p, z, r):
    """``fma32``'s rounding of ``r = p + z`` (float64 arrays: the exact product, the addend, their
    float64 sum) to fp32 through round-to-odd: Knuth's two-sum gives the sum's error, and an
    inexact ``r`` with an even last bit moves to its neighbour towards the exact sum."""
    bb = r - p                                   # Knuth's two-sum: p + z = r + e exactly
    e = (p - (r - bb)) + (z - bb)
    odd = (r.view(np.int64) & 1) == 1 if r.ndim else (np.array(r).view(np.int64) & 1) == 1
    fix = (e != 0) & ~odd & np.isfinite(r)
    if _any(fix, axis=None):
        r = np.where(fix, np.nextafter(r, np.where(e > 0, np.inf, -np.inf)), r)
    return np.asarray(r).astype(np.float32)


def fma64(x, y, z):
    """``x*y + z`` in float64 with one rounding, as a hardware fma: the product's rounding error
    comes from Dekker's exact two-product (Veltkamp splitting); the few elements whose product
    leaves the range where that is exact are computed with fractions."""
    with np.errstate(all="ignore"):
        x = np.asarray(x, np.float64)
        y = np.asarray(y, np.float64)
        p = x * y
        if not HAS_FMA:
            return p + z
        cx, cy = 134217729.0 * x, 134217729.0 * y     # 2**27 + 1
        xh, yh = cx - (cx - x), cy - (cy - y)
        xl, yl = x - xh, y - yh
        err = ((xh * yh - p) + xh * yl + xl * yh) + xl * yl
        s = p + z                                    # Knuth's two-sum: p + z = s + e
        bb = s - p
        e = (p - (s - bb)) + (z - bb)
        out = s + (e + err)
        out = np.where(np.isfinite(out), out, s)
        # the splitting is exact only while the product stays inside the normal range: a
        # product near overflow or below 2**-968 is computed exactly (fractions), rounded once
        ap = np.abs(p)
        edge = ((ap > 2.0 ** 990) | (np.maximum(np.abs(x), np.abs(y)) > 2.0 ** 990) |
                ((ap < 2.0 ** -968) & (x != 0) & (y != 0))) & \
            np.isfinite(x) & np.isfinite(y) & np.isfinite(z)
    if np.any(edge):
        out = np.array(np.broadcast_to(out, np.broadcast_shapes(x.shape, y.shape,
                                                                np.shape(z))))
        xb, yb, zb = np.broadcast_arrays(x, y, np.asarray(z, np.float64))
        for row in np.argwhere(np.broadcast_to(edge, out.shape)):
            i = tuple(row)
            exact = Fraction(float(xb[i])) * Fraction(float(yb[i])) + Fraction(float(zb[i]))
            try:
                out[i] = float(exact)
            except OverflowError:
                out[i] = math.inf if exact > 0 else -math.inf
    return out


# ------------------------------------------------------------------------ PyTorch's scalar rules
def scalar_add(s, dtype):
    """An add/sub scalar as PyTorch's CPU kernels use it: rounded to ``dtype`` when that is
    fp16/bf16, then converted to opmath (fp32). ``dtype`` is a minigrad dtype."""
    cd = dtype.opmath.np
    if dtype.itemsize == 2 and dtype.is_floating_point:
        return cd.type(dtype.np.type(s))
    return cd.type(s)


def scalar_mul(s, dtype):
    """A mul/div scalar as PyTorch uses it: converted straight to opmath (fp32 for 16-bit)."""
    return dtype.opmath.np.type(s)


def scalar_in(s, dtype):
    """A Python-number operand converted as PyTorch converts it to ``dtype`` for add/sub/compare:
    16-bit floats rounded first; integers wrap around (``uint8`` -2 is 254) instead of raising."""
    if not dtype.is_floating_point and isinstance(s, (int, np.integer)) and \
            not isinstance(s, bool):
        return np.array(int(s)).astype(dtype.np)[()] if -2**63 <= s < 2**64 else \
            scalar_add(s, dtype)
    return scalar_add(s, dtype)


# ------------------------------------------------------------------------ quiet floating point
# PyTorch's kernels never warn when a result overflows or is nan; NumPy's do unless its error
# state says "ignore". ``np.errstate`` builds a new state object each time (over a microsecond,
# as much as a small kernel), so the kernels set one prebuilt "ignore" state: ``token = quiet()``
# ... ``unquiet(token)`` (NumPy 2 keeps the state in a context variable; NumPy 1 falls back to
# ``np.errstate``).
try:
    from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj
    # ``quiet()`` sets the prebuilt state and returns the context variable's token;
    # ``unquiet(token)`` resets it. Both are C calls (a kernel runs them once each).
    quiet = functools.partial(_extobj_contextvar.set, _make_extobj(all="ignore"))
    unquiet = _extobj_contextvar.reset
except (ImportError, AttributeError, TypeError):        # pragma: no cover - NumPy 1.x
    def quiet():
        """Silence NumPy's floating-point warnings in this context; returns a token."""
        state = np.errstate(all="ignore")
        state.__enter__()
        return state

    def unquiet(token):
        """Restore the error state ``quiet`` replaced."""
        token.__exit__(None, None, None)


def vec_inner_reduce(rows, ufunc, dtype, kernel=None):
    """ATen's ``binary_kernel_reduce_vec`` over the contiguous last axis of ``rows`` (opmath
    values of ``dtype`` storage), each ``ufunc`` result stored in ``dtype`` (as the kernels
    whose ``Vectorized<T>`` op rounds, e.g. ``prod``): ``n // (4L)`` blocks of ``4L`` elements
    go to four ``L``-lane accumulators, combined as ``(a0 op a1) op (a2 op a3)`` and then lane
    by lane left to right; the remaining elements follow one by one. Rows shorter than ``4L``
    are reduced left to right, ``L = lanes(dtype, kernel)`` (``prod``: a ``REGISTER_DISPATCH``
    kernel, AVX2 lanes on an AVX512 CPU too: torch's fp16/bf16/fp32 ``prod`` of 300-element rows
    is bit-identical natively and with ``ATEN_CPU_CAPABILITY=avx2`` there). Measured bit-exact
    against torch's fp16/bf16/fp32 ``prod``.
    Returns one opmath value per row.
    """
    low = dtype.itemsize == 2

    def r(x):
        return round_to(x, dtype) if low else x

    L = lanes(dtype, kernel)
    R, n = rows.shape
    B = 4 * L
    count = n // B
    out = np.ones(R, rows.dtype)
    with np.errstate(all="ignore"):
        if count:
            blocks = rows[:, :count * B].reshape(R, count, 4, L)
            acc = blocks[:, 0]
            for i in range(1, count):
                acc = r(ufunc(acc, blocks[:, i]))
            a0 = r(ufunc(r(ufunc(acc[:, 0], acc[:, 1])), r(ufunc(acc[:, 2], acc[:, 3]))))
            buf = a0[:, 0]
            for j in range(1, L):
                buf = r(ufunc(buf, a0[:, j]))
            out = r(ufunc(out, buf))
        for k in range(count * B, n):
            out = r(ufunc(out, rows[:, k]))
    return out
