"""``minigrad.utils._pytree`` (mirrors ``torch.utils._pytree``): nested containers as trees.

A *pytree* is a nest of the built-in container types, whose other objects (tensors, numbers,
None, strings...) are its *leaves*. The node types are PyTorch's built-in ones: ``tuple``,
``list``, ``dict`` (keys in insertion order), ``collections.OrderedDict``,
``collections.defaultdict``, ``collections.deque`` and named tuples.
``tree_flatten(tree)`` gives the leaves, depth first, and a ``TreeSpec`` describing the nesting;
``tree_unflatten(leaves, spec)`` rebuilds a tree of that shape; ``tree_map(f, tree)`` applies
``f`` to every leaf.

This is a small from-scratch version of PyTorch's module: ``register_pytree_node`` (custom node
types), key paths (``tree_flatten_with_path``) and spec serialisation are not provided.
"""
from __future__ import annotations

from collections import OrderedDict, defaultdict, deque

__all__ = ["TreeSpec", "LeafSpec", "tree_flatten", "tree_unflatten", "tree_leaves",
           "tree_structure", "tree_map", "tree_map_", "tree_iter", "tree_is_leaf", "tree_all",
           "tree_any", "is_namedtuple", "is_namedtuple_instance"]


class namedtuple:  # noqa: N801  (PyTorch's node-type marker: TreeSpec(namedtuple, <class>, ...))
    """The node type of every named tuple; its ``TreeSpec``'s context is the tuple's class."""


def is_namedtuple(obj) -> bool:
    """Whether ``obj`` is a named-tuple class or instance
    (``torch.utils._pytree.is_namedtuple``)."""
    cls = obj if isinstance(obj, type) else type(obj)
    return issubclass(cls, tuple) and isinstance(getattr(cls, "_fields", None), tuple)


def is_namedtuple_instance(obj) -> bool:
    """Whether ``obj`` is an instance of a named tuple."""
    return is_namedtuple(type(obj))


def _node_type(tree):
    """The node type of ``tree`` (``namedtuple`` for named tuples), or None for a leaf."""
    if is_namedtuple_instance(tree):
        return namedtuple
    t = type(tree)
    return t if t in _NODES else None


# node type -> (flatten: node -> (children, context), unflatten: (children, context) -> node)
_NODES = {
    tuple: (lambda t: (list(t), None), lambda c, ctx: tuple(c)),
    list: (lambda t: (list(t), None), lambda c, ctx: list(c)),
    dict: (lambda d: (list(d.values()), list(d.keys())), lambda c, ctx: dict(zip(ctx, c))),
    OrderedDict: (lambda d: (list(d.values()), list(d.keys())),
                  lambda c, ctx: OrderedDict(zip(ctx, c))),
    defaultdict: (lambda d: (list(d.values()), [d.default_factory, list(d.keys())]),
                  lambda c, ctx: defaultdict(ctx[0], zip(ctx[1], c))),
    deque: (lambda d: (list(d), d.maxlen), lambda c, ctx: deque(c, maxlen=ctx)),
    namedtuple: (lambda t: (list(t), type(t)), lambda c, ctx: ctx(*c)),
}
_DICT_TYPES = (dict, OrderedDict, defaultdict)


class TreeSpec:
    """The structure of a pytree (``torch.utils._pytree.TreeSpec``): the node ``type``, its
    ``context`` (a dict's keys, a named tuple's class, a deque's maxlen; None for tuple/list)
    and the children's specs. ``num_leaves`` / ``num_nodes`` / ``num_children`` count them;
    ``repr`` is PyTorch's (``TreeSpec(tuple, None, [*, *])``, ``*`` a leaf)."""

    def __init__(self, type, context, children_specs):
        self.type = type
        self._context = context
        self._children = list(children_specs)
        self.num_children = len(self._children)
        self.num_leaves = sum(c.num_leaves for c in self._children)
        self.num_nodes = 1 + sum(c.num_nodes for c in self._children)

    @property
    def context(self):
        """The node's context (see the class)."""
        return self._context

    def is_leaf(self) -> bool:
        """Whether this spec is a single leaf."""
        return self.num_nodes == 1 and self.num_leaves == 1

    def children(self) -> list:
        """The children's specs (a new list)."""
        return list(self._children)

    def child(self, index: int):
        """The spec of child ``index``."""
        return self._children[index]

    def __eq__(self, other):
        if self is other:
            return True
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (str(self.type) == str(other.type) and self._context == other._context
                and self._children == other._children)

    def __hash__(self):
        return id(self)

    def __repr__(self, indent: int = 0) -> str:
        s = f"TreeSpec({self.type.__name__}, {self._context}, ["
        if self.num_children > 0:
            indent += 2
            s += self._children[0].__repr__(indent)
            s += "," if self.num_children > 1 else ""
            s += ",".join("\n" + " " * indent + c.__repr__(indent) for c in self._children[1:])
        return s + "])"

    def flatten_up_to(self, tree) -> list:
        """The subtrees of ``tree`` at this spec's leaves (``tree`` must have this spec's
        nesting down to them; dict types are interchangeable, keys matched by name).

        Raises:
            ValueError: a node of another type, arity, keys or named-tuple class (PyTorch's
                "Node type mismatch", "Node arity mismatch", "Node keys mismatch" and
                "Node context mismatch" messages).
        """
        out = []

        def helper(spec, node):
            if spec.is_leaf():
                out.append(node)
                return
            node_type = _node_type(node) or type(node)
            both_dict = spec.type in _DICT_TYPES and node_type in _DICT_TYPES
            if not both_dict and node_type is not spec.type:
                raise ValueError(f"Node type mismatch; expected {spec.type!r}, but got "
                                 f"{node_type!r}.")
            if len(node) != spec.num_children:
                raise ValueError(f"Node arity mismatch; expected {spec.num_children}, but got "
                                 f"{len(node)}.")
            if both_dict:
                keys = spec._context if spec.type is not defaultdict else spec._context[1]
                got, want = set(node), set(keys)
                if got != want:
                    message = ""
                    if want - got:
                        message += f"; missing key(s): {want - got}"
                    if got - want:
                        message += f"; extra key(s): {got - want}"
                    raise ValueError(f"Node keys mismatch{message}.")
                children = [node[k] for k in keys]
            else:
                children, context = _NODES[node_type][0](node)
                if node_type is not deque and context != spec._context:
                    raise ValueError(f"Node context mismatch for node type {spec.type!r}; "
                                     f"expected {spec._context!r}, but got {context!r}.")
            for child, child_spec in zip(children, spec._children):
                helper(child_spec, child)

        helper(self, tree)
        return out

    def unflatten(self, leaves):
        """A pytree of this structure with ``leaves`` (in order) as its leaves.

        Raises:
            ValueError: ``len(leaves) != num_leaves`` (PyTorch's message).
        """
        if not isinstance(leaves, (list, tuple)):
            leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} "
                             f"but the spec refers to a pytree that holds {self.num_leaves} "
                             f"items ({self}).")
        if self.is_leaf():
            return leaves[0]
        children, start = [], 0
        for child_spec in self._children:
            end = start + child_spec.num_leaves
            children.append(child_spec.unflatten(leaves[start:end]))
            start = end
        return _NODES[self.type][1](children, self._context)


