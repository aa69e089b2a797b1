"""Smooth activations and their fused backward kernels: gelu, silu, mish, softplus, log_sigmoid.

Each forward and each ``*_backward`` is a ``Kernel`` that runs PyTorch's CPU formula step by step
in the input's opmath (fp32 for fp16/bf16, which ATen converts to fp32 and back once), with the
transcendental functions (``exp``, ``log1p``, ``tanh``) correctly rounded to fp32 (Sleef's
``_u10`` functions, which nearly always are). ``gelu`` with ``approximate="none"`` uses ATen's
own fp32 erf (``minigrad.ops.erf.erf_vec32``), not the correctly rounded one. Measured against
torch 2.13 on all 65,536 fp16 and bf16 inputs (``bench/check_16bit_unary_exhaustive.py``).

Double backward follows ``derivatives.yaml``: silu and mish take a composite of dispatched ops
when grad mode is on during backward (``create_graph=True``), the fused kernel otherwise; the
other ``*_backward`` kernels are differentiable themselves.
"""
from __future__ import annotations

import math

import numpy as np

from .. import _widening
from .. import numerics as _nx
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.saved_tensors import _HOOKS_ACTIVE
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from .erf import erf64, erf_vec32, exp32
from .kernel import FLOAT_OPMATH, PROMOTE_OPMATH, Kernel
from .piecewise_activation import float_only

_F32 = np.float32


_TINY32 = np.float32(2.0 ** -149)
_TANH_ONE = np.float32(8.664339742)


def _exp(a):
    """exp in the compute type; fp32: ``Vectorized<float>::exp`` (Sleef ``expf_u10``), correctly
    rounded except that Sleef returns 0 where the result would be the smallest subnormal."""
    if a.dtype == np.float64:
        return np.exp(a)
    out = exp32(a)
    return np.where(out == _TINY32, np.float32(0), out)


def _log1p(a):
    return np.log1p(a) if a.dtype == np.float64 else \
        np.log1p(a.astype(np.float64)).astype(np.float32)


def _tanh(a, tail=None):
    """tanh in the compute type; fp32: ``Vectorized<float>::tanh`` (Sleef ``tanhf_u10``),
    correctly rounded except that Sleef returns +-1 for ``|a| > 8.664339742``; elements where
    the bool mask ``tail`` is set (ATen's scalar tail, ``std::tanh``) keep the rounded value.
    ``tail`` may also be a function returning that mask: it is called only when some element
    lies past the +-1 edge (building the mask costs about a pass over the array)."""
    return _tanh_edge(a, tail)[0]


def _tanh_edge(a, tail=None):
    """``(_tanh(a, tail), edge)``: ``edge`` is False when no element lies past Sleef's +-1
    edge (fp32) or the compute type has none (fp64): the result then does not depend on
    ``tail``."""
    if a.dtype == np.float64:
        return np.tanh(a), False
    a = np.asarray(a)
    # float64 tanh rounded to fp32; ``dtype=``/``out=`` let NumPy's loop widen and round in
    # small buffers (the same bits as ``np.tanh(a.astype(np.float64)).astype(np.float32)``)
    out = np.tanh(a, dtype=np.float64, out=np.empty(a.shape, np.float32), casting="unsafe")
    # the usual case, no element past the edge, read off the extremes (NaNs skipped: fmax/fmin)
    if not a.size or (_fmax(a, axis=None) <= _TANH_ONE and _fmin(a, axis=None) >= -_TANH_ONE):
        return out, False
    one = np.abs(a) > _TANH_ONE
    if callable(tail):
        tail = tail()
    if tail is not None:
        one &= ~tail
    if one.any():                  # rare: set just those elements
        out[one] = np.copysign(np.float32(1), a[one])
    return out, True


_fmax, _fmin = np.fmax.reduce, np.fmin.reduce


_tail = _nx.elementwise_tail


def _c(value, a):
    """A constant in ``a``'s compute type (PyTorch: ``opmath_t(c)``, rounded from double)."""
    return a.dtype.type(value)


#: elements per piece in ``_blockwise``: the float64 temporaries of 32,768 elements stay in cache
_BLOCK = 32768


