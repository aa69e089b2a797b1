"""``Adagrad`` (mirrors ``torch.optim.Adagrad``): per-coordinate steps shrinking with the sum
of squared gradients.

Every write goes through a dispatched op. By default (``foreach=None``/``False``) the step is
PyTorch's for-loop ``_single_tensor_adagrad`` (``param.addcdiv_(grad, std, value=-clr)``), run as
the ``_foreach_*`` ops on one-tensor lists; ``foreach=True`` is ``_multi_tensor_adagrad``, which
orders the arithmetic differently: it multiplies the grads by ``-clr`` first
(``_foreach_mul_`` in place when they are already a copy, rounding ``-clr`` to fp16/bf16, else
``_foreach_mul``, unrounded) and then adds ``numerator / std``; in 16-bit this rounds the
product once more than the for-loop, as in PyTorch.

Numerics versus PyTorch 2.13 CPU: bit-exact in fp16/bf16; fp32/fp64 bit-exact except for
``sqrt`` (MKL's in PyTorch, see ``optim/adam.py``; bit-exact with torch's sqrt plugged in).

``fused=True`` runs the ``_fused_adagrad_`` kernel (``minigrad/ops/fused_optim.py``): one
rounding per stored result, bit-exact with torch's fused Adagrad in every float dtype; the
``step`` state is then on the parameter's device, and GradScaler hands the kernel
``grad_scale`` / ``found_inf`` (unscale and skip inside it, as PyTorch).

Not implemented: sparse gradients (minigrad has no sparse tensors).
"""
from __future__ import annotations

from minigrad.dispatch import dispatch

from .adam import _scalar_tensor
from .elementwise import ElementwiseOptimizer, check_lr, no_differentiable

__all__ = ["Adagrad"]


class Adagrad(ElementwiseOptimizer):
    """Adagrad (``torch.optim.Adagrad``).

    Per parameter with a grad::

        step += 1;  g = -grad if maximize else grad
        if weight_decay != 0: g = g.add(p, alpha=weight_decay)
        clr = lr / (1 + (step - 1) * lr_decay)
        sum.addcmul_(g, g, value=1)
        p.addcdiv_(g, sum.sqrt().add_(eps), value=-clr)

    The state is created in the constructor for every parameter (as PyTorch does):
    ``step`` (0-dim float32 Tensor, float64 under a float64 default dtype) and ``sum``
    (``full_like(p, initial_accumulator_value)``).

    Args:
        params: iterable of Tensors or param-group dicts.
        lr: learning rate (default 1e-2); a 1-element Tensor is read as its value.
        lr_decay: learning-rate decay (default 0).
        weight_decay: L2 penalty (default 0).
        initial_accumulator_value: starting value of ``sum`` (default 0).
        eps: added to the denominator (default 1e-10; 0 in fp16 storage, as in PyTorch).
        foreach: True runs the multi-tensor implementation (see the module docstring).
        maximize: maximize the objective (default False).
        differentiable: only False is supported.
        fused: True runs the ``_fused_adagrad_`` kernel (see the module docstring).

    Raises:
        ValueError: "Tensor lr must be 1-element", "Invalid learning rate: {lr}",
            "Invalid lr_decay value: {v}", "Invalid weight_decay value: {v}",
            "Invalid initial_accumulator_value value: {v}", "Invalid epsilon value: {v}".
        RuntimeError: ``fused`` with ``differentiable`` or ``foreach`` (PyTorch's texts).
        NotImplementedError: ``differentiable=True``.
    """

    _group_defaults = (("foreach", None), ("maximize", False), ("differentiable", False),
                       ("fused", None))

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None):
        check_lr(lr)
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError("Invalid initial_accumulator_value value: "
                             f"{initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value,
                    "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
            self._step_supports_amp_scaling = True
        no_differentiable(differentiable)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p, bool(group["fused"]))

    def _init_state(self, p, fused=None):
        st = self.state[p]
        fused = self.defaults["fused"] if fused is None else fused
        st["step"] = _scalar_tensor(0.0, fused=bool(fused), device=p.device if fused else None)
        st["sum"] = dispatch("full_like", p, self.defaults["initial_accumulator_value"])

    def _update_group(self, group, params):
        for p in params:
            if len(self.state[p]) == 0:
                self._init_state(p, bool(group["fused"]))
        if self._implementation(group, params) == "fused":
            st = [self.state[p] for p in params]
            for idx in self._by_dtype(params):
                _fused_adagrad([params[i] for i in idx], [params[i].grad for i in idx],
                               [st[i]["sum"] for i in idx], [st[i]["step"] for i in idx],
                               lr=group["lr"], lr_decay=float(group["lr_decay"]),
                               eps=float(group["eps"]),
                               weight_decay=float(group["weight_decay"]),
                               maximize=group["maximize"],
                               grad_scale=getattr(self, "grad_scale", None),
                               found_inf=getattr(self, "found_inf", None))
            return
        self._run(group, params, ("sum", "step"), _adagrad, lr_decay=float(group["lr_decay"]),
                  eps=float(group["eps"]), weight_decay=float(group["weight_decay"]),
                  maximize=group["maximize"])


