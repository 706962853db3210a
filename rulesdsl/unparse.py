"""AST back to rules text: how `lfdsl explain` shows the effective ruleset after layering."""
from __future__ import annotations

import attrs

from . import ast as A

_PREC = {"or": 1, "and": 2, "==": 4, "!=": 4, "<": 4, "<=": 4, ">": 4, ">=": 4, "in": 4,
         "+": 6, "-": 6, "*": 7, "/": 7, "%": 7}


_VISIBILITY = {"public": "", "private": " private", "hidden": " hidden", "top": " hidden except top",
               "others": " public except owner"}

def expr(e, parent: int = 0) -> str:
    """One expression, parenthesised only where precedence needs it."""
    if isinstance(e, A.Lit):
        v = e.value
        return "none" if v is None else ("true" if v else "false") if isinstance(v, bool) else (
            f'"{v}"' if isinstance(v, str) else str(v))
    if isinstance(e, A.Name):
        return e.id
    if isinstance(e, A.ListLit):
        return "[" + ", ".join(expr(i) for i in e.items) + "]"
    if isinstance(e, A.Attr):
        return f"{expr(e.obj, 9)}.{e.name}"
    if isinstance(e, A.Index):
        return f"{expr(e.obj, 9)}[{expr(e.index)}]"
    if isinstance(e, A.Call):
        args = [expr(a) for a in e.args]
        if args:
            args[-1] = _named(e.elem) + args[-1]
        return f"{expr(e.func, 9)}({', '.join(args)})"
    if isinstance(e, A.Unary):
        inner = expr(e.operand, 8 if e.op == "-" else 3)
        text = f"-{inner}" if e.op == "-" else f"not {inner}"
        return _wrap(text, 8 if e.op == "-" else 3, parent)
    if isinstance(e, A.Binary):
        p = _PREC[e.op]
        left = p + 1 if p == 4 else p  # comparisons do not chain: bracket a comparison on the left
        text = f"{expr(e.left, left)} {e.op} {expr(e.right, p + 1)}"
        return _wrap(text, p, parent)
    if isinstance(e, A.Range):
        return _wrap(f"{expr(e.lo, 6)}..{expr(e.hi, 6)}", 5, parent)
    if isinstance(e, A.Filter):
        return _wrap(f"{expr(e.coll, 1)} where {_named(e.elem)}{expr(e.cond, 1)}", 0.5, parent)
    if isinstance(e, A.Cond):
        return _wrap(f"if {expr(e.test)} then {expr(e.then)} else {expr(e.other)}", 0.1, parent)
    raise TypeError(type(e).__name__)


def _named(elem) -> str:
    """`c: ` before the expression a form evaluates for an element it names, else nothing."""
    return f"{elem.name}: " if elem is not None else ""


def _wrap(text, prec, parent):
    return f"({text})" if prec < parent else text


def block(stmts, indent: int) -> list[str]:
    """A braced block's inner lines."""
    out = []
    for s in stmts:
        out.extend(stmt(s, indent))
    return out


def _braced(head, stmts, indent):
    pad = "    " * indent
    inner = block(stmts, indent + 1)
    if not inner:
        return [f"{pad}{head} {{ }}"]
    return [f"{pad}{head} {{", *inner, f"{pad}}}"]


def _by(by):
    return f" by {expr(by)}" if by is not None else ""


