"""``Function._fast``: the add/mul fast paths that ``Function.apply`` tries first agree with the
general path (``forward``), bit for bit, with the same graph node, saved tensors and errors."""
from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad.ops.elementwise import Add, Mul
from tests.unit.test_random_ops import _Names

VALS = np.array([[-np.inf, -2.5, 0.0, -0.0], [1e-40, 7.0, 3e38, np.nan]], np.float32)


def _cases():
    x = mg.tensor(VALS)
    return [(x, mg.tensor(VALS[::-1].copy())), (x, mg.tensor(VALS.T.copy()).t()),   # non-contig
            (x, mg.tensor(VALS[0])), (mg.zeros(0, 3), mg.zeros(0, 3)),               # broadcast
            (x.double(), x.double()), (x.half(), x.half()), (x.to(mg.int32), x.to(mg.int32)),
            (x, 2), (x, 0.1), (x, True), (mg.tensor(3.0), mg.tensor(-1.0)), (x, mg.tensor(2.0))]


def _run(op, a, b, grad, monkeypatch=None, fast=True):
    with monkeypatch.context() as m:
        if not fast:
            m.setattr(op, "_fast", None)
        if grad:
            a = a.detach().requires_grad_(a.dtype.is_floating_point)
        out = op.apply(a, b)
        node = out.grad_fn
        g = None
        if node is not None:
            out.sum().backward()
            g = a.grad
    return out, node, g


@pytest.mark.parametrize("grad", [False, True])
@pytest.mark.parametrize("i", range(12))
@pytest.mark.parametrize("op", [Add, Mul])
def test_fast_path_agrees_with_the_general_path(op, i, grad, monkeypatch):
    a, b = _cases()[i]
    f, fn, fg = _run(op, a, b, grad, monkeypatch)
    s, sn, sg = _run(op, a, b, grad, monkeypatch, fast=False)
    assert f.dtype is s.dtype and f._data.shape == s._data.shape
    assert np.array_equal(f._data.reshape(-1).view(np.uint8), s._data.reshape(-1).view(np.uint8))
    assert f.requires_grad == s.requires_grad
    assert (fn is None) == (sn is None)
    if fn is not None:
        assert fn.name() == sn.name()
        assert [e[1] for e in fn.next_functions] == [e[1] for e in sn.next_functions]
        assert [type(e[0]).__name__ for e in fn.next_functions] == \
            [type(e[0]).__name__ for e in sn.next_functions]
        assert np.array_equal(fg._data, sg._data, equal_nan=True)


def _one_element_cases():
    x = mg.tensor(VALS)
    xt = mg.tensor(VALS.T.copy()).t()                       # column-major input
    return [(x, mg.tensor(2.5).expand(2, 4)), (x, mg.tensor(np.nan).expand(2, 4)),
            (xt, mg.tensor(-1e-40).expand(2, 4)), (x, x[1, 3].expand(2, 4)),   # a slice's view
            (mg.tensor(1.5).expand(2, 4), mg.tensor(3e38).expand(2, 4)),        # both broadcast
            (x.double(), mg.tensor(0.1, dtype=mg.float64).expand(2, 4)),
            (x.to(mg.int32), mg.tensor(7, dtype=mg.int32).expand(2, 4)),
            (x > 0, mg.tensor(True).expand(2, 4)), (mg.tensor(3.0), mg.tensor(2.0).expand(())),
            (x, mg.tensor(2.5).expand(1, 4).expand(2, 4)), (x, mg.tensor(2.5).double().expand(2, 4))]


@pytest.mark.parametrize("i", range(11))
def test_add_of_a_one_element_view_agrees_with_the_general_path(i, monkeypatch):
    """Add._fast adds a view of a 0-d array (what sum's backward sends) as the 0-d array: the
    same bits, dtype, shape and strides as the general path (and as the full view)."""
    a, b = _one_element_cases()[i]
    f, _, _ = _run(Add, a, b, False, monkeypatch)
    s, _, _ = _run(Add, a, b, False, monkeypatch, fast=False)
    assert f.dtype is s.dtype and f._data.shape == s._data.shape
    assert f._data.strides == s._data.strides == (a._data + b._data).strides
    assert np.array_equal(f._data.reshape(-1).view(np.uint8), s._data.reshape(-1).view(np.uint8))


