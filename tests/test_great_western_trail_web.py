"""Great Western Trail pages: edition and starting money, delivered herds, one final-tally card per player."""

from __future__ import annotations

import html
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion import store
from companion.games import great_western_trail as gwt
from tests.conftest import add_players, create_group, start_play

GAME = "great-western-trail"

# Anna's card of the rules' worked example 1 (96 VP), as the card form posts it.
ANNA_96 = {
    "revision": "0", "objective_rows": "8", "dollars": "23", "buildings_vp": "12", "cities_vp": "8",
    "stations_vp": "10", "hazards_vp": "7", "cattle_vp": "21",
    "objective_0_vp": "3", "objective_0_penalty": "0", "objective_0_fulfilled": "y",
    "objective_1_vp": "5", "objective_1_penalty": "3", "objective_1_fulfilled": "y",
    "objective_2_vp": "4", "objective_2_penalty": "2",
    "station_masters": "workers", "cowboys": "5", "craftsmen": "6", "engineers": "2", "disc_cleared": "y",
}
# A plain card: 10 $ (2 VP) and 30 VP of cattle, nothing else.
PLAIN = {
    "revision": "0", "objective_rows": "8", "dollars": "10", "buildings_vp": "0", "cities_vp": "0",
    "stations_vp": "0", "hazards_vp": "0", "cattle_vp": "30", "cowboys": "1", "craftsmen": "1",
    "engineers": "1",
}


def changed(card: dict, **changes) -> dict:
    """The card with fields changed; ``None`` leaves a field out (an unticked box, an empty field)."""
    data = {**card, **changes}
    return {key: value for key, value in data.items() if value is not None}


def unescaped(response) -> str:
    return html.unescape(response.text)


@pytest.fixture
def table(app, client, db):
    """A group of Anna, Ben and Cara; a play of the 2nd edition; a second phone that joined the group."""
    group_id = create_group(client, "Trail night")
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"), ("Cara", "green"))
    ids = {p.name: p.id for p in store.list_players(db, group_id)}
    play_id = start_play(client, group_id, GAME,
                         [(ids["Anna"], "red"), (ids["Ben"], "blue"), (ids["Cara"], "green")])
    second = app.test_client()
    joined = second.post("/join", data={"code": store.get_group(db, group_id).join_code})
    assert joined.status_code == 302
    return {"group_id": group_id, "play_id": play_id, "ids": ids, "second": second}


def card_url(play_id: int, seat: int) -> str:
    return f"/plays/{play_id}/gwt/final-tally/{seat}"


def overview_url(play_id: int) -> str:
    return f"/plays/{play_id}/gwt/final-tally"


def stored_cards(db, play_id: int) -> list[dict]:
    return [event.payload for event in store.list_events(db, play_id) if event.kind == gwt.CARD_EVENT]


# Starting a play: the edition and each seat's starting money.

def test_new_play_page_offers_the_editions_and_shows_the_starting_money(client, db):
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    page = client.get(f"/groups/{group_id}/plays/new/{GAME}")
    assert page.status_code == 200
    assert re.search(r'<input checked id="options-edition-0" name="options-edition" type="radio" value="2">',
                     page.text)
    assert "1st edition (2016)" in page.text
    assert [int(d) for d in re.findall(r"seat \d: (\d+) \$", page.text)] == list(gwt.STARTING_MONEY)


@pytest.mark.parametrize(("fields", "edition"), [
    pytest.param({}, 2, id="default-2nd-edition"),
    pytest.param({"options-edition": "1"}, 1, id="1st-edition"),
    pytest.param({"options-edition": "2"}, 2, id="2nd-edition"),
])
def test_the_edition_is_stored_with_the_play(client, db, fields, edition):
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    ids = [p.id for p in store.list_players(db, group_id)]
    play_id = start_play(client, group_id, GAME, [(ids[0], "red"), (ids[1], "blue")], **fields)
    assert store.get_play(db, play_id).options == {"edition": edition}
    page = client.get(f"/plays/{play_id}")
    assert f"Edition: {edition}" in page.text
    assert re.findall(r"<li>(\w+): <b>(\d+) \$</b></li>", page.text) == [("Anna", "6"), ("Ben", "7")]


@pytest.mark.parametrize(("players", "edition", "words"), [
    pytest.param(2, "3", "Not a valid choice", id="edition-3"),
    pytest.param(2, "two", "Invalid Choice", id="edition-word"),
    pytest.param(1, "1", "The 1st edition is played by 2 to 4 players, not 1", id="solo-in-1st-edition"),
])
def test_a_bad_edition_is_a_form_error_and_starts_nothing(client, db, players, edition, words):
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    ids = [p.id for p in store.list_players(db, group_id)]
    data = {"options-edition": edition}
    for seat, player_id in enumerate(ids[:players]):
        data |= {f"seat_{seat}-player": str(player_id), f"seat_{seat}-colour": ("red", "blue")[seat]}
    response = client.post(f"/groups/{group_id}/plays/new/{GAME}", data=data)
    assert response.status_code == 400 and words in unescaped(response)
    assert db.execute("SELECT COUNT(*) FROM plays").fetchone()[0] == 0


def test_solo_play_of_the_2nd_edition_starts(client, db):
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"))
    player_id = store.list_players(db, group_id)[0].id
    play_id = start_play(client, group_id, GAME, [(player_id, "red")], **{"options-edition": "2"})
    assert len(store.get_play(db, play_id).seats) == 1


# Delivered herds during play.

