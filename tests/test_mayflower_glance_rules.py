"""Carcassonne – Mayflower at a glance: who the next scoring sends home, and what Score would do.

The preview of a completion must be what the scoring then does, for every scoring of the reference
game, with the west edge tapped and with the table answering the west question instead.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.games.common import PlaySetup, Seat
from companion.games.mayflower import (
    PlayState,
    Settler,
    Surveyors,
    WestQuestion,
    apply_event,
    check_entry,
    initial_state,
    next_evictions,
    preview_completion,
)

REFERENCE = json.loads((Path(__file__).parent / "reference_games" / "mayflower.json").read_text("utf-8"))


@pytest.mark.parametrize(("surveyors", "settlers", "marked"), [
    # worked example 1: north moves to 3; Cara's sheriff in column 2 goes, her trapper stays, and
    # Anna's bandit in column 2 goes home as well (with the road's points, or evicted by another feature)
    pytest.param((2, 3), [("0-1", 0, "bandit", 2), ("1-1", 1, "bandit", 3), ("2-1", 2, "sheriff", 2),
                          ("2-2", 2, "trapper", 1)], {"0-1", "2-1"}, id="example-1"),
    # worked example 4: no surveyor moves, and the farmer placed east of them after the last move goes
    pytest.param((7, 7), [("0-1", 0, "farmer", 6), ("1-1", 1, "bandit", 7)], {"0-1"}, id="example-4"),
    pytest.param((3, 2), [("0-1", 0, "farmer", 2), ("1-1", 1, "sheriff", 3)], {"0-1"}, id="south-catches-up"),
    pytest.param((2, 2), [("0-1", 0, "bandit", 2), ("1-1", 1, "trapper", 1), ("1-2", 1, "sheriff", 1)],
                 {"1-2"}, id="shared-column"),
    pytest.param((0, 0), [("0-1", 0, "bandit", 1)], set(), id="from-the-coast"),
])
def test_next_evictions_are_the_settlers_east_of_the_surveyors_after_their_next_move(surveyors, settlers,
                                                                                      marked):
    state = PlayState(3, tuple(Settler(*s) for s in settlers), Surveyors(*surveyors))
    assert {s.id for s in next_evictions(state)} == marked


def reference_scorings(tap_edges: bool):
    """Each completion of the reference game: (step number, table before it, its payload)."""
    state = initial_state(PlaySetup("mayflower", tuple(Seat(name, "red") for name in REFERENCE["players"])))
    for number, step in enumerate(REFERENCE["steps"], start=1):
        if step["action"] == "place":
            state = apply_event(state, "place", {k: step[k] for k in ("seat", "role", "column")})
        elif step["action"] == "west_edge" and tap_edges:
            state = apply_event(state, "west_edge", {"column": step["column"]})
        elif step["action"] == "complete":
            yield number, step, state
            state = apply_event(state, "complete", answered(state, step))


def answered(state, step) -> dict:
    """The step's completion with every west question the table is asked answered as the map is."""
    payload = {"features": step["features"]}
    while (column := preview_completion(state, payload)[2]) is not None:
        payload = {**payload, "west_of": [*payload.get("west_of", []),
                                          {"column": column, "tile": step["west_edge"] > column}]}
    return payload


SCORINGS = [pytest.param(step, state, id=f"step-{number}{'' if edges else '-asked'}")
            for edges in (True, False) for number, step, state in reference_scorings(edges)]


@pytest.mark.parametrize(("step", "state"), SCORINGS)
def test_the_preview_is_what_the_scoring_then_does(step, state):
    payload = answered(state, step)
    scorings, points, question = preview_completion(state, payload)
    assert question is None
    assert scorings == apply_event(state, "complete", payload).last_scoring
    names = REFERENCE["players"]
    assert dict(zip(names, points, strict=True)) == step["expect"]["points"]
    assert [dict(zip(names, s.points, strict=True)) for s in scorings] == [
        f["points"] for f in step["expect"]["features"]]
    assert [list(s.evicted) for s in scorings] == [f["evicted"] for f in step["expect"]["features"]]


ASKED = [s for s in SCORINGS if preview_completion(s.values[1], {"features": s.values[0]["features"]})[2]]


def test_a_table_that_never_taps_the_edge_is_asked_once_in_the_reference_game():
    assert [s.id for s in ASKED] == ["step-18-asked"]


@pytest.mark.parametrize(("step", "state"), ASKED)
def test_an_open_west_question_ends_the_preview_at_the_move_that_waits_on_it(step, state):
    payload = {"features": step["features"]}
    scorings, points, question = preview_completion(state, payload)
    with pytest.raises(WestQuestion) as asked:
        check_entry(state, "complete", payload)
    assert asked.value.column == question
    # whatever the answer, the features up to the one asked about score and send home the same
    for tile in (True, False):
        done = apply_event(state, "complete", {**payload, "west_of": [{"column": question, "tile": tile}]})
        shown = done.last_scoring[:len(scorings)]
        assert [(s.points, s.returned, s.evicted) for s in scorings] == [
            (s.points, s.returned, s.evicted) for s in shown]
        assert list(points) == [sum(seat) for seat in zip(*(s.points for s in shown), strict=True)]


@pytest.mark.parametrize(("step", "state"), SCORINGS)
def test_every_settler_marked_goes_home_at_the_next_scoring_and_every_evicted_one_was_marked(step, state):
    marked = {s.id for s in next_evictions(state)}
    first = step["expect"]["features"][0]
    assert set(first["evicted"]) <= marked <= set(first["evicted"]) | set(first["returned"])


def test_a_later_feature_that_depends_on_the_answer_is_left_out_of_the_preview():
    settlers = (Settler("0-1", 0, "bandit", 3), Settler("1-1", 1, "bandit", 3))
    state = PlayState(3, settlers, Surveyors(3, 3), west_edge=3, scores=(0, 0, 0), placed=settlers)
    roads = {"features": [{"kind": "road", "tiles": 1, "settlers": ["0-1"]},
                          {"kind": "road", "tiles": 1, "settlers": ["1-1"]}]}
    scorings, points, question = preview_completion(state, roads)
    assert question == 3 and [s.points for s in scorings] == [(9, 0, 0)] and points == (9, 0, 0)
    # Ben's bonus is the answer's: +4 with a surveyor gone west, +8 with both still in column 3
    for tile, ben in ((True, 5), (False, 9)):
        done = apply_event(state, "complete", {**roads, "west_of": [{"column": 3, "tile": tile}]})
        assert [s.points for s in done.last_scoring] == [(9, 0, 0), (0, ben, 0)]
