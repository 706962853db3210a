"""A board (model.py) as lines of plain text, for a terminal: an area after another, each item on
its lines, grids as small pictures with a legend, cards grouped `Name x3`. The text is the
ruleset's, as it is: the caller shows it as text, never as markup."""
from __future__ import annotations

import textwrap

from .model import Board, Cards, Counter, Grid, Marker, Pile, Track

TAGS = (4, 10)  # the fewest and most characters of a card's name in a grid's picture
MAX_PICTURE = 24  # columns and rows of a grid's picture; a larger one is listed instead


def lines(board: Board, width: int = 80) -> list[str]:
    """The board's text, lines of at most `width` characters where they can be wrapped."""
    out = [board.title]
    if board.result:
        out.append(board.result)
    if board.scores:
        out += score_lines(board)
    for area in board.areas:
        if not area.items:
            continue
        out.append(f"-- {area.title} " + "-" * max(0, width - len(area.title) - 4))
        counters = [i for i in area.items if isinstance(i, Counter)]
        if counters:
            out += _wrap("; ".join(f"{c.label} {c.value}" for c in counters), width, "  ", "; ")
        for item in area.items:
            if isinstance(item, Pile):
                out += _wrap(f"{item.label}: {pile_text(item)}", width, "  ")
            elif isinstance(item, Track):
                out += _wrap(f"{item.label}: {track_text(item)}", width, "  ")
            elif isinstance(item, Grid):
                out += grid_lines(item, width)
        markers = [i for i in area.items if isinstance(i, Marker)]
        if markers:
            out += _wrap("; ".join(f"{m.label}: {m.holder}" for m in markers), width, "  ", "; ")
    return out


def score_lines(board: Board) -> list[str]:
    """The running scores as a small table: a row per score line, a column per player."""
    players = len(board.scores[0][1])
    head = max(len(label) for label, _ in board.scores)
    cols = [max(len(f"P{p + 1}"), *(len(v[p]) for _, v in board.scores)) for p in range(players)]
    out = ["  " + " " * head + "  " + "  ".join(f"P{p + 1}".rjust(cols[p]) for p in range(players))]
    for label, values in board.scores:
        out.append("  " + label.ljust(head) + "  " + "  ".join(v.rjust(cols[p]) for p, v in enumerate(values)))
    return out


def group_text(g: Cards) -> str:
    text = g.name + (f" x{g.count}" if g.count > 1 else "")
    if g.attached:
        text += " (" + "; ".join(f"{slot}: {', '.join(names)}" for slot, names in g.attached) + ")"
    return text


def pile_text(p: Pile) -> str:
    if not p.size_known:
        return "? cards"
    if not p.size:
        return "empty"
    parts = [group_text(g) for g in p.groups]
    if p.hidden:
        parts.append(f"{p.hidden} hidden" if parts else f"{p.hidden} card{'s' if p.hidden != 1 else ''}, hidden")
    return ", ".join(parts)


def track_text(t: Track) -> str:
    on = [f"{who} at {space}" for who, space in t.pieces if space is not None]
    off = [who for who, space in t.pieces if space is None]
    text = ", ".join(on) or "nobody on it"
    if off:
        text += "; off it: " + ", ".join(off)
    return text + (f" (of {t.spaces})" if t.spaces else "")


def grid_lines(g: Grid, width: int) -> list[str]:
    """A grid as a picture of the part in use (occupied and offered cells, one around), each cell
    the first letters of its card or `[n]` for the option numbered n, then a legend of full
    names; a grid too large for a picture, or with nothing on it, is listed."""
    head = f"  {g.label}:"
    if not g.cells and not g.offered:
        return [head + " empty"]
    used = [(c.col, c.row) for c in g.cells] + [(c.col, c.row) for _, c in g.offered]
    c0, c1 = min(c for c, _ in used), max(c for c, _ in used)
    r0, r1 = min(r for _, r in used), max(r for _, r in used)
    at = {(c.col, c.row): c.card or "?" for c in g.cells}
    mark = {(c.col, c.row): n for n, c in g.offered}
    names = set(at.values())
    roomy = min(TAGS[1], max(map(len, names), default=3), (width - 4) // (c1 - c0 + 1) - 1)
    tag = max(_tag_length(names), roomy, 3)
    fits = (c1 - c0 + 1) <= MAX_PICTURE and (r1 - r0 + 1) <= MAX_PICTURE and 4 + (c1 - c0 + 1) * (tag + 1) <= width
    out = [head]
    if fits:
        for r in range(r0, r1 + 1):
            row = []
            for c in range(c0, c1 + 1):
                if (c, r) in at:
                    row.append(at[(c, r)][:tag].ljust(tag))
                elif (c, r) in mark:
                    row.append(f"[{mark[(c, r)]}]".center(tag))
                else:
                    row.append(".".center(tag))
            out.append("    " + " ".join(row).rstrip())
    legend = [f"{c.name}: {c.card or '?'}" for c in g.cells]
    legend += [f"[{n}] {c.name}" for n, c in g.offered]
    out += _wrap(", ".join(legend), width, "    ")
    return out


def _tag_length(names: set) -> int:
    """The fewest characters (within TAGS) that tell the names apart in a picture."""
    for k in range(TAGS[0], TAGS[1] + 1):
        if len({n[:k] for n in names}) == len(names):
            return k
    return TAGS[1]


def _wrap(text: str, width: int, indent: str, sep: str = ", ") -> list[str]:
    """`text` in lines of at most `width` characters, cut after a `sep` where it can, else
    between words."""
    out, line = [], indent
    for i, part in enumerate(text.split(sep)):
        piece = part if i == 0 else sep + part
        if len(line) + len(piece) > width and line.strip():
            out.append(line + sep.rstrip())
            line = indent + "  " + part
        else:
            line += piece
    out.append(line)
    return [cut for long in out for cut in (textwrap.wrap(long, width, subsequent_indent=indent + "    ",
                                                           break_on_hyphens=False) if len(long) > width else [long])]
