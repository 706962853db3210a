"""What one player knows of a game (`view`), and full games consistent with it (`determinize`).

A zone or grid says who sees its cards (`public`, `private` to its owner, `hidden`, or `hidden
except top`), and a `reveal` shows one card to one player or to all until it moves (state.py keeps
that in `revealed`). A card is *seen* by a player when its place lets them see it (as
visibility.py, the one authority on it, says) or it was revealed to them; every other card is
*unseen*.

Leak-freedom. A `View` is built from these facts only: the public values of the state (stage,
round, phase, turn queue, counters, markers, tracks, thresholds reached, the result, the values
derived from the player count), the number of cards in every zone and the filled cells of every
grid, the definition of each seen card, the multiset of the definitions of the unseen cards, and
the running bodies with their local values. It never holds a card's number in the game (numbers
are given in creation order, so a number would name the card): every card is written as its
*handle*, its rank when the zones are walked in declaration order, each from bottom to top, then
the grids, each by cell. A handle therefore says where a card lies, never which card it is, and
an unseen card's definition appears only inside the sorted, anonymous multiset. Two states that
differ only in unseen cards (two unseen cards exchanged, in one zone or across zones of the same
kind) have the same places, the same seen cards and the same multiset, so the same view. The seed
and the generator's state are left out (they would let the deal be computed again); another
player's pending decision among cards the viewer does not all see keeps its prompt only: its
labels, their order and their number (equal cards are offered once) all follow those cards. What the view cannot hide is what the rules make public: a counter the rules set from an
unseen card is public because the ruleset declared it so.

`determinize` rebuilds a `GameState` from a view and the program alone: seen cards keep their
definitions; the unseen ones are dealt uniformly at random, from the caller's `random.Random`, out
of the unseen multiset, each among the definitions of its zone's kind; the generator of the new
state is seeded from the same `random.Random`.
"""
from __future__ import annotations

import json
import weakref

from . import present
from .ir import decision_from_json, decision_json
from .place import place, slot_key
from .runtime import GameError, InternalError, Run
from .state import Frame, GameState, Zones, copy_value
from .visibility import has_private_place, player_event, seen_in_place, size_known
from .visibility import visibility as _visibility

__all__ = ["View", "view", "determinize", "Sight", "sight"]


class View:
    """One player's knowledge of a game: `data` to read (names, counts, placeholders) and an
    opaque `skeleton` that `determinize` rebuilds a game from. Plain data; compared by `to_json`."""

    __slots__ = ("player", "data", "skeleton", "_deal")

    def __init__(self, player: int, data: dict, skeleton: dict):
        self.player = player
        self.data = data
        self.skeleton = skeleton
        self._deal = None  # what `determinize` works out once per view

    def __reduce__(self):
        # A copy or a pickle carries the knowledge, not the template determinize keeps on the view.
        return View, (self.player, self.data, self.skeleton)

    def to_json(self) -> str:
        """The view as canonical JSON text: the same knowledge gives the same bytes."""
        return json.dumps({"player": self.player, "data": self.data, "skeleton": self.skeleton},
                          sort_keys=True, separators=(",", ":"))

    def __eq__(self, other):
        return isinstance(other, View) and self.to_json() == other.to_json()

    def __hash__(self):
        return hash(self.to_json())

    def __repr__(self):
        return f"View(P{self.player + 1}, round {self.data.get('round')}, phase {self.data.get('phase')})"


