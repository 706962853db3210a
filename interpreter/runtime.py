"""One call's run of a game: the services the compiled rules call and the loop that runs them.

A `Run` is made for each call of the decision API (`new_game`, `apply`, ...) from the shared,
immutable `Program`, the `GameState` of the game being played and the sink of that call. It lives
for one call only, so two games, threads or rollouts never share anything that changes: the
compiled closures receive the run as `rt` and reach the state as `rt.st`.
"""
from __future__ import annotations


from rulesdsl import ast as A
from rulesdsl.errors import Diagnostic, at
from rulesdsl.limits import MAX_CARDS, MAX_DEF_DEPTH, MAX_GAME_STEPS, MAX_INT, MAX_KEYS, MIN_INT

from . import present
from .chance import ChanceError, ChanceEvent, checked
from .compiler import SUSPEND, RuleError, piece_key
from .state import Frame, GameState, Zones

# What setting off one trigger costs, besides the steps of its body. Pushing, starting and ending a body
# costs about what eight plain statements do (a trigger setting itself off took 4.1 us per step charged
# one step, a loop of `move`s 0.5 us), so a trigger that sets itself off meets the step budget after
# about as much work as an endless loop of plain statements (docs/language.md, "game").
TRIGGER_STEPS = 8
# Taking a card out of a pile other than from its top, or putting it under a pile, shifts the list of
# the pile: a step per this many cards (shifting 512 costs about one plain statement), so that
# moves in a pile of a million cards stop at the budget as a loop would. No shipped pile is as long.
PILE_STEP = 512

class GameError(Exception):
    """A runtime failure of the rules: a loop over budget, a stall, or a rule that cannot run."""

    def __init__(self, diagnostic: Diagnostic):
        super().__init__(diagnostic.render())
        self.diagnostic = diagnostic


class LimitError(GameError):
    """The game reached one of its bounds (rounds, decisions, steps in all) without ending: the rules
    may not progress, or the players' choices keep it from ending."""


class InternalError(GameError):
    """The engine itself failed (a defect of lfdsl): reported with the rule that was running."""




