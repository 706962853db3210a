"""Name resolution: what every identifier of a program stands for, decided in one place.

One pass over the effective program records, for every `Name` node and every call, a `Binding`:
a local variable (and which one), a declaration, an enum value, a constant, a built-in function, or
nothing known. The checker types names and the compiler compiles them by reading that record
(`Model.bindings`), so the two cannot disagree about which declaration or variable a name means.

The scoping rules, in the order a name is looked up:

1. **Locals.** Parameters of an action, routine or `def`; the variable of a phase (`each p`,
   `turns p`), of a trigger, of the victory block and its scores; `let`, `draw`, `for`, `choose x
   in`, `pick`, `advance ... jumping x` / `passing x`; and the element inside a `where`
   condition, the second argument of an aggregate (`sum`, `all`, `min_by`, ...) and the limit of
   `actions`: `it`, or the name the form gives it (`xs where c: ...`, `sum(xs, c: ...)`), which
   then leaves `it` to mean what it meant around the form. The innermost binding wins. A block
   (`if`, a loop, an option) opens a scope; `step` does not. A `let` of a name already bound in
   an enclosing scope of the same body assigns that variable; any other `let` (and every `draw`)
   binds a new one in the current scope. The value of a `let` is resolved before its name is
   bound, so `let gold = gold + 1` reads what `gold` meant before.
   A `def` body sees only its own parameters; a parameter's default sees the parameters before it
   (for a `def`) or none (for an action or routine). A phase's `from` expression is evaluated
   before anyone plays the phase, so it does not see the phase's variable.
2. **Declarations** other than actions, routines and definitions: parameters, card kinds, zones,
   counters, grids, tracks, markers, pieces (one namespace, the first declaration of a name wins).
3. **Constants**: `players`, `player_count`.
4. **Enum values** of any field (and slot and face names, written bare like them).
5. **Actions and routines** (their name as a value), then **definitions** (an error unless
   called).

An enum value spelt like a declaration of 2, 3 or 5 is the one name a bare use cannot tell apart:
that use is bound `ambiguous` (the checker refuses it there) rather than silently given to one of
them. A definition never clashes, since it is only ever called, and neither does a use in a place
that names one category (below).

Some places name a declaration of one category, whatever else the name might mean: the callee of
a `do` or `perform` (an action or routine, never a local), the first argument of `defs` (a kind),
`holder` (a marker), `space`, `position`, `free_spaces` and `space_at` (a track), the default of
an `action` field and the value given to one in a data block (an action), and the default of an
`enum` or `set` field and the value given to one in a data block (a value of that enum). A called
name is looked up among locals (an error), then definitions, actions (an error: they are performed
with `do`) and built-in functions.

`min` and `max` have two forms: of two numbers, or of an expression over a collection (binding
`it` in the second argument). Which one a call is depends on the type of its first argument,
which only the checker knows: the resolver records the collection form and keeps the scope of
each such call, and the checker calls `Resolver.numbers_form` when the first argument turns out to
be a number, which resolves the second argument again without `it`.

The resolver only records; the checker reports. A named element that would hide another meaning of
its name (a local, a declaration, a constant, an enum value, a built-in) is recorded in `hidden`,
and an `it` that hides the `it` of an enclosing form in `hides_it`.
"""
from __future__ import annotations

from typing import Any

import attrs

from . import ast as A
from .builtins import BUILTINS, DECLARATION_ARGS, LAMBDA_BUILTINS

CONSTANT_NAMES = ("players", "player_count")

_CATEGORY = {A.ParamDecl: "param", A.KindDecl: "kind", A.ZoneDecl: "zone", A.CounterDecl: "counter",
             A.MarkerDecl: "marker", A.TrackDecl: "track", A.PieceDecl: "piece", A.GridDecl: "grid",
             A.FuncDecl: "def", A.ActionDecl: "action"}
