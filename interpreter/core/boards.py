"""The run's services for the board's values: counters, pieces on tracks, cards on grids and markers.

`BoardServices` is a part of `Run` (runtime.py), which the compiled rules call as `rt`: its methods
read the state as `self.st` and the program's tables Run keeps at hand, and report through
`self.emit`, as every method of Run does.
"""
from __future__ import annotations

from rulesdsl.limits import MAX_INT, MAX_KEYS, MIN_INT

from . import present
from .place import place
from .primitives import RuleError, charge, piece_key
from .visibility import CardCounterName


class BoardServices:
    """Counter, track, grid and marker services of a run (a base class of `Run`, which holds the state)."""

    __slots__ = ()

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
        if self.sink is not None and (new != old or name in self.prog.secret_counters):
            # A counter some player does not see is recorded even unchanged: whether an event is
            # there would tell them whether it changed.
            label = name if key is None else f"{name}[{key}]"
            if key is not None and name in self.prog.card_counters:
                label = CardCounterName(name, self.names[st.card_def[key]], key)
            self.emit("counter", {"name": label, "value": new, "was": old}, who)

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
        charge(self, distance, span, "a move of {n} spaces")  # a long move costs its length in steps
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
        was_top = bool(held) and held[-1] == card
        src = self.st.detach(card)
        cells[cell] = card
        st.loc[card] = key
        owner = place(key).owner
        if self.sink is not None:
            # As for a move: only a card that no player sees where it was nor on the grid is unnamed.
            hidden = self._unseen(src, top=was_top) and self._unseen(key, top=False)
            self.emit("place", {"card": "a hidden card" if hidden else self.names[st.card_def[card]], "from": src,
                                "grid": key, "cell": present.cell_label(meta.width, cell)}, owner)
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
