"""Carcassonne – Mayflower through the pages: nobody guessed, no board fact assumed.

Whose turn (a turn without a settler), a placement from a page another phone's turn outdated, a phone
that says whose it is, the west-edge question of a scoring, and the reference game played without
ever telling the table where the map ends.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from companion import store
from tests.conftest import add_players, create_group, start_play
from tests.test_gold_west_web import new_play as new_gold_west_play
from tests.test_gold_west_web import tap
from tests.test_mayflower_web import edge_buttons, events, set_west_edge, table, text_of, turn_of

ANNA, BEN, CARA = 0, 1, 2
PLAYERS = (("Anna", "red"), ("Ben", "blue"), ("Cara", "green"))
REFERENCE = json.loads((Path(__file__).parent / "reference_games" / "mayflower.json").read_text())


@pytest.fixture
def group_id(client) -> int:
    group_id = create_group(client)
    add_players(client, group_id, *PLAYERS)
    return group_id


@pytest.fixture
def play_id(client, db, group_id) -> int:
    ids = {p.name: p.id for p in store.list_players(db, group_id)}
    return start_play(client, group_id, "mayflower", [(ids[name], colour) for name, colour in PLAYERS])


def version_on(page: str, form: str) -> str:
    """The play version a form of the page carries (``place``, ``complete``, ``west``)."""
    return re.search(rf'id="{form}-version" name="{form}-version" type="hidden" value="(\d+)"', page).group(1)


def place(phone, play_id, seat, role, column, version=None, **extra):
    data = {"place-seat": str(seat), "place-role": role, "place-column": str(column), **extra}
    if version is not None:
        data["place-version"] = version
    return phone.post(f"/plays/{play_id}/mayflower/place", data=data)


def complete(phone, db, play_id, features, answers=()):
    data = {"complete-version": str(store.get_play(db, play_id).version), "complete-west_of": list(answers)}
    for number, feature in enumerate(features, start=1):
        for name, value in feature.items():
            data[f"complete-feature_{number}-{name}"] = value if name == "settlers" else str(value)
    return phone.post(f"/plays/{play_id}/mayflower/complete", data=data)


def second_phone(app, db, group_id):
    phone = app.test_client()
    assert phone.post(f"/join/{store.get_group(db, group_id).token}").status_code == 302
    return phone


def settlers(db, play_id):
    return [(s.seat, s.role, s.column) for s in table(db, play_id).game_state.settlers]


# --- whose turn ------------------------------------------------------------------------------------------

def test_a_turn_without_a_settler_is_one_tap_and_passes_the_turn(client, db, play_id):
    page = client.get(f"/plays/{play_id}").text
    assert turn_of(page) == "Anna" and "No settler" in text_of(page)
    response = client.post(f"/plays/{play_id}/mayflower/no-settler",
                           data={"place-seat": "0", "place-version": version_on(page, "place")})
    assert response.status_code == 302
    assert events(db, play_id) == [("no_settler", {"seat": ANNA})]
    page = client.get(response.headers["Location"]).text
    assert turn_of(page) == "Ben"
    assert "Anna: a tile without a settler" in text_of(page)  # the log says so
    assert table(db, play_id).running_scores == (0, 0, 0)


def tapped(page: str, button_class: str, picked: dict[str, str]) -> tuple[str, dict[str, str]]:
    """Where a browser sends the form of the button of ``button_class`` (its formaction, else the form's
    action) and what it sends: the form's inputs, the inputs naming it with form= (radios as checked on the
    page, or as ``picked``) and the button's own name and value."""
    button = re.search(rf'<button form="([\w-]+)"([^>]*) class="{button_class}">', page)
    form_id, attributes = button.groups()
    form = re.search(rf'<form id="{form_id}"[^>]* action="([^"]+)"[^>]*>(.*?)</form>', page, re.S)
    action = (re.search(r'formaction="([^"]+)"', attributes) or form).group(1)
    data = {}
    naming_it = re.findall(rf'<input[^>]*form="{form_id}"[^>]*>', page)
    for tag in re.findall(r"<input[^>]*>", form.group(2)) + naming_it:
        name, value = (re.search(rf'{attribute}="([^"]*)"', tag).group(1) for attribute in ("name", "value"))
        if 'type="radio"' not in tag or picked.get(name, value if " checked" in tag else None) == value:
            data[name] = value
    own = re.search(r'name="([^"]+)" value="([^"]*)"', attributes)
    if own:
        data[own.group(1)] = own.group(2)
    return action, data


