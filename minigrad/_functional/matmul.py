"""Matrix products as torch-level functions (``torch.matmul``, ``mm``, ``bmm``, ``mv``, ``dot``,
``addmm``, ``baddbmm``, ``addbmm``, ``addmv``, ``addr``, ``outer``/``ger``, ``einsum``,
``tensordot``, ``bilinear``, ``_scaled_mm``): each is one ``dispatch`` call.
"""
from __future__ import annotations

from ..dispatch import dispatch

__all__ = ["matmul", "mm", "bmm", "mv", "dot", "addmm", "baddbmm", "addbmm", "addmv", "addr",
           "outer", "ger", "inner", "einsum", "tensordot", "bilinear", "_scaled_mm"]


def matmul(input, other):
    """Matrix product with NumPy/PyTorch broadcasting rules (``torch.matmul``): 1-D x 1-D
    dot, 2-D mm, batched for >2-D; fp16/bf16 accumulate in fp32.

    Raises:
        RuntimeError: size mismatch of the contracted dims or mismatched dtypes (PyTorch's
            messages).
    """
    return dispatch("matmul", input, other)


def _scaled_mm(input, mat2, scale_a, scale_b, bias=None, scale_result=None, out_dtype=None,
               use_fast_accum=False):
    """The float8 product ``(mat1 @ mat2) * scale_a * scale_b + bias`` in ``out_dtype``
    (``torch._scaled_mm``, PyTorch 2.13 CPU numerics and errors: ``minigrad.ops.scaled_mm``).

    Raises:
        RuntimeError / ValueError / TypeError: as ``minigrad.ops.scaled_mm._scaled_mm``.
    """
    return dispatch("_scaled_mm", input, mat2, scale_a, scale_b, bias=bias,
                    scale_result=scale_result, out_dtype=out_dtype,
                    use_fast_accum=use_fast_accum)


def mm(input, mat2):
    """``(n, m) @ (m, p) -> (n, p)`` (``torch.mm``); both 2-D, same dtype.

    Raises:
        RuntimeError: not 2-D, inner sizes differ, or dtypes differ.
    """
    return dispatch("mm", input, mat2)


def bmm(input, mat2):
    """Batched ``(b, n, m) @ (b, m, p) -> (b, n, p)`` (``torch.bmm``); both 3-D, same dtype,
    no broadcasting.

    Raises:
        RuntimeError: not 3-D, batch or inner sizes differ, or dtypes differ.
    """
    return dispatch("bmm", input, mat2)


def mv(input, vec):
    """``(n, m) @ (m,) -> (n,)`` (``torch.mv``).

    Raises:
        RuntimeError: wrong dims, size mismatch, or dtypes differ.
    """
    return dispatch("mv", input, vec)


