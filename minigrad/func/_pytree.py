"""Nested containers of tensors ("pytrees") flattened to a list of leaves and rebuilt, as
``torch.utils._pytree`` does for tuples, lists and dicts (everything else is a leaf)."""
from __future__ import annotations

__all__ = ["tree_flatten", "tree_unflatten"]

_LEAF = None


def tree_flatten(tree):
    """(leaves in order, spec): a tuple, list or dict is a node (dict in key order), anything
    else a leaf. Two trees with equal specs have the same structure."""
    leaves = []

    def walk(node):
        if isinstance(node, (tuple, list)):
            return (type(node), tuple(walk(child) for child in node))
        if isinstance(node, dict):
            return (type(node), tuple(node), tuple(walk(node[k]) for k in node))
        leaves.append(node)
        return _LEAF

    return leaves, walk(tree)


def tree_unflatten(leaves, spec):
    """Rebuild the tree of ``spec`` (from ``tree_flatten``) with ``leaves`` in order."""
    it = iter(leaves)

    def build(s):
        if s is _LEAF:
            return next(it)
        if len(s) == 3:
            kind, keys, children = s
            return kind(zip(keys, (build(c) for c in children)))
        kind, children = s
        items = [build(c) for c in children]
        return items if kind is list else (tuple(items) if kind is tuple else kind(*items))

    return build(spec)
