"""Embedding tables: ``Embedding`` and ``EmbeddingBag`` (``torch.nn.modules.sparse``: same
constructor arguments, parameter name ``weight``, default initialisation N(0, 1) with the padding
row zeroed, ``from_pretrained`` and ``repr``). ``forward`` is ``F.embedding`` /
``F.embedding_bag``.

Deliberate difference: ``sparse=True`` is accepted at construction, but a forward that would
need a sparse gradient raises NotImplementedError (minigrad has no sparse tensors).
"""
from __future__ import annotations

from ...autograd.grad_mode import no_grad
from ..._functional.factories import empty
from .. import functional as F
from .. import init
from ..module import Module
from ..parameter import Parameter

__all__ = ["Embedding", "EmbeddingBag"]


class _Table(Module):
    """What ``Embedding`` and ``EmbeddingBag`` share: the N(0, 1) init with the padding row
    zeroed."""

    def reset_parameters(self) -> None:
        """N(0, 1) init, then the padding row zeroed (as PyTorch)."""
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self) -> None:
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)


class Embedding(_Table):
    """A lookup table of ``num_embeddings`` vectors of size ``embedding_dim``
    (``torch.nn.Embedding``).

    Args:
        num_embeddings, embedding_dim: the table's shape.
        padding_idx: a row that gets no gradient (zero at init); negative counts from the end.
        max_norm, norm_type: renormalise looked-up rows whose norm exceeds ``max_norm``.
        scale_grad_by_freq: divide gradients by the index's frequency in the batch.
        sparse: accepted (see the module docstring).
        _weight: an initial weight of shape (num_embeddings, embedding_dim).
        _freeze: the weight does not require grad.
        device, dtype: of the weight.

    Shapes: input (*) int64/int32 -> output (*, embedding_dim).

    Raises:
        AssertionError: ``padding_idx`` out of range ("Padding_idx must be within
            num_embeddings"); ``_weight`` of the wrong shape ("Shape of weight does not match
            num_embeddings and embedding_dim").
    """

    __constants__ = ["num_embeddings", "embedding_dim", "padding_idx", "max_norm", "norm_type",
                     "scale_grad_by_freq", "sparse"]

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx=None,
                 max_norm=None, norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                 sparse: bool = False, _weight=None, _freeze: bool = False, device=None,
                 dtype=None) -> None:
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        if padding_idx is not None:
            if padding_idx > 0:
                assert padding_idx < self.num_embeddings, \
                    "Padding_idx must be within num_embeddings"
            elif padding_idx < 0:
                assert padding_idx >= -self.num_embeddings, \
                    "Padding_idx must be within num_embeddings"
                padding_idx = self.num_embeddings + padding_idx
        self.padding_idx = padding_idx
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if _weight is None:
            self.weight = Parameter(empty((num_embeddings, embedding_dim), device=device,
                                          dtype=dtype), requires_grad=not _freeze)
            self.reset_parameters()
        else:
            assert list(_weight.shape) == [num_embeddings, embedding_dim], \
                "Shape of weight does not match num_embeddings and embedding_dim"
            self.weight = Parameter(_weight, requires_grad=not _freeze)
        self.sparse = sparse

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    def extra_repr(self) -> str:
        s = "{num_embeddings}, {embedding_dim}"
        if self.padding_idx is not None:
            s += ", padding_idx={padding_idx}"
        if self.max_norm is not None:
            s += ", max_norm={max_norm}"
        if self.norm_type != 2:
            s += ", norm_type={norm_type}"
        if self.scale_grad_by_freq is not False:
            s += ", scale_grad_by_freq={scale_grad_by_freq}"
        if self.sparse is not False:
            s += ", sparse=True"
        return s.format(**self.__dict__)

    @classmethod
    def from_pretrained(cls, embeddings, freeze: bool = True, padding_idx=None, max_norm=None,
                        norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                        sparse: bool = False):
        """An Embedding whose weight is ``embeddings`` (2-D); ``freeze`` turns its gradient off.

        Raises:
            AssertionError: ``embeddings`` not 2-D ("Embeddings parameter is expected to be
                2-dimensional").
        """
        assert embeddings.dim() == 2, "Embeddings parameter is expected to be 2-dimensional"
        rows, cols = embeddings.shape
        return cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings, _freeze=freeze,
                   padding_idx=padding_idx, max_norm=max_norm, norm_type=norm_type,
                   scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


