"""minigrad: a NumPy reverse-mode autograd engine with real fp16/bf16 storage (mirrors ``torch``).

Every op goes through ``minigrad.dispatch.dispatch``; see ``../shared/DESIGN.md``.
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
from .dtypes import (bfloat16, bool_, double, finfo, float, float16, float32, float64, half,
                     iinfo, int, int8, int16, int32, int64, long, promote_types, result_type,
                     get_default_dtype, set_default_dtype, short, uint8, DType as dtype)
from .tensor import Tensor, Size
from .autograd.grad_mode import (enable_grad, inference_mode, is_grad_enabled,
                                 is_inference_mode_enabled, no_grad, set_grad_enabled)
from .dispatch import dispatch
from .random import manual_seed, seed, initial_seed, get_rng_state, set_rng_state, Generator
from . import ops as _ops  # registers every op
from .ops.factory import (tensor, as_tensor, from_numpy, zeros, ones, full, empty, zeros_like,
                          ones_like, full_like, empty_like, arange, eye, linspace, randn, rand,
                          randint, randperm, randn_like, rand_like, normal)
from . import autograd
from .autograd.engine import _calibrate_steal

_calibrate_steal()
from . import linalg  # noqa: E402
from . import nn
from . import serialization
from .serialization import save, load
from . import testing  # noqa: E402  (torch is imported lazily, only by its bridges)
from ._functional import *  # noqa: F401,F403  (torch.add, torch.exp, ... as functions)
from ._functional import __all__ as _fn_all

bool = bool_

__all__ = ["Tensor", "Size", "dtype", "dtypes", "finfo", "iinfo", "float64", "float32", "float16",
           "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool", "double", "float",
           "half", "long", "int", "short", "promote_types", "result_type", "get_default_dtype",
           "set_default_dtype", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled",
           "inference_mode", "is_inference_mode_enabled", "dispatch", "manual_seed", "seed", "initial_seed", "get_rng_state",
           "set_rng_state", "Generator", "tensor", "as_tensor", "from_numpy", "zeros", "ones",
           "full", "empty", "zeros_like", "ones_like", "full_like", "empty_like", "arange", "eye",
           "linspace", "randn", "rand", "randint", "randperm", "randn_like", "rand_like", "normal",
           "autograd", "nn", "serialization", "save", "load", "testing"] + list(_fn_all)


# torch-level autocast API, provided by amp_emu.autocast (lazily: see __getattr__)
_AMP_LAZY = ("autocast", "is_autocast_enabled", "get_autocast_dtype", "set_autocast_enabled",
             "set_autocast_dtype", "is_autocast_available")


def __getattr__(name):
    # ``minigrad.autocast`` is amp_emu's, imported on first use (minigrad never imports amp_emu
    # at import time; see DESIGN.md "Layering").
    if name in _AMP_LAZY:
        import importlib
        return getattr(importlib.import_module("amp_emu.autocast"), name)
    raise AttributeError(f"module 'minigrad' has no attribute {name!r}")
