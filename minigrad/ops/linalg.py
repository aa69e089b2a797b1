"""Linear algebra: mm, bmm, mv, dot, addmm (Functions); matmul and linear (compositions) are in
``matmul.py``.

Numerics: fp16/bf16 products accumulate in fp32 (``np.matmul`` on fp32 copies, i.e. BLAS sgemm)
and round once; ``addmm`` (and so ``linear`` with a bias) adds ``beta * input`` before that single
rounding, as PyTorch's CPU kernels do (facts sheet §5). Summation order differs from oneDNN/MKL, so
fp16/bf16 results may differ from PyTorch by 1 ULP on a few elements, fp32 by a few ULPs.

Like PyTorch, these ops do not promote dtypes: mixed inputs raise PyTorch's messages, e.g.
"expected m1 and m2 to have the same dtype, but got: float != c10::BFloat16".

``matmul`` dispatches to dot/mv/mm/bmm exactly as ``at::matmul`` does, so graphs show PyTorch's
nodes (``DotBackward0``, ``MvBackward0``, ``MmBackward0``, batched: ``UnsafeViewBackward0`` over
``BmmBackward0``); ``linear`` is ``addmm(bias, input, weight.t())`` (``AddmmBackward0`` over
``TBackward0``) or ``matmul(input, weight.t())`` without a bias.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .. import numerics as _nx
from ..autograd.function import Function
from ..dispatch import _MODES_PUSHED, dispatch, register_op
from ..tensor import Tensor
from ..backends.cuda import _precision
from ._util import opmath, opmath_read, tf32_operands, wrap, wrap_widened



def _check_tensor(x, op, arg):
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument '{arg}' (position {1 if arg in ('input', 'self') else 2}"
                        f") must be Tensor, not {type(x).__name__}")


def _same_dtype_mm(a, b):
    if a.dtype is not b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{a.dtype.cpp_name} != {b.dtype.cpp_name}")


def _shape_str(s):
    return "x".join(str(x) for x in s)


def _check_bool(x, kernel, out_numel=1, k=1):
    """PyTorch's CPU BLAS kernels have no Bool version; an empty output or an empty contraction
    returns before the kernel (zeros), as in PyTorch.

    Raises:
        NotImplementedError: '"addmm_impl_cpu_" not implemented for 'Bool''.
    """
    if x.dtype is _dt.bool_ and out_numel and k:
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


def _int_scalar(v, dt):
    """``alpha``/``beta`` converted to an integer ``dt`` as c10's ``checked_convert``: floats
    truncate toward zero, values out of range raise, unsigned types wrap negatives down to -max
    (but not negative floats).

    Raises:
        RuntimeError: "value cannot be converted to type uint8_t without overflow".
    """
    if isinstance(v, (bool, np.bool_)) or dt is _dt.bool_:
        return int(bool(v)) if dt is _dt.bool_ else int(v)
    info = np.iinfo(dt.np)
    lo, hi = int(info.min), int(info.max)
    if isinstance(v, (float, np.floating)):
        ok = lo <= v <= hi if lo == 0 or v >= 0 else lo <= v
        if not ok:
            raise RuntimeError(f"value cannot be converted to type {dt.c10_name} without "
                               "overflow")
        return int(v)
    v = int(v)
    if not (-hi if lo == 0 else lo) <= v <= hi:
        raise RuntimeError(f"value cannot be converted to type {dt.c10_name} without "
                           "overflow")
    return int(np.array(v).astype(dt.np))


def _broadcasts_to(shape, out):
    """True when a tensor of ``shape`` expands to the 2-D ``out`` without an error (at most 2
    dims, each equal to ``out``'s or 1): what ``addmm``'s ``expand`` of its input checks."""
    if len(shape) > 2:
        return False
    for s, o in zip(reversed(shape), reversed(out)):
        if s != o and s != 1:
            return False
    return True


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _product(a, b, dtype):
    """a @ b in opmath (fp32 for fp16/bf16), not yet rounded; fp32 cuda matrix products in TF32
    when PyTorch's would be (``_util.tf32_operands``: cuBLAS gemm; mv and dot are gemv/dot
    kernels, which have no TF32)."""
    x, y = opmath_read(a, dtype), opmath_read(b, dtype)     # (fp16: widened once, cached)
    if _precision[0] != "highest" and isinstance(a, Tensor) and x.ndim >= 2 and y.ndim >= 2:
        x, y = tf32_operands(dtype, a, x, y)
    token = _nx.quiet()             # inf * 0 in a product: no NumPy warning, as PyTorch
    try:
        return np.matmul(x, y)
    finally:
        _nx.unquiet(token)


# ---------------------------------------------------------------------------- mm, bmm, mv, dot

@register_op("mm")
class Mm(Function):
    """``mm(input, mat2)``: (n, m) @ (m, p) -> (n, p) (``torch.mm``).

    Raises:
        RuntimeError: "self must be a matrix", "mat2 must be a matrix", "mat1 and mat2 shapes
            cannot be multiplied (2x3 and 4x5)", "expected m1 and m2 to have the same dtype,
            but got: float != c10::BFloat16".
    """

    _backward_name = "MmBackward0"
    _saved_names = ("self", "mat2")

    @staticmethod
    def forward(ctx, input, mat2):
        if not (isinstance(input, Tensor) and isinstance(mat2, Tensor)):
            _check_tensor(input, "mm", "input")
            _check_tensor(mat2, "mm", "mat2")
        s1, s2 = input._data.shape, mat2._data.shape    # tuples: cheaper to read than Size
        if len(s1) != 2:
            raise RuntimeError("self must be a matrix")
        if len(s2) != 2:
            raise RuntimeError("mat2 must be a matrix")
        if s1[1] != s2[0]:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied "
                               f"({_shape_str(s1)} and {_shape_str(s2)})")
        if input.dtype is not mat2.dtype:
            _same_dtype_mm(input, mat2)
        if input.dtype is _dt.bool_:
            _check_bool(input, "addmm_impl_cpu_", s1[0] * s2[1], s2[0])
        n = ctx.needs_input_grad
        ctx.mat2_colmajor = _colmajor(mat2)
        ctx.save_for_backward(input if n[1] else None, mat2 if n[0] else None)
        return wrap_widened(_product(input, mat2, input.dtype), input.dtype)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        n = ctx.needs_input_grad
        ga = dispatch("mm", grad, dispatch("t", b)) if n[0] else None
        gb = _mat2_grad(a, grad, ctx.mat2_colmajor) if n[1] else None
        return ga, gb


def _colmajor(t):
    """True for a 2-D tensor stored column-major (e.g. ``weight.t()``)."""
    a = t._data
    f = a.flags
    return a.ndim == 2 and f.f_contiguous and not f.c_contiguous


def _mat2_grad(mat1, grad, colmajor):
    """PyTorch's ``mm_mat2_backward``: a column-major ``mat2`` (``weight.t()`` in ``linear``)
    gets ``(grad^T @ mat1)^T``, so its gradient comes out in its own layout and reaches the
    weight's ``.grad`` without a copy; otherwise ``mat1^T @ grad``."""
    if colmajor:
        return dispatch("t", dispatch("mm", dispatch("t", grad), mat1))
    return dispatch("mm", dispatch("t", mat1), grad)


