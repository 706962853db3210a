"""The checker's walk over declarations: collecting them by name, then checking the bodies of
parameters, definitions, actions, triggers, grids, the round and the scores."""
from __future__ import annotations

from .. import ast as A
from ..display import CELL_FIELDS, Display, holes, parse_template
from ..errors import count_of, suggest
from ..resolver import Resolver
from .expressions import _is_literal, _names_in
from .types import ANY, BOOL, INT, PLAYER, SYM, TEXT, T_list, fits_param, show

# The types a parameter may name besides card kinds and enums (`c: Card = none`, `n: int`).
_PARAM_TYPES = {"int": INT, "bool": BOOL, "text": TEXT, "player": PLAYER}


_DECL_WORDS = {A.ParamDecl: "param", A.KindDecl: "kind", A.ZoneDecl: "zone", A.CounterDecl: "counter",
               A.MarkerDecl: "marker", A.TrackDecl: "track", A.PieceDecl: "piece", A.GridDecl: "grid",
               A.FuncDecl: "def", A.ActionDecl: "action", A.EnumDecl: "enum"}


class DeclarationChecks:
    """Collecting the declarations and checking each declaration's body."""

    def collect(self):
        singletons = {A.Game: "game", A.SetupDecl: "setup", A.RoundDecl: "round", A.VictoryDecl: "victory",
                      A.EvaluateDecl: "evaluation", A.HandDecl: "hand"}
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
            elif isinstance(item, A.DisplayDecl):
                self.displays.append(item)
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

    # -- the display section
    def check_display(self):
        """Merge the `display` blocks (rulesdsl/display.py), each name checked against the
        declarations and each template's holes against the fields it may name."""
        labels, internal, cards, cells, scores = {}, set(), {}, {}, {}
        shown = {**self.zones, **self.counters, **self.markers, **self.tracks, **self.pieces, **self.grids, **self.slots}
        for block in self.displays:
            for e in block.entries:
                if isinstance(e, A.DisplayScore):
                    self.bind(e, e.var, PLAYER)
                    self.expect(e.value, (INT,), "a score line")
                    unseen = self.unseen_read(e.value)
                    if unseen is not None:
                        self.err(e.value, f"a score line is shown to every player: it may not read `{unseen}`, "
                                          "which some players do not see (or count)")
                    scores[e.label] = e
                    continue
                if e.what in ("label", "internal"):
                    if e.name not in shown:
                        self.err(e, f"`{e.name}` is no counter, zone, slot, marker, track, piece or grid",
                                 suggest(e.name, shown))
                    elif e.what == "label":
                        labels[e.name] = e.text
                    else:
                        internal.add(e.name)
                    continue
                table, names = (self.kinds, "kind") if e.what == "card" else (self.grids, "grid")
                if e.name not in table:
                    self.err(e, f"`{e.name}` is no {names}", suggest(e.name, table))
                    continue
                parts = self.display_template(e, self.kind_field_names(e.name) if e.what == "card" else CELL_FIELDS)
                if parts is not None:
                    (cards if e.what == "card" else cells)[e.name] = parts
        self.display = Display(labels, frozenset(internal), cards, cells, tuple(scores.values()))

    def kind_field_names(self, kind: str) -> tuple:
        """What a card template of `kind` may name: `name`, the kind's fields and its counters."""
        decl = self.kinds[kind]
        return ("name",) + tuple(f.name for f in decl.fields) + tuple(c.name for c in getattr(decl, "counters", ()))

    def display_template(self, entry, allowed):
        """The parsed template of a `card` or `cell` entry, or None after an error placed in it."""
        parts, problems = parse_template(entry.text)

        def place(offset):
            s = entry.text_span or entry.span
            return A.Span(s.line, s.col + 1 + offset, s.line, s.col + 2 + offset, s.path)
        for offset, message in problems:
            self.err(place(offset), message)
        if problems:
            return None
        for name in holes(parts):
            if name not in allowed:
                at = entry.text.find("{" + name + "}")
                self.err(place(max(at, 0)), f"`{{{name}}}`: a {'card of ' + entry.name if entry.what == 'card' else 'cell'}"
                         f" has no field `{name}`", suggest(name, allowed) or "it may name " + ", ".join(allowed))
                return None
        return parts

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
            if zone.visibility == "others" and not zone.per_player:
                what = "zone" if isinstance(zone, A.ZoneDecl) else "grid"
                self.err(zone, f"{what} `{zone.name}` is `public except owner` but has no owner",
                         "add `per player`: each player's cards are seen by the others")
        for zone in self.zones.values():
            self.check_size(zone)
            if zone.by and not zone.keys and zone.kind in self.kinds:
                self.err(zone, f"zone `{zone.name}` is kept per `{zone.by}`, which is neither an enum nor an enum "
                               f"field of {zone.kind}", "name an `enum` declaration, or a field of the zone's kind "
                                                        "typed enum(...)")
            if zone.by and zone.per_player:
                self.err(zone, f"zone `{zone.name}` is kept both per player and per {zone.by}",
                         "keep one zone per value (`per NAME`) or one per player, not both")
            self.check_kind_ref(zone.kind, zone)
            if zone.limit is not None:
                self.expect(zone.limit, (INT,), "a zone limit")
        for c in self.counters.values():
            if c.visibility == "private" and not c.per_player and c.card_kind is None:
                self.err(c, f"counter `{c.name}` is `private` but has no owner",
                         "a private counter is seen by its owner only: add `per player`, or make it `hidden`")
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
            self.param_types(act.params, what="a routine" if act.routine else "an action", acting=act.acting)
            if act.requires is not None:
                self.expect(act.requires, (BOOL,), "a requirement")
            self._of_nobody = None if act.acting else act.name
            self.block(act.body)
            self._of_nobody = None
        if self.setup is not None:
            self._hand_part = "the set-up"
            self.block(self.setup.body)
            self._hand_part = None
            self.unique_steps(self.setup.body, "setup")
        if self.hand is not None:
            self.block(self.hand.start)
            if self.hand.cond is not None:
                self.expect(self.hand.cond, (BOOL,), "the end of a hand")
            self._hand_part = "the hand's `finish`"
            self.block(self.hand.finish)
            self._hand_part = None
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

    def check_size(self, zone):
        """A zone whose size some player does not know (`size private`, `size hidden`): those players
        must not see its cards either (they could count them); its cards hold no slots and no
        counters of their own (a view names those by their card's place), and it has no `limit` (a
        card refused at a full zone would tell that it is full)."""
        if zone.size == "public":
            return
        shown = {"public": "`public`", "others": "`public except owner`", "top": "`hidden except top`",
                 "private": "`private`"}
        if zone.size == "private" and not zone.per_player:
            self.err(zone, f"zone `{zone.name}` has a `size private` but no owner",
                     "add `per player`, or write `size hidden`: known to nobody")
        elif zone.size == "private" and zone.visibility not in ("private", "hidden"):
            self.err(zone, f"zone `{zone.name}` is {shown[zone.visibility]}: the other players see its cards, "
                           "so they can count them", "make it `private` or `hidden`")
        elif zone.size == "hidden" and zone.visibility != "hidden":
            self.err(zone, f"zone `{zone.name}` is {shown[zone.visibility]}: a player sees its cards, so "
                           "can count them", "make it `hidden`, or its size `private` to its owner")
        kind = self.kinds.get(zone.kind)
        if kind is not None and (kind.slots or kind.counters):
            what = "slots" if kind.slots else "counters of their own"
            self.err(zone, f"zone `{zone.name}` keeps its size from some players, but {zone.kind} cards have "
                           f"{what}", "keep those cards in a zone whose size is public")
        if zone.limit is not None:
            self.err(zone.limit, f"zone `{zone.name}` keeps its size from some players: a `limit` would tell "
                                 "them when it is full", "leave the limit out, or make its size public")

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

    def param_types(self, params, what="an action", acting=True):
        """Type the parameters of an action or routine: the acting player (unless it is a routine of
        nobody, `acting` false), then values with a declared type or a default."""
        seen = set()
        for i, prm in enumerate(params):
            if prm.name in seen:
                self.err(prm, f"parameter `{prm.name}` appears twice")
            seen.add(prm.name)
            if i == 0 and acting and self.declared_type(prm) not in (None, PLAYER, ANY):
                self.err(prm.type, f"the first parameter of {what} is the acting player: its type is player")
                self.param_declared[prm] = PLAYER  # reported here once, not again at every use
            t = self.param_type(prm)
            self.bind(prm, prm.name, t if t is not None else PLAYER if i == 0 and acting else ANY)
        if not params and acting:
            self.err(self._decl_span, f"{what} needs the acting player as its first parameter",
                     "write it as `name(p)`")
        if params and acting and params[0].default is not None:
            self.err(params[0], f"the first parameter of {what} is the acting player and has no default")
        for prm in params[1 if acting else 0:]:
            if prm.default is not None:
                continue
            if what == "a routine" and prm.type is None:
                self.err(prm, f"parameter `{prm.name}` needs a type or a default value",
                         f"write `{prm.name}: int` (every call then gives it) or `{prm.name} = 0`")
            elif what != "a routine":
                # A turn action, or one named in data, is started with its player alone.
                self.err(prm, f"parameter `{prm.name}` needs a default value: an action may be started "
                              "with its player alone", f"write `{prm.name} = 0` (or another value of the "
                              "right type); a routine's parameter may have a type and no default")

    def param_type(self, prm):
        """The type parameter `prm` is bound to: the type it declares (its default checked against
        it), else its default's type; None when it has neither."""
        declared = self.declared_type(prm)
        if prm.default is None:
            return declared
        given = self.expr(prm.default)
        if declared is None:
            return given
        if not fits_param(given, declared):
            self.err(prm.default, f"the default of `{prm.name}` is {show(given)}, not {show(declared)}")
        return declared

    def declared_type(self, prm):
        """The static type a parameter's `: TYPE` names (None without one; ANY when it names no
        type, reported once at the type)."""
        if prm.type is None:
            return None
        known = self.param_declared.get(prm)
        if known is None:
            known = self.param_declared[prm] = self._named_type(prm.type, prm.name)
        return known

    def _named_type(self, t, name):
        if t.name is None:
            item = self._named_type(t.item, name)
            return ANY if item == ANY else T_list(item)
        if t.name in _PARAM_TYPES:
            return _PARAM_TYPES[t.name]
        if t.name in self.kinds:
            return ("card", t.name)
        if isinstance(self.decls.get(t.name), A.EnumDecl):
            return SYM
        names = list(_PARAM_TYPES) + sorted(self.kinds) + sorted(
            n for n, d in self.decls.items() if isinstance(d, A.EnumDecl))
        hint = suggest(t.name, names)
        self.err(t, f"`{t.name}` is not a type, for parameter `{name}`",
                 (hint + "; " if hint else "") + "a parameter's type is int, bool, text, player, a card kind, "
                 "an enum's name, or `list of` one of these")
        return ANY

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
            self.not_kept(trig.cond, "this threshold", "is kept as reached or not in every player's view")
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


def _step_nodes(body):
    from ..layers import _sub_bodies
    for s in body:
        if isinstance(s, A.Step):
            yield s.name, s
        for sub in _sub_bodies(s):
            yield from _step_nodes(sub)
