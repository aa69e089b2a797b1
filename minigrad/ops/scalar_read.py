"""``_local_scalar_dense``: reading a one-element tensor as a Python number (``Tensor.item``).

PyTorch's ``Tensor.item()`` dispatches the aten op ``_local_scalar_dense``; so does minigrad's,
so a dispatch mode sees every read that leaves tensor land (GradScaler's inf check, an optimizer
reading its step count, ``clip_grad_norm_``'s non-finite check).
"""
from __future__ import annotations

from .. import dtypes as _dt
from ..dispatch import register_op


@register_op("_local_scalar_dense")
def _local_scalar_dense(self):
    """The value of a one-element tensor as a Python ``bool``, ``int`` or ``float``
    (``torch._local_scalar_dense``).

    Raises:
        RuntimeError: "a Tensor with 3 elements cannot be converted to Scalar".
    """
    a = self._data
    if a.size != 1:
        raise RuntimeError(f"a Tensor with {a.size} elements cannot be converted to Scalar")
    v = a.reshape(())[()]
    if self.dtype is _dt.bool_:
        return bool(v)
    if self.dtype.is_floating_point:
        return float(v)
    return int(v)
