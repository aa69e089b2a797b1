"""``Adafactor`` (mirrors ``torch.optim.Adafactor``, PyTorch >= 2.5): Adam's second moment
stored factored, as a row and a column mean of ``grad**2`` per matrix, with a relative step size.

For a parameter of two or more dims the state is ``row_var`` (shape ``[..., m, 1]``) and
``col_var`` (``[..., 1, n]``): O(m + n) memory in place of Adam's O(m * n). Their outer product,
divided by the mean of ``row_var``, estimates ``E[grad**2]``. A vector keeps a full
``variance``. The step size is relative to the parameter's RMS (``alpha`` below), and each
update is clipped to RMS ``d``.

The update runs PyTorch's own op sequence (``_single_tensor_adafactor`` by default,
``_multi_tensor_adafactor`` with ``foreach=True``) as dispatched ops (Tensor methods and
``_foreach_*`` ops under ``no_grad``), so a dispatch mode sees every write and 16-bit parameters
round per op as PyTorch's do. The per-step Python scalars (``step**beta2_decay``,
``min(lr, 1/sqrt(step))``, the RMS clip) are computed in Python floats, as in PyTorch.

Numerics versus PyTorch 2.13 CPU: the same ops in the same order; the norms are reductions, so
results agree to rounding (a few ulp per step), bit for bit where minigrad's ``norm`` is.

Faithful to PyTorch's quirks: with ``eps=(None, ...)``, ``eps1`` becomes ``finfo(dtype).eps`` of
the *first* parameter stepped and is kept for the rest of that group's step (PyTorch's loop
rebinds it once).
"""
from __future__ import annotations

from minigrad.dispatch import dispatch
from minigrad.dtypes import finfo
from minigrad.tensor import Tensor

from .adam import _scalar_tensor
from .elementwise import ElementwiseOptimizer
from .sgd import _to_float

__all__ = ["Adafactor"]


class Adafactor(ElementwiseOptimizer):
    """Adafactor (``torch.optim.Adafactor``).

    Per parameter with a grad (``t`` the step count after the increment)::

        g = -grad if maximize else grad
        one_minus_beta2 = t ** beta2_decay;  rho = min(lr, 1 / sqrt(t))
        alpha = max(eps2, rms(p)) * rho
        p.mul_(1 - lr * weight_decay)                              (if weight_decay != 0)
        matrix: row_var.lerp_(mean(g*g, -1), one_minus_beta2)
                col_var.lerp_(mean(g*g, -2), one_minus_beta2)
                v = (row_var @ col_var) / row_var.mean(-2).clamp(min=eps1)
        vector: variance.lerp_(g*g, one_minus_beta2);  v = variance.clone()
        u = v.clamp_(min=eps1**2).rsqrt_() * g
        p.add_(u, alpha=-alpha / max(1, rms(u) / d))

    Args:
        params: iterable of Tensors or param-group dicts.
        lr: learning rate, the cap of the relative step (default 1e-2); a 1-element Tensor is
            read as its value.
        beta2_decay: decay exponent of the second-moment average (default -0.8; must be <= 0).
        eps: ``(eps1, eps2)``: eps1 floors the variance estimate (default None: the dtype's
            ``finfo.eps``), eps2 floors the parameter RMS in the step size (default 1e-3).
        d: clipping threshold of the update's RMS (default 1.0; must be >= 1).
        weight_decay: decoupled weight decay (default 0.0).
        foreach: True runs the multi-tensor implementation (PyTorch's default here is the
            for-loop one).
        maximize: maximize the objective (default False).

    State per param: ``step`` (0-dim float32 Tensor, float64 under a float64 default dtype), then
    ``row_var`` and ``col_var`` (a parameter of >= 2 dims) or ``variance`` (a vector), in the
    grad's dtype.

    Raises:
        ValueError: "Tensor lr must be 1-element", "Learning rate should be >= 0 but is: {lr}",
            "beta2_decay should be <= 0 but is: {b}", "epsilon1 should be >= 0 but is: {e}",
            "epsilon2 should be >= 0 but is: {e}", "Clipping threshold d should be >= 1 but is:
            {d}", "weight_decay should be >= 0 but is: {wd}" (PyTorch's texts).
    """

    _group_defaults = (("foreach", None),)
    # row_var / col_var are shaped [..., m, 1] / [..., 1, n], not like their parameter (exempt
    # from the shape check; only a number ``step`` is converted by ``__setstate__``)
    _scalar_state = ("step", "row_var", "col_var")

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
                 weight_decay=0.0, *, foreach=None, maximize=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize}
        super().__init__(params, defaults)

    def _update_group(self, group, params):
        for p in params:
            st = self.state[p]
            if len(st) == 0:
                st["step"] = _scalar_tensor(0.0)
                g = p.grad
                if g.dim() > 1:
                    st["row_var"] = g.new_zeros(list(g.shape[:-1]) + [1])
                    st["col_var"] = g.new_zeros(list(g.shape[:-2]) + [1, g.shape[-1]])
                else:
                    st["variance"] = dispatch("zeros_like", g)
        eps1, eps2 = group["eps"]
        hp = dict(d=float(group["d"]), lr=float(_to_float(group["lr"], "lr")),
                  beta2_decay=float(group["beta2_decay"]),
                  weight_decay=float(group["weight_decay"]), eps1=eps1, eps2=float(eps2),
                  maximize=group["maximize"])
        if group["foreach"]:
            _multi_tensor_adafactor(params, self.state, **hp)
        else:
            _single_tensor_adafactor(params, self.state, **hp)


