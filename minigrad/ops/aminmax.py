"""``aminmax``: the minimum and the maximum in one op (``torch.aminmax``).

Values as ``amin``/``amax`` (exact; NaN propagates); ``AminmaxBackward0`` splits each
gradient evenly among the elements equal to its extremum, as PyTorch's ``amin``/``amax``
backward (``scale_grad_by_count``), and adds the two.
"""
from __future__ import annotations

import numpy as np


from .. import _namespace
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import wrap_dim
from .reduce import _cmp_array


class aminmax_ret(tuple):
    """``(min, max)`` with attribute access, like ``torch.return_types.aminmax``."""

    __slots__ = ()

    def __new__(cls, mn, mx):
        return tuple.__new__(cls, (mn, mx))

    min = property(lambda self: self[0])
    max = property(lambda self: self[1])

    def __repr__(self):
        return f"{_namespace.display_name()}.return_types.aminmax(\nmin={self[0]!r},\nmax={self[1]!r})"


@register_op("aminmax")
class Aminmax(Function):
    """``aminmax(input, *, dim=None, keepdim=False)`` -> ``(min, max)`` (``torch.aminmax``):
    over all elements (``dim=None``; ``keepdim`` keeps every dim as size 1) or along one dim.
    Any dtype but float8 (bool included). ``AminmaxBackward0``.

    Raises:
        RuntimeError: an empty input without ``dim`` ("aminmax(): cannot compute aminmax over
            an empty dimension as the operation has no identity.").
        IndexError: ``dim`` out of range, or of size 0 ("aminmax: Expected reduction dim 1 to
            have non-zero size.").
    """

    _backward_name = "AminmaxBackward0"

    @staticmethod
    def forward(ctx, input, *, dim=None, keepdim=False):
        if not isinstance(input, Tensor):
            raise TypeError(f"aminmax(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        if input.dtype.is_float8:
            raise NotImplementedError(f'"aminmax_cpu" not implemented for '
                                      f'\'{input.dtype.scalar_name}\'')
        a = _cmp_array(input)
        if dim is None:
            if a.size == 0:
                raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension "
                                   "as the operation has no identity.")
            axes = None
        else:
            d = wrap_dim(dim, input.ndim)
            if input.ndim and a.shape[d] == 0:
                raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
            axes = d if input.ndim else None
        keep = keepdim and (input.ndim > 0)
        mn = np.min(a, axis=axes, keepdims=keep)
        mx = np.max(a, axis=axes, keepdims=keep)
        npd = input.dtype.np
        outs = [Tensor._make(np.asarray(v).astype(npd), input.dtype) for v in (mn, mx)]
        ctx.dim = None if dim is None or not input.ndim else wrap_dim(dim, input.ndim)
        ctx.keepdim = keepdim
        ctx.save_for_backward(input, *outs)
        return aminmax_ret(*outs)

    @staticmethod
    def backward(ctx, gmin, gmax):
        input, mn, mx = ctx.saved_tensors
        shape = tuple(input.shape)
        dims = tuple(range(input.ndim)) if ctx.dim is None else (ctx.dim,)
        kshape = tuple(1 if i in dims else s for i, s in enumerate(shape))
        total = None
        for g, v in ((gmin, mn), (gmax, mx)):
            if g is None:
                continue
            g, v = dispatch("reshape", g, kshape), dispatch("reshape", v, kshape)
            mask = dispatch("eq", v, input)
            count = dispatch("sum", mask, dims, True) if input.ndim else dispatch("sum", mask)
            part = dispatch("mul", dispatch("div", g, count), mask)
            total = part if total is None else dispatch("add", total, part)
        return total



