"""In-place ``Tensor`` methods of the arithmetic, comparison, matrix-product, scan, triangle,
masking and view ops (``exp_``, ``pow_``, ``eq_``, ``addmm_``, ``cumsum_``, ``tril_``,
``masked_fill_``, ``index_put_``, ``t_``, ``squeeze_``, ``resize_``...) and PyTorch's aliases of
in-place methods (``divide_``, ``multiply_``, ``subtract_``, ``true_divide_``, ``negative_``,
``absolute_``, ``clip_``, ``greater_``... ``not_equal_``, ``swapdims_``/``swapaxes_``). Each is
one ``dispatch`` of the in-place op (``minigrad/ops/inplace_arith.py``, ``inplace_views.py``).
"""
from __future__ import annotations

from ..dispatch import dispatch

_SAME = ("exp_", "log_", "sqrt_", "abs_", "neg_", "reciprocal_", "sign_", "square_", "t_")
_BINARY = ("remainder_", "fmod_", "floor_divide_", "xlogy_", "bitwise_left_shift_",
           "bitwise_right_shift_")
_MATRIX = {"addmm_": ("mat1", "mat2"), "addmv_": ("mat", "vec"), "addr_": ("vec1", "vec2"),
           "baddbmm_": ("batch1", "batch2"), "addbmm_": ("batch1", "batch2")}
_COMPARE = ("eq_", "ne_", "lt_", "le_", "gt_", "ge_")
_ALIASES = {"divide_": "div_", "true_divide_": "div_", "multiply_": "mul_",
            "subtract_": "sub_", "negative_": "neg_", "absolute_": "abs_", "clip_": "clamp_",
            "greater_": "gt_", "greater_equal_": "ge_", "less_": "lt_", "less_equal_": "le_",
            "not_equal_": "ne_", "swapdims_": "transpose_", "swapaxes_": "transpose_"}


def _is_tensor(x):
    from ..tensor import Tensor
    return isinstance(x, Tensor)


def _unary(name):
    def method(self):
        return dispatch(name, self)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"Mirrors ``torch.Tensor.{name}``: the ``{name}`` op (its errors apply)."
    return method


def _binary(name):
    def method(self, other):
        return dispatch(name, self, other)
    method.__doc__ = f"Mirrors ``torch.Tensor.{name}``: the ``{name}`` op (its errors apply)."
    return method


def _matrix(name, a, b):
    def method(self, m1, m2, *, beta=1, alpha=1):
        return dispatch(name, self, m1, m2, beta=beta, alpha=alpha)
    method.__doc__ = (f"Mirrors ``torch.Tensor.{name}({a}, {b}, *, beta=1, alpha=1)``: the "
                      f"``{name}`` op (its errors apply).")
    return method


def _compare(name):
    def method(self, other):
        return dispatch(f"{name}.Tensor" if _is_tensor(other) else f"{name}.Scalar", self, other)
    method.__doc__ = (f"Mirrors ``torch.Tensor.{name}``: the ``{name}.Scalar`` / "
                      f"``{name}.Tensor`` op (0/1 in self's dtype).")
    return method


def _alias_of(alias, name):
    def method(self, *args, **kwargs):
        return getattr(self, name)(*args, **kwargs)
    method.__name__ = method.__qualname__ = alias
    method.__doc__ = f"Mirrors ``torch.Tensor.{alias}``: an alias of ``Tensor.{name}``."
    return method


