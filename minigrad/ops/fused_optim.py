"""The fused optimizer kernels ``_fused_sgd_``, ``_fused_adam_`` and ``_fused_adamw_``.

What ``torch.optim.SGD / Adam / AdamW(..., fused=True)`` run: one kernel per parameter that
reads the parameter, its gradient and its state once, computes the whole update in opmath (fp32
for fp16/bf16 storage) WITHOUT rounding between the steps, and rounds each result once into
storage. That is why fused results differ from the for-loop / foreach ones (which round after
every op) by an ulp here and there, in PyTorch too.

Recipes, after ATen's ``FusedAdamKernel.cpp`` / ``FusedSGDKernel.cpp`` (CPU): the hyper-
parameters are doubles turned into opmath scalars; ATen's vectorised loop covers all but the
last ``n % lanes`` elements (``lanes`` = ``VEC_BYTES`` / itemsize; the per-thread chunks are whole
cache lines, so only the tensor's end has a tail) and uses an fma for the ``lerp``; the scalar
tail loop uses separate multiply and add. In detail, per element (``c`` = opmath of the double):

- Adam: ``g = grad / grad_scale`` (and stored back into ``grad``) when given; ``g = -g`` if
  maximize; ``g += p * c(wd)`` (Adam) or ``p *= c(1 - lr*wd)`` (AdamW);
  ``m = lerp(m, g, c(1 - beta1))`` (the two-sided formula); ``v = v*c(beta2) + c(1-beta2)*g*g``;
  with amsgrad ``vmax = max(vmax, v)`` used below; ``denom = sqrt(v) / c(sqrt(bc2)) + c(eps)``;
  ``p = p + c(-lr/bc1) * m / denom``. m, v, vmax and p are stored; the unrounded m and v are
  used for the rest of the element's update.
- SGD: ``g`` as above, ``g += p * wd``; with momentum ``buf = g`` on the first step, else
  ``buf = buf*momentum + (1-dampening)*g``; ``g = g + buf*momentum`` (nesterov) or ``buf``;
  ``p = p - g*lr``.

A ``found_inf`` equal to 1 makes the kernels return without touching anything (GradScaler's
skipped step). Numerics versus torch 2.13 CPU are measured in ``tests/differential/
test_optim_foreach_fused.py``, which states the ulp bound per dtype.
"""
from __future__ import annotations

import math

import numpy as np

from ..dispatch import register_op
from ..tensor import Tensor
from . import foreach_kernels as K

VEC_BYTES = 32        # bytes per vector register of the mirrored ATen build (AVX2)
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)


def _lanes(npd) -> int:
    return VEC_BYTES // npd.itemsize


def _fma(a, b, c, cd):
    return K._fma(a, b, c, cd)


def _check_lists(op, *lists):
    n = len(lists[0])
    for lst in lists:
        if not isinstance(lst, (list, tuple)) or not all(isinstance(t, Tensor) for t in lst):
            raise TypeError(f"{op}(): expected lists of Tensors")
        if len(lst) != n:
            raise RuntimeError(f"Tensor lists must have the same number of tensors, got {n} "
                               f"and {len(lst)}")
    for i, p in enumerate(lists[0]):
        if not p.dtype.is_floating_point:
            raise RuntimeError(f"{op}: expected floating point tensors, got {p.dtype}")
        for lst in lists[1:]:
            if lst[i].shape != p.shape or lst[i].dtype is not p.dtype:
                raise RuntimeError(f"{op}: every tensor must have its parameter's shape and "
                                   f"dtype (got {list(lst[i].shape)} {lst[i].dtype} for "
                                   f"{list(p.shape)} {p.dtype})")


def _skip(found_inf) -> bool:
    return found_inf is not None and float(found_inf._data.reshape(())[()]) == 1.0


def _grad(g, grad_scale, cd, npd):
    """The gradient in opmath, divided by ``grad_scale`` (and stored back) when given."""
    a = g._data.astype(cd)
    if grad_scale is not None:
        a = a / cd.type(float(grad_scale._data.reshape(())[()]))
        g._data[...] = a.astype(npd)
        g._vc[0] += 1
    return a


def _store(t, x):
    t._data[...] = x.astype(t._data.dtype) if x.dtype != t._data.dtype else x
    t._vc[0] += 1


def _adam_one(p, g, m_t, v_t, vmax_t, step_t, lr, beta1, beta2, weight_decay, eps, amsgrad,
              maximize, adamw, grad_scale):
    npd = p._data.dtype
    cd = K.opmath_np(npd)
    c = cd.type
    step = float(step_t._data.reshape(())[()])
    bc1 = 1 - beta1 ** step
    bc2 = 1 - beta2 ** step
    w = c(1 - beta1)
    g32 = _grad(g, grad_scale, cd, npd).reshape(-1)
    p32 = p._data.astype(cd).reshape(-1)
    m32 = m_t._data.astype(cd).reshape(-1)
    v32 = v_t._data.astype(cd).reshape(-1)
    if maximize:
        g32 = -g32
    if weight_decay != 0:
        if adamw:
            p32 = p32 * c(1 - lr * weight_decay)
        else:
            g32 = g32 + p32 * c(weight_decay)
    diff = g32 - m32
    small = abs(w) < 0.5
    m_new = _fma(w if small else w - c(1), diff, m32 if small else g32, cd)   # vector loop
    n = p32.size
    tail = slice(n - n % _lanes(npd), n)
    if small:                                                                # scalar tail
        m_new[tail] = m32[tail] + w * diff[tail]
    else:
        m_new[tail] = g32[tail] - diff[tail] * (c(1) - w)
    v_new = v32 * c(beta2) + c(1 - beta2) * g32 * g32
    src = v_new
    if amsgrad:
        src = np.maximum(vmax_t._data.astype(cd).reshape(-1), v_new)
        _store(vmax_t, src.reshape(p.shape))
    denom = np.sqrt(src) / c(math.sqrt(bc2)) + c(eps)
    p_new = p32 + c(-(lr / bc1)) * m_new / denom
    _store(m_t, m_new.reshape(p.shape))
    _store(v_t, v_new.reshape(p.shape))
    _store(p, p_new.reshape(p.shape))