def test_a_delivery_is_recorded_shown_and_undone(client, db, table):
    play_id, second = table["play_id"], table["second"]
    response = second.post(f"/plays/{play_id}/gwt/deliveries",
                           data={"seat": "0", "city": "  Kansas   City ", "crest_vp": "\u22126"})
    assert response.status_code == 302
    assert response.headers["Location"].endswith(f"/plays/{play_id}#deliveries")
    response = client.post(f"/plays/{play_id}/gwt/deliveries",
                           data={"seat": "0", "city": "Denver", "crest_vp": "4"})
    assert response.status_code == 302
    assert [e.payload for e in store.list_events(db, play_id)] == [
        {"seat": 0, "city": "Kansas City", "crest_vp": -6}, {"seat": 0, "city": "Denver", "crest_vp": 4}]
    page = unescaped(client.get(f"/plays/{play_id}"))
    assert "Anna delivered to Kansas City: -6 VP" in page and "Anna delivered to Denver: +4 VP" in page
    assert re.search(r"Anna</th>\s*<td class=\"num\">-2</td>", page)
    # the cities row of Anna's card starts from her deliveries, negatives included
    card = client.get(card_url(play_id, 0)).text
    assert re.search(r'id="cities_vp"[^>]*value="-2"', card)

    undo = client.post(f"/plays/{play_id}/undo", data={"version": "2"})
    assert undo.status_code == 302
    assert [e.payload["city"] for e in store.list_events(db, play_id)] == ["Kansas City"]
    assert re.search(r'id="cities_vp"[^>]*value="-6"', client.get(card_url(play_id, 0)).text)


@pytest.mark.parametrize(("city", "crest", "stored"), [
    pytest.param("Kansas City", "", ("Kansas City", -6), id="kansas-city"),
    pytest.param(" kansas  city ", "", ("kansas city", -6), id="kansas-city-as-typed"),
    pytest.param("San Francisco", "", ("San Francisco", 9), id="san-francisco"),
    pytest.param("New York", "  ", ("New York", 9), id="new-york-blank"),
    pytest.param("Kansas City", "-6", ("Kansas City", -6), id="kansas-city-typed-too"),
    pytest.param("Denver", "", ("Denver", 0), id="city-without-a-crest"),
    pytest.param("Kansas City  2", " ", ("Kansas City 2", 0), id="without-a-crest-like-a-fixed-one"),
])
def test_a_crest_the_rules_fix_or_none_may_be_left_empty(client, db, table, city, crest, stored):
    play_id = table["play_id"]
    response = client.post(f"/plays/{play_id}/gwt/deliveries",
                           data={"seat": "1", "city": city, "crest_vp": crest})
    assert response.status_code == 302
    assert response.headers["Location"].endswith(f"/plays/{play_id}#deliveries")
    assert [e.payload for e in store.list_events(db, play_id)] == [
        {"seat": 1, "city": stored[0], "crest_vp": stored[1]}]
    page = client.get(f"/plays/{play_id}").text
    assert re.search(rf'Ben</th>\s*<td class="num">{stored[1]}</td>', page)


def test_a_second_disc_in_one_city_is_asked_about_and_recorded_when_sent_again(client, db, table):
    """A city holds one disc of each player, but for Kansas City, San Francisco and New York: a second
    delivery of Anna's to Wichita (however it is typed) is asked about, and the same tap again records it."""
    play_id = table["play_id"]
    deliveries = f"/plays/{play_id}/gwt/deliveries"
    for city in ("Wichita", "Kansas City", "Kansas City"):
        assert client.post(deliveries, data={"seat": "0", "city": city, "crest_vp": ""}).status_code == 302
    assert client.post(deliveries, data={"seat": "1", "city": "Wichita", "crest_vp": "3"}).status_code == 302
    asked = client.post(deliveries, data={"seat": "0", "city": " wichita ", "crest_vp": "3"})
    assert asked.status_code == 409
    assert ("Anna has a disc in Wichita already: a city holds one disc of each player, but Kansas City, "
            "San Francisco and New York. Record the delivery again to place a second one."
            ) in unescaped(asked)
    assert len(store.list_events(db, play_id)) == 4
    form = re.search(r'<form method="post" action="([^"]+/deliveries)"[^>]*>(.*?)</form>', asked.text, re.S)
    sent = dict(re.findall(r'<input[^>]*name="(again|city)"[^>]*value="([^"]*)"', form.group(2)))
    assert sent["city"] == "wichita"
    # the question answers for this delivery only: Ben's second disc in Wichita, sent instead, is asked about
    other = client.post(form.group(1), data={**sent, "seat": "1", "crest_vp": "3"})
    assert other.status_code == 409 and "Ben has a disc in Wichita already" in unescaped(other)
    again = client.post(form.group(1), data={**sent, "seat": "0", "crest_vp": "3"})
    assert again.status_code == 302
    assert [e.payload["city"] for e in store.list_events(db, play_id)][-1] == "wichita"
    assert len(store.list_events(db, play_id)) == 5


@pytest.mark.parametrize(("data", "words"), [
    pytest.param({"seat": "0", "city": "   ", "crest_vp": "3"}, "Type or pick the city", id="blank-city"),
    pytest.param({"seat": "0", "city": "x" * 41, "crest_vp": "3"}, "Field cannot be longer than 40",
                 id="long-city"),
    pytest.param({"seat": "0", "city": "", "crest_vp": ""}, "Type or pick the city", id="nothing"),
    pytest.param({"seat": "0", "city": "Denver", "crest_vp": "three"}, "Not a valid integer",
                 id="word-crest"),
    pytest.param({"seat": "0", "city": "Denver", "crest_vp": "101"}, "between -100 and 100", id="crest-101"),
    pytest.param({"seat": "3", "city": "Denver", "crest_vp": "3"}, "Not a valid choice", id="seat-off-table"),
    pytest.param({"seat": "x", "city": "Denver", "crest_vp": "3"}, "Invalid Choice", id="seat-word"),
    pytest.param({"city": "Denver", "crest_vp": "3"}, "Not a valid choice", id="no-seat"),
])
def test_a_bad_delivery_is_a_form_error_and_stores_nothing(client, db, table, data, words):
    response = client.post(f"/plays/{table['play_id']}/gwt/deliveries", data=data)
    assert response.status_code == 400 and words in unescaped(response)
    assert store.list_events(db, table["play_id"]) == []


def test_a_delivery_to_a_finished_play_is_refused(client, db, table):
    play_id = table["play_id"]
    for seat in range(3):
        client.post(card_url(play_id, seat), data=changed(PLAIN, dollars=str(seat),
                                                          job_market_token="y" if seat == 0 else None))
    assert store.get_play(db, play_id).status == "finished"
    response = client.post(f"/plays/{play_id}/gwt/deliveries",
                           data={"seat": "0", "city": "Denver", "crest_vp": "2"})
    assert response.status_code == 409 and f'href="/plays/{play_id}/result"' in response.text
    assert not [e for e in store.list_events(db, play_id) if e.kind == gwt.DELIVERY_EVENT]


