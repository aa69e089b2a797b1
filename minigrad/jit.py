"""``minigrad.jit`` (``torch.jit``): TorchScript's names, with everything run eagerly.

minigrad has no compiler: its point is that every op runs in readable Python. Model code still
mentions TorchScript (``if not torch.jit.is_scripting():``, ``@torch.jit.ignore``,
``@torch.jit.unused``, ``x: torch.jit.Final[int]``, ``torch.jit.script(fn)``), so these names
exist and do what eager PyTorch does with them outside scripting:

- ``is_scripting()`` and ``is_tracing()`` are False;
- ``script(obj)``, ``trace(func, example_inputs)``, ``trace_module``, ``freeze``,
  ``optimize_for_inference`` return their argument itself (deliberate difference: PyTorch
  returns a ``ScriptModule`` / ``ScriptFunction`` wrapping a compiled graph; here the eager
  object runs, with the same numbers as before);
- ``ignore``, ``unused``, ``export``, ``script_method``, ``script_if_tracing``, ``interface``
  are decorators that return the function or class unchanged (``ignore`` and ``unused`` also
  take arguments: ``@torch.jit.ignore(drop=True)``);
- ``annotate(type, value)`` is ``value``, ``Attribute(value, type)`` is ``value``, ``Final`` is
  ``typing.Final``, ``isinstance`` is the builtin;
- ``fork(fn, *args)`` runs ``fn`` at once and returns a finished :class:`Future`; ``wait``
  returns its value;
- ``save`` and ``load`` raise NotImplementedError: there is no TorchScript archive (use
  ``minigrad.save`` / ``minigrad.load``).
"""
from __future__ import annotations

import builtins
import contextlib
import typing

__all__ = ["is_scripting", "is_tracing", "script", "trace", "trace_module", "ignore", "unused",
           "export", "script_method", "script_if_tracing", "interface", "annotate", "Attribute",
           "Final", "isinstance", "fork", "wait", "Future", "save", "load", "freeze",
           "optimize_for_inference", "optimized_execution", "fuser", "set_fusion_strategy",
           "enable_onednn_fusion", "onednn_fusion_enabled", "ScriptModule", "ScriptFunction",
           "TracerWarning", "Error"]

Final = typing.Final
isinstance = builtins.isinstance   # torch.jit.isinstance: a refinement in TorchScript only


class Error(RuntimeError):
    """``torch.jit.Error``: the type TorchScript's raised exceptions take."""


class TracerWarning(Warning):
    """``torch.jit.TracerWarning`` (never issued: nothing is traced)."""


def is_scripting() -> bool:
    """False: code never runs under TorchScript here (``torch.jit.is_scripting``)."""
    return False


def is_tracing() -> bool:
    """False: nothing is traced (``torch.jit.is_tracing``)."""
    return False


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """``obj`` itself, to run eagerly (``torch.jit.script``, which compiles a function or
    ``nn.Module`` to a ``ScriptFunction`` / ``ScriptModule``; see the module docstring)."""
    return obj


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None,
          check_tolerance=1e-5, strict=True, _force_outplace=False, _module_class=None,
          _compilation_unit=None, example_kwarg_inputs=None, _store_inputs=True):
    """``func`` itself (``torch.jit.trace`` records one run of ``func`` on ``example_inputs``
    into a graph; here the eager function or module is the result)."""
    return func


def trace_module(mod, inputs=None, *args, **kwargs):
    """``mod`` itself (``torch.jit.trace_module``)."""
    return mod


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """``mod`` itself (``torch.jit.freeze``)."""
    return mod


def optimize_for_inference(mod, other_methods=None):
    """``mod`` itself (``torch.jit.optimize_for_inference``)."""
    return mod


def ignore(drop=False, **kwargs):
    """A decorator leaving its function unchanged (``torch.jit.ignore``: keep a function in
    Python when the module is scripted). ``@ignore`` and ``@ignore(drop=True)`` both work."""
    if callable(drop):          # used bare: @ignore
        return drop
    return lambda fn: fn        # used with arguments: @ignore(drop=True)


def unused(fn):
    """A decorator leaving its function unchanged (``torch.jit.unused``)."""
    return fn