def _blockwise(fn, *arrays):
    """``fn(*arrays)`` for an elementwise ``fn`` of same-shape arrays (None passes through), run
    on consecutive ``_BLOCK``-element pieces of the flattened arrays: gelu's erf chain makes ~60
    passes over float64 temporaries, which then stay in cache instead of streaming through memory
    (about 2x faster at 512x512). Each element sees the same operations either way (same bits);
    arrays of different shapes (broadcasting) or of at most two blocks take the plain call."""
    shape = np.shape(arrays[0])
    n = int(np.prod(shape))
    if n <= 2 * _BLOCK or any(a is not None and np.shape(a) != shape for a in arrays):
        return fn(*arrays)
    flat = [None if a is None else np.ravel(a) for a in arrays]
    out = None
    for i in range(0, n, _BLOCK):
        piece = fn(*(None if a is None else a[i:i + _BLOCK] for a in flat))
        if out is None:
            out = np.empty(n, piece.dtype)
        out[i:i + _BLOCK] = piece
    return out.reshape(shape)


def _check_approximate(approximate):
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")


def _check_grad(grad_output, other, name, op):
    if not isinstance(other, Tensor):
        raise TypeError(f"{op}(): argument '{name}' (position 2) must be Tensor, not "
                        f"{type(other).__name__}")


# ---------------------------------------------------------------------------------- gelu
_SQRT1_2 = math.sqrt(0.5)
_GELU_BETA = math.sqrt(2) * (2 / math.sqrt(math.pi)) * 0.5      # sqrt(2/pi)
_PDF_BETA = (2 / math.sqrt(math.pi)) * _SQRT1_2 * 0.5            # 1/sqrt(2 pi)
_KAPPA = 0.044715


def _erf_tail(dtype, *arrays):
    """Where gelu's scalar lambda calls ``std::erf``: the scalar tail of 16-bit loops (measured:
    fp16/bf16 tensors of any length); fp32 gelu matches ATen's vector erf everywhere.

    None (no tail) where PyTorch hands the 16-bit tensor to oneDNN's eltwise gelu_erf instead
    (``numerics.onednn_takes``, more than one element): oneDNN computes every element in fp32
    with an A&S 7.1.26 erf of its own, modelled by ATen's vector erf (and ``_onednn_specials``).
    Versus torch 2.13 on an AVX-512 (+AVX512-FP16) CPU over every finite input: gelu bf16
    99.96% / fp16 99.37% bit-exact, gelu_backward (grad 1.5) 99.73% / 99.82%, the rest within
    1 ulp except where ``1 + erf`` cancels (x < -3.4, absolute error below 2**-20)."""
    if dtype.itemsize != 2 or _onednn_gelu(dtype, *arrays):
        return None
    return _tail(dtype, *arrays)


def _onednn_gelu(dtype, *arrays):
    """Whether torch's ``gelu`` / ``gelu_backward`` (``approximate="none"``) goes to oneDNN's
    AVX-512 kernel here, with more than one element (``use_mkldnn`` of Activation.cpp): a
    16-bit ``dtype`` where ``numerics.onednn_takes`` it, fp32 (always given to oneDNN) where
    oneDNN runs AVX-512 (``numerics.ONEDNN_AVX512``; its AVX2 kernel matches ATen's formula)."""
    if max(np.size(a) for a in arrays) <= 1:
        return False
    if dtype.itemsize == 4 and dtype.is_floating_point:
        return _nx.ONEDNN_AVX512
    return _nx.onednn_takes(dtype)


def _onednn_specials(dtype, x, out):
    """oneDNN's AVX-512 gelu_erf (forward and backward) at its edges, measured: NaN at +-inf;
    for bf16 its fp32-to-bf16 conversion (``vcvtneps2bf16``) flushes results below the
    smallest normal fp32 to (signed) zero (bf16 gelu(2**-126) is 0, fp32 keeps 2**-127)."""
    if dtype.name == "bfloat16":
        out = _nx.onednn_bf16_flush(out)
    return np.where(np.isinf(x), x.dtype.type(np.nan), out)


