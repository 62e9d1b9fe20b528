"""Only tables that can exist: every physical limit of the three games is refused by the pages, the API
and the backup import alike, each with a message naming the piece."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion import store
from companion.api import ENDPOINTS
from companion.api.core import respond
from companion.exchange import backup
from companion.forms import COLOURS
from companion.games import GAMES, gold_west, mayflower
from companion.games import great_western_trail as gwt
from companion.games.common import PlaySetup, RulesError, Seat
from companion.games.table import fold
from tests.conftest import add_players, create_group, start_play
from tests.test_great_western_trail_web import PLAIN, card_url, changed
from tests.test_mayflower_web import completion_data

API = {endpoint.path: endpoint for endpoint in ENDPOINTS}
PLAYERS = (("Anna", "red"), ("Ben", "blue"), ("Cara", "green"))
OFFICES = ["saloon", "mayor", "docks", "frontier"]
# Counts the station masters of a card may ask for.
# what the station masters ask a card for: their counts, and the start card the Objectives master counts
MASTER_COUNTS = {"hazards": "0", "certificates": "0", "stations": "0", "teepee_pairs": "0", "buildings": "0",
                 "objective_0_vp": "3"}


@dataclass(frozen=True)
class Table:
    """A group of Anna, Ben and Cara and a play of one game, entered through the pages."""

    group_id: int
    play_id: int


def new_table(client, db, game: str, players: int = 2) -> Table:
    options = {"options-offices": OFFICES} if game == "gold-west" else {}
    group_id = create_group(client)
    add_players(client, group_id, *PLAYERS[:players])
    ids = {p.name: p.id for p in store.list_players(db, group_id)}
    seats = [(ids[name], colour) for name, colour in PLAYERS[:players]]
    return Table(group_id, start_play(client, group_id, game, seats, **options))


def stored(db, table: Table) -> tuple:
    """What a refused request must leave as it was: the play's events and its status."""
    return ([(e.kind, e.payload) for e in store.list_events(db, table.play_id)],
            store.get_play(db, table.play_id).status)


def imported(db, table: Table) -> None:
    """Export the table's group as a backup and read it back in, as the import page does."""
    text = backup.backup_json(store.dump_group(db, table.group_id), store.now())
    backup.parse_backup(text.encode(), GAMES, COLOURS)


def finished_with(db, table: Table, payload: dict) -> None:
    """Close the play with ``payload`` as its final tally, written to the store without the rules."""
    seats = len(store.get_play(db, table.play_id).seats)
    store.finish_play(db, table.play_id, payload,
                      [store.ResultInput(seat, 0, 1, {"total": 0}) for seat in range(seats)])


# --- Gold West -------------------------------------------------------------------------------------

def gold_west_tally(**anna) -> dict:
    return gold_west.tally_payload([gold_west.PlayerTally("Anna", **anna), gold_west.PlayerTally("Ben")])


def gw_mayor_page(client, db, table):
    return lambda: client.post(f"/plays/{table.play_id}/gold-west/final-tally", data={
        "version": "0", "confirmed": "y", "p0-office_mayor-tokens": "1", "p1-office_mayor-tokens": "2"})


def gw_mayor_import(db, table):
    finished_with(db, table, gold_west.tally_payload([
        gold_west.PlayerTally("Anna", offices=(gold_west.OfficeClaim("mayor", 1),)),
        gold_west.PlayerTally("Ben", offices=(gold_west.OfficeClaim("mayor", 2),))]))


def gw_camps_page(client, db, table):
    return lambda: client.post(f"/plays/{table.play_id}/gold-west/final-tally", data={
        "version": "0", "confirmed": "y", "p0-largest_group": "8", "p0-second_group": "3", "p0-wanted": "2"})


def gw_camps_import(db, table):
    finished_with(db, table, gold_west_tally(largest_group=8, second_group=3, wanted=2))


def gw_final_tally_page(client, table, **fields):
    """The end scoring sent with ``fields`` for Anna (``p0-…``) and nothing else entered."""
    return lambda: client.post(f"/plays/{table.play_id}/gold-west/final-tally", data={
        "version": "0", "confirmed": "y", **{f"p0-{name}": str(value) for name, value in fields.items()}})


def gw_settlements_page(client, db, table):
    return gw_final_tally_page(client, table, **{"settlements-forest": 13, "influence-forest": 26})


def gw_settlements_import(db, table):
    finished_with(db, table, gold_west_tally(settlements={"forest": 13}, influence={"forest": 26}))


def gw_mining_tokens_page(client, db, table):
    return gw_final_tally_page(client, table, **{"mining_tokens-gold": 10, "mining_tokens-copper": 2,
                                                 "wanted": 1})