# ---- the static types of the locals of each body ----------------------------------------------
_LOCALS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _card_locals(prog) -> dict:
    """Body name -> {local name: "card" | "cards"}: the locals holding a card or a list of cards,
    read from the instruction records and the checker's types (only a card's number is hidden)."""
    got = _LOCALS.get(prog)
    if got is not None:
        return got
    types = prog.model.types

    def shape(t, looped=False):
        # A zone or grid value is its key; only a loop over one stores its cards.
        if not t:
            return None
        if t[0] == "card":
            return "card"
        if t[0] == "list" and t[1] and t[1][0] == "card":
            return "cards"
        if looped and t[0] in ("zone", "grid"):
            return "cards"
        return None
    # The type of an action's or routine's parameter, from a use of it in the rules.
    param_types = {}
    for node, b in prog.model.bindings.items():
        var = b.decl
        if b.kind == "local" and getattr(var, "how", None) == "parameter" and node in types:
            param_types.setdefault(var.site, types[node])
    table = {}
    for name, proc in prog.procs.items():
        out = {}
        items_of = {}
        for r in proc.ir:
            op = r.op
            if op == "let":
                s = shape(types.get(r.value))
                if s:
                    out[r.name] = s
            elif op in ("ask_item", "ask_pick"):
                if r.elem and r.elem[0] == "card":
                    out[r.var] = "card"
            elif op == "ask_together":
                cards = bool(r.elem) and r.elem[0] == "card"
                out[r.store] = "together cards" if cards else "together"
                if cards:
                    out[r.item] = "card"
            elif op == "call" and r.service == "draw" and r.into:
                out[r.into] = "card"
            elif op == "loop_init" and r.over == "each":
                s = shape(types.get(r.source), looped=True)
                if s == "cards":
                    out[r.items] = "cards"
                    items_of[r.items] = True
            elif op == "loop_next" and r.var and r.items in items_of:
                out[r.var] = "card"
        if name.startswith("action:"):
            decl = prog.model.actions.get(name.split(":", 1)[1])
            for param in decl.params if decl is not None else ():
                s = shape(param_types.get(param))
                if s:
                    out[param.name] = s
        if name.startswith("trigger:"):
            decl = prog.model.triggers[int(name.split(":", 1)[1])]
            if decl.event in ("enter", "leave", "place") and proc.params:
                out[proc.params[0][0]] = "card"
        table[name] = out
    _LOCALS[prog] = table
    return table


def _map_value(value, shape, handle, player=None):
    if value is None:
        return None
    if shape.startswith("together"):
        return _together_seen(value, player, handle if shape == "together cards" else None)
    if shape == "card":
        return handle[value]
    return [handle[c] for c in value]


def _together_seen(t: dict, player: int, handle) -> dict:
    """The record of a `together` (ir.AskTogether) as `player` knows it: who has chosen, what they
    chose themselves; the others' choices are unknown (value and label none) until all are revealed.
    Cards are written as handles (`handle`; None: the values are not cards)."""
    def shown(v):
        return handle[v] if handle is not None and v is not None else v
    done = [[q, shown(v), label] if q == player else [q, None, None] for q, v, label in t["done"]]
    left = None if t["next"] is None else [[q, shown(v) if q == player or not t["secret"] else None]
                                            for q, v in t["next"]]
    return dict(t, done=done, next=left)


def secret_counters_seen(prog, counters: dict, player: int | None, unknown=None) -> dict:
    """`counters` as `player` knows them: a `private` counter's values of the other players and a
    `hidden` counter's values are `unknown` (`player` None: no player's own values either)."""
    counters = dict(counters)
    for name, vis in prog.secret_counters.items():
        if name not in counters:
            continue
        value = counters[name]
        if vis == "hidden" or type(value) is not list:
            counters[name] = unknown
        else:
            counters[name] = [v if i == player else unknown for i, v in enumerate(value)]
    return counters


def _guess_secret_counters(prog, st: GameState, player: int) -> None:
    """In a game dealt from `player`'s view, give the counter values the view does not know a
    value: the other players' `private` values are taken to be `player`'s own (a symmetric guess),
    a `hidden` counter is at its initial value."""
    run = None
    for name, vis in prog.secret_counters.items():
        value = st.counters[name]
        decl = prog.model.counters[name]
        if vis == "private":
            own = value[player]
            st.counters[name] = [copy_value(own) if v is None else v for v in value]
            continue
        run = run or Run(prog, st)
        if decl.keyed:
            st.counters[name] = [dict() for _ in range(st.player_count)] if decl.per_player else {}
        else:
            init = prog.init_exprs[name](run, {})
            st.counters[name] = [init] * st.player_count if decl.per_player else init


