"""Shape views as torch-level functions (``torch.reshape``, ``transpose``, ``permute``, ``t``,
``unsqueeze``, ``squeeze``, ``flatten``, ``unflatten``, ``narrow``, ``broadcast_to``,
``movedim``/``moveaxis``, ``swapaxes``/``swapdims``, ``diagonal``, ``meshgrid``): each is one
``dispatch`` call, or the view ops PyTorch's composite function records (``narrow`` is a slice,
``movedim`` a ``permute``, ``broadcast_to`` an ``expand``, ``meshgrid`` a ``view`` and an
``expand`` per tensor), ``broadcast_shapes`` (shapes only, no tensor) and ``atleast_1d/2d/3d``
(``reshape`` / ``unsqueeze`` views).
"""
from __future__ import annotations

from ..dispatch import dispatch

__all__ = ["reshape", "transpose", "permute", "t", "unsqueeze", "squeeze", "flatten", "unflatten",
           "narrow", "broadcast_to", "broadcast_tensors", "movedim", "moveaxis", "swapaxes", "swapdims", "diagonal",
           "meshgrid", "cartesian_prod", "broadcast_shapes", "atleast_1d", "atleast_2d", "atleast_3d", "as_strided",
           "adjoint"]


def reshape(input, shape):
    """``input`` with shape ``shape`` (``torch.reshape``): a view when possible, else a
    copy; one ``-1`` is inferred.

    Raises:
        RuntimeError: the element count does not match ("shape '[...]' is invalid for input
            of size N").
    """
    return dispatch("reshape", input, tuple(shape))


def transpose(input, dim0, dim1):
    """View with dims ``dim0`` and ``dim1`` swapped (``torch.transpose``).

    Raises:
        IndexError: a dim out of range.
    """
    return dispatch("transpose", input, dim0, dim1)


def permute(input, dims):
    """View with dims reordered by ``dims`` (``torch.permute``).

    Raises:
        RuntimeError: ``dims`` is not a permutation of the input's dims.
    """
    return dispatch("permute", input, tuple(dims))


def t(input):
    """Transpose of a tensor with <= 2 dims (``torch.t``); 0-D and 1-D are returned as is.

    Raises:
        RuntimeError: more than 2 dims.
    """
    return dispatch("t", input)


def adjoint(input):
    """The conjugate transpose of the last two dims (``torch.adjoint``; minigrad's dtypes are
    real: their transpose), ``Tensor.adjoint``.

    Raises:
        RuntimeError: a 1-D tensor (PyTorch's message).
    """
    return input.adjoint()


def unsqueeze(input, dim):
    """View with a size-1 dim inserted at ``dim`` (``torch.unsqueeze``); ``dim`` in
    ``[-ndim-1, ndim]``.

    Raises:
        IndexError: ``dim`` out of range.
    """
    return dispatch("unsqueeze", input, dim)


def squeeze(input, dim=None):
    """View with size-1 dims removed (``torch.squeeze``): all of them, or only ``dim`` (int
    or tuple) when given.

    Raises:
        IndexError: ``dim`` out of range.
    """
    return dispatch("squeeze", input, dim)


def flatten(input, start_dim=0, end_dim=-1):
    """Merge dims ``start_dim..end_dim`` into one (``torch.flatten``); a view when possible;
    0-D gives shape (1,).

    Raises:
        IndexError: a dim out of range.
        RuntimeError: ``start_dim`` after ``end_dim``.
    """
    return dispatch("flatten", input, start_dim, end_dim)


def unflatten(input, dim, sizes):
    """Split dim ``dim`` into ``sizes`` (``torch.unflatten``): the ``view`` op with shape
    ``input.shape[:dim] + sizes + input.shape[dim+1:]`` (splitting one dim is always a view, as
    in PyTorch, whose graph node is ``ViewBackward0`` too); one size may be -1 (inferred).

    Raises:
        TypeError: ``sizes`` is not a tuple/list of ints.
        IndexError: ``dim`` out of range; RuntimeError: a 0-dim input, empty ``sizes``, more
            than one -1, or sizes whose product is not the size of ``dim`` (PyTorch's
            messages).
    """
    if not isinstance(sizes, (tuple, list)):
        raise TypeError("unflatten(): argument 'sizes' (position 2) must be tuple of ints, not "
                        + type(sizes).__name__)
    for i, s in enumerate(sizes):
        if not isinstance(s, int) or isinstance(s, bool):
            raise TypeError("unflatten(): argument 'sizes' (position 2) must be tuple of ints, "
                            f"but found element of type {type(s).__name__} at pos {i}")
    shape = tuple(input.shape)
    if not shape:
        raise RuntimeError(f"unflatten got an unexpected error:\nDimension specified as {dim} "
                           "but tensor has no dimensions")
    n = len(shape)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    dim %= n
    sizes = tuple(sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if sizes.count(-1) > 1:
        raise RuntimeError("unflatten got an unexpected error:\nonly one dimension can be "
                           "inferred")
    for i, s in enumerate(sizes):
        if s < -1:
            raise RuntimeError(f"unflatten got an unexpected error:\ninvalid shape dimension {s} "
                               f"at index {i} of shape {list(sizes)}")
    known = 1
    for s in sizes:
        known *= s if s != -1 else 1
    if -1 in sizes and known == 0 and shape[dim] == 0:
        raise RuntimeError("unflatten got an unexpected error:\ncannot reshape tensor of 0 "
                           f"elements into shape {list(sizes)} because the unspecified "
                           "dimension size -1 can be any value and is ambiguous")
    if (known != shape[dim]) if -1 not in sizes else (known == 0 or shape[dim] % known):
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the "
                           f"size of dim {dim} ({shape[dim]}) in the input tensor")
    return dispatch("view", input, shape[:dim] + sizes + shape[dim + 1:])