def _erf(a, tail=None):
    """erf in the compute type; fp32: ATen's ``Vectorized<float>::erf``, ``std::erf``
    (correctly rounded) where the bool mask ``tail`` is set."""
    if a.dtype == np.float64:
        return erf64(a)
    out = erf_vec32(a)
    if tail is not None and tail.any():
        out = np.where(tail, erf64(a).astype(np.float32), out)
    return out


@register_op("gelu")
class Gelu(Kernel):
    """``gelu(input, approximate="none")`` (``F.gelu``, node ``GeluBackward0``).

    ``"none"``: ``x * 0.5 * (1 + erf(x * M_SQRT1_2))`` with ATen's fp32 erf (A&S 7.1.26) in
    the vector body and ``std::erf`` in the scalar tail; ``"tanh"``: ``0.5 * x * (1 + tanh(sqrt(2/pi) *
    (x + 0.044715 * x*x*x)))`` (Sleef's tanh in the vector body, ``std::tanh`` in the scalar
    tail), both in PyTorch's fp32 operation order, one rounding for 16-bit.
    fp16/bf16 bit-exact on all inputs; fp32 within a few ulp except where ``1 + erf`` cancels
    (x < -3: PyTorch's own value carries that cancellation error; the bound is absolute).
    A recorded tanh-form node keeps its ``tanh(inner)`` (and ``inner``) for its backward, which
    takes it instead of a second tanh when the backward's ``inner`` has the same bits (PyTorch's
    kernel recomputes it; the same argument gives the same value): ``_kept_tanh``. Not under
    saved-tensor hooks (memory they manage stays theirs).

    Raises:
        RuntimeError: ``approximate`` other than "none"/"tanh".
    """

    rule = FLOAT_OPMATH
    args = ("input", "approximate")
    saves = ("input",)
    keeps = ("approximate",)
    _backward_name = "GeluBackward0"
    _float_check = float_only("GeluKernelImpl")

    @classmethod
    def check(cls, input, approximate="none"):
        _check_approximate(approximate)
        cls._float_check(input)

    @staticmethod
    def kernel(dtype, x, approximate="none"):
        half, one = _c(0.5, x), _c(1, x)
        if approximate == "tanh":
            inner = _gelu_inner(x, x * x)
            t, edge = _tanh_edge(inner, lambda: _tail(dtype, x))
            # asked for by Gelu.forward (see _FORWARD_TANH); past the +-1 edge the value
            # depends on the scalar-tail mask, which the backward's operands may change
            if _KERNEL_TANH[0] is _ASK:
                _KERNEL_TANH[0] = None if edge else (inner, t)
            return half * x * (one + t)
        onednn = _onednn_gelu(dtype, x)

        def gelu_erf(x, tail):
            erf = _erf(x * _c(_SQRT1_2, x), tail)
            if onednn:     # oneDNN: 0.5 * (x * (1 + erf)), inf for x > 2**127
                return _onednn_specials(dtype, x, (x * (one + erf)) * half)
            return x * half * (one + erf)
        return _blockwise(gelu_erf, x, _erf_tail(dtype, x))

    @classmethod
    def forward(cls, ctx, *args, **kwargs):
        # Kernel.forward, then (tanh form, a node that will run backward) the kernel's
        # ``tanh(inner)`` kept on the node with its argument for ``gelu_backward``
        _KERNEL_TANH[0] = _ASK
        try:
            out = super().forward(ctx, *args, **kwargs)
        finally:
            kept, _KERNEL_TANH[0] = _KERNEL_TANH[0], None
        # (not under saved-tensor hooks: they decide where saved values live, e.g. save_on_cpu)
        if kept and not ctx._unrecorded and ctx.needs_input_grad[0] and not _HOOKS_ACTIVE[0]:
            ctx._forward_tanh = _KeptTanh(kept)
        return out

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        # the forward's (inner, tanh(inner)), offered once (a retained graph's next backward
        # recomputes): gelu_backward's kernel takes it only for an identical inner
        holder = ctx.__dict__.pop("_forward_tanh", None)
        kept = None if holder is None else holder.pair
        before = _FORWARD_TANH[0]
        _FORWARD_TANH[0] = kept
        try:
            return dispatch("gelu_backward", grad, x, approximate=ctx.approximate or "none")
        finally:
            _FORWARD_TANH[0] = before


