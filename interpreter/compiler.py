"""Checked AST to executable closures, once, before play.

Expressions become `f(rt, env)` closures. Statement bodies are lowered to flat lists of instruction
records (`interpreter/ir.py`), which the closure back end (`interpreter/backend.py`) turns into
instructions `ins(rt, frame)`; loops and choices are jumps, so a body can stop at a decision and
resume later from data alone (procedure name, instruction index and local names).
"""
from __future__ import annotations

import operator

import attrs

from rulesdsl import ast as A
from rulesdsl.limits import MAX_INLINED_NODES
from rulesdsl.checker import ANY, INT, PLAYER, Model

from . import ir
from .primitives import RuleError, bounded, charge, piece_key

_OPERATORS = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
              ">": operator.gt, ">=": operator.ge, "+": operator.add, "-": operator.sub,
              "*": operator.mul}


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


def set_sizes(values) -> list[int]:
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


class Proc:
    """A compiled body: its instruction records, the instructions built from them, the span of
    each, and its parameter list."""

    __slots__ = ("name", "code", "spans", "params", "requires", "kind", "ir")

    def __init__(self, name, kind):
        self.name = name
        self.kind = kind
        self.ir: list = []
        self.code: list = []
        self.spans: list = []
        self.params: tuple = ()
        self.requires = None


