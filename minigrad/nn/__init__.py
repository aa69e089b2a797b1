"""``minigrad.nn``: modules, parameters, layers, losses, init, functional (``torch.nn``)."""
from .parameter import Buffer, Parameter, UninitializedParameter
from .module import Module
from .modules import (CrossEntropyLoss, Flatten, Identity, Linear, LogSoftmax, ModuleDict,
                      ModuleList, MSELoss, NLLLoss, ParameterDict, ParameterList, ReLU,
                      Sequential, Sigmoid, Softmax, Tanh, Unflatten)
from .modules import (ELU, GELU, SELU, Hardsigmoid, Hardswish, Hardtanh, LeakyReLU,
                      LogSigmoid, Mish, ReLU6, SiLU, Softplus)
from .modules import (GLU, BCELoss, BCEWithLogitsLoss, Bilinear, CosineEmbeddingLoss,
                      CosineSimilarity, GaussianNLLLoss, HingeEmbeddingLoss, HuberLoss,
                      KLDivLoss, L1Loss, MarginRankingLoss, MultiLabelSoftMarginLoss,
                      MultiMarginLoss, PairwiseDistance, PoissonNLLLoss, SmoothL1Loss,
                      SoftMarginLoss, TripletMarginLoss)
from .modules import (AlphaDropout, Dropout, Dropout1d, Dropout2d, Dropout3d,
                      Embedding, FeatureAlphaDropout, MultiheadAttention)
from .modules import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool1d,
                      AdaptiveMaxPool2d, AvgPool1d, AvgPool2d, Conv1d, Conv2d, ConvTranspose1d,
                      ConvTranspose2d, MaxPool1d, MaxPool2d, PixelShuffle, PixelUnshuffle,
                      Upsample, UpsamplingBilinear2d, UpsamplingNearest2d)
from .modules import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .modules import (BatchNorm1d, BatchNorm2d, BatchNorm3d, GroupNorm, InstanceNorm1d,
                      InstanceNorm2d, LayerNorm, LocalResponseNorm, RMSNorm, SyncBatchNorm)
from .modules import (Transformer, TransformerDecoder, TransformerDecoderLayer,
                      TransformerEncoder, TransformerEncoderLayer)
from .modules import CTCLoss, EmbeddingBag, MaxUnpool1d, MaxUnpool2d
from .modules import LazyLinear
from .modules import (ReflectionPad1d, ReflectionPad2d, ReplicationPad1d, ReplicationPad2d,
                      ConstantPad1d, ConstantPad2d, ZeroPad1d, ZeroPad2d, CircularPad1d,
                      CircularPad2d)
from .modules import (CELU, PReLU, RReLU, Hardshrink, Softmax2d, Softmin, Softshrink,
                      Softsign, Tanhshrink, Threshold)
from .modules import ChannelShuffle, Fold, Unfold
from . import functional, init, modules, utils
from . import attention, parallel
from .parallel import DataParallel

__all__ = ["Parameter", "UninitializedParameter", "Buffer", "Module", "Linear", "LazyLinear",
           "Identity", "ReLU", "Tanh", "Sigmoid", "Softmax",
           "LogSoftmax", "Flatten", "Unflatten", "Sequential", "ModuleList", "ModuleDict",
           "ParameterList", "ParameterDict", "CrossEntropyLoss", "NLLLoss", "MSELoss",
           "functional", "init", "modules", "utils", "GELU", "SiLU", "Mish", "Softplus",
           "LeakyReLU", "ELU", "SELU", "Hardtanh", "ReLU6", "Hardswish", "Hardsigmoid",
           "LogSigmoid", "GLU", "Bilinear", "CosineSimilarity", "PairwiseDistance", "L1Loss",
           "SmoothL1Loss", "HuberLoss", "BCELoss", "BCEWithLogitsLoss", "KLDivLoss",
           "PoissonNLLLoss", "GaussianNLLLoss", "CosineEmbeddingLoss", "MarginRankingLoss",
           "HingeEmbeddingLoss", "SoftMarginLoss", "MultiMarginLoss", "MultiLabelSoftMarginLoss",
           "TripletMarginLoss",
           "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
           "FeatureAlphaDropout", "Embedding", "MultiheadAttention",
           "Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d", "MaxPool1d",
           "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
           "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "Upsample", "UpsamplingNearest2d",
           "UpsamplingBilinear2d", "PixelShuffle", "PixelUnshuffle",
           "RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell",
           "GRUCell",
           "LayerNorm", "RMSNorm", "GroupNorm", "LocalResponseNorm", "BatchNorm1d",
           "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm", "InstanceNorm1d", "InstanceNorm2d",
           "Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
           "TransformerDecoderLayer", "parallel", "DataParallel"]
__all__ += ["ChannelShuffle", "Fold", "Unfold"]
__all__ += ["EmbeddingBag", "MaxUnpool1d", "MaxUnpool2d", "CTCLoss"]
__all__ += ["Softmin", "Softmax2d", "PReLU", "RReLU", "CELU", "Threshold", "Hardshrink",
            "Softshrink", "Softsign", "Tanhshrink"]
__all__ += ["ReflectionPad1d", "ReflectionPad2d", "ReplicationPad1d", "ReplicationPad2d", "ConstantPad1d", "ConstantPad2d", "ZeroPad1d", "ZeroPad2d", "CircularPad1d", "CircularPad2d"]
