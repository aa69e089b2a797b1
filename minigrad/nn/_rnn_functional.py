"""The recurrence behind ``nn.RNN``, ``nn.LSTM``, ``nn.GRU`` and their cells: ATen's portable
CPU implementation (``aten/src/ATen/native/RNN.cpp``, what ``torch._VF.lstm`` & co. run when
neither cuDNN nor oneDNN takes the call), written with dispatched ops only.

The structure is RNN.cpp's, top to bottom:

- a *cell* is one time step. ``rnn_tanh_cell``/``rnn_relu_cell``, ``lstm_cell`` and ``gru_cell``
  (``torch.lstm_cell`` ...) take the raw input and project it; inside a layer the same cells are
  given the input already projected (``pre_compute_input``), because
- a *layer* projects the whole sequence at once (``linear(input, w_ih, b_ih)``: one big matmul
  instead of one per step), unbinds it along time and runs the cell step by step; only
  ``linear(h, w_hh, b_hh)`` is left inside the loop. The reverse direction runs the same loop over
  the reversed steps and reverses its outputs back. A bidirectional layer concatenates the two
  directions' outputs along the feature dim;
- the *stack* feeds each layer's output to the next, with dropout in between (training only, not
  after the last layer), and stacks the final states as ``(num_layers * num_directions, batch,
  hidden)`` in the order layer 0 forward, layer 0 reverse, layer 1 forward...

Gate order is PyTorch's: LSTM (i, f, g, o), GRU (r, z, n) with
``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))`` (the reset gate multiplies the *projected*
hidden state, bias included). An LSTM with ``proj_size > 0`` multiplies the new hidden state by
``weight_hr`` (``h = h @ W_hr.T``); the cell state keeps ``hidden_size``.

Every op here is a dispatched op (``linear``, ``matmul``, ``sigmoid``, ``tanh``, ``relu``,
``mul``, ``add``, ``sub``, views, ``stack``, ``cat``), so autograd, autocast and the profiler see
the recurrence as they see any other code; the backward is the one those ops record. PyTorch 2.13's
fp32 CPU LSTM goes through oneDNN instead (a fused layer), so fp32 results agree with PyTorch to
about 1e-6 relative, not bit for bit; fp64, fp16 and bf16 GRU/RNN and fp16 LSTM take ATen's
portable path in PyTorch too, and fp16/bf16 results and gradients are bit-exact. A bf16 LSTM
(a bf16 model on an AVX-512 CPU, or an fp32 one under ``autocast("cpu")``) goes to oneDNN's 16-bit
kernel in PyTorch, which ``_onednn_lstm_stack`` reproduces from dispatched ops (see the section
"oneDNN's LSTM": outputs in bf16, bit for bit on the shapes tested; its backward is the
recorded ops', within bf16 rounding of oneDNN's). The graph's node names are the small ops'.
"""
from __future__ import annotations

import sys

from .. import dtypes as _dt
from .. import numerics as _numerics
from .._functional.joining import cat, stack
from .._functional.matmul import matmul
from . import functional as F

__all__ = ["rnn_tanh_cell", "rnn_relu_cell", "lstm_cell", "gru_cell", "rnn_stack",
           "rnn_packed_stack"]


# ---------------------------------------------------------------------------- cells
def _simple_step(act, x_proj, h, w_hh, b_hh):
    """``act(W_hh h + b_hh + (W_ih x + b_ih))``: the Elman cell on a projected input."""
    return act(F.linear(h, w_hh, b_hh) + x_proj)


def _lstm_step(x_proj, state, w_hh, b_hh, w_hr=None):
    """One LSTM step on a projected input: gates (i, f, g, o) from ``W_hh h + b_hh + x_proj``,
    ``c' = f * c + i * g``, ``h' = o * tanh(c')`` (then ``h' @ W_hr.T`` with a projection)."""
    h, c = state
    gates = F.linear(h, w_hh, b_hh) + x_proj
    i, f, g, o = gates.chunk(4, 1)
    i, f, g, o = F.sigmoid(i), F.sigmoid(f), F.tanh(g), F.sigmoid(o)
    c_new = f * c + i * g
    h_new = o * F.tanh(c_new)
    if w_hr is not None:
        h_new = matmul(h_new, w_hr.t())
    return h_new, c_new


