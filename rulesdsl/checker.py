"""Static checks: names, types, fields and reachability, all collected before any game starts.

The result is a `Model`: the declarations by name plus the static type of every expression node,
which the interpreter's compiler uses to resolve names and fields once, before play.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from . import ast as A
from .cards import _field_problem, _literal
from .errors import CheckError, at, count_of, make, suggest
from .builtins import BUILTINS
from .limits import MAX_DEF_DEPTH
from .resolver import Resolver

# ---- static types ----------------------------------------------------------------------------
INT, BOOL, TEXT, NONE, ANY = ("int",), ("bool",), ("text",), ("none",), ("any",)
PLAYER, ACTION, SYM, KEYED = ("player",), ("action",), ("sym",), ("keyed",)
PIECE = ("piece",)


def T_list(elem):
    """A list of `elem`."""
    return ("list", elem)


_DECL_WORDS = {A.ParamDecl: "param", A.KindDecl: "kind", A.ZoneDecl: "zone", A.CounterDecl: "counter",
               A.MarkerDecl: "marker", A.TrackDecl: "track", A.PieceDecl: "piece", A.GridDecl: "grid",
               A.FuncDecl: "def", A.ActionDecl: "action", A.EnumDecl: "enum"}


def show(t) -> str:
    """A type as the designer would name it."""
    if t[0] in ("card", "def"):
        return f"{t[0]} of {t[1]}"
    if t[0] == "list":
        return f"list of {show(t[1])}"
    if t[0] in ("zone", "grid", "cell", "line", "space", "track", "marker"):
        return f"{t[0]} {t[1]}" if len(t) > 1 else t[0]
    return {"sym": "enum value", "keyed": "keyed counter"}.get(t[0], t[0])


FORMULA = ("formula",)
FIELD_TYPES = {"int": INT, "bool": BOOL, "text": TEXT, "action": ACTION, "enum": SYM, "list": T_list(INT),
               "set": T_list(SYM), "formula": FORMULA}

CONSTANTS = {"players": T_list(PLAYER), "player_count": INT}


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




class Checker:
    """Walks a program once for declarations, then once for every body, collecting errors."""

    def __init__(self, program: A.Program, formulas: dict | None = None):
        self.p = program
        # (kind, formula field) -> {(definition name, types of the card's arguments)}: what the card
        # databases name, when they are known (a second check, after the cards are loaded)
        self.formulas = formulas or {}
        self.formula_calls: dict = {}
        self.errors = []
        self.types: dict = {}
        self.decided = Decided()
        self.res: Resolver | None = None
        self.var_types: dict = {}  # resolver.Var -> its static type, as the walk reaches it
        self.decls: dict[str, Any] = {}
        self.kinds: dict = {}
        self.zones: dict = {}
        self.counters: dict = {}
        self.markers: dict = {}
        self.pieces: dict = {}
        self.tracks: dict = {}
        self.grids: dict = {}
        self.slots: dict = {}  # slot name -> (kind declaring it, SlotDecl)
        self.funcs: dict = {}
        self.actions: dict = {}
        self.params: dict = {}
        self.triggers: list = []
        self.game = None
        self.setup = None
        self.round = None
        self.victory = None
        self.evaluation = None
        self.enum_values: set[str] = set()
        self.used_actions: set[str] = set()
        self.given_markers: set[str] = set()
        self.holder_uses: list = []
        self.func_params: dict[str, list] = {}
        self._decl_span = A.Span(1, 1)
        self._typing: set[str] = set()
        self._cycles: set[frozenset] = set()
        self._loop_depth = 0

    # -- reporting
    def err(self, node_or_span, message, hint=None):
        span = node_or_span if isinstance(node_or_span, A.Span) else node_or_span.span
        path = span.path or self.p.path
        self.errors.append(at(path, self.p.source_of(path), span, message, hint))

    # -- entry point
    def run(self) -> Model:
        self.collect()
        self.check_bodies()
        if self.errors:
            raise CheckError(self.errors)
        return Model(self.p, self.game, self.params, self.kinds, self.zones, self.counters,
                     self.markers, self.pieces, self.tracks, self.grids, self.funcs, self.actions, self.setup,
                     self.round, tuple(self.triggers), self.victory, frozenset(self.enum_values),
                     frozenset(self.used_actions), self.types, self.res.bindings, self.evaluation,
                     self.slots, self.formula_calls, self.decided)

    def binding(self, node):
        """What the resolver found a Name (or a call) to stand for."""
        return self.res.bindings[node]

    def bind(self, site, name, t):
        """Give the local variable that `site` binds as `name` the type `t`."""
        self.var_types[self.res.var(site, name)] = t

    def collect(self):
        singletons = {A.Game: "game", A.SetupDecl: "setup", A.RoundDecl: "round", A.VictoryDecl: "victory",
                      A.EvaluateDecl: "evaluation"}
        tables = {A.ParamDecl: self.params, A.KindDecl: self.kinds, A.ZoneDecl: self.zones,
                  A.CounterDecl: self.counters, A.MarkerDecl: self.markers, A.TrackDecl: self.tracks,
                  A.PieceDecl: self.pieces,
                  A.GridDecl: self.grids, A.FuncDecl: self.funcs, A.ActionDecl: self.actions,
                  A.EnumDecl: {}}
        for item in self.p.items:
            if isinstance(item, (A.Extends, A.Replace, A.Amend, A.CardEdit)):
                self.err(item, "layering (`extends`, `replace`, `amend`) is resolved when the file is loaded "
                               "with its layers", "load it with rulesdsl.layers.load_ruleset")
                continue
            if type(item) in singletons:
                attr = singletons[type(item)]
                if getattr(self, attr) is not None:
                    self.err(item, f"a second `{attr}` block; a ruleset has one")
                setattr(self, attr, item)
            elif isinstance(item, A.TriggerDecl):
                self.triggers.append(item)
            else:
                table = tables[type(item)]
                if item.name in self.decls:
                    first = self.decls[item.name].span
                    where = f"{first.path}:{first.line}" if first.path and first.path != item.span.path else f"line {first.line}"
                    self.err(item, f"`{item.name}` is already declared at {where}")
                    continue
                self.decls[item.name] = item
                table[item.name] = item
        for kind in self.kinds.values():
            self.collect_fields(kind.fields, f"kind {kind.name}")
            self.collect_card_counters(kind)
            self.collect_slots(kind)
        for track in self.tracks.values():
            self.collect_fields(track.fields, f"track {track.name}")
        for grid in self.grids.values():
            self.collect_fields(grid.cell_fields, f"grid {grid.name}")
            self.collect_fields(grid.line_fields, f"grid {grid.name}")
        if self.game is None:
            self.err(A.Span(1, 1), "the ruleset has no `game` block", "start with `game \"Name\" { players 2..4 }`")
        elif not 1 <= self.game.min_players <= self.game.max_players:
            self.err(self.game, "the player range is empty")
        elif not self.game.min_players <= self.game.default_players <= self.game.max_players:
            self.err(self.game, "the default player count is outside the player range")
        elif self.game.seats and len(self.game.seats) != self.game.max_players:
            self.err(self.game, f"`seats` names {count_of(len(self.game.seats), 'seat')} for up to "
                                f"{count_of(self.game.max_players, 'player')}")
        if self.round is None:
            self.err(A.Span(1, 1), "the ruleset has no `round` block")

    def collect_card_counters(self, kind):
        """A kind's counters: each a keyed counter whose keys are the kind's cards, named once
        among all counters (a rule reads it `c.eggs` and sets it `set c.eggs += 1`)."""
        fields = {f.name for f in kind.fields}
        for c in kind.counters:
            if c.keyed or c.per_player:
                self.err(c, f"counter `{c.name}` of kind {kind.name} belongs to each card: it cannot be "
                            f"{'keyed' if c.keyed else 'per player'}")
            if c.name in fields or c.name == "name":
                self.err(c, f"kind {kind.name} has a field `{c.name}` already", "rename the counter")
            elif c.name in self.decls:
                first = self.decls[c.name].span
                self.err(c, f"`{c.name}` is already declared at line {first.line}",
                         "a card's counter is named once among all declarations")
            else:
                self.decls[c.name] = c
                self.counters[c.name] = attrs.evolve(c, keyed=True, per_player=False)

    def collect_slots(self, kind):
        """A kind's slots, each named once in the whole ruleset (a card's slot is written
        `slot(c, NAME)` and its cards' place in traces is `#card.NAME`)."""
        for sl in kind.slots:
            if sl.name in self.slots:
                other = self.slots[sl.name][1].span
                self.err(sl, f"slot `{sl.name}` is already declared at line {other.line}",
                         "slot names are unique in a ruleset, across kinds")
            elif sl.name in self.decls:
                what = _DECL_WORDS.get(type(self.decls[sl.name]), "declaration")
                self.err(sl, f"slot `{sl.name}` has the name of {what} `{sl.name}`", "rename one of them")
            else:
                self.slots[sl.name] = (kind, sl)

    def check_slot(self, kind, sl):
        self.check_kind_ref(sl.kind, sl)
        if sl.per_player:
            self.err(sl, f"slot `{sl.name}` belongs to a card, not to a player: it cannot be `per player`")
        if sl.visibility == "private":
            self.err(sl, f"slot `{sl.name}` has no owner to be `private` for", "make it `public` or `hidden`")
        lim = sl.limit
        if lim is None:
            return
        if isinstance(lim, A.Name) and any(f.name == lim.id for f in kind.fields):
            f = next(f for f in kind.fields if f.name == lim.id)
            if f.type.name != "int":
                self.err(lim, f"a slot's limit must be an int field of kind {kind.name}; `{lim.id}` is {f.type.name}")
            return
        if not (isinstance(lim, A.Lit) and type(lim.value) is int):
            self.err(lim, "a slot's limit is a number or an int field of the card",
                     f"for instance `limit 2`, or `limit {next((f.name for f in kind.fields if f.type.name == 'int'), 'size')}`")
        elif lim.value < 0:
            self.err(lim, "a slot's limit cannot be negative")

    def collect_fields(self, fields, owner):
        seen = set()
        for f in fields:
            if f.name in seen:
                self.err(f, f"field `{f.name}` appears twice in {owner}")
            seen.add(f.name)
            if f.name == "name":
                self.err(f, "`name` is implicit on every card and cannot be declared")
            if f.type.name == "formula" and not owner.startswith("kind"):
                self.err(f.type, "only cards have formula fields", "a formula names a definition in the card database")
            if f.type.name in ("enum", "set"):
                if len(set(f.type.values)) != len(f.type.values):
                    self.err(f.type, "an enum value is listed twice")
                self.enum_values.update(f.type.values)

    # -- bodies
    def check_scores(self, block):
        """Bind a victory or evaluate block's player and check its `score` lines, each an integer
        named once."""
        self.bind(block, block.var, PLAYER)
        named = {block.var}
        for s in block.scores:
            if s.name in named:
                self.err(s, f"score `{s.name}` is declared twice")
            named.add(s.name)
            self.expect(s.value, (INT,), "a score")
            self.bind(s, s.name, INT)

    def check_bodies(self):
        self.res = Resolver(self.p).program(self.p)
        order = list(self.params)
        for i, prm in enumerate(self.params.values()):
            self.expect(prm.value, (INT, BOOL, TEXT), "a parameter")
            if prm.allowed is not None:
                allowed = self.expr(prm.allowed)
                if allowed[0] != "list":
                    self.err(prm.allowed, "a parameter's allowed values are a range or a list")
            for node in _names_in(prm.value):
                is_param = self.binding(node).kind == "param"
                if is_param and node.id not in order[:i]:
                    self.err(node, f"`{node.id}` is declared after `{prm.name}`: a parameter can use only "
                                   "parameters declared before it")
                elif not is_param:
                    self.err(node, f"a parameter's value can use only literals and earlier parameters, "
                                   f"not `{node.id}`")
        for kind in self.kinds.values():
            for f in kind.fields:
                self.check_default(f)
                enum_name = f.type.name == "enum" and isinstance(f.default, A.Name)  # checked above
                if f.default is not None and f.type.name not in ("action", "set") and not enum_name and (
                        not _is_literal(f.default) or isinstance(f.default, A.Name)):
                    self.err(f.default, "a card field default must be a literal value",
                             "card databases are data: write a number, true/false, a text, an enum value or none")
        for kind in self.kinds.values():
            for sl in kind.slots:
                self.check_slot(kind, sl)
            self.check_faces(kind)
        for zone in list(self.zones.values()) + list(self.grids.values()):
            if zone.visibility == "private" and not zone.per_player:
                what = "zone" if isinstance(zone, A.ZoneDecl) else "grid"
                self.err(zone, f"{what} `{zone.name}` is `private` but has no owner",
                         "a private zone is seen by its owner only: add `per player`, or make it `hidden`")
        for zone in self.zones.values():
            self.check_kind_ref(zone.kind, zone)
            if zone.limit is not None:
                self.expect(zone.limit, (INT,), "a zone limit")
        for c in self.counters.values():
            self.expect(c.init, (INT,), "a counter's initial value")
            for bound in (c.low, c.high):
                if bound is not None:
                    self.expect(bound, (INT,), "a counter bound")
        for track in self.tracks.values():
            if track.size < 1:
                self.err(track, "a track needs at least one space")
            for f in track.fields:
                self.check_default(f)
            for indices, assigns in track.spaces:
                for i in indices:
                    if not 0 <= i < track.size:
                        self.err(track, f"space {i} is outside the track (0..{track.size - 1})")
                self.check_assigns(assigns, track.fields, f"track {track.name}")
        for piece in self.pieces.values():
            if piece.name[:1] == "P" and piece.name[1:].isdigit():
                self.err(piece, f"`{piece.name}` is how seat {piece.name[1:]}'s piece is named; choose another name")
            if piece.track not in self.tracks:
                self.err(piece, f"`{piece.track}` is not a track", suggest(piece.track, self.tracks))
        for grid in self.grids.values():
            self.check_grid(grid)
        for act in self.actions.values():
            self._decl_span = act.span
            self.param_types(act.params, what="a routine" if act.routine else "an action")
            if act.requires is not None:
                self.expect(act.requires, (BOOL,), "a requirement")
            self.block(act.body)
        if self.setup is not None:
            self.block(self.setup.body)
            self.unique_steps(self.setup.body, "setup")
        for act in self.actions.values():
            self.unique_steps(act.body, f"action `{act.name}`")
        if self.round is not None:
            seen = set()
            for ph in self.round.phases:
                if ph.name in seen:
                    self.err(ph, f"phase `{ph.name}` appears twice in the round")
                seen.add(ph.name)
                if ph.var:
                    self.bind(ph, ph.var, PLAYER)
                if ph.start is not None:
                    self.expect(ph.start, (PLAYER,), "the first player of a phase")
                self.block(ph.body)
                self.unique_steps(ph.body, f"phase `{ph.name}`")
        for trig in self.triggers:
            self.check_trigger(trig)
        if self.victory is not None:
            v = self.victory
            phases = [ph.name for ph in self.round.phases] if self.round else []
            if v.after not in phases:
                self.err(v, f"victory is checked after `{v.after}`, which is not a phase of the round",
                         suggest(v.after, phases))
            self.check_scores(v)
            self.expect(v.win, (BOOL,), "the win condition")
            for cond, reason in v.reasons:
                if reason is not None and not reason.strip():
                    self.err(cond, "the reason of a win condition is empty", "describe what the player achieved")
            self.expect(v.rank, (INT,), "the ranking")
        if self.evaluation is not None:
            e = self.evaluation
            self.check_scores(e)
            self.expect(e.value, (INT,), "the evaluation")
        self.check_formulas()
        for fn in self.funcs.values():
            if fn not in self.types:
                # Nothing calls it: check its body for errors, but keep no types, so that a later
                # call (a scenario expectation) types it with real arguments.
                saved = (dict(self.types), dict(self.func_params), dict(self.res.bindings))
                self.type_func(fn, [ANY] * len(fn.params), fn)
                self.types, self.func_params, self.res.bindings = saved
        for node, marker in self.holder_uses:
            if marker not in self.given_markers:
                self.err(node, f"nobody is ever given `{marker}`, so this can never be evaluated",
                         f"add `give {marker} to ...` to the setup")
        card_actions = any(f.type.name == "action" for k in self.kinds.values() for f in k.fields)
        for name, act in self.actions.items():
            if act.routine and name not in self.used_actions:
                self.err(act, f"routine `{name}` is never run: no `do` names it")
        if not card_actions:
            # With action fields on cards the card database may name actions: checked after loading.
            for name, act in self.actions.items():
                if name not in self.used_actions and not act.routine:
                    self.err(act, f"action `{name}` can never be performed: no `actions`, `do` or data names it")

    def check_default(self, f):
        if f.default is None:
            return
        want = FIELD_TYPES[f.type.name]
        if want == ACTION:
            self.action_value(f.default)
            return
        if want == FORMULA:
            if not (isinstance(f.default, A.Lit) and f.default.value is None):
                self.err(f.default, f"the default of formula field `{f.name}` can only be none",
                         'a card names its formula in the card database: score = "points(3)"')
            self.types[f.default] = NONE
            return
        if f.type.name == "set":  # a list of this enum's values
            items = f.default.items if isinstance(f.default, A.ListLit) else None
            if items is None or not all(isinstance(i, A.Name) and i.id in f.type.values for i in items):
                self.err(f.default, f"default of `{f.name}` is a list of values of its enum, such as "
                         f"[{f.type.values[0]}]", f"the values: {', '.join(f.type.values)}")
            for i in items or ():
                self.types[i] = SYM
            self.types[f.default] = T_list(SYM)
            return
        if f.type.name == "enum" and isinstance(f.default, A.Name):
            if self.binding(f.default).kind != "enum":  # resolved among this enum's values
                self.err(f.default, f"`{f.default.id}` is not a value of this enum",
                         suggest(f.default.id, f.type.values))
            self.types[f.default] = SYM
            return
        t = self.expr(f.default)
        if t == NONE:
            return
        if not _compatible(t, want):
            self.err(f.default, f"default of `{f.name}` is {show(t)}, expected {show(want)}")

    def action_value(self, expr):
        """Data naming an action: `none` or the name of a declared action."""
        if isinstance(expr, A.Lit) and expr.value is None:
            return
        if isinstance(expr, A.Name) and self.binding(expr).kind in ("action", "routine"):
            self.used_actions.add(expr.id)
            return
        name = expr.id if isinstance(expr, A.Name) else "this"
        self.err(expr, f"`{name}` is not an action", suggest(name, self.actions) if isinstance(expr, A.Name) else None)

    def check_assigns(self, assigns, fields, owner):
        by_name = {f.name: f for f in fields}
        for a in assigns:
            f = by_name.get(a.name)
            if f is None:
                self.err(a, f"{owner} has no field `{a.name}`", suggest(a.name, by_name))
                continue
            want = FIELD_TYPES[f.type.name]
            if want == ACTION:
                self.action_value(a.value)
                continue
            t = self.expr(a.value)
            if not _compatible(t, want):
                self.err(a.value, f"`{a.name}` is {show(want)}, got {show(t)}")
            for node in _names_in(a.value):
                if self.binding(node).kind not in ("param", "enum"):
                    self.err(node, f"data values are fixed before a game starts: `{node.id}` cannot be used here",
                             "use literals, enum values and parameters")

    def check_grid(self, grid):
        self.check_kind_ref(grid.kind, grid)
        kind = self.kinds.get(grid.kind)
        if grid.edges and kind is not None:
            fields = {f.name: f for f in kind.fields}
            for name in grid.edges:
                f = fields.get(name)
                if f is None or f.type.name != "bool":
                    self.err(grid, f"`edges` names bool fields of {grid.kind}; `{name}` is not one",
                             suggest(name, [f.name for f in kind.fields if f.type.name == "bool"]))
        if grid.width < 1 or grid.height < 1:
            self.err(grid, "a grid needs at least one column and one row")

        def inside(cell):
            x, y = cell
            if not (1 <= x <= grid.width and 1 <= y <= grid.height):
                self.err(grid, f"cell ({x}, {y}) is outside the {grid.width} x {grid.height} grid")
        for cell in grid.holes:
            inside(cell)
        for cells, assigns in grid.cells:
            for cell in cells:
                inside(cell)
            self.check_assigns(assigns, grid.cell_fields, f"grid {grid.name} cell")
        for cols, assigns in grid.columns:
            for c in cols:
                if not 1 <= c <= grid.width:
                    self.err(grid, f"column {c} is outside the grid")
            self.check_assigns(assigns, grid.line_fields, f"grid {grid.name} line")
        for rows, assigns in grid.rows:
            for r in rows:
                if not 1 <= r <= grid.height:
                    self.err(grid, f"row {r} is outside the grid")
            self.check_assigns(assigns, grid.line_fields, f"grid {grid.name} line")

    def check_kind_ref(self, kind, node):
        if kind not in self.kinds:
            self.err(node, f"unknown card kind `{kind}`", suggest(kind, self.kinds))

    def param_types(self, params, what="an action"):
        """Type the parameters of an action or routine: the acting player, then defaulted values."""
        seen = set()
        for i, prm in enumerate(params):
            if prm.name in seen:
                self.err(prm, f"parameter `{prm.name}` appears twice")
            seen.add(prm.name)
            if prm.default is not None:
                self.bind(prm, prm.name, self.expr(prm.default))
            else:
                self.bind(prm, prm.name, PLAYER if i == 0 else ANY)
        if not params:
            self.err(self._decl_span, f"{what} needs the acting player as its first parameter",
                     "write it as `name(p)`")
        if params and params[0].default is not None:
            self.err(params[0], f"the first parameter of {what} is the acting player and has no default")
        for prm in params[1:]:
            if prm.default is None:
                self.err(prm, f"parameter `{prm.name}` needs a default value: its type comes from it",
                         f"write `{prm.name} = 0` (or another value of the right type)")

    def unique_steps(self, body, where):
        """Step names must be unique in a body, so that a layer can name the one it changes."""
        seen = set()
        for name, node in _step_nodes(body):
            if name in seen:
                self.err(node, f"{where} has two steps named `{name}`", "a layer could not tell which one it changes")
            seen.add(name)

    def check_trigger(self, trig):
        if trig.event == "reach":
            self.bind(trig, trig.names[0], PLAYER)
            self.expect(trig.cond, (BOOL,), "a threshold condition")
            self.block(trig.body)
            return
        if trig.event in ("enter", "leave"):
            zone = self.zones.get(trig.target)
            if zone is None:
                self.err(trig, f"`{trig.target}` is not a zone", suggest(trig.target, self.zones))
                return
            bound = [("card", zone.kind), PLAYER]
        else:
            grid = self.grids.get(trig.target)
            if grid is None:
                self.err(trig, f"`{trig.target}` is not a grid", suggest(trig.target, self.grids))
                return
            bound = ([("card", grid.kind), ("cell", grid.name), PLAYER] if trig.event == "place"
                     else [("line", grid.name), PLAYER])
        if len(trig.names) != len(bound):
            shape = {"enter": "(card, owner)", "leave": "(card, owner)", "place": "(card, cell, owner)",
                     "fill": "(line, owner)"}
            self.err(trig, f"`on {trig.event}` binds {len(bound)} names: {shape[trig.event]}")
            return
        for n, t in zip(trig.names, bound):
            self.bind(trig, n, t)
        self.block(trig.body)

    # -- statements
    def block(self, stmts):
        for s in stmts:
            self.stmt(s)

    def stmt(self, s):
        m = getattr(self, "s_" + type(s).__name__)
        m(s)

    def s_Let(self, s):
        t = self.expr(s.value)
        if t == KEYED:
            self.err(s.value, "a keyed counter is read one key at a time", "write `name[key]`")
        # A body shares one set of names: a `let` of a name bound in an enclosing block updates it
        # (the resolver gives both the same variable).
        self.bind(s, s.name, t)

    def s_Set(self, s):
        t = self.expr(s.target)
        if t != ANY and not self.is_counter_ref(s.target):
            base = s.target.obj if isinstance(s.target, A.Index) else s.target
            if isinstance(base, A.Name) and base.id in self.counters and self.binding(base).kind == "local":
                self.err(s.target, f"`{base.id}` here is a local variable, which hides the counter `{base.id}`",
                         "rename the variable")
            else:
                self.err(s.target, "only counters can be set", "declare it with `counter`")
        self.expect(s.value, (INT,), "a counter value")
        return t

    def counter_named(self, e):
        """The counter a Name stands for, if it stands for one."""
        b = self.binding(e)
        return b.decl if b.kind == "counter" else None

    def is_counter_ref(self, e):
        if isinstance(e, A.Name):
            c = self.counter_named(e)
            return c is not None and not c.keyed and not c.per_player
        if isinstance(e, A.Attr):
            c = self.counters.get(e.name)
            if c is not None and c.card_kind is not None:
                return self.types.get(e.obj, ANY)[0] == "card"
            return c is not None and c.per_player and not c.keyed and self.types.get(e.obj) == PLAYER
        if isinstance(e, A.Index):
            base = e.obj
            if isinstance(base, A.Name):
                c = self.counter_named(base)
                return c is not None and c.keyed and not c.per_player
            if isinstance(base, A.Attr):
                c = self.counters.get(base.name)
                return c is not None and c.keyed and c.per_player
        return False

    def s_Move(self, s):
        t = self.expr(s.what)
        if t[0] not in ("card", "list", "zone", "none", "any"):
            self.err(s.what, f"`move` takes a card, a list of cards or a zone, not {show(t)}")
        dest = self.expect_zone(s.dest)
        self.same_kind(s, self.card_kind(t), dest, "move")

    def card_kind(self, t):
        """The card kind a value holds or lists, if known."""
        if t[0] in ("card", "def", "zone"):
            return t[1]
        if t[0] == "list":
            return self.card_kind(t[1])
        if t[0] == "grid":
            return self.grids[t[1]].kind
        return None

    def same_kind(self, node, kind, dest, verb):
        where = self.card_kind(dest)
        if kind and where and kind != where:
            self.err(node, f"cannot {verb} a card of kind {kind} into a place that holds {where}")

    def s_Draw(self, s):
        src = self.expect_zone(s.src)
        if s.refill is not None:
            self.same_kind(s, self.card_kind(self.expect_zone(s.refill)), src, "refill")
        self.same_kind(s, self.card_kind(src), self.expect_zone(s.dest), "draw")
        self.bind(s, s.name, ("card", src[1]) if src[0] == "zone" else ANY)

    def s_Shuffle(self, s):
        self.expect_zone(s.zone)

    def s_Create(self, s):
        t = self.expr(s.what)
        if t[0] not in ("def", "any") and not (t[0] == "list" and t[1][0] in ("def", "any")):
            self.err(s.what, f"`create` takes a card definition or a list of them, not {show(t)}",
                     "use `defs(Kind)`")
        if s.times is not None:
            self.expect(s.times, (INT,), "a number of copies")
        dest = self.expect_zone(s.dest)
        self.same_kind(s, self.card_kind(t), dest, "create")

    def s_If(self, s):
        for cond, body in s.branches:
            self.expect(cond, (BOOL,), "a condition")
            self.block(body)
        if s.other is not None:
            self.block(s.other)

    def s_For(self, s):
        self.bind(s, s.var, self.elem_type(s.iter))
        self._loop(s.body)

    def _loop(self, body):
        self._loop_depth += 1
        self.block(body)
        self._loop_depth -= 1

    def s_Repeat(self, s):
        self.expect(s.count, (INT,), "a repeat count")
        self._loop(s.body)

    def s_While(self, s):
        self.expect(s.cond, (BOOL,), "a loop condition")
        self._loop(s.body)

    def s_Break(self, s):
        if self._loop_depth == 0:
            self.err(s, "`break` outside a loop")

    def s_Return(self, s):
        pass

    def s_ChooseOptions(self, s):
        self.check_by(s.by)
        names = set()
        offered = False
        for opt in s.options:
            if opt.name in names:
                self.err(opt, f"option `{opt.name}` appears twice in this choice")
            names.add(opt.name)
            if opt.cond is not None:
                self.expect(opt.cond, (BOOL,), "an option condition")
                if isinstance(opt.cond, A.Lit) and opt.cond.value is False:
                    self.err(opt, f"option `{opt.name}` can never be offered: its condition is false")
                    continue
            offered = True
            self.block(opt.body)
        if not offered:
            self.err(s, "this choice can never be offered: no option's condition can hold")

    def check_by(self, by):
        if by is not None:
            self.expect(by, (PLAYER,), "the player who chooses")

    def unseen_zone(self, e):
        """The declaration of the zone `e` names when nobody may see that zone's cards (`hidden`,
        or `hidden except top` for anything but its top card), else None: a choice among its cards
        would show the chooser what no player sees, whoever the chooser is."""
        decl = None
        while isinstance(e, A.Filter):  # a filter still offers the zone's cards
            e = e.coll
        if isinstance(e, A.Name):
            decl = self.zones.get(e.id)
        elif isinstance(e, A.Attr) and self.types.get(e.obj) == PLAYER:
            decl = self.zones.get(e.name)
        return decl if decl is not None and decl.visibility in ("hidden", "top") else None

    def check_unseen_choice(self, s, what):
        decl = self.unseen_zone(s.coll)
        if decl is not None:
            self.err(s.coll, f"`{what}` offers the cards of zone `{decl.name}`, which no player may see",
                     "draw or move the cards to a zone the chooser sees first, or `reveal` them")

    def s_Reveal(self, s):
        t = self.expr(s.card)
        if t[0] not in ("card", "any"):
            self.err(s.card, f"`reveal` shows a card, not {show(t)}")
        if s.to is not None:
            self.expect(s.to, (PLAYER,), "the player who sees the card")

    def s_ChooseItem(self, s):
        self.check_by(s.by)
        self.check_unseen_choice(s, "choose")
        if isinstance(s.coll, A.ListLit) and not s.coll.items:
            self.err(s, "this choice can never be offered: the list is empty")
        if s.prompt is not None and not s.prompt.strip():
            self.err(s, "the prompt of this choice is empty", "write the question the player is asked, or leave it out")
        self.bind(s, s.var, self.elem_type(s.coll))
        for e in s.label:
            t = self.expr(e)
            if t[0] in ("keyed", "zone", "grid", "track", "formula") or t == ACTION:
                self.err(e, f"a label shows values such as cards, numbers, names and texts, not {show(t)}")
        self.block(s.body)

    def s_Pick(self, s):
        self.check_by(s.by)
        if s.prompt is not None and not s.prompt.strip():
            self.err(s, "the prompt of this choice is empty", "write the question the player is asked, or leave it out")
        self.check_unseen_choice(s, "pick")
        self.bind(s, s.var, self.elem_type(s.coll))
        self.expect(s.cost, (INT,), "a cost")
        self.expect(s.budget, (INT,), "a budget")
        self._loop(s.body)

    def s_Step(self, s):
        # A step only names part of a body: its names stay visible after it.
        for st in s.body:
            self.stmt(st)

    def s_Win(self, s):
        self.expect(s.player, (PLAYER,), "the loser" if s.lose else "the winner")

    def s_EndGame(self, s):
        pass

    def s_Turn(self, s):
        kind = self._faced_card(s.card, "turn")
        self._face_name(kind, s.face)

    # -- faces
    def _faced_card(self, e, what):
        """The kind of the card argument `e` if it has faces (reported otherwise)."""
        t = self.expr(e)
        if t[0] not in ("card", "any"):
            self.err(e, f"`{what}` takes a card, not {show(t)}")
            return None
        kind = self.kinds.get(t[1]) if t[0] == "card" else None
        if kind is not None and not kind.faces:
            self.err(e, f"cards of kind {kind.name} have one face",
                     "declare their faces in the kind: `faces front, back`")
        return kind

    def _face_name(self, kind, e):
        if isinstance(e, A.Name) and self.binding(e).kind == "enum" and kind is not None and kind.faces:
            self.types[e] = SYM
            names = [f.name for f in kind.faces]
            if e.id not in names:
                self.err(e, f"cards of kind {kind.name} have no face `{e.id}`", suggest(e.id, names))
            return
        self.expect(e, (SYM, TEXT), "a face")

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

    def check_formulas(self):
        """Type every definition the card databases name in a formula field, with the arguments of
        its `call`s followed by the card's own; each must give a number."""
        for key, uses in sorted(self.formulas.items()):
            lead = self.formula_calls.get(key)
            if lead is None:
                continue  # never called: never run
            for name, data_types in sorted(uses):
                fn = self.funcs.get(name)
                if fn is None:
                    continue  # reported with its place in the card database (cards.cross_check)
                result = self.type_func(fn, list(lead) + list(data_types), fn)
                if not _compatible(result, INT):
                    self.err(fn, f"`{name}` is a formula of {key[0]}'s `{key[1]}` in the card database, so it must "
                                 f"give a number, not {show(result)}")

    def b_faces(self, e):
        self._faced_card(e.args[0], "faces")
        return T_list(SYM)

    def b_face(self, e):
        kind = self._faced_card(e.args[0], "face")
        self._face_name(kind, e.args[1])
        return ("def", kind.name) if kind is not None else ANY

    def check_faces(self, kind):
        """A kind's faces: named once, not like a field; a face block gives literal values of the
        kind's fields (and a hidden face its name); a hidden face needs every field without a default."""
        fields = {f.name: f for f in kind.fields}
        seen = set()
        for face in kind.faces:
            if face.name in seen:
                self.err(face, f"face `{face.name}` of kind {kind.name} is declared twice")
            seen.add(face.name)
            if face.name in fields or face.name in ("name", "face"):
                self.err(face, f"face `{face.name}` has the name of a field of kind {kind.name}",
                         "a card's database entry gives a face's values under the face's name: rename one")
            given = set()
            for a in face.assigns:
                if a.name == "name" and face.hidden:
                    if not (isinstance(a.value, A.Lit) and isinstance(a.value.value, str)):
                        self.err(a.value, "a face's name is a text")
                elif a.name == "name":
                    self.err(a, f"face `{face.name}` shows the card: its name is the card's (or its own in the "
                                "card database)", "only a `hidden` face, which shows nothing of the card, is named here")
                elif a.name not in fields:
                    self.err(a, f"kind {kind.name} has no field `{a.name}`", suggest(a.name, fields))
                else:
                    self.check_card_value(fields[a.name], a.value)
                given.add(a.name)
            if face.hidden:
                for f in kind.fields:
                    if f.default is None and f.name not in given:
                        self.err(face, f"face `{face.name}` is hidden, so it shows nothing of the card: it needs a "
                                       f"value for `{f.name}`, which has no default", f"add `{f.name} = ...` to its block")
        if kind.faces and "face" in fields:
            self.err(fields["face"], f"kind {kind.name} has faces: `face` is the field naming the face a card shows",
                     "rename the field")

    def check_card_value(self, f, value):
        """A literal value for card field `f` (in a face block), of the field's type."""
        v = _literal(value)
        if v is None and not (isinstance(value, A.Lit) and value.value is None):
            self.err(value, "a card's value is a literal: a number, true or false, a text, a name or a list",
                     "card data are values, not expressions")
            return
        if isinstance(value, A.Lit) and value.value is None:
            v = "none"
        problem = _field_problem(f, v)
        if problem:
            self.err(value, problem.replace("'", "`"))

    def s_Do(self, s):
        call = s.call
        target = self.binding(call)
        if target.kind in ("action", "routine"):
            act = target.decl
            if act.routine and s.main:
                self.err(call.func, f"`{act.name}` is a routine: run it with `do`, only actions are performed")
            self.used_actions.add(act.name)
            self.check_args(call, act.params)
            if call.args and not _compatible(self.types.get(call.args[0], ANY), PLAYER):
                self.err(call.args[0], f"the first argument of `{act.name}` is the acting player, "
                                       f"not {show(self.types[call.args[0]])}")
            return
        if target.kind != "dynamic":
            self.err(call.func, f"`{call.func.id}` is not an action", suggest(call.func.id, self.actions))
            return
        t = self.expr(call.func)
        if not _compatible(t, ACTION):
            self.err(call.func, f"`do` needs an action, got {show(t)}")
        for a in call.args:
            self.expr(a)

    def check_args(self, call, params):
        required = sum(1 for p in params if p.default is None)
        if not required <= len(call.args) <= len(params):
            want = f"{required}" if required == len(params) else f"{required} to {len(params)}"
            self.err(call, f"`{_callee(call)}` takes {want} arguments, got {len(call.args)}")
        for a in call.args:
            self.expr(a)

    def s_Actions(self, s):
        self.expect(s.count, (INT,), "a number of actions")
        self.expect(s.player, (PLAYER,), "the acting player")
        for n in s.names:
            if n not in self.actions or self.actions[n].routine:
                self.err(s, f"`{n}` is not an action", suggest(n, [a for a, d in self.actions.items() if not d.routine]))
            else:
                self.used_actions.add(n)
        if len(set(s.names)) != len(s.names):
            self.err(s, "an action is listed twice")
        if s.unless is not None or s.most is not None:
            # `it` is the action being considered, so a limit can concern one action only.
            self.bind(s, "it", ACTION)
            if s.unless is not None:
                self.expect(s.unless, (BOOL,), "a condition")
            else:
                self.expect(s.most, (INT,), "how many times an action may be chosen")

    def piece_on(self, node, track):
        if (isinstance(node, A.Name) and self.binding(node).kind == "piece"
                and self.pieces[node.id].track != track):
            self.err(node, f"piece `{node.id}` stands on track {self.pieces[node.id].track}, not {track}")

    def s_Advance(self, s):
        self.expect(s.piece, (PLAYER, PIECE), "a player's piece or a piece")
        self.piece_on(s.piece, s.track)
        if s.track not in self.tracks:
            self.err(s, f"`{s.track}` is not a track", suggest(s.track, self.tracks))
        self.expect(s.distance, (INT,), "a distance")
        if s.jump_var:
            self.bind(s, s.jump_var, PLAYER)
            self._loop(s.jump_body)
        if s.pass_var:
            self.bind(s, s.pass_var, PIECE)
            self._loop(s.pass_body)

    def s_Put(self, s):
        self.expect(s.piece, (PLAYER, PIECE), "a player's piece or a piece")
        self.piece_on(s.piece, s.track)
        if s.track not in self.tracks:
            self.err(s, f"`{s.track}` is not a track", suggest(s.track, self.tracks))
        self.expect(s.pos, (INT,), "a space index")

    def s_Place(self, s):
        t = self.expr(s.card)
        if t[0] not in ("card", "none", "any"):
            self.err(s.card, f"`place` takes a card, not {show(t)}")
        g = self.expr(s.grid)
        if g[0] not in ("grid", "any"):
            self.err(s.grid, f"`place ... on` needs a grid, not {show(g)}")
        else:
            self.same_kind(s, self.card_kind(t), g, "place")
        c = self.expr(s.cell)
        if c[0] not in ("cell", "any"):
            self.err(s.cell, f"`at` needs a cell, not {show(c)}", "use `cell(grid, column, row)`")

    def s_Give(self, s):
        self.given_markers.add(s.marker)
        if s.marker not in self.markers:
            self.err(s, f"`{s.marker}` is not a marker", suggest(s.marker, self.markers))
        self.expect(s.to, (PLAYER, NONE), "a player (or none, to put the marker aside)")

    def s_Log(self, s):
        for a in s.args:
            self.expr(a)

    # -- expressions
    def expect(self, e, wanted, what):
        t = self.expr(e)
        if not any(_compatible(t, w) for w in wanted):
            self.err(e, f"{what} must be {' or '.join(show(w) for w in wanted)}, got {show(t)}")
        return t

    def expect_zone(self, e):
        t = self.expr(e)
        if t[0] not in ("zone", "any"):
            hint = "per-player zones are written `p.zone`" if isinstance(e, A.Name) else None
            self.err(e, f"expected a zone, got {show(t)}", hint)
            return ANY
        return t

    def elem_type(self, e):
        t = self.expr(e)
        return self.elem_of(t, e)

    def elem_of(self, t, node):
        elem = self._elem_of(t, node)
        self.decided.elems[node] = elem
        return elem

    def _elem_of(self, t, node):
        if t[0] == "list":
            return t[1]
        if t[0] == "zone":
            return ("card", t[1])
        if t[0] == "grid":
            return ("card", self.grids[t[1]].kind)
        if t == ANY:
            return ANY
        self.err(node, f"expected a collection, got {show(t)}")
        return ANY

    def reads(self, e, what: str, owner: str | None = None):
        """Record what the attribute access `e` reads."""
        self.decided.reads[e] = Reads(what, owner)

    def expr(self, e) -> tuple:
        t = getattr(self, "e_" + type(e).__name__)(e)
        self.types[e] = t
        return t

    def e_Lit(self, e):
        v = e.value
        if v is None:
            return NONE
        if isinstance(v, bool):
            return BOOL
        if isinstance(v, int):
            return INT
        return TEXT

    def e_Name(self, e):
        b = self.binding(e)
        kind, n = b.kind, e.id
        if kind == "local":
            return self.var_types.get(b.decl, ANY)
        if kind == "param":
            return self.expr(b.decl.value)
        if kind in ("zone", "counter", "grid") and b.decl.per_player:
            self.err(e, f"{kind} `{n}` belongs to each player", f"write `p.{n}` for a player `p`")
            return ANY
        if kind == "zone":
            return ("zone", b.decl.kind)
        if kind == "counter":
            return KEYED if b.decl.keyed else INT
        if kind in ("grid", "track", "marker", "kind"):
            return (kind, n)
        if kind == "piece":
            return PIECE
        if kind in CONSTANTS:
            return CONSTANTS[kind]
        if kind == "enum":
            return SYM
        if kind in ("action", "routine"):
            self.used_actions.add(n)
            return ACTION
        if kind == "def":
            self.err(e, f"`{n}` is a definition; call it as `{n}(...)`")
            return ANY
        if kind == "ambiguous":
            what = "constant" if b.decl.kind in CONSTANTS else {"param": "parameter"}.get(b.decl.kind, b.decl.kind)
            other = f"the {what} `{n}`"
            self.err(e, f"`{n}` could mean {other} or {self.res.enum_origins[n]}",
                     "a bare name cannot tell them apart: rename one of them")
            return ANY
        candidates = set(b.decl) | set(self.decls) | self.enum_values | set(CONSTANTS) | {"true", "false", "none"}
        self.err(e, f"unknown name `{n}`", suggest(n, candidates))
        return ANY

    def e_ListLit(self, e):
        elem = None
        for item in e.items:
            t = self.expr(item)
            if elem is None or elem == ANY:
                elem = t
            elif not _compatible(t, elem):
                self.err(item, f"list elements must have one type: {show(elem)} and {show(t)}")
        return T_list(elem or ANY)

    def e_Attr(self, e):
        ot = self.expr(e.obj)
        n = e.name
        if ot == ANY:
            return ANY
        if ot == PLAYER:
            if n in self.zones and self.zones[n].per_player:
                self.reads(e, "player_place")
                return ("zone", self.zones[n].kind)
            if n in self.counters and self.counters[n].per_player:
                self.reads(e, "player_counter")
                return KEYED if self.counters[n].keyed else INT
            if n in self.grids and self.grids[n].per_player:
                self.reads(e, "player_place")
                return ("grid", n)
            owned = [k for k, d in {**self.zones, **self.counters, **self.grids}.items()
                     if getattr(d, "per_player", False)]
            self.err(e, f"players have no zone, counter or grid `{n}`", suggest(n, owned))
            return ANY
        if ot[0] in ("card", "def"):
            kind = self.kinds.get(ot[1])
            if kind is None:
                return ANY
            if n == "name":
                self.reads(e, ot[0] + "_name")
                return TEXT
            for f in kind.fields:
                if f.name == n:
                    self.reads(e, ot[0] + "_field")
                    return FIELD_TYPES[f.type.name]
            if n == "face" and kind.faces:
                self.reads(e, ot[0] + "_field")
                return SYM
            if any(c.name == n for c in kind.counters):
                self.reads(e, "card_counter")
                if ot[0] == "def":
                    self.err(e, f"`{n}` is a counter of each card of kind {kind.name}; a definition has none")
                return INT
            self.err(e, f"card kind `{kind.name}` has no field `{n}`",
                     suggest(n, [f.name for f in kind.fields] + [c.name for c in kind.counters] + ["name"]))
            return ANY
        if ot[0] == "cell":
            if n in ("x", "y"):
                self.reads(e, "cell_" + n, ot[1])
                return INT
            self.reads(e, "cell_data", ot[1])
            return self.data_field(e, self.grids[ot[1]].cell_fields, n, f"cells of grid {ot[1]}")
        if ot[0] == "line":
            self.reads(e, "line_data", ot[1])
            return self.data_field(e, self.grids[ot[1]].line_fields, n, f"lines of grid {ot[1]}")
        if ot[0] == "space":
            self.reads(e, "space_index" if n == "index" else "space_data", ot[1])
            if n == "index":
                return INT
            return self.data_field(e, self.tracks[ot[1]].fields, n, f"spaces of track {ot[1]}")
        self.err(e, f"{show(ot)} has no field `{n}`")
        return ANY

    def data_field(self, e, fields, n, owner):
        for f in fields:
            if f.name == n:
                return FIELD_TYPES[f.type.name]
        self.err(e, f"{owner} have no field `{n}`", suggest(n, [f.name for f in fields]))
        return ANY

    def e_Index(self, e):
        ot = self.expr(e.obj)
        it = self.expr(e.index)
        if ot == KEYED:
            if it not in (INT, SYM, TEXT, ANY, PLAYER, PIECE):
                self.err(e.index, f"a counter key must be a number, text or enum value, got {show(it)}")
            return INT
        if ot[0] == "list":
            if not _compatible(it, INT):
                self.err(e.index, f"a list index must be int, got {show(it)}")
            return ot[1]
        if ot != ANY:
            self.err(e, f"{show(ot)} cannot be indexed")
        return ANY

    def e_Call(self, e):
        if not isinstance(e.func, A.Name):
            self.err(e, "only built-ins and definitions can be called in an expression",
                     "actions are performed with `do`")
            return ANY
        n = e.func.id
        callee = self.binding(e)
        if callee.kind == "local":
            self.err(e, f"`{n}` is a variable, not a function")
            return ANY
        if callee.kind == "def":
            fn = callee.decl
            self.check_args(e, fn.params)
            arg_types = [self.types.get(a, ANY) for a in e.args]
            arg_types += [ANY] * (len(fn.params) - len(arg_types))
            return self.type_func(fn, arg_types, e)
        if callee.kind in ("action", "routine"):
            self.err(e, f"`{n}` is an action", f"perform it with `do {n}(...)`")
            return ANY
        if callee.kind != "builtin":
            self.err(e.func, f"unknown function `{n}`", suggest(n, list(BUILTINS) + list(self.funcs)))
            return ANY
        row = BUILTINS[n]
        lo, hi = row.least, row.most or row.least
        if not lo <= len(e.args) <= hi:
            want = str(lo) if lo == hi else f"{lo} to {hi}"
            self.err(e, f"`{n}` takes {want} arguments, got {len(e.args)}")
            return ANY
        return getattr(self, "b_" + n)(e)

    def type_func(self, fn, arg_types, site):
        """Type a definition's body with the argument types of its first call (monomorphic)."""
        if fn.name in self._typing:
            cycle = frozenset(self._typing)
            if cycle not in self._cycles:  # one report per cycle
                self._cycles.add(cycle)
                self.err(site, f"`{fn.name}` calls itself; definitions cannot recurse")
            return ANY
        if len(self._typing) >= MAX_DEF_DEPTH:
            self.err(site, f"definitions call one another more than {MAX_DEF_DEPTH} deep here",
                     "flatten the chain: compute a part with `let`, or merge small definitions")
            return ANY
        known = self.func_params.get(fn.name)
        if known is not None:
            for prm, was, now in zip(fn.params, known, arg_types):
                if not _compatible(now, was):
                    self.err(site, f"`{fn.name}` was first called with {prm.name} as {show(was)}, here {show(now)}")
            return self.types[fn]
        self.func_params[fn.name] = arg_types
        self._typing.add(fn.name)
        for prm, t in zip(fn.params, arg_types):
            self.bind(prm, prm.name, t if prm.default is None else self.expr(prm.default))
        self.types[fn] = self.expr(fn.body)
        self._typing.discard(fn.name)
        return self.types[fn]

    def names_a(self, node, category) -> bool:
        """True if `node` is a Name the resolver bound to a declaration of `category`."""
        return isinstance(node, A.Name) and self.binding(node).kind == category

    def lambda_arg(self, e):
        """Type an aggregate's second argument, evaluated with `it` bound to each element."""
        self.bind(e, "it", self.elem_type(e.args[0]))
        return self.expr(e.args[1])

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

    # -- slots: small zones attached to cards
    def _slot_kind(self, names):
        """The card kind the named slots hold, if they all hold one."""
        kinds = {self.slots[n][1].kind for n in names if n in self.slots}
        return kinds.pop() if len(kinds) == 1 else None

    def _host_arg(self, e, what):
        t = self.expr(e)
        if t[0] not in ("card", "any", "none"):
            self.err(e, f"`{what}` takes a card, not {show(t)}")
            return None
        kind = self.kinds.get(t[1]) if t[0] == "card" else None
        if kind is not None and not kind.slots and what != "host" and what != "slot_of":
            self.err(e, f"cards of kind {kind.name} have no slots",
                     "declare one in the kind: `slot NAME: row of KIND limit N`")
        return kind

    def _slot_name(self, kind, e, what):
        """Check the slot-name argument; the names it may stand for."""
        if isinstance(e, A.Name) and self.binding(e).kind == "enum":
            self.types[e] = SYM
            if e.id not in self.slots:
                self.err(e, f"`{e.id}` is not a slot", suggest(e.id, self.slots))
                return []
            if kind is not None and e.id not in [sl.name for sl in kind.slots]:
                self.err(e, f"cards of kind {kind.name} have no slot `{e.id}`",
                         suggest(e.id, [sl.name for sl in kind.slots]))
            return [e.id]
        self.expect(e, (SYM, TEXT), f"the slot of `{what}`")
        return [sl.name for sl in kind.slots] if kind is not None else list(self.slots)

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

    def e_Unary(self, e):
        if e.op == "-":
            self.expect(e.operand, (INT,), "a negated value")
            return INT
        self.expect(e.operand, (BOOL,), "`not`'s operand")
        return BOOL

    def e_Binary(self, e):
        op = e.op
        if op in ("and", "or"):
            self.expect(e.left, (BOOL,), f"`{op}`'s left side")
            self.expect(e.right, (BOOL,), f"`{op}`'s right side")
            return BOOL
        lt = self.expr(e.left)
        rt = self.expr(e.right)
        if op == "in":
            elem = self.elem_of(rt, e.right)
            if not _compatible(lt, elem):
                self.err(e, f"`in` compares {show(lt)} with elements of type {show(elem)}")
            return BOOL
        if op in ("==", "!="):
            if not (_compatible(lt, rt) or lt == NONE or rt == NONE):
                self.err(e, f"cannot compare {show(lt)} with {show(rt)}")
            return BOOL
        if op in ("<", "<=", ">", ">="):
            for side, t in ((e.left, lt), (e.right, rt)):
                if not _compatible(t, INT):
                    self.err(side, f"`{op}` compares numbers, got {show(t)}")
            return BOOL
        if op == "+" and (lt[0] in ("list", "zone") or rt[0] in ("list", "zone")):
            le, re_ = self.elem_of(lt, e.left), self.elem_of(rt, e.right)
            if not _compatible(le, re_):
                self.err(e, f"cannot join a collection of {show(le)} with one of {show(re_)}")
            return T_list(le if le != ANY else re_)
        for side, t in ((e.left, lt), (e.right, rt)):
            if not _compatible(t, INT):
                self.err(side, f"`{op}` works on numbers, got {show(t)}")
        return INT

    def e_Range(self, e):
        self.expect(e.lo, (INT,), "a range start")
        self.expect(e.hi, (INT,), "a range end")
        return T_list(INT)

    def e_Filter(self, e):
        elem = self.elem_type(e.coll)
        self.bind(e, "it", elem)
        self.expect(e.cond, (BOOL,), "a `where` condition")
        return T_list(elem)

    def e_Cond(self, e):
        self.expect(e.test, (BOOL,), "a condition")
        a = self.expr(e.then)
        b = self.expr(e.other)
        if a == NONE:
            return b
        if b == NONE or a == ANY:
            return a if a != ANY else b
        if not _compatible(a, b):
            self.err(e, f"both branches must have one type: {show(a)} and {show(b)}")
        return a


