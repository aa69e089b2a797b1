"""The ``_foreach_*`` ops: one pointwise kernel applied to every tensor of a list.

PyTorch's multi-tensor optimizers (``foreach=True``), ``clip_grad_norm_`` and GradScaler call
these (``torch._foreach_add_(params, grads, alpha=-lr)``...). On CPU they are a loop of the
per-tensor kernels, so their rounding is that of the per-tensor ops, one tensor at a time:
``minigrad/ops/foreach_kernels.py`` holds those recipes. The ops ending in ``_`` write into the
tensors of their first list, in place (the arrays are kept, version counters bumped) and return
that list; the others return a tuple of new tensors.

Overloads are picked from the argument types, as PyTorch's Python binding does, under one op
name (a mode sees ``_foreach_add_``; PyTorch's dispatcher would name the overload,
``_foreach_add_.Scalar``): a number (Scalar), a list of numbers (ScalarList), a list of tensors
(List) or a 0-dim tensor (Tensor).

Errors as PyTorch's: an empty list ("Tensor list must have at least one tensor."), lists of
different lengths ("Tensor lists must have the same number of tensors, got 2 and 3"), a scalar
list of another length, shapes that do not broadcast to the destination's, an in-place op on a
leaf that requires grad in grad mode, true division into an integer tensor. Deliberate
differences: every tensor of one call must share one floating dtype (PyTorch promotes mixed
dtypes; minigrad raises NotImplementedError), and these ops record no autograd history (an
input that requires grad in grad mode raises NotImplementedError; optimizers call them under
``no_grad``).
"""
from __future__ import annotations

import numpy as np

from .. import numerics as _nx
from ..autograd.grad_mode import grad_enabled
from ..dispatch import _CALL, register_op
from ..tensor import Tensor
from . import foreach_kernels as K
from ._util import broadcast_shapes

_NUMBER = (bool, int, float, np.number, np.bool_)
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


# ---------------------------------------------------------------------- argument checks
def _all_tensors(xs):
    for t in xs:
        if not isinstance(t, Tensor):
            return False
    return True


def _tensors(op, xs, what="self"):
    if isinstance(xs, (list, tuple)):
        for t in xs:        # (``_all_tensors`` inline: this runs on every optimizer step)
            if not isinstance(t, Tensor):
                break
        else:
            if xs:
                return xs
            raise RuntimeError("Tensor list must have at least one tensor.")
    raise TypeError(f"{op}(): argument '{what}' must be a list of Tensors, not "
                    f"{type(xs).__name__}")


def _same_len(a, b):
    if len(a) != len(b):
        raise RuntimeError(f"Tensor lists must have the same number of tensors, got {len(a)} "
                           f"and {len(b)}")


def _kind(op, x):
    """'Scalar', 'ScalarList', 'List' or 'Tensor': the overload an argument selects."""
    if isinstance(x, Tensor):
        return "Tensor"
    if isinstance(x, _NUMBER):
        return "Scalar"
    if isinstance(x, (list, tuple)):
        if x and _all_tensors(x):
            return "List"
        if all(isinstance(v, _NUMBER) for v in x):
            return "ScalarList"
    raise TypeError(f"{op}() received an invalid combination of arguments - got "
                    f"{type(x).__name__}")


def _scalars(selfs, xs):
    if len(xs) != len(selfs):
        raise RuntimeError("Tensor list must have same number of elements as scalar list.")
    return [float(v) for v in xs]


def _scalar_tensor(t):
    if t.ndim != 0:
        raise RuntimeError(f"scalar tensor expected to be 0 dim but it has {t.ndim} dimensions "
                           f"and {t.numel()} elements.")
    return t.item()


