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

from .adam import _scalar_tensor
from .optimizer import (
    Optimizer,
    _check_lr,
    _lr_tensor,
    _no_differentiable,
    _steps_as_tensors,
)
from .sgd import _mul_, _to_float

__all__ = ["Adamax"]


class Adamax(Optimizer):
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

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        _check_betas(lr, betas, eps, weight_decay)
        _no_differentiable(differentiable)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            for k, v in (("foreach", None), ("maximize", False), ("differentiable", False),
                         ("capturable", False)):
                group.setdefault(k, v)
        _steps_as_tensors(self)

    def step(self, closure=None):
        """One Adamax step over every group (``Adamax.step``).

        Args:
            closure: optional callable re-evaluating the model; run with grad enabled and its
                result returned.
        """
        return self._step_groups(closure)

    def _update_group(self, group, params):
        for p in params:
            st = self.state[p]
            if len(st) == 0:
                st["step"] = _scalar_tensor(0.0)
                st["exp_avg"] = dispatch("zeros_like", p)
                st["exp_inf"] = dispatch("zeros_like", p)
        state = [self.state[p] for p in params]
        lists = ([p.grad for p in params], [s["exp_avg"] for s in state],
                 [s["exp_inf"] for s in state], [s["step"] for s in state])
        beta1, beta2 = (float(b) for b in group["betas"])
        self._run_chunks(self._implementation(group, params), params, lists, _adamax,
                         lr=float(_to_float(group["lr"], "lr")), beta1=beta1, beta2=beta2,
                         eps=float(group["eps"]), weight_decay=float(group["weight_decay"]),
                         maximize=group["maximize"], lr_t=_lr_tensor(group))


def _check_betas(lr, betas, eps, weight_decay):
    """The constructor checks shared by Adam's relatives (Adamax, NAdam, RAdam).

    Raises:
        ValueError: PyTorch's texts for lr, eps, betas[0], betas[1] and weight_decay.
    """
    _check_lr(lr)
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


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
