"""Recurrent layers (``torch.nn.modules.rnn``): ``RNN``, ``LSTM``, ``GRU`` and the one-step
cells ``RNNCell``, ``LSTMCell``, ``GRUCell``.

Same constructor arguments, parameter names and shapes, gate order, default initialisation
(every parameter ~ U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))), checks and error messages,
``extra_repr`` and return values as PyTorch, so a ``state_dict`` loads across both ways. The
modules only check arguments and shapes; the recurrence itself (ATen's CPU algorithm, built from
dispatched ops) is ``minigrad.nn._rnn_functional``.

A ``PackedSequence`` input (``nn.utils.rnn.pack_padded_sequence``) gives a PackedSequence
output, and final states taken at each sequence's own last step (in the caller's batch order),
as PyTorch.

Deliberate differences: ``flatten_parameters()`` is a no-op (there is no cuDNN weight buffer to
compact); ``_flat_weights`` is computed from the current parameters on each read instead of being a list
kept in step by ``__setattr__``/``_apply``. Under CPU autocast (and for a bf16 model on an AVX-512
CPU) the LSTM reproduces oneDNN's 16-bit ``mkldnn_rnn_layer`` as PyTorch calls it (bf16 outputs
and states); GRU and RNN run ATen's composite cells, as in PyTorch.
"""
from __future__ import annotations

import math
import numbers
import sys
import warnings

from ..._functional.factories import empty, zeros
from .. import _rnn_functional as R
from .. import init
from ..module import Module
from ..parameter import Parameter
from .._packed import PackedSequence

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _any_autocast_enabled() -> bool:
    """``torch._C._is_any_autocast_enabled()``. Autocast is amp_emu's (a mode on the dispatcher);
    minigrad does not import it, so if it was never imported no region can be active."""
    autocast = sys.modules.get("amp_emu.autocast")
    return autocast is not None and any(autocast.is_autocast_enabled(d) for d in ("cpu", "cuda"))


def _mini_batch(module, input, batch_sizes):
    if batch_sizes is not None:
        return int(batch_sizes[0])
    return input.size(0) if module.batch_first else input.size(1)


def _check_int(name: str, value) -> None:
    if not isinstance(value, int):
        raise TypeError(f"{name} should be of type int, got: {type(value).__name__}")
    if value <= 0:
        raise ValueError(f"{name} must be greater than zero")