def picked_players(page: str) -> list[str]:
    """The players whose button is picked on the delivery form (one, or none)."""
    form = re.search(r'<form[^>]*class="gwt-delivery".*?</form>', page, re.S).group(0)
    return re.findall(r'<input type="radio" name="seat" value="\d+" checked>\s*<span[^>]*></span>\s*(\w+)',
                      form)


def post_entry(client, db, play_id: int, entry: tuple):
    """One entry as its form sends it: ("delivery", seat), ("card", seat) or ("undo",)."""
    if entry[0] == "delivery":  # each to another city: a second disc in one city is asked about
        city = ("Wichita", "Denver", "Santa Fe", "El Paso")[len(store.list_events(db, play_id)) % 4]
        return client.post(f"/plays/{play_id}/gwt/deliveries",
                           data={"seat": str(entry[1]), "city": city, "crest_vp": "3"})
    if entry[0] == "card":
        return client.post(card_url(play_id, entry[1]), data=PLAIN)
    return client.post(f"/plays/{play_id}/undo", data={"version": str(store.get_play(db, play_id).version)})


@pytest.mark.parametrize(("entries", "picked"), [
    pytest.param([], "Anna", id="first-delivery-seat-1"),
    pytest.param([("delivery", 0)], "Ben", id="after-a-delivery-the-next-seat"),
    pytest.param([("delivery", 0), ("delivery", 1)], "Cara", id="after-two-deliveries"),
    pytest.param([("delivery", 2)], "Anna", id="after-the-last-seat-the-first"),
    pytest.param([("delivery", 0), ("delivery", 2)], "Anna", id="an-out-of-turn-delivery-is-followed"),
    pytest.param([("delivery", 1), ("delivery", 1)], "Cara", id="two-of-one-player"),
    pytest.param([("delivery", 0), ("delivery", 1), ("undo",)], "Ben", id="undo-takes-the-turn-back"),
    pytest.param([("delivery", 0), ("undo",)], "Anna", id="undo-of-the-only-delivery"),
    pytest.param([("delivery", 1), ("card", 0)], "Cara", id="a-card-passes-no-turn"),
])
def test_the_delivery_form_starts_on_the_player_expected_to_deliver_next(client, db, table, entries, picked):
    play_id = table["play_id"]
    stored: list[tuple[str, int]] = []
    for entry in entries:
        response = post_entry(client, db, play_id, entry)
        assert response.status_code == 302
        location = response.headers["Location"]
        if entry[0] == "delivery":
            assert location.endswith(f"/plays/{play_id}#deliveries")
            stored.append(("delivery", entry[1]))
        elif entry[0] == "card":
            assert location.endswith(overview_url(play_id))
            stored.append(("card", entry[1]))
        else:
            assert location.endswith(f"/plays/{play_id}")
            stored.pop()
    assert [(e.kind, e.payload["seat"]) for e in store.list_events(db, play_id)] == stored
    # every phone's page starts on the same player
    assert picked_players(client.get(f"/plays/{play_id}").text) == [picked]
    assert picked_players(table["second"].get(f"/plays/{play_id}").text) == [picked]


def test_a_refused_delivery_keeps_the_player_it_was_sent_for(client, db, table):
    play_id = table["play_id"]
    response = client.post(f"/plays/{play_id}/gwt/deliveries",
                           data={"seat": "2", "city": "", "crest_vp": "3"})
    assert response.status_code == 400 and picked_players(response.text) == ["Cara"]
    assert store.list_events(db, play_id) == []
    # and without a player, none is picked for it: the player is asked for
    response = client.post(f"/plays/{play_id}/gwt/deliveries", data={"city": "Denver", "crest_vp": "3"})
    assert response.status_code == 400 and picked_players(response.text) == []
    assert "Not a valid choice" in unescaped(response)
    assert store.list_events(db, play_id) == []


def test_each_player_is_a_button_in_their_colour(client, table):
    page = client.get(f"/plays/{table['play_id']}").text
    form = re.search(r'<form[^>]*class="gwt-delivery".*?</form>', page, re.S).group(0)
    assert "<select" not in form
    assert re.findall(r'<label class="seat-pick"><input type="radio" name="seat" value="(\d)"[^>]*>\s*'
                      r'<span class="swatch c-(\w+)" aria-hidden="true"></span> (\w+)</label>', form) == [
        ("0", "red", "Anna"), ("1", "blue", "Ben"), ("2", "green", "Cara")]


# The final tally: one card per player, from several phones.

def test_the_play_page_leads_to_the_cards_and_shows_which_are_in(client, table):
    play_id = table["play_id"]
    page = client.get(f"/plays/{play_id}").text
    assert f'href="/plays/{play_id}/gwt/final-tally"' in page
    assert page.count("not in yet") == 3
    client.post(card_url(play_id, 1), data=ANNA_96)
    page = client.get(f"/plays/{play_id}").text
    assert page.count("not in yet") == 2 and "card in (96 VP)" in page


def test_three_cards_from_two_phones_finish_the_play(client, db, table):
    play_id, second = table["play_id"], table["second"]
    first = client.post(card_url(play_id, 0), data=ANNA_96)
    assert first.status_code == 302 and first.headers["Location"].endswith(overview_url(play_id))
    # the other phone fills in Ben's card meanwhile, from a form opened before Anna's card was in
    ben = second.post(card_url(play_id, 1), data=changed(PLAIN, job_market_token="y"))
    assert ben.status_code == 302 and ben.headers["Location"].endswith(overview_url(play_id))
    assert store.get_play(db, play_id).status == "active"
    overview = unescaped(client.get(overview_url(play_id)))
    assert "card in: 96 VP" in overview and "card in: 34 VP" in overview
    assert "Fill in Cara's card" in overview

    cara = client.post(card_url(play_id, 2), data=changed(PLAIN, cattle_vp="94"))
    assert cara.status_code == 302 and cara.headers["Location"].endswith(f"/plays/{play_id}/result")
    play = store.get_play(db, play_id)
    assert play.status == "finished"
    results = store.play_results(db, play_id)
    assert [(r.name, r.total, r.rank) for r in results] == [("Anna", 96, 1), ("Cara", 96, 1), ("Ben", 34, 3)]
    assert dict(results[0].breakdown) == {
        "money": 4, "buildings": 12, "cities": 8, "stations": 10, "hazards": 7, "cattle": 21,
        "objectives": 6, "station_masters": 13, "workers": 12, "disc": 3, "job_market": 0}
    assert results[2].breakdown["job_market"] == gwt.JOB_MARKET_TOKEN_VP
    page = unescaped(second.get(f"/plays/{play_id}/result"))
    assert "Shared victory: Anna, Cara" in page and "edition 2" in page