@pytest.mark.parametrize(("picked", "stored", "turn_after"), [
    pytest.param({}, ANNA, "Ben", id="the-turn-shown-in-one-tap"),
    pytest.param({"place-seat": str(BEN)}, BEN, "Cara", id="another-player-picked-first"),
])
def test_no_settler_is_for_the_player_picked_under_whose_turn(client, db, play_id, picked, stored,
                                                               turn_after):
    action, data = tapped(client.get(f"/plays/{play_id}").text, "mf-none", picked)
    assert client.post(action, data=data).status_code == 302
    assert events(db, play_id) == [("no_settler", {"seat": stored})]
    assert turn_of(client.get(f"/plays/{play_id}").text) == turn_after


def test_the_two_phone_race_on_trapper_asks_instead_of_giving_cara_a_second_trapper(app, client, db, group_id,
                                                                                      play_id):
    anna = second_phone(app, db, group_id)
    assert place(client, play_id, ANNA, "bandit", 1).status_code == 302
    assert place(client, play_id, BEN, "bandit", 1).status_code == 302
    stale = anna.get(f"/plays/{play_id}").text  # Anna's phone shows Cara's turn ...
    assert turn_of(stale) == "Cara"
    drawn = version_on(stale, "place")
    assert place(client, play_id, CARA, "trapper", 1, drawn).status_code == 302  # ... Cara places
    before = events(db, play_id)
    response = place(anna, play_id, CARA, "trapper", 1, drawn)  # Anna taps "Trapper", not refreshed
    assert response.status_code == 409
    assert events(db, play_id) == before  # not stored as Cara's second trapper
    asked = text_of(response.text)
    assert "Cara just placed. Place this trapper for Anna?" in asked
    yes = re.search(r'<button form="mf-place-form" name="place-pick" value="(\d:\w+)" class="primary">',
                    response.text).group(1)
    assert yes == "0:trapper"
    # the answer is one tap: the page's place form with that button
    now = version_on(response.text, "place")
    response = place(anna, play_id, CARA, "trapper", 1, now, **{"place-pick": yes})
    assert response.status_code == 302
    assert settlers(db, play_id)[-2:] == [(CARA, "trapper", 1), (ANNA, "trapper", 1)]


def test_a_stale_page_whose_turn_came_round_again_asks_before_a_second_trapper(app, client, db, group_id):
    """Two players: Anna's phone shows her turn; the shared phone enters her trapper, then Ben's bandit. Her
    phone's trapper, not refreshed, is the same race, though the turn is hers again."""
    ids = [p.id for p in store.list_players(db, group_id)]
    play_id = start_play(client, group_id, "mayflower", [(ids[0], "red"), (ids[1], "blue")])
    anna = second_phone(app, db, group_id)
    drawn = version_on(anna.get(f"/plays/{play_id}").text, "place")
    assert place(client, play_id, ANNA, "trapper", 1).status_code == 302
    assert place(client, play_id, BEN, "bandit", 1).status_code == 302
    response = place(anna, play_id, ANNA, "trapper", 1, drawn)
    assert response.status_code == 409
    assert settlers(db, play_id) == [(ANNA, "trapper", 1), (BEN, "bandit", 1)]
    assert "Anna just placed. Place this trapper for Anna?" in text_of(response.text)
    yes = re.search(r'<button form="mf-place-form" name="place-pick" value="(\d:\w+)" class="primary">',
                    response.text).group(1)
    assert yes == "0:trapper" and "No, for" not in text_of(response.text)  # hers either way


def test_this_phones_own_entries_sent_in_order_follow_the_turn(client, db, play_id):
    """Entries a phone kept offline were all drawn at one version, the page showing Anna's turn: sent
    in order, each is the next player's, not a second settler of Anna's."""
    drawn = version_on(client.get(f"/plays/{play_id}").text, "place")
    for number, role in enumerate(("bandit", "sheriff", "trapper", "farmer")):
        response = place(client, play_id, ANNA, role, 1, drawn, request_id=f"kept-offline-{number}-0000")
        assert response.status_code in (302, 303)
    assert settlers(db, play_id) == [(ANNA, "bandit", 1), (BEN, "sheriff", 1), (CARA, "trapper", 1),
                                     (ANNA, "farmer", 1)]


