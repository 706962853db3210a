"""The built-in functions of the rules language: one table of their names, argument shapes and doc
lines. The resolver (which names are built-ins, which arguments bind `it` or name a declaration),
the checker (how many arguments), the compiler (how each argument is given to the function), the
language server (hover and completion) and the docs read it.

A built-in lives in three places: its row here, its type rule (`Checker.b_NAME`,
rulesdsl/checker/typerules.py) and its function (`interpreter/compile/library.py`), a plain Python function of its evaluated arguments.

The shape of an argument says what the function is given for it:

- `value`: the argument's value.
- `items`: a collection (a zone, a grid, a list), as the list of its elements in order.
- `each`: an expression evaluated once per element of the first argument, with `it` bound to the
  element, as a function from a list of elements to the list of the expression's values on them.
- `grid`: a grid, as its declaration's name and then its key (`P1.board`).
- `kind`, `marker`, `track`: the name of a declaration of that category (never a local).
- `card_or_def`: a card or a card definition, as the value and then whether it is a definition.
- `cards_or_defs`: a collection of cards or of definitions, as its elements and then whether they
  are definitions.
- `card_or_cards`: a card (as itself) or a collection of cards (as its elements).
"""
from __future__ import annotations

import attrs

SHAPES = ("value", "items", "each", "grid", "kind", "marker", "track", "card_or_def", "cards_or_defs",
          "card_or_cards")
DECLARATION_SHAPES = ("kind", "marker", "track")


@attrs.frozen
class Builtin:
    """A built-in's row: its name, the shape of each argument (the last repeats up to `most`
    arguments) and the line that documents it."""

    name: str
    shapes: tuple
    doc: str
    most: int | None = None  # the most arguments it takes, when that is more than its shapes

    @property
    def least(self) -> int:
        return len(self.shapes)

    def shape(self, i: int) -> str:
        """The shape of argument `i` (from 0)."""
        return self.shapes[min(i, len(self.shapes) - 1)]


def _table(*rows: Builtin) -> dict:
    return {row.name: row for row in rows}


BUILTINS = _table(
    Builtin("count", ("items",), "number of elements"),
    Builtin("sum", ("items", "each"), "sum of an expression over a collection"),
    Builtin("min", ("items", "each"), "smaller of two numbers, or smallest expression over a collection"),
    Builtin("max", ("items", "each"), "larger of two numbers, or largest expression over a collection"),
    Builtin("any", ("items",), "true if the collection is not empty"),
    Builtin("all", ("items", "each"), "true if the condition holds for every element"),
    Builtin("count_distinct", ("items", "each"), "number of distinct values of an expression over a collection"),
    Builtin("set_sizes", ("items", "each"), "the sizes of the sets of elements with different values of an "
            "expression, each set taking one element of every value still left, largest first"),
    Builtin("abs", ("value",), "absolute value"),
    Builtin("top", ("value",), "the top card of a zone, or none"),
    Builtin("bottom", ("value",), "the bottom card of a zone, or none"),
    Builtin("first", ("items",), "the first element, or none"),
    Builtin("last", ("items",), "the last element, or none"),
    Builtin("defs", ("kind",), "the card definitions of a kind, in database order"),
    Builtin("random", ("items",), "a chance step: one element chosen by the game's RNG"),
    Builtin("holder", ("marker",), "the player holding a marker, or none"),
    Builtin("next_player", ("value",), "the next player in seat order"),
    Builtin("turn_order", ("value",), "all players in seat order starting from one"),
    Builtin("seat", ("value",), "a player's seat number, from 1"),
    Builtin("player", ("value",), "the player at a seat number, from 1"),
    Builtin("space", ("track", "value"), "the space of a track where a player's piece stands"),
    Builtin("position", ("track", "value"), "the index of the space where a player's piece stands"),
    Builtin("free_spaces", ("track", "value"), "spaces of a track not occupied by another piece"),
    Builtin("frontier", ("grid",), "empty cells orthogonally next to a filled cell"),
    Builtin("empty_cells", ("grid",), "the empty cells of a grid"),
    Builtin("cell", ("grid", "value", "value"), "the cell of a grid at a column and a row, from 1"),
    Builtin("neighbors", ("grid", "value"), "cells orthogonally next to a cell"),
    Builtin("card_at", ("grid", "value"), "the card on a cell, or none"),
    Builtin("names", ("cards_or_defs",), "the names of the cards of a collection, in order"),
    Builtin("field", ("card_or_def", "value"), "the int field of a card named by a text or enum value"),
    Builtin("index_of", ("items", "value"), "the position (from 0) of an element in a collection, or -1"),
    Builtin("slice", ("items", "value", "value"),
            "the elements of a collection from a position up to (not including) another"),
    Builtin("reverse", ("items",), "the elements of a collection in the opposite order"),
    Builtin("slot", ("value", "value"), "a card's slot of that name: a zone"),
    Builtin("zone_of", ("value",), "the zone (or card's slot) holding a card, or none on a grid"),
    Builtin("host", ("value",), "the card whose slot holds a card, or none"),
    Builtin("slot_of", ("value",), "the name of the slot holding a card, or none"),
    Builtin("attached", ("card_or_cards",), "the cards in the slots of a card (or of every card of a collection)"),
    Builtin("room", ("value", "value"), "how many more cards a card's slot takes"),
    Builtin("call", ("value",), "the number a card's formula field computes: its definition, given these "
            "arguments and then the card's own", most=16),
    Builtin("faces", ("value",), "the names of the faces a card has, in the order its kind declares them"),
    Builtin("face", ("value", "value"), "a card's face of that name, read like a definition "
            "(`face(c, top).cost`), or none"),
    Builtin("sort_by", ("items", "each"),
            "the elements ordered by an expression, ascending (equal values keep their order)"),
    Builtin("min_by", ("items", "each"),
            "the element with the smallest value of an expression (the first on ties), or none"),
    Builtin("max_by", ("items", "each"),
            "the element with the largest value of an expression (the first on ties), or none"),
    Builtin("filled_cells", ("grid",), "the cells of a grid that hold a card"),
    Builtin("has_block", ("grid", "value", "value"),
            "true if some block of columns x rows cells of a grid is entirely filled"),
    Builtin("fits", ("grid", "value", "value", "value"), "true if a card placed on a cell (covering what is "
            "there) keeps every card of the grid linked by its edges to an anchor cell"),
    Builtin("space_at", ("track", "value"), "the space of a track at an index"),
    Builtin("cell_of", ("grid", "value"), "the cell of a grid holding a card, or none"),
)

# Built-ins whose second argument is evaluated with `it` bound to each element of the first.
LAMBDA_BUILTINS = frozenset(n for n, b in BUILTINS.items() if "each" in b.shapes)
# Built-ins whose first argument names a declaration of one category, never a local.
DECLARATION_ARGS = {n: b.shapes[0] for n, b in BUILTINS.items() if b.shapes[0] in DECLARATION_SHAPES}
