"""Great Western Trail rules: the final tally's rows, station masters, checks, calculators, play log."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games import great_western_trail as gwt
from companion.games.common import PlaySetup, RulesError, Seat
from companion.games.great_western_trail import Objective, Tally, Workers

ANNA = Tally(
    name="Anna", dollars=23, buildings_vp=12, cities_vp=8, stations_vp=10, hazards_vp=7, cattle_vp=21,
    objectives=(Objective(3, 0, True), Objective(5, 3, True), Objective(4, 2, False)),
    station_masters=("workers",), workers=Workers(cowboys=5, craftsmen=6, engineers=2),
    disc_cleared=True, job_market_token=False,
)


# Worked examples of the rules, one test each.

def test_worked_example_1_anna_scores_96_in_edition_2():
    result = gwt.final_result(2, [ANNA])
    (anna,) = result.players
    assert dict(anna.breakdown) == {
        "money": 4, "buildings": 12, "cities": 8, "stations": 10, "hazards": 7, "cattle": 21,
        "objectives": 6, "station_masters": 13, "workers": 12, "disc": 3, "job_market": 0,
    }
    assert anna.total == 96
    assert result.winners == ("Anna",)


@pytest.mark.parametrize("fulfilled", [
    pytest.param((True,) * 5, id="all-fulfilled"),
    pytest.param((False,) * 5, id="none-fulfilled"),
    pytest.param((True, False, True, False, False), id="some-fulfilled"),
])
def test_worked_example_2_objectives_station_master_pays_per_two_cards(fulfilled):
    cards = tuple(Objective(vp=4, penalty=2, fulfilled=done) for done in fulfilled)
    tally = Tally(name="Anna", objectives=cards, station_masters=("objectives",))
    assert gwt.breakdown(tally)["station_masters"] == 6


def test_worked_example_3_a_tie_on_80_shares_the_victory():
    anna = Tally(name="Anna", dollars=400)  # 80 VP from money alone
    ben = Tally(name="Ben", cattle_vp=60, buildings_vp=20)
    cara = Tally(name="Cara", cattle_vp=79)
    result = gwt.final_result(1, [anna, ben, cara])
    assert [(p.name, p.total, p.rank) for p in result.players] == [
        ("Anna", 80, 1), ("Ben", 80, 1), ("Cara", 79, 3)]
    assert result.winners == ("Anna", "Ben")


@pytest.mark.parametrize(("dollars", "vp"), [
    pytest.param(4, 0, id="4-dollars"),
    pytest.param(5, 1, id="5-dollars"),
    pytest.param(29, 5, id="29-dollars"),
])
def test_worked_example_4_one_vp_per_full_five_dollars(dollars, vp):
    assert gwt.final_result(2, [Tally(name="Anna", dollars=dollars)]).players[0].breakdown["money"] == vp


# The rows, table-driven.

@pytest.mark.parametrize(("dollars", "vp"), [(0, 0), (9, 1), (10, 2), (999, 199)])
def test_money_rounds_down(dollars, vp):
    assert gwt.breakdown(Tally(name="A", dollars=dollars))["money"] == vp


@pytest.mark.parametrize(("cards", "vp"), [
    pytest.param((), 0, id="empty-area"),
    pytest.param((Objective(3, 0, True),), 3, id="start-card"),
    pytest.param((Objective(3, 0, False),), 0, id="start-card-failed-no-penalty"),
    pytest.param((Objective(5, 3, False),), -3, id="failed-card-costs-its-penalty"),
    pytest.param((Objective(5, 3, True), Objective(4, 2, False), Objective(3, 2, False)), 1, id="mixed"),
])
def test_objectives_row(cards, vp):
    assert gwt.breakdown(Tally(name="A", objectives=cards))["objectives"] == vp


@pytest.mark.parametrize(("filled", "vp"), [(1, 0), (2, 0), (4, 0), (5, 4), (6, 8)])
def test_worker_row_scores_the_fifth_and_sixth_space(filled, vp):
    assert gwt.worker_row_vp(filled) == vp


@pytest.mark.parametrize(("workers", "vp"), [
    pytest.param(Workers(), 0, id="printed-only"),
    pytest.param(Workers(5, 6, 2), 12, id="anna"),
    pytest.param(Workers(6, 6, 6), 24, id="all-full"),
    pytest.param(Workers(4, 4, 5), 4, id="one-fifth-space"),
])
def test_workers_row(workers, vp):
    assert gwt.breakdown(Tally(name="A", workers=workers))["workers"] == vp


@pytest.mark.parametrize(("flag", "disc", "token"), [(False, 0, 0), (True, 3, 2)])
def test_disc_and_job_market_rows(flag, disc, token):
    rows = gwt.breakdown(Tally(name="A", disc_cleared=flag, job_market_token=flag))
    assert (rows["disc"], rows["job_market"]) == (disc, token)


@pytest.mark.parametrize(("key", "tally", "vp"), [
    pytest.param("workers", Tally(name="A"), 3, id="workers-printed-three"),
    pytest.param("workers", Tally(name="A", workers=Workers(5, 6, 2)), 13, id="workers-13"),
    pytest.param("objectives", Tally(name="A", objectives=(Objective(3),)), 0, id="objectives-1-card"),
    pytest.param("objectives", Tally(name="A", objectives=(Objective(3),) * 4), 6, id="objectives-4-cards"),
    pytest.param("hazards", Tally(name="A", hazards=5, hazards_vp=14), 6, id="hazards-5"),
    pytest.param("hazards", Tally(name="A", hazards=1), 0, id="hazards-1"),
    pytest.param("teepees", Tally(name="A", teepee_pairs=3), 9, id="teepees-3-pairs"),
    pytest.param("certificates", Tally(name="A", certificates=3), 3, id="certificates-3"),
    pytest.param("stations", Tally(name="A", stations=7), 9, id="stations-7"),
    pytest.param("buildings", Tally(name="A", buildings=6), 12, id="buildings-6"),
    pytest.param("none", Tally(name="A", certificates=8, buildings=9), 0, id="none"),
])
def test_each_station_master_formula(key, tally, vp):
    assert gwt.station_master_vp(key, tally) == vp


def test_a_player_may_hold_several_station_masters():
    tally = Tally(name="A", workers=Workers(2, 2, 2), hazards=4, station_masters=("workers", "hazards"))
    assert gwt.breakdown(tally)["station_masters"] == 6 + 6


def test_unknown_station_master_is_a_rules_error():
    with pytest.raises(RulesError, match="no station master"):
        gwt.station_master_vp("sheriff", Tally(name="A"))


# Edition differences.

def test_station_master_tiles_per_edition():
    assert gwt.station_master_keys(1) == ("workers", "objectives", "hazards", "teepees", "certificates")
    assert gwt.station_master_keys(2) == ("workers", "objectives", "hazards", "teepees", "certificates",
                                          "stations", "buildings", "none")
    assert gwt.STATION_MASTER_BY_KEY["none"].copies == 2
    assert all(master.copies == 1 for master in gwt.STATION_MASTERS if master.key != "none")


@pytest.mark.parametrize(("key", "needs"), [
    ("workers", "workers"), ("objectives", "objectives"), ("hazards", "hazards"), ("teepees", "teepee_pairs"),
    ("certificates", "certificates"), ("stations", "stations"), ("buildings", "buildings"), ("none", None),
])
def test_station_master_table_names_the_count_it_needs(key, needs):
    assert gwt.STATION_MASTER_BY_KEY[key].counts == needs


@pytest.mark.parametrize(("edition", "players", "ok"), [
    pytest.param(1, 1, False, id="ed1-solo"), pytest.param(1, 2, True, id="ed1-two"),
    pytest.param(1, 4, True, id="ed1-four"), pytest.param(1, 5, False, id="ed1-five"),
    pytest.param(2, 1, True, id="ed2-solo"), pytest.param(2, 4, True, id="ed2-four"),
    pytest.param(2, 5, False, id="ed2-five"), pytest.param(2, 0, False, id="ed2-nobody"),
])
def test_player_counts_per_edition(edition, players, ok):
    tallies = [Tally(name=f"P{i}") for i in range(players)]
    if ok:
        assert len(gwt.final_result(edition, tallies).players) == players
    else:
        with pytest.raises(RulesError) as caught:
            gwt.final_result(edition, tallies)
        assert caught.value.path == "players"


def test_none_station_master_twice_in_edition_2_for_one_or_two_players():
    both = gwt.final_result(2, [Tally(name="A", station_masters=("none", "none")), Tally(name="B")])
    split = gwt.final_result(2, [Tally(name="A", station_masters=("none",)),
                                 Tally(name="B", station_masters=("none",))])
    assert both.players[0].breakdown["station_masters"] == 0
    assert split.players[1].breakdown["station_masters"] == 0


# Checks of a final tally.

@pytest.mark.parametrize(("edition", "tallies", "path", "words"), [
    pytest.param(3, [Tally(name="A")], "edition", "1 or 2", id="edition-3"),
    pytest.param(1, [Tally(name="A", station_masters=("stations",)), Tally(name="B")],
                 "players[0].station_masters[0]", "The 1st edition has no station master 'stations'",
                 id="stations-in-ed1"),
    pytest.param(1, [Tally(name="A"), Tally(name="B", station_masters=("none",))],
                 "players[1].station_masters[0]", "no station master 'none'", id="none-in-ed1"),
    pytest.param(2, [Tally(name="A", station_masters=("sheriff",))],
                 "players[0].station_masters[0]", "no station master 'sheriff'", id="unknown-key"),
    pytest.param(2, [Tally(name="A", station_masters=("hazards",)),
                     Tally(name="B", station_masters=("hazards",))],
                 "players[1].station_masters[0]", "A already holds it", id="tile-twice"),
    pytest.param(2, [Tally(name="A", station_masters=("workers", "workers"))],
                 "players[0].station_masters[1]", "one Workers station master", id="tile-twice-one-player"),
    pytest.param(2, [Tally(name="A", station_masters=("none", "none")),
                     Tally(name="B", station_masters=("none",))],
                 "players[1].station_masters[0]", "2 paid-at-once station masters", id="none-three-times"),
    pytest.param(2, [Tally(name="A", job_market_token=True), Tally(name="B", job_market_token=True)],
                 "players[1].job_market_token", "Only one player", id="two-token-holders"),
    pytest.param(2, [Tally(name="A", workers=Workers(cowboys=7))], "players[0].workers.cowboys", "1 to 6",
                 id="cowboys-7"),
    pytest.param(2, [Tally(name="A", workers=Workers(engineers=0))], "players[0].workers.engineers", "not 0",
                 id="engineers-0"),
    pytest.param(2, [Tally(name="A", dollars=-1)], "players[0].dollars", "cannot be negative",
                 id="negative-dollars"),
    pytest.param(2, [Tally(name="A", teepee_pairs=-2)], "players[0].teepee_pairs", "cannot be negative",
                 id="negative-teepees"),
    pytest.param(2, [Tally(name="A", objectives=(Objective(vp=3, penalty=-1),))], "players[0].objectives[0]",
                 "at least 0", id="negative-penalty"),
    pytest.param(2, [Tally(name="A", objectives=(Objective(vp=6, penalty=2, fulfilled=True),))],
                 "players[0].objectives[0].vp", "3 to 5 VP, not 6", id="no-card-is-worth-6"),
    pytest.param(2, [Tally(name="A", objectives=(Objective(3, 0, True), Objective(3, 0), Objective(3, 0)))],
                 "players[0].objectives[2].penalty", "A player has one start card", id="two-start-cards"),
    pytest.param(2, [Tally(name="A", station_masters=("hazards",), hazards=3, hazards_vp=5)],
                 "players[0].hazards_vp", "2 to 4 VP each, 6 to 12 VP for a count of 3, not 5",
                 id="hazards-worth-too-little"),
    pytest.param(2, [Tally(name="A", station_masters=("hazards",), hazards=2, hazards_vp=9)],
                 "players[0].hazards_vp", "4 to 8 VP for a count of 2", id="hazards-worth-too-much"),
    pytest.param(2, [Tally(name="A", station_masters=("hazards",), hazards_vp=7)], "players[0].hazards_vp",
                 "0 to 0 VP for a count of 0", id="hazards-master-without-the-count"),
    pytest.param(2, [Tally(name="Anna"), Tally(name=" anna ")], "players[1].name", "unique", id="same-name"),
    pytest.param(2, [Tally(name="  ")], "players[0].name", "needs a name", id="blank-name"),
])
def test_tally_checks(edition, tallies, path, words):
    with pytest.raises(RulesError) as caught:
        gwt.final_result(edition, tallies)
    assert caught.value.path == path
    assert words in caught.value.message


def test_negative_cities_are_allowed():
    result = gwt.final_result(2, [Tally(name="A", cities_vp=-12, cattle_vp=20)])
    assert result.players[0].breakdown["cities"] == -12
    assert result.players[0].total == 8


def test_tally_problems_lists_every_problem_in_input_order():
    tallies = [Tally(name="A", job_market_token=True, dollars=-1),
               Tally(name="B", job_market_token=True, station_masters=("stations",))]
    assert [path for path, _ in gwt.tally_problems(1, tallies)] == [
        "players[0].dollars", "players[1].station_masters[0]", "players[1].job_market_token"]


# Objective cards: start cards 3 VP and no penalty; the others 3, 4 or 5 VP with a penalty of 2 or 3.

NOT_FULFILLED_COSTS = "objective card that is not fulfilled costs its penalty, 2 or 3; only a start card"


@pytest.mark.parametrize(("card", "objectives_vp", "words"), [
    pytest.param(Objective(3, 0, False), 0, None, id="start-card-not-fulfilled"),
    pytest.param(Objective(3, 0, True), 3, None, id="start-card-fulfilled"),
    pytest.param(Objective(3, 2, False), -2, None, id="3-vp-card-penalty-2"),
    pytest.param(Objective(4, 2, False), -2, None, id="4-vp-penalty-2"),
    pytest.param(Objective(5, 3, False), -3, None, id="5-vp-penalty-3"),
    pytest.param(Objective(5, 3, True), 5, None, id="5-vp-fulfilled"),
    pytest.param(Objective(5, 0, True), 5, None, id="fulfilled-penalty-not-given"),
    pytest.param(Objective(5, 0, False), None, f"A 5-VP {NOT_FULFILLED_COSTS} (3 VP) has none.",
                 id="5-vp-not-fulfilled-without-penalty"),
    pytest.param(Objective(4, 0, False), None, f"A 4-VP {NOT_FULFILLED_COSTS} (3 VP) has none.",
                 id="4-vp-not-fulfilled-without-penalty"),
    pytest.param(Objective(4, 1, False), None,
                 "An objective card's penalty is 2 or 3 (a start card, 3 VP, has none), not 1.",
                 id="penalty-1"),
    pytest.param(Objective(3, 4, False), None, "penalty is 2 or 3 (a start card, 3 VP, has none), not 4.",
                 id="penalty-4"),
    pytest.param(Objective(5, 9, True), None, "penalty is 2 or 3 (a start card, 3 VP, has none), not 9.",
                 id="penalty-9-on-a-fulfilled-card"),
])
def test_an_objective_cards_penalty_must_fit_the_card(card, objectives_vp, words):
    tally = Tally(name="A", objectives=(Objective(3, 0, True), card))
    problems = gwt.tally_problems(2, [tally])
    if words is None:
        assert problems == [] and gwt.objective_penalty_problem(card) is None
        assert gwt.final_result(2, [tally]).players[0].breakdown["objectives"] == 3 + objectives_vp
        return
    assert problems == [("players[0].objectives[1].penalty", gwt.objective_penalty_problem(card))]
    assert words in problems[0][1]
    with pytest.raises(RulesError) as caught:
        gwt.final_result(2, [tally])
    assert caught.value.path == "players[0].objectives[1].penalty"


# Reference data and calculators.

def test_reference_values_match_the_board_data():
    assert gwt.STARTING_MONEY == (6, 7, 8, 9)
    assert gwt.STATION_VP == (1, 1, 2, 2, 3, 5, 6, 7, 8, 9)
    assert gwt.HAZARD_VP == (2, 2, 3, 3, 4, 4)
    assert {breed.key: breed.vp_values for breed in gwt.CATTLE_BREEDS} == {
        "starting": (0,), "holstein": (1,), "brown_swiss": (2,), "ayrshire": (3,), "west_highland": (3, 4, 5),
        "texas_longhorn": (5, 6, 7)}
    assert [gwt.PRIVATE_BUILDINGS[f"{n}a"] for n in range(1, 11)] == [1, 1, 1, 3, 4, 5, 6, 6, 9, 13]
    assert [gwt.PRIVATE_BUILDINGS[f"{n}b"] for n in range(1, 11)] == [1, 1, 3, 3, 4, 5, 6, 8, 8, 11]


@pytest.mark.parametrize(("seats", "money"), [(1, (6,)), (2, (6, 7)), (4, (6, 7, 8, 9))])
def test_starting_money_by_seat(seats, money):
    setup = PlaySetup(game=gwt.GAME.slug, seats=tuple(Seat(f"P{i}", "red") for i in range(seats)))
    assert gwt.initial_state(setup).starting_money == money


@pytest.mark.parametrize(("tiles", "vp"), [
    pytest.param([], 0, id="none-built"),
    pytest.param(["4a", "10b"], 14, id="4a-10b"),
    pytest.param(["10a", "9b", "8b", "3b"], 13 + 8 + 8 + 3, id="mixed-sides"),
    pytest.param([" 5A "], 4, id="spaces-and-capitals"),
])
def test_buildings_from_tiles(tiles, vp):
    assert gwt.buildings_vp_from_tiles(tiles) == vp


@pytest.mark.parametrize(("tiles", "path"), [
    pytest.param(["11a"], "[0]", id="no-building-11"),
    pytest.param(["4a", "4c"], "[1]", id="no-side-c"),
    pytest.param(["4a", "4b"], "[1]", id="building-4-twice"),
    pytest.param(["", "1a"], "[0]", id="empty"),
])
def test_buildings_from_tiles_refuses_impossible_tiles(tiles, path):
    with pytest.raises(RulesError) as caught:
        gwt.buildings_vp_from_tiles(tiles)
    assert caught.value.path == path


@pytest.mark.parametrize(("counts", "vp"), [
    pytest.param({}, 0, id="no-cards"),
    pytest.param({0: 14}, 0, id="starting-herd"),
    pytest.param({3: 2, 5: 1}, 11, id="3-3-5"),
    pytest.param({1: 1, 2: 2, 4: 1, 7: 3}, 1 + 4 + 4 + 21, id="many"),
])
def test_cattle_from_cards(counts, vp):
    assert gwt.cattle_vp_from_cards(counts) == vp


@pytest.mark.parametrize("counts", [
    pytest.param({8: 1}, id="no-8-vp-card"), pytest.param({-1: 1}, id="negative-value"),
    pytest.param({3: -1}, id="negative-count"), pytest.param({3: 1.0}, id="float-count"),
    pytest.param({"3": 1}, id="string-value"), pytest.param({3: True}, id="bool-count"),
])
def test_cattle_from_cards_refuses_impossible_cards(counts):
    with pytest.raises(RulesError):
        gwt.cattle_vp_from_cards(counts)


# The in-play log of delivered herds.

def _setup(seats: int = 3, **options: object) -> PlaySetup:
    return PlaySetup(game=gwt.GAME.slug, seats=tuple(Seat(f"P{i}", "blue") for i in range(seats)),
                     options=options)


def test_deliveries_add_up_per_seat_and_are_the_running_scores():
    state = gwt.initial_state(_setup(3))
    assert gwt.running_scores(state) == (0, 0, 0)
    for seat, city, crest in [(0, "Kansas City", -6), (1, "San Francisco", 9), (0, "Denver", 4),
                              (2, "Albuquerque", 2)]:
        state = gwt.apply_event(state, "delivery", {"seat": seat, "city": city, "crest_vp": crest})
    assert gwt.running_scores(state) == (-2, 9, 2)
    assert [gwt.cities_vp_from_deliveries(state, seat) for seat in range(3)] == [-2, 9, 2]
    assert state.deliveries[0] == gwt.Delivery(seat=0, city="Kansas City", crest_vp=-6)


def test_the_cities_row_may_be_negative():
    state = gwt.initial_state(_setup(2))
    for city, crest in [("Kansas City", -6), ("Kansas City", -6), ("San Francisco", 9)]:
        state = gwt.apply_event(state, "delivery", {"seat": 1, "city": city, "crest_vp": crest})
    assert gwt.running_scores(state) == (0, -3)


@pytest.mark.parametrize(("seats", "delivered", "next_seat"), [
    pytest.param(3, [], 0, id="seat-1-first"),
    pytest.param(3, [0], 1, id="the-seat-after"),
    pytest.param(3, [0, 1, 2], 0, id="round-the-table"),
    pytest.param(4, [0, 3], 0, id="after-one-out-of-turn"),
    pytest.param(2, [1, 1], 0, id="twice-in-a-row"),
    pytest.param(1, [0, 0], 0, id="solo"),
])
def test_the_seat_after_the_last_delivery_is_expected_to_deliver_next(seats, delivered, next_seat):
    state = gwt.initial_state(_setup(seats))
    for seat in delivered:
        state = gwt.apply_event(state, "delivery", {"seat": seat, "city": "Wichita", "crest_vp": 3})
    assert state.next_seat == next_seat


def test_apply_event_leaves_the_earlier_state_unchanged():
    before = gwt.initial_state(_setup(2))
    after = gwt.apply_event(before, "delivery", {"seat": 1, "city": " Denver ", "crest_vp": 3})
    assert before.deliveries == ()
    assert after.deliveries == (gwt.Delivery(1, "Denver", 3),)


@pytest.mark.parametrize(("kind", "payload", "path"), [
    pytest.param("score", {"seat": 0, "city": "Denver", "crest_vp": 1}, "kind", id="unknown-kind"),
    pytest.param("delivery", {"seat": 3, "city": "Denver", "crest_vp": 1}, "seat", id="seat-off-table"),
    pytest.param("delivery", {"seat": "0", "city": "Denver", "crest_vp": 1}, "seat", id="seat-string"),
    pytest.param("delivery", {"seat": True, "city": "Denver", "crest_vp": 1}, "seat", id="seat-bool"),
    pytest.param("delivery", {"city": "Denver", "crest_vp": 1}, "seat", id="seat-missing"),
    pytest.param("delivery", {"seat": 0, "city": " ", "crest_vp": 1}, "city", id="city-blank"),
    pytest.param("delivery", {"seat": 0, "city": "x" * 41, "crest_vp": 1}, "city", id="city-too-long"),
    pytest.param("delivery", {"seat": 0, "city": 7, "crest_vp": 1}, "city", id="city-number"),
    pytest.param("delivery", {"seat": 0, "city": "Denver", "crest_vp": 101}, "crest_vp", id="crest-101"),
    pytest.param("delivery", {"seat": 0, "city": "Denver", "crest_vp": -101}, "crest_vp", id="crest-m101"),
    pytest.param("delivery", {"seat": 0, "city": "Denver", "crest_vp": 1.0}, "crest_vp", id="crest-float"),
    pytest.param("delivery", {"seat": 0, "city": "Denver", "crest_vp": "3"}, "crest_vp", id="crest-string"),
    pytest.param("delivery", {"seat": 0, "city": "Denver", "crest_vp": True}, "crest_vp", id="crest-bool"),
    pytest.param("delivery", {"seat": 0, "city": "Denver", "crest_vp": None}, "crest_vp", id="crest-none"),
    pytest.param("delivery", {"seat": 0, "city": "Denver"}, "crest_vp", id="crest-missing"),
    pytest.param("delivery", {"seat": 0, "city": "Denver", "crest_vp": 1, "vp": 2}, "vp", id="extra-field"),
    pytest.param("delivery", ["seat", 0], "", id="payload-list"),
])
def test_apply_event_refuses_what_the_table_does_not_allow(kind, payload, path):
    with pytest.raises(RulesError) as caught:
        gwt.apply_event(gwt.initial_state(_setup(3)), kind, payload)
    assert caught.value.path == path


@pytest.mark.parametrize(("setup", "path"), [
    pytest.param(_setup(1, edition=1), "seats", id="ed1-solo"),
    pytest.param(_setup(5), "seats", id="five-seats"),
    pytest.param(_setup(2, edition="2"), "edition", id="edition-string"),
    pytest.param(_setup(2, edition=3), "edition", id="edition-3"),
    pytest.param(PlaySetup(game="gold-west", seats=(Seat("A", "red"),)), "game", id="other-game"),
])
def test_initial_state_refuses_impossible_setups(setup, path):
    with pytest.raises(RulesError) as caught:
        gwt.initial_state(setup)
    assert caught.value.path == path


def test_solo_play_in_edition_2_is_the_default():
    assert gwt.initial_state(_setup(1)).edition == 2


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-200, 200) | st.floats(allow_nan=True) | st.text(max_size=50),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.sampled_from(["seat", "city", "crest_vp"]) | st.text(max_size=5), children,
                      max_size=4),
    max_leaves=12,
)


@settings(deadline=None)
@given(kind=st.sampled_from(["delivery", "score", ""]) | st.text(max_size=10), payload=JSON_VALUES)
def test_garbage_events_raise_only_rules_errors(kind, payload):
    state = gwt.initial_state(_setup(2))
    try:
        after = gwt.apply_event(state, kind, payload)
    except RulesError:
        return
    assert sum(gwt.running_scores(after)) == payload["crest_vp"]


# Properties of the final tally.

# Cards that exist: 3, 4 or 5 VP; the start card (3 VP) has no penalty, any other card 2 or 3, which a
# fulfilled card may leave out.
CARD_VP = st.sampled_from(gwt.OBJECTIVE_VPS)
FITTING_CARDS = (st.builds(Objective, vp=CARD_VP, penalty=st.sampled_from(gwt.OBJECTIVE_PENALTIES),
                           fulfilled=st.booleans())
                 | st.builds(Objective, vp=CARD_VP, fulfilled=st.just(True)))
START_CARD = st.builds(Objective, vp=st.just(gwt.START_OBJECTIVE_VP), fulfilled=st.booleans())
OBJECTIVES = st.builds(lambda start, others: (*start, *others), st.lists(START_CARD, max_size=1),
                       st.lists(FITTING_CARDS, max_size=7))
ROW = st.integers(1, 6)
WORKERS = st.builds(Workers, cowboys=ROW, craftsmen=ROW, engineers=ROW)
VP = st.integers(0, 999)
PIECES = st.integers(0, 95)


def tallies_for(name: str, station_masters: st.SearchStrategy) -> st.SearchStrategy[Tally]:
    """Tallies that pass the rules' checks, for a player of this name: hazard tiles worth 2 to 4 VP each."""
    return st.builds(
        Tally, name=st.just(name), dollars=VP, buildings_vp=VP, cities_vp=st.integers(-100, 999),
        stations_vp=VP, hazards_vp=st.just(0), cattle_vp=VP, objectives=OBJECTIVES,
        station_masters=station_masters, workers=WORKERS, teepee_pairs=PIECES, hazards=PIECES,
        certificates=PIECES, stations=PIECES, buildings=st.integers(0, len(gwt.BUILDING_NUMBERS)),
        disc_cleared=st.booleans(), job_market_token=st.booleans(),
    ).flatmap(lambda tally: st.integers(2 * tally.hazards, 4 * tally.hazards).map(
        lambda vp: replace(tally, hazards_vp=vp)))


