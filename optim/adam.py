"""``Adam`` and ``AdamW`` (mirror ``torch.optim.Adam`` / ``torch.optim.AdamW``).

Reproduces PyTorch's CPU single-tensor for-loop (``_single_tensor_adam``) op by op; each of
PyTorch's in-place ops rounds once into the parameter's dtype (see ``optim/_kernels.py``).
Numerics versus PyTorch 2.13 CPU:

- fp16/bf16 parameters: bit-exact.
- fp32/fp64 parameters: bit-exact except for ``sqrt``. PyTorch's fp32/fp64 ``sqrt`` goes through
  MKL's vector math, which is not correctly rounded (~1% of fp32 values are 1 ulp off the IEEE
  result); we use the correctly rounded NumPy sqrt, so ``denom`` can differ by 1 ulp and one
  step's parameter by at most 4 ulp of max(|p_old|, |p_new|, |p_new - p_old|) (measured and
  tested per step; over many steps these differences add up, and feed back only through L2
  weight decay). With PyTorch's sqrt plugged in (the module attribute ``optim.adam._sqrt``)
  every parameter and state value is bit-exact over many steps (tested).

Like every optimizer here, the step writes parameters and state in place on their storage
arrays (version bumped): the one place that bypasses the dispatcher, whose ops build the graph.
fp32 parameters whose storage and state are C-contiguous take the fused in-place path of
``optim/_fused32.py`` (same bits, faster; it calls ``_sqrt`` too, so the hook below still
applies); other dtypes and layouts compose the ``_kernels`` recipes one by one.
"""
from __future__ import annotations

import numpy as np

from minigrad import dtypes as _dt
from minigrad.tensor import Tensor

from . import _fused32 as F
from . import _kernels as K
from .optimizer import Optimizer
from .sgd import _to_float

__all__ = ["Adam", "AdamW"]

_sqrt = K.sqrt  # module-level hook: tests may swap in PyTorch's own sqrt to prove bit-exactness


