"""``Adam`` and ``AdamW`` (mirror ``torch.optim.Adam`` / ``torch.optim.AdamW``).

Every write goes through a dispatched op, chosen by ``foreach=`` / ``fused=`` as PyTorch 2.13
chooses on CPU: by default the for-loop (``_single_tensor_adam``), which minigrad runs as
the ``_foreach_*`` ops on one-tensor lists (``mul_(number)`` as ``_foreach_mul_`` with a 0-dim
tensor, see ``optim/sgd.py``) (a ``_foreach_*`` CPU kernel is a loop of
the per-tensor kernel, so the bits are those of ``lerp_``/``addcmul_``...); ``foreach=True`` the
ops over all same-dtype params at once (``_multi_tensor_adam``; bit-exact with PyTorch's, which
differs from the for-loop in 16-bit: ``_foreach_mul_`` rounds ``beta2`` and AdamW's
``1 - lr*wd`` to fp16/bf16 first); ``fused=True`` the
``_fused_adam_`` / ``_fused_adamw_`` kernels of ``minigrad/ops/fused_optim.py`` (one rounding per
result, so about an ulp from the for-loop, as in PyTorch; bit-exact with PyTorch's fused
kernels in fp32, fp64, fp16 and bf16, their sqrt being correctly rounded). Numerics of the
for-loop / foreach paths versus PyTorch 2.13 CPU (each op rounds as
``minigrad/ops/foreach_kernels.py`` states):

- fp16/bf16 parameters: bit-exact.
- fp32/fp64 parameters: bit-exact except for ``sqrt``. PyTorch's fp32/fp64 ``sqrt`` goes through
  MKL's vector math, which is not correctly rounded (~1% of fp32 values are 1 ulp off the IEEE
  result); we use the correctly rounded NumPy sqrt, so ``denom`` can differ by 1 ulp and one
  step's parameter by at most 4 ulp of max(|p_old|, |p_new|, |p_new - p_old|) (measured and
  tested per step; over many steps these differences add up, and feed back only through L2
  weight decay). With PyTorch's sqrt plugged in (the module attribute ``optim.adam._sqrt``)
  every parameter and state value is bit-exact over many steps (tested).

The module attribute ``_sqrt`` is a test hook: when replaced (by torch's own sqrt), the step
runs the ``_foreach_sqrt`` kernel with it (``foreach_kernels.using_sqrt``).
"""
from __future__ import annotations

import contextlib

from minigrad import dtypes as _dt
from minigrad.dispatch import dispatch
from minigrad.ops import foreach_kernels as K
from minigrad.tensor import Tensor

from .optimizer import Optimizer
from .sgd import _mul_, _to_float

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
        foreach: True runs the multi-tensor implementation (see the module docstring).
        fused: True runs the ``_fused_adam_`` / ``_fused_adamw_`` kernel (``step`` is then
            float32 even under a float64 default dtype, as in PyTorch); GradScaler hands it
            ``grad_scale`` / ``found_inf``.
        capturable: accepted and stored (it only changes where ``step`` lives in PyTorch).
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
            self._step_supports_amp_scaling = True
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
        hp = dict(lr=float(_to_float(group["lr"], "lr")), beta1=beta1, beta2=beta2,
                  weight_decay=float(group["weight_decay"]), eps=float(group["eps"]),
                  amsgrad=group["amsgrad"], maximize=group["maximize"],
                  decoupled=group["decoupled_weight_decay"])
        how = self._implementation(group, params)
        for p in params:
            st = self.state[p]
            if len(st) == 0:
                st["step"] = _scalar_tensor(0.0, fused=how == "fused",
                                            device=p.device if how == "fused" else None)
                st["exp_avg"] = dispatch("zeros_like", p)
                st["exp_avg_sq"] = dispatch("zeros_like", p)
                if hp["amsgrad"]:
                    st["max_exp_avg_sq"] = dispatch("zeros_like", p)
        grads, exp_avgs, exp_avg_sqs, steps = [], [], [], []
        max_sqs = [] if hp["amsgrad"] else None
        state = self.state
        for p in params:        # one state look-up per param (a Tensor key hashes in Python)
            st = state[p]
            grads.append(p.grad)
            exp_avgs.append(st["exp_avg"])
            exp_avg_sqs.append(st["exp_avg_sq"])
            if max_sqs is not None:
                max_sqs.append(st["max_exp_avg_sq"])
            steps.append(st["step"])
        lists = (grads, exp_avgs, exp_avg_sqs, max_sqs, steps)
        if how == "fused":
            for idx in self._by_dtype(params):
                _fused_adam([params[i] for i in idx],
                            *[None if lst is None else [lst[i] for i in idx] for lst in lists],
                            grad_scale=getattr(self, "grad_scale", None),
                            found_inf=getattr(self, "found_inf", None), **hp)
            return
        for_loop = how == "for_loop"
        chunks = self._for_loop_chunks(params) if for_loop else self._by_dtype(params)
        sqrt_ctx = contextlib.nullcontext() if _sqrt is K.sqrt else K.using_sqrt(_sqrt)
        with sqrt_ctx:
            for idx in chunks:
                if len(idx) == len(params):     # one chunk of them all: the lists as they are
                    _foreach_adam(params, *lists, for_loop=for_loop, **hp)
                    continue
                _foreach_adam([params[i] for i in idx],
                              *[None if lst is None else [lst[i] for i in idx] for lst in lists],
                              for_loop=for_loop, **hp)