def test_sum_backward_gradient_accumulates_with_the_same_bits(monkeypatch):
    """A leaf used by every add of a chain gets sum's broadcast gradient 100 times: the engine's
    buffer sums (Add._fast on a one-element view) give the general path's bits."""
    def run(fast, monkeypatch):
        with monkeypatch.context() as m:
            if not fast:
                m.setattr(Add, "_fast", None)
            a = mg.tensor(VALS[:, :3].copy() * 0 + 0.1, requires_grad=True)
            b = mg.tensor(VALS[:, :3].copy() * 0 + 0.3, requires_grad=True)
            x = a
            for _ in range(100):
                x = x + b
            (x.sum() * 0.7).backward()
            return b.grad
    f, s = run(True, monkeypatch), run(False, monkeypatch)
    assert f._data.strides == s._data.strides
    assert np.array_equal(f._data.view(np.uint32), s._data.view(np.uint32))


def test_a_mode_entered_mid_chain_sees_every_op():
    a = mg.randn(4, 4, requires_grad=True)
    b = mg.randn(4, 4)
    x = a + b
    with _Names() as rec:
        x = x * b + 1.0
    x = x + b
    assert rec.names == ["mul", "add"]
    x.sum().backward()
    assert np.allclose(a.grad._data, b._data)


