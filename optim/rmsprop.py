"""``RMSprop`` (mirrors ``torch.optim.RMSprop``): divide the gradient by a running RMS.

Every write goes through a dispatched op. By default (``foreach=None``/``False``) the step is
PyTorch's for-loop ``_single_tensor_rmsprop``, run as the ``_foreach_*`` ops on one-tensor
lists (``mul_(number)`` as ``_foreach_mul_`` with a 0-dim tensor, see ``optim/sgd.py``);
``foreach=True`` is ``_multi_tensor_rmsprop``: the same op sequence, except that its in-place
``_foreach_mul_(square_avgs, alpha)`` and ``_foreach_mul_(bufs, momentum)`` round the number to
fp16/bf16 first, as torch's do. PyTorch has no fused RMSprop.

Numerics versus PyTorch 2.13 CPU: bit-exact in fp16/bf16; in fp32/fp64 bit-exact except for
``sqrt`` (PyTorch's MKL sqrt is not correctly rounded, see ``optim/adam.py``; with torch's sqrt
plugged in through ``foreach_kernels.using_sqrt`` every bit agrees, tested).

Deliberate difference: PyTorch's centered foreach path calls the out-of-place
``_foreach_addcmul``, which minigrad does not have; it runs ``clone`` then ``_foreach_addcmul_``
(the same bits).
"""
from __future__ import annotations

from minigrad.dispatch import dispatch

from .elementwise import ElementwiseOptimizer, check_lr, no_differentiable
from .sgd import _mul_

__all__ = ["RMSprop"]


class RMSprop(ElementwiseOptimizer):
    """RMSprop (``torch.optim.RMSprop``), optionally centered and with momentum.

    Per parameter with a grad (params whose ``.grad`` is None are skipped)::

        g = -grad if maximize else grad;  step += 1
        if weight_decay != 0: g = g.add(p, alpha=weight_decay)
        v.mul_(alpha).addcmul_(g, g, value=1 - alpha)
        if centered: ga.lerp_(g, 1 - alpha);  avg = v.addcmul(ga, ga, value=-1).sqrt_()
        else:        avg = v.sqrt()
        avg.add_(eps)
        if momentum > 0: buf.mul_(momentum).addcdiv_(g, avg);  p.add_(buf, alpha=-lr)
        else:            p.addcdiv_(g, avg, value=-lr)

    Args:
        params: iterable of Tensors or param-group dicts.
        lr: learning rate (default 1e-2); a 1-element Tensor is read as its value.
        alpha: smoothing constant (default 0.99).
        eps: added to the denominator (default 1e-8; rounded to fp16/bf16 for 16-bit params,
            as in PyTorch).
        weight_decay: L2 penalty (default 0).
        momentum: momentum factor (default 0).
        centered: normalise by the estimated variance of the gradient (default False).
        capturable: accepted and stored (it only changes where ``step`` lives in PyTorch).
        foreach: True runs the multi-tensor implementation (see the module docstring).
        maximize: maximize the objective (default False).
        differentiable: only False is supported.

    State per param: ``step`` (0-dim float32 Tensor, float64 under a float64 default dtype),
    ``square_avg``, with momentum > 0 ``momentum_buffer``, when centered ``grad_avg``.

    Raises:
        ValueError: "Tensor lr must be 1-element", "Invalid learning rate: {lr}",
            "Invalid epsilon value: {eps}", "Invalid momentum value: {m}",
            "Invalid weight_decay value: {wd}", "Invalid alpha value: {alpha}".
        NotImplementedError: ``differentiable=True``.
        RuntimeError (from ``step``): a grad whose shape/dtype differs from its param.
    """

    _group_defaults = (("momentum", 0), ("centered", False), ("foreach", None),
                       ("maximize", False), ("differentiable", False), ("capturable", False))

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        no_differentiable(differentiable)
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps,
                    "centered": centered, "weight_decay": weight_decay,
                    "capturable": capturable, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _update_group(self, group, params):
        momentum, centered = float(group["momentum"]), group["centered"]
        buf = "momentum_buffer" if momentum > 0 else None
        avg = "grad_avg" if centered else None
        self._init_states(params, [k for k in ("square_avg", buf, avg) if k])
        self._run(group, params, ("square_avg", avg, buf, "step"), _rmsprop,
                  alpha=float(group["alpha"]), eps=float(group["eps"]),
                  weight_decay=float(group["weight_decay"]), momentum=momentum,
                  centered=centered, maximize=group["maximize"])


def _rmsprop(params, grads, square_avgs, grad_avgs, bufs, steps, *, lr, alpha, eps,
             weight_decay, momentum, centered, maximize, for_loop, lr_t=None):
    """One RMSprop update of same-dtype ``params`` by dispatched ops, in the op order of
    ``_single_tensor_rmsprop`` (``for_loop=True``) or ``_multi_tensor_rmsprop``. A Tensor lr
    (``lr_t``) enters only as an ``alpha``/``value``, i.e. as its value: ``lr`` suffices."""
    if maximize:
        grads = dispatch("_foreach_neg", grads)
    dispatch("_foreach_add_", steps, 1)
    if weight_decay != 0:
        grads = dispatch("_foreach_add", grads, params, alpha=weight_decay)
    _mul_(square_avgs, alpha, for_loop)
    dispatch("_foreach_addcmul_", square_avgs, grads, grads, 1 - alpha)
    if centered:
        dispatch("_foreach_lerp_", grad_avgs, grads, 1 - alpha)
        avg = [dispatch("clone", v) for v in square_avgs]     # v.addcmul(...), out of place
        dispatch("_foreach_addcmul_", avg, grad_avgs, grad_avgs, -1)
        dispatch("_foreach_sqrt_", avg)
    else:
        avg = dispatch("_foreach_sqrt", square_avgs)
    dispatch("_foreach_add_", avg, eps)
    if momentum > 0:
        _mul_(bufs, momentum, for_loop)
        dispatch("_foreach_addcdiv_", bufs, grads, avg)
        dispatch("_foreach_add_", params, bufs, alpha=-lr)
    else:
        dispatch("_foreach_addcdiv_", params, grads, avg, -lr)
