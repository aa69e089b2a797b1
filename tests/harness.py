"""Run one op spec on one sample in minigrad and in PyTorch CPU and compare everything.

``check_case`` compares: exceptions (PyTorch raising means minigrad must raise the same type),
output structure, dtypes, shapes, ``requires_grad``, values (the spec's ULP bound in the output's
own format, plus its accumulation slack), and gradients for the same upstream gradient (bits
identical in both frameworks) with the backward bound. ``run_forward`` is the forward-only variant
used by the dtype-mix tests. A gradient of None and a gradient of zeros are treated as equal.

The gradient of a broadcast input is a sum over the broadcast dims whose order differs from
PyTorch's, so it gets the accumulation bound (``ACC``) and a slack of ``SCALE_ULPS * eps`` times
the magnitude of its terms (the same backward on |inputs| and |upstream grads|).
"""
from __future__ import annotations

import warnings

import numpy as np
import torch
import torch.nn.functional as tF

import minigrad
from minigrad import dtypes as _dt
from minigrad.testing import assert_close, to_torch
from tests.op_specs import ACC, SCALE_ULPS
from tests.strategies import FloatIn, IntIn, OperandScalar, storage

FLOATS = ("float64", "float32", "float16", "bfloat16")
_EPS = {"float64": float(np.finfo(np.float64).eps), "float32": float(np.finfo(np.float32).eps)}


def mg_F():
    """minigrad.nn.functional (imported lazily so a missing module fails only its tests)."""
    import minigrad.nn.functional as F
    return F


_LOW_EPS = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}


def _opmath_eps(dtype_name):
    return _EPS["float64" if dtype_name == "float64" else "float32"]


def make_inputs(sample, dtype, requires_grad, float_dtypes=None, int_dtype="int64",
                scalars=None):
    """Build (minigrad args, torch args, positions needing grad) with identical bits.

    ``float_dtypes`` gives one dtype per FloatIn (else all ``dtype``); ``scalars`` replaces the
    Python-scalar arguments in order.
    """
    mg, th, gi = [], [], []
    fi = si = 0
    for i, a in enumerate(sample.args):
        if isinstance(a, (FloatIn, IntIn)):
            if isinstance(a, FloatIn):
                dt = dtype if float_dtypes is None else float_dtypes[fi]
                fi += 1
            else:
                dt = int_dtype
            arr = storage(a.values, dt)
            t = minigrad.Tensor._make(np.array(arr, copy=True), _dt.as_dtype(dt))
            tt = to_torch(t, requires_grad=False)
            if requires_grad and isinstance(a, FloatIn) and dt in FLOATS:
                t.requires_grad_(True)
                tt.requires_grad_(True)
                gi.append(i)
            mg.append(t)
            th.append(tt)
        elif isinstance(a, OperandScalar) and scalars is not None:
            mg.append(scalars[si])
            th.append(scalars[si])
            si += 1
        else:
            mg.append(a)
            th.append(a)
    return mg, th, gi


