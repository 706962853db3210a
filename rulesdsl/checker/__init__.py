"""Static checks: names, types, fields and reachability, all collected before any game starts.

The result is a `Model`: the declarations by name plus the static type of every expression node,
which the interpreter's compiler uses to resolve names and fields once, before play.

One `Checker` walks the program; its rules are split by concept into the classes it is made of:
declarations.py (the declarations and their bodies), kinds.py (card kinds, fields, slots, faces),
statements.py (`s_NODE`), expressions.py (`e_NODE`) and typerules.py (each built-in's `b_NAME`).
types.py holds the static types, model.py the `Model` and what the checker decided.
"""
from __future__ import annotations

from typing import Any

import attrs

from .. import ast as A
from ..errors import CheckError, at, make, suggest
from ..resolver import Resolver
from .declarations import DeclarationChecks
from .expressions import ExpressionChecks
from .kinds import KindChecks
from .model import READS, Decided, Model, Reads
from .statements import StatementChecks
from .types import (ACTION, ANY, BOOL, CONSTANTS, FIELD_TYPES, FORMULA, INT, KEYED, NONE, PIECE, PLAYER, SYM, TEXT,
                    T_list, show)
from .typerules import BuiltinTypeRules

__all__ = ["Checker", "CheckError", "check", "check_expression", "formula_uses", "with_named_enums", "Reads",
           "READS", "Decided", "Model", "INT", "BOOL", "TEXT", "NONE", "ANY", "PLAYER", "ACTION", "SYM",
           "KEYED", "PIECE", "T_list", "show", "FORMULA", "FIELD_TYPES", "CONSTANTS"]


class Checker(DeclarationChecks, KindChecks, StatementChecks, ExpressionChecks, BuiltinTypeRules):
    """Walks a program once for declarations, then once for every body, collecting errors."""

    def __init__(self, program: A.Program, formulas: dict | None = None):
        self.p = program
        # (kind, formula field) -> {(definition name, types of the card's arguments)}: what the card
        # databases name, when they are known (a second check, after the cards are loaded)
        self.formulas = formulas or {}
        self.formula_calls: dict = {}
        self.errors = []
        self.warnings = []
        self._declared_errors: set = set()  # declarations an error was also reported at (`err`)
        self.types: dict = {}
        self.decided = Decided()
        self.res: Resolver | None = None
        self.var_types: dict = {}  # resolver.Var -> its static type, as the walk reaches it
        self.decls: dict[str, Any] = {}
        self.kinds: dict = {}
        self.zones: dict = {}
        self.counters: dict = {}
        self.markers: dict = {}
        self.pieces: dict = {}
        self.tracks: dict = {}
        self.grids: dict = {}
        self.slots: dict = {}  # slot name -> (kind declaring it, SlotDecl)
        self.funcs: dict = {}
        self.actions: dict = {}
        self.param_declared: dict = {}  # A.Param -> the type its `: TYPE` names (declarations.py)
        self._of_nobody: str | None = None  # the routine of nobody being checked (its choices need `by`)
        self._menus: list = []  # the `actions` statements, whose menus may depend on hidden amounts
        self._together_choice = None  # the choice a `together` statement asks of each of its players
        self._together_var: str | None = None  # inside a `together`'s body: its player (choices need `by`)
        self.params: dict = {}
        self.triggers: list = []
        self.game = None
        self.setup = None
        self.hand = None  # the `hand` block, if the game is played in hands
        self._hand_part: str | None = None  # "the set-up" or "the hand's `finish`" while checking them
        self.round = None
        self.victory = None
        self.evaluation = None
        self.displays: list = []  # the `display` blocks, in order
        self.display = None  # what they say, merged (rulesdsl/display.py)
        self.enum_values: set[str] = set()
        self.used_actions: set[str] = set()
        self.given_markers: set[str] = set()
        self.holder_uses: list = []
        self.func_params: dict[str, list] = {}
        self._decl_span = A.Span(1, 1)
        self._typing: set[str] = set()
        self._cycles: set[frozenset] = set()
        self._loop_depth = 0

    # -- reporting
    def err(self, node_or_span, message, hint=None):
        self.errors.append(self._diagnostic(node_or_span, message, hint, "error"))
        self._also_at_declaration(node_or_span, message)

    def _also_at_declaration(self, node, message):
        """An error at a name declared in another file than the one using it (a layer's `replace
        param goal = "ten"` used by the ruleset it extends as a number) is also reported at the
        declaration, once per declaration: that is the line the designer changed."""
        if not isinstance(node, A.Name):
            return
        b = self.res.bindings.get(node)
        decl = getattr(b, "decl", None) if b is not None else None
        span = getattr(decl, "span", None)
        if span is None:
            return
        # Only a declaration made in a layer above the file using it: a mistake in a layer's own
        # use of a name from below is the use's, and reported there only.
        order = [layer.path for layer in self.p.layers]  # base first
        decl_path, use_path = span.path or self.p.path, node.span.path or self.p.path
        if decl_path == use_path or decl_path not in order or use_path not in order or \
                order.index(decl_path) < order.index(use_path):
            return
        key = id(decl)
        if key in self._declared_errors:
            return
        self._declared_errors.add(key)
        use = node.span.path or self.p.path
        self.errors.append(self._diagnostic(span, f"`{node.id}` as declared here does not fit where {use} uses "
                                                  f"it (line {node.span.line}): {message}", None, "error"))

    def warn(self, node_or_span, message, hint=None):
        """Report something that checks but is very likely not what the rules mean: the rules still
        run, and `lfdsl check` and the language server show it."""
        self.warnings.append(self._diagnostic(node_or_span, message, hint, "warning"))

    def _diagnostic(self, node_or_span, message, hint, severity):
        span = node_or_span if isinstance(node_or_span, A.Span) else node_or_span.span
        path = span.path or self.p.path
        return at(path, self.p.source_of(path), span, message, hint, severity=severity)

    # -- entry point
    def run(self) -> Model:
        self.collect()
        self.check_bodies()
        self.check_display()
        for s in self._menus:  # an action menu offers what the actions' requirements allow
            if any(self.hidden_amount(self.actions[n].requires) for n in s.names
                   if n in self.actions and self.actions[n].requires is not None):
                self.decided.secret.add(s)
        if self.errors:
            raise CheckError(self.errors + self.warnings)
        return Model(self.p, self.game, self.params, self.kinds, self.zones, self.counters,
                     self.markers, self.pieces, self.tracks, self.grids, self.funcs, self.actions, self.setup,
                     self.round, tuple(self.triggers), self.victory, frozenset(self.enum_values),
                     frozenset(self.used_actions), self.types, self.res.bindings, self.evaluation,
                     self.slots, self.formula_calls, self.decided, tuple(sorted(set(self.warnings))), self.hand,
                     self.display)

    def binding(self, node):
        """What the resolver found a Name (or a call) to stand for."""
        return self.res.bindings[node]

    def bind(self, site, name, t):
        """Give the local variable that `site` binds as `name` the type `t`."""
        self.var_types[self.res.var(site, name)] = t