def _gru_step(x_proj, h, w_hh, b_hh):
    """One GRU step on a projected input: r, z = sigmoid(x_r + h_r), sigmoid(x_z + h_z),
    n = tanh(x_n + r * h_n), h' = (h - n) * z + n, where x_* / h_* are the thirds of the input
    and hidden projections (biases included)."""
    x_r, x_z, x_n = x_proj.chunk(3, 1)
    h_r, h_z, h_n = F.linear(h, w_hh, b_hh).chunk(3, 1)
    r = F.sigmoid(h_r + x_r)
    z = F.sigmoid(h_z + x_z)
    n = F.tanh(x_n + h_n * r)
    return (h - n) * z + n


def _check_cell(input, hiddens, input_size: int, hidden_size: int) -> None:
    """ATen's ``check_rnn_cell_forward_input`` / ``_hidden`` (RuntimeError, PyTorch's text)."""
    if input.size(1) != input_size:
        raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} expected "
                           f"{input_size}")
    for k, hx in enumerate(hiddens):
        if input.size(0) != hx.size(0):
            raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{k} batch "
                               f"size {hx.size(0)}")
        if hx.size(1) != hidden_size:
            raise RuntimeError(f"hidden{k} has inconsistent hidden_size: got {hx.size(1)}, "
                               f"expected {hidden_size}")


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """``torch.rnn_tanh_cell``: ``tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)``.

    Shapes: input (batch, input_size), hx (batch, hidden_size), w_ih (hidden, input_size),
    w_hh (hidden, hidden); returns (batch, hidden_size).

    Raises:
        RuntimeError: input or hidden sizes inconsistent with the weights (ATen's messages).
    """
    _check_cell(input, (hx,), w_ih.size(1), w_hh.size(1))
    return _simple_step(F.tanh, F.linear(input, w_ih, b_ih), hx, w_hh, b_hh)


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """``torch.rnn_relu_cell``: as :func:`rnn_tanh_cell` with ``relu``."""
    _check_cell(input, (hx,), w_ih.size(1), w_hh.size(1))
    return _simple_step(F.relu, F.linear(input, w_ih, b_ih), hx, w_hh, b_hh)


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """``torch.lstm_cell``: one LSTM step; ``hx`` is ``(h, c)``, returns ``(h', c')``.

    Shapes: input (batch, input_size), h and c (batch, hidden_size), w_ih (4*hidden,
    input_size), w_hh (4*hidden, hidden), gates in PyTorch's order (i, f, g, o).

    Raises:
        RuntimeError: input or hidden sizes inconsistent with the weights (ATen's messages).
    """
    _check_cell(input, hx, w_ih.size(1), w_hh.size(1))
    return _lstm_step(F.linear(input, w_ih, b_ih), hx, w_hh, b_hh)


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """``torch.gru_cell``: one GRU step, gates (r, z, n) as PyTorch (see the module docstring).

    Shapes: input (batch, input_size), hx (batch, hidden_size), w_ih (3*hidden, input_size),
    w_hh (3*hidden, hidden); returns (batch, hidden_size).

    Raises:
        RuntimeError: input or hidden sizes inconsistent with the weights (ATen's messages).
    """
    _check_cell(input, (hx,), w_ih.size(1), w_hh.size(1))
    return _gru_step(F.linear(input, w_ih, b_ih), hx, w_hh, b_hh)


# ---------------------------------------------------------------------------- layers
_STEPS = {
    "RNN_TANH": lambda x, h, w_hh, b_hh, w_hr: _simple_step(F.tanh, x, h, w_hh, b_hh),
    "RNN_RELU": lambda x, h, w_hh, b_hh, w_hr: _simple_step(F.relu, x, h, w_hh, b_hh),
    "LSTM": _lstm_step,
    "GRU": lambda x, h, w_hh, b_hh, w_hr: _gru_step(x, h, w_hh, b_hh),
}


