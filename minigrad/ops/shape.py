"""Shape ops and views: expand, reshape, view, _unsafe_view, transpose, permute, t, (un)squeeze,
flatten. Indexing lives in ``index.py``, cat/stack in ``concat.py``.

Views share storage with their base (NumPy views) and record ``_base``, as PyTorch views do;
view ops derive from ``ViewFunction`` so their outputs carry autograd's view metadata
(``minigrad.autograd.views``: in-place ops on them record ``CopySlices``).
Every view's backward is itself a dispatched view/shape op, so double backward works.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..autograd.views import ViewFunction
from .. import memory_layout as _mf
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import wrap_dim, wrap_dims


def _view_of(base, arr):
    """A Tensor over ``arr`` (a NumPy view of ``base._data``) sharing ``base``'s version counter;
    ``_base`` is the root of the view family. ``ViewFunction.apply`` adds the autograd view
    metadata. A view is an inference tensor exactly when its base is."""
    t = Tensor._make(arr, base.dtype)
    t._vc = base._vc
    t._base = base if base._base is None else base._base
    if t._inference is not base._inference:
        t._inference = base._inference
    return t


@register_op("expand")
class Expand(ViewFunction):
    """``expand(input, size)``: a broadcast view; -1 keeps a dim (``Tensor.expand``).

    Raises:
        RuntimeError: "The expanded size of the tensor (4) must match the existing size (3) at
            non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [3]"
    """

    _backward_name = "ExpandBackward0"

    @staticmethod
    def forward(ctx, input, size):
        size = tuple(size)
        shape = input.shape
        lead = len(size) - len(shape)
        if lead < 0:
            from ..dtypes import legacy_type_name
            raise RuntimeError(f"expand({legacy_type_name(input.dtype)}{{{list(shape)}}}, "
                               f"size={list(size)}): the number of sizes provided "
                               f"({len(size)}) must be greater or equal to the number of "
                               f"dimensions in the tensor ({len(shape)})")
        target = []
        for i, s in enumerate(size):
            if i < lead:
                if s < 0:
                    raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in "
                                       "a leading, non-existing dimension 0")
                target.append(s)
                continue
            cur = shape[i - lead]
            if s == -1:
                s = cur
            if cur != s and cur != 1:
                raise RuntimeError(f"The expanded size of the tensor ({s}) must match the "
                                   f"existing size ({cur}) at non-singleton dimension {i}.  "
                                   f"Target sizes: {list(size)}.  Tensor sizes: {list(shape)}")
            target.append(s)
        ctx.in_shape = shape
        # a writable broadcast view (as PyTorch's expand: writes through it reach the base)
        data = input._data
        lead_shape = (0,) * lead
        strides = lead_shape + tuple(0 if s != n else st for s, n, st in
                                     zip(target[lead:], shape, data.strides))
        if data.flags.c_contiguous:
            # fast path for a contiguous input (a bias, say): NumPy's array constructor over its
            # buffer makes the same view as ``as_strided`` (same strides, writability and base
            # owner) without that function's Python wrapper, which costs ~20x more
            return _view_of(input, np.ndarray(tuple(target), data.dtype, data, 0, strides))
        return _view_of(input, np.lib.stride_tricks.as_strided(data, tuple(target), strides))

    @staticmethod
    def backward(ctx, grad):
        return dispatch("sum_to_size", grad, ctx.in_shape)


def _infer_shape(shape, numel, input_shape):
    shape = list(shape)
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s}")
            known *= s
    if neg:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
        shape[neg[0]] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
    return tuple(shape)


@register_op("reshape")
def reshape(input, shape):
    """``reshape(input, shape)``: a view when possible, else a copy (``torch.reshape``).

    As in PyTorch: a contiguous input gives ``view`` (node ``ViewBackward0``), a strided input
    that still allows a view gives ``_reshape_alias`` (``ReshapeAliasBackward0``), otherwise it is
    ``_unsafe_view(clone(input), shape)`` (``UnsafeViewBackward0`` over ``CloneBackward0``).

    Raises:
        RuntimeError: "shape '[2, 5]' is invalid for input of size 6".
    """
    shape = _infer_shape(shape, input.numel(), input.shape)
    data = input._data
    if data.flags.c_contiguous:
        return dispatch("view", input, shape)
    try:
        np.reshape(data, shape, copy=False)
    except ValueError:
        return dispatch("_unsafe_view", dispatch("clone", input,
                                                  memory_format=_mf.contiguous_format), shape)
    return dispatch("_reshape_alias", input, shape)


_VIEW_ERR = ("view size is not compatible with input tensor's size and stride (at least one "
             "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")


@register_op("view")
class View(ViewFunction):
    """``view(input, shape)``: the same storage seen with another shape (``Tensor.view``).

    Raises:
        RuntimeError: "shape '[5, -1]' is invalid for input of size 24"; or, when the strides do
            not allow a view, "view size is not compatible with input tensor's size and stride
            (at least one dimension spans across two contiguous subspaces). Use .reshape(...)
            instead."
    """

    _backward_name = "ViewBackward0"

    @staticmethod
    def forward(ctx, input, shape):
        shape = _infer_shape(shape, input.numel(), input.shape)
        ctx.in_shape = input.shape
        try:
            arr = np.reshape(input._data, shape, copy=False)
        except ValueError:
            raise RuntimeError(_VIEW_ERR) from None
        return _view_of(input, arr)

    @staticmethod
    def backward(ctx, grad):
        return dispatch("reshape", grad, ctx.in_shape)


@register_op("view.dtype")
class ViewDtype(Function):
    """``view(input, dtype)``: the same bytes read as ``dtype`` (``Tensor.view(dtype)``); the
    last dim is scaled by the ratio of the element sizes. It shares the storage and version
    counter of ``input`` (writes reach it) and is not differentiable, as in PyTorch
    (``output_differentiability: [False]``): the result never requires grad.

    Raises:
        RuntimeError: with different element sizes, PyTorch's "self.dim() cannot be 0 to view
            Float as Half (different element sizes)", "self.stride(-1) must be 1 to view Float
            as Half (different element sizes), but got 3", "self.size(-1) must be divisible by
            2 to view Half as Float (different element sizes), but got 3".
    """

    @staticmethod
    def forward(ctx, input, dtype):
        arr = input._data
        old, new = input.dtype.itemsize, dtype.itemsize
        what = f"view {_dt.NAMES[input.dtype.name][0]} as {_dt.NAMES[dtype.name][0]}"
        if old != new:
            if arr.ndim == 0:
                raise RuntimeError(f"self.dim() cannot be 0 to {what} (different element sizes)")
            if arr.shape[-1] > 1 and arr.strides[-1] != old:
                raise RuntimeError(f"self.stride(-1) must be 1 to {what} (different element "
                                   f"sizes), but got {arr.strides[-1] // old}")
            if new > old and arr.shape[-1] % (new // old):
                raise RuntimeError(f"self.size(-1) must be divisible by {new // old} to {what} "
                                   f"(different element sizes), but got {arr.shape[-1]}")
        out = Tensor._make(arr.view(dtype.np), dtype)
        out._vc = input._vc
        out._base = input if input._base is None else input._base
        out._inference = input._inference
        ctx.mark_non_differentiable(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("view(dtype) is not differentiable")


@register_op("_reshape_alias")
class ReshapeAlias(View):
    """``_reshape_alias(input, shape)``: the view ``reshape`` makes of a non-contiguous input
    whose strides allow it (node ``ReshapeAliasBackward0``, as in PyTorch)."""

    _backward_name = "ReshapeAliasBackward0"


@register_op("_unsafe_view")
class UnsafeView(Function):
    """``_unsafe_view(input, shape)``: reshape of a fresh intermediate (matmul's output); the node
    is ``UnsafeViewBackward0`` as in PyTorch. The result does not record a view base."""

    _backward_name = "UnsafeViewBackward0"

    @staticmethod
    def forward(ctx, input, shape):
        shape = _infer_shape(shape, input.numel(), input.shape)
        ctx.in_shape = input.shape
        return Tensor._make(input._data.reshape(shape), input.dtype)

    @staticmethod
    def backward(ctx, grad):
        return dispatch("reshape", grad, ctx.in_shape)


@register_op("transpose")
class Transpose(ViewFunction):
    """``transpose(input, dim0, dim1)``: a view with two dims swapped (``torch.transpose``).

    Raises:
        IndexError: a dim out of range.
    """

    _backward_name = "TransposeBackward0"

    @staticmethod
    def forward(ctx, input, dim0, dim1):
        n = input.ndim
        d0, d1 = wrap_dim(dim0, n), wrap_dim(dim1, n)
        ctx.dims = (d0, d1)
        if n < 2:
            return _view_of(input, input._data.view())
        return _view_of(input, np.swapaxes(input._data, d0, d1))

    @staticmethod
    def backward(ctx, grad):
        return dispatch("transpose", grad, *ctx.dims)


@register_op("t")
class T(ViewFunction):
    """``t(input)``: transpose of a <=2-D tensor (``torch.t``); 0-D and 1-D come back as views.

    Raises:
        RuntimeError: "t() expects a tensor with <= 2 dimensions, but self is 3D".
    """

    _backward_name = "TBackward0"

    @staticmethod
    def _fast(ctx, args):
        """``Function.apply``'s fast path (see ``Function._fast``): ``forward`` itself for a
        <= 2-D tensor (it saves nothing and dispatches nothing, so it may run in grad mode);
        the 3-D error is left to ``forward``. ``ViewFunction.apply`` adds the view metadata
        either way."""
        if len(args) != 1 or type(args[0]) is not Tensor:
            return None
        input = args[0]
        a = input._data
        if a.ndim > 2:
            return None
        return _view_of(input, a.T)

    @staticmethod
    def forward(ctx, input):
        a = input._data
        if a.ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                               f"{a.ndim}D")
        return _view_of(input, a.T)

    @staticmethod
    def backward(ctx, grad):
        return dispatch("t", grad)


@register_op("permute")
class Permute(ViewFunction):
    """``permute(input, dims)``: a view with dims reordered (``torch.permute``).

    Raises:
        RuntimeError: wrong number of dims, or a repeated dim; IndexError: a dim out of range.
    """

    _backward_name = "PermuteBackward0"

    @staticmethod
    def forward(ctx, input, dims):
        n = input.ndim
        dims = tuple(dims)
        if len(dims) != n:
            raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input "
                               "does not match the length of the desired ordering of dimensions "
                               f"i.e. input.dim() = {n} is not equal to len(dims) = {len(dims)}")
        d = tuple(wrap_dim(x, n) for x in dims)
        if len(set(d)) != n:
            raise RuntimeError("permute(): duplicate dims are not allowed.")
        inv = [0] * n
        for i, x in enumerate(d):
            inv[x] = i
        ctx.inv = tuple(inv)
        return _view_of(input, input._data.transpose(d))

    @staticmethod
    def backward(ctx, grad):
        return dispatch("permute", grad, ctx.inv)


@register_op("unsqueeze")
class Unsqueeze(ViewFunction):
    """``unsqueeze(input, dim)``: a view with a size-1 dim inserted at ``dim`` (range ndim+1).

    Raises:
        IndexError: a dim out of range.
    """

    _backward_name = "UnsqueezeBackward0"

    @staticmethod
    def forward(ctx, input, dim):
        d = wrap_dim(dim, input.ndim + 1)
        ctx.dim = d
        return _view_of(input, np.expand_dims(input._data, d))

    @staticmethod
    def backward(ctx, grad):
        return dispatch("squeeze", grad, ctx.dim)


class _SqueezeBase(ViewFunction):
    @staticmethod
    def forward(ctx, input, dims):
        shape = input.shape
        if dims is None:
            axes = tuple(i for i, s in enumerate(shape) if s == 1)
        else:
            axes = tuple(i for i in dims if shape and shape[i] == 1)
        ctx.in_shape = shape
        arr = np.squeeze(input._data, axis=axes) if axes else input._data.view()
        return _view_of(input, arr)

    @staticmethod
    def backward(ctx, grad):
        return dispatch("reshape", grad, ctx.in_shape)


class _Squeeze0(_SqueezeBase):
    _backward_name = "SqueezeBackward0"


class _Squeeze1(_SqueezeBase):
    _backward_name = "SqueezeBackward1"


class _Squeeze2(_SqueezeBase):
    _backward_name = "SqueezeBackward2"


@register_op("_squeeze_result")
class _Squeeze4(_SqueezeBase):
    """``_squeeze_result(input, dims)``: the in-place ``squeeze_(dim)`` PyTorch's matmul applies to
    its own fresh result (``SqueezeBackward4``); here a view, as nobody else holds the input."""

    _backward_name = "SqueezeBackward4"


@register_op("squeeze")
def squeeze(input, dim=None):
    """``squeeze(input, dim=None)``: drop size-1 dims (all, one ``dim``, or a tuple of dims);
    a dim whose size is not 1 is left alone, as in ``torch.squeeze``. Nodes are
    ``SqueezeBackward0/1/2`` for None/int/tuple as in PyTorch.

    Raises:
        IndexError: a dim out of range; RuntimeError: a dim repeated in the tuple.
    """
    n = input.ndim
    if dim is None:
        return _Squeeze0.apply(input, None)
    if isinstance(dim, (tuple, list)):
        return _Squeeze2.apply(input, wrap_dims(tuple(dim), n) if dim else ())
    return _Squeeze1.apply(input, (wrap_dim(dim, n),))


@register_op("flatten")
def flatten(input, start_dim=0, end_dim=-1):
    """``flatten(input, start_dim=0, end_dim=-1)``: merge dims ``start_dim..end_dim`` (a
    ``reshape``, so a view when possible; ``torch.flatten``). A 0-D input becomes 1-D; when
    ``start_dim == end_dim`` the input itself is returned, as PyTorch does.

    Raises:
        IndexError: a dim out of range; RuntimeError: "flatten() has invalid args: start_dim
            cannot come after end_dim".
    """
    n = input.ndim
    s, e = wrap_dim(start_dim, n), wrap_dim(end_dim, n)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if n == 0:
        return dispatch("reshape", input, (1,))
    if s == e:
        return input
    shape = input.shape
    m = 1
    for x in shape[s:e + 1]:
        m *= x
    return dispatch("reshape", input, tuple(shape[:s]) + (m,) + tuple(shape[e + 1:]))


# ------------------------------------------------------------------ multi-output views
@register_op("unbind")
class Unbind(ViewFunction):
    """``unbind(input, dim=0)``: the slices along ``dim`` as a tuple of views (``torch.unbind``;
    one ``UnbindBackward0`` node for all of them, whose backward stacks the gradients). As in
    PyTorch, its outputs may not be modified in place while autograd records.

    Raises:
        IndexError: a 0-dim input ("Dimension specified as 0 but tensor has no dimensions"),
            ``dim`` out of range.
    """

    _backward_name = "UnbindBackward0"

    @staticmethod
    def forward(ctx, input, dim=0):
        if input.ndim == 0:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        d = wrap_dim(dim, input.ndim)
        ctx.dim = d
        data = input._data
        lead = (slice(None),) * d
        # (k, ...): a 0-d view of a 1-D array, where data[k] alone would be a NumPy scalar copy
        return tuple(_view_of(input, data[lead + (k, Ellipsis)]) for k in range(data.shape[d]))

    @staticmethod
    def backward(ctx, *grads):
        return dispatch("stack", list(grads), ctx.dim), None


class _SplitBase(ViewFunction):
    @staticmethod
    def forward(ctx, input, sizes, dim):
        ctx.dim = dim
        data = input._data
        lead = (slice(None),) * dim
        out, start = [], 0
        for n in sizes:
            out.append(_view_of(input, data[lead + (slice(start, start + n),)]))
            start += n
        return tuple(out)

    @staticmethod
    def backward(ctx, *grads):
        return dispatch("cat", list(grads), ctx.dim), None, None


@register_op("split")
class Split(_SplitBase):
    """``split(input, sizes, dim)`` with equal-size pieces (the last may be smaller): views with
    one ``SplitBackward0`` node (``torch.split(t, int)``, ``torch.chunk``); the piece sizes are
    computed (and checked) by ``minigrad.split``."""

    _backward_name = "SplitBackward0"


@register_op("split_with_sizes")
class SplitWithSizes(_SplitBase):
    """``split_with_sizes(input, sizes, dim)``: views of the listed sizes (``torch.split(t,
    list)``; node ``SplitWithSizesBackward0``)."""

    _backward_name = "SplitWithSizesBackward0"