SOLO_TALLIES = tallies_for(
    "Solo", st.lists(st.sampled_from(gwt.station_master_keys(2)), unique=True, max_size=5).map(tuple))


@st.composite
def tables(draw) -> tuple[int, list[Tally]]:
    """An edition and the tallies of a whole table, with each tile and the token handed out once."""
    edition = draw(st.sampled_from(gwt.EDITIONS))
    fewest, most = gwt.PLAYER_COUNTS[edition]
    players = draw(st.integers(fewest, most))
    tiles = list(gwt.station_master_keys(edition)) + (["none"] if edition == 2 else [])
    # the 1st edition plays its 5 tiles, the 2nd draws 5 of its 9
    tiles = draw(st.permutations(tiles))[:gwt.STATION_MASTERS_IN_PLAY]
    owners = draw(st.lists(st.integers(-1, players - 1), min_size=len(tiles), max_size=len(tiles)))
    holder = draw(st.integers(-1, players - 1))
    tallies = []
    for seat in range(players):
        tally = draw(tallies_for(f"Player {seat}", st.just(())))
        tallies.append(replace(
            tally, job_market_token=seat == holder,
            station_masters=tuple(tile for tile, owner in zip(tiles, owners, strict=True) if owner == seat)))
    return edition, tallies


@settings(deadline=None)
@given(tables())
def test_breakdown_adds_up_and_ranks_follow_the_totals(table):
    edition, tallies = table
    result = gwt.final_result(edition, tallies)
    totals = [p.total for p in result.players]
    for player, tally in zip(result.players, tallies, strict=True):
        assert list(player.breakdown) == list(gwt.GAME.rows)
        assert sum(player.breakdown.values()) == player.total
        assert player.breakdown == gwt.breakdown(tally)
        assert player.rank == 1 + sum(other > player.total for other in totals)
    assert result.winners == tuple(p.name for p in result.players if p.total == max(totals))


