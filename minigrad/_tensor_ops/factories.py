"""The ``new_*`` factory methods of ``Tensor`` (``new_zeros``, ``new_ones``, ``new_empty``,
``new_full``, ``new_tensor``): a new tensor with ``self``'s dtype and device unless ``dtype`` /
``device`` are given.
"""
from __future__ import annotations

import warnings as _warnings

from .. import dtypes as _dt
from ..dispatch import dispatch


def _size_arg(size, name):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    return tuple(size)


def _new_tensor_warning():
    _warnings.warn("To copy construct from a tensor, it is recommended to use "
                   "sourceTensor.detach().clone() or sourceTensor.detach().clone()"
                   ".requires_grad_(True), rather than tensor.new_tensor(sourceTensor).",
                   UserWarning, stacklevel=3)


class FactoriesMixin:
    """The ``new_*`` factory methods of ``Tensor`` (see each method's ``torch.Tensor`` twin)."""

    __slots__ = ()

    def _new_dtype(self, dtype, fname):
        return self.dtype if dtype is None else _dt.dtype_arg(dtype, fname)

    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
                  pin_memory=False):
        """Mirrors ``torch.Tensor.new_zeros``: zeros of ``size`` with ``self``'s dtype unless
        ``dtype`` is given (the ``zeros`` op; its errors apply)."""
        return dispatch("zeros", _size_arg(size, "new_zeros"), dtype=self._new_dtype(dtype, "new_zeros"),
                        device=self._device if device is None else device,
                        requires_grad=requires_grad)

    def new_ones(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
                 pin_memory=False):
        """Mirrors ``torch.Tensor.new_ones``: ones with ``self``'s dtype by default (the
        ``ones`` op)."""
        return dispatch("ones", _size_arg(size, "new_ones"), dtype=self._new_dtype(dtype, "new_ones"),
                        device=self._device if device is None else device,
                        requires_grad=requires_grad)

    def new_empty(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
                  pin_memory=False):
        """Mirrors ``torch.Tensor.new_empty``: an uninitialised tensor in PyTorch; minigrad
        zero-fills it for determinism (the ``zeros`` op)."""
        return dispatch("zeros", _size_arg(size, "new_empty"), dtype=self._new_dtype(dtype, "new_empty"),
                        device=self._device if device is None else device,
                        requires_grad=requires_grad)

    def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False,
                 layout=None, pin_memory=False):
        """Mirrors ``torch.Tensor.new_full``: ``size`` filled with ``fill_value`` cast to
        ``self``'s dtype unless ``dtype`` is given (the ``full`` op).

        Raises:
            TypeError: ``size`` not a tuple/list of ints ("new_full(): argument 'size'
                (position 1) must be tuple of ints, not int").
        """
        if not isinstance(size, (tuple, list)):
            raise TypeError("new_full(): argument 'size' (position 1) must be tuple of ints, "
                            f"not {type(size).__name__}")
        return dispatch("full", tuple(size), fill_value, dtype=self._new_dtype(dtype, "new_full"),
                        device=self._device if device is None else device,
                        requires_grad=requires_grad)

    def new_tensor(self, data, dtype=None, device=None, requires_grad=False, layout=None,
                   pin_memory=False):
        """Mirrors ``torch.Tensor.new_tensor``: a new leaf copied from ``data`` with ``self``'s
        dtype unless ``dtype`` is given (the ``tensor`` op). A Tensor ``data`` is copied
        detached, with PyTorch's UserWarning recommending ``detach().clone()``.

        Raises:
            The errors of the ``tensor`` op.
        """
        if isinstance(data, FactoriesMixin):
            _new_tensor_warning()
            data = data.detach()
        return dispatch("tensor", data, dtype=self._new_dtype(dtype, "new_tensor"),
                        device=self._device if device is None else device,
                        requires_grad=requires_grad)
