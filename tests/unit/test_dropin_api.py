"""The torch API public scripts hit that minigrad lacked (issue 7's user trial and script ports),
each compared with PyTorch: legacy tensor types, the float32 matmul precision, ``compile``,
``cuda.get_device_properties``, einsum's diagonals and sublist form, ``pin_memory``,
``distributed`` / ``nn.parallel`` for one process, ``onnx``, and error types and messages.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import minigrad as mg


def _raises_like(fm, ft):
    with pytest.raises(Exception) as et:
        ft()
    with pytest.raises(type(et.value)) as em:
        fm()
    assert str(em.value) == str(et.value).replace("torch.Size", "minigrad.Size")


# ------------------------------------------------------------------ legacy tensor types
@pytest.mark.parametrize("name", ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor",
                                  "LongTensor", "IntTensor", "ShortTensor", "CharTensor",
                                  "ByteTensor", "BoolTensor"])
def test_legacy_types_build_check_and_convert(name):
    tt, mt = getattr(torch, name), getattr(mg, name)
    assert str(mt.dtype) == str(tt.dtype).replace("torch.", "minigrad.")
    t, m = tt([1, 0, 2]), mt([1, 0, 2])
    assert str(m.dtype) == str(t.dtype).replace("torch.", "minigrad.")
    np.testing.assert_array_equal(m.numpy().astype(np.float64), t.float().numpy())
    assert tuple(mt(2, 3).shape) == tuple(tt(2, 3).shape) == (2, 3)
    assert tuple(mt(mg.Size([4])).shape) == (4,) and tuple(mt().shape) == tuple(tt().shape)
    assert isinstance(m, mt) and not isinstance(m, mg.cuda.FloatTensor)
    assert isinstance(mg.ones(2).type(mt), mt) and mg.ones(2).type(mt).type() == t.type()


def test_legacy_constructor_errors_and_tensor_argument():
    for args in [(2, 3.0), (2.5,), ("ab",), (-1,)]:
        _raises_like(lambda: mg.FloatTensor(*args), lambda: torch.FloatTensor(*args))
    _raises_like(lambda: mg.FloatTensor(mg.ones(2, dtype=mg.long)),
                 lambda: torch.FloatTensor(torch.ones(2, dtype=torch.long)))
    a = mg.ones(2, requires_grad=True)
    assert mg.FloatTensor(a) is a                     # PyTorch: an alias with the same grad
    assert isinstance(mg.nn.Parameter(mg.ones(2)), mg.FloatTensor)
    c = mg.cuda.HalfTensor([1.0])
    assert c.is_cuda and c.dtype is mg.float16 and c.type() == "torch.cuda.HalfTensor"
    assert mg.ones(2).type(mg.cuda.DoubleTensor).type() == "torch.cuda.DoubleTensor"
    # torch.Tensor(...): the legacy constructor in the default dtype
    assert mg.Tensor([1, 2]).dtype is mg.float32 and tuple(mg.Tensor(2, 3).shape) == (2, 3)
    np.testing.assert_array_equal(mg.LongTensor(4).zero_().view(-1, 2).numpy(),
                                  torch.LongTensor(4).zero_().view(-1, 2).numpy())


# ------------------------------------------------------------------------ global settings
def test_float32_matmul_precision_and_allow_tf32():
    try:
        for p in ("high", "medium", "highest"):
            torch.set_float32_matmul_precision(p)
            mg.set_float32_matmul_precision(p)
            assert mg.get_float32_matmul_precision() == torch.get_float32_matmul_precision()
            assert mg.backends.cuda.matmul.allow_tf32 == torch.backends.cuda.matmul.allow_tf32
        mg.backends.cuda.matmul.allow_tf32 = True
        assert mg.get_float32_matmul_precision() == "high"
        mg.backends.cuda.matmul.allow_tf32 = False
        assert mg.get_float32_matmul_precision() == "highest"
        with warnings.catch_warnings(record=True) as wt:
            warnings.simplefilter("always")
            torch.set_float32_matmul_precision("HIGH")
        with warnings.catch_warnings(record=True) as wm:
            warnings.simplefilter("always")
            mg.set_float32_matmul_precision("HIGH")
        assert str(wt[0].message).startswith(str(wm[0].message))
        assert mg.get_float32_matmul_precision() == "highest"
        _raises_like(lambda: mg.set_float32_matmul_precision(1),
                     lambda: torch.set_float32_matmul_precision(1))
    finally:
        torch.set_float32_matmul_precision("highest")
        mg.set_float32_matmul_precision("highest")


def test_compile_wraps_the_model_and_checks_arguments():
    m = mg.nn.Linear(2, 2)
    assert mg.compile(m)._orig_mod is m and mg.compile(mode="max-autotune")(m)._orig_mod is m
    assert mg.compile(m, backend="inductor", fullgraph=True, dynamic=False)._orig_mod is m
    assert mg.compile(m, disable=True) is m
    assert mg.compiler.disable(m) is m and not mg.compiler.is_compiling()
    f = lambda x: x                                               # noqa: E731
    validate = torch.distributions.Distribution._validate_args
    try:        # torch.compile turns torch's distribution validation off for the process
        for kw in [dict(mode="x", options={}), dict(mode="nonsense")]:
            _raises_like(lambda: mg.compile(f, **kw), lambda: torch.compile(f, **kw))
        _raises_like(lambda: mg.compile(3), lambda: torch.compile(3))
    finally:
        torch.distributions.Distribution.set_default_validate_args(validate)
    with pytest.raises(RuntimeError, match="Invalid backend: 'nope'"):
        mg.compile(f, backend="nope")


def test_cuda_device_properties_and_deprecated_memory_aliases():
    p = mg.cuda.get_device_properties(0)
    assert p.name == mg.cuda.get_device_name()
    assert (p.major, p.minor) == mg.cuda.get_device_capability()
    assert p.total_memory > 0 and p.multi_processor_count >= 1
    assert "total_memory=" in repr(p) and mg.cuda.get_device_properties("cuda:0").major == 8
    with pytest.raises(ValueError):
        mg.cuda.get_device_properties("cpu")
    with pytest.warns(FutureWarning, match="reset_peak_memory_stats"):
        mg.cuda.reset_max_memory_allocated()


# ------------------------------------------------------------------------------- einsum
@pytest.mark.parametrize("eq,shapes", [("ii->i", [(3, 3)]), ("ii", [(3, 3)]),
                                       ("bjjk->bk", [(2, 3, 3, 2)]), ("ij,jj->i", [(2, 3), (3, 3)]),
                                       ("...ii->...i", [(2, 3, 3)])])
def test_einsum_diagonals_values_and_grads(eq, shapes):
    rng = np.random.default_rng(0)
    arrs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    tt = [torch.tensor(a, requires_grad=True) for a in arrs]
    mt = [mg.tensor(a, requires_grad=True) for a in arrs]
    rt, rm = torch.einsum(eq, *tt), mg.einsum(eq, *mt)
    np.testing.assert_allclose(rm.detach().numpy(), rt.detach().numpy(), rtol=1e-6, atol=1e-6)
    rt.sum().backward()
    rm.sum().backward()
    for a, b in zip(tt, mt):
        np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), rtol=1e-6, atol=1e-6)
    _raises_like(lambda: mg.einsum("ii->i", mg.zeros(3, 2)),
                 lambda: torch.einsum("ii->i", torch.zeros(3, 2)))


def test_einsum_sublist_form():
    a, b = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
    for args in ([0, 1], [1, 2], [0, 2]), ([0, 1], [1, 2]), ([Ellipsis, 1], [1, 2],
                                                               [Ellipsis, 2]):
        rt = torch.einsum(torch.tensor(a), args[0], torch.tensor(b), *args[1:])
        rm = mg.einsum(mg.tensor(a), args[0], mg.tensor(b), *args[1:])
        np.testing.assert_allclose(rm.numpy(), rt.numpy())
    _raises_like(lambda: mg.einsum(mg.ones(2, 3), [0, 60]),
                 lambda: torch.einsum(torch.ones(2, 3), [0, 60]))


# ------------------------------------------------- pin_memory, distributed, parallel, onnx
def test_pin_memory_and_device_predicates():
    a = mg.ones(2)
    b = a.pin_memory()
    assert not a.is_pinned() and b.is_pinned() and b.pin_memory() is b
    assert not b.to("cuda", non_blocking=True).is_pinned()
    with pytest.raises(RuntimeError, match="only dense CPU tensors can be pinned"):
        b.cuda().pin_memory()
    t = torch.ones(2)
    for name in ("is_xpu", "is_mps", "is_meta", "is_sparse", "is_quantized", "is_nested"):
        assert getattr(a, name) is getattr(t, name) is False


def test_distributed_one_process_and_ddp():
    import minigrad.distributed as dist
    from minigrad.nn.parallel import DistributedDataParallel as DDP
    assert dist.is_available() and not dist.is_initialized()
    _raises_like(dist.get_rank, torch.distributed.get_rank)
    _raises_like(lambda: DDP(mg.nn.Linear(2, 2)),
                 lambda: torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(2, 2)))
    dist.init_process_group(backend="gloo", world_size=1, rank=0)
    try:
        assert (dist.get_rank(), dist.get_world_size(), dist.get_backend()) == (0, 1, "gloo")
        m = mg.nn.Linear(2, 2)
        ddp = DDP(m)
        x = mg.ones(3, 2)
        np.testing.assert_array_equal(ddp(x).detach().numpy(), m(x).detach().numpy())
        assert ddp.module is m and list(ddp.state_dict()) == ["module.weight", "module.bias"]
        t = mg.ones(2)
        dist.all_reduce(t)
        np.testing.assert_array_equal(t.numpy(), [1.0, 1.0])
        with ddp.no_sync():
            assert not ddp.require_backward_grad_sync
        with pytest.raises(RuntimeError):
            dist.init_process_group(backend="gloo")
    finally:
        dist.destroy_process_group()
    with pytest.raises(RuntimeError, match="one process only"):
        dist.init_process_group(backend="gloo", world_size=2, rank=0)
    assert mg.nn.DataParallel(m).module is m


def test_onnx_importable_export_raises():
    import minigrad.onnx
    assert not minigrad.onnx.is_in_onnx_export()
    with pytest.raises(NotImplementedError, match="no graph exporter"):
        minigrad.onnx.export(mg.nn.Linear(2, 2), (mg.ones(1, 2),), "m.onnx")


# ------------------------------------------------------------------ errors as PyTorch's
def test_errors_match_torch():
    tF, mF = torch.nn.functional, mg.nn.functional
    x, xm = torch.ones(2, 3, dtype=torch.long), mg.ones(2, 3, dtype=mg.long)
    _raises_like(lambda: mg.nn.LayerNorm(3)(xm), lambda: torch.nn.LayerNorm(3)(x))
    _raises_like(lambda: mF.layer_norm(xm, (3,), None, mg.ones(3)),
                 lambda: tF.layer_norm(x, (3,), None, torch.ones(3)))
    _raises_like(lambda: mF.layer_norm(xm, (3,)), lambda: tF.layer_norm(x, (3,)))
    _raises_like(lambda: mF.group_norm(mg.ones(2, 4, dtype=mg.long), 2, mg.ones(4)),
                 lambda: tF.group_norm(torch.ones(2, 4, dtype=torch.long), 2, torch.ones(4)))
    _raises_like(lambda: mF.pad(mg.ones(2, 3), (1, 2, 3)),
                 lambda: tF.pad(torch.ones(2, 3), (1, 2, 3)))
    _raises_like(lambda: mF.conv2d(mg.ones(1, 1, 3, 3), mg.ones(1, 1, 2, 2, dtype=mg.float64)),
                 lambda: tF.conv2d(torch.ones(1, 1, 3, 3),
                                   torch.ones(1, 1, 2, 2, dtype=torch.float64)))
    _raises_like(lambda: mF.batch_norm(mg.ones(2, 3), mg.zeros(4), mg.ones(3)),
                 lambda: tF.batch_norm(torch.ones(2, 3), torch.zeros(4), torch.ones(3)))
    _raises_like(lambda: mg.autocast("tpu"), lambda: torch.autocast("tpu"))


def test_multihead_attention_errors_and_mask_warning():
    tm, mm = torch.nn.MultiheadAttention(4, 2), mg.nn.MultiheadAttention(4, 2)
    q, qm = torch.ones(3, 1, 4), mg.ones(3, 1, 4)
    _raises_like(lambda: mm(qm, mg.ones(5, 1, 4), mg.ones(4, 1, 4)),
                 lambda: tm(q, torch.ones(5, 1, 4), torch.ones(4, 1, 4)))
    for dt in ("float16", "float64"):
        _raises_like(lambda: mm(qm, qm, qm, attn_mask=mg.zeros(3, 3, dtype=getattr(mg, dt))),
                     lambda: tm(q, q, q, attn_mask=torch.zeros(3, 3, dtype=getattr(torch, dt))))
        _raises_like(lambda: mm(qm, qm, qm, attn_mask=mg.zeros(3, 3, dtype=getattr(mg, dt)),
                                need_weights=False),
                     lambda: tm(q, q, q, attn_mask=torch.zeros(3, 3, dtype=getattr(torch, dt)),
                                need_weights=False))
    msg = "Support for mismatched key_padding_mask and attn_mask is deprecated"
    with pytest.warns(UserWarning, match=msg):
        tm(q, q, q, key_padding_mask=torch.zeros(1, 3), attn_mask=torch.zeros(3, 3).bool())
    with pytest.warns(UserWarning, match=msg):
        mm(qm, qm, qm, key_padding_mask=mg.zeros(1, 3), attn_mask=mg.zeros(3, 3).bool())


# ------------------------------------------------------------- utils.tensorboard (makemore)
# Records written by torch.utils.tensorboard.SummaryWriter (tensorboard 2.21) for
# add_scalar("Loss/train", 1.5, 3, walltime=1000.25) and add_scalar("big", 3.25, 2**40,
# walltime=1003.0): the framing, CRCs and protobuf bytes must be identical.
_TORCH_RECORDS = [
    "200000000000000029eda950090000000000428f4010032a130a110a0a4c6f73732f747261696e150000c03f"
    "628e9f1d",
    "1e00000000000000d9dc1232090000000000588f40108080808080202a0c0a0a0a036269671500005040578cc056"]


def _records(path):
    import os
    import struct
    (name,) = os.listdir(path)
    assert name.startswith("events.out.tfevents.")
    b, out, i = open(os.path.join(path, name), "rb").read(), [], 0
    while i < len(b):
        n = struct.unpack("<Q", b[i:i + 8])[0]
        out.append(b[i:i + 16 + n])
        i += 16 + n
    return out


def test_summary_writer_scalars_match_torchs_event_records(tmp_path):
    from minigrad.utils.tensorboard import SummaryWriter, crc32c
    assert crc32c(b"123456789") == 0xE3069283             # the CRC-32C check value
    with SummaryWriter(str(tmp_path)) as w:
        w.add_scalar("Loss/train", mg.tensor(1.5), 3, walltime=1000.25)
        w.add_scalar("big", 3.25, 2 ** 40, walltime=1003.0)
        with pytest.warns(UserWarning, match="records scalars only"):
            w.add_histogram("h", mg.ones(3), 0)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            w.add_histogram("h", mg.ones(3), 1)          # warned once per method
        with pytest.raises(AttributeError):
            w.add_nonsense(1)
    recs = _records(str(tmp_path))
    assert b"brain.Event:2" in recs[0]
    assert [r.hex() for r in recs[1:]] == _TORCH_RECORDS


def test_warnings_torch_gives():
    def caught(f):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            out = f()
        return out, [(x.category, str(x.message)) for x in w]
    for lib_t, lib_m in [(torch, mg)]:
        _, wt = caught(lambda: lib_t.tensor(lib_t.ones(2)))
        _, wm = caught(lambda: lib_m.tensor(lib_m.ones(2)))
        assert wm == wt
        for name in ("upsample", "upsample_nearest", "upsample_bilinear"):
            x = np.arange(4.0, dtype=np.float32).reshape(1, 1, 2, 2)
            rt, wt = caught(lambda: getattr(lib_t.nn.functional, name)(lib_t.tensor(x),
                                                                       scale_factor=2))
            rm, wm = caught(lambda: getattr(lib_m.nn.functional, name)(lib_m.tensor(x),
                                                                       scale_factor=2))
            assert wm == wt
            np.testing.assert_allclose(rm.numpy(), rt.numpy(), rtol=1e-6)


def test_set_and_get_num_threads_at_top_level():
    """``torch.set_num_threads`` / ``get_num_threads`` set minigrad's emulated thread count."""
    from minigrad import numerics
    old = mg.get_num_threads()
    try:
        mg.set_num_threads(3)
        assert mg.get_num_threads() == 3 == numerics.get_num_threads()
    finally:
        mg.set_num_threads(old)
    _raises_like(lambda: mg.set_num_threads(0), lambda: torch.set_num_threads(0))
    assert isinstance(mg.__version__, str)
