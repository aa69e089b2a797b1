"""Linear-algebra and scan methods of ``Tensor``: ``inverse``, ``det``, ``logdet``,
``slogdet``, ``cholesky``, ``trace``, ``kron``, ``cross``, ``matrix_power``, ``pinverse``;
``diff``, ``cummax``, ``cummin``, ``logcumsumexp``, ``aminmax``, ``rot90``, ``bincount``,
``histc``, ``signbit``, ``frexp``, ``quantile``, ``nanquantile``, ``cov``, ``corrcoef``.
Each is the torch-level function of the same name (``minigrad._functional.linear_algebra`` /
``scans``) or its one ``dispatch`` call.
"""
from __future__ import annotations



from ..dispatch import dispatch


class _Lazy:
    """``minigrad._functional.linear_algebra``, imported on first use (it imports ``Tensor``)."""

    def __getattr__(self, name):
        from .._functional import linear_algebra
        return getattr(linear_algebra, name)


_la = _Lazy()


class LinearAlgebraMixin:
    """Linear-algebra methods of ``Tensor`` (see each method's ``torch.Tensor`` twin)."""

    __slots__ = ()

    def inverse(self):
        """Mirrors ``torch.Tensor.inverse``: ``torch.linalg.inv`` (its errors apply)."""
        return _la.inverse(self)

    def det(self):
        """Mirrors ``torch.Tensor.det``: the ``linalg_det`` op."""
        return _la.det(self)

    def logdet(self):
        """Mirrors ``torch.Tensor.logdet``: ``torch.logdet``."""
        return _la.logdet(self)

    def slogdet(self):
        """Mirrors ``torch.Tensor.slogdet``: the ``linalg_slogdet`` op."""
        return _la.slogdet(self)

    def cholesky(self, upper=False):
        """Mirrors ``torch.Tensor.cholesky``: ``torch.cholesky`` (deprecated; warns)."""
        return _la.cholesky(self, upper)

    def cholesky_inverse(self, upper=False):
        """Mirrors ``torch.Tensor.cholesky_inverse``: the ``cholesky_inverse`` op."""
        return _la.cholesky_inverse(self, upper)

    def trace(self):
        """Mirrors ``torch.Tensor.trace``: the ``trace`` op."""
        return _la.trace(self)

    def kron(self, other):
        """Mirrors ``torch.Tensor.kron``: the ``kron`` composite."""
        return _la.kron(self, other)

    def cross(self, other, dim=None):
        """Mirrors ``torch.Tensor.cross``: ``torch.cross``."""
        return _la.cross(self, other, dim)

    def matrix_power(self, n):
        """Mirrors ``torch.Tensor.matrix_power``: ``linalg.matrix_power``."""
        return _la.matrix_power(self, n)

    def pinverse(self, rcond=1e-15):
        """Mirrors ``torch.Tensor.pinverse``: ``linalg.pinv(self, rtol=rcond)``."""
        return _la.pinverse(self, rcond)

    def diff(self, n=1, dim=-1, prepend=None, append=None):
        """Mirrors ``torch.Tensor.diff``: the ``diff`` op."""
        return dispatch("diff", self, n, dim, prepend, append)

    def cummax(self, dim):
        """Mirrors ``torch.Tensor.cummax``: the ``cummax`` op."""
        return dispatch("cummax", self, dim)

    def cummin(self, dim):
        """Mirrors ``torch.Tensor.cummin``: the ``cummin`` op."""
        return dispatch("cummin", self, dim)

    def logcumsumexp(self, dim):
        """Mirrors ``torch.Tensor.logcumsumexp``: the ``logcumsumexp`` op."""
        return dispatch("logcumsumexp", self, dim)

    def aminmax(self, *, dim=None, keepdim=False):
        """Mirrors ``torch.Tensor.aminmax``: the ``aminmax`` op."""
        return dispatch("aminmax", self, dim=dim, keepdim=keepdim)

    def rot90(self, k=1, dims=(0, 1)):
        """Mirrors ``torch.Tensor.rot90``: the ``rot90`` op."""
        return dispatch("rot90", self, k, dims)

    def bincount(self, weights=None, minlength=0):
        """Mirrors ``torch.Tensor.bincount``: the ``bincount`` op."""
        return dispatch("bincount", self, weights, minlength)

    def histc(self, bins=100, min=0, max=0):
        """Mirrors ``torch.Tensor.histc``: the ``histc`` op."""
        return dispatch("histc", self, bins, min, max)

    def signbit(self):
        """Mirrors ``torch.Tensor.signbit``: the ``signbit`` op."""
        return dispatch("signbit", self)

    def frexp(self):
        """Mirrors ``torch.Tensor.frexp``: ``torch.frexp``."""
        return _la_scans().frexp(self)

    def quantile(self, q, dim=None, keepdim=False, *, interpolation="linear"):
        """Mirrors ``torch.Tensor.quantile``: the ``quantile`` op."""
        return dispatch("quantile", self, q, dim, keepdim, interpolation=interpolation)

    def nanquantile(self, q, dim=None, keepdim=False, *, interpolation="linear"):
        """Mirrors ``torch.Tensor.nanquantile``: the ``nanquantile`` op."""
        return dispatch("nanquantile", self, q, dim, keepdim, interpolation=interpolation)

    def cov(self, *, correction=1, fweights=None, aweights=None):
        """Mirrors ``torch.Tensor.cov``: ``torch.cov``."""
        return _la_scans().cov(self, correction=correction, fweights=fweights,
                               aweights=aweights)

    def corrcoef(self):
        """Mirrors ``torch.Tensor.corrcoef``: ``torch.corrcoef``."""
        return _la_scans().corrcoef(self)


def _la_scans():
    from .._functional import scans
    return scans