@register_op("bmm")
class Bmm(Function):
    """``bmm(input, mat2)``: (b, n, m) @ (b, m, p) -> (b, n, p) (``torch.bmm``).

    Raises:
        RuntimeError: "batch1 must be a 3D tensor", "batch2 must be a 3D tensor", "Expected size
            for first two dimensions of batch2 tensor to be: [2, 4] but got: [2, 5].",
            "expected scalar type Half but found Float".
    """

    _backward_name = "BmmBackward0"
    _saved_names = ("self", "mat2")

    @staticmethod
    def forward(ctx, input, mat2):
        _check_tensor(input, "bmm", "input")
        _check_tensor(mat2, "bmm", "mat2")
        if input.ndim != 3:
            raise RuntimeError("batch1 must be a 3D tensor")
        if mat2.ndim != 3:
            raise RuntimeError("batch2 must be a 3D tensor")
        b, _, m = input.shape
        if mat2.shape[:2] != (b, m):
            raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                               f"[{b}, {m}] but got: [{mat2.shape[0]}, {mat2.shape[1]}].")
        _check_bool(input, "bmm", b * input.shape[1] * mat2.shape[2], m)   # before the dtypes
        n = ctx.needs_input_grad
        ctx.save_for_backward(input if n[1] else None, mat2 if n[0] else None)
        if b * input.shape[1] * mat2.shape[2] == 0:
            # PyTorch returns an empty result of mat2's dtype before checking the dtypes
            return Tensor._make(np.zeros((b, input.shape[1], mat2.shape[2]), mat2.dtype.np),
                                mat2.dtype)
        if input.dtype is not mat2.dtype:
            raise RuntimeError(f"expected scalar type {input.dtype.scalar_name} but found "
                               f"{mat2.dtype.scalar_name}")
        return wrap(_product(input, mat2, input.dtype), input.dtype)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        n = ctx.needs_input_grad
        ga = dispatch("bmm", grad, dispatch("transpose", b, 1, 2)) if n[0] else None
        gb = dispatch("bmm", dispatch("transpose", a, 1, 2), grad) if n[1] else None
        return ga, gb