def gw_mining_tokens_import(db, table):
    finished_with(db, table, gold_west_tally(mining_tokens={"gold": 10, "copper": 2}, wanted=1))


def gw_influence_page(client, db, table):
    return gw_final_tally_page(client, table, **{"settlements-forest": 3, "influence-forest": 5})


def gw_influence_import(db, table):
    finished_with(db, table, gold_west_tally(settlements={"forest": 3}, influence={"forest": 5}))


def gw_shipping_page(client, db, table):
    return gw_final_tally_page(client, table, shipping_bonus_tiles=4)


def gw_shipping_import(db, table):
    finished_with(db, table, gold_west_tally(shipping_bonus_tiles=4))


def gw_thirteenth_camp_page(client, db, table):
    for _ in range(12):
        assert client.post(f"/plays/{table.play_id}/gold-west/ledger/camp",
                           data={"seat": "0", "again": "turn once"}).status_code == 302
    return lambda: client.post(f"/plays/{table.play_id}/gold-west/ledger/camp",
                               data={"seat": "0", "again": "turn once"})


def gw_thirteenth_camp_import(db, table):
    for _ in range(13):
        store.append_event(db, table.play_id, "camp", {"seat": 0})


# --- Carcassonne – Mayflower ---------------------------------------------------------------------

def place(client, table, seat: int, role: str, column: int) -> None:
    response = client.post(f"/plays/{table.play_id}/mayflower/place",
                           data={"place-seat": str(seat), "place-role": role, "place-column": str(column)})
    assert response.status_code == 302


def mf_two_farmers_page(client, db, table):
    place(client, table, 0, "farmer", 1)
    place(client, table, 1, "farmer", 1)
    return lambda: client.post(f"/plays/{table.play_id}/mayflower/complete", data=completion_data(
        db, table.play_id, [{"kind": "farm", "settlers": [(0, "farmer", 1), (1, "farmer", 1)]}]))


def mf_two_farmers_import(db, table):
    store.append_event(db, table.play_id, "west_edge", {"column": 12})
    store.append_event(db, table.play_id, "place", {"seat": 0, "role": "farmer", "column": 11})
    store.append_event(db, table.play_id, "place", {"seat": 1, "role": "farmer", "column": 7})
    store.append_event(db, table.play_id, "complete",
                       {"features": [{"kind": "farm", "settlers": ["0-1", "1-1"]}]})


def mf_flags_page(client, db, table):
    place(client, table, 0, "sheriff", 1)
    return lambda: client.post(f"/plays/{table.play_id}/mayflower/complete", data=completion_data(
        db, table.play_id, [{"kind": "city", "tiles": 1, "flags": 2, "settlers": [(0, "sheriff", 1)]}]))


def mf_flags_import(db, table):
    store.append_event(db, table.play_id, "place", {"seat": 0, "role": "sheriff", "column": 1})
    store.append_event(db, table.play_id, "complete",
                       {"features": [{"kind": "city", "tiles": 1, "flags": 2, "settlers": ["0-1"]}]})


def mf_flags_final_import(db, table):
    finished_with(db, table, {"track_vp": [0, 0], "features": [
        {"letter": "A", "kind": "city", "tiles": 2, "flags": 3,
         "settlers": [{"id": "0-1", "seat": 0, "role": "sheriff", "column": 1}]}]})


def mf_settlers_per_tile_page(client, db, table):
    place(client, table, 0, "bandit", 1)
    place(client, table, 1, "bandit", 2)
    place(client, table, 0, "bandit", 2)
    return lambda: client.post(f"/plays/{table.play_id}/mayflower/complete", data=completion_data(
        db, table.play_id, [{"kind": "road", "tiles": 2,
                             "settlers": [(0, "bandit", 1), (1, "bandit", 2), (0, "bandit", 2)]}]))


def mf_settlers_per_tile_import(db, table):
    for seat, column in ((0, 1), (1, 2), (0, 2)):
        store.append_event(db, table.play_id, "place", {"seat": seat, "role": "bandit", "column": column})
    store.append_event(db, table.play_id, "complete",
                       {"features": [{"kind": "road", "tiles": 2, "settlers": ["0-1", "1-1", "0-2"]}]})


def mf_final_settlers_per_tile_page(client, db, table):
    place(client, table, 0, "sheriff", 1)
    place(client, table, 1, "sheriff", 1)
    page = client.get(f"/plays/{table.play_id}/mayflower/final-tally").get_data(as_text=True)
    version = re.search(r'name="version" type="hidden" value="(\d+)"', page).group(1)
    # both sheriffs on one city of one tile
    return lambda: client.post(f"/plays/{table.play_id}/mayflower/final-tally", data={
        "version": version, "kept": [json.dumps({"settlers": ["0-1", "1-1"], "tiles": 1})]})