def stmt(s, indent: int) -> list[str]:
    """One statement as lines."""
    pad = "    " * indent
    t = type(s)
    if t is A.Let:
        return [f"{pad}let {s.name} = {expr(s.value)}"]
    if t is A.Set:
        return [f"{pad}set {expr(s.target)} {s.op} {expr(s.value)}"]
    if t is A.Move:
        return [f"{pad}move {expr(s.what)} {'under' if s.bottom else 'to'} {expr(s.dest)}"]
    if t is A.Draw:
        refill = f" refill {expr(s.refill)}" if s.refill is not None else ""
        return [f"{pad}draw {s.name} from {expr(s.src)}{refill} to {expr(s.dest)}"]
    if t is A.Shuffle:
        return [f"{pad}shuffle {expr(s.zone)}"]
    if t is A.Reveal:
        return [f"{pad}reveal {expr(s.card)}" + (f" to {expr(s.to)}" if s.to is not None else "")]
    if t is A.Turn:
        return [f"{pad}turn {expr(s.card)} to {expr(s.face)}"]
    if t is A.Create:
        times = f" times {expr(s.times)}" if s.times is not None else ""
        return [f"{pad}create {expr(s.what)}{times} into {expr(s.dest)}"]
    if t is A.If:
        out = []
        for i, (cond, body) in enumerate(s.branches):
            head = f"{'if' if i == 0 else '} elif'} {expr(cond)}"
            out.append(f"{pad}{head} {{")
            out.extend(block(body, indent + 1))
        if s.other is not None:
            out.append(f"{pad}}} else {{")
            out.extend(block(s.other, indent + 1))
        out.append(f"{pad}}}")
        return out
    if t is A.For:
        return _braced(f"for {s.var} in {expr(s.iter)}", s.body, indent)
    if t is A.Repeat:
        return _braced(f"repeat {expr(s.count)}", s.body, indent)
    if t is A.While:
        return _braced(f"while {expr(s.cond)}", s.body, indent)
    if t is A.Break:
        return [f"{pad}break"]
    if t is A.Return:
        return [f"{pad}return"]
    if t is A.Step:
        return _braced(f"step {s.name}", s.body, indent)
    if t is A.ChooseOptions:
        prompt = f' "{s.prompt}"' if s.prompt else ""
        out = [f"{pad}choose{prompt}{_by(s.by)} {{"]
        for o in s.options:
            cond = f" if {expr(o.cond)}" if o.cond is not None else ""
            out.extend(_braced(f"option {o.name}{cond}", o.body, indent + 1))
        out.append(f"{pad}}}")
        return out
    if t is A.ChooseItem:
        label = (" label " + ", ".join(expr(e) for e in s.label)) if s.label else ""
        prompt = f' "{s.prompt}"' + "".join(f", {expr(e)}" for e in s.prompt_values) if s.prompt is not None else ""
        return _braced(f"choose {s.var} in {expr(s.coll)}{prompt}{_by(s.by)}{label}", s.body, indent)
    if t is A.EndHand:
        return [f"{pad}end hand" + (f' "{s.reason}"' if s.reason is not None else "")]
    if t is A.Pass:
        return [f"{pad}pass {s.zone} to {'next' if s.step == 1 else 'previous'}"]
    if t is A.Together:
        inner = stmt(s.body[0], indent)
        inner[0] = f"{pad}together {s.var} in {expr(s.players)} {'secretly ' if s.secret else ''}" + inner[0].lstrip()
        return inner
    if t is A.Pick:
        prompt = f' "{s.prompt}"' if s.prompt is not None else ""
        return _braced(f"pick {'optional ' if s.optional else ''}{s.var} in {expr(s.coll)} spend {expr(s.cost)} "
                       f"within {expr(s.budget)}{prompt}{_by(s.by)}",
                       s.body, indent)
    if t is A.Do:
        return [f"{pad}{'perform' if s.main else 'do'} {expr(s.call)}"]
    if t is A.Actions:
        unless = (f" distinct unless {_named(s.elem)}{expr(s.unless)}" if s.unless is not None
                  else f" each at most {_named(s.elem)}{expr(s.most)}" if s.most is not None else "")
        return [f"{pad}actions {expr(s.count)} for {expr(s.player)} from {', '.join(s.names)}{unless}"]
    if t is A.Advance:
        head = f"advance {expr(s.piece)} on {s.track} by {expr(s.distance)}"
        out = [pad + head]
        if s.jump_var:
            out = _braced(f"{head} jumping {s.jump_var}", s.jump_body, indent)
        if s.pass_var:
            tail = _braced(f"passing {s.pass_var}", s.pass_body, indent)
            out = out[:-1] + [out[-1] + " " + tail[0].strip()] + tail[1:] if s.jump_var else \
                [pad + head + " " + tail[0].strip()] + tail[1:]
        return out
    if t is A.Put:
        return [f"{pad}put {expr(s.piece)} on {s.track} at {expr(s.pos)}"]
    if t is A.Place:
        return [f"{pad}place {expr(s.card)} on {expr(s.grid)} at {expr(s.cell)}"]
    if t is A.Give:
        return [f"{pad}give {s.marker} to {expr(s.to)}"]
    if t is A.Log:
        return [f'{pad}log "{s.text}"' + "".join(f", {expr(a)}" for a in s.args)]
    if t is A.Win:
        return [f'{pad}{"lose" if s.lose else "win"} {expr(s.player)} "{s.reason}"']
    if t is A.EndGame:
        return [f"{pad}end game" + (f' "{s.reason}"' if s.reason is not None else "")]
    raise TypeError(t.__name__)


