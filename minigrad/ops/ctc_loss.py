"""Connectionist temporal classification: ``_ctc_loss`` with its backward kernel
``_ctc_loss_backward``, and the aten composites ``ctc_loss.IntList`` / ``ctc_loss.Tensor``
(``zero_infinity``, the reductions) that ``F.ctc_loss`` calls; as ATen's CPU kernels
(``LossCTC.cpp``, Graves et al. 2006).

The forward fills ``log_alpha`` (N, T, 2 * max_target_length + 1) over the extended target
``l'`` (blanks around every label) with PyTorch's log-sum-exp recursion, element by element:
``log(exp(a1 - m) + exp(a2 - m) + exp(a3 - m)) + m + log_probs[t, l'[s]]``; the loss is
``-log(alpha[T-1, 2S] + alpha[T-1, 2S-1])``. The backward computes ``log_beta`` the same way
backwards, log-adds ``alpha * beta`` into each time step's label in descending ``s`` order (the
order of ATen's loop) and returns ``(exp(lp) - exp(collected + nll - lp)) * grad``; with
``zero_infinity`` an infinite loss gets a zero gradient. fp32/fp64 only (fp16/bf16 raise
NotImplementedError, as PyTorch's CPU kernel). Each exp/log is computed in float64 and rounded
to the dtype (fp32: glibc's ``expf``/``logf`` are correctly rounded nearly always; a rare
1-ulp step difference is possible). The backward kernels have no derivative (as PyTorch).
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import wrap

_C = "ctc_loss_allocate_outputs"
NEG = -np.inf


def _exp(x, cd):
    with np.errstate(all="ignore"):
        return np.exp(np.asarray(x, np.float64)).astype(cd)


def _log(x, cd):
    with np.errstate(all="ignore"):
        return np.log(np.asarray(x, np.float64)).astype(cd)


def _lengths(v):
    if isinstance(v, Tensor):
        return [int(x) for x in v._data.reshape(-1).tolist()]
    return [int(x) for x in v]


def _check(log_probs, targets, il, tl, blank):
    """ATen's ``ctc_loss_allocate_outputs`` checks; returns (per-batch label arrays, max S)."""
    if targets.dtype is not _dt.int64:
        raise RuntimeError(f"Expected tensor for argument #2 'targets' to have scalar type Long; "
                           f"but got torch.{targets.dtype.legacy_name} instead (while checking "
                           f"arguments for {_C})")
    if log_probs.ndim != 3:
        raise RuntimeError(f"Expected 3-dimensional tensor, but got {log_probs.ndim}-dimensional "
                           f"tensor for argument #1 'log_probs' (while checking arguments for "
                           f"{_C})")
    if not 1 <= targets.ndim < 3:
        raise RuntimeError(f"Expected 1 to 2 dimensions, but got {targets.ndim}-dimensional "
                           f"tensor for argument #2 'targets' (while checking arguments for "
                           f"{_C})")
    if log_probs.dtype not in (_dt.float32, _dt.float64):
        raise NotImplementedError(f"\"ctc_loss_cpu\" not implemented for "
                                  f"'{log_probs.dtype.scalar_name}'")
    t_max, n, c = log_probs.shape
    if not 0 <= blank < c:
        raise RuntimeError("blank must be in label range")
    if len(il) != n:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(tl) != n:
        raise RuntimeError("target_lengths must be of size batch_size")
    for v in tl:
        if v < 0:
            raise RuntimeError(f"Expected target_lengths to have value at least 0, but got "
                               f"value {v} (while checking arguments for {_C})")
    tg = targets._data.astype(np.int64)
    if targets.ndim == 1:
        if tg.shape[0] != sum(tl):
            raise RuntimeError(f"Expected tensor to have size {sum(tl)} at dimension 0, but got "
                               f"size {tg.shape[0]} for argument #2 'targets' (while checking "
                               f"arguments for {_C})")
        starts = np.r_[0, np.cumsum(tl)[:-1]].astype(int) if n else []
        labels = [tg[s:s + k] for s, k in zip(starts, tl)]
    else:
        if tg.shape[0] != n:
            raise RuntimeError(f"Expected tensor to have size {n} at dimension 0, but got size "
                               f"{tg.shape[0]} for argument #2 'targets' (while checking "
                               f"arguments for {_C})")
        if n and tg.shape[1] < max(tl):
            raise RuntimeError(f"Expected tensor to have size at least {max(tl)} at dimension "
                               f"1, but got size {tg.shape[1]} for argument #2 'targets' (while "
                               f"checking arguments for {_C})")
        labels = [tg[b, :k] for b, k in enumerate(tl)]
    for v in il:
        if v < 0:
            raise RuntimeError(f"Expected input_lengths to have value at least 0, but got "
                               f"value {v} (while checking arguments for {_C})")
        if v > t_max:
            raise RuntimeError(f"Expected input_lengths to have value at most {t_max}, but got "
                               f"value {v} (while checking arguments for {_C})")
    return labels, max(tl, default=0)