def mf_final_settlers_per_tile_import(db, table):
    finished_with(db, table, {"track_vp": [0, 0], "features": [
        {"letter": "A", "kind": "city", "tiles": 1, "flags": 0,
         "settlers": [{"id": "0-1", "seat": 0, "role": "sheriff", "column": 1},
                      {"id": "1-1", "seat": 1, "role": "sheriff", "column": 1}]}]})


def mf_below_zero_page(client, db, table):
    return lambda: client.post(f"/plays/{table.play_id}/adjust", data={"seat": "0", "points": "-999"})


def mf_below_zero_import(db, table):
    store.append_event(db, table.play_id, "adjust", {"seat": 0, "points": 3, "note": ""})
    store.append_event(db, table.play_id, "adjust", {"seat": 0, "points": -4, "note": ""})


def mf_zero_page(client, db, table):
    return lambda: client.post(f"/plays/{table.play_id}/adjust", data={"seat": "1", "points": "+0"})


def mf_zero_import(db, table):
    store.append_event(db, table.play_id, "adjust", {"seat": 1, "points": 0, "note": ""})


# --- Great Western Trail -------------------------------------------------------------------------

SIX_MASTERS = [["workers", "objectives", "none"], ["none", "hazards", "certificates"]]


def gwt_six_masters_page(client, db, table):
    for seat, masters in enumerate(SIX_MASTERS):
        response = client.post(card_url(table.play_id, seat),
                               data=changed(PLAIN, station_masters=masters, **MASTER_COUNTS))
        assert response.status_code == 302
    # every card went in on its own; together they hold six tiles, so showing the result leads back to
    # the cards, which say why
    return lambda: client.post(f"/plays/{table.play_id}/gwt/final-tally/result", follow_redirects=True,
                               data={"version": str(store.get_play(db, table.play_id).version)})


def gwt_six_masters_on_one_card_page(client, db, table):
    return lambda: client.post(card_url(table.play_id, 0), data=changed(
        PLAIN, station_masters=SIX_MASTERS[0] + SIX_MASTERS[1][1:] + ["teepees"], **MASTER_COUNTS))


def gwt_six_masters_import(db, table):
    state = gwt.initial_state(PlaySetup(gwt.GAME.slug, (Seat("Anna", "red"), Seat("Ben", "blue"))))
    for seat, masters in enumerate(SIX_MASTERS):
        payload = {"seat": seat, "dollars": 0, "cities_vp": 0, "stations_vp": 0, "hazards_vp": 0,
                   "teepee_pairs": 0, "hazards": 0, "certificates": 0, "stations": 0, "objectives": [],
                   "station_masters": masters, "workers": {"cowboys": 1, "craftsmen": 1, "engineers": 1},
                   "disc_cleared": False, "job_market_token": False, "buildings_vp": 0, "cattle_vp": 0,
                   "buildings": 0}
        gwt.apply_event(state, gwt.CARD_EVENT, payload)  # each card on its own is one the rules take
        store.append_event(db, table.play_id, gwt.CARD_EVENT, payload)
    finished_with(db, table, {"edition": 2, "players": []})


def gwt_kansas_city_page(client, db, table):
    return lambda: client.post(f"/plays/{table.play_id}/gwt/deliveries",
                       data={"seat": "0", "city": "kansas city", "crest_vp": "6"})


def gwt_kansas_city_import(db, table):
    store.append_event(db, table.play_id, gwt.DELIVERY_EVENT,
                       {"seat": 0, "city": "Kansas City", "crest_vp": 6})


@dataclass(frozen=True)
class Limit:
    game: str
    page: Callable  # (client, db, table) -> sends the request that breaks the limit, its response
    api: tuple[str, dict, str] | None  # endpoint path, body, the detail path named; None: no API input
    import_: Callable  # (db, table): stores the impossible state directly, for the backup to carry
    words: str  # what every refusal says, naming the piece
    statuses: tuple[int, ...] = (400, 409)  # how the page answers the request
    api_words: str = ""  # what the API says instead, where the OpenAPI schema itself states the limit


