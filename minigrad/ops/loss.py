"""Losses: nll_loss (its kernels ``nll_loss_forward`` / ``nll_loss2d_forward`` and their
backwards) and mse_loss (+ ``mse_loss_backward``); cross_entropy lives in ``cross_entropy.py``.

Numerics copied from PyTorch's CPU kernels (bit-exact in our tests for fp32, fp16 and bf16):
- nll_loss 'sum'/'mean' accumulate in the *storage* dtype with PyTorch's 8-level cascade of
  16-element partial sums (each addition rounded); mean divides once by the total weight.
- mse_loss computes ``round(round(a - b)^2)`` per element, then sums in fp32 and rounds once;
  its backward is ``round(round(round(norm) * round(a - b)) * grad)`` (Vectorized<Half> ops).
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .. import numerics as _nx
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import LOW, broadcast_shapes, wrap

_REDUCTIONS = ("none", "mean", "sum")
_LEVELS, _STEP = 8, 16


def _check_reduction(reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _rounder(dt):
    """Round an opmath array to ``dt`` and back (identity for fp32/fp64: ``_exact`` then
    marks it, so ``_fold`` may sum without a rounding step per addition)."""
    if dt in LOW:
        npd = dt.np
        return lambda a: np.asarray(a, np.float32).astype(npd).astype(np.float32)
    cd = dt.np
    return _EXACT.setdefault(cd, lambda a: np.asarray(a, cd))


_EXACT = {}     # numpy dtype -> the identity rounder of fp32 / fp64
_ZERO = {}      # numpy scalar type -> its +0 (``_cascade_one_level``)


def _fold(x, rnd):
    """``0 + x[0] + x[1] + ...`` along axis 0, left to right, each addition rounded by
    ``rnd`` (for an (k, 16) block matrix transposed: every column's own fold at once)."""
    cd = x.dtype
    if rnd is _EXACT.get(cd) and x.shape[0]:
        # fast path when no rounding is needed (fp32/fp64): ``np.add.accumulate`` adds strictly
        # left to right (every prefix is an output). It starts from x[0], not 0 + x[0]: that
        # differs only in a -0.0 result (0 + ... never gives -0.0; x + 0 == x for any other x,
        # NaN payloads included), which the final "+ 0" turns into +0.0
        return np.add.accumulate(x)[-1] + cd.type(0)
    left = np.zeros(x.shape[1:], cd)[()]
    for i in range(x.shape[0]):     # indexed: iterating an array ends in IndexError
        left = rnd(left + x[i])
    return left


def quiet_wrap(arr, dt):
    """``wrap`` without NumPy's overflow warning: a 16-bit result that overflows is inf, as in
    PyTorch, which never warns."""
    with np.errstate(over="ignore", invalid="ignore"):
        return wrap(arr, dt)


def apply_reduction(loss, reduction, dt):
    """PyTorch's ``apply_loss_reduction`` for a fused loss kernel: ``loss`` (per-element values
    in the compute dtype, already holding ``dt``'s stored values) wrapped as a Tensor of ``dt``
    ('none'), or summed in the compute dtype (fp32 for 16-bit) and, for 'mean', divided by the
    element count, rounded once into ``dt`` (0-D)."""
    if reduction == "none":
        return quiet_wrap(loss, dt)
    acc = np.float64 if loss.dtype == np.float64 else np.float32
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        if dt in LOW and loss.size > _nx.GRAIN_SIZE:
            s = _nx.thread_partial_sum(loss, dt)
        else:
            s = np.add.reduce(np.asarray(loss).reshape(-1), dtype=acc)
        if reduction == "mean":
            s = s / acc(np.asarray(loss).size)
    return quiet_wrap(np.asarray(s), dt)


def _cascade(vals, rnd, keep, everyone=None):
    """PyTorch's cascade sum (nll_loss_out_frame) of ``vals`` (already negated), each addition
    rounded by ``rnd``; ``keep`` marks the non-ignored entries (ignored ones skip the flush);
    ``everyone``: whether all of ``keep`` is True, when the caller knows."""
    cd = vals.dtype
    if everyone is None:
        everyone = np.logical_and.reduce(keep, axis=None)
    if everyone:
        if rnd is _EXACT.get(cd) and 1 < vals.shape[0] <= _STEP * _STEP:
            return _cascade_one_level(vals, cd)
        parts = []
        x = vals
        for _ in range(_LEVELS - 1):
            n = x.shape[0]
            if n <= 1:
                # the remaining levels' partial sums are all +0, and adding +0 to the running
                # total (rounded already, never -0: it starts at +0) leaves it unchanged
                break
            k = (n - 1) // _STEP
            parts.append(_fold(x[1 + _STEP * k:n], rnd))
            if k == 0:          # no full block of _STEP below the first entry: nothing to fold
                x = x[:1]
                continue
            full = x[1:1 + _STEP * k].reshape(k, _STEP)
            x = np.concatenate([x[:1], np.asarray(_fold(full.T, rnd)).reshape(k)])
        parts.append(_fold(x, rnd))
    else:
        parts = [cd.type(0)] * _LEVELS
        for b in np.flatnonzero(keep):
            parts[0] = rnd(parts[0] + vals[b])
            for j in range(_LEVELS - 1):
                if b & ((_STEP - 1) << (4 * j)):
                    break
                parts[j + 1] = rnd(parts[j + 1] + parts[j])
                parts[j] = cd.type(0)
    return np.asarray(_fold(np.array(parts, cd), rnd), cd)


def _cascade_one_level(vals, cd):
    """``_cascade`` of 2 to 256 entries, none ignored, without a rounding step (fp32/fp64): the
    general path's operations without its loop over levels (same bits, NaN payloads included).

    With fewer than 257 entries the cascade only ever flushes level 0 into level 1, except for
    entry 0, which (its index having no bit set) is flushed alone up to the top level; the
    levels between hold +0 and the general path has already left them out. So the parts are:
    the entries after the last full block of 16 (level 0), the sum of the blocks ``1 + 16j ..
    16 + 16j`` (level 1) and entry 0 (the top level), folded as ``_fold`` folds them:
    ``np.add.accumulate``, whose running sum is the first operand of each addition as in
    PyTorch's loop (NumPy's scalar ``+`` returns the second operand's NaN: only arrays here)."""
    n = vals.shape[0]
    k = (n - 1) // _STEP
    zero = _ZERO.get(cd)
    if zero is None:
        zero = _ZERO[cd] = cd.type(0)
    parts = [np.add.accumulate(vals[1 + _STEP * k:])[-1] + zero if n > 1 + _STEP * k else zero]
    if k == 1:      # one block: its fold, as the general line below gives it (x + 0 + 0 is x + 0)
        parts.append(np.add.accumulate(vals[1:1 + _STEP])[-1] + zero)
    elif k:
        blocks = np.add.accumulate(vals[1:1 + _STEP * k].reshape(k, _STEP).T)[-1] + zero
        parts.append(np.add.accumulate(blocks)[-1] + zero)
    parts.append(vals[0] + zero)
    return np.asarray(np.add.accumulate(np.array(parts, cd))[-1] + zero, cd)


def _nll_shapes(input, target):
    """Validate (input, target) as PyTorch's nll_loss_nd; return (N, C, M) layout info."""
    ishape, tshape = input._data.shape, target._data.shape   # tuples: cheaper than Size
    nd, tnd = len(ishape), len(tshape)
    if nd < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {nd})")
    tb = tshape[0] if tnd else 0      # PyTorch counts a 0-dim target as 0
    if nd != 1 and ishape[0] != tb:
        raise ValueError(f"Expected input batch_size ({ishape[0]}) to match target "
                         f"batch_size ({tb}).")
    if nd != 1 and tnd == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if nd <= 2:
        if tnd > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if nd == 2 and tnd != 1:
            raise RuntimeError(f"size mismatch (got input: {list(ishape)}, target: "
                               f"{list(tshape)})")
    elif nd == 4 and tnd != 3:
        raise RuntimeError("only batches of spatial targets supported (3D tensors) but got "
                           f"targets of dimension: {tnd}")
    elif nd == 4 and tshape != (ishape[0],) + ishape[2:]:
        raise RuntimeError(f"size mismatch (got input: {list(ishape)} , target: "
                           f"{list(tshape)}")
    elif nd > 2 and tshape[1:] != ishape[2:]:
        raise RuntimeError(f"Expected target size {[ishape[0]] + list(ishape[2:])}, "
                           f"got {list(tshape)}")
    if target.dtype not in (_dt.int64, _dt.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                           f"{target.dtype.scalar_name}")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"nll_loss_out_frame" not implemented for '
                                  f"'{input.dtype.scalar_name}'")
    c = ishape[0] if nd == 1 else ishape[1]
    n = 1 if nd == 1 else ishape[0]
    m = 1
    for s in ishape[2:]:
        m *= s
    return n, c, m


