"""The type rule of each built-in (`b_NAME`): its row is in rulesdsl/builtins.py, its function in
the interpreter's library."""
from __future__ import annotations

from .. import ast as A
from ..errors import suggest
from .expressions import _callee
from .types import ANY, BOOL, FORMULA, INT, NONE, PIECE, PLAYER, SYM, TEXT, T_list, _compatible, show


class BuiltinTypeRules:
    """The type rule of each built-in: `b_NAME(call)` checks the call's arguments and gives its type."""

    # -- formulas named by card data
    def b_call(self, e):
        f = e.args[0]
        t = self.expr(f)
        lead = [self.expr(a) for a in e.args[1:]]
        if t == ANY:
            return INT
        ot = self.types.get(f.obj, ANY) if isinstance(f, A.Attr) else ANY
        if t != FORMULA or ot[0] != "card":
            self.err(f, f"`call` runs a card's formula field, as in call(c.score, c, p); got {show(t)}")
            return INT
        key = (ot[1], f.name)
        known = self.formula_calls.get(key)
        if known is None:
            self.formula_calls[key] = lead
        elif len(known) != len(lead) or not all(_compatible(a, b) for a, b in zip(lead, known)):
            self.err(e, f"every `call` of {ot[1]}'s `{f.name}` passes the same arguments before the card's own: "
                        f"here {', '.join(map(show, lead)) or 'none'}, elsewhere {', '.join(map(show, known)) or 'none'}")
        return INT

    def b_faces(self, e):
        self._faced_card(e.args[0], "faces")
        return T_list(SYM)

    def b_face(self, e):
        kind = self._faced_card(e.args[0], "face")
        self._face_name(kind, e.args[1])
        return ("def", kind.name) if kind is not None else ANY

    # built-in typing, one method each
    def b_count(self, e):
        self.elem_type(e.args[0])
        return INT

    def b_sum(self, e):
        t = self.lambda_arg(e)
        if not _compatible(t, INT):
            self.err(e.args[1], f"`sum` adds numbers, got {show(t)}")
        return INT

    def b_min(self, e):
        first = self.expr(e.args[0])
        self.res.numbers_form(e, first == INT)
        if first == INT:
            self.decided.numbers.add(e)
            if e.elem is not None:
                self.err(e.elem, f"`{_callee(e)}` of two numbers has no element to name",
                         f"name the element when the first argument is a collection: `{_callee(e)}(xs, c: c.value)`")
            self.expect(e.args[1], (INT,), "a number")
            return INT
        t = self.lambda_arg(e)
        if not _compatible(t, INT):
            self.err(e.args[1], f"`{_callee(e)}` compares numbers, got {show(t)}")
        return INT

    b_max = b_min

    def b_any(self, e):
        self.elem_type(e.args[0])
        return BOOL

    def b_all(self, e):
        t = self.lambda_arg(e)
        if not _compatible(t, BOOL):
            self.err(e.args[1], f"`all` needs a condition, got {show(t)}")
        return BOOL

    def b_count_distinct(self, e):
        self.lambda_arg(e)
        return INT

    def b_set_sizes(self, e):
        self.lambda_arg(e)
        return T_list(INT)

    def b_abs(self, e):
        self.expect(e.args[0], (INT,), "a number")
        return INT

    def b_top(self, e):
        t = self.expect_zone(e.args[0])
        return ("card", t[1]) if t[0] == "zone" else ANY

    b_bottom = b_top

    def b_first(self, e):
        return self.elem_type(e.args[0])

    b_last = b_random = b_first

    def b_defs(self, e):
        a = e.args[0]
        if not self.names_a(a, "kind"):
            self.err(a, "`defs` takes a card kind", suggest(getattr(a, "id", ""), self.kinds))
            return ANY
        self.types[a] = ("kind", a.id)
        return T_list(("def", a.id))

    def b_holder(self, e):
        a = e.args[0]
        if not self.names_a(a, "marker"):
            self.err(a, "`holder` takes a marker", suggest(getattr(a, "id", ""), self.markers))
        else:
            self.types[a] = ("marker", a.id)
            self.holder_uses.append((e, a.id))
        return PLAYER

    def b_next_player(self, e):
        self.expect(e.args[0], (PLAYER,), "a player")
        return PLAYER

    def b_turn_order(self, e):
        self.expect(e.args[0], (PLAYER,), "a player")
        return T_list(PLAYER)

    def b_seat(self, e):
        self.expect(e.args[0], (PLAYER,), "a player")
        return INT

    def b_player(self, e):
        self.expect(e.args[0], (INT,), "a seat number")
        return PLAYER

    def _track_arg(self, e):
        a = e.args[0]
        if not self.names_a(a, "track"):
            self.err(a, "expected a track", suggest(getattr(a, "id", ""), self.tracks))
            return None
        self.types[a] = ("track", a.id)
        self.expect(e.args[1], (PLAYER, PIECE), "a player or a piece")
        self.piece_on(e.args[1], a.id)
        return a.id

    def b_space(self, e):
        name = self._track_arg(e)
        return ("space", name) if name else ANY

    def b_position(self, e):
        self._track_arg(e)
        return INT

    b_free_spaces = b_position

    def _grid_arg(self, e):
        t = self.expr(e.args[0])
        if t[0] != "grid":
            if t != ANY:
                self.err(e.args[0], f"expected a grid, got {show(t)}")
            return None
        return t[1]

    def b_frontier(self, e):
        g = self._grid_arg(e)
        return T_list(("cell", g)) if g else ANY

    b_empty_cells = b_frontier

    def b_cell(self, e):
        g = self._grid_arg(e)
        self.expect(e.args[1], (INT,), "a column")
        self.expect(e.args[2], (INT,), "a row")
        return ("cell", g) if g else ANY

    def b_neighbors(self, e):
        g = self._grid_arg(e)
        self.expect(e.args[1], (("cell", g) if g else ANY,), "a cell")
        return T_list(("cell", g)) if g else ANY

    def b_card_at(self, e):
        g = self._grid_arg(e)
        self.expect(e.args[1], (("cell", g) if g else ANY,), "a cell")
        return ("card", self.grids[g].kind) if g else ANY

    def b_names(self, e):
        elem = self.elem_type(e.args[0])
        if elem[0] not in ("card", "def", "any"):
            self.err(e.args[0], f"`names` takes cards, not {show(elem)}")
        return T_list(TEXT)

    def b_field(self, e):
        t = self.expr(e.args[0])
        if t[0] not in ("card", "def", "any"):
            self.err(e.args[0], f"`field` reads a card, not {show(t)}")
        self.expect(e.args[1], (SYM, TEXT), "a field name")
        return INT

    def b_slot(self, e):
        kind = self._host_arg(e.args[0], "slot")
        held = self._slot_kind(self._slot_name(kind, e.args[1], "slot"))
        return ("zone", held) if held else ANY

    def b_room(self, e):
        kind = self._host_arg(e.args[0], "room")
        for n in self._slot_name(kind, e.args[1], "room"):
            if self.slots[n][1].limit is None and isinstance(e.args[1], A.Name):
                self.err(e.args[1], f"slot `{n}` has no limit, so no room to count",
                         "give it one: `limit N`, or count its cards with count(slot(c, NAME))")
        return INT

    def b_zone_of(self, e):
        t = self.expr(e.args[0])
        if t[0] not in ("card", "any", "none"):
            self.err(e.args[0], f"`zone_of` takes a card, not {show(t)}")
        return ("zone", t[1]) if t[0] == "card" else ANY

    def b_host(self, e):
        t = self.expr(e.args[0])
        if t[0] not in ("card", "any", "none"):
            self.err(e.args[0], f"`host` takes a card, not {show(t)}")
        hosts = {k.name for k, sl in self.slots.values() if t[0] != "card" or sl.kind == t[1]}
        return ("card", hosts.pop()) if len(hosts) == 1 else ANY

    def b_slot_of(self, e):
        t = self.expr(e.args[0])
        if t[0] not in ("card", "any", "none"):
            self.err(e.args[0], f"`slot_of` takes a card, not {show(t)}")
        return SYM

    def b_attached(self, e):
        t = self.expr(e.args[0])
        if t[0] == "list" or t[0] in ("zone", "grid"):
            t = self.elem_of(t, e.args[0])
        if t[0] not in ("card", "any", "none"):
            self.err(e.args[0], f"`attached` takes a card or a collection of cards, not {show(t)}")
            return T_list(ANY)
        kind = self.kinds.get(t[1]) if t[0] == "card" else None
        if kind is not None and not kind.slots:
            self.err(e.args[0], f"cards of kind {kind.name} have no slots")
        held = self._slot_kind([sl.name for sl in kind.slots] if kind is not None else list(self.slots))
        return T_list(("card", held) if held else ANY)

    def b_index_of(self, e):
        elem = self.elem_type(e.args[0])
        t = self.expr(e.args[1])
        if not (_compatible(t, elem) or t == NONE):
            self.err(e.args[1], f"looking for {show(t)} among {show(elem)}")
        return INT

    def b_slice(self, e):
        elem = self.elem_type(e.args[0])
        self.expect(e.args[1], (INT,), "a start position")
        self.expect(e.args[2], (INT,), "an end position")
        return T_list(elem)

    def b_reverse(self, e):
        return T_list(self.elem_type(e.args[0]))

    def b_min_by(self, e):
        t = self.lambda_arg(e)
        if not _compatible(t, INT):
            self.err(e.args[1], f"`{_callee(e)}` compares numbers, got {show(t)}")
        return self.elem_type(e.args[0])

    b_max_by = b_min_by

    def b_sort_by(self, e):
        elem = self.b_min_by(e)
        return T_list(elem)

    def b_filled_cells(self, e):
        return self.b_frontier(e)

    def b_has_block(self, e):
        self._grid_arg(e)
        self.expect(e.args[1], (INT,), "a number of columns")
        self.expect(e.args[2], (INT,), "a number of rows")
        return BOOL

    def b_fits(self, e):
        g = self._grid_arg(e)
        if g and not self.grids[g].edges:
            self.err(e.args[0], f"`fits` needs the grid's `edges` line: grid {g} has none")
        card = self.expr(e.args[1])
        if card[0] not in ("card", "any"):
            self.err(e.args[1], f"`fits` places a card, not {show(card)}")
        for a in e.args[2:]:
            self.expect(a, (("cell", g) if g else ANY,), "a cell")
        return BOOL

    def b_cell_of(self, e):
        g = self._grid_arg(e)
        t = self.expr(e.args[1])
        if t[0] not in ("card", "any", "none"):
            self.err(e.args[1], f"`cell_of` finds a card, not {show(t)}")
        return ("cell", g) if g else ANY

    def b_space_at(self, e):
        a = e.args[0]
        if not self.names_a(a, "track"):
            self.err(a, "expected a track", suggest(getattr(a, "id", ""), self.tracks))
            self.expr(e.args[1])
            return ANY
        self.types[a] = ("track", a.id)
        self.expect(e.args[1], (INT,), "a space index")
        return ("space", a.id)
