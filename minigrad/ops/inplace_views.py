"""In-place ops that change a tensor's metadata, not its values: ``t_``, ``transpose_``
(``swapdims_``/``swapaxes_``), ``unsqueeze_``, ``squeeze_``, ``as_strided_``, ``resize_``,
``resize_as_``.

As in PyTorch, ``x.t_()`` makes ``x`` itself the transposed view of its own storage: the same
elements, new sizes and strides. The version counter is bumped. In grad mode, on a tensor that
requires grad, autograd's in-place checks run first (a leaf that requires grad raises "a leaf
Variable that requires grad is being used in an in-place operation.") and ``x``'s history
becomes the view op's node under PyTorch's in-place name: ``TBackward1``,
``TransposeBackward1``, ``UnsqueezeBackward1``, ``SqueezeBackward3/4/5`` (no dim / a dim / a
tuple of dims), ``AsStridedBackward1``, whose edge is ``x``'s old ``grad_fn``. On a view, the view keeps its base; the
base's history is untouched (nothing was written), as PyTorch.

``resize_`` gives ``self`` new sizes, contiguous; elements past the old storage are zeros
(PyTorch leaves them uninitialised). It refuses tensors that require grad ("cannot resize
variables that require grad").
"""
from __future__ import annotations

import numpy as np

from ..autograd.grad_mode import _grad_state
from ..autograd.views import check_inplace
from ..dispatch import register_op
from ..tensor import Tensor
from ._util import wrap_dim, wrap_dims
from .factory import _size
from .inplace import check_inference
from .shape import T, Transpose, Unsqueeze, _Squeeze4, _SqueezeBase
from .strided import AsStrided


class _TInplace(T):
    _backward_name = "TBackward1"

    @staticmethod
    def forward(ctx, input):
        if input.ndim > 2:
            raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is "
                               f"{input.ndim}D")
        return T.forward(ctx, input)


class _TransposeInplace(Transpose):
    _backward_name = "TransposeBackward1"


class _UnsqueezeInplace(Unsqueeze):
    _backward_name = "UnsqueezeBackward1"


class _AsStridedInplace(AsStrided):
    _backward_name = "AsStridedBackward1"


class _Squeeze3(_SqueezeBase):
    _backward_name = "SqueezeBackward3"


class _Squeeze5(_SqueezeBase):
    _backward_name = "SqueezeBackward5"


def run_view_inplace(self, cls, *args):
    """Make ``self`` the view ``cls.apply(self, *args)`` of its own storage; returns ``self``.

    Raises:
        RuntimeError: autograd's in-place errors (``check_inplace``) when grad is recorded; an
            inference tensor outside inference mode; the view op's errors.
        TypeError: ``self`` not a Tensor.
    """
    if not isinstance(self, Tensor):
        raise TypeError(f"in-place op: expected a Tensor, got {type(self).__name__}")
    check_inference(self)
    if _grad_state.enabled and self.requires_grad:
        check_inplace(self)
    res = cls.apply(self, *args)
    self._data = res._data
    self._vc[0] += 1
    if res._grad_fn is not None:
        self._grad_fn = res._grad_fn
        self._output_nr = 0
    if self._view is not None:
        self._view.version = self._vc[0]     # this grad_fn is current: no AsStridedBackward0
    return self


@register_op("t_")
def t_(self):
    """In place ``t`` (``Tensor.t_``; node ``TBackward1``).

    Raises:
        RuntimeError: more than 2 dims ("t_() expects a tensor with <= 2 dimensions, but self is
            3D"); ``run_view_inplace``'s errors.
    """
    return run_view_inplace(self, _TInplace)


@register_op("transpose_")
def transpose_(self, dim0, dim1):
    """In place ``transpose`` (``Tensor.transpose_``, ``swapdims_``, ``swapaxes_``; node
    ``TransposeBackward1``).

    Raises:
        IndexError: a dim out of range. RuntimeError: ``run_view_inplace``'s errors.
    """
    return run_view_inplace(self, _TransposeInplace, dim0, dim1)


@register_op("unsqueeze_")
def unsqueeze_(self, dim):
    """In place ``unsqueeze`` (``Tensor.unsqueeze_``; node ``UnsqueezeBackward1``).

    Raises:
        IndexError: a dim out of range. RuntimeError: ``run_view_inplace``'s errors.
    """
    return run_view_inplace(self, _UnsqueezeInplace, dim)


@register_op("squeeze_")
def squeeze_(self, dim=None):
    """In place ``squeeze`` (``Tensor.squeeze_``): all size-1 dims, one ``dim`` or a tuple;
    nodes ``SqueezeBackward3/4/5`` as PyTorch.

    Raises:
        IndexError: a dim out of range. RuntimeError: ``run_view_inplace``'s errors.
    """
    n = self.ndim
    if dim is None:
        return run_view_inplace(self, _Squeeze3, None)
    if isinstance(dim, (tuple, list)):
        return run_view_inplace(self, _Squeeze5, wrap_dims(tuple(dim), n) if dim else ())
    return run_view_inplace(self, _Squeeze4, (wrap_dim(dim, n),))


@register_op("as_strided_")
def as_strided_(self, size, stride, storage_offset=None):
    """In place ``as_strided`` (``Tensor.as_strided_``; node ``AsStridedBackward1``): ``self``
    becomes the view of its storage with the given sizes, strides (in elements) and offset
    (default: its own).

    Raises:
        RuntimeError: ``as_strided``'s errors (a geometry past the storage, negative strides);
            ``run_view_inplace``'s errors.
    """
    return run_view_inplace(self, _AsStridedInplace, tuple(size), tuple(stride),
                            storage_offset)


@register_op("resize_")
def resize_(self, *size, memory_format=None):
    """``Tensor.resize_(*sizes)``: ``self`` gets the contiguous sizes ``sizes``, its first
    elements (in memory order of a contiguous ``self``) kept. Growing past the old number of
    elements reallocates ``self``'s storage (views of the old one no longer alias it, as in
    PyTorch); the new elements are zeros (PyTorch: uninitialised). A non-contiguous ``self``
    is read in its logical order (deliberate difference: PyTorch reinterprets its storage).

    Raises:
        RuntimeError: ``self`` requires grad ("cannot resize variables that require grad"); a
            negative size. TypeError: a size that is not an int (the factories' message).
    """
    if not isinstance(self, Tensor):
        raise TypeError(f"resize_(): expected a Tensor, got {type(self).__name__}")
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    check_inference(self)
    shape = _size(size)
    n = int(np.prod(shape, dtype=np.int64))
    old = self._data
    if shape != old.shape:
        flat = old.reshape(-1) if old.flags.c_contiguous else np.ascontiguousarray(old).ravel()
        if n <= flat.size:
            self._data = flat[:n].reshape(shape)
        else:
            data = np.zeros(n, old.dtype)
            data[:flat.size] = flat
            self._data = data.reshape(shape)
    self._vc[0] += 1
    return self


@register_op("resize_as_")
def resize_as_(self, the_template, *, memory_format=None):
    """``Tensor.resize_as_(the_template)``: ``resize_`` to ``the_template``'s sizes.

    Raises:
        TypeError: ``the_template`` not a Tensor. RuntimeError: as ``resize_``.
    """
    if not isinstance(the_template, Tensor):
        raise TypeError(f"resize_as_(): argument 'the_template' (position 1) must be Tensor, "
                        f"not {type(the_template).__name__}")
    return resize_(self, tuple(the_template.shape))
