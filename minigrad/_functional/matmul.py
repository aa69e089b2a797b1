"""Matrix products as torch-level functions (``torch.matmul``, ``mm``, ``bmm``, ``mv``, ``dot``,
``addmm``): each is one ``dispatch`` call.
"""
from __future__ import annotations

from ..dispatch import dispatch

__all__ = ["matmul", "mm", "bmm", "mv", "dot", "addmm"]


def matmul(input, other):
    """Matrix product with NumPy/PyTorch broadcasting rules (``torch.matmul``): 1-D x 1-D
    dot, 2-D mm, batched for >2-D; fp16/bf16 accumulate in fp32.

    Raises:
        RuntimeError: size mismatch of the contracted dims or mismatched dtypes (PyTorch's
            messages).
    """
    return dispatch("matmul", input, other)


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