LIMITS = {
    "gold-west-office-halves": Limit(
        "gold-west", gw_mayor_page,
        ("/score/gold-west", {"players": [{"name": "Anna", "offices": [{"office": "mayor", "tokens": 1}]},
                                          {"name": "Ben", "offices": [{"office": "mayor", "tokens": 2}]}]},
         "players[1].offices[0].tokens"),
        gw_mayor_import, "The Mayor office has two halves"),
    "gold-west-camps": Limit(
        "gold-west", gw_camps_page,
        ("/score/gold-west", {"players": [
            {"name": "Anna", "largest_group": 8, "second_group": 3, "wanted": 2}, {"name": "Ben"}]},
         "players[0].wanted"),
        gw_camps_import, "Anna has only 12 camps with 2 players"),
    "gold-west-settlements": Limit(
        "gold-west", gw_settlements_page,
        ("/score/gold-west", {"players": [
            {"name": "Anna", "settlements": {"forest": 6, "gold": 5},
             "influence": {"forest": 12, "gold": 10}},
            {"name": "Ben"}, {"name": "Cara"}, {"name": "Dan"}]}, "players[0].settlements"),
        gw_settlements_import, "Anna has only 12 camps with 2 players, but the buildings",
        api_words="Anna has only 10 camps with 4 players, but the buildings"),
    "gold-west-mining-tokens": Limit(
        "gold-west", gw_mining_tokens_page,
        ("/score/gold-west", {"players": [
            {"name": "Anna", "mining_tokens": {"gold": 10, "copper": 2}, "wanted": 1}, {"name": "Ben"}]},
         "players[0].mining_tokens"),
        gw_mining_tokens_import, "Anna has only 12 camps with 2 players, but the buildings the mining tokens "
                                 "and settlements show (12) and the Wanted camps (1) add up to 13"),
    "gold-west-influence-of-settlements": Limit(
        "gold-west", gw_influence_page,
        ("/score/gold-west", {"players": [
            {"name": "Anna", "settlements": {"forest": 3}, "influence": {"forest": 5}}, {"name": "Ben"}]},
         "players[0].influence.forest"),
        gw_influence_import, "Anna's influence in forest is 5, but 3 settlements there put at least 6"),
    "gold-west-shipping-bonus-tiles": Limit(
        "gold-west", gw_shipping_page,
        ("/score/gold-west", {"players": [{"name": "Anna", "shipping_bonus_tiles": 4}, {"name": "Ben"}]},
         "players[0].shipping_bonus_tiles"),
        gw_shipping_import, "Anna has 4 shipping bonus tiles, but a stagecoach takes at most one",
        api_words="players[0].shipping_bonus_tiles must be at most 3."),
    "gold-west-ledger-camps": Limit(
        "gold-west", gw_thirteenth_camp_page, None, gw_thirteenth_camp_import,
        "Anna has placed all 12 camps"),
    "mayflower-two-farmers": Limit(
        "mayflower", mf_two_farmers_page,
        ("/score/mayflower/feature", {
            "players": ["Anna", "Ben"], "surveyors": [0, 0], "feature": {"kind": "farm"},
            "settlers": [{"id": "a", "player": "Anna", "role": "farmer", "column": 11, "on_feature": True},
                         {"id": "b", "player": "Ben", "role": "farmer", "column": 7, "on_feature": True}]},
         "settlers[1].on_feature"),
        mf_two_farmers_import, "holds exactly one farmer"),
    "mayflower-flags": Limit(
        "mayflower", mf_flags_page,
        ("/score/mayflower/feature", {
            "players": ["Anna", "Ben"], "surveyors": [0, 0],
            "feature": {"kind": "city", "tiles": 1, "flags": 2},
            "settlers": [{"id": "a", "player": "Anna", "role": "sheriff", "column": 1, "on_feature": True}]},
         "feature.flags"),
        mf_flags_import, "no more flags than tiles: 2 is more than 1"),
    "mayflower-final-flags": Limit(
        "mayflower", mf_flags_page,
        ("/score/mayflower/final", {"players": ["Anna", "Ben"], "features": [
            {"kind": "city", "tiles": 2, "flags": 3, "settlers": {"Anna": 1}}]}, "features[0].flags"),
        mf_flags_final_import, "has at most"),
    "mayflower-settlers-per-tile": Limit(
        "mayflower", mf_settlers_per_tile_page,
        ("/score/mayflower/feature", {
            "players": ["Anna", "Ben"], "surveyors": [0, 0], "feature": {"kind": "road", "tiles": 2},
            "settlers": [{"id": "a", "player": "Anna", "role": "bandit", "column": 1, "on_feature": True},
                         {"id": "b", "player": "Ben", "role": "bandit", "column": 2, "on_feature": True},
                         {"id": "c", "player": "Anna", "role": "bandit", "column": 2, "on_feature": True}]},
         "settlers[2].on_feature"),
        mf_settlers_per_tile_import, "3 settlers need at least 3 tiles, not 2"),
    "mayflower-final-settlers-per-tile": Limit(
        "mayflower", mf_final_settlers_per_tile_page,
        ("/score/mayflower/final", {"players": ["Anna", "Ben"], "features": [
            {"kind": "city", "tiles": 1, "settlers": {"Anna": 1, "Ben": 1}}]}, "features[0].tiles"),
        mf_final_settlers_per_tile_import, "2 settlers need at least 2 tiles, not 1"),
    "mayflower-correction-below-0": Limit(
        "mayflower", mf_below_zero_page, None, mf_below_zero_import, "would take it below 0"),
    "mayflower-correction-of-0": Limit(
        "mayflower", mf_zero_page, None, mf_zero_import, "A correction of 0 changes nothing"),
    "great-western-trail-six-station-masters": Limit(
        "great-western-trail", gwt_six_masters_page,
        ("/score/great-western-trail", {"players": [{"name": "Anna", "station_masters": SIX_MASTERS[0]},
                                                    {"name": "Ben", "station_masters": SIX_MASTERS[1]}]},
         "players[1].station_masters[2]"),
        gwt_six_masters_import, "5 station-master tiles in play", statuses=(200,)),
    "great-western-trail-six-station-masters-on-one-card": Limit(
        "great-western-trail", gwt_six_masters_on_one_card_page,
        ("/score/great-western-trail", {"players": [
            {"name": "Anna", "station_masters": [*SIX_MASTERS[0], *SIX_MASTERS[1][1:], "teepees"]},
            {"name": "Ben"}]}, "players[0].station_masters"),
        gwt_six_masters_import, "5 station-master tiles in play",
        api_words="players[0].station_masters must have at most 5 items."),
    "great-western-trail-kansas-city": Limit(
        "great-western-trail", gwt_kansas_city_page, None, gwt_kansas_city_import,
        "A delivery to Kansas City is worth -6 VP on every crest, not +6."),
}


