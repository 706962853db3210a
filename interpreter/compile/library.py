"""The built-in functions of the rules language, each once, as a plain function of its evaluated
arguments (the counterpart of starlark-go's library.go).

Every function takes the run `rt` and the span of the call (for its errors) and then its arguments
as the table of built-ins (rulesdsl/builtins.py) shapes them: a collection as the list of its
elements, an expression over `it` as a function from a list of elements to the list of its values
on them (one call for all, which also charges a step per element), a grid as its name and its key.
`FUNCTIONS` maps each built-in's name to its function; the expression compiler (pysource.py) calls
it, or writes the same meaning inline where that is faster (`count` of a filter, `sum` of a field).
"""
from __future__ import annotations

from ..core.primitives import RuleError, piece_key

FUNCTIONS: dict = {}
# The built-ins whose function only calls a method of the run with the same arguments: name ->
# that method. The compiler writes the method's call directly (one call less).
RUN_METHODS = {"fits": "fits", "slot": "slot_key", "room": "room", "zone_of": "zone_of", "host": "host",
               "slot_of": "slot_of", "attached": "attached", "faces": "faces", "face": "face"}

def block_in(meta, cells, bw: int, bh: int) -> bool:
    """Whether the filled cells of a grid hold a full block `bw` wide and `bh` high."""
    W = meta.width
    for i in sorted(cells):  # each filled cell as a possible top-left corner
        x0, y0 = i % W, i // W
        if x0 + bw > W or y0 + bh > meta.height:
            continue
        if all((y0 + dy) * W + x0 + dx in cells for dy in range(bh) for dx in range(bw)):
            return True
    return False


def group_sizes(values) -> list[int]:
    """The sizes of the sets of different values that `values` can be grouped into, each set taking
    one of every value still left: [number of values with at least 1, with at least 2, ...]."""
    counts = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    left = sorted(counts.values(), reverse=True)
    sizes = []
    for i in range(1, (left[0] if left else 0) + 1):
        while left[-1] < i:
            left.pop()
        sizes.append(len(left))
    return sizes


def builtin(name: str):
    """Register the function of the built-in `name`."""
    def register(fn):
        FUNCTIONS[name] = fn
        return fn
    return register


@builtin("count")
def count(rt, span, xs):
    """Number of elements."""
    return len(xs)


@builtin("sum")
def sum_of(rt, span, xs, f):
    """Sum of an expression over a collection."""
    return sum(f(xs))


def _extreme(rt, span, xs, f, pick):
    values = xs if f is None else f(xs)
    if not values:
        raise RuleError("min/max of an empty collection", span)
    return pick(values)


@builtin("min")
def min_of(rt, span, xs, f=None):
    """Smallest value of an expression over a collection (`f` None: the smallest element; the two
    numbers of `min(a, b)` are given as a list of two)."""
    return _extreme(rt, span, xs, f, min)


@builtin("max")
def max_of(rt, span, xs, f=None):
    """Largest value of an expression over a collection (see `min_of`)."""
    return _extreme(rt, span, xs, f, max)


@builtin("any")
def any_of(rt, span, xs):
    """True if the collection is not empty."""
    return len(xs) > 0


@builtin("all")
def all_of(rt, span, xs, f):
    """True if the condition holds for every element (each is evaluated)."""
    return all(f(xs))


@builtin("count_distinct")
def count_distinct(rt, span, xs, f):
    """Number of distinct values of an expression over a collection."""
    return len(set(f(xs)))


@builtin("set_sizes")
def set_sizes(rt, span, xs, f):
    """The sizes of the sets of elements with different values of an expression."""
    return group_sizes(f(xs))


@builtin("abs")
def abs_of(rt, span, n):
    """Absolute value."""
    return abs(n)


@builtin("top")
def top(rt, span, zone):
    """The top card of a zone, or None."""
    cards = rt.st.zones[zone]
    return cards[-1] if cards else None


