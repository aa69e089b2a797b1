"""Functions of matrices and vectors built on products: ``trace``, ``linalg_cross``, ``kron``,
``linalg_pinv``, ``linalg_matrix_power``, ``vander`` (``torch.cdist`` is in
``minigrad.ops.cdist``).

``trace`` and ``linalg_cross`` are kernels of their own (PyTorch's ``trace_cpu`` sums the
diagonal in ATen's CPU accumulation type, double for float32; its cross kernel does each product
and the difference in the input's own format, so 16-bit rounds three times and float32 is
fused, ``fma(x, y, -z*w)``). ``kron``,
``matrix_power`` and ``vander`` are composites of dispatched ops in PyTorch's order, so their
nodes are those ops'. ``linalg_pinv`` follows PyTorch's ``linalg_pinv`` (an SVD or ``eigh``,
small singular values cut at ``max(atol, rtol * s_max)``) with its own ``pinv_backward``
(``LinalgPinvBackward0``).
"""
from __future__ import annotations

import warnings

import numpy as np

from .. import dtypes as _dt
from .. import numerics as _nx
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import LOW as _LOW, broadcast_shapes, wrap, wrap_dim


def _tensor(x, fname, name, pos):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fname}(): argument '{name}' (position {pos}) must be Tensor, not "
                        f"{type(x).__name__}")


def _mT(x):
    return dispatch("transpose", x, -2, -1)


def _mm(a, b):
    return dispatch("matmul", a, b)


# ------------------------------------------------------------------------------ trace
@register_op("trace")
class Trace(Function):
    """``trace(input)`` (``torch.trace``, ``Tensor.trace``): the sum of the main diagonal of
    a 2-D tensor, 0-dim; integer inputs give int64. PyTorch's CPU kernel adds the diagonal
    left to right in double for float32/float64 and in float32 for 16-bit, then rounds once.
    ``TraceBackward0``: ``grad`` on the diagonal.

    Raises:
        RuntimeError: not 2-D ("trace: expected a matrix, but got tensor with dim 1").
        NotImplementedError: bool ('"trace" not implemented for 'Bool'').
    """

    _backward_name = "TraceBackward0"

    @staticmethod
    def forward(ctx, input):
        _tensor(input, "trace", "input", 1)
        if input.ndim != 2:
            raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
        dt = input.dtype
        if dt is _dt.bool_ or dt.is_float8:
            raise NotImplementedError(f'"trace" not implemented for \'{dt.scalar_name}\'')
        d = np.diagonal(input._data)
        if dt.is_floating_point:
            acc = np.float32 if dt in _LOW else np.float64
            rt = dt
        else:
            acc, rt = np.int64, _dt.int64
        a = d.astype(acc)
        with np.errstate(all="ignore"):                   # inf + -inf: silent, as PyTorch
            s = np.add.accumulate(a)[-1] if a.size else acc(0)  # left to right, as the kernel
        ctx.shape = input.shape
        return wrap(np.asarray(s), rt)

    @staticmethod
    def backward(ctx, grad):
        n, m = ctx.shape
        eye = dispatch("eye", n, m, dtype=grad.dtype, device=grad.device)
        return dispatch("mul", eye, grad)


# ------------------------------------------------------------------------------ cross
def _cross_kernel(a, b, d, dt):
    """``a x b`` along axis ``d`` in the storage format: each product and the difference
    rounded to ``dt`` (16-bit: three roundings, as ATen's scalar kernel; float32: fused)."""
    comp = [np.take(a, i, axis=d) for i in range(3)], [np.take(b, i, axis=d) for i in range(3)]
    (a0, a1, a2), (b0, b1, b2) = comp
    if dt in _LOW:
        r = lambda x: _nx.round_to(x, dt)      # noqa: E731
        f = lambda x, y, z, w: r(r(x * y) - r(z * w))      # noqa: E731
        a0, a1, a2, b0, b1, b2 = (x.astype(np.float32) for x in (a0, a1, a2, b0, b1, b2))
    elif dt is _dt.float32:
        f = _fma_diff32     # PyTorch's compiled kernel fuses x * y - z * w
    else:
        f = lambda x, y, z, w: x * y - z * w      # noqa: E731
    with np.errstate(all="ignore"):
        out = np.stack([f(a1, b2, a2, b1), f(a2, b0, a0, b2), f(a0, b1, a1, b0)], axis=d)
    return out


