"""``RAdam`` (mirrors ``torch.optim.RAdam``): Adam whose adaptive step is switched on, and
rectified, once the variance estimate is tractable (Liu et al., 2019).

With ``rho_inf = 2/(1 - beta2) - 1`` and ``rho_t = rho_inf - 2 t beta2**t / (1 - beta2**t)``,
a step with ``rho_t > 5`` is rectified (Adam-like, scaled by ``rect``); otherwise it is plain
momentum SGD on the bias-corrected first moment.

Every write goes through a dispatched op. By default (``foreach=None``/``False``) the step is
PyTorch's for-loop ``_single_tensor_radam``, run as dispatched ops on one-tensor lists: the
update is ``exp_avg / bc1 * lr * (sqrt(bc2) / (sqrt(v) + eps)) * rect``, where PyTorch's
``number / tensor`` is ``tensor.reciprocal() * number``. ``foreach=True`` is
``_multi_tensor_radam``, a different arithmetic: ``buffer = 1 / ((sqrt(v) + eps) /
(-sqrt(bc2) * lr * rect / bc1)) + unrect_step_size``, then ``p.addcmul_(exp_avg, buffer)``
(unrectified steps divide by ``-0.0``: the reciprocal of the infinity is ``-0.0``), with
``beta2`` and RAdamW's ``1 - lr*wd`` rounded to fp16/bf16 by the in-place ``_foreach_mul_``.

Numerics versus PyTorch 2.13 CPU: bit-exact in fp16/bf16; fp32/fp64 bit-exact except for
``sqrt`` (MKL's in PyTorch, see ``optim/adam.py``; bit-exact with torch's sqrt plugged in).

Deliberate difference: PyTorch's foreach path calls ``_foreach_reciprocal_``, which minigrad
does not have; it runs the ``reciprocal`` op on each tensor (the same kernel, the same bits).
"""
from __future__ import annotations

from minigrad.dispatch import dispatch

from .elementwise import ElementwiseOptimizer, adam_prologue, check_betas, no_differentiable
from .sgd import _mul_

__all__ = ["RAdam"]


class RAdam(ElementwiseOptimizer):
    """RAdam (``torch.optim.RAdam``), with L2 or decoupled (RAdamW) weight decay.

    Per parameter with a grad (the for-loop's order)::

        g = -grad if maximize else grad;  step += 1
        if weight_decay != 0:
            p.mul_(1 - lr*wd) if decoupled_weight_decay else g = g.add(p, alpha=wd)
        m.lerp_(g, 1 - beta1);  v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
        mhat = m / (1 - beta1**step)
        if rho_t > 5: p.add_(mhat * lr * (sqrt(bc2) / v.sqrt().add_(eps)) * rect, alpha=-1)
        else:         p.add_(mhat * lr, alpha=-1)

    Args:
        params: iterable of Tensors or param-group dicts.
        lr: learning rate (default 1e-3); a 1-element Tensor is read as its value.
        betas: (beta1, beta2) (default (0.9, 0.999)).
        eps: added to the denominator (default 1e-8).
        weight_decay: default 0.
        decoupled_weight_decay: RAdamW-style decay (default False).
        foreach: True runs the multi-tensor implementation (see the module docstring).
        maximize: maximize the objective (default False).
        capturable: accepted and stored (it only changes where ``step`` lives in PyTorch).
        differentiable: only False is supported.

    State per param: ``step`` (0-dim scalar-dtype Tensor), ``exp_avg``, ``exp_avg_sq``.

    Raises:
        ValueError: "Tensor lr must be 1-element", "Invalid learning rate: {lr}",
            "Invalid epsilon value: {eps}", "Invalid beta parameter at index 0: {b}",
            "Invalid beta parameter at index 1: {b}", "Invalid weight_decay value: {wd}".
        NotImplementedError: ``differentiable=True``.
    """

    _group_defaults = (("foreach", None), ("maximize", False), ("differentiable", False),
                       ("decoupled_weight_decay", False), ("capturable", False))

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        check_betas(lr, betas, eps, weight_decay)
        no_differentiable(differentiable)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _update_group(self, group, params):
        self._init_states(params, ("exp_avg", "exp_avg_sq"))
        beta1, beta2 = (float(b) for b in group["betas"])
        self._run(group, params, ("exp_avg", "exp_avg_sq", "step"), _radam, beta1=beta1,
                  beta2=beta2, eps=float(group["eps"]),
                  weight_decay=float(group["weight_decay"]),
                  decoupled=group["decoupled_weight_decay"], maximize=group["maximize"])


