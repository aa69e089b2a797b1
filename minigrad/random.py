"""The random generator (``torch.Generator``, ``torch.manual_seed``, ``get_rng_state``,
``fork_rng``): PyTorch's CPU engine, so that the same seed gives PyTorch CPU's numbers.

PyTorch's CPU generator is a 32-bit Mersenne Twister (mt19937) seeded with the low 32 bits of
the seed by the reference ``init_genrand``; ``random()`` is one 32-bit word, ``random64()`` two
(the first one high). NumPy's ``MT19937`` bit generator is the same engine, so we keep one and
read its words; ``minigrad.ops._distributions`` turns words into samples as ATen's kernels do.
The generator also carries ATen's cache of the second Box-Muller value of
``normal_distribution<double>`` (used by normal draws of fewer than 16 elements), cleared by
``manual_seed``.

``get_state()`` is PyTorch's 5056-byte layout (``CPUGeneratorImplState``: seed, mt19937 state,
the normal caches), so a state moves between ``torch.get_rng_state()`` and
``minigrad.get_rng_state()`` both ways.

The emulated cuda device draws from this CPU stream (a ``Generator("cuda")`` is a separate
mt19937 stream): PyTorch's CUDA generator is Philox, which is not reproduced.
"""
from __future__ import annotations

import contextlib

import numpy as np

from . import dtypes as _dt
from .tensor import Tensor

__all__ = ["manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state", "fork_rng",
           "Generator", "default_generator"]

_DEFAULT_SEED = 67280421310721   # PyTorch's default CPU seed


_STATE_N = 624
_STATE_BYTES = 5056     # sizeof(CPUGeneratorImplState): the legacy pod, the float cache, a flag