def test_the_closing_event_is_the_scoring_endpoints_request(client, db, table):
    play_id = table["play_id"]
    cara = changed(PLAIN, building_tiles=["4a", "10b"], buildings_vp=None)
    for seat, card in enumerate((ANNA_96, changed(PLAIN, job_market_token="y"), cara)):
        client.post(card_url(play_id, seat), data=card)
    final = store.list_events(db, play_id)[-1]
    assert final.kind == "final" and final.payload["edition"] == 2
    assert [p["name"] for p in final.payload["players"]] == ["Anna", "Ben", "Cara"]
    answer = client.post("/api/v1/score/great-western-trail", json=final.payload)
    assert answer.status_code == 200
    assert [p["total"] for p in answer.get_json()["players"]] == [
        r.total for r in sorted(store.play_results(db, play_id), key=lambda r: r.seat)]


def test_a_new_card_leaves_the_unticked_start_objective_empty(client, table):
    page = client.get(card_url(table["play_id"], 0)).text
    start_vp = re.search(r'<input[^>]*name="objective_0_vp"[^>]*>', page).group(0)
    start_done = re.search(r'<input[^>]*name="objective_0_fulfilled"[^>]*>', page).group(0)
    start_penalty = re.search(r'<input[^>]*name="objective_0_penalty"[^>]*>', page).group(0)
    assert 'value=""' in start_vp and 'value=""' in start_penalty and "checked" not in start_done
    # ticking it fills in the start card's VP (the page script reads these)
    assert 'data-fills="objective_0_vp"' in start_done and 'data-fills-with="3"' in start_done


def shown_values(page: str) -> dict:
    """What a card page sends as it is drawn: each field that has a value, each ticked box."""
    sent = {}
    for tag in re.findall(r"<input[^>]*>", page):
        name, value = re.search(r'name="([^"]+)"', tag), re.search(r'value="([^"]*)"', tag)
        if name is None or "csrf" in name[1]:
            continue
        if re.search(r'type="(checkbox|radio)"', tag):
            if re.search(r"\bchecked\b", tag):
                sent[name[1]] = value[1] if value else "y"
        elif value is not None and value[1]:
            sent[name[1]] = html.unescape(value[1])
    return sent


def test_a_new_card_leaves_the_worker_rows_for_the_table_to_count(client, db, table):
    play_id = table["play_id"]
    page = client.get(card_url(play_id, 0)).text
    for row in gwt.WORKER_ROWS:
        assert re.search(rf'<input[^>]*name="{row}"[^>]*value=""', page), row
    assert not {*gwt.WORKER_ROWS} & set(shown_values(page))
    # sent as drawn with the VP rows typed: each worker row is asked for, nothing is stored
    typed = {"dollars": "10", "buildings_vp": "0", "stations_vp": "0", "hazards_vp": "0", "cattle_vp": "30"}
    response = client.post(card_url(play_id, 0), data={**shown_values(page), **typed})
    assert response.status_code == 400
    text = unescaped(response)
    for row in gwt.WORKER_ROWS:
        assert re.search(rf'<p class="error" id="{row}-error">Enter 1 to 6: the printed first space counts.',
                         text), row
    assert store.list_events(db, play_id) == []
    # typed as counted, the card goes in; its page then shows what was saved
    workers = {"cowboys": "1", "craftsmen": "5", "engineers": "2"}
    response = client.post(card_url(play_id, 0), data={**shown_values(page), **typed, **workers})
    assert response.status_code == 302
    (payload,) = stored_cards(db, play_id)
    assert payload["workers"] == {"cowboys": 1, "craftsmen": 5, "engineers": 2}
    page = client.get(card_url(play_id, 0)).text
    assert {row: shown_values(page)[row] for row in gwt.WORKER_ROWS} == workers
    assert "saved: 4 VP" in page  # the workers row: craftsmen on the 5th space


START_CARD = {"objective_0_vp": "3", "objective_0_fulfilled": "y"}
PENALTY_MISSING = ("Not fulfilled: enter this card's penalty (2 or 3). Only the start card, 3 VP in row 1, "
                   "has none.")


@pytest.mark.parametrize(("entries", "row", "words"), [
    pytest.param({"objective_1_vp": "5"}, 2, PENALTY_MISSING, id="5-vp-penalty-left-empty"),
    pytest.param({"objective_1_vp": "3"}, 2, PENALTY_MISSING, id="3-vp-card-after-the-start-card"),
    pytest.param({"objective_0_vp": "4", "objective_0_fulfilled": None}, 1, PENALTY_MISSING,
                 id="row-1-holding-a-4-vp-card"),
    pytest.param({"objective_1_vp": "5", "objective_1_penalty": "0"}, 2,
                 "A 5-VP objective card that is not fulfilled costs its penalty, 2 or 3; only a start card "
                 "(3 VP) has none.", id="penalty-0"),
    pytest.param({"objective_1_vp": "4", "objective_1_penalty": "1", "objective_1_fulfilled": "y"}, 2,
                 "An objective card's penalty is 2 or 3 (a start card, 3 VP, has none), not 1.",
                 id="penalty-1"),
    pytest.param({"objective_1_vp": "7", "objective_1_penalty": "3", "objective_1_fulfilled": "y"}, 2,
                 "An objective card is worth 3 to 5 VP, not 7.", id="no-card-is-worth-7"),
    pytest.param({"objective_1_vp": "3", "objective_1_penalty": "0"}, 2,
                 "A player has one start card. Every other 3-VP objective card that is not fulfilled costs "
                 "its penalty, 2 or 3.", id="a-second-start-card"),
    pytest.param({"objective_0_vp": None, "objective_0_fulfilled": None, "objective_1_vp": "4",
                  "objective_1_penalty": "2", "station_masters": "objectives"}, 1,
                 "The Objectives station master counts your start card too: enter it in row 1 (3 VP), ticked "
                 "if fulfilled.", id="the-objectives-master-without-the-start-card"),
])
def test_an_objective_card_needs_a_penalty_that_fits_it(client, db, table, entries, row, words):
    card = changed(changed(PLAIN, **START_CARD), **entries)
    response = client.post(card_url(table["play_id"], 0), data=card)
    assert response.status_code == 400
    # the sentence stands under that card's row
    assert re.search(rf'<tr class="invalid"><th scope="row">{row}</th>.*?</tr>\s*'
                     rf'<tr><td></td><td colspan="3"><p class="error">{re.escape(words)}</p>',
                     unescaped(response), re.S)
    assert store.list_events(db, table["play_id"]) == []


