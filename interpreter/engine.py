"""The generic engine: loads a checked ruleset and plays it through a decision API.

    engine = Engine.load("rulesets/x.lf")
    state = engine.new_game(players=3, seed=7)
    while not engine.is_over(state):
        options = engine.legal(state)          # sorted labels
        engine.apply(state, 0)                 # index into `options`

Everything that belongs to one game is in its state (plain data); the engine only points at the
state and the sink of the call in progress, and a sink is given with each call.
"""
from __future__ import annotations

import copy
from pathlib import Path

import attrs

from rulesdsl import ast as A
from rulesdsl.cards import CardDB, cross_check, load_cards, merge_cards
from rulesdsl.layers import load_ruleset
from rulesdsl.checker import CheckError, Model, check
from rulesdsl.errors import CardError, Diagnostic, LanguageError, make, player_range
from rulesdsl.files import DATA_MAX_BYTES, FileRefused, Project, check_name, check_readable, digest, overlay
from rulesdsl.limits import MAX_CARDS, MAX_GAME_STEPS, MAX_INT, MAX_KEYS, MIN_INT

from .compiler import SUSPEND, Compiler, RuleError, piece_key
from .params import resolve_params
from .state import Frame, GameState


class GameError(Exception):
    """A runtime failure of the rules: a loop over budget, a stall, or a rule that cannot run."""

    def __init__(self, diagnostic: Diagnostic):
        super().__init__(diagnostic.render())
        self.diagnostic = diagnostic


class InternalError(GameError):
    """The engine itself failed (a defect of lfdsl): reported with the rule that was running."""


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


@attrs.frozen
class TrackMeta:
    """Static facts of a track: its size and the data of each space."""

    name: str
    size: int
    space_data: tuple


