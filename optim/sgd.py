"""``SGD``: stochastic gradient descent with momentum, dampening, Nesterov, L2 weight decay.

Mirrors ``torch.optim.SGD`` and reproduces its CPU single-tensor for-loop
(``_single_tensor_sgd``) op by op, so fp32/fp64 parameters match PyTorch bit for bit and
fp16/bf16 parameters round exactly where PyTorch's in-place ops round (see ``optim/_kernels.py``).
Like every optimizer here, the step writes the parameters' storage directly (in place, version
bumped): the one place in the project that bypasses the dispatcher, whose ops are for the graph.
fp32 parameters with C-contiguous storage take the fused in-place path of ``optim/_fused32.py``
(same bits, faster); other dtypes and layouts compose the ``_kernels`` recipes one by one.
"""
from __future__ import annotations

import numpy as np

from minigrad.tensor import Tensor

from . import _fused32 as F
from . import _kernels as K
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
        foreach, fused: accepted and stored in the groups; the update always runs the
            single-tensor recipe (PyTorch's ``foreach`` gives identical values on CPU; its
            ``fused`` kernel differs by ~1 ulp and is not emulated: a deliberate difference).
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
        wd = float(_to_float(group["weight_decay"], "weight_decay"))
        momentum = float(group["momentum"])
        dampening = float(group["dampening"])
        nesterov = group["nesterov"]
        maximize = group["maximize"]
        for p in params:
            g = p.grad._data
            buf_t = self.state[p].get("momentum_buffer") if momentum != 0 else None
            dests = (p._data,) if buf_t is None else (p._data, buf_t._data)
            if F.fusable(dests, g):
                buf = F.sgd_step(p._data, g, None if buf_t is None else buf_t._data, lr=lr,
                                 weight_decay=wd, momentum=momentum, dampening=dampening,
                                 nesterov=nesterov, maximize=maximize)
                if buf_t is not None:
                    buf_t._bump()
                elif buf is not None:
                    self.state[p]["momentum_buffer"] = Tensor._make(buf, p.dtype)
                p._bump()
                continue
            if maximize:
                g = K.neg(g)
            if wd != 0:
                g = K.add(g, p._data, wd)
            if momentum != 0:
                st = self.state[p]
                buf_t = st.get("momentum_buffer")
                if buf_t is None:
                    buf = np.array(g, copy=True)
                    st["momentum_buffer"] = Tensor._make(buf, p.dtype)
                else:
                    buf = K.add(K.mul(buf_t._data, momentum), g, 1 - dampening)
                    self._commit(buf_t, buf)
                g = K.add(g, buf, momentum) if nesterov else buf
            self._commit(p, K.add(p._data, g, -lr))
