"""Function transforms (``torch.func``): ``functional_call``, ``grad``, ``grad_and_value``,
``vjp``, ``jvp``, ``jacrev``, ``jacfwd``, ``hessian``, ``vmap``.

PyTorch's functorch wraps tensors in per-level wrappers. minigrad has one reverse-mode engine, so
each transform here runs the function **once**, on fresh leaf copies of the differentiated
inputs, and asks ``autograd.grad`` (always with ``create_graph=True``, as functorch does) for the
result. The results stay connected to tensors from outside the transform (a closed-over
parameter, an input that requires grad, an enclosing transform's inputs), so transforms nest
(``grad(grad(f))``) and compose with ``.backward()``; a result that depends on nothing from
outside is detached, which is what functorch's unwrapping gives.

``vmap`` is a Python loop over the batch dimension that stacks the per-sample results: the
values are those of the batched computation, without its speed (see ``vmap``).
"""
from __future__ import annotations

from collections.abc import Sequence

from ..autograd import engine
from ..autograd.grad_mode import enable_grad
from ..dispatch import dispatch
from ..nn.utils.stateless import _functional_call
from ..tensor import Tensor
from ._pytree import tree_flatten, tree_unflatten
from ._vmap import vmap

__all__ = ["functional_call", "grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian",
           "vmap"]


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """Call ``module`` with the given tensors in place of its parameters and buffers
    (``torch.func.functional_call``); see ``nn.utils.stateless``.

    Args:
        module: the Module.
        parameter_and_buffer_dicts: a dict (dotted name -> Tensor), or a sequence of dicts
            (merged; a name may appear in only one).
        args, kwargs, tie_weights, strict: as ``nn.utils.stateless.functional_call``.

    Raises:
        ValueError: a sequence element that is not a dict, a name repeated across dicts, or
            neither a dict nor a sequence (PyTorch's messages); plus those of
            ``stateless.functional_call``.
    """
    if isinstance(parameter_and_buffer_dicts, dict):
        tensors = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be "
                             "dictionaries")
        counts = {}
        for d in parameter_and_buffer_dicts:
            for k in d:
                counts[k] = counts.get(k, 0) + 1
        repeated = [k for k, n in counts.items() if n > 1]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of "
                             "functional call is ambiguous")
        tensors = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of "
                         f"dicts, but got {type(parameter_and_buffer_dicts)}")
    return _functional_call(module, tensors, args, kwargs, tie_weights=tie_weights,
                            strict=strict)


# ---------------------------------------------------------------- shared machinery

def _wrap_argnum(argnum, num_args):
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if -num_args <= argnum < num_args:
        return argnum % num_args
    raise RuntimeError(f"Got argnum={argnum}, but only {num_args} positional inputs")


def _argnums(argnums, num_args):
    """Validated argnums as a tuple of non-negative ints (PyTorch's checks and messages)."""
    if isinstance(argnums, int):
        return (_wrap_argnum(argnums, num_args),)
    if not isinstance(argnums, tuple):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    wrapped = tuple(_wrap_argnum(a, num_args) for a in argnums)
    if not wrapped:
        raise RuntimeError("argnums must be non-empty")
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError(f"argnums elements must be unique, got {wrapped}")
    return wrapped


def _differentiable(x):
    """A fresh input the transform differentiates with respect to: a view of ``x`` if ``x``
    already requires grad (the outer graph keeps reaching it), else a new leaf."""
    if not isinstance(x, Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
    return x.view_as(x) if x.requires_grad else x.detach().requires_grad_()


def _prepare(args, argnums):
    """Replace ``args[i]`` for i in argnums by differentiable copies (leaf by leaf)."""
    args = list(args)
    flat, specs = [], []
    for i in argnums:
        leaves, spec = tree_flatten(args[i])
        leaves = [_differentiable(x) for x in leaves]
        args[i] = tree_unflatten(leaves, spec)
        flat.extend(leaves)
        specs.append((spec, len(leaves)))
    return args, flat, specs


def _regroup(flat_grads, specs, single):
    """Split the flat per-leaf results back into the argnums' structures."""
    out, pos = [], 0
    for spec, n in specs:
        out.append(tree_unflatten(flat_grads[pos:pos + n], spec))
        pos += n
    return out[0] if single else tuple(out)


def _is_own_leaf(node, own):
    return type(node).__name__ == "AccumulateGrad" and id(node.variable) in own


def _reaches_outside(tensors, own):
    """True if the graph of any of ``tensors`` reaches a tensor that requires grad other than
    the transform's own fresh leaves ``own`` (a set of ids)."""
    seen, stack = set(), []
    for t in tensors:
        if isinstance(t, Tensor) and t.requires_grad:
            if t.grad_fn is None:
                if id(t) not in own:
                    return True
            else:
                stack.append(t.grad_fn)
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if type(node).__name__ == "AccumulateGrad":
            if not _is_own_leaf(node, own):
                return True
            continue
        stack.extend(n for n, _ in node.next_functions)
    return False


def _finish(results, own):
    """Detach the tensors of ``results`` (a pytree) unless some depend on the outside."""
    leaves, spec = tree_flatten(results)
    if _reaches_outside(leaves, own):
        return results
    return tree_unflatten([x.detach() if isinstance(x, Tensor) else x for x in leaves], spec)


def _grads(outputs, inputs, grad_outputs=None):
    """d outputs / d inputs with a graph; zeros for an input the outputs do not use."""
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs or (None,) * len(outputs))
             if o.requires_grad]
    if not pairs:
        return tuple(dispatch("zeros_like", x) for x in inputs)
    outs, gos = zip(*pairs)
    res = engine.grad(outs, inputs, gos, allow_unused=True, create_graph=True,
                      retain_graph=True)
    return tuple(dispatch("zeros_like", x) if g is None else g for g, x in zip(res, inputs))


