"""``minigrad.nn``: modules, parameters, layers, losses, init, functional (``torch.nn``)."""
from .parameter import Parameter
from .module import Module
from .layers import Flatten, Identity, Linear, LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from .activation import (ELU, GELU, SELU, Hardsigmoid, Hardswish, Hardtanh, LeakyReLU,
                         LogSigmoid, Mish, ReLU6, SiLU, Softplus)
from .container import ModuleList, Sequential
from .loss import CrossEntropyLoss, MSELoss, NLLLoss
from . import functional, init, utils

__all__ = ["Parameter", "Module", "Linear", "Identity", "ReLU", "Tanh", "Sigmoid", "Softmax",
           "LogSoftmax", "Flatten", "Sequential", "ModuleList", "CrossEntropyLoss", "NLLLoss",
           "MSELoss", "functional", "init", "utils", "GELU", "SiLU", "Mish", "Softplus",
           "LeakyReLU", "ELU", "SELU", "Hardtanh", "ReLU6", "Hardswish", "Hardsigmoid",
           "LogSigmoid"]