def test_a_queued_entry_for_a_player_tapped_on_the_page_stays_theirs(client, db, play_id):
    """Offline, the table tapped Cara's name for the second entry (Ben passed without a tile entered):
    stored for Cara; the third, left on the turn shown, is the turn after hers."""
    page = client.get(f"/plays/{play_id}").text
    drawn = version_on(page, "place")
    for number, seat in enumerate((ANNA, CARA, ANNA)):
        place(client, play_id, seat, "bandit", 1, drawn, request_id=f"kept-offline-{number}-0001")
    client.post(f"/plays/{play_id}/mayflower/no-settler",
                data={"place-seat": "0", "place-version": version_on(page, "place"),
                      "request_id": "kept-offline-3-0001"})
    assert settlers(db, play_id) == [(ANNA, "bandit", 1), (CARA, "bandit", 1), (ANNA, "bandit", 1)]
    assert events(db, play_id)[-1] == ("no_settler", {"seat": BEN})


@pytest.mark.parametrize(("data", "stored"), [
    pytest.param({"place-pick": "2:farmer"}, (CARA, "farmer", 1), id="a-players-own-button"),
    pytest.param({}, (BEN, "farmer", 1), id="the-turn-did-not-move"),
])
def test_a_stale_page_stores_what_no_turn_outdated(client, db, play_id, data, stored):
    assert place(client, play_id, ANNA, "bandit", 1).status_code == 302
    drawn = version_on(client.get(f"/plays/{play_id}").text, "place")
    client.post(f"/plays/{play_id}/adjust", data={"seat": "0", "points": "3"})  # no turn, a newer version
    assert place(client, play_id, BEN, "farmer", 1, drawn, **data).status_code == 302
    assert settlers(db, play_id)[-1] == stored


@pytest.mark.parametrize("pick", ["²:bandit", "٣:bandit", "7:bandit", "99999999999999999999:bandit", "1:king",
                                  "1", ":bandit"])
def test_a_broken_player_button_is_refused_and_stores_nothing(client, db, play_id, pick):
    response = place(client, play_id, ANNA, "bandit", 1, **{"place-pick": pick})
    assert response.status_code == 400
    assert events(db, play_id) == []


def test_a_stale_no_settler_is_asked_about_too(app, client, db, group_id, play_id):
    drawn = version_on(client.get(f"/plays/{play_id}").text, "place")
    assert place(client, play_id, ANNA, "bandit", 1).status_code == 302
    response = client.post(f"/plays/{play_id}/mayflower/no-settler",
                           data={"place-seat": "0", "place-version": drawn})
    assert response.status_code == 409
    assert "Anna just placed. No settler for Ben?" in text_of(response.text)
    assert [kind for kind, _ in events(db, play_id)] == ["place"]
    action, data = tapped(response.text, "primary", {})  # "Yes, for Ben"
    assert client.post(action, data=data).status_code == 302
    assert events(db, play_id)[-1] == ("no_settler", {"seat": BEN})


# --- whose phone -----------------------------------------------------------------------------------------

def test_a_phone_that_says_whose_it_is_places_that_players_settlers(app, client, db, group_id, play_id):
    cara = second_phone(app, db, group_id)
    page = cara.get(f"/plays/{play_id}").text
    assert "This is" not in text_of(page, "phone-player")  # off by default: a shared phone
    assert cara.post(f"/plays/{play_id}/phone-player", data={"phone-player": "2"}).status_code == 302
    page = cara.get(f"/plays/{play_id}").text
    assert "This is Cara's phone." in text_of(page, "phone-player")
    assert turn_of(page) == "Cara"  # her buttons are hers, though it is Anna's turn
    assert turn_of(client.get(f"/plays/{play_id}").text) == "Anna"  # the shared phone follows the turn
    drawn = version_on(page, "place")
    assert place(client, play_id, ANNA, "bandit", 1).status_code == 302
    # Cara's page is outdated, but the button is hers: stored for her without a question
    assert place(cara, play_id, CARA, "trapper", 1, drawn).status_code == 302
    assert settlers(db, play_id) == [(ANNA, "bandit", 1), (CARA, "trapper", 1)]
    # changeable: back to a phone the table shares
    assert cara.post(f"/plays/{play_id}/phone-player", data={"phone-player": ""}).status_code == 302
    assert turn_of(cara.get(f"/plays/{play_id}").text) == "Anna"  # the seat after the last turn, Cara's