@pytest.mark.parametrize("limit", LIMITS.values(), ids=LIMITS.keys())
def test_the_page_refuses_it_and_stores_nothing(client, db, limit):
    table = new_table(client, db, limit.game)
    send = limit.page(client, db, table)
    before = stored(db, table)
    response = send()
    assert response.status_code in limit.statuses
    page = response.get_data(as_text=True).replace("&#39;", "'")
    assert limit.words in page
    assert stored(db, table) == before and before[1] == "active"


@pytest.mark.parametrize("limit", [limit for limit in LIMITS.values() if limit.api],
                         ids=[key for key, limit in LIMITS.items() if limit.api])
def test_the_api_refuses_it_with_the_field_named(limit):
    path, body, field = limit.api
    status, answer = respond(API[path], body)
    assert status == 400
    assert (limit.api_words or limit.words) in answer["error"]
    assert field in [detail["path"] for detail in answer["details"]]


@pytest.mark.parametrize("limit", LIMITS.values(), ids=LIMITS.keys())
def test_the_import_refuses_it(client, db, limit):
    table = new_table(client, db, limit.game)
    imported(db, table)  # the table as it is can be imported
    limit.import_(db, table)
    with pytest.raises(backup.BackupError, match=re.escape(limit.words)):
        imported(db, table)


# --- a slip of the finger, and rules computed once ---------------------------------------------------

def test_finishing_gold_west_before_any_camp_is_placed_asks_once(client, db):
    table = new_table(client, db, "gold-west")
    url = f"/plays/{table.play_id}/gold-west/final-tally"
    asked = client.post(url, data={"version": "0", "p0-track_vp": "3"})
    assert asked.status_code == 200 and "Really finish it?" in asked.text
    assert 'name="confirmed" type="hidden" value="y"' in asked.text and "Yes, finish the play" in asked.text
    assert store.get_play(db, table.play_id).status == "active" and store.list_events(db, table.play_id) == []
    finished = client.post(url, data={"version": "0", "p0-track_vp": "3", "confirmed": "y"})
    assert finished.status_code == 302 and store.get_play(db, table.play_id).status == "finished"


def test_finishing_gold_west_after_a_camp_asks_nothing(client, db):
    table = new_table(client, db, "gold-west")
    client.post(f"/plays/{table.play_id}/gold-west/ledger/camp", data={"seat": "0", "again": "turn once"})
    # a camp without a terrain (an older page) is no building the largest group must count; tied on
    # nothing, the resources left decide
    response = client.post(f"/plays/{table.play_id}/gold-west/final-tally",
                           data={"version": "1", "p0-supply_left": "0", "p1-supply_left": "0"})
    assert response.status_code == 302 and store.get_play(db, table.play_id).status == "finished"


def test_gold_west_totals_only_rank_with_the_ledgers_wanted_camps(client, db):
    table = new_table(client, db, "gold-west")
    client.post(f"/plays/{table.play_id}/gold-west/ledger/camp", data={"seat": "0", "again": "turn once"})
    client.post(f"/plays/{table.play_id}/gold-west/ledger/loot", data={"seat": "1", "again": "turn once"})
    response = client.post(f"/plays/{table.play_id}/finish", data={"version": "2", "total_0": "20",
                                                                   "total_1": "20"})
    assert response.status_code == 302
    # tied at 20: Ben has a camp in the Wanted area, Anna none, so Anna is ahead
    assert [(r.name, r.total, r.rank) for r in store.play_results(db, table.play_id)] == [
        ("Anna", 20, 1), ("Ben", 20, 2)]


