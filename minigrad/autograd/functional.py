"""Higher-level autograd on whole functions (``torch.autograd.functional``): ``vjp``, ``jvp``,
``jacobian``, ``hessian``, ``vhp``, ``hvp``.

Each one calls the user's function once on fresh copies of the inputs, then asks the reverse-mode
engine (``autograd.grad``) for the products it needs. minigrad has no forward-mode AD, and neither
does PyTorch's version of these functions (except ``jacobian(strategy="forward-mode")``): forward
products come from the **double-vjp trick**. With ``u`` a dummy cotangent that requires grad,
``g(u) = J^T u`` is linear in ``u``; the vjp of ``g`` with the vector ``v`` is ``(J^T)^T v = J v``,
the jvp. ``hvp`` uses the same trick on the gradient (``H`` is symmetric for smooth functions, so
``hvp`` equals ``vhp``; the trick costs one more backward).

The conventions follow PyTorch's ``torch/autograd/functional.py``:

- ``inputs`` (and ``v``) is a Tensor or a tuple of Tensors; the result mirrors that nesting.
- ``create_graph=False``: every result is detached. ``create_graph=True``: the results are part of
  the graph, so they can be differentiated again (``hessian`` is a ``jacobian`` of a ``jacobian``).
- ``strict=True`` raises ``RuntimeError`` where a result would be identically zero because an
  output does not depend on an input; ``strict=False`` fills those entries with zeros.
"""
from __future__ import annotations

from ..dispatch import dispatch
from ..tensor import Tensor
from . import engine
from .grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


# ---------------------------------------------------------------- shared helpers (as PyTorch's)

def _as_tuple(inp, arg_name, fn_name):
    """(was it a tuple, the tuple); TypeError for a non-Tensor (PyTorch's message)."""
    is_tuple = isinstance(inp, tuple)
    items = inp if is_tuple else (inp,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            where = f"value at index {i}" if is_tuple else f"given {arg_name}"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a "
                            f"tuple of Tensors but the {where} has type {type(el)}.")
    return is_tuple, items


def _unpack(res, to_unpack):
    """Undo the tuple wrapping: ``to_unpack`` is one flag, or (outputs flag, inputs flag)."""
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _preprocess(inputs, create_graph, need_graph):
    """Fresh inputs for the user's function: a view when the graph must reach the caller's
    tensors (``create_graph`` and they require grad), else a detached leaf."""
    res = []
    for inp in inputs:
        if create_graph and inp.requires_grad:
            res.append(inp.view_as(inp))
        else:
            res.append(inp.detach().requires_grad_(need_graph))
    return tuple(res)


def _postprocess(results, create_graph):
    """Detach the results unless ``create_graph`` (nested tuples for the jacobian)."""
    if isinstance(results[0], Tensor):
        return results if create_graph else tuple(r.detach() for r in results)
    return tuple(_postprocess(r, create_graph) for r in results)


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got "
                               f"{len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(f"{prepend}v has invalid size: should be {el_other.size()} but "
                               f"got {el_v.size()}.")


_NO_GRAD_MESSAGES = {
    "hessian": ("The hessian of the user-provided function with respect to input {i} is "
                "independent of the input. This is not allowed in strict mode. You should ensure "
                "that your function is thrice differentiable and that the hessian depends on the "
                "inputs."),
    "jacobian": ("While computing the hessian, found that the jacobian of the user-provided "
                 "function with respect to input {i} is independent of the input. This is not "
                 "allowed in strict mode. You should ensure that your function is twice "
                 "differentiable and that the jacobian depends on the inputs (this would be "
                 "violated by a linear function for example)."),
    "grad_inputs": ("The gradient with respect to input {i} is independent of the inputs of the "
                    "user-provided function. This is not allowed in strict mode."),
    "outputs": ("Output {i} of the user-provided function does not require gradients. The "
                "outputs must be computed in a differentiable manner from the input when running "
                "in strict mode."),
}


