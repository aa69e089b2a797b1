"""``minigrad.distributions`` (mirrors ``torch.distributions``): ``Distribution``,
``Bernoulli``, ``Categorical``, ``Exponential``, ``Laplace``, ``Normal`` and ``Uniform``, with
``constraints`` and PyTorch's argument validation. The others of ``torch.distributions`` are not
here yet.

Built from minigrad's ops (``multinomial``, ``normal``, ``gather``, ``logsumexp``...), so the
samples after ``manual_seed`` and the gradients of ``log_prob``/``rsample`` are PyTorch's.
"""
from . import constraints
from .bernoulli import Bernoulli
from .categorical import Categorical
from .exponential import Exponential
from .laplace import Laplace
from .uniform import Uniform
from .distribution import Distribution
from .normal import Normal

__all__ = ["Distribution", "Bernoulli", "Categorical", "Exponential", "Laplace", "Normal",
           "Uniform", "constraints"]