@pytest.mark.parametrize(("entries", "stored"), [
    pytest.param({"objective_0_fulfilled": None}, [(3, 0, False)], id="start-card-not-fulfilled"),
    pytest.param({"objective_1_vp": "5", "objective_1_fulfilled": "y"}, [(3, 0, True), (5, 0, True)],
                 id="fulfilled-card-penalty-left-empty"),
    pytest.param({"objective_1_vp": "5", "objective_1_penalty": "3"}, [(3, 0, True), (5, 3, False)],
                 id="penalty-given"),
    pytest.param({"objective_0_vp": None, "objective_0_fulfilled": None, "objective_1_vp": "3",
                  "objective_1_penalty": "0"}, [(3, 0, False)], id="start-card-in-row-2-with-0-typed"),
])
def test_an_objective_card_that_fits_goes_in(client, db, table, entries, stored):
    card = changed(changed(PLAIN, **START_CARD), **entries)
    response = client.post(card_url(table["play_id"], 0), data=card)
    assert response.status_code == 302
    (payload,) = stored_cards(db, table["play_id"])
    assert [(c["vp"], c["penalty"], c["fulfilled"]) for c in payload["objectives"]] == stored


def test_a_later_card_of_the_same_seat_replaces_the_earlier_one(client, db, table):
    play_id = table["play_id"]
    client.post(card_url(play_id, 0), data=ANNA_96)
    page = client.get(card_url(play_id, 0)).text
    assert re.search(r'id="dollars"[^>]*value="23"', page) and "saved: 4 VP" in page
    revision = drawn_card(client, play_id, 0)["revision"]
    assert revision != "0"
    response = client.post(card_url(play_id, 0), data=changed(ANNA_96, revision=revision, dollars="50"))
    assert response.status_code == 302
    assert [card["dollars"] for card in stored_cards(db, play_id)] == [23, 50]
    assert "card in: 102 VP" in client.get(overview_url(play_id)).text


def test_a_card_sent_from_an_outdated_view_is_refused_and_keeps_the_entries(client, db, table):
    play_id, second = table["play_id"], table["second"]
    client.post(card_url(play_id, 0), data=ANNA_96)
    stale = second.post(card_url(play_id, 0), data=changed(ANNA_96, dollars="31"))
    assert stale.status_code == 409
    text = unescaped(stale)
    assert "Anna's card was changed on another phone since you opened it" in text
    assert re.search(r'id="dollars"[^>]*value="31"', text)
    revision = drawn_card(client, play_id, 0)["revision"]
    assert f'name="revision" type="hidden" value="{revision}"' in text
    assert [card["dollars"] for card in stored_cards(db, play_id)] == [23]
    # sent again from the page brought up to date, it replaces the card
    again = second.post(card_url(play_id, 0), data=changed(ANNA_96, dollars="31", revision=revision))
    assert again.status_code == 302
    assert [card["dollars"] for card in stored_cards(db, play_id)] == [23, 31]


def drawn_card(phone, play_id: int, seat: int) -> dict:
    """The revision and the cities row a card page is drawn with, as its form sends them."""
    page = phone.get(card_url(play_id, seat)).text
    return {"revision": re.search(r'name="revision" type="hidden" value="(\d+)"', page).group(1),
            "cities_vp": re.search(r'id="cities_vp"[^>]*value="(-?\d+)"', page).group(1)}


def test_a_card_drawn_before_a_delivery_of_its_player_is_refused_and_keeps_the_entries(client, db, table):
    play_id, second = table["play_id"], table["second"]
    for seat, card in ((1, changed(PLAIN, job_market_token="y")), (2, changed(PLAIN, cattle_vp="20"))):
        assert second.post(card_url(play_id, seat), data=card).status_code == 302
    drawn = drawn_card(client, play_id, 0)
    assert drawn == {"revision": "0", "cities_vp": "0"}
    # the other phone enters a delivery of Anna's meanwhile: her card as drawn leaves out its 9 VP
    delivered = second.post(f"/plays/{play_id}/gwt/deliveries",
                            data={"seat": "0", "city": "San Francisco", "crest_vp": ""})
    assert delivered.status_code == 302
    stale = client.post(card_url(play_id, 0), data=changed(PLAIN, dollars="11", **drawn))
    assert stale.status_code == 409
    text = unescaped(stale)
    assert ("Another phone entered a delivery to San Francisco (+9 VP) for Anna since this page was drawn: "
            "Anna's deliveries now give 9 VP for the cities row. Check it and send your card again.") in text
    assert "Anna's card is in" not in text and "San Francisco +9" in text
    # what was typed is kept, the cities row as drawn included
    assert re.search(r'id="dollars"[^>]*value="11"', text)
    assert re.search(r'id="cities_vp"[^>]*value="0"', text)
    assert [card["seat"] for card in stored_cards(db, play_id)] == [1, 2]
    assert store.get_play(db, play_id).status == "active" and store.play_results(db, play_id) == ()

    # a page drawn now starts from the delivery, with the revision the refused page was brought up to
    fresh = drawn_card(client, play_id, 0)
    assert fresh["cities_vp"] == "9" and fresh["revision"] != "0"
    assert f'name="revision" type="hidden" value="{fresh["revision"]}"' in text
    handed_in = client.post(card_url(play_id, 0), data=changed(PLAIN, **fresh))
    assert handed_in.status_code == 302 and handed_in.headers["Location"].endswith(f"/plays/{play_id}/result")
    results = store.play_results(db, play_id)
    assert [(r.name, r.total, r.rank) for r in results] == [("Anna", 41, 1), ("Ben", 34, 2), ("Cara", 22, 3)]
    assert results[0].breakdown["cities"] == 9
    assert "Anna wins!" in unescaped(second.get(f"/plays/{play_id}/result"))


