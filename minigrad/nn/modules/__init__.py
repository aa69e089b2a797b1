"""The layer catalogue (``torch.nn.modules``), one file per family with PyTorch's file names:
``linear`` (``Identity``, ``Linear``), ``activation``, ``flatten``, ``container``, ``loss``,
``normalization`` (``LayerNorm``, ``RMSNorm``, ``GroupNorm``, ``LocalResponseNorm``),
``batchnorm`` (``BatchNorm1d/2d/3d``), ``instancenorm`` (``InstanceNorm1d/2d``).

The file names are PyTorch's so that a pickled model names the same paths as a PyTorch one
(``minigrad.nn.modules.linear.Linear`` for ``torch.nn.modules.linear.Linear``): ``minigrad.save``
of a whole model and ``load(weights_only=True)``'s "add this class" message then read as
PyTorch's do. ``minigrad.nn`` re-exports every class.
"""
from .activation import (ELU, GELU, SELU, Hardsigmoid, Hardswish, Hardtanh, LeakyReLU,
                         LogSigmoid, LogSoftmax, Mish, ReLU, ReLU6, Sigmoid, SiLU, Softmax,
                         Softplus, Tanh)
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .flatten import Flatten, Unflatten
from .linear import Identity, Linear
from .loss import CrossEntropyLoss, MSELoss, NLLLoss
from .normalization import GroupNorm, LayerNorm, LocalResponseNorm, RMSNorm
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .instancenorm import InstanceNorm1d, InstanceNorm2d

__all__ = ["Identity", "Linear", "ReLU", "Tanh", "Sigmoid", "Softmax", "LogSoftmax", "Flatten",
           "Unflatten", "Sequential", "ModuleList", "ModuleDict", "ParameterList",
           "ParameterDict", "CrossEntropyLoss", "NLLLoss", "MSELoss", "GELU", "SiLU", "Mish",
           "Softplus", "LeakyReLU", "ELU", "SELU", "Hardtanh", "ReLU6", "Hardswish",
           "Hardsigmoid", "LogSigmoid", "LayerNorm", "RMSNorm", "GroupNorm", "LocalResponseNorm",
           "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d"]
