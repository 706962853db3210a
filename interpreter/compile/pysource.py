"""The expression compiler: checked expressions and called definitions written as the text of Python
functions (`SourceCompiler`).

Every expression of a ruleset (a rule's, a parameter's, a card field's default, a scenario's
expectation) is written as the text of one function `f(rt, env)` and compiled with `compile()`:
operators are inline, small definitions are expanded in place as text, an aggregate's element (`it`,
or the name the rules give it) is a comprehension variable named here rather than an entry of
`env`, and a built-in is a call of its function in the library of built-ins (library.py), or the
same meaning written inline for the few that matter most to speed. A node nested too deep for
Python's parser is written as a function of its own (see `SourceCompiler.hoisted`). Each
function's text is registered in `linecache` under a name that says the rule it comes from, so a
traceback through it shows its lines.

Nothing from a ruleset reaches the generated text except as an escaped literal: names, text and
numbers are written with `repr` of a `str`/`int` (or stored in the constant table `K` and read as
`K[i]`), and every Python identifier in the text is one this module made.

A definition that is called rather than expanded is one function with its parameters as Python
locals. The back end (backend.py) writes each straight run of records of a body as one function
with this module's `text`, `k` and `function`. docs/architecture.md, "The source back end", says the
same for a reader of the docs.
"""
from __future__ import annotations

import hashlib
import linecache
import re
from itertools import accumulate

from rulesdsl import ast as A
from rulesdsl.builtins import BUILTINS
from rulesdsl.checker import ANY
from rulesdsl.limits import MAX_INLINED_NODES

from ..core.primitives import RuleError, bounded, charge
from .library import FUNCTIONS, RUN_METHODS, group_sizes