class Engine:
    """A loaded ruleset with its cards, compiled once; plays any number of games."""

    def __init__(self, model: Model, cards: CardDB, params: dict | None = None):
        self.model = model
        self.cards = cards
        self.path = model.program.path
        self.params = resolve_params(model, params or {})
        comp = Compiler(model, self.params)
        self.fields = [d.fields for d in cards.defs]
        self.names = [d.name for d in cards.defs]
        self.defs_by_kind = {k: tuple(d.index for d in v) for k, v in cards.by_kind.items()}
        comp.m_player_keys = {}
        self._player_keys = comp.m_player_keys
        for name in list(model.zones) + list(model.grids):
            decl = model.zones.get(name) or model.grids.get(name)
            if decl.per_player:
                comp.m_player_keys[name] = [f"P{i + 1}.{name}" for i in range(model.game.max_players)]
        self.grid_meta = {g.name: self._grid_meta(g, comp) for g in model.grids.values()}
        self.track_meta = {t.name: self._track_meta(t, comp) for t in model.tracks.values()}
        comp.compile_all()
        self.procs = comp.procs
        self.compiled_funcs = comp.funcs
        self.triggers = comp.trigger_procs
        self.reach = comp.reach_procs
        self._limit_exprs = {z.name: comp.expr(z.limit) for z in model.zones.values() if z.limit is not None}
        self._init_exprs = {c.name: comp.expr(c.init) for c in model.counters.values()}
        self._bound_exprs = {c.name: (comp.expr(c.low) if c.low is not None else None,
                                      comp.expr(c.high) if c.high is not None else None)
                             for c in model.counters.values()}
        self.kind_of_zone = {z.name: z.kind for z in model.zones.values()}
        self.phases = list(model.round.phases)
        self.phase_start = {ph.name: comp.expr(ph.start) for ph in self.phases if ph.start is not None}
        v = model.victory
        if v is not None:
            self.victory_scores = [(s.name, comp.expr(s.value)) for s in v.scores]
            self.victory_win = comp.expr(v.win)
            self.victory_rank = comp.expr(v.rank)
            self.victory_reasons = [(comp.expr(c), text) for c, text in v.reasons if text is not None]
        self.step_budget = model.game.step_budget
        self.decision_limit = model.game.decision_limit
        self.round_limit = model.game.round_limit
        self.sink = None
        self.st: GameState | None = None
        self.origin: dict | None = None  # set by `load`: the files and parameters, for traces
        self._texts: dict | None = None  # set by `load`: every file's text, for pickling

    # ---- loading --------------------------------------------------------------------------------
    @classmethod
    def load(cls, ruleset: str | Path, cards: str | Path | None = None, params: dict | None = None,
             search: tuple = ()) -> "Engine":
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
        cross_check(model, db)
        try:
            engine = cls(model, db, params)
        except RuleError as exc:  # something the checker let through that cannot be compiled
            span = exc.span or model.game.span
            raise CheckError([make(span.path or str(ruleset), model.program.source_of(span.path),
                                   span.line, span.col, exc.message,
                                   "the type of this value is not known here")]) from None
        # What a trace needs to replay the game alone: the files as given, with the hash of each
        # file that was loaded, and the parameters as set.
        texts = dict(model.program.sources)
        texts.update(db.texts)
        engine._texts = texts  # what a pickled engine carries, so a worker reads no file
        files = {path: digest(text) for path, text in texts.items()}
        engine.origin = {"ruleset": str(ruleset), "cards": None if cards is None else str(cards),
                         "search": [str(p) for p in search],
                         "set": {k: str(v) for k, v in (params or {}).items()}, "files": files}
        return engine

    def __reduce__(self):
        """An engine pickles as its recipe: the files' texts, the parameters and the search roots.
        Unpickling compiles it again from those texts, reading nothing from the disk."""
        if self.origin is None or self._texts is None:
            raise TypeError("only an engine made by Engine.load can be pickled")
        return (_rebuild, (self.origin, self._texts))

    def _data(self, fields, comp, count):
        defaults = {}
        for f in fields:
            defaults[f.name] = comp.expr(f.default)(self, {}) if f.default is not None else None
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
                    cells[(y - 1) * w + (x - 1)][a.name] = comp.expr(a.value)(self, {})
        line_defaults, _ = self._data(g.line_fields, comp, 0)
        lines = {f"column {c}": dict(line_defaults) for c in range(1, w + 1)}
        lines.update({f"row {r}": dict(line_defaults) for r in range(1, h + 1)})
        for group, assigns in g.columns:
            for c in group:
                for a in assigns:
                    lines[f"column {c}"][a.name] = comp.expr(a.value)(self, {})
        for group, assigns in g.rows:
            for r in group:
                for a in assigns:
                    lines[f"row {r}"][a.name] = comp.expr(a.value)(self, {})
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
                    spaces[i][a.name] = comp.expr(a.value)(self, {})
        return TrackMeta(t.name, t.size, tuple(spaces))

    # ---- decision API ---------------------------------------------------------------------------
    def new_game(self, players: int | None = None, seed: int = 0, sink=None,
                 setup_only: bool = False) -> GameState:
        """A new game, run until its first decision. `sink` receives trace events (dicts)."""
        n = players if players is not None else self.model.game.default_players
        g = self.model.game
        if not g.min_players <= n <= g.max_players:
            raise ValueError(f"{g.name} is played by {player_range(g.min_players, g.max_players)}, not {n}")
        st = GameState(n, seed)
        self.st = st
        self.sink = sink
        st.zone_limits = {name: f(self, {}) for name, f in self._limit_exprs.items()}
        for z in self.model.zones.values():
            if z.per_player:
                for i in range(n):
                    st.zones[self._player_keys[z.name][i]] = []
            else:
                st.zones[z.name] = []
        for c in self.model.counters.values():
            init = self._init_exprs[c.name](self, {})
            if c.keyed:
                st.counters[c.name] = [dict() for _ in range(n)] if c.per_player else {}
            else:
                st.counters[c.name] = [init] * n if c.per_player else init
        for mk in self.model.markers:
            st.markers[mk] = None
        for t in self.model.tracks.values():
            st.tracks[t.name] = {f"P{i + 1}": None for i in range(n)}
        for piece in self.model.pieces.values():
            st.tracks[piece.track][piece.name] = None
        for gr in self.model.grids.values():
            keys = self._player_keys[gr.name][:n] if gr.per_player else [gr.name]
            for k in keys:
                st.grids[k] = {}  # cell -> card: only filled cells are stored
        st.keyed_init = {c.name: self._init_exprs[c.name](self, {})
                         for c in self.model.counters.values() if c.keyed}
        st.bounds = {name: tuple(f(self, {}) if f is not None else None for f in pair)
                     for name, pair in self._bound_exprs.items()}
        self.run(st, setup_only)
        return st

    def use(self, st: GameState):
        """Make `st` the state in play (everything that belongs to one game is in the state)."""
        self.st = st

    def is_over(self, st: GameState) -> bool:
        """True once the game has a result."""
        return st.result is not None

    def legal(self, st: GameState) -> list[str]:
        """The labels of the options of the pending decision, in their stable order."""
        return list(st.pending["options"]) if st.pending else []

    def apply(self, st: GameState, choice, sink=None) -> GameState:
        """Take option `choice` (an index or a label) of the pending decision and run on."""
        if st.pending is None:
            raise ValueError("no decision is pending")
        self.use(st)
        self.sink = sink  # per call: a clone played without a sink writes nowhere
        d = st.pending
        if isinstance(choice, str):
            if choice not in d["options"]:
                raise ValueError(f"`{choice}` is not a legal option; legal: {', '.join(d['options'])}")
            choice = d["options"].index(choice)
        if not 0 <= choice < len(d["options"]):
            raise ValueError(f"option {choice} is out of range")
        st.pending = None
        st.decisions += 1
        st.total_steps += st.steps
        st.steps = 0
        if st.total_steps > MAX_GAME_STEPS:
            raise self.runtime_error(self.model.round.span, f"the game has taken more than {MAX_GAME_STEPS:,} "
                                     "steps in all, the most the engine runs for one game")
        if st.decisions > self.decision_limit:
            raise self.runtime_error(self.model.round.span, f"more than {self.decision_limit} decisions in "
                                     "one game: it does not progress", "raise `decision_limit` in the game block")
        label = d["options"][choice]
        if self.sink is not None:
            self.emit("choice", {"prompt": d["prompt"], "choice": label, "options": d["options"]}, d["player"])
        fr = st.stack[-1]
        how = d["how"]
        kind = how["kind"]
        if kind == "jump":
            fr.pc = how["pcs"][choice]
        elif kind == "bind":
            fr.env[how["var"]] = how["values"][choice]
        elif kind == "pick":
            value = how["values"][choice]
            if value is None:
                env = fr.env
                del env[how["left"]], env[how["count"]]
                fr.pc = how["end"]
            else:
                fr.env[how["var"]] = value
                fr.env[how["left"]] -= how["costs"][choice]
                fr.env[how["count"]] += 1
        elif kind == "act":
            env = fr.env
            env[how["left"]] -= 1
            env[how["used"]].append(label)
            self.perform(label, [how["player"]], how["player"], bonus=False, span=None)
        self.run(st)
        return st

    # ---- the run loop ---------------------------------------------------------------------------
    def run(self, st: GameState, setup_only: bool = False):
        """Execute instructions until a decision is pending or the game is over."""
        self.st = st
        procs = self.procs
        budget = self.step_budget
        stack = st.stack
        proc, pc, in_flow = None, 0, False
        try:
            while st.pending is None and st.result is None:
                if not stack:
                    if setup_only and st.stage == "setup":
                        return
                    in_flow = True
                    if not self.advance_flow(st):
                        return
                    in_flow = False
                    continue
                fr = stack[-1]
                proc = procs[fr.proc]
                code = proc.code
                end = len(code)
                # Run this frame until it ends, suspends, or another frame goes on top.
                while True:
                    pc = fr.pc
                    if pc >= end:
                        stack.pop()
                        if self.reach and proc.kind == "phase":
                            # Thresholds are checked whenever a turn (a phase body) ends.
                            self.check_thresholds()
                        break
                    fr.pc = pc + 1
                    st.steps += 1
                    if st.steps > budget:
                        raise RuleError(f"more than {budget} steps without a decision in "
                                        f"{self._where(proc)}: a rule loops", proc.spans[pc])
                    if code[pc](self, fr) is SUSPEND:
                        return
                    if not stack or stack[-1] is not fr or st.result is not None:
                        break
        except RuleError as exc:
            hint = "check the loop's exit condition" if exc.message.startswith("more than") else None
            raise self.runtime_error(exc.span or self._span_at(proc, pc, in_flow), exc.message, hint) from None
        except (OverflowError, MemoryError, RecursionError) as exc:
            raise self.runtime_error(self._span_at(proc, pc, in_flow),
                                     f"this rule asks for more than the engine can do ({type(exc).__name__})",
                                     "a count or a distance is far too large") from None
        except (TypeError, AttributeError) as exc:
            if "NoneType" not in str(exc):
                raise self.internal_error(self._span_at(proc, pc, in_flow), exc) from exc
            # The one failure rules can cause here: reading from a value that is none.
            raise self.runtime_error(self._span_at(proc, pc, in_flow),
                                     "this rule reads from a value that is none",
                                     "an empty zone's top card, a marker nobody holds or a failed draw "
                                     "is none: test it with `!= none` first") from None
        except (GameError, OSError):
            raise  # a runtime error already reported, or the host's own output failing (a closed pipe)
        except Exception as exc:  # anything else is the engine's own fault, never the ruleset's
            raise self.internal_error(self._span_at(proc, pc, in_flow), exc) from exc

    def _span_at(self, proc, pc, in_flow):
        """The span of what was running: an instruction, or the phase/victory being started."""
        if in_flow or proc is None:
            st = self.st
            if st.phase_index >= 0 and st.phase_index < len(self.phases):
                return self.phases[st.phase_index].span
            return self.model.round.span
        if pc < len(proc.spans):
            return proc.spans[pc]
        return proc.spans[-1] if proc.spans else None

    def _where(self, proc) -> str:
        return {"action": f"action `{proc.name}`", "phase": f"phase `{proc.name}`",
                "setup": "setup", "trigger": f"`{proc.name}`"}.get(proc.kind, proc.name)

    def internal_error(self, span, exc) -> "InternalError":
        """An unexpected failure inside the engine, reported with the rule that was running."""
        return self.runtime_error(span, f"internal error in the engine while running this rule "
                                  f"({type(exc).__name__}: {exc})",
                                  "this is a fault of lfdsl, not of the ruleset: please report it with the "
                                  "ruleset, the seed and this message", InternalError)

    def runtime_error(self, span, message, hint=None, kind=None) -> GameError:
        """A positioned GameError (or `kind`) at `span`, with the round and the trigger running."""
        span = span or A.Span(0, 0)
        prefix = f"round {self.st.round}: " if self.st and self.st.round else ""
        prefix += self._trigger_context(span)
        path = span.path or self.path
        return (kind or GameError)(make(path, self.model.program.source_of(path), span.line, span.col,
                                        prefix + message, hint))

    def _trigger_context(self, span) -> str:
        """`in the trigger `on enter z` (f.lf:9), fired by the statement at f.lf:4: ` when the error
        is inside the trigger that is running, else "". Frames pushed but not yet started have pc 0,
        so the running frame is the top-most one that has started, and the one that fired a trigger
        is the next started frame below it: it is still on the statement that caused the event."""
        st = self.st
        started = [fr for fr in (st.stack if st else ()) if fr.pc > 0]
        if not started or not started[-1].proc.startswith("trigger:"):
            return ""
        decl = self.model.triggers[int(started[-1].proc.split(":", 1)[1])]
        d = decl.span
        if (span.path or self.path) != (d.path or self.path) or not d.line <= span.line <= d.end_line:
            return ""
        what = "on reach" if decl.event == "reach" else f"on {decl.event} {decl.target}"
        text = f"in the trigger `{what}` ({d.path or self.path}:{d.line})"
        if decl.event == "reach":
            return text + ", fired when its condition became true at the end of a turn: "
        if len(started) > 1:
            below = started[-2]
            spans = self.procs[below.proc].spans
            if 0 < below.pc <= len(spans) and spans[below.pc - 1] is not None:
                at = spans[below.pc - 1]
                return text + f", fired by the statement at {at.path or self.path}:{at.line}:{at.col}: "
        return text + ": "

    def advance_flow(self, st: GameState) -> bool:
        """Start the next body of the game's flow; False when the game is over."""
        if st.stage == "new":
            st.stage = "setup"
            data = {"players": st.player_count, "seed": st.seed}
            if self.origin is not None:
                data.update(game=self.model.game.name, params=dict(self.params), **self.origin)
            self.emit("setup", data)
            if "setup" in self.procs:
                st.stack.append(Frame("setup", 0, {}, None))
            return True
        if st.queue:
            who = st.queue.pop(0)
            ph = self.phases[st.phase_index]
            env = {ph.var: who} if ph.var else {}
            if who is not None and self.sink is not None:
                self.emit("turn", {"phase": ph.name}, who)
            st.stack.append(Frame("phase:" + ph.name, 0, env, who))
            return True
        if st.stage == "setup":
            st.stage = "round"
            st.round = 1
            st.phase_index = -1
            st.phase = self.phases[0].name
            self.emit_state()
        elif st.phase_index >= 0:
            done = self.phases[st.phase_index].name
            v = self.model.victory
            if v is not None and v.after == done and self.check_victory(st):
                return False
        st.phase_index += 1
        if st.phase_index >= len(self.phases):
            st.round += 1
            st.phase_index = 0
            st.phase = self.phases[0].name
            if st.round > self.round_limit:
                span = self.model.round.span
                raise self.runtime_error(span, f"the game did not end within {self.round_limit} rounds",
                                         "raise `round_limit` in the game block, or check the victory condition")
            self.emit_state()
        self.begin_phase(st, st.phase_index)
        return True

    def begin_phase(self, st: GameState, index: int, first=None):
        """Make phase `index` current and queue its players (rotated to start at `first`)."""
        ph = self.phases[index]
        st.phase_index = index
        st.phase = ph.name
        if self.sink is not None:
            self.emit("phase", {"name": ph.name})
        if ph.mode == "once":
            st.queue = [None]
        elif ph.mode == "each":
            st.queue = list(range(st.player_count))
        else:
            start = self.phase_start[ph.name](self, {})
            if start is None:
                raise RuleError(f"phase `{ph.name}` starts from nobody: its first player is none", ph.start.span)
            st.queue = [(start + i) % st.player_count for i in range(st.player_count)]
        if first is not None and ph.mode != "once":
            i = st.queue.index(first)
            st.queue = st.queue[i:] + st.queue[:i]

    def start_at(self, st: GameState, phase: str, first=None, round_number: int = 1, sink=None):
        """Scenario support: from a state stopped after setup, play on from `phase`."""
        names = [ph.name for ph in self.phases]
        if phase not in names:
            raise ValueError(f"no phase `{phase}`; phases: {', '.join(names)}")
        self.st = st
        self.sink = sink
        st.stage = "round"
        st.round = round_number
        self.begin_phase(st, names.index(phase), first)
        self.run(st)
        return st

    def seat_names(self, st: GameState) -> dict:
        """`P1` -> the seat's name from the game block (`seats`), if it names them."""
        names = self.model.game.seats
        return {f"P{i + 1}": names[i] for i in range(st.player_count)} if names else {}

    def scores(self, st: GameState, p: int) -> dict:
        """The victory counts of one player."""
        env = {self.model.victory.var: p}
        out = {}
        for name, f in self.victory_scores:
            env[name] = out[name] = f(self, env)
        return out

    def check_victory(self, st: GameState) -> bool:
        """Evaluate the win condition for every player; end the game if anyone wins."""
        var = self.model.victory.var
        winners, counts, ranks, envs = [], {}, {}, {}
        for p in range(st.player_count):
            env = envs[p] = {var: p}
            env.update(self.scores(st, p))
            counts[f"P{p + 1}"] = {k: env[k] for k, _ in self.victory_scores}
            if self.victory_win(self, env):
                winners.append(p)
                ranks[p] = self.victory_rank(self, env)
        if not winners:
            return False
        best = max(ranks.values())
        top = [p for p in winners if ranks[p] == best]
        st.result = {"winners": [f"P{p + 1}" for p in top], "loser": None,
                     "reason": self._victory_reason([envs[p] for p in top])
                               + (f"; shared win at equal rank ({best})" if len(top) > 1
                                  else f"; tie broken by rank ({best})" if len(winners) > 1 else ""),
                     "reached": [f"P{p + 1}" for p in winners], "rank": {f"P{p + 1}": ranks[p] for p in winners},
                     "counts": counts, "round": st.round, "seats": self.seat_names(st)}
        st.stage = "over"
        self.emit("game_end", st.result)
        return True

    def _victory_reason(self, winner_envs) -> str:
        """The texts of the win conditions the winners met (the first met, per winner, evaluated in
        the winner's victory environment), or a generic reason when the victory block gives none."""
        texts = []
        for env in winner_envs:
            text = next((t for cond, t in self.victory_reasons if cond(self, env)), None)
            if text is not None and text not in texts:
                texts.append(text)
        return ", ".join(texts) or f"win condition met after phase `{self.model.victory.after}`"

    # ---- services used by compiled instructions --------------------------------------------------
    def emit(self, event: str, data: dict, player=None):
        """Send one trace event to the sink, if any."""
        st = self.st
        st.seq += 1
        if self.sink is None:
            return
        if player is None and st.stack:
            player = st.stack[-1].active
        self.sink({"seq": st.seq, "round": st.round, "phase": st.phase,
                   "player": f"P{player + 1}" if isinstance(player, int) else None,
                   "event": event, "data": data})

    def emit_state(self):
        """A `state` event: the complete visible and hidden state, by names."""
        if self.sink is None:
            return
        self.emit("state", self.snapshot(self.st))

    def snapshot(self, st: GameState) -> dict:
        """Every zone's cards in order, counters, track positions, grids and marker holders."""
        names = self.names

        def cards(ids):
            return [names[st.card_def[c]] for c in ids]
        grids = {}
        for key, cells in st.grids.items():
            gname = key.split(".")[-1]
            meta = self.grid_meta[gname]
            grids[key] = {f"({i % meta.width + 1},{i // meta.width + 1})": names[st.card_def[c]]
                          for i, c in sorted(cells.items())}
        return {
            "zones": {k: cards(v) for k, v in st.zones.items()},
            "counters": copy.deepcopy(st.counters),
            "markers": {k: (f"P{v + 1}" if v is not None else None) for k, v in st.markers.items()},
            "tracks": {k: {p: pos for p, pos in v.items() if pos is not None} for k, v in st.tracks.items()},
            "grids": grids,
            "rng": st.rng,
        }

    def ask(self, who, prompt, labels, how):
        """Suspend on a decision for player `who`."""
        if who is None:
            raise RuleError("a choice outside any player's turn needs `by player`")
        self.st.pending = {"player": who, "prompt": prompt, "options": labels, "how": how}
        return SUSPEND

    def label(self, value, t) -> str:
        """How a value is shown to a player and in traces."""
        kind = t[0]
        if value is None:
            return "none"
        if isinstance(value, bool):
            return "true" if value else "false"
        if kind == "list":
            return "[" + ", ".join(self.label(v, t[1]) for v in value) + "]"
        if kind == "card":
            return self.names[self.st.card_def[value]]
        if kind == "def":
            return self.names[value]
        if kind == "player":
            return f"P{value + 1}"
        if kind == "cell":
            w = self.grid_meta[t[1]].width
            return f"({value % w + 1},{value // w + 1})"
        return str(value)

    def options_for(self, values, elem_type):
        """Labels and values of a choice among elements: cards equal in name and place are one option."""
        kind = elem_type[0]
        if kind == "card":
            st = self.st
            seen = {}
            for v in values:
                key = (st.card_def[v], st.loc[v])
                if key not in seen:
                    seen[key] = v
            pairs = sorted(((self.names[st.card_def[v]], st.loc[v], v) for v in seen.values()))
            labels = []
            counts = {}
            for name, _, _ in pairs:
                counts[name] = counts.get(name, 0) + 1
            for name, where, _ in pairs:
                labels.append(f"{name} ({where})" if counts[name] > 1 else name)
            return labels, [v for _, _, v in pairs]
        if kind == "int":
            vs = sorted(set(values))
            return [str(v) for v in vs], vs
        pairs = sorted((self.label(v, elem_type), i, v) for i, v in enumerate(values))
        return [p[0] for p in pairs], [p[2] for p in pairs]

    def create(self, def_index: int, key: str):
        st = self.st
        cid = len(st.card_def)
        if cid >= MAX_CARDS:
            raise RuleError(f"more than {MAX_CARDS:,} cards in one game, the most the engine holds")
        st.card_def.append(def_index)
        st.loc.append(key)
        st.zones[key].append(cid)
        return cid

    def _detach(self, card: int):
        st = self.st
        src = st.loc[card]
        if src in st.zones:
            st.zones[src].remove(card)
        else:
            cells = st.grids[src]
            for i, held in cells.items():
                if held == card:
                    del cells[i]
                    break
        return src

    def move(self, card: int, dest: str, bottom: bool = False):
        """Move one card to the top (or bottom) of a zone; a full zone refuses it."""
        st = self.st
        limit = st.zone_limits.get(dest.split(".")[-1])
        target = st.zones[dest]
        if limit is not None and len(target) >= limit:
            if self.sink is not None:
                self.emit("blocked", {"card": self.names[st.card_def[card]], "zone": dest, "limit": limit})
            return False
        src = self._detach(card)
        if bottom:
            target.insert(0, card)
        else:
            target.append(card)
        st.loc[card] = dest
        if self.sink is not None:
            hidden = self._hidden(dest) and self._hidden(src)
            data = {"card": "a hidden card" if hidden else self.names[st.card_def[card]], "from": src, "to": dest}
            if bottom:
                data["bottom"] = True
            self.emit("move", data)
        zname = dest.split(".")[-1]
        if ("enter", zname) in self.triggers:
            owner = self._owner(dest)
            self.run_triggers(("enter", zname), [card, owner])
        return True

    def _hidden(self, key: str) -> bool:
        z = self.model.zones.get(key.split(".")[-1])
        return z is not None and z.hidden

    @staticmethod
    def _owner(key: str):
        return int(key[1:key.index(".")]) - 1 if "." in key else None

    def move_many(self, cards, dest, bottom=False):
        """Move cards one by one; their triggers then run in the order the cards moved."""
        stack = self.st.stack
        bounds = [len(stack)]
        for c in cards:
            self.move(c, dest, bottom)
            bounds.append(len(stack))
        if bounds[-1] - bounds[0] > 0:
            groups = [stack[a:b] for a, b in zip(bounds, bounds[1:])]
            del stack[bounds[0]:]
            for g in reversed(groups):  # the last frame pushed runs first
                stack.extend(g)

    def check_thresholds(self):
        """Run `on reach` triggers for players whose condition has just become true."""
        st = self.st
        fired = False
        for name in self.reach:
            proc = self.procs[name]
            var = proc.params[0][0]
            marks = st.reached.setdefault(name, [False] * st.player_count)
            for p in reversed(range(st.player_count)):  # pushed last seat first: seat 1 runs first
                now = bool(proc.requires(self, {var: p}))
                if now and not marks[p]:
                    st.stack.append(Frame(name, 0, {var: p}, p))
                    fired = True
                marks[p] = now
        return fired

    def run_triggers(self, key, values):
        """Push the trigger bodies registered for an event; they run before the next statement."""
        for name in reversed(self.triggers[key]):
            proc = self.procs[name]
            env = {p: v for (p, _), v in zip(proc.params, values)}
            active = self.st.stack[-1].active if self.st.stack else None
            self.st.stack.append(Frame(name, 0, env, active))

    def draw(self, src: str, refill: str | None, dest: str):
        """Top card of `src` to `dest`; an empty `src` is first refilled by shuffling `refill`."""
        st = self.st
        pile = st.zones[src]
        if not pile and refill is not None and st.zones[refill]:
            for c in list(st.zones[refill]):
                self._detach(c)
                pile.append(c)
                st.loc[c] = src
            if self.sink is not None:
                self.emit("refill", {"zone": src, "from": refill, "cards": len(pile)})
            self.shuffle(src)
        if not pile:
            return None
        card = pile[-1]
        return card if self.move(card, dest) else None

    def shuffle(self, key: str):
        """Fisher-Yates with the game's RNG: a chance step, recorded in the trace."""
        st = self.st
        lst = st.zones[key]
        for i in range(len(lst) - 1, 0, -1):
            j = st.below(i + 1)
            lst[i], lst[j] = lst[j], lst[i]
        if self.sink is not None:
            self.emit("shuffle", {"zone": key, "cards": len(lst)})

    def random_choice(self, values):
        if not values:
            return None
        i = self.st.below(len(values))
        if self.sink is not None:
            self.emit("random", {"index": i, "of": len(values)})
        return values[i]

    def set_counter(self, name, who, key, op, value):
        st = self.st
        if key is not None:
            table = st.counters[name][who] if who is not None else st.counters[name]
            k = str(key)
            old = table.get(k, st.keyed_init[name])
            if len(table) >= MAX_KEYS and k not in table:
                raise RuleError(f"counter `{name}` has {MAX_KEYS:,} keys, the most the engine holds")
        elif who is not None:
            old = st.counters[name][who]
        else:
            old = st.counters[name]
        new = value if op == "=" else old + value if op == "+=" else old - value
        if not MIN_INT <= new <= MAX_INT:
            raise RuleError(f"counter `{name}` went outside the engine's range (-2^63 .. 2^63-1)")
        low, high = st.bounds[name]
        if low is not None and new < low:
            new = low
        if high is not None and new > high:
            new = high
        if key is not None:
            table[k] = new
        elif who is not None:
            st.counters[name][who] = new
        else:
            st.counters[name] = new
        if self.sink is not None and new != old:
            label = name if key is None else f"{name}[{key}]"
            self.emit("counter", {"name": label, "value": new, "was": old}, who)


    def can_perform(self, name: str, args) -> bool:
        proc = self.procs["action:" + name]
        if proc.requires is None:
            return True
        return bool(proc.requires(self, self._bind(proc, args)))

    def _bind(self, proc, args):
        env = {}
        if len(args) > len(proc.params):
            raise RuleError(f"action `{proc.name}` takes at most {len(proc.params)} arguments")
        for i, (pname, default) in enumerate(proc.params):
            env[pname] = args[i] if i < len(args) else default(self, env)
        return env

    def perform(self, name: str, args, active, bonus: bool, span):
        """Start an action: a bonus whose requirement fails is forfeited and recorded."""
        key = "action:" + name
        if key not in self.procs:
            raise RuleError(f"`{name}` is not an action", span)
        proc = self.procs[key]
        env = self._bind(proc, args)
        actor = args[0] if args and isinstance(args[0], int) else active
        if proc.kind == "routine":
            self.st.stack.append(Frame(key, 0, env, actor))
            return
        if proc.requires is not None and not proc.requires(self, env):
            if self.sink is not None:
                self.emit("forfeit", {"action": name, "bonus": bonus}, actor)
            return
        # The first parameter of an action is the acting player: they make its choices.
        if self.sink is not None:
            self.emit("action", {"name": name, "bonus": bonus}, actor)
        self.st.stack.append(Frame(key, 0, env, actor))

    def advance(self, track: str, who, distance: int, span):
        """Move a piece `distance` free spaces forward; occupied spaces are jumped and not counted.

        Returns the players whose pieces were jumped, in the order they were passed."""
        st = self.st
        positions = st.tracks[track]
        size = self.track_meta[track].size
        me = piece_key(who)
        pos = positions.get(me)
        if pos is None:
            raise RuleError("this piece is not on the track", span)
        others = {}
        for key, q in positions.items():
            if key != me and q is not None:
                others.setdefault(q, []).append(key)
        if len(others) >= size:
            raise RuleError("every space is occupied: the piece cannot move", span)
        st.steps += distance  # a long move costs its length in steps
        if st.steps > self.step_budget:
            raise RuleError(f"a move of {distance} spaces is more than the step budget", span)
        jumped, moved, start = [], 0, pos
        for _ in range(distance * size):
            if moved >= distance:
                break
            pos = (pos + 1) % size
            if pos in others:
                jumped.extend(sorted(others[pos]))
            else:
                moved += 1
        positions[me] = pos
        if self.sink is not None:
            self.emit("advance", {"track": track, "piece": me, "from": start, "to": pos, "jumped": jumped},
                      who if isinstance(who, int) else None)
        # Players' pieces come back as players, other pieces by name.
        return [int(k[1:]) - 1 if k.startswith("P") and k[1:].isdigit() else k for k in jumped]

    def put(self, track, who, pos, span):
        size = self.track_meta[track].size
        if not 0 <= pos < size:
            raise RuleError(f"space {pos} is outside the track", span)
        self.st.tracks[track][piece_key(who)] = pos
        if self.sink is not None:
            self.emit("put", {"track": track, "piece": piece_key(who), "to": pos},
                      who if isinstance(who, int) else None)

    def win(self, who, reason, lose=False):
        """End the game at once: `who` wins, or (lose) every other player wins."""
        st = self.st
        counts = {}
        if self.model.victory is not None:
            counts = {f"P{p + 1}": self.scores(st, p) for p in range(st.player_count)}
        winners = [f"P{p + 1}" for p in range(st.player_count) if p != who] if lose else [f"P{who + 1}"]
        st.result = {"winners": winners, "loser": f"P{who + 1}" if lose else None, "reason": reason,
                     "reached": list(winners), "rank": {}, "counts": counts, "round": st.round, "seats": self.seat_names(st)}
        st.stage = "over"
        st.stack.clear()
        self.emit("game_end", st.result)

    def fits(self, gname, key, card, cell, anchor):
        """Would `card` on `cell` (covering what is there) leave every card linked to `anchor`?

        Two orthogonal neighbours are linked when both edges facing each other are set."""
        meta = self.grid_meta[gname]
        cells = dict(self.st.grids[key])
        cells[cell] = card
        if anchor not in cells:
            return False
        fields, cd = self.fields, self.st.card_def
        w = meta.width
        north, east, south, west = meta.edges

        def edge(c, name):
            return fields[cd[c]][name]
        seen = {anchor}
        todo = [anchor]
        while todo:
            i = todo.pop()
            x, y = i % w, i // w
            here = cells[i]
            for dx, dy, mine, theirs in ((0, -1, north, south), (1, 0, east, west),
                                          (0, 1, south, north), (-1, 0, west, east)):
                nx, ny = x + dx, y + dy
                if not (0 <= nx < w and 0 <= ny < meta.height):
                    continue
                j = ny * w + nx
                if j in seen or j not in cells:
                    continue
                if edge(here, mine) and edge(cells[j], theirs):
                    seen.add(j)
                    todo.append(j)
        return len(seen) == len(cells)

    def place(self, card, gname, key, cell, span):
        """Put a card on an empty cell; run `place` triggers, then `fill` for each line it completes."""
        st = self.st
        cells = st.grids[key]
        meta = self.grid_meta[gname]
        if not 0 <= cell < meta.width * meta.height or cell in meta.holes:
            raise RuleError("this cell is a hole", span)
        if cell in cells:
            raise RuleError("this cell is already filled", span)
        src = self._detach(card)
        cells[cell] = card
        st.loc[card] = key
        owner = self._owner(key)
        if self.sink is not None:
            self.emit("place", {"card": self.names[st.card_def[card]], "from": src, "grid": key,
                                "cell": f"({cell % meta.width + 1},{cell // meta.width + 1})"}, owner)
        # The place trigger is pushed first so that completed lines count before it runs.
        if ("place", gname) in self.triggers:
            self.run_triggers(("place", gname), [card, cell, owner])
        if ("fill", gname) in self.triggers:
            for line in meta.lines_of[cell]:
                if all(i in cells for i in meta.line_cells[line]):
                    if self.sink is not None:
                        self.emit("fill", {"grid": key, "line": line}, owner)
                    self.run_triggers(("fill", gname), [line, owner])

    def give(self, marker, to):
        self.st.markers[marker] = to
        if self.sink is not None:
            self.emit("marker", {"marker": marker, "to": f"P{to + 1}" if to is not None else None}, to)


def _rebuild(origin: dict, texts: dict) -> Engine:
    """An engine compiled again from a pickled recipe (see Engine.__reduce__)."""
    with overlay({path: text.encode("utf-8") for path, text in texts.items()}):
        engine = Engine.load(origin["ruleset"], origin["cards"], origin["set"], search=tuple(origin["search"]))
    if engine.origin["files"] != origin["files"]:
        raise ValueError("the pickled engine's files do not rebuild the same engine")
    return engine