@builtin("bottom")
def bottom(rt, span, zone):
    """The bottom card of a zone, or None."""
    cards = rt.st.zones[zone]
    return cards[0] if cards else None


@builtin("first")
def first(rt, span, xs):
    """The first element, or None."""
    return xs[0] if xs else None


@builtin("last")
def last(rt, span, xs):
    """The last element, or None."""
    return xs[-1] if xs else None


@builtin("defs")
def defs(rt, span, kind):
    """The card definitions of a kind, in database order."""
    return list(rt.defs_by_kind[kind])


@builtin("random")
def random(rt, span, xs):
    """A chance step: one element chosen by the game's RNG."""
    return rt.random_choice(xs)


@builtin("holder")
def holder(rt, span, marker):
    """The player holding a marker, or None."""
    return rt.st.markers.get(marker)


@builtin("next_player")
def next_player(rt, span, p):
    """The next player in seat order."""
    return (p + 1) % rt.st.player_count


@builtin("turn_order")
def turn_order(rt, span, start):
    """All players in seat order starting from `start`."""
    n = rt.st.player_count
    return [(start + i) % n for i in range(n)]


@builtin("seat")
def seat(rt, span, p):
    """A player's seat number, from 1."""
    return p + 1


@builtin("player")
def player(rt, span, number):
    """The player at a seat number, from 1."""
    if not 1 <= number <= rt.st.player_count:
        raise RuleError(f"there is no seat {number}", span)
    return number - 1


@builtin("space")
def space(rt, span, track, piece):
    """The space of a track where a piece (or a player's piece) stands."""
    pos = rt.st.tracks[track].get(piece_key(piece))
    if pos is None:
        raise RuleError("this piece is not on the track", span)
    return pos


FUNCTIONS["position"] = space  # a space's value is its index


@builtin("free_spaces")
def free_spaces(rt, span, track, piece):
    """Spaces of a track not occupied by another piece."""
    me = piece_key(piece)
    others = {pos for k, pos in rt.st.tracks[track].items() if k != me and pos is not None}
    return rt.track_meta[track].size - len(others)


@builtin("space_at")
def space_at(rt, span, track, index):
    """The space of a track at an index."""
    if not 0 <= index < rt.track_meta[track].size:
        raise RuleError(f"track `{track}` has no space {index}", span)
    return index


@builtin("frontier")
def frontier(rt, span, grid, key):
    """Empty cells orthogonally next to a filled cell, in cell order."""
    adjacent = rt.grid_meta[grid].adjacent
    cells = rt.st.grids[key]
    out = set()
    for i in cells:
        out.update(j for j in adjacent[i] if j not in cells)
    return sorted(out)


@builtin("empty_cells")
def empty_cells(rt, span, grid, key):
    """The empty playable cells of a grid, in cell order."""
    cells = rt.st.grids[key]
    return [i for i in rt.grid_meta[grid].playable if i not in cells]


@builtin("filled_cells")
def filled_cells(rt, span, grid, key):
    """The cells of a grid that hold a card, in cell order."""
    return sorted(rt.st.grids[key])


@builtin("cell")
def cell(rt, span, grid, key, x, y):
    """The cell of a grid at a column and a row, from 1."""
    meta = rt.grid_meta[grid]
    if not (1 <= x <= meta.width and 1 <= y <= meta.height):
        raise RuleError(f"cell ({x}, {y}) is outside the grid", span)
    return (y - 1) * meta.width + (x - 1)


@builtin("neighbors")
def neighbors(rt, span, grid, key, at):
    """Cells orthogonally next to a cell."""
    return list(rt.grid_meta[grid].adjacent[at])


@builtin("card_at")
def card_at(rt, span, grid, key, at):
    """The card on a cell, or None."""
    return rt.st.grids[key].get(at)