def check_expression(model: Model, expr, path: str = "<expression>", source: str | None = None) -> tuple:
    """Type a stand-alone expression (a scenario expectation) against a checked model.

    Errors are reported against `path` and `source`, the text the expression came from.
    Returns (type, types, bindings, decided): the side tables extended with the expression's nodes.
    """
    c = Checker(model.program)
    c.collect()
    c.check_bodies()
    c.errors = []
    c.p = A.Program(path, source if source is not None else "", ())
    c.res.expression(expr)
    t = c.expr(expr)
    if c.errors:
        raise CheckError(c.errors)
    return t, c.types, c.res.bindings, c.decided


def check(program: A.Program, formulas: dict | None = None) -> Model:
    """Check a parsed program; raise CheckError with every problem found. `formulas` are the
    definitions the card databases name in formula fields, once they are loaded (see b_call)."""
    return Checker(with_named_enums(program), formulas).run()


def formula_uses(model: Model, db) -> dict:
    """What the card databases name in formula fields: (kind, field) -> {(definition name, the
    static types of the card's arguments)}, for the second check (see Checker.check_formulas)."""
    sort_types = {"int": INT, "bool": BOOL, "text": TEXT, "name": SYM, "list": T_list(INT)}
    out: dict = {}
    for d in db.defs + db.face_defs:
        for f in model.kinds[d.kind].fields:
            value = d.fields.get(f.name) if f.type.name == "formula" else None
            if value is not None:
                out.setdefault((d.kind, f.name), set()).add((value[0], tuple(sort_types[s] for s in value[2])))
    return out


def with_named_enums(program: A.Program) -> A.Program:
    """The program with every field typed by a named enum given that enum's values (its type keeps
    the name, for printing); a name that is no enum, or an enum listing a value twice, is an error."""
    enums = {i.name: i for i in program.items if isinstance(i, A.EnumDecl)}
    errors = []

    def err(node, message, hint=None):
        path = node.span.path or program.path
        errors.append(make(path, program.source_of(path), node.span.line, node.span.col, message, hint))

    for e in enums.values():
        if len(set(e.values)) != len(e.values):
            err(e, f"enum `{e.name}` lists a value twice")

    def typed(f):
        if f.type.name not in ("named", "named_set"):
            return f
        e = enums.get(f.type.named)
        if e is None:
            err(f.type, f"`{f.type.named}` is not a type", "a field's type is int, bool, text, action, "
                "list of int, enum(a, b, ...) or the name of an `enum` declaration"
                + (f"; {suggest(f.type.named, enums)}" if suggest(f.type.named, enums) else ""))
            return f
        name = "enum" if f.type.name == "named" else "set"
        return attrs.evolve(f, type=A.TypeRef(name, e.values, f.type.span, e.name))

    kinds = {i.name: i for i in program.items if isinstance(i, A.KindDecl)}

    def keyed(z):
        """A zone `per NAME` given the values of the enum NAME, or of the enum field NAME of its kind."""
        if z.by is None:
            return z
        if z.by in enums:
            return attrs.evolve(z, keys=tuple(enums[z.by].values))
        field = next((f for f in kinds[z.kind].fields if f.name == z.by), None) if z.kind in kinds else None
        if field is not None and field.type.name in ("enum", "named"):
            values = enums[field.type.named].values if field.type.name == "named" and field.type.named in enums \
                else field.type.values
            if values:
                return attrs.evolve(z, keys=tuple(values))
        return z  # no keys: the checker says why

    items = []
    for item in program.items:
        if isinstance(item, A.ZoneDecl):
            item = keyed(item)
        if isinstance(item, (A.KindDecl, A.TrackDecl)):
            item = attrs.evolve(item, fields=tuple(typed(f) for f in item.fields))
        elif isinstance(item, A.GridDecl):
            item = attrs.evolve(item, cell_fields=tuple(typed(f) for f in item.cell_fields),
                                line_fields=tuple(typed(f) for f in item.line_fields))
        items.append(item)
    if errors:
        raise CheckError(errors)
    return attrs.evolve(program, items=tuple(items)) if enums or any(
        isinstance(i, A.ZoneDecl) and i.by for i in program.items) else program
