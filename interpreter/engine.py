"""The decision API: new game, options, apply, is over, returns, clone, on a shared compiled program.

    engine = Engine.load("rulesets/x.lf")
    state = engine.new_game(players=3, seed=7)
    while not engine.is_over(state):
        options = engine.options(state)        # Option(id, label, value), in a stable order
        engine.apply(state, options[0].id)     # by id (or by index, or by label)

An `Engine` holds nothing but its compiled `Program` (program.py), which no game changes; each game
is its `GameState` (state.py), and each call runs the rules in a `Run` of its own (runtime.py) with
the sink and the chance source given to that call. One engine therefore serves any number of games,
threads and rollouts at once, and pickles as its program's recipe.
"""
from __future__ import annotations

from pathlib import Path

from typing import NamedTuple

from rulesdsl.ast import Span
from rulesdsl.errors import player_range

from .core.primitives import RuleError
from .core.position import Position
from .core.present import snapshot, unseen_among
from .compile.program import GridMeta, Program, SlotMeta, TrackMeta
from .core.runtime import GameError, InternalError, LimitError, Run
from .core.state import GameState
from .core.view import PlayerSink, Sight, View, determinize, sight, view
from .core.watch import Reads, Unwatchable, watched

__all__ = ["Decision", "Engine", "GameError", "GameState", "GridMeta", "InternalError", "LimitError", "Option",
           "PlaceSeen", "Program", "Reads", "RuleError", "SlotMeta", "TrackMeta", "Unwatchable", "View"]


class Option(NamedTuple):
    """One option of a pending decision: an id stable within the decision, a label for people, a value.

    Ids are written from the option's value, not its place in the list: `option:NAME` (a labelled
    option), `action:NAME`, `card:DEF@ZONE` (a card definition's index and where the card lies),
    `def:N`, `P2` (a player), `int:N`, `cell:GRID:N`, `stop`, or `value:LABEL` (an enum value, a line,
    anything else). The same option therefore has the same id in a copy of the game whose hidden cards
    were dealt differently."""

    id: str
    label: str
    value: object
    index: int  # its place in the decision's list of options


class Decision(NamedTuple):
    """The decision a game waits on, as those who use games read it (`Engine.decision`).

    `kind` says what the options are: `jump` a menu of labelled options, `bind` a choice among
    values (cards, players, numbers...), `pick` one round of a `pick` against a budget (its `costs`
    say what each option spends), `act` a menu of actions. `together`: the decision is one player's
    part of a `together` (simultaneous choices): the others choose without knowing it, and do not
    know theirs, until all have chosen."""

    player: int            # the seat (from 0) to decide
    prompt: str
    options: tuple         # the options' labels, in their stable order
    kind: str
    costs: tuple | None    # for `pick`: what each option spends of the budget; else None
    together: bool = False


class PlaceSeen(NamedTuple):
    """One place of a player's view, as `Engine.places` lists them: every zone (by key, as in the
    view's `data`), then every grid, then every slot of a card (`#H.name`, H the handle of the card
    carrying it). A card of the view is named by its *handle*, its rank in that order (view.py)."""

    key: str
    kind: str              # "zone", "grid" or "slot"
    first: int             # the handle of its first card (the bottom one, or a grid's first cell)
    cards: tuple           # per card, bottom to top (a grid: by cell): its definition, or None unseen
    cells: tuple | None    # a grid's filled cells (indexes), in the order of `cards`; else None
    unknown: bool = False  # a zone whose size the player does not know (`size private`, `size hidden`):
    #                        `cards` is empty, and its cards have the last handles of the view