def _fill_together(prog, st: GameState, rng) -> bool:
    """In a game dealt from a view, give each choice of a `together` the view does not know (see
    `_together_seen`) a value: one of the options its player has in this deal, uniformly at random
    from `rng`. False when a player has no option in this deal (the deal cannot be the game)."""
    run = None
    steps, total = st.steps, st.total_steps  # the options worked out here are no work of the game
    for fr in st.stack:
        for store, (ask, var, item) in prog.procs[fr.proc].together.items():
            t = fr.env.get(store)
            if t is None:
                continue
            asking = fr.env.get(var)
            # While a secret choice's body runs, its element is hidden from the others (`view`).
            running = t["next"] is not None and item in fr.env and fr.env[item] is None
            unknown = [e for e in t["done"] if e[2] is None] + [e for e in t["next"] or () if e[1] is None]
            if not unknown and not running:
                continue
            run = run or Run(prog, st)
            for entry in unknown:
                labels, values = ask(run, fr, entry[0])
                if not labels:
                    return False
                i = rng.randrange(len(labels))
                entry[1] = values[i]
                if len(entry) == 3:  # a choice not yet revealed keeps its label
                    entry[2] = labels[i]
            if running and asking is not None:
                labels, values = ask(run, fr, asking)
                if not labels:
                    return False
                fr.env[item] = values[rng.randrange(len(values))]
            fr.env[var] = asking
    st.steps, st.total_steps = steps, total
    return True


def offer_is_secret(prog, st, d=None) -> bool:
    """Whether the pending decision (or `d`, being answered) offers what a counter some player does
    not see allows (a bid up to one's hidden money), or what a zone whose size some player does not
    know holds: the others may not know the options, even how many there are."""
    d = d or st.pending
    if not (prog.secret_counters or prog.secret_sizes) or d is None or not st.stack:
        return False
    fr = st.stack[-1]
    records = prog.procs[fr.proc].ir
    at = fr.pc if d["how"].kind == "act" else fr.pc - 1
    return 0 <= at < len(records) and getattr(records[at], "secret", False)


def choice_is_public(prog, st, d) -> bool:
    """Whether every other player may know what was offered and taken in pending decision `d`: the
    menu of actions, and options written in the rules, players, numbers and other values, unless
    the body asking holds a card some other player does not see (its options may be read from that
    card: which half of a card of one's hand to play); a choice among cards, when every other player
    sees each card where it lies; a choice of cells, when the grid is seen by everyone. A card
    revealed to a player counts as unseen here: the answer may mask more than a view would."""
    how, chooser = d["how"], d["player"]
    if how.kind == "act":
        return True
    if how.kind == "commit":  # a `together` choice: shown to the others when all have chosen
        return False
    others = [p for p in range(st.player_count) if p != chooser]

    def seen_by_all(card) -> bool:
        key = st.loc[card]
        vis = _visibility(prog, key)
        if vis == "public":
            return True
        cards = st.zones.get(key)
        top = bool(cards) and cards[-1] == card
        return all(seen_in_place(vis, key, p, top) for p in others)
    if st.stack:
        fr = st.stack[-1]
        for name, shape in _card_locals(prog).get(fr.proc, {}).items():
            value = fr.env.get(name)
            held = [] if value is None else [value] if shape == "card" else value
            if not all(seen_by_all(c) for c in held):
                return False
    elem = getattr(how, "elem", ("",))
    if elem[0] == "cell":
        decl = prog.model.grids.get(elem[1])
        return decl is None or decl.visibility == "public"
    return elem[0] != "card" or all(seen_by_all(c) for c in how.values if c is not None)


# ---- the view ---------------------------------------------------------------------------------
def _unseen_face(prog, d: int, h: int, backs: dict) -> int:
    """What the unseen multiset holds for an unseen card showing definition `d` at handle `h`. A
    card face down (a hidden face: every face of a card is a definition of its own, so its back
    would tell which card is face down) is listed by its first face, and the hidden face is kept
    at its place in `backs` for the deal to turn the card dealt there to (a hidden face belongs to
    every card of its kind). A card showing another face is listed as it shows, so that the deal
    gives the place a card that has that face."""
    if d not in prog.hidden_faces:
        return d
    backs[str(h)] = prog.def_face[d]
    return next(iter(prog.face_table[d].values()))



def _added(add, cards: list, vis: str, key: str, player: int) -> list:
    """`add` of each card of a zone, told whether `player` sees it there: the same for every card
    but the top one, which a zone showing its top card shows."""
    if not cards:
        return []
    below = seen_in_place(vis, key, player, False)
    out = [add(c, below) for c in cards[:-1]]
    out.append(add(cards[-1], seen_in_place(vis, key, player, True)))
    return out


