"""``torch.func.vmap`` as a Python loop: call the function once per batch index on the slices
of the mapped inputs, then stack each output along its ``out_dims``.

PyTorch's vmap runs the function once on "batched tensors" that carry the batch dimension
through every op. Per sample, the maths is the same, so the results are too (up to the
summation order of a batched matmul), but the loop costs one call per sample. Autograd flows
through the slices and the stack, so ``vmap(grad(f))`` gives per-sample gradients.
"""
from __future__ import annotations

import functools

from ..dispatch import dispatch
from ..random import get_rng_state, set_rng_state
from ..tensor import Tensor
from ._pytree import tree_flatten, tree_unflatten

__all__ = ["vmap"]


def _name(func):
    return getattr(func, "__name__", repr(func))


def _broadcast_dims(dims, tree, what, func, in_dims):
    """One dim (int or None) per leaf of ``tree``: an int/None applies to every leaf, a tuple /
    list / dict must match the structure of ``tree``."""
    leaves, spec = tree_flatten(tree)
    if dims is None or isinstance(dims, int):
        return leaves, spec, [dims] * len(leaves)
    dim_leaves, dim_spec = tree_flatten(dims)
    if isinstance(tree, (tuple, list, dict)) and type(dims) is type(tree) \
            and len(dims) == len(tree):
        out = []
        children = tree.values() if isinstance(tree, dict) else tree
        sub = dims.values() if isinstance(dims, dict) else dims
        for child, d in zip(children, sub):
            out.extend(_broadcast_dims(d, child, what, func, in_dims)[2])
        return leaves, spec, out
    raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): in_dims is not "
                     f"compatible with the structure of `inputs`.")


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """Map ``func`` over a batch dimension of its inputs (``torch.func.vmap``), by a loop.

    Args:
        func: a function of Tensors (and pytrees of them) returning Tensors (or a pytree).
        in_dims: the batch dim of each positional input: an int or None for all, or a tuple
            with one entry (int, None, or a nested structure) per input; None = not mapped.
        out_dims: where the batch dim goes in each output: an int, or a tuple per output.
        randomness: "error", "different" or "same". Deliberate difference: "error" is not
            enforced (random ops draw fresh numbers per sample, as "different" does); "same"
            replays the generator state before each sample.
        chunk_size: accepted and unused (the loop is already one sample at a time).

    Returns:
        The vmapped function.

    Raises (when called):
        ValueError: no mapped Tensor; mapped sizes that differ; an ``in_dim`` out of range; an
            ``in_dims`` of the wrong kind or structure; a non-Tensor output (PyTorch's messages).
        RuntimeError: a bad ``randomness`` (raised at once).
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        if not isinstance(in_dims, (int, tuple)) and in_dims is not None:
            raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): expected "
                             "`in_dims` to be int or a (potentially nested) tuple matching the "
                             f"structure of inputs, got: {type(in_dims)}.")
        leaves, spec, dims = _broadcast_dims(in_dims, args, "in_dims", func, in_dims)
        sizes = []
        for x, d in zip(leaves, dims):
            if d is None or not isinstance(x, Tensor):
                continue
            if not -x.dim() <= d < x.dim():
                raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got "
                                 f"in_dim={d} for some input, but that input is a Tensor of "
                                 f"dimensionality {x.dim()} so expected in_dim to satisfy "
                                 f"-{x.dim()} <= in_dim < {x.dim()}.")
            sizes.append(x.shape[d])
        if not sizes:
            raise ValueError("vmap: Expected at least one Tensor to vmap over")
        if len(set(sizes)) != 1:
            raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                             f"dimension, got sizes {sizes} for the mapped dimension")
        state = get_rng_state() if randomness == "same" else None
        per_sample = []
        for i in range(sizes[0]):
            if state is not None:
                set_rng_state(state)
            sliced = [x.select(d, i) if d is not None and isinstance(x, Tensor) else x
                      for x, d in zip(leaves, dims)]
            per_sample.append(func(*tree_unflatten(sliced, spec), **kwargs))
        return _stack_outputs(per_sample, out_dims, func)
    return wrapped


def _stack_outputs(per_sample, out_dims, func):
    flat0, spec = tree_flatten(per_sample[0])
    if isinstance(out_dims, int) or out_dims is None:
        odims = [out_dims] * len(flat0)
    else:
        odims = _broadcast_dims(out_dims, per_sample[0], "out_dims", func, out_dims)[2]
    flats = [tree_flatten(s)[0] for s in per_sample]
    out = []
    for j, d in enumerate(odims):
        if d is None:
            out.append(flat0[j])
            continue
        if not isinstance(flat0[j], Tensor):
            raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` must only return "
                             f"Tensors, got type {type(flat0[j])}. Did you mean to set "
                             "out_dims= to None for output?")
        out.append(dispatch("stack", [f[j] for f in flats], d))
    return tree_unflatten(out, spec)
