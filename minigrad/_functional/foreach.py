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

from ..dispatch import dispatch, get_op, registered_ops

# the registered list-wise ops (minigrad/ops/foreach.py), each re-exported under its own name
_OPS = tuple(sorted(n for n in registered_ops() if n.startswith("_foreach_")))

__all__ = list(_OPS)


def _torch_level(name):
    def fn(*args, **kwargs):
        return dispatch(name, *args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"``torch.{name}``: the ``{name}`` op (``minigrad/ops/foreach.py``).\n\n"
                  + (get_op(name).__doc__ or ""))
    return fn


globals().update({_name: _torch_level(_name) for _name in _OPS})
