"""torch.nn.utils.rnn packing (PackedSequence, pack_padded_sequence, pad_packed_sequence,
pack_sequence, unpack_sequence, unpad_sequence) and packed input to nn.RNN/LSTM/GRU, against
PyTorch 2.13."""
import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad.nn.utils import rnn as MR
from torch.nn.utils import rnn as TR

RNG = np.random.default_rng(3)


def arr(a, b, tol=1e-12):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("lengths", [[4, 2, 2, 1], [1, 4, 2, 3]])
def test_pack_pad_round_trip(batch_first, lengths):
    x = RNG.standard_normal((4, 4, 2) if batch_first else (4, 4, 2))
    sorted_ = lengths == sorted(lengths, reverse=True)
    mx, tx = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    mp = MR.pack_padded_sequence(mx, lengths, batch_first, enforce_sorted=sorted_)
    tp = TR.pack_padded_sequence(tx, lengths, batch_first, enforce_sorted=sorted_)
    assert isinstance(mp, tuple) and mp._fields == tp._fields
    arr(mp.data, tp.data)
    assert mp.batch_sizes.tolist() == tp.batch_sizes.tolist()
    assert mp.batch_sizes.dtype == mg.int64
    for a, b in ((mp.sorted_indices, tp.sorted_indices),
                 (mp.unsorted_indices, tp.unsorted_indices)):
        assert (a is None and b is None) or a.tolist() == b.tolist()
    (mo, ml), (to, tl) = (MR.pad_packed_sequence(mp, batch_first, -1.0, total_length=5),
                          TR.pad_packed_sequence(tp, batch_first, -1.0, total_length=5))
    arr(mo, to)
    assert ml.tolist() == tl.tolist() and ml.dtype == mg.int64
    (mo * mo).sum().backward()
    (to * to).sum().backward()
    arr(mx.grad, tx.grad)
    for a, b in zip(MR.unpack_sequence(mp), TR.unpack_sequence(tp)):
        arr(a, b)


def test_pack_sequence_and_unpad():
    seqs = [RNG.standard_normal((n, 3)) for n in (2, 5, 3)]
    mp = MR.pack_sequence([mg.tensor(s) for s in seqs], enforce_sorted=False)
    tp = TR.pack_sequence([torch.tensor(s) for s in seqs], enforce_sorted=False)
    arr(mp.data, tp.data)
    padded = RNG.standard_normal((5, 3, 3))
    lens = [2, 5, 3]
    for a, b in zip(MR.unpad_sequence(mg.tensor(padded), mg.tensor(lens)),
                    TR.unpad_sequence(torch.tensor(padded), torch.tensor(lens))):
        arr(a, b)


@pytest.mark.parametrize("call", [
    lambda R, lib: R.pack_padded_sequence(lib.zeros(4, 3, 2), [4, 2, 3]),
    lambda R, lib: R.pack_padded_sequence(lib.zeros(4, 3, 2), [4, 2, 0]),
    lambda R, lib: R.pack_padded_sequence(lib.zeros(4, 3, 2), [4, 2]),
    lambda R, lib: R.pack_padded_sequence(lib.zeros(4, 3, 2), lib.tensor([[4, 2, 1]])),
    lambda R, lib: R.pad_packed_sequence(R.pack_sequence([lib.zeros(3), lib.zeros(2)]),
                                         total_length=2),
])
def test_errors_match_torch(call):
    errs = []
    for R, lib in ((MR, mg), (TR, torch)):
        with pytest.raises(Exception) as info:
            call(R, lib)
        errs.append((type(info.value).__name__, str(info.value)))
    assert errs[0] == errs[1]


def _pair(mode, **kw):
    tm = getattr(torch.nn, mode)(3, 4, **kw).double()
    mm = getattr(mg.nn, mode)(3, 4, **kw).double()
    mm.load_state_dict({k: mg.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    return mm, tm


@pytest.mark.parametrize("mode,kw", [
    ("LSTM", dict(num_layers=2, bidirectional=True, batch_first=True)),
    ("LSTM", dict(proj_size=2)),
    ("GRU", dict(bidirectional=True)),
    ("RNN", dict(num_layers=2, nonlinearity="relu")),
])
@pytest.mark.parametrize("with_hx", [False, True])
def test_rnn_on_packed_input(mode, kw, with_hx):
    mm, tm = _pair(mode, **kw)
    batch_first = kw.get("batch_first", False)
    lens = [2, 5, 3]
    x = RNG.standard_normal((3, 5, 3) if batch_first else (5, 3, 3))
    mx, tx = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    mp = MR.pack_padded_sequence(mx, lens, batch_first, enforce_sorted=False)
    tp = TR.pack_padded_sequence(tx, lens, batch_first, enforce_sorted=False)
    hx = (None, None)
    if with_hx:
        d = (2 if kw.get("bidirectional") else 1) * kw.get("num_layers", 1)
        h = RNG.standard_normal((d, 3, kw.get("proj_size") or 4))
        c = RNG.standard_normal((d, 3, 4))
        hx = ((mg.tensor(h), mg.tensor(c)), (torch.tensor(h), torch.tensor(c))) \
            if mode == "LSTM" else (mg.tensor(h), torch.tensor(h))
    mo, mh = mm(mp, hx[0])
    to, th = tm(tp, hx[1])
    assert isinstance(mo, MR.PackedSequence)
    arr(mo.data, to.data)
    assert mo.batch_sizes.tolist() == to.batch_sizes.tolist()
    mh = mh if mode != "LSTM" else mh[0] * 2 + mh[1].sum()
    th = th if mode != "LSTM" else th[0] * 2 + th[1].sum()
    arr(mh, th)
    ((mo.data ** 2).sum() + mh.sum()).backward()
    ((to.data ** 2).sum() + th.sum()).backward()
    arr(mx.grad, tx.grad)
    for (name, p), q in zip(mm.named_parameters(), tm.parameters()):
        arr(p.grad, q.grad)