def _check_dtypes(op, selfs, *lists):
    dt = selfs[0].dtype
    if dt.is_floating_point:    # the common case: one floating dtype throughout, one pass
        for lst in (selfs,) + lists:
            for t in lst:
                if t.dtype is not dt:
                    break
            else:
                continue
            break
        else:
            return
    for i, s in enumerate(selfs):
        if not s.dtype.is_floating_point:
            raise NotImplementedError(f"{op}: minigrad's foreach ops take floating-point "
                                      f"tensors, got {s.dtype}")
        for lst in lists:
            if lst[i].dtype is not s.dtype:
                raise NotImplementedError(f"{op}: all tensors of one call must share a dtype "
                                          f"(got {s.dtype} and {lst[i].dtype}); minigrad does "
                                          "not promote inside foreach ops")


def _check_grad(op, tensors, inplace):
    for t in tensors:
        if t._requires_grad:
            if inplace and t.grad_fn is None:
                raise RuntimeError("a leaf Variable that requires grad is being used in an "
                                   "in-place operation.")
            raise NotImplementedError(f"{op}: minigrad's foreach ops record no autograd history;"
                                      " call them under no_grad")


def _check_shape(dst, src):
    if src._data.shape != dst._data.shape:
        out = broadcast_shapes(dst.shape, src.shape)
        if out != tuple(dst.shape):
            raise RuntimeError(f"output with shape {list(dst.shape)} doesn't match the "
                               f"broadcast shape {list(out)}")


def _arrays(others, selfs):
    """The arrays of ``others``, each broadcast to its ``selfs`` tensor's shape where that
    differs (one call for the whole list: this runs on every optimizer step)."""
    out = []
    for o, t in zip(others, selfs):
        a = o._data
        shape = t._data.shape
        out.append(a if a.shape == shape else np.broadcast_to(a, shape))
    return out


def _written(selfs):
    for t in selfs:
        t._vc[0] += 1
    return selfs


def _results(arrays, selfs):
    out = []
    for a, s in zip(arrays, selfs):
        t = Tensor._make(a, s.dtype)
        t._device = s._device          # each result on its input's device
        out.append(t)
    return tuple(out)


def _apply(op, selfs, inplace, fn, *per_tensor):
    """Run ``fn(a, *args, out=...)`` for every tensor of ``selfs`` (args taken per index:
    each of ``per_tensor`` is a list as long as ``selfs``); IEEE exceptions (overflow,
    invalid) give inf/NaN silently, as in PyTorch."""
    token = _nx.quiet()         # np.errstate(all="ignore"), as two C calls
    try:
        rows = zip(selfs, *per_tensor)
        if inplace:
            try:
                if len(per_tensor) == 1:    # (most calls) one argument per tensor, unpacked
                    for t, x in rows:
                        a = t._data
                        fn(a, x, out=a)
                else:
                    for t, *args in rows:
                        a = t._data
                        fn(a, *args, out=a)
            except ValueError as e:
                raise RuntimeError(f"{op}: cannot write into this tensor ({e})") from None
            for t in selfs:         # (``_written``)
                t._vc[0] += 1
            return selfs
        outs = []
        for t, *args in rows:
            a = t._data
            outs.append(fn(a, *args, out=K.new_out(a)))
        return _results(outs, selfs)
    finally:
        _nx.unquiet(token)


def _prepare(op, self, inplace, *lists):
    selfs = _tensors(op, self)
    for lst in lists:
        _tensors(op, lst, "other")
        if len(lst) != len(selfs):
            _same_len(selfs, lst)
        for d, s in zip(selfs, lst):
            if s._data.shape != d._data.shape:
                _check_shape(d, s)
    _check_dtypes(op, selfs, *lists)
    if grad_enabled():
        _check_grad(op, [t for lst in (selfs,) + lists for t in lst], inplace)
    return selfs


