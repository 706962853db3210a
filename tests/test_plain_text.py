"""Text from a ruleset or the command line is shown as the characters it holds: a card named `[/]`,
`[link=...]`, `[bold red]`, `[@click=app.quit]x`, `$\\foo{$` or holding a terminal sequence reads
as written in `lfdsl simulate` (table, JSON, report), `compare`, `tournament`, `fit-eval` and at
the table of `lfdsl play`, and nothing of it becomes markup, a hyperlink or a crash."""
from __future__ import annotations

import asyncio
import html
import json

import tomli_w

from interpreter.tools.cli import build_parser, main, play_app
from interpreter.tools.plaintext import visible

from .conftest import ROOT

NAMES = ["[/]", "[link=https://example.com]x[/link]", "[bold red]", "[@click=app.quit]x", "$\\foo{$",
         "\x1b]8;;https://example.com\x1b\\y"]
GAME = "[bold red]Markup[/] [link=https://example.com]game[/link]"
PROMPT = "[@click=app.quit]take[/] one [/]"
REASON = "[/] won [link=https://example.com]here[/link]"
OSC8 = "\x1b]8;"  # the start of a terminal hyperlink

RULES = """\
game "{game}" {{
    players 2..2 default 2
    cards "cards.toml"
    round_limit 5
}}
param goal = 3
kind Token {{
    value: int
}}
zone bag: pile of Token
zone taken: pile of Token per player
counter points = 0 per player
setup {{
    create defs(Token) into bag
}}
round {{
    phase play each p {{
        choose c in bag "{prompt}" {{
            set p.points += c.value
            move c to p.taken
        }}
    }}
}}
victory for p after play {{
    score points = p.points
    win if points >= goal "{reason}"
    rank by points
}}
evaluate for p {{
    score points = p.points
    rank by points
}}
"""


def hostile(tmp_path):
    """The ruleset, in a folder whose name is markup too."""
    folder = tmp_path / "[bold red]rules [link=https:"
    folder.mkdir()
    (folder / "cards.toml").write_text(tomli_w.dumps(
        {"Token": [{"name": n, "value": v} for n, v in zip(NAMES, (1, 2, 3, 1, 2, 1))]}))
    rules = folder / "markup.lf"
    rules.write_text(RULES.format(game=GAME, prompt=PROMPT, reason=REASON))
    return rules