def _fused_adagrad(params, grads, sums, steps, *, lr, lr_decay, eps, weight_decay, maximize,
                   grad_scale=None, found_inf=None):
    """``torch.optim.adagrad._fused_adagrad`` for one dtype: count the steps, run the dispatched
    ``_fused_adagrad_`` kernel (a Tensor ``lr`` is passed as is: its ``.tensor_lr`` overload),
    and take the step back where ``found_inf``."""
    dispatch("_foreach_add_", steps, 1)
    dispatch("_fused_adagrad_", params, grads, sums, steps, lr=lr, lr_decay=lr_decay,
             weight_decay=weight_decay, eps=eps, maximize=maximize, grad_scale=grad_scale,
             found_inf=found_inf)
    if found_inf is not None:
        dispatch("_foreach_sub_", steps, [found_inf] * len(steps))


def _adagrad(params, grads, sums, steps, *, lr, lr_decay, eps, weight_decay, maximize, for_loop,
             lr_t=None):
    """One Adagrad update of same-dtype ``params`` by dispatched ops, in the op order of
    ``_single_tensor_adagrad`` (``for_loop=True``) or ``_multi_tensor_adagrad``. ``lr_t``: a
    Tensor lr, whose for-loop ``clr`` is a tensor division (see ``elementwise.lr_tensor``)."""
    dispatch("_foreach_add_", steps, 1)
    if maximize:
        grads = dispatch("_foreach_neg", grads)
    if weight_decay != 0:
        grads = dispatch("_foreach_add", grads, params, alpha=weight_decay)
    if for_loop and lr_t is not None:
        minus_clr = [-(lr_t / (1 + (s.item() - 1) * lr_decay)).item() for s in steps]
    else:
        minus_clr = [-lr / (1 + (s.item() - 1) * lr_decay) for s in steps]
    dispatch("_foreach_addcmul_", sums, grads, grads, 1)
    std = dispatch("_foreach_sqrt", sums)
    dispatch("_foreach_add_", std, eps)
    if for_loop:
        dispatch("_foreach_addcdiv_", params, grads, std, minus_clr)
        return
    if lr_t is not None:    # torch: -lr / (...) are 0-dim tensors, multiplied in unrounded
        minus_clr = [(-lr_t / (1 + (s.item() - 1) * lr_decay)).item() for s in steps]
        numerator = dispatch("_foreach_mul", grads, minus_clr)
    elif weight_decay != 0 or maximize:      # grads is already a copy: scaled in place
        dispatch("_foreach_mul_", grads, minus_clr)
        numerator = grads
    else:
        numerator = dispatch("_foreach_mul", grads, minus_clr)
    dispatch("_foreach_addcdiv_", params, numerator, std)