# ---------------------------------------------------------------------- add / sub
def _add(op, inplace, self, other, alpha):
    kind = _kind(op, other)
    if kind == "List":
        selfs = _prepare(op, self, inplace, other)
        others = _arrays(other, selfs)
        if inplace:     # the whole list in one pass where it may (``K.add_all``)
            arrays = [t._data for t in selfs]
            token = _nx.quiet()
            try:
                done = K.add_all(arrays, arrays, others, alpha)
            finally:
                _nx.unquiet(token)
            if done:
                return _written(selfs)
        return _apply(op, selfs, inplace, K.add, others, [alpha] * len(selfs))
    selfs = _prepare(op, self, inplace)
    if kind == "Tensor":
        value = _scalar_tensor(other) * alpha
        return _apply(op, selfs, inplace, lambda a, out: K.add_scalar(a, value, out=out))
    if alpha != 1:
        raise TypeError(f"{op}(): alpha is only accepted with a Tensor or a list of Tensors")
    values = _scalars(selfs, other) if kind == "ScalarList" else [float(other)] * len(selfs)
    return _apply(op, selfs, inplace, lambda a, s, out: K.add_scalar(a, s, out=out), values)


@register_op("_foreach_add_")
def _foreach_add_(self, other, *, alpha=1):
    """In place ``self[i] += alpha * other[i]`` (``torch._foreach_add_``).

    Args:
        self: list of floating tensors, updated in place.
        other: a number, a list of numbers, a list of tensors (broadcast to ``self[i]``) or a
            0-dim tensor; ``alpha`` only with tensors (add recipe of ``foreach_kernels.add``).

    Returns:
        ``self``.
    """
    return _add("_foreach_add_", True, self, other, alpha)


@register_op("_foreach_add")
def _foreach_add(self, other, *, alpha=1):
    """Out-of-place ``self[i] + alpha * other[i]`` (``torch._foreach_add``); a tuple."""
    return _add("_foreach_add", False, self, other, alpha)


@register_op("_foreach_sub_")
def _foreach_sub_(self, other, *, alpha=1):
    """In place ``self[i] -= alpha * other[i]`` (``torch._foreach_sub_``)."""
    if _kind("_foreach_sub_", other) in ("Scalar", "ScalarList"):
        neg = -other if isinstance(other, _NUMBER) else [-v for v in other]
        return _add("_foreach_sub_", True, self, neg, alpha)
    return _add("_foreach_sub_", True, self, other, -alpha)


# ---------------------------------------------------------------------- mul / div
def _mul_div(op, inplace, self, other, scalar_fn, tensor_fn, round_scalar=False):
    kind = _kind(op, other)
    if kind == "List":
        selfs = _prepare(op, self, inplace, other)
        return _apply(op, selfs, inplace, tensor_fn, _arrays(other, selfs))
    selfs = _prepare(op, self, inplace)
    if kind == "Tensor":
        values = [_scalar_tensor(other)] * len(selfs)
    elif kind == "ScalarList":
        values = _scalars(selfs, other)
    else:
        values = [float(other)] * len(selfs)
    if round_scalar and kind != "Tensor":
        for i, t in enumerate(selfs):   # only 16-bit storage rounds it (K.storage_scalar)
            npd = t._data.dtype
            if npd != _F32 and npd != _F64:
                values[i] = float(K.storage_scalar(values[i], npd))
    return _apply(op, selfs, inplace, scalar_fn, values)


@register_op("_foreach_mul_")
def _foreach_mul_(self, other):
    """In place ``self[i] *= other[i]`` (``torch._foreach_mul_``): a number, numbers, tensors
    or a 0-dim tensor (its value used as a scalar, as ATen does for a CPU scalar tensor).

    Unlike ``Tensor.mul_``, a number (Scalar / ScalarList) is first rounded to a 16-bit
    tensor's dtype (measured on torch 2.13 CPU: ``_foreach_mul_([h], 0.999)`` multiplies an
    fp16 ``h`` by fp16(0.999), while ``_foreach_mul`` and ``mul_`` use fp32(0.999)); the
    Tensor overload uses the value unrounded, as ``mul_``."""
    return _mul_div("_foreach_mul_", True, self, other, K.mul, K.mul_tensors, True)


@register_op("_foreach_mul")
def _foreach_mul(self, other):
    """Out-of-place ``self[i] * other[i]`` (``torch._foreach_mul``); a tuple. Numbers are
    used unrounded here, as ``Tensor.mul`` (measured: only the in-place op rounds them)."""
    return _mul_div("_foreach_mul", False, self, other, K.mul, K.mul_tensors)


