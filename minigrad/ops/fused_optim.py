"""The fused optimizer kernels ``_fused_sgd_``, ``_fused_adam_``, ``_fused_adamw_`` and
``_fused_adagrad_``.

What ``torch.optim.SGD / Adam / AdamW / Adagrad(..., fused=True)`` run: one kernel per
parameter that reads the parameter, its gradient and its state once, computes the whole update
in opmath (fp32 for fp16/bf16 storage) WITHOUT rounding between the steps, and rounds each
result once into storage. That is why fused results differ from the for-loop / foreach ones
(which round after every op) by an ulp here and there, in PyTorch too.

Recipes, after ATen's ``FusedAdamKernel.cpp`` / ``FusedSGDKernel.cpp`` /
``FusedAdagradKernel.cpp`` (CPU), measured bit for bit against torch 2.13 here: the
hyper-parameters are doubles turned into opmath scalars
(``c(x)``), and every ``a*b + c`` of the C++ source is ONE fma (ATen is compiled with fp
contraction, so even the plain ``x * y + z`` lines are fused). Per element:

- Adam: ``g = grad / grad_scale`` (and stored back into ``grad``) when given; ``g = -g`` if
  maximize; ``g = fma(p, c(wd), g)`` (Adam) or ``p *= c(1 - lr*wd)`` (AdamW);
  ``m = fma(w, g - m, m)`` if ``w = c(1 - beta1)`` is below 0.5, else ``fma(w - 1, g - m, g)``;
  ``v = fma(c(1-beta2)*g, g, v*c(beta2))`` (in the scalar tail of the last ``n % lanes``
  elements: ``fma(v, c(beta2), c(1-beta2)*g*g)``); with amsgrad ``vmax = max(vmax, v)`` is
  used below;
  ``denom = sqrt(v) / c(sqrt(bc2)) + c(eps)``; ``p = p + c(-lr/bc1) * m / denom``. m, v, vmax
  and p are stored; the unrounded m and v feed the rest of the element's update.
- SGD: ``g`` as above, ``g = fma(p, wd, g)``; with momentum ``buf = g`` on the first step,
  else ``buf = fma(1 - dampening, g, buf*momentum)`` (the scalar tail of the last
  ``n % lanes`` elements, ``lanes`` = ``numerics.lanes(dtype)``: ``fma(buf, momentum,
  g*(1 - dampening))``); ``g = fma(buf, momentum, g)`` (nesterov) or ``buf``;
  ``p = fma(g, -lr, p)``. In the 16-bit vector loop the hyper-parameters are first rounded to
  the storage type.
- Adagrad: ``g`` as above; ``g = fma(p, wd, g)``; ``sum = fma(g, g, sum)``;
  ``p = p - clr * g / (sqrt(sum) + eps)``, ``clr = lr / (1 + (step - 1) * lr_decay)`` in
  double; in the 16-bit vector loop ``wd``, ``eps`` and ``clr`` are first rounded to the
  storage type (fp16's default ``eps=1e-10`` is 0 there), the scalar tail keeps them in fp32.

Known PyTorch bug, not mirrored: torch 2.13's CPU ``_fused_sgd_`` for fp16/bf16 never stores
the parameter in its vectorised loop (only the last ``n % lanes`` elements are updated) and
loads 16-bit momentum buffers as if they were fp32 (measured: ``SGD(lr=0.5, fused=True)`` on 40
bf16 values updates only the last 8). minigrad applies the intended update to every element;
only the tail is compared with PyTorch for 16-bit fused SGD.

A ``found_inf`` equal to 1 makes the kernels return without touching anything (GradScaler's
skipped step). Versus torch 2.13 CPU (``tests/differential/test_optim_foreach_fused.py``):
fused Adam/AdamW/Adagrad are bit-exact in fp32, fp64, fp16 and bf16; fused SGD is bit-exact
in fp32 and fp64, and on the elements PyTorch updates correctly in fp16/bf16 (see the bug above).
"""
from __future__ import annotations

import math

import numpy as np

from .. import numerics
from ..dispatch import register_op
from ..tensor import Tensor
from . import foreach_kernels as K

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)




def _lanes(npd) -> int:
    return numerics.lanes(npd)


def _fma(a, b, c, cd):
    return K._fma(a, b, c, cd)