class EmbeddingBag(_Table):
    """Sums, means or maxima of bags of embeddings of a table of ``num_embeddings`` vectors of
    size ``embedding_dim`` (``torch.nn.EmbeddingBag``), without building the looked-up rows.

    Args:
        num_embeddings, embedding_dim: the table's shape.
        max_norm, norm_type: renormalise looked-up rows whose norm exceeds ``max_norm``.
        scale_grad_by_freq: divide gradients by the index's frequency in the batch (not with
            mode "max").
        mode: "sum", "mean" (default) or "max".
        sparse: accepted (see the module docstring).
        _weight: an initial weight of shape (num_embeddings, embedding_dim).
        include_last_offset: ``offsets`` has one more entry, the end of the last bag.
        padding_idx: an index left out of the bags (its row gets no gradient and is zero at
            init); negative counts from the end.
        device, dtype: of the weight.

    Shapes: ``forward(input, offsets=None, per_sample_weights=None)``: input (B, L) or (n,)
    with offsets (B,) (or (B + 1,)) -> (B, embedding_dim); see ``F.embedding_bag``.

    Raises:
        AssertionError: ``padding_idx`` out of range ("padding_idx must be within
            num_embeddings"); ``_weight`` of the wrong shape ("Shape of weight does not match
            num_embeddings and embedding_dim").
    """

    __constants__ = ["num_embeddings", "embedding_dim", "max_norm", "norm_type",
                     "scale_grad_by_freq", "mode", "sparse", "include_last_offset",
                     "padding_idx"]

    def __init__(self, num_embeddings: int, embedding_dim: int, max_norm=None,
                 norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean",
                 sparse: bool = False, _weight=None, include_last_offset: bool = False,
                 padding_idx=None, device=None, dtype=None) -> None:
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if padding_idx is not None:
            if padding_idx > 0:
                if padding_idx >= self.num_embeddings:
                    raise AssertionError("padding_idx must be within num_embeddings")
            elif padding_idx < 0:
                if padding_idx < -self.num_embeddings:
                    raise AssertionError("padding_idx must be within num_embeddings")
                padding_idx = self.num_embeddings + padding_idx
        self.padding_idx = padding_idx
        if _weight is None:
            self.weight = Parameter(empty((num_embeddings, embedding_dim), device=device,
                                          dtype=dtype))
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and "
                                     "embedding_dim")
            self.weight = Parameter(_weight)
        self.mode = mode
        self.sparse = sparse
        self.include_last_offset = include_last_offset

    def forward(self, input, offsets=None, per_sample_weights=None):
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                               self.scale_grad_by_freq, self.mode, self.sparse,
                               per_sample_weights, self.include_last_offset, self.padding_idx)

    def extra_repr(self) -> str:
        s = "{num_embeddings}, {embedding_dim}"
        if self.max_norm is not None:
            s += ", max_norm={max_norm}"
        if self.norm_type != 2:
            s += ", norm_type={norm_type}"
        if self.scale_grad_by_freq is not False:
            s += ", scale_grad_by_freq={scale_grad_by_freq}"
        s += ", mode={mode}"
        if self.padding_idx is not None:
            s += ", padding_idx={padding_idx}"
        names = ("num_embeddings", "embedding_dim", "max_norm", "norm_type",
                 "scale_grad_by_freq", "mode", "padding_idx")
        return s.format(**{k: repr(getattr(self, k)) for k in names})

    @classmethod
    def from_pretrained(cls, embeddings, freeze: bool = True, max_norm=None,
                        norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                        mode: str = "mean", sparse: bool = False,
                        include_last_offset: bool = False, padding_idx=None):
        """An EmbeddingBag whose weight is ``embeddings`` (2-D); ``freeze`` turns its gradient
        off.

        Raises:
            AssertionError: ``embeddings`` not 2-D ("Embeddings parameter is expected to be
                2-dimensional").
        """
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        bag = cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings,
                  max_norm=max_norm, norm_type=norm_type,
                  scale_grad_by_freq=scale_grad_by_freq, mode=mode, sparse=sparse,
                  include_last_offset=include_last_offset, padding_idx=padding_idx)
        bag.weight.requires_grad = not freeze
        return bag