@settings(deadline=None)
@given(SOLO_TALLIES, st.integers(0, 999))
def test_more_dollars_never_lower_the_total(tally, extra):
    before = gwt.final_result(2, [tally]).players[0].total
    after = gwt.final_result(2, [replace(tally, dollars=tally.dollars + extra)]).players[0].total
    assert after >= before


@settings(deadline=None)
@given(SOLO_TALLIES, st.integers(0, 999))
def test_more_cattle_vp_never_lowers_the_total(tally, extra):
    before = gwt.final_result(2, [tally]).players[0].total
    after = gwt.final_result(2, [replace(tally, cattle_vp=tally.cattle_vp + extra)]).players[0].total
    assert after == before + extra


@settings(deadline=None)
@given(SOLO_TALLIES, st.builds(Objective, vp=CARD_VP,
                               penalty=st.sampled_from(gwt.OBJECTIVE_PENALTIES))
       | st.just(Objective(gwt.START_OBJECTIVE_VP)), st.data())
def test_a_fulfilled_objective_never_scores_less_than_a_failed_one(tally, card, data):
    # a player has one start card
    cards = [c for c in tally.objectives if card.penalty or (c.vp, c.penalty) != (gwt.START_OBJECTIVE_VP, 0)]
    position = data.draw(st.integers(0, len(cards)))

    def total_with(fulfilled: bool) -> int:
        chosen = (*cards[:position], replace(card, fulfilled=fulfilled), *cards[position:])
        return gwt.final_result(2, [replace(tally, objectives=chosen)]).players[0].total

    assert total_with(True) - total_with(False) == card.vp + card.penalty