class InplaceMixin:
    """In-place op methods of ``Tensor`` (see each method's ``torch.Tensor`` twin)."""

    __slots__ = ()

    def pow_(self, exponent):
        """Mirrors ``torch.Tensor.pow_``: the ``pow_.Scalar`` / ``pow_.Tensor`` op."""
        return dispatch("pow_.Tensor" if _is_tensor(exponent) else "pow_.Scalar", self,
                        exponent)

    def cumsum_(self, dim, dtype=None):
        """Mirrors ``torch.Tensor.cumsum_``: the ``cumsum_`` op (its errors apply)."""
        return dispatch("cumsum_", self, dim, dtype=dtype)

    def cumprod_(self, dim, dtype=None):
        """Mirrors ``torch.Tensor.cumprod_``: the ``cumprod_`` op (its errors apply)."""
        return dispatch("cumprod_", self, dim, dtype=dtype)

    def tril_(self, diagonal=0):
        """Mirrors ``torch.Tensor.tril_``: the ``tril_`` op (its errors apply)."""
        return dispatch("tril_", self, diagonal)

    def triu_(self, diagonal=0):
        """Mirrors ``torch.Tensor.triu_``: the ``triu_`` op (its errors apply)."""
        return dispatch("triu_", self, diagonal)

    def masked_fill_(self, mask, value):
        """Mirrors ``torch.Tensor.masked_fill_``: ``masked_fill_.Scalar`` for a number
        ``value``, ``masked_fill_.Tensor`` for a 0-dim tensor (its errors apply)."""
        return dispatch("masked_fill_.Tensor" if _is_tensor(value) else "masked_fill_.Scalar",
                        self, mask, value)

    def index_put_(self, indices, values, accumulate=False):
        """Mirrors ``torch.Tensor.index_put_(indices, values, accumulate=False)``: ``self[indices]
        = values`` (the ``index_put_`` op, node ``IndexPutBackward0``).

        ``accumulate=True``: repeated positions add up, each addition rounded in the dtype, in
        order (PyTorch's CPU kernel).

        Raises:
            TypeError: ``indices`` not a tuple/list of tensors (or None).
            RuntimeError / IndexError: as ``self[indices] = values``.
        """
        if not isinstance(indices, (tuple, list)):
            raise TypeError("index_put_(): argument 'indices' (position 1) must be tuple of "
                            f"Tensors, not {type(indices).__name__}")
        return dispatch("index_put_", self, tuple(indices), values, accumulate=accumulate)

    def index_put(self, indices, values, accumulate=False):
        """Mirrors ``torch.Tensor.index_put``: the out-of-place ``index_put_`` (a new tensor,
        node ``IndexPutBackward0``); errors as ``index_put_``'s."""
        if not isinstance(indices, (tuple, list)):
            raise TypeError("index_put(): argument 'indices' (position 1) must be tuple of "
                            f"Tensors, not {type(indices).__name__}")
        return dispatch("index_put", self, tuple(indices), values, accumulate=accumulate)

    def fill_diagonal_(self, fill_value, wrap=False):
        """Mirrors ``torch.Tensor.fill_diagonal_``: the ``fill_diagonal_`` op (its errors
        apply)."""
        return dispatch("fill_diagonal_", self, fill_value, wrap)

    def transpose_(self, dim0, dim1):
        """Mirrors ``torch.Tensor.transpose_``: the ``transpose_`` op (node
        ``TransposeBackward1``)."""
        return dispatch("transpose_", self, dim0, dim1)

    def unsqueeze_(self, dim):
        """Mirrors ``torch.Tensor.unsqueeze_``: the ``unsqueeze_`` op."""
        return dispatch("unsqueeze_", self, dim)

    def squeeze_(self, dim=None):
        """Mirrors ``torch.Tensor.squeeze_``: the ``squeeze_`` op (all / one / a tuple of
        dims)."""
        return dispatch("squeeze_", self, dim)

    def as_strided_(self, size, stride, storage_offset=None):
        """Mirrors ``torch.Tensor.as_strided_``: the ``as_strided_`` op (its errors apply)."""
        return dispatch("as_strided_", self, size, stride, storage_offset)

    def resize_(self, *sizes, memory_format=None):
        """Mirrors ``torch.Tensor.resize_``: the ``resize_`` op (its errors apply)."""
        return dispatch("resize_", self, *sizes, memory_format=memory_format)

    def resize_as_(self, the_template, *, memory_format=None):
        """Mirrors ``torch.Tensor.resize_as_``: the ``resize_as_`` op."""
        return dispatch("resize_as_", self, the_template, memory_format=memory_format)


for _n in _SAME:
    setattr(InplaceMixin, _n, _unary(_n))
for _n in _BINARY:
    setattr(InplaceMixin, _n, _binary(_n))
for _n, (_a, _b) in _MATRIX.items():
    setattr(InplaceMixin, _n, _matrix(_n, _a, _b))
for _n in _COMPARE:
    setattr(InplaceMixin, _n, _compare(_n))
for _alias, _n in _ALIASES.items():
    setattr(InplaceMixin, _alias, _alias_of(_alias, _n))
