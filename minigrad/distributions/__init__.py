"""``minigrad.distributions`` (mirrors ``torch.distributions``): ``Distribution``,
``Bernoulli``, ``Categorical``, ``OneHotCategorical``, ``Exponential``, ``Laplace``, ``Normal``,
``LogNormal``, ``MultivariateNormal``, ``Uniform`` and ``Independent``, with ``constraints``,
PyTorch's argument validation, and ``kl_divergence`` / ``register_kl`` for the pairs PyTorch
has among them. The others of ``torch.distributions`` (and its ``transforms``) are not here yet.

Built from minigrad's ops (``multinomial``, ``normal``, ``gather``, ``logsumexp``,
``linalg.solve_triangular``...), so the samples after ``manual_seed`` and the gradients of
``log_prob``/``rsample`` are PyTorch's.
"""
from . import constraints
from .bernoulli import Bernoulli
from .categorical import Categorical
from .exponential import Exponential
from .independent import Independent
from .laplace import Laplace
from .log_normal import LogNormal
from .multivariate_normal import MultivariateNormal
from .one_hot_categorical import OneHotCategorical
from .uniform import Uniform
from .distribution import Distribution
from .normal import Normal
from . import kl
from .kl import kl_divergence, register_kl

__all__ = ["Distribution", "Bernoulli", "Categorical", "Exponential", "Independent", "Laplace",
           "LogNormal", "MultivariateNormal", "Normal", "OneHotCategorical", "Uniform",
           "constraints", "kl", "kl_divergence", "register_kl"]
