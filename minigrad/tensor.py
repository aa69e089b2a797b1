"""``Tensor``: storage, autograd metadata, and methods that only call dispatched ops.

Mirrors ``torch.Tensor``. The array lives in ``_data`` in its real format (``np.float16``,
``ml_dtypes.bfloat16``...); every arithmetic method goes through ``minigrad.dispatch``, so modes
(autocast, profiler) see it. ``.data`` is, as in PyTorch, a detached Tensor sharing the storage;
``.numpy()`` gives the NumPy array itself (for bfloat16 an ``ml_dtypes.bfloat16`` array, where
PyTorch raises: a deliberate difference).
"""
from __future__ import annotations

import numpy as np

from . import _namespace, _widening
from ._global_flags import warn_once
from . import dtypes as _dt
from ._autograd_state import _INFERENCE_ACTIVE, grad_enabled, inference_enabled
from .devices import CPU, as_device, parse_to, restore_device, track_storage
from .dispatch import dispatch
from ._tensor_ops import TensorOpsMixin
from .storage import StorageMixin
from .legacy_tensor_types import tensortype

__all__ = ["Tensor", "Size"]


class Size(tuple):
    """A tensor shape, a tuple of ints (``torch.Size``)."""

    def __repr__(self):
        """Mirrors ``torch.Tensor.__repr__``."""
        return f"{_namespace.display_name()}.Size({list(self)})"

    def numel(self) -> int:
        """Mirrors ``torch.Size.numel``."""
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, key):
        """An int, or a Size for a slice (``torch.Size``'s, where a tuple slice is a tuple)."""
        r = tuple.__getitem__(self, key)
        return Size(r) if type(key) is slice else r

    def __add__(self, other):
        """Mirrors ``torch.Size.__add__``: a Size (``batch_shape + event_shape``)."""
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other):
        """``tuple + Size`` is a Size, as in PyTorch."""
        return Size(tuple(other) + tuple(self))

    def __mul__(self, n):
        """Mirrors ``torch.Size.__mul__``: a Size repeated ``n`` times."""
        return Size(tuple(self) * n)

    __rmul__ = __mul__


_ND = np.ndarray
_new = object.__new__


# minigrad.autograd's modules import this one, so the two functions of theirs that Tensor calls
# are imported on the first call, which also rebinds the global to the function itself (an
# import statement per call costs as much as a small op's Python work)
def _view_grad_fn(t):
    """``minigrad.autograd.views.view_grad_fn(t)``."""
    global _view_grad_fn
    from .autograd.views import view_grad_fn
    _view_grad_fn = view_grad_fn
    return view_grad_fn(t)


def _engine_backward(*args):
    """``minigrad.autograd.engine.backward(*args)``."""
    global _engine_backward
    from .autograd.engine import backward
    _engine_backward = backward
    return backward(*args)


#: ``__float__``'s warning was given (PyTorch's TORCH_WARN_ONCE: once per process)
_FLOAT_WARNED = [False]