# Final-tally cards handed in during the play, one event per card.

ANNA_CARD = {
    "seat": 0, "dollars": 23, "buildings_vp": 12, "cities_vp": 8, "stations_vp": 10, "hazards_vp": 7,
    "cattle_vp": 21,
    "objectives": [{"vp": 3, "penalty": 0, "fulfilled": True}, {"vp": 5, "penalty": 3, "fulfilled": True},
                   {"vp": 4, "penalty": 2, "fulfilled": False}],
    "station_masters": ["workers"], "workers": {"cowboys": 5, "craftsmen": 6, "engineers": 2},
    "teepee_pairs": 0, "hazards": 0, "certificates": 0, "stations": 0, "buildings": 0,
    "disc_cleared": True, "job_market_token": False,
}


def card(at: int = 0, **changes: object) -> dict:
    """Anna's worked-example card for seat ``at``; a change to ``...`` leaves the field out."""
    payload = {**ANNA_CARD, "seat": at, **changes}
    return {key: value for key, value in payload.items() if value is not ...}


def test_a_card_of_the_worked_example_scores_96():
    state = gwt.initial_state(_setup(2))
    state = gwt.apply_event(state, "card", card(0))
    anna = state.cards[0]
    assert anna.tally == replace(ANNA, name="P0")
    assert anna.total == 96
    assert state.card_totals == (96, None) and state.missing_cards == (1,) and not state.all_cards_in


