"""optim: optimizers and learning-rate schedules for minigrad (mirrors ``torch.optim``).

``Optimizer`` (param groups, state, ``zero_grad``, ``state_dict`` in PyTorch's format), ``SGD``,
``Adam``, ``AdamW`` and ``lr_scheduler``. The updates reproduce PyTorch's CPU single-tensor
for-loops op by op (bit-exact for SGD in every float dtype and for Adam/AdamW in fp16/bf16; fp32/fp64
Adam within 4 ulp per step because PyTorch's MKL sqrt is not correctly rounded: see ``adam.py``).

optim imports minigrad; minigrad never imports optim. The optimizer step is the one place that
writes tensor storage directly (in place, version bumped); the dispatcher's ops are for the
autograd graph.
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
