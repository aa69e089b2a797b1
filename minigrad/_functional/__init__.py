"""Torch-level functions (``torch.add``, ``torch.sum``, ``torch.cat``...), one module per family.

Each function mirrors the torch function of the same name and signature and is one ``dispatch``
call, or a composition of dispatched ops (so autograd and modes see the ops it is made of).
``minigrad/__init__.py`` re-exports every name in each family's ``__all__`` (listed in
``FAMILIES``; this package star-imports nothing, so a family module is never shadowed by a
function of its name, ``softmax`` or ``matmul``). Find a function by its family:

- ``pointwise``: ``add``, ``sub``, ``mul``, ``div``, ``pow``, ``exp``, ``log``, ``clamp``,
  ``relu``...
- ``pointwise_math``: ``sin``... ``erf``, ``log1p``, ``floor``, ``round``, ``lerp``,
  ``addcmul``, ``addcdiv``, ``clamp_min``, ``nan_to_num``, ``selu``
- ``bitwise``: ``bitwise_and``... shifts, ``logical_and``... ``logical_xor``
- ``comparison``: ``eq``... ``ge``, ``isfinite``, ``isnan``, ``isinf``, ``isclose``, ``allclose``,
  ``equal``
- ``reduction``: ``sum``, ``mean``, ``var``, ``std``, ``max``, ``min``, ``amax``, ``argmax``,
  ``all``, ``any``, ``logsumexp``, ``prod``, ``cumsum``, ``cumprod``, ``count_nonzero``, ``norm``...
- ``sorting``: ``sort``, ``argsort``, ``topk``, ``kthvalue``, ``median``
- ``matmul``: ``matmul``, ``mm``, ``bmm``, ``mv``, ``dot``, ``addmm``, ``baddbmm``, ``addbmm``,
  ``addmv``, ``addr``, ``outer``, ``einsum``, ``tensordot``, ``bilinear``
- ``distance``: ``cosine_similarity``, ``pairwise_distance``, ``xlogy``
- ``shape``: ``reshape``, ``transpose``, ``permute``, ``t``, ``unsqueeze``, ``squeeze``,
  ``flatten``, ``unflatten``, ``narrow``, ``broadcast_to``, ``movedim``, ``swapaxes``, ``diagonal``
- ``rearrange``: ``roll``, ``flip``, ``tile``, ``repeat_interleave``, ``tril``, ``triu``, ``diag``,
  ``diag_embed``
- ``indexing``: ``gather``, ``scatter``, ``scatter_add``, ``scatter_reduce``, ``index_select``,
  ``index_add``, ``index_copy``, ``index_fill``, ``masked_select``, ``masked_scatter``,
  ``take_along_dim``, ``nonzero``
- ``joining``: ``cat``, ``stack``, ``split``, ``chunk``, ``unbind``
- ``selection``: ``where``, ``masked_fill``
- ``softmax``: ``softmax``, ``log_softmax``
- ``sampling``: ``bernoulli``, ``multinomial``, ``randint_like``
- ``tensors``: ``is_tensor``, ``numel``, ``clone``
- ``spatial``: ``conv1d``, ``conv2d``, ``conv_transpose1d/2d``, ``max_pool1d/2d``,
  ``avg_pool1d``, ``adaptive_avg_pool1d``, ``adaptive_max_pool1d``, ``pixel_shuffle``,
  ``pixel_unshuffle``
- ``bucketing``: ``searchsorted``, ``bucketize``, ``unique``
- ``activation``: ``celu``, ``prelu``, ``rrelu``, ``hardshrink``, ``threshold``, ``relu_``
- ``special_math``: ``sinc``, ``logit``, ``copysign``, ``heaviside``, ``ldexp``,
  ``nextafter``, ``gcd``, ``lcm``, ``float_power`` (and in-place forms)
- ``aliases``: ``subtract``, ``multiply``, ``divide``, ``greater``... (the op each names),
  ``select``
- ``linear_algebra``: ``inverse``, ``det``, ``logdet``, ``slogdet``, ``cholesky``, ``trace``,
  ``kron``, ``cross``, ``cdist``, ``chain_matmul``, ``vander``, ``matrix_power``, ``pinverse``
- ``scans``: ``diff``, ``cummax``, ``cummin``, ``logcumsumexp``, ``aminmax``, ``rot90``,
  ``bincount``, ``histc``, ``cov``, ``corrcoef``, ``trapezoid``, ``trapz``
- ``special_functions``: ``lgamma``, ``digamma``, ``polygamma``, ``mvlgamma``, ``nansum``,
  ``nanmean``, ``nanmedian``, ``mode``
- ``composites``: ``isposinf``, ``isneginf``, ``unique_consecutive``, ``dist``, ``diagflat``,
  ``msort``, ``split_with_sizes``, ``unravel_index``, ``combinations``, ``svd``, ``qr``,
  ``is_inference``
- ``windows``: ``hann_window``, ``hamming_window``, ``blackman_window``, ``bartlett_window``
- ``normalization``: ``layer_norm``, ``rms_norm``, ``group_norm``, ``batch_norm``,
  ``instance_norm``, ``native_layer_norm``...
"""
from __future__ import annotations

from . import (bitwise, comparison, indexing, joining, matmul, pointwise, pointwise_math,
               rearrange, reduction, sampling, selection, shape, softmax, sorting, spatial,
               tensors, normalization)
from . import distance, bucketing, activation, special_math, aliases, linear_algebra, scans
from . import special_functions
from . import composites, windows

__all__ = ["FAMILIES"]

FAMILIES = (pointwise, pointwise_math, bitwise, comparison, reduction, sorting, matmul, shape,
            rearrange, joining, selection, indexing, softmax, tensors, distance, sampling,
            spatial, normalization, bucketing, activation, special_math, aliases, linear_algebra,
            scans, special_functions, composites, windows)
"""The family modules, in the order ``minigrad.__all__`` lists their functions."""
