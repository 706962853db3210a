"""Layering: a ruleset that `extends` another states only what it adds, replaces or amends.

The result is one Program of effective declarations (each node keeps the file it came from in its
span) plus, per layer, the list of what that layer changed. Every conflict is reported with its
position: a second declaration of a name without `replace`, a `replace` or `amend` of something
no lower layer declares, a step name that is missing or ambiguous, a cycle of `extends`.
"""
from __future__ import annotations

import os
from pathlib import Path

import attrs

from . import ast as A
from . import unparse
from .errors import CheckError, at, suggest
from .files import RULES_MAX_BYTES, FileRefused, Project, check_name, named_path, read_bytes
from .parser import decode_rules, parse, parse_file

_CATEGORY = {
    A.ParamDecl: "param", A.EnumDecl: "enum", A.KindDecl: "kind", A.ZoneDecl: "zone", A.CounterDecl: "counter",
    A.MarkerDecl: "marker", A.PieceDecl: "piece", A.TrackDecl: "track", A.GridDecl: "grid",
    A.FuncDecl: "def", A.PhaseDecl: "phase",
}
_SINGLE = {A.Game: "game", A.SetupDecl: "setup", A.RoundDecl: "round", A.VictoryDecl: "victory",
           A.EvaluateDecl: "evaluate", A.HandDecl: "hand"}


@attrs.frozen
class Change:
    """One thing a layer did: add, replace or amend a declaration."""

    action: str
    what: str
    name: str | None
    span: A.Span
    detail: str = ""


@attrs.frozen
class Layer:
    """A ruleset file and what it changed in the layers below it."""

    path: str
    extends: str | None
    changes: tuple


def _key(item):
    if type(item) in _SINGLE:
        return _SINGLE[type(item)], None
    if isinstance(item, A.ActionDecl):
        return ("routine" if item.routine else "action"), item.name
    if isinstance(item, A.TriggerDecl):
        return "trigger", None
    if isinstance(item, A.DisplayDecl):
        return "display", None
    return _CATEGORY[type(item)], item.name


def _describe(what, name):
    return f"{what} `{name}`" if name else f"the {what} block" if what in ("setup", "round", "victory", "evaluate", "game") else what


class _Merger:
    def __init__(self, program: A.Program):
        self.p = program
        self.errors = []

    def err(self, span, message, hint=None):
        path = span.path or self.p.path
        self.errors.append(at(path, self.p.source_of(path), span, message, hint))


def load_ruleset(path: str | Path, project: Project | None = None, _stack=(), _text=None) -> A.Program:
    """Parse a ruleset and every layer below it; return the effective program.

    Every file a layer names must lie in `project` (by default, the project of `path`)."""
    path = os.path.normpath(str(path))
    project = project or Project.around(path)
    program = parse(_text, path) if _text is not None else parse_file(path)
    extends = [i for i in program.items if isinstance(i, A.Extends)]
    m = _Merger(program)
    if not extends:
        for item in program.items:
            if isinstance(item, (A.Replace, A.Amend, A.CardEdit)):
                op = item.op if isinstance(item, A.CardEdit) else "replace" if isinstance(item, A.Replace) else "amend"
                m.err(item.span, f"`{op}` changes a lower layer, but this ruleset extends none",
                      'start the file with `extends "other.lf"`')
        if m.errors:
            raise CheckError(m.errors)
        changes = tuple(Change("add", *_key(i), i.span) for i in program.items)
        return attrs.evolve(program, sources={path: program.source},
                            layers=(Layer(path, None, changes),))
    first = extends[0]
    if len(extends) > 1 or program.items[0] is not first:
        m.err((extends[1] if len(extends) > 1 else first).span,
              "`extends` comes first in a ruleset, and only once")
        raise CheckError(m.errors)
    parent_path = named_path(first.path, path)
    if parent_path in _stack or parent_path == path:
        m.err(first.span, f"`extends` makes a cycle: {' -> '.join(list(_stack) + [path, parent_path])}")
        raise CheckError(m.errors)
    try:
        check_name(first.path, parent_path, project)
        data = read_bytes(parent_path, RULES_MAX_BYTES)
    except FileRefused as exc:
        if exc.message == "file not found":
            m.err(first.span, f"no ruleset `{first.path}` (looked for {parent_path})")
        else:
            m.err(first.span, f"`extends \"{first.path}\"`: {exc.message}", exc.hint)
        raise CheckError(m.errors) from None
    text = decode_rules(data, parent_path)
    parent = load_ruleset(parent_path, project, _stack + (path,), text)
    return merge(parent, program, path, parent_path)


