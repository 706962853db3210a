"""The checker's rules for expressions (`e_NODE`): every node's static type, recorded on the side
table, and what each attribute access reads."""
from __future__ import annotations

from .. import ast as A
from ..builtins import BUILTINS, LAMBDA_BUILTINS
from ..errors import suggest
from ..limits import MAX_DEF_DEPTH
from .model import Reads
from .types import ACTION, ANY, BOOL, CONSTANTS, FIELD_TYPES, INT, KEYED, NONE, PIECE, PLAYER, SYM, TEXT, T_list, _compatible, show


class ExpressionChecks:
    """The type rule of each expression node (`e_NODE`), and checking a wanted type."""

    # -- expressions
    def expect(self, e, wanted, what):
        t = self.expr(e)
        if not any(_compatible(t, w) for w in wanted):
            self.err(e, f"{what} must be {' or '.join(show(w) for w in wanted)}, got {show(t)}")
        return t

    def expect_zone(self, e):
        t = self.expr(e)
        if t[0] not in ("zone", "any"):
            hint = "per-player zones are written `p.zone`" if isinstance(e, A.Name) else None
            self.err(e, f"expected a zone, got {show(t)}", hint)
            return ANY
        return t

    def elem_type(self, e):
        t = self.expr(e)
        return self.elem_of(t, e)

    def elem_of(self, t, node):
        elem = self._elem_of(t, node)
        self.decided.elems[node] = elem
        return elem

    def _elem_of(self, t, node):
        if t[0] == "list":
            return t[1]
        if t[0] == "zone":
            return ("card", t[1])
        if t[0] == "grid":
            return ("card", self.grids[t[1]].kind)
        if t == ANY:
            return ANY
        self.err(node, f"expected a collection, got {show(t)}")
        return ANY

    def reads(self, e, what: str, owner: str | None = None):
        """Record what the attribute access `e` reads."""
        self.decided.reads[e] = Reads(what, owner)

    def expr(self, e) -> tuple:
        t = getattr(self, "e_" + type(e).__name__)(e)
        self.types[e] = t
        return t

    def e_Lit(self, e):
        v = e.value
        if v is None:
            return NONE
        if isinstance(v, bool):
            return BOOL
        if isinstance(v, int):
            return INT
        return TEXT

    def e_Name(self, e):
        b = self.binding(e)
        kind, n = b.kind, e.id
        if kind == "local":
            return self.var_types.get(b.decl, ANY)
        if kind == "param":
            return self.expr(b.decl.value)
        if kind in ("zone", "counter", "grid") and b.decl.per_player:
            self.err(e, f"{kind} `{n}` belongs to each player", f"write `p.{n}` for a player `p`")
            return ANY
        if kind == "zone" and b.decl.by:
            self.err(e, f"zone `{n}` is one zone per {b.decl.by}: name one of them",
                     f"write `{n}[KEY]`, KEY one of {', '.join(b.decl.keys[:4])}{', ...' if len(b.decl.keys) > 4 else ''}")
            return ANY
        if kind == "zone":
            return ("zone", b.decl.kind)
        if kind == "counter":
            return KEYED if b.decl.keyed else INT
        if kind in ("grid", "track", "marker", "kind"):
            return (kind, n)
        if kind == "piece":
            return PIECE
        if kind in CONSTANTS:
            return CONSTANTS[kind]
        if kind == "enum":
            return SYM
        if kind in ("action", "routine"):
            self.used_actions.add(n)
            return ACTION
        if kind == "def":
            self.err(e, f"`{n}` is a definition; call it as `{n}(...)`")
            return ANY
        if kind == "ambiguous":
            what = "constant" if b.decl.kind in CONSTANTS else {"param": "parameter"}.get(b.decl.kind, b.decl.kind)
            other = f"the {what} `{n}`"
            self.err(e, f"`{n}` could mean {other} or {self.res.enum_origins[n]}",
                     "a bare name cannot tell them apart: rename one of them")
            return ANY
        candidates = set(b.decl) | set(self.decls) | self.enum_values | set(CONSTANTS) | {"true", "false", "none"}
        hint = suggest(n, candidates)
        if n == "it":
            hint = ("`it` is the element only inside a `where` condition, an aggregate's expression or an "
                    "`actions` limit that does not name its element")
        self.err(e, f"unknown name `{n}`", hint)
        return ANY

    def e_ListLit(self, e):
        elem = None
        for item in e.items:
            t = self.expr(item)
            if elem is None or elem == ANY:
                elem = t
            elif not _compatible(t, elem):
                self.err(item, f"list elements must have one type: {show(elem)} and {show(t)}")
        return T_list(elem or ANY)

    def e_Attr(self, e):
        ot = self.expr(e.obj)
        n = e.name
        if ot == ANY:
            return ANY
        if ot == PLAYER:
            if n in self.zones and self.zones[n].per_player:
                self.reads(e, "player_place")
                return ("zone", self.zones[n].kind)
            if n in self.counters and self.counters[n].per_player:
                self.reads(e, "player_counter")
                return KEYED if self.counters[n].keyed else INT
            if n in self.grids and self.grids[n].per_player:
                self.reads(e, "player_place")
                return ("grid", n)
            owned = [k for k, d in {**self.zones, **self.counters, **self.grids}.items()
                     if getattr(d, "per_player", False)]
            self.err(e, f"players have no zone, counter or grid `{n}`", suggest(n, owned))
            return ANY
        if ot[0] in ("card", "def"):
            kind = self.kinds.get(ot[1])
            if kind is None:
                return ANY
            if n == "name":
                self.reads(e, ot[0] + "_name")
                return TEXT
            for f in kind.fields:
                if f.name == n:
                    self.reads(e, ot[0] + "_field")
                    return FIELD_TYPES[f.type.name]
            if n == "face" and kind.faces:
                self.reads(e, ot[0] + "_field")
                return SYM
            if any(c.name == n for c in kind.counters):
                self.reads(e, "card_counter")
                if ot[0] == "def":
                    self.err(e, f"`{n}` is a counter of each card of kind {kind.name}; a definition has none")
                return INT
            self.err(e, f"card kind `{kind.name}` has no field `{n}`",
                     suggest(n, [f.name for f in kind.fields] + [c.name for c in kind.counters] + ["name"]))
            return ANY
        if ot[0] == "cell":
            if n in ("x", "y"):
                self.reads(e, "cell_" + n, ot[1])
                return INT
            self.reads(e, "cell_data", ot[1])
            return self.data_field(e, self.grids[ot[1]].cell_fields, n, f"cells of grid {ot[1]}")
        if ot[0] == "line":
            self.reads(e, "line_data", ot[1])
            return self.data_field(e, self.grids[ot[1]].line_fields, n, f"lines of grid {ot[1]}")
        if ot[0] == "space":
            self.reads(e, "space_index" if n == "index" else "space_data", ot[1])
            if n == "index":
                return INT
            return self.data_field(e, self.tracks[ot[1]].fields, n, f"spaces of track {ot[1]}")
        self.err(e, f"{show(ot)} has no field `{n}`")
        return ANY

    def data_field(self, e, fields, n, owner):
        for f in fields:
            if f.name == n:
                return FIELD_TYPES[f.type.name]
        self.err(e, f"{owner} have no field `{n}`", suggest(n, [f.name for f in fields]))
        return ANY

    def e_Index(self, e):
        if isinstance(e.obj, A.Name) and self.binding(e.obj).kind == "zone" and self.binding(e.obj).decl.by:
            return self.keyed_zone(e)
        ot = self.expr(e.obj)
        it = self.expr(e.index)
        if ot == KEYED:
            if it not in (INT, SYM, TEXT, ANY, PLAYER, PIECE):
                self.err(e.index, f"a counter key must be a number, text or enum value, got {show(it)}")
            return INT
        if ot[0] == "list":
            if not _compatible(it, INT):
                self.err(e.index, f"a list index must be int, got {show(it)}")
            return ot[1]
        if ot[0] == "zone":
            self.err(e, f"a zone of {ot[1]} cannot be indexed",
                     "`NAME[KEY]` names one zone of a zone kept per value (`per NAME`); a zone's cards are "
                     "read with `top`, `first`, `where`...")
        elif ot != ANY:
            self.err(e, f"{show(ot)} cannot be indexed")
        return ANY

    def keyed_zone(self, e):
        """`piles[key]`: one of the zones of a zone declared `per NAME`."""
        decl = self.binding(e.obj).decl
        self.types[e.obj] = ("zones", decl.kind)
        it = self.expr(e.index)
        if it not in (SYM, TEXT, ANY):
            self.err(e.index, f"zone `{decl.name}` is one zone per {decl.by}: its key is one of its values, "
                              f"not {show(it)}")
        key = e.index
        if isinstance(key, A.Name) and self.binding(key).kind == "enum" and key.id not in decl.keys:
            self.err(key, f"zone `{decl.name}` has no zone `{key.id}`: its keys are {', '.join(decl.keys)}",
                     suggest(key.id, decl.keys))
        elif isinstance(key, A.Lit) and isinstance(key.value, str) and key.value not in decl.keys:
            self.err(key, f"zone `{decl.name}` has no zone \"{key.value}\": its keys are {', '.join(decl.keys)}")
        return ("zone", decl.kind)

    def e_Call(self, e):
        if not isinstance(e.func, A.Name):
            self.err(e, "only built-ins and definitions can be called in an expression",
                     "actions are performed with `do`")
            return ANY
        n = e.func.id
        callee = self.binding(e)
        if e.elem is not None and not (callee.kind == "builtin" and n in LAMBDA_BUILTINS):
            self.err(e.elem, f"`{n}` is given values: no element of its arguments can be named",
                     "only `where`, the aggregates (`sum`, `all`, `min`, `max`, `sort_by`, ...) and the "
                     "limits of `actions` bind an element")
        if callee.kind == "local":
            self.err(e, f"`{n}` is a variable, not a function")
            return ANY
        if callee.kind == "def":
            fn = callee.decl
            self.check_args(e, fn.params)
            arg_types = [self.types.get(a, ANY) for a in e.args]
            arg_types += [ANY] * (len(fn.params) - len(arg_types))
            return self.type_func(fn, arg_types, e)
        if callee.kind in ("action", "routine"):
            self.err(e, f"`{n}` is an action", f"perform it with `do {n}(...)`")
            return ANY
        if callee.kind != "builtin":
            self.err(e.func, f"unknown function `{n}`", suggest(n, list(BUILTINS) + list(self.funcs)))
            return ANY
        row = BUILTINS[n]
        lo, hi = row.least, row.most or row.least
        if not lo <= len(e.args) <= hi:
            want = str(lo) if lo == hi else f"{lo} to {hi}"
            self.err(e, f"`{n}` takes {want} arguments, got {len(e.args)}")
            return ANY
        return getattr(self, "b_" + n)(e)

    def type_func(self, fn, arg_types, site):
        """Type a definition's body with the argument types of its first call (monomorphic)."""
        if fn.name in self._typing:
            cycle = frozenset(self._typing)
            if cycle not in self._cycles:  # one report per cycle
                self._cycles.add(cycle)
                self.err(site, f"`{fn.name}` calls itself; definitions cannot recurse")
            return ANY
        if len(self._typing) >= MAX_DEF_DEPTH:
            self.err(site, f"definitions call one another more than {MAX_DEF_DEPTH} deep here",
                     "flatten the chain: compute a part with `let`, or merge small definitions")
            return ANY
        known = self.func_params.get(fn.name)
        if known is not None:
            for prm, was, now in zip(fn.params, known, arg_types):
                if prm.type is None and not _compatible(now, was):  # a declared type: checked at the call
                    self.err(site, f"`{fn.name}` was first called with {prm.name} as {show(was)}, here {show(now)}")
            return self.types[fn]
        self.func_params[fn.name] = arg_types
        self._typing.add(fn.name)
        for prm, t in zip(fn.params, arg_types):
            bound = self.param_type(prm)
            self.bind(prm, prm.name, t if bound is None else bound)
        self.types[fn] = self.expr(fn.body)
        self._typing.discard(fn.name)
        return self.types[fn]

    def names_a(self, node, category) -> bool:
        """True if `node` is a Name the resolver bound to a declaration of `category`."""
        return isinstance(node, A.Name) and self.binding(node).kind == category

    def lambda_arg(self, e):
        """Type an aggregate's second argument, evaluated with `it` (or the element's name) bound to
        each element."""
        self.bind_element(e, self.elem_type(e.args[0]))
        return self.expr(e.args[1])

    def bind_element(self, form, t):
        """Give the element `form` binds the type `t`; a name given to it that hides another
        meaning there (a local, a declaration, a built-in...) is an error at the name."""
        site, name = A.element_site(form)
        self.bind(site, name, t)
        if site is form:
            return
        if name == "it":
            self.err(site, "`it:` names the element `it`, which it is without a name",
                     "drop `it:`, or give the element a name of its own")
            return
        hidden = self.res.hidden.get(site)
        if hidden is not None:
            meaning, free = hidden
            self.err(site, f"the element's name `{name}` would hide {self.meaning(meaning)}",
                     f"give the element a name of its own{f', such as `{free}`' if free else ''}")

    def meaning(self, b) -> str:
        """What a binding stands for, as a message names it: `the zone `hand``, `the loop variable
        `c` (line 4)`, `the built-in `count``."""
        if b.kind == "local":
            v = b.decl
            line = getattr(getattr(v.site, "span", None), "line", 0)
            return f"{_LOCAL_WORDS.get(v.how, 'the variable')} `{v.name}`" + (f" (line {line})" if line else "")
        if b.kind in ("enum", "ambiguous"):
            return self.res.enum_origins[b.name]
        if b.kind in CONSTANTS:
            return f"the constant `{b.name}`"
        if b.kind == "builtin":
            return f"the built-in `{b.name}`"
        return f"the {_DECL_WORDS.get(b.kind, b.kind)} `{b.name}`"

    def e_Unary(self, e):
        if e.op == "-":
            self.expect(e.operand, (INT,), "a negated value")
            return INT
        self.expect(e.operand, (BOOL,), "`not`'s operand")
        return BOOL

    def e_Binary(self, e):
        op = e.op
        if op in ("and", "or"):
            self.expect(e.left, (BOOL,), f"`{op}`'s left side")
            self.expect(e.right, (BOOL,), f"`{op}`'s right side")
            return BOOL
        lt = self.expr(e.left)
        rt = self.expr(e.right)
        if op in _COMPARISONS and self.res.hides_it:
            self.same_element(e)
        if op == "in":
            elem = self.elem_of(rt, e.right)
            if not _compatible(lt, elem):
                self.err(e, f"`in` compares {show(lt)} with elements of type {show(elem)}")
            return BOOL
        if op in ("==", "!="):
            if not (_compatible(lt, rt) or lt == NONE or rt == NONE):
                self.err(e, f"cannot compare {show(lt)} with {show(rt)}")
            return BOOL
        if op in ("<", "<=", ">", ">="):
            for side, t in ((e.left, lt), (e.right, rt)):
                if not _compatible(t, INT):
                    self.err(side, f"`{op}` compares numbers, got {show(t)}")
            return BOOL
        if op == "+" and (lt[0] in ("list", "zone") or rt[0] in ("list", "zone")):
            le, re_ = self.elem_of(lt, e.left), self.elem_of(rt, e.right)
            if not _compatible(le, re_):
                self.err(e, f"cannot join a collection of {show(le)} with one of {show(re_)}")
            return T_list(le if le != ANY else re_)
        for side, t in ((e.left, lt), (e.right, rt)):
            if not _compatible(t, INT):
                self.err(side, f"`{op}` works on numbers, got {show(t)}")
        return INT

    def same_element(self, e):
        """Warn when both sides of a comparison read the `it` of a form nested in another that binds
        `it`: that `it` hides the outer one, so a comparison meant between the two elements
        (`xs where not any(xs where it.value == it.value - 1)`) compares each element with itself."""
        def hiding_its(side):
            for n in A.walk(side):
                b = self.res.bindings.get(n) if isinstance(n, A.Name) and n.id == "it" else None
                if b is not None and b.kind == "local" and b.decl in self.res.hides_it:
                    yield n, b.decl
        left = {v for _, v in hiding_its(e.left)}
        both = [(n, v) for n, v in hiding_its(e.right) if v in left]
        if not both:
            return
        n, v = min(both, key=lambda nv: (nv[0].span.line, nv[0].span.col))
        outer = self.res.hides_it[v]
        what = "card" if self.var_types.get(v, ANY)[0] == "card" else "element"
        self.warn(n, f"`it` here is the element of the inner {_form_words(v.site)}, not of the outer "
                     f"{_form_words(outer.site)}: both sides of this comparison read the same {what}",
                  "name the elements: `xs where a: not any(xs where b: b.value == a.value - 1)`")

    def e_Range(self, e):
        self.expect(e.lo, (INT,), "a range start")
        self.expect(e.hi, (INT,), "a range end")
        return T_list(INT)

    def e_Filter(self, e):
        elem = self.elem_type(e.coll)
        self.bind_element(e, elem)
        self.expect(e.cond, (BOOL,), "a `where` condition")
        return T_list(elem)

    def e_Cond(self, e):
        self.expect(e.test, (BOOL,), "a condition")
        a = self.expr(e.then)
        b = self.expr(e.other)
        if a == NONE:
            return b
        if b == NONE or a == ANY:
            return a if a != ANY else b
        if not _compatible(a, b):
            self.err(e, f"both branches must have one type: {show(a)} and {show(b)}")
        return a


_COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")
# How a message names a local variable, by how it is introduced (resolver.Var.how).
_LOCAL_WORDS = {"parameter": "the parameter", "phase": "the phase's player", "trigger": "the trigger's variable",
                "victory": "the victory block's player", "evaluate": "the evaluate block's player",
                "score": "the score", "for": "the loop variable", "choose": "the chosen element",
                "pick": "the picked element", "it": "the element"}
_DECL_WORDS = {"param": "parameter", "kind": "card kind", "def": "definition"}


def _form_words(site) -> str:
    """A form that binds an element, and where it starts: "`where` (3:14)", "`sum` (3:1)"."""
    form = "`where`" if isinstance(site, A.Filter) else f"`{site.func.id}`" if isinstance(site, A.Call) \
        else "`actions` limit"
    return f"{form} ({site.span.line}:{site.span.col})"


def _names_in(e):
    """Name nodes of an expression."""
    return (n for n in A.walk(e) if isinstance(n, A.Name))


def _is_literal(e) -> bool:
    if isinstance(e, (A.Lit, A.Name)):
        return True
    if isinstance(e, A.ListLit):  # a list of numbers, for a `list of int` field
        return all(_is_literal(i) and not isinstance(i, A.Name) for i in e.items)
    return isinstance(e, A.Unary) and e.op == "-" and isinstance(e.operand, A.Lit)


def _callee(call) -> str:
    return call.func.id if isinstance(call.func, A.Name) else "action"