def _fma_diff32(x, y, z, w):
    """``fma(x, y, -(z * w))`` on float32 arrays, as PyTorch's compiled cross kernel: ``x*y``
    is exact in float64; the float64 difference ``s`` and its rounding error ``e`` (Knuth's
    TwoSum) give the exact value ``s + e``; an inexact ``s`` with an even last bit steps one
    float64 ulp towards ``e`` (round-to-odd), which keeps the final rounding to float32 from
    rounding twice (an odd float64 value is never a float32 midpoint)."""
    p = x.astype(np.float64) * y
    c = (z * w).astype(np.float64)
    s = p - c
    bp = s - p
    e = (p - (s - bp)) + (-c - bp)
    even = (s.view(np.int64) & 1) == 0     # round-to-odd: an odd ``s`` is already the answer
    s = np.where((e != 0) & even, np.nextafter(s, np.where(e > 0, np.inf, -np.inf)), s)
    return s.astype(np.float32)


@register_op("linalg_cross")
class LinalgCross(Function):
    """``linalg_cross(input, other, *, dim=-1)`` (``torch.linalg.cross``, ``torch.cross``):
    the cross product of the 3-vectors along ``dim``; inputs of one dtype and one number of
    dims, broadcast. ``LinalgCrossBackward0``: ``cross(other, g)`` and ``cross(g, input)``.

    Raises:
        RuntimeError: "linalg.cross: inputs dimension -1 must have length 3. Got 2 and 2";
            "linalg.cross: inputs must have the same number of dimensions."; different dtypes
            ("expected scalar type Float but found Double"); shapes that do not broadcast.
        IndexError: ``dim`` out of range.
    """

    _backward_name = "LinalgCrossBackward0"

    @staticmethod
    def forward(ctx, input, other, *, dim=-1):
        _tensor(input, "linalg_cross", "input", 1)
        _tensor(other, "linalg_cross", "other", 2)
        if input.ndim != other.ndim:
            raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
        d = wrap_dim(dim, input.ndim)
        if input.shape[d] != 3 or other.shape[d] != 3:
            raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                               f"{input.shape[d]} and {other.shape[d]}")
        if input.dtype is _dt.bool_ or input.dtype.is_float8:      # the kernel's dtype first
            raise NotImplementedError(f'"cross" not implemented for '
                                      f'\'{input.dtype.scalar_name}\'')
        if input.dtype is not other.dtype:
            raise RuntimeError(f"expected scalar type {input.dtype.scalar_name} but found "
                               f"{other.dtype.scalar_name}")
        shape = broadcast_shapes(input.shape, other.shape)
        a = np.broadcast_to(input._data, shape)
        b = np.broadcast_to(other._data, shape)
        ctx.dim = d
        ctx.save_for_backward(input, other)
        return wrap(np.ascontiguousarray(_cross_kernel(a, b, d, input.dtype)), input.dtype)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        ga = gb = None
        if ctx.needs_input_grad[0]:
            ga = dispatch("linalg_cross", dispatch("expand", b, tuple(grad.shape)), grad,
                          dim=ctx.dim)
        if ctx.needs_input_grad[1]:
            gb = dispatch("linalg_cross", grad, dispatch("expand", a, tuple(grad.shape)),
                          dim=ctx.dim)
        return ga, gb


# ------------------------------------------------------------------------------ kron
@register_op("kron")
def kron(input, other):
    """``kron(input, other)`` (``torch.kron``): the Kronecker product, as PyTorch's composite:
    both viewed with interleaved size-1 dims (the fewer-dim operand padded in front), one
    broadcast ``mul``, one reshape. Result dims: ``max(ndim)``, sizes multiplied.

    Raises:
        TypeError: a non-Tensor argument.
    """
    _tensor(input, "kron", "input", 1)
    _tensor(other, "kron", "other", 2)
    nd = max(input.ndim, other.ndim)
    pa, pb = nd - input.ndim, nd - other.ndim
    ra, rb, rr = [], [], []
    for i in range(nd):
        sa = input.shape[i - pa] if i >= pa else 1
        sb = other.shape[i - pb] if i >= pb else 1
        ra += [sa, 1]
        rb += [1, sb]
        rr.append(sa * sb)
    prod = dispatch("mul", dispatch("reshape", input, tuple(ra)),
                    dispatch("reshape", other, tuple(rb)))
    return dispatch("reshape", prod, tuple(rr))


