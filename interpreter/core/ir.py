"""The instruction records a body is lowered to, before any back end turns them into code.

A body (the set-up, a phase, an action or routine, a trigger) is lowered by the compiler to a flat
list of these records; a back end (`interpreter/compile/backend.py`) then builds one executable
instruction per record, so the index of a record is the index of its instruction and every jump
target below is such an index. Records are plain, frozen, picklable data: static values (names,
temporaries, flags, static types, indexes) and operands that are checked expression nodes of the
syntax tree, or `None` where an operand is absent. Each record keeps the span of the source it
came from.

`dump(records)` prints a list one record per line, like an assembler listing.
"""
from __future__ import annotations

from typing import ClassVar

import attrs

from rulesdsl import ast as A
from rulesdsl import unparse

# The engine services a `Call` may name, with the meaning of each argument position. An argument
# is an expression node, a static value (a name, an operator, a flag) or None when absent.
SERVICES = {
    "set_counter": ("counter", "player", "key", "op", "value"),  # player/key None: not per player/keyed
    "move": ("card", "dest", "bottom"),         # one card; none moves nothing
    "move_zone": ("zone", "dest", "bottom"),    # every card of a zone, as it was before the first move
    "move_list": ("cards", "dest", "bottom"),   # every card of a list
    "draw": ("src", "refill", "dest"),          # `into`: the card drawn, or none
    "shuffle": ("zone",),
    "reveal": ("card", "to"),                   # to None: every player
    "turn": ("card", "face"),
    "create": ("defs", "times", "dest", "many"),  # many: `defs` is a list; times None: once
    "perform": ("action", "bonus", "args"),     # action: a static name, or an expression (none: nothing)
    "win": ("player", "reason", "lose"),
    "end_game": ("reason",),                    # reason None: the default text
    "end_hand": ("reason",),                    # reason None: the default text
    "advance": ("track", "piece", "distance"),  # `into`: the pieces jumped over
    "put": ("track", "piece", "pos"),
    "place": ("card", "grid", "key", "cell"),   # grid: the static grid name; key: the grid's key
    "give": ("marker", "to"),
    "pass_zone": ("zone", "step"),             # zone: a per-player zone's name; step 1 or -1
}

# What a `LoopInit` iterates over (`items` is an expression, or for the last two a temporary).
LOOP_SOURCES = ("each", "count", "jumped_seats", "jumped_pieces")


def show(v) -> str:
    """An operand as text: an expression in the rules' own syntax, a static value as Python."""
    if v is None:
        return "-"
    if isinstance(v, (str, bool, int)):
        return repr(v)
    if isinstance(v, tuple):
        return "[" + ", ".join(show(x) for x in v) + "]"
    try:
        return unparse.expr(v)
    except TypeError:
        return repr(v)


record = attrs.frozen


@record
class Jump:
    """Go on at `target`."""

    op: ClassVar[str] = "jump"
    target: int
    span: A.Span

    def __str__(self):
        return f"jump {self.target}"


@record
class Branch:
    """Evaluate `cond`; when it is false go on at `target` (an `if` branch, a `while` test)."""

    op: ClassVar[str] = "branch"
    cond: object
    target: int
    span: A.Span

    def __str__(self):
        return f"branch {show(self.cond)} else {self.target}"


@record
class Return:
    """Leave the body: go on past its last instruction."""

    op: ClassVar[str] = "return"
    span: A.Span

    def __str__(self):
        return "return"


@record
class Let:
    """Bind the local `name` to `value`; `bounded` when the value is an int to keep in range."""

    op: ClassVar[str] = "let"
    name: str
    value: object
    bounded: bool
    span: A.Span

    def __str__(self):
        return f"let {self.name} = {show(self.value)}" + (" (bounded)" if self.bounded else "")


@record
class LoopInit:
    """Store a snapshot of the loop's items in the temporary `items` and 0 in the index `index`.

    `over` says what `source` is (LOOP_SOURCES): `each` a collection, `count` a number of rounds,
    `jumped_seats` / `jumped_pieces` the temporary holding what an `advance` jumped over, of which
    only the seats / only the named pieces are taken."""

    op: ClassVar[str] = "loop_init"
    over: str
    source: object
    items: str
    index: str
    span: A.Span

    def __str__(self):
        return f"loop_init {self.items}, {self.index} <- {self.over} {show(self.source)}"


@record
class LoopNext:
    """The loop head: past the last item, drop the temporaries and go on at `end`; otherwise bind
    `var` (if any) to the next item and step the index."""

    op: ClassVar[str] = "loop_next"
    var: str | None
    items: str
    index: str
    end: int
    span: A.Span

    def __str__(self):
        into = f"{self.var} <- " if self.var is not None else ""
        return f"loop_next {into}{self.items}[{self.index}] else {self.end}"


@record
class Call:
    """Call the engine service `service` (see SERVICES) with `args`; bind the result to `into`."""

    op: ClassVar[str] = "call"
    service: str
    args: tuple
    into: str | None
    span: A.Span

    def __str__(self):
        names = SERVICES.get(self.service, ())
        parts = " ".join(f"{n}={show(a)}" for n, a in zip(names, self.args))
        into = f" -> {self.into}" if self.into is not None else ""
        return f"call {self.service} {parts}{into}"


