"""``LBFGS`` (mirrors ``torch.optim.LBFGS``): limited-memory BFGS over all parameters as one
flat vector, optionally with a strong-Wolfe line search (``_strong_wolfe``).

PyTorch's implementation is written with tensor methods (``dot``, ``abs().max()``, ``add_``,
``copy_``...) and 0-dim tensors for the curvature scalars (``ys``, ``ro``, ``al``, ``H_diag``,
``gtd``); this one follows it line by line with the same dispatched ops and 0-dim tensors, so
every write and read of a parameter goes through the dispatcher.

Numerics versus PyTorch 2.13 CPU: every op is PyTorch's, but the reductions (``dot``, ``sum``)
add in another order than PyTorch's vectorised kernels, so results agree to rounding (about
1e-6 relative in fp32, 1e-13 in fp64 over a step of 20 iterations; tested), not bit for bit.

Deliberate differences: complex and sparse parameters are not supported (minigrad has neither).
"""
from __future__ import annotations

from minigrad.autograd.grad_mode import enable_grad
from minigrad.dispatch import dispatch
from minigrad.tensor import Tensor

from .elementwise import check_lr
from .optimizer import Optimizer

__all__ = ["LBFGS"]


def _dot(a, b):
    return dispatch("dot", a, b)


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """Minimiser of the cubic through (x1, f1, g1) and (x2, f2, g2), clamped to ``bounds``
    (PyTorch's ``_cubic_interpolate``; g1/g2 are 0-dim tensors, the x's numbers or tensors)."""
    if bounds is not None:
        xmin_bound, xmax_bound = bounds
    else:
        xmin_bound, xmax_bound = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square >= 0:
        d2 = d2_square.sqrt()
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, xmin_bound), xmax_bound)
    return (xmin_bound + xmax_bound) / 2.0


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                  max_ls=25):
    """Line search along ``d`` satisfying the strong Wolfe conditions (PyTorch's
    ``_strong_wolfe``, itself from minFunc): a bracketing phase, then a zoom phase by cubic
    interpolation. Returns ``(f_new, g_new, t, ls_func_evals)``."""
    d_norm = d.abs().max()
    g = dispatch("clone", g)
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals = 1
    gtd_new = _dot(g_new, d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, dispatch("clone", g_new)], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, dispatch("clone", g_new)], [gtd_prev, gtd_new]
            break
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        tmp = t
        t = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                               bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, dispatch("clone", g_new), gtd_new
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = _dot(g_new, d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1],
                               bracket_f[1], bracket_gtd[1])
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insuf_progress or t >= max(bracket) or t <= min(bracket):
                if abs(t - max(bracket)) < abs(t - min(bracket)):
                    t = max(bracket) - eps
                else:
                    t = min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = _dot(g_new, d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low_pos]:
            bracket[high_pos], bracket_f[high_pos] = t, f_new
            bracket_g[high_pos], bracket_gtd[high_pos] = dispatch("clone", g_new), gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                bracket[high_pos], bracket_f[high_pos] = bracket[low_pos], bracket_f[low_pos]
                bracket_g[high_pos] = bracket_g[low_pos]
                bracket_gtd[high_pos] = bracket_gtd[low_pos]
            bracket[low_pos], bracket_f[low_pos] = t, f_new
            bracket_g[low_pos], bracket_gtd[low_pos] = dispatch("clone", g_new), gtd_new
    return bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals


def _alpha(x):
    """A step size (number or 0-dim tensor) as the Python number ``add_(alpha=)`` takes."""
    return x.item() if isinstance(x, Tensor) else x


