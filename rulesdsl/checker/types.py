"""The checker's static types (INT, PLAYER, a list of cards of a kind...), how a designer names
each, and which types fit where one is wanted."""
from __future__ import annotations

INT, BOOL, TEXT, NONE, ANY = ("int",), ("bool",), ("text",), ("none",), ("any",)
PLAYER, ACTION, SYM, KEYED = ("player",), ("action",), ("sym",), ("keyed",)
PIECE = ("piece",)


def T_list(elem):
    """A list of `elem`."""
    return ("list", elem)


def show(t) -> str:
    """A type as the designer would name it."""
    if t[0] in ("card", "def"):
        return f"{t[0]} of {t[1]}"
    if t[0] == "list":
        return f"list of {show(t[1])}"
    if t[0] in ("zone", "grid", "cell", "line", "space", "track", "marker"):
        return f"{t[0]} {t[1]}" if len(t) > 1 else t[0]
    return {"sym": "enum value", "keyed": "keyed counter"}.get(t[0], t[0])


FORMULA = ("formula",)
FIELD_TYPES = {"int": INT, "bool": BOOL, "text": TEXT, "action": ACTION, "enum": SYM, "list": T_list(INT),
               "set": T_list(SYM), "formula": FORMULA}

CONSTANTS = {"players": T_list(PLAYER), "player_count": INT}


def _compatible(t, want) -> bool:
    if t == ANY or want == ANY or t == want:
        return True
    if t[0] == want[0] == "list":
        return _compatible(t[1], want[1])
    if t[0] == want[0] and t[0] in ("card", "def", "zone", "cell", "line", "space", "grid"):
        return t[1] is None or want[1] is None or t[1] == want[1]
    if want in (ACTION, FORMULA) and t == NONE:
        return True
    return False


def fits_param(t, declared) -> bool:
    """Whether a value of type `t` may be given to a parameter declared of type `declared`: a
    compatible type, a zone for a list of its cards, or none for a card or a player
    (`c: Card = none`)."""
    if t[0] == "zone" and declared[0] == "list":  # a zone is the list of its cards
        t = T_list(("card", t[1]))
    return _compatible(t, declared) or (t == NONE and declared[0] in ("card", "player"))
