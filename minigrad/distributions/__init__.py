"""``minigrad.distributions`` (mirrors ``torch.distributions``): ``Distribution``,
``Categorical`` and ``Normal``, with ``constraints`` and PyTorch's argument validation. The
others of ``torch.distributions`` are not here yet.

Built from minigrad's ops (``multinomial``, ``normal``, ``gather``, ``logsumexp``...), so the
samples after ``manual_seed`` and the gradients of ``log_prob``/``rsample`` are PyTorch's.
"""
from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .normal import Normal

__all__ = ["Distribution", "Categorical", "Normal", "constraints"]
