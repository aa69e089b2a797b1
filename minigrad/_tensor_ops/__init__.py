"""The op methods of ``Tensor``, one mixin per family of ``torch.Tensor`` methods.

Each method is one ``dispatch`` call (or a torch-level function made of dispatched ops): the ops,
their numerics and their errors live in ``minigrad.ops``. ``Tensor`` inherits ``TensorOpsMixin``,
so ``tensor.py`` keeps only storage, metadata, conversion and autograd. Find a method by its
family:

- ``pointwise``: ``+ - * / ** //``, ``abs()``, ``add``... ``exp``, ``clamp``, ``relu``, in-place
  forms
- ``pointwise_math``: ``sin``... ``erf``, ``log1p``, ``floor``, ``round``, ``lerp``,
  ``addcmul``, ``clamp_min``, ``nan_to_num``, in-place forms, ``logical_*_``
- ``bitwise``: ``& | ^ << >> ~``, ``bitwise_*``, ``logical_*``
- ``comparison``: ``== != < <= > >=``, ``eq``... ``isnan``, ``isclose``, ``allclose``, ``equal``
- ``matmul``: ``@``, ``matmul``, ``mm``, ``addmm``
- ``reduction``: ``sum``, ``mean``, ``max``, ``argmax``, ``all``...
- ``shape``: ``reshape``, ``view``, ``transpose``, ``T``, ``expand``..., ``split``, ``chunk``,
  ``unbind``
- ``indexing``: ``t[idx]``, ``t[idx] = v``, ``masked_fill``, ``where``
- ``writes``: ``zero_``, ``fill_``, ``copy_``
- ``inplace``: ``exp_``, ``pow_``, ``eq_``, ``addmm_``, ``cumsum_``, ``tril_``,
  ``masked_fill_``, ``index_put_``, ``t_``, ``squeeze_``, ``resize_``... and the in-place
  aliases (``divide_``, ``clip_``, ``greater_``, ``swapdims_``...)
- ``softmax``: ``softmax``, ``log_softmax``
- ``sampling``: ``normal_``, ``uniform_``, ``exponential_``, ``random_``, ``bernoulli_``,
  ``bernoulli``, ``multinomial``
- ``special_math``: ``sinc``, ``logit``, ``copysign``, ``heaviside``, ``ldexp``,
  ``nextafter``, ``gcd``, ``lcm``, ``float_power`` and in-place forms
- ``aliases``: ``subtract``, ``multiply``, ``divide``, ``greater``..., ``select``,
  ``ndimension``, ``is_signed``, ``is_same_size``; ``isposinf``, ``isneginf``,
  ``unique_consecutive``, ``dist``, ``diagflat``, ``msort``, ``split_with_sizes``, ``apply_``,
  ``record_stream``
- ``linear_algebra``: ``inverse``, ``det``, ``logdet``, ``slogdet``, ``cholesky``, ``trace``,
  ``kron``, ``cross``, ``matrix_power``, ``pinverse``
- ``factories``: ``new_zeros``, ``new_ones``, ``new_empty``, ``new_full``, ``new_tensor``,
  ``new`` (the legacy constructor)
"""
from __future__ import annotations

from .aliases import AliasesMixin
from .bitwise import BitwiseMixin
from .comparison import ComparisonMixin
from .factories import FactoriesMixin
from .indexing import IndexingMixin
from .inplace import InplaceMixin
from .linear_algebra import LinearAlgebraMixin
from .matmul import MatmulMixin
from .pointwise import PointwiseMixin
from .pointwise_math import PointwiseMathMixin
from .reduction import ReductionMixin
from .sampling import SamplingMixin
from .shape import ShapeMixin
from .softmax import SoftmaxMixin
from .special_math import SpecialMathMixin
from .writes import WritesMixin

__all__ = ["TensorOpsMixin"]


class TensorOpsMixin(PointwiseMixin, PointwiseMathMixin, BitwiseMixin, ComparisonMixin,
                     MatmulMixin, ReductionMixin, ShapeMixin, IndexingMixin, WritesMixin,
                     SoftmaxMixin, FactoriesMixin, SamplingMixin, InplaceMixin,
                     SpecialMathMixin, AliasesMixin, LinearAlgebraMixin):
    """All op methods of ``Tensor`` (see each family's module)."""

    __slots__ = ()