@record
class Log:
    """Record a `log` event: `text` followed by the labels of `args` (of static types `types`)."""

    op: ClassVar[str] = "log"
    text: str
    args: tuple
    types: tuple
    span: A.Span

    def __str__(self):
        return "log " + ", ".join([repr(self.text)] + [show(a) for a in self.args])


@record
class AskOption:
    """Ask `by` (or the active player) to choose among the labels whose condition holds; the choice
    goes on at that option's target. With no option open, go on at `end`. (`how.kind` "jump".)"""

    op: ClassVar[str] = "ask_option"
    how: ClassVar[str] = "jump"
    prompt: str
    by: object
    labels: tuple
    conds: tuple
    targets: tuple
    end: int
    span: A.Span
    secret: bool = False  # offered by what a counter some player does not see allows

    def __str__(self):
        opts = ", ".join(f"{n}{' if ' + show(c) if c is not None else ''} -> {t}"
                         for n, c, t in zip(self.labels, self.conds, self.targets))
        return f"ask_option {self.prompt!r} by={show(self.by)} [{opts}] else {self.end}"


@record
class AskItem:
    """Ask to choose one of `source` (elements of static type `elem`) and bind it to `var`; with
    none to choose, go on at `end`. (`how.kind` "bind".)"""

    op: ClassVar[str] = "ask_item"
    how: ClassVar[str] = "bind"
    var: str
    source: object
    elem: tuple
    by: object
    end: int
    span: A.Span
    label: tuple = ()  # (expression, static type) pairs: how each element is shown, if given
    prompt: str | None = None  # the question, if the rules give one
    secret: bool = False  # offered by what a counter some player does not see allows
    prompt_values: tuple = ()  # (expression, static type) pairs shown after the prompt's text

    def __str__(self):
        return f"ask_item {self.var} in {show(self.source)} by={show(self.by)} else {self.end}"


@record
class TogetherInit:
    """Start a `together` statement: store in the temporary `store` the players of `players` (each
    once, in the list's order; none left out) and an empty record of their choices (see
    `AskTogether`)."""

    op: ClassVar[str] = "together_init"
    store: str
    players: object
    span: A.Span
    secret: bool = False  # the choices are not revealed once all have chosen

    def __str__(self):
        return f"together_init {self.store} = {show(self.players)}{' secretly' if self.secret else ''}"


@record
class AskTogether:
    """Ask the next player of `store` who has not chosen (`var` bound to them) the choice of a
    `together`: one of `source` (elements of static type `elem`), or with no source a menu of
    `labels` whose `conds` hold, going on at `targets`. A player with nothing to choose is passed
    over. The answer is kept in `store`, unseen by the others, and this record runs again; once
    every player has chosen, the choices are revealed and the run goes on. (`how.kind` "commit".)

    `store` holds {"players", "asking": the player asked or None, "done": [player, value, label]
    in the order they chose, "next": None, then the [player, value] pairs still to run, in the
    players' order, "secret": whether the choices stay unrevealed}."""

    op: ClassVar[str] = "ask_together"
    how: ClassVar[str] = "commit"
    store: str
    var: str
    item: str | None
    source: object
    elem: tuple
    labels: tuple
    conds: tuple
    targets: tuple
    label: tuple
    prompt: str
    span: A.Span
    secret: bool = False  # offered by what a counter some player does not see allows

    def __str__(self):
        if self.source is None:
            opts = ", ".join(f"{n}{' if ' + show(c) if c is not None else ''} -> {t}"
                             for n, c, t in zip(self.labels, self.conds, self.targets))
            return f"ask_together {self.var} of {self.store} {self.prompt!r} [{opts}]"
        return f"ask_together {self.var} of {self.store} {self.prompt!r} {self.item} in {show(self.source)}"


@record
class TogetherNext:
    """Take the next revealed choice of `store`: bind `var` to its player and `item` to the value
    chosen, or (a menu) go on at the chosen option; with none left, drop `store` and go on at `end`."""

    op: ClassVar[str] = "together_next"
    store: str
    var: str
    item: str | None
    end: int
    span: A.Span

    def __str__(self):
        return f"together_next {self.var}, {self.item or '-'} of {self.store} else {self.end}"


@record
class PickInit:
    """Store the budget of a `pick` in the temporary `left` and 0 in the counter `count`."""

    op: ClassVar[str] = "pick_init"
    left: str
    count: str
    budget: object
    span: A.Span

    def __str__(self):
        return f"pick_init {self.left} = {show(self.budget)}, {self.count} = 0"


@record
class AskPick:
    """The head of a `pick` loop: ask to choose one of `source` whose `cost` fits in `left`, or
    `stop` (after a first pick, or always when `optional`); `stop` or nothing affordable drops the
    temporaries and goes on at `end`. (`how.kind` "pick".)"""

    op: ClassVar[str] = "ask_pick"
    how: ClassVar[str] = "pick"
    var: str
    source: object
    elem: tuple
    cost: object
    by: object
    optional: bool
    left: str
    count: str
    end: int
    span: A.Span
    prompt: str | None = None  # the question, if the rules give one
    secret: bool = False  # offered by what a counter some player does not see allows

    def __str__(self):
        return (f"ask_pick {self.var} in {show(self.source)} cost={show(self.cost)} by={show(self.by)}"
                f"{' optional' if self.optional else ''} left={self.left} count={self.count} else {self.end}")


