"""Finite-difference gradient checks (``torch.autograd.gradcheck`` / ``gradgradcheck``).

``gradcheck`` compares, for every differentiable output and every input that requires grad, the
analytical Jacobian (rows of ``autograd.grad`` vector-Jacobian products with one-hot output
gradients, computed twice to detect non-reentrant backwards) with the numerical one from central
differences ``(f(x + eps) - f(x - eps)) / (2 eps)``, entry by entry, and raises ``GradcheckError``
with PyTorch's message on the first mismatch. Jacobians are laid out as PyTorch's: shape
(input.numel(), output.numel()).

The perturbed evaluations run ``func`` on owned copies of the inputs (same dtype and
``requires_grad``), so the caller's tensors are never written. Deliberate differences: forward-mode
AD, batched-gradient (vmap) and sparse/complex checks are not supported (``NotImplementedError``
for the flags that ask for them); ``check_undefined_grad`` feeds zero output gradients (minigrad
has no "undefined" gradient) and checks that the input gradients are zero or None.
"""
from __future__ import annotations

import warnings

import numpy as np

from .. import dtypes as _dt
from .. import tensor as _tm     # minigrad.tensor imports autograd: resolve Tensor lazily
from .engine import grad as _grad

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]

_FAILED_NONDET = ("\n\nNOTE: If your op relies on non-deterministic operations, this failure "
                  "might be expected; call gradcheck/gradgradcheck with `nondet_tol=<tol>`.\n")


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck``/``gradgradcheck`` on a mismatch (``torch.autograd.gradcheck.
    GradcheckError``, a RuntimeError)."""


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _f64(arr):
    return np.asarray(arr).astype(np.float64)


def _jac_tensor(a):
    return _tm.Tensor._make(np.ascontiguousarray(a, dtype=np.float64), _dt.float64)


class _Problem:
    """The function, its inputs, and owned perturbable copies of the inputs requiring grad."""

    def __init__(self, func, inputs):
        self.func = func
        self.inputs = _as_tuple(inputs)
        self.diff_idx = [i for i, t in enumerate(self.inputs)
                         if isinstance(t, _tm.Tensor) and t.requires_grad]
        if not self.diff_idx:
            raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                             "but none of them have requires_grad=True.")
        for n, i in enumerate(self.diff_idx):
            if self.inputs[i].dtype is not _dt.float64:
                warnings.warn(f"Input #{i} requires gradient and is not a double precision "
                              "floating point or complex. This check will likely fail if all the "
                              "inputs are not of double precision floating point or complex. ")
        outs = _as_tuple(func(*self.inputs))
        self.outputs = outs
        self.out_idx = [k for k, o in enumerate(outs)
                        if isinstance(o, _tm.Tensor) and o.requires_grad]

    def diff_inputs(self):
        return [self.inputs[i] for i in self.diff_idx]

    def _eval_perturbed(self, j, arr):
        args = list(self.inputs)
        x = self.inputs[self.diff_idx[j]]
        args[self.diff_idx[j]] = _tm.Tensor._make(arr, x.dtype, requires_grad=True)
        outs = _as_tuple(self.func(*args))
        return outs

    def numerical(self, eps, out_idx):
        """Per (output k in out_idx, diff input j): (numel_in, numel_out) float64 arrays."""
        res = {}
        for j, i in enumerate(self.diff_idx):
            x = self.inputs[i]
            arr = x._data.copy()
            flat = arr.reshape(-1)
            cols = {k: np.zeros((flat.size, self.outputs[k].numel())) for k in out_idx}
            for e in range(flat.size):
                orig = flat[e]
                flat[e] = orig - eps
                outa = self._eval_perturbed(j, arr)
                # _f64 copies: a view output aliases the perturbed array, so read it now
                outa = {k: _f64(outa[k]._data).reshape(-1) for k in out_idx}
                flat[e] = orig + eps
                outb = self._eval_perturbed(j, arr)
                outb = {k: _f64(outb[k]._data).reshape(-1) for k in out_idx}
                flat[e] = orig
                for k in out_idx:
                    cols[k][e] = (outb[k] - outa[k]) / (2 * eps)
            for k in out_idx:
                res[(k, j)] = cols[k]
        return res

    def analytical(self, k, nondet_tol, check_grad_dtypes):
        """Jacobians (numel_in, numel_out) of output k w.r.t. each diff input, twice-checked."""
        out = self.outputs[k]
        xs = self.diff_inputs()
        jacs = [[np.zeros((x.numel(), out.numel())) for x in xs] for _ in range(2)]
        base = np.zeros(out.numel(), dtype=out.dtype.np)
        for m in range(out.numel()):
            base[m] = 1
            go = _tm.Tensor._make(base.reshape(out.shape).copy(), out.dtype)
            base[m] = 0
            for rep in range(2):
                gs = _grad(out, xs, go, retain_graph=True, allow_unused=True)
                for j, (g, x) in enumerate(zip(gs, xs)):
                    if g is None:
                        continue
                    if tuple(g.shape) != tuple(x.shape):
                        raise GradcheckError("Analytical gradient has incorrect size")
                    if check_grad_dtypes and g.dtype is not x.dtype:
                        raise GradcheckError("Gradient has dtype mismatch")
                    jacs[rep][j][:, m] = _f64(g._data).reshape(-1)
        for a, b in zip(*jacs):
            diff = np.abs(a - b)
            if diff.size and not (diff.max() <= nondet_tol) and not np.array_equal(a, b,
                                                                                  equal_nan=True):
                raise GradcheckError("Backward is not reentrant, i.e., running backward with same "
                                     "input and grad_output multiple times gives different values,"
                                     " although analytical gradient matches numerical gradient."
                                     f"The tolerance for nondeterminism was {nondet_tol}."
                                     + _FAILED_NONDET)
        return jacs[0]


def _allclose(a, n, rtol, atol):
    return bool(np.all(np.abs(a - n) <= atol + rtol * np.abs(n)))


def _mismatch_msg(a, n, i, j):
    return (f"Jacobian mismatch for output {i} with respect to input {j},\n"
            f"numerical:{_jac_tensor(n)!r}\nanalytical:{_jac_tensor(a)!r}\n")


def _slow_check(pb, eps, atol, rtol, nondet_tol, check_grad_dtypes):
    num = pb.numerical(eps, pb.out_idx)
    for i, k in enumerate(pb.out_idx):
        ana = pb.analytical(k, nondet_tol, check_grad_dtypes)
        for j, a in enumerate(ana):
            n = num[(k, j)]
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(_mismatch_msg(a, n, i, j))


def _fast_check(pb, eps, atol, rtol, nondet_tol, check_grad_dtypes):
    from ..ops._distributions import uniform
    from ..random import default_generator as g
    xs = pb.diff_inputs()
    vs = []
    for x in xs:
        v = uniform(g, x.numel(), 0.0, 1.0, _dt.float64)
        vs.append(v / max(np.linalg.norm(v), 1e-300))
    for i, k in enumerate(pb.out_idx):
        out = pb.outputs[k]
        u = uniform(g, out.numel(), 0.0, 1.0, _dt.float64)
        u = u / max(np.linalg.norm(u), 1e-300)
        go = _tm.Tensor._make(u.reshape(out.shape).astype(out.dtype.np), out.dtype)
        gs = _grad(out, xs, go, retain_graph=True, allow_unused=True)
        for j, (g, x) in enumerate(zip(gs, xs)):
            a = 0.0 if g is None else float(_f64(g._data).reshape(-1) @ vs[j])
            base = x._data.astype(np.float64).reshape(-1)
            arr = (base - eps * vs[j]).astype(x.dtype.np).reshape(x.shape)
            fa = _f64(pb._eval_perturbed(j, arr)[k]._data).reshape(-1)
            arr = (base + eps * vs[j]).astype(x.dtype.np).reshape(x.shape)
            fb = _f64(pb._eval_perturbed(j, arr)[k]._data).reshape(-1)
            n = float(((fb - fa) / (2 * eps)) @ u)
            tol = atol * float(u.sum()) * float(vs[j].sum())
            if not abs(a - n) <= tol + rtol * abs(n):
                num = pb.numerical(eps, [k])[(k, j)]
                ana = pb.analytical(k, nondet_tol, check_grad_dtypes)[j]
                raise GradcheckError(
                    f"Jacobian mismatch for output {i} with respect to input {j},\n"
                    f"numerical:{n!r}\nanalytical:{a!r}\n\n"
                    "The above quantities relating the numerical and analytical jacobians are "
                    "computed \nin fast mode. See: https://github.com/pytorch/pytorch/issues/"
                    "53876 for more background \nabout fast mode. Below, we recompute numerical "
                    "and analytical jacobians in slow mode:\n\n"
                    f"Numerical:\n {_jac_tensor(num)!r}\nAnalytical:\n{_jac_tensor(ana)!r}\n\n"
                    "The max per-element difference (slow mode) is: "
                    f"{float(np.max(np.abs(num - ana))) if num.size else 0.0}.\n")


def _check_undefined_grad(pb):
    xs = pb.diff_inputs()
    for k in pb.out_idx:
        out = pb.outputs[k]
        zero = _tm.Tensor._make(np.zeros(tuple(out.shape), dtype=out.dtype.np), out.dtype)
        gs = _grad(out, xs, zero, retain_graph=True, allow_unused=True)
        for g in gs:
            if g is not None and np.any(_f64(g._data) != 0):
                raise GradcheckError("Expected backward function to handle undefined output "
                                     "grads. Please look at \"Notes about undefined output "
                                     "gradients\" in \"tools/autograd/derivatives.yaml\"")


def gradcheck(func, inputs, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0,
              check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
              check_batched_grad: bool = False, check_batched_forward_grad: bool = False,
              check_forward_ad: bool = False, check_backward_ad: bool = True,
              fast_mode: bool = False, masked=None) -> bool:
    """Check analytical gradients against central finite differences
    (``torch.autograd.gradcheck``).

    Args:
        func: maps the inputs to a Tensor or a tuple of Tensors.
        inputs: a Tensor or tuple of arguments; Tensors with ``requires_grad`` are checked (use
            float64 for meaningful tolerances: other dtypes warn, as PyTorch).
        eps: finite-difference step.
        atol, rtol: the test is ``|analytical - numerical| <= atol + rtol * |numerical|``
            elementwise.
        raise_exception: raise ``GradcheckError`` on failure (else return False).
        nondet_tol: allowed difference between two backward runs.
        check_undefined_grad: check that zero output gradients give zero input gradients.
        check_grad_dtypes: require each gradient's dtype to equal its input's.
        check_backward_ad: False skips the Jacobian comparison.
        fast_mode: compare the random projections u^T J v instead of the full Jacobians (on
            failure the full Jacobians are printed).

    Returns:
        True when all checks pass.

    Raises:
        GradcheckError: a Jacobian mismatch ("Jacobian mismatch for output 0 with respect to
            input 0,\\nnumerical:...\\nanalytical:...") or a non-reentrant backward.
        ValueError: no input requires grad.
        NotImplementedError: forward-AD or batched-grad checks requested.
    """
    if check_forward_ad or check_batched_grad or check_batched_forward_grad:
        raise NotImplementedError("gradcheck: forward-mode AD and batched-gradient checks are "
                                  "not supported by minigrad")
    try:
        pb = _Problem(func, inputs)
        if not pb.out_idx:
            num = pb.numerical(eps, [k for k, o in enumerate(pb.outputs)
                                     if isinstance(o, _tm.Tensor) and o.dtype.is_floating_point])
            for a in num.values():
                if np.any(a != 0):
                    raise GradcheckError("Numerical gradient for function expected to be zero")
            return True
        if check_backward_ad:
            if fast_mode:
                _fast_check(pb, eps, atol, rtol, nondet_tol, check_grad_dtypes)
            else:
                _slow_check(pb, eps, atol, rtol, nondet_tol, check_grad_dtypes)
            if check_undefined_grad:
                _check_undefined_grad(pb)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps: float = 1e-6, atol: float = 1e-5,
                  rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False,
                  raise_exception: bool = True, nondet_tol: float = 0.0,
                  check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
                  check_batched_grad: bool = False, check_fwd_over_rev: bool = False,
                  check_rev_over_rev: bool = True, fast_mode: bool = False,
                  masked: bool = False) -> bool:
    """Check second-order gradients (``torch.autograd.gradgradcheck``): ``gradcheck`` of the
    function ``(inputs, grad_outputs) -> autograd.grad(func(inputs), inputs, grad_outputs,
    create_graph=True)``.

    Args:
        grad_outputs: Tensors like ``func``'s differentiable outputs; random U(-1, 1) float
            tensors requiring grad when None (drawn from minigrad's generator).
        Other arguments as ``gradcheck``.

    Returns:
        True when all checks pass.

    Raises:
        GradcheckError, ValueError, NotImplementedError: as ``gradcheck``.
    """
    if check_fwd_over_rev or check_batched_grad:
        raise NotImplementedError("gradgradcheck: forward-over-reverse and batched-gradient "
                                  "checks are not supported by minigrad")
    tupled = _as_tuple(inputs)
    if grad_outputs is None:
        from ..ops._distributions import uniform
        from ..random import default_generator as g
        outs = [o for o in _as_tuple(func(*tupled))
                if isinstance(o, _tm.Tensor) and o.requires_grad]
        grad_outputs = tuple(
            _tm.Tensor._make(uniform(g, o.numel(), -1.0, 1.0, o.dtype).reshape(tuple(o.shape)),
                             o.dtype, requires_grad=True) for o in outs)
    grad_outputs = _as_tuple(grad_outputs)
    n_out = len(grad_outputs)

    def new_func(*args):
        ins = args[:len(args) - n_out]
        gos = args[len(args) - n_out:]
        outs = [o for o in _as_tuple(func(*ins))
                if isinstance(o, _tm.Tensor) and o.requires_grad]
        diff_in = [x for x in ins if isinstance(x, _tm.Tensor) and x.requires_grad]
        gs = _grad(outs, diff_in, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(new_func, tupled + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, check_backward_ad=check_rev_over_rev,
                     fast_mode=fast_mode)
