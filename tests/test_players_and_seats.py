"""Players who stop coming are retired or deleted; a new play shows the seats the game needs."""

from __future__ import annotations

import html
import re

import pytest

from companion import store
from tests.conftest import add_players, create_group, start_play


@pytest.fixture
def group(client, db) -> tuple[int, dict[str, int]]:
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"), ("Cara", "green"))
    return group_id, {p.name: p.id for p in store.list_players(db, group_id)}


def seat_players(page: str) -> list[str]:
    """The player each seat of the new-play form starts with."""
    selects = re.findall(r'<select[^>]*name="seat_\d-player".*?</select>', page, re.S)
    chosen = r'<option selected value="[^"]*">([^<]*)</option>'
    return [re.search(chosen, select).group(1) for select in selects]


def test_a_retired_player_is_not_offered_for_new_plays_but_stays_in_the_history(client, db, group):
    group_id, ids = group
    start_play(client, group_id, "mayflower", [(ids["Anna"], "red"), (ids["Ben"], "blue")])
    response = client.post(f"/groups/{group_id}/players/{ids['Ben']}/retire", data={"retired": "1"})
    assert response.status_code == 302
    assert [p.name for p in store.list_players(db, group_id, retired=False)] == ["Anna", "Cara"]
    new_play = client.get(f"/groups/{group_id}/plays/new/mayflower").text
    assert ">Ben<" not in new_play and seat_players(new_play) == ["Anna", "Cara"]
    group_page = client.get(f"/groups/{group_id}").text
    assert "Retired players (1)" in group_page
    assert [s.name for s in store.get_play(db, store.list_plays(db, group_id, "active")[0].id).seats] == [
        "Anna", "Ben"]
    # and back
    client.post(f"/groups/{group_id}/players/{ids['Ben']}/retire", data={"retired": "0"})
    assert ">Ben<" in client.get(f"/groups/{group_id}/plays/new/mayflower").text


def test_a_player_without_plays_is_deleted_after_asking(client, db, group):
    group_id, ids = group
    edit = client.get(f"/groups/{group_id}/players/{ids['Cara']}").text
    assert f"/groups/{group_id}/players/{ids['Cara']}/delete" in edit
    ask = client.get(f"/groups/{group_id}/players/{ids['Cara']}/delete")
    assert ask.status_code == 200 and "Delete Cara?" in ask.text
    assert [p.name for p in store.list_players(db, group_id)] == ["Anna", "Ben", "Cara"]
    assert client.post(f"/groups/{group_id}/players/{ids['Cara']}/delete").status_code == 302
    assert [p.name for p in store.list_players(db, group_id)] == ["Anna", "Ben"]


def test_a_player_with_plays_can_only_be_retired(client, db, group):
    group_id, ids = group
    start_play(client, group_id, "mayflower", [(ids["Anna"], "red"), (ids["Ben"], "blue")])
    edit = html.unescape(client.get(f"/groups/{group_id}/players/{ids['Anna']}").text)
    assert "Anna has 1 play in the history, so they can be retired but not deleted." in edit
    assert "/delete" not in edit.split('id="player-more-h"')[1]
    response = client.post(f"/groups/{group_id}/players/{ids['Anna']}/delete", follow_redirects=True)
    assert "Anna has plays in the history: retire them instead." in html.unescape(response.text)
    assert len(store.list_players(db, group_id)) == 3


@pytest.mark.parametrize("path", ["retire", "delete"])
def test_another_groups_player_is_404(app, client, group, path):
    _, ids = group
    other = app.test_client()
    other_group = create_group(other, "Other")
    assert other.post(f"/groups/{other_group}/players/{ids['Anna']}/{path}",
                      data={"retired": "1"}).status_code == 404


def test_a_bad_retire_value_is_refused(client, db, group):
    group_id, ids = group
    client.post(f"/groups/{group_id}/players/{ids['Anna']}/retire", data={"retired": "maybe"})
    assert not store.get_player(db, group_id, ids["Anna"]).retired