@register_op("_foreach_div_")
def _foreach_div_(self, other):
    """In place ``self[i] /= other[i]`` (``torch._foreach_div_``), true division."""
    return _mul_div("_foreach_div_", True, self, other, K.div_scalar, K.div_tensors)


@register_op("_foreach_div")
def _foreach_div(self, other):
    """Out-of-place ``self[i] / other[i]`` (``torch._foreach_div``); a tuple."""
    return _mul_div("_foreach_div", False, self, other, K.div_scalar, K.div_tensors)


# ---------------------------------------------------------------------- addcmul / addcdiv / lerp
def _addc(op, inplace, fn, self, tensor1, tensor2, value):
    selfs = _prepare(op, self, inplace, tensor1, tensor2)
    kind = _kind(op, value)
    if kind == "Tensor":
        if value.ndim != 1 or value.numel() != len(selfs):
            raise RuntimeError("Tensor list must have same number of elements as scalar list.")
        values = [float(v) for v in value._data]
    elif kind == "ScalarList":
        values = _scalars(selfs, value)
    elif kind == "Scalar":
        values = [float(value)] * len(selfs)
    else:
        raise TypeError(f"{op}(): 'value' must be a number, a list of numbers or a Tensor")
    t1 = _arrays(tensor1, selfs)
    t2 = _arrays(tensor2, selfs)
    return _apply(op, selfs, inplace, lambda a, b, c, v, out: fn(a, b, c, v, out=out),
                  t1, t2, values)


@register_op("_foreach_addcmul_")
def _foreach_addcmul_(self, tensor1, tensor2, value=1):
    """In place ``self[i] += value[i] * tensor1[i] * tensor2[i]`` (``torch._foreach_addcmul_``;
    ``value`` a number, a list of numbers or a 1-D tensor of them)."""
    return _addc("_foreach_addcmul_", True, K.addcmul, self, tensor1, tensor2, value)


@register_op("_foreach_addcdiv_")
def _foreach_addcdiv_(self, tensor1, tensor2, value=1):
    """In place ``self[i] += value[i] * tensor1[i] / tensor2[i]`` (``torch._foreach_addcdiv_``)."""
    return _addc("_foreach_addcdiv_", True, K.addcdiv, self, tensor1, tensor2, value)


@register_op("_foreach_lerp_")
def _foreach_lerp_(self, tensors1, weight):
    """In place ``self[i] += weight[i] * (tensors1[i] - self[i])`` (``torch._foreach_lerp_``):
    ``weight`` a number, a list of numbers or a list of weight tensors."""
    op = "_foreach_lerp_"
    kind = _kind(op, weight)
    if kind == "List":
        selfs = _prepare(op, self, True, tensors1, weight)
        return _apply(op, selfs, True, K.lerp_tensors,
                      _arrays(tensors1, selfs),
                      _arrays(weight, selfs))
    if kind == "Tensor":
        raise TypeError(f"{op}(): 'weight' must be a number, a list of numbers or a list of "
                        "Tensors")
    selfs = _prepare(op, self, True, tensors1)
    ws = _scalars(selfs, weight) if kind == "ScalarList" else [float(weight)] * len(selfs)
    return _apply(op, selfs, True, K.lerp, _arrays(tensors1, selfs), ws)


# ---------------------------------------------------------------------- unary, maximum, zero
def _unary(op, inplace, fn, self):
    selfs = _prepare(op, self, inplace)
    return _apply(op, selfs, inplace, fn)


@register_op("_foreach_sqrt")
def _foreach_sqrt(self):
    """``sqrt`` of every tensor (``torch._foreach_sqrt``); a tuple of new tensors."""
    return _unary("_foreach_sqrt", False, K.sqrt, self)


@register_op("_foreach_sqrt_")
def _foreach_sqrt_(self):
    """In-place ``sqrt`` of every tensor (``torch._foreach_sqrt_``)."""
    return _unary("_foreach_sqrt_", True, K.sqrt, self)