def merge(parent: A.Program, child: A.Program, path: str, parent_path: str) -> A.Program:
    """Apply one layer's items to the effective program below it."""
    sources = dict(parent.sources)
    sources[path] = child.source
    combined = A.Program(path, child.source, (), sources, parent.layers)
    edits = list(parent.card_edits)
    m = _Merger(combined)
    items = list(parent.items)
    changes = []

    def find(what, name):
        for i, item in enumerate(items):
            if _key(item) == (what, name):
                return i
        return None

    def phase_index(name):
        r = find("round", None)
        if r is None:
            return None, None
        for j, ph in enumerate(items[r].phases):
            if ph.name == name:
                return r, j
        return r, None

    def names_of(what):
        if what == "phase":
            r = find("round", None)
            return [ph.name for ph in items[r].phases] if r is not None else []
        return [n for (w, n) in (_key(i) for i in items) if w == what and n]

    for item in child.items[1:]:
        if isinstance(item, A.Extends):
            continue
        if isinstance(item, A.Replace):
            decl = item.decl
            what, name = _key(decl) if not isinstance(decl, A.PhaseDecl) else ("phase", decl.name)
            if what == "phase":
                r, j = phase_index(name)
                if j is None:
                    m.err(item.span, f"`replace phase {name}`: no lower layer has this phase",
                          suggest(name, names_of("phase")))
                    continue
                phases = list(items[r].phases)
                phases[j] = decl
                items[r] = attrs.evolve(items[r], phases=tuple(phases))
            else:
                i = find(what, name)
                if i is None:
                    m.err(item.span, f"`replace {what} {name or ''}`: no lower layer declares it".replace(" `", "`"),
                          suggest(name, names_of(what)) if name else None)
                    continue
                items[i] = decl
            changes.append(Change("replace", what, name, item.span))
            continue
        if isinstance(item, A.Amend):
            _amend(m, items, item, find, phase_index, names_of, changes)
            continue
        if isinstance(item, A.CardEdit):
            # Applied to the card databases once they are loaded (cards.apply_edits), in this order.
            edits.append(item)
            kind = f"{item.kind} " if item.kind else ""
            detail = ("sets " + ", ".join(f"{a.name} = {unparse.expr(a.value)}" for a in item.assigns)
                      if item.op == "amend" else "gives all its fields again" if item.op == "replace" else "")
            changes.append(Change(item.op, "card", f'{kind}"{item.name}"', item.span, detail))
            continue
        what, name = _key(item)
        if what in ("trigger", "display"):  # they add up, layer after layer
            items.append(item)
            changes.append(Change("add", what, item.target or item.event if what == "trigger" else None, item.span))
            continue
        i = find(what, name)
        if i is not None:
            was = items[i].span
            m.err(item.span, f"{_describe(what, name)} is already declared in {was.path}:{was.line}",
                  f"to change it write `replace {what} ...`" if what not in ("game", "setup", "round")
                  else f"to change it write `amend {what} {{ ... }}`")
            continue
        items.append(item)
        changes.append(Change("add", what, name, item.span))
    if m.errors:
        raise CheckError(m.errors)
    layer = Layer(path, parent_path, tuple(changes))
    return A.Program(path, child.source, tuple(items), sources, parent.layers + (layer,), tuple(edits))