def _flat(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _call(spec, lib, F, args, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return spec.fn(lib, F, *args, **kwargs), None
        except Exception as exc:  # noqa: BLE001 - compared with PyTorch's behaviour
            return None, exc


def _exc_text(e):
    return f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"


def _scale(kind, spec, th_args, kwargs, expected, gi=None, grads=None, which="fwd"):
    if kind is None:
        return None
    if kind == "self":
        return np.abs(expected.detach().double().numpy())
    if kind == "max":
        e = expected.detach().double().abs()
        return float(e.max()) if e.numel() else 0.0
    args64 = [a.detach().double().abs() if isinstance(a, torch.Tensor) and a.is_floating_point()
              else a for a in th_args]
    kw64 = {k: (abs(v) if k in ("alpha", "beta") else v) for k, v in kwargs.items()}
    if callable(kind):
        return kind(args64, kw64)
    if which == "fwd":
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return spec.fn(torch, tF, *args64, **kw64).double().numpy()
    for i in gi:
        args64[i].requires_grad_(True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outs = [o for o in _flat(spec.fn(torch, tF, *args64, **kw64))
                if isinstance(o, torch.Tensor) and o.requires_grad]
    res = torch.autograd.grad(outs, [args64[i] for i in gi],
                              [g.double().abs() for g in grads], allow_unused=True)
    return [None if r is None else r.numpy() for r in res]


def _bounds(ulps, out_dtype, scale, compute_dtype=None, low_slack=0.0):
    """ULP bound in ``out_dtype``; an absolute slack ``scale`` is measured in the eps of the
    precision the op computed in (``compute_dtype``, e.g. float32 for a float64 input run with
    ``dtype=float32``), which can be coarser than the output's; ``low_slack`` (a spec's) adds
    ``low_slack * eps(out_dtype) * scale`` for fp16/bf16 outputs."""
    if out_dtype not in FLOATS:
        return {}
    kw = {"ulp": ulps.get(out_dtype, 0)}
    if scale is not None:
        eps = SCALE_ULPS * _opmath_eps(compute_dtype or out_dtype)
        if low_slack and out_dtype in ("float16", "bfloat16"):
            eps += low_slack * _LOW_EPS[out_dtype]
        kw["atol"] = eps * np.asarray(scale, np.float64)
    return kw


def check_case(spec, sample, dtype, grad_source):
    """Compare minigrad with PyTorch on ``sample`` (values as ``dtype``); raise AssertionError.

    ``grad_source(shape, dtype_name) -> float64 array`` supplies upstream gradients.
    """
    ctx = f"op={spec.name} dtype={dtype} {sample.describe()}"
    mg_args, th_args, gi = make_inputs(sample, dtype, spec.differentiable)
    th_out, th_exc = _call(spec, torch, tF, th_args, sample.kwargs)
    mg_out, mg_exc = _call(spec, minigrad, _lazy_F(), mg_args, sample.kwargs)
    if th_exc is not None:
        if mg_exc is None:
            raise AssertionError(f"{ctx}\ntorch raised {_exc_text(th_exc)}; minigrad returned "
                                 f"{mg_out!r}")
        if not isinstance(mg_exc, type(th_exc)):
            raise AssertionError(f"{ctx}\ntorch raised {_exc_text(th_exc)}; minigrad raised "
                                 f"{_exc_text(mg_exc)}")
        return
    if mg_exc is not None:
        raise AssertionError(f"{ctx}\nminigrad raised {_exc_text(mg_exc)}") from mg_exc
    th_outs, mg_outs = _flat(th_out), _flat(mg_out)
    if len(th_outs) != len(mg_outs):
        raise AssertionError(f"{ctx}\n{len(mg_outs)} outputs, torch gives {len(th_outs)}")
    for k, (m, t) in enumerate(zip(mg_outs, th_outs)):
        od = str(t.dtype).replace("torch.", "")
        if not isinstance(m, minigrad.Tensor):
            raise AssertionError(f"{ctx}\noutput {k} is {type(m).__name__}, not a Tensor")
        sc = _scale(spec.scale, spec, th_args, sample.kwargs, t) if spec.scale else None
        assert_close(m, t, msg=f"{ctx}\nforward output {k}", **_bounds(spec.fwd_ulp, od, sc,
                                                                         low_slack=spec.low_slack))
        if bool(m.requires_grad) != bool(t.requires_grad):
            raise AssertionError(f"{ctx}\noutput {k}: requires_grad={m.requires_grad}, torch "
                                 f"{t.requires_grad}")
    if not gi:
        return
    pairs = [(m, t) for m, t in zip(mg_outs, th_outs) if t.requires_grad]
    if not pairs:
        return
    th_g, mg_g = [], []
    for m, t in pairs:
        od = str(t.dtype).replace("torch.", "")
        arr = storage(grad_source(tuple(t.shape), od), od)
        g = minigrad.Tensor._make(np.array(arr, copy=True), _dt.as_dtype(od))
        mg_g.append(g)
        th_g.append(to_torch(g, requires_grad=False))
    th_in = [th_args[i] for i in gi]
    mg_in = [mg_args[i] for i in gi]
    try:
        expected = torch.autograd.grad([t for _, t in pairs], th_in, th_g, allow_unused=True)
    except RuntimeError:     # PyTorch's own backward fails (e.g. clamp with size-0 broadcast
        return               # of a 0-dim bound): nothing to compare against
    try:
        actual = minigrad.autograd.grad([m for m, _ in pairs], mg_in, mg_g, allow_unused=True)
    except Exception as exc:
        raise AssertionError(f"{ctx}\nminigrad backward raised {_exc_text(exc)}") from exc
    out_numel = max(t.numel() for _, t in pairs)
    # the backward ran at the forward outputs' precision: an fp64 input's gradient through an
    # fp32 computation carries fp32-sized errors
    cdt = "float64" if all(t.dtype == torch.float64 for _, t in pairs) else "float32"
    broadcast = [th_in[j].numel() < out_numel for j in range(len(th_in))]
    scales = None
    if spec.bwd_scale == "abs" or any(broadcast):
        try:
            scales = _scale("abs", spec, th_args, sample.kwargs, None, gi, th_g, which="bwd")
        except Exception:  # noqa: BLE001 - |inputs| outside the op's domain: no abs slack
            scales = None
    for j, (a, e) in enumerate(zip(actual, expected)):
        inp = th_in[j]
        if e is None:
            e = torch.zeros_like(inp)
        if a is None:
            a = minigrad.zeros(tuple(inp.shape), dtype=_dt.as_dtype(str(inp.dtype)[6:]))
        od = str(e.dtype).replace("torch.", "")
        ulps = spec.bwd_ulp
        if spec.bwd_scale == "max":      # terms are of the size of the upstream grads
            sc = np.nan_to_num(_scale("max", spec, th_args, sample.kwargs, e), nan=0.0,
                               posinf=0.0) + max(
                (float(g.detach().double().abs().max()) for g in th_g if g.numel()), default=0.0)
        elif spec.bwd_scale == "abs" or broadcast[j]:
            sc = None if scales is None or scales[j] is None else np.abs(scales[j])
            if broadcast[j]:
                # a broadcast input's gradient is a sum (PyTorch's order differs): ACC bound,
                # slack from the |terms| (backward on |inputs|, |grads|) and the result itself
                ulps = {k: max(v, ACC[k]) for k, v in ulps.items()}
                me = _scale("max", spec, th_args, sample.kwargs, e)
                sc = me if sc is None else np.nan_to_num(sc, nan=0.0, posinf=0.0) + me
        else:
            sc = None
        assert_close(a, e, msg=f"{ctx}\ngrad of input {gi[j]} (upstream grads "
                               f"{[g.tolist() for g in mg_g]})",
                     **_bounds(ulps, od, sc, cdt if od == "float64" else None, spec.low_slack))


def run_forward(spec, sample, float_dtypes, scalars, int_dtype="int64"):
    """Forward only with per-input dtypes; returns a mismatch description or None."""
    mg_args, th_args, _ = make_inputs(sample, None, False, float_dtypes, int_dtype, scalars)
    th_out, th_exc = _call(spec, torch, tF, th_args, sample.kwargs)
    mg_out, mg_exc = _call(spec, minigrad, _lazy_F(), mg_args, sample.kwargs)
    if th_exc is not None:
        if mg_exc is None:
            return f"torch raised {_exc_text(th_exc)}; minigrad returned dtype " \
                   f"{[getattr(o, 'dtype', o) for o in _flat(mg_out)]}"
        if not isinstance(mg_exc, type(th_exc)):
            return f"torch raised {_exc_text(th_exc)}; minigrad raised {_exc_text(mg_exc)}"
        return None
    if mg_exc is not None:
        return f"minigrad raised {_exc_text(mg_exc)}; torch gives " \
               f"{[str(o.dtype)[6:] for o in _flat(th_out)]}"
    th_outs, mg_outs = _flat(th_out), _flat(mg_out)
    if len(th_outs) != len(mg_outs):
        return f"{len(mg_outs)} outputs, torch gives {len(th_outs)}"
    for m, t in zip(mg_outs, th_outs):
        td = str(t.dtype).replace("torch.", "")
        md = getattr(getattr(m, "dtype", None), "name", repr(m))
        if md != td:
            return f"dtype {md}, torch {td}"
        try:
            assert_close(m, t)
        except AssertionError as exc:
            return "values differ: " + str(exc).splitlines()[-1].strip()
    return None


def _lazy_F():
    try:
        return mg_F()
    except ImportError as exc:   # the lambda fails with a clear message when F is used
        return _Missing(str(exc))


class _Missing:
    def __init__(self, why):
        self.why = why

    def __getattr__(self, name):
        raise AttributeError(f"minigrad.nn.functional unavailable ({self.why})")