class LBFGS(Optimizer):
    """L-BFGS (``torch.optim.LBFGS``). One param group only; ``step`` needs a closure.

    Args:
        params: iterable of Tensors (a single group).
        lr: learning rate (default 1).
        max_iter: iterations per ``step`` (default 20).
        max_eval: function evaluations per ``step`` (default ``max_iter * 5 // 4``).
        tolerance_grad: stop when ``max|grad| <= tolerance_grad`` (default 1e-7).
        tolerance_change: stop on smaller changes of loss or parameters (default 1e-9).
        history_size: number of curvature pairs kept (default 100).
        line_search_fn: None or "strong_wolfe" (default None).

    State (on the first parameter, as PyTorch): ``func_evals``, ``n_iter``, ``d``, ``t``,
    ``old_dirs``, ``old_stps``, ``ro``, ``H_diag``, ``prev_flat_grad``, ``prev_loss``, ``al``.

    Raises:
        ValueError: "Tensor lr must be 1-element", "Invalid learning rate: {lr}",
            "LBFGS doesn't support per-parameter options (parameter groups)".
        RuntimeError (from ``step``): "only 'strong_wolfe' is supported".
    """

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None):
        check_lr(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {"lr": lr, "max_iter": max_iter, "max_eval": max_eval,
                    "tolerance_grad": tolerance_grad, "tolerance_change": tolerance_change,
                    "history_size": history_size, "line_search_fn": line_search_fn}
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]
        self._numel_cache = None

    def _numel(self):
        if self._numel_cache is None:
            self._numel_cache = sum(p.numel() for p in self._params)
        return self._numel_cache

    def _gather_flat_grad(self):
        views = [dispatch("zeros", (p.numel(),), dtype=p.dtype, device=p.device)
                 if p.grad is None else p.grad.view(-1) for p in self._params]
        return dispatch("cat", views, 0)

    def _add_grad(self, step_size, update):
        offset = 0
        alpha = _alpha(step_size)
        for p in self._params:
            numel = p.numel()
            p.add_(update[offset:offset + numel].view_as(p), alpha=alpha)
            offset += numel

    def _clone_param(self):
        return [dispatch("clone", p) for p in self._params]

    def _set_param(self, params_data):
        for p, pdata in zip(self._params, params_data):
            p.copy_(pdata)

    def _directional_evaluate(self, closure, x, t, d):
        self._add_grad(t, d)
        loss = float(closure())
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    def step(self, closure):
        """Run up to ``max_iter`` L-BFGS iterations (``LBFGS.step``).

        Args:
            closure: callable that re-evaluates the model (grads included) and returns the
                loss; run with grad enabled.

        Returns:
            The loss of the first closure evaluation.
        """
        with self._no_grad():
            return self._lbfgs(closure)

    def _closure(self, closure):
        with enable_grad():
            return closure()

    def _lbfgs(self, closure):
        group = self.param_groups[0]
        lr = group["lr"]
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        orig_loss = self._closure(closure)
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if flat_grad.abs().max() <= tolerance_grad:
            return orig_loss
        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        H_diag = state.get("H_diag")
        prev_flat_grad, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = flat_grad.neg()
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1
            else:
                d = self._direction(state, flat_grad, prev_flat_grad, d, t, old_dirs,
                                    old_stps, ro, H_diag, history_size)
                H_diag = state.pop("_H_diag")
            if prev_flat_grad is None:
                prev_flat_grad = dispatch("clone", flat_grad)
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr
            else:
                t = lr
            gtd = _dot(flat_grad, d)
            if gtd > -tolerance_change:
                break
            ls_func_evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = self._clone_param()

                def obj_func(x, t, d):
                    return self._directional_evaluate(lambda: self._closure(closure), x, t, d)

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    obj_func, x_init, t, d, loss, flat_grad, gtd,
                    max_ls=max_eval - current_evals)
                self._add_grad(t, d)
                opt_cond = flat_grad.abs().max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                if n_iter != max_iter:
                    loss = float(self._closure(closure))
                    flat_grad = self._gather_flat_grad()
                    opt_cond = flat_grad.abs().max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals
            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if d.mul(t).abs().max() <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break
        state.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=H_diag,
                     prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        return orig_loss

    @staticmethod
    def _direction(state, flat_grad, prev_flat_grad, d, t, old_dirs, old_stps, ro, H_diag,
                   history_size):
        """Update the curvature history with the last step and return the new direction by
        the two-loop recursion (``H_diag`` is left in ``state["_H_diag"]``)."""
        y = flat_grad.sub(prev_flat_grad)
        s = d.mul(t)
        ys = _dot(y, s)
        if ys > 1e-10:
            if len(old_dirs) == history_size:
                old_dirs.pop(0)
                old_stps.pop(0)
                ro.pop(0)
            old_dirs.append(y)
            old_stps.append(s)
            ro.append(1.0 / ys)
            H_diag = ys / _dot(y, y)
        state["_H_diag"] = H_diag
        num_old = len(old_dirs)
        if "al" not in state:
            state["al"] = [None] * history_size
        al = state["al"]
        q = flat_grad.neg()
        for i in range(num_old - 1, -1, -1):
            al[i] = _dot(old_stps[i], q) * ro[i]
            q.add_(old_dirs[i], alpha=-al[i].item())
        r = dispatch("mul", q, H_diag)
        for i in range(num_old):
            be_i = _dot(old_dirs[i], r) * ro[i]
            r.add_(old_stps[i], alpha=(al[i] - be_i).item())
        return r
