"""A choice with nothing to offer is skipped in both forms: `choose x in` an empty collection and
`choose ["prompt"] { option ... }` with no available option ask nothing and run no body."""
from __future__ import annotations

import pytest

from interpreter.engine import Engine

from .conftest import ROOT

RULES = """
game "Empty" {{
    players 1..1
    cards "{cards}"
}}
kind Token {{ value: int }}
zone bag: bag of Token
zone hand: row of Token per player
counter seen = 0
round {{
    phase a each p {{
        {choice}
        set seen += 1
        choose "continue?" {{
            option go {{ }}
        }}
    }}
}}
"""

FORMS = {
    "item": "choose c in p.hand { set seen += 100 }",
    "item by": "choose c in p.hand by p { set seen += 100 }",
    "options": "choose { option keep if count(p.hand) > 0 { set seen += 100 } }",
    "labelled options": 'choose "Keep or pass?" { option keep if count(p.hand) > 0 { set seen += 100 }'
                        ' option pass if count(p.hand) > 1 { set seen += 200 } }',
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_empty_choice_is_skipped(tmp_path, form):
    path = tmp_path / "empty.lf"
    (path.parent / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    path.write_text(RULES.format(cards="tiny.toml", choice=FORMS[form]))
    engine = Engine.load(path)
    st = engine.new_game(1, 1)
    # The empty choice asked nothing and ran no option; the statement after it ran.
    assert st.pending is not None and st.pending["prompt"] == "continue?"
    assert st.counters["seen"] == 1