def _run_direction(mode, input, hidden, params, reverse: bool):
    """One direction of one layer: project the whole sequence, then step through time.

    ``input`` is (seq, batch, features), ``params`` ``(w_ih, w_hh, b_ih, b_hh, w_hr)`` (biases
    and ``w_hr`` may be None). Returns (outputs (seq, batch, out), final hidden).
    """
    w_ih, w_hh, b_ih, b_hh, w_hr = params
    steps = F.linear(input, w_ih, b_ih).unbind(0)
    if reverse:
        steps = steps[::-1]
    step = _STEPS[mode]
    outputs = []
    for x in steps:
        hidden = step(x, hidden, w_hh, b_hh, w_hr)
        outputs.append(hidden[0] if mode == "LSTM" else hidden)
    if reverse:
        outputs.reverse()
    return stack(outputs, 0), hidden


def _group_weights(flat_weights, has_biases: bool, has_proj: bool):
    """Split the module's flat weight list into ``(w_ih, w_hh, b_ih, b_hh, w_hr)`` per
    layer-direction, in the order of ``_flat_weights_names``."""
    per = 2 + 2 * has_biases + has_proj
    groups = []
    for k in range(0, len(flat_weights), per):
        ws = list(flat_weights[k:k + per])
        w_ih, w_hh = ws[0], ws[1]
        b_ih, b_hh = (ws[2], ws[3]) if has_biases else (None, None)
        w_hr = ws[-1] if has_proj else None
        groups.append((w_ih, w_hh, b_ih, b_hh, w_hr))
    return groups


def rnn_stack(mode: str, input, hx, flat_weights, has_biases: bool, num_layers: int,
              dropout: float, train: bool, bidirectional: bool, batch_first: bool,
              has_proj: bool = False):
    """The multi-layer recurrence (``torch._VF.rnn_tanh`` / ``rnn_relu`` / ``lstm`` / ``gru``).

    Args:
        mode: "RNN_TANH", "RNN_RELU", "LSTM" or "GRU".
        input: (seq, batch, input_size), or (batch, seq, input_size) with ``batch_first``.
        hx: (num_layers * num_directions, batch, H) initial hidden state; for LSTM the pair
            ``(h0, c0)``.
        flat_weights: the parameters in ``_flat_weights_names`` order.
        has_biases, has_proj: which of ``b_ih, b_hh`` / ``w_hr`` the list holds per layer.
        num_layers, dropout, train, bidirectional, batch_first: the module's settings.

    Returns:
        ``(output, h_n)``, or ``(output, (h_n, c_n))`` for LSTM; output (seq, batch,
        num_directions * H_out) (batch first if ``batch_first``).

    Raises:
        RuntimeError: an empty sequence ("Expected sequence length to be larger than 0 in RNN").
    """
    if batch_first:
        input = input.transpose(0, 1)
    if input.size(0) == 0:
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
    lstm = mode == "LSTM"
    low = _onednn_lstm_dtype(input) if lstm and not has_proj else None
    if low is not None:
        output, hidden = _onednn_lstm_stack(input, hx, _group_weights(flat_weights, has_biases,
                                                                      False),
                                            low, num_layers, dropout, train, bidirectional)
        return (output.transpose(0, 1) if batch_first else output), hidden
    if lstm:
        hiddens = list(zip(hx[0].unbind(0), hx[1].unbind(0)))
    else:
        hiddens = list(hx.unbind(0))
    groups = _group_weights(flat_weights, has_biases, has_proj)
    directions = 2 if bidirectional else 1
    finals = []
    layer_input = input
    for layer in range(num_layers):
        outs = []
        for d in range(directions):
            k = layer * directions + d
            out, final = _run_direction(mode, layer_input, hiddens[k], groups[k], reverse=d == 1)
            outs.append(out)
            finals.append(final)
        layer_output = cat(outs, -1) if bidirectional else outs[0]
        if dropout != 0 and train and layer < num_layers - 1:
            layer_output = F.dropout(layer_output, dropout, training=True)
        layer_input = layer_output
    output = layer_input.transpose(0, 1) if batch_first else layer_input
    if lstm:
        return output, (stack([h for h, _ in finals], 0), stack([c for _, c in finals], 0))
    return output, stack(finals, 0)


