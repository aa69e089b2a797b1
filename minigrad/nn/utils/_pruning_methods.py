"""The pruning methods of ``nn.utils.prune``: which entries to zero (``Identity``,
``RandomUnstructured``, ``L1Unstructured``, ``RandomStructured``, ``LnStructured``,
``CustomFromMask``), each a ``compute_mask`` on a ``BasePruningMethod``."""
from __future__ import annotations

import numbers

from ..._functional.factories import rand, rand_like, zeros_like
from ..._functional.indexing import nonzero
from ..._functional.reduction import norm
from ..._functional.sorting import kthvalue, topk
from ._pruning_base import BasePruningMethod

__all__ = ["Identity", "RandomUnstructured", "L1Unstructured", "RandomStructured",
           "LnStructured", "CustomFromMask"]


class Identity(BasePruningMethod):
    """Prune nothing (the mask stays all ones) (``torch.nn.utils.prune.Identity``)."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        """Install on ``module.<name>``."""
        return super().apply(module, name)


def _validate_amount_init(amount):
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral) and not 0.0 <= float(amount) <= 1.0):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a "
                         "non-negative integer")


def _nparams_to_prune(amount, size):
    """How many entries to prune: ``amount`` itself (an int) or ``round(amount * size)``.

    Raises:
        ValueError: an int ``amount`` larger than ``size``.
    """
    if isinstance(amount, numbers.Integral):
        if amount > size:
            raise ValueError(f"amount={amount} should be smaller than the number of parameters "
                             f"to prune={size}")
        return amount
    return round(amount * size)


class RandomUnstructured(BasePruningMethod):
    """Prune ``amount`` entries chosen at random: the ``k`` largest of ``rand_like(t)``
    (``torch.nn.utils.prune.RandomUnstructured``, the same draws as PyTorch's generator).

    Raises:
        TypeError / ValueError: a bad ``amount`` (PyTorch's messages).
    """

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _validate_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        k = _nparams_to_prune(self.amount, t.nelement())
        mask = default_mask.clone()
        if k != 0:
            idx = topk(rand_like(t).view(-1), k=k).indices
            mask.view(-1)[idx] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount):
        """Install on ``module.<name>``."""
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prune the ``amount`` entries of smallest absolute value
    (``torch.nn.utils.prune.L1Unstructured``).

    Raises:
        TypeError / ValueError: a bad ``amount`` (PyTorch's messages).
    """

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _validate_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        k = _nparams_to_prune(self.amount, t.nelement())
        mask = default_mask.clone()
        if k != 0:
            idx = topk(t.abs().view(-1), k=k, largest=False).indices
            mask.view(-1)[idx] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        """Install on ``module.<name>``."""
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


def _validate_structured(t, dim):
    if len(t.shape) <= 1:
        raise ValueError("Structured pruning can only be applied to multidimensional tensors. "
                         f"Found tensor of shape {t.shape} with {len(t.shape)} dims")
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _channel_mask(t, dim, channels):
    """Ones on the channels ``channels`` (int64 indices) along ``dim``, zeros elsewhere."""
    return zeros_like(t).index_fill_(dim, channels, 1)


class RandomStructured(BasePruningMethod):
    """Prune ``amount`` whole channels along ``dim`` chosen at random: those whose
    ``rand(channels)`` draw is at most the ``k``-th smallest
    (``torch.nn.utils.prune.RandomStructured``, the same draws as PyTorch).

    Raises:
        TypeError / ValueError: a bad ``amount``; ValueError: a 1-d tensor; IndexError: a bad
            ``dim`` (PyTorch's messages).
    """

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1):
        _validate_amount_init(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _validate_structured(t, self.dim)
        size = t.shape[self.dim]
        k = _nparams_to_prune(self.amount, size)
        if k == 0:
            return default_mask
        prob = rand(size)
        threshold = kthvalue(prob, k=k).values
        mask = _channel_mask(t, self.dim, nonzero(prob > threshold).flatten())
        return mask * default_mask.to(dtype=mask.dtype)

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        """Install on ``module.<name>``."""
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prune the ``amount`` channels along ``dim`` of smallest ``n``-norm
    (``torch.nn.utils.prune.LnStructured``).

    Raises:
        as ``RandomStructured``.
    """

    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1):
        _validate_amount_init(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _validate_structured(t, self.dim)
        size = t.shape[self.dim]
        k = _nparams_to_prune(self.amount, size)
        dims = list(range(t.dim()))
        dims.remove(dims[self.dim])
        channel_norms = norm(t, p=self.n, dim=dims)
        if k == 0:
            return default_mask
        kept = topk(channel_norms, k=size - k, largest=True).indices
        mask = _channel_mask(t, self.dim, kept)
        return mask * default_mask.to(dtype=mask.dtype)

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        """Install on ``module.<name>``."""
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prune with a given mask (``torch.nn.utils.prune.CustomFromMask``)."""

    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"default_mask shape {default_mask.shape} must match self.mask "
                                 f"shape {self.mask.shape}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        """Install on ``module.<name>``."""
        return super().apply(module, name, mask=mask)