#: Gelu.forward sets ``_ASK``; then the tanh-form kernel puts its ``(inner, tanh(inner))``
#: there (None past the edge); kernels called otherwise keep nothing
_KERNEL_TANH = [None]
_ASK = ()
#: while Gelu's node runs its backward: that forward's ``(inner, tanh(inner))``, or None
_FORWARD_TANH = [None]


class _KeptTanh:
    """A node's kept ``(inner, tanh(inner))``, counted while it lives in the host-side emulation
    figures (``minigrad.memory.widening_cache_stats``; not device memory: PyTorch keeps
    nothing, its backward recomputes the tanh)."""

    __slots__ = ("pair", "nbytes")

    def __init__(self, pair):
        self.pair = pair
        self.nbytes = pair[0].nbytes + pair[1].nbytes
        _widening.account(self.nbytes)

    def __del__(self):
        _widening.account(-self.nbytes)


def _gelu_inner(x, x_sq):
    """``sqrt(2/pi) * (x + 0.044715 * x*x*x)`` in ``x``'s compute type, ``x*x*x`` as
    ``x_sq * x`` (``x_sq = x*x``): the tanh argument of both gelu kernels, in PyTorch's
    operation order."""
    return _c(_GELU_BETA, x) * (x + _c(_KAPPA, x) * (x_sq * x))


def _kept_tanh(inner):
    """``tanh(inner)`` as the forward computed it, when ``_FORWARD_TANH`` holds an ``inner`` of
    the same shape, dtype and bits (None otherwise). PyTorch's gelu_backward recomputes the
    tanh from the saved input; for the same argument bits the forward's value is the same
    value (edge-free: no scalar-tail dependence), so it is taken instead of a second tanh.
    Comparing the arguments (not the input's version) also covers an input changed in place
    behind autograd's back (``.data``): then they differ and the tanh is recomputed."""
    kept = _FORWARD_TANH[0]
    if kept is None:
        return None
    k_inner, t = kept
    if k_inner.shape != inner.shape or k_inner.dtype != inner.dtype:
        return None
    bits = np.dtype(f"u{inner.dtype.itemsize}")       # signed zeros and NaNs by their bits
    if _any(np.not_equal(k_inner.view(bits), inner.view(bits)), axis=None):
        return None
    return t


_any = np.logical_or.reduce