def _check_requires_grad(tensors, kind, strict):
    """In strict mode, every tensor of ``tensors`` must exist and require grad."""
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")
        if not t.requires_grad:
            raise RuntimeError(_NO_GRAD_MESSAGES[kind].format(i=i))


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """``autograd.grad`` over the outputs that require grad (None for every input if none
    does); unused inputs give None."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    outs, grads = zip(*pairs)
    return engine.grad(outs, inputs, grads, allow_unused=True, create_graph=create_graph,
                       retain_graph=retain_graph)


_ZERO_MESSAGES = {
    "back": ("The output of the user-provided function is independent of input {i}. This is not "
             "allowed in strict mode."),
    "back_trick": ("The gradient with respect to the input is independent of entry {i} in the "
                   "grad_outputs when using the double backward trick to compute forward mode "
                   "gradients. This is not allowed in strict mode."),
    "double_back": ("The jacobian of the user-provided function is independent of input {i}. "
                    "This is not allowed in strict mode."),
    "double_back_trick": ("The hessian of the user-provided function is independent of entry {i} "
                          "in the grad_jacobian. This is not allowed in strict mode as it "
                          "prevents from using the double backward trick to replace forward "
                          "mode AD."),
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    """Replace a None gradient by zeros shaped like ``refs[i]`` (strict mode raises instead)."""
    res = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_ZERO_MESSAGES[stage].format(i=i))
            g = dispatch("zeros_like", refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               "create_graph=True.")
        res.append(g)
    return tuple(res)


def _call(func, inputs, fn_name):
    outputs = func(*inputs)
    return _as_tuple(outputs, "outputs of the user-provided function", fn_name)


def _prepare_v(v, refs, is_refs_tuple, create_graph, fn_name, none_message):
    if v is None:
        if len(refs) != 1 or refs[0].nelement() != 1:
            raise RuntimeError(none_message)
        return None
    _, v = _as_tuple(v, "v", fn_name)
    v = _preprocess(v, create_graph=create_graph, need_graph=False)
    _validate_v(v, refs, is_refs_tuple)
    return v


_V_NONE_INPUT = ("The vector v can only be None if the input to the user-provided function is a "
                 "single Tensor with a single element.")


# ---------------------------------------------------------------- vector products

def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """Vector-Jacobian product ``v^T J`` of ``func`` at ``inputs``
    (``torch.autograd.functional.vjp``).

    Args:
        func: a function of Tensors returning a Tensor or a tuple of Tensors.
        inputs: a Tensor or tuple of Tensors.
        v: cotangents shaped like the outputs; may be None only when ``func`` returns one
            single-element Tensor.
        create_graph: keep the results in the graph (for higher-order derivatives).
        strict: raise when an output is independent of an input, instead of returning zeros.

    Returns:
        (func_output, vjp): ``vjp`` is shaped (and nested) like ``inputs``.

    Raises:
        TypeError: a non-Tensor input, output or ``v``.
        RuntimeError: ``v`` None for a non-scalar output; a ``v`` of the wrong length or size;
            strict-mode violations (PyTorch's messages).
    """
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _preprocess(inputs, create_graph=create_graph, need_graph=True)
        is_outputs_tuple, outputs = _call(func, inputs, "vjp")
        _check_requires_grad(outputs, "outputs", strict)
        v = _prepare_v(v, outputs, is_outputs_tuple, create_graph, "vjp",
                       "The vector v can only be None if the user-provided function returns a "
                       "single Tensor with a single element.")
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, inputs, strict, create_graph, "back")
    return (_unpack(_postprocess(outputs, create_graph), is_outputs_tuple),
            _unpack(_postprocess(res, create_graph), is_inputs_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """Jacobian-vector product ``J v`` of ``func`` at ``inputs``
    (``torch.autograd.functional.jvp``), by the double-vjp trick (see the module docstring):
    two reverse passes, as PyTorch computes it.

    Args:
        func, inputs, create_graph, strict: as ``vjp``.
        v: tangents shaped like ``inputs``; may be None only for one single-element input.

    Returns:
        (func_output, jvp): ``jvp`` is shaped (and nested) like the outputs.

    Raises:
        as ``vjp`` (``v`` is checked against the inputs).
    """
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _preprocess(inputs, create_graph=create_graph, need_graph=True)
        v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, "jvp", _V_NONE_INPUT)
        is_outputs_tuple, outputs = _call(func, inputs, "jvp")
        _check_requires_grad(outputs, "outputs", strict)
        # g(u) = J^T u, built with a graph so that it can be differentiated with respect to u
        dummies = tuple(dispatch("zeros_like", out).requires_grad_() for out in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, dummies, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(grad_inputs, dummies, v, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, outputs, strict, create_graph, "back_trick")
    return (_unpack(_postprocess(outputs, create_graph), is_outputs_tuple),
            _unpack(_postprocess(res, create_graph), is_outputs_tuple))


def _scalar_function_grad(func, inputs, fn_name, strict):
    """Run a scalar ``func`` and return (outputs tuple, its gradient with a graph)."""
    is_outputs_tuple, outputs = _call(func, inputs, fn_name)
    _check_requires_grad(outputs, "outputs", strict)
    if is_outputs_tuple:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should "
                           "contain a single element")
    jac = _autograd_grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict)
    return outputs, jac


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """Vector-Hessian product ``v^T H`` of a scalar ``func`` at ``inputs``
    (``torch.autograd.functional.vhp``): the vjp of the gradient.

    Args:
        func: returns a single-element Tensor.
        inputs, create_graph, strict: as ``vjp``.
        v: shaped like ``inputs``; may be None only for one single-element input.

    Returns:
        (func_output, vhp): ``vhp`` shaped like ``inputs``.

    Raises:
        RuntimeError: ``func`` returns a tuple or more than one element; as ``vjp`` otherwise.
    """
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vhp")
        inputs = _preprocess(inputs, create_graph=create_graph, need_graph=True)
        v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, "vhp", _V_NONE_INPUT)
        outputs, jac = _scalar_function_grad(func, inputs, "vhp", strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(jac, inputs, v, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back")
    return (_unpack(_postprocess(outputs, create_graph), False),
            _unpack(_postprocess(res, create_graph), is_inputs_tuple))


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """Hessian-vector product ``H v`` of a scalar ``func`` at ``inputs``
    (``torch.autograd.functional.hvp``), by the double-vjp trick applied to the gradient
    (one backward more than ``vhp``, which gives the same values for a smooth ``func``).

    Args, Returns, Raises: as ``vhp``.
    """
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hvp")
        inputs = _preprocess(inputs, create_graph=create_graph, need_graph=True)
        v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, "hvp", _V_NONE_INPUT)
        outputs, jac = _scalar_function_grad(func, inputs, "hvp", strict)
        dummies = tuple(dispatch("zeros_like", inp).requires_grad_() for inp in inputs)
        double_back = _autograd_grad(jac, inputs, dummies, create_graph=True)
        _check_requires_grad(jac, "hessian", strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(double_back, dummies, v, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back_trick")
    return (_unpack(_postprocess(outputs, create_graph), False),
            _unpack(_postprocess(res, create_graph), is_inputs_tuple))


# ---------------------------------------------------------------- full matrices

def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs`` (``torch.autograd.functional.jacobian``), one
    reverse pass per output element.

    ``jacobian[i][j]`` has shape ``outputs[i].shape + inputs[j].shape``; the nesting is dropped
    where ``func`` returns / ``inputs`` is a single Tensor.

    Deliberate difference: minigrad has neither ``vmap`` nor forward-mode AD, so
    ``vectorize=True`` (and ``strategy="forward-mode"``, which PyTorch only allows with it)
    compute the same matrix with the same per-row loop as ``vectorize=False``. The argument
    checks are PyTorch's.

    Args:
        func: a function of Tensors returning a Tensor or a tuple of Tensors.
        inputs: a Tensor or tuple of Tensors.
        create_graph: keep the result in the graph (``hessian`` relies on this).
        strict: raise when an output is independent of an input instead of returning zeros.
        vectorize: accepted; see the difference above.
        strategy: "reverse-mode" or "forward-mode".

    Returns:
        A Tensor, or a tuple (of tuples) of Tensors.

    Raises:
        AssertionError: an unknown ``strategy``.
        NotImplementedError: ``strategy="forward-mode"`` with ``create_graph=True`` or with
            ``vectorize=False``.
        RuntimeError: ``strict=True`` with ``vectorize=True`` or forward mode; strict-mode
            violations.
        TypeError: a non-Tensor input or output.
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                             'Hint: If your function has more outputs than inputs, "forward-mode" '
                             'tends to be more performant. Otherwise, prefer to use '
                             '"reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`create_graph=False` or `strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`strict=False` or `strategy="reverse-mode"`.')
        if not vectorize:
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse "
                                      "Hessian isonly implemented for `vectorize=True`.")
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _preprocess(inputs, create_graph=create_graph, need_graph=True)
        is_outputs_tuple, outputs = _call(func, inputs, "jacobian")
        _check_requires_grad(outputs, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                               "`vectorized=True` are not supported together. Please either set "
                               "`strict=False` or `vectorize=False`.")
        jac = []
        for i, out in enumerate(outputs):
            rows = tuple([] for _ in inputs)        # rows[j]: d out.flat[k] / d inputs[j], per k
            flat = out.reshape(-1)
            for k in range(out.nelement()):
                vj = _autograd_grad((flat[k],), inputs, retain_graph=True,
                                    create_graph=create_graph)
                for j, (row, g, inp) in enumerate(zip(rows, vj, inputs)):
                    if g is None:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is "
                                               f"independent of input {j}. This is not allowed "
                                               "in strict mode.")
                        g = dispatch("zeros_like", inp)
                    elif strict and create_graph and not g.requires_grad:
                        raise RuntimeError("The jacobian of the user-provided function is "
                                           f"independent of input {i}. This is not allowed in "
                                           "strict mode when create_graph=True.")
                    row.append(g)
            jac.append(tuple(dispatch("stack", row, 0).view(out.size() + inputs[j].size())
                             for j, row in enumerate(rows)))
        jac = _postprocess(tuple(jac), create_graph)
        return _unpack(jac, (is_outputs_tuple, is_inputs_tuple))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar ``func`` at ``inputs`` (``torch.autograd.functional.hessian``):
    the ``jacobian`` of the ``jacobian`` (the inner one with ``create_graph=True``).

    ``hessian[i][j]`` has shape ``inputs[i].shape + inputs[j].shape``; a single Tensor input
    gives a single Tensor.

    Args:
        func: returns a single-element Tensor.
        inputs, create_graph, strict, vectorize: as ``jacobian``.
        outer_jacobian_strategy: the outer ``jacobian``'s ``strategy``.

    Raises:
        RuntimeError: ``func`` returns a tuple or more than one element; as ``jacobian``.
        AssertionError: an unknown ``outer_jacobian_strategy``.
    """
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_func(*inp):
        is_out_tuple, out = _call(func, inp, "hessian")
        _check_requires_grad(out, "outputs", strict)
        if is_out_tuple:
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out[0].nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should "
                               "contain a single element")
        return out[0].squeeze()

    def jac_func(*inp):
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(scalar_func, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _unpack(res, (is_inputs_tuple, is_inputs_tuple))
