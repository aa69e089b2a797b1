"""The global random generator (``torch.manual_seed``, ``get_rng_state``, ``fork_rng``).

Deliberate difference: minigrad draws from NumPy's PCG64, not PyTorch's mt19937/Philox, so the
same seed gives different numbers than PyTorch. Comparisons with PyTorch copy the initial weights
across instead of relying on equal seeds.
"""
from __future__ import annotations

import contextlib
import copy

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

    Deliberate difference: ``get_state`` returns an opaque dict (PyTorch: a uint8 tensor).
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
        """A copy of the generator's state (opaque; give it back to ``set_state``)."""
        return copy.deepcopy(self.np.bit_generator.state)

    def set_state(self, state):
        """Restore a state from ``get_state``; returns self (as PyTorch's)."""
        self.np.bit_generator.state = copy.deepcopy(state)
        return self


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
    """A copy of the global generator's state (an opaque dict, not a ByteTensor as in torch)."""
    return default_generator.get_state()


def set_rng_state(state) -> None:
    """Restore a state returned by ``get_rng_state``."""
    default_generator.set_state(state)


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
