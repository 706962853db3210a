"""The instruction builder: checked statement bodies to instruction records, once, before play.

Statement bodies are lowered to flat lists of instruction records (`interpreter/core/ir.py`), which the
back end (`interpreter/compile/backend.py`, `interpreter/compile/pysource.py`) turns into instructions
`ins(rt, frame)`; loops and choices are jumps, so a body can stop at a decision and resume later
from data alone (procedure name, instruction index and local names). The expressions a record holds
are compiled by the expression compiler (`pysource.SourceCompiler`).
"""
from __future__ import annotations

import attrs

from rulesdsl import ast as A
from rulesdsl.checker import ANY, INT, Model

from ..core import ir

class Proc:
    """A compiled body: its instruction records, the instructions built from them, the span of
    each, and its parameter list."""

    __slots__ = ("name", "code", "spans", "params", "requires", "kind", "ir", "acting", "together")

    def __init__(self, name, kind):
        self.name = name
        self.kind = kind
        self.ir: list = []
        self.code: list = []
        self.spans: list = []
        self.params: tuple = ()
        self.requires = None
        self.acting = True  # an action's or routine's first parameter is its acting player
        # Per `together` temporary: (offered(rt, frame, player) -> (labels, values), what the player
        # may choose; the name of its player; the name of its element, None for a menu). A view
        # hides the choices with them and its dealing fills them in (view.py).
        self.together: dict = {}


