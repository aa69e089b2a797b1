"""minigrad: a NumPy reverse-mode autograd engine with real fp16/bf16 storage (mirrors ``torch``).

Every op goes through ``minigrad.dispatch.dispatch``; see ``../shared/DESIGN.md``.

Drop-in namespace: ``import minigrad as torch`` carries a script. ``minigrad.device``,
``minigrad.cuda`` (the emulated GPU), ``minigrad.accelerator`` and ``minigrad.backends`` are
minigrad's own; ``minigrad.optim`` (the ``optim`` package), ``minigrad.amp`` (the ``amp_emu``
package) and ``minigrad.autocast`` are resolved lazily, on first access, so that importing minigrad
never imports ``optim`` or ``amp_emu`` (see ``minigrad._aliases``).
"""
import warnings as _warnings


def _install_warning_filters():
    """Silence NumPy's floating-point RuntimeWarnings raised from minigrad/optim/amp_emu.

    IEEE effects (overflow to inf, 0/0 -> nan) are results here, as in PyTorch, not warnings.
    Only warnings attributed to our own modules are ignored, so kernels call ufuncs (and ufunc
    ``.reduce``) directly, never NumPy's Python wrappers (``np.sum``, ``ndarray.max``...), whose
    warnings would be attributed to NumPy's files. Called once at import; tests call it again
    inside ``warnings.catch_warnings()`` to reproduce a user's filter list.
    """
    _warnings.filterwarnings("ignore", category=RuntimeWarning,
                             message=r"(overflow|invalid value|divide by zero|underflow) "
                                     r"encountered",
                             module=r"^(minigrad|optim|amp_emu)(\.|$)")


_install_warning_filters()

from . import dtypes  # noqa: E402
from .dtypes import (float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz)  # noqa: E402
from .dtypes import (bfloat16, bool_, double, finfo, float, float16, float32, float64, half,
                     iinfo, int, int8, int16, int32, int64, long, promote_types, result_type,
                     get_default_dtype, set_default_dtype, short, uint8, DType as dtype)
from .devices import device, get_default_device, set_default_device
from .tensor import Tensor, Size
from .legacy_tensor_types import CPU_TYPES as _LEGACY_TYPES
from .legacy_tensor_types import set_default_tensor_type
from .autograd.grad_mode import (enable_grad, inference_mode, is_grad_enabled,
                                 is_inference_mode_enabled, no_grad, set_grad_enabled)
from .autograd.anomaly_mode import (is_anomaly_check_nan_enabled, is_anomaly_enabled,
                                    set_anomaly_enabled)
from . import dispatch  # the module: dispatch.dispatch(op_name, ...), register_op, modes
from .random import (manual_seed, seed, initial_seed, get_rng_state, set_rng_state, Generator,
                     default_generator)
from ._global_flags import set_flush_denormal, set_warn_always, is_warn_always_enabled
from . import ops as _ops  # registers every op
from ._functional.factories import (tensor, as_tensor, asarray, from_numpy, frombuffer, zeros, ones,
                                    full, empty, zeros_like, ones_like, full_like, empty_like,
                                    arange, eye, linspace, logspace, tril_indices, triu_indices,
                                    randn, rand, randint, randperm, randn_like, rand_like, normal)
from . import autograd
from .autograd.engine import _calibrate_steal

_calibrate_steal()
from . import linalg  # noqa: E402
from . import special  # noqa: E402
from . import nn
from .nn.parameter import typename  # noqa: E402,F401  (torch.typename)
from . import serialization
from .serialization import save, load
from . import testing  # noqa: E402  (torch is imported lazily, only by its bridges)
from . import accelerator, backends, cuda  # noqa: E402
from . import _aliases  # noqa: E402

_aliases.install()
from .backends.cuda import set_float32_matmul_precision, get_float32_matmul_precision  # noqa: E402
from .compiler import compile  # noqa: E402
from . import _dynamo  # noqa: E402,F401  (torch._dynamo: config, reset... as no-ops)
from . import overrides  # noqa: E402  (torch.overrides.has_torch_function...)
from . import cpu, jit  # noqa: E402
# torch.set_num_threads / get_num_threads: the emulated intra-op thread count, whose chunking the
# 16-bit reduction recipes follow (minigrad.numerics); it does not change how NumPy runs
from .numerics import (get_num_interop_threads, get_num_threads,  # noqa: E402
                       set_num_interop_threads, set_num_threads)
