"""``ElementwiseOptimizer``: the shared frame of the optimizers whose step is one elementwise
update per parameter (RMSprop, Adagrad, Adamax, NAdam, RAdam, Adadelta, ASGD, Rprop).

Each such optimizer is a class (constructor checks, defaults, state layout) plus one
functional update over lists of same-dtype tensors (``_rmsprop(params, grads, ..., for_loop)``)
written with dispatched ops in PyTorch's op order. This module holds what they share: the
``__setstate__`` defaults, ``step``, the state creation, and the chunking that runs the
functional as PyTorch's for-loop (``for_loop=True``: per parameter, or per dtype for fp32/fp64
where the two agree bit for bit, see ``Optimizer._for_loop_chunks``) or its multi-tensor path
(``foreach=True``: one call per dtype). Also the constructor checks every optimizer repeats.
"""
from __future__ import annotations

from minigrad.dispatch import dispatch
from minigrad.tensor import Tensor

from .adam import _scalar_tensor
from .optimizer import Optimizer
from .sgd import _mul_, _to_float

__all__ = ["ElementwiseOptimizer"]


class ElementwiseOptimizer(Optimizer):
    """Base class: ``step`` runs ``_update_group(group, params)`` over every group (params with
    a grad), after the closure and the grad checks of ``Optimizer._step_groups``.

    Class attributes a subclass sets:
        _group_defaults: ``(key, default)`` pairs filled into groups by ``__setstate__`` (old
            checkpoints), as PyTorch's ``__setstate__`` does.
        _scalar_state: the 0-dim state entries (converted from Python numbers by
            ``__setstate__``, exempt from the shape check).
    """

    _group_defaults: tuple = ()

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            for k, v in self._group_defaults:
                group.setdefault(k, v)
        d = _scalar_tensor(0.0).dtype
        for group in self.param_groups:
            for p in group["params"]:
                st = self.state.get(p, {})
                for k in self._scalar_state:
                    if k in st and not isinstance(st[k], Tensor):
                        st[k] = dispatch("full", (), float(st[k]), dtype=d)

    def step(self, closure=None):
        """One optimization step over every param group (``<Optimizer>.step``).

        Args:
            closure: optional callable re-evaluating the model; run with grad enabled and its
                result returned.

        Raises:
            RuntimeError / TypeError: a bad grad (checked for all groups before any update).
        """
        return self._step_groups(closure)

    def _init_states(self, params, zeros, scalars=None):
        """Create the state of every param that has none: the 0-dim ``scalars`` (name -> start
        value; default ``{"step": 0.0}``) first, then ``zeros_like(p)`` for each name in
        ``zeros`` (PyTorch's key order)."""
        scalars = {"step": 0.0} if scalars is None else scalars
        for p in params:
            st = self.state[p]
            if len(st) == 0:
                for k, v in scalars.items():
                    st[k] = _scalar_tensor(v)
                for k in zeros:
                    st[k] = dispatch("zeros_like", p)

    def _run(self, group, params, keys, fn, **hp):
        """Run ``fn(params, grads, *state_lists, for_loop=..., lr_t=..., **hp)`` per chunk.

        ``keys`` name the state lists in ``fn``'s order (None passes None: an unused buffer).
        The chunks are the for-loop's (``Optimizer._for_loop_chunks``) or, with
        ``foreach=True``, one per dtype (``Optimizer._by_dtype``). ``lr`` is given as a float;
        ``lr_t`` is the group's lr when it is a Tensor (see ``lr_tensor``)."""
        lists = [[p.grad for p in params]]
        lists += [None if k is None else [self.state[p][k] for p in params] for k in keys]
        for_loop = self._implementation(group, params) == "for_loop"
        chunks = self._for_loop_chunks(params) if for_loop else self._by_dtype(params)
        for idx in chunks:
            fn([params[i] for i in idx],
               *[None if lst is None else [lst[i] for i in idx] for lst in lists],
               for_loop=for_loop, lr=float(_to_float(group["lr"], "lr")),
               lr_t=lr_tensor(group), **hp)


def lr_tensor(group):
    """The group's lr when it is a Tensor, else None.

    PyTorch keeps a 0-dim Tensor lr a Tensor (``_to_scalar``), so its scalar arithmetic on it
    (``lr / bias_correction``, ``1 - lr * weight_decay``...) runs as 0-dim tensor ops in the
    lr's dtype; the optimizers that do such arithmetic repeat it on this Tensor (a float lr is
    used as a Python float, as in PyTorch)."""
    lr = group["lr"]
    return lr if isinstance(lr, Tensor) else None


def check_lr(lr) -> None:
    """PyTorch's first two constructor checks of every optimizer.

    Raises:
        ValueError: "Tensor lr must be 1-element", "Invalid learning rate: {lr}".
    """
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def check_betas(lr, betas, eps, weight_decay) -> None:
    """The constructor checks shared by Adam's relatives (Adamax, NAdam, RAdam).

    Raises:
        ValueError: PyTorch's texts for lr, eps, betas[0], betas[1] and weight_decay.
    """
    check_lr(lr)
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def no_differentiable(differentiable) -> None:
    """minigrad's optimizers do not record their step in the autograd graph.

    Raises:
        NotImplementedError: ``differentiable=True`` (PyTorch supports it; minigrad does not).
    """
    if differentiable:
        raise NotImplementedError("minigrad.optim does not support differentiable=True "
                                  "(the step is not recorded in the autograd graph)")


def adam_prologue(params, grads, steps, *, lr, lr_t, weight_decay, decoupled, maximize,
                  for_loop):
    """The first ops of Adam's relatives with optional decoupled decay (NAdam, RAdam), in
    PyTorch's order: negate the grads if maximizing, count the step, then either
    ``p.mul_(1 - lr*wd)`` (decoupled; with a Tensor lr ``lr_t`` that factor is a 0-dim tensor,
    used unrounded in both paths) or ``g = g.add(p, alpha=wd)``. Returns the grads to use."""
    if maximize:
        grads = dispatch("_foreach_neg", grads)
    dispatch("_foreach_add_", steps, 1)
    if weight_decay != 0:
        if decoupled and lr_t is not None:
            _mul_(params, (1 - lr_t * weight_decay).item(), True)
        elif decoupled:
            _mul_(params, 1 - lr * weight_decay, for_loop)
        else:
            grads = dispatch("_foreach_add", grads, params, alpha=weight_decay)
    return grads