@register_op("mv")
class Mv(Function):
    """``mv(input, vec)``: (n, m) @ (m,) -> (n,) (``torch.mv``).

    Raises:
        RuntimeError: "vector + matrix @ vector expected, got 1, 1, 2" style rank errors, "size
            mismatch, got input (3), mat (3x4), vec (5)", mixed dtypes.
    """

    _backward_name = "MvBackward0"

    @staticmethod
    def forward(ctx, input, vec):
        _check_tensor(input, "mv", "input")
        _check_tensor(vec, "mv", "vec")
        if input.ndim == 0:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        if input.ndim != 2 or vec.ndim != 1:
            raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input.ndim}, "
                               f"{vec.ndim}")
        if input.shape[1] != vec.shape[0]:
            raise RuntimeError(f"size mismatch, got input ({input.shape[0]}), mat "
                               f"({_shape_str(input.shape)}), vec ({vec.shape[0]})")
        if input.dtype is not vec.dtype:
            v, m = vec.dtype.scalar_name, input.dtype.scalar_name
            raise RuntimeError(f"addmv input tensors must have the same dtype, but got {v}, {m},"
                               f" and {v}")
        _check_bool(input, "addmv_impl_cpu", input.shape[0], vec.shape[0])
        n = ctx.needs_input_grad
        ctx.save_for_backward(input if n[1] else None, vec if n[0] else None)
        return wrap(_product(input, vec, input.dtype), input.dtype)

    @staticmethod
    def backward(ctx, grad):
        a, v = ctx.saved_tensors
        n = ctx.needs_input_grad
        ga = dispatch("mul", dispatch("unsqueeze", grad, 1), v) if n[0] else None
        gv = dispatch("mv", dispatch("t", a), grad) if n[1] else None
        return ga, gv


@register_op("dot")
class Dot(Function):
    """``dot(input, tensor)``: inner product of two 1-D tensors -> 0-D (``torch.dot``).

    Raises:
        RuntimeError: "1D tensors expected, but got 2D and 1D tensors", "inconsistent tensor
            size, expected tensor [3] and src [4] to have the same number of elements, but got 3
            and 4 elements respectively", "dot : expected both vectors to have same dtype, but
            found Float and BFloat16".
    """

    _backward_name = "DotBackward0"

    @staticmethod
    def forward(ctx, input, tensor):
        _check_tensor(input, "dot", "input")
        _check_tensor(tensor, "dot", "tensor")
        if input.ndim != 1 or tensor.ndim != 1:
            raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {tensor.ndim}D "
                               "tensors")
        if input.dtype is not tensor.dtype:
            raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                               f"{input.dtype.scalar_name} and {tensor.dtype.scalar_name}")
        a, b = input.shape[0], tensor.shape[0]
        if a != b:
            raise RuntimeError(f"inconsistent tensor size, expected tensor [{a}] and src [{b}] to "
                               f"have the same number of elements, but got {a} and {b} elements "
                               "respectively")
        _check_bool(input, "dot")
        n = ctx.needs_input_grad
        ctx.save_for_backward(input if n[1] else None, tensor if n[0] else None)
        return wrap(_product(input, tensor, input.dtype), input.dtype)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        n = ctx.needs_input_grad
        return (dispatch("mul", b, grad) if n[0] else None,
                dispatch("mul", a, grad) if n[1] else None)


# ---------------------------------------------------------------------------- addmm