class LeafSpec(TreeSpec):
    """The spec of a leaf (``repr`` ``*``)."""

    def __init__(self):
        self.type, self._context, self._children = None, None, []
        self.num_nodes, self.num_leaves, self.num_children = 1, 1, 0

    def __repr__(self, indent: int = 0) -> str:
        return "*"


_LEAF_SPEC = LeafSpec()


def tree_is_leaf(tree, is_leaf=None) -> bool:
    """Whether ``tree`` is a leaf: not a node type, or ``is_leaf(tree)`` is true."""
    if is_leaf is not None and is_leaf(tree):
        return True
    return _node_type(tree) is None


def tree_flatten(tree, is_leaf=None):
    """``(leaves, spec)``: the leaves of ``tree`` depth first, and its ``TreeSpec``
    (``torch.utils._pytree.tree_flatten``). ``is_leaf(x)`` true makes ``x`` a leaf even if it
    is a container."""
    leaves = []

    def helper(node):
        if tree_is_leaf(node, is_leaf):
            leaves.append(node)
            return _LEAF_SPEC
        node_type = _node_type(node)
        children, context = _NODES[node_type][0](node)
        return TreeSpec(node_type, context, [helper(c) for c in children])

    spec = helper(tree)
    return leaves, spec


def tree_unflatten(leaves, treespec):
    """The pytree of structure ``treespec`` with ``leaves``
    (``torch.utils._pytree.tree_unflatten``).

    Raises:
        TypeError: ``treespec`` not a TreeSpec; ValueError: wrong number of leaves.
    """
    if not isinstance(treespec, TreeSpec):
        raise TypeError(f"tree_unflatten(leaves, treespec): Expected `treespec` to be instance "
                        f"of TreeSpec but got item of type {type(treespec)}.")
    return treespec.unflatten(leaves)


def tree_iter(tree, is_leaf=None):
    """Iterate over the leaves of ``tree`` depth first."""
    yield from tree_flatten(tree, is_leaf)[0]


def tree_leaves(tree, is_leaf=None) -> list:
    """The leaves of ``tree`` depth first (``torch.utils._pytree.tree_leaves``)."""
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf=None) -> TreeSpec:
    """The ``TreeSpec`` of ``tree`` (``torch.utils._pytree.tree_structure``)."""
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func, tree, *rests, is_leaf=None):
    """A tree of ``tree``'s structure whose leaves are ``func(leaf, *matching leaves of rests)``
    (``torch.utils._pytree.tree_map``); each of ``rests`` must have ``tree``'s structure (or a
    deeper one: its subtrees at ``tree``'s leaves are passed whole).

    Raises:
        ValueError: a ``rests`` tree of another structure (see ``TreeSpec.flatten_up_to``).
    """
    leaves, spec = tree_flatten(tree, is_leaf)
    flat_args = [leaves] + [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(map(func, *flat_args))


def tree_map_(func, tree, *rests, is_leaf=None):
    """Call ``func`` on the leaves as ``tree_map`` does, for its side effects; returns ``tree``."""
    leaves, spec = tree_flatten(tree, is_leaf)
    flat_args = [leaves] + [spec.flatten_up_to(r) for r in rests]
    for args in zip(*flat_args):
        func(*args)
    return tree


def tree_all(pred, tree, is_leaf=None) -> bool:
    """Whether ``pred(leaf)`` is true for every leaf (``torch.utils._pytree.tree_all``)."""
    return all(map(pred, tree_iter(tree, is_leaf)))


def tree_any(pred, tree, is_leaf=None) -> bool:
    """Whether ``pred(leaf)`` is true for some leaf (``torch.utils._pytree.tree_any``)."""
    return any(map(pred, tree_iter(tree, is_leaf)))
