"""The checker's rules for statements (`s_NODE`), dispatched on the node's class."""
from __future__ import annotations

import attrs

from .. import ast as A
from ..errors import suggest
from .expressions import _callee
from .types import ACTION, ANY, BOOL, INT, KEYED, NONE, PIECE, PLAYER, T_list, _compatible, fits_param, show


_ASKING = (A.ChooseOptions, A.ChooseItem, A.Pick, A.Actions, A.Together, A.Do)


def _first_asking(body):
    """The first statement of `body` (at any depth) that may ask a decision, or None."""
    for s in body:
        if isinstance(s, _ASKING):
            return s
        for f in attrs.fields(type(s)):
            v = getattr(s, f.name)
            inner = [v] if f.name in ("body", "other", "jump_body", "pass_body") and isinstance(v, tuple) else []
            if f.name == "branches":
                inner = [b for _, b in v]
            for b in inner:
                found = _first_asking(b)
                if found is not None:
                    return found
    return None


class StatementChecks:
    """The type rule of each statement (`s_NODE`) and what statements share."""

    # -- hidden amounts
    def _first_read(self, e, places: set, counters: set, kinds=("zone",), dynamic: bool = True) -> str | None:
        """The first name expression `e` reads, directly or through a `def` (each body once), that is
        a counter of `counters` or a place of `places` (bound as one of `kinds`, or read as
        `p.NAME`); with `dynamic`, also a place found only as the rules run (`zone_of`, `call`: a
        card's formula may read any; a zone kept in a name). None when it reads none."""
        seen, todo = set(), [e]
        while todo:
            for n in A.walk(todo.pop()):
                if isinstance(n, A.Attr):
                    r = self.decided.reads.get(n)
                    if r is not None and (r.what == "player_counter" and n.name in counters
                                          or r.what == "player_place" and n.name in places):
                        return n.name
                elif isinstance(n, (A.Name, A.Call)):
                    b = self.res.bindings.get(n)
                    if b is not None and (b.kind == "counter" and b.name in counters
                                          or b.kind in kinds and b.name in places):
                        return b.name
                    if dynamic and isinstance(n, A.Call) and isinstance(n.func, A.Name) and \
                            n.func.id in ("zone_of", "call"):
                        return n.func.id
                    if dynamic and isinstance(n, A.Name) and b is not None and b.kind == "local" and \
                            self.types.get(n, ("",))[0] == "zone":
                        return n.id
                    if b is not None and b.kind == "def" and b.decl is not None and id(b.decl) not in seen:
                        seen.add(id(b.decl))
                        todo.append(b.decl.body)
        return None

    def hidden_amount(self, e) -> str | None:
        """The counter some player does not see (`private`, `hidden`), or the zone whose size some
        player does not know, that expression `e` reads, directly or through a `def`, else None.
        Call it once `e` is checked."""
        secret = {name for name, c in self.counters.items() if c.visibility != "public"}
        sized = {name for name, z in self.zones.items() if z.size != "public"}
        if not (secret or sized) or e is None:
            return None
        return self._first_read(e, sized, secret, dynamic=bool(sized))

    def unseen_read(self, e) -> str | None:
        """What expression `e` reads, directly or through a `def`, that some player does not see or
        count: a hidden amount (`hidden_amount`), a zone or grid whose cards are not `public`, or a
        place found as the rules run (`zone_of`, `call`, a zone kept in a name); else None."""
        if e is None:
            return None
        unseen = {n for n, z in self.zones.items() if z.visibility != "public" or z.size != "public"} | {
            n for n, g in self.grids.items() if g.visibility != "public"}
        secret = {name for name, c in self.counters.items() if c.visibility != "public"}
        return self._first_read(e, unseen, secret, kinds=("zone", "grid"))

    def not_kept(self, e, what: str, where: str = "in a name, which the other players' views hold",
                 zone_kept: bool = True):
        """An error when `e`, which the rule keeps in a name (`what`), reads a hidden amount: every
        player's view holds the names of the running rules (`where`: what else shows it). A zone
        itself may be kept (`zone_kept`): its value is its key, not its cards; a loop keeps the
        cards it goes through."""
        if zone_kept and e is not None and self.types.get(e, ("",))[0] == "zone":
            return
        name = self.hidden_amount(e)
        if name is None:
            return
        if name in self.counters:
            amount = f"the amount of `{name}` ({self.counters[name].visibility})"
        elif name in self.zones:
            amount = f"the size of `{name}` (size {self.zones[name].size})"
        else:  # a zone found as the rules run, or a card's formula
            amount = f"the size of a zone some players may not count (through `{name}`)"
        keep = "would keep" if where.startswith("in a name") else "would show"
        where = where if where.startswith("in a name") else f"(it {where})"
        self.err(e, f"{what} {keep} {amount} {where}", f"read `{name}` where it is needed: in a condition, a "
                    "choice's options or a `set`")

    def secret_offer(self, s, *exprs):
        """Mark choice `s` as offering what a hidden amount allows when one of `exprs` reads one."""
        if any(self.hidden_amount(e) for e in exprs):
            self.decided.secret.add(s)

    # -- statements
    def block(self, stmts):
        for s in stmts:
            self.stmt(s)

    def stmt(self, s):
        m = getattr(self, "s_" + type(s).__name__)
        m(s)

    def s_Let(self, s):
        t = self.expr(s.value)
        if t == KEYED:
            self.err(s.value, "a keyed counter is read one key at a time", "write `name[key]`")
        self.not_kept(s.value, "this `let`")
        # A body shares one set of names: a `let` of a name bound in an enclosing block updates it
        # (the resolver gives both the same variable).
        self.bind(s, s.name, t)

    def s_Set(self, s):
        t = self.expr(s.target)
        if t != ANY and not self.is_counter_ref(s.target):
            base = s.target.obj if isinstance(s.target, A.Index) else s.target
            if isinstance(base, A.Name) and base.id in self.counters and self.binding(base).kind == "local":
                self.err(s.target, f"`{base.id}` here is a local variable, which hides the counter `{base.id}`",
                         "rename the variable")
            else:
                self.err(s.target, "only counters can be set", "declare it with `counter`")
        self.expect(s.value, (INT,), "a counter value")
        return t

    def counter_named(self, e):
        """The counter a Name stands for, if it stands for one."""
        b = self.binding(e)
        return b.decl if b.kind == "counter" else None

    def is_counter_ref(self, e):
        if isinstance(e, A.Name):
            c = self.counter_named(e)
            return c is not None and not c.keyed and not c.per_player
        if isinstance(e, A.Attr):
            c = self.counters.get(e.name)
            if c is not None and c.card_kind is not None:
                return self.types.get(e.obj, ANY)[0] == "card"
            return c is not None and c.per_player and not c.keyed and self.types.get(e.obj) == PLAYER
        if isinstance(e, A.Index):
            base = e.obj
            if isinstance(base, A.Name):
                c = self.counter_named(base)
                return c is not None and c.keyed and not c.per_player
            if isinstance(base, A.Attr):
                c = self.counters.get(base.name)
                return c is not None and c.keyed and c.per_player
        return False

    def s_Move(self, s):
        t = self.expr(s.what)
        if t[0] not in ("card", "list", "zone", "none", "any"):
            self.err(s.what, f"`move` takes a card, a list of cards or a zone, not {show(t)}")
        dest = self.expect_zone(s.dest)
        self.same_kind(s, self.card_kind(t), dest, "move")

    def s_Draw(self, s):
        src = self.expect_zone(s.src)
        if s.refill is not None:
            self.same_kind(s, self.card_kind(self.expect_zone(s.refill)), src, "refill")
        self.same_kind(s, self.card_kind(src), self.expect_zone(s.dest), "draw")
        self.bind(s, s.name, ("card", src[1]) if src[0] == "zone" else ANY)

    def s_Shuffle(self, s):
        self.expect_zone(s.zone)

    def s_Create(self, s):
        t = self.expr(s.what)
        if t[0] not in ("def", "any") and not (t[0] == "list" and t[1][0] in ("def", "any")):
            self.err(s.what, f"`create` takes a card definition or a list of them, not {show(t)}",
                     "use `defs(Kind)`")
        if s.times is not None:
            self.expect(s.times, (INT,), "a number of copies")
        dest = self.expect_zone(s.dest)
        self.same_kind(s, self.card_kind(t), dest, "create")

    def s_If(self, s):
        for cond, body in s.branches:
            self.expect(cond, (BOOL,), "a condition")
            self.block(body)
        if s.other is not None:
            self.block(s.other)

    def s_For(self, s):
        self.bind(s, s.var, self.elem_type(s.iter))
        self.not_kept(s.iter, "this loop", zone_kept=False)
        self._loop(s.body)

    def _loop(self, body):
        self._loop_depth += 1
        self.block(body)
        self._loop_depth -= 1

    def s_Repeat(self, s):
        self.expect(s.count, (INT,), "a repeat count")
        self.not_kept(s.count, "this `repeat`")
        self._loop(s.body)

    def s_While(self, s):
        self.expect(s.cond, (BOOL,), "a loop condition")
        self._loop(s.body)

    def s_Break(self, s):
        if self._loop_depth == 0:
            self.err(s, "`break` outside a loop")

    def s_Return(self, s):
        pass

    def s_ChooseOptions(self, s):
        self.check_by(s.by, s)
        names = set()
        offered = False
        for opt in s.options:
            if opt.name in names:
                self.err(opt, f"option `{opt.name}` appears twice in this choice")
            names.add(opt.name)
            if opt.cond is not None:
                self.expect(opt.cond, (BOOL,), "an option condition")
                if isinstance(opt.cond, A.Lit) and opt.cond.value is False:
                    self.err(opt, f"option `{opt.name}` can never be offered: its condition is false")
                    continue
            offered = True
            self.block(opt.body)
        if not offered:
            self.err(s, "this choice can never be offered: no option's condition can hold")
        self.secret_offer(s, *(opt.cond for opt in s.options))

    def check_by(self, by, s):
        if by is not None:
            self.expect(by, (PLAYER,), "the player who chooses")
        elif s is self._together_choice:
            pass  # each player of the `together` list makes it
        elif self._together_var is not None:
            self.err(s, "a choice in the body of `together` names who makes it: the body runs once for each "
                     "player, after every choice is revealed",
                     f"add `by {self._together_var}` (or another player)")
        elif self._of_nobody is not None:
            self.err(s, f"`{self._of_nobody}` is a routine of nobody: a choice in it names who makes it",
                     "add `by PLAYER` (a parameter `p: player`, `player(1)`...), or give the routine its "
                     "acting player as first parameter")

    def unseen_zone(self, e):
        """The declaration of the zone `e` names when nobody may see that zone's cards (`hidden`,
        or `hidden except top` for anything but its top card), else None: a choice among its cards
        would show the chooser what no player sees, whoever the chooser is."""
        decl = None
        while isinstance(e, A.Filter):  # a filter still offers the zone's cards
            e = e.coll
        if isinstance(e, A.Name):
            decl = self.zones.get(e.id)
        elif isinstance(e, A.Attr) and self.types.get(e.obj) == PLAYER:
            decl = self.zones.get(e.name)
        return decl if decl is not None and decl.visibility in ("hidden", "top") else None

    def check_unseen_choice(self, s, what):
        decl = self.unseen_zone(s.coll)
        if decl is not None:
            self.err(s.coll, f"`{what}` offers the cards of zone `{decl.name}`, which no player may see",
                     "draw or move the cards to a zone the chooser sees first, or `reveal` them")

    def s_Reveal(self, s):
        t = self.expr(s.card)
        if t[0] not in ("card", "any"):
            self.err(s.card, f"`reveal` shows a card, not {show(t)}")
        if s.to is not None:
            self.expect(s.to, (PLAYER,), "the player who sees the card")

    def s_ChooseItem(self, s):
        self.check_by(s.by, s)
        if isinstance(s.coll, A.ListLit) and not s.coll.items:
            self.err(s, "this choice can never be offered: the list is empty")
        if s.prompt is not None and not s.prompt.strip():
            self.err(s, "the prompt of this choice is empty", "write the question the player is asked, or leave it out")
        for e in s.prompt_values:
            t = self.expr(e)
            if t[0] in ("keyed", "zone", "grid", "track", "formula") or t == ACTION:
                self.err(e, f"a prompt shows values such as cards, numbers, names and texts, not {show(t)}")
            self.not_kept(e, "this prompt", "is written in every player's trace")
        self.bind(s, s.var, self.elem_type(s.coll))
        self.check_unseen_choice(s, "choose")  # once the collection's type is known: `p.deck`
        for e in s.label:
            t = self.expr(e)
            if t[0] in ("keyed", "zone", "grid", "track", "formula") or t == ACTION:
                self.err(e, f"a label shows values such as cards, numbers, names and texts, not {show(t)}")
        self.secret_offer(s, s.coll, *s.label)
        self.block(s.body)

    def s_EndHand(self, s):
        if self.hand is None:
            self.err(s, "`end hand` ends a hand, and this game is not played in hands",
                     "add a `hand { ... }` block, or write `end game`")
        elif self._hand_part is not None:
            self.err(s, f"`end hand` in {self._hand_part}: "
                        + ("no hand is being played yet" if self._hand_part == "the set-up" else "the hand is ending already"))

    def s_Pass(self, s):
        zone = self.zones.get(s.zone)
        if zone is None or not zone.per_player:
            what = "a zone of each player" if zone is None else "kept once for the game"
            self.err(s, f"`pass` moves a zone of each player to the next: `{s.zone}` is {'not ' + what if zone is None else what}",
                     suggest(s.zone, [z for z, d in self.zones.items() if d.per_player]) or "declare it `per player`")
            return
        fired = sorted({t.event for t in self.triggers if t.target == s.zone and t.event in ("enter", "leave")})
        if fired:
            self.err(s, f"`pass` moves the zones `{s.zone}` whole, without their `on {' / on '.join(fired)} "
                        f"{s.zone}` triggers", "move the cards one by one (`for c in p.hand { move c to ... }`) "
                        "if the triggers must run")

    def s_Together(self, s):
        self.expect(s.players, (T_list(PLAYER),), "the players who choose together (a list of players)")
        self.not_kept(s.players, "this `together`'s list")
        self.bind(s, s.var, PLAYER)
        choice = s.body[0]
        if choice.by is not None:
            self.err(choice.by, f"a `together` choice is made by each player of its list, `{s.var}`: it takes no `by`",
                     "leave `by` out")
        if isinstance(choice, A.ChooseItem) and choice.prompt_values:
            self.err(choice.prompt_values[0], "a `together` choice's prompt shows no values: each player is asked at once",
                     "leave the values out")
        saved = self._together_choice, self._together_var
        self._together_choice, self._together_var = choice, s.var
        self.stmt(choice)
        self._together_choice, self._together_var = saved
        if s.secret and isinstance(choice, A.ChooseOptions):
            for opt in choice.options:
                asks = _first_asking(opt.body)
                if asks is not None:
                    self.err(asks, "an option of a `secretly` menu may not ask anything or run an action: the "
                                   "option being played would show the others which one was chosen",
                             "choose an element instead (`secretly choose x in [...]`): its body is the same for all")

    def s_Pick(self, s):
        self.check_by(s.by, s)
        if s.prompt is not None and not s.prompt.strip():
            self.err(s, "the prompt of this choice is empty", "write the question the player is asked, or leave it out")
        self.bind(s, s.var, self.elem_type(s.coll))
        self.check_unseen_choice(s, "pick")
        self.expect(s.cost, (INT,), "a cost")
        self.expect(s.budget, (INT,), "a budget")
        self.not_kept(s.budget, "this `pick`'s budget")
        self.secret_offer(s, s.coll, s.cost)
        self._loop(s.body)

    def s_Step(self, s):
        # A step only names part of a body: its names stay visible after it.
        for st in s.body:
            self.stmt(st)

    def s_Win(self, s):
        # A player, or a list of players who win (or lose) together: a team, or everyone.
        self.expect(s.player, (PLAYER, T_list(PLAYER)),
                    "the losers (a player or a list of players)" if s.lose else "the winners (a player or a list of players)")

    def s_EndGame(self, s):
        pass

    def s_Turn(self, s):
        kind = self._faced_card(s.card, "turn")
        self._face_name(kind, s.face)

    def s_Do(self, s):
        call = s.call
        target = self.binding(call)
        if target.kind in ("action", "routine"):
            act = target.decl
            if act.routine and s.main:
                self.err(call.func, f"`{act.name}` is a routine: run it with `do`, only actions are performed")
            self.used_actions.add(act.name)
            self.check_args(call, act.params)
            for a in call.args:
                self.not_kept(a, "this argument")
            if act.acting and call.args and not _compatible(self.types.get(call.args[0], ANY), PLAYER):
                self.err(call.args[0], f"the first argument of `{act.name}` is the acting player, "
                                       f"not {show(self.types[call.args[0]])}")
            return
        if target.kind != "dynamic":
            self.err(call.func, f"`{call.func.id}` is not an action", suggest(call.func.id, self.actions))
            return
        t = self.expr(call.func)
        if not _compatible(t, ACTION):
            self.err(call.func, f"`do` needs an action, got {show(t)}")
        for a in call.args:
            self.expr(a)

    def check_args(self, call, params):
        required = sum(1 for p in params if p.default is None)
        if not required <= len(call.args) <= len(params):
            want = f"{required}" if required == len(params) else f"{required} to {len(params)}"
            self.err(call, f"`{_callee(call)}` takes {want} arguments, got {len(call.args)}")
        for i, a in enumerate(call.args):
            t = self.expr(a)
            declared = self.declared_type(params[i]) if i < len(params) else None
            if declared is not None and not fits_param(t, declared):
                self.err(a, f"`{params[i].name}` of `{_callee(call)}` is {show(declared)}, not {show(t)}")

    def s_Actions(self, s):
        self.expect(s.count, (INT,), "a number of actions")
        self.not_kept(s.count, "this `actions`")
        self._menus.append(s)
        self.expect(s.player, (PLAYER,), "the acting player")
        for n in s.names:
            if n not in self.actions or self.actions[n].routine:
                self.err(s, f"`{n}` is not an action", suggest(n, [a for a, d in self.actions.items() if not d.routine]))
            else:
                self.used_actions.add(n)
        if len(set(s.names)) != len(s.names):
            self.err(s, "an action is listed twice")
        if s.unless is not None or s.most is not None:
            # `it` (or the element's name) is the action being considered, so a limit can concern
            # one action only.
            self.bind_element(s, ACTION)
            if s.unless is not None:
                self.expect(s.unless, (BOOL,), "a condition")
            else:
                self.expect(s.most, (INT,), "how many times an action may be chosen")

    def piece_on(self, node, track):
        if (isinstance(node, A.Name) and self.binding(node).kind == "piece"
                and self.pieces[node.id].track != track):
            self.err(node, f"piece `{node.id}` stands on track {self.pieces[node.id].track}, not {track}")

    def s_Advance(self, s):
        self.expect(s.piece, (PLAYER, PIECE), "a player's piece or a piece")
        self.piece_on(s.piece, s.track)
        if s.track not in self.tracks:
            self.err(s, f"`{s.track}` is not a track", suggest(s.track, self.tracks))
        self.expect(s.distance, (INT,), "a distance")
        if s.jump_var:
            self.bind(s, s.jump_var, PLAYER)
            self._loop(s.jump_body)
        if s.pass_var:
            self.bind(s, s.pass_var, PIECE)
            self._loop(s.pass_body)

    def s_Put(self, s):
        self.expect(s.piece, (PLAYER, PIECE), "a player's piece or a piece")
        self.piece_on(s.piece, s.track)
        if s.track not in self.tracks:
            self.err(s, f"`{s.track}` is not a track", suggest(s.track, self.tracks))
        self.expect(s.pos, (INT,), "a space index")

    def s_Place(self, s):
        t = self.expr(s.card)
        if t[0] not in ("card", "none", "any"):
            self.err(s.card, f"`place` takes a card, not {show(t)}")
        g = self.expr(s.grid)
        if g[0] not in ("grid", "any"):
            self.err(s.grid, f"`place ... on` needs a grid, not {show(g)}")
        else:
            self.same_kind(s, self.card_kind(t), g, "place")
        c = self.expr(s.cell)
        if c[0] not in ("cell", "any"):
            self.err(s.cell, f"`at` needs a cell, not {show(c)}", "use `cell(grid, column, row)`")

    def s_Give(self, s):
        self.given_markers.add(s.marker)
        if s.marker not in self.markers:
            self.err(s, f"`{s.marker}` is not a marker", suggest(s.marker, self.markers))
        self.expect(s.to, (PLAYER, NONE), "a player (or none, to put the marker aside)")

    def s_Log(self, s):
        for a in s.args:
            self.expr(a)
            self.not_kept(a, "this `log`", "is written in every player's trace")
