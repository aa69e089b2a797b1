"""Fast in-place fp32 versions of the SGD and Adam steps: the ``_kernels`` recipes, fused.

``optim/_kernels.py`` states each PyTorch kernel's rounding once, one kernel per function, each
returning a new array. For fp32 storage (the common case) the optimizers run this module
instead, which computes exactly the same values, bit for bit, faster:

- results are written straight into the destination storage (the parameter's and the state's
  arrays, in place) instead of into new arrays copied in afterwards;
- large tensors are processed in chunks of ``CHUNK`` elements, with scratch buffers allocated
  once per thread, so each chunk's multiply -> add -> round chain stays in cache;
- fp32 ops that are a single IEEE fp32 operation (``mul`` by a scalar, ``add`` with alpha 1,
  ``sub``, ``div``, ``sqrt``) run as plain fp32 NumPy ops; only true fmas take the float64
  detour of ``_kernels`` (float64 a*b + c, rounded once to fp32). Each op keeps the operand
  order of its ``_kernels`` recipe, so even NaN payloads agree.

Every element depends only on the same element of the inputs, so chunking cannot change any
result. Callers must pass C-contiguous fp32 destination arrays and a gradient that does not
overlap them (``fusable`` checks both); they validate everything before calling, since these
functions write as they go. 16-bit storage (whose ``add`` tail rounding depends on the position
in the whole tensor) and fp64 (whose fma is emulated differently) use ``_kernels``.
"""
from __future__ import annotations

import threading

import numpy as np

from . import _kernels as _K

__all__ = ["CHUNK", "fusable", "sgd_step", "adam_step"]

CHUNK = 32768  # elements per chunk: measured best here (896 KiB of scratch, mostly in L2)
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_local = threading.local()


def _scratch():
    """Per-thread scratch of CHUNK elements: a pair of float64 arrays and three fp32 arrays."""
    s = getattr(_local, "bufs", None)
    if s is None:
        s = _local.bufs = ((np.empty(CHUNK, _F64), np.empty(CHUNK, _F64)), np.empty(CHUNK, _F32),
                           np.empty(CHUNK, _F32), np.empty(CHUNK, _F32))
    return s


def fusable(dests, grad) -> bool:
    """True when the fused fp32 path applies: every destination array is fp32, C-contiguous
    and writeable, and ``grad`` (fp32) shares no memory with any of them."""
    if grad.dtype != _F32:
        return False
    for d in dests:
        if d.dtype != _F32 or not d.flags.c_contiguous or not d.flags.writeable:
            return False
        if np.may_share_memory(d, grad):
            return False
    return True


def _fma_into(dst, x, y, c, s64):
    """dst = R(fma(x, y, c)) = fp32(float64 x*y + c); dst may be c. ``_kernels._fma``.

    ``s64`` is a pair of float64 scratch arrays of dst's size. Explicit casts into them
    followed by pure float64 ufuncs are faster than NumPy's buffered mixed-dtype loops.
    """
    s, s2 = s64
    if isinstance(x, np.ndarray):
        np.copyto(s, x)
        if isinstance(y, np.ndarray):
            np.copyto(s2, y)
            np.multiply(s, s2, out=s)
        else:
            np.multiply(s, _F64.type(y), out=s)
    else:
        np.copyto(s, y)
        np.multiply(_F64.type(x), s, out=s)
    np.copyto(s2, c)
    np.add(s, s2, out=s)
    np.copyto(dst, s, casting="same_kind")


def _add_into(dst, a, b, alpha, s64):
    """dst = ``_kernels.add(a, b, alpha)`` for fp32 (alpha an np.float32); dst may be a."""
    if alpha == 1:
        np.add(a, b, out=dst)
    else:
        _fma_into(dst, b, alpha, a, s64)


def _flat(a):
    return a.reshape(-1)


