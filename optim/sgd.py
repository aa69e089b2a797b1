"""``SGD``: stochastic gradient descent with momentum, dampening, Nesterov, L2 weight decay.

Mirrors ``torch.optim.SGD``. Every write goes through a dispatched op, chosen as PyTorch 2.13
chooses on CPU:

- default (``foreach=None``/``False``, ``fused=None``/``False``): PyTorch's for-loop
  (``_single_tensor_sgd``), one parameter at a time, as the ``_foreach_*`` ops on one-tensor
  lists (on CPU those kernels are a loop of the per-tensor kernels ``add_``/``mul_``..., same
  bits; ``mul_(number)`` on 16-bit tensors is ``_foreach_mul_`` with the number as a 0-dim
  tensor, the overload that leaves it unrounded, on fp32/fp64 tensors the Scalar overload, which
  rounds nothing there either; the one-tensor lists are joined into one list per fp32/fp64
  dtype, see ``Optimizer._for_loop_chunks``; a mode sees ``_foreach_add_`` where PyTorch's sees ``add_``: a
  deliberate difference). Bit-exact in fp32/fp64/fp16/bf16.
- ``foreach=True``: ``_multi_tensor_sgd``, the ops over all same-dtype params at once.
  Bit-exact with PyTorch's foreach, which differs from its for-loop in 16-bit: the in-place
  ``_foreach_mul_(bufs, momentum)`` rounds ``momentum`` to fp16/bf16 first (measured).
- ``fused=True``: the ``_fused_sgd_`` kernel (``minigrad/ops/fused_optim.py``), which rounds
  once per result and so differs from the for-loop by about an ulp, as in PyTorch.
"""
from __future__ import annotations

from minigrad import dtypes as _dt
from minigrad.dispatch import dispatch
from minigrad.tensor import Tensor

from .optimizer import Optimizer

__all__ = ["SGD"]


def _to_float(x, name):
    if isinstance(x, Tensor):
        if x.numel() != 1:
            raise ValueError(f"Tensor {name} must be 1-element")
        return x.item()
    return x


class SGD(Optimizer):
    """Stochastic gradient descent, optionally with momentum (``torch.optim.SGD``).

    Per parameter with a grad (params whose ``.grad`` is None are skipped entirely)::

        g = -grad if maximize else grad
        if weight_decay != 0: g = g.add(p, alpha=weight_decay)            # coupled L2
        if momentum != 0:
            buf = g.clone() on the first step (no dampening), else
            buf.mul_(momentum).add_(g, alpha=1 - dampening)
            g = g.add(buf, alpha=momentum) if nesterov else buf
        p.add_(g, alpha=-lr)

    Args:
        params: iterable of Tensors or param-group dicts.
        lr: learning rate (default 1e-3).
        momentum: momentum factor (default 0).
        dampening: dampening for momentum (default 0).
        weight_decay: L2 penalty (default 0).
        nesterov: Nesterov momentum (default False).
        maximize: maximize the objective (default False).
        foreach: True runs the multi-tensor implementation (see the module docstring).
        fused: True runs the ``_fused_sgd_`` kernel; GradScaler then hands it ``grad_scale`` /
            ``found_inf`` (``_step_supports_amp_scaling``).
        differentiable: only False is supported.

    State: ``state[p]["momentum_buffer"]`` (a Tensor of the param's dtype and shape) when
    momentum != 0.

    Raises:
        ValueError: "Invalid learning rate: {lr}", "Invalid momentum value: {m}",
            "Invalid weight_decay value: {wd}", "Nesterov momentum requires a momentum and zero
            dampening", "Tensor lr must be 1-element".
        RuntimeError: ``fused`` with ``differentiable`` or ``foreach``.
        NotImplementedError: ``differentiable=True``.
        RuntimeError (from ``step``): a grad whose shape/dtype differs from its param; params and
            state are then left untouched.
    """

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False,
                 *, maximize=False, foreach=None, differentiable=False, fused=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                    "foreach": foreach, "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        if differentiable:
            raise NotImplementedError("minigrad.optim does not support differentiable=True "
                                      "(the step is not recorded in the autograd graph)")
        super().__init__(params, defaults)
        if fused:
            self._step_supports_amp_scaling = True

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("differentiable", False)
            group.setdefault("fused", False)

    def step(self, closure=None):
        """One SGD step over every group (``SGD.step``).

        Args:
            closure: optional callable re-evaluating the model; run with grad enabled and its
                result returned.

        Raises:
            RuntimeError / TypeError: a bad grad (checked for all groups before any update).
        """
        return self._step_groups(closure)

    def _update_group(self, group, params):
        lr = float(_to_float(group["lr"], "lr"))
        hp = dict(lr=lr, weight_decay=float(_to_float(group["weight_decay"], "weight_decay")),
                  momentum=float(group["momentum"]), dampening=float(group["dampening"]),
                  nesterov=group["nesterov"], maximize=group["maximize"])
        momentum = hp["momentum"]
        grads = [p.grad for p in params]
        states = [self.state[p] for p in params] if momentum != 0 else None
        bufs = [st.get("momentum_buffer") for st in states] if momentum != 0 else \
            [None] * len(params)
        how = self._implementation(group, params)
        if how == "fused":
            _fused_sgd(params, grads, bufs, grad_scale=getattr(self, "grad_scale", None),
                       found_inf=getattr(self, "found_inf", None), **hp)
        else:
            for_loop = how != "foreach"
            chunks = self._for_loop_chunks(params) if for_loop else self._by_dtype(params)
            for idx in chunks:
                if len(idx) == len(params):     # one chunk of them all: the lists as they are
                    _foreach_sgd(params, grads, bufs, for_loop=for_loop, **hp)
                    continue
                sub = [bufs[i] for i in idx]
                _foreach_sgd([params[i] for i in idx], [grads[i] for i in idx], sub,
                             for_loop=for_loop, **hp)
                for i, b in zip(idx, sub):
                    bufs[i] = b
        if momentum != 0:
            for st, b in zip(states, bufs):
                st["momentum_buffer"] = b