@register_op("_foreach_neg")
def _foreach_neg(self):
    """``-self[i]`` (``torch._foreach_neg``); a tuple of new tensors."""
    return _unary("_foreach_neg", False, K.neg, self)


@register_op("_foreach_neg_")
def _foreach_neg_(self):
    """In-place negation (``torch._foreach_neg_``)."""
    return _unary("_foreach_neg_", True, K.neg, self)


@register_op("_foreach_maximum_")
def _foreach_maximum_(self, other):
    """In place ``self[i] = maximum(self[i], other[i])`` (``torch._foreach_maximum_``; NaN
    propagates): ``other`` a list of tensors or a number (rounded to the tensors' dtype)."""
    op = "_foreach_maximum_"
    if _kind(op, other) == "List":
        selfs = _prepare(op, self, True, other)
        return _apply(op, selfs, True, K.maximum, _arrays(other, selfs))
    if _kind(op, other) != "Scalar":
        raise TypeError(f"{op}(): 'other' must be a number or a list of Tensors")
    selfs = _prepare(op, self, True)
    return _apply(op, selfs, True, lambda a, out: K.maximum(a, a.dtype.type(other), out=out))


@register_op("_foreach_zero_")
def _foreach_zero_(self):
    """Fill every tensor with zeros in place (``torch._foreach_zero_``)."""
    selfs = _prepare("_foreach_zero_", self, True)
    for t in selfs:
        t._data[...] = 0
    return _written(selfs)


# ---------------------------------------------------------------------- norm, clamp (clip_grad)
@register_op("_foreach_norm")
def _foreach_norm(self, ord=2, dtype=None):
    """The vector norm of every tensor (``torch._foreach_norm``): a tuple of 0-dim tensors,
    each computed by the ``linalg_vector_norm`` kernel (its dtype rules and errors)."""
    selfs = _tensors("_foreach_norm", self)
    norm = _CALL["linalg_vector_norm"]
    return tuple(norm(t, ord, dtype=dtype) for t in selfs)


def _clamp_each(op, self, lo, hi):
    selfs = _prepare(op, self, True)
    clamp_ = _CALL["clamp_"]
    for t in selfs:
        clamp_(t, lo, hi)     # the clamp_ kernel (bumps the version itself)
    return selfs


@register_op("_foreach_clamp_min_")
def _foreach_clamp_min_(self, scalar):
    """In place ``self[i] = clamp(self[i], min=scalar)`` (``torch._foreach_clamp_min_``)."""
    return _clamp_each("_foreach_clamp_min_", self, scalar, None)


@register_op("_foreach_clamp_max_")
def _foreach_clamp_max_(self, scalar):
    """In place ``self[i] = clamp(self[i], max=scalar)`` (``torch._foreach_clamp_max_``)."""
    return _clamp_each("_foreach_clamp_max_", self, None, scalar)


# ---------------------------------------------------------------------- ATen's CPU slow path
# Every other ``_foreach_*`` op is, on CPU, ATen's "slow path" (``foreach_tensor_<op>_slow``): a
# loop of the per-tensor op over the list. These are that loop over minigrad's per-tensor ops
# (``_CALL``: the op's callable, so the loop is one dispatch as a whole, seen once by a mode), so
# their bits are the per-tensor op's bits. The out-of-place forms of the in-place ops above clone
# each tensor and run the in-place op: the same kernel, the same bits.
_SLOW_UNARY = ("abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp",
               "expm1", "floor", "frac", "lgamma", "log", "log10", "log1p", "log2",
               "reciprocal", "round", "rsqrt", "sigmoid", "sign", "sin", "sinh", "tan", "tanh",
               "trunc")