def _primes(labels, s_max, blank):
    """(N, 2 * s_max + 1): the extended targets l' (blank, l1, blank, l2, ..., blank)."""
    p = np.full((len(labels), 2 * s_max + 1), blank, np.int64)
    for b, lab in enumerate(labels):
        p[b, 1:2 * lab.size:2] = lab
    return p


def _logadd3(a1, a2, a3, cd):
    """ATen's ``log(exp(a1-m) + exp(a2-m) + exp(a3-m)) + m`` with ``m = 0`` when all are -inf."""
    m = np.maximum(np.maximum(a1, a2), a3)
    m = np.where(m == NEG, cd.type(0), m)
    with np.errstate(all="ignore"):
        s = (_exp(a1 - m, cd) + _exp(a2 - m, cd)) + _exp(a3 - m, cd)
        return _log(s, cd) + m


def _setup(log_probs, targets, il, tl, blank):
    """Checked inputs as (compute dtype, log_probs as (N, T, C), extended targets (N, 2S+1))."""
    labels, s_max = _check(log_probs, targets, il, tl, blank)
    return log_probs.dtype.np, np.transpose(log_probs._data, (1, 0, 2)), \
        _primes(labels, s_max, blank)


def _forward(log_probs, targets, il, tl, blank):
    cd, lp, p = _setup(log_probs, targets, il, tl, blank)
    n, t_max, _ = lp.shape
    width = p.shape[1]
    il_a, tl_a = np.asarray(il, np.int64), np.asarray(tl, np.int64)
    la = np.full((n, t_max, width), NEG, cd)
    lpp = np.take_along_axis(lp, np.broadcast_to(p[:, None, :], (n, t_max, width)), axis=2)
    s = np.arange(width)
    in_target = s[None, :] <= 2 * tl_a[:, None]
    if t_max:
        first = (s[None, :] == 0) | ((s[None, :] == 1) & (tl_a[:, None] > 0))
        la[:, 0] = np.where(first, lpp[:, 0], NEG)
    skip = (s[None, :] > 1) & (p != np.roll(p, 2, axis=1))      # l'[s-2] != l'[s]
    for t in range(1, t_max):
        prev = la[:, t - 1]
        a2 = np.concatenate([np.full((n, 1), NEG, cd), prev[:, :-1]], axis=1)
        a3 = np.where(skip, np.concatenate([np.full((n, 2), NEG, cd), prev[:, :-2]], axis=1)
                      if width > 2 else NEG, NEG)
        val = _logadd3(prev, a2, a3, cd) + lpp[:, t]
        la[:, t] = np.where(in_target & (t < il_a)[:, None], val, la[:, t])
    nll = np.empty(n, cd)
    for b in range(n):
        if il[b] == 0:
            nll[b] = -cd.type(0.0 if tl[b] == 0 else NEG)
        elif tl[b] == 0:
            nll[b] = -la[b, il[b] - 1, 0]
        else:
            l1, l2 = la[b, il[b] - 1, 2 * tl[b]], la[b, il[b] - 1, 2 * tl[b] - 1]
            m = l2 if l1 < l2 else l1
            m = cd.type(0) if m == NEG else m
            with np.errstate(all="ignore"):
                nll[b] = -(_log(_exp(l1 - m, cd) + _exp(l2 - m, cd), cd) + m)
    return wrap(nll, log_probs.dtype), wrap(la, log_probs.dtype)