def _rho_t(rho_inf, beta2, step):
    """The length of the approximated simple moving average at ``step`` (a Python float)."""
    return rho_inf - 2 * step * (beta2 ** step) / (1 - beta2 ** step)


def _rect(rho_t, rho_inf):
    """The variance rectification term (a Python float; only for rho_t > 5)."""
    return ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5


def _radam(params, grads, exp_avgs, exp_avg_sqs, steps, *, lr, beta1, beta2, eps, weight_decay,
           decoupled, maximize, for_loop, lr_t=None):
    """One RAdam update of same-dtype ``params`` by dispatched ops, in the op order of
    ``_single_tensor_radam`` (``for_loop=True``) or ``_multi_tensor_radam``. ``lr_t``: a
    Tensor lr (``1 - lr * weight_decay`` is then a 0-dim tensor, see ``elementwise.lr_tensor``)."""
    grads = adam_prologue(params, grads, steps, lr=lr, lr_t=lr_t, weight_decay=weight_decay,
                          decoupled=decoupled, maximize=maximize, for_loop=for_loop)
    dispatch("_foreach_lerp_", exp_avgs, grads, 1 - beta1)
    _mul_(exp_avg_sqs, beta2, for_loop)
    dispatch("_foreach_addcmul_", exp_avg_sqs, grads, grads, 1 - beta2)
    step = [s.item() for s in steps]
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = [_rho_t(rho_inf, beta2, s) for s in step]
    if for_loop:
        _radam_for_loop(params, exp_avgs, exp_avg_sqs, step, rho_t, rho_inf, lr=lr,
                        beta1=beta1, beta2=beta2, eps=eps)
        return
    rect = [_rect(r, rho_inf) if r > 5 else 0 for r in rho_t]
    unrectified = [0 if r > 0 else 1.0 for r in rect]
    bc1 = [1 - beta1 ** s for s in step]
    lr_ = lr if lr_t is None else lr_t      # a Tensor lr makes these 0-dim tensors, as torch
    unrect_step_size = [(lr_ * u / bc) * -1 for u, bc in zip(unrectified, bc1)]
    bc2_scale = [((1 - beta2 ** s) ** 0.5) * (lr_ * r / bc) * -1
                 for s, r, bc in zip(step, rect, bc1)]
    buffer = dispatch("_foreach_sqrt", exp_avg_sqs)
    dispatch("_foreach_add_", buffer, eps)
    if lr_t is None:
        dispatch("_foreach_div_", buffer, bc2_scale)
    else:       # dividing by a 0-dim tensor uses its value unrounded, as the number list does
        dispatch("_foreach_div_", buffer, [x.item() for x in bc2_scale])
    buffer = [dispatch("reciprocal", b) for b in buffer]      # torch: _foreach_reciprocal_
    if lr_t is None:
        dispatch("_foreach_add_", buffer, unrect_step_size)
    else:       # adding a 0-dim float32 tensor: its value unrounded (the add op's rule)
        buffer = [dispatch("add", b, u) for b, u in zip(buffer, unrect_step_size)]
    dispatch("_foreach_addcmul_", params, exp_avgs, buffer)


def _radam_for_loop(params, exp_avgs, exp_avg_sqs, step, rho_t, rho_inf, *, lr, beta1, beta2,
                    eps):
    """The tail of ``_single_tensor_radam``: rectified and unrectified params apart (their
    steps may differ, since a param without a grad is not stepped)."""
    mhat = dispatch("_foreach_div", exp_avgs, [1 - beta1 ** s for s in step])
    upd = dispatch("_foreach_mul", mhat, lr)
    on = [i for i, r in enumerate(rho_t) if r > 5.0]
    if on:
        sq = dispatch("_foreach_sqrt", [exp_avg_sqs[i] for i in on])
        dispatch("_foreach_add_", sq, eps)
        adaptive = dispatch("_foreach_mul", [dispatch("reciprocal", x) for x in sq],
                            [(1 - beta2 ** step[i]) ** 0.5 for i in on])
        rect_upd = dispatch("_foreach_mul", [upd[i] for i in on], adaptive)
        rect_upd = dispatch("_foreach_mul", rect_upd, [_rect(rho_t[i], rho_inf) for i in on])
        upd = list(upd)
        for j, i in enumerate(on):
            upd[i] = rect_upd[j]
    dispatch("_foreach_add_", params, upd, alpha=-1.0)