def export(fn):
    """A decorator leaving its function unchanged (``torch.jit.export``)."""
    return fn


def script_method(fn):
    """A decorator leaving its method unchanged (``torch.jit.script_method``)."""
    return fn


def script_if_tracing(fn):
    """A decorator leaving its function unchanged (``torch.jit.script_if_tracing``)."""
    return fn


def interface(obj):
    """A decorator leaving its class unchanged (``torch.jit.interface``)."""
    return obj


def annotate(the_type, the_value):
    """``the_value`` (``torch.jit.annotate``: a type hint for the TorchScript compiler)."""
    return the_value


def Attribute(value, type=None):  # noqa: N802 (PyTorch's name)
    """``value`` (``torch.jit.Attribute``: a typed module attribute in a ScriptModule)."""
    return value


class Future:
    """A finished result (``torch.jit.Future``, from :func:`fork`): ``wait()`` returns it (or
    raises what the function raised), ``done()`` is True."""

    def __init__(self, value=None, error=None):
        self._value, self._error = value, error

    def wait(self):
        if self._error is not None:
            raise self._error
        return self._value

    value = wait

    def done(self) -> bool:
        return True


def fork(func, *args, **kwargs) -> Future:
    """Run ``func(*args, **kwargs)`` now and return a finished :class:`Future` (``torch.jit.fork``
    runs it asynchronously under TorchScript and synchronously in eager PyTorch, as here)."""
    try:
        return Future(func(*args, **kwargs))
    except Exception as e:  # raised again by wait(), as PyTorch's future does
        return Future(error=e)


def wait(future: Future):
    """The value of a :func:`fork` (``torch.jit.wait``)."""
    return future.wait()


def save(m, f, _extra_files=None):
    """Raises NotImplementedError: minigrad has no TorchScript archive format; save a
    ``state_dict`` with ``minigrad.save`` instead (``torch.jit.save``)."""
    raise NotImplementedError("torch.jit.save: minigrad has no TorchScript archive; save the "
                              "state_dict with minigrad.save(model.state_dict(), f) instead")


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    """Raises NotImplementedError: there is no TorchScript archive to load (``torch.jit.load``);
    build the model in Python and ``load_state_dict(minigrad.load(f))``."""
    raise NotImplementedError("torch.jit.load: minigrad cannot read TorchScript archives; build "
                              "the model in Python and load a state_dict with minigrad.load")


@contextlib.contextmanager
def optimized_execution(should_optimize):
    """A context manager that changes nothing (``torch.jit.optimized_execution``)."""
    yield


@contextlib.contextmanager
def fuser(name):
    """A context manager that changes nothing (``torch.jit.fuser``)."""
    yield


_fusion_strategy = [[("STATIC", 2), ("DYNAMIC", 10)]]
_onednn = [False]


def set_fusion_strategy(strategy):
    """Record a fusion strategy and return the previous one (``torch.jit.set_fusion_strategy``);
    nothing is fused."""
    old = _fusion_strategy[0]
    _fusion_strategy[0] = list(strategy)
    return old


def enable_onednn_fusion(enabled: bool) -> None:
    """Record the flag (``torch.jit.enable_onednn_fusion``); nothing is fused."""
    _onednn[0] = bool(enabled)


def onednn_fusion_enabled() -> bool:
    """The flag :func:`enable_onednn_fusion` set (``torch.jit.onednn_fusion_enabled``)."""
    return _onednn[0]


def __getattr__(name):
    # ScriptModule / ScriptFunction need minigrad.nn, which imports after this module
    if name == "ScriptModule":
        from .nn import Module

        class ScriptModule(Module):
            """``torch.jit.ScriptModule``: here an ordinary ``nn.Module`` base class (methods
            marked ``@script_method`` run eagerly)."""
        globals()["ScriptModule"] = ScriptModule
        return ScriptModule
    if name == "ScriptFunction":
        class ScriptFunction:
            """``torch.jit.ScriptFunction``: never produced here (``script`` returns the
            function itself); only for ``isinstance`` checks, which are False."""
        globals()["ScriptFunction"] = ScriptFunction
        return ScriptFunction
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