def test_the_lab_shows_ruleset_text_as_written(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")
    monkeypatch.setenv("FORCE_COLOR", "1")  # Rich writes for a terminal: styles, and links if any
    rules = hostile(tmp_path)
    out_json, page = tmp_path / "out.json", tmp_path / "out.html"
    assert main(["simulate", str(rules), "--agents", "random", "--games", "20", "--workers", "1",
                 "--json", str(out_json), "--report", str(page)]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out_json.read_text())
    assert sorted(data["cards"]) == sorted(NAMES)
    assert data["end_reasons"] and all(r.startswith(REASON) for r in data["end_reasons"])
    for name in NAMES:
        assert visible(name) in out
    assert REASON in out and GAME in out
    assert OSC8 not in out and OSC8 not in err
    text = page.read_text()
    assert html.escape(REASON) in text and html.escape(GAME) in text
    assert text.count("<svg") == 5  # the chart of the cards drawn, `$\foo{$` among its labels

    assert main(["simulate", str(rules), "--agents", "random", "--games", "10", "--workers", "1",
                 "--sweep", "goal=2..3"]) == 0
    out, err = capsys.readouterr()
    assert REASON in out and OSC8 not in out + err

    assert main(["compare", str(rules), "--set-b", "goal=2", "--agents", "random", "--games", "10",
                 "--workers", "1"]) == 0
    out, err = capsys.readouterr()
    assert f"A: {rules}" in out and REASON in out and OSC8 not in out + err

    assert main(["tournament", str(rules), "--bots", "random,first", "--games", "4"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith(GAME) and OSC8 not in out + err

    assert main(["fit-eval", str(rules), "--agents", "random", "--games", "30"]) in (0, 2)
    out, err = capsys.readouterr()
    assert out.startswith(GAME) and OSC8 not in out + err and "Traceback" not in err


def test_the_table_shows_ruleset_text_as_written(tmp_path):
    rules = hostile(tmp_path)
    save = tmp_path / "[bold]no such folder[/]" / "game.json"
    app = play_app(build_parser().parse_args(["play", str(rules), "--agents", "human,random", "--seed", "3",
                                              "--save", str(save)]))

    async def look():
        async with app.run_test(size=(140, 40), notifications=True) as pilot:
            await pilot.pause()
            options = app.query_one("#options")
            labels = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
            seen = {"prompt": str(app.query_one("#prompt").render()), "board": str(app.query_one("#board").render()),
                    "labels": labels, "title": app.title}
            await pilot.press("h", "s")  # the rule's source lines, a save that cannot be written
            await pilot.pause()
            seen["notes"] = [n.message for n in app._notifications]
            await pilot.press("1")
            await pilot.pause()
            seen["events"] = "\n".join(str(line) for line in app.query_one("#events").lines)
            return seen
    seen = asyncio.run(look())
    assert app.failure is None
    assert seen["title"] == GAME
    assert seen["prompt"].startswith(f"P1, {PROMPT}:")
    # Each option a card: its name, then its summary (the default: its fields, `value N`).
    assert sorted(label.split(". ", 1)[1].rsplit("  (value ", 1)[0] for label in seen["labels"]) == \
        sorted(visible(n) for n in NAMES)
    for name in NAMES:
        assert visible(name) in seen["board"]
    assert OSC8 not in seen["board"] and OSC8 not in seen["events"]
    rule, refused = seen["notes"]
    assert f'choose c in bag "{PROMPT}"' in rule
    assert refused.startswith(f"Cannot save to {save}: ")
    assert PROMPT in seen["events"]


def test_a_failure_inside_the_table_is_an_internal_error_not_a_success(monkeypatch, capsys):
    from textual.app import App

    from interpreter.table.app import PlayApp

    def broken(self):
        raise RuntimeError("a fault of the table")
    monkeypatch.setattr(PlayApp, "redraw", broken)
    monkeypatch.setattr(PlayApp, "run", lambda self: App.run(self, headless=True))
    assert main(["play", str(ROOT / "rulesets" / "duel.lf"), "--agents", "random", "--seed", "3"]) == 4
    err = capsys.readouterr().err
    assert "lfdsl: internal error (RuntimeError: a fault of the table)" in err
    assert "Traceback" not in err


def test_the_plain_commands_never_write_a_control_character_of_the_ruleset(tmp_path, capsys):
    """`run`'s log and header, `check`'s line, a tournament's header and an error's source line print a card's
    terminal sequence as escapes, the caret still under the mistake."""
    rules = hostile(tmp_path)
    text = rules.read_text().replace('"cards.toml"', '"cards.toml"  # \x1b[2J', 1).replace('game "', 'game "\x1b[2J', 1)
    rules.write_text(text)
    assert main(["check", str(rules)]) == 0
    assert main(["run", str(rules), "--agents", "random", "--seed", "3"]) == 0
    assert main(["tournament", str(rules), "--bots", "first,random", "--games", "2"]) == 0
    bad = rules.parent / "bad.lf"
    bad.write_text(text.replace("move c to p.taken", "move c to p.takne  # \x1b[31m"))
    assert main(["check", str(bad)]) == 2
    out, err = capsys.readouterr()
    for stream in (out, err):
        assert "\x1b" not in stream and "\x9b" not in stream
    assert "\\x1b]8;;https://example.com\\x1b\\y" in out
    shown = next(line for line in err.splitlines() if "p.takne" in line)
    caret = err.splitlines()[err.splitlines().index(shown) + 1]
    assert shown[caret.index("^"):].startswith("p.takne")


def test_an_escaped_control_character_before_the_mistake_moves_the_caret_with_it():
    from rulesdsl.errors import Diagnostic
    text = Diagnostic("f.lf", 1, 5, "no `bad`", "a \x1b hint", "a\x1bb bad c", 1, 8).render()
    assert "\x1b" not in text
    assert text.splitlines() == ["f.lf:1:5: no `bad`", "    a\\x1bb bad c", "           ^^^",
                                 "    hint: a \\x1b hint"]
