"""Typed syntax tree of the rules language.

Every node is a frozen attrs class carrying the `Span` of the source text it came from. Nodes use
identity equality (`eq=False`) so later steps can key side tables by node.
"""
from __future__ import annotations

from typing import Any

import attrs


@attrs.frozen
class Span:
    """A region of a source file, 1-based lines and columns, and the file it is in."""

    line: int
    col: int
    end_line: int = 0
    end_col: int = 0
    path: str = ""


node = attrs.frozen(eq=False)


def walk(e):
    """Every expression node below (and including) `e`, children after their parent."""
    todo = [e]
    while todo:
        n = todo.pop()
        if n is None or isinstance(n, (str, int, bool, Span)):
            continue
        yield n
        for field in ("obj", "index", "operand", "left", "right", "lo", "hi", "coll", "cond", "test",
                      "then", "other", "func"):
            sub = getattr(n, field, None)
            if sub is not None and not isinstance(sub, (str, int, bool)):
                todo.append(sub)
        todo.extend(getattr(n, "args", ()) or ())
        todo.extend(getattr(n, "items", ()) or ())


# ---- expressions ---------------------------------------------------------------------------
@node
class Lit:
    """A literal: an int, a string, true/false or none."""

    value: Any
    span: Span


@node
class Name:
    """A reference to a variable, declaration, enum value or built-in."""

    id: str
    span: Span


@node
class ListLit:
    """`[a, b, c]`."""

    items: tuple
    span: Span


@node
class Attr:
    """`obj.name`: a card field, a per-player zone or counter, a cell or line field."""

    obj: Any
    name: str
    span: Span


@node
class Index:
    """`obj[index]`: a list element or a keyed counter."""

    obj: Any
    index: Any
    span: Span


@node
class Call:
    """`func(args)`: a built-in, a `def`, or (in `do`) an action. `elem` is the name the last of two
    arguments gives the element (`sum(xs, c: c.value)`), else None."""

    func: Any
    args: tuple
    span: Span
    elem: Element | None = None


@node
class Unary:
    """`-x` or `not x`."""

    op: str
    operand: Any
    span: Span


@node
class Binary:
    """Arithmetic, comparison, membership and boolean operators."""

    op: str
    left: Any
    right: Any
    span: Span


@node
class Range:
    """`lo..hi`, both ends included."""

    lo: Any
    hi: Any
    span: Span


@node
class Filter:
    """`collection where condition`, with `it` bound to each element, or the name `elem` gives it
    (`collection where c: condition`)."""

    coll: Any
    cond: Any
    span: Span
    elem: Element | None = None


@node
class Element:
    """The name a `where`, an aggregate's expression or an `actions` limit gives the element it
    binds (`c` in `xs where c: c.value > 1`); its span is the name's."""

    name: str
    span: Span


def element_site(form) -> tuple:
    """(the node that binds the element of `form`, the element's name): the form's `Element` and
    its name when the form names the element, else the form itself and `it`. The resolver keys the
    element's variable by that node, so every later step finds it by the same one."""
    elem = form.elem
    return (elem, elem.name) if elem is not None else (form, "it")


@node
class Cond:
    """`if test then a else b`."""

    test: Any
    then: Any
    other: Any
    span: Span


# ---- declarations --------------------------------------------------------------------------
@node
class Game:
    """Game metadata."""

    name: str
    min_players: int
    max_players: int
    default_players: int
    cards: tuple  # of FileRef: card databases, resolved against the declaring file's folder
    round_limit: int
    step_budget: int
    span: Span
    seats: tuple = ()  # names shown for the seats, in order
    decision_limit: int = 100_000  # decisions in one game before it is declared stuck
    hand_limit: int = 100  # in a game of hands (`hand` block): hands in one game before it is stuck


@node
class ParamDecl:
    """`param name = expr`: a value the command line may override."""

    name: str
    value: Any
    span: Span
    allowed: Any = None  # `param d = 3 from 1..9`: the values `--set` may give


@node
class TypeRef:
    """A field type: int, bool, text, action, enum(...), list (of int) or set (of enum values);
    `named` is a named enum's name (a reference `named` or `named_set` until the checker puts the
    enum's values in, `enum` or `set` after)."""

    name: str
    values: tuple
    span: Span
    named: str | None = None


@node
class EnumDecl:
    """`enum NAME { a, b, ... }`: named enum values, which fields declare by the name as their type."""

    name: str
    values: tuple
    span: Span


@node
class FieldDecl:
    """A typed field of a card kind, a track space, a grid cell or a grid line."""

    name: str
    type: TypeRef
    default: Any
    span: Span


