"""The whole flow through the pages: group → join by code → players → play → tally → history."""

from __future__ import annotations

import html
import re

import pytest

from companion import store
from tests.conftest import add_players, create_group, start_play


def player_ids(db, group_id):
    return {p.name: p.id for p in store.list_players(db, group_id)}


def test_create_join_play_tally_and_history(app, client, db):
    group_id = create_group(client, "Friday night")
    group = store.get_group(db, group_id)
    page = client.get(f"/groups/{group_id}")
    assert page.status_code == 200 and "Friday night" in page.text
    assert f'<img src="/groups/{group_id}/invite.svg?v=' in page.text  # the invite's QR code
    assert f"{group.join_code[:4]}-{group.join_code[4:]}" in page.text
    assert f"/join/{group.token}" in page.text

    second = app.test_client()
    assert second.get(f"/groups/{group_id}").status_code == 404
    joined = second.post("/join", data={"code": group.join_code.lower()[:4] + "-" + group.join_code[4:]})
    assert joined.status_code == 302 and joined.headers["Location"].endswith(f"/groups/{group_id}")
    assert second.get(f"/groups/{group_id}").status_code == 200
    assert "Friday night" in second.get("/").text

    add_players(second, group_id, ("Anna", "red"), ("Ben", "blue"), ("Cara", "green"))
    ids = player_ids(db, group_id)
    play_id = start_play(client, group_id, "gold-west",
                         [(ids["Anna"], "red"), (ids["Ben"], "blue"), (ids["Cara"], "green")])
    play = store.get_play(db, play_id)
    assert [s.name for s in play.seats] == ["Anna", "Ben", "Cara"] and play.status == "active"
    assert "Continue Gold West" in client.get("/").text

    # the second phone enters points; the first phone sees them
    response = second.post(f"/plays/{play_id}/adjust", data={"seat": "1", "points": "4", "note": "BoomTown"})
    assert response.status_code == 302
    assert store.list_events(db, play_id)[0].payload == {"seat": 1, "points": 4, "note": "BoomTown"}
    assert "BoomTown" in client.get(f"/plays/{play_id}").text

    tally = client.get(f"/plays/{play_id}/finish")
    version = re.search(r'name="version" type="hidden" value="(\d+)"', tally.text).group(1)
    totals = {"version": version, "total_0": "61", "total_1": "65", "total_2": "65"}
    response = client.post(f"/plays/{play_id}/finish", data=totals)
    assert response.status_code == 400 and "Enter them for Ben and Cara." in response.text  # tied on points
    response = client.post(f"/plays/{play_id}/finish",
                           data={**totals, "supply_left_1": "2", "supply_left_2": "2"})
    assert response.status_code == 302 and response.headers["Location"].endswith(f"/plays/{play_id}/result")
    results = store.play_results(db, play_id)
    assert [(r.name, r.total, r.rank) for r in results] == [("Ben", 65, 1), ("Cara", 65, 1), ("Anna", 61, 3)]
    result_page = second.get(f"/plays/{play_id}/result")
    assert "Shared victory: Ben, Cara" in result_page.text
    assert "Recent results" in client.get(f"/groups/{group_id}").text


def test_undo_removes_the_last_event_and_refuses_a_stale_view(client, db):
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    ids = player_ids(db, group_id)
    play_id = start_play(client, group_id, "mayflower", [(ids["Anna"], "red"), (ids["Ben"], "blue")])
    client.post(f"/plays/{play_id}/adjust", data={"seat": "0", "points": "3"})
    client.post(f"/plays/{play_id}/adjust", data={"seat": "1", "points": "5"})
    stale = client.post(f"/plays/{play_id}/undo", data={"version": "1"})
    assert stale.status_code == 409 and "Another phone changed this play" in stale.text
    assert len(store.list_events(db, play_id)) == 2
    assert client.post(f"/plays/{play_id}/undo", data={"version": "2"}).status_code == 302
    assert [e.payload["points"] for e in store.list_events(db, play_id)] == [3]