def test_the_live_mayflower_table_lets_surveyors_walk_past_the_westernmost_settler(client, db):
    table = new_table(client, db, "mayflower")
    for _ in range(3):  # three one-tile roads in column 1
        place(client, table, 0, "bandit", 1)
        road = {"kind": "road", "tiles": 1, "settlers": [(0, "bandit", 1)]}
        data = completion_data(db, table.play_id, [road])
        response = client.post(f"/plays/{table.play_id}/mayflower/complete", data=data)
        asked = re.search(r'name="complete-west_of" value="(\d+):yes"', response.text)
        if asked:  # the table says tiles lie further west, as the scoring asks
            data["complete-west_of"] = [f"{asked.group(1)}:yes"]
            response = client.post(f"/plays/{table.play_id}/mayflower/complete", data=data)
        assert response.status_code == 302
    play = store.get_play(db, table.play_id)
    state = fold(PlaySetup("mayflower", tuple(Seat(s.name, s.colour) for s in play.seats)),
                 [(e.kind, e.payload) for e in store.list_events(db, table.play_id)]).game_state
    # [0, 0] → [1, 0] → [1, 1] → [2, 1]: tiles lie further west, so the surveyors walk past column 1
    assert state.surveyors.as_list() == [2, 1]


# --- messages a player understands -----------------------------------------------------------------

@pytest.mark.parametrize(("code", "character"), [("K7M0-Q2XD", "0"), ("k7mp-q2xl", "L"), ("IK7MPQ2X", "I")])
def test_a_join_code_with_a_character_codes_never_use_says_which(client, code, character):
    response = client.post("/join", data={"code": code})
    assert response.status_code == 400
    assert f"A join code never contains {character}: codes leave out 0, O, 1, I and L" in response.text


def finish_with_totals(client, db, table: Table, *totals: int) -> None:
    data = {"version": str(store.get_play(db, table.play_id).version)}
    data.update({f"total_{seat}": str(total) for seat, total in enumerate(totals)})
    assert client.post(f"/plays/{table.play_id}/finish", data=data).status_code == 302


@pytest.mark.parametrize(("language", "words", "not_words"), [
    pytest.param("en", ["1 play counted.", ">69<", ">41.5<"], ["1 plays", "69.0", "41.50"], id="english"),
    pytest.param("de", ["1 gezählte Partie.", ">69<", ">41,5<"], ["69.0", "41.5"], id="german"),
])
def test_statistics_count_in_the_readers_words_and_numbers(client, db, language, words, not_words):
    table = new_table(client, db, "mayflower")
    finish_with_totals(client, db, table, 69, 14)
    page = client.get(f"/groups/{table.group_id}/statistics", headers={"Accept-Language": language}).text
    for word in words:
        assert word in page
    for word in not_words:
        assert word not in page


def test_dates_are_written_in_the_readers_language(client, db):
    table = new_table(client, db, "mayflower")
    finish_with_totals(client, db, table, 3, 4)
    ended = store.get_play(db, table.play_id).ended_at  # kept as ISO 8601, shown as people write dates
    day, month, year = ended[8:10].lstrip("0"), ended[5:7], ended[:4]
    german = client.get(f"/plays/{table.play_id}/result", headers={"Accept-Language": "de"}).text
    assert f"{day.zfill(2)}.{month}.{year[2:]}" in german
    english = client.get(f"/plays/{table.play_id}/result", headers={"Accept-Language": "en"}).text
    assert ended[:10] not in english and ended[:10] not in german


# --- every state the rules accept can be reached on the table ----------------------------------------

@settings(deadline=None)
@given(players=st.integers(2, 5), data=st.data())
def test_a_mayflower_final_tally_the_rules_accept_can_stand_on_the_map(players, data):
    names = [f"P{seat}" for seat in range(players)]
    settlers = st.dictionaries(st.integers(0, players - 1), st.integers(1, 3), min_size=1, max_size=2)
    features = data.draw(st.lists(st.tuples(st.sampled_from(mayflower.FINAL_KINDS), settlers,
                                            st.integers(1, 4)), max_size=6))
    try:
        finals = [mayflower.FinalFeature(kind, counts, tiles=tiles if kind in ("road", "city") else 0)
                  for kind, counts, tiles in features]
        mayflower.final_result(names, [0] * players, finals)
    except RulesError:
        return
    # every settler the tally counts is placed on the live table, each on a tile of its own that the
    # feature's tiles hold (a settler goes only onto the tile just played)
    state = mayflower.initial_state(PlaySetup("mayflower", tuple(Seat(name, "red") for name in names)))
    for feature in finals:
        placed = 0
        for seat, number in feature.settlers.items():
            for _ in range(number):
                placed += 1
                state = mayflower.apply_event(state, "place", {
                    "seat": seat, "role": mayflower.ROLE_OF_KIND[feature.kind], "column": placed})
        if feature.kind in ("road", "city"):
            assert placed <= feature.tiles
    kinds = [slot.kind for slot in mayflower.final_slots(state)]
    for kind in mayflower.FINAL_KINDS:
        assert kinds.count(kind) == sum(sum(f.settlers.values()) for f in finals if f.kind == kind)
    assert all(0 <= state.in_supply(seat) <= mayflower.SETTLERS_PER_PLAYER for seat in range(players))