def view(prog, st: GameState, player: int) -> View:
    """What `player` (a seat from 0) knows of the game in `st`; see the module's docstring."""
    names = prog.names
    bit = 1 << player
    revealed = st.revealed
    handle = {}
    defs = []   # per handle: a definition index, or None when unseen
    mine = []   # handles seen only because they were revealed to this player
    unseen = []
    zones_data, zone_sizes = {}, []
    hidden_faces = prog.hidden_faces
    backs = {}  # handle -> the hidden face it shows

    def add(card, seen_here):
        h = len(defs)
        handle[card] = h
        d = st.card_def[card]
        face_down = d in hidden_faces
        if (seen_here and not face_down) or revealed.get(card, 0) & bit:
            if not seen_here or face_down:
                mine.append(h)
            defs.append(d)
            return names[d]
        defs.append(None)
        if seen_here:  # face down in plain sight: its back is seen, not which card it is
            backs[str(h)] = prog.def_face[d]
            unseen.append(next(iter(prog.face_table[d].values())))
            return names[d]
        unseen.append(_unseen_face(prog, d, h, backs))
        return None
    slots = []
    unsized = []  # the zones whose size this player does not know: their cards are handled last
    sizes_kept = prog.secret_sizes
    for key, cards in st.zones.items():
        if place(key).host is not None:
            slots.append((key, cards))
            continue
        if sizes_kept and not size_known(prog, key, player):
            unsized.append((prog.kind_of_zone[place(key).name], cards))
            zones_data[key] = None
            zone_sizes.append([key, None])
            continue
        zones_data[key] = _added(add, cards, _visibility(prog, key), key, player)
        zone_sizes.append([key, len(cards)])
    grids_data, grid_cells = {}, []
    for key, cells in st.grids.items():
        vis = _visibility(prog, key)
        width = prog.grid_meta[place(key).name].width
        shown = {}
        order = sorted(cells)
        for i in order:
            shown[present.cell_label(width, i)] = add(cells[i], seen_in_place(vis, key, player, False))
        grids_data[key] = shown
        grid_cells.append([key, order])
    # The slots of cards last, named by their host's handle (a card's number would tell which card
    # it is), a host before the cards attached to it, in the order of the hosts' handles.
    # Level by level: the slots of the hosts handled in the level before, so that a chain of cards
    # in one another's slots is walked once, not once per level.
    slot_sizes = []
    by_host: dict = {}
    for k, cards in slots:
        where = place(k)
        by_host.setdefault(where.host, []).append((where.name, k, cards))
    level = [c for c in by_host if c in handle]
    while level:
        ready = sorted((handle[c], name, key, cards) for c in level for name, key, cards in by_host.pop(c))
        level = []
        for h, name, key, cards in ready:
            vis = _visibility(prog, key)
            key = slot_key(h, name)
            zones_data[key] = _added(add, cards, vis, key, player)
            slot_sizes.append([key, len(cards)])
            level.extend(c for c in cards if c in by_host)
    if by_host:
        raise ValueError("a card's slot whose card is nowhere")
    # The cards of the zones whose size is not known, after every other card, kind by kind (as
    # `_Deal` deals them), so that no handle tells how many there are before it; none is seen
    # there, even one revealed to the player, and none is named by a handle: a running rule's
    # local holding one, or an option offering one, holds none (a handle would count the cards of
    # the zones before its own).
    for _, cards in sorted(unsized, key=lambda kc: kc[0]):
        for card in cards:
            handle[card] = None
            defs.append(None)
            d = st.card_def[card]  # face down: by its first face (which face: not kept); see `_unseen_face`
            unseen.append(next(iter(prog.face_table[d].values())) if d in prog.hidden_faces else d)
    counters = st.counters
    if prog.card_counters:  # a card's counter is keyed by its handle, as its slots are
        counters = dict(counters)
        for name in prog.card_counters:
            counters[name] = {str(handle[int(k)]): v for k, v in counters[name].items()}
    if prog.secret_counters:
        counters = secret_counters_seen(prog, counters, player)
    locals_ = _card_locals(prog)
    stack = []
    holds_unseen = False  # whether the running body on top holds a card this player does not see
    for fr in st.stack:
        shapes = locals_.get(fr.proc, {})
        env = {}
        holds_unseen = False
        for k, v in sorted(fr.env.items()):
            if k in shapes and shapes[k].startswith("together"):
                v = _map_value(v, shapes[k], handle, player)
            elif k in shapes:
                v = _map_value(v, shapes[k], handle)
                held = [] if v is None else [v] if shapes[k] == "card" else v
                holds_unseen = holds_unseen or any(h is None or defs[h] is None for h in held)
            env[k] = v
        for store, (_, var, item) in prog.procs[fr.proc].together.items():
            t = fr.env.get(store)
            if t is not None and t["secret"] and t["next"] is not None and item in env and fr.env.get(var) != player:
                env[item] = None  # another player's secret choice, whose body is running
                holds_unseen = True
        stack.append({"proc": fr.proc, "pc": fr.pc, "env": env, "active": fr.active})
    pending, pending_data = None, None
    d = st.pending
    if d is not None:
        how = decision_json(d["how"])
        elem = how.get("elem") or ("",)
        cards = "values" in how and elem[0] == "card"
        if cards:
            how["values"] = [None if x is None else handle[x] for x in how["values"]]
        pending_data = {"player": d["player"], "prompt": d["prompt"]}
        if d["player"] == player:
            pending_data["options"] = list(d["options"])
        pending = {"player": d["player"], "prompt": d["prompt"], "options": list(d["options"]), "how": how}
        read_from_unseen = how["kind"] in ("bind", "pick", "jump", "commit") and (
            holds_unseen or cards and any(x is not None and defs[x] is None for x in how["values"]))
        if d["player"] != player and (read_from_unseen or offer_is_secret(prog, st)):
            # Another player's choice among cards some of which this player does not see, or among
            # values or options the body asking it may read from such a card (the halves of a card
            # in their hand; an action menu is not asked again): its labels, their order and even their number (equal cards are offered once)
            # follow those cards, so none of it is kept; determinize asks the question again.
            pending = {"player": d["player"], "prompt": d["prompt"], "ask_again": True}
    public = {
        "stage": st.stage, "round": st.round, "phase": st.phase, "phase_index": st.phase_index,
        "queue": list(st.queue), "counters": counters, "markers": dict(st.markers),
        "tracks": st.tracks, "reached": st.reached, "result": st.result,
    }
    if st.hand:
        public["hand"] = st.hand
    data = dict(public, player=f"P{player + 1}", zones=zones_data, grids=grids_data, pending=pending_data)
    skeleton = {
        "player_count": st.player_count, "zones": zone_sizes, "grids": grid_cells, "slots": slot_sizes,
        "defs": defs, "backs": backs,
        "revealed": mine, "unseen": sorted(unseen), "stack": stack, "pending": pending,
        # Not the steps spent so far, nor the events sent: how much work the rules did, and how
        # many cards they moved between places the player cannot count, may follow from what the
        # player does not see (the options read from a hidden amount, a hidden card's field).
        "decisions": st.decisions,
        "zone_limits": st.zone_limits, "keyed_init": st.keyed_init,
        "bounds": {k: list(v) for k, v in st.bounds.items()},
    }
    # One copy through JSON: the view shares nothing with the state, and reads as plain data.
    return View(player, json.loads(json.dumps(data)), json.loads(json.dumps(skeleton)))