# ------------------------------------------------------------------------------ pinv
@register_op("linalg_pinv")
class LinalgPinv(Function):
    """``linalg_pinv(A, *, atol=None, rtol=None, hermitian=False)`` (``torch.linalg.pinv``):
    ``V diag(1/s) U^H`` from the reduced SVD (``hermitian``: ``eigh``, ``|eigenvalue|``), the
    values at or below ``max(atol, rtol * s_max)`` taken as 0; with neither given ``rtol =
    eps * max(m, n)`` (``atol`` alone: ``rtol = 0``). ``LinalgPinvBackward0``: PyTorch's
    ``pinv_backward``.

    Raises:
        RuntimeError: fewer than 2 dims or a non-floating dtype ("linalg.pinv(Long{[3, 3]}):
            expected a tensor with 2 or more dimensions of float, double, cfloat or cdouble
            types"); 16-bit (the SVD's NotImplementedError).
    """

    _backward_name = "LinalgPinvBackward0"

    @staticmethod
    def forward(ctx, A, *, atol=None, rtol=None, hermitian=False):
        _tensor(A, "linalg_pinv", "input", 1)
        if A.ndim < 2 or not A.dtype.is_floating_point:
            raise RuntimeError(f"linalg.pinv({A.dtype.scalar_name}{{{list(A.shape)}}}): "
                               "expected a tensor with 2 or more dimensions of float, double, "
                               "cfloat or cdouble types")
        if A.dtype in _LOW or A.dtype.is_float8:
            raise NotImplementedError(f'"linalg_{"eigh" if hermitian else "svd"}_cpu" not '
                                      f'implemented for \'{A.dtype.scalar_name}\'')
        a = A._data
        m, n = a.shape[-2:]
        if rtol is None:
            rtol = 0.0 if (atol is not None and atol > 0) else \
                float(_dt.finfo(A.dtype).eps) * max(m, n)
        atol = 0.0 if atol is None else atol
        if a.size == 0:
            out = np.zeros(a.shape[:-2] + (n, m), a.dtype)
        elif hermitian:
            s, u = np.linalg.eigh(a)
            tol = np.maximum(atol, rtol * np.abs(s).max(-1, keepdims=True))
            with np.errstate(divide="ignore"):
                sinv = np.where(np.abs(s) > tol, 1 / s, 0).astype(a.dtype)
            out = np.matmul(u * sinv[..., None, :], np.swapaxes(u, -1, -2))
        else:
            u, s, vh = np.linalg.svd(a, full_matrices=False)
            tol = np.maximum(atol, rtol * s[..., :1])
            with np.errstate(divide="ignore"):
                sinv = np.where(s > tol, 1 / s, 0).astype(a.dtype)
            out = np.matmul(np.swapaxes(vh, -1, -2) * sinv[..., None, :], np.swapaxes(u, -1, -2))
        res = wrap(np.ascontiguousarray(out, dtype=a.dtype), A.dtype)
        ctx.save_for_backward(A, res)
        return res

    @staticmethod
    def backward(ctx, grad):
        A, P = ctx.saved_tensors
        m, n = A.shape[-2:]
        Ph, gh = _mT(P), _mT(grad)
        sub, add, neg = (lambda x, y: dispatch("sub", x, y)), \
            (lambda x, y: dispatch("add", x, y)), (lambda x: dispatch("neg", x))
        if m <= n:
            K = _mm(gh, P)
            KPh = _mm(K, Ph)
            r = add(neg(_mT(_mm(P, K))), KPh)
            r = sub(r, _mm(_mm(A, P), KPh))
            return add(r, _mm(_mm(Ph, P), sub(gh, _mm(K, A))))
        K = _mm(P, gh)
        PhK = _mm(Ph, K)
        r = add(neg(_mT(_mm(K, P))), _mm(_mm(sub(gh, _mm(A, K)), P), Ph))
        return sub(add(r, PhK), _mm(_mm(PhK, P), A))