@node
class KindDecl:
    """A card kind: the schema of one table of the card database. Besides its fields, a kind may
    give every card counters of its own (`counters`, CounterDecl with `card_kind` set), small zones
    attached to it (`slots`, SlotDecl) and several faces of which one shows (`faces`, FaceDecl, the
    first being the face a card starts with)."""

    name: str
    fields: tuple
    span: Span
    counters: tuple = ()
    slots: tuple = ()
    faces: tuple = ()


@node
class SlotDecl:
    """`slot NAME: SHAPE of KIND [public|hidden] [limit N | limit FIELD]`: a small zone every card
    of the declaring kind carries; `limit` is a number or an int field of the carrying card, read on
    the face it shows."""

    name: str
    shape: str
    kind: str
    visibility: str
    limit: Any
    span: Span
    per_player: bool = False  # refused by the checker: a slot belongs to a card, not to a player


@node
class FaceDecl:
    """One face of a card kind. `hidden`: a card showing it shows nothing of itself (a face-down
    back); `assigns` are the field values every card has on this face unless its database says
    otherwise."""

    name: str
    hidden: bool
    assigns: tuple
    span: Span


@node
class ZoneDecl:
    """A place that holds cards. `visibility` says who sees its cards: `public` (everyone),
    `private` (its owner), `hidden` (nobody; its size is public) or `top` (nobody but the top card)."""

    name: str
    shape: str
    kind: str
    visibility: str
    per_player: bool
    limit: Any
    span: Span
    by: str | None = None  # `per NAME`: one zone per value of the enum (or enum field) NAME
    keys: tuple = ()       # those values, once the checker has found them
    size: str = "public"   # who knows how many cards it holds: `public`, `private` (its owner), `hidden`

    @property
    def hidden(self) -> bool:
        """True when some player may not see its cards."""
        return self.visibility != "public"


@node
class CounterDecl:
    """A number, shared or per player, optionally keyed (`counter taken[] = 0`)."""

    name: str
    keyed: bool
    init: Any
    per_player: bool
    low: Any
    high: Any
    span: Span
    card_kind: str | None = None  # declared in a kind: one value per card of that kind
    visibility: str = "public"  # who sees its value: "public", "private" (its owner) or "hidden"


@node
class MarkerDecl:
    """A marker held by one player at a time."""

    name: str
    span: Span


@node
class PieceDecl:
    """A piece that belongs to no player, standing on a track."""

    name: str
    track: str
    span: Span


@node
class DataAssign:
    """`field = expr` inside a data block."""

    name: str
    value: Any
    span: Span


@node
class TrackDecl:
    """A ring of spaces with data per space and one piece per player."""

    name: str
    size: int
    fields: tuple
    spaces: tuple  # of (tuple[int, ...], tuple[DataAssign, ...])
    span: Span


@node
class GridDecl:
    """A rectangular grid of cards with data per cell and per full line."""

    name: str
    width: int
    height: int
    kind: str
    per_player: bool
    cell_fields: tuple
    line_fields: tuple
    holes: tuple
    cells: tuple  # of (tuple[(x, y)], assigns)
    columns: tuple  # of (tuple[int], assigns)
    rows: tuple
    span: Span
    edges: tuple = ()  # card fields telling whether an edge links: north, east, south, west
    visibility: str = "public"  # as a zone's; `top` has no meaning on a grid


@node
class Param:
    """A formal parameter with an optional default and an optional declared type (`ParamType`)."""

    name: str
    default: Any
    span: Span
    type: Any = None


@node
class ParamType:
    """A parameter's declared type as written: `int`, `bool`, `text`, `player`, a card kind or an
    enum by name, or `list of` one of those (`name` is then None and `item` the element's)."""

    name: str | None
    span: Span
    item: Any = None


@node
class FuncDecl:
    """`def name(params) = expr`: a named, side-effect free expression."""

    name: str
    params: tuple
    body: Any
    span: Span


@node
class ActionDecl:
    """A named action with parameters, a precondition and a body; or a routine (`routine`),
    a named sequence of statements that is not an action of the game."""

    name: str
    params: tuple
    requires: Any
    body: tuple
    span: Span
    routine: bool = False

    @property
    def acting(self) -> bool:
        """Whether it has an acting player, its first parameter: every action does; a routine
        does unless it has no parameters or its first one declares a type other than `player`
        (a routine of nobody: dealing, scoring a round)."""
        if not self.routine:
            return True
        return bool(self.params) and (self.params[0].type is None or self.params[0].type.name == "player")


@node
class HandDecl:
    """`hand { begin {...} end if COND ["reason"] finish {...} }`: the rounds are played in hands.
    `begin` (`start`) runs at the start of each hand, `cond` (if any) ends a hand after a round in which it
    holds, `finish` runs when a hand ends (also by `end hand`)."""

    start: tuple
    cond: Any
    reason: str | None
    finish: tuple
    span: Span