def _nll_prepare(input, target, weight, ignore_index):
    n, c, m = _nll_shapes(input, target)
    if weight is not None:
        if not isinstance(weight, Tensor):
            raise TypeError(f"nll_loss(): argument 'weight' must be Tensor, not "
                            f"{type(weight).__name__}")
        if weight.numel() != c or weight.ndim > 1:
            raise RuntimeError(f"weight tensor should be defined either for all {c} classes or "
                               f"no classes but got weight tensor of shape: "
                               f"{list(weight.shape)}")
        if weight.dtype is not input.dtype:
            raise RuntimeError(f"expected scalar type {input.dtype.scalar_name} but found "
                               f"{weight.dtype.scalar_name}")
    t = target._data.reshape(n, m)
    if t.dtype != np.int64:     # (int64 targets are only read: no copy)
        t = t.astype(np.int64)
    if t.size:
        # the common case first: every target a class and none equal to ignore_index (it lies
        # outside [min, max]), so nothing is ignored and nothing can raise
        lo, hi = np.minimum.reduce(t, axis=None), np.maximum.reduce(t, axis=None)
        if 0 <= lo and hi < c and not lo <= ignore_index <= hi:
            return n, c, m, t, _all_true(t.shape), True
    keep = t != ignore_index
    # the ufuncs' reduce directly: ``keep.all()``, ``t.min()`` and ``t.max()`` without NumPy's
    # Python wrappers around them (half the cost of these checks on a small batch)
    if np.logical_and.reduce(keep, axis=None):   # the common case: nothing ignored, no masking
        if t.size and (np.minimum.reduce(t, axis=None) < 0 or
                       np.maximum.reduce(t, axis=None) >= c):
            bad = (t < 0) | (t >= c)
            raise IndexError(f"Target {int(t[bad][0])} is out of bounds.")
        return n, c, m, t, keep, True
    bad = keep & ((t < 0) | (t >= c))
    if bad.any():
        raise IndexError(f"Target {int(t[bad][0])} is out of bounds.")
    return n, c, m, np.where(keep, t, 0), keep, False


