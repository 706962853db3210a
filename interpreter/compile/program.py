"""The compiled program: one ruleset with its cards and parameters, loaded, checked and compiled
once, then shared by any number of games, threads and processes.

A `Program` is immutable once built: every table on it is fixed at load time, and everything that
belongs to one game lives in that game's `GameState` (see state.py) or in the `Run` of one call
(see runtime.py). It pickles as its recipe (the texts of its files, the parameters, the search
roots) and is compiled again from those texts on the other side, reading nothing from the disk.
"""
from __future__ import annotations

from pathlib import Path

import attrs

from rulesdsl import ast as A
from rulesdsl.cards import CardDB, apply_edits, cross_check, load_cards, merge_cards, with_faces
from rulesdsl.layers import load_ruleset
from rulesdsl.checker import CheckError, Model, check, formula_uses
from rulesdsl.errors import CardError, LanguageError, make
from rulesdsl.files import DATA_MAX_BYTES, FileRefused, Project, check_name, check_readable, digest, overlay

from .backend import Backend
from .compiler import Compiler
from .pysource import SourceCompiler
from .params import resolve_params
from ..core.place import keyed_key, player_key
from ..core.primitives import RuleError

@attrs.frozen
class GridMeta:
    """Static facts of a grid: size, playable cells, adjacency, and data per cell and line."""

    name: str
    width: int
    height: int
    playable: tuple
    adjacent: tuple
    cell_data: tuple
    line_data: dict
    holes: frozenset
    lines_of: tuple  # cell -> (column key, row key)
    line_cells: dict
    edges: tuple
    # (dx, dy, this card's edge, the neighbour's facing edge) for each side, when the grid has edges.
    edge_pairs: tuple = attrs.field(init=False, eq=False)

    @edge_pairs.default
    def _edge_pairs(self):
        if len(self.edges) != 4:
            return ()
        north, east, south, west = self.edges
        return ((0, -1, north, south), (1, 0, east, west), (0, 1, south, north), (-1, 0, west, east))


@attrs.frozen
class SlotMeta:
    """A slot of the cards of kind `host`: the kind it holds, who sees its cards, and its limit:
    the int field `field` of the host card, or the number `limit` (None: no limit)."""

    host: str
    kind: str
    visibility: str
    field: str | None
    limit: int | None


@attrs.frozen
class TrackMeta:
    """Static facts of a track: its size and the data of each space."""

    name: str
    size: int
    space_data: tuple


