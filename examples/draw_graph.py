"""Look at a backward graph: the lecture's ``z = sum(w * x + b)`` and a checkpointed block.

``minigrad.autograd.graph.to_dot`` writes the graph ``backward()`` walks as Graphviz DOT text:
one box per node, named as PyTorch names it (``MulBackward0``...), blue boxes for the leaves that
receive ``.grad``, green for the output and, with ``show_saved=True``, orange boxes for what each
node keeps for its backward (shape, dtype, bytes). The second graph is a block under
non-reentrant checkpointing: its nodes keep nothing but "packed by hooks" holders, refilled by
rerunning the block during backward; that is where checkpointing's memory saving comes from.

Run: python examples/draw_graph.py [--out DIR]   (writes DIR/lecture.dot and DIR/checkpoint.dot,
and .svg files too when the graphviz package and Graphviz's dot program are installed)
"""
import argparse
import os

import minigrad as mg
from minigrad.autograd.graph import render, to_dot
from minigrad.utils.checkpoint import checkpoint


def lecture_graph():
    """The lecture's first listing: leaves x, w, b; y = w * x + b; z = y.sum()."""
    x = mg.tensor([2.0, 3.0], requires_grad=True)
    w = mg.tensor([1.0, 2.0], requires_grad=True)
    b = mg.tensor(0.5, requires_grad=True)
    z = (w * x + b).sum()
    return z, {"x": x, "w": w, "b": b}


def checkpointed_graph():
    """Linear -> GELU -> Linear, the middle of a transformer MLP, checkpointed as one block."""
    mg.manual_seed(0)
    block = mg.nn.Sequential(mg.nn.Linear(8, 32), mg.nn.GELU(), mg.nn.Linear(32, 8))
    x = mg.randn(4, 8, requires_grad=True)
    loss = checkpoint(block, x, use_reentrant=False).pow(2).mean()
    return loss, {"x": x, **{f"block.{n}": p for n, p in block.named_parameters()}}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="graphs", help="folder for the .dot (and .svg) files")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name, (out, params) in (("lecture", lecture_graph()),
                                ("checkpoint", checkpointed_graph())):
        text = to_dot(out, params=params, show_saved=True, show_attrs=True)
        print(f"--- {name}: {text.count(' -> ')} edges")
        print(text)
        render(out, os.path.join(args.out, f"{name}.dot"), params=params, show_saved=True,
               show_attrs=True)
        try:
            render(out, os.path.join(args.out, f"{name}.svg"), params=params, show_saved=True,
                   show_attrs=True)
            print(f"wrote {args.out}/{name}.svg")
        except (ImportError, RuntimeError) as e:
            print(f"wrote {args.out}/{name}.dot only ({str(e).split(';')[0]})")


if __name__ == "__main__":
    main()