class Compiler:
    """Turns a Model's bodies into procedures of instruction records, with their code built by a
    back end; `exprs` (a `pysource.SourceCompiler`) compiles the expressions."""

    def __init__(self, model: Model, exprs):
        self.m = model
        self.types = model.types
        self.x = exprs
        self.procs: dict[str, Proc] = {}
        self._tmp = 0
        self._loops: list[list] = []
        self.trigger_procs: dict[tuple, list] = {}
        self.reach_procs: list[str] = []

    # ---- helpers ------------------------------------------------------------------------------
    def tmp(self, stem: str) -> str:
        self._tmp += 1
        return f"${stem}{self._tmp}"

    def t(self, e):
        return self.types.get(e, ANY)

    def secret(self, s) -> bool:
        """Whether choice `s` offers what a counter some player does not see allows."""
        return s in self.m.decided.secret

    def elem_type(self, node):
        """The type of the elements of a collection, as the checker found it."""
        return self.m.decided.elems[node]

    def compile_all(self, backend):
        """Lower every body to instruction records and build its code with `backend`
        (`backend.Backend(exprs)`)."""
        m = self.m

        def compile_body(proc, stmts):
            self.body(proc, stmts)
            backend.build(proc)
        # Definitions are compiled when a rule first calls them (see SourceCompiler.s_Call): one that nothing
        # calls has no argument types to compile against.
        for name, act in m.actions.items():
            proc = Proc(name, "routine" if act.routine else "action")
            proc.params = tuple((p.name, self.x.expr(p.default) if p.default is not None else None)
                                for p in act.params)
            proc.requires = self.x.expr(act.requires) if act.requires is not None else None
            proc.acting = act.acting
            compile_body(proc, act.body)
            self.procs["action:" + name] = proc
        if m.setup is not None:
            proc = Proc("setup", "setup")
            compile_body(proc, m.setup.body)
            self.procs["setup"] = proc
        if m.hand is not None:
            for part, body in (("start", m.hand.start), ("finish", m.hand.finish)):
                if body:
                    proc = Proc(f"hand {part}", "hand")
                    compile_body(proc, body)
                    self.procs["hand:" + part] = proc
        for ph in m.round.phases:
            proc = Proc(ph.name, "phase")
            compile_body(proc, ph.body)
            self.procs["phase:" + ph.name] = proc
        for i, trig in enumerate(m.triggers):
            proc = Proc(f"on {trig.event} {trig.target}", "trigger")
            proc.params = tuple((n, None) for n in trig.names)
            compile_body(proc, trig.body)
            key = f"trigger:{i}"
            self.procs[key] = proc
            if trig.event == "reach":
                proc.requires = self.x.expr(trig.cond)
                self.reach_procs.append(key)
                continue
            self.trigger_procs.setdefault((trig.event, trig.target), []).append(key)
        return self

    # ---- statements: lowering to instruction records (interpreter/core/ir.py) -----------------------
    # Each statement appends the records of its instructions to `proc.ir`; the back end turns the
    # finished list into code. Jumps forward are emitted with a placeholder target and patched
    # once the target is known.
    def emit(self, proc: Proc, rec) -> int:
        """Append a record; return its index."""
        proc.ir.append(rec)
        return len(proc.ir) - 1

    @staticmethod
    def patch(proc: Proc, at: int, **changes):
        proc.ir[at] = attrs.evolve(proc.ir[at], **changes)

    def body(self, proc: Proc, stmts):
        for s in stmts:
            getattr(self, "s_" + type(s).__name__)(proc, s)

    def s_Step(self, proc, s):
        self.body(proc, s.body)

    def s_Let(self, proc, s):
        self.emit(proc, ir.Let(s.name, s.value, self.t(s.value) == INT, s.span))

    def s_Set(self, proc, s):
        target = s.target
        if isinstance(target, A.Name):
            name, who, key = target.id, None, None
        elif isinstance(target, A.Attr) and self.m.decided.reads[target].what == "card_counter":
            name, who, key = target.name, None, target.obj  # a card's counter, keyed by the card
        elif isinstance(target, A.Attr):
            name, who, key = target.name, target.obj, None
        else:
            base = target.obj
            key = target.index
            name, who = (base.id, None) if isinstance(base, A.Name) else (base.name, base.obj)
        self.emit(proc, ir.Call("set_counter", (name, who, key, s.op, s.value), None, s.span))

    def s_Move(self, proc, s):
        source = self.t(s.what)[0]
        service = {"zone": "move_zone", "list": "move_list"}.get(source, "move")
        self.emit(proc, ir.Call(service, (s.what, s.dest, s.bottom), None, s.span))

    def s_Draw(self, proc, s):
        self.emit(proc, ir.Call("draw", (s.src, s.refill, s.dest), s.name, s.span))

    def s_Shuffle(self, proc, s):
        self.emit(proc, ir.Call("shuffle", (s.zone,), None, s.span))

    def s_Reveal(self, proc, s):
        self.emit(proc, ir.Call("reveal", (s.card, s.to), None, s.span))

    def s_Turn(self, proc, s):
        self.emit(proc, ir.Call("turn", (s.card, s.face), None, s.span))

    def s_Create(self, proc, s):
        many = self.t(s.what)[0] == "list"
        self.emit(proc, ir.Call("create", (s.what, s.times, s.dest, many), None, s.span))

    def jump(self, proc, span) -> int:
        """Emit a jump whose target is patched later; return its index."""
        return self.emit(proc, ir.Jump(-1, span))

    def s_If(self, proc, s):
        ends = []
        for cond, body in s.branches:
            test = self.emit(proc, ir.Branch(cond, -1, cond.span))
            self.body(proc, body)
            ends.append(self.jump(proc, s.span))
            self.patch(proc, test, target=len(proc.ir))
        if s.other is not None:
            self.body(proc, s.other)
        for at in ends:
            self.patch(proc, at, target=len(proc.ir))

    def close_loop(self, proc, head, span, body_fn):
        """Lower a loop body that jumps back to `head`; `break` and the exit go to the end, which
        is returned."""
        self._loops.append([])
        body_fn()
        self.emit(proc, ir.Jump(head, span))
        end = len(proc.ir)
        for at in self._loops.pop():
            self.patch(proc, at, target=end)
        return end

    def loop_over(self, proc, span, over, source, var, body_fn):
        """Lower `for var in items` around body_fn(); a snapshot of the items is iterated."""
        lst, idx = self.tmp("items"), self.tmp("i")
        self.emit(proc, ir.LoopInit(over, source, lst, idx, span))
        head = self.emit(proc, ir.LoopNext(var, lst, idx, -1, span))
        self.patch(proc, head, end=self.close_loop(proc, head, span, body_fn))

    def s_For(self, proc, s):
        self.loop_over(proc, s.span, "each", s.iter, s.var, lambda: self.body(proc, s.body))

    def s_Repeat(self, proc, s):
        self.loop_over(proc, s.span, "count", s.count, None, lambda: self.body(proc, s.body))

    def s_While(self, proc, s):
        head = self.emit(proc, ir.Branch(s.cond, -1, s.span))
        self.patch(proc, head, target=self.close_loop(proc, head, s.span, lambda: self.body(proc, s.body)))

    def s_Break(self, proc, s):
        self._loops[-1].append(self.jump(proc, s.span))

    def s_Return(self, proc, s):
        self.emit(proc, ir.Return(s.span))

    def s_ChooseOptions(self, proc, s):
        labels = tuple(opt.name for opt in s.options)
        conds = tuple(opt.cond for opt in s.options)
        ask = self.emit(proc, ir.AskOption(s.prompt or "choose", s.by, labels, conds, (), -1, s.span,
                                           self.secret(s)))
        targets, ends = [], []
        for opt in s.options:
            targets.append(len(proc.ir))
            self.body(proc, opt.body)
            ends.append(self.jump(proc, opt.span))
        for at in ends:
            self.patch(proc, at, target=len(proc.ir))
        self.patch(proc, ask, targets=tuple(targets), end=len(proc.ir))

    def s_ChooseItem(self, proc, s):
        label = tuple((e, self.t(e)) for e in s.label)
        ask = self.emit(proc, ir.AskItem(s.var, s.coll, self.elem_type(s.coll), s.by, -1, s.span, label, s.prompt,
                                         self.secret(s), tuple((e, self.t(e)) for e in s.prompt_values)))
        self.body(proc, s.body)
        self.patch(proc, ask, end=len(proc.ir))

    def s_EndHand(self, proc, s):
        self.emit(proc, ir.Call("end_hand", (s.reason,), None, s.span))

    def s_Pass(self, proc, s):
        self.emit(proc, ir.Call("pass_zone", (s.zone, s.step), None, s.span))

    def s_Together(self, proc, s):
        store = self.tmp("together")
        choice = s.body[0]
        self.emit(proc, ir.TogetherInit(store, s.players, s.span, s.secret))
        if isinstance(choice, A.ChooseItem):
            label = tuple((e, self.t(e)) for e in choice.label)
            ask = self.emit(proc, ir.AskTogether(store, s.var, choice.var, choice.coll, self.elem_type(choice.coll),
                                                 (), (), (), label, choice.prompt or f"choose {choice.var}",
                                                 choice.span, self.secret(choice)))
            head = self.emit(proc, ir.TogetherNext(store, s.var, choice.var, -1, s.span))
            self.body(proc, choice.body)
            self.emit(proc, ir.Jump(head, s.span))
        else:
            ask = self.emit(proc, ir.AskTogether(store, s.var, None, None, (), tuple(o.name for o in choice.options),
                                                 tuple(o.cond for o in choice.options), (), (),
                                                 choice.prompt or "choose", choice.span, self.secret(choice)))
            head = self.emit(proc, ir.TogetherNext(store, s.var, None, -1, s.span))
            targets = []
            for opt in choice.options:
                targets.append(len(proc.ir))
                self.body(proc, opt.body)
                self.emit(proc, ir.Jump(head, opt.span))
            self.patch(proc, ask, targets=tuple(targets))
        self.patch(proc, head, end=len(proc.ir))

    def s_Pick(self, proc, s):
        left, count = self.tmp("left"), self.tmp("picked")
        self.emit(proc, ir.PickInit(left, count, s.budget, s.span))
        head = self.emit(proc, ir.AskPick(s.var, s.coll, self.elem_type(s.coll), s.cost, s.by, s.optional,
                                          left, count, -1, s.span, s.prompt, self.secret(s)))
        self.patch(proc, head, end=self.close_loop(proc, head, s.span, lambda: self.body(proc, s.body)))

    def s_Do(self, proc, s):
        call = s.call
        kind, name = self.m.calls[call]
        action = name if kind == "action" else call.func
        self.emit(proc, ir.Call("perform", (action, not s.main, tuple(call.args)), None, s.span))

    def s_EndGame(self, proc, s):
        self.emit(proc, ir.Call("end_game", (s.reason,), None, s.span))

    def s_Win(self, proc, s):
        self.emit(proc, ir.Call("win", (s.player, s.reason, s.lose), None, s.span))

    def s_Actions(self, proc, s):
        left, used = self.tmp("actions"), self.tmp("used")
        self.emit(proc, ir.ActionsInit(left, used, s.count, s.span))
        self.emit(proc, ir.AskAction(s.player, tuple(s.names), s.unless, s.most, left, used,
                                     len(proc.ir) + 1, s.span, A.element_site(s)[1], self.secret(s)))

    def s_Advance(self, proc, s):
        jumped = self.tmp("jumped")
        self.emit(proc, ir.Call("advance", (s.track, s.piece, s.distance), jumped, s.span))
        if s.jump_var:
            self.loop_over(proc, s.span, "jumped_seats", jumped, s.jump_var,
                           lambda: self.body(proc, s.jump_body))
        if s.pass_var:
            self.loop_over(proc, s.span, "jumped_pieces", jumped, s.pass_var,
                           lambda: self.body(proc, s.pass_body))

    def s_Put(self, proc, s):
        self.emit(proc, ir.Call("put", (s.track, s.piece, s.pos), None, s.span))

    def s_Place(self, proc, s):
        gname = self.t(s.grid)[1]
        self.emit(proc, ir.Call("place", (s.card, gname, s.grid, s.cell), None, s.span))

    def s_Give(self, proc, s):
        self.emit(proc, ir.Call("give", (s.marker, s.to), None, s.span))

    def s_Log(self, proc, s):
        self.emit(proc, ir.Log(s.text, tuple(s.args), tuple(self.t(a) for a in s.args), s.span))
