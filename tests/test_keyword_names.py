"""Names the rules may give to fields, zones and counters although they are words of the rules
language (`begin`, `finish`, `hand`, `together`, `pass`, `next`, `previous`, `secretly`) or of Python
(`pass`, `from`, `class`): a word is a keyword only where a keyword may stand."""
from __future__ import annotations

from interpreter.engine import Engine
from interpreter.tools.agents import make_agents, play

RULES = """
game "Words" { players 2..2 cards "words.toml" round_limit 3 }
kind Token { value: int; pass: int = 0; from: int = 0; class: int = 0; begin: int = 0; hand: int = 0; next: int = 0 }
zone hand: bag of Token per player
zone together: pile of Token
counter finish = 0
counter secretly = 0
setup { for p in players { create defs(Token) into p.hand } }
round {
    phase a each p {
        set finish += 1
        for c in p.hand { set secretly += c.pass + c.from + c.class + c.begin + c.hand + c.next }
        move top(p.hand) to together
        if finish >= 4 { end game }
    }
}
"""
CARDS = """
[[Token]]
name = "A"
value = 1
pass = 2
from = 3
class = 4
"""


def test_words_of_the_language_and_of_python_name_fields_zones_and_counters(tmp_path):
    (tmp_path / "words.toml").write_text(CARDS)
    (tmp_path / "words.lf").write_text(RULES)
    engine = Engine.load(tmp_path / "words.lf")
    st = engine.new_game(2, 1)
    play(engine, st, make_agents("random", 2, 1))
    # Each player held A (pass 2 + from 3 + class 4 = 9) once before playing it.
    assert st.counters["secretly"] == 18 and len(st.zones["together"]) == 2