def test_a_players_phone_asks_before_entering_a_turn_another_phone_entered(app, client, db, group_id,
                                                                           play_id):
    """The shared phone entered Anna's farmer while Anna, on her own phone, tapped it too: asked, once."""
    anna = second_phone(app, db, group_id)
    assert anna.post(f"/plays/{play_id}/phone-player", data={"phone-player": "0"}).status_code == 302
    drawn = version_on(anna.get(f"/plays/{play_id}").text, "place")
    assert place(client, play_id, ANNA, "farmer", 1).status_code == 302  # the shared phone
    response = place(anna, play_id, ANNA, "farmer", 1, drawn)
    assert response.status_code == 409
    assert "Anna just placed. Place this farmer for Anna?" in text_of(response.text)
    assert settlers(db, play_id) == [(ANNA, "farmer", 1)]
    yes = re.search(r'<button form="mf-place-form" name="place-pick" value="(\d:\w+)" class="primary">',
                    response.text).group(1)
    assert yes == "0:farmer"
    assert place(anna, play_id, ANNA, "farmer", 1, version_on(response.text, "place"),
                 **{"place-pick": yes}).status_code == 302  # a second farmer of hers, as confirmed
    assert settlers(db, play_id) == [(ANNA, "farmer", 1), (ANNA, "farmer", 1)]


@pytest.mark.parametrize("player", ["3", "-1", "Anna"])
def test_a_phone_cannot_be_given_a_player_not_at_the_table(client, db, play_id, player):
    response = client.post(f"/plays/{play_id}/phone-player", data={"phone-player": player})
    assert response.status_code == 400 and "Reload the page and try again" in text_of(response.text)
    assert "This is" not in text_of(client.get(f"/plays/{play_id}").text, "phone-player")


# --- the west edge ---------------------------------------------------------------------------------------

ROAD_OF = {"kind": "road", "tiles": "1"}


def walk_to_shared_column_1(client, db, play_id):
    """Anna scores two roads in column 1: the surveyors walk [0, 0] → [1, 0] → [1, 1]."""
    for settler in ("0-1", "0-2"):
        assert place(client, play_id, ANNA, "bandit", 1, **{"place-pick": "0:bandit"}).status_code == 302
        assert complete(client, db, play_id, [{**ROAD_OF, "settlers": [settler]}]).status_code == 302
    assert table(db, play_id).game_state.surveyors.as_list() == [1, 1]


@pytest.mark.parametrize(("answer", "surveyors"), [("yes", [2, 1]), ("no", [1, 1])])
def test_a_scoring_asks_whether_a_tile_lies_west_and_stores_nothing_without_the_answer(client, db, play_id,
                                                                                         answer, surveyors):
    walk_to_shared_column_1(client, db, play_id)
    assert place(client, play_id, BEN, "bandit", 1, **{"place-pick": "1:bandit"}).status_code == 302
    before = events(db, play_id)
    response = complete(client, db, play_id, [{**ROAD_OF, "settlers": ["1-1"]}])
    assert response.status_code == 400
    assert events(db, play_id) == before
    assert "Is there a tile west of column 1?" in text_of(response.text)
    assert 'name="complete-west_of" value="1:yes"' in response.text
    assert 'name="complete-west_of" value="1:no"' in response.text
    response = complete(client, db, play_id, [{**ROAD_OF, "settlers": ["1-1"]}], [f"1:{answer}"])
    assert response.status_code == 302
    assert events(db, play_id)[-1][1]["west_of"] == [{"column": 1, "tile": answer == "yes"}]
    assert table(db, play_id).game_state.surveyors.as_list() == surveyors


def test_a_map_end_said_in_an_earlier_turn_is_asked_again_when_scoring_before_the_tile(client, db, play_id):
    walk_to_shared_column_1(client, db, play_id)
    assert set_west_edge(client, db, play_id, 1).status_code == 302
    assert "The map ends at column 1." in text_of(client.get(f"/plays/{play_id}").text)
    assert place(client, play_id, BEN, "bandit", 1, **{"place-pick": "1:bandit"}).status_code == 302
    # Cara's tile in column 2, without a settler, completes Ben's road; the table scores before "No settler"
    response = complete(client, db, play_id, [{**ROAD_OF, "settlers": ["1-1"]}])
    assert response.status_code == 400 and "Is there a tile west of column 1?" in text_of(response.text)
    response = complete(client, db, play_id, [{**ROAD_OF, "settlers": ["1-1"]}], ["1:yes"])
    assert response.status_code == 302
    state = table(db, play_id).game_state
    assert state.surveyors.as_list() == [2, 1] and state.west_edge == 2 and not state.map_ends
    response = client.post(f"/plays/{play_id}/mayflower/no-settler", data={"place-seat": str(CARA)})
    assert response.status_code == 302
    assert turn_of(client.get(f"/plays/{play_id}").text) == "Anna"


