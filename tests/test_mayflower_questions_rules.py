"""Carcassonne – Mayflower: what the table asks instead of guessing (whose turn, the west edge, the tally)."""

from __future__ import annotations

import pytest

from companion.games.common import PlaySetup, RulesError, Seat
from companion.games.mayflower import (
    WestQuestion,
    apply_event,
    check_entry,
    final_features_of,
    final_slots,
    initial_state,
    next_turn,
    settle_final_features,
    turn_taken_since,
    west_question,
)

ANNA, BEN, CARA = 0, 1, 2


def fold(events):
    state = initial_state(PlaySetup("mayflower", tuple(Seat(n, "red") for n in ("Anna", "Ben", "Cara"))))
    for kind, payload in events:
        state = apply_event(state, kind, payload)
    return state


def place(seat, role, column):
    return ("place", {"seat": seat, "role": role, "column": column})


def road(*settlers, tiles=2):
    return {"kind": "road", "tiles": tiles, "settlers": list(settlers)}


@pytest.mark.parametrize(("events", "turn"), [
    pytest.param([], ANNA, id="first-turn"),
    pytest.param([place(ANNA, "bandit", 1)], BEN, id="after-a-placement"),
    pytest.param([place(ANNA, "bandit", 1), ("no_settler", {"seat": BEN})], CARA, id="after-no-settler"),
    pytest.param([("no_settler", {"seat": CARA})], ANNA, id="round-the-table"),
    pytest.param([place(ANNA, "bandit", 1), ("complete", {"features": [road("0-1")]})], BEN,
                 id="a-scoring-is-no-turn"),
])
def test_whose_turn_follows_turns_without_a_settler(events, turn):
    assert next_turn(fold(events)) == turn


def test_no_settler_scores_nothing_and_is_checked():
    state = fold([("no_settler", {"seat": BEN})])
    assert state.scores == (0, 0, 0) and state.settlers == ()
    for payload, path in (({"seat": 3}, "seat"), ({"seat": 0, "role": "bandit"}, "role")):
        with pytest.raises(RulesError) as caught:
            apply_event(state, "no_settler", payload)
        assert caught.value.path == path


@pytest.mark.parametrize(("column", "west_edge"), [(3, 3), (12, 12), (95, 95)])
def test_a_placement_anywhere_west_of_the_coast_extends_the_map(column, west_edge):
    state = fold([place(ANNA, "farmer", column)])
    assert state.west_edge == west_edge and not state.map_ends


# Surveyors start on the coast; the reference game's step 17: both in one column and nothing said.
SHARED_AT_2 = [place(ANNA, "bandit", 1), ("complete", {"features": [road("0-1")]}),  # → [1, 0]
               place(BEN, "bandit", 2), ("complete", {"features": [road("1-1")]}),  # → [1, 1]
               place(CARA, "bandit", 2), ("complete", {"features": [road("2-1")]}),  # → [2, 1]
               place(ANNA, "bandit", 2), ("complete", {"features": [road("0-2")]})]  # → [2, 2]


@pytest.mark.parametrize(("events", "features", "asked"), [
    pytest.param([place(ANNA, "bandit", 1)], [road("0-1")], None, id="a-settler-west-of-the-coast"),
    pytest.param([*SHARED_AT_2, place(CARA, "bandit", 2)], [road("2-2")], 2, id="shared-column-unknown"),
    pytest.param([*SHARED_AT_2, place(CARA, "bandit", 3)], [road("2-2")], None, id="a-settler-stood-west"),
    pytest.param([*SHARED_AT_2, place(CARA, "bandit", 2), ("west_edge", {"column": 2})], [road("2-2")],
                 None, id="edge-set"),
    pytest.param([*SHARED_AT_2, place(CARA, "bandit", 2), ("west_edge", {"column": 2}),
                  ("no_settler", {"seat": ANNA})], [road("2-2")], 2, id="a-tile-without-settler-since"),
    # said in an earlier turn: this scoring's tile may be one laid west of it since and not entered yet
    pytest.param([*SHARED_AT_2, ("west_edge", {"column": 2}), place(CARA, "bandit", 2)], [road("2-2")],
                 2, id="a-settler-placed-since-the-edge-was-said"),
    pytest.param([*SHARED_AT_2, place(CARA, "bandit", 2), ("west_edge", {"column": 2}),
                  ("complete", {"features": [road()]})], [road("2-2")], 2, id="a-scoring-since-the-edge"),
    pytest.param([*SHARED_AT_2, place(CARA, "bandit", 2), ("west_edge", {"column": 3})], [road("2-2")],
                 None, id="tiles-said-to-reach-further-west"),
    pytest.param([*SHARED_AT_2, place(CARA, "bandit", 2)], [road()], None, id="nobody-scores-no-move"),
    pytest.param([*SHARED_AT_2, place(CARA, "bandit", 2), place(ANNA, "bandit", 2)],
                 [road("2-2"), road("0-3")], 2, id="first-feature-asks"),
])
def test_west_question(events, features, asked):
    assert west_question(fold(events), {"features": features}) == asked