_CALLED_ONLY = ("action", "routine", "def")  # declarations found after constants and enum values
_SHORT_NAMES = "abcdefghijkmnpqrstuvwxyz"  # the names a hint may offer an element (not `l`, read as 1)


@attrs.frozen(eq=False)
class Var:
    """One local variable: its name, how it is introduced and the node that introduces it.

    `how` is one of parameter, phase, trigger, victory, evaluate, score, let, draw, for, choose, pick, jump,
    pass, it. Variables compare by identity: two `let`s of one name in different bodies are two
    variables; a `let` that assigns an enclosing variable has no variable of its own.
    """

    name: str
    how: str
    site: Any = attrs.field(repr=False)


@attrs.frozen
class Binding:
    """What one identifier stands for.

    `kind` is `local` (then `decl` is the `Var`), a declaration category (`param`, `kind`, `zone`,
    `counter`, `grid`, `track`, `marker`, `piece`, `action`, `routine`, `def`; `decl` is the
    declaration node), `players` or `player_count`, `enum` (an enum value), `builtin` (a built-in
    function), `dynamic` (the callee of a `do` computed by an expression), `ambiguous` (an enum
    value and a declaration or constant spelt alike, used bare: `decl` is the binding of the
    other), or `unknown` (then `decl` is the tuple of local names in scope there, for a "did you
    mean").
    """

    kind: str
    name: str
    decl: Any = attrs.field(default=None, eq=False, repr=False)


class _Scope:
    """Local variables bound at one level of nesting, and the enclosing level."""

    __slots__ = ("vars", "parent")

    def __init__(self, parent=None):
        self.vars: dict[str, Var] = {}
        self.parent = parent

    def find(self, name):
        s = self
        while s is not None:
            v = s.vars.get(name)
            if v is not None:
                return v
            s = s.parent
        return None

    def names(self):
        out, s = set(), self
        while s is not None:
            out |= set(s.vars)
            s = s.parent
        return out