def _check_lists(op, *lists):
    n = len(lists[0])
    for pos, lst in enumerate(lists):
        if not isinstance(lst, (list, tuple)):
            raise TypeError(f"{op}(): argument {pos} must be a list of Tensors")
        for i, t in enumerate(lst):
            if not isinstance(t, Tensor):
                raise TypeError(f"expected Tensor as element {i} in argument {pos}, but got "
                                f"{type(t).__name__}")
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
            g32 = _fma(p32, c(weight_decay), g32, cd)
    diff = g32 - m32
    if abs(w) < 0.5:
        m_new = _fma(w, diff, m32, cd)
    else:
        m_new = _fma(w - c(1), diff, g32, cd)
    v_new = _fma(c(1 - beta2) * g32, g32, v32 * c(beta2), cd)
    n = p32.size
    tail = slice(n - n % _lanes(npd), n)
    if tail.start < n:       # the scalar tail contracts the other product (measured)
        v_new[tail] = _fma(v32[tail], c(beta2), c(1 - beta2) * g32[tail] * g32[tail], cd)
    src = v_new
    if amsgrad:
        src = np.maximum(vmax_t._data.astype(cd).reshape(-1), v_new)
        _store(vmax_t, src.reshape(p.shape))
    denom = np.sqrt(src) / c(math.sqrt(bc2)) + c(eps)
    p_new = p32 + c(-(lr / bc1)) * m_new / denom
    _store(m_t, m_new.reshape(p.shape))
    _store(v_t, v_new.reshape(p.shape))
    _store(p, p_new.reshape(p.shape))


def _begin(op, lists, state_steps, lr, found_inf):
    """The checks every fused kernel with step counters makes first; returns ``lr`` as a float
    (a 1-element tensor read), or None when ``found_inf`` skips the step."""
    _check_lists(op, *lists)
    if len(state_steps) != len(lists[0]):
        raise RuntimeError(f"Tensor lists must have the same number of tensors, got "
                           f"{len(lists[0])} and {len(state_steps)}")
    if isinstance(lr, Tensor):
        lr = lr.item()
    return None if _skip(found_inf) else float(lr)


