"""Shape methods of ``Tensor``: views (``reshape``, ``view``, ``transpose``, ``permute``, ``T``,
``mT``, ``unsqueeze``, ``squeeze``, ``expand``, ``narrow``, ``movedim``, ``diagonal``,
``unfold``...), splitting (``split``, ``chunk``, ``unbind``, via ``minigrad.split``...) and
rearranging copies (``roll``, ``flip``, ``repeat``, ``repeat_interleave``, ``tile``, ``tril``,
``triu``, ``diag``, ``diag_embed``).
"""
from __future__ import annotations

import warnings

from .._global_flags import warn_once
from ..dispatch import dispatch


def _fns():
    """``minigrad._functional.joining``, imported on first use (it imports ``Tensor``,
    which inherits this mixin)."""
    from .._functional import joining
    return joining


def _shape_fns():
    from .._functional import shape
    return shape


def _rearrange_fns():
    from .._functional import rearrange
    return rearrange


def _shape_args(shape, kw=None, fname=None, name=None):
    """A shape given as varargs (``x.view(2, 3)``), one sequence (``x.view((2, 3))``) or, in
    ``kw``, by its keyword ``name`` (``x.view(size=(2, 3))``), as PyTorch's parser takes it.

    Raises:
        TypeError: another keyword, or the shape given both ways.
    """
    if kw:
        for k in kw:
            if k != name:
                raise TypeError(f"{fname}() got an unexpected keyword argument {k!r}")
        if shape:
            raise TypeError(f"{fname}() got multiple values for argument {name!r}")
        shape = (kw[name],)
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return tuple(shape)


# whether ``Tensor.T``'s two once-per-process deprecation warnings (n-D, 0-D) were given
_T_WARNED = [False, False]


