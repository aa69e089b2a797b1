"""``Adamax`` (mirrors ``torch.optim.Adamax``): Adam with the infinity norm in place of the
second moment.

Every write goes through a dispatched op. By default (``foreach=None``/``False``) the step is
PyTorch's for-loop ``_single_tensor_adamax``, run as the ``_foreach_*`` ops on one-tensor lists
(``exp_inf.mul_(beta2)`` as ``_foreach_mul_`` with a 0-dim tensor, see ``optim/sgd.py``);
``foreach=True`` is ``_multi_tensor_adamax``: the same sequence, except that its in-place
``_foreach_mul_(exp_infs, beta2)`` rounds ``beta2`` to fp16/bf16 first, as torch's does.

Numerics versus PyTorch 2.13 CPU: bit-exact in every float dtype (no sqrt is involved).

Deliberate difference: PyTorch's foreach path takes ``_foreach_abs``; minigrad has no such op
and runs the ``abs`` op on each tensor (exact either way, so the same bits).
"""
from __future__ import annotations

from minigrad.dispatch import dispatch

from .elementwise import ElementwiseOptimizer, check_betas, no_differentiable
from .sgd import _mul_

__all__ = ["Adamax"]


class Adamax(ElementwiseOptimizer):
    """Adamax (``torch.optim.Adamax``).

    Per parameter with a grad::

        g = -grad if maximize else grad;  step += 1
        if weight_decay != 0: g = g.add(p, alpha=weight_decay)
        m.lerp_(g, 1 - beta1)
        u = maximum(u.mul_(beta2), g.abs().add_(eps))          (in place into u)
        p.addcdiv_(m, u, value=-lr / (1 - beta1**step))

    Args:
        params: iterable of Tensors or param-group dicts.
        lr: learning rate (default 2e-3); a 1-element Tensor is read as its value.
        betas: (beta1, beta2) (default (0.9, 0.999)).
        eps: added to |g| (default 1e-8; rounded to fp16/bf16 for 16-bit params, as PyTorch).
        weight_decay: L2 penalty (default 0).
        foreach: True runs the multi-tensor implementation (see the module docstring).
        maximize: maximize the objective (default False).
        differentiable: only False is supported.
        capturable: accepted and stored (it only changes where ``step`` lives in PyTorch).

    State per param: ``step`` (0-dim float32 Tensor, float64 under a float64 default dtype),
    ``exp_avg`` and ``exp_inf`` (param's dtype).

    Raises:
        ValueError: "Tensor lr must be 1-element", "Invalid learning rate: {lr}",
            "Invalid epsilon value: {eps}", "Invalid beta parameter at index 0: {b}",
            "Invalid beta parameter at index 1: {b}", "Invalid weight_decay value: {wd}".
        NotImplementedError: ``differentiable=True``.
    """

    _group_defaults = (("foreach", None), ("maximize", False), ("differentiable", False),
                       ("capturable", False))

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        check_betas(lr, betas, eps, weight_decay)
        no_differentiable(differentiable)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def _update_group(self, group, params):
        self._init_states(params, ("exp_avg", "exp_inf"))
        beta1, beta2 = (float(b) for b in group["betas"])
        self._run(group, params, ("exp_avg", "exp_inf", "step"), _adamax, beta1=beta1,
                  beta2=beta2, eps=float(group["eps"]),
                  weight_decay=float(group["weight_decay"]), maximize=group["maximize"])


def _adamax(params, grads, exp_avgs, exp_infs, steps, *, lr, beta1, beta2, eps, weight_decay,
            maximize, for_loop, lr_t=None):
    """One Adamax update of same-dtype ``params`` by dispatched ops, in the op order of
    ``_single_tensor_adamax`` (``for_loop=True``) or ``_multi_tensor_adamax``. ``lr_t``: a
    Tensor lr, whose for-loop step size ``lr / bias_correction`` is a tensor division."""
    if maximize:
        grads = dispatch("_foreach_neg", grads)
    dispatch("_foreach_add_", steps, 1)
    if weight_decay != 0:
        grads = dispatch("_foreach_add", grads, params, alpha=weight_decay)
    dispatch("_foreach_lerp_", exp_avgs, grads, 1 - beta1)
    _mul_(exp_infs, beta2, for_loop)
    norms = [dispatch("abs", g) for g in grads]
    dispatch("_foreach_add_", norms, eps)
    dispatch("_foreach_maximum_", exp_infs, norms)
    if for_loop and lr_t is not None:
        step_size = [-(lr_t / (1 - beta1 ** s.item())).item() for s in steps]
    else:
        step_size = [(lr / (1 - beta1 ** s.item())) * -1 for s in steps]
    dispatch("_foreach_addcdiv_", params, exp_avgs, exp_infs, step_size)
