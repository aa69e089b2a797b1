"""``minigrad._dynamo`` (mirrors the parts of ``torch._dynamo`` that scripts call): ``config``
(settings, see ``minigrad._dynamo.config``), ``reset()``, ``optimize`` (``compile``'s older
spelling), ``disable``, ``is_compiling``, ``mark_dynamic`` / ``mark_static`` /
``maybe_mark_dynamic``, ``allow_in_graph`` / ``disallow_in_graph`` / ``graph_break``, and
``OptimizedModule``. minigrad runs every op eagerly and compiles nothing, so these are no-ops
(``optimize(...)(model)`` wraps a module exactly as ``minigrad.compile`` does).
"""
from __future__ import annotations

from . import config, eval_frame
from .eval_frame import OptimizedModule
from ..compiler import disable, is_compiling, list_backends, reset

__all__ = ["config", "eval_frame", "OptimizedModule", "reset", "optimize", "disable",
           "is_compiling", "list_backends", "mark_dynamic", "mark_static", "maybe_mark_dynamic",
           "allow_in_graph", "disallow_in_graph", "graph_break"]


def optimize(backend="inductor", *, nopython=False, dynamic=None, disable=False, **kwargs):
    """A decorator that compiles its argument as ``minigrad.compile(fn, backend=backend,
    fullgraph=nopython, dynamic=dynamic, disable=disable)`` does (``torch._dynamo.optimize``)."""
    from ..compiler import compile as _compile

    def decorator(fn):
        return _compile(fn, backend=backend, fullgraph=nopython, dynamic=dynamic,
                        disable=disable)
    return decorator


def mark_dynamic(t, index, *, min=None, max=None, specialize_on=None):
    """No-op: there are no traced shapes to mark (``torch._dynamo.mark_dynamic``)."""


def maybe_mark_dynamic(t, index):
    """No-op (``torch._dynamo.maybe_mark_dynamic``)."""


def mark_static(t, index=None):
    """No-op (``torch._dynamo.mark_static``)."""


def allow_in_graph(fn):
    """``fn`` itself: there is no graph (``torch._dynamo.allow_in_graph``)."""
    return fn


def disallow_in_graph(fn):
    """``fn`` itself (``torch._dynamo.disallow_in_graph``)."""
    return fn


def graph_break(msg=""):
    """No-op: nothing is being traced (``torch._dynamo.graph_break``)."""