@register_op("gelu_backward")
class GeluBackward(Kernel):
    """``gelu_backward(grad_output, self, approximate="none")``: PyTorch's fused kernel
    (``torch.ops.aten.gelu_backward``), ``dy * (cdf + x * pdf)`` (erf form) or the tanh form's
    ``dy * (0.5 * (1 + t) + 0.5 * x * (1 - t*t) * beta * (1 + 3 * kappa * x*x))``, in fp32 for
    16-bit with one rounding (fp16 over all 65,536 inputs paired with a rotated copy as the
    gradient: 2 (erf form) and 1 (tanh form) results 1 ulp off, bf16 bit-exact).
    Differentiable (``GeluBackwardBackward0``): ``grad_output`` gets
    ``gelu_backward(gg, self)``, ``self`` gets ``gg * grad_output * gelu''(self)``."""

    rule = PROMOTE_OPMATH
    args = ("grad_output", "self", "approximate")
    operands = 2
    saves = ("grad_output", "self")
    keeps = ("approximate",)
    _backward_name = "GeluBackwardBackward0"

    @staticmethod
    def check(grad_output, self, approximate="none"):
        _check_grad(grad_output, self, "self", "gelu_backward")
        _check_approximate(approximate)

    @staticmethod
    def kernel(dtype, dy, x, approximate="none"):
        half, one = _c(0.5, x), _c(1, x)
        if approximate == "tanh":
            beta, kappa = _c(_GELU_BETA, x), _c(_KAPPA, x)
            x_sq = x * x
            # x*x*x as x_sq * x (x_sq reused below)
            inner = _gelu_inner(x, x_sq)
            t = _kept_tanh(inner)
            if t is None:
                t = _tanh(inner, lambda: _tail(dtype, dy, x))
            left_d = half * (one + t)
            # 1 - t*t is one fused multiply-add in ATen's vectorised loop (measured: fp16);
            # never below fp32's normal range but at 0 (|t| <= 1)
            td = _nx.fma64(-t, t, one) if x.dtype == np.float64 else \
                _nx.fma32(-t, t, one, normal=True)
            right_d = (half * x) * td * (beta * (one + _c(3, x) * kappa * x_sq))
            return dy * (left_d + right_d)
        onednn = _onednn_gelu(dtype, dy, x)

        def gelu_erf_backward(dy, x, tail):
            cdf = half * (one + _erf(x * _c(_SQRT1_2, x), tail))
            pdf = _c(_PDF_BETA, x) * _exp(x * x * _c(-0.5, x))
            out = dy * (cdf + x * pdf)
            return _onednn_specials(dtype, x, out) if onednn else out
        return _blockwise(gelu_erf_backward, dy, x, _erf_tail(dtype, dy, x))

    @staticmethod
    def backward(ctx, gg):
        dy, x = ctx.saved_tensors
        approximate = ctx.approximate or "none"
        nig = ctx.needs_input_grad
        a = dispatch("gelu_backward", gg, x, approximate=approximate) if nig[0] else None
        b = None
        if nig[1]:
            b = dispatch("mul", dispatch("mul", gg, dy), _gelu_second(x, approximate))
        return a, b


def _gelu_second(x, approximate):
    """gelu''(x) as dispatched ops: ``pdf * (2 - x*x)`` (erf form) or the tanh form's
    ``(1 - t*t) * (u' - x*t*u'**2 + 0.5*x*u'')``."""
    x2 = dispatch("mul", x, x)
    if approximate == "tanh":
        u = dispatch("mul", dispatch("add", x, dispatch("mul", dispatch("mul", x2, x), _KAPPA)),
                     _GELU_BETA)
        t = dispatch("tanh", u)
        du = dispatch("mul", dispatch("add", dispatch("mul", x2, 3 * _KAPPA), 1), _GELU_BETA)
        ddu = dispatch("mul", x, 6 * _KAPPA * _GELU_BETA)
        inner = dispatch("sub", du, dispatch("mul", dispatch("mul", x, t),
                                              dispatch("mul", du, du)))
        inner = dispatch("add", inner, dispatch("mul", dispatch("mul", x, ddu), 0.5))
        return dispatch("mul", dispatch("rsub", dispatch("mul", t, t), 1), inner)
    pdf = dispatch("mul", dispatch("exp", dispatch("mul", x2, -0.5)), _PDF_BETA)
    return dispatch("mul", pdf, dispatch("rsub", x2, 2))


# ---------------------------------------------------------------------------------- silu
def _sigmoid(x):
    one = _c(1, x)
    return one / (one + _exp(-x))


@register_op("silu")
class Silu(Kernel):
    """``silu(input)`` = ``x / (1 + exp(-x))`` (``F.silu``, node ``SiluBackward0``), PyTorch's
    fp32 steps for 16-bit (bit-exact). Backward: the fused ``silu_backward``; under
    ``create_graph`` the composite ``grad * s * (1 + x * (1 - s))`` so it can be differentiated
    again (PyTorch's ``infinitely_differentiable_silu_backward``)."""

    rule = FLOAT_OPMATH
    saves = ("input",)
    _backward_name = "SiluBackward0"
    check = float_only("silu_cpu")

    @staticmethod
    def kernel(dtype, x):
        return x / (_c(1, x) + _exp(-x))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        if not is_grad_enabled():
            return dispatch("silu_backward", grad, x)
        s = dispatch("sigmoid", x)
        d = dispatch("mul", s, dispatch("add", dispatch("mul", x, dispatch("rsub", s, 1)), 1))
        return dispatch("mul", grad, d)