def test_bad_form_input_is_shown_next_to_the_field_and_stores_nothing(client, db):
    group_id = create_group(client)
    response = client.post(f"/groups/{group_id}/players", data={"name": "  ", "colour": "red"})
    assert response.status_code == 400 and "Type the player's name." in html.unescape(response.text)
    response = client.post(f"/groups/{group_id}/players", data={"name": "Anna", "colour": "chartreuse"})
    assert response.status_code == 400
    add_players(client, group_id, ("Anna", "red"))
    response = client.post(f"/groups/{group_id}/players", data={"name": "anna", "colour": "blue"})
    assert response.status_code == 400 and "already has a player called anna" in response.text
    assert [p.name for p in store.list_players(db, group_id)] == ["Anna"]

    ids = player_ids(db, group_id)
    too_few = client.post(f"/groups/{group_id}/plays/new/gold-west",
                          data={"seat_0-player": str(ids["Anna"]), "seat_0-colour": "red"})
    # the form has at least the game's fewest seats, and every seat needs its player
    assert too_few.status_code == 400 and "Pick a player for every seat." in too_few.text
    assert client.get(f"/groups/{group_id}/plays/new/chess").status_code == 404
    bad_player = client.post(f"/groups/{group_id}/plays/new/gold-west",
                             data={"seat_0-player": "abc", "seat_1-player": "99999"})
    assert bad_player.status_code == 400
    assert db.execute("SELECT COUNT(*) FROM plays").fetchone()[0] == 0


def test_join_codes_are_rate_limited(app, client, db):
    app.config["JOIN_FAILURES_ALLOWED"] = 3
    group_id = create_group(client)
    code = store.get_group(db, group_id).join_code
    stranger = app.test_client()
    for _ in range(3):
        assert stranger.post("/join", data={"code": "ZZZZZZZZ"}).status_code == 400
    blocked = stranger.post("/join", data={"code": code})
    assert blocked.status_code == 429 and "Too many wrong codes" in blocked.text
    assert stranger.get(f"/groups/{group_id}").status_code == 404


def test_invite_link_asks_before_joining(app, client, db):
    group_id = create_group(client, "Club")
    token = store.get_group(db, group_id).token
    friend = app.test_client()
    page = friend.get(f"/join/{token}")
    assert page.status_code == 200 and "Join Club?" in page.text
    assert friend.get(f"/groups/{group_id}").status_code == 404
    assert friend.post(f"/join/{token}").status_code == 302
    assert friend.get(f"/groups/{group_id}").status_code == 200
    assert friend.get("/join/not-a-token").status_code == 404


def test_deleting_asks_first(client, db):
    group_id = create_group(client)
    confirm = client.get(f"/groups/{group_id}/delete")
    assert confirm.status_code == 200 and "For 30 days the phones of the group can restore it" in confirm.text
    assert store.get_group(db, group_id)
    assert client.post(f"/groups/{group_id}/delete").status_code == 302
    with pytest.raises(store.NotFound):
        store.get_group(db, group_id)
    assert client.get(f"/groups/{group_id}").status_code == 404


def test_leaving_forgets_the_group_on_this_phone_only(app, client, db):
    group_id = create_group(client)
    client.post(f"/groups/{group_id}/leave")
    assert client.get(f"/groups/{group_id}").status_code == 404
    assert store.get_group(db, group_id)


def test_a_tampered_cookie_is_ignored(app, client):
    group_id = create_group(client)
    other = app.test_client()
    other.set_cookie("session", "eyJncm91cHMiOlsxXX0.forged.signature", domain="companion.test")
    assert other.get(f"/groups/{group_id}").status_code == 404
    assert other.get("/").status_code == 200


def test_the_language_switch_returns_to_a_page_that_can_be_opened(client, db):
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    ids = player_ids(db, group_id)
    play_id = start_play(client, group_id, "mayflower", [(ids["Anna"], "red"), (ids["Ben"], "blue")])
    # a refused form shows the play page at the form's address; the switch must lead back to the play
    refused = client.post(f"/plays/{play_id}/adjust", data={"seat": "0", "points": "x"},
                          headers={"Referer": f"http://companion.test/plays/{play_id}"})
    assert refused.status_code == 400
    back = re.search(r'name="next" value="([^"]*)"', refused.text).group(1)
    assert back == f"/plays/{play_id}"
    switched = client.post("/language", data={"lang": "de", "next": back})
    assert switched.status_code == 302 and switched.headers["Location"].endswith(f"/plays/{play_id}")
    for target in (f"/plays/{play_id}/adjust", "//elsewhere.example/", "https://elsewhere.example/"):
        assert client.post("/language", data={"lang": "de", "next": target}).headers["Location"] == "/"


@pytest.mark.parametrize("character", ["%0A", "%0D", "%09", "%00"], ids=["line-feed", "return", "tab", "nul"])
def test_the_language_switch_on_a_page_whose_address_holds_a_control_character_leads_home(client, character):
    """An invite link broken in two by a chat opens the page saying it is not valid; its language switch
    sends the page's address, decoded, which no Location header can hold."""
    page = client.get(f"/join/abc{character}def")
    assert page.status_code == 404
    back = html.unescape(re.search(r'name="next" value="([^"]*)"', page.text).group(1))
    switched = client.post("/language", data={"lang": "de", "next": back})
    assert switched.status_code == 302 and switched.headers["Location"] == "/"
    assert "lang=de" in switched.headers["Set-Cookie"]
