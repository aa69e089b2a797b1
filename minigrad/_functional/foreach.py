"""``torch._foreach_*``: the list-wise ops, as torch-level functions.

PyTorch exposes its ``_foreach_*`` ops (one pointwise kernel over every tensor of a list) at the
top level, and EMA helpers and hand-written optimizers call them directly
(``torch._foreach_mul_(ema_params, decay)``, ``torch._foreach_add_(ema, params, alpha=1 - d)``,
``torch._foreach_lerp_``, ``torch._foreach_norm``). minigrad's are the ops in
``minigrad/ops/foreach.py`` (rounded as ATen's CPU loop of per-tensor kernels); each function
here is one ``dispatch`` of the op of its name, so modes and the profiler see it, and takes the
op's arguments and raises its errors. ``_foreach_copy_`` and ``_foreach_sub`` are the loops of
``copy_`` and ``sub`` (PyTorch's CPU foreach fallback is that loop too).

These names are private in PyTorch too and are not in ``minigrad.__all__``.
"""
from __future__ import annotations

from ..dispatch import dispatch, get_op
from ..ops.foreach import _kind, _same_len, _scalars, _tensors

# the registered list-wise ops (minigrad/ops/foreach.py), each re-exported under its own name
_OPS = ("_foreach_add_", "_foreach_add", "_foreach_sub_", "_foreach_mul_", "_foreach_mul",
        "_foreach_div_", "_foreach_div", "_foreach_addcmul_", "_foreach_addcdiv_",
        "_foreach_lerp_", "_foreach_sqrt", "_foreach_sqrt_", "_foreach_neg", "_foreach_neg_",
        "_foreach_maximum_", "_foreach_zero_", "_foreach_norm", "_foreach_clamp_min_",
        "_foreach_clamp_max_")

__all__ = list(_OPS) + ["_foreach_copy_", "_foreach_sub"]


def _torch_level(name):
    def fn(*args, **kwargs):
        return dispatch(name, *args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"``torch.{name}``: the ``{name}`` op (``minigrad/ops/foreach.py``).\n\n"
                  + (get_op(name).__doc__ or ""))
    return fn


globals().update({_name: _torch_level(_name) for _name in _OPS})


def _foreach_copy_(self, src, non_blocking: bool = False):
    """``self[i].copy_(src[i])`` for each i (``torch._foreach_copy_``): each copy is the dispatched
    ``copy_`` op (broadcasting, dtype conversion, version counters as ``copy_``).

    Raises:
        RuntimeError: an empty list or lists of different lengths (PyTorch's messages), or
            ``copy_``'s errors.
    """
    _tensors("_foreach_copy_", self)
    _same_len(self, _tensors("_foreach_copy_", src, "src"))
    for d, s in zip(self, src):
        dispatch("copy_", d, s)


def _foreach_sub(self, other, *, alpha=1):
    """Out-of-place ``self[i] - alpha * other[i]`` (``torch._foreach_sub``): a tuple of the
    dispatched ``sub`` op's results (``other`` a number, a list of numbers, or a list of
    tensors).

    Raises:
        RuntimeError: an empty list or lists of different lengths (PyTorch's messages), or
            ``sub``'s errors.
    """
    _tensors("_foreach_sub", self)
    kind = _kind("_foreach_sub", other)
    if kind == "List":
        _same_len(self, other)
    elif kind == "ScalarList":
        other = _scalars(self, other)
    else:
        other = [other] * len(self)
    return tuple(dispatch("sub", a, b, alpha=alpha) for a, b in zip(self, other))
