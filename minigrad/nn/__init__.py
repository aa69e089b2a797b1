"""``minigrad.nn``: modules, parameters, layers, losses, init, functional (``torch.nn``)."""
from .parameter import Parameter
from .module import Module
from .modules import (CrossEntropyLoss, Flatten, Identity, Linear, LogSoftmax, ModuleDict,
                      ModuleList, MSELoss, NLLLoss, ParameterDict, ParameterList, ReLU,
                      Sequential, Sigmoid, Softmax, Tanh, Unflatten)
from .modules import (ELU, GELU, SELU, Hardsigmoid, Hardswish, Hardtanh, LeakyReLU,
                      LogSigmoid, Mish, ReLU6, SiLU, Softplus)
from .modules import (BatchNorm1d, BatchNorm2d, BatchNorm3d, GroupNorm, InstanceNorm1d,
                      InstanceNorm2d, LayerNorm, LocalResponseNorm, RMSNorm)
from . import functional, init, modules, utils

__all__ = ["Parameter", "Module", "Linear", "Identity", "ReLU", "Tanh", "Sigmoid", "Softmax",
           "LogSoftmax", "Flatten", "Unflatten", "Sequential", "ModuleList", "ModuleDict",
           "ParameterList", "ParameterDict", "CrossEntropyLoss", "NLLLoss", "MSELoss",
           "functional", "init", "modules", "utils", "GELU", "SiLU", "Mish", "Softplus",
           "LeakyReLU", "ELU", "SELU", "Hardtanh", "ReLU6", "Hardswish", "Hardsigmoid",
           "LogSigmoid", "LayerNorm", "RMSNorm", "GroupNorm", "LocalResponseNorm", "BatchNorm1d",
           "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d"]