# ---------------------------------------------------------------- grad, vjp, jacrev

def grad_and_value(func, argnums=0, has_aux=False):
    """``grad`` that also returns the value: ``grad_and_value(f)(*args)`` gives
    ``(gradient, f(*args))``, or ``(gradient, (value, aux))`` with ``has_aux``
    (``torch.func.grad_and_value``).

    Raises (when called):
        RuntimeError: bad ``argnums`` (PyTorch's messages); ``f`` not returning a 0-dim
            Tensor, or not an ``(output, aux)`` pair with ``has_aux``.
        ValueError: a differentiated argument that holds a non-Tensor.
    """
    def wrapper(*args, **kwargs):
        nums = _argnums(argnums, len(args))
        with enable_grad():
            args, flat, specs = _prepare(args, nums)
            output = func(*args, **kwargs)
            aux = None
            if has_aux:
                if not (isinstance(output, tuple) and len(output) == 2):
                    raise RuntimeError("grad_and_value(f)(*args): output of function f should "
                                       "be a tuple: (output, aux) if has_aux is True")
                output, aux = output
            if not isinstance(output, Tensor):
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "
                                   f"Tensor, got {type(output)}")
            if output.dim() != 0:
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "
                                   f"scalar Tensor, got tensor with {output.dim()} dims. Maybe "
                                   "you wanted to use the vjp or jacrev APIs instead?")
            g = _regroup(_grads((output,), flat), specs, isinstance(argnums, int))
        own = {id(x) for x in flat}
        g, output, aux = _finish((g, output, aux), own)
        return (g, (output, aux)) if has_aux else (g, output)
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient of a scalar function as a function (``torch.func.grad``):
    ``grad(f)(*args)`` is d f(*args) / d args[argnums].

    Args:
        func: returns a 0-dim Tensor (or ``(output, aux)`` with ``has_aux``).
        argnums: an int or a tuple of ints; the gradient has the structure of those arguments
            (each may be a tuple / list / dict of Tensors, e.g. a module's parameter dict for
            ``functional_call``), a tuple of them for a tuple ``argnums``.
        has_aux: ``func`` returns ``(output, aux)``; the call returns ``(gradient, aux)``.

    Raises (when called): as ``grad_and_value``.
    """
    gv = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g
    return wrapper


def vjp(func, *primals, has_aux=False):
    """Run ``func(*primals)`` and return ``(output, vjp_fn)`` (``torch.func.vjp``);
    ``vjp_fn(cotangents)`` (shaped like ``output``) returns a tuple with one vector-Jacobian
    product per primal (each shaped like its primal). With ``has_aux``, ``func`` returns
    ``(output, aux)`` and the call returns ``(output, vjp_fn, aux)``.

    Raises:
        RuntimeError: a non-Tensor or non-floating output, ``has_aux`` without a pair, or
            cotangents of another structure (when ``vjp_fn`` is called).
    """
    with enable_grad():
        args, flat, specs = _prepare(primals, tuple(range(len(primals))))
        output = func(*args)
        aux = None
        if has_aux:
            if not (isinstance(output, tuple) and len(output) == 2):
                raise RuntimeError("vjp(f, *primals): output of function f should be a tuple: "
                                   "(output, aux) if has_aux is True")
            output, aux = output
        flat_out, out_spec = tree_flatten(output)
        _check_outputs(flat_out, "vjp(f, *primals)")
        for o in flat_out:
            if not o.is_floating_point():
                raise RuntimeError("vjp(f, ...): All outputs of f must be floating-point or "
                                   f"complex Tensors, got Tensor with dtype {o.dtype}")
    own = {id(x) for x in flat}

    def vjp_fn(cotangents):
        flat_ct, ct_spec = tree_flatten(cotangents)
        if ct_spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree "
                               "structure of outputs to the function.")
        with enable_grad():
            g = _grads(flat_out, flat, flat_ct)
        return _finish(_regroup(g, specs, False), own)

    output = _finish(output, own)
    return (output, vjp_fn, _finish(aux, own)) if has_aux else (output, vjp_fn)


def _check_outputs(flat_out, api):
    if not flat_out:
        raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output "
                           "(got output = ())")
    for o in flat_out:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got "
                               f"unsupported type {type(o)}")


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian by reverse mode, as a function (``torch.func.jacrev``): one backward per
    output element (no vmap; ``chunk_size`` is checked, then unused).

    ``jacrev(f)(x)[...]`` has shape ``output.shape + x.shape``; outputs may be a pytree (the
    Jacobian has its structure), and a tuple ``argnums`` gives a tuple per output leaf.

    Raises:
        ValueError: ``chunk_size`` < 1. RuntimeError (when called): as ``grad``'s argnums
            checks, and non-Tensor outputs.
    """
    if chunk_size is not None and chunk_size <= 0:
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    def wrapper(*args):
        nums = _argnums(argnums, len(args))
        with enable_grad():
            args, flat, specs = _prepare(args, nums)
            output = func(*args)
            aux = None
            if has_aux:
                if not (isinstance(output, tuple) and len(output) == 2):
                    raise RuntimeError("jacrev(f, ...)(*args): output of function f should be "
                                       "a tuple: (output, aux) if has_aux is True")
                output, aux = output
            flat_out, out_spec = tree_flatten(output)
            _check_outputs(flat_out, "jacrev(f, ...)(*args)")
            jacs = []
            for out in flat_out:
                rows = [[] for _ in flat]
                flat_o = out.reshape(-1)
                for k in range(out.numel()):
                    for row, g in zip(rows, _grads((flat_o[k],), flat)):
                        row.append(g)
                per_input = [dispatch("stack", row, 0).reshape(tuple(out.shape) + tuple(x.shape))
                             if row else x.new_zeros(tuple(out.shape) + tuple(x.shape))
                             for row, x in zip(rows, flat)]
                jacs.append(_regroup(per_input, specs, isinstance(argnums, int)))
        own = {id(x) for x in flat}
        jac = _finish(tree_unflatten(jacs, out_spec), own)
        return (jac, _finish(aux, own)) if has_aux else jac
    return wrapper


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """Run ``func(*primals)`` and return ``(output, J @ tangents)`` (``torch.func.jvp``).

    Deliberate difference: minigrad has no forward-mode AD, so the product comes from the
    double-vjp trick (two reverse passes; see ``autograd.functional``); the values are the
    same. ``strict`` is accepted and unused.

    Raises:
        RuntimeError: ``primals`` / ``tangents`` not tuples, or of different structures
            (PyTorch's messages); non-Tensor outputs.
    """
    if not isinstance(primals, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it "
                           "should be valid to call f(*primals).")
    flat_t, t_spec = tree_flatten(tangents)
    if not isinstance(tangents, tuple) or tree_flatten(primals)[1] != t_spec:
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have the "
                           "same python structure. For example, if primals is a tuple of 3 "
                           "tensors, tangents also must be. Got primals with structure "
                           f"{tree_flatten(primals)[1]} and tangents with structure {t_spec}")
    with enable_grad():
        args, flat, _ = _prepare(primals, tuple(range(len(primals))))
        output = func(*args)
        aux = None
        if has_aux:
            if not (isinstance(output, tuple) and len(output) == 2):
                raise RuntimeError("jvp(f, primals, tangents): output of function f should be a "
                                   "tuple: (output, aux) if has_aux is True")
            output, aux = output
        flat_out, out_spec = tree_flatten(output)
        _check_outputs(flat_out, "jvp(f, primals, tangents)")
        # g(u) = J^T u, then d(g . t)/du = J t
        dummies = [dispatch("zeros_like", o).requires_grad_() for o in flat_out]
        g = _grads(flat_out, flat, dummies)
        jv = _grads(g, dummies, flat_t)
    own = {id(x) for x in flat} | {id(u) for u in dummies}
    res = (_finish(output, own), _finish(tree_unflatten(list(jv), out_spec), own))
    return res + (_finish(aux, own),) if has_aux else res


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian as a function (``torch.func.jacfwd``).

    Deliberate difference: computed by reverse mode, one backward per output element (the
    same matrix as PyTorch's forward-mode columns); ``randomness`` is accepted and unused.
    """
    return jacrev(func, argnums, has_aux=has_aux)


def hessian(func, argnums=0):
    """The Hessian of a scalar function, as a function (``torch.func.hessian``).

    Deliberate difference: PyTorch computes ``jacfwd(jacrev(func))``; minigrad has no forward
    mode and computes ``jacrev(jacrev(func))``, the same matrix.
    """
    return jacrev(jacrev(func, argnums), argnums)