def test_a_delivery_entered_after_a_card_is_in_holds_the_result_until_the_card_follows(client, db, table):
    play_id, second = table["play_id"], table["second"]
    assert client.post(card_url(play_id, 0), data=changed(PLAIN, cities_vp="4")).status_code == 302
    assert second.post(card_url(play_id, 1), data=changed(PLAIN, job_market_token="y")).status_code == 302
    # Anna's forgotten herd to San Francisco, entered on the other phone once her card is in
    delivered = second.post(f"/plays/{play_id}/gwt/deliveries", data={"seat": "0", "city": "San Francisco",
                                                                       "crest_vp": ""}, follow_redirects=True)
    told = ("Anna's deliveries changed after Anna's card was handed in: they give 9 VP for the cities row "
            "now, the card 4. Change Anna's card.")
    assert told in unescaped(delivered)
    # the last card brings no result with Anna's 4 VP: the table is told why
    last = client.post(card_url(play_id, 2), data=PLAIN, follow_redirects=True)
    assert last.request.path == overview_url(play_id) and told in unescaped(last)
    assert store.get_play(db, play_id).status == "active" and store.play_results(db, play_id) == ()
    # Anna's card opens with the deliveries' 9 VP; handing it in gives the result
    drawn = drawn_card(client, play_id, 0)
    assert drawn["cities_vp"] == "9"
    finished = client.post(card_url(play_id, 0), data=changed(PLAIN, **drawn))
    assert finished.headers["Location"].endswith(f"/plays/{play_id}/result")
    assert store.play_results(db, play_id)[0].breakdown["cities"] == 9


@pytest.mark.parametrize("drawn_after_it", [False, True])
def test_a_card_sent_twice_is_stored_once(client, db, table, drawn_after_it):
    play_id = table["play_id"]
    assert client.post(card_url(play_id, 0), data=ANNA_96).status_code == 302
    revision = drawn_card(client, play_id, 0)["revision"] if drawn_after_it else "0"
    again = client.post(card_url(play_id, 0), data=changed(ANNA_96, revision=revision))
    assert again.status_code == 302 and again.headers["Location"].endswith(overview_url(play_id))
    assert len(stored_cards(db, play_id)) == 1
    assert "already in, exactly like this" in unescaped(client.get(overview_url(play_id)))


@pytest.mark.parametrize(("cards", "words"), [
    pytest.param([changed(PLAIN, job_market_token="y"), changed(PLAIN, job_market_token="y"), PLAIN],
                 "Ben: Only one player holds the job-market token, and Anna already does.", id="two-tokens"),
    pytest.param([changed(PLAIN, station_masters="hazards", hazards="2", hazards_vp="4"),
                  changed(PLAIN, job_market_token="y"),
                  changed(PLAIN, station_masters="hazards", hazards="4", hazards_vp="8")],
                 "Cara: The game has one Hazards station master, and Anna already holds it.",
                 id="same-master"),
])
def test_cards_that_break_the_rules_together_do_not_finish(client, db, table, cards, words):
    play_id = table["play_id"]
    for seat, card in enumerate(cards):
        response = client.post(card_url(play_id, seat), data=card)
        assert response.status_code == 302 and response.headers["Location"].endswith(overview_url(play_id))
    assert store.get_play(db, play_id).status == "active" and store.play_results(db, play_id) == ()
    assert len(stored_cards(db, play_id)) == 3
    overview = unescaped(client.get(overview_url(play_id)))
    assert "All cards are in, but together they break the rules" in overview and words in overview
    assert "Show the result" not in overview
    # Ben or Cara fixes the card: that completes the set
    fixed = client.post(card_url(play_id, 2), data=changed(PLAIN, **drawn_card(client, play_id, 2)))
    if "Ben:" in words:
        assert fixed.headers["Location"].endswith(overview_url(play_id))
        fixed = client.post(card_url(play_id, 1), data=changed(PLAIN, **drawn_card(client, play_id, 1)))
    assert fixed.status_code == 302 and fixed.headers["Location"].endswith("/result")
    assert store.get_play(db, play_id).status == "finished"


NOBODY_HOLDS_IT = ("Someone holds the job-market token: the game ends when a player moves it off the last "
                   "space of the job market, and that player takes it (2 VP). Tick “I hold the job-market "
                   "token” on that player's card.")


@pytest.mark.parametrize("edition", ["1", "2"])
def test_the_last_card_leaves_the_play_open_while_nobody_holds_the_job_market_token(client, db, edition):
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    ids = [p.id for p in store.list_players(db, group_id)]
    play_id = start_play(client, group_id, GAME, [(ids[0], "red"), (ids[1], "blue")],
                         **{"options-edition": edition})
    assert client.post(card_url(play_id, 0), data=PLAIN).status_code == 302
    last = client.post(card_url(play_id, 1), data=changed(PLAIN, dollars="15"), follow_redirects=True)
    assert last.request.path == overview_url(play_id)
    overview = unescaped(last)
    assert "Ben's card is in." in overview and NOBODY_HOLDS_IT in overview
    assert "Show the result" not in overview
    assert store.get_play(db, play_id).status == "active" and store.play_results(db, play_id) == ()
    assert len(stored_cards(db, play_id)) == 2
    # the table ticks it on Ben's card: that closes the play, with his 2 VP
    ticked = client.post(card_url(play_id, 1), data=changed(PLAIN, dollars="15", job_market_token="y",
                                                            **drawn_card(client, play_id, 1)))
    assert ticked.status_code == 302 and ticked.headers["Location"].endswith(f"/plays/{play_id}/result")
    assert [(r.name, r.breakdown["job_market"], r.total) for r in store.play_results(db, play_id)] == [
        ("Ben", 2, 35), ("Anna", 0, 32)]