@register_op("silu_backward")
class SiluBackward(Kernel):
    """``silu_backward(grad_output, self)`` = ``dy * s * (1 + x * (1 - s))``, ``s = 1/(1 +
    exp(-x))`` (``torch.ops.aten.silu_backward``), fp32 steps, one rounding (fp16: 1 of 65,536
    measured (grad, x) pairs 1 ulp off; bf16 bit-exact)."""

    rule = PROMOTE_OPMATH
    args = ("grad_output", "self")
    operands = 2
    _backward_name = "SiluBackwardBackward0"

    @staticmethod
    def check(grad_output, self):
        _check_grad(grad_output, self, "self", "silu_backward")

    @staticmethod
    def kernel(dtype, dy, x):
        one = _c(1, x)
        s = _sigmoid(x)
        return dy * s * (one + x * (one - s))


# ---------------------------------------------------------------------------------- mish
@register_op("mish")
class Mish(Kernel):
    """``mish(input)`` = ``x * tanh(log1p(exp(x)))`` (``F.mish``, node ``MishBackward0``), fp32
    steps for 16-bit. Backward: the fused ``mish_backward``; under ``create_graph`` a composite
    of dispatched ops (PyTorch's ``infinitely_differentiable_mish_backward``)."""

    rule = FLOAT_OPMATH
    saves = ("input",)
    _backward_name = "MishBackward0"
    check = float_only("mish_cpu")

    @staticmethod
    def kernel(dtype, x):
        return x * _tanh(_log1p(_exp(x)))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        if not is_grad_enabled():
            return dispatch("mish_backward", grad, x)
        s = dispatch("sigmoid", x)
        t = dispatch("tanh", dispatch("softplus", x))
        d = dispatch("add", t, dispatch("mul", dispatch("mul", x, s),
                                        dispatch("rsub", dispatch("mul", t, t), 1)))
        return dispatch("mul", grad, d)


@register_op("mish_backward")
class MishBackward(Kernel):
    """``mish_backward(grad_output, self)`` = ``dy * (t + x * s * (1 - t*t))`` with ``s`` the
    sigmoid and ``t = tanh(softplus(x))`` (``torch.ops.aten.mish_backward``), fp32 steps."""

    rule = PROMOTE_OPMATH
    args = ("grad_output", "self")
    operands = 2
    _backward_name = "MishBackwardBackward0"

    @staticmethod
    def check(grad_output, self):
        _check_grad(grad_output, self, "self", "mish_backward")

    @staticmethod
    def kernel(dtype, dy, x):
        s = _sigmoid(x)
        t = _tanh(_log1p(_exp(x)))
        return dy * (t + x * s * (_c(1, x) - t * t))


# ---------------------------------------------------------------------------------- softplus
@register_op("softplus")
class Softplus(Kernel):
    """``softplus(input, beta=1, threshold=20)`` = ``log1p(exp(x * beta)) / beta``, or ``x``
    where ``x * beta > threshold`` (``F.softplus``, node ``SoftplusBackward0``); ``beta`` and
    ``threshold`` used in fp32 for 16-bit input, fp32 steps, one rounding."""

    rule = FLOAT_OPMATH
    args = ("input", "beta", "threshold")
    saves = ("input",)
    keeps = ("beta", "threshold")
    _backward_name = "SoftplusBackward0"
    check = float_only("softplus_cpu")

    @staticmethod
    def kernel(dtype, x, beta=1, threshold=20):
        b, th = _c(beta, x), _c(threshold, x)
        xb = x * b
        return np.where(xb > th, x, _log1p(_exp(xb)) / b)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        beta = 1 if ctx.beta is None else ctx.beta
        threshold = 20 if ctx.threshold is None else ctx.threshold
        return dispatch("softplus_backward", grad, x, beta, threshold)


