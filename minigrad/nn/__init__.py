"""``minigrad.nn``: modules, parameters, layers, losses, init, functional (``torch.nn``)."""
from .parameter import Parameter
from .module import Module
from .modules import (CrossEntropyLoss, Flatten, Identity, Linear, LogSoftmax, ModuleDict,
                      ModuleList, MSELoss, NLLLoss, ParameterDict, ParameterList, ReLU,
                      Sequential, Sigmoid, Softmax, Tanh, Unflatten)
from .modules import (ELU, GELU, SELU, Hardsigmoid, Hardswish, Hardtanh, LeakyReLU,
                      LogSigmoid, Mish, ReLU6, SiLU, Softplus)
from .modules import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool1d,
                      AdaptiveMaxPool2d, AvgPool1d, AvgPool2d, Conv1d, Conv2d, ConvTranspose1d,
                      ConvTranspose2d, MaxPool1d, MaxPool2d, PixelShuffle, PixelUnshuffle,
                      Upsample, UpsamplingBilinear2d, UpsamplingNearest2d)
from . import functional, init, modules, utils

__all__ = ["Parameter", "Module", "Linear", "Identity", "ReLU", "Tanh", "Sigmoid", "Softmax",
           "LogSoftmax", "Flatten", "Unflatten", "Sequential", "ModuleList", "ModuleDict",
           "ParameterList", "ParameterDict", "CrossEntropyLoss", "NLLLoss", "MSELoss",
           "functional", "init", "modules", "utils", "GELU", "SiLU", "Mish", "Softplus",
           "LeakyReLU", "ELU", "SELU", "Hardtanh", "ReLU6", "Hardswish", "Hardsigmoid",
           "LogSigmoid", "Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d", "MaxPool1d",
           "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
           "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "Upsample", "UpsamplingNearest2d",
           "UpsamplingBilinear2d", "PixelShuffle", "PixelUnshuffle"]