@pytest.mark.parametrize(("card", "field", "words"), [
    pytest.param(changed(ANNA_96, dollars=None), "dollars", "Enter your dollars", id="no-money"),
    pytest.param(changed(ANNA_96, dollars="-5"), "dollars", "between 0 and 999", id="negative-money"),
    pytest.param(changed(ANNA_96, dollars="5.5"), "dollars", "Not a valid integer", id="fraction-money"),
    pytest.param(changed(ANNA_96, building_tiles="4a"), "buildings_vp", "not both", id="tiles-and-total"),
    pytest.param(changed(ANNA_96, buildings_vp=None), "buildings_vp", "Tick your private buildings",
                 id="no-buildings"),
    pytest.param(changed(ANNA_96, buildings_vp=None, building_tiles=["4a", "4b"]), "building_tiles",
                 "Each player has one building 4", id="both-sides-of-a-tile"),
    pytest.param(changed(ANNA_96, buildings_vp=None, building_tiles="11a"), "building_tiles",
                 "not a valid choice", id="no-tile-11"),
    pytest.param(changed(ANNA_96, cities_vp="-101"), "cities_vp", "between -100 and 999", id="cities-low"),
    pytest.param(changed(ANNA_96, cattle_3="2"), "cattle_vp", "not both", id="cattle-cards-and-total"),
    pytest.param(changed(ANNA_96, cattle_vp=None), "cattle_vp", "Enter how many cattle cards",
                 id="no-cattle"),
    pytest.param(changed(ANNA_96, objective_5_penalty="2"), "objective_5_vp", "Enter the VP of this card",
                 id="penalty-without-vp"),
    pytest.param(changed(ANNA_96, objective_1_vp="10"), "objective_1_vp", "between 0 and 9",
                 id="objective-vp-10"),
    pytest.param(changed(ANNA_96, station_masters=["workers", "hazards"]), "hazards",
                 "This station master needs the count", id="master-without-count"),
    pytest.param(changed(ANNA_96, station_masters=["workers", "hazards"], hazards="4"), "hazards_vp",
                 "2 to 4 VP each, 8 to 16 VP for a count of 4, not 7",
                 id="hazards-row-short-of-the-count"),
    pytest.param(changed(ANNA_96, station_masters=["workers", "buildings"], buildings="11"), "buildings",
                 "between 0 and 10", id="eleven-private-buildings"),
    pytest.param(changed(ANNA_96, station_masters="sheriff"), "station_masters", "not a valid choice",
                 id="unknown-master"),
    pytest.param(changed(ANNA_96, cowboys="7"), "cowboys", "between 1 and 6", id="seven-cowboys"),
    pytest.param(changed(ANNA_96, engineers=None), "engineers", "Enter 1 to 6", id="no-engineers"),
])
def test_bad_card_input_is_shown_next_to_the_field_and_stores_nothing(client, db, table, card, field, words):
    response = client.post(card_url(table["play_id"], 0), data=card)
    assert response.status_code == 400
    text = unescaped(response)
    assert words in text
    assert re.search(rf'<p class="error"( id="{field}-error")?>[^<]*{re.escape(words)}', text) or (
        field == "objective_5_vp" and words in text)
    assert store.list_events(db, table["play_id"]) == []


@pytest.mark.parametrize("revision", ["", "x", "²", "-1", "9" * 21, "9" * 5000],
                         ids=["empty", "letter", "superscript-two", "negative", "21-digits", "5000-digits"])
def test_a_card_without_a_readable_revision_is_refused(client, db, table, revision):
    response = client.post(card_url(table["play_id"], 0), data=changed(ANNA_96, revision=revision))
    assert response.status_code == 400 and "Reload the page" in unescaped(response)
    assert store.list_events(db, table["play_id"]) == []


def test_a_station_master_of_the_other_edition_is_not_offered(client, db):
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    ids = [p.id for p in store.list_players(db, group_id)]
    play_id = start_play(client, group_id, GAME, [(ids[0], "red"), (ids[1], "blue")],
                         **{"options-edition": "1"})
    page = client.get(card_url(play_id, 0)).text
    assert 'value="teepees"' in page and 'value="stations"' not in page
    assert "1 green and 1 blue teepee" in page
    response = client.post(card_url(play_id, 0),
                           data=changed(ANNA_96, station_masters="stations", stations="4"))
    assert response.status_code == 400 and store.list_events(db, play_id) == []


def test_the_calculators_fill_in_buildings_cattle_and_station_master_counts(client, db, table):
    play_id = table["play_id"]
    card = changed(PLAIN, buildings_vp=None, building_tiles=["4a", "10b", "7b"], cattle_vp=None,
                   cattle_3="2", cattle_5="1", cattle_1="", station_masters=["buildings", "objectives"],
                   objective_0_vp="3", objective_1_vp="4", objective_1_penalty="2")
    assert client.post(card_url(play_id, 0), data=card).status_code == 302
    (payload,) = stored_cards(db, play_id)
    assert payload["building_tiles"] == ["4a", "7b", "10b"] and "buildings" not in payload
    assert payload["cattle_cards"] == {"1": 0, "2": 0, "3": 2, "4": 0, "5": 1, "6": 0, "7": 0}
    page = client.get(card_url(play_id, 0)).text
    # 3 + 6 + 11 for the tiles; 11 for the cattle; 2 VP per building and 3 VP per 2 objective cards
    assert "saved: 20 VP" in page and "saved: 11 VP" in page and "saved: 9 VP" in page
    assert re.search(r'checked id="building_tiles-\d+" name="building_tiles" type="checkbox" value="10b"',
                     page)
    assert re.search(r'id="cattle_3"[^>]*value="2"', page)
    assert re.search(r'id="objective_1_penalty"[^>]*value="2"', page)