def test_the_answer_decides_the_move_and_is_kept():
    state = fold([*SHARED_AT_2, place(CARA, "bandit", 2)])
    with pytest.raises(WestQuestion) as caught:
        check_entry(state, "complete", {"features": [road("2-2")]})
    assert caught.value.column == 2 and caught.value.path == "west_of"
    assert "west of column 2" in str(caught.value)
    for tile, surveyors, edge, ends in ((True, [3, 2], 3, False), (False, [2, 2], 2, True)):
        payload = {"features": [road("2-2")], "west_of": [{"column": 2, "tile": tile}]}
        check_entry(state, "complete", payload)
        after = apply_event(state, "complete", payload)
        assert (after.surveyors.as_list(), after.west_edge, after.map_ends) == (surveyors, edge, ends)
        assert after.scores[CARA] - state.scores[CARA] == 2 + 8


def test_a_second_move_in_one_tile_asks_again():
    state = fold([*SHARED_AT_2, place(CARA, "bandit", 2), place(ANNA, "bandit", 2), place(BEN, "bandit", 3)])
    payload = {"features": [road("2-2"), road("0-3"), road("1-2")], "west_of": [{"column": 2, "tile": True}]}
    # [2, 2] → [3, 2] → [3, 3]: now the table is asked about column 3
    assert west_question(state, payload) == 3
    payload["west_of"].append({"column": 3, "tile": False})
    assert west_question(state, payload) is None


@pytest.mark.parametrize(("answers", "path"), [
    ("yes", "west_of"),
    ([{"column": 2}], "west_of[0]"),
    ([{"column": 2, "tile": "yes"}], "west_of[0]"),
    ([{"column": -1, "tile": True}], "west_of[0].column"),
    ([{"column": 2, "tile": True, "x": 1}], "west_of[0].x"),
    ([{"column": 1, "tile": False}], "west_of[0].column"),  # a settler stands in column 2
])
def test_west_answers_refused(answers, path):
    state = fold([*SHARED_AT_2, place(CARA, "bandit", 2)])
    with pytest.raises(RulesError) as caught:
        apply_event(state, "complete", {"features": [road("2-2")], "west_of": answers})
    assert caught.value.path == path


def test_a_stored_scoring_without_an_answer_keeps_what_it_scored():
    state = fold([*SHARED_AT_2, place(CARA, "bandit", 2), ("complete", {"features": [road("2-2")]})])
    assert state.surveyors.as_list() == [3, 2]
    # stored after the map's end was said and a tile laid without a settler: the map ended there
    state = fold([*SHARED_AT_2, place(CARA, "bandit", 2), ("west_edge", {"column": 2}),
                  ("no_settler", {"seat": ANNA}), ("complete", {"features": [road("2-2")]})])
    assert state.surveyors.as_list() == [2, 2]


def test_a_tile_laid_without_a_settler_after_no_tile_west_asks_again():
    # "no tile west of column 2" was true then; Anna's next tile, without a settler, may lie in column 3
    state = fold([*SHARED_AT_2, place(CARA, "bandit", 2),
                  ("complete", {"features": [road("2-2")], "west_of": [{"column": 2, "tile": False}]}),
                  ("no_settler", {"seat": ANNA}), place(BEN, "bandit", 2), place(CARA, "bandit", 2)])
    assert state.surveyors.as_list() == [2, 2] and not state.map_end_known
    payload = {"features": [road("1-2"), road("2-3")]}
    with pytest.raises(WestQuestion) as caught:
        check_entry(state, "complete", payload)
    assert caught.value.column == 2
    answered = {**payload, "west_of": [{"column": 2, "tile": True}]}
    check_entry(state, "complete", answered)
    after = apply_event(state, "complete", answered)
    # Ben's road moves north to 3; Cara's then finds the surveyors in columns 3 and 2: 2 + 4
    assert [scoring.points for scoring in after.last_scoring] == [(0, 10, 0), (0, 0, 6)]
    assert after.surveyors.as_list() == [3, 3]