def _fused_adam_common(op, adamw, self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs,
                       state_steps, lr, beta1, beta2, weight_decay, eps, amsgrad, maximize,
                       grad_scale, found_inf):
    lists = [self, grads, exp_avgs, exp_avg_sqs] + ([max_exp_avg_sqs] if amsgrad else [])
    lr = _begin(op, lists, state_steps, lr, found_inf)
    if lr is None:
        return None
    with np.errstate(all="ignore"):
        for i, p in enumerate(self):
            _adam_one(p, grads[i], exp_avgs[i], exp_avg_sqs[i],
                      max_exp_avg_sqs[i] if amsgrad else None, state_steps[i], lr,
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


def _sgd_math(p32, g32, b32, c, cd, cw, weight_decay, momentum, lr, dampening, nesterov,
              is_first_step, fused_ops):
    """The SGD update in opmath; ``fused_ops``: ATen's vector loop (fmas; hyper-parameters
    through ``cw``, the storage type for 16-bit), else its scalar tail (separate mul and add)."""
    def fma(x, y, z):
        return _fma(x, y, z, cd)
    k = cw if fused_ops else c
    if weight_decay != 0:
        g32 = fma(p32, k(weight_decay), g32)
    if momentum != 0:
        if is_first_step:
            b32 = g32
        elif fused_ops:
            b32 = fma(k(1 - dampening), g32, b32 * k(momentum))
        else:
            b32 = fma(b32, c(momentum), g32 * c(1 - dampening))
        g32 = fma(b32, k(momentum), g32) if nesterov else b32
    return fma(g32, c(-lr), p32), b32


def _sgd_one(p, g, buf, weight_decay, momentum, lr, dampening, nesterov, maximize,
             is_first_step, grad_scale):
    npd = p._data.dtype
    cd = K.opmath_np(npd)
    c = cd.type

    def cw(x):          # a hyper-parameter as ATen's vector loop holds it: scalar_t(x)
        return cd.type(npd.type(x))
    g32 = _grad(g, grad_scale, cd, npd).reshape(-1)
    p32 = p._data.astype(cd).reshape(-1)
    if maximize:
        g32 = -g32
    b32 = None if momentum == 0 or is_first_step else buf._data.astype(cd).reshape(-1)
    hp = (weight_decay, momentum, lr, dampening, nesterov, is_first_step)
    p_new, b_new = _sgd_math(p32, g32, b32, c, cd, cw, *hp, True)
    n = p32.size
    t = slice(n - n % _lanes(npd), n)
    if t.start < n:
        pt, bt = _sgd_math(p32[t], g32[t], None if b32 is None else b32[t], c, cd, c, *hp, False)
        p_new[t] = pt
        if momentum != 0:
            b_new = np.array(b_new, copy=True)
            b_new[t] = bt
    if momentum != 0:
        _store(buf, b_new.reshape(p.shape))
    _store(p, p_new.reshape(p.shape))


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


def _adagrad_math(p32, g32, s32, cd, k, clr, eps, weight_decay, maximize):
    """The Adagrad update in opmath; ``k`` turns a hyper-parameter into the opmath scalar the
    loop holds (the storage type first in ATen's 16-bit vector loop, see ``_adagrad_one``)."""
    if maximize:
        g32 = -g32
    if weight_decay != 0:
        g32 = _fma(p32, k(weight_decay), g32, cd)
    s_new = _fma(g32, g32, s32, cd)
    std = np.sqrt(s_new) + k(eps)
    return p32 - k(clr) * g32 / std, s_new


def _adagrad_one(p, g, s, step_t, lr, lr_decay, weight_decay, eps, maximize, grad_scale):
    npd = p._data.dtype
    cd = K.opmath_np(npd)
    c = cd.type

    def cw(x):          # a hyper-parameter in ATen's vector loop: Vectorized(scalar_t(x))
        return cd.type(npd.type(x))
    step = float(np.float32(step_t._data.reshape(())[()]))
    clr = lr / (1.0 + (step - 1.0) * lr_decay)
    g32 = _grad(g, grad_scale, cd, npd).reshape(-1)
    p32 = p._data.astype(cd).reshape(-1)
    s32 = s._data.astype(cd).reshape(-1)
    hp = (clr, eps, weight_decay, maximize)
    p_new, s_new = _adagrad_math(p32, g32, s32, cd, cw, *hp)
    n = p32.size
    t = slice(n - n % _lanes(npd), n)
    if t.start < n:     # ATen's scalar tail holds the hyper-parameters as opmath scalars
        p_new[t], s_new[t] = _adagrad_math(p32[t], g32[t], s32[t], cd, c, *hp)
    _store(s, s_new.reshape(p.shape))
    _store(p, p_new.reshape(p.shape))


@register_op("_fused_adagrad_")
def _fused_adagrad_(self, grads, state_sums, state_steps, *, lr, lr_decay, weight_decay, eps,
                    maximize, grad_scale=None, found_inf=None):
    """One fused Adagrad step of every parameter of ``self``, in place
    (``torch._fused_adagrad_``, also its ``.tensor_lr`` overload).

    Per element, in opmath with one rounding per stored result (ATen's
    ``FusedAdagradKernel.cpp``): ``g = grad / grad_scale`` (stored back) when given; ``g = -g``
    if maximize; ``g = fma(p, wd, g)``; ``sum = fma(g, g, sum)``;
    ``p = p - clr * g / (sqrt(sum) + eps)`` with ``clr = lr / (1 + (step - 1) * lr_decay)``
    computed in double from the float32 step. In the 16-bit vector loop ``wd``, ``eps`` and
    ``clr`` are first rounded to the storage type (so fp16's ``eps=1e-10`` is 0 there); the
    scalar tail of the last ``n % lanes`` elements keeps them in fp32.

    Args:
        self, grads, state_sums: lists of same-shape, same-dtype floating tensors.
        state_steps: 0-dim float32 step counters, already incremented for this step.
        lr: float or 1-element tensor; lr_decay, weight_decay, eps: floats; maximize: bool.
        grad_scale, found_inf: as ``_fused_adam_``.

    Raises:
        RuntimeError / TypeError: as ``_fused_adam_``.
    """
    lr = _begin("_fused_adagrad_", [self, grads, state_sums], state_steps, lr, found_inf)
    if lr is None:
        return None
    with np.errstate(all="ignore"):
        for i, p in enumerate(self):
            _adagrad_one(p, grads[i], state_sums[i], state_steps[i], lr,
                         float(lr_decay), float(weight_decay), float(eps), maximize,
                         grad_scale)
    return None