class Adam(Optimizer):
    """Adam (``torch.optim.Adam``), with L2 or decoupled weight decay and AMSGrad.

    Per parameter with a grad (params whose ``.grad`` is None are skipped entirely)::

        g = -grad if maximize else grad;  step += 1
        if weight_decay != 0:
            p.mul_(1 - lr*wd) if decoupled_weight_decay else g = g.add(p, alpha=wd)
        m.lerp_(g, 1 - beta1);  v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
        bc1 = 1 - beta1**step;  bc2 = 1 - beta2**step     (Python floats)
        if amsgrad: vmax = maximum(vmax, v), used instead of v below
        denom = (v.sqrt() / bc2**0.5).add_(eps)
        p.addcdiv_(m, denom, value=-lr/bc1)

    Args:
        params: iterable of Tensors or param-group dicts.
        lr: learning rate (default 1e-3); a 1-element Tensor is read as its value.
        betas: (beta1, beta2), both floats (default (0.9, 0.999)).
        eps: added to the denominator (default 1e-8). For fp16 parameters it is rounded to
            fp16 like any add scalar in PyTorch (1e-8 becomes 0), exactly as PyTorch does.
        weight_decay: default 0.
        amsgrad: keep the running max of v (default False).
        maximize: default False.
        decoupled_weight_decay: AdamW-style decay (default False).
        foreach, capturable, fused: accepted and stored; the single-tensor recipe always runs
            (capturable/fused only change where ``step`` lives in PyTorch; its fused kernel
            differs by ~1 ulp and is not emulated: a deliberate difference).
        differentiable: only False is supported.

    State per param: ``step`` (0-dim Tensor, float32, or float64 when the default dtype is
    float64), ``exp_avg``, ``exp_avg_sq`` and with amsgrad ``max_exp_avg_sq`` (param's dtype).

    Raises:
        ValueError: "Invalid learning rate: {lr}", "Invalid epsilon value: {eps}",
            "Invalid beta parameter at index 0: {b}", "Invalid beta parameter at index 1: {b}",
            "Invalid weight_decay value: {wd}", "betas must be either both floats or both
            Tensors", "Tensor lr must be 1-element".
        RuntimeError: ``fused`` with ``differentiable`` or ``foreach``.
        NotImplementedError: ``differentiable=True`` or Tensor betas.
        RuntimeError (from ``step``): a grad whose shape/dtype differs from its param; params and
            state are then left untouched.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        if isinstance(lr, Tensor):
            if foreach and not capturable:
                raise ValueError("lr as a Tensor is not supported for capturable=False and "
                                 "foreach=True")
            if lr.numel() != 1:
                raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not ((isinstance(betas[0], float) and isinstance(betas[1], float)) or
                (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
            raise ValueError("betas must be either both floats or both Tensors")
        if isinstance(betas[0], Tensor):
            raise NotImplementedError("minigrad.optim.Adam takes float betas only")
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
                    "capturable": capturable, "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        if differentiable and not fused:
            raise NotImplementedError("minigrad.optim does not support differentiable=True "
                                      "(the step is not recorded in the autograd graph)")
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
            group.setdefault("fused", None)
            for p in group["params"]:
                st = self.state.get(p, [])
                if len(st) != 0 and not isinstance(st["step"], Tensor):
                    st["step"] = _scalar_tensor(float(st["step"]))

    def step(self, closure=None):
        """One Adam step over every group (``Adam.step``).

        Args:
            closure: optional callable re-evaluating the model; run with grad enabled and its
                result returned.

        Raises:
            RuntimeError / TypeError: a bad grad (checked for all groups before any update).
        """
        return self._step_groups(closure)

    def _update_group(self, group, params):
        beta1, beta2 = (float(b) for b in group["betas"])
        lr = float(_to_float(group["lr"], "lr"))
        wd = float(group["weight_decay"])
        eps = float(group["eps"])
        amsgrad = group["amsgrad"]
        maximize = group["maximize"]
        decoupled = group["decoupled_weight_decay"]
        for p in params:
            st = self.state[p]
            if len(st) == 0:
                st["step"] = _scalar_tensor(0.0)
                st["exp_avg"] = Tensor._make(np.zeros_like(p._data), p.dtype)
                st["exp_avg_sq"] = Tensor._make(np.zeros_like(p._data), p.dtype)
                if amsgrad:
                    st["max_exp_avg_sq"] = Tensor._make(np.zeros_like(p._data), p.dtype)
            g = p.grad._data
            step_t = st["step"]
            sd = step_t._data
            self._commit(step_t, (sd + sd.dtype.type(1)).astype(sd.dtype))
            step = float(step_t._data)
            bc1 = 1 - beta1 ** step
            bc2 = 1 - beta2 ** step
            step_size = lr / bc1
            bc2_sqrt = bc2 ** 0.5
            vmax_t = st["max_exp_avg_sq"] if amsgrad else None
            dests = (p._data, st["exp_avg"]._data, st["exp_avg_sq"]._data)
            if vmax_t is not None:
                dests += (vmax_t._data,)
            if F.fusable(dests, g):
                F.adam_step(p._data, g, *dests[1:3], None if vmax_t is None else vmax_t._data,
                            lr=lr,
                            beta1=beta1, beta2=beta2, eps=eps, weight_decay=wd,
                            decoupled=decoupled, maximize=maximize, bc2_sqrt=bc2_sqrt,
                            step_size=step_size, sqrt=_sqrt)
                for t in (p, st["exp_avg"], st["exp_avg_sq"], vmax_t):
                    if t is not None:
                        t._bump()
                continue
            if maximize:
                g = K.neg(g)
            param = p._data
            if wd != 0:
                if decoupled:
                    param = K.mul(param, 1 - lr * wd)
                else:
                    g = K.add(g, param, wd)
            m = K.lerp(st["exp_avg"]._data, g, 1 - beta1)
            v = K.addcmul(K.mul(st["exp_avg_sq"]._data, beta2), g, g, 1 - beta2)
            if amsgrad:
                vmax = K.maximum(st["max_exp_avg_sq"]._data, v)
                self._commit(st["max_exp_avg_sq"], vmax)
                denom = K.add_scalar(K.div_scalar(_sqrt(vmax), bc2_sqrt), eps)
            else:
                denom = K.add_scalar(K.div_scalar(_sqrt(v), bc2_sqrt), eps)
            self._commit(st["exp_avg"], m)
            self._commit(st["exp_avg_sq"], v)
            self._commit(p, K.addcdiv(param, m, denom, -step_size))


class AdamW(Adam):
    """AdamW (``torch.optim.AdamW``): ``Adam`` with ``decoupled_weight_decay=True`` and
    ``weight_decay=1e-2`` by default; same arguments, state, numerics and errors as ``Adam``."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True


def _scalar_tensor(value: float) -> Tensor:
    """A 0-dim step counter: float64 when the default dtype is float64, else float32."""
    d = _dt.float64 if _dt.get_default_dtype() is _dt.float64 else _dt.float32
    return Tensor._make(np.array(value, dtype=d.np), d)