class RNNBase(Module):
    """What ``RNN``, ``LSTM`` and ``GRU`` share (``torch.nn.RNNBase``): arguments, parameters,
    initialisation, input/hidden checks, ``extra_repr``.

    Args:
        mode: "RNN_TANH", "RNN_RELU", "LSTM" or "GRU".
        input_size: features per time step of the input.
        hidden_size: features of the hidden state (and of the LSTM cell state).
        num_layers: stacked layers (default 1); layer k > 0 reads layer k-1's output.
        bias: learn ``bias_ih_l{k}`` and ``bias_hh_l{k}`` (default True).
        batch_first: input/output are (batch, seq, feature) instead of (seq, batch, feature);
            hidden states stay (layers * directions, batch, hidden) either way.
        dropout: probability of dropout on each layer's output except the last (training
            only); a warning if set with ``num_layers == 1``.
        bidirectional: also run each layer backwards in time (``*_reverse`` parameters,
            outputs concatenated along features).
        proj_size: LSTM only: project the hidden state to this size with ``weight_hr_l{k}``.
        device, dtype: where and in which dtype the parameters are created.

    Parameters per layer k (suffix ``_reverse`` for the backward direction), G = gates (4 LSTM,
    3 GRU, 1 RNN), H_out = proj_size or hidden_size, in_k = input_size for k = 0 else
    num_directions * H_out: ``weight_ih_l{k}`` (G*hidden, in_k), ``weight_hh_l{k}``
    (G*hidden, H_out), ``bias_ih_l{k}`` / ``bias_hh_l{k}`` (G*hidden,), ``weight_hr_l{k}``
    (proj_size, hidden).

    Raises:
        ValueError: dropout outside [0, 1], non-positive sizes or layers, a bad proj_size, an
            unknown mode; TypeError: non-bool bias/batch_first, non-int sizes (PyTorch's texts).
    """

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device=None,
                 dtype=None) -> None:
        super().__init__()
        factory_kwargs = {"device": device, "dtype": dtype}
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        if (not isinstance(dropout, numbers.Number) or isinstance(dropout, bool)
                or not 0 <= dropout <= 1):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", stacklevel=2)
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(f"batch_first should be of type bool, got: "
                            f"{type(batch_first).__name__}")
        _check_int("input_size", input_size)
        _check_int("hidden_size", hidden_size)
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        num_directions = 2 if bidirectional else 1
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            layer_input = input_size if layer == 0 else real_hidden * num_directions
            for direction in range(num_directions):
                suffix = f"l{layer}" + ("_reverse" if direction == 1 else "")
                shapes = {"weight_ih": (gate_size, layer_input),
                          "weight_hh": (gate_size, real_hidden)}
                if bias:
                    shapes["bias_ih"] = (gate_size,)
                    shapes["bias_hh"] = (gate_size,)
                if proj_size > 0:
                    shapes["weight_hr"] = (proj_size, hidden_size)
                names = []
                for kind, shape in shapes.items():
                    name = f"{kind}_{suffix}"
                    setattr(self, name, Parameter(empty(shape, **factory_kwargs)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        """The parameters in PyTorch's flat order (layer, direction, then ih, hh, biases,
        hr), read afresh so that ``.to()`` or ``load_state_dict(assign=True)`` never leave it
        stale."""
        return [getattr(self, name, None) for name in self._flat_weights_names]

    @property
    def all_weights(self):
        """Parameters grouped per layer-direction (``RNNBase.all_weights``)."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """A no-op, as PyTorch's on CPU (it compacts the weights for cuDNN on a GPU)."""

    def reset_parameters(self) -> None:
        """Every parameter ~ U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)) (``nn.init``)."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def check_input(self, input, batch_sizes=None) -> None:
        """The input's dtype, rank and feature size against the module's.

        Raises:
            ValueError: dtype differs from the weights' (outside autocast); RuntimeError:
                wrong rank or ``input.size(-1) != input_size``.
        """
        weight = self._flat_weights[0]
        if input.dtype != weight.dtype and not _any_autocast_enabled():
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({weight.dtype}). Convert input: input.to({weight.dtype}), or "
                             f"convert model: model.to({input.dtype})")
        expected_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_dim:
            raise RuntimeError(f"input must have {expected_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes=None):
        """(num_layers * num_directions, batch, proj_size or hidden_size); the batch is
        ``batch_sizes[0]`` for packed input."""
        mini_batch = _mini_batch(self, input, batch_sizes)
        num_directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, size)

    def check_hidden_size(self, hx, expected_hidden_size,
                          msg: str = "Expected hidden size {}, got {}") -> None:
        """Raises RuntimeError (``msg`` formatted) when ``hx``'s shape is not the expected."""
        if hx.size() != expected_hidden_size:
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes=None) -> None:
        """``check_input`` then the hidden state's shape."""
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def _forward(self, input, hx):
        """``forward`` of RNN, LSTM and GRU: the rank checks, the unbatched case (a batch dim
        of 1 added, then removed), zero initial states, the shape checks, then the
        recurrence."""
        lstm = self.mode == "LSTM"
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        name = "RNN" if self.mode.startswith("RNN") else self.mode
        if input.dim() not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D "
                             + ("tensor instead" if name == "RNN" else "instead"))
        is_batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)
        if hx is None:
            layers = self.num_layers * (2 if self.bidirectional else 1)
            shape = (layers, input.size(batch_dim), self.hidden_size)
            kw = {"dtype": input.dtype, "device": input.device}
            hx = zeros(*shape, **kw)
            if lstm:
                hx = (zeros(*self.get_expected_hidden_size(input), **kw), hx)
        else:
            want = 3 if is_batched else 2
            kind = "batched 3-D" if is_batched else "unbatched 2-D"
            dims = (hx[0].dim(), hx[1].dim()) if lstm else (hx.dim(),)
            if any(d != want for d in dims):
                if lstm:
                    raise RuntimeError(f"For {kind} input, hx and cx should also be {want}-D "
                                       f"but got ({dims[0]}-D, {dims[1]}-D) tensors")
                raise RuntimeError(f"For {kind} input, hx should also be {want}-D but got "
                                   f"{dims[0]}-D tensor")
            if not is_batched:
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1)) if lstm else hx.unsqueeze(1)
        self.check_forward_args(input, hx)
        output, hidden = R.rnn_stack(self.mode, input, hx, self._flat_weights, self.bias,
                                     self.num_layers, self.dropout, self.training,
                                     self.bidirectional, self.batch_first,
                                     has_proj=self.proj_size > 0)
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = (hidden[0].squeeze(1), hidden[1].squeeze(1)) if lstm else hidden.squeeze(1)
        return output, hidden

    def _forward_packed(self, packed, hx):
        """``forward`` on a PackedSequence: the states are in the caller's batch order, so
        they are permuted into the packed (sorted) order and back (``permute_hidden``)."""
        lstm = self.mode == "LSTM"
        data, batch_sizes, sorted_indices, unsorted_indices = packed
        if hx is None:
            layers = self.num_layers * (2 if self.bidirectional else 1)
            kw = {"dtype": data.dtype, "device": data.device}
            h_size = self.proj_size if self.proj_size > 0 else self.hidden_size
            hx = zeros(layers, int(batch_sizes[0]), h_size, **kw)
            if lstm:
                hx = (hx, zeros(layers, int(batch_sizes[0]), self.hidden_size, **kw))
        else:
            hx = self.permute_hidden(hx, sorted_indices)
        self.check_forward_args(data, hx, batch_sizes)
        output, hidden = R.rnn_packed_stack(self.mode, data, batch_sizes.tolist(), hx,
                                            self._flat_weights, self.bias, self.num_layers,
                                            self.dropout, self.training, self.bidirectional,
                                            has_proj=self.proj_size > 0)
        return (PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices),
                self.permute_hidden(hidden, unsorted_indices))

    def permute_hidden(self, hx, permutation):
        """``hx`` (a pair for LSTM) reordered along the batch dim, or as is for None."""
        if permutation is None:
            return hx
        if self.mode == "LSTM":
            return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)
        return hx.index_select(1, permutation)

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)