@pytest.mark.parametrize("answer", ["1:maybe", "x:yes", "123:no"])
def test_a_garbled_answer_is_refused_and_stores_nothing(client, db, play_id, answer):
    walk_to_shared_column_1(client, db, play_id)
    place(client, play_id, BEN, "bandit", 1, **{"place-pick": "1:bandit"})
    before = events(db, play_id)
    response = complete(client, db, play_id, [{**ROAD_OF, "settlers": ["1-1"]}], [answer])
    assert response.status_code == 400 and "Answer the question about the map again" in text_of(response.text)
    assert events(db, play_id) == before


def test_a_stale_map_end_is_refused_with_409_and_keeps_the_tiles_another_phone_entered(app, client, db,
                                                                                       group_id, play_id):
    assert place(client, play_id, ANNA, "trapper", 1).status_code == 302
    phone = second_phone(app, db, group_id)
    stale = phone.get(f"/plays/{play_id}").text
    assert edge_buttons(stale) == [("1", "Map ends at column 1"), ("2", "Tiles reach column 2")]
    assert set_west_edge(client, db, play_id, 2).status_code == 302  # the shared phone
    # the stale page's tap: its button and the version it was drawn at, no more taps than before
    response = phone.post(f"/plays/{play_id}/mayflower/west-edge",
                          data={"west-version": version_on(stale, "west"), "west-column": "1"})
    assert response.status_code == 409
    assert "Another phone changed this play" in text_of(response.text, "mf-west")
    assert table(db, play_id).game_state.west_edge == 2
    # the page refusing it shows the map as it is now, and taps from it are taken
    assert version_on(response.text, "west") == str(store.get_play(db, play_id).version)


def test_a_placement_far_west_of_the_known_map_is_accepted_and_extends_it(client, db, play_id):
    assert place(client, play_id, ANNA, "farmer", 3, **{"place-pick": "0:farmer"}).status_code == 302
    assert table(db, play_id).game_state.west_edge == 3


def test_the_reference_game_without_edge_taps_reaches_every_score_answering_when_asked(client, db, play_id):
    asked = 0
    for step in REFERENCE["steps"]:
        if step["action"] == "place":
            response = place(client, play_id, step["seat"], step["role"], step["column"],
                             **{"place-pick": f"{step['seat']}:{step['role']}"})
            assert response.status_code == 302, text_of(response.text)
        elif step["action"] == "complete":
            features = [{k: v for k, v in f.items()} for f in step["features"]]
            answers: list[str] = []
            while (response := complete(client, db, play_id, features, answers)).status_code == 400:
                question = re.search(r"Is there a tile west of column (\d+)\?", text_of(response.text))
                column = int(question.group(1))
                answers.append(f"{column}:{'yes' if step['west_edge'] > column else 'no'}")
                asked += 1
            assert response.status_code == 302, text_of(response.text)
            assert list(table(db, play_id).running_scores) == step["expect"]["scores_after"], step
            assert table(db, play_id).game_state.surveyors.as_list() == step["expect"]["surveyors"]
        # "west_edge" steps are the taps this table never makes
    assert asked == 1  # at step 18: what the reference table told with a tap beforehand (step 17)
    final = REFERENCE["steps"][-1]
    track = [final["track_vp"][name] for name in REFERENCE["players"]]
    assert list(table(db, play_id).running_scores) == track


def test_a_gold_west_phone_that_says_whose_it_is_shows_and_enters_that_players_ledger(client, db):
    play_id = new_gold_west_play(client, db, "Anna", "Ben")
    assert "It is Anna" not in client.get(f"/plays/{play_id}").text
    assert client.post(f"/plays/{play_id}/phone-player", data={"phone-player": "1"}).status_code == 302
    page = client.get(f"/plays/{play_id}").text
    assert "This is Ben's phone." in text_of(page, "phone-player")
    first = re.search(r'<section class="card gw-seat gw-next" id="gw-seat-(\d)"', page).group(1)
    assert first == "1"  # Ben's taps first, though it is Anna's turn
    before = len(events(db, play_id))
    response = tap(client, play_id, "investment", again=False, seat="1", vp="9")
    assert response.status_code == 302  # his own tap: no "It is Anna's turn. Ben again?"
    assert events(db, play_id)[before:] == [("investment", {"seat": 1, "vp": 9})]
