"""``Rprop`` (mirrors ``torch.optim.Rprop``): resilient backpropagation, per-coordinate step
sizes grown by ``etaplus`` while the gradient keeps its sign and shrunk by ``etaminus`` when it
flips; only the gradient's sign moves the parameter.

Every write goes through a dispatched op, one parameter at a time (PyTorch's for-loop
``_single_tensor_rprop``). ``foreach=True`` (``_multi_tensor_rprop``) runs the same sequence:
its ops differ from the for-loop's only in order (negating ``grad * prev`` instead of ``grad``,
``where(..., 0, grad)`` instead of a masked fill), which changes no bit, since every op here is
exact except ``step_size.mul_(sign)``, which both paths run alike.

Numerics versus PyTorch 2.13 CPU: bit-exact in every float dtype (tested, both paths).
"""
from __future__ import annotations

from minigrad.dispatch import dispatch

from .elementwise import ElementwiseOptimizer, check_lr, no_differentiable
from .sgd import _to_float

__all__ = ["Rprop"]


class Rprop(ElementwiseOptimizer):
    """Rprop (``torch.optim.Rprop``).

    Per parameter with a grad::

        g = -grad if maximize else grad;  step += 1
        sign = (g * prev).sign(), then 1 -> etaplus, -1 -> etaminus, 0 -> 1
        step_size.mul_(sign).clamp_(step_size_min, step_size_max)
        g = g.clone();  g[sign == etaminus] = 0
        p.addcmul_(g.sign(), step_size, value=-1);  prev.copy_(g)

    Args:
        params: iterable of Tensors or param-group dicts.
        lr: initial step size (default 1e-2); a 1-element Tensor is read as its value.
        etas: (etaminus, etaplus) (default (0.5, 1.2)); stored in the param's dtype when
            filled into ``sign`` (fp16/bf16 round them, as in PyTorch).
        step_sizes: (min, max) allowed step sizes (default (1e-6, 50)).
        capturable: accepted and stored (it only changes where ``step`` lives in PyTorch).
        foreach: True runs the multi-tensor implementation (the same bits, see above).
        maximize: maximize the objective (default False).
        differentiable: only False is supported.

    State per param: ``step`` (0-dim scalar-dtype Tensor), ``prev`` (the previous gradient,
    zeroed where the sign flipped), ``step_size`` (``full_like(grad, lr)``).

    Raises:
        ValueError: "Tensor lr must be 1-element", "Invalid learning rate: {lr}",
            "Invalid eta values: {etaminus}, {etaplus}".
        NotImplementedError: ``differentiable=True``.
    """

    _group_defaults = (("foreach", None), ("maximize", False), ("differentiable", False),
                       ("capturable", False))

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        no_differentiable(differentiable)
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    def _update_group(self, group, params):
        new = [p for p in params if len(self.state[p]) == 0]
        self._init_states(new, ("prev",))
        for p in new:
            self.state[p]["step_size"] = dispatch("full_like", p.grad, _to_float(group["lr"], "lr"))
        etaminus, etaplus = (float(e) for e in group["etas"])
        lo, hi = (float(s) for s in group["step_sizes"])
        self._run(group, params, ("prev", "step_size", "step"), _rprop, etaminus=etaminus,
                  etaplus=etaplus, step_size_min=lo, step_size_max=hi,
                  maximize=group["maximize"])


def _rprop(params, grads, prevs, step_sizes, steps, *, for_loop, lr, lr_t, **hp):
    """One Rprop update: ``_single_tensor_rprop`` one parameter at a time, for both paths
    (the multi-tensor path gives the same bits, see the module docstring; ``lr`` only sets
    the initial step sizes)."""
    for i, p in enumerate(params):
        _rprop_one(p, grads[i], prevs[i], step_sizes[i], steps[i], **hp)


def _rprop_one(param, grad, prev, step_size, step, *, etaminus, etaplus, step_size_min,
               step_size_max, maximize):
    """``_single_tensor_rprop`` for one parameter, by dispatched ops."""
    if maximize:
        grad = dispatch("neg", grad)
    dispatch("_foreach_add_", [step], 1)
    sign = dispatch("sign", dispatch("mul", grad, prev))
    sign[dispatch("gt", sign, 0)] = etaplus          # index_put_ with a bool mask
    sign[dispatch("lt", sign, 0)] = etaminus
    sign[dispatch("eq", sign, 0)] = 1
    dispatch("_foreach_mul_", [step_size], [sign])
    dispatch("clamp_", step_size, step_size_min, step_size_max)
    grad = dispatch("clone", grad)
    grad[dispatch("eq", sign, etaminus)] = 0
    dispatch("_foreach_addcmul_", [param], [dispatch("sign", grad)], [step_size], -1)
    dispatch("copy_", prev, grad)