class RNN(RNNBase):
    """Elman RNN (``torch.nn.RNN``): ``h_t = act(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)``.

    Args:
        input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, device,
        dtype: as :class:`RNNBase` (positionally: input_size, hidden_size, num_layers,
        nonlinearity, bias, ...).
        nonlinearity: "tanh" (default) or "relu".

    Forward: ``(input, hx=None) -> (output, h_n)``. input (L, N, H_in) (or (N, L, H_in) with
    batch_first; (L, H_in) unbatched), hx (D * num_layers, N, hidden) (zeros if None);
    output (L, N, D * hidden), h_n like hx.

    Raises:
        ValueError: unknown nonlinearity; ``proj_size`` given; a non 2-/3-d input.
        RuntimeError: wrong feature size, hidden shape or rank ("Expected hidden size ...").
    """

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' "
                             "or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward(input, hx)


class LSTM(RNNBase):
    """Long short-term memory (``torch.nn.LSTM``), gates in PyTorch's order (i, f, g, o):
    ``c_t = f * c_{t-1} + i * g``, ``h_t = o * tanh(c_t)`` (times ``W_hr^T`` with proj_size).

    Args:
        input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
        proj_size, device, dtype: as :class:`RNNBase`.

    Forward: ``(input, hx=None) -> (output, (h_n, c_n))``. hx = (h_0 (D * num_layers, N,
    H_out), c_0 (D * num_layers, N, hidden)), zeros if None; output (L, N, D * H_out) with
    H_out = proj_size or hidden. Unbatched (L, H_in) input takes 2-d states.

    Raises:
        ValueError: a non 2-/3-d input; RuntimeError: wrong feature size, state shapes
            ("Expected hidden[0] size ...", "Expected hidden[1] size ...") or ranks.
    """

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes=None):
        """(num_layers * num_directions, batch, hidden_size)."""
        mini_batch = _mini_batch(self, input, batch_sizes)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes=None) -> None:
        """``check_input``, then h_0's and c_0's shapes."""
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def forward(self, input, hx=None):
        return self._forward(input, hx)