def _foreach_adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, *, lr, beta1,
                  beta2, weight_decay, eps, amsgrad, maximize, decoupled, for_loop):
    """One Adam/AdamW update of same-dtype ``params`` by dispatched ops, in the op order of
    ``torch.optim.adam._multi_tensor_adam`` (``for_loop=False``) or ``_single_tensor_adam``
    (one tensor: ``mul_``'s unrounded scalar, see ``sgd._mul_``). The bias corrections are
    Python floats from each ``step.item()``."""
    if maximize:
        grads = dispatch("_foreach_neg", grads)
    dispatch("_foreach_add_", steps, 1)
    if weight_decay != 0:
        if decoupled:
            _mul_(params, 1 - lr * weight_decay, for_loop)
        else:
            grads = dispatch("_foreach_add", grads, params, alpha=weight_decay)
    dispatch("_foreach_lerp_", exp_avgs, grads, 1 - beta1)
    _mul_(exp_avg_sqs, beta2, for_loop)
    dispatch("_foreach_addcmul_", exp_avg_sqs, grads, grads, 1 - beta2)
    step_values = [s.item() for s in steps]
    step_size = [(lr / (1 - beta1 ** s)) * -1 for s in step_values]
    bc2_sqrt = [(1 - beta2 ** s) ** 0.5 for s in step_values]
    if amsgrad:
        dispatch("_foreach_maximum_", max_exp_avg_sqs, exp_avg_sqs)
        denom = dispatch("_foreach_sqrt", max_exp_avg_sqs)
    else:
        denom = dispatch("_foreach_sqrt", exp_avg_sqs)
    dispatch("_foreach_div_", denom, bc2_sqrt)
    dispatch("_foreach_add_", denom, eps)
    dispatch("_foreach_addcdiv_", params, exp_avgs, denom, step_size)


def _fused_adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, *, lr, beta1,
                beta2, weight_decay, eps, amsgrad, maximize, decoupled, grad_scale=None,
                found_inf=None):
    """``torch.optim.adam._fused_adam`` for one dtype: count the steps, run the dispatched
    ``_fused_adam_`` / ``_fused_adamw_`` kernel, and take the step back where ``found_inf``."""
    dispatch("_foreach_add_", steps, 1)
    dispatch("_fused_adamw_" if decoupled else "_fused_adam_", params, grads, exp_avgs,
             exp_avg_sqs, [] if max_exp_avg_sqs is None else max_exp_avg_sqs, steps,
             lr=lr, beta1=beta1, beta2=beta2, weight_decay=weight_decay, eps=eps,
             amsgrad=amsgrad, maximize=maximize, grad_scale=grad_scale, found_inf=found_inf)
    if found_inf is not None:
        dispatch("_foreach_sub_", steps, [found_inf] * len(steps))


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


def _scalar_tensor(value: float, fused: bool = False, device=None) -> Tensor:
    """A 0-dim step counter (``torch.tensor(value, dtype=_get_scalar_dtype(is_fused))``):
    float32, or float64 when the default dtype is float64 and the step is not fused; on the cpu,
    or on the parameter's ``device`` for the fused kernel (as PyTorch)."""
    d = _dt.float64 if _dt.get_default_dtype() is _dt.float64 and not fused else _dt.float32
    return dispatch("full", (), value, dtype=d, device=device)