class Engine:
    """A compiled ruleset and the decision API over it; holds no game, so it is shared freely.

    The methods and read-only properties below are the whole of what the rooms that use games (bots,
    lab, environments, table, language server, command line...) may read: `program`, the compiled
    `Program` itself, is for the engine's own modules and the tests (tests/test_api_boundary.py)."""

    __slots__ = ("program",)

    def __init__(self, program: Program):
        self.program = program

    @classmethod
    def load(cls, ruleset: str | Path, cards: str | Path | None = None, params: dict | None = None,
             search: tuple = ()) -> "Engine":
        """Parse (with layers), check, load cards and compile; each step raises its own error."""
        return cls(Program.load(ruleset, cards, params, search))

    # ---- the ruleset, read-only -----------------------------------------------------------------
    @property
    def model(self):
        """The checked ruleset (rulesdsl.checker.Model): its declarations by name, and the game block."""
        return self.program.model

    @property
    def cards(self):
        """The card database (rulesdsl.cards.CardDB)."""
        return self.program.cards

    @property
    def params(self) -> dict:
        """The value of every parameter of the ruleset, as declared or set."""
        return self.program.params

    @property
    def names(self) -> list:
        """The name of every card definition, by its index (the faces of a card are definitions too)."""
        return self.program.names

    @property
    def card_kinds(self) -> list:
        """The kind of every card definition, by its index."""
        return self.program.def_kind

    @property
    def card_fields(self) -> list:
        """The fields of every card definition (name -> value), by its index."""
        return self.program.fields

    @property
    def zone_keys(self) -> dict:
        """Per zone kept one per value (`per NAME`): the keys of its zones, in the values' order."""
        return {name: tuple(keys.values()) for name, keys in self.program.zone_keys.items()}

    @property
    def grids(self) -> dict:
        """Each grid's static facts (`GridMeta`: size, cells, adjacency, data), by name."""
        return self.program.grid_meta

    @property
    def tracks(self) -> dict:
        """Each track's static facts (`TrackMeta`: size, data of its spaces), by name."""
        return self.program.track_meta

    @property
    def slots(self) -> dict:
        """Each slot of a card kind (`SlotMeta`: the kind it holds, who sees it, its limit), by name."""
        return self.program.slot_meta

    @property
    def origin(self) -> dict | None:
        """The files (with their hashes) and the parameters the program was loaded from."""
        return self.program.origin

    @property
    def evaluation(self):
        """The ruleset's `evaluate` block compiled, `(variable, [(score name, fn)], rank fn)`, or None;
        each fn goes to `evaluate` or an `evaluator`."""
        return self.program.evaluation

    @property
    def display_scores(self):
        """The `display` section's score lines compiled, `(label, variable, fn)` each (fn goes to
        `evaluate` or an `evaluator`); they read only what every player sees."""
        return self.program.display_scores

    @property
    def evaluation_block(self):
        """The `evaluate` block as one fn (for `evaluate` or an `evaluator`), or None: given an env
        holding the block's variable, it adds each score to the env and returns the rank value."""
        return self.program.evaluation_block

    @property
    def victory_scores(self) -> list:
        """The victory block's scores compiled, `[(name, fn)]` (the block's variable is the player);
        empty without a victory block."""
        return self.program.victory_scores if self.program.model.victory is not None else []

    @property
    def victory_thresholds(self) -> list:
        """Each `win if A >= B` (or `>`) line of the victory block compiled, `[(fn A, fn B)]`."""
        return self.program.victory_thresholds

    def source_of(self, path: str | None) -> str | None:
        """The text of one of the ruleset's files (None or "": the ruleset's own file)."""
        return self.program.model.program.source_of(path)

    def with_params(self, params: dict) -> "Engine":
        """An engine for the same ruleset and cards with parameters set otherwise (as `--set`)."""
        return Engine(self.program.with_params(params))

    def expression_compiler(self, types: dict, bindings: dict, decided):
        """A compiler of stand-alone expressions checked against the model (`check_expression`,
        which gives the types, bindings and what it decided), whose functions go to `evaluate`."""
        return self.program.expression_compiler(types, bindings, decided)

    def player_sink(self, player: int, inner):
        """A sink passing on to `inner` the events of a game as `player` (a seat from 0) sees them."""
        return PlayerSink(self.program, player, inner)

    def __reduce__(self):
        """An engine pickles as its program, which pickles as its recipe (see program.py)."""
        return (Engine, (self.program,))

    # ---- games ----------------------------------------------------------------------------------
    def new_game(self, players: int | None = None, seed: int = 0, sink=None, setup_only: bool = False,
                 chance=None) -> GameState:
        """A new game, run until its first decision. `sink` receives this call's trace events;
        `chance` (chance.py), if given, decides this call's random events instead of the seed."""
        g = self.program.model.game
        n = players if players is not None else g.default_players
        if not g.min_players <= n <= g.max_players:
            raise ValueError(f"{g.name} is played by {player_range(g.min_players, g.max_players)}, not {n}")
        st = GameState(n, seed)
        run = Run(self.program, st, sink, chance)
        run.init_state()
        run.run(st, setup_only)
        return st

    def is_over(self, st: GameState) -> bool:
        """True once the game has a result."""
        return st.result is not None

    def current_player(self, st: GameState) -> int | None:
        """The seat (from 0) asked to decide, or None when nothing is pending."""
        d = st.pending
        return d["player"] if d is not None else None

    def option_count(self, st: GameState) -> int:
        """How many options the pending decision has (0 when nothing is pending)."""
        d = st.pending
        return len(d["options"]) if d is not None else 0

    def legal(self, st: GameState) -> list[str]:
        """The labels of the options of the pending decision, in their stable order."""
        return list(st.pending["options"]) if st.pending else []

    def decision(self, st: GameState) -> Decision | None:
        """The pending decision (who decides, the prompt, the labels, its kind, what a pick's options
        cost), or None when nothing is pending."""
        d = st.pending
        if d is None:
            return None
        how = d["how"]
        kind = how.kind
        if kind == "commit":
            return Decision(d["player"], d["prompt"], tuple(d["options"]), "jump" if how.menu else "bind", None, True)
        return Decision(d["player"], d["prompt"], tuple(d["options"]), kind,
                        tuple(how.costs) if kind == "pick" else None)

    def together(self, st: GameState) -> bool:
        """Whether the pending decision is one player's part of a `together` (see `Decision`)."""
        d = st.pending
        return d is not None and d["how"].kind == "commit"

    def decision_span(self, st: GameState) -> Span | None:
        """Where the rule asking the pending decision is written (None when nothing is pending)."""
        d = st.pending
        if d is None or not st.stack:
            return None
        # The asking instruction is the one before the top frame's next one; an action menu, asked
        # again after each action, has the frame come back to it.
        fr = st.stack[-1]
        at = fr.pc if d["how"].kind == "act" else fr.pc - 1
        spans = self.program.procs[fr.proc].spans
        return spans[at] if 0 <= at < len(spans) else None

    def options(self, st: GameState) -> list[Option]:
        """The options of the pending decision, in their stable order, each with id, label and value."""
        d = st.pending
        if d is None:
            return []
        how, labels = d["how"], d["options"]
        kind = how.kind
        if kind == "jump" or kind == "commit" and how.menu:
            values = list(labels)
            ids = [f"option:{label}" for label in labels]
        elif kind == "act":
            values = list(labels)
            ids = [f"action:{label}" for label in labels]
        else:
            values = how.values
            elem = how.elem or ("",)
            ids = [_value_id(v, label, elem, st) for v, label in zip(values, labels)]
            if elem[0] == "card" and self.program.may_hide_from_chooser:
                # A card the chooser does not see is known by its place, not by what it is.
                unseen = unseen_among(self.program, st, [v for v in values if v is not None], d["player"])
                if unseen:
                    values = list(values)
                    for i, v in enumerate(values):
                        if v in unseen:
                            ids[i], values[i] = f"card:?{unseen[v]}@{st.loc[v]}", None
        seen: dict[str, int] = {}
        out = []
        for i, label in enumerate(labels):
            oid = ids[i]
            if oid in seen:  # two options made equal by their id: keep both, told apart by number
                seen[oid] += 1
                oid = f"{oid}#{seen[oid]}"
            else:
                seen[oid] = 1
            out.append(Option(oid, label, values[i], i))
        return out

    def apply(self, st: GameState, choice, sink=None, chance=None) -> GameState:
        """Take an option of the pending decision and run on to the next decision or the end.

        `choice` is an `Option`, an option id, an index into the options, or (for people and
        scenarios) a label. `sink` and `chance` serve this call only: pass them at every call."""
        if st.pending is None:
            raise ValueError("no decision is pending")
        labels = st.pending["options"]
        if isinstance(choice, Option):
            # An option of this decision is at its index, with its label there; else it is stale.
            if not (0 <= choice.index < len(labels) and labels[choice.index] == choice.label):
                raise ValueError(f"option `{choice.id}` is not an option of the pending decision")
            choice = choice.index
        elif isinstance(choice, str):
            opts = self.options(st)
            index = next((i for i, o in enumerate(opts) if o.id == choice), None)
            if index is None and choice in labels:
                index = labels.index(choice)
            if index is None:
                raise ValueError(f"`{choice}` is not a legal option; legal: {', '.join(labels)}")
            choice = index
        if type(choice) is not int or not 0 <= choice < len(labels):
            raise ValueError(f"option {choice!r} is out of range")
        return Run(self.program, st, sink, chance).resume(choice)

    def returns(self, st: GameState) -> list[float]:
        """Per seat: 1.0 for a winner, 0.0 otherwise; all 0.0 while the game is not over."""
        winners = set(st.result["winners"]) if st.result else set()
        return [1.0 if f"P{p + 1}" in winners else 0.0 for p in range(st.player_count)]

    def view(self, st: GameState, player: int) -> View:
        """What `player` (a seat from 0) knows of the game: public state, the cards they see, the
        sizes of the places they do not, and the pending decision's options if it is theirs."""
        if type(player) is not int or not 0 <= player < st.player_count:
            raise ValueError(f"no seat {player!r} in a game of {st.player_count}")
        return view(self.program, st, player)

    def snapshot(self, st: GameState) -> dict:
        """The whole state of `st` by names, as a trace's `state` event holds it: every zone's cards
        in order (seen or not), counters, tracks, grids, markers and the generator. The referee's
        record, never a player's: a player gets `view`."""
        return snapshot(self.program, st)

    def places(self, v: View) -> list[PlaceSeen]:
        """Every place of view `v` with what its player sees of each card there, in the order that
        gives the view's cards their handles (see `PlaceSeen`)."""
        sk = v.skeleton
        defs = sk["defs"]
        out = []
        h = 0
        for key, size in sk["zones"]:
            if size is None:
                out.append(PlaceSeen(key, "zone", h, (), None, True))
                continue
            out.append(PlaceSeen(key, "zone", h, tuple(defs[h:h + size]), None))
            h += size
        for key, cells in sk["grids"]:
            out.append(PlaceSeen(key, "grid", h, tuple(defs[h:h + len(cells)]), tuple(cells)))
            h += len(cells)
        for key, size in sk["slots"]:
            out.append(PlaceSeen(key, "slot", h, tuple(defs[h:h + size]), None))
            h += size
        return out

    def sight(self, st: GameState, player: int) -> Sight:
        """What `player` sees of the places of `st`, reduced to what an evaluation counts (view.py
        `Sight`): quicker than `view`, for a bot scoring many positions."""
        return sight(self.program, st, player)

    def determinize(self, v: View, rng) -> GameState:
        """A full game that view `v` cannot tell from the real one, every card its player does not
        see dealt at random (from `rng`, a `random.Random`) among the cards they have not seen."""
        return determinize(self.program, v, rng)

    def clone(self, st: GameState) -> GameState:
        """An independent copy of a game, to play on (a rollout) without touching the original."""
        return st.clone()

    def assign(self, st: GameState, other: GameState) -> None:
        """Make `st` the game `other` is (a clone played on, say), taking over its contents: cheaper
        than playing the same options on `st` again. `other` must not be used after."""
        st.become(other)

    def start_at(self, st: GameState, phase: str, first=None, round_number: int = 1, sink=None,
                 chance=None) -> GameState:
        """From a state stopped after set-up (`new_game(..., setup_only=True)`), play on from `phase`,
        its turns starting at seat `first` (from 0), in round `round_number`."""
        names = [ph.name for ph in self.program.phases]
        if phase not in names:
            raise ValueError(f"no phase `{phase}`; phases: {', '.join(names)}")
        return Run(self.program, st, sink, chance).start_at(names.index(phase), first, round_number)

    def arrange(self, st: GameState) -> Position:
        """The arrangement API (position.py) on a game stopped after set-up."""
        return Position(self.program, st)

    def evaluate(self, fn, st: GameState, env: dict | None = None):
        """The value of a compiled expression (from `expression_compiler`, or one of `evaluation`,
        `victory_scores`, `victory_thresholds`) in state `st`."""
        return fn(Run(self.program, st), dict(env or {}))

    def evaluator(self, st: GameState):
        """`evaluate` for many expressions on one state that no one changes meanwhile: a function
        `(fn, env) -> value` sharing one run of the rules (what a bot's evaluation calls). A compiled
        expression only reads `env`, so it is passed as it is."""
        run = Run(self.program, st)
        return lambda fn, env: fn(run, env)

    def watched_evaluator(self, st: GameState):
        """`evaluator` that also writes down what the expressions read of `st`: (the function, its
        `Reads`). `reads.holds(other)` tells whether the values found are still the values on
        `other` (core/watch.py). An expression reading what cannot be written down (the random
        generator, say) raises `Unwatchable`."""
        stand_in, reads = watched(st)
        run = Run(self.program, stand_in)
        return (lambda fn, env: fn(run, env)), reads


def _value_id(value, label: str, elem: tuple, st: GameState) -> str:
    """An option's id from its value (see Option)."""
    if value is None:
        return "stop"
    kind = elem[0]
    if kind == "card":
        return f"card:{st.card_def[value]}@{st.loc[value]}"
    if kind == "def":
        return f"def:{value}"
    if kind == "player":
        return f"P{value + 1}"
    if kind == "int" and type(value) is int:
        return f"int:{value}"
    if kind == "cell":
        return f"cell:{elem[1]}:{value}"
    return f"value:{label}"