class Program:
    """A loaded ruleset with its cards, compiled once; immutable, shared by every game played on it."""

    # A program has no game: constant expressions evaluated while it is built (cell and space
    # data, defaults) see no state, and charge their work against the engine-wide ceiling.
    st = None

    def __init__(self, model: Model, cards: CardDB, params: dict | None = None,
                 origin: dict | None = None, texts: dict | None = None):
        self.model = model
        self.cards = cards
        self.path = model.program.path
        self.params = resolve_params(model, params or {})
        self.player_keys = {}
        # A zone kept per value: value -> the key of its zone (`piles[red]`).
        self.zone_keys = {z.name: {v: keyed_key(z.name, v) for v in z.keys} for z in model.zones.values() if z.by}
        for name in list(model.zones) + list(model.grids):
            decl = model.zones.get(name) or model.grids.get(name)
            if decl.per_player:
                self.player_keys[name] = [player_key(i, name) for i in range(model.game.max_players)]
        comp = SourceCompiler(model, self.params, self.player_keys, self.zone_keys)
        every = cards.defs + cards.face_defs  # a card's other faces are definitions too
        self.fields = [d.fields for d in every]
        self.names = [d.name for d in every]
        # Per definition of a card with faces: face name -> the definition of that face; and the
        # definitions of hidden faces (a card showing one shows nothing of itself).
        # The faces of one card share one table (a table per face would grow as faces squared).
        tables = {}
        for d in every:
            if d.faces and d.faces[0][1] not in tables:
                tables[d.faces[0][1]] = dict(d.faces)
        self.face_table = [tables[d.faces[0][1]] if d.faces else None for d in every]
        hidden = {(k.name, f.name) for k in model.kinds.values() for f in k.faces if f.hidden}
        self.hidden_faces = frozenset(d.index for d in every if (d.kind, d.face) in hidden)
        self.def_face = [d.face for d in every]
        self.names_of_hidden_faces = frozenset(self.names[i] for i in self.hidden_faces)
        self.defs_by_kind = {k: tuple(d.index for d in v) for k, v in cards.by_kind.items()}
        self.card_counters = frozenset(c.name for c in model.counters.values() if c.card_kind is not None)
        # Counters neither keyed nor a card's: one number, or one per player (what a sight shows).
        self.plain_counters = frozenset(c.name for c in model.counters.values()
                                        if c.card_kind is None and not c.keyed)
        # Whether a player may be offered cards they do not see where they lie (another player's
        # hand, a hand held facing the others): such options are then labelled by place.
        self.may_hide_from_chooser = any(d.visibility in ("private", "others")
                                         for d in list(model.zones.values()) + list(model.grids.values())) or any(
            sl.visibility in ("private", "others") for k in model.kinds.values() for sl in k.slots)
        # Counters not every player sees: name -> "private" (its owner only) or "hidden" (nobody).
        self.secret_counters = {c.name: c.visibility for c in model.counters.values() if c.visibility != "public"}
        # Zones whose size not every player knows: name -> "private" (its owner only) or "hidden".
        self.secret_sizes = {z.name: z.size for z in model.zones.values() if z.size != "public"}
        self.grid_meta = {g.name: self._grid_meta(g, comp) for g in model.grids.values()}
        self.track_meta = {t.name: self._track_meta(t, comp) for t in model.tracks.values()}
        instructions = Compiler(model, comp).compile_all(Backend(comp))
        for d in every:  # the definitions cards name as formulas that some rule calls
            for f in model.kinds[d.kind].fields:
                value = d.fields.get(f.name) if f.type.name == "formula" else None
                if value is not None and (d.kind, f.name) in model.formula_calls:
                    comp.compile_func(model.funcs[value[0]])
        self.procs = instructions.procs
        self.compiled_funcs = comp.funcs
        self.triggers = instructions.trigger_procs
        self.reach = instructions.reach_procs
        self.limit_exprs = {z.name: comp.expr(z.limit) for z in model.zones.values() if z.limit is not None}
        self.init_exprs = {c.name: comp.expr(c.init) for c in model.counters.values()}
        self.bound_exprs = {c.name: (comp.expr(c.low) if c.low is not None else None,
                                      comp.expr(c.high) if c.high is not None else None)
                             for c in model.counters.values()}
        self.kind_of_zone = {z.name: z.kind for z in model.zones.values()}
        # Slots of cards: what each holds and its limit (a number, or a field of the card).
        self.def_kind = [d.kind for d in every]
        self.slots_of_kind = {k.name: tuple(sl.name for sl in k.slots) for k in model.kinds.values() if k.slots}
        self.slot_meta = {}
        for kind, sl in model.slots.values():
            is_field = isinstance(sl.limit, A.Name)
            self.slot_meta[sl.name] = SlotMeta(kind.name, sl.kind, sl.visibility, sl.limit.id if is_field else None,
                                               sl.limit.value if isinstance(sl.limit, A.Lit) else None)
            self.kind_of_zone[sl.name] = sl.kind
        self.phases = list(model.round.phases)
        self.phase_start = {ph.name: comp.expr(ph.start) for ph in self.phases if ph.start is not None}
        v = model.victory
        if v is not None:
            self.victory_scores = [(s.name, comp.expr(s.value)) for s in v.scores]
            self.victory_win = comp.expr(v.win)
            self.victory_rank = comp.expr(v.rank)
            self.victory_reasons = [(comp.expr(c), text) for c, text in v.reasons if text is not None]
        # Whether the scores may wait until the game ends: the `win if` lines read none of them and
        # computing them draws nothing (a victory block that only ranks, at an `end game`).
        read = {n.id for n in A.walk(v.win) if isinstance(n, A.Name)} if v is not None else set()
        self.victory_lazy = v is not None and not (read & {s.name for s in v.scores}) and not any(
            comp.chancy(s.value) for s in v.scores)
        # Each `win if A >= B` (or `A > B`) of the victory as (A, B): how far a player is from
        # meeting it, which is what a bot's default evaluation reads (interpreter/bots/evaluation.py).
        self.victory_thresholds = [] if v is None else [
            (comp.expr(c.left), comp.expr(c.right)) for c, _ in (v.reasons or ((v.win, None),))
            if isinstance(c, A.Binary) and c.op in (">=", ">")
            and model.types.get(c.left) == ("int",) and model.types.get(c.right) == ("int",)]
        e = model.evaluation
        # The ruleset's own evaluation: (player variable, named scores, value), or None.
        self.evaluation = None if e is None else (
            e.var, [(s.name, comp.expr(s.value)) for s in e.scores], comp.expr(e.value))
        # The same as one function of the scores in order and then the value (what a bot calls).
        self.evaluation_block = None if e is None else comp.block(
            [(s.name, s.value) for s in e.scores], e.value, e.span)
        # The display's running scores (rulesdsl/display.py): (label, player variable, value).
        self.display_scores = tuple((s.label, s.var, comp.expr(s.value)) for s in model.display.scores)
        self.step_budget = model.game.step_budget
        self.decision_limit = model.game.decision_limit
        self.round_limit = model.game.round_limit
        # A game of hands: the end of a hand (None: only `end hand` ends one) and its reason.
        self.hands = model.hand is not None
        self.hand_limit = model.game.hand_limit
        self.hand_end = comp.expr(model.hand.cond) if self.hands and model.hand.cond is not None else None
        self.hand_reason = (model.hand.reason or "the hand's end condition holds") if self.hands else None
        self.origin = origin  # the files (with hashes) and parameters it was loaded from, for traces
        self._texts = texts  # every file's text: what a pickled program carries
        # The text of every function the expression compiler wrote.
        self.expression_sources = tuple(comp.sources)
        self._sealed = True


    def __setattr__(self, name, value):
        if getattr(self, "_sealed", False):
            raise AttributeError(f"a compiled program is immutable: cannot set `{name}`")
        object.__setattr__(self, name, value)

    # ---- loading --------------------------------------------------------------------------------
    @classmethod
    def load(cls, ruleset: str | Path, cards: str | Path | None = None, params: dict | None = None,
             search: tuple = ()) -> "Program":
        """Parse (with layers), check, load cards and compile; each step raises its own error.

        Files the ruleset names must lie in its project or under a `search` folder (see files.py);
        `cards`, given by the user, replaces the ruleset's own card databases."""
        project = Project.around(ruleset, search)
        program = load_ruleset(ruleset, project)
        try:
            model = check(program)
        except RecursionError:  # a backstop: nesting and definition depth are bounded before this
            g = next((i for i in program.items if isinstance(i, A.Game)), None)
            span = g.span if g is not None else A.Span(0, 0)
            raise CheckError([make(span.path or str(ruleset), program.source_of(span.path or str(ruleset)),
                                   span.line, span.col, "the rules nest expressions and definitions too "
                                   "deeply to be checked", "flatten deep expressions with `let`")]) from None
        if cards is not None:
            paths = [str(cards)]
        else:
            refused = []
            for ref in model.game.cards:
                try:
                    check_name(ref.written, ref.path, project)
                    check_readable(ref.path, DATA_MAX_BYTES)
                except FileRefused as exc:
                    refused.append(make(ref.span.path, model.program.source_of(ref.span.path), ref.span.line,
                                        ref.span.col, f"`cards \"{ref.written}\"`: {exc.message}", exc.hint))
            if refused:
                raise CardError(refused)
            paths = [ref.path for ref in model.game.cards]
            if not paths:
                g = model.game.span
                raise LanguageError([make(g.path or str(ruleset), model.program.source_of(g.path), g.line, g.col,
                                          "no card database",
                                          "add `cards \"file.toml\"` to the game block or pass --cards")])
        db = merge_cards([load_cards(p, model.kinds) for p in paths])
        db = apply_edits(db, model.program.card_edits, model.kinds, model.program)
        db = with_faces(db, model.kinds)
        cross_check(model, db)
        uses = formula_uses(model, db)
        if uses:  # the definitions the cards name are typed with the arguments they will be given
            model = check(program, uses)
        # What a trace needs to replay the game alone (the files as given, with the hash of each
        # file loaded, and the parameters as set), and what a pickled program carries (the texts).
        texts = dict(model.program.sources)
        texts.update(db.texts)
        files = {path: digest(text) for path, text in texts.items()}
        origin = {"ruleset": str(ruleset), "cards": None if cards is None else str(cards),
                  "search": [str(p) for p in search],
                  "set": {k: str(v) for k, v in (params or {}).items()}, "files": files}
        try:
            program = cls(model, db, params, origin, texts)
        except RuleError as exc:  # something the checker let through that cannot be compiled
            span = exc.span or model.game.span
            raise CheckError([make(span.path or str(ruleset), model.program.source_of(span.path),
                                   span.line, span.col, exc.message,
                                   "the type of this value is not known here")]) from None
        return program

    def __reduce__(self):
        """A program pickles as its recipe: the files' texts, the parameters and the search roots.
        Unpickling compiles it again from those texts, reading nothing from the disk."""
        if self.origin is None or self._texts is None:
            raise TypeError("only a program made by Program.load can be pickled")
        return (_rebuild, (self.origin, self._texts))

    def with_params(self, params: dict) -> "Program":
        """The same ruleset and cards compiled with these parameter values (each a value or a
        `ParamValue` saying where it was written); a wrong one raises `ParamError`."""
        origin = None
        if self.origin is not None:
            given = {k: str(getattr(v, "value", v)) for k, v in params.items()}
            origin = dict(self.origin, set=given)
        return Program(self.model, self.cards, params, origin, self._texts)

    def expression_compiler(self, types: dict, bindings: dict, decided) -> SourceCompiler:
        """A compiler for stand-alone expressions typed by `check_expression` (scenario expectations):
        `.expr(node)` gives a function to evaluate with `Engine.evaluate`. Definitions the
        expressions call are compiled again for their own argument types."""
        model = attrs.evolve(self.model, types=types, bindings=bindings, decided=decided)
        return SourceCompiler(model, self.params, self.player_keys, self.zone_keys)

    def _data(self, fields, comp, count):
        defaults = {}
        for f in fields:
            defaults[f.name] = comp.constant(f.default) if f.default is not None else None
        data = [dict(defaults) for _ in range(count)]
        return defaults, data

    def _grid_meta(self, g: A.GridDecl, comp) -> GridMeta:
        w, h = g.width, g.height
        holes = {(y - 1) * w + (x - 1) for x, y in g.holes}
        playable = tuple(i for i in range(w * h) if i not in holes)
        adjacent = []
        for i in range(w * h):
            x, y = i % w, i // w
            near = []
            for dx, dy in ((0, -1), (-1, 0), (1, 0), (0, 1)):
                nx, ny = x + dx, y + dy
                if 0 <= nx < w and 0 <= ny < h and ny * w + nx not in holes:
                    near.append(ny * w + nx)
            adjacent.append(tuple(near))
        _, cells = self._data(g.cell_fields, comp, w * h)
        for group, assigns in g.cells:
            for x, y in group:
                for a in assigns:
                    cells[(y - 1) * w + (x - 1)][a.name] = comp.constant(a.value)
        line_defaults, _ = self._data(g.line_fields, comp, 0)
        lines = {f"column {c}": dict(line_defaults) for c in range(1, w + 1)}
        lines.update({f"row {r}": dict(line_defaults) for r in range(1, h + 1)})
        for group, assigns in g.columns:
            for c in group:
                for a in assigns:
                    lines[f"column {c}"][a.name] = comp.constant(a.value)
        for group, assigns in g.rows:
            for r in group:
                for a in assigns:
                    lines[f"row {r}"][a.name] = comp.constant(a.value)
        lines_of = tuple((f"column {i % w + 1}", f"row {i // w + 1}") for i in range(w * h))
        line_cells = {}
        for i in playable:
            for key in lines_of[i]:
                line_cells.setdefault(key, []).append(i)
        return GridMeta(g.name, w, h, playable, tuple(adjacent), tuple(cells), lines, frozenset(holes), lines_of,
                        {k: tuple(v) for k, v in line_cells.items()}, g.edges)

    def _track_meta(self, t: A.TrackDecl, comp) -> TrackMeta:
        _, spaces = self._data(t.fields, comp, t.size)
        for group, assigns in t.spaces:
            for i in group:
                for a in assigns:
                    spaces[i][a.name] = comp.constant(a.value)
        return TrackMeta(t.name, t.size, tuple(spaces))


def _rebuild(origin: dict, texts: dict) -> Program:
    """A program compiled again from a pickled recipe (see Program.__reduce__)."""
    with overlay({path: text.encode("utf-8") for path, text in texts.items()}):
        program = Program.load(origin["ruleset"], origin["cards"], origin["set"], search=tuple(origin["search"]))
    if program.origin["files"] != origin["files"]:
        raise ValueError("the pickled program's files do not rebuild the same program")
    return program