def _compatible(t, want) -> bool:
    if t == ANY or want == ANY or t == want:
        return True
    if t[0] == want[0] == "list":
        return _compatible(t[1], want[1])
    if t[0] == want[0] and t[0] in ("card", "def", "zone", "cell", "line", "space", "grid"):
        return t[1] is None or want[1] is None or t[1] == want[1]
    if want in (ACTION, FORMULA) and t == NONE:
        return True
    return False


def _step_nodes(body):
    from .layers import _sub_bodies
    for s in body:
        if isinstance(s, A.Step):
            yield s.name, s
        for sub in _sub_bodies(s):
            yield from _step_nodes(sub)


def _names_in(e):
    """Name nodes of an expression."""
    return (n for n in A.walk(e) if isinstance(n, A.Name))


def _is_literal(e) -> bool:
    if isinstance(e, (A.Lit, A.Name)):
        return True
    if isinstance(e, A.ListLit):  # a list of numbers, for a `list of int` field
        return all(_is_literal(i) and not isinstance(i, A.Name) for i in e.items)
    return isinstance(e, A.Unary) and e.op == "-" and isinstance(e.operand, A.Lit)


def _callee(call) -> str:
    return call.func.id if isinstance(call.func, A.Name) else "action"


def check_expression(model: Model, expr, path: str = "<expression>", source: str | None = None) -> tuple:
    """Type a stand-alone expression (a scenario expectation) against a checked model.

    Errors are reported against `path` and `source`, the text the expression came from.
    Returns (type, types, bindings, decided): the side tables extended with the expression's nodes.
    """
    c = Checker(model.program)
    c.collect()
    c.check_bodies()
    c.errors = []
    c.p = A.Program(path, source if source is not None else "", ())
    c.res.expression(expr)
    t = c.expr(expr)
    if c.errors:
        raise CheckError(c.errors)
    return t, c.types, c.res.bindings, c.decided