# ---- determinize ------------------------------------------------------------------------------
def determinize(prog, v: View, rng) -> GameState:
    """A full game consistent with view `v`: its unseen cards dealt at random from `rng`.

    What does not depend on the deal (the places, the seen cards, the public values, the running
    bodies) is worked out at the first call for a view and kept on it (`_Deal`); a search
    determinizes one view many times. Each call copies that template and deals the unseen cards."""
    deal = v._deal
    if deal is None or deal.prog is not prog:
        deal = v._deal = _Deal(prog, v)
    faces = prog.face_table
    for attempt in range(_DEALS):
        st = deal.template.clone()
        st.rng = rng.getrandbits(64)
        defs = st.card_def
        # Each hole takes one of its zone's kind, uniformly: the kinds in order, each pool shuffled.
        for holes, pool in deal.kinds:
            pool = list(pool)
            rng.shuffle(pool)
            for hole, d in zip(holes, pool):
                defs[hole] = d
        for cards, keys in deal.unsized:  # the cards of zones of unknown size, shared out among them
            _share(st, cards, keys, rng, even=attempt < _EVEN_DEALS)
        for h, face in deal.backs:  # a card dealt to a face-down place shows that face
            defs[h] = faces[defs[h]][face]
        if deal.together:
            try:
                if not _fill_together(prog, st, rng):
                    continue
            except InternalError:
                raise
            except GameError:
                continue
        if not deal.ask_again:
            return st
        # The decision's instruction is the one before the top frame's next one: run it again on
        # the dealt cards. The cards may ask otherwise than the view shows (a card without halves
        # asks no half, or the rules fail on it): such a deal is dealt again. So may the guessed
        # amounts of the player asked (a bid above their coins): other guesses are tried first.
        for guess in _guesses(prog, st, v):
            trial = guess
            trial.stack[-1].pc -= 1
            try:
                Run(prog, trial).run(trial)
            except InternalError:
                raise
            except GameError:
                continue
            trial.steps = deal.steps
            if trial.pending is not None and view(prog, trial, v.player) == v:
                return trial
    raise ValueError(f"none of {_DEALS} deals of the unseen cards asks the decision this view shows")


