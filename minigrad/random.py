"""The global random generator (``torch.manual_seed``, ``get_rng_state``, ``fork_rng``).

Deliberate difference: minigrad draws from NumPy's PCG64, not PyTorch's mt19937/Philox, so the
same seed gives different numbers than PyTorch. Comparisons with PyTorch copy the initial weights
across instead of relying on equal seeds.
"""
from __future__ import annotations

import contextlib

import numpy as np

__all__ = ["manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state", "fork_rng",
           "Generator", "default_generator"]

_DEFAULT_SEED = 67280421310721   # PyTorch's default CPU seed


class Generator:
    """A random generator (``torch.Generator``): ``manual_seed``, ``seed``, ``initial_seed``,
    ``get_state``/``set_state``, ``device``. Wraps ``np.random.Generator(PCG64)``.

    Args:
        device: "cpu" (default) or "cuda" (the emulated device; its generator is a stream like
            the cpu one).

    Raises:
        RuntimeError: an unknown device string (PyTorch's message).

    Deliberate difference: ``get_state``'s uint8 tensor holds minigrad's PCG64 state (45
    bytes), not PyTorch's mt19937 one (5056 bytes); it round-trips through ``set_state``.
    """

    def __init__(self, device="cpu"):
        from .devices import as_device
        self.device = as_device(device)
        self.manual_seed(_DEFAULT_SEED)

    def manual_seed(self, seed):
        """Reseed; returns self. A negative seed wraps modulo 2**64, as PyTorch's.

        Raises:
            RuntimeError: a non-integer seed ("manual_seed expected a long, but got float").
        """
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        self._seed = int(seed) % (1 << 64)
        self.np = np.random.Generator(np.random.PCG64(self._seed))
        return self

    def initial_seed(self) -> int:
        """The seed of the last ``manual_seed``/``seed``."""
        return self._seed

    def seed(self) -> int:
        """Reseed from fresh entropy; returns the new seed."""
        s = int(np.random.SeedSequence().entropy) & ((1 << 63) - 1)
        self.manual_seed(s)
        return s

    def get_state(self):
        """The generator's state as a uint8 Tensor of ``STATE_BYTES`` bytes (as PyTorch's
        ByteTensor; the layout is minigrad's, see ``_pack``): give it back to ``set_state``."""
        from .ops.factory import from_numpy
        return from_numpy(_pack(self.np.bit_generator.state, self._seed))

    def set_state(self, new_state):
        """Restore a state from ``get_state``; returns self (as PyTorch's).

        Raises:
            TypeError: not a uint8 Tensor ("expected a torch.ByteTensor, but got list", "RNG
                state must be a torch.ByteTensor").
            RuntimeError: a uint8 tensor of the wrong size ("Expected a CPUGeneratorImplState
                of size 45 but found the input RNG state size to be 3").
        """
        from .tensor import Tensor
        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        if new_state.dtype.name != "uint8":
            raise TypeError("RNG state must be a torch.ByteTensor")
        if new_state.numel() != STATE_BYTES:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {STATE_BYTES} but "
                               f"found the input RNG state size to be {new_state.numel()}")
        state, self._seed = _unpack(new_state.numpy().reshape(-1))
        self.np.bit_generator.state = state
        return self


STATE_BYTES = 45
"""Size of a packed state: PCG64's 128-bit state and increment, the buffered-uint32 flag and
value, and the initial seed (little-endian)."""


def _pack(state: dict, seed: int) -> np.ndarray:
    """NumPy's PCG64 state dict and the initial seed as ``STATE_BYTES`` uint8 values."""
    st = state["state"]
    raw = (int(st["state"]).to_bytes(16, "little") + int(st["inc"]).to_bytes(16, "little") +
           int(state["has_uint32"]).to_bytes(1, "little") +
           int(state["uinteger"]).to_bytes(4, "little") + int(seed).to_bytes(8, "little"))
    return np.frombuffer(raw, dtype=np.uint8).copy()


def _unpack(a: np.ndarray):
    """The inverse of ``_pack``: (PCG64 state dict, initial seed)."""
    raw = bytes(np.asarray(a, np.uint8))
    state = {"bit_generator": "PCG64",
             "state": {"state": int.from_bytes(raw[0:16], "little"),
                       "inc": int.from_bytes(raw[16:32], "little")},
             "has_uint32": raw[32], "uinteger": int.from_bytes(raw[33:37], "little")}
    return state, int.from_bytes(raw[37:45], "little")


default_generator = Generator()


def manual_seed(seed) -> Generator:
    """Seed the global generator (``torch.manual_seed``); returns it."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Seed the global generator non-deterministically; returns the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The seed of the default generator (``torch.initial_seed``): the last ``manual_seed``
    value, or the seed drawn at import / by ``seed()``."""
    return default_generator.initial_seed()


def get_rng_state():
    """The global generator's state as a uint8 Tensor (``torch.get_rng_state``; its bytes are
    minigrad's PCG64 state, not PyTorch's mt19937 one)."""
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    """Restore a state returned by ``get_rng_state`` (``torch.set_rng_state``).

    Raises:
        TypeError / RuntimeError: as ``Generator.set_state``.
    """
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(enabled: bool = True):
    """Restore the global RNG state on exit (``torch.random.fork_rng``)."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)


def _gen(generator):
    return (generator or default_generator).np