# ---------------------------------------------------------------------------- oneDNN's LSTM
# ATen's ``at::lstm`` hands a CPU LSTM without projections to oneDNN (``mkldnn_rnn_layer``, one
# call per layer and direction) when ``use_mkldnn`` holds: an fp32 input, or a bf16 one where
# the CPU has the AVX-512 core flags (``mkldnn_bf16_device_check``), or an fp16 one with grad
# off on an AVX-512-FP16 / AMX-FP16 CPU. ``mkldnn_rnn_layer`` is on AutocastCPU's
# lower-precision list, so under ``autocast("cpu")`` an fp32 LSTM runs oneDNN's 16-bit kernel.
# Its numerics (measured bit for bit against PyTorch 2.13 here, AVX-512 with avx512_bf16):
# input, weights and states in 16 bits; bias = b_ih + b_hh added in 16 bits; gates = the fp32
# products x W_ih^T + h W_hh^T plus that bias, in fp32; sigmoid and tanh correctly rounded to
# fp32 (oneDNN's eltwise kernels, not ATen's vectorised ones); c' = f*c + i*g in fp32;
# h' = o * tanh(c') rounded to 16 bits (the next step's h and the layer's output), and c' too
# (the next step's c). The fp32 (non-autocast) oneDNN LSTM keeps the portable path below:
# oneDNN's fp32 gemm sums in its own order, so those results agree to ~1e-6, not bit for bit.
_ONEDNN_NO_FP16 = ("could not create a primitive descriptor for the LSTM forward propagation "
                   "primitive. Run workload with environment variable ONEDNN_VERBOSE=all to get "
                   "additional diagnostic information.")


def _onednn_lstm_dtype(input):
    """The 16-bit dtype PyTorch's oneDNN LSTM runs ``input`` in here, or None where the
    portable path (or oneDNN's fp32 kernel, see above) runs it.

    Raises:
        RuntimeError: fp16 where this CPU's oneDNN has no fp16 LSTM (PyTorch's oneDNN error).
    """
    if input.device.type != "cpu" or input.numel() == 0:
        return None
    from ..autograd.grad_mode import is_grad_enabled
    dt = input.dtype
    if not (dt is _dt.float32 or (dt is _dt.bfloat16 and _numerics.onednn_takes(dt))
            or (dt is _dt.float16 and _numerics.onednn_takes(dt) and not is_grad_enabled())):
        return None
    ac = sys.modules.get("amp_emu.autocast")
    if ac is not None and ac.is_autocast_enabled("cpu"):
        low = ac.get_autocast_dtype("cpu")
        if dt is _dt.float32 or dt is low:
            dt = low
    if dt is _dt.float16 and not _numerics.ONEDNN_FP16:
        raise RuntimeError(_ONEDNN_NO_FP16)
    return dt if dt in (_dt.bfloat16, _dt.float16) else None


def _sigmoid(x):
    """fp32 sigmoid as oneDNN's eltwise kernel gives it: the correctly rounded value (evaluated
    in fp64; ATen's vectorised fp32 sigmoid can be an ulp off, which a bf16 rounding shows)."""
    return F.sigmoid(x.double()).float()


def _tanh(x):
    """fp32 tanh as oneDNN's eltwise kernel gives it (see ``_sigmoid``)."""
    return F.tanh(x.double()).float()


