"""The back end: instruction records (`interpreter/core/ir.py`) to instructions `ins(rt, frame)`.

One builder per record type, and for `Call` one per service. Expression operands are compiled by
the expression compiler (`pysource.SourceCompiler`) into `f(rt, env)` functions; everything static
in a record (names, temporaries, jump targets, flags) is captured as a constant, so an instruction
does no lookup it could have done here. Each instruction is specialised for its record's shape (a
card or a zone to move, a static or computed action, an int to keep in range) rather than testing
it at run time. Then each straight run of records is also written as the text of one function (see
`Backend`), which the run loop calls instead of the run's first instruction.
"""
from __future__ import annotations

from ..core import ir
from .compiler import Proc
from ..core.primitives import RuleError, bounded, charge


class Backend:
    """Builds `proc.code` and `proc.spans` from `proc.ir`: one instruction per record, and each
    straight run of records written as the text of one function; `exprs` (a
    `pysource.SourceCompiler`) compiles the records' expressions.

    A run is a sequence of records that only compute, bind, count and jump (`Let`, `LoopInit`,
    `LoopNext`, `Branch`, `Jump`, `Return`, `Log`, and `set_counter`): none of them pushes or pops a
    frame, asks a question or ends the game, so the run loop has nothing to do between them. A run
    starts where control can arrive other than by falling through (the body's start, a jump target,
    the record after a decision or a service) and is one function: each record's statements in a
    row, with its expressions written inline, the frame's counter set as the loop would set it
    (errors are placed by it), the steps counted as the loop counts them, and a return where a
    record jumps. A run ends at an unconditional `Jump` or `Return`: what follows is reached only
    by a jump, into a run of its own, so it would be compiled for nothing. Near the step budget a run executes its first record alone, so that the budget is
    met on the record where the loop would meet it. A menu of options (`AskOption`) may end a run:
    its conditions are written in the same function, which returns the question as the menu's own
    instruction would. Every record also keeps its own instruction, for control that arrives in the
    middle of a run."""

    LONGEST = 32  # records in one run at most
    STRAIGHT = (ir.Let, ir.LoopInit, ir.LoopNext, ir.Branch, ir.Jump, ir.Return, ir.Log)

    def __init__(self, exprs):
        self.c = exprs
        self.size = 0  # of the body being built: where `Return` goes
        self.proc = None  # the body being built

    def build(self, proc: Proc):
        """Fill in the instructions and spans of `proc` from its records."""
        records = proc.ir
        self.size = len(records)
        self.proc = proc
        # Expressions are compiled in the order the statements wrote them, because the first call
        # of a `def` decides whether it is compiled in place while the inlining allowance lasts:
        # a `pick` writes its collection and cost before its budget, so its head is built first.
        order = list(range(len(records)))
        for i, rec in enumerate(records):
            if isinstance(rec, ir.PickInit):
                order[i], order[i + 1] = i + 1, i
        code = [None] * len(records)
        for i in order:
            code[i] = getattr(self, "b_" + type(records[i]).__name__)(records[i])
        proc.code.extend(code)
        proc.spans.extend(rec.span for rec in records)
        for start in sorted(self.leaders(records)):
            end, falls = start, True
            while falls and end < len(records) and end - start < self.LONGEST and self.straight(records[end]):
                # What follows a jump is reached only by another jump, which leaves the function.
                falls = not isinstance(records[end], (ir.Jump, ir.Return))
                end += 1
            if falls and end < len(records) and end - start < self.LONGEST and isinstance(records[end], ir.AskOption):
                end += 1  # a menu of options ends a run: its conditions are written inline too
            if end - start >= 2 or isinstance(records[start], ir.AskOption):
                proc.code[start] = self.run_of(proc, records, start, end)
        return proc

    def expr(self, e):
        return self.c.expr(e) if e is not None else None

    # ---- control ------------------------------------------------------------------------------
    @staticmethod
    def _goto(target: int):
        def jmp(rt, fr):
            fr.pc = target
        return jmp

    def b_Jump(self, r):
        return self._goto(r.target)

    def b_Branch(self, r):
        c = self.c.expr(r.cond)
        target = r.target

        def test(rt, fr):
            if not c(rt, fr.env):
                fr.pc = target
        return test

    def b_Return(self, r):
        return self._goto(self.size)

    def b_Let(self, r):
        f = self.c.expr(r.value)
        name = r.name
        if r.bounded:
            span = r.span

            def let_number(rt, fr):
                fr.env[name] = bounded(f(rt, fr.env), span)
            return let_number

        def let(rt, fr):
            fr.env[name] = f(rt, fr.env)
        return let

    def loop_items(self, r):
        """A closure giving the items a `LoopInit` iterates over (before the snapshot is taken)."""
        if r.over == "each":
            return self.c.items_function(r.source)
        if r.over == "count":
            count = self.c.expr(r.source)
            span = r.span

            def times(rt, env):
                n = count(rt, env)
                if n > rt.step_budget:
                    raise RuleError(f"repeat {n} times is more than the step budget ({rt.step_budget})", span)
                return range(max(0, n))
            return times
        jumped = r.source
        if r.over == "jumped_seats":
            return lambda rt, env: [j for j in env[jumped] if isinstance(j, int)]
        if r.over == "jumped_pieces":
            return lambda rt, env: [j for j in env[jumped] if isinstance(j, str)]
        raise ValueError(f"unknown loop source {r.over!r}")

    def b_LoopInit(self, r):
        items_fn = self.loop_items(r)
        lst, idx = r.items, r.index

        def init(rt, fr):
            fr.env[lst] = list(items_fn(rt, fr.env))
            fr.env[idx] = 0
        return init

    def b_LoopNext(self, r):
        var, lst, idx, end = r.var, r.items, r.index, r.end

        def step(rt, fr):
            env = fr.env
            i = env[idx]
            items = env[lst]
            if i >= len(items):
                del env[lst], env[idx]
                fr.pc = end
                return
            if var is not None:
                env[var] = items[i]
            env[idx] = i + 1
        return step

    # ---- services -----------------------------------------------------------------------------
    def b_Call(self, r):
        return getattr(self, "call_" + r.service)(r, *r.args)

    def call_set_counter(self, r, name, who, key, op, value):
        # Compiled in the order the counter reference was always compiled: key, player, value.
        key = self.expr(key)
        who = self.expr(who)
        val = self.c.expr(value)

        def set_counter(rt, fr):
            env = fr.env
            rt.set_counter(name, who(rt, env) if who else None, key(rt, env) if key else None,
                           op, val(rt, env))
        return set_counter

    def call_move(self, r, card, dest, bottom):
        what = self.c.expr(card)
        dest = self.c.expr(dest)

        def move_one(rt, fr):
            env = fr.env
            card = what(rt, env)
            if card is not None:
                rt.move(card, dest(rt, env), bottom)
        return move_one

    def call_move_zone(self, r, zone, dest, bottom):
        what = self.c.expr(zone)
        dest = self.c.expr(dest)

        def move_zone(rt, fr):
            env = fr.env
            rt.move_many(list(rt.st.zones[what(rt, env)]), dest(rt, env), bottom)
        return move_zone

    def call_move_list(self, r, cards, dest, bottom):
        what = self.c.expr(cards)
        dest = self.c.expr(dest)

        def move_list(rt, fr):
            env = fr.env
            rt.move_many(list(what(rt, env)), dest(rt, env), bottom)
        return move_list

    def call_draw(self, r, src, refill, dest):
        src = self.c.expr(src)
        refill = self.expr(refill)
        dest = self.c.expr(dest)
        name = r.into

        def draw(rt, fr):
            env = fr.env
            env[name] = rt.draw(src(rt, env), refill(rt, env) if refill else None, dest(rt, env))
        return draw

    def call_end_hand(self, r, reason):
        return lambda rt, fr: rt.finish_hand(reason if reason is not None else "the hand was ended", r.span)

    def call_pass_zone(self, r, zone, step):
        return lambda rt, fr: rt.pass_zone(zone, step)

    def call_shuffle(self, r, zone):
        z = self.c.expr(zone)
        return lambda rt, fr: rt.shuffle(z(rt, fr.env))

    def call_reveal(self, r, card, to):
        c = self.c.expr(card)
        who = self.expr(to)
        if who is None:
            return lambda rt, fr: rt.reveal(c(rt, fr.env), None)
        return lambda rt, fr: rt.reveal(c(rt, fr.env), who(rt, fr.env))

    def call_turn(self, r, card, face):
        c, f = self.c.expr(card), self.c.expr(face)
        return lambda rt, fr: rt.turn(c(rt, fr.env), f(rt, fr.env))

    def call_create(self, r, defs, times, dest, many):
        what = self.c.expr(defs)
        times = self.expr(times) or (lambda rt, env: 1)
        dest = self.c.expr(dest)
        span = r.span

        def create(rt, fr):
            env = fr.env
            defs = what(rt, env) if many else [what(rt, env)]
            n = times(rt, env)
            charge(rt, max(0, n) * len(defs), span, f"creating {max(0, n) * len(defs):,} cards, a step each")
            key = dest(rt, env)
            for d in defs:
                for _ in range(n):
                    rt.create(d, key)
        return create

    def call_perform(self, r, action, bonus, args):
        span = r.span
        if isinstance(action, str):
            name = action
            args = [self.c.arg_function(prm, a) for prm, a in zip(self.c.m.actions[name].params, args)]

            def do_static(rt, fr):
                env = fr.env
                rt.perform(name, [a(rt, env) for a in args], fr.active, bonus=bonus, span=span)
            return do_static
        args = [self.c.expr(a) for a in args]
        func = self.c.expr(action)

        def do_dynamic(rt, fr):
            env = fr.env
            target = func(rt, env)
            if target is not None:
                rt.perform(target, [a(rt, env) for a in args], fr.active, bonus=bonus, span=span)
        return do_dynamic

    def call_win(self, r, player, reason, lose):
        who = self.c.expr(player)
        return lambda rt, fr: rt.win(who(rt, fr.env), reason, lose)

    @staticmethod
    def call_end_game(r, reason):
        return lambda rt, fr: rt.end_game(reason)

    def call_advance(self, r, track, piece, distance):
        piece = self.c.expr(piece)
        dist = self.c.expr(distance)
        jumped = r.into
        span = r.span

        def advance(rt, fr):
            env = fr.env
            env[jumped] = rt.advance(track, piece(rt, env), dist(rt, env), span)
        return advance

    def call_put(self, r, track, piece, pos):
        piece = self.c.expr(piece)
        pos = self.c.expr(pos)
        span = r.span
        return lambda rt, fr: rt.put(track, piece(rt, fr.env), pos(rt, fr.env), span)

    def call_place(self, r, card, gname, grid, cell):
        card = self.c.expr(card)
        grid = self.c.expr(grid)
        cell = self.c.expr(cell)
        span = r.span

        def place(rt, fr):
            env = fr.env
            c = card(rt, env)
            if c is not None:
                rt.place(c, gname, grid(rt, env), cell(rt, env), span)
        return place

    def call_give(self, r, marker, to):
        to = self.c.expr(to)
        return lambda rt, fr: rt.give(marker, to(rt, fr.env))

    def b_Log(self, r):
        args = [(self.c.expr(a), t) for a, t in zip(r.args, r.types)]
        text = r.text

        def log(rt, fr):
            vals = [rt.label(f(rt, fr.env), t) for f, t in args]
            rt.emit("log", {"text": " ".join([text] + vals)}, fr.active)
        return log

    # ---- decisions ----------------------------------------------------------------------------
    def b_AskOption(self, r):
        by = self.expr(r.by)
        conds = [(name, self.expr(cond)) for name, cond in zip(r.labels, r.conds)]
        targets = r.targets
        prompt = r.prompt
        end = r.end

        def choose(rt, fr):
            env = fr.env
            labels, pcs = [], []
            for i, (name, cond) in enumerate(conds):
                if cond is None or cond(rt, env):
                    labels.append(name)
                    pcs.append(targets[i])
            if not labels:
                # Like `choose x in` an empty collection: nothing to decide, no body runs.
                fr.pc = end
                return None
            who = by(rt, env) if by else fr.active
            return rt.ask(who, prompt, labels, ir.JumpDecision(pcs))
        return choose

    def b_AskItem(self, r):
        by = self.expr(r.by)
        items = self.c.items_function(r.source)
        elem = r.elem
        var = r.var
        end = r.end
        prompt = r.prompt if r.prompt is not None else f"choose {var}"
        parts = [(self.c.expr(e), t) for e, t in r.label]
        shown = [(self.c.expr(e), t) for e, t in r.prompt_values]

        def choose(rt, fr):
            env = fr.env
            values = items(rt, env)
            if not values:
                fr.pc = end
                return None
            who = by(rt, env) if by else fr.active
            asked = " ".join([prompt] + [rt.label(f(rt, env), t) for f, t in shown]) if shown else prompt
            if parts:
                labels, values = rt.labelled(values, var, parts, env, who, elem)
            else:
                labels, values = rt.options_for(values, elem, who)
            return rt.ask(who, asked, labels, ir.BindDecision(var, values, elem))
        return choose

    def b_TogetherInit(self, r):
        players = self.c.expr(r.players)
        store, secret = r.store, r.secret

        def init(rt, fr):
            listed = []
            for p in players(rt, fr.env):
                if p is not None and p not in listed:
                    listed.append(p)
            fr.env[store] = {"players": listed, "asking": None, "done": [], "next": None, "secret": secret}
        return init

    def b_AskTogether(self, r):
        store, var, elem, prompt = r.store, r.var, r.elem, r.prompt
        menu = r.source is None
        if menu:
            conds = [(name, self.expr(cond), target) for name, cond, target in zip(r.labels, r.conds, r.targets)]
        else:
            items = self.c.items_function(r.source)
            item = r.item
            parts = [(self.c.expr(e), t) for e, t in r.label]
        at = self.proc.ir.index(r)

        def offered(rt, fr, p):
            """The labels and values `p` may choose among (values: a menu's option starts)."""
            env = fr.env
            env[var] = p
            if menu:
                labels, pcs = [], []
                for name, cond, target in conds:
                    if cond is None or cond(rt, env):
                        labels.append(name)
                        pcs.append(target)
                return labels, pcs
            values = items(rt, env)
            if not values:
                return [], []
            if parts:
                return rt.labelled(values, item, parts, env, p, elem)
            return rt.options_for(values, elem, p)
        self.proc.together[store] = (offered, var, None if menu else item)

        def ask(rt, fr):
            t = fr.env[store]
            p = t["asking"]
            if p is not None:
                labels, values = offered(rt, fr, p)
                return rt.ask(p, prompt, labels, ir.CommitDecision(store, p, values, elem, menu, at))
            chosen = {q for q, _, _ in t["done"]}
            for q in t["players"]:
                if q in chosen:
                    continue
                labels, values = offered(rt, fr, q)
                if labels:
                    t["asking"] = q
                    return rt.ask(q, prompt, labels, ir.CommitDecision(store, q, values, elem, menu, at))
            # Everyone has chosen: the choices are shown to all, in the players' order.
            order = {q: i for i, q in enumerate(t["players"])}
            done = sorted(t["done"], key=lambda e: order[e[0]])
            if done:
                shown = {"prompt": prompt, "choices": {f"P{q + 1}": label for q, _, label in done}}
                if t["secret"]:
                    shown["secret"] = True  # each player's trace keeps only their own choice
                rt.emit("together", shown)
                if elem and elem[0] == "card" and not t["secret"]:
                    st = rt.st
                    for _, card, _ in done:
                        st.revealed[card] = (1 << st.player_count) - 1  # every seat's bit
            t["done"] = []
            t["next"] = [[q, v] for q, v, _ in done]
            return None
        return ask

    def b_TogetherNext(self, r):
        store, var, item, end = r.store, r.var, r.item, r.end

        def take(rt, fr):
            env = fr.env
            left = env[store]["next"]
            if not left:
                del env[store]
                fr.pc = end
                return
            p, value = left.pop(0)
            env[var] = p
            if item is None:
                fr.pc = value
            else:
                env[item] = value
        return take

    def b_PickInit(self, r):
        budget = self.c.expr(r.budget)
        left, count = r.left, r.count

        def init(rt, fr):
            fr.env[left] = budget(rt, fr.env)
            fr.env[count] = 0
        return init

    def b_AskPick(self, r):
        by = self.expr(r.by)
        items = self.c.items_function(r.source)
        elem = r.elem
        cost = self.c.expr(r.cost)
        var, left, count = r.var, r.left, r.count
        optional = r.optional
        end = r.end
        prompt = r.prompt if r.prompt is not None else f"pick {var}"

        def pick(rt, fr):
            env = fr.env
            remaining = env[left]
            affordable, costs = [], {}
            saved = env.get(var)
            for x in items(rt, env):
                env[var] = x
                c = cost(rt, env)
                if c <= remaining:
                    affordable.append(x)
                    costs[x] = c
            env[var] = saved
            if not affordable:
                del env[left], env[count]
                fr.pc = end
                return None
            who = by(rt, fr.env) if by else fr.active
            labels, values = rt.options_for(affordable, elem, who)
            values_costs = [costs[v] for v in values]
            if env[count] > 0 or optional:
                labels.append("stop")
                values.append(None)
                values_costs.append(0)
            return rt.ask(who, prompt, labels, ir.PickDecision(var, values, elem, values_costs, left, count, end))
        return pick

    def b_ActionsInit(self, r):
        count = self.c.expr(r.count)
        left, used = r.left, r.used

        def init(rt, fr):
            fr.env[left] = count(rt, fr.env)
            fr.env[used] = []
        return init

    def b_AskAction(self, r):
        player = self.c.expr(r.player)
        names = list(r.names)
        unless = self.expr(r.unless)
        most = self.expr(r.most)
        distinct = r.unless is not None
        left, used = r.left, r.used
        end = r.end
        elem = r.elem  # the name the limits read the action by: a key of `env`, never of Python

        def offer(rt, fr):
            env = fr.env
            if env[left] <= 0:
                fr.pc = end
                return None
            p = player(rt, env)
            labels = []
            saved = env.get(elem)
            for n in names:
                if distinct and n in env[used]:
                    env[elem] = n
                    lifted = unless(rt, env)
                    env[elem] = saved
                    if not lifted:
                        continue
                if most is not None:
                    env[elem] = n
                    allowed = most(rt, env)
                    env[elem] = saved
                    if env[used].count(n) >= allowed:
                        continue
                if rt.can_perform(n, [p]):
                    labels.append(n)
            if not labels:
                rt.emit("no_action", {"left": env[left]}, p)
                fr.pc = end
                return None
            fr.pc -= 1  # come back here after the chosen action returns
            return rt.ask(p, "action", labels, ir.ActDecision(p, left, used))
        return offer

    # ---- runs of records as one function ------------------------------------------------------
    @classmethod
    def straight(cls, rec) -> bool:
        return isinstance(rec, cls.STRAIGHT) or (isinstance(rec, ir.Call) and rec.service == "set_counter")

    def leaders(self, records) -> set:
        """Where control can arrive other than by falling through from the record before."""
        out = {0}
        for i, r in enumerate(records):
            if not self.straight(r):
                out.add(i + 1)
            for name in ("target", "end"):
                if isinstance(getattr(r, name, None), int):
                    out.add(getattr(r, name))
            out.update(getattr(r, "targets", ()))
        return {i for i in out if 0 <= i < len(records)}

    def run_of(self, proc, records, start, end):
        """One function for records[start:end]."""
        c = self.c
        first = c.k(proc.code[start])
        lines = ["def _r(rt, fr):", "    st = rt.st", "    fl = rt.fields", "    cd = st.card_def",
                 f"    if st.steps + {end - start - 1} > rt.step_budget:",
                 f"        return {first}(rt, fr)", "    env = fr.env"]
        for done, i in enumerate(range(start, end), 1):
            r = records[i]
            leave = ([f"st.steps += {done - 1}"] if done > 1 else []) + ["return"]
            lines.extend("    " + line for line in getattr(self, "w_" + type(r).__name__)(r, i, leave))
        if not isinstance(records[end - 1], (ir.Jump, ir.Return, ir.AskOption)):  # these have left
            lines.append(f"    st.steps += {end - start - 1}")
        return c.function("\n".join(lines) + "\n", records[start].span, "_r")

    # Each writer gives the lines of one record; `leave` is what ends the function at a jump.
    def w_Let(self, r, i, leave):
        value = self.c.text(r.value)
        if r.bounded:
            value = f"bounded({value}, {self.c.k(r.span)})"
        return [f"fr.pc = {i + 1}", f"env[{self.c.k(r.name)}] = {value}"]

    def w_Branch(self, r, i, leave):
        return [f"fr.pc = {i + 1}", f"if not {self.c.text(r.cond)}:", f"    fr.pc = {r.target}"] + \
            ["    " + line for line in leave]

    def w_Jump(self, r, i, leave):
        return [f"fr.pc = {r.target}"] + leave

    def w_Return(self, r, i, leave):
        return [f"fr.pc = {self.size}"] + leave

    def w_LoopInit(self, r, i, leave):
        c = self.c
        if r.over == "each":
            items = c.top_items(r.source)
        elif r.over == "count":
            items = f"_times(rt, {c.text(r.source)}, {c.k(r.span)})"
        elif r.over == "jumped_seats":
            items = f"[_j for _j in env[{c.k(r.source)}] if isinstance(_j, int)]"
        else:
            items = f"[_j for _j in env[{c.k(r.source)}] if isinstance(_j, str)]"
        return [f"fr.pc = {i + 1}", f"env[{c.k(r.items)}] = list({items})", f"env[{c.k(r.index)}] = 0"]

    def w_LoopNext(self, r, i, leave):
        k = self.c.k
        lines = [f"fr.pc = {i + 1}", f"_n = env[{k(r.index)}]", f"_items = env[{k(r.items)}]",
                 "if _n >= len(_items):", f"    del env[{k(r.items)}], env[{k(r.index)}]", f"    fr.pc = {r.end}"]
        lines += ["    " + line for line in leave]
        if r.var is not None:
            lines.append(f"env[{k(r.var)}] = _items[_n]")
        return lines + [f"env[{k(r.index)}] = _n + 1"]

    def w_Log(self, r, i, leave):
        c = self.c
        vals = "".join(f", rt.label({c.text(a)}, {c.k(t)})" for a, t in zip(r.args, r.types))
        return [f"fr.pc = {i + 1}",
                f"rt.emit('log', {{'text': ' '.join([{c.k(r.text)}{vals}])}}, fr.active)"]

    def w_AskOption(self, r, i, leave):
        """The last record of a run: the options whose condition holds, then the question (or, with
        none open, on at `end`). The steps are counted before the function returns the question."""
        c = self.c
        lines = [f"fr.pc = {i + 1}", "_labels = []", "_pcs = []"]
        for name, cond, target in zip(r.labels, r.conds, r.targets):
            add = [f"_labels.append({c.k(name)})", f"_pcs.append({target})"]
            lines += add if cond is None else [f"if {c.text(cond)}:"] + ["    " + line for line in add]
        lines += ["if not _labels:", f"    fr.pc = {r.end}"] + ["    " + line for line in leave]
        who = c.text(r.by) if r.by is not None else "fr.active"
        count = leave[:-1]  # `leave` is the run's step count, then a bare return
        return lines + count + [f"return rt.ask({who}, {c.k(r.prompt)}, _labels, {c.k(ir.JumpDecision)}(_pcs))"]

    def w_Call(self, r, i, leave):  # set_counter, the one service a run holds
        c = self.c
        name, who, key, op, value = r.args
        who = c.text(who) if who is not None else "None"
        key = c.text(key) if key is not None else "None"
        return [f"fr.pc = {i + 1}", f"rt.set_counter({c.k(name)}, {who}, {key}, {c.k(op)}, {c.text(value)})"]