def _amend(m, items, item, find, phase_index, names_of, changes):
    what, name = item.what, item.name
    if what == "def":
        # `amend def f(x) = super + ...`: `super` is the lower layer's value for the same arguments.
        i = find("def", name)
        if i is None:
            m.err(item.span, f"`amend def {name}`: no lower layer declares it", suggest(name, names_of("def")))
            return
        old, new = items[i], item.items[0]
        if [p.name for p in old.params] != [p.name for p in new.params]:
            m.err(new.span, f"`amend def {name}` must keep the parameters ({', '.join(p.name for p in old.params)})")
            return
        hidden = f"{name}__{len([n for n in names_of('def') if n.startswith(name + '__')]) + 1}"
        items[i] = attrs.evolve(old, name=hidden)
        call = A.Call(A.Name(hidden, new.span), tuple(A.Name(p.name, new.span) for p in new.params), new.span)
        items.append(attrs.evolve(new, body=_substitute(new.body, "super", call)))
        changes.append(Change("amend", "def", name, item.span, "adds to the value below it (super)"))
        return
    if what == "phase":
        r, j = phase_index(name)
        if j is None:
            m.err(item.span, f"`amend phase {name}`: no lower layer has this phase", suggest(name, names_of("phase")))
            return
        phase = items[r].phases[j]
        body = _apply(m, phase.body, item.items, f"phase `{name}`", changes)
        phases = list(items[r].phases)
        phases[j] = attrs.evolve(phase, body=body)
        items[r] = attrs.evolve(items[r], phases=tuple(phases))
    elif what == "setup":
        i = find("setup", None)
        if i is None:
            m.err(item.span, "`amend setup`: no lower layer has a setup block")
            return
        items[i] = attrs.evolve(items[i], body=_apply(m, items[i].body, item.items, "setup", changes))
    elif what == "kind":
        i = find("kind", name)
        if i is None:
            m.err(item.span, f"`amend kind {name}`: no lower layer declares it", suggest(name, names_of("kind")))
            return
        have = {f.name for f in items[i].fields}
        for f in item.items:
            if f.name in have:
                m.err(f.span, f"kind {name} already has a field `{f.name}`", f"to change it write `replace kind {name}`")
        items[i] = attrs.evolve(items[i], fields=items[i].fields + tuple(item.items))
        changes.append(Change("amend", "kind", name, item.span,
                              "adds fields " + ", ".join(f.name for f in item.items)))
    elif what == "track":
        i = find("track", name)
        if i is None:
            m.err(item.span, f"`amend track {name}`: no lower layer declares it", suggest(name, names_of("track")))
            return
        spaces = tuple((idx, assigns) for _, idx, assigns in item.items)
        items[i] = attrs.evolve(items[i], spaces=items[i].spaces + spaces)
        changes.append(Change("amend", "track", name, item.span, "changes the data of spaces " +
                              ", ".join(str(x) for idx, _ in spaces for x in idx)))
    elif what == "game":
        i = find("game", None)
        if i is None:
            m.err(item.span, "`amend game`: no lower layer has a game block")
            return
        game = items[i]
        updates, done = {}, []
        for key, value in item.items:
            if key == "cards":
                updates["cards"] = updates.get("cards", game.cards) + (value,)
            elif key == "players":
                lo, hi, default = value
                updates.update(min_players=lo, max_players=hi, default_players=default if default else lo)
            else:
                updates[key] = value
            done.append(key)
        items[i] = attrs.evolve(game, **updates)
        changes.append(Change("amend", "game", None, item.span, "sets " + ", ".join(done)))
    elif what == "round":
        r = find("round", None)
        if r is None:
            m.err(item.span, "`amend round`: no lower layer has a round block")
            return
        phases = list(items[r].phases)
        for am in item.items:
            names = [ph.name for ph in phases]
            new = am.body[0]
            if new.name in names:
                m.err(new.span, f"the round already has a phase `{new.name}`", f"to change it write `amend phase {new.name}`")
                continue
            if am.step not in names:
                m.err(am.span, f"no phase `{am.step}` to put `{new.name}` {am.op}", suggest(am.step, names))
                continue
            index = names.index(am.step) + (1 if am.op == "after" else 0)
            phases.insert(index, new)
            changes.append(Change("amend", "round", None, am.span, f"adds phase `{new.name}` {am.op} `{am.step}`"))
        items[r] = attrs.evolve(items[r], phases=tuple(phases))


