"""Differentiable views and in-place ops on them: ``CopySlices`` (as PyTorch's autograd).

A view (``transpose``, ``view``, basic indexing, ``expand``...) shares storage and version counter
with its *base*, the root tensor of the family (``view._base``). Its ``_view`` is a ``ViewMeta``:
the base, how the view was made (PyTorch's ``CreationMeta``: in grad mode, under ``no_grad``, by
a multi-output op such as ``unbind``, under ``inference_mode``) and the version at which the
view's ``grad_fn`` was made. PyTorch's rules, reproduced here:

- A view requires grad when its base does, even if it was made before the base did.
- ``view.grad_fn`` is recomputed lazily: when the shared version moved since it was made (an
  in-place op on the base or on any view of it), it becomes ``AsStridedBackward0`` of the base's
  current history (``view_grad_fn``).
- An in-place op on a view in grad mode (``rebase_history``) runs as an ordinary op on the view's
  old value, then the *base* gets a ``CopySlices`` node: the base's gradient passes through
  unchanged outside the view's elements, and through the in-place op's backward inside them.
- ``check_inplace`` raises PyTorch's errors: in-place on a leaf that requires grad, on a view of
  such a leaf, on a view made under ``no_grad``/``inference_mode`` modified with grad on, and on
  an output of a multi-output view op.
"""
from __future__ import annotations

from .function import Function, _edge, _seq
from .grad_mode import grad_enabled, inference_enabled

__all__ = ["ViewMeta", "ViewFunction", "view_grad_fn", "check_inplace", "rebase_history",
           "CopySlices"]

DEFAULT, NO_GRAD_MODE, MULTI_OUTPUT_NODE, INFERENCE_MODE = (
    "DEFAULT", "NO_GRAD_MODE", "MULTI_OUTPUT_NODE", "INFERENCE_MODE")


class ViewMeta:
    """What a differentiable view knows about itself (PyTorch's ``DifferentiableViewMeta``).

    Attributes:
        base: the root tensor whose storage the view shares.
        creation: one of ``DEFAULT``, ``NO_GRAD_MODE``, ``MULTI_OUTPUT_NODE``, ``INFERENCE_MODE``.
        version: the version counter's value when ``grad_fn`` was last set.
    """

    __slots__ = ("base", "creation", "version")

    def __init__(self, base, creation, version):
        self.base, self.creation, self.version = base, creation, version


def make_view(out, input, creation):
    """Give ``out`` (a tensor whose ``_base`` is set) its ``ViewMeta``; a view of a view that was
    made under no_grad (etc.) inherits that creation mode, as PyTorch's
    ``propagate_creation_meta``."""
    if out._base is None or not out.dtype.is_floating_point:
        return out
    parent = input._view
    if parent is not None and parent.creation != DEFAULT and (
            creation == DEFAULT or parent.creation == INFERENCE_MODE):
        creation = parent.creation
    out._view = ViewMeta(out._base, creation, out._vc[0])
    return out


_function_apply = Function.apply.__func__


class ViewFunction(Function):
    """Base class of view ops: ``apply`` marks the output as a differentiable view of the input's
    base, remembering the grad mode it was made in. The outputs of an op returning a tuple of
    views are marked as such (PyTorch forbids modifying them in place)."""

    @classmethod
    def apply(cls, *args, **kwargs):
        # the creation mode of a view made now
        creation = INFERENCE_MODE if inference_enabled() else DEFAULT if grad_enabled() \
            else NO_GRAD_MODE
        out = _function_apply(cls, *args, **kwargs)
        if type(out) is not tuple:
            if out._base is not None:
                make_view(out, args[0], creation)
            return out
        if creation == DEFAULT:      # a multi-output view op (unbind, split) in grad mode
            creation = MULTI_OUTPUT_NODE
        for o in out:
            make_view(o, args[0], creation)
        return out


def view_grad_fn(t):
    """``t.grad_fn`` for a view ``t``, regenerated as ``AsStridedBackward0`` of the base when
    the version counter moved since it was made (PyTorch's ``VariableHooks::grad_fn``).

    Raises:
        RuntimeError: for a view made under no_grad / inference mode / by a multi-output op
            whose base (or another view of it) was modified in place since ("A view was created
            in no_grad mode and its base or another view of its base has been modified inplace
            with grad mode enabled...").
    """
    vm = t._view
    fn = t._grad_fn
    base = vm.base
    if fn is None and not base._requires_grad:
        return None
    if vm.version != t._vc[0]:
        if vm.creation != DEFAULT:
            raise creation_error(t, indirect=True)
        fn = _as_strided_node(t, base)
        t._grad_fn = fn
        t._output_nr = 0
        t._requires_grad = True
        vm.version = t._vc[0]
    return fn


def _as_strided_node(t, base):
    from ..ops.strided import AsStrided, geometry
    node = AsStrided._node_cls()
    node._seq = next(_seq)      # (a node class's __init__ is object's: see Function)
    rarr = base._data
    node.geoms = (geometry(rarr, rarr), geometry(t._data, rarr))
    node.needs_input_grad = (True, False, False, False)
    node.next_functions = (_edge(base),)
    node._input_meta = [(rarr.shape, base.dtype)]
    node._out_meta = ((t._data.shape, t.dtype),)
    node._edge_args = [0]
    node._n_args = 4
    node._device = t._device
    return node


def _op_of(t) -> str:
    """The op named in PyTorch's view errors: the view's node name without "Backward0"."""
    op = type(t._grad_fn).__name__.rstrip("0123456789")
    return op[:-len("Backward")] if op.endswith("Backward") else op


