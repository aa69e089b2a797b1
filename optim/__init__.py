"""optim: optimizers and learning-rate schedules for minigrad (mirrors ``torch.optim``).

``Optimizer`` (param groups, state, ``zero_grad``, ``state_dict`` in PyTorch's format), ``SGD``,
``Adam``, ``AdamW``, ``RMSprop``, ``Adagrad``, ``Adamax``, ``NAdam``, ``RAdam``, ``Adadelta``,
``ASGD``, ``Rprop``, ``LBFGS``, ``Adafactor``, ``Muon`` and ``lr_scheduler`` (every ``torch.optim.lr_scheduler`` schedule,
from ``LambdaLR`` to ``ReduceLROnPlateau``, ``CyclicLR`` and ``SequentialLR``) and
``swa_utils`` (``AveragedModel``, ``SWALR``, ``update_bn``). The updates
reproduce PyTorch's CPU for-loop (default) and foreach implementations op by op, so that 16-bit
parameters round per op as PyTorch's do: bit-exact in fp16/bf16, and in fp32/fp64 except where
PyTorch's MKL ``sqrt`` (not correctly rounded) is involved (a few ulp per step; see ``adam.py``).
LBFGS agrees to rounding only (its reductions add in another order).

optim imports minigrad; minigrad never imports optim. Optimizers write parameters and their
state only through dispatched ops, as PyTorch's do (the ``_foreach_*`` ops, the ``_fused_*``
kernels, ``copy_``..., version counters bumped as for any in-place op), so a dispatch mode sees
the whole step; no code here touches a tensor's storage. Schedulers only set the groups'
hyper-parameters (``lr``, ``momentum``/``betas``), plain Python floats.
"""
from .optimizer import Optimizer, required
from .sgd import SGD
from .adam import Adam, AdamW
from .rmsprop import RMSprop
from .adagrad import Adagrad
from .adamax import Adamax
from .nadam import NAdam
from .radam import RAdam
from .adadelta import Adadelta
from .asgd import ASGD
from .rprop import Rprop
from .lbfgs import LBFGS
from .adafactor import Adafactor
from .muon import Muon
from . import lr_scheduler
from . import swa_utils

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adamax", "NAdam", "RAdam",
           "Adadelta", "ASGD", "Rprop", "LBFGS", "Adafactor", "Muon", "lr_scheduler", "swa_utils", "required"]