def narrow(input, dim, start, length):
    """The view of ``length`` elements of ``dim`` from ``start`` (``torch.narrow``; a slice, node
    ``SliceBackward0`` as in PyTorch). A negative ``start`` counts from the end.

    Raises:
        RuntimeError: a 0-dim input ("narrow() cannot be applied to a 0-dim tensor."), a
            negative length, ``start + length`` past the end ("start (3) + length (2) exceeds
            dimension size (4)."); IndexError: ``dim`` or ``start`` out of range.
    """
    from ..ops._util import wrap_dim
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = wrap_dim(dim, input.ndim)
    size = input.shape[d]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start})")
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({size}).")
    return dispatch("index", input, (slice(None),) * d + (slice(start, start + length),))


def broadcast_to(input, size):
    """``input`` broadcast to ``size`` (``torch.broadcast_to``: the ``expand`` view).

    Raises:
        RuntimeError: sizes that do not match (``expand``'s messages).
    """
    return dispatch("expand", input, tuple(size))


def broadcast_tensors(*tensors):
    """The tensors broadcast to their common shape (``torch.broadcast_tensors``): each an
    ``expand`` view (node ``ExpandBackward0``), or the tensor itself where its shape already is
    the common one (as ATen's ``expand_outplace``).

    Args:
        *tensors: Tensors (a single list or tuple of them is accepted too, as PyTorch).

    Returns:
        a tuple of Tensors, one per input.

    Raises:
        TypeError: an element that is no Tensor ("expected Tensor as element 1 in argument 0,
            but got int").
        RuntimeError: shapes that do not broadcast ("The size of tensor a (2) must match the
            size of tensor b (3) at non-singleton dimension 0").
    """
    from ..ops._util import broadcast_shapes
    from ..tensor import Tensor
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(t).__name__}")
    shape = broadcast_shapes(*(tuple(t.shape) for t in tensors))
    return tuple(t if tuple(t.shape) == shape else dispatch("expand", t, shape) for t in tensors)


def movedim(input, source, destination):
    """View with dims ``source`` moved to positions ``destination``, the others kept in order
    (``torch.movedim``; a ``permute``, node ``PermuteBackward0``).

    Raises:
        RuntimeError: source and destination of different lengths, a repeated dim
            ("movedim: repeated dim in `source` ([0, 0])"); IndexError: a dim out of range.
    """
    from ..ops._util import wrap_dim
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} "
                           f"dims) should contain the same number of dims as destination "
                           f"({list(dst)} dims)")
    n = input.ndim
    ws = [wrap_dim(d, n) for d in src]
    wd = [wrap_dim(d, n) for d in dst]
    for name, given, w in (("source", src, ws), ("destination", dst, wd)):
        if len(set(w)) != len(w):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({list(given)})")
    order = [None] * n
    for s, d in zip(ws, wd):
        order[d] = s
    rest = iter(k for k in range(n) if k not in ws)
    perm = tuple(o if o is not None else next(rest) for o in order)
    return dispatch("permute", input, perm)


moveaxis = movedim


def swapaxes(input, axis0, axis1):
    """``torch.swapaxes``: the ``transpose`` view (its errors apply)."""
    return dispatch("transpose", input, axis0, axis1)


def swapdims(input, dim0, dim1):
    """``torch.swapdims``: the ``transpose`` view (its errors apply)."""
    return dispatch("transpose", input, dim0, dim1)


def diagonal(input, offset=0, dim1=0, dim2=1):
    """View of the diagonal over ``dim1``/``dim2`` as the last dim (``torch.diagonal``).

    Raises:
        RuntimeError: ``dim1 == dim2``; IndexError: a dim out of range.
    """
    return dispatch("diagonal", input, offset, dim1, dim2)