class GRU(RNNBase):
    """Gated recurrent unit (``torch.nn.GRU``), gates (r, z, n):
    ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``, ``h' = (1 - z) * n + z * h``.

    Args:
        input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, device,
        dtype: as :class:`RNNBase`.

    Forward: as :class:`RNN`: ``(input, hx=None) -> (output, h_n)``.

    Raises:
        ValueError: ``proj_size`` given; a non 2-/3-d input. RuntimeError: as :class:`RNN`.
    """

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward(input, hx)


class RNNCellBase(Module):
    """What the one-step cells share (``torch.nn.RNNCellBase``): ``weight_ih``
    (num_chunks*hidden, input_size), ``weight_hh`` (num_chunks*hidden, hidden), ``bias_ih`` /
    ``bias_hh`` (num_chunks*hidden,) or None, all ~ U(-1/sqrt(hidden), 1/sqrt(hidden))."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int,
                 device=None, dtype=None) -> None:
        super().__init__()
        factory_kwargs = {"device": device, "dtype": dtype}
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        rows = num_chunks * hidden_size
        self.weight_ih = Parameter(empty((rows, input_size), **factory_kwargs))
        self.weight_hh = Parameter(empty((rows, hidden_size), **factory_kwargs))
        if bias:
            self.bias_ih = Parameter(empty(rows, **factory_kwargs))
            self.bias_hh = Parameter(empty(rows, **factory_kwargs))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self) -> None:
        """Every parameter ~ U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)) (``nn.init``)."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _batch(self, name: str, input, hx):
        """The cells' rank checks and unbatched (1-d) case: returns (2-d input, 2-d state
        (zeros if None; a pair for LSTMCell), is_batched)."""
        pair = name == "LSTMCell"
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D "
                             "instead")
        for idx, value in enumerate(hx if pair and hx is not None else (hx,)):
            if value is not None and value.dim() not in (1, 2):
                what = f"hx[{idx}]" if pair else "hidden"
                raise ValueError(f"{name}: Expected {what} to be 1D or 2D, got {value.dim()}D "
                                 "instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)
            hx = (hx, hx) if pair else hx
        elif not is_batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0)) if pair else hx.unsqueeze(0)
        return input, hx, is_batched

    def _weights(self):
        return self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh


class RNNCell(RNNCellBase):
    """One Elman step (``torch.nn.RNNCell``): ``h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh)``.

    Args:
        input_size, hidden_size, bias, device, dtype: as :class:`RNNCellBase`.
        nonlinearity: "tanh" (default) or "relu" (anything else raises RuntimeError
            "Unknown nonlinearity: ..." at forward, as PyTorch).

    Forward: ``(input (N, H_in) or (H_in,), hx=None) -> h' (N, hidden) or (hidden,)``.

    Raises:
        ValueError: input or hx not 1-/2-d; RuntimeError: sizes inconsistent with the weights.
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device,
                         dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, hx, is_batched = self._batch("RNNCell", input, hx)
        if self.nonlinearity == "tanh":
            ret = R.rnn_tanh_cell(input, hx, *self._weights())
        elif self.nonlinearity == "relu":
            ret = R.rnn_relu_cell(input, hx, *self._weights())
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return ret if is_batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step (``torch.nn.LSTMCell``), gates (i, f, g, o).

    Forward: ``(input (N, H_in) or (H_in,), hx=(h, c) or None) -> (h', c')``, each (N, hidden)
    (or (hidden,) unbatched); zeros for a missing state.

    Raises:
        ValueError: input or hx[k] not 1-/2-d; RuntimeError: sizes inconsistent with the
            weights.
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        input, hx, is_batched = self._batch("LSTMCell", input, hx)
        h, c = R.lstm_cell(input, hx, *self._weights())
        return (h, c) if is_batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step (``torch.nn.GRUCell``), gates (r, z, n) as :class:`GRU`.

    Forward: ``(input (N, H_in) or (H_in,), hx=None) -> h' (N, hidden) or (hidden,)``.

    Raises:
        ValueError: input or hx not 1-/2-d; RuntimeError: sizes inconsistent with the weights.
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        input, hx, is_batched = self._batch("GRUCell", input, hx)
        ret = R.gru_cell(input, hx, *self._weights())
        return ret if is_batched else ret.squeeze(0)
