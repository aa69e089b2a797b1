"""``NAdam`` (mirrors ``torch.optim.NAdam``): Adam with Nesterov momentum (Dozat, 2016), with
the momentum schedule ``mu_t = beta1 * (1 - 0.5 * 0.96**(t * momentum_decay))``.

Every write goes through a dispatched op. By default (``foreach=None``/``False``) the step is
PyTorch's for-loop ``_single_tensor_nadam``, run as the ``_foreach_*`` ops on one-tensor lists
(``mul_(number)`` as ``_foreach_mul_`` with a 0-dim tensor, see ``optim/sgd.py``), which
divides ``exp_avg_sq`` by the bias correction before the sqrt; ``foreach=True`` is
``_multi_tensor_nadam``, which takes the sqrt first and divides by the square root of the bias
correction (different roundings, as in PyTorch), and whose in-place ``_foreach_mul_`` rounds
``beta2`` (and NAdamW's ``1 - lr*wd``) to fp16/bf16 first.

``mu_product`` (the running product of the ``mu_t``) is a 0-dim float32 state tensor (float64
under a float64 default dtype), multiplied in place by each ``mu_t``; the step sizes are Python
floats computed from its value, as in PyTorch.

Numerics versus PyTorch 2.13 CPU: bit-exact in fp16/bf16; fp32/fp64 bit-exact except for
``sqrt`` (MKL's in PyTorch, see ``optim/adam.py``; bit-exact with torch's sqrt plugged in).
"""
from __future__ import annotations

from minigrad.dispatch import dispatch

from .elementwise import ElementwiseOptimizer, adam_prologue, check_betas, no_differentiable
from .sgd import _mul_

__all__ = ["NAdam"]