@builtin("cell_of")
def cell_of(rt, span, grid, key, card):
    """The cell of a grid holding a card, or None."""
    for i, held in rt.st.grids[key].items():
        if held == card:
            return i
    return None


@builtin("has_block")
def has_block(rt, span, grid, key, columns, rows):
    """True if some block of columns x rows cells of a grid is entirely filled."""
    return block_in(rt.grid_meta[grid], rt.st.grids[key], columns, rows)


@builtin("fits")
def fits(rt, span, grid, key, card, at, anchor):
    """True if a card placed on a cell keeps every card of the grid linked to an anchor cell."""
    return rt.fits(grid, key, card, at, anchor)


@builtin("names")
def names(rt, span, xs, of_defs):
    """The names of the cards (or definitions) of a collection, in order."""
    if of_defs:
        return [rt.names[d] for d in xs]
    card_def = rt.st.card_def
    return [rt.names[card_def[c]] for c in xs]


@builtin("field")
def field(rt, span, ref, is_def, name):
    """The int field of a card (or definition) named by a text or enum value."""
    v = rt.fields[ref if is_def else rt.st.card_def[ref]].get(name)
    if not isinstance(v, int) or isinstance(v, bool):
        raise RuleError(f"cards of this kind have no int field `{name}`", span)
    return v


@builtin("index_of")
def index_of(rt, span, xs, x):
    """The position (from 0) of an element in a collection, or -1."""
    return xs.index(x) if x in xs else -1


@builtin("slice")
def slice_of(rt, span, xs, start, end):
    """The elements of a collection from a position up to (not including) another."""
    return list(xs[max(0, start):max(0, end)])


@builtin("reverse")
def reverse(rt, span, xs):
    """The elements of a collection in the opposite order."""
    return list(xs)[::-1]


@builtin("slot")
def slot(rt, span, card, name):
    """A card's slot of that name: a zone."""
    return rt.slot_key(card, name)


@builtin("room")
def room(rt, span, card, name):
    """How many more cards a card's slot takes."""
    return rt.room(card, name)


@builtin("zone_of")
def zone_of(rt, span, card):
    """The zone (or card's slot) holding a card, or None on a grid."""
    return rt.zone_of(card)


@builtin("host")
def host(rt, span, card):
    """The card whose slot holds a card, or None."""
    return rt.host(card)


@builtin("slot_of")
def slot_of(rt, span, card):
    """The name of the slot holding a card, or None."""
    return rt.slot_of(card)


@builtin("attached")
def attached(rt, span, cards):
    """The cards in the slots of a card, or of every card of a list."""
    return rt.attached(cards)


@builtin("call")
def call(rt, span, formula, *lead):
    """The number a card's formula field computes, given these arguments and then the card's own."""
    return rt.call_formula(formula, lead)


@builtin("faces")
def faces(rt, span, card):
    """The names of the faces a card has, in its kind's order."""
    return rt.faces(card)


@builtin("face")
def face(rt, span, card, name):
    """A card's face of that name, read like a definition, or None."""
    return rt.face(card, name)


def _by(rt, xs, f, better):
    xs = list(xs)
    if not xs:
        return None
    values = f(xs)
    best = 0
    for i in range(1, len(xs)):
        if better(values[i], values[best]):
            best = i
    return xs[best]


@builtin("min_by")
def min_by(rt, span, xs, f):
    """The element with the smallest value of an expression (the first on ties), or None."""
    return _by(rt, xs, f, lambda a, b: a < b)


@builtin("max_by")
def max_by(rt, span, xs, f):
    """The element with the largest value of an expression (the first on ties), or None."""
    return _by(rt, xs, f, lambda a, b: a > b)


@builtin("sort_by")
def sort_by(rt, span, xs, f):
    """The elements ordered by an expression, ascending (equal values keep their order)."""
    xs = list(xs)
    values = f(xs)
    return [x for _, _, x in sorted(zip(values, range(len(xs)), xs), key=lambda t: (t[0], t[1]))]