def _field(f):
    default = f" = {expr(f.default)}" if f.default is not None else ""
    if f.type.name in ("set", "named_set"):
        kind = f"set of {f.type.named}" if f.type.named else f"set of enum({', '.join(f.type.values)})"
    else:
        kind = (f.type.named if f.type.named is not None
                else f"enum({', '.join(f.type.values)})" if f.type.name == "enum"
                else "list of int" if f.type.name == "list" else f.type.name)  # int, bool, text, action, formula
    return f"{f.name}: {kind}{default}"


def _assigns(assigns):
    return "{ " + " ".join(f"{a.name} = {expr(a.value)}" for a in assigns) + " }"


def _params(params):
    return ", ".join(p.name + (f": {param_type(p.type)}" if p.type is not None else "")
                     + (f" = {expr(p.default)}" if p.default is not None else "") for p in params)


def param_type(t) -> str:
    """A parameter's declared type as written."""
    return t.name if t.name is not None else f"list of {param_type(t.item)}"


def item(d) -> list[str]:
    """One declaration as lines."""
    t = type(d)
    if t is A.Game:
        opts = [f"players {d.min_players}..{d.max_players} default {d.default_players}"]
        if d.seats:
            opts.append("seats " + ", ".join(f'"{s}"' for s in d.seats))
        opts += [f'cards "{c.path}"' for c in d.cards]
        opts += [f"round_limit {d.round_limit}", f"step_budget {d.step_budget}",
                 f"decision_limit {d.decision_limit}"]
        if d.hand_limit != 100:
            opts.append(f"hand_limit {d.hand_limit}")
        return [f'game "{d.name}" {{', *("    " + o for o in opts), "}"]
    if t is A.ParamDecl:
        allowed = f" from {expr(d.allowed)}" if d.allowed is not None else ""
        return [f"param {d.name} = {expr(d.value)}{allowed}"]
    if t is A.EnumDecl:
        return [f"enum {d.name} {{ {', '.join(d.values)} }}"]
    if t is A.KindDecl:
        lines = ["    " + _field(f) for f in d.fields]
        lines += ["    " + item(attrs.evolve(c, keyed=False, card_kind=None))[0] for c in d.counters]
        for s in d.slots:
            lines.append(f"    slot {s.name}: {s.shape} of {s.kind}{_VISIBILITY[s.visibility]}"
                         + (f" limit {expr(s.limit)}" if s.limit is not None else ""))
        if d.faces:
            lines.append("    faces " + ", ".join(f.name for f in d.faces))
        for f in d.faces:
            if f.hidden or f.assigns:
                lines.append(f"    face {f.name}{' hidden' if f.hidden else ''} {_assigns(f.assigns)}")
        return [f"kind {d.name} {{", *lines, "}"]
    if t is A.ZoneDecl:
        opts = _VISIBILITY[d.visibility] + (" per player" if d.per_player else "") + (
            f" per {d.by}" if d.by else "") + (
            f" limit {expr(d.limit)}" if d.limit is not None else "") + (
            f" size {d.size}" if d.size != "public" else "")
        return [f"zone {d.name}: {d.shape} of {d.kind}{opts}"]
    if t is A.CounterDecl:
        opts = (" per player" if d.per_player else "") + (f" min {expr(d.low)}" if d.low is not None else "") + (
            f" max {expr(d.high)}" if d.high is not None else "") + _VISIBILITY[d.visibility]
        return [f"counter {d.name}{'[]' if d.keyed else ''} = {expr(d.init)}{opts}"]
    if t is A.MarkerDecl:
        return [f"marker {d.name}"]
    if t is A.PieceDecl:
        return [f"piece {d.name} on {d.track}"]
    if t is A.TrackDecl:
        lines = [f"track {d.name}: ring {d.size} {{", *("    " + _field(f) for f in d.fields)]
        lines += [f"    at {', '.join(map(str, idx))} {_assigns(a)}" for idx, a in d.spaces]
        return lines + ["}"]
    if t is A.GridDecl:
        head = (f"grid {d.name}: {d.width} x {d.height} of {d.kind}{_VISIBILITY[d.visibility]}"
                f"{' per player' if d.per_player else ''}")
        lines = [f"    cell {_field(f)}" for f in d.cell_fields] + [f"    line {_field(f)}" for f in d.line_fields]
        if d.edges:
            lines.append("    edges " + ", ".join(d.edges))
        if d.holes:
            lines.append("    hole " + ", ".join(f"({x}, {y})" for x, y in d.holes))
        lines += [f"    at {', '.join(f'({x}, {y})' for x, y in cells)} {_assigns(a)}" for cells, a in d.cells]
        lines += [f"    column {', '.join(map(str, c))} {_assigns(a)}" for c, a in d.columns]
        lines += [f"    row {', '.join(map(str, r))} {_assigns(a)}" for r, a in d.rows]
        return [head + " {", *lines, "}"] if lines else [head]
    if t is A.FuncDecl:
        return [f"def {d.name}({_params(d.params)}) = {expr(d.body)}"]
    if t is A.ActionDecl:
        if d.routine:
            return _braced(f"routine {d.name}({_params(d.params)})", d.body, 0)
        req = f" requires {expr(d.requires)}" if d.requires is not None else ""
        return _braced(f"action {d.name}({_params(d.params)}){req}", d.body, 0)
    if t is A.SetupDecl:
        return _braced("setup", d.body, 0)
    if t is A.HandDecl:
        out = ["hand {"]
        if d.start:
            out.extend(_braced("begin", d.start, 1))
        if d.cond is not None:
            out.append(f"    end if {expr(d.cond)}" + (f' "{d.reason}"' if d.reason is not None else ""))
        if d.finish:
            out.extend(_braced("finish", d.finish, 1))
        return out + ["}"]
    if t is A.RoundDecl:
        out = ["round {"]
        for ph in d.phases:
            out.extend(phase(ph, 1))
        return out + ["}"]
    if t is A.TriggerDecl:
        if d.event == "reach":
            return _braced(f"on reach ({d.names[0]}) {expr(d.cond)}", d.body, 0)
        return _braced(f"on {d.event} {d.target} ({', '.join(d.names)})", d.body, 0)
    if t is A.VictoryDecl:
        lines = [f"    score {s.name} = {expr(s.value)}" for s in d.scores]
        wins = d.reasons or ((d.win, None),)
        lines += [f"    win if {expr(c)}" + (f' "{r}"' if r is not None else "") for c, r in wins]
        lines += [f"    rank by {expr(d.rank)}"]
        return [f"victory for {d.var} after {d.after} {{", *lines, "}"]
    if t is A.EvaluateDecl:
        lines = [f"    score {s.name} = {expr(s.value)}" for s in d.scores]
        return [f"evaluate for {d.var} {{", *lines, f"    rank by {expr(d.value)}", "}"]
    if t is A.DisplayDecl:
        return ["display {", *(f'    score for {e.var} "{e.label}" = {expr(e.value)}' if isinstance(e, A.DisplayScore)
                               else f"    {e.what} {e.name}" + (f' "{e.text}"' if e.text is not None else "")
                               for e in d.entries), "}"]
    raise TypeError(t.__name__)


def phase(ph, indent: int) -> list[str]:
    """A phase declaration as lines."""
    mode = {"once": "", "each": f" each {ph.var}", "turns": f" turns {ph.var} from {expr(ph.start) if ph.start else ''}"}[ph.mode]
    return _braced(f"phase {ph.name}{mode}", ph.body, indent)


def program(items) -> str:
    """Every declaration, separated by blank lines."""
    return "\n\n".join("\n".join(item(d)) for d in items) + "\n"
