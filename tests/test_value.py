"""Restricted play (issue 30, point 1; interpreter/lab/value.py): what a card, an option or an action
is worth, as the drop of a seat's win rate when it may not take it, in games paired by seed with
the unrestricted ones. The planted test: a variant of base with one card made far stronger and one
made useless."""
from __future__ import annotations

import json

import pytest

from interpreter.engine import Engine, Option
from interpreter.lab import value as V
from interpreter.tools.cli import main

from .conftest import ROOT

PLANTED = ROOT / "tests" / "rulesets" / "variants" / "planted.lf"


@pytest.fixture(scope="module")
def planted():
    return Engine.load(PLANTED)


def test_the_planted_strong_card_ranks_first_and_the_useless_one_last(planted):
    # Random bots, so that the games are quick: the seat that never takes the Meerkat (twelve
    # flowers) wins less often; the one that never takes the Raven (nothing for its price) does not.
    base = V.baseline(planted, 2, "random", 200, "cards")
    offered = dict(V.items_offered(base))
    assert offered["Meerkat"] > 0 and offered["Raven"] > 0
    rows = V.worth(base, V.restricted(planted, 2, "random", 200, "cards", ["Raven", "Meerkat"], base=base))
    assert [r["item"] for r in rows] == ["Meerkat", "Raven"]
    strong, useless = rows
    assert strong["interval95"][0] > 0 and strong["significant"] and strong["steered_games"] > 0
    assert useless["interval95"][0] <= 0 <= useless["interval95"][1] and not useless["significant"]
    assert useless["steered_games"] > 0  # the bot took it now and then, and was made to leave it
    assert strong["games"] == useless["games"] == 200 and strong["baseline"] == useless["baseline"]


def test_a_game_the_restriction_cannot_change_is_the_baselines_and_is_not_played_again(planted):
    # Until its first bite a restricted game is the baseline's move for move: the games where the
    # baseline's seat never took the item (never passed it by) are reused, and reusing them gives
    # the records that playing them gives.
    for mode in V.MODES:
        base = V.baseline(planted, 2, "random", 12, "cards")
        played = V.restricted(planted, 2, "random", 12, "cards", ["Meerkat", "Raven"], mode)
        reused = V.restricted(planted, 2, "random", 12, "cards", ["Meerkat", "Raven"], mode, base=base)
        key = "took" if mode == "avoid" else "passed"
        for item, games in played.items():
            keys = ("seed", "seat", "status", "won", "steered")
            assert [[g[k] for k in keys] for g in games] == [[g[k] for k in keys] for g in reused[item]]
            same = [g for g, b in zip(games, base) if item not in b[key]]
            assert same and all(g["steered"] == 0 for g in same)
            assert any(g["steered"] for g in games) == any(item in b[key] for b in base)


def _option(oid, label, index):
    return Option(oid, label, None, index)


class _First:
    bot = True
    uses_view = False

    def choose(self, options, view):
        return options[0]


def test_a_steered_seat_leaves_the_item_or_takes_it_and_takes_it_when_nothing_else_is_offered(planted):
    meerkat = planted.names.index("Meerkat")
    other = planted.names.index("Raven")
    offer = [_option(f"card:{meerkat}@line", "Meerkat", 0), _option(f"card:{other}@line", "Raven", 1)]
    avoid = V.Steered(_First(), planted, "cards", "Meerkat", "avoid")
    take = V.Steered(_First(), planted, "cards", "Raven", "take")
    assert avoid.choose(offer, None).label == "Raven" and take.choose(offer, None).label == "Raven"
    assert avoid.choose(offer[:1], None).label == "Meerkat"  # the rules ask it to choose
    assert avoid.steered == 1 and take.steered == 1
    # Where the bot's own choice keeps the rule, the restriction does not bite.
    assert avoid.choose(offer[::-1], None).label == "Raven" and take.choose(offer[::-1], None).label == "Raven"
    assert avoid.steered == 1 and take.steered == 1
    # A card not seen where it lies is no known card; a labelled option or an action by its label.
    assert V.item_of(planted, _option("card:?2@P1.hand", "card 2 of P1.hand", 0), "cards") is None
    assert V.item_of(planted, _option("option:stop", "stop", 0), "options") == "stop"
    assert V.item_of(planted, _option("option:stop", "stop", 0), "actions") is None
    assert V.item_of(planted, _option("action:plant", "plant", 0), "actions") == "plant"