@register_op("addmm")
class Addmm(Function):
    """``addmm(input, mat1, mat2, *, beta=1, alpha=1)`` = beta*input + alpha*(mat1 @ mat2)
    (``torch.addmm``); ``input`` broadcasts to (n, p). One rounding for fp16/bf16, after the add.

    Raises:
        RuntimeError: mat shape errors as ``mm``; "self and mat2 must have the same dtype, but got
            Double and Float"; "mat1 and mat2 must have the same dtype, but got Double and
            Float"; ``input`` not broadcastable to (n, p) (expand's message).
    """

    _backward_name = "AddmmBackward0"
    _saved_names = ("mat1", "mat2")
    _saved_scalars = {"alpha": "alpha", "beta": "beta"}

    @staticmethod
    def forward(ctx, input, mat1, mat2, *, beta=1, alpha=1):
        if not (isinstance(input, Tensor) and isinstance(mat1, Tensor) and
                isinstance(mat2, Tensor)):
            for x, nm in ((input, "input"), (mat1, "mat1"), (mat2, "mat2")):
                _check_tensor(x, "addmm", nm)
        s1, s2 = mat1._data.shape, mat2._data.shape     # tuples: cheaper to read than Size
        if len(s1) != 2:
            raise RuntimeError(f"mat1 must be a matrix, got {len(s1)}-D tensor")
        if len(s2) != 2:
            raise RuntimeError(f"mat2 must be a matrix, got {len(s2)}-D tensor")
        if s1[1] != s2[0]:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied "
                               f"({_shape_str(s1)} and {_shape_str(s2)})")
        if input.dtype is not mat2.dtype:
            raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                               f"{input.dtype.scalar_name} and {mat2.dtype.scalar_name}")
        if mat1.dtype is not mat2.dtype:
            raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got "
                               f"{mat1.dtype.scalar_name} and {mat2.dtype.scalar_name}")
        out_shape = (s1[0], s2[1])
        ishape = input._data.shape
        if ishape != out_shape and (_MODES_PUSHED[0] or not _broadcasts_to(ishape, out_shape)):
            # PyTorch's kernel expands ``input`` by a dispatched ``expand`` (a mode sees it, as
            # the profiler test checks); with no mode anywhere only its error can show, and a
            # shape that broadcasts has none: the add below broadcasts it without a copy
            dispatch("expand", input, out_shape)      # raises PyTorch's expand message
        dt = input.dtype
        if dt is _dt.bool_:
            if out_shape[0] * out_shape[1] and not s1[1]:
                raise RuntimeError("result type Long can't be cast to the desired output type "
                                   "Bool")
            _check_bool(input, "addmm_impl_cpu_", out_shape[0] * out_shape[1], s1[1])
        prod = _product(mat1, mat2, dt)
        c = opmath(input, dt)
        cd = _dt.opmath_dtype(dt).np
        al, be = alpha, beta
        if not dt.is_floating_point and out_shape[0] * out_shape[1]:
            if s1[1]:
                al, be = _int_scalar(alpha, dt), _int_scalar(beta, dt)
            elif isinstance(beta, (float, np.floating)):     # PyTorch: result.mul_(beta)
                raise RuntimeError(f"result type Float can't be cast to the desired output "
                                   f"type {dt.scalar_name}")
            else:
                al, be = 1, int(np.array(int(beta)).astype(dt.np))
        elif not dt.is_floating_point:
            al = be = 1
        if al != 1:
            np.multiply(prod, cd.type(al), out=prod)         # prod is a fresh array: in place
        if be == 0:
            out = prod
        else:
            out = np.add(prod, c if be == 1 else c * cd.type(be), out=prod)
        ctx.beta, ctx.alpha = beta, alpha
        ctx.mat2_colmajor = _colmajor(mat2)
        n = ctx.needs_input_grad
        ctx.save_for_backward(mat1 if n[2] else None, mat2 if n[1] else None)
        return wrap(out, dt)

    @staticmethod
    def backward(ctx, grad):
        m1, m2 = ctx.saved_tensors
        n = ctx.needs_input_grad
        a, b = ctx.alpha, ctx.beta
        gi = (grad if b == 1 else dispatch("mul", grad, b)) if n[0] else None
        g1 = g2 = None
        if n[1]:
            g1 = dispatch("mm", grad, dispatch("t", m2))
            g1 = g1 if a == 1 else dispatch("mul", g1, a)
        if n[2]:
            g2 = _mat2_grad(m1, grad, ctx.mat2_colmajor)
            g2 = g2 if a == 1 else dispatch("mul", g2, a)
        return gi, g1, g2