def _at_targets(n, m, t):
    """The index of ``x[i, t[i, j], j]`` for an (n, c, m) array ``x`` (``np.take_along_axis``'s
    index along axis 1, built without its per-call Python overhead)."""
    rows = _kept(_ROWS, n, lambda: np.arange(n)[:, None])
    if m == 1:      # (N, C) inputs: a plain 0 for the last axis (same (n, 1) result)
        return rows, t, 0
    return rows, t, np.arange(m)[None, :]


def _all_true(shape):
    """An all-True bool array of ``shape`` (read-only, kept per shape): the ``keep`` mask when
    no target is ignored."""
    return _kept(_TRUE, shape, lambda: np.ones(shape, bool))


def _kept(cache, key, make):
    """``cache[key]``, made read-only by ``make()`` on first use (a loss meets the same batch
    shape every step; building the array costs more than the lookup)."""
    a = cache.get(key)
    if a is None:
        if len(cache) >= 16:
            cache.clear()
        a = cache[key] = make()
        a.flags.writeable = False
    return a


_ROWS: dict = {}    # n -> np.arange(n)[:, None]
_TRUE: dict = {}    # shape -> np.ones(shape, bool)


@register_op("nll_loss_forward")
class NllLoss(Function):
    """``nll_loss_forward(input, target, weight, reduction, ignore_index)``: PyTorch's kernel
    under ``F.nll_loss`` for 1-D/2-D inputs (what a dispatch mode sees):
    ``-weight[t] * input[n, t]`` per target, reduced. Deliberate differences from
    ``aten::nll_loss_forward``: ``reduction`` is the string ('none', 'mean', 'sum'), not the enum
    int, and only the loss is returned (the total weight stays on the node).

    Shapes: input (C,), (N, C) or (N, C, d1, ...); target (), (N,) or (N, d1, ...) of int64 or
    uint8 class indices; weight (C,) of input's dtype. Output: input's dtype; 0-D for
    'mean'/'sum', target's shape for 'none'. 'mean' with every target ignored is nan.

    Raises:
        RuntimeError: "expected target dtype to be Long or Byte, but got Float", shape
            mismatches, bad weights ("expected scalar type Float but found Double").
        ValueError: "Expected input batch_size (4) to match target batch_size (3).", an unknown
            reduction. IndexError: "Target 5 is out of bounds.".
    """

    _backward_name = "NllLossBackward0"

    @staticmethod
    def forward(ctx, input, target, weight=None, reduction="mean", ignore_index=-100):
        _check_reduction(reduction)
        if not isinstance(input, Tensor) or not isinstance(target, Tensor):
            raise TypeError("nll_loss(): input and target must be Tensors")
        n, c, m, t, keep, everyone = _nll_prepare(input, target, weight, ignore_index)
        dt = input.dtype
        cd = _dt.opmath_dtype(dt).np
        rnd = _rounder(dt)
        x = input._data.reshape(n, c, m)
        if c:           # (the gather is a fresh array: no copy for an fp32/fp64 input)
            picked = x[_at_targets(n, m, t)].astype(cd, copy=False)
        else:           # no classes: every target is ignored (else _nll_prepare raised)
            picked = np.zeros((n, m), cd)
        w = None
        if weight is not None:
            w = weight._data.reshape(c).astype(cd)[t] if c else np.zeros((n, m), cd)
            picked = rnd(picked * w)
        ctx.save_for_backward(input, target, weight)
        ctx.ignore_index, ctx.reduction = ignore_index, reduction
        if reduction == "none":
            out = np.where(keep, -picked, cd.type(0))
            ctx.total_weight = 1.0
            return wrap(out.reshape(target.shape), dt)
        k = keep.reshape(-1)
        # everyone kept: no masking (picked is a fresh cd array)
        vals = -picked if everyone else np.where(keep, -picked, 0).astype(cd)
        loss = _cascade(vals.reshape(-1), rnd, k, everyone)
        if w is None:
            tw = rnd(cd.type(k.size if everyone else int(np.count_nonzero(k))))
        else:
            tw = _cascade(np.where(keep, w, 0).reshape(-1).astype(cd), rnd, k, everyone)
        ctx.total_weight = float(tw)
        if reduction == "mean":
            token = _nx.quiet()     # np.errstate(all="ignore") as two C calls: 0 / 0
            try:
                loss = rnd(loss / tw)
            finally:
                _nx.unquiet(token)
        return wrap(loss, dt)

    @staticmethod
    def backward(ctx, grad):
        input, target, weight = ctx.saved_tensors
        return dispatch(ctx._function._bw_op, grad, input, target, weight, ctx.reduction,
                        ctx.ignore_index, ctx.total_weight), None, None

    _bw_op = "nll_loss_backward"