def test_the_new_play_form_shows_the_seats_of_the_player_count_chosen(client, group):
    group_id, _ = group
    page = client.get(f"/groups/{group_id}/plays/new/gold-west").text
    assert seat_players(page) == ["Anna", "Ben", "Cara"]  # one seat per player of the group
    assert 'aria-current="true"' in page and "/plays/new/gold-west?players=4" in page
    two = client.get(f"/groups/{group_id}/plays/new/gold-west?players=2").text
    assert seat_players(two) == ["Anna", "Ben"] and 'name="seat_count" type="hidden" value="2"' in two
    # counts outside the game's range are brought into it
    assert len(seat_players(client.get(f"/groups/{group_id}/plays/new/gold-west?players=9").text)) == 4
    assert len(seat_players(client.get(f"/groups/{group_id}/plays/new/gold-west?players=x").text)) == 3


def test_a_seat_takes_its_players_colour_unless_changed(client, db, group):
    group_id, ids = group
    response = client.post(f"/groups/{group_id}/plays/new/mayflower", data={
        "seat_count": "3", "seat_0-player": ids["Cara"], "seat_1-player": ids["Anna"],
        "seat_1-colour": "black", "seat_2-player": ids["Ben"], "seat_2-colour": ""})
    assert response.status_code == 302
    play = store.list_plays(db, group_id, "active")[0]
    assert [(s.name, s.colour) for s in play.seats] == [("Cara", "green"), ("Anna", "black"), ("Ben", "blue")]


def test_an_empty_seat_or_two_seats_of_one_colour_are_refused(client, db, group):
    group_id, ids = group
    empty = client.post(f"/groups/{group_id}/plays/new/mayflower", data={
        "seat_count": "3", "seat_0-player": ids["Anna"], "seat_1-player": ids["Ben"], "seat_2-player": "0"})
    assert empty.status_code == 400 and "Pick a player for every seat." in empty.text
    clash = client.post(f"/groups/{group_id}/plays/new/mayflower", data={
        "seat_count": "2", "seat_0-player": ids["Anna"], "seat_1-player": ids["Ben"], "seat_1-colour": "red"})
    assert clash.status_code == 400 and "Two seats have the same colour." in clash.text
    assert store.list_plays(db, group_id, "active") == []


def test_a_new_play_form_naming_a_player_deleted_since_never_seats_the_player_added_after(client, db, group):
    """A phone drew the new-play form with Cara in seat 2; meanwhile another deleted Cara (no plays) and
    added Dora. Dora gets an id of her own, so the form is refused instead of seating her for Cara."""
    group_id, ids = group
    drawn = {"seat_count": "2", "seat_0-player": ids["Anna"], "seat_0-colour": "red",
             "seat_1-player": ids["Cara"], "seat_1-colour": "green"}
    assert client.post(f"/groups/{group_id}/players/{ids['Cara']}/delete").status_code == 302
    add_players(client, group_id, ("Dora", "green"))
    assert ids["Cara"] not in {p.id for p in store.list_players(db, group_id)}
    refused = client.post(f"/groups/{group_id}/plays/new/gold-west", data=drawn)
    assert refused.status_code == 400 and "Pick a player of the group." in refused.text
    assert store.list_plays(db, group_id, "active") == []


def test_two_phones_editing_one_player_do_not_lose_a_change_without_a_word(app, client, db):
    """Phone 1 changes Anna's colour while phone 2, its page open, renames her: phone 2 is told."""
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"))
    anna = store.list_players(db, group_id)[0].id
    other = app.test_client()
    assert other.post(f"/join/{store.get_group(db, group_id).token}").status_code == 302
    page = other.get(f"/groups/{group_id}/players/{anna}").text
    shown = re.search(r'name="shown" type="hidden" value="([^"]*)"', page).group(1)
    assert client.post(f"/groups/{group_id}/players/{anna}", data={"name": "Anna", "colour": "green",
                                                                  "shown": "red Anna"}).status_code == 302
    refused = other.post(f"/groups/{group_id}/players/{anna}",
                         data={"name": "Anne", "colour": "red", "shown": shown})
    assert refused.status_code == 409
    assert "Another phone changed this player since you opened the page" in html.unescape(refused.text)
    assert 'value="Anne"' in refused.text  # what was typed stays
    assert [(p.name, p.colour) for p in store.list_players(db, group_id)] == [("Anna", "green")]
    shown = re.search(r'name="shown" type="hidden" value="([^"]*)"', refused.text).group(1)
    assert other.post(f"/groups/{group_id}/players/{anna}",
                      data={"name": "Anne", "colour": "green", "shown": shown}).status_code == 302
    assert [(p.name, p.colour) for p in store.list_players(db, group_id)] == [("Anne", "green")]