def _fused_adam_common(op, adamw, self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs,
                       state_steps, lr, beta1, beta2, weight_decay, eps, amsgrad, maximize,
                       grad_scale, found_inf):
    lists = [self, grads, exp_avgs, exp_avg_sqs] + ([max_exp_avg_sqs] if amsgrad else [])
    _check_lists(op, *lists)
    if len(state_steps) != len(self):
        raise RuntimeError(f"Tensor lists must have the same number of tensors, got "
                           f"{len(self)} and {len(state_steps)}")
    if isinstance(lr, Tensor):
        lr = lr.item()
    if _skip(found_inf):
        return None
    with np.errstate(all="ignore"):
        for i, p in enumerate(self):
            _adam_one(p, grads[i], exp_avgs[i], exp_avg_sqs[i],
                      max_exp_avg_sqs[i] if amsgrad else None, state_steps[i], float(lr),
                      float(beta1), float(beta2), float(weight_decay), float(eps), amsgrad,
                      maximize, adamw, grad_scale)
    return None


@register_op("_fused_adam_")
def _fused_adam_(self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, *, lr,
                 beta1, beta2, weight_decay, eps, amsgrad, maximize, grad_scale=None,
                 found_inf=None):
    """One fused Adam step of every parameter of ``self``, in place (``torch._fused_adam_``).

    Args:
        self, grads, exp_avgs, exp_avg_sqs: lists of same-shape, same-dtype floating tensors;
            ``max_exp_avg_sqs`` too when ``amsgrad`` (else ignored, PyTorch passes ``[]``).
        state_steps: 0-dim float32 step counters, already incremented for this step.
        lr, beta1, beta2, weight_decay, eps: floats (``lr`` may be a 1-element tensor).
        grad_scale: optional float32 scale the gradients are divided by (and stored back).
        found_inf: optional float32 flag; 1.0 skips the whole update.

    Raises:
        RuntimeError: lists of different lengths, mismatched shapes/dtypes, non-floating
            tensors. TypeError: something other than lists of tensors.
    """
    return _fused_adam_common("_fused_adam_", False, self, grads, exp_avgs, exp_avg_sqs,
                              max_exp_avg_sqs, state_steps, lr, beta1, beta2, weight_decay, eps,
                              amsgrad, maximize, grad_scale, found_inf)


@register_op("_fused_adamw_")
def _fused_adamw_(self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, *, lr,
                  beta1, beta2, weight_decay, eps, amsgrad, maximize, grad_scale=None,
                  found_inf=None):
    """``_fused_adam_`` with decoupled weight decay, ``p *= 1 - lr*wd`` first
    (``torch._fused_adamw_``); same arguments and errors."""
    return _fused_adam_common("_fused_adamw_", True, self, grads, exp_avgs, exp_avg_sqs,
                              max_exp_avg_sqs, state_steps, lr, beta1, beta2, weight_decay, eps,
                              amsgrad, maximize, grad_scale, found_inf)


def _sgd_one(p, g, buf, weight_decay, momentum, lr, dampening, nesterov, maximize,
             is_first_step, grad_scale):
    npd = p._data.dtype
    cd = K.opmath_np(npd)
    c = cd.type
    g32 = _grad(g, grad_scale, cd, npd)
    p32 = p._data.astype(cd)
    if maximize:
        g32 = -g32
    if weight_decay != 0:
        g32 = g32 + p32 * c(weight_decay)
    if momentum != 0:
        if is_first_step:
            b32 = g32
        else:
            b32 = buf._data.astype(cd) * c(momentum) + g32 * c(1 - dampening)
        _store(buf, b32)
        g32 = g32 + b32 * c(momentum) if nesterov else b32
    _store(p, p32 - g32 * c(lr))


@register_op("_fused_sgd_")
def _fused_sgd_(self, grads, momentum_buffer_list, *, weight_decay, momentum, lr, dampening,
                nesterov, maximize, is_first_step, grad_scale=None, found_inf=None):
    """One fused SGD step of every parameter of ``self``, in place (``torch._fused_sgd_``).

    Args:
        self, grads: lists of same-shape, same-dtype floating tensors.
        momentum_buffer_list: the buffers (``[]`` when ``momentum == 0``); on
            ``is_first_step`` they are overwritten with the gradient.
        weight_decay, momentum, lr, dampening: floats (``lr`` may be a 1-element tensor);
            nesterov, maximize, is_first_step: bools.
        grad_scale, found_inf: as ``_fused_adam_``.

    Raises:
        RuntimeError / TypeError: as ``_fused_adam_``.
    """
    lists = [self, grads] + ([momentum_buffer_list] if momentum != 0 else [])
    _check_lists("_fused_sgd_", *lists)
    if isinstance(lr, Tensor):
        lr = lr.item()
    if _skip(found_inf):
        return None
    with np.errstate(all="ignore"):
        for i, p in enumerate(self):
            _sgd_one(p, grads[i], momentum_buffer_list[i] if momentum != 0 else None,
                     float(weight_decay), float(momentum), float(lr), float(dampening),
                     nesterov, maximize, is_first_step, grad_scale)
    return None