@settings(deadline=None)
@given(players=st.integers(2, 4), data=st.data())
def test_a_gold_west_tally_the_rules_accept_can_be_reached_on_the_ledger_and_board(players, data):
    counts = st.integers(0, 6)
    offices = st.lists(st.tuples(st.sampled_from(("mayor", "saloon", "docks", "deeds")), st.integers(1, 2)),
                       max_size=2, unique_by=lambda claim: claim[0])
    terrain_counts = st.dictionaries(st.sampled_from(gold_west.TERRAINS), st.integers(0, 7), max_size=2)
    tallies = [gold_west.PlayerTally(
        f"P{seat}", largest_group=data.draw(counts), second_group=data.draw(counts), wanted=data.draw(counts),
        boomtown_1x1_tokens=data.draw(st.integers(0, 3)),
        offices=tuple(gold_west.OfficeClaim(key, tokens) for key, tokens in data.draw(offices)),
        settlements=data.draw(terrain_counts), mining_tokens=data.draw(terrain_counts),
        influence=data.draw(terrain_counts), shipping_bonus_tiles=data.draw(st.integers(0, 4)))
        for seat in range(players)]
    try:
        gold_west.check_tallies(tallies)
    except RulesError:
        return
    setup = PlaySetup("gold-west", tuple(Seat(t.name, "red") for t in tallies), {"offices": [
        "mayor", "saloon", "docks", "deeds"]})
    state = gold_west.initial_state(setup)
    metals = iter([*gold_west.METALS] * 2)  # each metal's bonus line pays the first two stagecoaches
    for seat, tally in enumerate(tallies):
        # each building took a mining token into its terrain's row, a settlement among them
        buildings = {terrain: max(tally.mining_tokens.get(terrain, 0), tally.settlements.get(terrain, 0))
                     for terrain in gold_west.TERRAINS}
        # the Wanted camps were looted, the buildings (the groups among them) built from camps, the 1×1
        # space taken, the shipping bonus lines crossed
        events = ([("loot", {"seat": seat})] * tally.wanted
                  + [("camp", {"seat": seat})] * max(sum(buildings.values()),
                                                     tally.largest_group + tally.second_group)
                  + [("boomtown_1x1", {"seat": seat})] * tally.boomtown_1x1_tokens
                  + [("shipping_bonus", {"seat": seat, "metal": next(metals)})
                     for _ in range(tally.shipping_bonus_tiles)])
        for kind, payload in events:
            state = gold_west.apply_event(state, kind, payload)
        for terrain in gold_west.TERRAINS:
            # a settlement put its mining token and one more influence token in the row; the rest of
            # the influence came from camps and investment cards
            assert tally.influence.get(terrain, 0) >= 2 * tally.settlements.get(terrain, 0)
    assert state.wanted == tuple(t.wanted for t in tallies)
    assert state.shipping_bonus_tiles == tuple(t.shipping_bonus_tiles for t in tallies)
    assert all(left >= 0 for left in state.camps_left)
    for office in ("mayor", "saloon", "docks", "deeds"):  # two halves per office card
        on_it = sum(c.tokens for t in tallies for c in t.offices if c.office == office)
        assert on_it <= gold_west.MAX_TOKENS_PER_OFFICE


@settings(deadline=None)
@given(edition=st.sampled_from(gwt.EDITIONS), data=st.data())
def test_great_western_trail_station_masters_the_rules_accept_are_tiles_in_play(edition, data):
    keys = gwt.station_master_keys(edition)
    held = [tuple(data.draw(st.lists(st.sampled_from(keys), max_size=4))) for _ in range(2)]
    tallies = [gwt.Tally(name=f"P{seat}", station_masters=masters) for seat, masters in enumerate(held)]
    try:
        gwt.final_result(edition, tallies)
    except RulesError:
        return
    box = [key for key in keys for _ in range(gwt.STATION_MASTER_BY_KEY[key].copies)]
    taken = [key for masters in held for key in masters]
    assert len(taken) <= gwt.STATION_MASTERS_IN_PLAY  # the tiles drawn for this game
    for key in set(taken):
        assert taken.count(key) <= box.count(key)


