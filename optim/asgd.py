"""``ASGD`` (mirrors ``torch.optim.ASGD``): SGD with a decaying step size ``eta`` and, from
step ``t0`` on, a running (Polyak) average ``ax`` of the iterates.

Every write goes through a dispatched op. By default (``foreach=None``/``False``) the step is
PyTorch's for-loop ``_single_tensor_asgd``, one parameter at a time::

    p.mul_(1 - lambd*eta);  p.add_(g, alpha=-eta)
    ax.add_(p.sub(ax).mul_(mu)) if mu != 1 else ax.copy_(p)
    eta = lr / (1 + lambd*lr*step)**alpha;  mu = 1 / max(1, step - t0)   (Python floats)

``foreach=True`` is ``_multi_tensor_asgd``, a different arithmetic, as in PyTorch::

    p.addcmul_(g + lambd*p, eta, value=-1);  ax.addcmul_(p - ax, mu)      (always)
    eta = (1 + (lambd*lr)*step) ** alpha).reciprocal() * lr               (0-dim tensor ops)

There the 0-dim ``eta``/``mu`` tensors (float32) enter ``addcmul_`` as tensors: for a 16-bit or
float64 parameter minigrad casts them to the parameter's dtype first (``_to_copy``), as
PyTorch's TensorIterator does with a 0-dim operand of another dtype; ``_foreach_copy_`` is run
as ``copy_`` per tensor (minigrad has no ``_foreach_copy_``).

Numerics versus PyTorch 2.13 CPU: bit-exact in every float dtype (tested); the foreach path's
``eta`` is a float32 ``pow``, which NumPy and PyTorch both take from the C library here.
"""
from __future__ import annotations

from minigrad import dtypes as _dt
from minigrad.dispatch import dispatch

from .adam import _scalar_tensor
from .elementwise import ElementwiseOptimizer, check_lr, no_differentiable
from .sgd import _mul_, _to_float

__all__ = ["ASGD"]


class ASGD(ElementwiseOptimizer):
    """Averaged SGD (``torch.optim.ASGD``).

    Args:
        params: iterable of Tensors or param-group dicts.
        lr: learning rate (default 1e-2); a 1-element Tensor is read as its value.
        lambd: decay term (default 1e-4).
        alpha: power for the eta update (default 0.75).
        t0: step at which averaging starts (default 1e6).
        weight_decay: L2 penalty (default 0).
        foreach: True runs the multi-tensor implementation (see the module docstring).
        maximize: maximize the objective (default False).
        differentiable: only False is supported.
        capturable: accepted and stored (it only changes where the scalars live in PyTorch).

    State per param: ``step``, ``eta`` (starts at lr), ``mu`` (starts at 1), all 0-dim
    scalar-dtype Tensors, and ``ax`` (the average, param's dtype).

    Raises:
        ValueError: "Tensor lr must be 1-element", "Invalid learning rate: {lr}",
            "Invalid weight_decay value: {wd}".
        NotImplementedError: ``differentiable=True``.
    """

    _scalar_state = ("step", "eta", "mu")
    _group_defaults = (("foreach", None), ("maximize", False), ("differentiable", False),
                       ("capturable", False))

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        check_lr(lr)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        no_differentiable(differentiable)
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def _update_group(self, group, params):
        lr = _to_float(group["lr"], "lr")
        self._init_states(params, ("ax",), scalars={"step": 0.0, "eta": lr, "mu": 1.0})
        self._run(group, params, ("ax", "mu", "eta", "step"), _asgd,
                  lambd=float(group["lambd"]), alpha=float(group["alpha"]),
                  t0=float(group["t0"]), weight_decay=float(group["weight_decay"]),
                  maximize=group["maximize"])


def _asgd(params, grads, axs, mus, etas, steps, *, for_loop, lr_t=None, **hp):
    """One ASGD update of same-dtype ``params``: ``_single_tensor_asgd`` one parameter at a
    time (each has its own eta and mu), or ``_multi_tensor_asgd`` over the list."""
    if not for_loop:
        _foreach_asgd(params, grads, axs, mus, etas, steps, **hp)
        return
    for i, p in enumerate(params):
        _single_asgd(p, grads[i], axs[i], mus[i], etas[i], steps[i], lr_t=lr_t, **hp)


def _single_asgd(param, grad, ax, mu, eta, step, *, lr, lambd, alpha, t0, weight_decay,
                 maximize, lr_t=None):
    """``_single_tensor_asgd`` for one parameter, by dispatched ops on one-tensor lists;
    with a Tensor lr ``lr_t`` the new eta is computed by 0-dim tensor ops, as in PyTorch."""
    grads = dispatch("_foreach_neg", [grad]) if maximize else [grad]
    dispatch("_foreach_add_", [step], 1)
    if weight_decay != 0:
        grads = dispatch("_foreach_add", grads, [param], alpha=weight_decay)
    eta_value = eta.item()
    _mul_([param], 1 - lambd * eta_value, True)
    dispatch("_foreach_add_", [param], grads, alpha=-eta_value)
    if mu.item() != 1:
        diff = dispatch("sub", param, ax)
        dispatch("_foreach_mul_", [diff], mu)      # mul_ by a 0-dim tensor: unrounded
        dispatch("_foreach_add_", [ax], [diff])
    else:
        dispatch("copy_", ax, param)
    s = step.item()
    if lr_t is not None:
        dispatch("copy_", eta, lr_t / ((1 + lambd * lr_t * s) ** alpha))
    else:
        dispatch("copy_", eta, _scalar_tensor(lr / ((1 + lambd * lr * s) ** alpha)))
    dispatch("copy_", mu, _scalar_tensor(1 / max(1, s - t0)))


def _as_dtype(scalars, dtype):
    """The 0-dim tensors ``scalars`` in ``dtype`` (TensorIterator's cast of a 0-dim operand
    to the common dtype), unchanged when they already have it."""
    return [s if s.dtype is dtype else dispatch("_to_copy", s, dtype=dtype) for s in scalars]


def _foreach_asgd(params, grads, axs, mus, etas, steps, *, lr, lambd, alpha, t0, weight_decay,
                  maximize):
    """``_multi_tensor_asgd`` for same-dtype ``params``, by dispatched ops."""
    dtype = params[0].dtype
    if maximize:
        grads = dispatch("_foreach_neg", grads)
    dispatch("_foreach_add_", steps, 1)
    if weight_decay != 0:
        inter = dispatch("_foreach_add", grads, params, alpha=weight_decay)
        dispatch("_foreach_add_", inter, params, alpha=lambd)
    else:
        inter = dispatch("_foreach_add", grads, params, alpha=lambd)
    dispatch("_foreach_addcmul_", params, inter, _as_dtype(etas, dtype), -1)
    inter = [dispatch("sub", p, a) for p, a in zip(params, axs)]
    dispatch("_foreach_addcmul_", axs, inter, _as_dtype(mus, dtype))
    for eta, mu, step in zip(etas, mus, steps):
        base = dispatch("add", dispatch("mul", step, lambd * lr), 1)
        new_eta = dispatch("mul", dispatch("reciprocal",
                                           dispatch("pow.Tensor_Scalar", base, alpha)), lr)
        dispatch("copy_", eta, new_eta)
        new_mu = 1 / max(1, step.item() - t0)
        dispatch("copy_", mu, dispatch("full", (), new_mu, dtype=_dt.get_default_dtype()))