def dot(input, other):
    """Inner product of two 1-D tensors of equal length and dtype (``torch.dot``), a 0-dim
    tensor.

    Raises:
        RuntimeError: not 1-D, lengths differ, or dtypes differ.
    """
    return dispatch("dot", input, other)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat1 @ mat2)`` (``torch.addmm``); ``input`` broadcasts to
    ``(n, p)``; fp16/bf16 accumulate in fp32 and round once.

    Raises:
        RuntimeError: shape or dtype mismatch (PyTorch's messages).
    """
    return dispatch("addmm", input, mat1, mat2, beta=beta, alpha=alpha)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * bmm(batch1, batch2)`` (``torch.baddbmm``); ``input`` broadcasts
    to (b, n, p); one rounding for fp16/bf16.

    Raises:
        RuntimeError: not 3-D, batch or inner sizes differ, dtypes differ (PyTorch's messages).
    """
    return dispatch("baddbmm", input, batch1, batch2, beta=beta, alpha=alpha)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * sum_i batch1[i] @ batch2[i]`` (``torch.addbmm``); ``input``
    broadcasts to (n, p).

    Raises:
        RuntimeError: not 3-D, batch or inner sizes differ, dtypes differ.
    """
    return dispatch("addbmm", input, batch1, batch2, beta=beta, alpha=alpha)


def addmv(input, mat, vec, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat @ vec)`` (``torch.addmv``); ``input`` broadcasts to (n,).

    Raises:
        RuntimeError: wrong dims, size mismatch, dtypes differ.
    """
    return dispatch("addmv", input, mat, vec, beta=beta, alpha=alpha)


def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """``beta * input + alpha * outer(vec1, vec2)`` (``torch.addr``); inputs promote.

    Raises:
        RuntimeError: vectors not 1-D, ``input`` not broadcastable to (n, m).
    """
    return dispatch("addr", input, vec1, vec2, beta=beta, alpha=alpha)


def outer(input, vec2):
    """Outer product of two 1-D tensors, (n,) x (m,) -> (n, m) (``torch.outer``).

    Raises:
        RuntimeError: an argument that is not 1-D.
    """
    return dispatch("outer", input, vec2)


def ger(input, vec2):
    """Alias of ``outer`` (``torch.ger``)."""
    return dispatch("outer", input, vec2)


def _sublist_subscript(n) -> str:
    # torch.functional.einsum's parse_subscript: 0-25 -> 'A'-'Z', 26-51 -> 'a'-'z'
    if n is Ellipsis:
        return "..."
    if 0 <= n < 26:
        return chr(ord("A") + n)
    if 26 <= n < 52:
        return chr(ord("a") + n - 26)
    raise ValueError("einsum(): subscript in subscript list is not within the valid range "
                     "[0, 52)")


def _sublist_equation(args):
    """``einsum(op1, sublist1, op2, sublist2, ..., [sublist_out])`` as an equation and operands."""
    operands = list(args[0::2])
    sublists = list(args[1::2])
    out = None
    if len(args) % 2 == 1:            # the last item is the output sublist
        out = operands.pop()
    eq = ",".join("".join(_sublist_subscript(n) for n in sub) for sub in sublists)
    if out is not None:
        eq += "->" + "".join(_sublist_subscript(n) for n in out)
    return eq, operands


def einsum(*args):
    """Einstein summation (``torch.einsum``), e.g. ``einsum("bij,bjk->bik", a, b)``, operands
    also as one list, or in the sublist form ``einsum(a, [0, 1], b, [1, 2], [0, 2])`` (ints in
    [0, 52) as labels, ``Ellipsis`` for ``...``); lowered to PyTorch's permute/reshape + ``bmm``
    path. A label repeated within one operand takes that diagonal (``"ii->i"``).

    Raises:
        RuntimeError: equation errors (PyTorch's messages). ValueError: a sublist label outside
            [0, 52). TypeError: no arguments.
    """
    if not args:
        raise TypeError("einsum(): must specify the equation string and at least one operand, "
                        "or at least one operand and its subscripts list")
    if isinstance(args[0], str):
        return dispatch("einsum", args[0], *args[1:])
    equation, operands = _sublist_equation(args)
    return dispatch("einsum", equation, *operands)


def inner(input, other):
    """Inner product over the last dims (``torch.inner``), as PyTorch's composite: ``input *
    other`` when either is 0-d, else ``tensordot`` over dim -1 of both.

    Raises:
        RuntimeError: last dims of different sizes (PyTorch's message).
    """
    if input.ndim == 0 or other.ndim == 0:
        return dispatch("mul", input, other)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError("inner() the last dimension must match on both input tensors but got "
                           f"shapes {list(input.shape)} and {list(other.shape)}")
    return dispatch("tensordot", input, other, ([-1], [-1]))


def tensordot(a, b, dims=2, out=None):
    """Contraction over ``dims`` (an int, or two dim lists) (``torch.tensordot``).

    Raises:
        RuntimeError: mismatched contracted sizes or dtypes. NotImplementedError: ``out=``.
    """
    if out is not None:
        raise NotImplementedError("tensordot(out=...) is not supported by minigrad")
    return dispatch("tensordot", a, b, dims)


def bilinear(input1, input2, weight, bias=None):
    """``x1^T A x2 + b`` (``torch.bilinear``); see ``F.bilinear``."""
    return dispatch("bilinear", input1, input2, weight, bias)
