"""All built-in ops; importing this package registers them with the dispatcher."""
from . import factory, cast, elementwise, unary, compare, inplace, activation, reduce, \
    shape, concat, index, linalg, matmul, nn_softmax, loss, cross_entropy, bitwise  # noqa: F401
from . import norm  # noqa: E402,F401
from . import foreach, fused_optim, amp_kernels, scalar_read  # noqa: E402,F401
from . import stochastic_rounding  # noqa: E402,F401
from . import modulo, strided  # noqa: E402,F401
from . import moments, scan, sorting, logsumexp  # noqa: E402,F401
from . import erf, smooth_activation  # noqa: E402,F401
from . import special_bessel, special_normal  # noqa: E402,F401
from . import piecewise_activation  # noqa: E402,F401
from . import shrink, slope_relu  # noqa: E402,F401
from . import bucketing  # noqa: E402,F401
from . import transcendental  # noqa: E402,F401
from . import rounding  # noqa: E402,F401
from . import ternary  # noqa: E402,F401
from . import inplace_math  # noqa: E402,F401
from . import gather_scatter, index_dim, masked, rearrange, padding, im2col  # noqa: E402,F401
from . import regression_loss, binary_loss  # noqa: E402,F401
from . import margin_loss, distribution_loss, glu, distance  # noqa: E402,F401
from . import add_products, contraction, einsum  # noqa: E402,F401
from . import sampling, random_fill  # noqa: E402,F401
from . import dropout  # noqa: E402,F401
from . import embedding, embedding_bag  # noqa: E402,F401
from . import attention, attention_backend  # noqa: E402,F401
from . import conv  # noqa: E402,F401
from . import conv_nd  # noqa: E402,F401
from . import pooling, adaptive_pooling, upsample, pixel_shuffle  # noqa: E402,F401
from . import unpooling  # noqa: E402,F401
from . import ctc_loss  # noqa: E402,F401
from . import layer_norm  # noqa: E402,F401
from . import group_norm  # noqa: E402,F401
from . import batch_norm  # noqa: E402,F401
from . import inplace_arith, inplace_views, fill_diagonal, angle_conversion  # noqa: E402,F401
from . import special_pointwise, put  # noqa: E402,F401
from . import scaled_mm, fp8_scaling  # noqa: E402,F401
from . import linalg_solvers, linalg_orthogonal  # noqa: E402,F401
from . import matrix_functions, cdist  # noqa: E402,F401
from . import cumulative, aminmax, rotate, histogram, differences, statistics  # noqa: E402,F401
from . import float_bits  # noqa: E402,F401
from . import quantile  # noqa: E402,F401
from . import gamma, nan_reduce, special_entropy  # noqa: E402,F401
from . import index_reduce, linalg_triangular  # noqa: E402,F401