from ._format import get_printoptions, set_printoptions  # noqa: E402

from . import version  # noqa: E402
__version__ = version.__version__  # the PyTorch API level (TorchVersion); own release: version.minigrad_version
from . import onnx  # noqa: E402
# torch.OutOfMemoryError (also torch.cuda.OutOfMemoryError): the emulated device's out-of-memory
from .cuda.allocator import OutOfMemoryError  # noqa: E402
from . import distributed  # noqa: E402
from . import distributions  # noqa: E402
from . import sparse  # noqa: E402
from .sparse import sparse_coo_tensor, spmm, strided, sparse_coo  # noqa: E402,F401
# torch.add, torch.sum, torch.cat... as functions, one module per family (see minigrad._functional)
from ._functional.pointwise import *  # noqa: F401,F403,E402
from ._functional.pointwise_math import *  # noqa: F401,F403,E402
from ._functional.bitwise import *  # noqa: F401,F403,E402
from ._functional.comparison import *  # noqa: F401,F403,E402
from ._functional.reduction import *  # noqa: F401,F403,E402
from ._functional.sorting import *  # noqa: F401,F403,E402
from ._functional.matmul import *  # noqa: F401,F403,E402
from ._functional.shape import *  # noqa: F401,F403,E402
from ._functional.rearrange import *  # noqa: F401,F403,E402
from ._functional.indexing import *  # noqa: F401,F403,E402
from ._functional.joining import *  # noqa: F401,F403,E402
from ._functional.selection import *  # noqa: F401,F403,E402
from ._functional.softmax import *  # noqa: F401,F403,E402
from ._functional.tensors import *  # noqa: F401,F403,E402
from ._functional.distance import *  # noqa: F401,F403,E402
from ._functional.sampling import *  # noqa: F401,F403,E402
from ._functional.spatial import *  # noqa: F401,F403,E402
from ._functional.normalization import *  # noqa: F401,F403,E402
from ._functional.bucketing import *  # noqa: F401,F403,E402
from ._functional.activation import *  # noqa: F401,F403,E402
from ._functional.special_math import *  # noqa: F401,F403,E402
from ._functional.aliases import *  # noqa: F401,F403,E402
from ._functional.linear_algebra import *  # noqa: F401,F403,E402
from ._functional.scans import *  # noqa: F401,F403,E402
from ._functional.special_functions import *  # noqa: F401,F403,E402
from ._functional.composites import *  # noqa: F401,F403,E402
from ._functional.windows import *  # noqa: F401,F403,E402
from ._functional.foreach import *  # noqa: F401,F403,E402  (torch._foreach_*)
from .deterministic import (use_deterministic_algorithms,  # noqa: E402,F401
                            are_deterministic_algorithms_enabled,
                            is_deterministic_algorithms_warn_only_enabled)
from ._functional import FAMILIES as _FAMILIES  # noqa: E402
from .memory_layout import (memory_format, contiguous_format, channels_last,  # noqa: E402,F401
                            channels_last_3d, preserve_format)
from ._functional.out_argument import OUT_FUNCTIONS as _OUT_FUNCTIONS, with_out as _with_out  # noqa: E402,E501

# PyTorch's out= keyword on the torch-level functions that have it (see _functional.out_argument)
globals().update({_n: _with_out(globals()[_n]) for _n in _OUT_FUNCTIONS if _n in globals()})

_fn_all = [name for family in _FAMILIES for name in family.__all__]

# the legacy tensor types (torch.FloatTensor, torch.LongTensor...): see minigrad.legacy_tensor_types
globals().update(_LEGACY_TYPES)

bool = bool_

