"""The backward graph as a picture: Graphviz DOT text of the nodes ``backward()`` would run.

``to_dot(z)`` walks ``z.grad_fn`` and its ``next_functions`` (the same walk the engine makes,
without running anything) and writes one box per node, named as PyTorch names it
(``MulBackward0``, ``AddmmBackward0``, ``torch::autograd::AccumulateGrad``), and one edge from
each node to the node that consumes its gradient, so the arrows run the way the forward ran:
from the leaves (blue: the tensors that receive ``.grad``) to the output (green). It is what
torchviz's ``make_dot`` draws for PyTorch, written here from the graph's public attributes.

- ``show_saved=True`` adds what each node keeps for its backward (orange boxes, dashed edges):
  the saved tensor's name as PyTorch's ``grad_fn._saved_<name>`` gives it, its shape, dtype and
  bytes. Nothing is unpacked: a tensor held by saved-tensor hooks (``save_on_cpu``,
  non-reentrant checkpointing) shows as "packed by hooks" instead of being recomputed or moved;
  after a backward without ``retain_graph`` the node's saved tensors show as freed.
- ``show_attrs=True`` lists the non-tensor arguments a node saved (``_saved_alpha``,
  ``_saved_dim``...) inside its box.
- ``params`` names the leaves: ``dict(model.named_parameters())``.

``render(z, "graph.svg")`` hands the text to the ``graphviz`` package (``pip install graphviz``,
plus Graphviz's ``dot`` program), which draws it; a path ending in ``.dot``/``.gv`` writes the
text only and needs neither.
"""
from __future__ import annotations

import os

__all__ = ["to_dot", "render"]

_OUTPUT, _LEAF, _SAVED = "darkolivegreen1", "lightblue", "orange"


def _shape(t) -> str:
    return "(" + ", ".join(str(s) for s in t.shape) + ")"


def _dtype(dt) -> str:
    return str(dt).replace("minigrad.", "")


def _tensor_label(t, name=None) -> str:
    lines = [] if name is None else [name]
    lines.append(f"{_shape(t)} {_dtype(t.dtype)}")
    return "\n".join(lines)


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\l") + \
        ('\\l"' if "\n" in text else '"')


def _saved_slots(node):
    """``[(name, SavedTensor or None)]`` of ``node``'s saved tensors, without unpacking any;
    None for the whole list once the graph is freed."""
    saved = getattr(node, "_saved", None)
    if getattr(node, "_freed", False):
        return None
    if not saved:
        return []
    names = {}
    for attr in dir(type(node)):
        if attr.startswith("_raw_saved_") and attr != "_raw_saved_tensors":
            raw = getattr(node, attr)
            names[getattr(raw, "_i", None)] = attr[len("_raw_saved_"):]
    return [(names.get(i, f"saved_tensors[{i}]"), s) for i, s in enumerate(saved)]


def _saved_label(name, s) -> str:
    from .saved_tensors import _HookedSaved
    if isinstance(s, _HookedSaved):
        return f"{name}\npacked by hooks"
    if s.tensor is not None:
        data, dtype = s.tensor._data, s.tensor.dtype
    else:
        data, dtype = s.data, s.dtype
    return f"{name}\n({', '.join(str(d) for d in data.shape)}) {_dtype(dtype)}\n" \
           f"{data.size * data.itemsize} bytes"


def _attr_lines(node) -> list:
    """``_saved_<name> = value`` lines for the non-tensor arguments ``node`` saved."""
    cls = type(node)
    tensors = {a[len("_raw_saved_"):] for a in dir(cls) if a.startswith("_raw_saved_")}
    lines = []
    for attr in sorted(dir(cls)):
        if not attr.startswith("_saved_") or attr[len("_saved_"):] in tensors:
            continue
        try:
            value = getattr(node, attr)
        except RuntimeError:                      # freed with the graph
            continue
        if hasattr(value, "grad_fn"):             # a Python-number operand saved as a tensor
            value = value.tolist()
        text = str(value)
        lines.append(f"{attr[len('_saved_'):]}: {text if len(text) <= 40 else text[:37] + '...'}")
    return lines