class Tensor(TensorOpsMixin, StorageMixin):
    """An n-dimensional array with autograd metadata (``torch.Tensor``).

    Attributes:
        dtype: a ``minigrad.dtypes.DType``.
        device: a ``minigrad.device``: cpu, or the emulated ``cuda:0`` (see ``minigrad.devices``).
        shape: a ``Size`` (tuple of ints); ``ndim`` its length.
        requires_grad: whether ops on it are recorded; only leaves may change it.
        grad: the accumulated gradient (a Tensor of the same shape and dtype) or None.
        grad_fn: the node that made it (None for leaves).
        is_leaf: True when ``grad_fn`` is None.

    Build tensors with ``minigrad.tensor(...)`` and the factories, not with this class.
    """

    __slots__ = ("_data", "dtype", "_requires_grad", "_grad_fn", "_output_nr", "_base",
                 "_vc", "_view", "__weakref__", "__dict__")
    # rarely set (leaves, hooks): class-level defaults, so that making a tensor sets none of them
    _grad = None
    _grad_accumulator = None
    _hooks = None
    _post_acc_hooks = None
    _retains_grad = None
    __array_priority__ = 1000
    __array_ufunc__ = None       # NumPy operators defer to ours: ``ndarray * t`` is a Tensor
    _inference = False           # set per tensor (in __dict__) for inference tensors
    _device = CPU       # a cuda tensor sets its own (an instance attribute): see minigrad.devices

    def __new__(cls, *args, device=None):
        """``torch.Tensor(...)``, PyTorch's legacy constructor, in the default dtype: no argument
        (an empty tensor), sizes (``Tensor(2, 3)``: uninitialised, zeros here), data
        (``Tensor([1, 2])``), or a Tensor of that dtype (returned as it is). Prefer
        ``minigrad.tensor`` and the factories; see ``minigrad.legacy_tensor_types``.

        Raises:
            TypeError, RuntimeError: as ``minigrad.legacy_tensor_types.legacy_new``.
        """
        from .legacy_tensor_types import legacy_new
        if cls is not Tensor:
            raise TypeError(f"{cls.__name__}() cannot be built through Tensor.__new__")
        return legacy_new(_dt.get_default_dtype(), "cpu" if device is None
                          else as_device(device).type, *args, device=device)

    def __init__(self, *args, **kwargs):
        """Nothing to do: ``__new__`` built the tensor (``torch.Tensor.__init__``)."""

    @classmethod
    def _make(cls, arr, dtype=None, requires_grad=False):
        """Wrap a NumPy array (no copy, no rounding); ``dtype`` defaults to the array's.

        A NumPy scalar (what NumPy ufuncs return for 0-d inputs) becomes a 0-d array here, so a
        0-d tensor always holds an ndarray, whichever kernel made it.
        """
        if type(arr) is not _ND:
            arr = np.asarray(arr)
        t = _new(cls)
        t._data = arr
        t.dtype = _dt.from_numpy(arr.dtype) if dtype is None else dtype
        t._requires_grad = requires_grad
        t._grad_fn = None
        t._output_nr = 0
        t._base = None
        t._view = None
        t._vc = [0]
        if _INFERENCE_ACTIVE[0] and inference_enabled():
            t._inference = True
        return t

    def _alias(self):
        """A new Tensor object sharing storage and version counter (a trivial view)."""
        t = Tensor._make(self._data, self.dtype)
        t._vc = self._vc
        t._base = self if self._base is None else self._base
        if self._device is not CPU:
            t._device = self._device
        return t

    def _detached_copy(self):
        """Mirrors ``torch.Tensor._detached_copy`` (always an ndarray, even for 0-dim data)."""
        t = Tensor._make(np.array(self._data, copy=True), self.dtype)
        if self._device is not CPU:
            t._device = self._device
            track_storage(t)
        return t

    # ------------------------------------------------------------------ metadata
    @property
    def shape(self):
        """Mirrors ``torch.Tensor.shape``."""
        return Size(self._data.shape)

    def size(self, dim=None):
        """The shape, or its ``dim``-th entry (negative dims count from the end)."""
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_wrap_dim(dim, self.ndim)]

    @property
    def ndim(self) -> int:
        """Mirrors ``torch.Tensor.ndim``."""
        return self._data.ndim

    def dim(self) -> int:
        """Mirrors ``torch.Tensor.dim``."""
        return self._data.ndim

    def numel(self) -> int:
        """Mirrors ``torch.Tensor.numel``."""
        return int(self._data.size)

    nelement = numel

    def element_size(self) -> int:
        """Mirrors ``torch.Tensor.element_size``."""
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        """Mirrors ``torch.Tensor.nbytes``."""
        return int(self._data.nbytes)

    @property
    def itemsize(self) -> int:
        """Mirrors ``torch.Tensor.itemsize``."""
        return self.dtype.itemsize

    @property
    def device(self):
        """Where the tensor lives, a ``minigrad.device`` (``torch.Tensor.device``): cpu, or
        ``cuda:0``, the emulated GPU (host memory, same kernels; see ``minigrad.devices``)."""
        return self._device

    @property
    def is_cuda(self) -> bool:
        """Mirrors ``torch.Tensor.is_cuda``: True on the (emulated) cuda device."""
        return self._device.type == "cuda"

    @property
    def is_cpu(self) -> bool:
        """Mirrors ``torch.Tensor.is_cpu``."""
        return self._device.type == "cpu"

    # devices and layouts minigrad never makes: False, so that a script's checks take the
    # dense-cpu/cuda path (dcgan tests ``input.is_cuda or input.is_xpu``)
    is_xpu = property(lambda self: False, doc="Mirrors ``torch.Tensor.is_xpu``: always False.")
    is_mps = property(lambda self: False, doc="Mirrors ``torch.Tensor.is_mps``: always False.")
    is_meta = property(lambda self: False, doc="Mirrors ``torch.Tensor.is_meta``: always False.")
    is_sparse = property(lambda self: False,
                         doc="Mirrors ``torch.Tensor.is_sparse``: False (``minigrad.sparse``'s "
                             "SparseCOOTensor says True).")

    @property
    def layout(self):
        """Mirrors ``torch.Tensor.layout``: ``minigrad.strided`` (sparse tensors:
        ``minigrad.sparse_coo``)."""
        from .sparse import strided
        return strided

    def to_sparse(self, *args, **kwargs):
        """Mirrors ``torch.Tensor.to_sparse``: a COO tensor emulated on dense storage (see
        ``minigrad.sparse``)."""
        from .sparse import to_sparse
        return to_sparse(self, *args, **kwargs)

    def to_dense(self, dtype=None, *, masked_grad=None):
        """Mirrors ``torch.Tensor.to_dense``: ``self`` for a strided tensor."""
        return self if dtype is None else self.to(dtype)
    is_quantized = property(lambda self: False,
                            doc="Mirrors ``torch.Tensor.is_quantized``: always False.")
    is_mkldnn = property(lambda self: False, doc="Mirrors ``torch.Tensor.is_mkldnn``: False.")
    is_nested = property(lambda self: False, doc="Mirrors ``torch.Tensor.is_nested``: False.")

    def get_device(self) -> int:
        """Mirrors ``torch.Tensor.get_device``: the cuda ordinal, -1 on the cpu."""
        return -1 if self._device.type == "cpu" else self._device.index

    def is_floating_point(self) -> bool:
        """Mirrors ``torch.Tensor.is_floating_point``."""
        return self.dtype.is_floating_point

    def is_contiguous(self, memory_format=None) -> bool:
        """Mirrors ``torch.Tensor.is_contiguous``: dense in ``memory_format`` (default
        ``contiguous_format``; ``channels_last``/``channels_last_3d``: NHWC/NDHWC order).
        """
        if memory_format is None:
            return bool(self._data.flags.c_contiguous)
        from .memory_layout import is_contiguous_as
        return is_contiguous_as(self._data, memory_format)

    @property
    def _version(self) -> int:
        """Mirrors ``torch.Tensor._version``.

        Raises:
            RuntimeError: on an inference tensor ("Inference tensors do not track version
                counter.").
        """
        if self._inference:
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._vc[0]

    def is_inference(self) -> bool:
        """Whether this is an inference tensor, made under ``inference_mode``
        (``torch.Tensor.is_inference``)."""
        return self._inference

    def _bump(self):
        """Mirrors ``torch.Tensor._bump``."""
        self._vc[0] += 1

    @property
    def grad(self):
        """The accumulated gradient: None or a Tensor of this tensor's shape and dtype.

        Warns:
            UserWarning: reading it on a non-leaf that does not retain its grad (PyTorch's
                warning: such a ``.grad`` is never populated).
        """
        g = self._grad
        if g is None and self.grad_fn is not None and not self._retains_grad:
            import warnings
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its "
                ".grad attribute won't be populated during autograd.backward(). If you indeed "
                "want the .grad field to be populated for a non-leaf Tensor, use .retain_grad() "
                "on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure "
                "you access the leaf Tensor instead.", UserWarning, stacklevel=2)
        return g

    @grad.setter
    def grad(self, value):
        """Mirrors ``torch.Tensor.grad``."""
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError("assigned grad expected to be a Tensor or None but got grad of "
                                f"type {type(value).__name__}")
            if value._data.shape != self._data.shape:
                raise RuntimeError(f"attempting to assign a gradient of size "
                                   f"'{list(value._data.shape)}' to a tensor of size "
                                   f"'{list(self._data.shape)}'. Please ensure that the gradient "
                                   "and the tensor are the same size")
            if value._device is not self._device:
                raise RuntimeError(f"attempting to assign a gradient with device type "
                                   f"'{value._device.type}' to a tensor with device type "
                                   f"'{self._device.type}'. Please ensure that the gradient "
                                   "and the tensor are on the same device")
            if value.dtype is not self.dtype:
                raise RuntimeError(f"attempting to assign a gradient with dtype "
                                   f"'{value.dtype.cpp_name}' to a tensor with "
                                   f"grad_dtype '{self.dtype.scalar_name}'. The gradient must "
                                   "match the tensor's grad_dtype (defaults to the tensor's "
                                   "dtype). You can set the tensor's grad_dtype attribute with a "
                                   "specific dtype, or None to allow any dtype. Set grad_dtype "
                                   "with caution. Diverging the dtypes of a tensor and its "
                                   "gradient may break downstream systems that assume they "
                                   "match.")
        self._grad = value

    @grad.deleter
    def grad(self):
        """Mirrors ``torch.Tensor.grad``."""
        self._grad = None

    @property
    def grad_fn(self):
        """The node that made this tensor (None for leaves), as ``torch.Tensor.grad_fn``.

        For a differentiable view it is computed as PyTorch's: when the version counter it
        shares with its base moved since the view's node was made (an in-place op on the base
        or on another view), the node is regenerated as ``AsStridedBackward0`` of the base.
        """
        if self._view is None:
            return self._grad_fn
        return _view_grad_fn(self)

    @grad_fn.setter
    def grad_fn(self, node):
        self._grad_fn = node

    @property
    def is_leaf(self) -> bool:
        """Mirrors ``torch.Tensor.is_leaf``."""
        return self.grad_fn is None

    @property
    def requires_grad(self) -> bool:
        """Mirrors ``torch.Tensor.requires_grad`` (a view also requires grad when its base
        does, even if the view was made before or under ``no_grad``)."""
        if self._requires_grad:
            return True
        v = self._view
        return v is not None and v.base._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        """Mirrors ``torch.Tensor.requires_grad`` (its own wording for a non-floating dtype).

        Raises:
            RuntimeError: True on a non-leaf ("you can only change requires_grad flags of leaf
                variables.", where ``requires_grad_(True)`` is a no-op), False on a non-leaf
                (``requires_grad_``'s longer message), True for a non-floating dtype.
        """
        if value and not self.dtype.is_floating_point:
            raise RuntimeError("only Tensors of floating point and complex dtype can require "
                               "gradients")
        if value and self.grad_fn is not None:
            raise RuntimeError("you can only change requires_grad flags of leaf variables.")
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad: bool = True):
        """Set ``requires_grad`` in place on a leaf; returns self.

        Raises:
            RuntimeError: on a non-leaf, or for a non-floating dtype with True.
        """
        if self.grad_fn is not None:
            if requires_grad:
                return self
            raise RuntimeError("you can only change requires_grad flags of leaf variables. If "
                               "you want to use a computed variable in a subgraph that doesn't "
                               "require differentiation use var_no_grad = var.detach().")
        if requires_grad and not self.dtype.is_floating_point:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if requires_grad and self._inference and not inference_enabled():
            raise RuntimeError("Setting requires_grad=True on inference tensor outside "
                               "InferenceMode is not allowed.")
        if requires_grad and _widening._entries:    # a leaf that requires grad keeps no image
            _widening.forget(self._data)
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def data(self):
        """Mirrors ``torch.Tensor.data``."""
        if _widening._entries:      # writes through it would not bump our version counter
            _widening.forget(self._data)
        t = Tensor._make(self._data, self.dtype)
        if self._device is not CPU:
            t._device = self._device
        return t

    @data.setter
    def data(self, other):
        """Mirrors ``torch.Tensor.data``."""
        if not isinstance(other, Tensor):
            raise TypeError(f"data must be set to a Tensor, got {type(other).__name__}")
        if _widening._entries:      # now shared under two version counters
            _widening.forget(other._data)
        self._data = other._data
        self.dtype = other.dtype
        if other._device is not self._device:
            self._device = other._device

    @property
    def is_view(self):
        """Whether this tensor is a view of another (its ``_base``)."""
        return self._base is not None

    def _is_view(self) -> bool:
        """Mirrors ``torch.Tensor._is_view``."""
        return self._base is not None

    # ------------------------------------------------------------------ conversion
    def numpy(self, force: bool = False) -> np.ndarray:
        """The storage array (shares memory).

        Raises:
            TypeError: on a cuda tensor (PyTorch's "can't convert cuda:0 device type tensor to
                numpy. Use Tensor.cpu() to copy the tensor to host memory first.").
            RuntimeError: when the tensor requires grad and grad mode is on (as PyTorch: use
                ``.detach().numpy()``; under ``no_grad`` and inside ``Function.forward`` it is
                allowed).
        """
        if self._device is not CPU:
            _host_only(self)
        if self._requires_grad and not force and grad_enabled():
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        if _widening._entries:      # writes into the array would not bump the version counter
            _widening.forget(self._data)
        return self._data

    def __array__(self, dtype=None, copy=None):
        """Mirrors ``torch.Tensor.__array__``: ``numpy()``'s checks (a cuda tensor, or one that
        requires grad while grad mode is on, raises), then the array (cast to ``dtype``)."""
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    def item(self):
        """The value of a one-element tensor as a Python number: the dispatched
        ``_local_scalar_dense`` op (``Tensor.item``).

        Raises:
            RuntimeError: when the tensor has more or fewer than one element.
        """
        return dispatch("_local_scalar_dense", self)

    def tolist(self):
        """Nested Python lists of Python numbers (a number for 0-dim)."""
        a = self._data
        if self.dtype.is_floating_point and a.dtype != np.float64:
            a = a.astype(np.float64)
        return a.tolist()

    def __float__(self):
        """Mirrors ``torch.Tensor.__float__``, with its UserWarning for a tensor that requires
        grad in grad mode ("Converting a tensor with requires_grad=True to a scalar may lead to
        unexpected behavior. ..."), given once per process as PyTorch's ``TORCH_WARN_ONCE``."""
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        if self._requires_grad and grad_enabled() and warn_once(_FLOAT_WARNED):
            import warnings
            warnings.warn("Converting a tensor with requires_grad=True to a scalar may lead to "
                          "unexpected behavior.\nConsider using tensor.detach() first.",
                          UserWarning, stacklevel=2)
        return float(self.item())

    def __int__(self):
        """Mirrors ``torch.Tensor.__int__``."""
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return int(self.item())

    def __format__(self, spec):
        """``f"{t:.4f}"``: a one-element tensor formats as its Python number (as torch)."""
        if self._data.size == 1 and self.ndim == 0:
            return format(self.item(), spec)
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return repr(self)

    def __index__(self):
        """Mirrors ``torch.Tensor.__index__``."""
        if self.dtype.is_floating_point or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
        return int(self.item())

    def __bool__(self):
        """Mirrors ``torch.Tensor.__bool__``."""
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data.reshape(())[()])

    def __len__(self):
        """Mirrors ``torch.Tensor.__len__``."""
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        """Mirrors ``torch.Tensor.__iter__``."""
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    def __hash__(self):
        """Mirrors ``torch.Tensor.__hash__``."""
        return id(self)

    def __repr__(self):
        """Mirrors ``torch.Tensor.__repr__``."""
        from ._format import format_tensor
        return format_tensor(self)

    __str__ = __repr__

    def __reduce_ex__(self, proto):
        """Mirrors ``torch.Tensor.__reduce_ex__``: the storage travels as raw bytes, once per
        pickle for all tensors on it, and the tensor as its offset, shape and strides in it
        (``minigrad.serialization.reduce_tensor``; no NumPy global in the pickle, so
        ``load(weights_only=True)``, which refuses NumPy objects as PyTorch does, reads it)."""
        from .serialization import reduce_tensor
        return reduce_tensor(self, "Tensor", _rebuild)

    def __deepcopy__(self, memo):
        """Mirrors ``torch.Tensor.__deepcopy__``."""
        if not self.is_leaf:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol at the moment.")
        t = type(self)._make(self._data.copy(), self.dtype) if type(self) is Tensor else \
            self._new_like(self._data.copy())
        t._requires_grad = self._requires_grad
        if self._device is not CPU:
            t._device = self._device
            track_storage(t)
        if self.grad is not None:
            t.grad = self.grad._detached_copy()
        memo[id(self)] = t
        return t

    def _new_like(self, arr):
        """Mirrors ``torch.Tensor._new_like``."""
        t = Tensor._make(arr, self.dtype)
        if self._device is not CPU:
            t._device = self._device
            track_storage(t)
        return t

    # ------------------------------------------------------------------ autograd
    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate gradients of this tensor into the graph's leaves (``Tensor.backward``).

        See ``minigrad.autograd.backward`` for arguments and errors.
        """
        _engine_backward(self, gradient, retain_graph, create_graph, inputs)

    def detach(self):
        """A new leaf sharing storage (and version counter), without grad (``Tensor.detach``).

        As in PyTorch it is not a view (``_base`` is None), so in-place ops on it are free to
        record a new history.
        """
        t = Tensor._make(self._data, self.dtype)
        t._vc = self._vc
        if self._device is not CPU:
            t._device = self._device
        return t

    def detach_(self):
        """Make this tensor a leaf that does not require grad, in place (``Tensor.detach_``).

        Raises:
            RuntimeError: on a view ("Can't detach views in-place. Use detach() instead...").
        """
        if self._view is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
                "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
                "called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
        self._grad_fn = None
        self._requires_grad = False
        return self

    def register_hook(self, hook):
        """Call ``hook(grad)`` when this tensor's gradient is computed; a non-None return
        replaces it. Returns a handle with ``.remove()`` (``Tensor.register_hook``).

        Raises:
            RuntimeError: on a tensor that does not require grad.
        """
        from .autograd.function import _RemovableHandle
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is None:
            if self._hooks is None:
                self._hooks = []
            self._hooks.append(hook)
            return _RemovableHandle(self._hooks, hook)
        node = self.grad_fn
        if node._pre_hooks is None:
            node._pre_hooks = []
        entry = (self._output_nr, hook)
        node._pre_hooks.append(entry)
        return _RemovableHandle(node._pre_hooks, entry)

    def register_post_accumulate_grad_hook(self, hook):
        """Call ``hook(tensor)`` after a leaf's ``.grad`` was accumulated.

        Raises:
            RuntimeError: on a tensor that does not require grad, or on a non-leaf.
        """
        from .autograd.function import _RemovableHandle
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf "
                               "tensors")
        if self._post_acc_hooks is None:
            self._post_acc_hooks = []
        self._post_acc_hooks.append(hook)
        return _RemovableHandle(self._post_acc_hooks, hook)

    def retain_grad(self):
        """Keep the gradient of a non-leaf in ``.grad`` after backward (``Tensor.retain_grad``).

        Raises:
            RuntimeError: on a tensor that does not require grad.
        """
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None or self._retains_grad is not None:
            return
        from .autograd.engine import register_retain_grad
        node = self.grad_fn
        if node._retain_grad_hooks is None:
            node._retain_grad_hooks = {}
        node._retain_grad_hooks[self._output_nr] = register_retain_grad(self)
        self._retains_grad = True

    @property
    def retains_grad(self) -> bool:
        """Mirrors ``torch.Tensor.retains_grad``."""
        return bool(self._retains_grad)

    # ------------------------------------------------------------------ casts and moves
    def to(self, *args, **kwargs):
        """Move and/or cast (``Tensor.to``), with PyTorch's overloads:
        ``to(dtype, non_blocking=False, copy=False)``, ``to(device=None, dtype=None,
        non_blocking=False, copy=False)`` and ``to(other, non_blocking=False, copy=False)``
        (``other``'s device and dtype). ``memory_format=`` (``channels_last``...) lays the
        result out in that format (a copy unless ``self`` already is).

        Differentiable: one ``_to_copy`` op (``ToCopyBackward0``, whose backward moves and casts
        the gradient back). Returns ``self`` when nothing changes and ``copy`` is False.

        Raises:
            TypeError: an argument that is no dtype, device or tensor, or unknown keywords.
            RuntimeError / AssertionError: the errors of ``minigrad.device`` for a bad device
                (e.g. cuda with ``MINIGRAD_EMULATE_CUDA=0``).
        """
        device, dtype, copy = parse_to(args, kwargs)
        dev = as_device(device) if device is not None else self._device
        dt = self.dtype if dtype is None else _dt.as_dtype(dtype)
        fmt = kwargs.get("memory_format")
        if fmt is not None:         # a layout change is a copy too, unless already in it
            from .memory_layout import preserve_format
            if fmt is preserve_format or self.is_contiguous(fmt):
                fmt = None
            else:
                copy = True
        if dt is self.dtype and dev is self._device and not copy:
            return self
        extra = {} if fmt is None else {"memory_format": fmt}
        if dev is self._device:
            return dispatch("_to_copy", self, dtype=dt, **extra)
        return dispatch("_to_copy", self, dtype=dt, device=dev, **extra)

    def cpu(self, memory_format=None):
        """Mirrors ``torch.Tensor.cpu``: self on the cpu, else a differentiable copy."""
        return self.to("cpu")

    def pin_memory(self, device=None):
        """Mirrors ``torch.Tensor.pin_memory``: a copy in page-locked host memory, for faster
        ``.to("cuda", non_blocking=True)``; the tensor itself when already pinned. The emulated
        device reads host memory anyway, so the copy differs only in ``is_pinned()``.

        Raises:
            RuntimeError: with the emulation off ("Cannot access accelerator device when none
                is available."), or on a cuda tensor (only CPU tensors can be pinned).
        """
        from .devices import emulation_enabled
        if not emulation_enabled():
            raise RuntimeError("Cannot access accelerator device when none is available.")
        if self._device.type != "cpu":
            raise RuntimeError(f"cannot pin '{self.type()}' only dense CPU tensors can be pinned")
        if self.is_pinned():
            return self
        out = dispatch("clone", self)
        out.__dict__["_pinned"] = True
        return out

    def is_pinned(self, device=None) -> bool:
        """Whether ``pin_memory`` made this tensor (``torch.Tensor.is_pinned``)."""
        return bool(self.__dict__.get("_pinned", False))

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        """Mirrors ``torch.Tensor.cuda``: a copy on the (emulated) cuda device, or self when
        already there.

        Raises:
            AssertionError: "Torch not compiled with CUDA enabled" with ``MINIGRAD_EMULATE_CUDA=0``.
        """
        if device is None:
            device = "cuda"
        elif isinstance(device, int) and not isinstance(device, bool):
            device = f"cuda:{device}"
        return self.to(device)

    def type(self, dtype=None, non_blocking=False):
        """``Tensor.type``: with no argument, PyTorch's legacy type string (``"torch.FloatTensor"``,
        ``"torch.cuda.HalfTensor"`` on the emulated cuda device), so that a ported script's
        comparisons hold; with a dtype or such a string, the tensor converted to it.

        Raises:
            ValueError: an unknown type string ("invalid type: 'torch.Foo'").
        """
        if dtype is None:
            where = "torch.cuda." if self._device.type == "cuda" else "torch."
            return where + self.dtype.legacy_name
        if isinstance(dtype, str):
            name = dtype.rsplit(".", 1)[-1]
            match = [d for d in _dt.all_dtypes if d.legacy_name == name]
            if not match:
                raise ValueError(f"invalid type: '{dtype}'")
            device = "cuda" if dtype.startswith("torch.cuda.") else self._device
            return self.to(device=device, dtype=match[0])
        if isinstance(dtype, tensortype):
            return self.to(device="cuda" if dtype.is_cuda else "cpu", dtype=dtype.dtype)
        return self.to(_dt.as_dtype(dtype))

    def float(self):
        """Mirrors ``torch.Tensor.float``."""
        return self.to(_dt.float32)

    def double(self):
        """Mirrors ``torch.Tensor.double``."""
        return self.to(_dt.float64)

    def half(self):
        """Mirrors ``torch.Tensor.half``."""
        return self.to(_dt.float16)

    def bfloat16(self):
        """Mirrors ``torch.Tensor.bfloat16``."""
        return self.to(_dt.bfloat16)

    def long(self):
        """Mirrors ``torch.Tensor.long``."""
        return self.to(_dt.int64)

    def int(self):
        """Mirrors ``torch.Tensor.int``."""
        return self.to(_dt.int32)

    def bool(self):
        """Mirrors ``torch.Tensor.bool``."""
        return self.to(_dt.bool_)

    def byte(self):
        """Mirrors ``torch.Tensor.byte``: ``uint8``."""
        return self.to(_dt.uint8)

    def char(self):
        """Mirrors ``torch.Tensor.char``: ``int8``."""
        return self.to(_dt.int8)

    def short(self):
        """Mirrors ``torch.Tensor.short``: ``int16``."""
        return self.to(_dt.int16)

    def type_as(self, other):
        """Mirrors ``torch.Tensor.type_as``: ``self.type(other.type())``, i.e. ``self`` with
        ``other``'s dtype on ``other``'s device type (``self`` itself when both already match)."""
        return self.to(device=other.device.type, dtype=other.dtype)

    def contiguous(self, memory_format=None):
        """Mirrors ``torch.Tensor.contiguous``: self when already dense in ``memory_format``
        (default ``contiguous_format``), else the ``clone`` op in that format (its errors apply).

        Raises:
            TypeError: ``memory_format`` not a memory format.
            RuntimeError: ``preserve_format`` for a tensor that is not row-major ("preserve
                memory format is unsupported by the contiguous operator").
        """
        if memory_format is None:
            if self._data.flags.c_contiguous:
                return self
            from .memory_layout import contiguous_format as memory_format
        else:
            from . import memory_layout as _mf
            _mf.check_format_arg(memory_format, "contiguous")
            if self.is_contiguous(memory_format):
                return self
            if memory_format is _mf.preserve_format:
                raise RuntimeError("preserve memory format is unsupported by the contiguous "
                                   "operator")
        return dispatch("clone", self, memory_format=memory_format)

    def clone(self, *, memory_format=None):
        """Mirrors ``torch.Tensor.clone``: the ``clone`` op (default ``preserve_format``: the
        strides of a dense tensor are kept; its errors apply)."""
        if memory_format is None:
            return dispatch("clone", self)
        return dispatch("clone", self, memory_format=memory_format)


def _wrap_dim(dim, ndim):
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim % n


def _storage_args(t):
    """The pickled form of ``t``'s storage: ``(bytes, shape, dtype name, requires_grad,
    device)``; C order, in the storage's own format (float16, ml_dtypes.bfloat16...)."""
    arr = t._data
    return (arr.tobytes(), tuple(arr.shape), t.dtype.name, t._requires_grad, str(t._device))


def _storage_from_args(data, shape, dtype_name):
    """The storage array of ``_storage_args``; ``data`` may also be an ndarray (files written
    before the storage travelled as bytes)."""
    dtype = _dt.as_dtype(dtype_name)
    if isinstance(data, np.ndarray):
        return data, dtype
    return np.frombuffer(data, dtype=dtype.np).reshape(shape).copy(), dtype


def _rebuild_args(data, args):
    """``(array, dtype, requires_grad, device)`` from a pickled Tensor's or Parameter's
    arguments: ``(bytes, shape, dtype_name, requires_grad, device)``, or the older
    ``(ndarray, dtype_name, requires_grad, device)``."""
    if isinstance(data, np.ndarray):
        shape, (dtype_name, requires_grad, *dev) = data.shape, args
    else:
        shape, dtype_name, requires_grad, *dev = args
    arr, dtype = _storage_from_args(data, shape, dtype_name)
    return arr, dtype, requires_grad, dev[0] if dev else "cpu"


def _rebuild(data, *args):
    """Unpickles a Tensor (the argument forms of ``_rebuild_args``)."""
    arr, dtype, requires_grad, device = _rebuild_args(data, args)
    t = Tensor._make(arr, dtype)
    t._requires_grad = requires_grad
    dev = restore_device(device)
    if dev is not CPU:
        t._device = dev
        track_storage(t)
    return t


def _host_only(t):
    raise TypeError(f"can't convert {t._device} device type tensor to numpy. Use Tensor.cpu() "
                    "to copy the tensor to host memory first.")


_widening._Tensor = Tensor      # its rules tell plain tensors from Parameters