def _slow_unary(name):
    """Register ``_foreach_<name>`` (a tuple of ``<name>(t)``) and ``_foreach_<name>_`` (each
    tensor overwritten by it: ``<name>_`` where minigrad has that op, else ``copy_`` of the
    result, the same bits)."""
    op, op_ = f"_foreach_{name}", f"_foreach_{name}_"

    def out_of_place(self):
        kernel = _CALL[name]
        return tuple(kernel(t) for t in _prepare(op, self, False))

    def in_place(self):
        selfs = _prepare(op_, self, True)
        if name + "_" in _CALL:
            kernel_ = _CALL[name + "_"]
            for t in selfs:
                kernel_(t)                     # bumps the version itself
        else:
            kernel, copy_ = _CALL[name], _CALL["copy_"]
            for t in selfs:
                copy_(t, kernel(t))
        return selfs

    out_of_place.__name__, in_place.__name__ = op, op_
    out_of_place.__doc__ = (f"``{name}`` of every tensor (``torch.{op}``): ATen's CPU loop of "
                            f"the ``{name}`` op; a tuple of new tensors.")
    in_place.__doc__ = (f"In-place ``{name}`` of every tensor (``torch.{op_}``): ATen's CPU loop "
                        f"of ``{name}_``; returns the list.")
    register_op(op, out_of_place)
    register_op(op_, in_place)


for _name in _SLOW_UNARY:
    _slow_unary(_name)


def _cloned(op, self):
    """Clones of the tensors of ``self`` (checked as ``op``'s first list), for the out-of-place
    forms below."""
    clone = _CALL["clone"]
    return [clone(t) for t in _prepare(op, self, False)]


@register_op("_foreach_clone")
def _foreach_clone(self):
    """A clone of every tensor (``torch._foreach_clone``); a tuple of new tensors."""
    return tuple(_cloned("_foreach_clone", self))


@register_op("_foreach_copy_")
def _foreach_copy_(self, src, non_blocking=False):
    """``self[i].copy_(src[i])`` for each i (``torch._foreach_copy_``): the ``copy_`` op per
    tensor (broadcasting, dtype conversion, version counters as ``copy_``); returns ``self``.

    Raises:
        RuntimeError: an empty list or lists of different lengths (PyTorch's messages), or
            ``copy_``'s errors.
    """
    _tensors("_foreach_copy_", self)
    _same_len(self, _tensors("_foreach_copy_", src, "src"))
    copy_ = _CALL["copy_"]
    for d, s in zip(self, src):
        copy_(d, s)
    return self


@register_op("_foreach_sub")
def _foreach_sub(self, other, *, alpha=1):
    """Out-of-place ``self[i] - alpha * other[i]`` (``torch._foreach_sub``): ``other`` a
    number, a list of numbers or a list of tensors; a tuple of new tensors."""
    out = _cloned("_foreach_sub", self)
    return tuple(_CALL["_foreach_sub_"](out, other, alpha=alpha))


@register_op("_foreach_addcmul")
def _foreach_addcmul(self, tensor1, tensor2, value=1):
    """Out-of-place ``self[i] + value * tensor1[i] * tensor2[i]`` (``torch._foreach_addcmul``)."""
    out = _cloned("_foreach_addcmul", self)
    return tuple(_CALL["_foreach_addcmul_"](out, tensor1, tensor2, value))


@register_op("_foreach_addcdiv")
def _foreach_addcdiv(self, tensor1, tensor2, value=1):
    """Out-of-place ``self[i] + value * tensor1[i] / tensor2[i]`` (``torch._foreach_addcdiv``)."""
    out = _cloned("_foreach_addcdiv", self)
    return tuple(_CALL["_foreach_addcdiv_"](out, tensor1, tensor2, value))


@register_op("_foreach_lerp")
def _foreach_lerp(self, tensors1, weight):
    """Out-of-place ``self[i] + weight[i] * (tensors1[i] - self[i])`` (``torch._foreach_lerp``)."""
    out = _cloned("_foreach_lerp", self)
    return tuple(_CALL["_foreach_lerp_"](out, tensors1, weight))


@register_op("_foreach_clamp_min")
def _foreach_clamp_min(self, scalar):
    """Out-of-place ``clamp(self[i], min=scalar)`` (``torch._foreach_clamp_min``)."""
    return tuple(_clamp_each("_foreach_clamp_min", _cloned("_foreach_clamp_min", self),
                             scalar, None))


