"""The run's services for zones and cards: creating and moving cards, drawing, shuffling, revealing,
faces, slots, and setting off the triggers of zones.

`ZoneServices` is a part of `Run` (runtime.py), which the compiled rules call as `rt`: its methods
read the state as `self.st` and the program's tables Run keeps at hand, and report through
`self.emit`, as every method of Run does.
"""
from __future__ import annotations

from rulesdsl.limits import MAX_CARDS, MAX_DEF_DEPTH

from .chance import ChanceEvent, checked
from .primitives import RuleError, charge
from .place import place, slot_key
from .state import Frame
from .visibility import sees

# What setting off one trigger costs, besides the steps of its body. Pushing, starting and ending a body
# costs about what eight plain statements do (a trigger setting itself off took 4.1 us per step charged
# one step, a loop of `move`s 0.5 us), so a trigger that sets itself off meets the step budget after
# about as much work as an endless loop of plain statements (docs/language.md, "game").
TRIGGER_STEPS = 8
# Taking a card out of a pile other than from its top, or putting it under a pile, shifts the list of
# the pile: a step per this many cards (shifting 512 costs about one plain statement), so that
# moves in a pile of a million cards stop at the budget as a loop would. No shipped pile is as long.
PILE_STEP = 512


class ZoneServices:
    """Zone and card services of a run (a base class of `Run`, which holds the state)."""

    __slots__ = ()

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
        where = place(dest)
        limit = st.zone_limits.get(where.name)
        if limit is None and where.host is not None:
            self._not_into_itself(card, dest)
            limit = self.slot_limit(dest)
        target = st.zones.get(dest)
        if target is None:  # a card's slot, made when its first card comes
            target = st.zones[dest] = []
        if limit is not None and len(target) >= limit:
            if self.sink is not None:
                self.emit("blocked", {"card": self.names[st.card_def[card]], "from": st.loc[card], "zone": dest,
                                      "limit": limit})
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
        if ("enter", where.name) in self.triggers:
            self.run_triggers(("enter", where.name), [card, where.owner])
        self.left(card, src)  # pushed last: the card leaves before it enters
        return True

    def _charge_pile(self, out_of: int, under: int):
        """Charge taking a card out of a pile of `out_of` cards other than from its top, or putting
        one under a pile of `under`: the list is shifted or searched, a step per PILE_STEP cards."""
        n = (out_of + under) // PILE_STEP
        if n:  # nothing to charge for most piles, shorter than PILE_STEP
            charge(self, n, None, f"shifting a pile of {max(out_of, under):,} cards, a step per {PILE_STEP} cards")

    def left(self, card: int, src: str):
        """Run the `on leave` triggers of the zone `src` a card has just left (if it was a zone)."""
        where = place(src)
        key = ("leave", where.name)
        if key in self.triggers and src in self.st.zones:
            self.run_triggers(key, [card, where.owner])

    def _unseen(self, key: str, top: bool) -> bool:
        """Whether no player sees a card in place `key` (`top`: as its top card)."""
        return not sees(self.prog, key, None, top)

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
        return slot_key(card, name)

    def _not_into_itself(self, card, key):
        """Refuse to put a card into its own slot, or into a slot of a card it holds. Each card
        holding the slot, up the chain, is a step: a chain of thousands of cards costs its length at
        every move into it, and the budget stops a rule that makes such moves over and over."""
        st = self.st
        loc = st.loc
        host = place(key).host
        up = 0
        while host != card:
            where = place(loc[host])
            if where.host is None:
                break
            up += 1
            host = where.host
        if up:  # the walk charged at once, a step a card: it has an end, so the same move meets the budget
            charge(self, up, None, "going up a chain of {n} cards held in one another's slots")
        if host == card:
            raise RuleError(f"card {self.names[st.card_def[card]]} cannot go into a slot of itself "
                            "or of a card in its own slots")

    def slot_limit(self, key):
        """The most cards a slot holds now (its host's field, on the face it shows), or None."""
        where = place(key)
        meta = self.prog.slot_meta[where.name]
        if meta.field is None:
            return meta.limit
        return self.fields[self.st.card_def[where.host]][meta.field]

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
        return place(self.st.loc[card]).host

    def slot_of(self, card):
        if card is None:
            return None
        where = place(self.st.loc[card])
        return where.name if where.host is not None else None

    def attached(self, cards):
        """The cards in the slots of one card or of each card of a list, slot by slot in the order
        the kind declares them, each slot from bottom to top."""
        if cards is None:
            return []
        zones, cd, kinds, slots = self.st.zones, self.st.card_def, self.prog.def_kind, self.prog.slots_of_kind
        out = []
        for c in ([cards] if type(cards) is int else cards):
            for name in slots.get(kinds[cd[c]], ()):
                held = zones.get(slot_key(c, name))
                if held:
                    out.extend(held)
        return out

    def move_many(self, cards, dest, bottom=False):
        """Move cards one by one; their triggers then run in the order the cards moved. Each card
        is a step, as it would be in a loop of moves."""
        st = self.st
        st.steps += len(cards)  # `charge`, inline: a call was 0.1% of a game's work
        if st.steps > self.step_budget:
            raise self.over_budget(len(cards), None, f"moving {len(cards):,} cards, a step each")
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

    def run_triggers(self, key, values):
        """Push the trigger bodies registered for an event; they run before the next statement.
        Each body pushed costs TRIGGER_STEPS (see there)."""
        names = self.triggers[key]
        st = self.st
        st.steps += TRIGGER_STEPS * len(names)  # `charge`, inline: a call was 0.1% of a game's work
        if st.steps > self.step_budget:
            raise self.over_budget(TRIGGER_STEPS * len(names), None, "setting off triggers")
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
            if place(refill).host is not None:  # an emptied slot of a card is forgotten
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
        charge(self, len(lst), None, "shuffling {n} cards, a step each")  # as a loop over the pile
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

    def pass_zone(self, name: str, step: int):
        """Every player's zone `name` goes to the player `step` seats on (1: the next, -1: the
        previous), all at once; the cards keep their order and forget what was revealed of them."""
        st = self.st
        n = st.player_count
        keys = self.prog.player_keys[name][:n]
        held = [st.zones[k] for k in keys]
        charge(self, sum(len(h) for h in held), None, "passing {n} cards, a step each")
        loc, revealed = st.loc, st.revealed
        for i, key in enumerate(keys):
            cards = held[(i - step) % n]
            st.zones[key] = cards
            for c in cards:
                loc[c] = key
                if revealed:
                    revealed.pop(c, None)
        if self.sink is not None:
            self.emit("pass", {"zone": name, "to": "next" if step == 1 else "previous",
                               "cards": {f"P{i + 1}": len(st.zones[k]) for i, k in enumerate(keys)}})

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
