"""The layer catalogue (``torch.nn.modules``), one file per family with PyTorch's file names:
``linear`` (``Identity``, ``Linear``, ``LazyLinear``, ``Bilinear``), ``lazy``
(``LazyModuleMixin``), ``activation``, ``dropout``, ``sparse`` (``Embedding``), ``flatten``,
``container``, ``loss``, ``distance``, ``conv``, ``pooling``, ``upsampling``, ``pixelshuffle``,
``padding``, ``rnn``, ``normalization`` (``LayerNorm``, ``RMSNorm``,
``GroupNorm``, ``LocalResponseNorm``), ``batchnorm`` (``BatchNorm1d/2d/3d``), ``instancenorm``
(``InstanceNorm1d/2d``), ``transformer`` (``Transformer``, ``TransformerEncoder(Layer)``,
``TransformerDecoder(Layer)``).

The file names are PyTorch's so that a pickled model names the same paths as a PyTorch one
(``minigrad.nn.modules.linear.Linear`` for ``torch.nn.modules.linear.Linear``): ``minigrad.save``
of a whole model and ``load(weights_only=True)``'s "add this class" message then read as
PyTorch's do. ``minigrad.nn`` re-exports every class.
"""
from .activation import (ELU, GELU, SELU, Hardsigmoid, Hardswish, Hardtanh, LeakyReLU,
                         LogSigmoid, LogSoftmax, Mish, ReLU, ReLU6, Sigmoid, SiLU, Softmax,
                         Softplus, Tanh, GLU, MultiheadAttention)
from .activation import (CELU, PReLU, RReLU, Hardshrink, Softmax2d, Softmin, Softshrink,
                         Softsign, Tanhshrink, Threshold)
from .conv import Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d
from .pixelshuffle import ChannelShuffle, PixelShuffle, PixelUnshuffle
from .fold import Fold, Unfold
from .padding import (ReflectionPad1d, ReflectionPad2d, ReplicationPad1d, ReplicationPad2d,
                       ConstantPad1d, ConstantPad2d, ZeroPad1d, ZeroPad2d, CircularPad1d,
                       CircularPad2d)
from .pooling import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool1d, AdaptiveMaxPool2d,
                      AvgPool1d, AvgPool2d, MaxPool1d, MaxPool2d)
from .upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .dropout import (AlphaDropout, Dropout, Dropout1d, Dropout2d, Dropout3d,
                      FeatureAlphaDropout)
from .flatten import Flatten, Unflatten
from .distance import CosineSimilarity, PairwiseDistance
from .linear import Bilinear, Identity, LazyLinear, Linear
from .lazy import LazyModuleMixin
from .sparse import Embedding
from .sparse import EmbeddingBag
from .pooling import MaxUnpool1d, MaxUnpool2d
from . import loss as _loss
from .loss import *  # noqa: F401,F403  (every loss module)
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .normalization import GroupNorm, LayerNorm, LocalResponseNorm, RMSNorm
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d, SyncBatchNorm
from .instancenorm import InstanceNorm1d, InstanceNorm2d
from .transformer import (Transformer, TransformerDecoder, TransformerDecoderLayer,
                          TransformerEncoder, TransformerEncoderLayer)

__all__ = ["Identity", "Linear", "LazyLinear", "LazyModuleMixin",
           "ReLU", "Tanh", "Sigmoid", "Softmax", "LogSoftmax", "Flatten",
           "Unflatten", "Sequential", "ModuleList", "ModuleDict", "ParameterList",
           "ParameterDict", "CrossEntropyLoss", "NLLLoss", "MSELoss", "GELU", "SiLU", "Mish",
           "Softplus", "LeakyReLU", "ELU", "SELU", "Hardtanh", "ReLU6", "Hardswish",
           "Hardsigmoid", "LogSigmoid", "GLU", "Bilinear", "CosineSimilarity",
           "PairwiseDistance", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d",
           "AlphaDropout", "FeatureAlphaDropout", "Embedding", "MultiheadAttention",
           "Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d",
           "MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d",
           "AdaptiveAvgPool2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "Upsample",
           "UpsamplingNearest2d", "UpsamplingBilinear2d", "PixelShuffle", "PixelUnshuffle",
           "ChannelShuffle", "Fold", "Unfold",
           "RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase",
           "RNNCell", "LSTMCell", "GRUCell", "LayerNorm", "RMSNorm", "GroupNorm",
           "LocalResponseNorm", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm",
           "InstanceNorm1d",
           "InstanceNorm2d", "Transformer", "TransformerEncoder", "TransformerDecoder",
           "TransformerEncoderLayer", "TransformerDecoderLayer"] + \
    [n for n in _loss.__all__ if n not in ("CrossEntropyLoss", "NLLLoss", "MSELoss")]
__all__ += ["EmbeddingBag", "MaxUnpool1d", "MaxUnpool2d"]
__all__ += ["Softmin", "Softmax2d", "PReLU", "RReLU", "CELU", "Threshold", "Hardshrink",
            "Softshrink", "Softsign", "Tanhshrink"]
__all__ += ["ReflectionPad1d", "ReflectionPad2d", "ReplicationPad1d", "ReplicationPad2d", "ConstantPad1d", "ConstantPad2d", "ZeroPad1d", "ZeroPad2d", "CircularPad1d", "CircularPad2d"]

# ``torch.nn.modules.module`` / ``torch.nn.modules.utils`` are attributes after a plain
# ``import torch``, as in PyTorch (``torch.nn.modules.module.register_module_forward_hook``)
from . import module, utils  # noqa: E402,F401