@node
class EndHand:
    """`end hand ["reason"]` ends the current hand at once: its `finish` runs, then the next hand."""

    reason: str | None
    span: Span


@node
class SetupDecl:
    """Statements run once before the first round."""

    body: tuple
    span: Span


@node
class PhaseDecl:
    """A phase of the round: once, each player, or in turns from an expression."""

    name: str
    mode: str
    var: str | None
    start: Any
    body: tuple
    span: Span


@node
class RoundDecl:
    """The phases of one round, in order."""

    phases: tuple
    span: Span


@node
class TriggerDecl:
    """`on enter|place|fill target (names) { ... }`, or `on reach (p) condition { ... }`."""

    event: str
    target: str
    names: tuple
    body: tuple
    span: Span
    cond: Any = None


@node
class ScoreDecl:
    """A named victory count."""

    name: str
    value: Any
    span: Span


@node
class VictoryDecl:
    """When the game ends, who wins and how ties are broken."""

    var: str
    after: str
    scores: tuple
    win: Any
    rank: Any
    span: Span
    # One (condition, reason text or None) per `win if` line; `win` is their `or`.
    reasons: tuple = ()


@node
class EvaluateDecl:
    """A player's standing for bots: named scores, then an integer value (higher is better)."""

    var: str
    scores: tuple
    value: Any
    span: Span


# ---- layering ------------------------------------------------------------------------------
@node
class FileRef:
    """A file named by a ruleset (`cards "x.toml"`): as written, resolved, and where it is named."""

    path: str      # resolved against the folder of the naming file
    written: str   # as the ruleset wrote it
    span: Span


@node
class Extends:
    """`extends "base.lf"`: this ruleset starts from another."""

    path: str
    span: Span


@node
class Replace:
    """`replace <declaration>`: the declaration of the same name in a lower layer is replaced."""

    decl: Any
    span: Span


@node
class CardEdit:
    """`amend card`, `replace card` or `remove card`: a layer changes one card definition of the
    databases below it, found by its name (and its kind, when `kind` is given)."""

    op: str            # "amend", "replace" or "remove"
    kind: str | None
    name: str
    assigns: tuple     # of DataAssign; empty for "remove"
    span: Span


@node
class Amendment:
    """One change to a body: before/after/replace/remove a named step, or add first/last."""

    op: str
    step: str | None
    body: tuple
    span: Span


@node
class Amend:
    """`amend phase|setup|kind|track|game|round NAME { ... }`: a declaration changed in place."""

    what: str
    name: str | None
    items: tuple
    span: Span


# ---- statements ----------------------------------------------------------------------------
@node
class Step:
    """`step name { ... }`: a named part of a body that a layer above can change."""

    name: str
    body: tuple
    span: Span


@node
class Let:
    """`let name = expr`."""

    name: str
    value: Any
    span: Span


@node
class Set:
    """`set target (=|+=|-=) expr` on a counter."""

    target: Any
    op: str
    value: Any
    span: Span


@node
class Move:
    """`move what to|under zone`."""

    what: Any
    dest: Any
    bottom: bool
    span: Span


@node
class Draw:
    """`draw name from pile [refill other] to zone`."""

    name: str
    src: Any
    refill: Any
    dest: Any
    span: Span


@node
class Shuffle:
    """`shuffle zone`."""

    zone: Any
    span: Span


@node
class Reveal:
    """`reveal card` (to everyone), `reveal card to player`, `look at card by player` (the same)."""

    card: Any
    to: Any  # None: every player
    span: Span


@node
class Create:
    """`create definition [times n] into zone`."""

    what: Any
    times: Any
    dest: Any
    span: Span


@node
class If:
    """`if/elif/else`."""

    branches: tuple  # of (cond, body)
    other: tuple | None
    span: Span


@node
class For:
    """`for name in collection { ... }` over a snapshot of the collection."""

    var: str
    iter: Any
    body: tuple
    span: Span


@node
class Repeat:
    """`repeat n { ... }`."""

    count: Any
    body: tuple
    span: Span


@node
class While:
    """`while cond { ... }`, bounded by the step budget."""

    cond: Any
    body: tuple
    span: Span


@node
class Break:
    """Leave the innermost loop."""

    span: Span


@node
class Return:
    """Leave the current action, trigger or phase body."""

    span: Span


@node
class Option:
    """One labelled option of a `choose { ... }`."""

    name: str
    cond: Any
    body: tuple
    span: Span