def to_dot(tensor, params=None, show_attrs: bool = False, show_saved: bool = False) -> str:
    """Graphviz DOT text of the backward graph that ends in ``tensor``.

    Args:
        tensor: a Tensor with a ``grad_fn``, or a tuple/list of them (several outputs of one
            graph: each gets its own green box).
        params: ``{name: Tensor}`` naming leaves, e.g. ``dict(model.named_parameters())``;
            unnamed leaves show their shape and dtype only.
        show_attrs: list each node's saved non-tensor arguments in its box.
        show_saved: draw each node's saved tensors (name, shape, dtype, bytes), without
            unpacking them.

    Returns:
        The DOT source (``digraph { ... }``): node ids ``n0, n1, ...`` in walk order, so the same
        graph gives the same text.

    Raises:
        TypeError: ``tensor`` is not a Tensor (or a sequence of Tensors).

    Mirrors torchviz's ``make_dot(var, params, show_attrs, show_saved)``, which PyTorch users
    draw graphs with; it returns text instead of a ``graphviz.Digraph`` (see ``render``).
    """
    from ..tensor import Tensor
    outs = list(tensor) if isinstance(tensor, (tuple, list)) else [tensor]
    for t in outs:
        if not isinstance(t, Tensor):
            raise TypeError(f"to_dot(): expected a Tensor or a sequence of Tensors, got "
                            f"{type(t).__name__}")
    names = {id(p): n for n, p in (params or {}).items()}
    ids, lines = {}, []

    def new_id(obj):
        ids[id(obj)] = f"n{len(ids)}"
        return ids[id(obj)]

    def box(nid, label, color=None, style=None):
        extra = "" if color is None else f" fillcolor={color}"
        extra += "" if style is None else f" style={style}"
        lines.append(f"\t{nid} [label={_quote(label)}{extra}]")

    keep = []                                     # keep walked objects alive: ids stay unique
    stack = []
    for t in outs:
        box(new_id(t), _tensor_label(t, names.get(id(t), "output")), _OUTPUT)
        keep.append(t)
        if t.grad_fn is not None:
            stack.append((t.grad_fn, ids[id(t)]))
    edges = []
    while stack:
        node, consumer = stack.pop()
        seen = id(node) in ids
        nid = ids[id(node)] if seen else new_id(node)
        edges.append(f"\t{nid} -> {consumer}")
        if seen:
            continue
        keep.append(node)
        var = getattr(node, "variable", None)
        if var is not None:                       # AccumulateGrad: the leaf it fills
            box(nid, _tensor_label(var, names.get(id(var))), _LEAF)
        else:
            label = node.name()
            if show_attrs:
                label = "\n".join([label] + _attr_lines(node))
            box(nid, label)
        if show_saved and var is None:
            slots = _saved_slots(node)
            if slots is None:
                sid = f"{nid}_saved"
                box(sid, "saved tensors freed\n(backward ran without retain_graph)", _SAVED)
                lines.append(f"\t{sid} -> {nid} [style=dashed]")
            for k, (name, s) in enumerate(slots or ()):
                if s is None:
                    continue
                sid = f"{nid}_s{k}"
                box(sid, _saved_label(name, s), _SAVED)
                lines.append(f"\t{sid} -> {nid} [style=dashed]")
        for nxt, _ in reversed(getattr(node, "next_functions", ()) or ()):
            if nxt is not None:
                stack.append((nxt, nid))
    head = ["digraph {", '\tgraph [size="12,12"]',
            "\tnode [align=left fontname=monospace fontsize=10 height=0.2 ranksep=0.1 "
            "shape=box style=filled]"]
    return "\n".join(head + lines + edges + ["}"]) + "\n"


def render(tensor, path, params=None, show_attrs: bool = False, show_saved: bool = False) -> str:
    """Draw ``to_dot(tensor, ...)`` into the file ``path``; its suffix picks the format
    (``.svg``, ``.png``, ``.pdf``... anything Graphviz writes; ``.dot``/``.gv`` writes the text).

    Returns:
        ``path``.

    Raises:
        ImportError: the ``graphviz`` Python package is not installed (a drawing format was
            asked for).
        RuntimeError: Graphviz's ``dot`` program is not on PATH (the package needs it).
        ValueError: ``path`` has no suffix.

    There is no ``torch`` counterpart; torchviz users call ``make_dot(...).render(...)``.
    """
    path = os.fspath(path)
    stem, ext = os.path.splitext(path)
    if not ext:
        raise ValueError(f"render(): path {path!r} has no suffix to take the format from "
                         "(e.g. graph.svg, graph.png, graph.dot)")
    text = to_dot(tensor, params=params, show_attrs=show_attrs, show_saved=show_saved)
    if ext in (".dot", ".gv"):
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path
    try:
        import graphviz
    except ImportError as e:
        raise ImportError("render() needs the graphviz package (pip install graphviz) and "
                          "Graphviz's dot program; to_dot() gives the DOT text without "
                          "them") from e
    try:
        graphviz.Source(text).render(outfile=path, format=ext[1:], cleanup=True)
    except graphviz.ExecutableNotFound as e:
        raise RuntimeError("render(): Graphviz's 'dot' program was not found on PATH (install "
                           "Graphviz, e.g. apt install graphviz); to_dot() gives the DOT text, "
                           "and a path ending in .dot writes it") from e
    return path
