"""optim: optimizers and learning-rate schedules for minigrad (mirrors ``torch.optim``).

``Optimizer`` (param groups, state, ``zero_grad``, ``state_dict`` in PyTorch's format), ``SGD``,
``Adam``, ``AdamW`` and ``lr_scheduler`` (every ``torch.optim.lr_scheduler`` schedule, from
``LambdaLR`` to ``ReduceLROnPlateau``, ``CyclicLR`` and ``SequentialLR``). The updates reproduce
PyTorch's CPU single-tensor for-loops op by op (bit-exact for SGD in every float dtype and for
Adam/AdamW in fp16/bf16; fp32/fp64 Adam within 4 ulp per step because PyTorch's MKL sqrt is not
correctly rounded: see ``adam.py``).

optim imports minigrad; minigrad never imports optim. Optimizers write parameters and their
state only through dispatched ops, as PyTorch's do (the ``_foreach_*`` ops and the ``_fused_*``
kernels, version counters bumped as for any in-place op), so a dispatch mode sees the whole step;
no code here touches a tensor's storage. Schedulers only set the groups' hyper-parameters
(``lr``, ``momentum``/``betas``), plain Python floats.
"""
from .optimizer import Optimizer, required
from .sgd import SGD
from .adam import Adam, AdamW
from . import lr_scheduler

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "lr_scheduler", "required"]