def meshgrid(*tensors, indexing=None):
    """Coordinate grids of 0-D/1-D tensors (``torch.meshgrid``): output ``i`` is ``tensors[i]``
    viewed along dim ``i`` and expanded to ``(len(t0), len(t1), ...)`` (``indexing="ij"``, the
    default, with PyTorch's warning when ``indexing`` is not given) or with the first two dims
    swapped (``"xy"``). A single list/tuple of tensors is accepted, as PyTorch's old interface.

    Raises:
        RuntimeError: "torch.meshgrid: indexing must be one of "xy" or "ij", but received: foo",
            a tensor of more than one dim, or tensors of different dtypes.
    """
    import warnings
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the "
                      "indexing argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("xy", "ij"):
        raise RuntimeError('torch.meshgrid: indexing must be one of "xy" or "ij", but '
                           f"received: {indexing}")
    if not tensors:
        raise RuntimeError("torch.meshgrid: Expected at least one tensor")
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list "
                               f"but got: {t}")
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError("torch.meshgrid: Expected all tensors in the tensor list to "
                               "have the same dtype")
    sizes = [t.numel() for t in tensors]
    swap = indexing == "xy" and len(tensors) >= 2
    if swap:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for i, t in enumerate(tensors):
        axis = (1 - i if i < 2 else i) if swap else i
        shape = [1] * len(tensors)
        shape[axis] = -1
        out.append(dispatch("expand", dispatch("view", t, shape), sizes))
    return tuple(out)


def cartesian_prod(*tensors):
    """The cartesian product of 1-D tensors as rows (``torch.cartesian_prod``), ATen's composite:
    the ``"ij"`` meshgrid, each grid flattened, stacked along dim 1; one tensor is returned
    as it is.

    Raises:
        RuntimeError: a tensor that is not 1-D, no tensors, or tensors of different dtypes
            (PyTorch's messages).
    """
    for t in tensors:
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    if any(t.dtype is not tensors[0].dtype for t in tensors):
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    grids = meshgrid(*tensors, indexing="ij")
    return dispatch("stack", [dispatch("reshape", g, (-1,)) for g in grids], 1)


def broadcast_shapes(*shapes):
    """The shape that tensors of ``shapes`` broadcast to (``torch.broadcast_shapes``); an int
    is a 1-d shape; no shapes give ``Size([])``.

    Raises:
        RuntimeError: shapes that do not broadcast, or a shape that is not an int or a
            sequence of ints (PyTorch's messages). ValueError: a negative size.
    """
    from ..tensor import Size
    shapes = tuple((x,) if isinstance(x, int) else x for x in shapes if x is not None)
    if not shapes:
        return Size([])
    for shape in shapes:
        if not isinstance(shape, (tuple, list)):
            raise RuntimeError("Input shapes should be of type ints, a tuple of ints, or a list "
                               f"of ints, got {shape}")
    common = [1] * max(len(shape) for shape in shapes)
    for arg_idx, shape in enumerate(shapes):
        for idx in range(-1, -1 - len(shape), -1):
            if shape[idx] == common[idx]:
                continue
            if common[idx] == 1:
                if shape[idx] < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[idx] = shape[idx]
            elif shape[idx] != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {shape[idx]} "
                                   f"at {idx}! Mismatching argument at index {arg_idx} had "
                                   f"{shape}; but expected shape should be broadcastable to "
                                   f"{common}")
    return Size(common)


def _atleast(tensors, fix):
    """Apply ``fix`` to one tensor, or to each of several (a tuple back), as PyTorch's
    ``atleast_*d`` do: one Tensor argument gives a Tensor, a list or several give a tuple."""
    if len(tensors) == 1:
        tensors = tensors[0]
        if not isinstance(tensors, (list, tuple)):
            return fix(tensors)
    return tuple(fix(t) for t in tensors)


def atleast_1d(*tensors):
    """View a 0-d tensor as 1-d (others unchanged) (``torch.atleast_1d``)."""
    return _atleast(tensors, lambda t: t.reshape(1) if t.dim() == 0 else t)


def atleast_2d(*tensors):
    """View 0-d as (1, 1) and (N) as (1, N) (``torch.atleast_2d``)."""
    def fix(t):
        if t.dim() == 0:
            return t.reshape(1, 1)
        return t.unsqueeze(0) if t.dim() == 1 else t
    return _atleast(tensors, fix)


def atleast_3d(*tensors):
    """View 0-d as (1, 1, 1), (N) as (1, N, 1) and (M, N) as (M, N, 1)
    (``torch.atleast_3d``)."""
    def fix(t):
        if t.dim() == 0:
            return t.reshape(1, 1, 1)
        if t.dim() == 1:
            return t.unsqueeze(0).unsqueeze(-1)
        return t.unsqueeze(-1) if t.dim() == 2 else t
    return _atleast(tensors, fix)


def as_strided(input, size, stride, storage_offset=None):
    """A view of ``input``'s storage with the given ``size``, ``stride`` (in elements) and
    ``storage_offset`` (default: the input's own) (``torch.as_strided``): the ``as_strided``
    op, node ``AsStridedBackward0`` (its errors apply: negative strides, a geometry past the
    storage)."""
    return dispatch("as_strided", input, size, stride, storage_offset)