# ------------------------------------------------------------------------------ powers
@register_op("linalg_matrix_power")
def matrix_power(A, n):
    """``linalg_matrix_power(A, n)`` (``torch.linalg.matrix_power``, ``torch.matrix_power``):
    PyTorch's composite: the identity for ``n = 0``, ``inv(A)`` for ``n < 0``, then ``A``,
    ``A @ A``, ``(A @ A) @ A``, or binary powering (``z`` squared, multiplied into the result
    at each set bit of ``n``), every product a ``matmul``.

    Raises:
        RuntimeError: fewer than 2 dims or non-square ("linalg.matrix_power: A must be batches
            of square matrices, but they are 2 by 3 matrices"); ``n < 0`` on integers.
        LinAlgError: ``n < 0`` and a singular matrix.
    """
    _tensor(A, "linalg_matrix_power", "input", 1)
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 "
                           "dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but "
                           f"they are {A.shape[-2]} by {A.shape[-1]} matrices")
    n = int(n)
    if n == 0:
        # PyTorch copies the identity into a clone of A: the result stays in A's graph
        # (with a zero gradient); ``where`` over an all-true mask does the same
        eye = dispatch("eye", A.shape[-1], dtype=A.dtype, device=A.device)
        keep = dispatch("ones", tuple(A.shape), dtype=_dt.bool_, device=A.device)
        return dispatch("where", keep, eye, A)
    a = A
    if n < 0:
        a = dispatch("linalg_inv_ex", A, check_errors=True)[0]
        n = -n
    if n == 1:
        return dispatch("clone", a)
    if n == 2:
        return _mm(a, a)
    if n == 3:
        return _mm(_mm(a, a), a)
    z = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = a if z is None else _mm(z, z)
        if bit:
            result = z if result is None else _mm(result, z)
    return result


def chain_matmul(*matrices):
    """``torch.chain_matmul(*matrices)`` (deprecated in PyTorch, which warns): one matrix is
    cloned, more go to ``linalg.multi_dot`` (its order and checks).

    Raises:
        RuntimeError: no matrices ("chain_matmul(): Expected one or more matrices").
    """
    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch "
                  "release. Use torch.linalg.multi_dot instead, which accepts a list of two or "
                  "more tensors rather than multiple parameters.", UserWarning, stacklevel=2)
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    if len(matrices) == 1:
        if matrices[0].ndim != 2:
            raise RuntimeError(f"chain_matmul(): Tensor 0 must be 2D but got "
                               f"{matrices[0].ndim}D")
        return dispatch("clone", matrices[0])
    return dispatch("linalg_multi_dot", list(matrices))


# ------------------------------------------------------------------------------ vander
@register_op("vander")
def vander(x, N=None, increasing=False):
    """``vander(x, N=None, increasing=False)`` (``torch.vander``): columns ``x**0 .. x**(N-1)``
    (reversed unless ``increasing``), ``N`` defaulting to ``len(x)``; dtype promoted with
    int64 (integers give int64). PyTorch's composite: ones, then ``cumprod`` of ``x`` repeated
    along the columns, then ``flip``.

    Raises:
        RuntimeError: ``x`` not 1-D ("x must be a one-dimensional tensor."); ``N < 0`` ("N must
            be non-negative.").
    """
    _tensor(x, "vander", "x", 1)
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else int(N)
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    rt = _dt.promote_types(x.dtype, _dt.int64)
    xs = x if x.dtype is rt else dispatch("_to_copy", x, dtype=rt)
    ones = dispatch("ones", (x.shape[0], min(n, 1)), dtype=rt, device=x.device)
    if n <= 1:
        out = ones
    else:
        rep = dispatch("expand", dispatch("unsqueeze", xs, 1), (x.shape[0], n - 1))
        out = dispatch("cat", [ones, dispatch("cumprod", rep, 1)], 1)
    return out if increasing else dispatch("flip", out, (1,))
