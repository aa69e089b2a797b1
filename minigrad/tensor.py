"""``Tensor``: storage, autograd metadata, and methods that only call dispatched ops.

Mirrors ``torch.Tensor``. The array lives in ``_data`` in its real format (``np.float16``,
``ml_dtypes.bfloat16``...); every arithmetic method goes through ``minigrad.dispatch``, so modes
(autocast, profiler) see it. ``.data`` is, as in PyTorch, a detached Tensor sharing the storage;
``.numpy()`` gives the NumPy array itself (for bfloat16 an ``ml_dtypes.bfloat16`` array, where
PyTorch raises: a deliberate difference).
"""
from __future__ import annotations

import numpy as np

from . import dtypes as _dt
from .autograd.grad_mode import _grad_state
from .dispatch import dispatch

__all__ = ["Tensor", "Size"]


class Size(tuple):
    """A tensor shape, a tuple of ints (``torch.Size``)."""

    def __repr__(self):
        """Mirrors ``torch.Tensor.__repr__``."""
        return f"minigrad.Size({list(self)})"

    def numel(self) -> int:
        """Mirrors ``torch.Size.numel``."""
        n = 1
        for s in self:
            n *= s
        return n


def _dtype_arg(d):
    return None if d is None else _dt.as_dtype(d)