__all__ = ["Tensor", "Size", "dtype", "dtypes", "finfo", "iinfo", "float64", "float32", "float16",
           "bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
           "int64", "int32", "int16", "int8", "uint8", "bool", "double", "float",
           "half", "long", "int", "short", "get_num_threads", "set_num_threads", "get_num_interop_threads",
           "set_num_interop_threads", "promote_types", "result_type", "get_default_dtype",
           "set_default_dtype", "set_default_device", "get_default_device", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled",
           "inference_mode", "is_inference_mode_enabled", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled", "set_anomaly_enabled", "dispatch", "manual_seed", "seed", "initial_seed", "get_rng_state",
           "set_rng_state", "Generator", "tensor", "as_tensor", "from_numpy", "frombuffer",
           "zeros", "ones",
           "full", "empty", "zeros_like", "ones_like", "full_like", "empty_like", "arange", "eye",
           "linspace", "logspace", "randn", "rand", "randint", "randperm", "randn_like",
           "rand_like", "normal",
           "autograd", "nn", "special", "serialization", "save", "load", "device", "cuda",
           "accelerator", "backends", "optim", "func", "amp", "autocast", "testing", "utils",
           "profiler",
           "set_float32_matmul_precision", "get_float32_matmul_precision", "compile", "onnx", "jit", "cpu", "version",
           "distributed", "distributions", "sparse", "sparse_coo_tensor", "spmm", "strided",
           "sparse_coo", "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled", "OutOfMemoryError", "memory_format",
           "contiguous_format", "channels_last", "channels_last_3d", "preserve_format",
           "set_printoptions", "get_printoptions", "asarray", "default_generator",
           "set_default_tensor_type", "set_flush_denormal", "set_warn_always",
           "is_warn_always_enabled", "overrides"
           ] + list(_fn_all) + list(_LEGACY_TYPES)

# ``axis=`` / ``keepdims=`` wherever ``dim=`` / ``keepdim=`` is taken, as PyTorch's parser does
from . import _numpy_names  # noqa: E402
_numpy_names.install(Tensor, globals())

# PyTorch's constants (``masked_fill(mask, -torch.inf)``, ``2 * torch.pi``, ``x[:, torch.newaxis]``)
import math as _math  # noqa: E402
inf, nan, pi, e, newaxis = _math.inf, _math.nan, _math.pi, _math.e, None


# torch-level autocast API, provided by amp_emu.autocast (lazily: see __getattr__)
_AMP_LAZY = ("autocast", "is_autocast_enabled", "get_autocast_dtype", "set_autocast_enabled",
             "set_autocast_dtype", "is_autocast_available")


def _assert(condition, message):
    """Mirrors ``torch._assert``, the traceable ``assert`` of model code (timm / torchvision
    patch embeddings): raises ``AssertionError(message)`` when ``condition`` is false.

    ``condition`` is a bool or a one-element tensor; a tensor of more elements raises
    RuntimeError ("Boolean value of Tensor with more than one value is ambiguous"), as ``bool()``
    of it does. Objects whose type defines ``__torch_function__`` get to handle the call
    (``minigrad.overrides.handle_torch_function``).
    """
    if type(condition) is not Tensor and overrides.has_torch_function((condition,)):
        return overrides.handle_torch_function(_assert, (condition,), condition, message)
    if not condition:
        raise AssertionError(message)


_LAZY_MODULES = ("optim", "amp", "utils", "profiler", "memory", "func", "multiprocessing")


def __dir__():
    # the lazily provided names (``autocast``, ``optim``, ``utils``...) are listed too, so that
    # tab completion and ``dir()``-based feature checks see them as in PyTorch
    return sorted(set(globals()) | set(_AMP_LAZY) | set(_LAZY_MODULES) | {"vmap"})


def __getattr__(name):
    # ``minigrad.autocast`` is amp_emu's, and ``minigrad.optim`` / ``minigrad.amp`` are the
    # optim / amp_emu packages, imported on first use (minigrad never imports them at import
    # time; see DESIGN.md "Layering"); ``minigrad.utils`` (``torch.utils``) and
    # ``minigrad.profiler``, ``minigrad.memory``, ``minigrad.func`` and
    # ``minigrad.multiprocessing`` are imported on first use too, to keep ``import minigrad``
    # light.
    import importlib
    if name in _AMP_LAZY:
        return getattr(importlib.import_module("amp_emu.autocast"), name)
    if name == "vmap":                       # torch.vmap is torch.func.vmap
        return importlib.import_module("minigrad.func").vmap
    if name in _LAZY_MODULES:
        return importlib.import_module(f"minigrad.{name}")
    raise AttributeError(f"module 'minigrad' has no attribute {name!r}")