def test_a_later_card_of_a_seat_replaces_the_earlier():
    state = gwt.initial_state(_setup(2))
    state = gwt.apply_event(state, "card", card(1))
    state = gwt.apply_event(state, "card", card(0, dollars=50))
    state = gwt.apply_event(state, "card", card(1, dollars=4))
    assert [c.tally.dollars for c in state.cards] == [50, 4]
    assert [c.handed_in for c in state.cards] == [2, 3]
    assert state.all_cards_in


@pytest.mark.parametrize(("earlier", "delivery", "asked"), [
    pytest.param([(0, "Wichita")], (0, "Wichita"), True, id="her-second-disc-there"),
    pytest.param([(0, "Wichita")], (0, "  WICHITA "), True, id="however-it-is-typed"),
    pytest.param([(1, "Wichita")], (0, "Wichita"), False, id="another-players-disc"),
    pytest.param([(0, "Wichita")], (0, "Denver"), False, id="another-city"),
    pytest.param([(0, "Kansas City")], (0, "kansas city"), False, id="kansas-city-takes-many"),
    pytest.param([(0, "San Francisco")], (0, "San Francisco"), False, id="san-francisco-too"),
])
def test_a_second_disc_of_a_player_in_one_city_is_asked_about(earlier, delivery, asked):
    def payload(seat: int, city: str) -> dict:
        return {"seat": seat, "city": city, "crest_vp": gwt.per_disc_crest(city) or 2}

    state = gwt.initial_state(_setup(2))
    for seat, city in earlier:
        state = gwt.apply_event(state, "delivery", payload(seat, city))
    if asked:
        with pytest.raises(gwt.SecondDisc) as caught:
            gwt.check_second_disc(state, payload(*delivery))
        assert "P0 has a disc in Wichita already" in str(caught.value)
        gwt.check_second_disc(state, payload(*delivery), confirmed=caught.value.answer)  # answered: placed
    else:
        gwt.check_second_disc(state, payload(*delivery))


def test_a_second_disc_confirmed_for_one_city_is_asked_again_for_another():
    state = gwt.initial_state(_setup(2))
    for seat, city in ((0, "Wichita"), (0, "Denver"), (1, "Denver")):
        state = gwt.apply_event(state, "delivery", {"seat": seat, "city": city, "crest_vp": 2})
    with pytest.raises(gwt.SecondDisc) as wichita:
        gwt.check_second_disc(state, {"seat": 0, "city": "Wichita", "crest_vp": 2})
    for seat, city in ((0, "Denver"), (1, "Denver")):
        with pytest.raises(gwt.SecondDisc, match=f"P{seat} has a disc in Denver already"):
            gwt.check_second_disc(state, {"seat": seat, "city": city, "crest_vp": 2},
                                  confirmed=wichita.value.answer)


def test_cards_leave_the_deliveries_and_running_scores_alone():
    state = gwt.initial_state(_setup(2))
    state = gwt.apply_event(state, "delivery", {"seat": 1, "city": "Kansas City", "crest_vp": -6})
    state = gwt.apply_event(state, "card", card(1))
    assert gwt.running_scores(state) == (0, -6)
    assert state.deliveries == (gwt.Delivery(1, "Kansas City", -6),)
    assert state.known_cities[:3] == ("Kansas City", "San Francisco", "New York")