def _guesses(prog, st: GameState, v: View):
    """The dealt game `st`, then copies of it with other guesses of the `private` amounts of the
    player the view's pending decision belongs to (whose options may depend on them: a bid is
    asked only of a player with coins above the highest bid): each such counter at its initial
    value, then at 2, 4, 8, ... up to its `max` bound (or 2^20)."""
    yield st.clone() if prog.secret_counters else st
    asker = v.skeleton["pending"]["player"]
    secret = [n for n, vis in prog.secret_counters.items()
              if vis == "private" and not prog.model.counters[n].keyed and asker != v.player]
    if not secret:
        return
    run = Run(prog, st)
    picks = [lambda n: prog.init_exprs[n](run, {})]
    picks += [lambda n, k=k: min(1 << k, st.bounds[n][1]) if st.bounds[n][1] is not None else 1 << k
              for k in range(1, 21)]
    for pick in picks:
        other = st.clone()
        for name in secret:
            other.counters[name][asker] = pick(name)
        yield other


_DEALS = 256  # the most deals tried for a view whose pending decision is asked again


_EVEN_DEALS = 4  # deals that share the cards of zones of unknown size evenly, before uneven ones


def _share(st: GameState, cards: list, keys: list, rng, even: bool = True) -> None:
    """Put `cards` in the zones `keys` (of one kind, their sizes unknown): as evenly as they go (the
    zones that take one card more drawn from `rng`), or, not `even`, each card in a zone drawn
    from `rng` (a decision asked again may need sizes an even share cannot give)."""
    if even:
        each, more = divmod(len(cards), len(keys))
        larger = set(rng.sample(range(len(keys)), more)) if more else ()
        sizes = [each + (i in larger) for i in range(len(keys))]
    else:
        sizes = [0] * len(keys)
        for _ in cards:
            sizes[rng.randrange(len(keys))] += 1
    at = 0
    for key, n in zip(keys, sizes):
        st.zones[key] = held = cards[at:at + n]
        for c in held:
            st.loc[c] = key
        at += n