class NAdam(ElementwiseOptimizer):
    """NAdam (``torch.optim.NAdam``), with L2 or decoupled (NAdamW) weight decay.

    Per parameter with a grad (the for-loop's order)::

        g = -grad if maximize else grad;  step += 1;  bc2 = 1 - beta2**step
        if weight_decay != 0:
            p.mul_(1 - lr*wd) if decoupled_weight_decay else g = g.add(p, alpha=wd)
        mu = beta1*(1 - 0.5*0.96**(step*momentum_decay))
        mu_next = beta1*(1 - 0.5*0.96**((step + 1)*momentum_decay))
        mu_product *= mu
        m.lerp_(g, 1 - beta1);  v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
        denom = v.div(bc2).sqrt().add_(eps)
        p.addcdiv_(g, denom, value=-lr*(1 - mu)/(1 - mu_product))
        p.addcdiv_(m, denom, value=-lr*mu_next/(1 - mu_product*mu_next))

    Args:
        params: iterable of Tensors or param-group dicts.
        lr: learning rate (default 2e-3); a 1-element Tensor is read as its value.
        betas: (beta1, beta2) (default (0.9, 0.999)).
        eps: added to the denominator (default 1e-8).
        weight_decay: default 0.
        momentum_decay: default 4e-3.
        decoupled_weight_decay: NAdamW-style decay (default False).
        foreach: True runs the multi-tensor implementation (see the module docstring).
        maximize: maximize the objective (default False).
        capturable: accepted and stored (it only changes where ``step`` lives in PyTorch).
        differentiable: only False is supported.

    State per param: ``step`` and ``mu_product`` (0-dim scalar-dtype Tensors), ``exp_avg``,
    ``exp_avg_sq`` (param's dtype).

    Raises:
        ValueError: "Tensor lr must be 1-element", "Invalid learning rate: {lr}",
            "Invalid epsilon value: {eps}", "Invalid beta parameter at index 0: {b}",
            "Invalid beta parameter at index 1: {b}", "Invalid weight_decay value: {wd}",
            "Invalid momentum_decay value: {v}".
        NotImplementedError: ``differentiable=True``.
    """

    _scalar_state = ("step", "mu_product")

    _group_defaults = (("maximize", False), ("foreach", None), ("capturable", False),
                       ("differentiable", False), ("decoupled_weight_decay", False))

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        check_betas(lr, betas, eps, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        no_differentiable(differentiable)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay,
                    "decoupled_weight_decay": decoupled_weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _update_group(self, group, params):
        self._init_states(params, ("exp_avg", "exp_avg_sq"),
                          scalars={"step": 0.0, "mu_product": 1.0})
        beta1, beta2 = (float(b) for b in group["betas"])
        self._run(group, params, ("exp_avg", "exp_avg_sq", "mu_product", "step"), _nadam,
                  beta1=beta1, beta2=beta2, eps=float(group["eps"]),
                  weight_decay=float(group["weight_decay"]),
                  momentum_decay=float(group["momentum_decay"]),
                  decoupled=group["decoupled_weight_decay"], maximize=group["maximize"])


def _nadam(params, grads, exp_avgs, exp_avg_sqs, mu_products, steps, *, lr, beta1, beta2, eps,
           weight_decay, momentum_decay, decoupled, maximize, for_loop, lr_t=None):
    """One NAdam update of same-dtype ``params`` by dispatched ops, in the op order of
    ``_single_tensor_nadam`` (``for_loop=True``) or ``_multi_tensor_nadam``.

    ``mu_products`` are float32/float64 tensors, so ``_foreach_mul_`` by the list of ``mu``
    (which rounds numbers only for 16-bit tensors) is ``mu_product *= mu`` in both paths.
    ``lr_t``: a Tensor lr, whose arithmetic runs as 0-dim tensor ops as in PyTorch (see
    ``elementwise.lr_tensor``)."""
    grads = adam_prologue(params, grads, steps, lr=lr, lr_t=lr_t, weight_decay=weight_decay,
                          decoupled=decoupled, maximize=maximize, for_loop=for_loop)
    step = [s.item() for s in steps]
    mus = [beta1 * (1.0 - 0.5 * (0.96 ** (s * momentum_decay))) for s in step]
    mu_nexts = [beta1 * (1.0 - 0.5 * (0.96 ** ((s + 1) * momentum_decay))) for s in step]
    if for_loop:
        dispatch("_foreach_mul_", mu_products, mus)
    dispatch("_foreach_lerp_", exp_avgs, grads, 1 - beta1)
    _mul_(exp_avg_sqs, beta2, for_loop)
    dispatch("_foreach_addcmul_", exp_avg_sqs, grads, grads, 1 - beta2)
    if for_loop:
        denom = dispatch("_foreach_div", exp_avg_sqs, [1 - beta2 ** s for s in step])
        denom = dispatch("_foreach_sqrt", denom)
    else:
        denom = dispatch("_foreach_sqrt", exp_avg_sqs)
        dispatch("_foreach_mul_", mu_products, mus)
        dispatch("_foreach_div_", denom, [(1 - beta2 ** s) ** 0.5 for s in step])
    dispatch("_foreach_add_", denom, eps)
    mu_prods = [mp.item() for mp in mu_products]
    if for_loop and lr_t is not None:
        size_grads = [(-lr_t * (1.0 - mu) / (1.0 - mp)).item() for mu, mp in zip(mus, mu_prods)]
        size_avgs = [((-lr_t * mu_next) / (1.0 - mp * mu_next)).item()
                     for mu_next, mp in zip(mu_nexts, mu_prods)]
    elif for_loop:
        size_grads = [-lr * (1.0 - mu) / (1.0 - mp) for mu, mp in zip(mus, mu_prods)]
        size_avgs = [(-lr * mu_next) / (1.0 - mp * mu_next)
                     for mu_next, mp in zip(mu_nexts, mu_prods)]
    else:
        size_grads = [(lr * (1.0 - mu) / (1.0 - mp)) * -1 for mu, mp in zip(mus, mu_prods)]
        size_avgs = [(lr * mu_next / (1.0 - mp * mu_next)) * -1
                     for mu_next, mp in zip(mu_nexts, mu_prods)]
    dispatch("_foreach_addcdiv_", params, grads, denom, size_grads)
    dispatch("_foreach_addcdiv_", params, exp_avgs, denom, size_avgs)
