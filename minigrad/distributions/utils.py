"""Helpers of ``torch.distributions.utils``: ``broadcast_all``, ``probs_to_logits``,
``logits_to_probs``, ``clamp_probs``, ``lazy_property``, ``_sum_rightmost``."""
from __future__ import annotations

import numbers

import minigrad as _mg

__all__ = ["broadcast_all", "probs_to_logits", "logits_to_probs", "clamp_probs",
           "lazy_property", "_sum_rightmost"]


def broadcast_all(*values):
    """The values as Tensors of one broadcast shape (``torch.distributions.utils
    .broadcast_all``): Python numbers become tensors of the first tensor's dtype (else the
    default dtype).

    Raises:
        ValueError: a value that is neither a Tensor nor a number (PyTorch's message).
    """
    if not all(isinstance(v, (_mg.Tensor, numbers.Number)) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    if not all(isinstance(v, _mg.Tensor) for v in values):
        ref = next((v for v in values if isinstance(v, _mg.Tensor)), None)
        opts = {"dtype": _mg.get_default_dtype()} if ref is None else \
            {"dtype": ref.dtype, "device": ref.device}
        values = [v if isinstance(v, _mg.Tensor) else _mg.tensor(v, **opts) for v in values]
    return _mg.broadcast_tensors(*values)


def _sum_rightmost(value, dim: int):
    """``value`` summed over its rightmost ``dim`` dims (flattened, then one ``sum(-1)``, as
    PyTorch's); ``dim == 0`` returns ``value`` itself."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:value.dim() - dim]) + (-1,)).sum(-1)


def clamp_probs(probs):
    """``probs`` clamped to ``[eps, 1 - eps]`` of its dtype."""
    eps = _mg.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary: bool = False):
    """Log of the clamped probabilities (log-odds when ``is_binary``)."""
    ps = clamp_probs(probs)
    if is_binary:
        return _mg.log(ps) - _mg.log1p(-ps)
    return _mg.log(ps)


def logits_to_probs(logits, is_binary: bool = False):
    """``softmax`` over the last dim (``sigmoid`` when ``is_binary``)."""
    if is_binary:
        return _mg.sigmoid(logits)
    return _mg.nn.functional.softmax(logits, dim=-1)


class lazy_property:
    """A property computed on first access and then stored on the instance (PyTorch's
    ``lazy_property``), so a distribution built from ``probs`` derives ``logits`` once."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return self
        with _mg.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value