def test_the_paired_interval_does_not_shrink_to_a_point():
    low, high = V.paired_interval(0, 0, 100)
    assert low < 0 < high and high == pytest.approx(-low)
    # Agresti and Min: b, c = 8.5, 0.5 of n = 102: (8/102) -/+ 1.96 * sqrt(9 - 64/102) / 102.
    low, high = V.paired_interval(8, 0, 100)
    half = 1.959963984540054 * (9 - 64 / 102) ** 0.5 / 102
    assert (low, high) == pytest.approx((8 / 102 - half, 8 / 102 + half))


def test_the_same_games_on_any_number_of_workers(planted):
    one = V.restricted(planted, 2, "random", 6, "cards", ["Meerkat", "Raven"], "take", workers=1)
    two = V.restricted(planted, 2, "random", 6, "cards", ["Meerkat", "Raven"], "take", workers=2)
    assert one == two


def test_the_value_command_prints_the_table_and_writes_json_and_a_page(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)  # as a pipe would be: no width asked for
    out_json, page = tmp_path / "v.json", tmp_path / "v.html"
    code = main(["value", str(PLANTED), "--players", "2", "--agents", "random", "--games", "12", "--workers", "1",
                 "--top", "3", "--json", str(out_json), "--report", str(page)])
    printed = capsys.readouterr().out
    assert code == 0
    doc = json.loads(out_json.read_text())
    assert doc["kind"] == "cards" and doc["mode"] == "avoid" and len(doc["rows"]) == 3
    most = sorted(doc["offered"].items(), key=lambda kv: (-kv[1], kv[0]))[:3]
    assert {r["item"] for r in doc["rows"]} == {name for name, _ in most}
    for r in doc["rows"]:
        assert r["item"] in printed and r["games"] == 12
    assert "McNemar's exact test" in printed and "Agresti-Min" in printed
    assert "…" not in printed  # written to a pipe, the table is as wide as it needs, not cut at 80 columns
    html = page.read_text()
    assert "<svg" in html and "what each card is worth" in html


def test_the_value_command_says_which_item_was_never_offered(capsys):
    code = main(["value", str(PLANTED), "--players", "2", "--agents", "random", "--games", "4", "--workers", "1",
                 "--only", "Meerkat,Meerkot"])
    err = capsys.readouterr().err
    assert code != 0 and "--only" in err and "Meerkot" in err and "Traceback" not in err


def test_compare_values_the_cards_the_two_sides_define_otherwise(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    out = tmp_path / "cmp.json"
    page = tmp_path / "cmp.html"
    assert main(["compare", str(ROOT / "rulesets" / "base.lf"), str(PLANTED), "--players", "2", "--agents", "random",
                 "--games", "20", "--workers", "1", "--json", str(out), "--report", str(page)]) == 0
    changed = json.loads(out.read_text())["changed_cards"]
    assert sorted(changed) == ["Meerkat", "Raven"]  # the planted layer's two amended cards, and no other
    meerkat = changed["Meerkat"]
    assert meerkat["a"]["games"] == meerkat["b"]["games"] == 20
    assert meerkat["b"]["drop"] > meerkat["a"]["drop"]  # twelve flowers are worth more than the printed card
    printed = capsys.readouterr().out
    assert "Worth of the changed cards" in printed and "planted.lf: drop [95%]" in printed
    assert "Worth of the changed cards" in page.read_text()
    assert main(["compare", str(ROOT / "rulesets" / "base.lf"), str(PLANTED), "--players", "2", "--agents",
                 "random", "--games", "4", "--workers", "1", "--no-value", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["changed_cards"] == {}
