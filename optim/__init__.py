"""optim: optimizers and learning-rate schedules for minigrad (mirrors ``torch.optim``).

``Optimizer`` (param groups, state, ``zero_grad``, ``state_dict`` in PyTorch's format), ``SGD``,
``Adam``, ``AdamW``, ``RMSprop``, ``Adagrad``, ``Adamax``, ``NAdam``, ``RAdam``, ``Adadelta``,
``ASGD``, ``Rprop``, ``LBFGS`` and ``lr_scheduler``. The updates reproduce PyTorch's CPU
for-loop (default) and foreach implementations op by op, so that 16-bit parameters round per op
as PyTorch's do: bit-exact in fp16/bf16, and in fp32/fp64 except where PyTorch's MKL ``sqrt``
(not correctly rounded) is involved (a few ulp per step; see ``adam.py``). LBFGS agrees to
rounding only (its reductions add in another order).

optim imports minigrad; minigrad never imports optim. Every write of a parameter or of the
optimizer state goes through a dispatched op (``_foreach_*``, the fused kernels, ``copy_``...),
so a dispatch mode sees the whole step.
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
from . import lr_scheduler

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adamax", "NAdam", "RAdam",
           "Adadelta", "ASGD", "Rprop", "LBFGS", "lr_scheduler", "required"]