@register_op("_foreach_clamp_max")
def _foreach_clamp_max(self, scalar):
    """Out-of-place ``clamp(self[i], max=scalar)`` (``torch._foreach_clamp_max``)."""
    return tuple(_clamp_each("_foreach_clamp_max", _cloned("_foreach_clamp_max", self),
                             None, scalar))


def _min_max(op, name, inplace, self, other):
    """``maximum`` / ``minimum`` of each tensor with ``other[i]`` (a list of tensors) or a number
    (a 0-dim tensor of the list's dtype, as PyTorch's Scalar overload)."""
    kind = _kind(op, other)
    if kind == "List":
        selfs = _prepare(op, self, inplace, other)
        others = list(other)
    elif kind == "Scalar":
        selfs = _prepare(op, self, inplace)
        others = [_CALL["full"]((), other, dtype=t.dtype) for t in selfs]
    else:
        raise TypeError(f"{op}(): 'other' must be a number or a list of Tensors")
    kernel = _CALL[name]
    results = [kernel(t, o) for t, o in zip(selfs, others)]
    if not inplace:
        return tuple(results)
    copy_ = _CALL["copy_"]
    for t, r in zip(selfs, results):
        copy_(t, r)
    return selfs


@register_op("_foreach_maximum")
def _foreach_maximum(self, other):
    """Out-of-place ``maximum(self[i], other[i])`` (``torch._foreach_maximum``; NaN
    propagates): ``other`` a list of tensors or a number."""
    return _min_max("_foreach_maximum", "maximum", False, self, other)


@register_op("_foreach_minimum")
def _foreach_minimum(self, other):
    """Out-of-place ``minimum(self[i], other[i])`` (``torch._foreach_minimum``; NaN
    propagates): ``other`` a list of tensors or a number."""
    return _min_max("_foreach_minimum", "minimum", False, self, other)


@register_op("_foreach_minimum_")
def _foreach_minimum_(self, other):
    """In place ``self[i] = minimum(self[i], other[i])`` (``torch._foreach_minimum_``)."""
    return _min_max("_foreach_minimum_", "minimum", True, self, other)


@register_op("_foreach_max")
def _foreach_max(self):
    """The maximum of every tensor (``torch._foreach_max``): a tuple of 0-dim tensors.

    Raises:
        RuntimeError: an empty tensor in the list (``max``'s error).
    """
    kernel = _CALL["max"]
    return tuple(kernel(t) for t in _prepare("_foreach_max", self, False))


def _pow_each(op, inplace, self, exponent):
    if isinstance(self, _NUMBER):               # _foreach_pow(2.0, tensors): ScalarAndTensor
        pow_scalar = _CALL["pow.Scalar"]
        return tuple(pow_scalar(self, e) for e in _prepare(op, exponent, False))
    kind = _kind(op, exponent)
    if kind == "List":
        selfs = _prepare(op, self, inplace, exponent)
        exps = list(exponent)
    else:
        selfs = _prepare(op, self, inplace)
        exps = _scalars(selfs, exponent) if kind == "ScalarList" else [exponent] * len(selfs)
    if inplace:
        for t, e in zip(selfs, exps):
            _CALL["pow_.Tensor" if isinstance(e, Tensor) else "pow_.Scalar"](t, e)
        return selfs
    return tuple(_CALL["pow.Tensor_Tensor" if isinstance(e, Tensor) else "pow.Tensor_Scalar"](t, e)
                 for t, e in zip(selfs, exps))


@register_op("_foreach_pow")
def _foreach_pow(self, exponent):
    """``self[i] ** exponent[i]`` (``torch._foreach_pow``): ``exponent`` a number, a list of
    numbers or a list of tensors; or ``self`` a number and ``exponent`` a list of tensors. A
    tuple of new tensors."""
    return _pow_each("_foreach_pow", False, self, exponent)


@register_op("_foreach_pow_")
def _foreach_pow_(self, exponent):
    """In place ``self[i] **= exponent[i]`` (``torch._foreach_pow_``)."""
    return _pow_each("_foreach_pow_", True, self, exponent)