@register_op("softplus_backward")
class SoftplusBackward(Kernel):
    """``softplus_backward(grad_output, self, beta, threshold)`` = ``dy * z / (z + 1)`` with ``z
    = exp(x * beta)``, or ``dy`` where ``x * beta > threshold`` (``torch.ops.aten.
    softplus_backward``). Differentiable (``SoftplusBackwardBackward0``)."""

    rule = PROMOTE_OPMATH
    args = ("grad_output", "self", "beta", "threshold")
    operands = 2
    saves = ("grad_output", "self")
    keeps = ("beta", "threshold")
    _backward_name = "SoftplusBackwardBackward0"

    @staticmethod
    def check(grad_output, self, beta=1, threshold=20):
        _check_grad(grad_output, self, "self", "softplus_backward")

    @staticmethod
    def kernel(dtype, dy, x, beta=1, threshold=20):
        b, th = _c(beta, x), _c(threshold, x)
        xb = x * b
        z = _exp(xb)
        return np.where(xb > th, dy, dy * z / (z + _c(1, x)))

    @staticmethod
    def backward(ctx, gg):
        dy, x = ctx.saved_tensors
        nig = ctx.needs_input_grad
        a = dispatch("softplus_backward", gg, x, ctx.beta, ctx.threshold) if nig[0] else None
        b = None
        if nig[1]:
            s = dispatch("sigmoid", dispatch("mul", x, ctx.beta))
            d = dispatch("mul", dispatch("mul", s, dispatch("rsub", s, 1)), ctx.beta)
            d = dispatch("where", dispatch("gt", dispatch("mul", x, ctx.beta), ctx.threshold),
                         0.0, d)
            b = dispatch("mul", dispatch("mul", gg, dy), d)
        return a, b


# ---------------------------------------------------------------------------------- log_sigmoid
@register_op("log_sigmoid")
class LogSigmoid(Kernel):
    """``log_sigmoid(input)`` = ``min(x, 0) - log1p(exp(-|x|))`` (``F.logsigmoid``, node
    ``LogSigmoidBackward0``; PyTorch's ``log_sigmoid_forward`` kernel, which also stores the
    ``exp(-|x|)`` buffer that the backward recomputes here), fp32 steps for 16-bit.

    Raises:
        NotImplementedError: integer input ('"log_sigmoid_cpu" not implemented for ...').
    """

    rule = FLOAT_OPMATH
    saves = ("input",)
    _backward_name = "LogSigmoidBackward0"

    check = float_only("log_sigmoid_cpu")

    @staticmethod
    def kernel(dtype, x):
        return np.minimum(x, _c(0, x)) - _log1p(_exp(-np.abs(x)))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        buffer = dispatch("exp", dispatch("neg", dispatch("abs", x)))
        return dispatch("log_sigmoid_backward", grad, x, buffer)


@register_op("log_sigmoid_backward")
class LogSigmoidBackward(Kernel):
    """``log_sigmoid_backward(grad_output, self, buffer)`` = ``(m - s * b / (1 + b)) * dy`` with
    ``m, s = (1, 1)`` where ``x < 0`` else ``(0, -1)`` and ``b = exp(-|x|)``
    (``torch.ops.aten.log_sigmoid_backward``). Differentiable in ``grad_output`` and ``self``
    (``LogSigmoidBackwardBackward0``)."""

    rule = PROMOTE_OPMATH
    args = ("grad_output", "self", "buffer")
    operands = 3
    saves = ("grad_output", "self", "buffer")
    _backward_name = "LogSigmoidBackwardBackward0"

    @staticmethod
    def check(grad_output, self, buffer):
        _check_grad(grad_output, self, "self", "log_sigmoid_backward")

    @staticmethod
    def kernel(dtype, dy, x, b):
        one, zero = _c(1, x), _c(0, x)
        neg = x < zero
        m = np.where(neg, one, zero)
        s = np.where(neg, one, -one)
        return (m - s * (b / (one + b))) * dy

    @staticmethod
    def backward(ctx, gg):
        dy, x, buffer = ctx.saved_tensors
        nig = ctx.needs_input_grad
        a = dispatch("log_sigmoid_backward", gg, x, buffer) if nig[0] else None
        b = None
        if nig[1]:
            s = dispatch("sigmoid", x)
            b = dispatch("neg", dispatch("mul", dispatch("mul", gg, dy),
                                         dispatch("mul", s, dispatch("rsub", s, 1))))
        return a, b, None
