"""The random methods of ``Tensor``: the in-place fills ``normal_``, ``uniform_``,
``exponential_``, ``cauchy_``, ``log_normal_``, ``geometric_``, ``random_``, ``bernoulli_`` (ops in ``minigrad/ops/random_fill.py``) and
``bernoulli``, ``multinomial`` (``minigrad/ops/sampling.py``)."""
from __future__ import annotations

from ..dispatch import dispatch


class SamplingMixin:
    """Random methods of ``Tensor`` (see each method's ``torch.Tensor`` twin)."""

    __slots__ = ()

    def normal_(self, mean=0.0, std=1.0, *, generator=None):
        """Mirrors ``torch.Tensor.normal_``: fill with N(mean, std^2) samples in place."""
        return dispatch("normal_", self, mean, std, generator=generator)

    def uniform_(self, from_=0.0, to=1.0, *, generator=None, **kw):
        """Mirrors ``torch.Tensor.uniform_(from=0, to=1)``: fill with U[from, to) samples."""
        return dispatch("uniform_", self, kw.pop("from", from_), to, generator=generator, **kw)

    def exponential_(self, lambd=1.0, *, generator=None):
        """Mirrors ``torch.Tensor.exponential_``: fill with Exp(lambd) samples in place."""
        return dispatch("exponential_", self, lambd, generator=generator)

    def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
        """Mirrors ``torch.Tensor.cauchy_``: fill with Cauchy(median, sigma) samples in place."""
        return dispatch("cauchy_", self, median, sigma, generator=generator)

    def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
        """Mirrors ``torch.Tensor.log_normal_``: fill with exp(N(mean, std^2)) samples in
        place."""
        return dispatch("log_normal_", self, mean, std, generator=generator)

    def geometric_(self, p, *, generator=None):
        """Mirrors ``torch.Tensor.geometric_``: fill with Geometric(p) samples (1, 2, ...) in
        place."""
        return dispatch("geometric_", self, p, generator=generator)

    def random_(self, from_=None, to=None, *, generator=None, **kw):
        """Mirrors ``torch.Tensor.random_()`` / ``random_(to)`` / ``random_(from, to)``."""
        return dispatch("random_", self, kw.pop("from", from_), to, generator=generator, **kw)

    def bernoulli_(self, p=0.5, *, generator=None):
        """Mirrors ``torch.Tensor.bernoulli_``: 0/1 draws of ``p`` (a number or a tensor)."""
        return dispatch("bernoulli_", self, p, generator=generator)

    def bernoulli(self, p=None, *, generator=None):
        """Mirrors ``torch.Tensor.bernoulli`` (see ``minigrad.bernoulli``)."""
        from .._functional.sampling import bernoulli
        return bernoulli(self, p, generator=generator)

    def multinomial(self, num_samples, replacement=False, *, generator=None):
        """Mirrors ``torch.Tensor.multinomial`` (see the ``multinomial`` op)."""
        return dispatch("multinomial", self, num_samples, replacement, generator=generator)
