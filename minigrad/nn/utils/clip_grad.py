"""Gradient clipping (``torch.nn.utils.clip_grad_norm_`` / ``clip_grad_value_`` /
``get_total_norm`` / ``clip_grads_with_norm_``), following PyTorch 2.13's recipe:

- per-tensor norms, each in its gradient's own dtype; the total is the norm of those norms, in
  their promoted dtype (mixed bf16 + fp32 grads give an fp32 total);
- ``coef = max_norm / (total + 1e-6)`` clamped to 1.0, and every gradient multiplied in place by
  the clamped coef (by 1.0 when nothing is clipped), with dispatched ops;
- the total norm before clipping is returned as a 0-dim Tensor; ``tensor(0.)`` with no grads.

The norms are the dispatched ``linalg_vector_norm`` op (``minigrad/ops/norm.py``: PyTorch's
CPU kernel, accumulating ``sum |x|^p`` in opmath; the fp32 2-norm in ATen's own summation
order, so fp32 clipping is bit-exact with PyTorch's; other orders and dtypes can differ by about
one ulp) and ``stack``.

``foreach`` as in PyTorch 2.13, whose CPU tensors have foreach support here: ``None`` (default)
or ``True`` run ``_foreach_norm`` / ``_foreach_mul_`` / ``_foreach_clamp_min_`` +
``_foreach_clamp_max_`` over the tensors of each dtype, ``False`` the per-tensor ops
(``linalg_vector_norm``, ``mul_``, ``clamp_``); both give the same values. Every read and write
of a gradient is a dispatched op.
"""
from __future__ import annotations

import math
import types
import warnings

import numpy as np

from ... import dtypes as _dt
from ...autograd.grad_mode import no_grad
from ...dispatch import dispatch
from ...tensor import Tensor

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm",
           "clip_grads_with_norm_"]

_INF = float("inf")


def _as_list(parameters):
    if isinstance(parameters, Tensor):
        return [parameters]
    is_gen = isinstance(parameters, types.GeneratorType)
    parameters = list(parameters)
    if is_gen and not parameters:
        warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                      stacklevel=3)
    return parameters


def _by_dtype(tensors):
    """Tensors grouped by dtype, in first-seen order (``_group_tensors_by_device_and_dtype``)."""
    groups: dict = {}
    for t in tensors:
        groups.setdefault(t.dtype, []).append(t)
    return list(groups.values())


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite: bool = False, foreach=None):
    """The norm of the per-tensor norms of ``tensors`` (``torch.nn.utils.get_total_norm``).

    Args:
        tensors: a Tensor or an iterable of Tensors (typically gradients).
        norm_type: p of the p-norm: any float, ``inf`` (max |x|), ``-inf``, 0 (count of
            non-zeros).
        error_if_nonfinite: raise when the total is nan or inf.
        foreach: None/True: ``_foreach_norm`` per dtype group; False: one
            ``linalg_vector_norm`` per tensor (same values).

    Returns:
        a 0-dim Tensor in the promoted dtype of the tensors; ``tensor(0.)`` when empty.

    Raises:
        RuntimeError: a non-finite total with ``error_if_nonfinite`` ("The total norm of order
            2.0 for gradients from `parameters` is non-finite, so it cannot be clipped. ...").
    """
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return Tensor._make(np.array(0.0, dtype=np.float32), _dt.float32)
    with no_grad():
        norms = []
        for group in _by_dtype(tensors):
            if foreach is False:
                norms.extend(dispatch("linalg_vector_norm", t, norm_type) for t in group)
            else:
                norms.extend(dispatch("_foreach_norm", group, norm_type))
        # stack promotes (bf16 + fp32 norms -> fp32), as PyTorch's torch.stack does
        total = dispatch("linalg_vector_norm", dispatch("stack", norms), norm_type)
    if error_if_nonfinite and not math.isfinite(total.item()):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` "
                           "is non-finite, so it cannot be clipped. To disable this error and "
                           "scale the gradients by the non-finite norm anyway, set "
                           "`error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None) -> None:
    """Multiply every ``.grad`` in place by ``min(max_norm / (total_norm + 1e-6), 1)``
    (``torch.nn.utils.clip_grads_with_norm_``); ``total_norm`` a 0-dim Tensor."""
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        return
    max_norm = float(max_norm)
    with no_grad():
        coef = max_norm / (total_norm + 1e-6)
        coef = dispatch("clamp", coef, None, 1.0)
        for group in _by_dtype(grads):
            if foreach is False:
                for g in group:
                    dispatch("mul_", g, coef)
            else:
                dispatch("_foreach_mul_", group, coef)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite: bool = False,
                    foreach=None):
    """Scale gradients so that their total norm is at most ``max_norm``
    (``torch.nn.utils.clip_grad_norm_``).

    Only parameters whose ``.grad`` is not None take part. Every gradient is multiplied in place
    by ``clamp(max_norm / (total + 1e-6), max=1.0)``: an inf total zeroes the gradients (inf
    entries become nan), a nan total makes them all nan.

    Args:
        parameters: a Tensor or an iterable of Tensors (an empty generator warns).
        max_norm: the largest allowed total norm.
        norm_type: as ``get_total_norm`` (2.0, 1, ``inf``, 0.5...).
        error_if_nonfinite: raise instead of scaling by a non-finite norm.
        foreach: None/True: the ``_foreach_*`` ops per dtype group; False: per-tensor ops
            (same results either way).

    Returns:
        the total norm before clipping, a 0-dim Tensor (promoted dtype of the grads;
        ``tensor(0.)`` when no parameter has a grad).

    Raises:
        RuntimeError: non-finite total with ``error_if_nonfinite=True`` (grads unchanged).
    """
    params = _as_list(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(params, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite: bool = False,
                   foreach=None):
    """Deprecated alias of ``clip_grad_norm_`` (warns, as PyTorch)."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None) -> None:
    """Clamp every ``.grad`` in place to ``[-clip_value, clip_value]``
    (``torch.nn.utils.clip_grad_value_``); parameters without a grad are skipped; ``foreach``
    as ``clip_grad_norm_``."""
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    clip_value = float(clip_value)
    grads = [p.grad for p in params if p.grad is not None]
    with no_grad():
        for group in _by_dtype(grads):
            if foreach is False:
                for g in group:
                    dispatch("clamp_", g, -clip_value, clip_value)
            else:
                dispatch("_foreach_clamp_min_", group, -clip_value)
                dispatch("_foreach_clamp_max_", group, clip_value)
