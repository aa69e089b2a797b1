"""``Adadelta`` (mirrors ``torch.optim.Adadelta``): steps scaled by the ratio of the running
RMS of past updates to the running RMS of gradients (Zeiler, 2012).

Every write goes through a dispatched op. By default (``foreach=None``/``False``) the step is
PyTorch's for-loop ``_single_tensor_adadelta``, run as the ``_foreach_*`` ops on one-tensor
lists (``mul_(rho)`` as ``_foreach_mul_`` with a 0-dim tensor, see ``optim/sgd.py``);
``foreach=True`` is ``_multi_tensor_adadelta``: the same op sequence, except that its in-place
``_foreach_mul_(…, rho)`` rounds ``rho`` to fp16/bf16 first, as torch's does.

Numerics versus PyTorch 2.13 CPU: bit-exact in fp16/bf16; fp32/fp64 bit-exact except for
``sqrt`` (MKL's in PyTorch, see ``optim/adam.py``; bit-exact with torch's sqrt plugged in).
"""
from __future__ import annotations

from minigrad.dispatch import dispatch

from .elementwise import ElementwiseOptimizer, check_lr, no_differentiable
from .sgd import _mul_

__all__ = ["Adadelta"]


class Adadelta(ElementwiseOptimizer):
    """Adadelta (``torch.optim.Adadelta``).

    Per parameter with a grad::

        step += 1;  g = -grad if maximize else grad
        if weight_decay != 0: g = g.add(p, alpha=weight_decay)
        v.mul_(rho).addcmul_(g, g, value=1 - rho)
        delta = u.add(eps).sqrt_().div_(v.add(eps).sqrt_()).mul_(g)
        u.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        p.add_(delta, alpha=-lr)

    Args:
        params: iterable of Tensors or param-group dicts.
        lr: coefficient scaling delta (default 1.0); a 1-element Tensor is read as its value.
        rho: running-average coefficient (default 0.9).
        eps: added inside the square roots (default 1e-6; rounded to fp16/bf16 for 16-bit
            params, as in PyTorch).
        weight_decay: L2 penalty (default 0).
        foreach: True runs the multi-tensor implementation (see the module docstring).
        capturable: accepted and stored (it only changes where ``step`` lives in PyTorch).
        maximize: maximize the objective (default False).
        differentiable: only False is supported.

    State per param: ``step`` (0-dim scalar-dtype Tensor), ``square_avg`` (v) and
    ``acc_delta`` (u) (param's dtype).

    Raises:
        ValueError: "Tensor lr must be 1-element", "Invalid learning rate: {lr}",
            "Invalid rho value: {rho}", "Invalid epsilon value: {eps}",
            "Invalid weight_decay value: {wd}".
        NotImplementedError: ``differentiable=True``.
    """

    _group_defaults = (("foreach", None), ("maximize", False), ("differentiable", False),
                       ("capturable", False))

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        no_differentiable(differentiable)
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "capturable": capturable, "foreach": foreach,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _update_group(self, group, params):
        self._init_states(params, ("square_avg", "acc_delta"))
        self._run(group, params, ("square_avg", "acc_delta", "step"), _adadelta,
                  rho=float(group["rho"]), eps=float(group["eps"]),
                  weight_decay=float(group["weight_decay"]), maximize=group["maximize"])


def _adadelta(params, grads, square_avgs, acc_deltas, steps, *, lr, rho, eps, weight_decay,
              maximize, for_loop, lr_t=None):
    """One Adadelta update of same-dtype ``params`` by dispatched ops, in the op order of
    ``_single_tensor_adadelta`` (``for_loop=True``) or ``_multi_tensor_adadelta`` (a Tensor lr
    ``lr_t`` enters only as ``alpha``, i.e. as its value)."""
    dispatch("_foreach_add_", steps, 1)
    if maximize:
        grads = dispatch("_foreach_neg", grads)
    if weight_decay != 0:
        grads = dispatch("_foreach_add", grads, params, alpha=weight_decay)
    _mul_(square_avgs, rho, for_loop)
    dispatch("_foreach_addcmul_", square_avgs, grads, grads, 1 - rho)
    std = dispatch("_foreach_add", square_avgs, eps)
    dispatch("_foreach_sqrt_", std)
    deltas = dispatch("_foreach_add", acc_deltas, eps)
    dispatch("_foreach_sqrt_", deltas)
    dispatch("_foreach_div_", deltas, std)
    dispatch("_foreach_mul_", deltas, grads)
    _mul_(acc_deltas, rho, for_loop)
    dispatch("_foreach_addcmul_", acc_deltas, deltas, deltas, 1 - rho)
    dispatch("_foreach_add_", params, deltas, alpha=-lr)