def creation_error(t, indirect=False) -> RuntimeError:
    """PyTorch's error for modifying in place a view made under no_grad / inference mode / by a
    multi-output op (``indirect``: its base or another view of it was modified, which PyTorch
    reports when the view's ``grad_fn`` is next read)."""
    c = t._view.creation
    what = "its base or another view of its base has been modified inplace" if indirect \
        else "is being modified inplace"
    mode = "inference mode" if c == INFERENCE_MODE else "no_grad mode"
    has_fn = t._grad_fn is not None
    if c == MULTI_OUTPUT_NODE:
        head = f"Output {t._output_nr} of {_op_of(t)} is a view and" if has_fn else \
            "A view was created in no_grad mode and"
        tail = ("" if has_fn else " with grad mode enabled") + (
            ". This view is the output of a function that returns multiple views. Such functions "
            "do not allow the output views to be modified inplace. You should replace the "
            "inplace operation by an out-of-place one.")
        return RuntimeError(f"{head} {what}{tail}")
    head = (f"Output {t._output_nr} of {_op_of(t)} is a view of a view which was created in "
            f"{mode} and") if has_fn else f"A view was created in {mode} and"
    other, block = ("in normal mode", "inference_mode") if c == INFERENCE_MODE else \
        ("with grad mode enabled", "no_grad")
    return RuntimeError(
        f"{head} {what} {other}. Given that this use case is ambiguous and error-prone, it is "
        "forbidden. You can clarify your code by moving both the view and the inplace either "
        f"both inside the {block} block (if you don't want the inplace to be tracked) or both "
        "outside (if you want the inplace to be tracked).")


def check_inplace(t):
    """PyTorch's ``check_inplace`` for an in-place op on ``t`` that autograd will record.

    Raises:
        RuntimeError: "A view was created in no_grad mode and is being modified inplace with
            grad mode enabled...", the inference-mode variant, "Output 0 of Unbind is a view and
            is being modified inplace...", "a view of a leaf Variable that requires grad is
            being used in an in-place operation.", "a leaf Variable that requires grad is being
            used in an in-place operation.".
    """
    vm = t._view
    if vm is not None:
        if vm.creation != DEFAULT:
            raise creation_error(t)
        if t.requires_grad and vm.base._grad_fn is None:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                               "in-place operation.")
    if t._requires_grad and t._grad_fn is None and vm is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")


def rebase_history(t, res):
    """Give ``t`` the history of ``res``, the out-of-place result the in-place op computed from
    ``t``'s old value (its ``grad_fn`` is the op's node). For a view, the base gets a
    ``CopySlices`` node wrapping that node, and ``t``'s own ``grad_fn`` is regenerated from it
    (``AsStridedBackward0``), as PyTorch's ``rebase_history``. Call after the version bump."""
    fn = res._grad_fn
    if fn is None:
        return
    vm = t._view
    if vm is None:
        t._grad_fn = fn
        t._output_nr = res._output_nr
        t._requires_grad = True
        return
    from ..ops.strided import geometry
    base = vm.base
    rarr = base._data
    node = CopySlices._node_cls()
    node._seq = next(_seq)
    node.fn = fn
    node._saved = ()         # not None: the engine releases it (and so ``fn``) after backward
    node.geoms = (geometry(rarr, rarr), geometry(t._data, rarr))
    node.next_functions = (_edge(base),) + tuple(fn.next_functions[1:])
    node._input_meta = [(rarr.shape, base.dtype)] + list(fn._input_meta[1:])
    node._out_meta = ((rarr.shape, base.dtype),)
    node.needs_input_grad = (base.requires_grad,) + tuple(fn.needs_input_grad[1:])
    node._device = fn._device
    base._grad_fn = node
    base._output_nr = 0
    base._requires_grad = True
    t._grad_fn = None
    vm.version = -1          # stale: the next read regenerates AsStridedBackward0 of the base
    view_grad_fn(t)


class CopySlices(Function):
    """The node an in-place op on a view gives the view's base (PyTorch's ``CopySlices``).

    Its backward takes the base's gradient, hands the view's slice of it to the wrapped in-place
    op's node (``fn``), and returns: for the base, the gradient with the slice replaced by what
    ``fn`` returned for its ``self``; for ``fn``'s other inputs, ``fn``'s gradients.
    """

    _backward_name = "torch::autograd::CopySlices"

    @staticmethod
    def forward(ctx, *args):
        raise RuntimeError("CopySlices is made by in-place ops on views, not called")

    @staticmethod
    def backward(ctx, grad):
        from ..dispatch import dispatch
        from .engine import _call_node, _validate
        fn = ctx.fn
        if fn is None:       # released by an earlier backward, as PyTorch's CopySlices
            from .function import FREED_MSG
            raise RuntimeError(FREED_MSG)
        a, b = ctx.geoms
        if grad is None:
            return (None,) * len(ctx.next_functions)
        gslice = dispatch("_strided_gather", grad, a, b)
        res = _call_node(fn, [gslice], True)
        g0 = res[0] if res else None
        if g0 is None:
            gbase = dispatch("_strided_put", grad, 0.0, a, b)
        else:
            meta = fn._input_meta[0]
            if meta is not None:
                g0 = _validate(fn, 0, g0, meta)
            gbase = dispatch("_strided_put", grad, g0, a, b)
        return (gbase,) + tuple(res[1:])


def _release_copy_slices(self):
    fn = getattr(self, "fn", None)
    if fn is not None:
        fn._release()
        self.fn = None


CopySlices._node_cls._release = _release_copy_slices
