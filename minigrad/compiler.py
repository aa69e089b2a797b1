"""``minigrad.compile`` and ``minigrad.compiler`` (mirror ``torch.compile`` / ``torch.compiler``).

PyTorch's compiler traces a model's Python code into graphs and generates fused kernels; the
results are the same numbers, faster. minigrad has no compiler: each op runs its NumPy kernel as
it is called. So ``compile`` checks its arguments as PyTorch does and wraps without compiling:
a Module in an ``OptimizedModule`` (``minigrad._dynamo.eval_frame``) whose ``forward`` calls the
original, kept as ``_orig_mod`` (so ``state_dict`` keys start with ``"_orig_mod."``, as
PyTorch's), and a function in a function that calls it. A script that compiles its model
(nanoGPT's ``--compile``) therefore runs, unwraps (``model._orig_mod``) and trains the same.
"""
from __future__ import annotations

__all__ = ["compile", "disable", "is_compiling", "is_dynamo_compiling", "reset", "list_backends"]

_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")
_BACKENDS = ("cudagraphs", "inductor", "eager", "aot_eager", "aot_eager_decomp_partition",
             "aot_ts", "tvm", "onnxrt", "openxla")


def list_backends(exclude_tags=("debug", "experimental")) -> list:
    """The backend names ``compile`` accepts (``torch.compiler.list_backends``); all run eagerly."""
    return sorted(_BACKENDS)


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,
            options=None, name=None, disable=False, recompile_limit=None,
            isolate_recompiles=False, shapes_spec=None):
    """Mirrors ``torch.compile``: wraps ``model`` without compiling it (see the module).

    Args:
        model: a Module or function; None gives a decorator (``@minigrad.compile(mode=...)``).
        fullgraph, dynamic, name, recompile_limit, isolate_recompiles, shapes_spec: accepted and
            ignored.
        disable: True returns ``model`` itself, unwrapped (as PyTorch's).
        backend: a backend name from ``list_backends()`` or a callable; ignored.
        mode: None or one of PyTorch's modes ("default", "reduce-overhead", "max-autotune"...).
        options: a dict of backend options (not together with ``mode``); ignored.

    Returns:
        For a Module, an ``OptimizedModule`` around it; for a function, a new function that calls
        it (``functools.wraps``); ``model`` itself when ``disable=True``; with ``model=None``, a
        decorator that does this to its argument.

    Raises:
        RuntimeError: both ``mode`` and ``options``, or an unknown mode (PyTorch's messages).
        AssertionError: ``model`` that is not callable ("A callable function is expected...").
        RuntimeError: an unknown backend name ("Invalid backend: 'x', ..."; PyTorch raises its
            ``InvalidBackend``, a RuntimeError subclass).
    """
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified "
                           "at the same time.")
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if isinstance(backend, str) and backend not in _BACKENDS:
        raise RuntimeError(f"Invalid backend: {backend!r}, see `torch._dynamo.list_backends()` "
                           "for available backends.")
    if model is None:
        def decorator(fn):
            return compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                           mode=mode, options=options, name=name, disable=disable)
        return decorator
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    if disable:
        return model
    from .nn.module import Module
    if isinstance(model, Module):
        from ._dynamo.eval_frame import OptimizedModule
        return OptimizedModule(model)
    import functools

    @functools.wraps(model)
    def compiled_fn(*args, **kwargs):
        return model(*args, **kwargs)
    compiled_fn._torchdynamo_orig_callable = model
    return compiled_fn


def disable(fn=None, recursive=True, *, reason=None):
    """Mirrors ``torch.compiler.disable``: ``fn`` unchanged (nothing is ever compiled), or a
    decorator when ``fn`` is None."""
    if fn is None:
        return lambda f: f
    return fn


def is_compiling() -> bool:
    """False: minigrad never traces (``torch.compiler.is_compiling``)."""
    return False


is_dynamo_compiling = is_compiling


def reset() -> None:
    """Mirrors ``torch.compiler.reset``: there are no compiled caches to clear."""