# --- each limit: accepted at it, refused one beyond it, with the message -----------------------------

def gw_body(*players: dict) -> tuple[str, dict]:
    return "/score/gold-west", {"players": [{"name": name, **fields} for name, fields in
                                            zip(("Anna", "Ben", "Cara", "Dan"), players, strict=False)]}


def mf_road(tiles: int, bandits: int) -> tuple[str, dict]:
    return "/score/mayflower/feature", {
        "players": ["Anna", "Ben"], "surveyors": [0, 0], "feature": {"kind": "road", "tiles": tiles},
        "settlers": [{"id": f"s{i}", "player": ("Anna", "Ben")[i % 2], "role": "bandit", "column": 1 + i,
                      "on_feature": True} for i in range(bandits)]}


def mf_final_city(tiles: int, sheriffs: dict) -> tuple[str, dict]:
    return "/score/mayflower/final", {"players": ["Anna", "Ben"],
                                      "features": [{"kind": "city", "tiles": tiles, "settlers": sheriffs}]}


@pytest.mark.parametrize(("at_limit", "beyond", "message"), [
    pytest.param(mf_road(2, 2), mf_road(2, 3), "3 settlers need at least 3 tiles, not 2",
                 id="mayflower-road-settlers-per-tile"),
    pytest.param(mf_road(25, 10), mf_road(9, 10), "10 settlers need at least 10 tiles, not 9",
                 id="mayflower-long-road"),
    pytest.param(mf_final_city(2, {"Anna": 1, "Ben": 1}), mf_final_city(1, {"Anna": 1, "Ben": 1}),
                 "2 settlers need at least 2 tiles, not 1", id="mayflower-final-city-settlers-per-tile"),
    pytest.param(mf_final_city(5, {"Anna": 5}), mf_final_city(4, {"Anna": 5}),
                 "5 settlers need at least 5 tiles, not 4", id="mayflower-final-city-of-one-player"),
    pytest.param(gw_body({"settlements": {"forest": 10}, "influence": {"forest": 20}}, {}, {}, {}),
                 gw_body({"settlements": {"forest": 11}, "influence": {"forest": 22}}, {}, {}, {}),
                 "Anna has only 10 camps with 4 players", id="gold-west-settlements-4-players"),
    pytest.param(gw_body({"settlements": {"gold": 11}, "influence": {"gold": 22}, "wanted": 1}, {}),
                 gw_body({"settlements": {"gold": 11}, "influence": {"gold": 22}, "wanted": 2}, {}),
                 "the Wanted camps (2) add up to 13", id="gold-west-settlements-and-wanted"),
    pytest.param(gw_body({"mining_tokens": {"silver": 12}}, {}),
                 gw_body({"mining_tokens": {"silver": 12, "copper": 1}}, {}),
                 "Anna has only 12 camps with 2 players", id="gold-west-mining-tokens-2-players"),
    pytest.param(gw_body({"mining_tokens": {"forest": 2}, "settlements": {"gold": 10},
                          "influence": {"gold": 20}}, {}),
                 gw_body({"mining_tokens": {"forest": 3}, "settlements": {"gold": 10},
                          "influence": {"gold": 20}}, {}),
                 "show (13)", id="gold-west-settlements-in-one-terrain-mining-tokens-in-another"),
    pytest.param(gw_body({"settlements": {"forest": 3}, "influence": {"forest": 6}}, {}),
                 gw_body({"settlements": {"forest": 3}, "influence": {"forest": 5}}, {}),
                 "3 settlements there put at least 6", id="gold-west-influence-of-settlements"),
    pytest.param(gw_body({"shipping_bonus_tiles": 3}, {}), gw_body({"shipping_bonus_tiles": 4}, {}),
                 "must be at most 3", id="gold-west-shipping-bonus-tiles"),
    pytest.param(gw_body({"shipping_bonus_tiles": 3}, {"shipping_bonus_tiles": 3}, {}),
                 gw_body({"shipping_bonus_tiles": 3}, {"shipping_bonus_tiles": 3},
                         {"shipping_bonus_tiles": 1}),
                 "6 in all, but the players hold 7", id="gold-west-shipping-bonus-tiles-of-all-players"),
])
def test_a_limit_is_accepted_where_it_lies_and_refused_one_beyond(at_limit, beyond, message):
    path, body = at_limit
    assert respond(API[path], body)[0] == 200
    path, body = beyond
    status, answer = respond(API[path], body)
    assert status == 400
    assert message in answer["error"]
    assert answer["details"] and answer["details"][0]["message"]