class Run:
    """The program's services bound to one game's state and one call's sink."""

    __slots__ = ("formula_depth", "prog", "st", "sink", "chance", "model", "fields", "names", "grid_meta", "track_meta", "step_budget",
                 "procs", "defs_by_kind", "triggers", "reach", "phases", "links")

    def __init__(self, prog, st: GameState | None, sink=None, chance=None):
        self.prog = prog
        self.st = st
        self.sink = sink
        self.chance = chance  # None: the state's seeded generator decides (see chance.py)
        # The program's tables the compiled rules read most, at one attribute's distance.
        self.model = prog.model
        self.fields = prog.fields
        self.names = prog.names
        self.grid_meta = prog.grid_meta
        self.track_meta = prog.track_meta
        self.step_budget = prog.step_budget
        self.procs = prog.procs
        self.defs_by_kind = prog.defs_by_kind
        self.triggers = prog.triggers
        self.reach = prog.reach
        self.phases = prog.phases
        self.links = {}  # per grid and cards in it (by definition): its linked groups (see `fits`)
        self.formula_depth = 0  # cards' formulas running one inside another (see call_formula)

    def init_state(self):
        """Fill a new state: empty zones, initial counters, values derived from the player count."""
        st = self.st
        n = st.player_count
        st.zone_limits = {name: f(self, {}) for name, f in self.prog.limit_exprs.items()}
        if self.prog.slot_meta:
            st.zones = Zones()
        for z in self.model.zones.values():
            if z.per_player:
                for i in range(n):
                    st.zones[self.prog.player_keys[z.name][i]] = []
            else:
                st.zones[z.name] = []
        for c in self.model.counters.values():
            init = self.prog.init_exprs[c.name](self, {})
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
            keys = self.prog.player_keys[gr.name][:n] if gr.per_player else [gr.name]
            for k in keys:
                st.grids[k] = {}  # cell -> card: only filled cells are stored
        st.keyed_init = {c.name: self.prog.init_exprs[c.name](self, {})
                         for c in self.model.counters.values() if c.keyed}
        st.bounds = {name: tuple(f(self, {}) if f is not None else None for f in pair)
                     for name, pair in self.prog.bound_exprs.items()}

    def resume(self, choice: int):
        """Take option `choice` (an index) of the pending decision and run on to the next one."""
        st = self.st
        d = st.pending
        st.pending = None
        st.decisions += 1
        st.total_steps += st.steps
        st.steps = 0
        if st.total_steps > MAX_GAME_STEPS:
            raise self.runtime_error(self.model.round.span, f"the game has taken more than {MAX_GAME_STEPS:,} "
                                     "steps in all, the most the engine runs for one game", kind=LimitError)
        if st.decisions > self.prog.decision_limit:
            raise self.runtime_error(self.model.round.span, f"more than {self.prog.decision_limit} decisions in "
                                     "one game: it does not progress", "raise `decision_limit` in the game block",
                                     kind=LimitError)
        label = d["options"][choice]
        if self.sink is not None:
            self.emit("choice", {"prompt": d["prompt"], "choice": label, "options": d["options"]}, d["player"])
        fr = st.stack[-1]
        how = d["how"]  # a decision record (ir.py)
        kind = how.kind
        if kind == "jump":
            fr.pc = how.pcs[choice]
        elif kind == "bind":
            fr.env[how.var] = how.values[choice]
        elif kind == "pick":
            value = how.values[choice]
            if value is None:
                env = fr.env
                del env[how.left], env[how.count]
                fr.pc = how.end
            else:
                fr.env[how.var] = value
                fr.env[how.left] -= how.costs[choice]
                fr.env[how.count] += 1
        elif kind == "act":
            env = fr.env
            env[how.left] -= 1
            env[how.used].append(label)
            self.perform(label, [how.player], how.player, bonus=False, span=None)
        self.run(st)
        return st

    # ---- the run loop ---------------------------------------------------------------------------
    def run(self, st: GameState, setup_only: bool = False):
        """Execute instructions until a decision is pending or the game is over."""
        self.st = st
        procs = self.procs
        budget = self.step_budget
        stack = st.stack
        proc, pc, in_flow, fr = None, 0, False, None
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
            pc = self._failed_at(fr, pc)
            hint = exc.hint or ("check the loop's exit condition" if exc.message.startswith("more than") else None)
            raise self.runtime_error(exc.span or self._span_at(proc, pc, in_flow), exc.message, hint) from None
        except (OverflowError, MemoryError, RecursionError) as exc:
            pc = self._failed_at(fr, pc)
            raise self.runtime_error(self._span_at(proc, pc, in_flow),
                                     f"this rule asks for more than the engine can do ({type(exc).__name__})",
                                     "a count or a distance is far too large") from None
        except (TypeError, AttributeError) as exc:
            pc = self._failed_at(fr, pc)
            if "NoneType" not in str(exc):
                raise self.internal_error(self._span_at(proc, pc, in_flow), exc) from exc
            # The one failure rules can cause here: reading from a value that is none.
            raise self.runtime_error(self._span_at(proc, pc, in_flow),
                                     "this rule reads from a value that is none",
                                     "an empty zone's top card, a marker nobody holds or a failed draw "
                                     "is none: test it with `!= none` first") from None
        except (GameError, OSError, ChanceError):
            raise  # a runtime error already reported, the host's own output failing (a closed pipe),
            # or a chance source given by the caller answering out of range
        except Exception as exc:  # anything else is the engine's own fault, never the ruleset's
            raise self.internal_error(self._span_at(proc, self._failed_at(fr, pc), in_flow), exc) from exc

    @staticmethod
    def _failed_at(fr, pc):
        """The record that failed: an instruction that runs a straight run of records (see
        pysource.SourceBackend) keeps the frame's counter one past the record it is executing."""
        return fr.pc - 1 if fr is not None and fr.pc - 1 > pc else pc

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
        path = span.path or self.prog.path
        return (kind or GameError)(at(path, self.model.program.source_of(path), span, prefix + message, hint))

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
        if (span.path or self.prog.path) != (d.path or self.prog.path) or not d.line <= span.line <= d.end_line:
            return ""
        what = "on reach" if decl.event == "reach" else f"on {decl.event} {decl.target}"
        text = f"in the trigger `{what}` ({d.path or self.prog.path}:{d.line})"
        if decl.event == "reach":
            return text + ", fired when its condition became true at the end of a turn: "
        if len(started) > 1:
            below = started[-2]
            spans = self.procs[below.proc].spans
            if 0 < below.pc <= len(spans) and spans[below.pc - 1] is not None:
                at = spans[below.pc - 1]
                return text + f", fired by the statement at {at.path or self.prog.path}:{at.line}:{at.col}: "
        return text + ": "

    def advance_flow(self, st: GameState) -> bool:
        """Start the next body of the game's flow; False when the game is over."""
        if st.stage == "new":
            st.stage = "setup"
            data = {"players": st.player_count, "seed": st.seed}
            if self.prog.origin is not None:
                data.update(game=self.model.game.name, params=dict(self.prog.params), **self.prog.origin)
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
            if st.round > self.prog.round_limit:
                span = self.model.round.span
                raise self.runtime_error(span, f"the game did not end within {self.prog.round_limit} rounds",
                                         "raise `round_limit` in the game block, or check the victory condition",
                                         kind=LimitError)
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
            start = self.prog.phase_start[ph.name](self, {})
            if start is None:
                raise RuleError(f"phase `{ph.name}` starts from nobody: its first player is none", ph.start.span)
            st.queue = [(start + i) % st.player_count for i in range(st.player_count)]
        if first is not None and ph.mode != "once":
            i = st.queue.index(first)
            st.queue = st.queue[i:] + st.queue[:i]


    def start_at(self, phase_index: int, first=None, round_number: int = 1):
        """From a state stopped after set-up, play on from a phase (scenarios)."""
        st = self.st
        st.stage = "round"
        st.round = round_number
        self.begin_phase(st, phase_index, first)
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
        for name, f in self.prog.victory_scores:
            env[name] = out[name] = f(self, env)
        return out

    def check_victory(self, st: GameState, ended: str | None = None) -> bool:
        """Evaluate the win condition for every player; end the game if anyone wins. `ended` (the
        reason of an `end game`): the game ends in any case, and when nobody meets a `win if` line
        every player is ranked by `rank by` and the best win."""
        var = self.model.victory.var
        winners, counts, ranks, envs = [], {}, {}, {}
        lazy = self.prog.victory_lazy  # the scores are needed only once the game ends

        def scored(p):
            envs[p].update(self.scores(st, p))
            counts[f"P{p + 1}"] = {k: envs[p][k] for k, _ in self.prog.victory_scores}
        for p in range(st.player_count):
            env = envs[p] = {var: p}
            if not lazy:
                scored(p)
            if self.prog.victory_win(self, env):
                winners.append(p)
                if not lazy:
                    ranks[p] = self.prog.victory_rank(self, env)
        if not winners and ended is None:
            return False
        if lazy:
            for p in range(st.player_count):
                scored(p)
            ranks = {p: self.prog.victory_rank(self, envs[p]) for p in winners}
        if not winners:
            ranks = {p: self.prog.victory_rank(self, envs[p]) for p in range(st.player_count)}
        ranked = winners or list(range(st.player_count))
        best = max(ranks.values())
        top = [p for p in ranked if ranks[p] == best]
        shared = f"; shared win at equal rank ({best})" if len(top) > 1 else None
        if winners:
            reason = self._victory_reason([envs[p] for p in top]) + (
                shared or (f"; tie broken by rank ({best})" if len(winners) > 1 else ""))
        else:
            reason = ended + (shared or f"; the best rank ({best})")
        st.result = {"winners": [f"P{p + 1}" for p in top], "loser": None, "reason": reason,
                     "reached": [f"P{p + 1}" for p in winners], "rank": {f"P{p + 1}": ranks[p] for p in ranked},
                     "counts": counts, "round": st.round, "seats": self.seat_names(st)}
        st.stage = "over"
        self.emit("game_end", st.result)
        return True

    def end_game(self, reason: str | None):
        """`end game`: stop everything now and decide the game by the victory block (see
        check_victory); without one, the game ends with no winner."""
        st = self.st
        text = reason if reason is not None else "the game was ended"
        st.stack.clear()
        if self.model.victory is not None:
            self.check_victory(st, text)
            return
        st.result = {"winners": [], "loser": None, "reason": text, "reached": [], "rank": {}, "counts": {},
                     "round": st.round, "seats": self.seat_names(st)}
        st.stage = "over"
        self.emit("game_end", st.result)

    def _victory_reason(self, winner_envs) -> str:
        """The texts of the win conditions the winners met (the first met, per winner, evaluated in
        the winner's victory environment), or a generic reason when the victory block gives none."""
        texts = []
        for env in winner_envs:
            text = next((t for cond, t in self.prog.victory_reasons if cond(self, env)), None)
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
        return present.snapshot(self.prog, st)

    def ask(self, who, prompt, labels, how):
        """Suspend on a decision for player `who`; `how` is its decision record (ir.py)."""
        if who is None:
            raise RuleError("a choice outside any player's turn needs `by player`")
        self.st.pending = {"player": who, "prompt": prompt, "options": labels, "how": how}
        return SUSPEND

    def label(self, value, t) -> str:
        return present.label(self.prog, self.st, value, t)

    def labelled(self, values, var, parts, env):
        """Options shown by a choice's `label`: each element's values joined by spaces (a card as
        its name, numbered `#k` among the cards of that name in its place), in the collection's
        order; elements shown alike are one option (the first of them)."""
        saved = env.get(var)
        labels, kept, seen = [], [], set()
        for v in values:
            env[var] = v
            text = " ".join(present.label(self.prog, self.st, f(self, env), t, numbered=True) for f, t in parts)
            if text not in seen:
                seen.add(text)
                labels.append(text)
                kept.append(v)
        env[var] = saved
        return labels, kept

    def options_for(self, values, elem_type):
        return present.options_for(self.prog, self.st, values, elem_type)

    def create(self, def_index: int, key: str):
        st = self.st
        cid = len(st.card_def)
        if cid >= MAX_CARDS:
            raise RuleError(f"more than {MAX_CARDS:,} cards in one game, the most the engine holds")
        st.card_def.append(def_index)
        st.loc.append(key)
        held = st.zones.get(key)
        if held is None:
            held = st.zones[key] = []  # a card's slot
        held.append(cid)
        return cid

    def move(self, card: int, dest: str, bottom: bool = False):
        """Move one card to the top (or bottom) of a zone; a full zone refuses it."""
        st = self.st
        limit = st.zone_limits.get(dest.split(".")[-1])
        if limit is None and dest[0] == "#":
            self._not_into_itself(card, dest)
            limit = self.slot_limit(dest)
        target = st.zones.get(dest)
        if target is None:  # a card's slot, made when its first card comes
            target = st.zones[dest] = []
        if limit is not None and len(target) >= limit:
            if self.sink is not None:
                self.emit("blocked", {"card": self.names[st.card_def[card]], "zone": dest, "limit": limit})
            return False
        held = st.zones.get(st.loc[card])
        was_top = held is not None and held[-1] == card
        if (not was_top and held) or bottom:  # a list operation as long as the pile: charged by its length
            self._charge_pile(len(held) if not was_top and held else 0, len(target) if bottom else 0)
        src = self.st.detach(card)
        if bottom:
            target.insert(0, card)
        else:
            target.append(card)
        st.loc[card] = dest
        if self.sink is not None:
            # Only a card that no player sees where it was nor where it goes is unnamed here.
            hidden = self._unseen(src, top=was_top) and self._unseen(dest, top=not bottom)
            data = {"card": "a hidden card" if hidden else self.names[st.card_def[card]], "from": src, "to": dest}
            if bottom:
                data["bottom"] = True
            self.emit("move", data)
        zname = dest.split(".")[-1]
        if ("enter", zname) in self.triggers:
            owner = self._owner(dest)
            self.run_triggers(("enter", zname), [card, owner])
        self.left(card, src)  # pushed last: the card leaves before it enters
        return True

    def _charge_pile(self, out_of: int, under: int):
        """Charge taking a card out of a pile of `out_of` cards other than from its top, or putting
        one under a pile of `under`: the list is shifted or searched, a step per PILE_STEP cards."""
        st = self.st
        st.steps += (out_of + under) // PILE_STEP
        if st.steps > self.step_budget:
            raise RuleError(f"more than {self.step_budget} steps without a decision: this takes a card out of "
                            f"or puts it under a pile of {max(out_of, under):,} cards, a step per {PILE_STEP} cards")

    def left(self, card: int, src: str):
        """Run the `on leave` triggers of the zone `src` a card has just left (if it was a zone)."""
        key = ("leave", src.split(".")[-1])
        if key in self.triggers and src in self.st.zones:
            self.run_triggers(key, [card, self._owner(src)])

    def _unseen(self, key: str, top: bool) -> bool:
        """Whether no player sees a card in place `key` (`top`: as its top card)."""
        if key[0] == "#":
            z = self.prog.slot_meta[key[key.index(".") + 1:]]
        else:
            z = self.model.zones.get(key.split(".")[-1])
        return z is not None and (z.visibility == "hidden" or (z.visibility == "top" and not top))

    @staticmethod
    def _owner(key: str):
        return int(key[1:key.index(".")]) - 1 if "." in key and key[0] == "P" else None

    def call_formula(self, formula, lead):
        """Run the definition a card's formula names with `lead` and then the card's arguments;
        a card without a formula (none) gives 0."""
        if formula is None:
            return 0
        if self.formula_depth >= MAX_DEF_DEPTH:
            raise RuleError(f"cards' formulas run one another more than {MAX_DEF_DEPTH} deep here (`{formula[0]}` "
                            "runs a card's formula that runs formulas in turn): they may not end")
        self.formula_depth += 1
        try:
            return self.prog.compiled_funcs[formula[0]](self, lead + formula[1])
        finally:
            self.formula_depth -= 1

    def turn(self, card, face):
        """Make a card show another of its faces (nothing happens for the face it shows)."""
        if card is None:
            return
        st = self.st
        was = st.card_def[card]
        table = self.prog.face_table[was]
        now = table.get(face) if table is not None else None
        if now is None:
            raise RuleError(f"card {self.names[was]} has no face `{face}`")
        if now == was:
            return
        st.card_def[card] = now
        if self.sink is not None:
            unseen = self._unseen(st.loc[card], top=st.zones.get(st.loc[card], [None])[-1:] == [card])
            self.emit("face", {"card": "a hidden card" if unseen else self.names[was], "face": face,
                               "now": "a hidden card" if unseen else self.names[now], "zone": st.loc[card]})

    def face(self, card, face):
        """The definition of a card's face (none if it has no such face)."""
        if card is None:
            return None
        table = self.prog.face_table[self.st.card_def[card]]
        return table.get(face) if table is not None else None

    def faces(self, card):
        if card is None:
            return []
        table = self.prog.face_table[self.st.card_def[card]]
        return list(table) if table is not None else []

    # ---- slots: `#card.name` is the key of a card's slot ----------------------------------------
    def slot_key(self, card, name):
        """The key of `card`'s slot `name`; a runtime error if the card has no such slot."""
        if card is None:
            raise RuleError(f"`slot` of none: there is no card to hold slot `{name}`")
        meta = self.prog.slot_meta.get(name)
        if meta is None or self.prog.def_kind[self.st.card_def[card]] != meta.host:
            raise RuleError(f"card {self.names[self.st.card_def[card]]} has no slot `{name}`")
        return f"#{card}.{name}"

    def _not_into_itself(self, card, key):
        """Refuse to put a card into its own slot, or into a slot of a card it holds. Each card
        holding the slot, up the chain, is a step: a chain of thousands of cards costs its length at
        every move into it, and the budget stops a rule that makes such moves over and over."""
        st = self.st
        loc = st.loc
        host = int(key[1:key.index(".")])
        while True:
            if host == card:
                raise RuleError(f"card {self.names[st.card_def[card]]} cannot go into a slot of itself "
                                "or of a card in its own slots")
            where = loc[host]
            if where[0] != "#":
                return
            st.steps += 1
            if st.steps > self.step_budget:
                raise RuleError(f"more than {self.step_budget} steps without a decision: this move goes up a chain "
                                "of cards held in one another's slots")
            host = int(where[1:where.index(".")])

    def slot_limit(self, key):
        """The most cards a slot holds now (its host's field, on the face it shows), or None."""
        dot = key.index(".")
        meta = self.prog.slot_meta[key[dot + 1:]]
        if meta.field is None:
            return meta.limit
        return self.fields[self.st.card_def[int(key[1:dot])]][meta.field]

    def room(self, card, name):
        if card is None:
            raise RuleError(f"`room` of none: there is no card whose slot `{name}` to count")
        key = self.slot_key(card, name)
        limit = self.slot_limit(key)
        if limit is None:
            raise RuleError(f"slot `{name}` has no limit, so no room to count")
        return max(0, limit - len(self.st.zones.get(key, ())))

    def zone_of(self, card):
        """The key of the zone or slot holding a card; none for no card or a card on a grid."""
        if card is None:
            return None
        where = self.st.loc[card]
        return None if where in self.st.grids else where

    def host(self, card):
        if card is None:
            return None
        where = self.st.loc[card]
        return int(where[1:where.index(".")]) if where[0] == "#" else None

    def slot_of(self, card):
        if card is None:
            return None
        where = self.st.loc[card]
        return where[where.index(".") + 1:] if where[0] == "#" else None

    def attached(self, cards):
        """The cards in the slots of one card or of each card of a list, slot by slot in the order
        the kind declares them, each slot from bottom to top."""
        if cards is None:
            return []
        zones, cd, kinds, slots = self.st.zones, self.st.card_def, self.prog.def_kind, self.prog.slots_of_kind
        out = []
        for c in ([cards] if type(cards) is int else cards):
            for name in slots.get(kinds[cd[c]], ()):
                held = zones.get(f"#{c}.{name}")
                if held:
                    out.extend(held)
        return out

    def move_many(self, cards, dest, bottom=False):
        """Move cards one by one; their triggers then run in the order the cards moved. Each card
        is a step, as it would be in a loop of moves."""
        st = self.st
        st.steps += len(cards)
        if st.steps > self.step_budget:
            raise RuleError(f"more than {self.step_budget} steps without a decision: this moves {len(cards):,} cards")
        stack = st.stack
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
        """Push the trigger bodies registered for an event; they run before the next statement.
        Each body pushed costs TRIGGER_STEPS (see there)."""
        names = self.triggers[key]
        st = self.st
        st.steps += TRIGGER_STEPS * len(names)
        if st.steps > self.step_budget:
            raise RuleError(f"more than {self.step_budget} steps without a decision: the triggers `on {key[0]} "
                            f"{key[1]}` keep going off", None, "a trigger's body causes an event that sets it off "
                            "again, directly or through other triggers")
        for name in reversed(names):
            proc = self.procs[name]
            env = {p: v for (p, _), v in zip(proc.params, values)}
            active = self.st.stack[-1].active if self.st.stack else None
            self.st.stack.append(Frame(name, 0, env, active))

    def draw(self, src: str, refill: str | None, dest: str):
        """Top card of `src` to `dest`; an empty `src` is first refilled by shuffling `refill`."""
        st = self.st
        pile = st.zones[src]
        if not pile and refill is not None and st.zones[refill]:
            # The whole pile at once, as detaching its cards one by one from the bottom would leave
            # it (that shifted the pile once per card); the shuffle below charges a step per card.
            cards = st.zones[refill]
            for c in cards:
                st.revealed.pop(c, None)
                st.loc[c] = src
            pile.extend(cards)
            if refill[0] == "#":  # an emptied slot of a card is forgotten
                del st.zones[refill]
            else:
                cards.clear()
            if self.sink is not None:
                self.emit("refill", {"zone": src, "from": refill, "cards": len(pile)})
            self.shuffle(src)
        if not pile:
            return None
        card = pile[-1]
        return card if self.move(card, dest) else None

    def shuffle(self, key: str):
        """A chance step, recorded in the trace: Fisher-Yates with the game's RNG, or the ordering
        the call's chance source gives."""
        st = self.st
        lst = st.zones[key]
        st.steps += len(lst)  # a step per card, as a loop over the pile
        if st.steps > self.step_budget:
            raise RuleError(f"more than {self.step_budget} steps without a decision: this shuffles "
                            f"{len(lst):,} cards, a step each")
        if st.revealed:  # a shuffled card is no longer known by its place
            for c in lst:
                st.revealed.pop(c, None)
        if self.chance is not None:
            if len(lst) > 1:
                perm = checked(ev := ChanceEvent("shuffle", len(lst), key), self.chance(ev, st))
                lst[:] = [lst[i] for i in perm]
        else:
            for i in range(len(lst) - 1, 0, -1):
                j = st.below(i + 1)
                lst[i], lst[j] = lst[j], lst[i]
        if self.sink is not None:
            self.emit("shuffle", {"zone": key, "cards": len(lst)})

    def reveal(self, card, to):
        """Show a card to player `to` (None: every player); remembered until the card moves."""
        if card is None:
            return
        st = self.st
        bits = (1 << st.player_count) - 1 if to is None else 1 << to
        st.revealed[card] = st.revealed.get(card, 0) | bits
        if self.sink is not None:
            self.emit("reveal", {"card": self.names[st.card_def[card]], "zone": st.loc[card],
                                 "to": "all" if to is None else f"P{to + 1}"})

    def random_choice(self, values):
        if not values:
            return None
        if self.chance is not None:
            i = checked(ev := ChanceEvent("pick", len(values)), self.chance(ev, self.st))
        else:
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
            if key is not None and name in self.prog.card_counters:
                label = f"{name}[{self.names[st.card_def[key]]} #{key}]"
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

        Two orthogonal neighbours are linked when both edges facing each other are set. The cards
        that stay form groups of linked cards; the new card joins every group it links to, so all
        are linked when it links to every group (or when it is alone, as the anchor). The groups
        are worked out once per grid content and remembered for this call of the engine, since a
        menu asks this for many cards on many cells of the same grid."""
        cd = self.st.card_def
        grid = self.st.grids[key]
        if anchor != cell and anchor not in grid:
            return False
        # Within one call the cards' definitions do not change, so the grid's cards name its content.
        # The groups of the cards that stay: the same for every empty cell.
        cache_key = (key, cell if cell in grid else None, tuple(grid.items()))
        known = self.links.get(cache_key)
        if known is None:
            rest = {i: cd[c] for i, c in grid.items() if i != cell}
            known = (rest,) + self._linked_groups(gname, rest)
            if len(self.links) > 4096:  # a bound on what one call keeps
                self.links.clear()
            self.links[cache_key] = known
        rest, group, count = known
        if not rest:
            return True
        meta = self.grid_meta[gname]
        fields = self.fields
        mine = fields[cd[card]]
        w = meta.width
        x, y = cell % w, cell // w
        touched = set()
        for dx, dy, out, back in meta.edge_pairs:
            nx, ny = x + dx, y + dy
            if 0 <= nx < w and 0 <= ny < meta.height:
                j = ny * w + nx
                if j in rest and mine[out] and fields[rest[j]][back]:
                    touched.add(group[j])
        return len(touched) == count

    def _linked_groups(self, gname, defs: dict):
        """({cell: group number}, number of groups) of the linked cards of a grid holding these
        card definitions on these cells."""
        meta = self.grid_meta[gname]
        fields = self.fields
        w = meta.width
        group = {}
        count = 0
        for first in sorted(defs):
            if first in group:
                continue
            group[first] = count
            todo = [first]
            while todo:
                i = todo.pop()
                x, y = i % w, i // w
                here = fields[defs[i]]
                for dx, dy, out, back in meta.edge_pairs:
                    nx, ny = x + dx, y + dy
                    if not (0 <= nx < w and 0 <= ny < meta.height):
                        continue
                    j = ny * w + nx
                    if j in group or j not in defs:
                        continue
                    if here[out] and fields[defs[j]][back]:
                        group[j] = count
                        todo.append(j)
            count += 1
        return group, count

    def place(self, card, gname, key, cell, span):
        """Put a card on an empty cell; run `place` triggers, then `fill` for each line it completes."""
        st = self.st
        cells = st.grids[key]
        meta = self.grid_meta[gname]
        if not 0 <= cell < meta.width * meta.height or cell in meta.holes:
            raise RuleError("this cell is a hole", span)
        if cell in cells:
            raise RuleError("this cell is already filled", span)
        held = st.zones.get(st.loc[card])
        if held and held[-1] != card:
            self._charge_pile(len(held), 0)
        src = self.st.detach(card)
        cells[cell] = card
        st.loc[card] = key
        owner = self._owner(key)
        if self.sink is not None:
            self.emit("place", {"card": self.names[st.card_def[card]], "from": src, "grid": key,
                                "cell": present.cell_label(meta.width, cell)}, owner)
        # The place trigger is pushed first so that completed lines count before it runs.
        if ("place", gname) in self.triggers:
            self.run_triggers(("place", gname), [card, cell, owner])
        if ("fill", gname) in self.triggers:
            for line in meta.lines_of[cell]:
                if all(i in cells for i in meta.line_cells[line]):
                    if self.sink is not None:
                        self.emit("fill", {"grid": key, "line": line}, owner)
                    self.run_triggers(("fill", gname), [line, owner])
        self.left(card, src)  # pushed last: the card leaves its zone before the place and fill triggers

    def give(self, marker, to):
        self.st.markers[marker] = to
        if self.sink is not None:
            self.emit("marker", {"marker": marker, "to": f"P{to + 1}" if to is not None else None}, to)

