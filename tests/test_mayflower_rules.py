"""Carcassonne – Mayflower rules: feature scoring, surveyors, evictions, the live table, final scoring."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games.common import PlaySetup, RulesError, Seat
from companion.games.mayflower import (
    GAME,
    MAX_COLUMN,
    ROLE_OF_KIND,
    ROLES,
    SETTLERS_PER_PLAYER,
    CompletedFeature,
    FinalFeature,
    PlayState,
    Settler,
    Surveyors,
    apply_event,
    evict_east_of_surveyors,
    final_result,
    final_slots,
    initial_state,
    move_surveyor,
    running_scores,
    score_completed_feature,
    score_laps,
    score_tile_completions,
    settle_final_tally,
    track_marks,
)
from companion.games.table import ADJUST, accepted_on_every_table
from companion.games.table import apply as apply_on_table
from companion.games.table import fold as fold_table

ANNA, BEN, CARA = 0, 1, 2


def bandit(settler_id: str, seat: int, column: int) -> Settler:
    return Settler(settler_id, seat, "bandit", column)


def sheriff(settler_id: str, seat: int, column: int) -> Settler:
    return Settler(settler_id, seat, "sheriff", column)


def farmer(settler_id: str, seat: int, column: int) -> Settler:
    return Settler(settler_id, seat, "farmer", column)


def trapper(settler_id: str, seat: int, column: int) -> Settler:
    return Settler(settler_id, seat, "trapper", column)


def table(players: int = 3) -> PlaySetup:
    colours = ("red", "blue", "green", "yellow", "black", "white")
    seats = tuple(Seat(f"Player {i + 1}", colours[i]) for i in range(players))
    return PlaySetup(game="mayflower", seats=seats)


# --- one completed feature: worked examples 1–4 and edge cases --------------------------------------

FEATURE_CASES = [
    pytest.param(
        CompletedFeature("road", tiles=4, trading_posts=1),
        [bandit("a1", ANNA, 2), bandit("b1", BEN, 3)],
        [sheriff("c1", CARA, 2), trapper("c2", CARA, 1)],
        Surveyors(2, 3), None, 3,
        dict(scored=True, points=(10, 10, 0), bonus=(4, 4, 0), returned=("a1", "b1"), evicted=("c1",),
             surveyors=Surveyors(3, 3), moved=True, moved_surveyor="north"),
        id="example-1-tied-road-bonus-north-moves-sheriff-evicted-trapper-stays",
    ),
    pytest.param(
        CompletedFeature("city", tiles=3, flags=1),
        [sheriff("a1", ANNA, 4), sheriff("a2", ANNA, 5), sheriff("b1", BEN, 4)],
        [],
        Surveyors(4, 4), 5, 2,
        dict(scored=True, points=(16, 0), bonus=(8, 0), returned=("a1", "a2", "b1"), evicted=(),
             surveyors=Surveyors(5, 4), moved=True, moved_surveyor="north"),
        id="example-2-city-majority-double-bonus-loser-gets-no-bonus",
    ),
    pytest.param(
        CompletedFeature("farm"),
        [],
        [farmer("a1", ANNA, 1), bandit("b1", BEN, 2)],
        Surveyors(3, 3), None, 2,
        dict(scored=False, points=(0, 0), bonus=(0, 0), returned=(), evicted=(),
             surveyors=Surveyors(3, 3), moved=False, moved_surveyor=None),
        id="example-3-farm-without-settler-nothing-happens-no-eviction",
    ),
    pytest.param(
        CompletedFeature("road", tiles=2),
        [bandit("b1", BEN, 7)],
        [farmer("a1", ANNA, 6)],
        Surveyors(7, 7), 7, 2,
        dict(scored=True, points=(0, 10), bonus=(0, 8), returned=("b1",), evicted=("a1",),
             surveyors=Surveyors(7, 7), moved=False, moved_surveyor=None),
        id="example-4-west-edge-blocks-move-farmer-east-still-evicted",
    ),
    pytest.param(
        CompletedFeature("road", tiles=3),
        [bandit("a1", ANNA, 5)],
        [sheriff("b1", BEN, 3), farmer("b2", BEN, 2), trapper("b3", BEN, 1)],
        Surveyors(3, 2), None, 2,
        dict(scored=True, points=(3, 0), bonus=(0, 0), returned=("a1",), evicted=("b2",),
             surveyors=Surveyors(3, 3), moved=True, moved_surveyor="south"),
        id="south-nearer-coast-moves-settler-in-surveyor-column-stays",
    ),
    pytest.param(
        CompletedFeature("city", tiles=6, flags=0),
        [sheriff("a1", ANNA, 6), sheriff("a2", ANNA, 6), sheriff("b1", BEN, 6), sheriff("b2", BEN, 1),
         sheriff("c1", CARA, 6)],
        [],
        Surveyors(6, 6), None, 3,
        dict(scored=True, points=(28, 20, 0), bonus=(16, 8, 0), returned=("a1", "a2", "b1", "b2", "c1"),
             evicted=(), surveyors=Surveyors(7, 6), moved=True, moved_surveyor="north"),
        id="bonus-per-settler-twice-for-two-settlers-in-a-shared-column",
    ),
    pytest.param(
        CompletedFeature("farm"),
        [farmer("a1", ANNA, 95)],
        [trapper("b1", BEN, 3), sheriff("b2", BEN, 94)],
        Surveyors(95, 95), None, 2,
        dict(scored=True, points=(17, 0), bonus=(8, 0), returned=("a1",), evicted=("b2",),
             surveyors=Surveyors(95, 95), moved=False, moved_surveyor=None),
        id="no-column-lies-west-of-the-95th-even-without-west-edge",
    ),
    pytest.param(
        CompletedFeature("road", tiles=9),
        [bandit("a1", ANNA, 1), bandit("b1", BEN, 2), bandit("c1", CARA, 9)],
        [],
        Surveyors(0, 0), None, 3,
        dict(scored=True, points=(9, 9, 9), bonus=(0, 0, 0), returned=("a1", "b1", "c1"), evicted=(),
             surveyors=Surveyors(1, 0), moved=True, moved_surveyor="north"),
        id="three-way-tie-all-score-surveyors-leave-the-coast",
    ),
]


@pytest.mark.parametrize(
    ("feature", "on_feature", "elsewhere", "surveyors", "west_edge", "seats", "expected"), FEATURE_CASES)
def test_score_completed_feature(feature, on_feature, elsewhere, surveyors, west_edge, seats, expected):
    scoring = score_completed_feature(feature, on_feature, elsewhere, surveyors, west_edge, seats)
    assert {name: getattr(scoring, name) for name in expected} == expected
    assert scoring.feature == feature


@pytest.mark.parametrize(("feature", "value"), [
    pytest.param(CompletedFeature("road", tiles=4, trading_posts=1), 6, id="road-1-per-tile-2-per-post"),
    pytest.param(CompletedFeature("road", tiles=1), 1, id="road-single-tile"),
    pytest.param(CompletedFeature("city", tiles=3, flags=1), 8, id="city-2-per-tile-2-per-flag"),
    pytest.param(CompletedFeature("city", tiles=2), 4, id="city-without-flag"),
    pytest.param(CompletedFeature("farm"), 9, id="farm-9"),
])
def test_completed_feature_value(feature, value):
    assert feature.value == value


@pytest.mark.parametrize(("surveyors", "west_edge", "after", "mover"), [
    pytest.param(Surveyors(2, 3), None, Surveyors(3, 3), "north", id="north-nearer-coast"),
    pytest.param(Surveyors(3, 2), 3, Surveyors(3, 3), "south", id="south-nearer-coast"),
    pytest.param(Surveyors(4, 4), None, Surveyors(5, 4), "north", id="shared-column-tiles-further-west"),
    pytest.param(Surveyors(4, 4), 5, Surveyors(5, 4), "north", id="shared-column-one-more-column"),
    pytest.param(Surveyors(4, 4), 4, Surveyors(4, 4), None, id="shared-column-at-west-edge"),
    pytest.param(Surveyors(0, 0), 0, Surveyors(0, 0), None, id="only-the-coast"),
    pytest.param(Surveyors(95, 95), None, Surveyors(95, 95), None, id="last-possible-column"),
])
def test_move_surveyor(surveyors, west_edge, after, mover):
    assert move_surveyor(surveyors, west_edge) == (after, mover)


def test_eviction_spares_trappers_and_the_surveyor_column():
    settlers = [bandit("a", ANNA, 1), trapper("b", BEN, 1), sheriff("c", CARA, 2), farmer("d", ANNA, 3),
                bandit("e", BEN, 4), farmer("f", CARA, 2)]
    evicted = evict_east_of_surveyors(settlers, Surveyors(4, 3))
    assert [s.id for s in evicted] == ["a", "c", "f"]


def test_majority_of_nobody_is_empty():
    def scorers(on_feature):
        return score_completed_feature(CompletedFeature("road", tiles=3), on_feature, [], Surveyors(), None,
                                       2).scorers

    assert scorers([]) == ()
    assert scorers([bandit("a", 0, 1), bandit("b", 1, 1), bandit("c", 1, 2)]) == (1,)


@pytest.mark.parametrize(("feature", "on_feature", "message"), [
    pytest.param(CompletedFeature("road", tiles=2), [sheriff("a", ANNA, 1)], "holds bandits only",
                 id="sheriff-on-a-road"),
    pytest.param(CompletedFeature("farm"), [trapper("a", ANNA, 1)], "holds farmers only",
                 id="trapper-on-a-farm"),
    pytest.param(CompletedFeature("city", tiles=2), [sheriff("a", 5, 1)], "only 2 players",
                 id="seat-not-at-the-table"),
])
def test_score_completed_feature_refuses(feature, on_feature, message):
    with pytest.raises(RulesError, match=message):
        score_completed_feature(feature, on_feature, [], Surveyors(), None, 2)


# --- several features completed by one tile: worked example 5 ---------------------------------------

ROAD_5 = CompletedFeature("road", tiles=3)
CITY_5 = CompletedFeature("city", tiles=2)
MAP_5 = (bandit("a1", ANNA, 3), sheriff("b1", BEN, 2))


@pytest.mark.parametrize(("order", "reports", "final_surveyors", "totals"), [
    pytest.param(
        [(ROAD_5, ["a1"]), (CITY_5, ["b1"])],
        [dict(scored=True, points=(7, 0), returned=("a1",), evicted=("b1",), surveyors=Surveyors(3, 3)),
         dict(scored=False, points=(0, 0), returned=(), evicted=(), surveyors=Surveyors(3, 3))],
        Surveyors(3, 3), (7, 0),
        id="example-5-road-first-evicts-the-sheriff-city-not-scored",
    ),
    pytest.param(
        [(CITY_5, ["b1"]), (ROAD_5, ["a1"])],
        [dict(scored=True, points=(0, 8), returned=("b1",), evicted=(), surveyors=Surveyors(3, 3)),
         dict(scored=True, points=(11, 0), returned=("a1",), evicted=(), surveyors=Surveyors(4, 3))],
        Surveyors(4, 3), (11, 8),
        id="example-5-city-first-road-sees-moved-surveyors",
    ),
])
def test_score_tile_completions_in_chosen_order(order, reports, final_surveyors, totals):
    result = score_tile_completions(order, MAP_5, Surveyors(2, 3), 6, 2)
    assert [{name: getattr(s, name) for name in report} for s, report in zip(result.scorings, reports,
                                                                            strict=True)] == reports
    assert result.surveyors == final_surveyors
    assert result.points == totals
    assert result.settlers == ()


@pytest.mark.parametrize(("order", "message"), [
    pytest.param([(ROAD_5, ["a1"]), (CITY_5, ["a1"])], "cannot stand on two features",
                 id="id-in-two-features"),
    pytest.param([(ROAD_5, ["a1", "a1"])], "listed twice", id="id-twice-in-one-feature"),
    pytest.param([(ROAD_5, ["zz"])], "not on the map", id="unknown-id"),
])
def test_score_tile_completions_refuses(order, message):
    with pytest.raises(RulesError, match=message):
        score_tile_completions(order, MAP_5, Surveyors(2, 3), 6, 2)


# --- final scoring: worked example 6 -----------------------------------------------------------------

@pytest.mark.parametrize(("feature", "value"), [
    pytest.param(FinalFeature("city", {ANNA: 1}, tiles=3, flags=1), 4,
                 id="example-6-city-1-per-tile-and-flag"),
    pytest.param(FinalFeature("farm", {BEN: 1}, neighbours=5), 6, id="example-6-farm-tile-plus-5-neighbours"),
    pytest.param(FinalFeature("plain", {ANNA: 2, BEN: 2}, animals=3), 3, id="example-6-plain-1-per-animal"),
    pytest.param(FinalFeature("road", {ANNA: 1}, tiles=3, trading_posts=1), 5,
                 id="road-1-per-tile-2-per-post"),
    pytest.param(FinalFeature("farm", {ANNA: 1}), 1, id="farm-without-neighbours"),
    pytest.param(FinalFeature("farm", {ANNA: 1}, neighbours=7), 8, id="farm-missing-one-neighbour"),
    pytest.param(FinalFeature("plain", {ANNA: 1}), 0, id="plain-without-animals"),
])
def test_final_feature_value(feature, value):
    assert feature.value == value


def test_final_result_example_6():
    features = [FinalFeature("city", {ANNA: 1}, tiles=3, flags=1),
                FinalFeature("farm", {BEN: 1}, neighbours=5),
                FinalFeature("plain", {ANNA: 2, BEN: 2}, animals=3)]
    result = final_result(["Anna", "Ben"], [0, 0], features)
    assert [dict(p.breakdown) for p in result.players] == [
        {"track": 0, "roads": 0, "cities": 4, "farms": 0, "plains": 3},
        {"track": 0, "roads": 0, "cities": 0, "farms": 6, "plains": 3},
    ]
    assert [(p.name, p.total, p.rank) for p in result.players] == [("Anna", 7, 2), ("Ben", 9, 1)]
    assert result.winners == ("Ben",)


def test_final_result_majority_and_shared_victory():
    features = [FinalFeature("road", {ANNA: 2, BEN: 1}, tiles=4),  # Anna's majority takes the road
                FinalFeature("city", {BEN: 1}, tiles=2, flags=2),
                FinalFeature("plain", {CARA: 1}, animals=5)]
    result = final_result(["Anna", "Ben", "Cara"], [30, 30, 29], features)
    assert [(p.name, p.total, p.rank) for p in result.players] == [("Anna", 34, 1), ("Ben", 34, 1),
                                                                   ("Cara", 34, 1)]
    assert result.winners == ("Anna", "Ben", "Cara")
    assert result.to_json()["players"][0]["breakdown"] == {"track": 30, "roads": 4, "cities": 0, "farms": 0,
                                                           "plains": 0}


@pytest.mark.parametrize(("players", "track", "features", "message"), [
    pytest.param(["A", "B"], [0], [], "all 2 players", id="track-of-one-player-missing"),
    pytest.param(["A", "B"], [0, 1000], [], "0 to 999", id="track-out-of-range"),
    pytest.param(["A", "B"], [0, 0], [FinalFeature("plain", {0: 3}), FinalFeature("road", {0: 3}, tiles=3)],
                 "only 5 settlers", id="six-settlers-of-one-player"),
    pytest.param(["A", "B"], [0, 0], [FinalFeature("plain", {2: 1})], "not at the table", id="unknown-seat"),
])
def test_final_result_refuses(players, track, features, message):
    with pytest.raises(RulesError, match=message):
        final_result(players, track, features)


@pytest.mark.parametrize(("build", "path"), [
    pytest.param(lambda: FinalFeature("castle", {0: 1}), "kind", id="unknown-kind"),
    pytest.param(lambda: FinalFeature("road", {0: 1}), "tiles", id="road-without-tiles"),
    pytest.param(lambda: FinalFeature("farm", {0: 1}, flags=1), "flags", id="farm-with-flag"),
    pytest.param(lambda: FinalFeature("farm", {0: 1}, neighbours=8), "neighbours", id="eight-neighbours"),
    pytest.param(lambda: FinalFeature("plain", {}), "settlers", id="no-settlers"),
    pytest.param(lambda: FinalFeature("plain", {0: 0}), "settlers", id="zero-settlers"),
    pytest.param(lambda: CompletedFeature("farm", tiles=3), "tiles", id="completed-farm-with-tiles"),
    pytest.param(lambda: CompletedFeature("city", tiles=0), "tiles", id="completed-city-without-tiles"),
    pytest.param(lambda: CompletedFeature("road", tiles=2, flags=1), "flags", id="completed-road-with-flag"),
    pytest.param(lambda: CompletedFeature("plain"), "kind", id="plains-never-complete"),
    pytest.param(lambda: Settler("a", 0, "bandit", 0), "column", id="settler-on-the-coast"),
    pytest.param(lambda: Settler("a", 0, "pirate", 1), "role", id="unknown-role"),
    pytest.param(lambda: Surveyors(1, 3), "surveyors", id="surveyors-two-apart"),
    pytest.param(lambda: Surveyors(-1, 0), "north", id="surveyor-in-the-sea"),
])
def test_pieces_refuse_impossible_values(build, path):
    with pytest.raises(RulesError) as caught:
        build()
    assert caught.value.path == path


@pytest.mark.parametrize(("score", "laps"), [
    pytest.param(0, (0, 0), id="start"),
    pytest.param(49, (0, 49), id="end-of-first-lap"),
    pytest.param(50, (1, 0), id="fifty-plus"),
    pytest.param(57, (1, 7), id="fifty-seven"),
    pytest.param(123, (2, 23), id="two-laps"),
])
def test_score_laps(score, laps):
    assert score_laps(score) == laps


def test_score_laps_refuses_negative():
    with pytest.raises(RulesError):
        score_laps(-1)


# --- the live table ----------------------------------------------------------------------------------

def fold(events, players: int = 3) -> PlayState:
    state = initial_state(table(players))
    for kind, payload in events:
        state = apply_event(state, kind, payload)
    return state


def test_initial_state():
    state = initial_state(table(4))
    assert state.surveyors == Surveyors(0, 0)
    assert state.west_edge == 0
    assert state.settlers == ()
    assert [state.in_supply(seat) for seat in range(4)] == [5, 5, 5, 5]
    assert running_scores(state) == (0, 0, 0, 0)


@pytest.mark.parametrize("players", [1, 6])
def test_initial_state_refuses_player_count(players):
    with pytest.raises(RulesError, match="2 to 5 players"):
        initial_state(table(players))


PLACEMENTS = [
    ("place", {"seat": CARA, "role": "trapper", "column": 1}),
    ("place", {"seat": CARA, "role": "sheriff", "column": 2}),
    ("place", {"seat": ANNA, "role": "bandit", "column": 2}),
    ("west_edge", {"column": 3}),
    ("place", {"seat": BEN, "role": "bandit", "column": 3}),
]


def test_placing_generates_ids_and_extends_the_map():
    state = fold(PLACEMENTS)
    assert [(s.id, s.seat, s.role, s.column) for s in state.settlers] == [
        ("2-1", CARA, "trapper", 1), ("2-2", CARA, "sheriff", 2), ("0-1", ANNA, "bandit", 2),
        ("1-1", BEN, "bandit", 3)]
    assert state.west_edge == 3
    assert state.in_supply(CARA) == 3
    assert state.on_map(ANNA) == (bandit("0-1", ANNA, 2),)


def surveyors_to_3_2(seat: int) -> list[tuple[str, dict]]:
    """Five one-tile roads of ``seat`` that walk the surveyors from the coast to [3, 2].

    At the table the north surveyor leaves a shared column first, so the surveyors split as [n + 1, n];
    the worked examples' [2, 3] is played mirrored as [3, 2], the south surveyor then moving.
    """
    events: list[tuple[str, dict]] = [("west_edge", {"column": 6})]
    for number, column in enumerate((1, 1, 2, 2, 2), start=1):
        events.append(("place", {"seat": seat, "role": "bandit", "column": column}))
        events.append(("complete", {"features": [
            {"kind": "road", "tiles": 1, "settlers": [f"{seat}-{number}"]}]}))
    return events


def test_surveyors_walk_west_from_the_coast():
    state = initial_state(table(3))
    walk = []
    for kind, payload in surveyors_to_3_2(CARA):
        state = apply_event(state, kind, payload)
        if kind == "complete":
            walk.append(state.surveyors.as_list())
    assert walk == [[1, 0], [1, 1], [2, 1], [2, 2], [3, 2]]
    # Bonuses on the way: column 1 with the north surveyor, column 2 with the north one, then both.
    assert running_scores(state) == (0, 0, 1 + 5 + 1 + 5 + 9)
    assert state.in_supply(CARA) == 5


def test_example_1_at_the_table():
    state = fold([*surveyors_to_3_2(CARA),
                  ("place", {"seat": CARA, "role": "trapper", "column": 1}),
                  ("place", {"seat": CARA, "role": "sheriff", "column": 2}),
                  ("place", {"seat": ANNA, "role": "bandit", "column": 2}),
                  ("place", {"seat": BEN, "role": "bandit", "column": 3})])
    before = running_scores(state)
    state = apply_event(state, "complete", {"features": [
        {"kind": "road", "tiles": 4, "trading_posts": 1, "settlers": ["0-1", "1-1"]}]})
    (report,) = state.last_scoring
    assert report.points == (10, 10, 0)
    assert report.bonus == (4, 4, 0)
    assert report.returned == ("0-1", "1-1")
    assert report.evicted == ("2-7",)  # Cara's sheriff; her trapper stays
    assert (report.surveyors, report.moved_surveyor) == (Surveyors(3, 3), "south")
    assert tuple(b - a for a, b in zip(before, running_scores(state), strict=True)) == (10, 10, 0)
    assert [(s.id, s.role) for s in state.settlers] == [("2-6", "trapper")]
    assert state.settler("2-7") == sheriff("2-7", CARA, 2)
    assert [state.in_supply(seat) for seat in range(3)] == [5, 5, 4]


@pytest.mark.parametrize(("order", "points", "surveyors", "left"), [
    pytest.param(["road", "city"], (7, 0), Surveyors(3, 3), (), id="example-5-road-first"),
    pytest.param(["city", "road"], (11, 8), Surveyors(4, 3), (), id="example-5-city-first"),
])
def test_example_5_at_the_table(order, points, surveyors, left):
    state = fold([*surveyors_to_3_2(CARA),
                  ("place", {"seat": ANNA, "role": "bandit", "column": 3}),
                  ("place", {"seat": BEN, "role": "sheriff", "column": 2})])
    features = {"road": {"kind": "road", "tiles": 3, "settlers": ["0-1"]},
                "city": {"kind": "city", "tiles": 2, "settlers": ["1-1"]}}
    before = running_scores(state)
    state = apply_event(state, "complete", {"features": [features[kind] for kind in order]})
    assert tuple(b - a for a, b in zip(before, running_scores(state), strict=True)) == (*points, 0)
    assert state.surveyors == surveyors
    assert state.settlers == left
    assert [r.scored for r in state.last_scoring] == ([True, False] if order[0] == "road" else [True, True])


def test_undo_refolds_to_the_same_ids():
    events = [
        ("place", {"seat": ANNA, "role": "bandit", "column": 1}),
        ("place", {"seat": ANNA, "role": "farmer", "column": 2}),
        ("complete", {"features": [{"kind": "road", "tiles": 2, "settlers": ["0-1"]}]}),
        ("place", {"seat": ANNA, "role": "sheriff", "column": 1}),
    ]
    full = fold(events)
    undone = fold(events[:-1])
    again = apply_event(undone, *events[-1])
    assert again == full
    assert [s.id for s in full.settlers] == ["0-2", "0-3"]


@pytest.mark.parametrize(("events", "kind", "payload", "path", "message"), [
    pytest.param([], "place", {"seat": 0, "role": "bandit", "column": 0}, "column", "column 1",
                 id="coast-is-not-land"),
    pytest.param([], "place", {"seat": 0, "role": "bandit", "column": 96}, "column", "beyond the map",
                 id="beyond-the-last-tile"),
    pytest.param([], "place", {"seat": 0, "role": "pirate", "column": 1}, "role", "bandit, sheriff",
                 id="unknown-role"),
    pytest.param([], "place", {"seat": 3, "role": "bandit", "column": 1}, "seat", "players at the table",
                 id="seat-not-at-the-table"),
    pytest.param([], "place", {"seat": True, "role": "bandit", "column": 1}, "seat", "players at the table",
                 id="seat-true"),
    pytest.param([], "place", {"seat": 0, "role": "bandit", "column": 1.0}, "column", "which column",
                 id="column-float"),
    pytest.param([], "place", {"seat": 0, "role": "bandit", "column": 1, "x": 1}, "x", "not something",
                 id="unknown-field"),
    pytest.param([("place", {"seat": 0, "role": "trapper", "column": 1})] * 5, "place",
                 {"seat": 0, "role": "bandit", "column": 1}, "seat", "Player 1 has only 5 settlers; 6 cannot",
                 id="sixth-settler"),
    pytest.param([("place", {"seat": 0, "role": "bandit", "column": 1})], "west_edge", {"column": 0},
                 "column", "at least as far west as column 1", id="west-edge-east-of-a-settler"),
    pytest.param([], "west_edge", {"column": 96}, "column", "0 to 95", id="west-edge-too-far"),
    pytest.param([], "complete", {"features": []}, "features", "Name the features", id="no-features"),
    pytest.param([], "complete", {"features": [{"kind": "plain", "settlers": []}]}, "features[0].kind",
                 "road, a city or a farm", id="plains-never-complete"),
    pytest.param([], "complete", {"features": [{"kind": "farm", "tiles": 3}]}, "features[0].tiles",
                 "not something", id="farm-with-tiles"),
    pytest.param([], "complete", {"features": [{"kind": "road"}]}, "features[0].tiles", "1 to 95",
                 id="road-without-tiles"),
    pytest.param([], "complete", {"features": [{"kind": "city", "tiles": 2, "flags": -1}]},
                 "features[0].flags", "0 to 95", id="negative-flags"),
    pytest.param([], "complete", {"features": [{"kind": "road", "tiles": 2, "settlers": ["0-1"]}]},
                 "features[0].settlers[0]", "not on the map", id="settler-not-on-the-map"),
    pytest.param([("place", {"seat": 0, "role": "sheriff", "column": 1})], "complete",
                 {"features": [{"kind": "road", "tiles": 2, "settlers": ["0-1"]}]},
                 "features[0].settlers[0]", "holds bandits only", id="sheriff-on-a-road"),
    pytest.param([("place", {"seat": 0, "role": "bandit", "column": 1})], "complete",
                 {"features": [{"kind": "road", "tiles": 2, "settlers": ["0-1"]},
                               {"kind": "road", "tiles": 1, "settlers": ["0-1"]}]},
                 "features[1].settlers", "two features", id="settler-on-two-features"),
    pytest.param([], "teleport", {}, "kind", "no event", id="unknown-event"),
])
def test_apply_event_refuses(events, kind, payload, path, message):
    state = fold(events)
    with pytest.raises(RulesError, match=message) as caught:
        apply_event(state, kind, payload)
    assert caught.value.path == path


def test_west_edge_and_a_placement_beyond_it():
    state = fold([("west_edge", {"column": 9}),
                  ("place", {"seat": ANNA, "role": "farmer", "column": 10})])
    assert running_scores(state) == (0, 0, 0)
    assert state.west_edge == 10


def test_score_corrections_belong_to_the_generic_table():
    with pytest.raises(RulesError, match="no event 'adjust'"):
        apply_event(initial_state(table()), "adjust", {"seat": BEN, "points": 12})
    folded = fold_table(table(), [("adjust", {"seat": BEN, "points": 12, "note": "forgot a city"}),
                                  ("place", {"seat": ANNA, "role": "farmer", "column": 1}),
                                  ("adjust", {"seat": BEN, "points": -2})])
    assert folded.running_scores == (0, 10, 0)
    assert running_scores(folded.game_state) == (0, 0, 0)


@pytest.mark.parametrize(("kind", "payload", "accepted"), [
    pytest.param(ADJUST, {"seat": BEN, "points": 12}, True, id="a-correction-adding-points"),
    pytest.param(ADJUST, {"seat": CARA, "points": 999, "note": "forgot a city"}, True, id="the-largest"),
    pytest.param(ADJUST, {"seat": BEN, "points": -2}, False, id="taking-points-away-needs-the-score"),
    pytest.param("place", {"seat": ANNA, "role": "farmer", "column": 1}, False, id="a-game-event"),
    pytest.param(ADJUST, {"seat": BEN, "points": 0}, "changes nothing", id="zero"),
    pytest.param(ADJUST, {"seat": 3, "points": 5}, "Pick one of the players", id="no-such-seat"),
    pytest.param(ADJUST, {"seat": BEN, "points": 1000}, "from -999 to 999", id="too-many"),
    pytest.param(ADJUST, {"seat": BEN, "points": "5"}, "from -999 to 999", id="points-as-text"),
    pytest.param(ADJUST, {"seat": BEN, "points": True}, "from -999 to 999", id="points-as-yes"),
    pytest.param(ADJUST, {"seat": BEN}, "from -999 to 999", id="no-points"),
])
def test_events_the_rules_accept_on_every_table(kind, payload, accepted):
    if isinstance(accepted, str):
        with pytest.raises(RulesError, match=accepted):
            accepted_on_every_table(table(), kind, payload)
    else:
        assert accepted_on_every_table(table(), kind, payload) is accepted


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_correction_adding_points_fits_every_table_a_log_makes(data):
    """Why an entry that adds points is stored without folding the log: no table refuses it."""
    seat_count = data.draw(st.integers(2, 5), label="players")
    current = fold_table(table(seat_count), [])
    seat = st.integers(0, seat_count - 1)
    for _ in range(data.draw(st.integers(1, 40), label="events")):
        if data.draw(st.booleans(), label="a correction"):
            kind = ADJUST
            payload = {"seat": data.draw(seat), "points": data.draw(st.integers(-60, 60))}
        else:
            kind, payload = data.draw(table_events(current.game_state))
        try:
            current = apply_on_table(current, kind, payload)
        except RulesError:
            continue  # refused, as a phone would be told: the log stays as it was
        assert min(current.running_scores) >= 0
        correction = {"seat": data.draw(seat), "points": data.draw(st.integers(1, 999))}
        assert accepted_on_every_table(current.setup, ADJUST, correction)
        apply_on_table(current, ADJUST, correction)  # raises if this table refused it


def test_final_slots_from_the_map():
    state = fold([("west_edge", {"column": 5}),
                  ("place", {"seat": ANNA, "role": "trapper", "column": 1}),
                  ("place", {"seat": BEN, "role": "bandit", "column": 4}),
                  ("place", {"seat": ANNA, "role": "bandit", "column": 5}),
                  ("place", {"seat": CARA, "role": "farmer", "column": 3}),
                  ("place", {"seat": BEN, "role": "trapper", "column": 1})])
    assert [(slot.kind, slot.settler.id) for slot in final_slots(state)] == [
        ("road", "0-2"), ("road", "1-1"), ("farm", "2-1"), ("plain", "0-1"), ("plain", "1-2")]


# --- properties of the live table --------------------------------------------------------------------

@st.composite
def table_events(draw, state: PlayState):
    """One event the table could plausibly send next, sometimes one the rules refuse."""
    kind = draw(st.sampled_from(["place", "place", "place", "complete", "complete", "west_edge"]))
    if kind == "place":
        # Mostly players with settlers left; now and then one without, whom the rules must refuse.
        ready = [seat for seat in range(state.seat_count) if state.in_supply(seat)]
        anyone = st.integers(0, state.seat_count - 1)
        seats = st.sampled_from(ready) if ready and draw(st.integers(0, 9)) else anyone
        return kind, {"seat": draw(seats),
                      # Trappers never leave before the end, so fewer of them keep the map moving.
                      "role": draw(st.sampled_from([*ROLES, "bandit", "sheriff", "farmer"])),
                      "column": draw(st.integers(1, min(state.west_edge + 1, MAX_COLUMN)))}
    if kind == "west_edge":
        return kind, {"column": draw(st.integers(state.west_edge, min(state.west_edge + 3, MAX_COLUMN)))}
    free = [s for s in state.settlers if s.role != "trapper"]
    features = []
    for _ in range(draw(st.integers(1, 3))):
        feature_kind = draw(st.sampled_from(["road", "city", "farm"]))
        fitting = [s.id for s in free if s.role == ROLE_OF_KIND[feature_kind]]
        chosen = []
        if fitting:
            at_least = draw(st.sampled_from([0, 1, 1]))
            most = 1 if feature_kind == "farm" else None  # a farm holds one farmer
            chosen = draw(st.lists(st.sampled_from(fitting), unique=True, min_size=at_least, max_size=most))
        free = [s for s in free if s.id not in chosen]
        feature = {"kind": feature_kind, "settlers": chosen}
        if feature_kind != "farm":
            # at most one settler per tile: each came onto the tile just played
            feature["tiles"] = draw(st.integers(max(1, len(chosen)), 12))
        features.append(feature)
    return kind, {"features": features}


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_live_table_keeps_the_rules(data):
    seat_count = data.draw(st.integers(2, 5), label="players")
    state = initial_state(table(seat_count))
    for _ in range(data.draw(st.integers(1, 60), label="events")):
        kind, payload = data.draw(table_events(state))
        try:
            after = apply_event(state, kind, payload)
        except RulesError:
            # The only refusal this generator provokes: a player with all five settlers out.
            assert kind == "place" and state.in_supply(payload["seat"]) == 0
            continue
        north, south = after.surveyors.north, after.surveyors.south
        assert abs(north - south) <= 1
        assert north >= state.surveyors.north and south >= state.surveyors.south
        assert max(north, south) <= after.west_edge
        for seat in range(seat_count):
            assert len(after.on_map(seat)) + after.in_supply(seat) == SETTLERS_PER_PLAYER
            assert 0 <= after.in_supply(seat) <= SETTLERS_PER_PLAYER
        if kind == "complete":
            scored = [report for report in after.last_scoring if report.scored]
            assert len(after.last_scoring) == len(payload["features"])
            if scored:
                limit = after.surveyors.eastmost
                assert not [s for s in after.settlers if s.column < limit and s.role != "trapper"]
            moves = sum(report.moved for report in after.last_scoring)
            assert (north + south) - (state.surveyors.north + state.surveyors.south) == moves
            gained = tuple(b - a for a, b in zip(state.scores, after.scores, strict=True))
            assert gained == tuple(map(sum, zip(*(r.points for r in after.last_scoring), strict=True)))
            gone = {i for r in after.last_scoring for i in (*r.returned, *r.evicted)}
            assert not gone & {s.id for s in after.settlers}
            assert len(after.settlers) == len(state.settlers) - len(gone)
        else:
            assert after.surveyors == state.surveyors
        state = after


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
PAYLOAD_KEYS = st.sampled_from(["seat", "role", "column", "features", "points", "note", "kind", "tiles",
                                "settlers", "flags", "trading_posts"])


@settings(deadline=None)
@given(kind=st.sampled_from(["place", "west_edge", "complete", "adjust", "undo", ""]),
       payload=st.dictionaries(PAYLOAD_KEYS, JSON, max_size=4) | JSON)
def test_garbage_events_raise_only_rules_errors(kind, payload):
    state = fold([("place", {"seat": 0, "role": "bandit", "column": 1}),
                  ("place", {"seat": 1, "role": "sheriff", "column": 1})])
    try:
        after = apply_event(state, kind, payload)
    except RulesError as error:
        assert error.message
    else:
        assert isinstance(after, PlayState)


@settings(deadline=None)
@given(features=st.lists(st.fixed_dictionaries({
    "kind": st.sampled_from(["road", "city", "farm", "x"]),
    "tiles": st.integers(-1, 3) | st.text(max_size=1),
    "settlers": st.lists(st.sampled_from(["0-1", "1-1", "2-1", "nobody"]) | JSON, max_size=3),
}), max_size=3))
def test_garbage_completions_raise_only_rules_errors(features):
    state = fold([("place", {"seat": 0, "role": "bandit", "column": 1}),
                  ("place", {"seat": 1, "role": "sheriff", "column": 1}),
                  ("place", {"seat": 2, "role": "farmer", "column": 1})])
    try:
        apply_event(state, "complete", {"features": features})
    except RulesError as error:
        assert error.message


def test_game_info():
    assert (GAME.slug, GAME.min_players, GAME.max_players) == ("mayflower", 2, 5)


# --- what the play screen shows ----------------------------------------------------------------------

@pytest.mark.parametrize(("case", "settler_bonus", "scorers", "surveyors_before"), [
    pytest.param(0, (4, 4), (ANNA, BEN), Surveyors(2, 3), id="example-1-each-bandit-with-one-surveyor"),
    pytest.param(1, (8, 0, 0), (ANNA,), Surveyors(4, 4),
                 id="example-2-column-4-both-surveyors-column-5-none-loser-none"),
    pytest.param(2, (), (), Surveyors(3, 3), id="example-3-nobody-on-the-farm"),
    pytest.param(5, (8, 8, 8, 0, 0), (ANNA, BEN), Surveyors(6, 6), id="per-settler-bonus-in-shared-column"),
])
def test_feature_scoring_tells_each_settlers_bonus(case, settler_bonus, scorers, surveyors_before):
    feature, on_feature, elsewhere, surveyors, west_edge, seats, _ = FEATURE_CASES[case].values
    scoring = score_completed_feature(feature, on_feature, elsewhere, surveyors, west_edge, seats)
    assert scoring.settler_bonus == settler_bonus
    assert scoring.scorers == scorers
    assert scoring.surveyors_before == surveyors_before
    assert sum(scoring.settler_bonus) == sum(scoring.bonus)


@pytest.mark.parametrize(("scores", "marks"), [
    pytest.param((57,), [(57, 1, 7)], id="57-is-lap-1-plus-7"),
    pytest.param((0, 49, 50), [(0, 0, 0), (49, 0, 49), (50, 1, 0)], id="round-the-track"),
    pytest.param((-3,), [(-3, 0, -3)], id="corrected-below-zero-shown-as-is"),
])
def test_track_marks(scores, marks):
    assert [(m.score, m.laps, m.position) for m in track_marks(scores)] == marks


# --- the final tally at the table --------------------------------------------------------------------

EXAMPLE_6_MAP = [("west_edge", {"column": 4}),
                 ("place", {"seat": ANNA, "role": "sheriff", "column": 2}),
                 ("place", {"seat": BEN, "role": "farmer", "column": 3}),
                 ("place", {"seat": ANNA, "role": "trapper", "column": 1}),
                 ("place", {"seat": ANNA, "role": "trapper", "column": 4}),
                 ("place", {"seat": BEN, "role": "trapper", "column": 1}),
                 ("place", {"seat": BEN, "role": "trapper", "column": 2})]


def test_final_slots_give_each_settler_a_letter_of_its_own():
    slots = final_slots(fold(EXAMPLE_6_MAP, players=2))
    assert [(slot.letter, slot.kind, slot.settler.id) for slot in slots] == [
        ("A", "city", "0-1"), ("B", "farm", "1-1"),
        ("C", "plain", "0-3"), ("D", "plain", "1-3"), ("E", "plain", "0-2"), ("F", "plain", "1-2")]


def test_settle_final_tally_example_6():
    slots = final_slots(fold(EXAMPLE_6_MAP, players=2))
    assignment = {"0-1": "A", "1-1": "B", "0-3": "C", "1-3": "C", "0-2": "C", "1-2": "C"}
    sizes = {"A": {"tiles": 3, "flags": 1}, "B": {"neighbours": 5}, "C": {"animals": 3},
             "D": {"animals": 99}}  # D holds nobody now: its size is not asked about
    tally = settle_final_tally(["Anna", "Ben"], [20, 21], slots, assignment, sizes)
    assert [(p.name, p.total) for p in tally.result.players] == [("Anna", 27), ("Ben", 30)]
    assert [dict(p.breakdown) for p in tally.result.players] == [
        {"track": 20, "roads": 0, "cities": 4, "farms": 0, "plains": 3},
        {"track": 21, "roads": 0, "cities": 0, "farms": 6, "plains": 3}]
    assert [(f.letter, f.feature.kind, dict(f.feature.settlers)) for f in tally.features] == [
        ("A", "city", {ANNA: 1}), ("B", "farm", {BEN: 1}), ("C", "plain", {ANNA: 2, BEN: 2})]
    payload = tally.payload()
    assert payload["track_vp"] == [20, 21]
    assert payload["features"][0] == {"letter": "A", "kind": "city", "tiles": 3, "flags": 1, "settlers": [
        {"id": "0-1", "seat": ANNA, "role": "sheriff", "column": 2}]}
    assert [len(f["settlers"]) for f in payload["features"]] == [1, 1, 4]


@pytest.mark.parametrize(("assignment", "sizes", "path", "message"), [
    pytest.param({"0-1": "C"}, {}, "assignment.0-1", "Feature C is a plain",
                 id="sheriff-put-on-a-plain-letter"),
    pytest.param({"0-1": "Z"}, {}, "assignment.0-1", "Pick the feature Anna's sheriff in column 2",
                 id="letter-of-no-settler"),
    pytest.param({"0-1": None}, {}, "assignment.0-1", "Pick the feature", id="no-letter"),
    pytest.param({}, {"A": {"flags": 1}}, "sizes.A.tiles", "tiles of city A", id="city-without-tiles"),
    pytest.param({}, {"A": {"tiles": 3}, "B": {"neighbours": 8}}, "sizes.B.neighbours", "from 0 to 7",
                 id="eight-neighbours"),
    pytest.param({}, {"A": {"tiles": 3}, "B": {"neighbours": 1}, "C": {"animals": "3"}},
                 "sizes.C.animals", "animals of plain C", id="animals-as-text"),
])
def test_settle_final_tally_refuses(assignment, sizes, path, message):
    slots = final_slots(fold(EXAMPLE_6_MAP, players=2))
    answers = {slot.settler.id: slot.letter for slot in slots} | assignment
    with pytest.raises(RulesError, match=message) as caught:
        settle_final_tally(["Anna", "Ben"], [0, 0], slots, answers, sizes)
    assert caught.value.path == path