class ShapeMixin:
    """Shape and splitting methods of ``Tensor`` (see each method's ``torch.Tensor`` twin)."""

    __slots__ = ()

    def reshape(self, *shape, **kw):
        """Mirrors ``torch.Tensor.reshape``: the ``reshape`` op (its errors apply); the shape
        as varargs, one sequence, or ``shape=``."""
        return dispatch("reshape", self, _shape_args(shape, kw, "reshape", "shape"))

    def view(self, *shape, **kw):
        """Mirrors ``torch.Tensor.view``: the ``view`` op (the shape as varargs, one sequence,
        or ``size=``), or with a dtype (``dtype=``) the ``view.dtype`` op (the same bytes
        reinterpreted; its errors apply)."""
        if kw:
            if "dtype" in kw and not shape and len(kw) == 1:
                return dispatch("view.dtype", self, kw["dtype"])
            shape = _shape_args(shape, kw, "view", "size")
        if len(shape) == 1 and not isinstance(shape[0], (tuple, list)) and \
                not hasattr(type(shape[0]), "__index__"):      # a size is an int-like
            return dispatch("view.dtype", self, shape[0])
        return dispatch("view", self, _shape_args(shape))

    def as_strided(self, size, stride, storage_offset=None):
        """Mirrors ``torch.Tensor.as_strided``: the ``as_strided`` op (a view of the storage;
        its errors apply)."""
        return dispatch("as_strided", self, size, stride, storage_offset)

    def view_as(self, other):
        """Mirrors ``torch.Tensor.view_as``: the ``view`` op (its errors apply)."""
        return dispatch("view", self, other.shape)

    def reshape_as(self, other):
        """Mirrors ``torch.Tensor.reshape_as``: the ``reshape`` op (its errors apply)."""
        return dispatch("reshape", self, other.shape)

    def flatten(self, start_dim=0, end_dim=-1):
        """Mirrors ``torch.Tensor.flatten``: the ``flatten`` op (its errors apply)."""
        return dispatch("flatten", self, start_dim, end_dim)

    def unflatten(self, dim, sizes):
        """Mirrors ``torch.Tensor.unflatten``: ``minigrad.unflatten`` (a view; its errors
        apply)."""
        from .._functional.shape import unflatten
        return unflatten(self, dim, sizes)

    def transpose(self, dim0, dim1):
        """Mirrors ``torch.Tensor.transpose``: the ``transpose`` op (its errors apply)."""
        return dispatch("transpose", self, dim0, dim1)

    def swapaxes(self, dim0, dim1):
        """Mirrors ``torch.Tensor.swapaxes``: the ``transpose`` op (its errors apply)."""
        return dispatch("transpose", self, dim0, dim1)

    def permute(self, *dims, **kw):
        """Mirrors ``torch.Tensor.permute``: the ``permute`` op (its errors apply).

        Raises:
            TypeError: no dims given (PyTorch's 'permute() missing 1 required positional
                arguments: "dims"'; ``permute(())`` is the way to permute a 0-dim tensor).
        """
        if not dims and not kw:
            raise TypeError('permute() missing 1 required positional arguments: "dims"')
        return dispatch("permute", self, _shape_args(dims, kw, "permute", "dims"))

    def t(self):
        """Mirrors ``torch.Tensor.t``: the ``t`` op (its errors apply)."""
        return dispatch("t", self)

    @property
    def T(self):
        """Mirrors ``torch.Tensor.T``: the ``permute`` op reversing the dims (its errors apply).
        Other than on 1-D and 2-D tensors PyTorch's deprecation UserWarning is given, once per
        process as PyTorch's ``TORCH_WARN_ONCE`` (the 0-D one separately)."""
        n = self.ndim
        if n > 2 and warn_once(_T_WARNED, 0):
            warnings.warn("The use of `x.T` on tensors of dimension other than 2 to reverse their "
                          "shape is deprecated and it will throw an error in a future release. "
                          "Consider `x.mT` to transpose batches of matrices or "
                          "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the "
                          "dimensions of a tensor.", UserWarning, stacklevel=2)
        elif n == 0 and warn_once(_T_WARNED, 1):
            warnings.warn("Tensor.T is deprecated on 0-D tensors. This function is the identity "
                          "in these cases.", UserWarning, stacklevel=2)
        return dispatch("permute", self, tuple(range(n - 1, -1, -1)))

    @property
    def H(self):
        """Mirrors ``torch.Tensor.H``: the conjugate transpose of a matrix (minigrad's dtypes are
        real: its transpose, the ``transpose`` op of dims 0 and 1). A 0-dim tensor is returned
        itself, with PyTorch's deprecation UserWarning.

        Raises:
            RuntimeError: a tensor that is not 2-D ("tensor.H is only supported on matrices
                (2-D tensors). Got 3-D tensor." and, for more than 2 dims, the hint to use
                ``tensor.mH``), as PyTorch.
        """
        if self.ndim == 0:
            warnings.warn("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().",
                          UserWarning, stacklevel=2)
            return self
        if self.ndim != 2:
            hint = ". For batches of matrices, consider using tensor.mH" if self.ndim > 2 else "."
            raise RuntimeError("tensor.H is only supported on matrices (2-D tensors). Got "
                               f"{self.ndim}-D tensor{hint}")
        return dispatch("transpose", self, 0, 1)

    @property
    def mT(self):
        """Mirrors ``torch.Tensor.mT``: the ``transpose`` op of the last two dims.

        A 0-dim tensor is returned itself, with PyTorch's deprecation UserWarning.

        Raises:
            RuntimeError: a 1-D tensor ("tensor.mT is only supported on matrices or batches of
                matrices. Got 1-D tensor.").
        """
        if self.ndim == 0:
            warnings.warn("Tensor.mT is deprecated on 0-D tensors. This function is the identity "
                          "in these cases.", UserWarning, stacklevel=2)
            return self
        if self.ndim == 1:
            raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. "
                               "Got 1-D tensor.")
        return dispatch("transpose", self, -2, -1)

    @property
    def mH(self):
        """Mirrors ``torch.Tensor.mH``: the conjugate transpose of the last two dims (minigrad's
        dtypes are real: the ``transpose`` op of dims -2 and -1). A 0-dim tensor is returned
        itself, with PyTorch's deprecation UserWarning.

        Raises:
            RuntimeError: a 1-D tensor ("tensor.mH is only supported on matrices or batches of
                matrices. Got 1-D tensor.").
        """
        return _adjoint(self, "Tensor.mH", "tensor.mH")

    def adjoint(self):
        """Mirrors ``torch.Tensor.adjoint``: ``mH`` (its 0-dim warning and 1-D error name
        ``adjoint()``, as PyTorch's)."""
        return _adjoint(self, "adjoint()", "tensor.adjoint()")

    def unsqueeze(self, dim):
        """Mirrors ``torch.Tensor.unsqueeze``: the ``unsqueeze`` op (its errors apply)."""
        return dispatch("unsqueeze", self, dim)

    def squeeze(self, dim=None):
        """Mirrors ``torch.Tensor.squeeze``: the ``squeeze`` op (its errors apply)."""
        return dispatch("squeeze", self, dim)

    def expand(self, *sizes, **kw):
        """Mirrors ``torch.Tensor.expand``: the ``expand`` op (its errors apply); the sizes as
        varargs, one sequence, or ``size=``."""
        return dispatch("expand", self, _shape_args(sizes, kw, "expand", "size"))

    def expand_as(self, other):
        """Mirrors ``torch.Tensor.expand_as``: the ``expand`` op (its errors apply)."""
        return dispatch("expand", self, other.shape)

    def split(self, split_size, dim=0):
        """Mirrors ``torch.Tensor.split``: ``minigrad.split`` (a tuple of views)."""
        return _fns().split(self, split_size, dim)

    def chunk(self, chunks, dim=0):
        """Mirrors ``torch.Tensor.chunk``: ``minigrad.chunk`` (a tuple of views)."""
        return _fns().chunk(self, chunks, dim)

    def hsplit(self, indices_or_sections):
        """Mirrors ``torch.Tensor.hsplit``: ``minigrad.hsplit`` (a tuple of views)."""
        return _fns().hsplit(self, indices_or_sections)

    def vsplit(self, indices_or_sections):
        """Mirrors ``torch.Tensor.vsplit``: ``minigrad.vsplit`` (a tuple of views)."""
        return _fns().vsplit(self, indices_or_sections)

    def dsplit(self, indices_or_sections):
        """Mirrors ``torch.Tensor.dsplit``: ``minigrad.dsplit`` (a tuple of views)."""
        return _fns().dsplit(self, indices_or_sections)

    def tensor_split(self, indices_or_sections, dim=0):
        """Mirrors ``torch.Tensor.tensor_split``: ``minigrad.tensor_split`` (a tuple of
        views)."""
        return _fns().tensor_split(self, indices_or_sections, dim)

    def unbind(self, dim=0):
        """Mirrors ``torch.Tensor.unbind``: ``minigrad.unbind`` (a tuple of views)."""
        return _fns().unbind(self, dim)

    def narrow(self, dim, start, length):
        """Mirrors ``torch.Tensor.narrow``: ``minigrad.narrow`` (a slice view)."""
        return _shape_fns().narrow(self, dim, start, length)

    def movedim(self, source, destination):
        """Mirrors ``torch.Tensor.movedim``: ``minigrad.movedim`` (a ``permute`` view)."""
        return _shape_fns().movedim(self, source, destination)

    moveaxis = movedim

    def swapdims(self, dim0, dim1):
        """Mirrors ``torch.Tensor.swapdims``: the ``transpose`` op (its errors apply)."""
        return dispatch("transpose", self, dim0, dim1)

    def broadcast_to(self, size):
        """Mirrors ``torch.Tensor.broadcast_to``: the ``expand`` op (its errors apply)."""
        return dispatch("expand", self, tuple(size))

    def diagonal(self, offset=0, dim1=0, dim2=1):
        """Mirrors ``torch.Tensor.diagonal``: the ``diagonal`` view (its errors apply)."""
        return dispatch("diagonal", self, offset, dim1, dim2)

    def unfold(self, dimension, size, step):
        """Mirrors ``torch.Tensor.unfold``: the ``unfold`` view of sliding windows."""
        return dispatch("unfold", self, dimension, size, step)

    def roll(self, shifts, dims=None):
        """Mirrors ``torch.Tensor.roll``: ``minigrad.roll``."""
        return _rearrange_fns().roll(self, shifts, dims)

    def flip(self, *dims, **kw):
        """Mirrors ``torch.Tensor.flip``: the ``flip`` op (dims as varargs, one sequence, or
        ``dims=``)."""
        return dispatch("flip", self, _shape_args(dims, kw, "flip", "dims"))

    def fliplr(self):
        """Mirrors ``torch.Tensor.fliplr``: ``minigrad.fliplr``."""
        return _rearrange_fns().fliplr(self)

    def flipud(self):
        """Mirrors ``torch.Tensor.flipud``: ``minigrad.flipud``."""
        return _rearrange_fns().flipud(self)

    def repeat(self, *repeats, **kw):
        """Mirrors ``torch.Tensor.repeat``: the ``repeat`` op (its errors apply).

        Raises:
            TypeError: no repeats given (PyTorch's message).
        """
        if not repeats and not kw:
            raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
        return dispatch("repeat", self, _shape_args(repeats, kw, "repeat", "repeats"))

    def repeat_interleave(self, repeats, dim=None, *, output_size=None):
        """Mirrors ``torch.Tensor.repeat_interleave``: ``minigrad.repeat_interleave``."""
        return _rearrange_fns().repeat_interleave(self, repeats, dim, output_size=output_size)

    def tile(self, *dims, **kw):
        """Mirrors ``torch.Tensor.tile``: ``minigrad.tile`` (the ``repeat`` op); ``dims`` as
        varargs, one sequence, or ``dims=``."""
        return _rearrange_fns().tile(self, _shape_args(dims, kw, "tile", "dims"))

    def tril(self, diagonal=0):
        """Mirrors ``torch.Tensor.tril``: the ``tril`` op."""
        return dispatch("tril", self, diagonal)

    def triu(self, diagonal=0):
        """Mirrors ``torch.Tensor.triu``: the ``triu`` op."""
        return dispatch("triu", self, diagonal)

    def diag(self, diagonal=0):
        """Mirrors ``torch.Tensor.diag``: ``minigrad.diag``."""
        return _rearrange_fns().diag(self, diagonal)

    def diag_embed(self, offset=0, dim1=-2, dim2=-1):
        """Mirrors ``torch.Tensor.diag_embed``: the ``diag_embed`` op."""
        return dispatch("diag_embed", self, offset, dim1, dim2)


def _adjoint(t, name, error_name):
    """``mH`` / ``adjoint()``: the last two dims transposed (real dtypes: no conjugation)."""
    if t.ndim == 0:
        warnings.warn(f"{name} is deprecated on 0-D tensors. Consider using x.conj().",
                      UserWarning, stacklevel=3)
        return t
    if t.ndim == 1:
        raise RuntimeError(f"{error_name} is only supported on matrices or batches of matrices. "
                           "Got 1-D tensor.")
    return dispatch("transpose", t, -2, -1)
