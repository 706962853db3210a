"""What the checker hands on: the checked `Model`, and what it decided about nodes besides their
types (`Decided`, `Reads`) for the compiler to read."""
from __future__ import annotations

from collections.abc import Mapping
import attrs

from .. import ast as A
from ..display import Display


@attrs.frozen
class Reads:
    """What an attribute access `a.b` reads, as the checker found it: `what` is one of `READS`, and
    `owner` the grid or track of a cell, line or space."""

    what: str
    owner: str | None = None


# A per-player zone or grid (its key), a per-player counter, a card's own counter, a card's (or a
# definition's) name or field, a cell's column or row or data, a line's data, a space's index or data.
READS = ("player_place", "player_counter", "card_counter", "card_name", "card_field", "def_name", "def_field",
         "cell_x", "cell_y", "cell_data", "line_data", "space_index", "space_data")


@attrs.define
class Decided:
    """What the checker decided about nodes, besides their types, for the compiler to read rather
    than decide again: what each attribute access reads (`reads`, Attr node -> Reads), the element
    type of each collection it went through (`elems`, node -> type), and the `min`/`max` calls of
    two numbers rather than over a collection (`numbers`)."""

    reads: dict = attrs.Factory(dict)
    elems: dict = attrs.Factory(dict)
    numbers: set = attrs.Factory(set)
    # Choices (statement nodes: `choose`, `pick`, `actions`) whose options are read from a counter
    # some player does not see: the others may learn the answer, not what was offered.
    secret: set = attrs.Factory(set)


@attrs.frozen
class Model:
    """A checked ruleset: declarations by name, static types of expressions, and the source."""

    program: A.Program
    game: A.Game
    params: dict
    kinds: dict
    zones: dict
    counters: dict
    markers: dict
    pieces: dict
    tracks: dict
    grids: dict
    funcs: dict
    actions: dict
    setup: A.SetupDecl | None
    round: A.RoundDecl
    triggers: tuple
    victory: A.VictoryDecl | None
    enum_values: frozenset
    used_actions: frozenset
    types: dict  # expression node -> static type
    bindings: dict  # Name or Call node -> resolver.Binding: what the name stands for
    evaluation: A.EvaluateDecl | None = None
    slots: dict = attrs.Factory(dict)  # slot name -> (KindDecl declaring it, SlotDecl)
    # (kind, formula field) -> the types of the arguments every `call` of it passes before the
    # card's own (see Checker.b_call)
    formula_calls: dict = attrs.Factory(dict)
    decided: Decided = attrs.Factory(Decided)  # what the checker decided besides the types
    warnings: tuple = ()  # the checker's warnings (errors.Diagnostic), sorted: the rules run all the same
    hand: A.HandDecl | None = None  # the `hand` block of a game played in hands
    display: Display = attrs.Factory(Display)  # the `display` blocks, merged (rulesdsl/display.py)

    @property
    def calls(self) -> Mapping:
        """The bindings of calls and locals in the older shape: a Call node -> ("builtin", name),
        ("func", name), ("action", name) or ("dynamic", None); a Name node -> ("local", name)."""
        return _CallTable(self.bindings)


_CALL_KINDS = {"builtin": "builtin", "def": "func", "action": "action", "routine": "action"}


class _CallTable(Mapping):
    """A read-only view of bindings as `Model.calls` entries."""

    def __init__(self, bindings):
        self._bindings = bindings

    def __getitem__(self, node):
        entry = self._entry(node, self._bindings[node])
        if entry is None:
            raise KeyError(node)
        return entry

    @staticmethod
    def _entry(node, b):
        if isinstance(node, A.Call):
            if b.kind == "dynamic":
                return ("dynamic", None)
            kind = _CALL_KINDS.get(b.kind)
            return (kind, b.name) if kind else None
        if isinstance(node, A.Name) and b.kind == "local":
            return ("local", b.name)
        return None

    def __iter__(self):
        return (n for n, b in self._bindings.items() if self._entry(n, b) is not None)

    def __len__(self):
        return sum(1 for _ in self)