@node
class ChooseOptions:
    """A choice among labelled options whose condition holds."""

    prompt: str | None
    by: Any
    options: tuple
    span: Span


@node
class ChooseItem:
    """A choice of one element of a collection; `label`, if given, shows each element as its
    values (evaluated with the variable bound to the element) joined by spaces."""

    var: str
    coll: Any
    by: Any
    body: tuple
    span: Span
    label: tuple = ()
    prompt: str | None = None  # the question shown to the chooser; `choose NAME` when not given
    prompt_values: tuple = ()  # values shown after the prompt's text, as a `log` shows them


@node
class Together:
    """`together p in players choose ...`: simultaneous choices. Each player of `players` makes
    the choice `body[0]` (a `ChooseItem` or a `ChooseOptions` without `by`) unseen by the others;
    when all have chosen, the choices are revealed and the choice's body runs for each player, in
    the list's order, `var` bound to that player."""

    var: str
    players: Any
    body: tuple
    span: Span
    secret: bool = False  # `secretly`: the choices are not revealed when all have chosen


@node
class Pass:
    """`pass hand to next|previous`: every player's zone `zone` goes, at once, to the next player
    (`step` 1) or the previous one (`step` -1)."""

    zone: str
    step: int
    span: Span


@node
class Pick:
    """Items picked one at a time while their total cost stays within a budget."""

    var: str
    coll: Any
    cost: Any
    budget: Any
    by: Any
    body: tuple
    span: Span
    optional: bool = False  # `pick optional`: stopping is offered before the first item too
    prompt: str | None = None  # the question shown to the picker; `pick NAME` when not given


@node
class Do:
    """`do action(args)`: a bonus action, which does not count as a turn action; `do routine(args)`
    runs a routine. `perform action(args)` (main=True) carries out an action as a turn action."""

    call: Call
    span: Span
    main: bool = False


@node
class Win:
    """`win player "reason"` ends the game at once with that player the winner; `lose player
    "reason"` (lose=True) ends it with every other player the winner (nobody when the only player
    loses). `player` may be a list of players, who win or lose together (`win players`: everyone)."""

    player: Any
    reason: str
    span: Span
    lose: bool = False


@node
class Turn:
    """`turn card to face`: the card shows another of its faces."""

    card: Any
    face: Any
    span: Span


@node
class EndGame:
    """`end game ["reason"]` stops the game at once, wherever it is, and decides it by the victory
    block: the players meeting a `win if` line win, else every player is ranked (see runtime)."""

    reason: str | None
    span: Span


@node
class Actions:
    """`actions n for player from a, b, c [distinct unless cond | each at most n]`: `it` in the
    condition or the number is the action being considered (or the name `elem` gives it:
    `distinct unless a: a == pass`)."""

    count: Any
    player: Any
    names: tuple
    unless: Any
    span: Span
    most: Any = None  # how many times each action may be chosen
    elem: Element | None = None


@node
class Advance:
    """Move a player's piece on a track, counting only free spaces."""

    piece: Any
    track: str
    distance: Any
    jump_var: str | None
    jump_body: tuple
    span: Span
    pass_var: str | None = None  # `passing x { }`: run for each piece of no player passed
    pass_body: tuple = ()


@node
class Put:
    """Place a player's piece on a track space."""

    piece: Any
    track: str
    pos: Any
    span: Span


@node
class Place:
    """Place a card on a grid cell."""

    card: Any
    grid: Any
    cell: Any
    span: Span


@node
class Give:
    """Give a marker to a player."""

    marker: str
    to: Any
    span: Span


@node
class Log:
    """A message in the trace."""

    text: str
    args: tuple
    span: Span


@node
class DisplayEntry:
    """One line of a `display` block: `label NAME "text"`, `internal NAME` (one entry per name),
    `card KIND "template"` or `cell GRID "template"`. `text_span` is where the string starts."""

    what: str
    name: str
    text: str | None
    span: Span
    text_span: Span | None = None


@node
class DisplayScore:
    """`score for p "label" = expr`: a running score every player sees, for each player `p`."""

    var: str
    label: str
    value: Any
    span: Span


@node
class DisplayDecl:
    """A `display` block: how people see the game, apart from the rules."""

    entries: tuple
    span: Span


@node
class Program:
    """A whole rules file, or the result of layering several (`sources` has every file's text)."""

    path: str
    source: str
    items: tuple
    sources: dict = attrs.field(factory=dict)
    layers: tuple = ()  # of Layer, base first, when the ruleset extends another
    card_edits: tuple = ()  # of CardEdit, in the order the layers apply them

    def source_of(self, path: str) -> str | None:
        """The text of one of the files this program was built from."""
        if not path or path == self.path:
            return self.source
        return self.sources.get(path)