class Compiler:
    """Turns a Model into procedures and the static tables the runtime needs."""

    def __init__(self, model: Model, params: dict):
        self.m = model
        self.types = model.types
        self.param_values = params
        self.procs: dict[str, Proc] = {}
        self.funcs: dict = {}
        self._tmp = 0
        self._loops: list[list] = []
        self.trigger_procs: dict[tuple, list] = {}
        self._inline: dict = {}       # a `def` parameter (its Param node) -> argument closure, while inlining
        self._inline_depth = 0
        self._inlined_nodes = 0       # what expansion has copied so far: capped, then calls stay calls
        self.reach_procs: list[str] = []
        self._chancy_defs: dict[str, bool] = {}  # per definition: whether its body may draw
        self._shapes: dict[str, tuple] = {}       # per definition: its size and its locals' uses

    # ---- helpers ------------------------------------------------------------------------------
    def tmp(self, stem: str) -> str:
        self._tmp += 1
        return f"${stem}{self._tmp}"

    def t(self, e):
        return self.types.get(e, ANY)

    def compile_all(self, backend):
        """Lower every body to instruction records and build its code with `backend` (the closure
        back end, `backend.ClosureBackend(compiler)`, or another one built on the same records)."""
        m = self.m

        def compile_body(proc, stmts):
            self.body(proc, stmts)
            backend.build(proc)
        # Definitions are compiled when a rule first calls them (see x_Call): one that nothing
        # calls has no argument types to compile against.
        for name, act in m.actions.items():
            proc = Proc(name, "routine" if act.routine else "action")
            proc.params = tuple((p.name, self.expr(p.default) if p.default is not None else None)
                                for p in act.params)
            proc.requires = self.expr(act.requires) if act.requires is not None else None
            compile_body(proc, act.body)
            self.procs["action:" + name] = proc
        if m.setup is not None:
            proc = Proc("setup", "setup")
            compile_body(proc, m.setup.body)
            self.procs["setup"] = proc
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
                proc.requires = self.expr(trig.cond)
                self.reach_procs.append(key)
                continue
            self.trigger_procs.setdefault((trig.event, trig.target), []).append(key)
        return self

    def compile_func(self, fn):
        if self.funcs.get(fn.name) is not None:
            return
        names = tuple(p.name for p in fn.params)
        defaults = tuple(self.expr(p.default) if p.default is not None else None for p in fn.params)
        holder = {}

        span = fn.span

        def call(rt, args, _names=names, _defaults=defaults, _h=holder):
            charge(rt, 1, span, f"calls of `{fn.name}`")  # a tree of calls cannot grow without bound
            if len(args) == len(_names):
                return _h["body"](rt, dict(zip(_names, args)))
            env = {}
            for i, n in enumerate(_names):
                env[n] = args[i] if i < len(args) else _defaults[i](rt, env)
            return _h["body"](rt, env)
        self.funcs[fn.name] = call
        # A definition compiled on its own reads only its own parameters, even when the first call
        # that needs it sits inside another definition being expanded in place.
        saved, self._inline, depth, self._inline_depth = self._inline, {}, self._inline_depth, 0
        try:
            holder["body"] = self.expr(fn.body)
        finally:
            self._inline, self._inline_depth = saved, depth

    # ---- expressions --------------------------------------------------------------------------
    def expr(self, e):
        return getattr(self, "x_" + type(e).__name__)(e)

    def x_Lit(self, e):
        v = e.value
        return lambda rt, env: v

    def x_Name(self, e):
        b = self.m.bindings[e]
        kind, n = b.kind, b.name
        if kind == "local":
            inlined = self._inline.get(b.decl.site)
            if inlined is not None:
                return inlined
            return lambda rt, env: env[n]
        if kind == "param":
            v = self.param_values[n]
            return lambda rt, env: v
        if kind == "counter" and not b.decl.keyed:
            return lambda rt, env: rt.st.counters[n]
        if kind == "players":
            return lambda rt, env: list(range(rt.st.player_count))
        if kind == "player_count":
            return lambda rt, env: rt.st.player_count
        # A zone, grid, keyed counter, track, marker, piece, kind, enum value or action: the
        # value is the name itself.
        return lambda rt, env: n

    def x_ListLit(self, e):
        items = [self.expr(i) for i in e.items]
        return lambda rt, env: [f(rt, env) for f in items]

    def local_var(self, e):
        """The env key of a plain local name (not an inlined parameter), else None."""
        if isinstance(e, A.Name):
            b = self.m.bindings[e]
            if b.kind == "local" and b.decl.site not in self._inline:
                return b.name
        return None

    def x_Attr(self, e):
        obj = self.expr(e.obj)
        ot = self.t(e.obj)
        n = e.name
        m = self.m
        var = self.local_var(e.obj)
        # Fused forms for the commonest case, a field of a local name: one closure call, not two.
        if var is not None and ot == PLAYER and (n in m.zones or n in m.grids):
            keys = self.player_keys(n)
            return lambda rt, env: keys[env[var]]
        if var is not None and ot == PLAYER and n in m.counters:
            return lambda rt, env: rt.st.counters[n][env[var]]
        if ot[0] == "card" and n in m.counters:  # a card's own counter: a table keyed by card
            return lambda rt, env: rt.st.counters[n].get(str(obj(rt, env)), rt.st.keyed_init[n])
        if var is not None and ot[0] == "card" and n != "name":
            return lambda rt, env: rt.fields[rt.st.card_def[env[var]]][n]
        if ot == PLAYER:
            if n in m.zones or n in m.grids:
                keys = self.player_keys(n)
                return lambda rt, env: keys[obj(rt, env)]
            if n in m.counters:
                return lambda rt, env: rt.st.counters[n][obj(rt, env)]
        if ot[0] == "card":
            if n == "name":
                return lambda rt, env: rt.names[rt.st.card_def[obj(rt, env)]]
            return lambda rt, env: rt.fields[rt.st.card_def[obj(rt, env)]][n]
        if ot[0] == "def":
            if n == "name":
                return lambda rt, env: rt.names[obj(rt, env)]
            return lambda rt, env: rt.fields[obj(rt, env)][n]
        if ot[0] == "cell":
            g = ot[1]
            if n == "x":
                return lambda rt, env: obj(rt, env) % rt.grid_meta[g].width + 1
            if n == "y":
                return lambda rt, env: obj(rt, env) // rt.grid_meta[g].width + 1
            return lambda rt, env: rt.grid_meta[g].cell_data[obj(rt, env)][n]
        if ot[0] == "line":
            g = ot[1]
            return lambda rt, env: rt.grid_meta[g].line_data[obj(rt, env)][n]
        if ot[0] == "space":
            tr = ot[1]
            if n == "index":
                return lambda rt, env: obj(rt, env)
            return lambda rt, env: rt.track_meta[tr].space_data[obj(rt, env)][n]
        raise RuleError(f"cannot read `{n}` here", e.span)

    def player_keys(self, name):
        return self.m_player_keys[name]

    def x_Index(self, e):
        idx = self.expr(e.index)
        if self.t(e.obj)[0] == "keyed":
            base = e.obj
            if isinstance(base, A.Name) and self.m.bindings[base].kind == "counter":
                name = base.id
                return lambda rt, env: rt.st.counters[name].get(str(idx(rt, env)), rt.st.keyed_init[name])
            if isinstance(base, A.Name):  # a local (a `def` parameter) given a keyed counter: its name
                named = self.expr(base)

                def keyed(rt, env):
                    name = named(rt, env)
                    return rt.st.counters[name].get(str(idx(rt, env)), rt.st.keyed_init[name])
                return keyed
            name = base.name
            who = self.expr(base.obj)
            return lambda rt, env: rt.st.counters[name][who(rt, env)].get(str(idx(rt, env)), rt.st.keyed_init[name])
        obj = self.expr(e.obj)
        span = e.span

        def item(rt, env):
            xs, i = obj(rt, env), idx(rt, env)
            if not 0 <= i < len(xs):
                raise RuleError(f"index {i} is outside the list (it has {len(xs)} elements, 0 to "
                                f"{len(xs) - 1})", span)
            return xs[i]
        return item

    def x_Unary(self, e):
        f = self.expr(e.operand)
        if e.op == "-":
            return lambda rt, env: -f(rt, env)
        return lambda rt, env: not f(rt, env)

    def x_Binary(self, e):
        op = e.op
        a = self.expr(e.left)
        b = self.expr(e.right)
        if op == "and":
            return lambda rt, env: a(rt, env) and b(rt, env)
        if op == "or":
            return lambda rt, env: a(rt, env) or b(rt, env)
        if op == "in":
            coll = self.as_list(e.right, b)
            return lambda rt, env: a(rt, env) in coll(rt, env)
        if op == "+" and self.t(e)[0] == "list":
            la = self.as_list(e.left, a)
            lb = self.as_list(e.right, b)
            span = e.span

            def join(rt, env):
                out = la(rt, env) + lb(rt, env)
                charge(rt, len(out), span, f"a list of {len(out)} elements")
                return out
            return join
        if op in ("/", "%"):
            span = e.span

            def divide(rt, env):
                y = b(rt, env)
                if y == 0:
                    raise RuleError("division by zero", span)
                return a(rt, env) // y if op == "/" else a(rt, env) % y
            return divide
        fn = _OPERATORS[op]
        if op == "*":  # the one operator that can make a number grow fast
            span = e.span
            return lambda rt, env: bounded(a(rt, env) * b(rt, env), span)
        if isinstance(e.right, A.Lit):
            v = e.right.value  # a literal right side is read once, at compile time
            return lambda rt, env: fn(a(rt, env), v)
        return lambda rt, env: fn(a(rt, env), b(rt, env))

    def x_Range(self, e):
        lo = self.expr(e.lo)
        hi = self.expr(e.hi)
        span = e.span

        def numbers(rt, env):
            a, b = lo(rt, env), hi(rt, env)
            if b >= a:
                charge(rt, b - a + 1, span, f"the range {a}..{b}")
            return list(range(a, b + 1))
        return numbers

    def x_Cond(self, e):
        t = self.expr(e.test)
        a = self.expr(e.then)
        b = self.expr(e.other)
        return lambda rt, env: a(rt, env) if t(rt, env) else b(rt, env)

    def as_list(self, node, f=None):
        """A closure returning the elements of a collection-typed expression."""
        f = f or self.expr(node)
        t = self.t(node)
        if t[0] == "zone":
            return lambda rt, env: rt.st.zones[f(rt, env)]
        if t[0] == "grid":
            return lambda rt, env: [c for _, c in sorted(rt.st.grids[f(rt, env)].items())]
        return f

    def lam(self, coll_node, body_node):
        """(collection closure, per-element closure) for aggregates that bind `it`."""
        coll = self.as_list(coll_node)
        elem_t = self.elem_type(coll_node)
        if (isinstance(body_node, A.Attr) and isinstance(body_node.obj, A.Name)
                and body_node.obj.id == "it" and elem_t[0] == "card" and body_node.name == "name"):
            return coll, ("name", None)
        name = self.it_field(body_node, elem_t)
        if name is not None:
            return coll, ("field", name)
        body = self.expr(body_node)
        return coll, ("expr", body)

    def elem_type(self, node):
        t = self.t(node)
        if t[0] == "list":
            return t[1]
        if t[0] == "zone":
            return ("card", t[1])
        if t[0] == "grid":
            return ("card", self.m.grids[t[1]].kind)
        return ANY

    @staticmethod
    def each(body):
        """Turn a lambda descriptor into `values(rt, env, elements)`."""
        kind, arg = body
        if kind == "field":
            def field_values(rt, env, xs):
                name = arg(rt, env)
                F, cd = rt.fields, rt.st.card_def
                return [F[cd[x]][name] for x in xs]
            return field_values
        if kind == "name":
            return lambda rt, env, xs: [rt.names[rt.st.card_def[x]] for x in xs]

        def values(rt, env, xs):
            charge(rt, len(xs), None, "going through a collection")
            saved = env.get("it")
            out = []
            for x in xs:
                env["it"] = x
                out.append(arg(rt, env))
            env["it"] = saved
            return out
        return values

    def it_field(self, node, elem_t):
        """If `node` reads a field of `it` (a card) by a name that does not depend on `it`, a
        closure giving that name; else None. Used by the fast paths of filters and sums."""
        if elem_t[0] != "card":
            return None
        if (isinstance(node, A.Attr) and isinstance(node.obj, A.Name) and node.obj.id == "it"
                and node.name != "name" and node.name not in self.m.counters):
            name = node.name
            return lambda rt, env: name
        if (isinstance(node, A.Call) and self.builtin(node) == "field"
                and isinstance(node.args[0], A.Name) and node.args[0].id == "it"
                and not self._mentions_it(node.args[1])):
            return self.expr(node.args[1])
        return None

    def filter_parts(self, e):
        """(collection closure, selector) for `coll where cond`: selector(rt, env, xs) yields the
        elements that pass, lazily, so `any` and `count` can stop early or skip building a list."""
        coll = self.as_list(e.coll)
        cond = e.cond
        elem_t = self.elem_type(e.coll)
        # Fast path: `it.field OP expression-without-it` on cards (also `field(it, name)`).
        name = (self.it_field(cond.left, elem_t) if isinstance(cond, A.Binary)
                and cond.op in ("==", "!=", "<=", "<", ">=", ">") else None)
        if name is not None and not self._mentions_it(cond.right) and not self.chancy(cond.right):
            rhs = self.expr(cond.right)
            fn = _OPERATORS[cond.op]

            def fast(rt, env, xs):
                v = rhs(rt, env)
                field = name(rt, env)
                F, cd = rt.fields, rt.st.card_def
                return (x for x in xs if fn(F[cd[x]][field], v))
            return coll, fast
        c = self.expr(cond)

        def slow(rt, env, xs):
            charge(rt, len(xs), e.span, "going through a collection")
            saved = env.get("it")
            try:
                for x in xs:
                    env["it"] = x
                    if c(rt, env):
                        env["it"] = saved
                        yield x
            finally:
                env["it"] = saved
        return coll, slow

    def x_Filter(self, e):
        coll, select = self.filter_parts(e)
        if select.__name__ == "fast":
            return lambda rt, env: list(select(rt, env, coll(rt, env)))
        c = self.expr(e.cond)

        span = e.span

        def keep(rt, env):  # a plain loop: cheaper than the lazy selector when all are wanted
            xs = coll(rt, env)
            charge(rt, len(xs), span, "going through a collection")
            saved = env.get("it")
            out = []
            for x in xs:
                env["it"] = x
                if c(rt, env):
                    out.append(x)
            env["it"] = saved
            return out
        return keep

    def _mentions_it(self, e):
        if isinstance(e, A.Name):
            return e.id == "it"
        for field in ("obj", "left", "right", "operand", "coll", "cond", "test", "then", "other", "lo", "hi", "index"):
            sub = getattr(e, field, None)
            if sub is not None and not isinstance(sub, (str, int)) and self._mentions_it(sub):
                return True
        for sub in getattr(e, "args", ()) or getattr(e, "items", ()):
            if self._mentions_it(sub):
                return True
        return False

    def chancy(self, node) -> bool:
        """True if evaluating `node` may draw from the RNG (`random`, here or in a `def` it calls):
        such expressions are never reordered, skipped or evaluated a different number of times."""
        for n in A.walk(node):
            b = self.m.bindings.get(n) if isinstance(n, A.Call) else None
            if b is None:
                continue
            if b.kind == "builtin" and b.name == "random":
                return True
            if b.kind == "def":
                known = self._chancy_defs.get(b.name)
                if known is None:  # worked out once per definition, over every definition it reaches
                    known = self._chancy_defs[b.name] = self._draws(b.decl.body, {b.name})
                if known:
                    return True
        return False

    def _draws(self, node, seen) -> bool:
        for n in A.walk(node):
            b = self.m.bindings.get(n) if isinstance(n, A.Call) else None
            if b is None:
                continue
            if b.kind == "builtin" and b.name == "random":
                return True
            if b.kind == "def" and b.name not in seen:
                seen.add(b.name)
                if self._draws(b.decl.body, seen):
                    return True
        return False

    def builtin(self, call) -> str | None:
        """The name of the built-in function a call calls, if it calls one."""
        b = self.m.bindings.get(call)
        return b.name if b is not None and b.kind == "builtin" else None

    def inlinable(self, fn, args, args_may_read_it: bool = False) -> bool:
        """Small definitions are compiled into their callers; a parameter whose argument is not a
        plain name or literal must appear at most once, so nothing is evaluated twice."""
        if self._inline_depth >= 6 or len(args) != len(fn.params):
            return False
        # An argument reading `it` would see the body's own `where` element instead: not inlined
        # (unless the caller keeps each `it` apart, as the source back end does).
        if not args_may_read_it and any(self._mentions_it(a) for a in args):
            return False
        if any(self.chancy(a) for a in args) or self.chancy(fn.body):
            return False
        size, uses = self._body_shape(fn)
        if size > 60 or self._inlined_nodes + size > MAX_INLINED_NODES:
            return False
        for prm, arg in zip(fn.params, args):
            if not isinstance(arg, (A.Name, A.Lit)) and uses.get(prm, 0) > 1:
                return False
        return True

    def _body_shape(self, fn):
        """(nodes in a definition's body, uses of each local in it), counted once per definition."""
        shape = self._shapes.get(fn.name)
        if shape is None:
            nodes = list(A.walk(fn.body))
            uses = {}
            for n in nodes:
                b = self.m.bindings.get(n) if isinstance(n, A.Name) else None
                if b is not None and b.kind == "local":
                    uses[b.decl.site] = uses.get(b.decl.site, 0) + 1
            shape = self._shapes[fn.name] = (len(nodes), uses)
        return shape

    def x_Call(self, e):
        b = self.m.bindings[e]
        kind, name = b.kind, b.name
        if kind == "def" and self.inlinable(b.decl, e.args):
            fn = b.decl
            # The parameters, by their declaration, are replaced by the argument closures.
            mapping = {prm: self.expr(arg) for prm, arg in zip(fn.params, e.args)}
            self._inlined_nodes += self._body_shape(fn)[0]
            saved = self._inline
            self._inline = mapping
            self._inline_depth += 1
            try:
                return self.expr(fn.body)
            finally:
                self._inline = saved
                self._inline_depth -= 1
        if kind == "def":
            if self.funcs.get(name) is None:
                self.compile_func(b.decl)
            fn = self.funcs
            args = [self.expr(a) for a in e.args]
            if len(args) == 1:
                a0 = args[0]
                return lambda rt, env: fn[name](rt, (a0(rt, env),))
            if len(args) == 2:
                a0, a1 = args
                return lambda rt, env: fn[name](rt, (a0(rt, env), a1(rt, env)))
            if len(args) == 3:
                a0, a1, a2 = args
                return lambda rt, env: fn[name](rt, (a0(rt, env), a1(rt, env), a2(rt, env)))
            return lambda rt, env: fn[name](rt, tuple([a(rt, env) for a in args]))
        return getattr(self, "b_" + name)(e)

    # built-ins
    def b_count(self, e):
        if isinstance(e.args[0], A.Filter) and not self.chancy(e.args[0].cond):
            coll, select = self.filter_parts(e.args[0])
            return lambda rt, env: sum(1 for _ in select(rt, env, coll(rt, env)))
        coll = self.as_list(e.args[0])
        return lambda rt, env: len(coll(rt, env))

    def b_sum(self, e):
        coll, body = self.lam(e.args[0], e.args[1])
        if body[0] == "field":
            name = body[1]

            def sum_field(rt, env):
                F, cd = rt.fields, rt.st.card_def
                field = name(rt, env)
                return sum(F[cd[x]][field] for x in coll(rt, env))
            return sum_field
        vals = self.each(body)
        return lambda rt, env: sum(vals(rt, env, coll(rt, env)))

    def _minmax(self, e, pick):
        if self.t(e.args[0]) == INT:
            a = self.expr(e.args[0])
            b = self.expr(e.args[1])
            return lambda rt, env: pick(a(rt, env), b(rt, env))
        coll, body = self.lam(e.args[0], e.args[1])
        vals = self.each(body)
        span = e.span

        def agg(rt, env):
            vs = vals(rt, env, coll(rt, env))
            if not vs:
                raise RuleError("min/max of an empty collection", span)
            return pick(vs)
        return agg

    def b_min(self, e):
        return self._minmax(e, min)

    def b_max(self, e):
        return self._minmax(e, max)

    def b_any(self, e):
        if isinstance(e.args[0], A.Filter) and not self.chancy(e.args[0].cond):
            coll, select = self.filter_parts(e.args[0])

            def any_passes(rt, env):
                for _ in select(rt, env, coll(rt, env)):
                    return True
                return False
            return any_passes
        coll = self.as_list(e.args[0])
        return lambda rt, env: len(coll(rt, env)) > 0

    def b_all(self, e):
        coll, body = self.lam(e.args[0], e.args[1])
        vals = self.each(body)
        return lambda rt, env: all(vals(rt, env, coll(rt, env)))

    def b_count_distinct(self, e):
        coll, body = self.lam(e.args[0], e.args[1])
        vals = self.each(body)
        return lambda rt, env: len(set(vals(rt, env, coll(rt, env))))

    def b_set_sizes(self, e):
        coll, body = self.lam(e.args[0], e.args[1])
        vals = self.each(body)
        return lambda rt, env: set_sizes(vals(rt, env, coll(rt, env)))

    def b_names(self, e):
        coll = self.as_list(e.args[0])
        if self.elem_type(e.args[0])[0] == "def":
            return lambda rt, env: [rt.names[d] for d in coll(rt, env)]
        return lambda rt, env: [rt.names[rt.st.card_def[c]] for c in coll(rt, env)]

    def b_abs(self, e):
        a = self.expr(e.args[0])
        return lambda rt, env: abs(a(rt, env))

    def b_top(self, e):
        z = self.expr(e.args[0])

        def top(rt, env):
            lst = rt.st.zones[z(rt, env)]
            return lst[-1] if lst else None
        return top

    def b_bottom(self, e):
        z = self.expr(e.args[0])

        def bottom(rt, env):
            lst = rt.st.zones[z(rt, env)]
            return lst[0] if lst else None
        return bottom

    def b_first(self, e):
        coll = self.as_list(e.args[0])

        def first(rt, env):
            lst = coll(rt, env)
            return lst[0] if lst else None
        return first

    def b_last(self, e):
        coll = self.as_list(e.args[0])

        def last(rt, env):
            lst = coll(rt, env)
            return lst[-1] if lst else None
        return last

    def b_defs(self, e):
        kind = e.args[0].id
        return lambda rt, env: list(rt.defs_by_kind[kind])

    def b_random(self, e):
        coll = self.as_list(e.args[0])
        return lambda rt, env: rt.random_choice(coll(rt, env))

    def b_holder(self, e):
        name = e.args[0].id
        return lambda rt, env: rt.st.markers.get(name)

    def b_next_player(self, e):
        p = self.expr(e.args[0])
        return lambda rt, env: (p(rt, env) + 1) % rt.st.player_count

    def b_turn_order(self, e):
        p = self.expr(e.args[0])

        def order(rt, env):
            start, n = p(rt, env), rt.st.player_count
            return [(start + i) % n for i in range(n)]
        return order

    def b_seat(self, e):
        p = self.expr(e.args[0])
        return lambda rt, env: p(rt, env) + 1

    def b_player(self, e):
        s = self.expr(e.args[0])
        span = e.span

        def player(rt, env):
            seat = s(rt, env)
            if not 1 <= seat <= rt.st.player_count:
                raise RuleError(f"there is no seat {seat}", span)
            return seat - 1
        return player

    def b_space(self, e):
        name = e.args[0].id
        p = self.expr(e.args[1])
        span = e.span

        def space(rt, env):
            pos = rt.st.tracks[name].get(piece_key(p(rt, env)))
            if pos is None:
                raise RuleError("this piece is not on the track", span)
            return pos
        return space

    b_position = b_space

    def b_space_at(self, e):
        name = e.args[0].id
        i = self.expr(e.args[1])
        span = e.span

        def space_at(rt, env):
            idx = i(rt, env)
            if not 0 <= idx < rt.track_meta[name].size:
                raise RuleError(f"track `{name}` has no space {idx}", span)
            return idx
        return space_at

    def b_free_spaces(self, e):
        name = e.args[0].id
        p = self.expr(e.args[1])

        def free(rt, env):
            me = piece_key(p(rt, env))
            others = {pos for k, pos in rt.st.tracks[name].items() if k != me and pos is not None}
            return rt.track_meta[name].size - len(others)
        return free

    def b_frontier(self, e):
        g = self.expr(e.args[0])
        gname = self.t(e.args[0])[1]

        def frontier(rt, env):
            meta = rt.grid_meta[gname]
            cells = rt.st.grids[g(rt, env)]
            out = set()
            for i in cells:
                out.update(j for j in meta.adjacent[i] if j not in cells)
            return sorted(out)
        return frontier

    def b_filled_cells(self, e):
        g = self.expr(e.args[0])
        return lambda rt, env: sorted(rt.st.grids[g(rt, env)])

    def b_has_block(self, e):
        g = self.expr(e.args[0])
        gname = self.t(e.args[0])[1]
        w = self.expr(e.args[1])
        h = self.expr(e.args[2])

        def has_block(rt, env):
            cells = rt.st.grids[g(rt, env)]
            return block_in(rt.grid_meta[gname], cells, w(rt, env), h(rt, env))
        return has_block

    def b_fits(self, e):
        g = self.expr(e.args[0])
        gname = self.t(e.args[0])[1]
        card = self.expr(e.args[1])
        cell = self.expr(e.args[2])
        anchor = self.expr(e.args[3])
        return lambda rt, env: rt.fits(gname, g(rt, env), card(rt, env), cell(rt, env), anchor(rt, env))

    def b_call(self, e):
        f = self.expr(e.args[0])
        lead = [self.expr(a) for a in e.args[1:]]
        return lambda rt, env: rt.call_formula(f(rt, env), tuple(a(rt, env) for a in lead))

    def b_faces(self, e):
        c = self.expr(e.args[0])
        return lambda rt, env: rt.faces(c(rt, env))

    def b_face(self, e):
        c, name = self.expr(e.args[0]), self.expr(e.args[1])
        return lambda rt, env: rt.face(c(rt, env), name(rt, env))

    def b_slot(self, e):
        c, name = self.expr(e.args[0]), self.expr(e.args[1])
        return lambda rt, env: rt.slot_key(c(rt, env), name(rt, env))

    def b_room(self, e):
        c, name = self.expr(e.args[0]), self.expr(e.args[1])
        return lambda rt, env: rt.room(c(rt, env), name(rt, env))

    def b_zone_of(self, e):
        c = self.expr(e.args[0])
        return lambda rt, env: rt.zone_of(c(rt, env))

    def b_host(self, e):
        c = self.expr(e.args[0])
        return lambda rt, env: rt.host(c(rt, env))

    def b_slot_of(self, e):
        c = self.expr(e.args[0])
        return lambda rt, env: rt.slot_of(c(rt, env))

    def b_attached(self, e):
        one = self.t(e.args[0])[0] in ("card", "none")
        c = self.expr(e.args[0]) if one else self.as_list(e.args[0])
        return lambda rt, env: rt.attached(c(rt, env))

    def b_cell_of(self, e):
        g = self.expr(e.args[0])
        c = self.expr(e.args[1])

        def cell_of(rt, env):
            card = c(rt, env)
            for i, held in rt.st.grids[g(rt, env)].items():
                if held == card:
                    return i
            return None
        return cell_of

    def b_field(self, e):
        c = self.expr(e.args[0])
        name = self.expr(e.args[1])
        is_def = self.t(e.args[0])[0] == "def"
        span = e.span

        def field(rt, env):
            ref = c(rt, env)
            fields = rt.fields[ref if is_def else rt.st.card_def[ref]]
            n = name(rt, env)
            v = fields.get(n)
            if not isinstance(v, int) or isinstance(v, bool):
                raise RuleError(f"cards of this kind have no int field `{n}`", span)
            return v
        return field

    def b_index_of(self, e):
        coll = self.as_list(e.args[0])
        x = self.expr(e.args[1])

        def index_of(rt, env):
            lst = coll(rt, env)
            v = x(rt, env)
            return lst.index(v) if v in lst else -1
        return index_of

    def b_slice(self, e):
        coll = self.as_list(e.args[0])
        a = self.expr(e.args[1])
        b = self.expr(e.args[2])
        return lambda rt, env: list(coll(rt, env)[max(0, a(rt, env)):max(0, b(rt, env))])

    def b_reverse(self, e):
        coll = self.as_list(e.args[0])
        return lambda rt, env: list(coll(rt, env))[::-1]

    def _by(self, e, better):
        coll, body = self.lam(e.args[0], e.args[1])
        vals = self.each(body)

        def by(rt, env):
            xs = list(coll(rt, env))
            if not xs:
                return None
            vs = vals(rt, env, xs)
            best = 0
            for i in range(1, len(xs)):
                if better(vs[i], vs[best]):
                    best = i
            return xs[best]
        return by

    def b_sort_by(self, e):
        coll, body = self.lam(e.args[0], e.args[1])
        vals = self.each(body)

        def sort_by(rt, env):
            xs = list(coll(rt, env))
            vs = vals(rt, env, xs)
            return [x for _, _, x in sorted(zip(vs, range(len(xs)), xs), key=lambda t: (t[0], t[1]))]
        return sort_by

    def b_min_by(self, e):
        return self._by(e, lambda a, b: a < b)

    def b_max_by(self, e):
        return self._by(e, lambda a, b: a > b)

    def b_empty_cells(self, e):
        g = self.expr(e.args[0])
        gname = self.t(e.args[0])[1]

        def empty(rt, env):
            cells = rt.st.grids[g(rt, env)]
            return [i for i in rt.grid_meta[gname].playable if i not in cells]
        return empty

    def b_cell(self, e):
        gname = self.t(e.args[0])[1]
        x = self.expr(e.args[1])
        y = self.expr(e.args[2])
        span = e.span

        def cell(rt, env):
            meta = rt.grid_meta[gname]
            cx, cy = x(rt, env), y(rt, env)
            if not (1 <= cx <= meta.width and 1 <= cy <= meta.height):
                raise RuleError(f"cell ({cx}, {cy}) is outside the grid", span)
            return (cy - 1) * meta.width + (cx - 1)
        return cell

    def b_neighbors(self, e):
        gname = self.t(e.args[0])[1]
        c = self.expr(e.args[1])
        return lambda rt, env: list(rt.grid_meta[gname].adjacent[c(rt, env)])

    def b_card_at(self, e):
        g = self.expr(e.args[0])
        c = self.expr(e.args[1])
        return lambda rt, env: rt.st.grids[g(rt, env)].get(c(rt, env))

    # ---- statements: lowering to instruction records (interpreter/ir.py) -----------------------
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
        elif isinstance(target, A.Attr) and self.t(target.obj)[0] == "card":
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
        ask = self.emit(proc, ir.AskOption(s.prompt or "choose", s.by, labels, conds, (), -1, s.span))
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
        ask = self.emit(proc, ir.AskItem(s.var, s.coll, self.elem_type(s.coll), s.by, -1, s.span, label, s.prompt))
        self.body(proc, s.body)
        self.patch(proc, ask, end=len(proc.ir))

    def s_Pick(self, proc, s):
        left, count = self.tmp("left"), self.tmp("picked")
        self.emit(proc, ir.PickInit(left, count, s.budget, s.span))
        head = self.emit(proc, ir.AskPick(s.var, s.coll, self.elem_type(s.coll), s.cost, s.by, s.optional,
                                          left, count, -1, s.span, s.prompt))
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
                                     len(proc.ir) + 1, s.span))

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