@register_op("nll_loss2d_forward")
class NllLoss2d(NllLoss):
    """``nll_loss2d_forward``: ``nll_loss_forward`` of an (N, C, H, W) input
    (``NllLoss2DBackward0``)."""

    _backward_name = "NllLoss2DBackward0"
    _bw_op = "nll_loss2d_backward"


@register_op("nll_loss")
def nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):
    """``nll_loss(input, target, weight=None, ignore_index=-100, reduction='mean')``
    (``F.nll_loss``): ``-weight[t] * input[n, t]`` per target, reduced.

    Shapes: input (C,), (N, C) or (N, C, d1, ...); target (), (N,) or (N, d1, ...) of int64 or
    uint8 class indices; weight (C,) of input's dtype. Output: input's dtype; 0-D for
    'mean'/'sum', target's shape for 'none'. 'mean' with every target ignored is nan. Like
    PyTorch's ``nll_loss_nd``, 4-D inputs use ``nll_loss2d`` (``NllLoss2DBackward0``) and other
    N-D inputs are viewed as (N, C, 1, -1) first.

    Raises:
        RuntimeError: "expected target dtype to be Long or Byte, but got Float", shape
            mismatches, bad weights ("expected scalar type Float but found Double").
        ValueError: "Expected input batch_size (4) to match target batch_size (3).", an unknown
            reduction. IndexError: "Target 5 is out of bounds.".
    """
    _check_reduction(reduction)
    if not isinstance(input, Tensor) or not isinstance(target, Tensor):
        raise TypeError("nll_loss(): argument 'input' and 'target' must be Tensors")
    nd = input._data.ndim
    if nd <= 2:
        return dispatch("nll_loss_forward", input, target, weight, reduction, ignore_index)
    if nd == 4:
        return dispatch("nll_loss2d_forward", input, target, weight, reduction, ignore_index)
    _nll_shapes(input, target)
    n, c = input.shape[0], input.shape[1]
    x = dispatch("view", input, (n, c, 1, -1)) if input.numel() else \
        dispatch("reshape", input, (n, c, 1, 0))
    t = dispatch("view", target, (n, 1, -1)) if target.numel() else \
        dispatch("reshape", target, (n, 1, 0))
    out = dispatch("nll_loss2d_forward", x, t, weight, reduction, ignore_index)
    return dispatch("view", out, target.shape) if reduction == "none" else out