def _substitute(e, name, replacement):
    """A copy of expression `e` with every Name `name` replaced."""
    if isinstance(e, A.Name):
        return replacement if e.id == name else e
    if not attrs.has(type(e)):
        return e
    changes = {}
    for f in attrs.fields(type(e)):
        v = getattr(e, f.name)
        if isinstance(v, tuple):
            changes[f.name] = tuple(_substitute(x, name, replacement) for x in v)
        elif attrs.has(type(v)) and not isinstance(v, A.Span):
            changes[f.name] = _substitute(v, name, replacement)
    return attrs.evolve(e, **changes) if changes else e


_BODIES = {A.For: "body", A.Repeat: "body", A.While: "body", A.ChooseItem: "body", A.Pick: "body",
           A.Step: "body", A.Together: "body"}


def _steps(body):
    """Every step (at any depth) of a body, by name, in order."""
    out = []
    for s in body:
        if isinstance(s, A.Step):
            out.append(s.name)
        for sub in _sub_bodies(s):
            out.extend(_steps(sub))
    return out


def _sub_bodies(s):
    if isinstance(s, A.Advance):
        return [s.jump_body, s.pass_body]
    if type(s) in _BODIES:
        return [getattr(s, _BODIES[type(s)])]
    if isinstance(s, A.If):
        return [b for _, b in s.branches] + ([s.other] if s.other is not None else [])
    if isinstance(s, A.ChooseOptions):
        return [o.body for o in s.options]
    return []


def _rewrite(body, name, fn):
    """A copy of `body` where the step `name` is replaced by fn(step) (a tuple of statements)."""
    out = []
    for s in body:
        if isinstance(s, A.Step) and s.name == name:
            out.extend(fn(s))
            continue
        if isinstance(s, A.Advance):
            s = attrs.evolve(s, jump_body=_rewrite(s.jump_body, name, fn), pass_body=_rewrite(s.pass_body, name, fn))
        elif type(s) in _BODIES:
            field = _BODIES[type(s)]
            s = attrs.evolve(s, **{field: _rewrite(getattr(s, field), name, fn)})
        elif isinstance(s, A.If):
            s = attrs.evolve(s, branches=tuple((c, _rewrite(b, name, fn)) for c, b in s.branches),
                             other=_rewrite(s.other, name, fn) if s.other is not None else None)
        elif isinstance(s, A.ChooseOptions):
            s = attrs.evolve(s, options=tuple(attrs.evolve(o, body=_rewrite(o.body, name, fn)) for o in s.options))
        out.append(s)
    return tuple(out)


def _apply(m, body, amendments, where, changes):
    for am in amendments:
        if am.op == "first":
            body = tuple(am.body) + tuple(body)
        elif am.op == "last":
            body = tuple(body) + tuple(am.body)
        else:
            steps = _steps(body)
            count = steps.count(am.step)
            if count == 0:
                m.err(am.span, f"{where} has no step `{am.step}`", suggest(am.step, steps) or
                      (f"its steps: {', '.join(steps)}" if steps else "name a part of it with `step name { ... }`"))
                continue
            if count > 1:
                m.err(am.span, f"{where} has {count} steps named `{am.step}`: the change is ambiguous")
                continue
            if am.op == "before":
                body = _rewrite(body, am.step, lambda s, b=am.body: tuple(b) + (s,))
            elif am.op == "after":
                body = _rewrite(body, am.step, lambda s, b=am.body: (s,) + tuple(b))
            elif am.op == "replace":
                body = _rewrite(body, am.step, lambda s, b=am.body: (attrs.evolve(s, body=tuple(b)),))
            else:
                body = _rewrite(body, am.step, lambda s: ())
        detail = f"{am.op} step `{am.step}`" if am.step else f"adds statements {'at the start' if am.op == 'first' else 'at the end'}"
        changes.append(Change("amend", where.split(" ")[0], where.split("`")[1] if "`" in where else None,
                              am.span, detail))
    return body