@record
class ActionsInit:
    """Store how many actions an `actions` statement offers in `left` and an empty list in `used`."""

    op: ClassVar[str] = "actions_init"
    left: str
    used: str
    count: object
    span: A.Span

    def __str__(self):
        return f"actions_init {self.left} = {show(self.count)}, {self.used} = []"


@record
class AskAction:
    """Offer `player` the actions of `names` still allowed (`unless`, `most`) and performable; the
    chosen action runs and this record runs again. With none left, go on at `end`. The limits read
    the action being considered as the local `elem` (`it`, or the name the rules give it).
    (`how.kind` "act".)"""

    op: ClassVar[str] = "ask_action"
    how: ClassVar[str] = "act"
    player: object
    names: tuple
    unless: object
    most: object
    left: str
    used: str
    end: int
    span: A.Span
    elem: str = "it"
    secret: bool = False  # offered by what a counter some player does not see allows

    def __str__(self):
        named = "" if self.elem == "it" else f"{self.elem}: "
        return (f"ask_action {show(self.player)} [{', '.join(self.names)}] unless={named}{show(self.unless)} "
                f"most={named}{show(self.most)} left={self.left} used={self.used} else {self.end}")


RECORDS = (Jump, Branch, Return, Let, LoopInit, LoopNext, Call, Log,
           AskOption, AskItem, PickInit, AskPick, ActionsInit, AskAction, TogetherInit, AskTogether, TogetherNext)


def dump(records, spans: bool = False) -> str:
    """The records one per line, each after its index (and, with `spans`, its line:column)."""
    width = len(str(max(len(records) - 1, 0)))
    lines = []
    for i, r in enumerate(records):
        where = f"  ; {r.span.line}:{r.span.col}" if spans and r.span is not None else ""
        lines.append(f"{i:>{width}}  {r}{where}")
    return "\n".join(lines)


# ---- decision records --------------------------------------------------------------------------
# A question asked by one of the `Ask*` records leaves the game waiting (`GameState.pending`) with
# one of these beside the options: what the chosen option does to the running body. The asking
# instruction writes it and the engine's resume step reads it; the option ids and a player's view
# read it too. Each has one field per value it carries, named as in its JSON form (`to_json`, the
# shape of `GameState.to_json` and of a view). They are built on every question, so they are
# slotted and plain (attrs' frozen classes cost twice a dict to build): a record is replaced,
# never edited, which is why a cloned game may share it.
decision = attrs.define(slots=True, weakref_slot=False)


@decision
class JumpDecision:
    """A menu of labelled options (`AskOption`): option i goes on at instruction `pcs[i]`."""

    kind: ClassVar[str] = "jump"
    pcs: list


@decision
class BindDecision:
    """A choice among values (`AskItem`): option i binds `values[i]` (static type `elem`) to `var`."""

    kind: ClassVar[str] = "bind"
    var: str
    values: list
    elem: tuple


@decision
class PickDecision:
    """One round of a `pick` (`AskPick`): option i binds `values[i]` to `var` and spends `costs[i]`
    from the temporary `left`, counting it in `count`; the value None is `stop`, which drops the
    temporaries and goes on at `end`."""

    kind: ClassVar[str] = "pick"
    var: str
    values: list
    elem: tuple
    costs: list
    left: str
    count: str
    end: int


@decision
class ActDecision:
    """An action menu (`AskAction`): `player` performs the chosen action, which takes one from the
    temporary `left` and is added to the list `used`; the menu is asked again after it."""

    kind: ClassVar[str] = "act"
    player: int
    left: str
    used: str


@decision
class CommitDecision:
    """One player's choice in a `together` (`AskTogether`): option i is kept in the temporary
    `store` as `values[i]` (a value of static type `elem`, or with `menu` the instruction the option
    goes on at), unseen by the others, and the body goes back to instruction `at` to ask the next."""

    kind: ClassVar[str] = "commit"
    store: str
    player: int
    values: list
    elem: tuple
    menu: bool
    at: int


DECISIONS = {cls.kind: cls for cls in (JumpDecision, BindDecision, PickDecision, ActDecision, CommitDecision)}
_DECISION_FIELDS = {cls: tuple(f.name for f in attrs.fields(cls)) for cls in DECISIONS.values()}


def decision_json(d) -> dict:
    """A decision record as JSON data: `kind`, then its fields in order (the values not copied)."""
    out = {"kind": d.kind}
    for name in _DECISION_FIELDS[type(d)]:
        out[name] = getattr(d, name)
    return out


def decision_from_json(data: dict):
    """The decision record that `decision_json` wrote as `data` (lists where tuples were)."""
    cls = DECISIONS[data["kind"]]
    return cls(**{name: value for name, value in data.items() if name != "kind"})