class Resolver:
    """Resolves a program's names once; `bindings` maps each Name and Call node to its `Binding`."""

    def __init__(self, program: A.Program):
        self.bindings: dict = {}
        self.vars: dict = {}     # (site node, name) -> the Var that site binds or assigns
        self._outer: dict = {}   # min/max call -> the scope around it
        self._locals: dict = {}  # Var -> its Binding, made once
        # a named element (Element node) -> (the Binding its name hides there, a one-letter name
        # that hides nothing there, or None)
        self.hidden: dict = {}
        self.hides_it: dict = {}  # the Var of an `it` -> the Var of the enclosing form's `it` it hides
        self.named: dict = {}    # a named element (Element node) -> the expression it is bound in
        self.decls: dict[str, Binding] = {}
        for item in program.items:
            category = _CATEGORY.get(type(item))
            if category is None:
                continue
            if category == "action" and item.routine:
                category = "routine"
            self.decls.setdefault(item.name, Binding(category, item.name, item))
        # enum value -> where it is declared, as a message names it ("the value `x` of enum E")
        self.enum_origins: dict[str, str] = {}
        for item in program.items:  # a named enum's values, before its fields are given them
            if isinstance(item, A.EnumDecl):
                for v in item.values:
                    self.enum_origins.setdefault(v, f"the value `{v}` of enum {item.name}")
        for b in self.decls.values():
            for fields in _field_lists(b.decl):
                for f in fields:
                    if f.type.name in ("enum", "set"):
                        for v in f.type.values:
                            self.enum_origins.setdefault(
                                v, f"the value `{v}` of {b.kind} {b.name}'s field {f.name}")
            if isinstance(b.decl, A.KindDecl):  # slot and face names are written bare, as enum values
                for x in b.decl.slots:
                    self.enum_origins.setdefault(x.name, f"the slot `{x.name}` of kind {b.name}")
                for x in b.decl.faces:
                    self.enum_origins.setdefault(x.name, f"the face `{x.name}` of kind {b.name}")
        self.enum_values: set[str] = set(self.enum_origins)
        self._constants = {n: Binding(n, n) for n in CONSTANT_NAMES}
        self._enums = {n: Binding("enum", n) for n in sorted(self.enum_values)}

    # ---- public -------------------------------------------------------------------------------
    def program(self, program: A.Program):
        """Resolve every declaration and body of `program`."""
        for item in program.items:
            handler = getattr(self, "d_" + type(item).__name__, None)
            if handler is not None:
                handler(item)
        return self

    def expression(self, e):
        """Resolve a stand-alone expression (a scenario expectation): only globals are in scope."""
        self.expr(e, _Scope())
        return self

    def var(self, site, name: str) -> Var:
        """The variable that `site` (a binding statement, a parameter, a filter...) binds as `name`."""
        return self.vars[(site, name)]

    def numbers_form(self, call, numbers: bool):
        """Resolve the second argument of `min`/`max` for the form the checker found: without `it`
        (two numbers) or with it (over a collection)."""
        scope = self._outer.get(call)
        if scope is None:
            return
        if not numbers:
            self.element(call, call.args[1], scope)
        elif call.elem is None:  # a name given to no element stays bound: the checker refuses it
            self.expr(call.args[1], scope)

    def element(self, form, body, scope):
        """Resolve `body` with the element of `form` bound: as `it`, or as the name the form gives
        it (recording what that name would mean there otherwise)."""
        site, name = A.element_site(form)
        outer = scope.find("it") if site is form else None
        if site is not form:
            self.named[site] = body
            hidden = self.meaning(name, scope)
            if hidden is not None:
                free = next((c for c in _SHORT_NAMES if self.meaning(c, scope) is None), None)
                self.hidden[site] = (hidden, free)
        inner = self._bind(_Scope(scope), site, name, "it")
        v = inner.vars[name]
        if site is not form:
            self.bindings[site] = self.local(v)
        elif outer is not None and outer.how == "it" and not isinstance(outer.site, A.Element):
            self.hides_it[v] = outer  # (not a parameter called `it`, nor an element named `it:`)
        self.expr(body, inner)

    # ---- lookups ------------------------------------------------------------------------------
    def _bind(self, scope, site, name, how):
        """A new variable `name` in `scope` (the same one if `site` was resolved before)."""
        v = self.vars.get((site, name))
        if v is None or v.how != how:
            v = Var(name, how, site)
            self.vars[(site, name)] = v
        scope.vars[name] = v
        return scope

    def local(self, v: Var) -> Binding:
        b = self._locals.get(v)
        if b is None:
            b = self._locals[v] = Binding("local", v.name, v)
        return b

    def global_name(self, n: str) -> Binding | None:
        """What `n` means where no local of that name is visible, or None."""
        b = self.decls.get(n)
        named = b if b is not None and b.kind not in _CALLED_ONLY else self._constants.get(n)
        if n in self._enums:
            # A definition is only ever called, so it never competes with a bare enum value.
            other = named or (b if b is not None and b.kind != "def" else None)
            return Binding("ambiguous", n, other) if other is not None else self._enums[n]
        return named or b

    def meaning(self, n: str, scope) -> Binding | None:
        """What `n` means in `scope` as a bare name or as a callee (a local, a declaration, a
        constant, an enum value, a built-in), or None."""
        v = scope.find(n)
        if v is not None:
            return self.local(v)
        return self.global_name(n) or (Binding("builtin", n) if n in BUILTINS else None)

    def unknown(self, n: str, scope) -> Binding:
        return Binding("unknown", n, tuple(sorted(scope.names())) if scope is not None else ())

    def of_category(self, n: str, categories) -> Binding | None:
        b = self.decls.get(n)
        return b if b is not None and b.kind in categories else None

    # ---- declarations -------------------------------------------------------------------------
    def d_ParamDecl(self, d):
        self.expr(d.value, _Scope())
        if d.allowed is not None:
            self.expr(d.allowed, _Scope())

    def fields(self, fields):
        for f in fields:
            if f.default is None:
                continue
            if isinstance(f.default, A.Name) and f.type.name == "enum":
                n = f.default.id
                self.bindings[f.default] = (Binding("enum", n) if n in f.type.values
                                            else self.unknown(n, None))
            elif f.type.name == "action":
                self.action_value(f.default)
            else:
                self.field_value(f, f.default)

    def field_value(self, f, e):
        """Data given to field `f`: a name among its enum's values (alone, or listed for a `set`)
        is that value, whatever else is spelt the same."""
        values = f.type.values if f.type.name in ("enum", "set") else ()
        for item in e.items if f.type.name == "set" and isinstance(e, A.ListLit) else (e,):
            if isinstance(item, A.Name) and item.id in values:
                self.bindings[item] = self._enums[item.id]
            else:
                self.expr(item, _Scope())

    def action_value(self, e):
        """Data naming an action: a Name is looked up among actions and routines only."""
        if isinstance(e, A.Name):
            self.bindings[e] = self.of_category(e.id, ("action", "routine")) or self.unknown(e.id, None)
        else:
            self.expr(e, _Scope())

    def assigns(self, assigns, fields):
        by_name = {f.name: f for f in fields}
        for a in assigns:
            f = by_name.get(a.name)
            if f is not None and f.type.name == "action":
                self.action_value(a.value)
            elif f is not None:
                self.field_value(f, a.value)
            else:
                self.expr(a.value, _Scope())

    def d_KindDecl(self, d):
        self.fields(d.fields)

    def d_ZoneDecl(self, d):
        if d.limit is not None:
            self.expr(d.limit, _Scope())

    def d_CounterDecl(self, d):
        for e in (d.init, d.low, d.high):
            if e is not None:
                self.expr(e, _Scope())

    def d_TrackDecl(self, d):
        self.fields(d.fields)
        for _, assigns in d.spaces:
            self.assigns(assigns, d.fields)

    def d_GridDecl(self, d):
        self.fields(d.cell_fields)
        self.fields(d.line_fields)
        for _, assigns in d.cells:
            self.assigns(assigns, d.cell_fields)
        for _, assigns in d.columns + d.rows:
            self.assigns(assigns, d.line_fields)

    def d_FuncDecl(self, d):
        scope = _Scope()  # a definition sees its parameters, never the caller's names
        for prm in d.params:
            if prm.default is not None:
                self.expr(prm.default, scope)
            self._bind(scope, prm, prm.name, "parameter")
        self.expr(d.body, scope)

    def d_ActionDecl(self, d):
        scope = _Scope()
        for prm in d.params:
            if prm.default is not None:
                self.expr(prm.default, _Scope())
            self._bind(scope, prm, prm.name, "parameter")
        if d.requires is not None:
            self.expr(d.requires, scope)
        self.block(d.body, scope)

    def d_SetupDecl(self, d):
        self.block(d.body, _Scope())

    def d_HandDecl(self, d):
        self.block(d.start, _Scope())
        if d.cond is not None:
            self.expr(d.cond, _Scope())
        self.block(d.finish, _Scope())

    def d_RoundDecl(self, d):
        for ph in d.phases:
            if ph.start is not None:
                self.expr(ph.start, _Scope())
            scope = _Scope()
            if ph.var:
                self._bind(scope, ph, ph.var, "phase")
            self.block(ph.body, scope)

    def d_TriggerDecl(self, d):
        scope = _Scope()
        for n in d.names:
            self._bind(scope, d, n, "trigger")
        if d.cond is not None:
            self.expr(d.cond, scope)
        self.block(d.body, scope)

    def _scores(self, d, what: str):
        """The scope of a victory or evaluate block: its player, then each `score` in order."""
        scope = self._bind(_Scope(), d, d.var, what)
        for s in d.scores:
            self.expr(s.value, scope)
            self._bind(scope, s, s.name, "score")
        return scope

    def d_DisplayDecl(self, d):
        for s in d.entries:
            if isinstance(s, A.DisplayScore):
                self.expr(s.value, self._bind(_Scope(), s, s.var, "display"))

    def d_VictoryDecl(self, d):
        scope = self._scores(d, "victory")
        self.expr(d.win, scope)
        self.expr(d.rank, scope)

    def d_EvaluateDecl(self, d):
        self.expr(d.value, self._scores(d, "evaluate"))

    # ---- statements ---------------------------------------------------------------------------
    def block(self, stmts, scope):
        inner = _Scope(scope)
        for s in stmts:
            self.stmt(s, inner)

    def stmt(self, s, scope):
        getattr(self, "s_" + type(s).__name__)(s, scope)

    def s_Step(self, s, scope):
        for st in s.body:  # a step only names part of a body: its names stay visible after it
            self.stmt(st, scope)

    def s_Let(self, s, scope):
        self.expr(s.value, scope)
        v = scope.find(s.name)
        if v is not None:
            self.vars[(s, s.name)] = v
        else:
            self._bind(scope, s, s.name, "let")
        self.bindings[s] = self.local(self.vars[(s, s.name)])

    def s_Set(self, s, scope):
        self.expr(s.target, scope)
        self.expr(s.value, scope)

    def s_Move(self, s, scope):
        self.expr(s.what, scope)
        self.expr(s.dest, scope)

    def s_Draw(self, s, scope):
        for e in (s.src, s.refill, s.dest):
            if e is not None:
                self.expr(e, scope)
        self._bind(scope, s, s.name, "draw")

    def s_Shuffle(self, s, scope):
        self.expr(s.zone, scope)

    def s_Reveal(self, s, scope):
        for e in (s.card, s.to):
            if e is not None:
                self.expr(e, scope)

    def s_Turn(self, s, scope):
        self.expr(s.card, scope)
        self.expr(s.face, scope)

    def s_Create(self, s, scope):
        for e in (s.what, s.times, s.dest):
            if e is not None:
                self.expr(e, scope)

    def s_If(self, s, scope):
        for cond, body in s.branches:
            self.expr(cond, scope)
            self.block(body, scope)
        if s.other is not None:
            self.block(s.other, scope)

    def s_For(self, s, scope):
        self.expr(s.iter, scope)
        self.block(s.body, self._bind(_Scope(scope), s, s.var, "for"))

    def s_Repeat(self, s, scope):
        self.expr(s.count, scope)
        self.block(s.body, scope)

    def s_While(self, s, scope):
        self.expr(s.cond, scope)
        self.block(s.body, scope)

    def s_Break(self, s, scope):
        pass

    s_Return = s_Break

    def s_ChooseOptions(self, s, scope):
        if s.by is not None:
            self.expr(s.by, scope)
        for opt in s.options:
            if opt.cond is not None:
                self.expr(opt.cond, scope)
            self.block(opt.body, scope)

    def s_ChooseItem(self, s, scope):
        if s.by is not None:
            self.expr(s.by, scope)
        self.expr(s.coll, scope)
        for e in s.prompt_values:
            self.expr(e, scope)
        inner = self._bind(_Scope(scope), s, s.var, "choose")
        for e in s.label:
            self.expr(e, inner)
        self.block(s.body, inner)

    def s_EndHand(self, s, scope):
        pass

    def s_Pass(self, s, scope):
        pass  # names a zone declaration, which the checker looks up

    def s_Together(self, s, scope):
        self.expr(s.players, scope)
        self.block(s.body, self._bind(_Scope(scope), s, s.var, "together"))

    def s_Pick(self, s, scope):
        if s.by is not None:
            self.expr(s.by, scope)
        self.expr(s.coll, scope)
        inner = self._bind(_Scope(scope), s, s.var, "pick")
        self.expr(s.cost, inner)
        self.expr(s.budget, scope)
        self.block(s.body, inner)

    def s_Win(self, s, scope):
        self.expr(s.player, scope)

    def s_EndGame(self, s, scope):
        pass

    def s_Do(self, s, scope):
        call = s.call
        if isinstance(call.func, A.Name):
            n = call.func.id
            b = self.of_category(n, ("action", "routine")) or self.unknown(n, scope)
            self.bindings[call.func] = b
        else:
            b = Binding("dynamic", "")
            self.expr(call.func, scope)
        self.bindings[call] = b
        for a in call.args:
            self.expr(a, scope)

    def s_Actions(self, s, scope):
        self.expr(s.count, scope)
        self.expr(s.player, scope)
        for limit in (s.unless, s.most):
            if limit is not None:
                self.element(s, limit, scope)

    def s_Advance(self, s, scope):
        self.expr(s.piece, scope)
        self.expr(s.distance, scope)
        if s.jump_var:
            self.block(s.jump_body, self._bind(_Scope(scope), s, s.jump_var, "jump"))
        if s.pass_var:
            self.block(s.pass_body, self._bind(_Scope(scope), s, s.pass_var, "pass"))

    def s_Put(self, s, scope):
        self.expr(s.piece, scope)
        self.expr(s.pos, scope)

    def s_Place(self, s, scope):
        for e in (s.card, s.grid, s.cell):
            self.expr(e, scope)

    def s_Give(self, s, scope):
        self.expr(s.to, scope)

    def s_Log(self, s, scope):
        for a in s.args:
            self.expr(a, scope)

    # ---- expressions --------------------------------------------------------------------------
    def expr(self, e, scope):
        t = type(e)
        if t is A.Name:
            n = e.id
            v = scope.find(n)
            if v is not None:
                self.bindings[e] = self.local(v)
            else:
                self.bindings[e] = self.global_name(n) or self.unknown(n, scope)
        elif t is A.Call:
            self.call(e, scope)
        elif t is A.Filter:
            self.expr(e.coll, scope)
            self.element(e, e.cond, scope)
        elif t is A.Lit:
            pass
        else:
            for field in ("obj", "index", "operand", "left", "right", "lo", "hi", "test", "then", "other"):
                sub = getattr(e, field, None)
                if sub is not None and not isinstance(sub, str):
                    self.expr(sub, scope)
            for sub in getattr(e, "items", ()) or ():
                self.expr(sub, scope)

    def call(self, e, scope):
        f = e.func
        if not isinstance(f, A.Name):
            self.expr(f, scope)
            for a in e.args:
                self.expr(a, scope)
            return
        n = f.id
        v = scope.find(n)
        if v is not None:
            b = self.local(v)
        else:
            b = (self.of_category(n, ("def", "action", "routine"))
                 or (Binding("builtin", n) if n in BUILTINS else self.unknown(n, scope)))
        self.bindings[f] = self.bindings[e] = b
        args = list(e.args)
        if b.kind == "builtin" and args:
            category = DECLARATION_ARGS.get(n)
            first = args[0]
            if category is not None and isinstance(first, A.Name) and self.of_category(first.id, (category,)):
                self.bindings[first] = self.decls[first.id]
                args = args[1:]
            elif n in LAMBDA_BUILTINS and len(args) == 2:
                self.expr(args[0], scope)
                if n in ("min", "max"):
                    self._outer[e] = scope
                self.element(e, args[1], scope)
                return
        if e.elem is not None:  # a name given where no element is: bound all the same, the checker
            for a in args[:-1]:  # refuses it
                self.expr(a, scope)
            self.element(e, args[-1], scope)
            return
        for a in args:
            self.expr(a, scope)


def _field_lists(decl):
    """The field lists of a declaration that may declare enum values."""
    if isinstance(decl, (A.KindDecl, A.TrackDecl)):
        return [decl.fields]
    if isinstance(decl, A.GridDecl):
        return [decl.cell_fields, decl.line_fields]
    return []


def resolve(program: A.Program) -> Resolver:
    """Resolve every name of a program; see the module docstring for the rules."""
    return Resolver(program).program(program)
