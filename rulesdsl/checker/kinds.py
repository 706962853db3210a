"""The checker's rules for card kinds: their fields and defaults, counters, slots, faces, and the
formula fields the card databases fill."""
from __future__ import annotations

import attrs

from .. import ast as A
from ..cards import _field_problem, _literal
from ..errors import suggest
from .declarations import _DECL_WORDS
from .expressions import _names_in
from .types import ACTION, FIELD_TYPES, FORMULA, INT, NONE, SYM, TEXT, T_list, _compatible, show


class KindChecks:
    """Card kinds: fields, data values, counters, slots, faces and formula fields."""

    def collect_card_counters(self, kind):
        """A kind's counters: each a keyed counter whose keys are the kind's cards, named once
        among all counters (a rule reads it `c.eggs` and sets it `set c.eggs += 1`)."""
        fields = {f.name for f in kind.fields}
        for c in kind.counters:
            if c.keyed or c.per_player:
                self.err(c, f"counter `{c.name}` of kind {kind.name} belongs to each card: it cannot be "
                            f"{'keyed' if c.keyed else 'per player'}")
            if c.visibility != "public":
                self.err(c, f"counter `{c.name}` of kind {kind.name} is seen as its card is: it cannot be "
                            f"`{c.visibility}`", "declare it outside the kind, per player, to keep it from others")
            if c.name in fields or c.name == "name":
                self.err(c, f"kind {kind.name} has a field `{c.name}` already", "rename the counter")
            elif c.name in self.decls:
                first = self.decls[c.name].span
                self.err(c, f"`{c.name}` is already declared at line {first.line}",
                         "a card's counter is named once among all declarations")
            else:
                self.decls[c.name] = c
                self.counters[c.name] = attrs.evolve(c, keyed=True, per_player=False)

    def collect_slots(self, kind):
        """A kind's slots, each named once in the whole ruleset (a card's slot is written
        `slot(c, NAME)` and its cards' place in traces is `#card.NAME`)."""
        for sl in kind.slots:
            if sl.name in self.slots:
                other = self.slots[sl.name][1].span
                self.err(sl, f"slot `{sl.name}` is already declared at line {other.line}",
                         "slot names are unique in a ruleset, across kinds")
            elif sl.name in self.decls:
                what = _DECL_WORDS.get(type(self.decls[sl.name]), "declaration")
                self.err(sl, f"slot `{sl.name}` has the name of {what} `{sl.name}`", "rename one of them")
            else:
                self.slots[sl.name] = (kind, sl)

    def check_slot(self, kind, sl):
        self.check_kind_ref(sl.kind, sl)
        if sl.per_player:
            self.err(sl, f"slot `{sl.name}` belongs to a card, not to a player: it cannot be `per player`")
        if sl.visibility == "private":
            self.err(sl, f"slot `{sl.name}` has no owner to be `private` for", "make it `public` or `hidden`")
        lim = sl.limit
        if lim is None:
            return
        if isinstance(lim, A.Name) and any(f.name == lim.id for f in kind.fields):
            f = next(f for f in kind.fields if f.name == lim.id)
            if f.type.name != "int":
                self.err(lim, f"a slot's limit must be an int field of kind {kind.name}; `{lim.id}` is {f.type.name}")
            return
        if not (isinstance(lim, A.Lit) and type(lim.value) is int):
            self.err(lim, "a slot's limit is a number or an int field of the card",
                     f"for instance `limit 2`, or `limit {next((f.name for f in kind.fields if f.type.name == 'int'), 'size')}`")
        elif lim.value < 0:
            self.err(lim, "a slot's limit cannot be negative")

    def collect_fields(self, fields, owner):
        seen = set()
        for f in fields:
            if f.name in seen:
                self.err(f, f"field `{f.name}` appears twice in {owner}")
            seen.add(f.name)
            if f.name == "name":
                self.err(f, "`name` is implicit on every card and cannot be declared")
            if f.type.name == "formula" and not owner.startswith("kind"):
                self.err(f.type, "only cards have formula fields", "a formula names a definition in the card database")
            if f.type.name in ("enum", "set"):
                if len(set(f.type.values)) != len(f.type.values):
                    self.err(f.type, "an enum value is listed twice")
                self.enum_values.update(f.type.values)

    def check_default(self, f):
        if f.default is None:
            return
        want = FIELD_TYPES[f.type.name]
        if want == ACTION:
            self.action_value(f.default)
            return
        if want == FORMULA:
            if not (isinstance(f.default, A.Lit) and f.default.value is None):
                self.err(f.default, f"the default of formula field `{f.name}` can only be none",
                         'a card names its formula in the card database: score = "points(3)"')
            self.types[f.default] = NONE
            return
        if f.type.name == "set":  # a list of this enum's values
            items = f.default.items if isinstance(f.default, A.ListLit) else None
            if items is None or not all(isinstance(i, A.Name) and i.id in f.type.values for i in items):
                self.err(f.default, f"default of `{f.name}` is a list of values of its enum, such as "
                         f"[{f.type.values[0]}]", f"the values: {', '.join(f.type.values)}")
            for i in items or ():
                self.types[i] = SYM
            self.types[f.default] = T_list(SYM)
            return
        if f.type.name == "enum" and isinstance(f.default, A.Name):
            if self.binding(f.default).kind != "enum":  # resolved among this enum's values
                self.err(f.default, f"`{f.default.id}` is not a value of this enum",
                         suggest(f.default.id, f.type.values))
            self.types[f.default] = SYM
            return
        t = self.expr(f.default)
        if t == NONE:
            return
        if not _compatible(t, want):
            self.err(f.default, f"default of `{f.name}` is {show(t)}, expected {show(want)}")

    def action_value(self, expr):
        """Data naming an action: `none` or the name of a declared action."""
        if isinstance(expr, A.Lit) and expr.value is None:
            return
        if isinstance(expr, A.Name) and self.binding(expr).kind in ("action", "routine"):
            self.used_actions.add(expr.id)
            return
        name = expr.id if isinstance(expr, A.Name) else "this"
        self.err(expr, f"`{name}` is not an action", suggest(name, self.actions) if isinstance(expr, A.Name) else None)

    def check_assigns(self, assigns, fields, owner):
        by_name = {f.name: f for f in fields}
        for a in assigns:
            f = by_name.get(a.name)
            if f is None:
                self.err(a, f"{owner} has no field `{a.name}`", suggest(a.name, by_name))
                continue
            want = FIELD_TYPES[f.type.name]
            if want == ACTION:
                self.action_value(a.value)
                continue
            t = self.expr(a.value)
            if not _compatible(t, want):
                self.err(a.value, f"`{a.name}` is {show(want)}, got {show(t)}")
            for node in _names_in(a.value):
                if self.binding(node).kind not in ("param", "enum"):
                    self.err(node, f"data values are fixed before a game starts: `{node.id}` cannot be used here",
                             "use literals, enum values and parameters")

    def check_kind_ref(self, kind, node):
        if kind not in self.kinds:
            self.err(node, f"unknown card kind `{kind}`", suggest(kind, self.kinds))

    def card_kind(self, t):
        """The card kind a value holds or lists, if known."""
        if t[0] in ("card", "def", "zone"):
            return t[1]
        if t[0] == "list":
            return self.card_kind(t[1])
        if t[0] == "grid":
            return self.grids[t[1]].kind
        return None

    def same_kind(self, node, kind, dest, verb):
        where = self.card_kind(dest)
        if kind and where and kind != where:
            self.err(node, f"cannot {verb} a card of kind {kind} into a place that holds {where}")

    # -- faces
    def _faced_card(self, e, what):
        """The kind of the card argument `e` if it has faces (reported otherwise)."""
        t = self.expr(e)
        if t[0] not in ("card", "any"):
            self.err(e, f"`{what}` takes a card, not {show(t)}")
            return None
        kind = self.kinds.get(t[1]) if t[0] == "card" else None
        if kind is not None and not kind.faces:
            self.err(e, f"cards of kind {kind.name} have one face",
                     "declare their faces in the kind: `faces front, back`")
        return kind

    def _face_name(self, kind, e):
        if isinstance(e, A.Name) and self.binding(e).kind == "enum" and kind is not None and kind.faces:
            self.types[e] = SYM
            names = [f.name for f in kind.faces]
            if e.id not in names:
                self.err(e, f"cards of kind {kind.name} have no face `{e.id}`", suggest(e.id, names))
            return
        self.expect(e, (SYM, TEXT), "a face")

    def check_formulas(self):
        """Type every definition the card databases name in a formula field, with the arguments of
        its `call`s followed by the card's own; each must give a number."""
        for key, uses in sorted(self.formulas.items()):
            lead = self.formula_calls.get(key)
            if lead is None:
                continue  # never called: never run
            for name, data_types in sorted(uses):
                fn = self.funcs.get(name)
                if fn is None:
                    continue  # reported with its place in the card database (cards.cross_check)
                result = self.type_func(fn, list(lead) + list(data_types), fn)
                if not _compatible(result, INT):
                    self.err(fn, f"`{name}` is a formula of {key[0]}'s `{key[1]}` in the card database, so it must "
                                 f"give a number, not {show(result)}")

    def check_faces(self, kind):
        """A kind's faces: named once, not like a field; a face block gives literal values of the
        kind's fields (and a hidden face its name); a hidden face needs every field without a default."""
        fields = {f.name: f for f in kind.fields}
        seen = set()
        for face in kind.faces:
            if face.name in seen:
                self.err(face, f"face `{face.name}` of kind {kind.name} is declared twice")
            seen.add(face.name)
            if face.name in fields or face.name in ("name", "face"):
                self.err(face, f"face `{face.name}` has the name of a field of kind {kind.name}",
                         "a card's database entry gives a face's values under the face's name: rename one")
            given = set()
            for a in face.assigns:
                if a.name == "name" and face.hidden:
                    if not (isinstance(a.value, A.Lit) and isinstance(a.value.value, str)):
                        self.err(a.value, "a face's name is a text")
                elif a.name == "name":
                    self.err(a, f"face `{face.name}` shows the card: its name is the card's (or its own in the "
                                "card database)", "only a `hidden` face, which shows nothing of the card, is named here")
                elif a.name not in fields:
                    self.err(a, f"kind {kind.name} has no field `{a.name}`", suggest(a.name, fields))
                else:
                    self.check_card_value(fields[a.name], a.value)
                given.add(a.name)
            if face.hidden:
                for f in kind.fields:
                    if f.default is None and f.name not in given:
                        self.err(face, f"face `{face.name}` is hidden, so it shows nothing of the card: it needs a "
                                       f"value for `{f.name}`, which has no default", f"add `{f.name} = ...` to its block")
        if kind.faces and "face" in fields:
            self.err(fields["face"], f"kind {kind.name} has faces: `face` is the field naming the face a card shows",
                     "rename the field")

    def check_card_value(self, f, value):
        """A literal value for card field `f` (in a face block), of the field's type."""
        v = _literal(value)
        if v is None and not (isinstance(value, A.Lit) and value.value is None):
            self.err(value, "a card's value is a literal: a number, true or false, a text, a name or a list",
                     "card data are values, not expressions")
            return
        if isinstance(value, A.Lit) and value.value is None:
            v = "none"
        problem = _field_problem(f, v)
        if problem:
            self.err(value, problem.replace("'", "`"))

    # -- slots: small zones attached to cards
    def _slot_kind(self, names):
        """The card kind the named slots hold, if they all hold one."""
        kinds = {self.slots[n][1].kind for n in names if n in self.slots}
        return kinds.pop() if len(kinds) == 1 else None

    def _host_arg(self, e, what):
        t = self.expr(e)
        if t[0] not in ("card", "any", "none"):
            self.err(e, f"`{what}` takes a card, not {show(t)}")
            return None
        kind = self.kinds.get(t[1]) if t[0] == "card" else None
        if kind is not None and not kind.slots and what != "host" and what != "slot_of":
            self.err(e, f"cards of kind {kind.name} have no slots",
                     "declare one in the kind: `slot NAME: row of KIND limit N`")
        return kind

    def _slot_name(self, kind, e, what):
        """Check the slot-name argument; the names it may stand for."""
        if isinstance(e, A.Name) and self.binding(e).kind == "enum":
            self.types[e] = SYM
            if e.id not in self.slots:
                self.err(e, f"`{e.id}` is not a slot", suggest(e.id, self.slots))
                return []
            if kind is not None and e.id not in [sl.name for sl in kind.slots]:
                self.err(e, f"cards of kind {kind.name} have no slot `{e.id}`",
                         suggest(e.id, [sl.name for sl in kind.slots]))
            return [e.id]
        self.expect(e, (SYM, TEXT), f"the slot of `{what}`")
        return [sl.name for sl in kind.slots] if kind is not None else list(self.slots)