# Anna's bandit scored in column 5 and went home; the surveyors stand in column 1
GONE_HOME_FROM_5 = [place(ANNA, "bandit", 5), ("complete", {"features": [road("0-1", tiles=5)]}),
                    place(BEN, "bandit", 1), ("complete", {"features": [road("1-1")]}),
                    place(CARA, "bandit", 1)]


@pytest.mark.parametrize(("kind", "payload", "path"), [
    ("west_edge", {"column": 1}, "column"),
    ("complete", {"features": [road("2-1")], "west_of": [{"column": 1, "tile": False}]}, "west_of[0].column"),
])
def test_the_map_cannot_end_east_of_a_tile_a_settler_stood_on(kind, payload, path):
    state = fold(GONE_HOME_FROM_5)
    assert state.settlers[-1].column == 1 and state.surveyors.as_list() == [1, 1]
    apply_event(state, kind, payload)  # a log stored before this check still replays
    with pytest.raises(RulesError) as caught:
        check_entry(state, kind, payload)
    assert caught.value.path == path and "column 5" in str(caught.value)
    check_entry(state, "west_edge", {"column": 5})


@pytest.mark.parametrize(("events", "seat"), [
    ([], None),
    ([("complete", {"features": []}), ("west_edge", {"column": 3})], None),
    ([("place", {"seat": CARA}), ("complete", {})], CARA),
    ([("place", {"seat": CARA}), ("no_settler", {"seat": ANNA})], ANNA),
])
def test_turn_taken_since(events, seat):
    assert turn_taken_since(events) == seat


# --- the final tally as tapped, one feature at a time ----------------------------------------------------

def example_6_slots():
    """Worked example 6's map: Anna's sheriff (2), Ben's farmer (3), trappers 0-2 (1), 0-3 (4), 1-2, 1-3."""
    state = fold([("west_edge", {"column": 4}), place(ANNA, "sheriff", 2), place(BEN, "farmer", 3),
                  place(ANNA, "trapper", 1), place(ANNA, "trapper", 4), place(BEN, "trapper", 1),
                  place(BEN, "trapper", 2)])
    return final_slots(state)


EXAMPLE_6 = [{"settlers": ["0-1"], "tiles": 3, "flags": 1}, {"settlers": ["1-1"], "neighbours": 5},
             {"settlers": ["1-3", "0-2", "0-3", "1-2"], "animals": 3}]


def test_settle_final_features_example_6():
    tally = settle_final_features(["Anna", "Ben", "Cara"], [0, 0, 0], example_6_slots(), EXAMPLE_6)
    assert [player.total for player in tally.result.players] == [7, 9, 0]
    # the letters of the stored tally: a feature keeps its westmost settler's, whatever the tap order
    assert [(f["letter"], f["kind"]) for f in tally.payload()["features"]] == [
        ("A", "city"), ("B", "farm"), ("C", "plain")]
    assert final_features_of(tally.payload())[0] == {"settlers": ["0-1"], "tiles": 3, "flags": 1}


@pytest.mark.parametrize(("features", "path", "message"), [
    pytest.param(EXAMPLE_6[:2], "features", "Anna's trapper in column 4 is on no feature yet",
                 id="a-settler-left-out"),
    pytest.param([{"settlers": ["0-1", "0-2"]}, *EXAMPLE_6[1:]], "features[0]",
                 "cannot share a feature: a city holds sheriffs only", id="two-kinds"),
    pytest.param([*EXAMPLE_6, {"settlers": ["0-2"], "animals": 1}], "features[3]", "is on two features",
                 id="a-settler-twice"),
    pytest.param([{"settlers": []}], "features[0]", "Tap the settlers on feature 1", id="no-settler"),
    pytest.param([{"settlers": ["9-9"]}], "features[0]", "not on the map", id="unknown-settler"),
    pytest.param([{**EXAMPLE_6[0], "flags": 4}, *EXAMPLE_6[1:]], "features[0].flags", "4 is more than 3",
                 id="more-flags-than-tiles"),
    pytest.param([EXAMPLE_6[0], {"settlers": ["1-1"], "neighbours": 8}, EXAMPLE_6[2]],
                 "features[1].neighbours", "0 to 7", id="eight-neighbours"),
    pytest.param([EXAMPLE_6[0], {"settlers": ["1-1"], "neighbours": "5"}, EXAMPLE_6[2]],
                 "features[1].neighbours", "0 to 7", id="a-size-not-a-number"),
])
def test_settle_final_features_refuses(features, path, message):
    with pytest.raises(RulesError, match=message) as caught:
        settle_final_features(["Anna", "Ben", "Cara"], [0, 0, 0], example_6_slots(), features)
    assert caught.value.path == path