def _mul_(tensors, value, for_loop):
    """``t.mul_(value)`` of every tensor: in the for-loop on 16-bit tensors ``_foreach_mul_``
    with ``value`` as a 0-dim float64 tensor, which is what ``Tensor.mul_(number)`` runs in
    PyTorch (the number is wrapped, ``aten::mul_.Tensor``, and used unrounded); else
    ``_foreach_mul_`` with the number, which rounds it to a 16-bit dtype first, as torch's does
    (for fp32/fp64 tensors the two overloads give the same bits: nothing is rounded first)."""
    if for_loop and tensors[0].dtype.itemsize < 4:
        dispatch("_foreach_mul_", tensors, dispatch("full", (), value, dtype=_dt.float64))
    else:
        dispatch("_foreach_mul_", tensors, value)


def _foreach_sgd(params, grads, bufs, *, lr, weight_decay, momentum, dampening, nesterov,
                 maximize, for_loop):
    """One SGD update of same-dtype ``params`` by dispatched ops, in the op order of
    ``torch.optim.sgd._multi_tensor_sgd`` (``for_loop=False``) or ``_single_tensor_sgd`` (one
    tensor, ``for_loop=True``: ``mul_`` instead of ``_foreach_mul_``, whose scalar rounding
    differs in 16-bit). ``bufs`` (momentum buffers, None where missing) is updated in place:
    new buffers are put in."""
    if maximize:
        grads = dispatch("_foreach_neg", grads)
    if weight_decay != 0:
        grads = dispatch("_foreach_add", grads, params, alpha=weight_decay)
    if momentum != 0:
        if all(b is not None for b in bufs):
            _mul_(bufs, momentum, for_loop)
            dispatch("_foreach_add_", bufs, grads, alpha=1 - dampening)
        else:       # torch's multi-tensor SGD falls back to per-tensor ops here
            for i, g in enumerate(grads):
                if bufs[i] is None:
                    bufs[i] = dispatch("clone", g).detach()
                else:
                    _mul_([bufs[i]], momentum, True)
                    dispatch("_foreach_add_", [bufs[i]], [g], alpha=1 - dampening)
        if nesterov:
            grads = dispatch("_foreach_add", grads, bufs, alpha=momentum)
        else:
            grads = bufs
    dispatch("_foreach_add_", params, grads, alpha=-lr)


def _fused_sgd(params, grads, bufs, *, lr, weight_decay, momentum, dampening, nesterov,
               maximize, grad_scale=None, found_inf=None):
    """``torch.optim.sgd._fused_sgd``: one dispatched ``_fused_sgd_`` per dtype; the first
    momentum step allocates every buffer (``zeros_like``; PyTorch: ``empty_like``) and the kernel
    fills them."""
    is_first_step = momentum != 0 and all(b is None for b in bufs)
    if is_first_step:
        for i, g in enumerate(grads):
            bufs[i] = dispatch("zeros_like", g)
    by_dtype = {}
    for i, p in enumerate(params):
        by_dtype.setdefault(p.dtype, []).append(i)
    for idx in by_dtype.values():
        dispatch("_fused_sgd_", [params[i] for i in idx], [grads[i] for i in idx],
                 [] if momentum == 0 else [bufs[i] for i in idx], weight_decay=weight_decay,
                 momentum=momentum, lr=lr, dampening=dampening, nesterov=nesterov,
                 maximize=maximize, is_first_step=is_first_step, grad_scale=grad_scale,
                 found_inf=found_inf)
