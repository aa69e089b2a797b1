"""``Muon`` (mirrors ``torch.optim.Muon``, PyTorch >= 2.9): momentum SGD for 2-D weights whose
update is orthogonalised by a Newton-Schulz iteration.

Per 2-D parameter: the momentum buffer is ``lerp``-ed towards the grad; the update (Nesterov:
the grad ``lerp``-ed towards the buffer) is cast to bfloat16, divided by its Frobenius norm and
run through ``ns_steps`` quintic Newton-Schulz steps ``X <- a X + (b A + c A @ A) @ X`` with
``A = X @ X.T`` (on the wider-than-tall orientation), all in bfloat16 as PyTorch's; then
decoupled weight decay and ``p -= adjusted_lr * update`` (``adjust_lr_fn`` scales lr by the
shape: "original" ``sqrt(max(1, rows/cols))``, "match_rms_adamw" ``0.2 * sqrt(max(rows,
cols))``).

Every op is a dispatched op (Tensor methods under ``no_grad``), in PyTorch's order
(``_single_tensor_muon``; PyTorch has no foreach Muon). Deliberate difference: a bad
``ns_steps`` / ``ns_coefficients`` raises before any write (PyTorch's raises after updating the
first momentum buffer). The bf16 matmuls are minigrad's bf16
``mm`` / ``addmm`` (fp32 accumulation, one rounding), so results agree with PyTorch's oneDNN
bf16 gemm to bf16 rounding of sums taken in another order, not bit for bit.
"""
from __future__ import annotations

import math

from minigrad import dtypes as _dt
from minigrad.dispatch import dispatch
from minigrad.tensor import Tensor

from .elementwise import ElementwiseOptimizer
from .sgd import _to_float

__all__ = ["Muon"]

EPS = 1e-7
DEFAULT_A, DEFAULT_B, DEFAULT_C = 3.4445, -4.7750, 2.0315
DEFAULT_NS_STEPS = 5


class Muon(ElementwiseOptimizer):
    """Muon (``torch.optim.Muon``): for the 2-D weights of hidden layers; optimise biases,
    embeddings and other parameters with another optimizer (e.g. AdamW).

    Args:
        params: iterable of 2-D Tensors or param-group dicts.
        lr: learning rate (default 1e-3); a 1-element Tensor is read as its value.
        weight_decay: decoupled weight decay (default 0.1).
        momentum: momentum factor (default 0.95).
        nesterov: Nesterov momentum (default True).
        ns_coefficients: ``(a, b, c)`` of the quintic Newton-Schulz polynomial (default
            (3.4445, -4.7750, 2.0315)).
        eps: floor of the norm the update is divided by (default 1e-7).
        ns_steps: Newton-Schulz steps (default 5; must be < 100).
        adjust_lr_fn: None / "original" or "match_rms_adamw" (see the module docstring).

    State per param: ``momentum_buffer`` (the grad's shape and dtype). ``step`` raises
    ValueError for ``ns_steps >= 100`` or ``ns_coefficients`` not of length 3, before any write.

    Raises:
        ValueError: PyTorch's texts: "Tensor lr must be 1-element", "Learning rate should be >=
            0 but is: {lr}", "momentum should be >= 0 but is: {m}", "weight decay should be >= 0
            but is: {wd}", "Adjust learning rate function {f} is not supported", "Muon only
            supports 2D parameters whereas we found a parameter with size: {size}"; at ``step``,
            "Number of steps must be less than 100 for computational efficiency", "Coefficients
            must be a tuple of exactly 3 values".
    """

    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=(DEFAULT_A, DEFAULT_B, DEFAULT_C), eps=EPS,
                 ns_steps=DEFAULT_NS_STEPS, adjust_lr_fn=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ("original", "match_rms_adamw"):
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = {"lr": lr, "weight_decay": weight_decay, "momentum": momentum,
                    "nesterov": nesterov, "ns_coefficients": ns_coefficients, "eps": eps,
                    "ns_steps": ns_steps, "adjust_lr_fn": adjust_lr_fn}
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError("Muon only supports 2D parameters whereas we found a "
                                     f"parameter with size: {p.size()}")

    def _update_group(self, group, params):
        if params:      # checked before any write (PyTorch raises after updating the buffer)
            _check_ns(group["ns_steps"], group["ns_coefficients"])
        lr = float(_to_float(group["lr"], "lr"))
        wd, momentum = float(group["weight_decay"]), float(group["momentum"])
        for p in params:
            st = self.state[p]
            if "momentum_buffer" not in st:
                st["momentum_buffer"] = dispatch("zeros_like", p.grad)
        for p in params:
            grad, buf = p.grad, self.state[p]["momentum_buffer"]
            buf.lerp_(grad, 1 - momentum)
            update = grad.lerp(buf, momentum) if group["nesterov"] else buf
            update = zeropower_via_newtonschulz(update, group["ns_coefficients"],
                                                group["ns_steps"], group["eps"])
            adjusted_lr = _adjust_lr(lr, group["adjust_lr_fn"], p.shape)
            p.mul_(1 - lr * wd)
            p.add_(update, alpha=-adjusted_lr)


def _adjust_lr(lr, adjust_lr_fn, shape) -> float:
    """Muon's lr scaled by the parameter's shape ``(A, B)``: "original"/None
    ``sqrt(max(1, A/B))``, "match_rms_adamw" ``0.2 * sqrt(max(A, B))``."""
    a, b = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        ratio = math.sqrt(max(1, a / b))
    elif adjust_lr_fn == "match_rms_adamw":
        ratio = 0.2 * math.sqrt(max(a, b))
    else:
        ratio = 1.0
    return lr * ratio


def _check_ns(ns_steps, ns_coefficients) -> None:
    """PyTorch's checks of the Newton-Schulz settings (ValueError, its texts)."""
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")


def zeropower_via_newtonschulz(grad, ns_coefficients, ns_steps, eps):
    """PyTorch's ``_zeropower_via_newtonschulz``: an approximate orthogonalisation ``U S' V^T``
    (``S'`` near 1) of the 2-D ``grad``, computed in bfloat16; returns a bf16 Tensor of
    ``grad``'s shape.

    Raises:
        ValueError: ``ns_steps >= 100``, a grad that is not 2-D, coefficients not 3 values.
    """
    _check_ns(ns_steps, ns_coefficients)
    if len(grad.shape) != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    a, b, c = ns_coefficients
    x = grad.to(_dt.bfloat16)
    tall = grad.size(0) > grad.size(1)
    if tall:
        x = x.T
    x.div_(x.norm().clamp(min=eps))          # spectral norm <= Frobenius norm <= 1
    for _ in range(ns_steps):
        gram = x @ x.T
        gram_update = dispatch("addmm", gram, gram, gram, beta=b, alpha=c)
        x = dispatch("addmm", x, gram_update, x, beta=a)
    return x.T if tall else x