def test_saved_tensor_modified_in_place_raises_in_backward():
    a = mg.randn(3, requires_grad=True)
    b = mg.randn(3, requires_grad=True)
    y = a * b
    with mg.no_grad():
        b.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_in_place_on_a_leaf_and_requires_grad_propagation():
    a = mg.randn(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        a.add_(1)
    c = mg.randn(3)
    assert not (c + c).requires_grad and (c + c).grad_fn is None
    assert (c * a).requires_grad and (c * a).grad_fn.name() == "MulBackward0"
    with mg.no_grad():
        assert (a + a).grad_fn is None and not (a * a).requires_grad
    assert (a + 1).dtype is mg.float32 and (a.double() + 2).dtype is mg.float64
    assert (mg.tensor(1, dtype=mg.int32) + 2.5).dtype is mg.float32


# ---------------------------------------------------------------------------------- t (a view)
def _t_cases():
    x = mg.tensor(VALS)
    return [x, x.t(), x[:, ::2], mg.tensor(2.0), mg.tensor(VALS[0]), mg.zeros(0, 3), x.half(),
            x.to(mg.int32)]


def _run_t(t, grad, no_grad, monkeypatch, fast):
    from minigrad.ops.shape import T
    with monkeypatch.context() as m:
        if not fast:
            m.setattr(T, "_fast", None)
        if grad:
            t = t.detach().requires_grad_(t.dtype.is_floating_point)
        if no_grad:
            with mg.no_grad():
                out = mg.t(t)
        else:
            out = mg.t(t)
        g = None
        if out.grad_fn is not None:
            (out * mg.ones_like(out)).sum().backward()
            g = t.grad
    return t, out, g


@pytest.mark.parametrize("no_grad", [False, True])
@pytest.mark.parametrize("grad", [False, True])
@pytest.mark.parametrize("i", range(8))
def test_t_fast_path_agrees_with_the_general_path(i, grad, no_grad, monkeypatch):
    x = _t_cases()[i]
    fi, f, fg = _run_t(x, grad, no_grad, monkeypatch, True)
    si, s, sg = _run_t(x, grad, no_grad, monkeypatch, False)
    assert f.dtype is s.dtype and f._data.shape == s._data.shape
    assert f._data.strides == s._data.strides and f._data.base is not None
    root = fi if fi._base is None else fi._base
    assert f._base is root and f._vc is fi._vc and f.requires_grad == s.requires_grad
    assert (f._view is None) == (s._view is None)
    if f._view is not None:
        assert f._view.base is root and f._view.creation == s._view.creation
        assert f._view.version == s._view.version
    assert (f.grad_fn is None) == (s.grad_fn is None)
    if f.grad_fn is not None:
        assert f.grad_fn.name() == s.grad_fn.name() == "TBackward0"
        assert [type(e[0]).__name__ for e in f.grad_fn.next_functions] == \
            [type(e[0]).__name__ for e in s.grad_fn.next_functions]
        assert np.array_equal(fg._data, sg._data, equal_nan=True)


def test_t_of_3d_raises_and_in_place_on_a_t_view_records_copy_slices():
    with pytest.raises(RuntimeError, match="t\\(\\) expects a tensor with <= 2 dimensions"):
        mg.t(mg.zeros(2, 2, 2))
    a = mg.randn(2, 3, requires_grad=True)
    b = a * 1.0
    v = b.t()
    v.mul_(2.0)
    assert b.grad_fn.name() == "torch::autograd::CopySlices"
    b.sum().backward()
    assert np.array_equal(a.grad._data, np.full((2, 3), 2, np.float32))
    with mg.no_grad():
        w = b.t()
    with pytest.raises(RuntimeError, match="A view was created in no_grad mode"):
        w.mul_(2.0)


# ---------------------------------------------------------------------------------- sum_to_size
_V3 = np.array([[[-np.inf, 1e-40, 0.0, -0.0], [2.5, 3e38, 3e38, np.nan], [-0.0, -0.0, 1.0, 7.0]],
                [[1.0, -1e-40, -0.0, -0.0], [1.5, 1e38, -3e38, 1.0], [-0.0, 0.0, 1e-7, 2.0]]],
               np.float32)


def _sts_cases():
    x = mg.tensor(_V3)
    return [(x, (3, 4)), (x, (3, 1)), (x, (1, 3, 1)), (x, (2, 1, 4)), (x, (1,)), (x, ()),
            (x.double(), (4,)), (mg.tensor(_V3.transpose(2, 0, 1).copy()).permute(1, 2, 0), (4,)),
            (x.half(), (4,)), (x.to(mg.int32), (4,)), (x, (2, 3, 4)), (mg.zeros(0, 3), (3,)),
            (mg.zeros(2, 0), (1, 0)),
            # fp32 accumulation: 1 + 2^-24 + 2^-24 is 1 (a wider sum would round to 1 + 2^-23)
            (mg.tensor([[1.0, 1.0], [2.0 ** -24, 3.0], [2.0 ** -24, 0.5]]), (2,))]


def _run_sts(x, size, grad, monkeypatch, fast):
    from minigrad.ops.reduce import SumToSize
    with monkeypatch.context() as m:
        if not fast:
            m.setattr(SumToSize, "_fast", None)
        if grad:
            x = x.detach().requires_grad_(x.dtype.is_floating_point)
        out = x.sum_to_size(size)
        node, g = out.grad_fn, None
        if node is not None:
            (out * mg.ones_like(out)).sum().backward()
            g = x.grad
    return out, node, g


@pytest.mark.parametrize("grad", [False, True])
@pytest.mark.parametrize("i", range(14))
def test_sum_to_size_fast_path_agrees_with_the_general_path(i, grad, monkeypatch):
    x, size = _sts_cases()[i]
    f, fn, fg = _run_sts(x, size, grad, monkeypatch, True)
    s, sn, sg = _run_sts(x, size, grad, monkeypatch, False)
    assert f.dtype is s.dtype and f._data.shape == s._data.shape == tuple(size)
    assert f._data.strides == s._data.strides and f.requires_grad == s.requires_grad
    assert np.array_equal(f._data.reshape(-1).view(np.uint8), s._data.reshape(-1).view(np.uint8))
    assert (fn is None) == (sn is None)
    if fn is not None:
        assert fn.name() == sn.name() == "SumToSizeBackward0"
        assert fn.in_shape == sn.in_shape and type(fn.in_shape) is type(sn.in_shape)
        assert np.array_equal(fg._data, sg._data, equal_nan=True)



def test_bias_gradient_is_taken_not_copied():
    # a broadcast bias's gradient (sum_to_size over the leading dims) is a fresh array that the
    # engine's AccumulateGrad takes as .grad, with the general path's bits
    lin = mg.nn.Linear(5, 3)
    x = mg.ones(2, 5)
    lin(x).sum().backward()
    g = lin.bias.grad
    assert g._data.base is None and g._data.flags.owndata and g.shape == (3,)
    ref = np.add.reduce(np.ones((2, 3), np.float32), axis=0, keepdims=True).reshape(3)
    assert np.array_equal(g._data.view(np.uint32), ref.view(np.uint32))

def test_sum_to_size_errors_go_through_forward():
    x = mg.tensor(_V3)
    for size in [(5,), (2, 2, 3, 4), (3, 2)]:
        with pytest.raises(RuntimeError, match="is not expandable to size"):
            x.sum_to_size(size)


# ------------------------------------------------- the dispatcher's two-argument entry (_apply2)
def _node_facts(n):
    return (n.name(), [(id(f), nr) for f, nr in n.next_functions], list(n._input_meta),
            n._out_meta, n.needs_input_grad, n._edge_args, n._pre_hooks, n._hooks,
            n._retain_grad_hooks, len(n._saved or ()))


@pytest.mark.parametrize("no_grad", [False, True])
@pytest.mark.parametrize("which", ["both", "a", "b", "none", "nonleaf", "view"])
@pytest.mark.parametrize("i", range(12))
@pytest.mark.parametrize("op", [Add, Mul])
def test_dispatch2_agrees_with_apply(op, i, which, no_grad, monkeypatch):
    """``dispatch2`` (``x + y``) runs ``Function._apply2`` (its node built inline): the same output,
    node (edges to the same nodes, metadata, saved tensors) and gradients as ``apply``'s
    general path."""
    from minigrad.dispatch import dispatch2
    a0, b0 = _cases()[i]
    fl = a0.dtype.is_floating_point

    def run(fast):
        a, b = a0.detach(), b0.detach() if isinstance(b0, mg.Tensor) else b0
        leaves = []
        if fl and which in ("both", "a", "nonleaf", "view"):
            a.requires_grad_(True)
            leaves.append(a)
        if fl and isinstance(b, mg.Tensor) and b.dtype.is_floating_point and \
                which in ("both", "b"):
            b.requires_grad_(True)
            leaves.append(b)
        if which == "nonleaf" and fl:
            a = a * 1.0
        if which == "view" and fl:
            a = a[...]
        with monkeypatch.context() as m:
            if not fast:
                m.setattr(op, "_fast", None)
            if no_grad:
                with mg.no_grad():
                    out = dispatch2(op._op_name, a, b) if fast else op.apply(a, b)
            else:
                out = dispatch2(op._op_name, a, b) if fast else op.apply(a, b)
            node = out.grad_fn
            facts = None if node is None else _node_facts(node)
            if node is not None:
                facts = facts[:1] + ([(nr,) for _, nr in node.next_functions],) + facts[2:]
                out.sum().backward()
        return out, facts, [None if t.grad is None else t.grad._data for t in leaves]

    f, ff, fg = run(True)
    s, sf, sg = run(False)
    assert f.dtype is s.dtype and f._data.shape == s._data.shape and f._version == s._version
    assert np.array_equal(f._data.reshape(-1).view(np.uint8), s._data.reshape(-1).view(np.uint8))
    assert f.requires_grad == s.requires_grad and ff == sf
    assert len(fg) == len(sg)
    for x, y in zip(fg, sg):
        assert (x is None) == (y is None) and (x is None or np.array_equal(x, y, equal_nan=True))


def test_dispatch2_edges_are_the_same_nodes_as_apply():
    a = mg.randn(3, 3, requires_grad=True)
    x = a * 2.0
    y = x + a                       # dispatch2 -> _apply2
    z = Add.apply(x, a)             # the generic path
    assert [e for e in y.grad_fn.next_functions] == [e for e in z.grad_fn.next_functions]
    assert y.grad_fn.next_functions[0][0] is x.grad_fn
    w = a[1:] + a[1:]               # views: their edges as _edge finds them
    assert [type(e[0]).__name__ for e in w.grad_fn.next_functions] == ["SliceBackward0"] * 2


def test_dispatch2_under_a_mode_and_an_unknown_name():
    from minigrad.dispatch import dispatch2
    a = mg.randn(2)
    with _Names() as rec:
        a + a
        a * 2
        dispatch2("div", a, a)      # a packet: through dispatch
    assert rec.names == ["add", "mul", "div.Tensor"]
    with pytest.raises(NotImplementedError):
        dispatch2("no_such_op", a, a)


def _fresh_fields(t):
    """A tensor's fields as ``Tensor._make`` sets them: every slot (unset ones marked), the
    instance dict, and the data's type, dtype, shape and strides."""
    from minigrad.tensor import Tensor
    fields = {s: getattr(t, s, "<unset>") for s in Tensor.__slots__
              if s not in ("__weakref__", "__dict__", "_data", "_vc")}
    d = t._data
    fields.update(vc=list(t._vc), dict=dict(getattr(t, "__dict__", {})),
                  data=(type(d), d.dtype, d.shape, d.strides))
    return fields


@pytest.mark.parametrize("inference", [False, True])
@pytest.mark.parametrize("op", [Add, Mul])
def test_fast_path_output_is_what_make_builds(op, inference):
    """Add._fast / Mul._fast write ``Tensor._make`` out (no call): their output has exactly
    the fields ``_make`` gives the same array, 0-d results included (an ndarray, not a NumPy
    scalar), inference tensors too."""
    from minigrad.tensor import Tensor
    cases = [(mg.tensor(VALS), mg.tensor(VALS[::-1].copy())), (mg.tensor(3.0), mg.tensor(-1.0)),
             (mg.tensor(VALS).double(), mg.tensor(VALS).double()), (mg.tensor(VALS), 2.5),
             (mg.tensor(2.0), 0.5), (mg.tensor(VALS), mg.tensor(2.5).expand(2, 4))]
    for a, b in cases:
        with (mg.inference_mode() if inference else mg.no_grad()):
            out = op._fast(None, (a, b))
            if out is None:
                assert op is Mul and not isinstance(b, mg.Tensor)      # mul's is tensor-only
                continue
            ref = Tensor._make(out._data.copy() if out._data.ndim else out._data[()], out.dtype)
        assert _fresh_fields(out) == _fresh_fields(ref)
        assert out.is_inference() is inference