@register_op("nll_loss_backward")
class NllLossBackward(Function):
    """``nll_loss_backward(grad_output, input, target, weight, reduction, ignore_index,
    total_weight)``: the gradient of ``nll_loss`` w.r.t. its input, as PyTorch's kernel: zeros
    except ``round(weight[t] * -(grad / total_weight))`` ('mean') at the targets, in input's
    dtype."""

    _backward_name = "NllLossBackwardBackward0"

    @staticmethod
    def forward(ctx, grad_output, input, target, weight, reduction, ignore_index, total_weight):
        n, c, m, t, keep, everyone = _nll_prepare(input, target, weight, ignore_index)
        dt = input.dtype
        cd = _dt.opmath_dtype(dt).np
        rnd = _rounder(dt)
        g = grad_output._data.astype(cd)
        if reduction == "none":
            g = g.reshape(n, m)
        elif reduction == "mean":
            token = _nx.quiet()     # np.errstate(all="ignore") as two C calls: x / 0
            try:
                g = rnd(g.reshape(()) / cd.type(total_weight))
            finally:
                _nx.unquiet(token)
        else:
            g = g.reshape(())
        val = -g        # (n, m) for 'none', else 0-d: broadcast over the targets below
        out = np.zeros((n, c, m), dt.np)
        if c:           # (no classes: nothing to scatter)
            if weight is not None:
                val = rnd(weight._data.reshape(c).astype(cd)[t] * val)
            if not everyone:
                val = np.where(keep, val, 0)
            out[_at_targets(n, m, t)] = np.asarray(val).astype(dt.np)
        ctx.save_for_backward(target, weight)
        ctx.reduction, ctx.ignore_index = reduction, ignore_index
        return Tensor._make(out.reshape(input.shape), dt)

    @staticmethod
    def backward(ctx, gg):
        target, weight = ctx.saved_tensors
        g = dispatch("nll_loss", gg, target, weight, ctx.ignore_index, ctx.reduction)
        return g, None, None, None, None, None, None


@register_op("nll_loss2d_backward")
class NllLoss2dBackward(NllLossBackward):
    """``nll_loss2d_backward``: ``nll_loss_backward`` for 4-D inputs."""

    _backward_name = "NllLoss2DBackwardBackward0"


