"""Per-tensor delayed scaling for float8 gemms: the two kernels behind ``amp_emu.fp8``.

A float8 training recipe (NVIDIA Transformer Engine's ``DelayedScaling``) keeps, for every tensor
that a gemm casts to float8 (its input, its weight, and in backward the incoming gradient), a
float32 ``scale``, its inverse ``scale_inv`` and a history of the tensor's absolute maxima
(``amax_history``). A cast multiplies by the scale *decided before the tensor was seen* (from the
history: hence "delayed") and writes the tensor's own amax into ``amax_history[0]``; after the
step, ``_fp8_amax_and_scale_update_`` rolls the history and computes the next scale. The two ops:

- ``_fp8_gemm(input, weight, bias, meta, weight_transposed, out_dtype, record)``: the gemm
  (``linear`` when ``weight_transposed``: ``input @ weight.T + bias``; else ``mm``:
  ``input @ weight + bias``) with both operands cast to float8 and multiplied in
  ``_scaled_mm`` (dispatched, so modes see it), and a backward that casts the incoming gradient
  with its own scale (e5m2 in the HYBRID format) and computes both gradients with
  ``_scaled_mm`` from the float8 operands saved in forward, as TE does.
- ``_fp8_amax_and_scale_update_(amax_history, scale, scale_inv, fp8_max, margin,
  amax_compute_algo)``: TE's ``amax_and_scale_update`` kernel, in place.

Every step is a dispatched op (``abs``, ``amax``, ``maximum``, ``copy_``, ``mul``, ``clamp``,
``_to_copy``, ``_scaled_mm``, ``t``, ``reshape``, ``sum``), so a profiler, the tracer or the
numerics monitor sees the casts and the scaled gemms. Not PyTorch ops: PyTorch has ``_scaled_mm`` but
leaves scaling recipes to libraries (TE, torchao); these mirror TE's semantics.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..autograd.grad_mode import no_grad
from ..dispatch import dispatch, register_op
from ..tensor import Tensor

_F32 = np.dtype(np.float32)
_FLT_MAX = np.finfo(np.float32).max


class Fp8TensorMeta:
    """The delayed-scaling state of one tensor role of one gemm (TE's ``fp8_meta`` entry).

    Attributes:
        amax_history: float32 Tensor of ``amax_history_len`` elements; ``[0]`` collects the
            amax of the current step, the older ones follow (TE's layout).
        scale: 1-element float32 Tensor: the cast multiplies by it (``fp8 = cast(x * scale)``).
        scale_inv: 1-element float32 Tensor, ``1 / scale``: ``_scaled_mm`` multiplies by it.
        fp8_dtype: the float8 DType of the cast (``float8_e4m3fn`` or ``float8_e5m2``).
        fp8_max: the largest finite value of ``fp8_dtype`` (448 or 57344).
    """

    __slots__ = ("amax_history", "scale", "scale_inv", "fp8_dtype", "fp8_max")

    def __init__(self, amax_history_len, fp8_dtype, device=None):
        f32 = _dt.float32
        self.amax_history = dispatch("zeros", (amax_history_len,), dtype=f32, device=device)
        self.scale = dispatch("ones", (1,), dtype=f32, device=device)
        self.scale_inv = dispatch("ones", (1,), dtype=f32, device=device)
        self.fp8_dtype = _dt.as_dtype(fp8_dtype)
        self.fp8_max = float(_dt.finfo(self.fp8_dtype).max)

    def __repr__(self):
        return (f"Fp8TensorMeta({self.fp8_dtype.name}, scale={self.scale.item()!r}, "
                f"amax_history={self.amax_history.tolist()!r})")


class Fp8GemmMeta:
    """The three roles of one gemm call site: ``input``, ``weight`` (forward format) and
    ``grad_output`` (backward format), each an ``Fp8TensorMeta``; ``op`` names the op that
    the site intercepted ("linear", "addmm", "mm", "matmul"). The state tensors live on
    ``device`` (the gemm's)."""

    __slots__ = ("op", "input", "weight", "grad_output")

    def __init__(self, op, amax_history_len, fwd_dtype, bwd_dtype, device=None):
        self.op = op
        self.input = Fp8TensorMeta(amax_history_len, fwd_dtype, device)
        self.weight = Fp8TensorMeta(amax_history_len, fwd_dtype, device)
        self.grad_output = Fp8TensorMeta(amax_history_len, bwd_dtype, device)

    def __repr__(self):
        return f"Fp8GemmMeta({self.op!r}, input={self.input}, weight={self.weight}, " \
               f"grad_output={self.grad_output})"


def quantize(x, meta, record):
    """``x`` cast to ``meta.fp8_dtype`` with the current scale, as TE's cast kernel:
    ``fp8 = cast(clamp(float32(x) * scale, -fp8_max, fp8_max))`` (the clamp is TE's saturating
    conversion; NaN stays NaN). With ``record`` the amax of ``x`` (``abs(x).amax()`` in float32:
    NaN when ``x`` holds a NaN) goes into ``meta.amax_history[0]``, as the maximum with what is
    there. Returns ``(x_fp8, scale_inv)``, ``scale_inv`` a copy (the state moves on later)."""
    xf = x if x.dtype is _dt.float32 else dispatch("_to_copy", x, dtype=_dt.float32)
    if record:
        with no_grad():     # the state never joins a graph (a create_graph backward included)
            slot = meta.amax_history[0:1]
            amax = dispatch("reshape", dispatch("amax", dispatch("abs", xf)), (1,))
            dispatch("copy_", slot, dispatch("maximum", slot, amax))
    scaled = dispatch("clamp", dispatch("mul", xf, meta.scale), -meta.fp8_max, meta.fp8_max)
    return dispatch("_to_copy", scaled, dtype=meta.fp8_dtype), dispatch("clone", meta.scale_inv)


@register_op("_fp8_gemm")
class Fp8Gemm(Function):
    """``_fp8_gemm(input, weight, bias, meta, weight_transposed, out_dtype, record)``: a gemm
    on float8 operands with per-tensor delayed scaling (module docstring).

    Args:
        input: floating Tensor (..., k) (float32, bfloat16 or float16).
        weight: floating Tensor, (n, k) when ``weight_transposed`` (``linear``), else (k, n).
        bias: None or a floating Tensor of n elements, added in float32 by ``_scaled_mm``.
        meta: the call site's ``Fp8GemmMeta``.
        weight_transposed: True for ``linear``'s layout.
        out_dtype: the result's dtype (float32, bfloat16 or float16).
        record: write the amaxes of ``input`` and ``weight`` into their histories (the gradient's
            amax is always recorded in backward).

    Returns:
        Tensor (..., n) of ``out_dtype``. Backward: ``grad_input = g8 @ weight8`` in
        ``input``'s dtype, ``grad_weight`` from ``g8`` and ``input8`` in ``weight``'s dtype
        (both ``_scaled_mm`` of the float8 operands, with their scale_invs), ``grad_bias =
        g.sum(0)`` in ``bias``'s dtype; ``g8`` is the gradient cast with ``meta.grad_output``.
    """

    _backward_name = "Fp8GemmBackward"

    @staticmethod
    def forward(ctx, input, weight, bias, meta, weight_transposed, out_dtype, record):
        k = input.shape[-1]
        lead = tuple(input.shape[:-1])
        x8, sx = quantize(dispatch("reshape", input, (-1, k)), meta.input, record)
        w8, sw = quantize(weight, meta.weight, record)
        b8 = dispatch("t", w8) if weight_transposed else w8
        out = dispatch("_scaled_mm", x8, b8, sx, sw, bias=bias, out_dtype=out_dtype)
        ctx.fp8_operands = (x8, sx, w8, sw)
        ctx.meta, ctx.transposed = meta, weight_transposed
        ctx.in_shape, ctx.dtypes = tuple(input.shape), (input.dtype, weight.dtype,
                                                        None if bias is None else bias.dtype)
        return dispatch("reshape", out, lead + (out.shape[-1],))

    @staticmethod
    def backward(ctx, grad):
        x8, sx, w8, sw = ctx.fp8_operands
        n = grad.shape[-1]
        g2 = dispatch("reshape", grad, (-1, n))
        g8, sg = quantize(g2, ctx.meta.grad_output, True)
        need = ctx.needs_input_grad
        dx = dw = db = None
        if need[0]:     # (m, n) @ (n, k)
            wn = w8 if ctx.transposed else dispatch("t", w8)
            dx = dispatch("reshape", dispatch("_scaled_mm", g8, wn, sg, sw,
                                              out_dtype=ctx.dtypes[0]), ctx.in_shape)
        if need[1]:     # linear: (n, m) @ (m, k); mm: (k, m) @ (m, n)
            if ctx.transposed:
                dw = dispatch("_scaled_mm", dispatch("t", g8), x8, sg, sx,
                              out_dtype=ctx.dtypes[1])
            else:
                dw = dispatch("_scaled_mm", dispatch("t", x8), g8, sx, sg,
                              out_dtype=ctx.dtypes[1])
        if len(need) > 2 and need[2]:
            db = dispatch("_to_copy", dispatch("sum", g2, [0]), dtype=ctx.dtypes[2])
        return dx, dw, db, None, None, None, None


@register_op("_fp8_amax_and_scale_update_")
def _fp8_amax_and_scale_update_(amax_history, scale, scale_inv, fp8_max, margin,
                                amax_compute_algo):
    """In place, TE's delayed-scaling update of one tensor role (``amax_and_scale_update``).

    With ``last = amax_history[0]`` (the amax recorded this step):

    - if ``last != 0`` the history is rolled by one (``[1:]`` moves to the front, ``last`` goes
      to the end) and ``amax_history[0]`` becomes 0, ready for the next step; ``amax`` is the
      maximum of the whole history before the roll for "max" (NaN entries are ignored, as
      ``fmaxf``), or ``last`` for "most_recent". If ``last == 0`` (the tensor was not cast this
      step) nothing rolls and the scale stays.
    - ``scale = (fp8_max * 2**-margin) / amax`` in float32 when ``amax`` is finite and > 0,
      otherwise (0, inf, NaN) the previous scale is kept; a scale that overflows float32
      becomes float32's max. ``scale_inv = 1 / scale``.

    Args:
        amax_history: float32 Tensor, 1-D (length >= 1); scale, scale_inv: 1-element float32.
        fp8_max: the format's largest value; margin: the recipe's margin (a real number);
        amax_compute_algo: "max" or "most_recent".

    Returns:
        ``scale``.

    Raises:
        RuntimeError: tensors of other dtypes or shapes, or an unknown algorithm (TE's
            "Unsupported amax compute algorithm (...)").
    """
    if not isinstance(amax_history, Tensor) or amax_history._data.dtype != _F32 \
            or amax_history.ndim != 1 or amax_history.numel() < 1:
        raise RuntimeError("amax_history must be a 1-D float32 tensor with at least one element")
    for what, t in (("scale", scale), ("scale_inv", scale_inv)):
        if not isinstance(t, Tensor) or t._data.dtype != _F32 or t.numel() != 1:
            raise RuntimeError(f"{what} must be a 1-element float32 tensor")
    if amax_compute_algo not in ("max", "most_recent"):
        raise RuntimeError(f"Unsupported amax compute algorithm ({amax_compute_algo})")
    h = amax_history._data
    last = h[0]
    amax = _F32.type(0)
    if last != 0:
        amax = np.fmax.reduce(h, initial=_F32.type(0))
        h[...] = np.roll(h, -1)
        h[0] = 0
    if amax_compute_algo == "most_recent":
        amax = last
    old = scale._data.reshape(-1)[0]
    scaled_max = _F32.type(fp8_max) * _F32.type(2.0 ** -float(margin))
    with np.errstate(over="ignore", divide="ignore"):
        new = _F32.type(scaled_max / amax) if np.isfinite(amax) and amax > 0 else old
        if np.isinf(new):
            new = _FLT_MAX
        scale._data[...] = new
        scale_inv._data[...] = _F32.type(1) / new
    for t in (amax_history, scale, scale_inv):
        t._vc[0] += 1
    return scale