class Generator:
    """A random generator (``torch.Generator``): ``manual_seed``, ``seed``, ``initial_seed``,
    ``get_state``/``set_state``, ``device``; PyTorch's CPU mt19937 (module docstring).

    Args:
        device: "cpu" (default) or "cuda" (the emulated device; its generator is an mt19937
            stream of its own, not PyTorch's CUDA Philox).

    Raises:
        RuntimeError: an unknown device string (PyTorch's message).
    """

    def __init__(self, device="cpu"):
        from .devices import as_device
        self.device = as_device(device)
        self.manual_seed(_DEFAULT_SEED)

    def manual_seed(self, seed):
        """Reseed; returns self. A negative seed wraps modulo 2**64, as PyTorch's; the engine
        takes its low 32 bits. Clears the normal-sample caches.

        Raises:
            RuntimeError: a non-integer seed ("manual_seed expected a long, but got float").
        """
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        self._seed = int(seed) % (1 << 64)
        self._mt = np.random.MT19937()
        self._mt._legacy_seeding(self._seed & 0xFFFFFFFF)         # init_genrand
        self._fresh = True                      # ATen's next_ is 0 until the first draw
        self._next_double_normal = None
        self._next_float_normal = None
        return self

    def _random(self, n: int) -> np.ndarray:
        """``n`` 32-bit words (uint64 array), as ``n`` calls of ATen's ``random()``."""
        self._fresh = False
        return self._mt.random_raw(n)

    def _random64(self, n: int) -> np.ndarray:
        """``n`` 64-bit words (uint64 array) as ``random64()``: two words, the first high."""
        w = self._random(2 * n)
        return (w[0::2] << np.uint64(32)) | w[1::2]

    def initial_seed(self) -> int:
        """The seed of the last ``manual_seed``/``seed``."""
        return self._seed

    def seed(self) -> int:
        """Reseed from fresh entropy; returns the new seed."""
        s = int(np.random.SeedSequence().entropy) & ((1 << 63) - 1)
        self.manual_seed(s)
        return s

    def get_state(self):
        """The generator's state as PyTorch's 5056-byte uint8 tensor (``CPUGeneratorImplState``:
        seed, ``left``, ``seeded``, ``next``, the 624 state words, the normal caches)."""
        st = self._mt.state["state"]
        pos = int(st["pos"])
        buf = bytearray(_STATE_BYTES)
        head = np.array([self._seed], np.uint64).tobytes() + \
            np.array([_STATE_N + 1 - pos, 1], np.int32).tobytes() + \
            np.array([0 if self._fresh else pos], np.uint64).tobytes()
        words = np.asarray(st["key"], np.uint64).tobytes()
        dn = self._next_double_normal
        normals = np.array([0.0, 0.0 if dn is None else dn, 0.0], np.float64).tobytes() + \
            np.array([dn is not None], np.int32).tobytes()
        fn = self._next_float_normal
        body = head + words + normals
        buf[:len(body)] = body
        buf[5048:5052] = np.array([0.0 if fn is None else fn], np.float32).tobytes()
        buf[5052] = fn is not None
        return Tensor._make(np.frombuffer(bytes(buf), np.uint8).copy(), _dt.uint8)

    def set_state(self, new_state):
        """Restore a state from ``get_state`` (or from ``torch.Generator.get_state()``);
        returns self, as PyTorch's.

        Raises:
            TypeError: not a uint8 tensor ("RNG state must be a torch.ByteTensor").
            RuntimeError: a wrong size ("Expected a CPUGeneratorImplState of size 5056 but
                found the input RNG state size to be N").
        """
        arr = new_state._data if isinstance(new_state, Tensor) else None
        if arr is None and type(new_state).__module__.startswith("torch"):
            arr = new_state.detach().cpu().numpy()
        if arr is None or arr.dtype != np.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        raw = np.ascontiguousarray(arr).reshape(-1).tobytes()
        if len(raw) != _STATE_BYTES:
            raise RuntimeError("Expected a CPUGeneratorImplState of size 5056 but found the "
                               f"input RNG state size to be {len(raw)}")
        seed = int(np.frombuffer(raw[:8], np.uint64)[0])
        left = int(np.frombuffer(raw[8:12], np.int32)[0])
        words = np.frombuffer(raw[24:24 + 8 * _STATE_N], np.uint64).astype(np.uint32)
        normal_y = float(np.frombuffer(raw[5024:5032], np.float64)[0])
        normal_valid = int(np.frombuffer(raw[5040:5044], np.int32)[0])
        self._seed = seed
        self._mt = np.random.MT19937()
        self._mt.state = {"bit_generator": "MT19937",
                          "state": {"key": words, "pos": _STATE_N + 1 - left}}
        self._fresh = int(np.frombuffer(raw[16:24], np.uint64)[0]) == 0 and left == 1
        self._next_double_normal = normal_y if normal_valid else None
        self._next_float_normal = None
        if raw[5052]:
            self._next_float_normal = float(np.frombuffer(raw[5048:5052], np.float32)[0])
        return self

    def __repr__(self):
        return f"<minigrad.Generator object at {id(self):#x} (device={self.device.type})>"


default_generator = Generator()
default_generator.seed()        # PyTorch seeds its default CPU generator from fresh entropy at
#                                 start-up; a Generator() made later starts from _DEFAULT_SEED


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
    """The global generator's state, a uint8 tensor in PyTorch's layout
    (``torch.get_rng_state``)."""
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    """Restore the global generator's state from ``get_rng_state`` (or from PyTorch's
    ``torch.get_rng_state()``) (``torch.set_rng_state``).

    Raises:
        TypeError, RuntimeError: as ``Generator.set_state``.
    """
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled: bool = True, _caller: str = "fork_rng",
             _devices_kw: str = "devices", device_type: str = "cuda"):
    """Restore the global RNG state on exit (``torch.random.fork_rng``). ``devices`` and
    ``device_type`` are accepted and need nothing more: the emulated cuda device draws from the
    one CPU generator, whose state this saves."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)


def _gen(generator):
    """``generator``, or the global generator when None."""
    return generator or default_generator