def _backward(grad, log_probs, targets, il, tl, nll, log_alpha, blank, zero_infinity):
    cd, lp, p = _setup(log_probs, targets, il, tl, blank)
    n, t_max, c = lp.shape
    width = p.shape[1]
    la, nl = log_alpha._data, nll._data
    gr = grad._data.reshape(-1).astype(cd) if grad.ndim else np.full(n, grad._data, cd)
    out = np.zeros((n, t_max, c), cd)
    for b in range(n):
        T, S = il[b], tl[b]
        if T == 0 or (zero_infinity and nl[b] == np.inf):
            continue
        lpb, lab, pb = lp[b], la[b], p[b]
        w = 2 * S + 1
        lb = np.full((t_max, width), NEG, cd)
        g = np.full((t_max, c), NEG, cd)
        lb[T - 1, 2 * S] = lpb[T - 1, blank]
        g[T - 1, blank] = lab[T - 1, 2 * S] + lb[T - 1, 2 * S]
        if S > 0:
            cp = pb[2 * S - 1]
            lb[T - 1, 2 * S - 1] = lpb[T - 1, cp]
            g[T - 1, cp] = lab[T - 1, 2 * S - 1] + lb[T - 1, 2 * S - 1]
        s = np.arange(w)
        skip = (s < 2 * S - 1) & (pb[np.minimum(s + 2, width - 1)] != pb[s])
        for t in range(T - 2, -1, -1):
            nxt = lb[t + 1, :w]
            b2 = np.r_[nxt[1:], NEG]
            b3 = np.where(skip, np.r_[nxt[2:], NEG, NEG][:w], NEG)
            lb[t, :w] = _logadd3(nxt, b2, b3, cd) + lpb[t, pb[:w]]
            lab_t = lab[t, :w] + lb[t, :w]
            for si in range(w - 1, -1, -1):                   # ATen's descending s loop
                k, v = pb[si], lab_t[si]
                cur = g[t, k]
                if cur == NEG:
                    g[t, k] = v
                else:
                    m = v if cur < v else cur
                    with np.errstate(all="ignore"):
                        g[t, k] = _log(_exp(cur - m, cd) + _exp(v - m, cd), cd) + m
        with np.errstate(all="ignore"):
            res = (_exp(lpb[:T], cd) - _exp((g[:T] + nl[b]) - lpb[:T], cd)) * gr[b]
        out[b, :T] = res
    return wrap(np.ascontiguousarray(np.transpose(out, (1, 0, 2))), log_probs.dtype)


@register_op("_ctc_loss")
class CtcLoss(Function):
    """``_ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0,
    zero_infinity=False)`` -> ``(neg_log_likelihood (N,), log_alpha (N, T, 2S+1))``
    (``aten::_ctc_loss``); log_probs (T, N, C) fp32/fp64, targets int64 (N, S) padded or
    (sum(target_lengths),) concatenated, lengths as int sequences.

    Raises:
        RuntimeError: ATen's argument checks (dims, blank out of range, lengths of the wrong
            size or out of range, targets of the wrong size); NotImplementedError: fp16/bf16.
    """

    _backward_name = "CtcLossBackward0"

    @staticmethod
    def forward(ctx, log_probs, targets, input_lengths, target_lengths, blank=0,
                zero_infinity=False):
        il, tl = _lengths(input_lengths), _lengths(target_lengths)
        with np.errstate(all="ignore"):              # inf - inf and overflow: as ATen, silent
            nll, la = _forward(log_probs, targets, il, tl, blank)
        ctx.save_for_backward(log_probs, targets, nll, la)
        ctx.args = (il, tl, blank, zero_infinity)
        ctx.mark_non_differentiable(la)
        return nll, la

    @staticmethod
    def backward(ctx, grad, _gla=None):
        log_probs, targets, nll, la = ctx.saved_tensors
        il, tl, blank, zero_infinity = ctx.args
        g = dispatch("_ctc_loss_backward", grad, log_probs, targets, il, tl, nll, la, blank,
                     zero_infinity)
        return g, None, None, None, None, None


