"""minigrad.autograd: Function, backward, grad, grad modes, gradcheck, ``functional``
(jacobian, hessian, vjp, jvp, vhp, hvp), the legacy ``Variable`` (``torch.autograd``)."""
from . import functional, graph
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .engine import backward, grad
from .function import Function, FunctionCtx
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,
                        no_grad, set_grad_enabled)
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .variable import Variable

__all__ = ["Function", "FunctionCtx", "backward", "grad", "no_grad", "enable_grad",
           "set_grad_enabled", "is_grad_enabled", "inference_mode", "gradcheck", "gradgradcheck",
           "GradcheckError", "graph", "functional", "detect_anomaly", "set_detect_anomaly",
           "Variable"]


def __getattr__(name):
    # ``minigrad.autograd.profiler`` (``torch.autograd.profiler``: record_function) on first use
    if name == "profiler":
        import importlib
        return importlib.import_module(f"{__name__}.profiler")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