class Tensor:
    """An n-dimensional array with autograd metadata (``torch.Tensor``).

    Attributes:
        dtype: a ``minigrad.dtypes.DType``.
        shape: a ``Size`` (tuple of ints); ``ndim`` its length.
        requires_grad: whether ops on it are recorded; only leaves may change it.
        grad: the accumulated gradient (a Tensor of the same shape and dtype) or None.
        grad_fn: the node that made it (None for leaves).
        is_leaf: True when ``grad_fn`` is None.

    Build tensors with ``minigrad.tensor(...)`` and the factories, not with this class.
    """

    __slots__ = ("_data", "dtype", "_requires_grad", "_grad", "grad_fn", "_output_nr", "_base",
                 "_vc", "_grad_accumulator", "_hooks", "_post_acc_hooks", "_retains_grad",
                 "__weakref__", "__dict__")
    __array_priority__ = 1000

    def __init__(self, *args, **kwargs):
        """Mirrors ``torch.Tensor.__init__``."""
        raise TypeError("use minigrad.tensor(data, dtype=..., requires_grad=...) or a factory "
                        "(zeros, ones, randn...) to create a Tensor")

    @classmethod
    def _make(cls, arr, dtype=None, requires_grad=False):
        """Wrap a NumPy array (no copy, no rounding); ``dtype`` defaults to the array's."""
        t = object.__new__(cls)
        t._data = arr
        t.dtype = _dt.from_numpy(arr.dtype) if dtype is None else dtype
        t._requires_grad = requires_grad
        t._grad = None
        t.grad_fn = None
        t._output_nr = 0
        t._base = None
        t._vc = [0]
        t._grad_accumulator = None
        t._hooks = None
        t._post_acc_hooks = None
        t._retains_grad = None
        return t

    def _alias(self):
        """A new Tensor object sharing storage and version counter (a trivial view)."""
        t = Tensor._make(self._data, self.dtype)
        t._vc = self._vc
        t._base = self if self._base is None else self._base
        return t

    def _detached_copy(self):
        """Mirrors ``torch.Tensor._detached_copy``."""
        return Tensor._make(self._data.copy(), self.dtype)

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
        """Mirrors ``torch.Tensor.device``."""
        return "cpu"

    @property
    def is_cuda(self):
        """Mirrors ``torch.Tensor.is_cuda``."""
        return False

    def is_floating_point(self) -> bool:
        """Mirrors ``torch.Tensor.is_floating_point``."""
        return self.dtype.is_floating_point

    def is_contiguous(self) -> bool:
        """Mirrors ``torch.Tensor.is_contiguous``."""
        return bool(self._data.flags.c_contiguous)

    @property
    def _version(self) -> int:
        """Mirrors ``torch.Tensor._version``."""
        return self._vc[0]

    def _bump(self):
        """Mirrors ``torch.Tensor._bump``."""
        self._vc[0] += 1

    @property
    def grad(self):
        """The accumulated gradient: None or a Tensor of this tensor's shape and dtype."""
        return self._grad

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
            if value.dtype is not self.dtype:
                raise RuntimeError(f"attempting to assign a gradient with dtype "
                                   f"'{value.dtype.name}' to a tensor with dtype "
                                   f"'{self.dtype.name}'. The gradient must match the tensor's "
                                   "dtype.")
        self._grad = value

    @grad.deleter
    def grad(self):
        """Mirrors ``torch.Tensor.grad``."""
        self._grad = None

    @property
    def is_leaf(self) -> bool:
        """Mirrors ``torch.Tensor.is_leaf``."""
        return self.grad_fn is None

    @property
    def requires_grad(self) -> bool:
        """Mirrors ``torch.Tensor.requires_grad``."""
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        """Mirrors ``torch.Tensor.requires_grad``."""
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
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def data(self):
        """Mirrors ``torch.Tensor.data``."""
        t = Tensor._make(self._data, self.dtype)
        return t

    @data.setter
    def data(self, other):
        """Mirrors ``torch.Tensor.data``."""
        if not isinstance(other, Tensor):
            raise TypeError(f"data must be set to a Tensor, got {type(other).__name__}")
        self._data = other._data
        self.dtype = other.dtype

    @property
    def is_view(self):
        """Mirrors ``torch.Tensor.is_view``."""
        return self._base is not None

    # ------------------------------------------------------------------ conversion
    def numpy(self, force: bool = False) -> np.ndarray:
        """The storage array (shares memory).

        Raises:
            RuntimeError: when the tensor requires grad (as PyTorch: use ``.detach().numpy()``).
        """
        if self._requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        return self._data

    def __array__(self, dtype=None, copy=None):
        """Mirrors ``torch.Tensor.__array__``."""
        a = self._data
        return a if dtype is None else a.astype(dtype)

    def item(self):
        """The value of a one-element tensor as a Python number.

        Raises:
            RuntimeError: when the tensor has more or fewer than one element.
        """
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted "
                               "to Scalar")
        v = self._data.reshape(())[()]
        if self.dtype is _dt.bool_:
            return bool(v)
        if self.dtype.is_floating_point:
            return float(v)
        return int(v)

    def tolist(self):
        """Nested Python lists of Python numbers (a number for 0-dim)."""
        a = self._data
        if self.dtype.is_floating_point and a.dtype != np.float64:
            a = a.astype(np.float64)
        return a.tolist()

    def __float__(self):
        """Mirrors ``torch.Tensor.__float__``."""
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
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
        return format(repr(self), spec)

    def __index__(self):
        """Mirrors ``torch.Tensor.__index__``."""
        if self.dtype.is_floating_point or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
        return int(self.item())

    def __bool__(self):
        """Mirrors ``torch.Tensor.__bool__``."""
        if self._data.size != 1:
            raise RuntimeError(f"Boolean value of Tensor with more than one value is ambiguous")
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
        """Mirrors ``torch.Tensor.__reduce_ex__``."""
        return (_rebuild, (self._data.copy(), self.dtype.name, self._requires_grad))

    def __deepcopy__(self, memo):
        """Mirrors ``torch.Tensor.__deepcopy__``."""
        if not self.is_leaf:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol at the moment.")
        t = type(self)._make(self._data.copy(), self.dtype) if type(self) is Tensor else \
            self._new_like(self._data.copy())
        t._requires_grad = self._requires_grad
        if self.grad is not None:
            t.grad = self.grad._detached_copy()
        memo[id(self)] = t
        return t

    def _new_like(self, arr):
        """Mirrors ``torch.Tensor._new_like``."""
        t = Tensor._make(arr, self.dtype)
        return t

    # ------------------------------------------------------------------ autograd
    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate gradients of this tensor into the graph's leaves (``Tensor.backward``).

        See ``minigrad.autograd.backward`` for arguments and errors.
        """
        from .autograd.engine import backward
        backward(self, gradient, retain_graph, create_graph, inputs)

    def detach(self):
        """A new leaf sharing storage (and version counter), without grad (``Tensor.detach``)."""
        t = Tensor._make(self._data, self.dtype)
        t._vc = self._vc
        t._base = self._base
        return t

    def detach_(self):
        """Make this tensor a leaf that does not require grad, in place."""
        self.grad_fn = None
        self._requires_grad = False
        return self

    def register_hook(self, hook):
        """Call ``hook(grad)`` when this tensor's gradient is computed; a non-None return
        replaces it. Returns a handle with ``.remove()`` (``Tensor.register_hook``).

        Raises:
            RuntimeError: on a tensor that does not require grad.
        """
        from .autograd.function import _RemovableHandle
        if not self._requires_grad:
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
        """Call ``hook(tensor)`` after a leaf's ``.grad`` was accumulated."""
        from .autograd.function import _RemovableHandle
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
        if not self._requires_grad:
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

    # ------------------------------------------------------------------ dtype casts
    def to(self, *args, **kwargs):
        """Cast to a dtype (``Tensor.to(dtype)``, ``to(other)``, ``to('cpu', dtype)``).

        Differentiable (``ToCopyBackward0``); returns self when nothing changes and ``copy`` is
        False.

        Raises:
            TypeError: for an unknown dtype or device other than "cpu".
        """
        dtype = kwargs.pop("dtype", None)
        copy = kwargs.pop("copy", False)
        kwargs.pop("non_blocking", None)
        device = kwargs.pop("device", None)
        if kwargs:
            raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
        for a in args:
            if isinstance(a, Tensor):
                dtype = a.dtype
            elif isinstance(a, str) and a.split(":")[0] in ("cpu", "cuda", "meta"):
                device = a
            elif isinstance(a, (bool, int)) and not isinstance(a, _dt.DType):
                continue
            elif a is not None:
                dtype = a
        if device is not None and str(device).split(":")[0] not in ("cpu",):
            raise TypeError(f"minigrad tensors live on the CPU only; got device={device!r}")
        if dtype is None:
            return self.clone() if copy else self
        dtype = _dt.as_dtype(dtype)
        if dtype is self.dtype and not copy:
            return self
        return dispatch("_to_copy", self, dtype=dtype)

    def type(self, dtype=None):
        """Mirrors ``torch.Tensor.type``."""
        if dtype is None:
            return f"minigrad.{self.dtype.name}"
        return self.to(dtype)

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

    def type_as(self, other):
        """Mirrors ``torch.Tensor.type_as``."""
        return self.to(other.dtype)

    def cpu(self):
        """Mirrors ``torch.Tensor.cpu``."""
        return self

    def contiguous(self):
        """Mirrors ``torch.Tensor.contiguous``: the ``clone`` op (its errors apply)."""
        return self if self._data.flags.c_contiguous else dispatch("clone", self)

    def clone(self):
        """Mirrors ``torch.Tensor.clone``: the ``clone`` op (its errors apply)."""
        return dispatch("clone", self)

    # ------------------------------------------------------------------ arithmetic
    def __add__(self, other):
        """``torch.Tensor.__add__``: the ``add`` op."""
        return dispatch("add", self, other)

    def __radd__(self, other):
        """``torch.Tensor.__radd__``: the ``add`` op."""
        return dispatch("add", self, other)

    def __sub__(self, other):
        """``torch.Tensor.__sub__``: the ``sub`` op."""
        return dispatch("sub", self, other)

    def __rsub__(self, other):
        """``torch.Tensor.__rsub__``: the ``rsub`` op."""
        return dispatch("rsub", self, other)

    def __mul__(self, other):
        """``torch.Tensor.__mul__``: the ``mul`` op."""
        return dispatch("mul", self, other)

    def __rmul__(self, other):
        """``torch.Tensor.__rmul__``: the ``mul`` op."""
        return dispatch("mul", self, other)

    def __truediv__(self, other):
        """``torch.Tensor.__truediv__``: the ``div`` op."""
        return dispatch("div", self, other)

    def __rtruediv__(self, other):
        """``torch.Tensor.__rtruediv__``: the ``rdiv`` op."""
        return dispatch("rdiv", self, other)

    def __pow__(self, other):
        """``torch.Tensor.__pow__``: the ``pow`` op."""
        return dispatch("pow", self, other)

    def __rpow__(self, other):
        """``torch.Tensor.__rpow__``: the ``rpow`` op."""
        return dispatch("rpow", self, other)

    def __neg__(self):
        """``torch.Tensor.__neg__``: the ``neg`` op."""
        return dispatch("neg", self)

    def __pos__(self):
        """Mirrors ``torch.Tensor.__pos__``."""
        return self

    def __abs__(self):
        """``torch.Tensor.__abs__``: the ``abs`` op."""
        return dispatch("abs", self)

    def __matmul__(self, other):
        """``torch.Tensor.__matmul__``: the ``matmul`` op."""
        return dispatch("matmul", self, other)

    def __rmatmul__(self, other):
        """``torch.Tensor.__rmatmul__``: the ``matmul`` op."""
        return dispatch("matmul", other, self)

    def __eq__(self, other):
        """``torch.Tensor.__eq__``: the ``eq`` op."""
        return dispatch("eq", self, other)

    def __ne__(self, other):
        """``torch.Tensor.__ne__``: the ``ne`` op."""
        return dispatch("ne", self, other)

    def __lt__(self, other):
        """``torch.Tensor.__lt__``: the ``lt`` op."""
        return dispatch("lt", self, other)

    def __le__(self, other):
        """``torch.Tensor.__le__``: the ``le`` op."""
        return dispatch("le", self, other)

    def __gt__(self, other):
        """``torch.Tensor.__gt__``: the ``gt`` op."""
        return dispatch("gt", self, other)

    def __ge__(self, other):
        """``torch.Tensor.__ge__``: the ``ge`` op."""
        return dispatch("ge", self, other)

    def __invert__(self):
        """``torch.Tensor.__invert__``: the ``logical_not`` op."""
        return dispatch("logical_not", self)

    def __getitem__(self, index):
        """``torch.Tensor.__getitem__``: the ``index`` op."""
        return dispatch("index", self, index)

    def __setitem__(self, index, value):
        """``torch.Tensor.__setitem__``: the ``index_put_`` op."""
        dispatch("index_put_", self, index, value)

    def __iadd__(self, other):
        """``torch.Tensor.__iadd__``: the ``add_`` op."""
        return dispatch("add_", self, other)

    def __isub__(self, other):
        """``torch.Tensor.__isub__``: the ``sub_`` op."""
        return dispatch("sub_", self, other)

    def __imul__(self, other):
        """``torch.Tensor.__imul__``: the ``mul_`` op."""
        return dispatch("mul_", self, other)

    def __itruediv__(self, other):
        """``torch.Tensor.__itruediv__``: the ``div_`` op."""
        return dispatch("div_", self, other)

    def add(self, other, alpha=1):
        """Mirrors ``torch.Tensor.add``: the ``add`` op (its errors apply)."""
        return dispatch("add", self, other, alpha=alpha)

    def sub(self, other, alpha=1):
        """Mirrors ``torch.Tensor.sub``: the ``sub`` op (its errors apply)."""
        return dispatch("sub", self, other, alpha=alpha)

    def mul(self, other):
        """Mirrors ``torch.Tensor.mul``: the ``mul`` op (its errors apply)."""
        return dispatch("mul", self, other)

    def div(self, other, rounding_mode=None):
        """Mirrors ``torch.Tensor.div``: the ``div`` op (its errors apply)."""
        return dispatch("div", self, other, rounding_mode=rounding_mode)

    def add_(self, other, alpha=1):
        """Mirrors ``torch.Tensor.add_``: the ``add_`` op (its errors apply)."""
        return dispatch("add_", self, other, alpha=alpha)

    def sub_(self, other, alpha=1):
        """Mirrors ``torch.Tensor.sub_``: the ``sub_`` op (its errors apply)."""
        return dispatch("sub_", self, other, alpha=alpha)

    def mul_(self, other):
        """Mirrors ``torch.Tensor.mul_``: the ``mul_`` op (its errors apply)."""
        return dispatch("mul_", self, other)

    def div_(self, other):
        """Mirrors ``torch.Tensor.div_``: the ``div_`` op (its errors apply)."""
        return dispatch("div_", self, other)

    def clamp_(self, min=None, max=None):
        """Mirrors ``torch.Tensor.clamp_``: the ``clamp_`` op (its errors apply)."""
        return dispatch("clamp_", self, min, max)

    def zero_(self):
        """Mirrors ``torch.Tensor.zero_``: the ``zero_`` op (its errors apply)."""
        return dispatch("zero_", self)

    def fill_(self, value):
        """Mirrors ``torch.Tensor.fill_``: the ``fill_`` op (its errors apply)."""
        return dispatch("fill_", self, value)

    def copy_(self, src):
        """Mirrors ``torch.Tensor.copy_``: the ``copy_`` op (its errors apply)."""
        return dispatch("copy_", self, src)

    def __floordiv__(self, other):
        """``torch.Tensor.__floordiv__``: the ``div`` op."""
        return dispatch("div", self, other, rounding_mode="floor")

    def __rfloordiv__(self, other):
        """``torch.Tensor.__rfloordiv__``: the ``div`` op."""
        return dispatch("div", dispatch("full_like", self, other), self, rounding_mode="floor")

    def reciprocal(self):
        """Mirrors ``torch.Tensor.reciprocal``: the ``reciprocal`` op (its errors apply)."""
        return dispatch("reciprocal", self)

    def neg(self):
        """Mirrors ``torch.Tensor.neg``: the ``neg`` op (its errors apply)."""
        return dispatch("neg", self)

    def pow(self, exponent):
        """Mirrors ``torch.Tensor.pow``: the ``pow`` op (its errors apply)."""
        return dispatch("pow", self, exponent)

    def exp(self):
        """Mirrors ``torch.Tensor.exp``: the ``exp`` op (its errors apply)."""
        return dispatch("exp", self)

    def log(self):
        """Mirrors ``torch.Tensor.log``: the ``log`` op (its errors apply)."""
        return dispatch("log", self)

    def sqrt(self):
        """Mirrors ``torch.Tensor.sqrt``: the ``sqrt`` op (its errors apply)."""
        return dispatch("sqrt", self)

    def abs(self):
        """Mirrors ``torch.Tensor.abs``: the ``abs`` op (its errors apply)."""
        return dispatch("abs", self)

    def maximum(self, other):
        """Mirrors ``torch.Tensor.maximum``: the ``maximum`` op (its errors apply)."""
        return dispatch("maximum", self, other)

    def minimum(self, other):
        """Mirrors ``torch.Tensor.minimum``: the ``minimum`` op (its errors apply)."""
        return dispatch("minimum", self, other)

    def clamp(self, min=None, max=None):
        """Mirrors ``torch.Tensor.clamp``: the ``clamp`` op (its errors apply)."""
        return dispatch("clamp", self, min, max)

    clip = clamp

    def tanh(self):
        """Mirrors ``torch.Tensor.tanh``: the ``tanh`` op (its errors apply)."""
        return dispatch("tanh", self)

    def sigmoid(self):
        """Mirrors ``torch.Tensor.sigmoid``: the ``sigmoid`` op (its errors apply)."""
        return dispatch("sigmoid", self)

    def relu(self):
        """Mirrors ``torch.Tensor.relu``: the ``relu`` op (its errors apply)."""
        return dispatch("relu", self)

    def square(self):
        """Mirrors ``torch.Tensor.square``: the ``pow`` op (its errors apply)."""
        return dispatch("pow", self, 2)

    def eq(self, other):
        """Mirrors ``torch.Tensor.eq``: the ``eq`` op (its errors apply)."""
        return dispatch("eq", self, other)

    def ne(self, other):
        """Mirrors ``torch.Tensor.ne``: the ``ne`` op (its errors apply)."""
        return dispatch("ne", self, other)

    def lt(self, other):
        """Mirrors ``torch.Tensor.lt``: the ``lt`` op (its errors apply)."""
        return dispatch("lt", self, other)

    def le(self, other):
        """Mirrors ``torch.Tensor.le``: the ``le`` op (its errors apply)."""
        return dispatch("le", self, other)

    def gt(self, other):
        """Mirrors ``torch.Tensor.gt``: the ``gt`` op (its errors apply)."""
        return dispatch("gt", self, other)

    def ge(self, other):
        """Mirrors ``torch.Tensor.ge``: the ``ge`` op (its errors apply)."""
        return dispatch("ge", self, other)

    def isfinite(self):
        """Mirrors ``torch.Tensor.isfinite``: the ``isfinite`` op (its errors apply)."""
        return dispatch("isfinite", self)

    def isnan(self):
        """Mirrors ``torch.Tensor.isnan``: the ``isnan`` op (its errors apply)."""
        return dispatch("isnan", self)

    def isinf(self):
        """Mirrors ``torch.Tensor.isinf``: the ``isinf`` op (its errors apply)."""
        return dispatch("isinf", self)

    # ------------------------------------------------------------------ linalg
    def matmul(self, other):
        """Mirrors ``torch.Tensor.matmul``: the ``matmul`` op (its errors apply)."""
        return dispatch("matmul", self, other)

    def mm(self, mat2):
        """Mirrors ``torch.Tensor.mm``: the ``mm`` op (its errors apply)."""
        return dispatch("mm", self, mat2)

    def addmm(self, mat1, mat2, beta=1, alpha=1):
        """Mirrors ``torch.Tensor.addmm``: the ``addmm`` op (its errors apply)."""
        return dispatch("addmm", self, mat1, mat2, beta=beta, alpha=alpha)

    # ------------------------------------------------------------------ reductions
    def sum(self, dim=None, keepdim=False, dtype=None):
        """Mirrors ``torch.Tensor.sum``: the ``sum`` op (its errors apply)."""
        return dispatch("sum", self, dim, keepdim, dtype=_dtype_arg(dtype))

    def mean(self, dim=None, keepdim=False, dtype=None):
        """Mirrors ``torch.Tensor.mean``: the ``mean`` op (its errors apply)."""
        return dispatch("mean", self, dim, keepdim, dtype=_dtype_arg(dtype))

    def max(self, dim=None, keepdim=False):
        """Mirrors ``torch.Tensor.max``: the ``maximum`` op (its errors apply)."""
        if isinstance(dim, Tensor):
            return dispatch("maximum", self, dim)
        return dispatch("max", self, dim, keepdim)

    def min(self, dim=None, keepdim=False):
        """Mirrors ``torch.Tensor.min``: the ``minimum`` op (its errors apply)."""
        if isinstance(dim, Tensor):
            return dispatch("minimum", self, dim)
        return dispatch("min", self, dim, keepdim)

    def amax(self, dim=(), keepdim=False):
        """Mirrors ``torch.Tensor.amax``: the ``amax`` op (its errors apply)."""
        return dispatch("amax", self, dim, keepdim)

    def amin(self, dim=(), keepdim=False):
        """Mirrors ``torch.Tensor.amin``: the ``amin`` op (its errors apply)."""
        return dispatch("amin", self, dim, keepdim)

    def argmax(self, dim=None, keepdim=False):
        """Mirrors ``torch.Tensor.argmax``: the ``argmax`` op (its errors apply)."""
        return dispatch("argmax", self, dim, keepdim)

    def argmin(self, dim=None, keepdim=False):
        """Mirrors ``torch.Tensor.argmin``: the ``argmin`` op (its errors apply)."""
        return dispatch("argmin", self, dim, keepdim)

    def sum_to_size(self, *size):
        """Mirrors ``torch.Tensor.sum_to_size``: the ``sum_to_size`` op (its errors apply)."""
        if len(size) == 1 and isinstance(size[0], (tuple, list)):
            size = tuple(size[0])
        return dispatch("sum_to_size", self, size)

    def all(self):
        """Mirrors ``torch.Tensor.all``: the ``all`` op (its errors apply)."""
        return dispatch("all", self)

    def any(self):
        """Mirrors ``torch.Tensor.any``: the ``any`` op (its errors apply)."""
        return dispatch("any", self)

    # ------------------------------------------------------------------ shape
    def reshape(self, *shape):
        """Mirrors ``torch.Tensor.reshape``: the ``reshape`` op (its errors apply)."""
        return dispatch("reshape", self, _shape_args(shape))

    def view(self, *shape):
        """Mirrors ``torch.Tensor.view``: the ``view`` op (its errors apply)."""
        if len(shape) == 1 and not isinstance(shape[0], (tuple, list, int, Size)):
            return self.to(shape[0])
        return dispatch("view", self, _shape_args(shape))

    def view_as(self, other):
        """Mirrors ``torch.Tensor.view_as``: the ``view`` op (its errors apply)."""
        return dispatch("view", self, other.shape)

    def reshape_as(self, other):
        """Mirrors ``torch.Tensor.reshape_as``: the ``reshape`` op (its errors apply)."""
        return dispatch("reshape", self, other.shape)

    def flatten(self, start_dim=0, end_dim=-1):
        """Mirrors ``torch.Tensor.flatten``: the ``flatten`` op (its errors apply)."""
        return dispatch("flatten", self, start_dim, end_dim)

    def transpose(self, dim0, dim1):
        """Mirrors ``torch.Tensor.transpose``: the ``transpose`` op (its errors apply)."""
        return dispatch("transpose", self, dim0, dim1)

    def swapaxes(self, dim0, dim1):
        """Mirrors ``torch.Tensor.swapaxes``: the ``transpose`` op (its errors apply)."""
        return dispatch("transpose", self, dim0, dim1)

    def permute(self, *dims):
        """Mirrors ``torch.Tensor.permute``: the ``permute`` op (its errors apply)."""
        return dispatch("permute", self, _shape_args(dims))

    def t(self):
        """Mirrors ``torch.Tensor.t``: the ``t`` op (its errors apply)."""
        return dispatch("t", self)

    @property
    def T(self):
        """Mirrors ``torch.Tensor.T``: the ``permute`` op (its errors apply)."""
        return dispatch("permute", self, tuple(range(self.ndim - 1, -1, -1)))

    @property
    def mT(self):
        """Mirrors ``torch.Tensor.mT``: the ``transpose`` op (its errors apply)."""
        return dispatch("transpose", self, -2, -1)

    def unsqueeze(self, dim):
        """Mirrors ``torch.Tensor.unsqueeze``: the ``unsqueeze`` op (its errors apply)."""
        return dispatch("unsqueeze", self, dim)

    def squeeze(self, dim=None):
        """Mirrors ``torch.Tensor.squeeze``: the ``squeeze`` op (its errors apply)."""
        return dispatch("squeeze", self, dim)

    def expand(self, *sizes):
        """Mirrors ``torch.Tensor.expand``: the ``expand`` op (its errors apply)."""
        return dispatch("expand", self, _shape_args(sizes))

    def expand_as(self, other):
        """Mirrors ``torch.Tensor.expand_as``: the ``expand`` op (its errors apply)."""
        return dispatch("expand", self, other.shape)

    # ------------------------------------------------------------------ nn
    def softmax(self, dim, dtype=None):
        """Mirrors ``torch.Tensor.softmax``: the ``softmax`` op (its errors apply)."""
        return dispatch("softmax", self, dim, dtype=_dtype_arg(dtype))

    def log_softmax(self, dim, dtype=None):
        """Mirrors ``torch.Tensor.log_softmax``: the ``log_softmax`` op (its errors apply)."""
        return dispatch("log_softmax", self, dim, dtype=_dtype_arg(dtype))


def _shape_args(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return tuple(shape)


def _wrap_dim(dim, ndim):
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim % n


def _rebuild(arr, dtype_name, requires_grad):
    t = Tensor._make(arr, _dt.as_dtype(dtype_name))
    t._requires_grad = requires_grad
    return t


def _bind():
    from .autograd import engine, function
    function.Tensor = engine.Tensor = Tensor


_bind()
