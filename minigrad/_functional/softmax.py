"""``torch.softmax`` and ``torch.log_softmax`` as torch-level functions (one ``dispatch``
call each; the ops dispatch PyTorch's kernels ``_softmax`` / ``_log_softmax``).
"""
from __future__ import annotations

from ..dispatch import dispatch

__all__ = ["softmax", "log_softmax"]


def softmax(input, dim, dtype=None):
    """``exp(x - max) / sum(exp(x - max))`` along ``dim`` (``torch.softmax``); ``dtype``
    casts the input first; fp16/bf16 computed in fp32, rounded once.

    Raises:
        IndexError: ``dim`` out of range.
    """
    return dispatch("softmax", input, dim, dtype=dtype)


def log_softmax(input, dim, dtype=None):
    """``x - logsumexp(x)`` along ``dim`` (``torch.log_softmax``); ``dtype`` casts the input
    first; fp16/bf16 computed in fp32.

    Raises:
        IndexError: ``dim`` out of range.
    """
    return dispatch("log_softmax", input, dim, dtype=dtype)
