"""Random sampling as torch-level functions: ``torch.bernoulli``, ``torch.multinomial``,
``torch.randint_like`` (``torch.normal``'s overloads are the ``normal`` factory; the kernels
and their docstrings are in ``minigrad/ops/sampling.py``)."""
from __future__ import annotations

from ..dispatch import dispatch
from ..tensor import Tensor

__all__ = ["bernoulli", "multinomial", "randint_like"]


def bernoulli(input, p=None, *, generator=None, out=None):
    """0/1 draws (``torch.bernoulli``): with the probabilities in ``input`` (op ``bernoulli``),
    or of the number ``p`` in ``input``'s shape and dtype (op ``bernoulli.p``)."""
    if p is None:
        return dispatch("bernoulli", input, generator=generator)
    if isinstance(p, Tensor):
        raise TypeError("bernoulli(): argument 'p' must be float, not Tensor")
    return dispatch("bernoulli.p", input, p, generator=generator)


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """Category indices drawn from the rows of ``input`` (``torch.multinomial``; see the
    ``multinomial`` op for the algorithm and errors)."""
    return dispatch("multinomial", input, num_samples, replacement, generator=generator)


def randint_like(input, low=0, high=None, *, generator=None, dtype=None, device=None,
                 requires_grad=False, memory_format=None):
    """Integers uniform in [low, high) in ``input``'s shape, dtype and device
    (``torch.randint_like(input, high)`` or ``(input, low, high)``)."""
    return dispatch("randint_like", input, low, high, generator=generator, dtype=dtype,
                    device=device, requires_grad=requires_grad)
