"""One call's run of a game: the loop that runs the compiled rules, the game's flow, and the
services the compiled rules call.

A `Run` is made for each call of the decision API (`new_game`, `apply`, ...) from the shared,
immutable `Program`, the `GameState` of the game being played and the sink of that call. It lives
for one call only, so two games, threads or rollouts never share anything that changes: the
compiled rules receive the run as `rt` and reach the state as `rt.st`.

This module holds the loop and the flow (phases and turns, actions, decisions, victory, the trace,
errors placed on the rule that failed); the services are in zones.py (zones and cards) and
boards.py (counters, tracks, grids, markers), base classes of `Run`.
"""
from __future__ import annotations


from rulesdsl import ast as A
from rulesdsl.errors import Diagnostic, at
from rulesdsl.limits import MAX_GAME_STEPS

from . import present
from .boards import BoardServices
from .chance import ChanceError
from .primitives import SUSPEND, OverBudget, RuleError
from .state import Frame, GameState, Zones
from .zones import ZoneServices

# A rule that loops is told the work it was doing when the budget ran out if that work cost at least
# this many steps (see Run.over_budget): then it is most of what each turn of the loop costs.
NAMED_WORK = 100

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




class Run(ZoneServices, BoardServices):
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
            if z.by:
                for key in self.prog.zone_keys[z.name].values():
                    st.zones[key] = []
            elif z.per_player:
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
        how = d["how"]  # a decision record (ir.py)
        if self.sink is not None:
            from .view import choice_is_public, offer_is_secret  # view.py builds on this module; only a traced run asks
            public = choice_is_public(self.prog, st, d)
            data = {"prompt": d["prompt"], "choice": label, "options": d["options"], "public": public}
            if offer_is_secret(self.prog, st, d):
                data["options_public"] = False  # offered by an amount some player does not see
            if how.kind == "commit":
                data["together"] = True  # kept from the others until everyone has chosen
            self.emit("choice", data, d["player"])
        fr = st.stack[-1]
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
        elif kind == "commit":
            t = fr.env[how.store]
            t["done"].append([how.player, how.values[choice], label])
            t["asking"] = None
            fr.pc = how.at
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
        steps = st.steps  # the steps counted when the running instruction started, less one
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
                    steps = st.steps + 1
                    st.steps = steps
                    if steps > budget:
                        raise self.over_budget(1, proc.spans[pc], None, fr)
                    if code[pc](self, fr) is SUSPEND:
                        return
                    if not stack or stack[-1] is not fr or st.result is not None:
                        break
        except OverBudget as exc:
            # Worded again with the steps of the whole instruction, which the work that met the
            # budget inside it does not know (see over_budget).
            pc = self._failed_at(fr, pc)
            exc = self.over_budget(exc.cost, exc.span, exc.what, None if in_flow else fr, st.steps - steps + 1)
            raise self.runtime_error(exc.span or self._span_at(proc, pc, in_flow), exc.message, exc.hint) from None
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
        compile/backend.py, `Backend`) keeps the frame's counter one past the record it is executing."""
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

    def over_budget(self, cost: int, span, what: str | None, running=None, spent: int = 0) -> OverBudget:
        """The error of a run over its step budget, worded by what used the steps up rather than
        by the work that happened to meet it (`what`, `cost` steps). Work that took most of the
        budget in one go (a huge shuffle, a list that doubles, a tree of calls) is named; so is a
        statement that took most of it (`spent` steps: a whole pile moved card by card). Otherwise
        the steps went to many statements: triggers setting one another off, when a trigger is
        running inside itself, or else the running rule repeating (`running`: its frame, by
        default the top-most frame that has started)."""
        budget = self.step_budget
        if what is not None and cost * 2 > budget:
            return OverBudget(f"{what}: more than the step budget ({budget:,}) allows", span, None, what, cost)
        if spent * 2 > budget:
            last = f" (the last: {what})" if what is not None else ""
            return OverBudget(f"this statement goes over the step budget ({budget:,} steps without a decision) with "
                              f"{spent:,} steps of its own{last}", span, None, what, cost)
        frames = [fr for fr in self.st.stack if fr.pc > 0]
        seen, again = set(), None
        for fr in frames:
            if fr.proc.startswith("trigger:"):
                if fr.proc in seen:
                    again = fr.proc
                seen.add(fr.proc)
        if again is not None:
            event = next((f"on {k[0]} {k[1]}" for k, names in self.triggers.items() if again in names), "on reach")
            return OverBudget(f"more than {budget} steps without a decision: the triggers `{event}` keep going off",
                              span, "a trigger's body causes an event that sets it off again, directly or through "
                              "other triggers", what, cost)
        running = running or (frames[-1] if frames else None)
        if running is None:  # no rule running: the game's flow (a phase starting, the victory)
            return OverBudget(f"more than {budget} steps without a decision: {what or 'the game flow'}", span, None,
                              what, cost)
        last = f" (the last: {what})" if what is not None and cost >= NAMED_WORK else ""
        return OverBudget(f"more than {budget} steps without a decision in {self._where(self.procs[running.proc])}: "
                          f"a rule loops{last}", span, "check the loop's exit condition", what, cost)

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
        if st.stage == "setup" and self.prog.hands:
            return self.start_hand(st, 1)
        if st.stage == "finish":  # a hand's `finish` is over: the next hand
            return self.start_hand(st, st.hand + 1)
        if st.stage in ("setup", "hand"):
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
            end = self.prog.hand_end
            if end is not None and end(self, {}):
                self.finish_hand(self.prog.hand_reason)
                return True
            st.round += 1
            st.phase_index = 0
            st.phase = self.phases[0].name
            if st.round > self.prog.round_limit:
                span = self.model.round.span
                what = "hand" if self.prog.hands else "game"
                raise self.runtime_error(span, f"the {what} did not end within {self.prog.round_limit} rounds",
                                         "raise `round_limit` in the game block, or check the "
                                         + ("hand's end condition" if self.prog.hands else "victory condition"),
                                         kind=LimitError)
            self.emit_state()
        self.begin_phase(st, st.phase_index)
        return True

    def start_hand(self, st: GameState, number: int) -> bool:
        """Begin hand `number` of a game played in hands: its `start` body, then its rounds."""
        if number > self.prog.hand_limit:
            raise self.runtime_error(self.model.hand.span, f"the game did not end within {self.prog.hand_limit} hands",
                                     "raise `hand_limit` in the game block, or end the game in the hand's `finish` "
                                     "(`end game`)", kind=LimitError)
        st.hand = number
        st.stage = "hand"
        st.round = 0
        st.phase_index = -1
        st.phase = None
        st.queue = []
        self.emit("hand", {"hand": number})
        if "hand:start" in self.procs:
            st.stack.append(Frame("hand:start", 0, {}, None))
        return True

    def finish_hand(self, reason: str, span=None):
        """End the hand being played now (the round's end condition, or `end hand`): what runs is
        dropped, and the hand's `finish` body runs; the next hand starts after it."""
        st = self.st
        if st.stage == "finish":
            raise RuleError("`end hand` inside the hand's own `finish`", span)
        if not st.hand:
            raise RuleError("`end hand` during the set-up: no hand is being played yet", span)
        st.stack.clear()
        st.queue = []
        st.stage = "finish"
        self.emit("hand_end", {"hand": st.hand, "reason": reason})
        if "hand:finish" in self.procs:
            st.stack.append(Frame("hand:finish", 0, {}, None))

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
        if self.prog.hands and not st.hand:
            st.hand = 1
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
        if st.hand:
            st.result["hand"] = st.hand
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
        if st.hand:
            st.result["hand"] = st.hand
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
        who = f"P{player + 1}" if isinstance(player, int) else None
        if st.hand:  # a game played in hands: each event says which
            self.sink({"seq": st.seq, "hand": st.hand, "round": st.round, "phase": st.phase, "player": who,
                       "event": event, "data": data})
            return
        self.sink({"seq": st.seq, "round": st.round, "phase": st.phase, "player": who, "event": event, "data": data})

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

    def labelled(self, values, var, parts, env, chooser=None, elem=("",)):
        """Options shown by a choice's `label`: each element's values joined by spaces (a card as
        its name, numbered `#k` among the cards of that name in its place), in the collection's
        order; elements shown alike are one option (the first of them). A card `chooser` does not
        see where it lies is shown by its place, whatever the label says (present.unseen_label)."""
        saved = env.get(var)
        labels, kept, seen = [], [], set()
        hidden = []
        if elem[0] == "card":
            values, hidden = present.split_unseen(self.prog, self.st, values, chooser)
        for v in values:
            env[var] = v
            text = " ".join(present.label(self.prog, self.st, f(self, env), t, numbered=True) for f, t in parts)
            if text not in seen:
                seen.add(text)
                labels.append(text)
                kept.append(v)
        env[var] = saved
        return labels + [label for label, _ in hidden], kept + [v for _, v in hidden]

    def options_for(self, values, elem_type, chooser=None):
        return present.options_for(self.prog, self.st, values, elem_type, chooser)

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
        if not proc.acting:  # a routine of nobody: its events name no player, its choices say `by`
            actor = None
        else:
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

    def win(self, who, reason, lose=False):
        """End the game at once: `who` wins, or (lose) every other player wins; `who` may be a list
        of players, who win or lose together (all of them: a cooperative game's end)."""
        st = self.st
        counts = {}
        if self.model.victory is not None:
            counts = {f"P{p + 1}": self.scores(st, p) for p in range(st.player_count)}
        side = set(who) if isinstance(who, list) else {who}
        winners = [f"P{p + 1}" for p in range(st.player_count) if (p in side) != lose]
        loser = f"P{next(iter(side)) + 1}" if lose and len(side) == 1 else None
        st.result = {"winners": winners, "loser": loser, "reason": reason,
                     "reached": list(winners), "rank": {}, "counts": counts, "round": st.round, "seats": self.seat_names(st)}
        if st.hand:
            st.result["hand"] = st.hand
        st.stage = "over"
        st.stack.clear()
        self.emit("game_end", st.result)