# ---------------------------------------------------------------------------- mse_loss

@register_op("mse_loss")
class MseLoss(Function):
    """``mse_loss(input, target, reduction='mean')`` = reduce((input - target)^2)
    (``torch._C._nn.mse_loss``; ``F.mse_loss`` adds the size-mismatch warning).

    Inputs broadcast and promote as in PyTorch; the result has the promoted dtype.

    Raises:
        RuntimeError: shapes that do not broadcast ("The size of tensor a (3) must match the size
            of tensor b (5) at non-singleton dimension 1"); ValueError: an unknown reduction.
    """

    _backward_name = "MseLossBackward0"

    @staticmethod
    def forward(ctx, input, target, reduction="mean"):
        _check_reduction(reduction)
        if not isinstance(input, Tensor) or not isinstance(target, Tensor):
            raise TypeError("mse_loss(): argument 'input' and 'target' must be Tensors")
        if input.shape != target.shape:
            broadcast_shapes(input.shape, target.shape)
        rt = _dt.promote_types(input.dtype, target.dtype)
        if not rt.is_floating_point:
            raise NotImplementedError(f'"mse_cpu" not implemented for \'{rt.scalar_name}\'')
        cd = _dt.opmath_dtype(rt).np
        rnd = _rounder(rt)
        token = _nx.quiet()         # inf - inf, overflow: no NumPy warning, as PyTorch
        try:
            d = rnd(input._data.astype(cd) - target._data.astype(cd))
            loss = rnd(d * d)
        finally:
            _nx.unquiet(token)
        ctx.save_for_backward(input, target)
        ctx.reduction = reduction
        if reduction == "none":
            return wrap(loss, rt)
        s = np.add.reduce(loss, axis=None, dtype=np.float64 if cd == np.float64 else np.float32)
        if reduction == "mean":
            with np.errstate(invalid="ignore", divide="ignore"):
                s = s / cd.type(loss.size)
        return wrap(s, rt)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        n = ctx.needs_input_grad
        r = ctx.reduction
        ga = dispatch("mse_loss_backward", grad, a, b, r) if n[0] else None
        gb = dispatch("mse_loss_backward", grad, b, a, r) if n[1] else None
        return ga, gb


@register_op("mse_loss_backward")
class MseLossBackward(Function):
    """``mse_loss_backward(grad_output, input, target, reduction)`` = ``norm * (input - target)
    * grad_output`` with norm = 2/numel ('mean') or 2, each step rounded in 16-bit dtypes as
    PyTorch's ``Vectorized<Half/BFloat16>`` kernel; broadcast shape, promoted dtype."""

    _backward_name = "MseLossBackwardBackward0"

    @staticmethod
    def forward(ctx, grad_output, input, target, reduction):
        shape = broadcast_shapes(input.shape, target.shape)
        rt = _dt.promote_types(input.dtype, target.dtype)
        cd = _dt.opmath_dtype(rt).np
        rnd = _rounder(rt)
        numel = 1
        for s in shape:
            numel *= s
        norm = rnd(cd.type(2.0 / numel if reduction == "mean" and numel else 2.0))
        g = grad_output._data.astype(rt.np).astype(cd)
        ctx.save_for_backward(grad_output, input, target)
        ctx.reduction, ctx.norm = reduction, float(norm)
        token = _nx.quiet()         # inf - inf, overflow: no NumPy warning, as PyTorch
        try:
            d = rnd(input._data.astype(cd) - target._data.astype(cd))
            return wrap(np.broadcast_to(rnd(rnd(norm * d) * g), shape), rt)
        finally:
            _nx.unquiet(token)

    @staticmethod
    def backward(ctx, gg):
        g, a, b = ctx.saved_tensors
        n = ctx.needs_input_grad
        dg = dispatch("mse_loss_backward", gg, a, b, ctx.reduction) if n[0] else None
        da = db = None
        if n[1] or n[2]:
            t = dispatch("mul", dispatch("mul", gg, g), ctx.norm)
            da = t if n[1] else None
            db = dispatch("mul", t, -1) if n[2] else None
        return dg, da, db, None