@register_op("_ctc_loss_backward")
class CtcLossBackward(Function):
    """``_ctc_loss_backward(grad, log_probs, targets, input_lengths, target_lengths,
    neg_log_likelihood, log_alpha, blank, zero_infinity=False)`` -> the (T, N, C) gradient of
    log_probs (module docstring). Node ``torch::autograd::NotImplemented``: no derivative, as
    PyTorch."""

    _backward_name = "torch::autograd::NotImplemented"

    @staticmethod
    def forward(ctx, grad, log_probs, targets, input_lengths, target_lengths, nll, log_alpha,
                blank, zero_infinity=False):
        with np.errstate(all="ignore"):
            return _backward(grad, log_probs, targets, _lengths(input_lengths),
                             _lengths(target_lengths), nll, log_alpha, blank, zero_infinity)

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError("derivative for aten::_ctc_loss_backward is not implemented")


def _ctc_loss_impl(log_probs, targets, input_lengths, target_lengths, blank, reduction,
                   zero_infinity):
    """ATen's ``ctc_loss_impl``: unbatched (T, C) input as a batch of one, targets as int64,
    ``zero_infinity`` as ``where(res == inf, 0, res)``, then the reduction (mean divides each
    loss by its target length, clamped to 1, before averaging)."""
    batched = log_probs.ndim == 3
    lp = log_probs if batched else dispatch("unsqueeze", log_probs, 1)
    if targets.dtype is not _dt.int64:
        targets = targets.to(_dt.int64)
    res = dispatch("_ctc_loss", lp, targets, input_lengths, target_lengths, blank,
                   zero_infinity)[0]
    if zero_infinity:
        zero = dispatch("zeros", (), dtype=res.dtype, device=res.device)
        res = dispatch("where", dispatch("eq", res, float("inf")), zero, res)
    if reduction == 1:
        tl = dispatch("tensor", list(target_lengths), dtype=res.dtype, device=res.device)
        return dispatch("mean", dispatch("div", res, dispatch("clamp_min", tl, 1)))
    if reduction == 2:
        return dispatch("sum", res)
    return res if batched else dispatch("squeeze", res, 0)


@register_op("ctc_loss.IntList")
def ctc_loss_intlist(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1,
                     zero_infinity=False):
    """``torch.ctc_loss`` with int-list lengths (aten composite ``ctc_loss.IntList``):
    ``_ctc_loss`` then ``zero_infinity`` and the reduction (0 none, 1 mean, 2 sum)."""
    return _ctc_loss_impl(log_probs, targets, input_lengths, target_lengths, blank, reduction,
                          zero_infinity)


@register_op("ctc_loss.Tensor")
def ctc_loss_tensor(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1,
                    zero_infinity=False):
    """``torch.ctc_loss`` with tensor lengths (aten composite ``ctc_loss.Tensor``): the lengths
    read as int lists, then as ``ctc_loss.IntList`` (ATen's path for plain tensors; only
    tensor subclasses and tracing take ``_ctc_loss.Tensor``, which minigrad does not have).

    Raises:
        RuntimeError: non-integer lengths ("input_lengths must be integral").
    """
    for t, name in ((input_lengths, "input_lengths"), (target_lengths, "target_lengths")):
        if t.dtype.is_floating_point or t.dtype is _dt.bool_:
            raise RuntimeError(f"{name} must be integral")
    return _ctc_loss_impl(log_probs, targets, _lengths(input_lengths), _lengths(target_lengths),
                          blank, reduction, zero_infinity)