_COMPARE = {"==": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
_ARITH = {"+": "+", "-": "-"}
_WALK = "going through a collection"


# ---- helpers the generated functions call ---------------------------------------------------------
def _charged(rt, xs, span, what=_WALK):
    st = rt.st
    if st is None:  # before any game: `charge` checks the engine's own ceiling
        charge(rt, len(xs), span, what)
        return xs
    st.steps += len(xs)  # `charge`, inline (a call less); the run words the error
    if st.steps > rt.step_budget:
        raise rt.over_budget(len(xs), span, what)
    return xs


def _item(xs, i, span):
    if not 0 <= i < len(xs):
        raise RuleError(f"index {i} is outside the list (it has {len(xs)} elements, 0 to {len(xs) - 1})", span)
    return xs[i]


def _keyed(rt, name, key):
    return rt.st.counters[name].get(str(key), rt.st.keyed_init[name])


def _zone_of(keys, value, name, span):
    key = keys.get(value)
    if key is None:
        raise RuleError(f"zone `{name}` has no zone {value!r}: its keys are {', '.join(keys)}", span)
    return key


def _nonzero(y, span):
    if y == 0:
        raise RuleError("division by zero", span)
    return y


def _join(rt, a, b, span):
    out = a + b
    charge(rt, len(out), span, f"a list of {len(out)} elements")
    return out


def _range(rt, a, b, span):
    if b >= a:
        charge(rt, b - a + 1, span, f"the range {a}..{b}")
    return list(range(a, b + 1))


def _grid_cards(cells):
    return [c for _, c in sorted(cells.items())]


def _field_values(rt, xs, name):
    F, cd = rt.fields, rt.st.card_def
    return [F[cd[x]][name] for x in xs]


def _sum_field(rt, name, xs):
    F, cd = rt.fields, rt.st.card_def
    return sum([F[cd[x]][name] for x in xs])


def _select(rt, xs, v, name, op):
    """The elements of `xs` whose field `name` compares with `v` by `op` (the fast `where`)."""
    F, cd = rt.fields, rt.st.card_def
    if op == "==":
        return [x for x in xs if F[cd[x]][name] == v]
    if op == "!=":
        return [x for x in xs if F[cd[x]][name] != v]
    if op == "<":
        return [x for x in xs if F[cd[x]][name] < v]
    if op == "<=":
        return [x for x in xs if F[cd[x]][name] <= v]
    if op == ">":
        return [x for x in xs if F[cd[x]][name] > v]
    return [x for x in xs if F[cd[x]][name] >= v]


def _any_select(rt, xs, v, name, op):
    F, cd = rt.fields, rt.st.card_def
    for x in xs:
        f = F[cd[x]][name]
        if (f == v if op == "==" else f != v if op == "!=" else f < v if op == "<" else f <= v if op == "<="
                else f > v if op == ">" else f >= v):
            return True
    return False


_HELPERS = {name: value for name, value in globals().items() if name.startswith("_") and callable(value)
            and name not in ("_HELPERS",)}
_HELPERS.update({"bounded": bounded, "charge": charge})
_HELPERS["_group_sizes"] = group_sizes


_STRINGS = re.compile(r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"")  # the literals `repr` writes
_BRACKETS_ONLY = {c: None for c in range(128) if chr(c) not in "()[]{}"}


def _nesting(text: str) -> int:
    """How deeply brackets nest in a generated text (outside its string literals)."""
    rest = _STRINGS.sub("", text).translate(_BRACKETS_ONLY)
    # The text's brackets are balanced, so the deepest point of a running count is the nesting.
    return max(accumulate(1 if c in "([{" else -1 for c in rest), default=0)


def _may_nest_deeper(text: str, most: int) -> bool:
    """Whether `text` may nest brackets more than `most` deep: never when it opens no more than
    that many in all (string literals included, so the count only errs upwards); most texts are
    settled by this count alone, without the exact measure."""
    return text.count("(") + text.count("[") + text.count("{") > most and _nesting(text) > most


# Every generated function starts by reading the run's state, card table and cards' definitions into
# locals, which the text reads as `st`, `fl` and `cd` (a program's constant evaluation has no state).
_PROLOGUE = "    st = rt.st\n    fl = rt.fields\n    cd = st.card_def if st is not None else None\n"


class _NoGame:
    """What an expression evaluated before any game reads as its run: no state, no cards."""

    st = None
    fields = ()


_NO_GAME = _NoGame()


class SourceCompiler:
    """Checked expressions to Python functions `f(rt, env)`, each the text of one function (see the
    module's text); `expr(e)` gives the function, `text(e)` its text. Called definitions, which the
    runtime reads from `funcs`, are compiled here too; the instruction builder (`Compiler`) writes
    statements as records and asks this compiler for each expression they hold."""

    # A node whose text nests brackets deeper than this is written as a function of its own (see
    # `hoisted`): Python's parser takes 200 at most.
    DEEPEST = 100
    # Whether built-ins with a writer of their own are written inline (else every one is a call).
    INLINE = True

    def __init__(self, model, params: dict, player_keys: dict | None = None, zone_keys: dict | None = None):
        self.m = model
        self.types = model.types
        self.param_values = params
        self.player_keys = player_keys if player_keys is not None else {}  # zone or grid -> key per seat
        self.zone_keys = zone_keys if zone_keys is not None else {}  # zone per value -> key per value
        self.funcs: dict = {}           # a called definition's name -> its function `(rt, args)`
        self._inline_depth = 0
        self._inlined_nodes = 0         # what expansion has copied so far: capped, then calls stay calls
        self._chancy_defs: dict[str, bool] = {}  # per definition: whether its body may draw
        self._shapes: dict[str, tuple] = {}       # per definition: its size and its locals' uses
        self._src_inline: dict = {}  # a `def` parameter (its Param node) -> argument text, while expanding
        self._its: list = []         # (node binding an element, its comprehension variable), innermost last
        self._scope: list[str] = []  # every comprehension variable around the text being written
        self._py_locals: dict = {}   # a `def` parameter (its Param node) -> the Python local holding it
        self._env = "env"            # what a hoisted function is given as `env` (a definition has none)
        self._fresh = 0
        self._texts: dict = {}       # id of a whole expression -> (the node, its text), written once
        self._functions: dict = {}   # id of a whole expression -> (the node, its function)
        self._item_functions: dict = {}  # id of a collection expression -> (the node, its elements' function)
        self.consts: list = []       # the constants every generated function reads as `K[i]`
        self.space = dict(_HELPERS, K=self.consts, _F=self.funcs)  # their globals, shared
        self.space.update((f"_b_{name}", fn) for name, fn in FUNCTIONS.items())  # the built-ins' functions
        self.sources: list[str] = []  # the text of every function built, in order (for tests and `dump`)

    def t(self, e):
        return self.types.get(e, ANY)

    # ---- the entry points -----------------------------------------------------------------------
    def _enter(self, py_locals: dict, env: str):
        """Start the text of a new function; returns what `_leave` restores."""
        saved = self._inline_depth, self._src_inline, self._its, self._scope, self._py_locals, self._env
        self._inline_depth, self._src_inline, self._its, self._scope = 0, {}, [], []
        self._py_locals, self._env = py_locals, env
        return saved

    def _leave(self, saved):
        self._inline_depth, self._src_inline, self._its, self._scope, self._py_locals, self._env = saved

    def text(self, e) -> str:
        """The text of a whole expression, written once per node (its inner nodes are written as
        part of it)."""
        known = self._texts.get(id(e))
        if known is not None:
            return known[1]
        saved = self._enter({}, "env")
        try:
            text = self.src(e)
        finally:
            self._leave(saved)
        self._texts[id(e)] = (e, text)
        return text

    def expr(self, e):
        """The function `f(rt, env)` of a whole expression, built once per node."""
        known = self._functions.get(id(e))
        if known is not None:
            return known[1]
        fn = self.function(f"def _f(rt, env):\n{_PROLOGUE}    return {self.text(e)}\n", e.span, "_f")
        self._functions[id(e)] = (e, fn)
        return fn

    def block(self, scores: list, value, span):
        """The function `f(rt, env)` of named expressions evaluated in order into `env` (each may
        read the ones before it by name), returning the value of a last one: a block of scores as
        one function, which reads the run's state into locals once rather than once per score."""
        lines = "".join(f"    env[{self.k(name)}] = {self.text(e)}\n" for name, e in scores)
        return self.function(f"def _s(rt, env):\n{_PROLOGUE}{lines}    return {self.text(value)}\n", span, "_s")

    @staticmethod
    def _takes_list(prm) -> bool:
        """Whether a parameter declares a list type (`cs: list of Card`)."""
        return prm.type is not None and prm.type.name is None

    def arg_text(self, prm, node) -> str:
        """The text of an argument given for `prm`: a zone or a grid given for a parameter declared a
        list is passed as a copy of its cards, which is what the body, typed by the declaration, reads."""
        if self._takes_list(prm) and self.t(node)[0] in ("zone", "grid"):
            return f"list({self.items(node)})"
        return self.src(node)

    def arg_function(self, prm, node):
        """The function `f(rt, env)` of an argument given for `prm` (see `arg_text`)."""
        if self._takes_list(prm) and self.t(node)[0] in ("zone", "grid"):
            items = self.items_function(node)
            return lambda rt, env: list(items(rt, env))
        return self.expr(node)

    def items_function(self, node):
        """The function `f(rt, env)` giving the elements of a collection expression (a zone's list,
        a grid's cards in cell order, a list), built once per node."""
        known = self._item_functions.get(id(node))
        if known is not None:
            return known[1]
        fn = self.function(f"def _f(rt, env):\n{_PROLOGUE}    return {self.top_items(node)}\n", node.span, "_f")
        self._item_functions[id(node)] = (node, fn)
        return fn

    def constant(self, e):
        """The value of an expression evaluated before any game (a parameter, a cell's data)."""
        return self.expr(e)(_NO_GAME, {})

    def compile_func(self, fn):
        """A definition called (not expanded in place) as one function whose parameters are Python
        locals; a parameter not given takes its default, which may read the parameters before it."""
        if self.funcs.get(fn.name) is not None:
            return
        self.funcs[fn.name] = fn  # being written: a call inside it reads `_F` when it runs
        names = {p: f"_a{i}" for i, p in enumerate(fn.params)}
        saved = self._enter(names, "None")
        try:
            if any(p.default is not None for p in fn.params):
                unpack = "".join(f"    {names[p]} = args[{i}]\n" if p.default is None else
                                 f"    {names[p]} = args[{i}] if len(args) > {i} else {self.src(p.default)}\n"
                                 for i, p in enumerate(fn.params))
            else:
                unpack = f"    ({''.join(n + ', ' for n in names.values())}) = args\n" if names else ""
            body = self.src(fn.body)
            what = self.k(f"calls of `{fn.name}`")
            # A call is one step, charged inline; `charge` words the error.
            self.funcs[fn.name] = self.function(
                f"def _d(rt, args):\n{_PROLOGUE}    if st is not None:\n"
                f"        st.steps += 1\n        if st.steps > rt.step_budget:\n"
                f"            charge(rt, 0, {self.k(fn.span)}, {what})\n"
                f"{unpack}    return {body}\n", fn.span, "_d")
        finally:
            self._leave(saved)

    def function(self, body: str, span, name: str):
        """Compile the text of one function and return it. Its file name says the rule it comes from
        (so that a profile tells the functions apart) and its text is registered in `linecache`
        under that name, so that a traceback through it shows its lines."""
        where = f"{span.path or self.m.program.path}:{span.line}:{span.col}" if span else "rules"
        # The same text gets the same name: compiling a program again adds nothing to the cache.
        filename = f"<rules {where} {hashlib.blake2s(body.encode('utf-8'), digest_size=6).hexdigest()}>"
        code = compile(body, filename, "exec")
        linecache.cache[filename] = (len(body), None, body.splitlines(True), filename)
        self.sources.append(body)
        exec(code, self.space)  # noqa: S102 - the text is built by this module alone (see its docstring)
        return self.space.pop(name)

    # ---- text pieces ----------------------------------------------------------------------------
    def k(self, value) -> str:
        """A constant: a str, int, bool or None as its escaped literal, anything else from `K`."""
        if value is None or type(value) in (bool, int, str):
            return repr(value)
        self.consts.append(value)
        return f"K[{len(self.consts) - 1}]"

    def fresh(self, stem: str) -> str:
        self._fresh += 1
        return f"_{stem}{self._fresh}"

    def src(self, e) -> str:
        """The text of `e`, parenthesised where it is compound."""
        text = getattr(self, "s_" + type(e).__name__)(e)
        # Only a long text can nest deep: most are never measured.
        if len(text) > 2 * self.DEEPEST and _may_nest_deeper(text, self.DEEPEST):
            return self.hoisted(e, text)
        return text

    def hoisted(self, e, text: str) -> str:
        """`e`, whose text is `text`, written as a function of its own and called where it stands, so
        that no text nests deeper than Python's parser takes, however deep the rule (or the
        definitions expanded in it). A call, not a value computed beforehand: `e` is evaluated
        exactly when, and as often as, it would be inline (after what precedes it, only on the
        branch that reaches it). It is given every variable its text may read: the definition's
        parameters and the comprehension variables around it."""
        name = self.fresh("h")
        free = "".join(", " + v for v in list(self._py_locals.values()) + self._scope)
        self.space[name] = self.function(f"def {name}(rt, env{free}):\n{_PROLOGUE}    return {text}\n",
                                         e.span, name)
        return f"{name}(rt, {self._env}{free})"

    # ---- nodes ----------------------------------------------------------------------------------
    def s_Lit(self, e):
        v = e.value
        if v is None or type(v) in (bool, int, str):
            return repr(v)
        return self.k(v)

    def s_Name(self, e):
        b = self.m.bindings[e]
        kind, n = b.kind, b.name
        if kind == "local":
            site = b.decl.site
            if site in self._py_locals:
                return self._py_locals[site]
            if site in self._src_inline:
                return self._src_inline[site]
            for bound, var in reversed(self._its):
                if bound is site:
                    return var
            return f"env[{self.k(n)}]"  # an `actions` limit's element, which the run sets in `env`
        if kind == "param":
            return self.k(self.param_values[n])
        if kind == "counter" and not b.decl.keyed:
            return f"st.counters[{self.k(n)}]"
        if kind == "players":
            return "list(range(st.player_count))"
        if kind == "player_count":
            return "st.player_count"
        return self.k(n)

    def s_ListLit(self, e):
        return "[" + ", ".join(self.src(i) for i in e.items) + "]"

    def s_Attr(self, e):
        obj = self.src(e.obj)
        reads = self.m.decided.reads.get(e)
        n = e.name
        if reads is None:  # the checker let it through untyped (its object's type is not known)
            raise RuleError(f"cannot read `{n}` here", e.span)
        what, owner = reads.what, reads.owner
        if what == "player_place":
            return f"{self.k(self.player_keys[n])}[{obj}]"
        if what == "player_counter":
            return f"st.counters[{self.k(n)}][{obj}]"
        if what == "card_counter":
            return f"st.counters[{self.k(n)}].get(str({obj}), st.keyed_init[{self.k(n)}])"
        if what == "card_name":
            return f"rt.names[cd[{obj}]]"
        if what == "card_field":
            return f"fl[cd[{obj}]][{self.k(n)}]"
        if what == "def_name":
            return f"rt.names[{obj}]"
        if what == "def_field":
            return f"fl[{obj}][{self.k(n)}]"
        if what == "cell_x":
            return f"({obj} % rt.grid_meta[{self.k(owner)}].width + 1)"
        if what == "cell_y":
            return f"({obj} // rt.grid_meta[{self.k(owner)}].width + 1)"
        if what == "cell_data":
            return f"rt.grid_meta[{self.k(owner)}].cell_data[{obj}][{self.k(n)}]"
        if what == "line_data":
            return f"rt.grid_meta[{self.k(owner)}].line_data[{obj}][{self.k(n)}]"
        if what == "space_index":
            return obj
        return f"rt.track_meta[{self.k(owner)}].space_data[{obj}][{self.k(n)}]"

    def s_Index(self, e):
        if self.t(e.obj)[0] == "zones":
            n = e.obj.id
            return f"_zone_of({self.k(self.zone_keys[n])}, {self.src(e.index)}, {self.k(n)}, {self.k(e.span)})"
        if self.t(e.obj)[0] == "keyed":
            base = e.obj
            if isinstance(base, A.Name) and self.m.bindings[base].kind == "counter":
                name = self.k(base.id)
                return f"st.counters[{name}].get(str({self.src(e.index)}), st.keyed_init[{name}])"
            if isinstance(base, A.Name):
                return f"_keyed(rt, {self.src(base)}, {self.src(e.index)})"
            name = self.k(base.name)
            who = self.src(base.obj)
            return f"st.counters[{name}][{who}].get(str({self.src(e.index)}), st.keyed_init[{name}])"
        return f"_item({self.src(e.obj)}, {self.src(e.index)}, {self.k(e.span)})"

    def s_Unary(self, e):
        a = self.src(e.operand)
        return f"(-{a})" if e.op == "-" else f"(not {a})"

    def s_Binary(self, e):
        op = e.op
        if op in ("and", "or"):
            return f"({self.src(e.left)} {op} {self.src(e.right)})"
        if op == "in":
            a = self.src(e.left)
            return f"({a} in {self.items(e.right)})"
        if op == "+" and self.t(e)[0] == "list":
            return f"_join(rt, {self.items(e.left)}, {self.items(e.right)}, {self.k(e.span)})"
        if op in ("/", "%"):
            # The divisor is evaluated (and tested) before the dividend, as it always was.
            py = "//" if op == "/" else "%"
            d = self.fresh("d")
            return (f"(lambda {d}: {self.src(e.left)} {py} {d})"
                    f"(_nonzero({self.src(e.right)}, {self.k(e.span)}))")
        if op == "*":
            return f"bounded({self.src(e.left)} * {self.src(e.right)}, {self.k(e.span)})"
        return f"({self.src(e.left)} {_COMPARE.get(op) or _ARITH[op]} {self.src(e.right)})"

    def s_Range(self, e):
        return f"_range(rt, {self.src(e.lo)}, {self.src(e.hi)}, {self.k(e.span)})"

    def s_Cond(self, e):
        t = self.src(e.test)
        return f"({self.src(e.then)} if {t} else {self.src(e.other)})"

    def s_Filter(self, e):
        fast = self.fast_filter(e)
        if fast is not None:
            xs, v, name, op = fast
            return f"_select(rt, {xs}, {v}, {name}, {op})"
        xs = self.items(e.coll)
        var, cond = self.with_element(e, e.cond)
        return f"[{var} for {var} in _charged(rt, {xs}, {self.k(e.span)}) if {cond}]"

    def s_Call(self, e):
        b = self.m.bindings[e]
        kind, name = b.kind, b.name
        # An argument may read `it`: the body's own aggregates bind variables of their own.
        if kind == "def" and self.inlinable(b.decl, e.args):
            fn = b.decl
            mapping = {prm: f"({self.arg_text(prm, arg)})" for prm, arg in zip(fn.params, e.args)}
            self._inlined_nodes += self._body_shape(fn)[0]
            saved, saved_its = self._src_inline, self._its
            self._src_inline, self._its = mapping, []
            self._inline_depth += 1
            try:
                return self.src(fn.body)
            finally:
                self._src_inline, self._its = saved, saved_its
                self._inline_depth -= 1
        if kind == "def":
            if self.funcs.get(name) is None:
                self.compile_func(b.decl)
            args = "".join(self.arg_text(prm, a) + ", " for prm, a in zip(b.decl.params, e.args))
            return f"_F[{self.k(name)}](rt, ({args}))"
        writer = getattr(self, "t_" + name, None) if self.INLINE else None
        text = writer(e) if writer is not None else None
        return text if text is not None else self.library_call(e, name)

    # ---- what the checker's types say, and what may draw ----------------------------------------
    def elem_type(self, node):
        """The type of the elements of a collection, as the checker found it."""
        return self.m.decided.elems[node]

    def is_element(self, node, form) -> bool:
        """Whether `node` is a name reading the element that `form` binds (`it`, or its name)."""
        if not isinstance(node, A.Name):
            return False
        b = self.m.bindings.get(node)
        return b is not None and b.kind == "local" and b.decl.site is A.element_site(form)[0]

    def reads_name_of_element(self, node, form) -> bool:
        """Whether `node` is `it.name` of a card, `it` the element `form` binds."""
        reads = self.m.decided.reads.get(node)
        return reads is not None and reads.what == "card_name" and self.is_element(node.obj, form)

    def _mentions(self, e, form):
        """Whether `e` reads the element that `form` binds."""
        return any(self.is_element(n, form) for n in A.walk(e))

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

    def inlinable(self, fn, args) -> bool:
        """Small definitions are compiled into their callers; a parameter whose argument is not a
        plain name or literal must appear at most once, so nothing is evaluated twice. (An argument
        may read `it`: the body's own aggregates bind variables of their own.)"""
        if self._inline_depth >= 6 or len(args) != len(fn.params):
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

    # ---- collections and `it` -------------------------------------------------------------------
    def items(self, node) -> str:
        t = self.t(node)
        f = self.src(node)
        if t[0] == "zone":
            return f"st.zones[{f}]"
        if t[0] == "grid":
            return f"_grid_cards(st.grids[{f}])"
        return f

    def items_any_order(self, node) -> str:
        """The elements of a collection where their order cannot matter (a count, a sum of ints,
        a test that any passes): a grid's cards without sorting them by cell."""
        if self.t(node)[0] == "grid":
            return f"st.grids[{self.src(node)}].values()"
        return self.items(node)

    def top_items(self, node) -> str:
        """The elements of a whole collection expression (a loop's), from its text written once."""
        t = self.t(node)
        f = self.text(node)
        if t[0] == "zone":
            return f"st.zones[{f}]"
        if t[0] == "grid":
            return f"_grid_cards(st.grids[{f}])"
        return f

    def with_element(self, form, body) -> tuple[str, str]:
        """(variable, text of `body` with the element `form` binds read from that variable). The
        variable's name is made here, whatever the rules call the element."""
        var = self.fresh("it")
        self._its.append((A.element_site(form)[0], var))
        self._scope.append(var)
        try:
            return var, self.src(body)
        finally:
            self._its.pop()
            self._scope.pop()

    def reads_field_of_element(self, node, elem_t, form) -> bool:
        """Whether `node` reads a field of the element `form` binds (a card) by a name that does not
        depend on the element (the fast paths of filters and sums)."""
        if elem_t[0] != "card":
            return False
        if isinstance(node, A.Attr) and self.is_element(node.obj, form):
            reads = self.m.decided.reads.get(node)
            return reads is not None and reads.what == "card_field"
        return (isinstance(node, A.Call) and self.builtin(node) == "field"
                and self.is_element(node.args[0], form) and not self._mentions(node.args[1], form))

    def field_of_element(self, node, elem_t, form):
        """The text of the field name `node` reads from the element `form` binds, if
        `reads_field_of_element`; else None."""
        if not self.reads_field_of_element(node, elem_t, form):
            return None
        return self.k(node.name) if isinstance(node, A.Attr) else self.src(node.args[1])

    def fast_filter(self, e, any_order=False):
        """(items, value, field name, operator) texts for `coll where it.field OP value`, or None.
        The function evaluates them in that order. `any_order`: the caller
        only counts or tests the elements, so a grid's need not be sorted."""
        cond = e.cond
        if not (isinstance(cond, A.Binary) and cond.op in _COMPARE):
            return None
        elem_t = self.elem_type(e.coll)
        if (not self.reads_field_of_element(cond.left, elem_t, e) or self._mentions(cond.right, e)
                or self.chancy(cond.right)):
            return None
        xs = self.items_any_order(e.coll) if any_order else self.items(e.coll)
        name = self.field_of_element(cond.left, elem_t, e)
        return xs, self.src(cond.right), name, repr(cond.op)

    def values(self, e):
        """(items text, function from an items text to the text of the list of values) for the
        aggregates that bind an element (`e` is the call)."""
        coll_node, body_node = e.args
        xs = self.items(coll_node)
        elem_t = self.elem_type(coll_node)
        if self.reads_name_of_element(body_node, e):
            c = self.fresh("c")
            return xs, lambda items: f"[rt.names[cd[{c}]] for {c} in {items}]"
        name = self.field_of_element(body_node, elem_t, e)
        if name is not None:
            return xs, lambda items: f"_field_values(rt, {items}, {name})"
        var, body = self.with_element(e, body_node)
        return xs, lambda items: f"[{body} for {var} in _charged(rt, {items}, None)]"

    # ---- built-ins ------------------------------------------------------------------------------
    # A built-in is a call of its function in the library (interpreter/compile/library.py), its arguments
    # given as the table of built-ins shapes them (`library_call`). The few that matter most to
    # speed have a writer of their own here (`t_NAME`), which writes the same meaning inline: a
    # count or a test of a `where` without building the list, a sum of a field, an aggregate's
    # values as one comprehension. A writer may decline (return None): the call is written.
    def library_call(self, e, name: str) -> str:
        """The call of built-in `name`'s library function, its arguments shaped by its table row."""
        row = BUILTINS[name]
        args = [self.k(e.span)]
        if e in self.m.decided.numbers:  # `min(a, b)`: the two numbers are the collection
            return f"_b_{name}(rt, {args[0]}, [{self.src(e.args[0])}, {self.src(e.args[1])}])"
        for i, a in enumerate(e.args):
            shape = row.shape(i)
            if shape == "items":
                args.append(self.items(a))
            elif shape == "each":
                xs = self.fresh("xs")
                var, body = self.with_element(e, a)
                args.append(f"lambda {xs}: [{body} for {var} in _charged(rt, {xs}, None)]")
            elif shape == "grid":
                args += [self.k(self.t(a)[1]), self.src(a)]
            elif shape == "card_or_def":
                args += [self.src(a), repr(self.t(a)[0] == "def")]
            elif shape == "cards_or_defs":
                args += [self.items(a), repr(self.elem_type(a)[0] == "def")]
            elif shape == "card_or_cards":
                args.append(self.src(a) if self.t(a)[0] in ("card", "none") else self.items(a))
            else:  # a value, or a declaration's name (which is its value)
                args.append(self.src(a))
        method = RUN_METHODS.get(name)
        if method is not None:  # the function calls this method of the run: so does the text
            return f"rt.{method}({', '.join(args[1:])})"
        return f"_b_{name}(rt, {', '.join(args)})"

    def tested(self, arg, fast: str, slow: str, plain: str) -> str:
        """`count` or `any` of a collection: `fast` for a fast `where` (its texts as xs, v, name,
        op), `slow` for another `where` (xs, var, cond, span), `plain` for no `where` (items)."""
        if isinstance(arg, A.Filter) and not self.chancy(arg.cond):
            parts = self.fast_filter(arg, any_order=True)
            if parts is not None:
                return fast.format(*parts)
            xs = self.items(arg.coll)
            var, cond = self.with_element(arg, arg.cond)
            return slow.format(xs, var, cond, self.k(arg.span))
        return plain.format(self.items_any_order(arg))

    def t_count(self, e):
        return self.tested(e.args[0], "len(_select(rt, {0}, {1}, {2}, {3}))",
                           "sum([1 for {1} in _charged(rt, {0}, {3}) if {2}])", "len({0})")

    def t_any(self, e):
        return self.tested(e.args[0], "_any_select(rt, {0}, {1}, {2}, {3})",
                           "any(True for {1} in _charged(rt, {0}, {3}) if {2})", "(len({0}) > 0)")

    def t_sum(self, e):
        coll, body = e.args
        elem_t = self.elem_type(coll)
        name = None
        if not self.reads_name_of_element(body, e):
            name = self.field_of_element(body, elem_t, e)
        if name is not None:
            # The field's name is read before the items.
            return f"_sum_field(rt, {name}, {self.items_any_order(coll)})"
        xs, values = self.values(e)
        return f"sum({values(xs)})"

    def extreme_text(self, e, pick):
        """`min` or `max`: of two numbers inline, else the library's over the values' list."""
        if e in self.m.decided.numbers:
            return f"{pick}({self.src(e.args[0])}, {self.src(e.args[1])})"
        xs, values = self.values(e)
        return f"_b_{pick}(rt, {self.k(e.span)}, {values(xs)})"

    def t_min(self, e):
        return self.extreme_text(e, "min")

    def t_max(self, e):
        return self.extreme_text(e, "max")

    def t_all(self, e):
        xs, values = self.values(e)
        return f"all({values(xs)})"

    def t_count_distinct(self, e):
        xs, values = self.values(e)
        return f"len(set({values(xs)}))"

    def t_set_sizes(self, e):
        xs, values = self.values(e)
        return f"_group_sizes({values(xs)})"

    def t_abs(self, e):
        return f"abs({self.src(e.args[0])})"

    def t_seat(self, e):
        return f"({self.src(e.args[0])} + 1)"

    def t_next_player(self, e):
        return f"(({self.src(e.args[0])} + 1) % st.player_count)"

    def t_holder(self, e):
        return f"st.markers.get({self.k(e.args[0].id)})"

    def t_defs(self, e):
        return f"list(rt.defs_by_kind[{self.k(e.args[0].id)}])"

    def t_card_at(self, e):
        return f"st.grids[{self.src(e.args[0])}].get({self.src(e.args[1])})"

    def t_filled_cells(self, e):
        return f"sorted(st.grids[{self.src(e.args[0])}])"

    def t_neighbors(self, e):
        return f"list(rt.grid_meta[{self.k(self.t(e.args[0])[1])}].adjacent[{self.src(e.args[1])}])"

    def t_slice(self, e):
        return (f"list({self.items(e.args[0])}[max(0, {self.src(e.args[1])}):"
                f"max(0, {self.src(e.args[2])})])")


def _times(rt, n, span):
    if n > rt.step_budget:
        raise RuleError(f"repeat {n} times is more than the step budget ({rt.step_budget})", span)
    return range(max(0, n))


_HELPERS["_times"] = _times