def test_a_counted_number_of_buildings_must_match_the_ticked_tiles(client, db, table):
    card = changed(PLAIN, buildings_vp=None, building_tiles=["4a", "10b"], station_masters="buildings",
                   buildings="3")
    response = client.post(card_url(table["play_id"], 0), data=card)
    assert response.status_code == 400
    assert "lists 2 private building tiles but counts 3 private buildings" in unescaped(response)
    assert store.list_events(db, table["play_id"]) == []


def test_more_objective_rows_keep_the_entries_and_store_nothing(client, db, table):
    play_id = table["play_id"]
    response = client.post(card_url(play_id, 0), data=changed(ANNA_96, more_objectives="1"))
    assert response.status_code == 200
    assert "objective_11_vp" in response.text and "objective_12_vp" not in response.text
    assert re.search(r'id="objective_1_vp"[^>]*value="5"', response.text)
    assert 'name="objective_rows" type="hidden" value="12"' in response.text
    assert store.list_events(db, play_id) == []
    card = changed(ANNA_96, objective_rows="12", objective_11_vp="4", objective_11_fulfilled="y")
    assert client.post(card_url(play_id, 0), data=card).status_code == 302
    assert len(stored_cards(db, play_id)[0]["objectives"]) == 4


@pytest.mark.parametrize("rows", ["", "abc", "²", "999", "0"])
def test_any_objective_row_count_posted_gives_a_working_form(client, db, table, rows):
    response = client.post(card_url(table["play_id"], 0), data=changed(ANNA_96, objective_rows=rows))
    assert response.status_code == 302
    assert len(stored_cards(db, table["play_id"])[0]["objectives"]) == 3


def test_a_reopened_play_shows_the_result_again_from_the_cards_in(client, db, table):
    play_id = table["play_id"]
    for seat in range(3):
        client.post(card_url(play_id, seat), data=changed(PLAIN, dollars=str(5 * seat),
                                                          job_market_token="y" if seat == 2 else None))
    play = store.get_play(db, play_id)
    assert play.status == "finished"
    assert client.get(overview_url(play_id)).headers["Location"].endswith("/result")
    assert client.get(card_url(play_id, 0)).headers["Location"].endswith("/result")
    assert client.post(f"/plays/{play_id}/undo", data={"version": str(play.version)}).status_code == 302
    overview = client.get(overview_url(play_id))
    assert "Show the result" in overview.text
    version = re.search(r'name="version" value="(\d+)"', overview.text).group(1)
    stale = client.post(f"/plays/{play_id}/gwt/final-tally/result", data={"version": str(int(version) - 1)})
    assert stale.status_code == 409 and store.get_play(db, play_id).status == "active"
    done = client.post(f"/plays/{play_id}/gwt/final-tally/result", data={"version": version})
    assert done.status_code == 302 and done.headers["Location"].endswith("/result")
    assert [r.name for r in store.play_results(db, play_id)] == ["Cara", "Ben", "Anna"]


def test_show_the_result_needs_every_card(client, db, table):
    play_id = table["play_id"]
    client.post(card_url(play_id, 0), data=PLAIN)
    version = store.get_play(db, play_id).version
    response = client.post(f"/plays/{play_id}/gwt/final-tally/result", data={"version": str(version)})
    assert response.status_code == 302 and response.headers["Location"].endswith(overview_url(play_id))
    assert store.get_play(db, play_id).status == "active"


FORM_VALUES = st.one_of(
    st.sampled_from(["", "0", "1", "-1", "7", "y", "4a", "10b", "workers", "none", "\u2212", "²"]),
    st.text(max_size=12))
CARD_FIELDS = st.sampled_from([*ANNA_96, "building_tiles", "cattle_3", "cattle_7", "objective_29_vp",
                               "hazards", "buildings", "more_objectives", "objectives-0-vp"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(changes=st.dictionaries(CARD_FIELDS, FORM_VALUES | st.lists(FORM_VALUES, max_size=3), max_size=6))
def test_any_card_form_input_gets_an_answer_never_a_server_error(client, db, table, changes):
    response = client.post(card_url(table["play_id"], 1), data={**ANNA_96, **changes})
    assert response.status_code in (200, 302, 400, 409)
    for payload in stored_cards(db, table["play_id"]):
        assert payload["seat"] == 1


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.dictionaries(st.sampled_from(["seat", "city", "crest_vp", "extra"]), FORM_VALUES, max_size=4))
def test_any_delivery_form_input_gets_an_answer_never_a_server_error(client, table, data):
    response = client.post(f"/plays/{table['play_id']}/gwt/deliveries", data=data)
    # the examples share one play: a player's second delivery to one city is asked about
    asked = "Record the delivery again to place a second one" in unescaped(response)
    assert response.status_code in (302, 400) or (response.status_code == 409 and asked)


# Privacy and wrong addresses.

def gwt_urls(play_id: int) -> list[tuple[str, str]]:
    return [("POST", f"/plays/{play_id}/gwt/deliveries"), ("GET", overview_url(play_id)),
            ("GET", card_url(play_id, 0)), ("POST", card_url(play_id, 0)),
            ("POST", f"/plays/{play_id}/gwt/final-tally/result")]


def test_a_phone_that_did_not_join_gets_404_on_every_page(app, db, table):
    stranger = app.test_client()
    create_group(stranger, "Other")
    for method, url in gwt_urls(table["play_id"]):
        data = {"seat": "0", "city": "Denver", "crest_vp": "2", **ANNA_96, "version": "0"}
        response = stranger.open(url, method=method, data=data)
        assert response.status_code == 404, (method, url)
        assert "Trail night" not in response.text and "Anna" not in response.text
    assert store.list_events(db, table["play_id"]) == []


def test_the_pages_of_another_game_or_seat_are_404(client, db, table):
    ids = list(table["ids"].values())
    other = start_play(client, table["group_id"], "gold-west", [(ids[0], "red"), (ids[1], "blue")])
    for method, url in gwt_urls(other):
        assert client.open(url, method=method).status_code == 404, (method, url)
    assert client.get(card_url(table["play_id"], 3)).status_code == 404
    assert client.get(f"/plays/{table['play_id']}/gwt/final-tally/-1").status_code == 404