def sgd_step(param, grad, buf, *, lr, weight_decay, momentum, dampening, nesterov, maximize):
    """One fp32 SGD update of ``param`` (and ``buf``) in place, as ``SGD._update_group``.

    Args:
        param: the parameter's storage (fp32, C-contiguous), updated in place.
        grad: its gradient (fp32, any layout, same shape), read only.
        buf: the momentum buffer to update in place; ``None`` on the first momentum step (a new
            buffer is then created) or when momentum is 0.
        lr, weight_decay, momentum, dampening: Python floats; nesterov, maximize: bools.

    Returns:
        The momentum buffer (the new one on the first step), or None when momentum is 0.
    """
    f = _F32.type
    wd, m, alpha_buf, alpha_p = f(weight_decay), f(momentum), f(1 - dampening), f(-lr)
    new_buf = momentum != 0 and buf is None
    if new_buf:
        buf = np.empty(param.shape, _F32)
    pf = _flat(param)
    gf = _flat(np.ascontiguousarray(grad))
    bf = _flat(buf) if momentum != 0 else None
    s64, t1, t2, _ = _scratch()
    n = pf.size
    for i in range(0, n, CHUNK):
        j = min(i + CHUNK, n)
        k = j - i
        p, g, s = pf[i:j], gf[i:j], (s64[0][:k], s64[1][:k])
        if maximize:
            g = np.negative(g, out=t1[:k])
        if weight_decay != 0:
            _add_into(t2[:k], g, p, wd, s)           # g.add(p, alpha=wd)
            g = t2[:k]
        if momentum != 0:
            b = bf[i:j]
            if new_buf:
                np.copyto(b, g)                      # g.clone()
            else:
                np.multiply(b, m, out=b)             # buf.mul_(momentum)
                _add_into(b, b, g, alpha_buf, s)     # .add_(g, alpha=1 - dampening)
            if nesterov:
                _add_into(t1[:k], g, b, m, s)        # g.add(buf, alpha=momentum)
                g = t1[:k]
            else:
                g = b
        _add_into(p, p, g, alpha_p, s)               # p.add_(g, alpha=-lr)
    return buf if momentum != 0 else None


def adam_step(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, *, lr, beta1, beta2, eps,
              weight_decay, decoupled, maximize, bc2_sqrt, step_size, sqrt):
    """One fp32 Adam/AdamW update in place, as ``Adam._update_group`` (step already counted).

    Args:
        param, exp_avg, exp_avg_sq: fp32 C-contiguous storage, updated in place.
        grad: the gradient (fp32, same shape), read only.
        max_exp_avg_sq: the AMSGrad running max (updated in place), or None without amsgrad.
        lr, beta1, beta2, eps, weight_decay: Python floats; decoupled, maximize: bools.
        bc2_sqrt, step_size: ``(1 - beta2**step) ** 0.5`` and ``lr / (1 - beta1**step)``.
        sqrt: the elementwise sqrt recipe (``optim.adam._sqrt``); NumPy's correctly rounded
            sqrt is used directly when it is ``_kernels.sqrt``.
    """
    f = _F32.type
    w = f(1 - beta1)
    lerp_small = abs(w) < 0.5
    neg_1mw = -(f(1) - w)
    b2, c2 = f(beta2), f(1 - beta2)
    decay, wd = f(1 - lr * weight_decay), f(weight_decay)
    div, eps32, value = f(bc2_sqrt), f(eps), f(-step_size)
    own_sqrt = sqrt is _K.sqrt
    pf, mf, vf = _flat(param), _flat(exp_avg), _flat(exp_avg_sq)
    xf = _flat(max_exp_avg_sq) if max_exp_avg_sq is not None else None
    gf = _flat(np.ascontiguousarray(grad))
    s64, t1, t2, t3 = _scratch()
    n = pf.size
    for i in range(0, n, CHUNK):
        j = min(i + CHUNK, n)
        k = j - i
        p, g, m, v, d = pf[i:j], gf[i:j], mf[i:j], vf[i:j], t3[:k]
        s = (s64[0][:k], s64[1][:k])
        if maximize:
            g = np.negative(g, out=t1[:k])
        if weight_decay != 0:
            if decoupled:
                np.multiply(p, decay, out=p)         # p.mul_(1 - lr*wd)
            else:
                _add_into(t2[:k], g, p, wd, s)       # g.add(p, alpha=wd)
                g = t2[:k]
        np.subtract(g, m, out=d)                     # m.lerp_(g, 1 - beta1)
        if lerp_small:
            _fma_into(m, w, d, m, s)
        else:
            _fma_into(m, neg_1mw, d, g, s)
        np.multiply(v, b2, out=v)                    # v.mul_(beta2)
        np.multiply(c2, g, out=d)                    # .addcmul_(g, g, value=1 - beta2)
        _fma_into(v, d, g, v, s)
        if xf is not None:
            np.maximum(xf[i:j], v, out=xf[i:j])      # max_exp_avg_sq = maximum(., v)
            v = xf[i:j]
        if own_sqrt:                                 # denom = (v.sqrt() / bc2_sqrt).add_(eps)
            np.sqrt(v, out=d)
        else:
            d[...] = sqrt(v)
        np.divide(d, div, out=d)
        np.add(d, eps32, out=d)
        q = np.multiply(value, m, out=t1[:k])        # p.addcdiv_(m, denom, value=-step_size)
        np.divide(q, d, out=q)
        np.add(q, p, out=p)
