"""vp.ControlBuffer: named uint32 words that the CPU and the GPU both read and
write atomically, while a kernel runs if need be (flags, counters, modes).

    control = vp.ControlBuffer(["mode", "hot_count"], words=16)
    control["hot_count"] = 0            # an atomic store (release)
    control.add("hot_count", 1)         # an atomic add; returns the old value
    print(control["hot_count"])         # an atomic load (acquire)
    control.view()                      # the words as a zero-copy uint32 ndarray

Pass it to a kernel like a buffer: in a Python kernel annotate the parameter
`vp.Control` (a buffer of uint32 words) and index the words with constants
(`HOT = control.index("hot_count")`); in GLSL declare
`layout(std430, binding = N) buffer Control { uint words[]; };`.
"""
import numpy as np

from . import _context, _native


class ControlBuffer:
    """vp.ControlBuffer(names, words=None, *, context=None): `words` uint32
    words (at least one per name; None: one per name), zeroed, in
    host-coherent memory on `context` (None: the default context); the
    first len(names) words are named. The host reads and writes them while
    a kernel runs (docs/python-api.md, "Control buffers")."""

    def __init__(self, names, words=None, *, context=None):
        if isinstance(names, str) or not all(isinstance(n, str) for n in names):
            raise TypeError("ControlBuffer(names, ...): names must be a list of str, "
                            f"got {names!r}")
        names = list(names)
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise ValueError(f"ControlBuffer: duplicate word name(s): {', '.join(sorted(dup))}")
        for n in names:
            if not n.isidentifier():
                raise ValueError(f"ControlBuffer: word name {n!r} is not an identifier")
        if words is None:
            words = max(len(names), 1)
        if isinstance(words, bool) or not isinstance(words, int) or words < max(len(names), 1):
            raise ValueError(f"ControlBuffer: words={words!r} must be an int >= the number of "
                             f"names ({len(names)}) and >= 1")
        self._ctx = _context.resolve(context)
        self._control = _native.ext().Control(self._ctx._native, names, words)
        self._names = tuple(names)
        self._index = {n: i for i, n in enumerate(names)}
        self._buffer = self._control.buffer

    @property
    def names(self):
        return self._names

    @property
    def words(self):
        """Number of uint32 words."""
        return self._control.words

    @property
    def context(self):
        return self._ctx

    @property
    def buffer(self):
        """The vulpy._vulpy.Buffer that kernels bind."""
        return self._buffer

    def index(self, name):
        """The word index of a name (KeyError naming the known names)."""
        try:
            return self._index[name]
        except KeyError:
            raise KeyError(f"no control word {name!r} (names: {', '.join(self._names)})") \
                from None

    def words_as_constants(self, prefix=""):
        """{'MODE': 0, 'HOT_COUNT': 1, ...}: module constants for kernels
        (globals().update(control.words_as_constants()))."""
        return {prefix + n.upper(): i for i, n in enumerate(self._names)}

    def _word(self, key):
        if isinstance(key, str):
            return self.index(key)
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            if not 0 <= key < self.words:
                raise IndexError(f"control word {key} out of range 0..{self.words - 1}")
            return int(key)
        raise TypeError(f"control words are indexed by name or int, not {type(key).__name__}")

    def __getitem__(self, key):
        return self._control.load(self._word(key))

    def __setitem__(self, key, value):
        value = int(value)
        if not 0 <= value <= 0xFFFFFFFF:
            raise OverflowError(f"control words are uint32; {value} does not fit")
        self._control.store(self._word(key), value)

    def add(self, key, n=1):
        """Atomically adds n (may be negative; wraps modulo 2**32); returns
        the old value."""
        return self._control.add(self._word(key), int(n))

    def load(self, key):
        return self[key]

    def store(self, key, value):
        self[key] = value

    def view(self):
        """The words as a uint32 ndarray over the same memory (no copy). Plain
        NumPy reads and writes are not atomic; use [] and add() for that."""
        return np.frombuffer(self._control, np.uint32, self.words)

    def to_dict(self):
        return {n: self[n] for n in self._names}

    def __repr__(self):
        body = ", ".join(f"{n}={self[n]}" for n in self._names[:8])
        return f"vp.ControlBuffer({body}; {self.words} words)"