def _onednn_lstm_direction(x, state, params, low, reverse):
    """One layer-direction of oneDNN's 16-bit LSTM (``mkldnn_rnn_layer``): ``x`` (seq, batch,
    in) and ``state`` (h, c) in ``low``; returns (outputs (seq, batch, hidden), (h, c)), all
    in ``low``. See the section comment for the numerics."""
    w_ih, w_hh, b_ih, b_hh, _ = (None if p is None else p.to(low) for p in params)
    f32 = _dt.float32
    w_hh_t = w_hh.to(f32).t()
    steps = matmul(x.to(f32).contiguous(), w_ih.to(f32).t()).unbind(0)
    bias = None if b_ih is None else (b_ih + b_hh).to(f32)
    h, c = state
    outputs = []
    for gx in (steps[::-1] if reverse else steps):
        gates = gx + matmul(h.to(f32), w_hh_t)
        if bias is not None:
            gates = gates + bias
        i, f, g, o = gates.chunk(4, 1)
        c_new = _sigmoid(f) * c.to(f32) + _sigmoid(i) * _tanh(g)
        h = (_sigmoid(o) * _tanh(c_new)).to(low)
        c = c_new.to(low)
        outputs.append(h)
    if reverse:
        outputs.reverse()
    return stack(outputs, 0), (h, c)


def _onednn_lstm_stack(input, hx, groups, low, num_layers, dropout, train, bidirectional):
    """``lstm_mkldnn_stub``: the layers of oneDNN's 16-bit LSTM on a (seq, batch, in) input,
    dropout between layers as ATen's; returns (output, (h_n, c_n)) in ``low``. Runs with
    autocast off (the casts are this function's, as AutocastCPU's are ``mkldnn_rnn_layer``'s)."""
    ac = sys.modules.get("amp_emu.autocast")
    if ac is not None and ac.is_autocast_enabled("cpu"):
        with ac.autocast("cpu", enabled=False):
            return _onednn_lstm_stack(input, hx, groups, low, num_layers, dropout, train,
                                      bidirectional)
    h0, c0 = hx[0].to(low).unbind(0), hx[1].to(low).unbind(0)
    directions = 2 if bidirectional else 1
    layer_input = input.to(low)
    hs, cs = [], []
    for layer in range(num_layers):
        outs = []
        for d in range(directions):
            k = layer * directions + d
            out, (h, c) = _onednn_lstm_direction(layer_input, (h0[k], c0[k]), groups[k], low,
                                                 reverse=d == 1)
            outs.append(out)
            hs.append(h)
            cs.append(c)
        layer_output = cat(outs, -1) if bidirectional else outs[0]
        if dropout != 0 and train and layer < num_layers - 1:
            layer_output = F.dropout(layer_output, dropout, training=True)
        layer_input = layer_output
    return layer_input, (stack(hs, 0), stack(cs, 0))


# ---------------------------------------------------------------------------- packed sequences
# A PackedSequence holds the time steps one after the other, each step only for the sequences
# still running: ``data`` is (sum(batch_sizes), features), step t is the next
# ``batch_sizes[t]`` rows (the batch is sorted by decreasing length). ATen's PackedLayer runs the
# same cells on those ragged steps: going forward, a sequence that ends leaves the hidden batch
# (its row is put aside as its final state); going backward, sequences join the hidden batch as
# they start.

def _hidden_slice(hidden, start, end, lstm):
    if lstm:
        return hidden[0][start:end], hidden[1][start:end]
    return hidden[start:end]


def _hidden_cat(pieces, lstm):
    if lstm:
        return cat([h for h, _ in pieces], 0), cat([c for _, c in pieces], 0)
    return cat(pieces, 0)