def check(program: A.Program, formulas: dict | None = None) -> Model:
    """Check a parsed program; raise CheckError with every problem found. `formulas` are the
    definitions the card databases name in formula fields, once they are loaded (see b_call)."""
    return Checker(with_named_enums(program), formulas).run()


def formula_uses(model: Model, db) -> dict:
    """What the card databases name in formula fields: (kind, field) -> {(definition name, the
    static types of the card's arguments)}, for the second check (see Checker.check_formulas)."""
    sort_types = {"int": INT, "bool": BOOL, "text": TEXT, "name": SYM, "list": T_list(INT)}
    out: dict = {}
    for d in db.defs + db.face_defs:
        for f in model.kinds[d.kind].fields:
            value = d.fields.get(f.name) if f.type.name == "formula" else None
            if value is not None:
                out.setdefault((d.kind, f.name), set()).add((value[0], tuple(sort_types[s] for s in value[2])))
    return out


def with_named_enums(program: A.Program) -> A.Program:
    """The program with every field typed by a named enum given that enum's values (its type keeps
    the name, for printing); a name that is no enum, or an enum listing a value twice, is an error."""
    enums = {i.name: i for i in program.items if isinstance(i, A.EnumDecl)}
    errors = []

    def err(node, message, hint=None):
        path = node.span.path or program.path
        errors.append(make(path, program.source_of(path), node.span.line, node.span.col, message, hint))

    for e in enums.values():
        if len(set(e.values)) != len(e.values):
            err(e, f"enum `{e.name}` lists a value twice")

    def typed(f):
        if f.type.name not in ("named", "named_set"):
            return f
        e = enums.get(f.type.named)
        if e is None:
            err(f.type, f"`{f.type.named}` is not a type", "a field's type is int, bool, text, action, "
                "list of int, enum(a, b, ...) or the name of an `enum` declaration"
                + (f"; {suggest(f.type.named, enums)}" if suggest(f.type.named, enums) else ""))
            return f
        name = "enum" if f.type.name == "named" else "set"
        return attrs.evolve(f, type=A.TypeRef(name, e.values, f.type.span, e.name))

    items = []
    for item in program.items:
        if isinstance(item, (A.KindDecl, A.TrackDecl)):
            item = attrs.evolve(item, fields=tuple(typed(f) for f in item.fields))
        elif isinstance(item, A.GridDecl):
            item = attrs.evolve(item, cell_fields=tuple(typed(f) for f in item.cell_fields),
                                line_fields=tuple(typed(f) for f in item.line_fields))
        items.append(item)
    if errors:
        raise CheckError(errors)
    return attrs.evolve(program, items=tuple(items)) if enums else program