@pytest.mark.parametrize(("changes", "row", "vp", "extra"), [
    pytest.param({"buildings_vp": ..., "building_tiles": ["4a", " 10B "], "buildings": ...}, "buildings", 14,
                 {"building_tiles": ("4a", "10b")}, id="building-tiles"),
    pytest.param({"buildings_vp": ..., "building_tiles": [], "buildings": 0}, "buildings", 0,
                 {"building_tiles": ()}, id="no-building-tiles"),
    pytest.param({"cattle_vp": ..., "cattle_cards": {"3": 2, "5": 1, "7": 0}}, "cattle", 11,
                 {"cattle_cards": ((3, 2), (5, 1))}, id="cattle-cards"),
    pytest.param({"cities_vp": -12}, "cities", -12, {}, id="negative-cities"),
])
def test_card_calculators(changes, row, vp, extra):
    seat, entered = gwt.card_from_payload(gwt.initial_state(_setup(1)), card(0, **changes))
    assert seat == 0 and entered.breakdown[row] == vp
    for name, value in extra.items():
        assert getattr(entered, name) == value


@pytest.mark.parametrize(("changes", "count"), [
    pytest.param({"buildings_vp": ..., "building_tiles": ["1a", "2b", "3a"], "buildings": ...}, 3,
                 id="count-of-the-tiles"),
    pytest.param({"buildings_vp": ..., "building_tiles": ["1a", "2b"], "buildings": 2}, 2,
                 id="matching-count"),
    pytest.param({"buildings": 5}, 5, id="count-with-a-vp-total"),
])
def test_the_buildings_station_master_counts_the_ticked_tiles(changes, count):
    _, entered = gwt.card_from_payload(gwt.initial_state(_setup(1)),
                                       card(0, station_masters=["buildings"], **changes))
    assert entered.tally.buildings == count
    assert entered.breakdown["station_masters"] == 2 * count


@pytest.mark.parametrize(("changes", "path"), [
    pytest.param({"seat": 2}, "seat", id="seat-off-table"),
    pytest.param({"dollars": ...}, "dollars", id="no-dollars"),
    pytest.param({"dollars": -1}, "dollars", id="negative-dollars"),
    pytest.param({"dollars": 1000}, "dollars", id="dollars-1000"),
    pytest.param({"dollars": 5.0}, "dollars", id="float-dollars"),
    pytest.param({"dollars": True}, "dollars", id="bool-dollars"),
    pytest.param({"cities_vp": -101}, "cities_vp", id="cities-below-every-crest"),
    pytest.param({"building_tiles": ["4a"]}, "buildings_vp", id="buildings-twice"),
    pytest.param({"buildings_vp": ...}, "buildings_vp", id="buildings-missing"),
    pytest.param({"buildings_vp": ..., "building_tiles": "4a", "buildings": ...}, "building_tiles",
                 id="tiles-not-a-list"),
    pytest.param({"buildings_vp": ..., "building_tiles": ["4a", "4b"], "buildings": ...}, "building_tiles[1]",
                 id="tile-4-twice"),
    pytest.param({"buildings_vp": ..., "building_tiles": [f"{n}a" for n in range(1, 12)], "buildings": ...},
                 "building_tiles",
                 id="eleven-tiles"),
    pytest.param({"buildings_vp": ..., "building_tiles": ["1a", "2a"], "buildings": 3}, "buildings",
                 id="tiles-and-count-disagree"),
    pytest.param({"buildings": ...}, "buildings", id="count-missing-without-tiles"),
    pytest.param({"cattle_cards": {"3": 1}}, "cattle_vp", id="cattle-twice"),
    pytest.param({"cattle_vp": ..., "cattle_cards": {"8": 1}}, "cattle_cards", id="no-8-vp-cattle"),
    pytest.param({"cattle_vp": ..., "cattle_cards": {"3": -1}}, "cattle_cards.3", id="negative-cattle"),
    pytest.param({"cattle_vp": ..., "cattle_cards": [[3, 1]]}, "cattle_cards", id="cattle-as-list"),
    pytest.param({"objectives": [{"vp": 3, "fulfilled": True}]}, "objectives[0]", id="objective-no-penalty"),
    pytest.param({"objectives": [{"vp": 10, "penalty": 0, "fulfilled": True}]}, "objectives[0].vp",
                 id="objective-vp-10"),
    pytest.param({"objectives": [{"vp": 3, "penalty": 0, "fulfilled": 1}]}, "objectives[0].fulfilled",
                 id="objective-fulfilled-1"),
    pytest.param({"objectives": [{"vp": 3, "penalty": 0, "fulfilled": True}] * 31}, "objectives",
                 id="31-objectives"),
    pytest.param({"station_masters": ["sheriff"]}, "station_masters[0]", id="unknown-master"),
    pytest.param({"station_masters": ["hazards", "hazards"]}, "station_masters[1]", id="master-twice"),
    pytest.param({"station_masters": "workers"}, "station_masters", id="masters-not-a-list"),
    pytest.param({"workers": {"cowboys": 5, "craftsmen": 6}}, "workers", id="worker-row-missing"),
    pytest.param({"workers": {"cowboys": 7, "craftsmen": 6, "engineers": 2}}, "workers.cowboys",
                 id="seven-cowboys"),
    pytest.param({"teepee_pairs": 96}, "teepee_pairs", id="96-teepee-pairs"),
    pytest.param({"buildings": 11}, "buildings", id="eleven-private-buildings"),
    pytest.param({"disc_cleared": "yes"}, "disc_cleared", id="disc-as-text"),
    pytest.param({"job_market_token": ...}, "job_market_token", id="token-missing"),
    pytest.param({"name": "Anna"}, "name", id="unknown-field"),
])
def test_impossible_cards_are_refused(changes, path):
    with pytest.raises(RulesError) as caught:
        gwt.apply_event(gwt.initial_state(_setup(2)), "card", card(0, **changes))
    assert caught.value.path == path


def test_the_none_station_master_may_be_held_twice_and_other_editions_tiles_not():
    state = gwt.initial_state(_setup(2))
    _, entered = gwt.card_from_payload(state, card(0, station_masters=["none", "none"]))
    assert entered.tally.station_masters == ("none", "none")
    first = gwt.initial_state(_setup(2, edition=1))
    with pytest.raises(RulesError, match="The 1st edition has no station master 'stations'"):
        gwt.card_from_payload(first, card(0, station_masters=["stations"]))


def test_a_repeated_card_and_a_card_from_an_outdated_view_are_told_apart():
    state = gwt.apply_event(gwt.initial_state(_setup(2)), "card", card(0))
    with pytest.raises(gwt.RepeatedCard, match="already in"):
        gwt.check_new_card(state, card(0), based_on=0)
    with pytest.raises(gwt.StaleCard, match="P0's card was changed on another phone"):
        gwt.check_new_card(state, card(0, dollars=30), based_on=0)
    gwt.check_new_card(state, card(0, dollars=30), based_on=gwt.card_revision(state, 0))
    # a card of another seat never conflicts with it
    gwt.check_new_card(state, card(1), based_on=0)


def _table_after(entries: list[tuple]) -> gwt.PlayState:
    """Two seats after ``entries``: ("delivery", seat, city, crest), ("card", seat) or ("card", seat,
    {changes}), or ("undo",) (the last entry taken back)."""
    log: list[tuple[str, dict]] = []
    for entry in entries:
        if entry[0] == "undo":
            log.pop()
        elif entry[0] == "delivery":
            log.append(("delivery", {"seat": entry[1], "city": entry[2], "crest_vp": entry[3]}))
        else:
            log.append(("card", card(entry[1], **(entry[2] if len(entry) > 2 else {}))))
    state = gwt.initial_state(_setup(2))
    for kind, payload in log:
        state = gwt.apply_event(state, kind, payload)
    return state