def _run_packed_direction(mode, data, batch_sizes, hidden, params, reverse: bool):
    """One direction of one layer over packed ``data``; returns (packed outputs, final
    hidden for the whole (sorted) batch)."""
    w_ih, w_hh, b_ih, b_hh, w_hr = params
    proj = F.linear(data, w_ih, b_ih)
    lstm = mode == "LSTM"
    step = _STEPS[mode]
    offsets = [0]
    for bs in batch_sizes:
        offsets.append(offsets[-1] + bs)
    outputs = []
    if not reverse:
        finished = []           # final states of the sequences that ended, shortest last
        last = batch_sizes[0]
        for t, bs in enumerate(batch_sizes):
            if bs < last:       # sequences bs..last-1 ended at step t-1
                finished.append(_hidden_slice(hidden, bs, last, lstm))
                hidden = _hidden_slice(hidden, 0, bs, lstm)
            last = bs
            hidden = step(proj[offsets[t]:offsets[t + 1]], hidden, w_hh, b_hh, w_hr)
            outputs.append(hidden[0] if lstm else hidden)
        finished.append(hidden)
        final = _hidden_cat(finished[::-1], lstm)
    else:
        initial = hidden
        last = batch_sizes[-1]
        hidden = _hidden_slice(initial, 0, last, lstm)
        for t in range(len(batch_sizes) - 1, -1, -1):
            bs = batch_sizes[t]
            if bs > last:       # sequences last..bs-1 start (their last step) at step t
                hidden = _hidden_cat([hidden, _hidden_slice(initial, last, bs, lstm)], lstm)
            last = bs
            hidden = step(proj[offsets[t]:offsets[t + 1]], hidden, w_hh, b_hh, w_hr)
            outputs.append(hidden[0] if lstm else hidden)
        outputs.reverse()
        final = hidden
    return cat(outputs, 0), final


def rnn_packed_stack(mode: str, data, batch_sizes, hx, flat_weights, has_biases: bool,
                     num_layers: int, dropout: float, train: bool, bidirectional: bool,
                     has_proj: bool = False):
    """The multi-layer recurrence over a packed sequence (``torch._VF.lstm(data, batch_sizes,
    ...)`` & co.).

    Args:
        mode, hx, flat_weights, has_biases, num_layers, dropout, train, bidirectional,
        has_proj: as :func:`rnn_stack` (hx's batch is ``batch_sizes[0]``, in sorted order).
        data: (sum(batch_sizes), input_size), the PackedSequence's data.
        batch_sizes: a list of ints, non-increasing.

    Returns:
        ``(packed output data (sum(batch_sizes), num_directions * H_out), h_n)`` (``(h_n,
        c_n)`` for LSTM); the final state of each sequence is the one at its own last step.
    """
    lstm = mode == "LSTM"
    if lstm and not has_proj and len(set(batch_sizes)) == 1:
        # every sequence as long: ATen's packed lstm runs the dense one (oneDNN's, where it
        # takes the call) on the (seq, batch, in) view of the data
        low = _onednn_lstm_dtype(data)
        if low is not None:
            steps, batch = len(batch_sizes), batch_sizes[0]
            out, hidden = _onednn_lstm_stack(
                data.reshape(steps, batch, data.size(1)), hx,
                _group_weights(flat_weights, has_biases, False), low, num_layers, dropout,
                train, bidirectional)
            return out.reshape(steps * batch, out.size(2)), hidden
    hiddens = list(zip(hx[0].unbind(0), hx[1].unbind(0))) if lstm else list(hx.unbind(0))
    groups = _group_weights(flat_weights, has_biases, has_proj)
    directions = 2 if bidirectional else 1
    finals = []
    layer_input = data
    for layer in range(num_layers):
        outs = []
        for d in range(directions):
            k = layer * directions + d
            out, final = _run_packed_direction(mode, layer_input, batch_sizes, hiddens[k],
                                               groups[k], reverse=d == 1)
            outs.append(out)
            finals.append(final)
        layer_output = cat(outs, -1) if bidirectional else outs[0]
        if dropout != 0 and train and layer < num_layers - 1:
            layer_output = F.dropout(layer_output, dropout, training=True)
        layer_input = layer_output
    if lstm:
        return layer_input, (stack([h for h, _ in finals], 0), stack([c for _, c in finals], 0))
    return layer_input, stack(finals, 0)