class _Deal:
    """What every determinization of one view shares: a template game whose unseen cards are
    missing (`None`), the holes and the unseen definitions of each kind, the face-down cards, and
    the decision to ask again, if any."""

    __slots__ = ("prog", "template", "kinds", "backs", "ask_again", "steps", "together", "unsized")

    def __init__(self, prog, v: View):
        sk = v.skeleton
        st = GameState(sk["player_count"], 0)
        pub = v.data
        st.stage, st.round, st.phase, st.phase_index = pub["stage"], pub["round"], pub["phase"], pub["phase_index"]
        st.hand = pub.get("hand", 0)
        st.queue = list(pub["queue"])
        # The view's data is plain JSON data already: copied as it stands, so that no game dealt
        # from it shares a container with it.
        st.counters = copy_value(pub["counters"])
        st.markers = dict(pub["markers"])
        st.tracks = copy_value(pub["tracks"])
        st.reached = copy_value(pub["reached"])
        st.result = pub["result"]
        defs = list(sk["defs"])
        kind_of = dict(enumerate(prog.def_kind))
        holes_by_kind: dict = {}
        places = []
        unsized_keys: dict = {}  # kind -> the zones of that kind whose size the view does not know
        for key, size in sk["zones"]:
            if size is None:
                unsized_keys.setdefault(prog.kind_of_zone[place(key).name], []).append(key)
            else:
                places.append((key, size, prog.kind_of_zone[place(key).name]))
        for key, cells in sk["grids"]:
            places.append((key, len(cells), prog.model.grids[place(key).name].kind))
        for key, size in sk["slots"]:
            places.append((key, size, prog.kind_of_zone[place(key).name]))
        h = 0
        for key, size, kind in places:
            for _ in range(size):
                if defs[h] is None:
                    holes_by_kind.setdefault(kind, []).append(h)
                h += 1
        pool_by_kind: dict = {}
        for d in sk["unseen"]:
            pool_by_kind.setdefault(kind_of[d], []).append(d)
        # The cards of the zones of unknown size come last, after the others' handles: the unseen
        # cards of each kind that no known place holds, shared out among that kind's such zones.
        self.unsized = []
        for kind, keys in sorted(unsized_keys.items()):
            n = len(pool_by_kind.get(kind, ())) - len(holes_by_kind.get(kind, ()))
            if n < 0:
                raise ValueError(f"the view's unseen cards do not fill its places of kind {kind}")
            block = list(range(h, h + n))
            holes_by_kind.setdefault(kind, []).extend(block)
            self.unsized.append((block, keys))
            h += n
        if h != len(defs):
            raise ValueError("the view's cards of zones of unknown size are not of those zones' kinds")
        self.kinds = []
        for kind in sorted(holes_by_kind):
            holes = holes_by_kind[kind]
            pool = pool_by_kind.get(kind, [])
            if len(pool) != len(holes):
                raise ValueError(f"the view's unseen cards do not fill its places of kind {kind}")
            self.kinds.append((holes, tuple(pool)))
        self.backs = [(int(h), face) for h, face in sk["backs"].items()]
        st.card_def = defs
        st.loc = []
        h = 0
        for key, size in sk["zones"]:
            if size is None:  # dealt its cards in each game (`_share`), in its place among the zones
                st.zones[key] = []
                continue
            st.zones[key] = list(range(h, h + size))
            st.loc.extend([key] * size)
            h += size
        for key, cells in sk["grids"]:
            st.grids[key] = {}
            for c in cells:
                st.grids[key][c] = h
                st.loc.append(key)
                h += 1
        if prog.slot_meta:
            st.zones = Zones(st.zones)
        for key, size in sk["slots"]:
            st.zones[key] = list(range(h, h + size))
            st.loc.extend([key] * size)
            h += size
        for block, keys in self.unsized:
            st.loc.extend([keys[0]] * len(block))
        st.revealed = {hh: 1 << v.player for hh in sk["revealed"]}
        st.stack = [Frame(f["proc"], f["pc"], dict(f["env"]), f["active"]) for f in sk["stack"]]
        st.seq, st.decisions = 0, sk["decisions"]  # a dealt game numbers its events anew
        st.steps = st.total_steps = 0  # a dealt game counts its work anew
        st.zone_limits = dict(sk["zone_limits"])
        st.keyed_init = dict(sk["keyed_init"])
        st.bounds = {k: tuple(b) for k, b in sk["bounds"].items()}
        p = sk["pending"]
        self.ask_again = p is not None and bool(p.get("ask_again"))
        # Choices of a `together` this view does not know, to be given values in each deal.
        self.together = any(prog.procs[fr.proc].together for fr in st.stack)
        self.steps = 0
        if p is not None and not self.ask_again:
            st.pending = {"player": p["player"], "prompt": p["prompt"], "options": list(p["options"]),
                          "how": decision_from_json(p["how"])}
        if prog.secret_counters:
            _guess_secret_counters(prog, st, v.player)
        self.prog = prog
        self.template = st