CARD_OUTDATED = ("P0's card was changed on another phone since you opened it. What is saved now is shown "
                 "next to each row: check it and send your card again.")
DELIVERY_ENTERED = ("Another phone entered {deliveries} for P0 since this page was drawn: P0's deliveries "
                    "now give {vp} VP for the cities row. Check it and send your card again.")
DELIVERY_UNDONE = ("Another phone undid a delivery of P0's since this page was drawn: P0's deliveries "
                   "now give {vp} VP for the cities row. Check it and send your card again.")
DENVER, SAN_FRANCISCO = ("delivery", 0, "Denver", 4), ("delivery", 0, "San Francisco", 9)


@pytest.mark.parametrize(("drawn_after", "since", "refusal"), [
    pytest.param([], [], None, id="nothing-yet"),
    pytest.param([DENVER], [], None, id="nothing-since-a-delivery"),
    pytest.param([], [SAN_FRANCISCO], DELIVERY_ENTERED.format(
        deliveries="a delivery to San Francisco (+9 VP)", vp=9), id="a-delivery-since"),
    pytest.param([DENVER], [SAN_FRANCISCO, ("delivery", 0, "Kansas City", -6)], DELIVERY_ENTERED.format(
        deliveries="a delivery to San Francisco (+9 VP) and a delivery to Kansas City (-6 VP)", vp=7),
        id="two-deliveries-since"),
    pytest.param([("card", 0)], [SAN_FRANCISCO], DELIVERY_ENTERED.format(
        deliveries="a delivery to San Francisco (+9 VP)", vp=9), id="a-delivery-after-the-card"),
    pytest.param([DENVER], [("undo",)], DELIVERY_UNDONE.format(vp=0), id="a-delivery-undone"),
    pytest.param([DENVER], [("undo",), ("delivery", 0, "Denver", 5)], DELIVERY_UNDONE.format(vp=5),
                 id="undone-and-entered-with-another-crest"),
    pytest.param([DENVER], [("undo",), DENVER], None, id="undone-and-entered-again-the-same"),
    pytest.param([], [("card", 0)], CARD_OUTDATED, id="a-card-since"),
    pytest.param([SAN_FRANCISCO], [("card", 0), DENVER], CARD_OUTDATED, id="a-card-and-a-delivery-since"),
    pytest.param([("card", 0)], [("undo",)], CARD_OUTDATED, id="the-card-undone"),
    pytest.param([("card", 0), ("card", 0, {"dollars": 31})], [("undo",), ("card", 0, {"dollars": 50})],
                 CARD_OUTDATED, id="the-card-undone-and-handed-in-again-otherwise"),
    pytest.param([("card", 0)], [("undo",), ("card", 0)], None,
                 id="the-card-undone-and-handed-in-again-the-same"),
    pytest.param([DENVER], [("delivery", 1, "Denver", 4), ("card", 1)], None, id="the-other-seat-only"),
    pytest.param([("delivery", 1, "Denver", 4)], [("undo",), ("delivery", 1, "Denver", 2)], None,
                 id="the-other-seats-delivery-undone"),
])
def test_a_card_page_is_outdated_by_a_card_or_a_delivery_of_its_seat(drawn_after, since, refusal):
    drawn = gwt.card_revision(_table_after(drawn_after), 0)
    now = _table_after([*drawn_after, *since])
    sent = card(0, dollars=40)  # not the card of the table: that one would be a repeat
    if refusal is None:
        gwt.check_new_card(now, sent, based_on=drawn)
        return
    with pytest.raises(gwt.StaleCard) as caught:
        gwt.check_new_card(now, sent, based_on=drawn)
    assert caught.value.message == refusal
    gwt.check_new_card(now, sent, based_on=gwt.card_revision(now, 0))  # sent again from a page drawn now


@pytest.mark.parametrize(("before", "changes", "after", "behind"), [
    pytest.param([], {}, [SAN_FRANCISCO], 9, id="a-delivery-after-the-card"),
    pytest.param([SAN_FRANCISCO], {"cities_vp": 9}, [("delivery", 0, "Kansas City", -6)], 3,
                 id="a-kansas-city-disc-after-the-card"),
    pytest.param([], {"cities_vp": 9}, [SAN_FRANCISCO], None, id="the-card-counted-it-already"),
    pytest.param([DENVER], {}, [], None, id="deliveries-before-the-card-the-card-says-otherwise"),
    pytest.param([], {}, [SAN_FRANCISCO, ("card", 0)], None, id="the-card-handed-in-again"),
    pytest.param([], {}, [("delivery", 1, "Denver", 4)], None, id="another-players-delivery"),
])
def test_a_delivery_entered_after_the_card_holds_the_result_until_the_card_follows(before, changes, after,
                                                                                    behind):
    ben = ("card", 1, {"job_market_token": True, "station_masters": []})
    state = _table_after([*before, ("card", 0, changes), *after, ben])
    assert gwt.cities_behind_deliveries(state, 0) == behind
    if behind is None:
        assert gwt.card_conflicts(state) == []
        return
    told = (f"P0's deliveries changed after P0's card was handed in: they give {behind} VP for the cities "
            f"row now, the card {state.cards[0].tally.cities_vp}. Change P0's card.")
    assert gwt.card_conflicts(state) == [told]
    with pytest.raises(RulesError, match="P0's deliveries changed"):
        gwt.result_from_cards(state)
    # the same card again is no repeat: it says the row stands as it is
    gwt.check_new_card(state, card(0, **changes), based_on=gwt.card_revision(state, 0))


@pytest.mark.parametrize(("second", "problem"), [
    pytest.param({"job_market_token": True, "station_masters": []},
                 "P1: Only one player holds the job-market token, and P0 already does.", id="two-tokens"),
    pytest.param({"station_masters": ["workers"], "job_market_token": False},
                 "P1: The game has one Workers station master, and P0 already holds it.", id="same-master"),
])
def test_cards_that_break_the_rules_together_give_no_result(second, problem):
    state = gwt.initial_state(_setup(2))
    state = gwt.apply_event(state, "card", card(0, job_market_token=True))
    assert gwt.card_conflicts(state) == []  # not all in yet: nothing to compare
    with pytest.raises(RulesError, match="Waiting for the final-tally card of P1"):
        gwt.result_from_cards(state)
    state = gwt.apply_event(state, "card", card(1, **second))
    assert gwt.card_conflicts(state) == [problem]
    with pytest.raises(RulesError) as caught:
        gwt.result_from_cards(state)
    assert caught.value.message == problem


NOBODY_HOLDS_IT = ("Someone holds the job-market token: the game ends when a player moves it off the last "
                   "space of the job market, and that player takes it (2 VP). Tick “I hold the job-market "
                   "token” on that player's card.")


