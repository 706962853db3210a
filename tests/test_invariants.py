"""Properties of the base game that must hold after any sequence of legal choices."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st_


def check_invariants(engine, st):
    # Every card is in exactly one place, and the place agrees with the card's location.
    seen = {}
    for key, cards in st.zones.items():
        for c in cards:
            assert c not in seen, f"card {c} in {seen.get(c)} and {key}"
            seen[c] = key
            assert st.loc[c] == key
    for key, cells in st.grids.items():
        for c in cells.values():
            if c is not None:
                assert c not in seen
                seen[c] = key
                assert st.loc[c] == key
    assert len(seen) == len(st.card_def)
    # Fragments are conserved: the pool plus what players hold.
    assert st.counters["fragment_pool"] + sum(st.counters["fragments"]) == 20
    assert min(st.counters["fragments"]) >= 0
    assert len(st.zones["circle_fires"]) <= engine.params["fire_cap"]
    # Reserve rows never exceed their limit; pieces stand on distinct rocks.
    for row in ("reserve1", "reserve2", "reserve3"):
        assert len(st.zones[row]) <= 4
    positions = list(st.tracks["circle"].values())
    assert len(set(positions)) == len(positions)
    # The pending decision offers distinct options.
    if st.pending:
        opts = st.pending["options"]
        assert opts and len(set(opts)) == len(opts)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(players=st_.integers(2, 4), seed=st_.integers(0, 2**32),
       picks=st_.lists(st_.integers(0, 1000), min_size=50, max_size=400))
def test_invariants_hold_along_any_play(base_engine, players, seed, picks):
    st = base_engine.new_game(players, seed)
    check_invariants(base_engine, st)
    for pick in picks:
        if base_engine.is_over(st):
            break
        options = base_engine.legal(st)
        base_engine.apply(st, pick % len(options))
        check_invariants(base_engine, st)