# ---- one player's trace -----------------------------------------------------------------------
class PlayerSink:
    """A sink passing on the events of a run as `player` saw them (`visibility.player_event`):
    names of cards they do not see masked as `?`, other players' reveals hidden, and in `state`
    events the cards of places they do not see masked (a card revealed to them is masked there too:
    a trace event carries no state). Another player's choice keeps its labels when it is public
    (`choice_is_public`): only a choice among cards this player does not see, or asked by a body
    holding such a card, is masked."""

    def __init__(self, prog, player: int, inner):
        self.prog = prog
        self.player = player
        self.inner = inner
        self.private = has_private_place(prog)

    def __call__(self, event: dict):
        seen = player_event(self.prog, self.player, event, self.private)
        if seen is not None:
            self.inner(seen)


# ---- a quick sight ------------------------------------------------------------------------------
class Sight:
    """What one player sees of a game's places, reduced to what an evaluation counts, without the
    names, handles and running bodies a `View` carries: for every place, its declaration's name (a
    zone kept one per value: its key, `piles[red]`), the
    seat it belongs to (a card's slot: the seat of the place its card lies in, None when shared),
    "zone", "grid" or "slot", and per card the definition seen or None. With the game's public
    values: round, phase, the counters that are neither keyed nor a card's, markers, tracks, and
    which cells of each grid are filled (as a view shows, seen cards or not). A zone whose size the
    player does not know holds no card there. Built
    from the same facts as the view (visibility.py decides), and holding no card's number."""

    __slots__ = ("player", "round", "phase_index", "over", "places", "counters", "markers", "tracks", "cells")

    def __init__(self, player, round_, phase_index, over, places, counters, markers, tracks, cells):
        self.player = player
        self.round = round_
        self.phase_index = phase_index
        self.over = over
        self.places = places
        self.counters = counters
        self.markers = markers
        self.tracks = tracks
        self.cells = cells  # (grid name, owner) -> the filled cells, in order


def sight(prog, st: GameState, player: int) -> Sight:
    """What `player` (a seat from 0) sees of `st`'s places; see `Sight`."""
    bit = 1 << player
    revealed = st.revealed
    card_def = st.card_def
    hidden_faces = prog.hidden_faces

    def seen(cards, vis, key):
        last = len(cards) - 1
        out = []
        for i, c in enumerate(cards):
            d = card_def[c]
            if (seen_in_place(vis, key, player, i == last) and d not in hidden_faces) or revealed.get(c, 0) & bit:
                out.append(d)
            else:
                out.append(None)
        return tuple(out)

    places = []
    slots = []
    sizes_kept = prog.secret_sizes
    for key, cards in st.zones.items():
        where = place(key)
        if where.host is not None:
            slots.append((where, key, cards))
        else:
            name = where.name if where.part is None else key  # a zone kept per value: by its key
            if sizes_kept and not size_known(prog, key, player):
                places.append((name, where.owner, "zone", ()))  # not even how many: counted as none
                continue
            places.append((name, where.owner, "zone", seen(cards, _visibility(prog, key), key)))
    filled = {}
    for key, cells in st.grids.items():
        where = place(key)
        order = sorted(cells)
        filled[(where.name, where.owner)] = tuple(order)
        places.append((where.name, where.owner, "grid", seen([cells[i] for i in order], _visibility(prog, key), key)))
    slot_places = []
    for where, key, cards in slots:
        host = place(st.loc[where.host])
        for _ in range(len(st.loc)):  # a card in a slot of a card in a slot...: the place below them
            if host.host is None:
                break
            host = place(st.loc[host.host])
        slot_places.append((where.name, host.owner, "slot", seen(cards, _visibility(prog, key), key)))
    # In an order that follows from what the player sees, not from the order slots were filled in.
    places.extend(sorted(slot_places, key=lambda p: (p[0], -1 if p[1] is None else p[1],
                                                     [-1 if d is None else d for d in p[3]])))
    plain = prog.plain_counters
    counters = {name: value for name, value in st.counters.items() if name in plain}
    if prog.secret_counters:  # what the player does not see is not counted
        counters = {name: value for name, value in secret_counters_seen(prog, counters, player).items()
                    if name in plain}
    return Sight(player, st.round, st.phase_index, st.result is not None, places, counters,
                 dict(st.markers), {name: dict(pieces) for name, pieces in st.tracks.items()}, filled)