def _rms(t) -> float:
    """``t.norm(2).item() / numel**0.5``: a tensor's root mean square, as a Python float."""
    return t.norm(2).item() / (t.numel() ** 0.5)


def _single_tensor_adafactor(params, state, *, d, lr, beta2_decay, weight_decay, eps1, eps2,
                             maximize):
    """PyTorch's ``_single_tensor_adafactor``: one parameter at a time, Tensor ops in its order."""
    for p in params:
        grad = -p.grad if maximize else p.grad
        st = state[p]
        if eps1 is None:
            eps1 = finfo(p.dtype).eps
        st["step"].add_(1)
        t = st["step"].item()
        one_minus_beta2 = t ** beta2_decay
        rho = min(lr, 1 / (t ** 0.5))
        alpha = max(eps2, _rms(p)) * rho
        if weight_decay != 0:
            p.mul_(1 - lr * weight_decay)
        if grad.dim() > 1:
            row_var, col_var = st["row_var"], st["col_var"]
            # (g * g).mean(dim) without an intermediate of g's size
            row_mean = grad.norm(dim=-1, keepdim=True).square_().div_(grad.size(-1))
            row_var.lerp_(row_mean, one_minus_beta2)
            col_mean = grad.norm(dim=-2, keepdim=True).square_().div_(grad.size(-2))
            col_var.lerp_(col_mean, one_minus_beta2)
            var_estimate = row_var @ col_var
            var_estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
        else:
            variance = st["variance"]
            variance.lerp_(grad * grad, one_minus_beta2)
            var_estimate = variance.clone()      # the update must not write into variance
        update = var_estimate.clamp_(min=eps1 * eps1).rsqrt_()
        update.mul_(grad)
        denom = max(1.0, update.norm(2).item() / ((update.numel() ** 0.5) * d))
        p.add_(update, alpha=-alpha / denom)


def _multi_tensor_adafactor(params, state, *, d, lr, beta2_decay, weight_decay, eps1, eps2,
                            maximize):
    """PyTorch's ``_multi_tensor_adafactor``: ``_foreach_*`` ops over the params grouped by
    (dtype, matrix-or-vector), in first-seen order."""
    groups: dict = {}
    for p in params:
        groups.setdefault((p.dtype, p.grad.dim() > 1), []).append(p)
    for (dtype, is_matrix), ps in groups.items():
        if eps1 is None:
            eps1 = finfo(dtype).eps
        grads = [p.grad for p in ps]
        if maximize:
            grads = dispatch("_foreach_neg", grads)
        steps = [state[p]["step"] for p in ps]
        dispatch("_foreach_add_", steps, 1.0)
        ts = [s.item() for s in steps]
        one_minus_beta2s = [t ** beta2_decay for t in ts]
        alphas = [max(eps2, _rms(p)) * min(lr, 1 / (t ** 0.5)) for p, t in zip(ps, ts)]
        if weight_decay != 0:
            dispatch("_foreach_mul_", ps, 1 - lr * weight_decay)
        if is_matrix:
            row_vars = [state[p]["row_var"] for p in ps]
            col_vars = [state[p]["col_var"] for p in ps]
            for dim, factors in ((-1, row_vars), (-2, col_vars)):
                means = [g.norm(dim=dim, keepdim=True) for g in grads]
                dispatch("_foreach_mul_", means, means)
                dispatch("_foreach_div_", means, [g.size(dim) for g in grads])
                dispatch("_foreach_lerp_", factors, means, one_minus_beta2s)
            var_estimates = [r @ c for r, c in zip(row_vars, col_vars)]
            row_var_means = [r.mean(dim=-2, keepdim=True) for r in row_vars]
            dispatch("_foreach_clamp_min_", row_var_means, eps1)
            dispatch("_foreach_div_", var_estimates, row_var_means)
        else:
            variances = [state[p]["variance"] for p in ps]
            squares = dispatch("_foreach_mul", grads, grads)
            dispatch("_foreach_lerp_", variances, squares, one_minus_beta2s)
            var_estimates = [v.clone() for v in variances]
        dispatch("_foreach_clamp_min_", var_estimates, eps1 * eps1)
        dispatch("_foreach_rsqrt_", var_estimates)
        dispatch("_foreach_mul_", var_estimates, grads)
        scales = [-a / max(1.0, u.norm(2).item() / ((u.numel() ** 0.5) * d))
                  for a, u in zip(alphas, var_estimates)]
        dispatch("_foreach_mul_", var_estimates, scales)
        dispatch("_foreach_add_", ps, var_estimates)
