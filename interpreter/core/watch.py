"""What an evaluation read of a game state, so that its value can be kept and used again on another
state that holds the same values there (a bot scoring many positions that differ in one player's
places only reads the others' standings once).

`watched(st)` gives a stand-in for a `GameState` that a `Run` reads like the state itself while it
writes down each value read: a zone, grid or counter by its key (a per-player counter by its
seat), the rest of the state whole. `Reads.holds(other)` tells whether `other` has the same value
at every one of those reads; then any expression that was evaluated on the stand-in has the same
value on `other`, since an expression's value depends only on the state it reads, the program
and its arguments.

Only reading is watched. A read the stand-in does not know (the random generator, the running
frames, a method of the state) raises `Unwatchable`: the caller evaluates without keeping. The
stand-in does not pass for a list or a dict (`type`, `isinstance`), and what a compiled expression
receives from it behaves like the container it stands for in every other use.
"""
from __future__ import annotations

from .state import copy_value

# The state's tables read key by key; a per-player value in `counters` is read seat by seat.
_KEYED = frozenset({"zones", "grids", "counters", "tracks", "markers", "reached", "zone_limits",
                    "keyed_init", "bounds", "revealed"})
# Values read whole: compared by equality.
_WHOLE = frozenset({"player_count", "seed", "stage", "round", "phase_index", "phase", "queue", "loc",
                    "card_def", "result", "decisions"})
# The step counts a run charges: read and written through, not part of what the value depends on.
_THROUGH = frozenset({"steps", "total_steps"})
_MISSING = object()


class Unwatchable(Exception):
    """An evaluation read what a `Reads` cannot account for."""


class Reads:
    """The values an evaluation read: (table, key, seat) -> the value then; `key` and `seat` are None
    for what was read whole."""

    __slots__ = ("seen", "plan")

    def __init__(self):
        self.seen: dict = {}
        self.plan = None  # `seen` grouped by table for `holds`, made at its first call

    def note(self, where: tuple, value) -> None:
        if where not in self.seen:
            self.seen[where] = copy_value(value)
            self.plan = None

    def holds(self, st) -> bool:
        """Whether `st` has, at every place read, the value read then."""
        plan = self.plan
        if plan is None:
            plan = self.plan = self._plan()
        for how, table, data in plan:
            now = getattr(st, table)
            if how == _BY_KEY:
                get = now.get  # a key missing was read as missing (see _Table)
                for key, value in data:
                    if get(key, _MISSING) != value:
                        return False
            elif how == _BY_SEAT:
                for key, seat, value in data:
                    values = now.get(key)
                    if type(values) is not list or seat >= len(values) or values[seat] != value:
                        return False
            elif how == _SAME:  # replaced, never edited: the same decision is the same object
                if now is not data:
                    return False
            elif now != data:
                return False
        return True

    def _plan(self) -> list:
        """(how, table, what to compare) per table read."""
        keyed: dict = {}
        seated: list = []
        plan = []
        for (table, key, seat), value in self.seen.items():
            if seat is not None:
                seated.append((key, seat, value))
            elif key is not None:
                keyed.setdefault(table, []).append((key, value))
            else:
                plan.append((_SAME if table == "pending" else _WHOLE_VALUE, table, value))
        plan += [(_BY_KEY, table, entries) for table, entries in keyed.items()]
        if seated:
            plan.append((_BY_SEAT, "counters", seated))
        return plan


_WHOLE_VALUE, _SAME, _BY_KEY, _BY_SEAT = range(4)


def watched(st) -> tuple["_State", Reads]:
    """A stand-in for `st` that writes down what is read of it, and the `Reads` it writes into."""
    reads = Reads()
    return _State(st, reads), reads


class _State:
    """The stand-in: what is read is written down once, then kept on the stand-in itself, so that
    reading it again costs what reading an attribute does (the state does not change while it is
    watched; the step counts, which do, are always passed through)."""

    def __init__(self, st, reads: Reads):
        object.__setattr__(self, "_st", st)
        object.__setattr__(self, "_reads", reads)

    def __getattr__(self, name):
        st, reads = self._st, self._reads
        if name in _KEYED:
            value = _Table(getattr(st, name), name, reads)
        elif name in _WHOLE:
            value = getattr(st, name)
            reads.note((name, None, None), value)
        elif name == "pending":
            value = st.pending
            reads.seen[("pending", None, None)] = value  # compared by identity (Reads.holds)
            reads.plan = None
        elif name in _THROUGH:
            return getattr(st, name)
        else:
            raise Unwatchable(name)
        object.__setattr__(self, name, value)
        return value

    def __setattr__(self, name, value):
        if name not in _THROUGH:
            raise Unwatchable(name)
        setattr(self._st, name, value)


class _Whole:
    """Uses of a container that read all of it."""

    __slots__ = ()
    __hash__ = None

    def _all(self):
        raise NotImplementedError

    def __iter__(self):
        return iter(self._all())

    def __len__(self):
        return len(self._all())

    def __bool__(self):
        return bool(self._all())

    def __eq__(self, other):
        return self._all() == other

    def __getattr__(self, name):
        return getattr(self._all(), name)


class _Table(_Whole):
    """A table of the state read key by key."""

    __slots__ = ("_d", "_name", "_reads")

    def __init__(self, d, name: str, reads: Reads):
        self._d, self._name, self._reads = d, name, reads

    def _all(self):
        self._reads.note((self._name, None, None), self._d)
        return self._d

    def __getitem__(self, key):
        value = self._d[key]  # state.Zones gives a missing key as empty: noted as missing
        if self._name == "counters" and type(value) is list:
            return _Seats(value, key, self._reads)
        self._reads.note((self._name, key, None), value if key in self._d else _MISSING)
        return value

    def get(self, key, default=None):
        if key in self._d:
            return self[key]
        self._reads.note((self._name, key, None), _MISSING)
        return default

    def __contains__(self, key):
        return self.get(key, _MISSING) is not _MISSING


class _Seats(_Whole):
    """A per-player counter, read seat by seat."""

    __slots__ = ("_values", "_key", "_reads")

    def __init__(self, values: list, key, reads: Reads):
        self._values, self._key, self._reads = values, key, reads

    def _all(self):
        self._reads.note(("counters", self._key, None), self._values)
        return self._values

    def __getitem__(self, seat):
        if type(seat) is not int or not 0 <= seat < len(self._values):
            return self._all()[seat]
        value = self._values[seat]
        self._reads.note(("counters", self._key, seat), value)
        return value