@pytest.mark.parametrize(("edition", "seats"), [
    pytest.param(1, 2, id="1st-edition"), pytest.param(2, 3, id="2nd-edition"), pytest.param(2, 1, id="solo"),
])
def test_cards_without_the_job_market_token_give_no_result_until_one_ticks_it(edition, seats):
    state = gwt.initial_state(_setup(seats, edition=edition))
    for seat in range(seats):
        state = gwt.apply_event(state, "card", card(seat, station_masters=[]))
    assert gwt.card_conflicts(state) == [NOBODY_HOLDS_IT]
    with pytest.raises(RulesError) as caught:
        gwt.result_from_cards(state)
    assert caught.value.message == NOBODY_HOLDS_IT and caught.value.path == "cards"
    # the cards stay as they are; the player who holds it ticks it on their card, and the result comes
    state = gwt.apply_event(state, "card", card(seats - 1, station_masters=[], job_market_token=True))
    assert gwt.card_conflicts(state) == []
    result = gwt.result_from_cards(state)
    assert [p.breakdown["job_market"] for p in sorted(result.players, key=lambda p: p.name)] == [
        2 if seat == seats - 1 else 0 for seat in range(seats)]


def test_a_token_nobody_holds_is_told_with_the_other_conflicts():
    state = gwt.initial_state(_setup(2))
    for seat in range(2):
        state = gwt.apply_event(state, "card", card(seat))  # both hold the Workers station master
    assert gwt.card_conflicts(state) == [
        "P1: The game has one Workers station master, and P0 already holds it.", NOBODY_HOLDS_IT]


@pytest.mark.parametrize(("changes", "path", "words"), [
    pytest.param({"objectives": [{"vp": 3, "penalty": 0, "fulfilled": True}, {"vp": 5, "penalty": 0,
                                                                              "fulfilled": False}]},
                 "objectives[1].penalty", NOT_FULFILLED_COSTS, id="no-penalty"),
    pytest.param({"objectives": [{"vp": 3, "penalty": 0, "fulfilled": True}, {"vp": 4, "penalty": 1,
                                                                              "fulfilled": True}]},
                 "objectives[1].penalty", "penalty is 2 or 3", id="penalty-1"),
    pytest.param({"objectives": [{"vp": 3, "penalty": 0, "fulfilled": False}] * 2}, "objectives[1].penalty",
                 "one start card", id="two-start-cards"),
    pytest.param({"station_masters": ["hazards"], "hazards": 4, "hazards_vp": 7}, "hazards_vp",
                 "8 to 16 VP for a count of 4", id="hazards-worth-too-little"),
])
def test_a_new_card_with_numbers_no_card_can_have_is_refused(changes, path, words):
    state = gwt.initial_state(_setup(2))
    with pytest.raises(RulesError) as caught:
        gwt.check_new_card(state, card(0, **changes), based_on=0)
    assert caught.value.path == path
    assert words in caught.value.message


def test_a_play_closed_before_the_token_and_penalties_were_checked_still_passes_the_backup_check():
    # cards as they were stored before: nobody ticked the token, a card not fulfilled kept a penalty of 0
    state = gwt.initial_state(_setup(2))
    old = [{"vp": 3, "penalty": 0, "fulfilled": True}, {"vp": 5, "penalty": 0, "fulfilled": False}]
    for seat in range(2):
        state = gwt.apply_event(state, "card", card(seat, station_masters=[], objectives=old))
    with pytest.raises(RulesError):
        gwt.result_from_cards(state)  # such cards no longer close a play
    gwt.check_final_tally(state, gwt.final_tally_input(state), ["P0", "P1"])
    # what was refused then still is
    state = gwt.apply_event(state, "card", card(1, job_market_token=True))
    state = gwt.apply_event(state, "card", card(0, job_market_token=True, station_masters=[]))
    with pytest.raises(RulesError, match="P0: Only one player holds the job-market token, and P1 already"):
        gwt.check_final_tally(state, gwt.final_tally_input(state), ["P0", "P1"])


def test_the_result_from_the_cards_is_the_scoring_endpoints_result():
    from companion.api.great_western_trail import score_great_western_trail

    state = gwt.initial_state(_setup(3))
    for seat, changes in enumerate(({}, {"dollars": 4, "station_masters": [], "job_market_token": True},
                                    {"cattle_vp": ..., "cattle_cards": {"7": 3}, "station_masters": []})):
        state = gwt.apply_event(state, "card", card(seat, **changes))
    result = gwt.result_from_cards(state)
    assert [(p.name, p.total, p.rank) for p in result.players] == [
        ("P0", 96, 1), ("P1", 81, 3), ("P2", 83, 2)]
    assert score_great_western_trail(gwt.final_tally_input(state)) == result.to_json()


CARD_KEYS = st.sampled_from([*sorted(ANNA_CARD), "building_tiles", "cattle_cards", "name"])


@settings(deadline=None)
@given(changes=st.dictionaries(CARD_KEYS, JSON_VALUES, max_size=4), dropped=st.sets(CARD_KEYS, max_size=3))
def test_garbage_cards_raise_only_rules_errors(changes, dropped):
    payload = {key: value for key, value in {**ANNA_CARD, **changes}.items() if key not in dropped}
    state = gwt.initial_state(_setup(2))
    try:
        after = gwt.apply_event(state, "card", payload)
    except RulesError:
        return
    entered = after.cards[payload["seat"]]
    assert entered.total == sum(entered.breakdown.values())
    assert gwt.running_scores(after) == (0, 0)


# --- corrections of a finished tally: rows the cards could have given --------------------------------------

def pad(**rows: int) -> dict[str, int]:
    """A scoring pad's rows: a middling game, changed where given."""
    return {"money": 4, "buildings": 10, "cities": -6, "stations": 5, "hazards": 6, "cattle": 20,
            "objectives": 7, "station_masters": 3, "workers": 8, "disc": 0, "job_market": 0, **rows}


@pytest.mark.parametrize(("anna", "ben", "path", "says"), [
    pytest.param(pad(job_market=2), pad(), None, None, id="one-token-holder"),
    pytest.param(pad(cities=-12, objectives=-3, workers=24, disc=3), pad(), None, None,
                 id="negative-cities-and-objectives-full-workers"),
    pytest.param({"total": 40}, {"total": 38}, None, None, id="totals-only"),
    pytest.param(pad(job_market=2), pad(job_market=2), "job_market",
                 "Only one player holds the job-market token, not Anna and Ben.", id="two-token-holders"),
    pytest.param(pad(job_market=1), pad(), "job_market",
                 "Anna: the job-market token scores 2 or nothing, not 1.", id="a-token-worth-1"),
    pytest.param(pad(), pad(disc=6), "disc", "Ben: the 3-VP disc scores 3 or nothing, not 6.",
                 id="a-disc-worth-6"),
    pytest.param(pad(workers=10), pad(), "workers",
                 "Anna: workers score 4 VP per worker on the 5th or 6th space of a row, 0 to 24 in all, not "
                 "10.", id="workers-off-the-steps"),
    pytest.param(pad(workers=28), pad(), "workers", "0 to 24 in all, not 28.", id="workers-beyond-full-rows"),
    pytest.param(pad(), pad(money=-1), "money", "Ben: the row “money” cannot be below 0.",
                 id="negative-money"),
])
def test_a_correction_gives_only_rows_some_cards_could_give(anna, ben, path, says):
    if says is None:
        gwt.check_corrected_tally(None, None, ["Anna", "Ben"], [anna, ben])
        return
    with pytest.raises(RulesError) as caught:
        gwt.check_corrected_tally(None, None, ["Anna", "Ben"], [anna, ben])
    assert caught.value.path == path and says in str(caught.value)
