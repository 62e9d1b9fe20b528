"""Carcassonne – Mayflower through the pages: placing, completing, the west edge, the strip, the tally."""

from __future__ import annotations

import html
import re

import pytest

from companion import store
from companion.games.common import PlaySetup, Seat
from companion.games.table import fold
from companion.views import plays, tables
from tests.conftest import add_players, create_group, start_play

ANNA, BEN, CARA = 0, 1, 2
PLAYERS = (("Anna", "red"), ("Ben", "blue"), ("Cara", "green"))


@pytest.fixture
def play_id(client, db) -> int:
    """A fresh 3-player Mayflower play: Anna (red), Ben (blue), Cara (green)."""
    return new_play(client, db, PLAYERS)


def new_play(client, db, players) -> int:
    group_id = create_group(client)
    add_players(client, group_id, *players)
    ids = {p.name: p.id for p in store.list_players(db, group_id)}
    return start_play(client, group_id, "mayflower", [(ids[name], colour) for name, colour in players])


def table(db, play_id: int):
    """The play's table as the stored events fold to it."""
    play = store.get_play(db, play_id)
    setup = PlaySetup(play.game, tuple(Seat(s.name, s.colour) for s in play.seats), play.options)
    return fold(setup, ((e.kind, e.payload) for e in store.list_events(db, play_id)))


def text_of(page: str, section_id: str | None = None) -> str:
    """The words of the page (or of one section of it) as read: tags removed, spaces collapsed.

    Inline tags (bold, spans) join their text to what is around them; other tags separate words.
    """
    if section_id is not None:
        found = re.search(rf'<section id="{section_id}".*?</section>', page, re.S)
        assert found, f"no section {section_id}"
        page = found.group(0)
    page = re.sub(r"</?(?:b|span|small|strong|a)\b[^>]*>", "", page)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def place(client, play_id: int, seat: int, role: str, column) -> object:
    return client.post(f"/plays/{play_id}/mayflower/place",
                       data={"place-seat": str(seat), "place-role": role, "place-column": str(column)})


def settler_id(db, play_id: int, seat: int, role: str, column: int) -> str:
    """The id of the settler of ``seat`` with that role in that column, looked up on the map."""
    (found,) = [s.id for s in table(db, play_id).game_state.settlers
                if (s.seat, s.role, s.column) == (seat, role, column)][:1]
    return found


def completion_data(db, play_id: int, features) -> dict:
    """The completion form as a phone sends it: kind, sizes and ticked settlers per feature."""
    data: dict = {"complete-version": str(store.get_play(db, play_id).version)}
    for number, feature in enumerate(features, start=1):
        prefix = f"complete-feature_{number}-"
        for name, value in feature.items():
            if name == "settlers":
                data[prefix + name] = [settler_id(db, play_id, *who) for who in value]
            else:
                data[prefix + name] = str(value)
    return data


def complete(client, db, play_id: int, *features, answers=()):
    data = {**completion_data(db, play_id, features), "complete-west_of": list(answers)}
    return client.post(f"/plays/{play_id}/mayflower/complete", data=data)


def set_west_edge(client, db, play_id: int, column) -> object:
    """A tap on the map end's buttons, from a page drawn at the play as it is."""
    version = str(store.get_play(db, play_id).version)
    return client.post(f"/plays/{play_id}/mayflower/west-edge",
                       data={"west-version": version, "west-column": str(column)})


def play_steps(client, db, play_id: int, steps) -> None:
    """Enter ``steps`` through the pages; each one must be accepted (a redirect back to the play)."""
    for step in steps:
        kind, *args = step
        if kind == "west":
            response = set_west_edge(client, db, play_id, *args)
        elif kind == "place":
            response = place(client, play_id, *args)
        else:  # "walk": the seat scores one-tile roads until the surveyors took that many steps west
            seat, times = args
            for _ in range(times):
                assert place(client, play_id, seat, "bandit", 1).status_code == 302
                response = complete(client, db, play_id, {"kind": "road", "tiles": 1,
                                                          "settlers": [(seat, "bandit", 1)]})
                assert response.status_code == 302, text_of(response.text)
        assert response.status_code == 302, (step, text_of(response.text))


def events(db, play_id: int) -> list[tuple[str, dict]]:
    return [(e.kind, e.payload) for e in store.list_events(db, play_id)]


# --- the play page --------------------------------------------------------------------------------------

def turn_of(page: str) -> str:
    """The name on the checked "whose turn" button."""
    checked = re.search(r'<label class="mf-seat-pick"><input type="radio" form="mf-place-form" '
                        r'name="place-seat" value="\d+" checked>.*?</label>', page, re.S)
    assert checked, "no player's turn is picked"
    return text_of(checked.group(0)).split()[0]


def strip_columns(page: str) -> list[str]:
    """The strip's columns as the page lists them, west to east (their numbers; the coast says so)."""
    strip = re.search(r'<div class="mf-strip".*?<p class="mf-legend', page, re.S).group(0)
    numbers = re.findall(r'<label class="mf-colno[^"]*">.*?</label>|<span class="mf-colno">.*?</span></span>',
                         strip, re.S)
    return [text_of(number) for number in numbers]


def edge_buttons(page: str) -> list[tuple[str, str]]:
    """The west edge's buttons on the table: the column each one records, and its words."""
    return re.findall(r'<button form="mf-edge-form" name="west-column" value="(\d+)">([^<]+)</button>', page)


def test_the_play_page_opens_on_the_turn_the_strip_and_the_actions(client, db, play_id):
    page = client.get(f"/plays/{play_id}")
    assert page.status_code == 200
    words = text_of(page.text)
    assert "Surveyors: north in column 0, south in column 0. The map reaches column 0." in words
    assert words.count("5 settlers left") == 3
    assert "Surveyors in columns 0 and 0. Anna: no settler on the map." in words  # the strip in words
    assert turn_of(page.text) == "Anna"
    # the coast and the one column a first tile can reach; the placement's roles are its buttons
    assert strip_columns(page.text) == ["Column 1", "0 (the coast)"]
    table = text_of(page.text, "mf-table")
    assert "Bandit Sheriff Trapper Farmer" in table and "Score" in table and "Map ends at column 0" in table
    # the generic final tally button leads to the game's own
    assert f'href="/plays/{play_id}/mayflower/final-tally"' in page.text


def test_placing_a_settler_stores_it_draws_it_and_passes_the_turn(client, db, play_id):
    response = place(client, play_id, BEN, "sheriff", 1)
    assert response.status_code == 302
    assert response.headers["Location"].endswith(f"/plays/{play_id}#mf-table")
    assert events(db, play_id) == [("place", {"seat": BEN, "role": "sheriff", "column": 1})]
    page = client.get(f"/plays/{play_id}").text
    marker = re.search(r'<label class="mf-marker mf-tick c-blue"[^>]*><input type="checkbox"[^>]*value="1-1">'
                       r'<span aria-hidden="true">S</span>', page)
    assert marker, "Ben's sheriff is not on the strip"
    words = text_of(page)
    assert "Ben: sheriff in column 1." in words  # the strip in words
    assert "4 settlers left" in words and "The map reaches column 1." in words
    assert strip_columns(page) == ["Column 2", "Column 1", "0 (the coast)"]
    assert "Ben: sheriff placed in column 1" in text_of(page, "log")
    # the map follows the placement; a tap says it ends there, or that tiles reach one column further
    assert edge_buttons(page) == [("1", "Map ends at column 1"), ("2", "Tiles reach column 2")]
    assert turn_of(page) == "Cara"  # the seat after the one that placed
    place(client, play_id, CARA, "bandit", 2)
    assert turn_of(client.get(f"/plays/{play_id}").text) == "Anna"


def test_surveyors_are_arrows_on_the_strip_not_the_sheriffs_letter(client, db, play_id):
    place(client, play_id, ANNA, "sheriff", 1)
    page = client.get(f"/plays/{play_id}").text
    surveyors = re.findall(r'<span class="mf-surveyor" title="([^"]+)">'
                           r'<span aria-hidden="true">([^<]+)</span>', page)
    assert surveyors == [("north surveyor", "▲"), ("south surveyor", "▼")]
    letters = re.findall(r'<label class="mf-marker[^"]*"[^>]*>.*?<span aria-hidden="true">([^<]+)</span>',
                         page, re.S)
    assert letters == ["S"]


def other_players_buttons(page: str) -> list[tuple[str, str]]:
    """The out-of-turn role buttons: each one's value (seat:role) and the words a screen reader says."""
    return [(value, text_of(words)) for value, words in
            re.findall(r'<button form="mf-place-form" name="place-pick" value="([^"]+)" '
                       r'class="mf-other">(.*?)</button>', page, re.S)]


def test_another_players_settler_is_one_form_post_and_the_turn_follows_it(client, db, play_id):
    page = client.get(f"/plays/{play_id}").text
    assert turn_of(page) == "Anna"
    # Anna's roles are the large buttons; Ben and Cara each have a row naming them on every button
    buttons = other_players_buttons(page)
    assert [value for value, _words in buttons] == [f"{seat}:{role}" for seat in (BEN, CARA)
                                                    for role in ("bandit", "sheriff", "trapper", "farmer")]
    assert buttons[7] == ("2:farmer", "Cara · Farmer")

    # the phone still offers Anna; Cara's farmer button says who and what in one tap
    response = client.post(f"/plays/{play_id}/mayflower/place",
                           data={"place-seat": "0", "place-column": "1", "place-pick": "2:farmer"})
    assert response.status_code == 302 and response.headers["Location"].endswith("#mf-table")
    assert events(db, play_id) == [("place", {"seat": CARA, "role": "farmer", "column": 1})]
    page = client.get(f"/plays/{play_id}").text
    assert turn_of(page) == "Anna"  # the seat after Cara's
    assert "Cara: farmer placed in column 1" in text_of(page, "log")


def test_a_player_without_settlers_left_has_no_row_of_buttons(client, db, play_id):
    play_steps(client, db, play_id, [("place", BEN, "trapper", 1)] * 5)
    page = client.get(f"/plays/{play_id}").text
    assert turn_of(page) == "Cara"
    assert {value.split(":")[0] for value, _words in other_players_buttons(page)} == {str(ANNA)}  # not Ben


@pytest.mark.parametrize("pick", ["1", "1:pirate", "one:bandit", ":"])
def test_a_garbled_player_and_role_button_is_refused_and_stores_nothing(client, db, play_id, pick):
    response = client.post(f"/plays/{play_id}/mayflower/place",
                           data={"place-seat": "0", "place-column": "1", "place-pick": pick})
    assert response.status_code == 400
    assert "Pick the player and the role again." in text_of(response.text, "mf-table")
    assert events(db, play_id) == []


@pytest.mark.parametrize(("before", "data", "field", "message"), [
    pytest.param([], {"place-seat": "0", "place-role": "bandit", "place-column": "0"}, "place-column",
                 "column 1 is the first one west of the coast", id="coast-is-not-land"),
    pytest.param([("place", ANNA, "trapper", 1)] * 5, {"place-seat": "0", "place-role": "bandit",
                                                      "place-column": "1"},
                 "place-seat", "Anna has only 5 settlers; 6 cannot be on the map at once.",
                 id="sixth-settler"),
    pytest.param([], {"place-seat": "0", "place-role": "bandit", "place-column": "96"}, "place-column",
                 "beyond the map", id="beyond-the-last-tile"),
    pytest.param([], {"place-seat": "0", "place-role": "bandit", "place-column": ""}, "place-column",
                 "Tap the tile's column on the map first", id="no-column"),
    pytest.param([], {"place-seat": "0", "place-role": "bandit", "place-column": "two"}, "place-column",
                 "Not a valid integer", id="column-not-a-number"),
    pytest.param([], {"place-seat": "0", "place-role": "pirate", "place-column": "1"}, "place-role",
                 "Not a valid choice", id="unknown-role"),
    pytest.param([], {"place-seat": "3", "place-role": "bandit", "place-column": "1"}, "place-seat",
                 "Not a valid choice", id="seat-not-at-the-table"),
    pytest.param([], {"place-seat": "0", "place-pick": "3:bandit", "place-column": "1"}, "place-seat",
                 "Not a valid choice", id="picked-seat-not-at-the-table"),
    pytest.param([], {"place-seat": "0", "place-pick": "1:farmer", "place-column": ""}, "place-column",
                 "Tap the tile's column on the map first", id="picked-without-a-column"),
])
def test_a_refused_placement_says_why_next_to_the_field_and_stores_nothing(client, db, play_id, before, data,
                                                                            field, message):
    play_steps(client, db, play_id, before)
    stored = events(db, play_id)
    response = client.post(f"/plays/{play_id}/mayflower/place", data=data)
    assert response.status_code in (400, 409)
    errors = re.findall(rf'<p class="error" id="{field}-error">([^<]*)</p>', response.text)
    assert errors and message in html.unescape(errors[0])
    assert events(db, play_id) == stored


def test_the_west_edge_is_stored_and_refused_east_of_a_settler(client, db, play_id):
    response = set_west_edge(client, db, play_id, 4)
    assert response.status_code == 302 and response.headers["Location"].endswith("#mf-table")
    assert events(db, play_id) == [("west_edge", {"column": 4})]
    page = client.get(f"/plays/{play_id}").text
    assert "The map reaches column 4." in text_of(page)
    # the table said where the map ends: the strip says so, and offers the next column only
    assert "The map ends at column 4." in text_of(page, "mf-table")
    assert edge_buttons(page) == [("5", "Tiles reach column 5")]
    place(client, play_id, ANNA, "farmer", 4)
    refused = set_west_edge(client, db, play_id, 2)
    assert refused.status_code == 409
    assert "at least as far west as column 4" in text_of(refused.text, "mf-west")
    assert 'id="west-column-error"' in refused.text
    assert len(events(db, play_id)) == 2
    assert set_west_edge(client, db, play_id, "").status_code == 400
    unversioned = client.post(f"/plays/{play_id}/mayflower/west-edge", data={"west-column": "5"})
    assert unversioned.status_code == 400
    assert "Reload the page and try again" in text_of(unversioned.text, "mf-west")
    assert len(events(db, play_id)) == 2


def test_a_tile_without_a_settler_reopens_the_map_end_and_a_settler_gone_home_holds_it_west(client, db,
                                                                                           play_id):
    set_west_edge(client, db, play_id, 4)
    client.post(f"/plays/{play_id}/mayflower/no-settler", data={"place-seat": "0"})
    # the tile may lie west of column 4: the table is offered to say where the map ends again
    page = client.get(f"/plays/{play_id}").text
    assert "The map ends at column 4." not in text_of(page, "mf-table")
    assert edge_buttons(page) == [("4", "Map ends at column 4"), ("5", "Tiles reach column 5")]
    place(client, play_id, BEN, "bandit", 4)
    assert complete(client, db, play_id, {"kind": "road", "tiles": 4,
                                          "settlers": [(BEN, "bandit", 4)]}).status_code == 302
    refused = set_west_edge(client, db, play_id, 2)  # Ben's bandit went home; its tile stays in column 4
    assert refused.status_code == 409
    assert "at least as far west as column 4" in text_of(refused.text, "mf-west")
    assert [kind for kind, _ in events(db, play_id)] == ["west_edge", "no_settler", "place", "complete"]


def test_running_scores_show_laps_past_50(client, db, play_id):
    client.post(f"/plays/{play_id}/adjust", data={"seat": "1", "points": "57"})
    turn = text_of(client.get(f"/plays/{play_id}").text, "mf-table")
    assert "Ben 57 lap 1 + 7 · 5 settlers left" in turn
    assert "Anna 0 5 settlers left" in turn


def test_a_wide_map_has_a_column_for_every_tile_and_the_next_one(client, db, play_id):
    set_west_edge(client, db, play_id, 30)
    page = client.get(f"/plays/{play_id}").text
    assert strip_columns(page) == [*(f"Column {n}" for n in range(31, 0, -1)), "0 (the coast)"]
    assert page.count('class="mf-col mf-beyond"') == 1 and page.count('class="mf-col mf-coast"') == 1
    assert edge_buttons(page) == [("31", "Tiles reach column 31")]


# --- completing features: the worked examples of the rules through the pages ------------------------------

def walk_to_3_2(seat: int) -> list:
    """Five one-tile roads: the surveyors go [1, 0], [1, 1], [2, 1], [2, 2], [3, 2].

    At the table the north surveyor leaves a shared column first, so the examples' [2, 3] is played
    mirrored as [3, 2], the south surveyor then moving where the example moves the north one.
    """
    return [("west", 6), ("walk", seat, 5)]


EXAMPLES = [
    pytest.param(
        [*walk_to_3_2(CARA), ("place", CARA, "trapper", 1), ("place", CARA, "sheriff", 2),
         ("place", ANNA, "bandit", 2), ("place", BEN, "bandit", 3)],
        [{"kind": "road", "tiles": 4, "trading_posts": 1,
          "settlers": [(ANNA, "bandit", 2), (BEN, "bandit", 3)]}],
        (10, 10, 0), (3, 3), [(CARA, "trapper", 1)],
        ["Road — tiles: 4, trading posts: 1 — worth 6", "Anna: 10 points (6 + 4 surveyor bonus)",
         "Ben: 10 points (6 + 4 surveyor bonus)", "Anna · bandit · column 2 — bonus +4",
         "Ben · bandit · column 3 — bonus +4", "The south surveyor moved west to column 3.",
         "Surveyors now in columns 3 and 3.", "Evicted (east of column 3)",
         "Cara (green) · sheriff · column 2"],
        (),
        id="example-1-tie-both-bonus-sheriff-evicted-trapper-stays",
    ),
    pytest.param(
        [("west", 6), ("walk", CARA, 8), ("place", ANNA, "sheriff", 4), ("place", ANNA, "sheriff", 5),
         ("place", BEN, "sheriff", 4)],
        [{"kind": "city", "tiles": 3, "flags": 1,
          "settlers": [(ANNA, "sheriff", 4), (ANNA, "sheriff", 5), (BEN, "sheriff", 4)]}],
        (16, 0, 0), (5, 4), [],
        ["City — tiles: 3, flags: 1 — worth 8", "Anna: 16 points (8 + 8 surveyor bonus)",
         "Anna · sheriff · column 4 — bonus +8", "Anna · sheriff · column 5 — no bonus",
         "Ben · sheriff · column 4 — no bonus", "The north surveyor moved west to column 5.",
         "Nobody was evicted."],
        (),
        id="example-2-majority-double-bonus-loser-nothing",
    ),
    pytest.param(
        [("west", 3), ("walk", CARA, 1), ("place", ANNA, "bandit", 1)],
        [{"kind": "farm", "settlers": []}],
        (0, 0, 0), (1, 0), [(ANNA, "bandit", 1)],
        ["Farm — worth 9", "No settler on it: nothing scored, and no surveyor moved."],
        (),
        id="example-3-farm-without-settler-nothing-happens",
    ),
    pytest.param(
        [("west", 7), ("walk", CARA, 14), ("place", BEN, "bandit", 7), ("place", ANNA, "farmer", 6)],
        [{"kind": "road", "tiles": 2, "settlers": [(BEN, "bandit", 7)]}],
        (0, 10, 0), (7, 7), [],
        ["Ben: 10 points (2 + 8 surveyor bonus)", "No surveyor moved: no tile lies west of column 7.",
         "Anna (red) · farmer · column 6"],
        ["7:no"],  # no tile lies west of column 7
        id="example-4-no-move-at-the-west-edge-farmer-still-evicted",
    ),
    pytest.param(
        [*walk_to_3_2(CARA), ("place", ANNA, "bandit", 3), ("place", BEN, "sheriff", 2)],
        [{"kind": "road", "tiles": 3, "settlers": [(ANNA, "bandit", 3)]},
         {"kind": "city", "tiles": 2, "settlers": [(BEN, "sheriff", 2)]}],
        (7, 0, 0), (3, 3), [],
        ["Anna: 7 points (3 + 4 surveyor bonus)", "Ben (blue) · sheriff · column 2",
         "City — tiles: 2, flags: 0 — worth 4 No settler on it"],
        (),
        id="example-5-road-first-evicts-the-sheriff-city-not-scored",
    ),
    pytest.param(
        [*walk_to_3_2(CARA), ("place", ANNA, "bandit", 3), ("place", BEN, "sheriff", 2)],
        [{"kind": "city", "tiles": 2, "settlers": [(BEN, "sheriff", 2)]},
         {"kind": "road", "tiles": 3, "settlers": [(ANNA, "bandit", 3)]}],
        (11, 8, 0), (4, 3), [],
        ["Ben: 8 points (4 + 4 surveyor bonus)", "Anna: 11 points (3 + 8 surveyor bonus)",
         "The north surveyor moved west to column 4."],
        (),
        id="example-5-city-first-then-the-road-with-both-surveyors",
    ),
]


@pytest.mark.parametrize(("steps", "features", "gained", "surveyors", "left", "report", "answers"), EXAMPLES)
def test_worked_examples_through_the_pages(client, db, play_id, steps, features, gained, surveyors, left,
                                           report, answers):
    play_steps(client, db, play_id, steps)
    before = table(db, play_id).running_scores
    if answers:  # the page asks what the example says of the map; nothing is stored until it is answered
        response = complete(client, db, play_id, *features)
        assert response.status_code == 400 and "Is there a tile west of column 7?" in text_of(response.text)
    response = complete(client, db, play_id, *features, answers=answers)
    assert response.status_code == 302
    assert response.headers["Location"].endswith(f"/plays/{play_id}#mf-table")
    assert events(db, play_id)[-1][0] == "complete"
    after = table(db, play_id)
    assert tuple(b - a for a, b in zip(before, after.running_scores, strict=True)) == gained
    assert after.game_state.surveyors.as_list() == list(surveyors)
    assert [(s.seat, s.role, s.column) for s in after.game_state.settlers] == left
    page = client.get(f"/plays/{play_id}").text
    shown = text_of(page, "mf-report")
    for words in report:
        assert words in shown
    assert text_of(page, "log").startswith("What happened Scored:")


def test_undo_takes_a_scoring_back(client, db, play_id):
    play_steps(client, db, play_id, [("west", 3), ("place", ANNA, "bandit", 1)])
    complete(client, db, play_id, {"kind": "road", "tiles": 2, "settlers": [(ANNA, "bandit", 1)]})
    assert table(db, play_id).running_scores == (2, 0, 0)
    version = store.get_play(db, play_id).version
    assert client.post(f"/plays/{play_id}/undo", data={"version": str(version)}).status_code == 302
    state = table(db, play_id)
    assert state.running_scores == (0, 0, 0)
    assert state.game_state.surveyors.as_list() == [0, 0]
    page = client.get(f"/plays/{play_id}").text
    assert 'id="mf-report"' not in page and "Anna: bandit in column 1." in text_of(page)


@pytest.mark.parametrize(("features", "field", "message"), [
    pytest.param([{"kind": ""}], "complete-feature_1-settlers", "Tap the settlers on the completed feature",
                 id="nothing-ticked"),
    pytest.param([{"kind": "road", "tiles": "", "settlers": [(ANNA, "bandit", 1)]}],
                 "complete-feature_1-tiles", "Enter how many tiles the road has", id="road-without-tiles"),
    pytest.param([{"kind": "road", "tiles": 0, "settlers": [(ANNA, "bandit", 1)]}],
                 "complete-feature_1-tiles", "1 to 95", id="road-of-no-tiles"),
    pytest.param([{"kind": "road", "tiles": 2, "settlers": [(BEN, "sheriff", 2)]}],
                 "complete-feature_1-settlers",
                 "Ben's sheriff in column 2 cannot stand on a road; only a bandit can",
                 id="sheriff-on-a-road"),
    pytest.param([{"kind": "road", "tiles": 2, "settlers": [(ANNA, "bandit", 1)]},
                  {"kind": "road", "tiles": 1, "settlers": [(ANNA, "bandit", 1)]}],
                 "complete-feature_2-settlers", "ticked in feature 1 and feature 2",
                 id="one-settler-on-two-features"),
    pytest.param([{"settlers": [(ANNA, "bandit", 1), (BEN, "sheriff", 2)]}],
                 "complete-feature_1-settlers", "Feature 1 has settlers of different roles",
                 id="settlers-of-two-roles"),
    pytest.param([{"kind": "castle", "tiles": 2}], "complete-feature_1-kind", "Not a valid choice",
                 id="unknown-kind"),
])
def test_a_refused_completion_says_why_and_stores_nothing(client, db, play_id, features, field, message):
    play_steps(client, db, play_id, [("west", 3), ("place", ANNA, "bandit", 1), ("place", BEN, "sheriff", 2)])
    stored = events(db, play_id)
    response = complete(client, db, play_id, *features)
    assert response.status_code in (400, 409)
    errors = " ".join(re.findall(rf'<p class="error"(?: id="{field}-error")?>([^<]*)</p>', response.text))
    assert message in html.unescape(errors)
    assert f'id="{field}-error"' in response.text
    assert events(db, play_id) == stored


def test_a_completion_from_an_outdated_page_is_refused(client, db, play_id):
    play_steps(client, db, play_id, [("west", 3), ("place", ANNA, "bandit", 1)])
    data = completion_data(db, play_id, [{"kind": "road", "tiles": 2, "settlers": [(ANNA, "bandit", 1)]}])
    place(client, play_id, BEN, "bandit", 2)  # another phone, meanwhile
    response = client.post(f"/plays/{play_id}/mayflower/complete", data=data)
    assert response.status_code == 409 and "Another phone changed this play" in text_of(response.text)
    assert [kind for kind, _ in events(db, play_id)] == ["west_edge", "place", "place"]
    # the page now carries the current version: sending again scores it
    version = re.search(r'name="complete-version" type="hidden" value="(\d+)"', response.text).group(1)
    assert client.post(f"/plays/{play_id}/mayflower/complete",
                       data={**data, "complete-version": version}).status_code == 302


def test_a_completion_whose_bandit_is_now_a_trapper_is_refused_as_outdated_with_its_input_kept(client, db,
                                                                                               play_id):
    """Settler ids are reused: the placement undone and entered again as a trapper, the bandit ticked on
    the page drawn before is a trapper now. Score says another phone changed the play."""
    play_steps(client, db, play_id, [("west", 3), ("place", ANNA, "bandit", 1)])
    data = completion_data(db, play_id, [{"tiles": 7, "settlers": [(ANNA, "bandit", 1)]}])
    drawn = data["complete-version"]
    assert client.post(f"/plays/{play_id}/undo", data={"version": drawn}).status_code == 302
    place(client, play_id, ANNA, "trapper", 1)  # another phone, meanwhile
    stored = events(db, play_id)
    response = client.post(f"/plays/{play_id}/mayflower/complete", data=data)
    assert response.status_code == 409 and "Another phone changed this play" in text_of(response.text)
    assert re.search(r'<input [^>]*name="complete-feature_1-tiles"[^>]*value="7"', response.text)
    assert events(db, play_id) == stored


@pytest.mark.parametrize("sent_by", ["score", "preview"])
def test_a_ticked_trapper_is_refused_with_a_reason_and_stores_nothing(client, db, play_id, sent_by):
    """The page offers no trapper to tick: a plain is never completed. One sent all the same is refused."""
    play_steps(client, db, play_id, [("west", 3), ("place", ANNA, "trapper", 1)])
    stored = events(db, play_id)
    data = completion_data(db, play_id, [{"tiles": 2, "settlers": [(ANNA, "trapper", 1)]}])
    response = (client.post(f"/plays/{play_id}/mayflower/complete", data=data) if sent_by == "score"
                else client.get(f"/plays/{play_id}/mayflower/preview", query_string=data))
    assert response.status_code == 400
    assert ("Anna's trapper in column 1 is on a plain, which is scored only at the end of the game: "
            "untick it.") in text_of(response.text)
    assert events(db, play_id) == stored


def test_the_settlers_a_feature_can_hold_are_tapped_on_the_strip_or_ticked_in_a_list(client, db, play_id):
    play_steps(client, db, play_id, [("west", 3), ("place", ANNA, "bandit", 1), ("place", BEN, "sheriff", 2),
                                     ("place", CARA, "trapper", 3)])
    page = client.get(f"/plays/{play_id}").text
    # on the strip: the trapper lies on a plain, which is never completed
    assert page.count(' name="complete-feature_1-settlers"') == 2
    assert 'title="Cara · trapper · column 3"' in page
    # a tile's later features: a short list each (the page script lets the strip serve them too)
    for number in (2, 3):
        listed = re.findall(rf'<label class="mf-pick mf-(\w+)"><input type="checkbox" '
                            rf'form="mf-complete-form" class="mf-\w+" '
                            rf'name="complete-feature_{number}-settlers" value="([^"]+)"', page)
        assert listed == [("bandit", "0-1"), ("sheriff", "1-1")]
    assert "Anna · bandit · column 1" in text_of(page, "mf-table")


def test_the_kind_follows_from_the_settlers_and_the_sizes_start_at_their_least(client, db, play_id):
    play_steps(client, db, play_id, [("west", 3), ("place", ANNA, "bandit", 1), ("place", BEN, "sheriff", 2)])
    page = client.get(f"/plays/{play_id}").text
    presets = dict(re.findall(r'id="complete-feature_1-(\w+)"[^>]*value="(\d+)"', page))
    assert presets == {"tiles": "1", "trading_posts": "0", "flags": "0"}
    # what a phone sends: the ticked settlers and the preset sizes, one of them stepped up
    data = completion_data(db, play_id, [{"tiles": 2, "trading_posts": 0, "flags": 0,
                                          "settlers": [(BEN, "sheriff", 2)]},
                                         {"tiles": 1, "trading_posts": 1, "flags": 0,
                                          "settlers": [(ANNA, "bandit", 1)]}])
    response = client.post(f"/plays/{play_id}/mayflower/complete", data=data)
    assert response.status_code == 302, text_of(response.text)
    assert events(db, play_id)[-1] == ("complete", {"features": [
        {"kind": "city", "tiles": 2, "flags": 0, "settlers": ["1-1"]},
        {"kind": "road", "tiles": 1, "trading_posts": 1, "settlers": ["0-1"]}]})


def test_every_scoring_in_the_log_says_who_scored_what_and_why(client, db, play_id):
    play_steps(client, db, play_id, [("west", 3), ("walk", CARA, 3), ("place", BEN, "sheriff", 1),
                                     ("place", ANNA, "bandit", 2)])
    complete(client, db, play_id, {"kind": "road", "tiles": 3, "trading_posts": 1,
                                   "settlers": [(ANNA, "bandit", 2)]})
    page = client.get(f"/plays/{play_id}").text
    log = text_of(page, "log")
    first = ("Scored: Road — tiles: 1, trading posts: 0 — worth 1: Cara +1. The north surveyor moved west to "
             "column 1.")
    second = ("Scored: Road — tiles: 3, trading posts: 1 — worth 5: Anna +9 (5 + 4 surveyor bonus). "
              "The south surveyor moved west to column 2. Evicted: Ben's sheriff in column 1.")
    assert first in log and second in log and log.index(second) < log.index(first)  # newest first
    # the table itself says what the last scoring did, in the same words
    assert second.removeprefix("Scored: ") in text_of(page, "mf-table")


def test_a_long_log_keeps_the_turn_and_tells_its_scorings_on_the_log_pages(client, db, play_id, monkeypatch):
    # short log pages and few kept tables: each earlier page starts from a table in the middle of the log
    monkeypatch.setattr(tables, "SNAPSHOT_EVERY", 4)
    monkeypatch.setattr(plays, "LOG_PAGE", 5)
    play_steps(client, db, play_id, [("west", 3), ("walk", CARA, 3), ("place", BEN, "sheriff", 1),
                                     ("place", ANNA, "bandit", 2)])
    complete(client, db, play_id, {"kind": "road", "tiles": 3, "trading_posts": 1,
                                   "settlers": [(ANNA, "bandit", 2)]})
    for _ in range(30):  # an evening of corrections: the placements and scorings leave the play page
        assert client.post(f"/plays/{play_id}/adjust", data={"seat": "1", "points": "1"}).status_code == 302
    page = client.get(f"/plays/{play_id}").text
    assert turn_of(page) == "Ben"  # after Anna's bandit, the last settler placed
    assert "Scored:" not in text_of(page, "log") and text_of(page, "log").count("Ben +1") == 20
    earlier = re.findall(r'href="(/plays/\d+/log\?before=\d+)">The 20 entries before</a>', page)
    log_pages = []
    while earlier:
        log_pages.append(client.get(earlier[0]).text)
        earlier = re.findall(r'href="(/plays/\d+/log\?before=\d+)">The \d+ entries before</a>', log_pages[-1])
    assert len(log_pages) == 4
    log = " ".join(text_of(re.search(r'<ol class="log".*?</ol>', p, re.S).group(0)) for p in log_pages)
    assert log.count("Ben +1") == 10 and log.count("Scored:") == 4
    for scored in ("Cara +1. The north surveyor moved west to column 1.",
                   "Cara +5 (1 + 4 surveyor bonus). The south surveyor moved west to column 1.",
                   "Cara +9 (1 + 8 surveyor bonus). The north surveyor moved west to column 2."):
        assert f"Scored: Road — tiles: 1, trading posts: 0 — worth 1: {scored}" in log
    assert ("Scored: Road — tiles: 3, trading posts: 1 — worth 5: Anna +9 (5 + 4 surveyor bonus). "
            "The south surveyor moved west to column 2. Evicted: Ben's sheriff in column 1.") in log


# --- the final tally ----------------------------------------------------------------------------------

EXAMPLE_6 = [("west", 4), ("place", ANNA, "sheriff", 2), ("place", BEN, "farmer", 3),
             ("place", ANNA, "trapper", 1), ("place", ANNA, "trapper", 4), ("place", BEN, "trapper", 1),
             ("place", BEN, "trapper", 2)]


def tally_version(page: str) -> str:
    """The play version the final tally page sends back."""
    return re.search(r'name="version" type="hidden" value="(\d+)"', page).group(1)


def tally_page(client, play_id: int):
    page = client.get(f"/plays/{play_id}/mayflower/final-tally")
    assert page.status_code == 200
    return page, tally_version(page.text)


def tally_tap(client, play_id: int, page: str, settlers=(), more: bool = True, **sizes):
    """One feature of the final tally as the page sends it: the features it carries, the settlers
    tapped, the sizes, and "and another feature" (``more``) or "Show the result"."""
    data = {"version": tally_version(page),
            "kept": [html.unescape(v) for v in re.findall(r'name="kept" value="([^"]*)"', page)],
            "settlers": list(settlers), **{name: str(value) for name, value in sizes.items()}}
    if more:
        data["more"] = "1"
    return client.post(f"/plays/{play_id}/mayflower/final-tally", data=data)


# Example 6 by settler: Anna's sheriff 0-1 (city), Ben's farmer 1-1, the trappers 0-2, 0-3, 1-2, 1-3
EXAMPLE_6_FEATURES = [(["0-1"], {"tiles": 3, "flags": 1}), (["1-1"], {"neighbours": 5}),
                      (["0-2", "0-3", "1-2", "1-3"], {"animals": 3})]


def enter_features(client, play_id: int, features, finish: bool = True):
    """Each feature, then "and another feature" (the last: "Show the result" when ``finish``)."""
    page, _ = tally_page(client, play_id)
    response = None
    for number, (settlers, sizes) in enumerate(features, start=1):
        last = number == len(features)
        response = tally_tap(client, play_id, page.text if response is None else response.text, settlers,
                             more=not (last and finish), **sizes)
        if not last:
            assert response.status_code == 200, text_of(response.text)
    return response


def test_final_tally_example_6(client, db):
    play_id = new_play(client, db, PLAYERS[:2])
    play_steps(client, db, play_id, EXAMPLE_6)
    client.post(f"/plays/{play_id}/adjust", data={"seat": "0", "points": "52"})
    page, _ = tally_page(client, play_id)
    words = text_of(page.text)
    assert "Anna 52 (lap 1 + 2)" in words and "Feature 1: the city with Anna's sheriff in column 2" in words
    assert "<select" not in page.text  # no drop-downs: settlers are tapped
    response = tally_tap(client, play_id, page.text, ["0-1"], tiles=3, flags=1)
    words = text_of(response.text)
    assert "Feature 2: the farm with Ben's farmer in column 3" in words
    assert "city · Tiles 3 · Flags 1: Anna (sheriff, 2)" in words
    assert 'value="0-1"' not in response.text  # a settler entered is no longer offered
    response = tally_tap(client, play_id, response.text, ["1-1"], neighbours=5)
    response = tally_tap(client, play_id, response.text, ["0-2", "0-3", "1-2", "1-3"], more=False, animals=3)
    assert response.status_code == 302 and response.headers["Location"].endswith(f"/plays/{play_id}/result")
    results = {r.name: r for r in store.play_results(db, play_id)}
    assert (results["Anna"].total, results["Anna"].rank) == (59, 1)
    assert dict(results["Anna"].breakdown) == {"track": 52, "roads": 0, "cities": 4, "farms": 0, "plains": 3}
    assert dict(results["Ben"].breakdown) == {"track": 0, "roads": 0, "cities": 0, "farms": 6, "plains": 3}
    final = store.final_payload(db, play_id)
    assert final["track_vp"] == [52, 0]
    assert [(f["letter"], f["kind"], len(f["settlers"])) for f in final["features"]] == [
        ("A", "city", 1), ("B", "farm", 1), ("C", "plain", 4)]
    result_page = client.get(f"/plays/{play_id}/result").text
    assert "Anna wins!" in result_page and "Plains" in result_page


@pytest.mark.parametrize(("features", "field", "message"), [
    pytest.param([(["0-1", "0-2"], {"tiles": 3})], "settlers",
                 "cannot share a feature: a city holds sheriffs", id="sheriff-and-trapper-on-one-feature"),
    # empty, it would be listed as "Tiles 0" yet scored as one tile
    pytest.param([(["0-1"], {"tiles": "", "flags": 0})], "tiles", "Enter how many tiles the city has",
                 id="tiles-emptied"),
    pytest.param([(["1-1"], {"neighbours": 8})], "neighbours", "from 0 to 7", id="eight-neighbours"),
    pytest.param([(["0-1"], {"tiles": 1, "flags": 2})], "flags", "2 is more than 1",
                 id="more-flags-than-tiles"),
    pytest.param([(["0-2"], {"animals": "lots"})], "animals", "Not a valid integer",
                 id="animals-not-a-number"),
    pytest.param([(["9-9"], {})], "settlers", "is not on the map", id="settler-not-on-the-map"),
])
def test_final_tally_refuses_a_wrong_feature_next_to_its_field_and_stores_nothing(client, db, features, field,
                                                                                  message):
    play_id = new_play(client, db, PLAYERS[:2])
    play_steps(client, db, play_id, EXAMPLE_6)
    for more in (True, False):
        response = enter_features(client, play_id, features, finish=not more)
        assert response.status_code == 400
        assert 'class="error"' in response.text and message in text_of(response.text)
        if field != "settlers":
            assert re.search(rf'<p class="error" id="{field}-error">', response.text)
    assert store.get_play(db, play_id).status == "active"
    assert store.final_payload(db, play_id) is None


def test_final_tally_with_a_settler_left_out_is_refused(client, db):
    play_id = new_play(client, db, PLAYERS[:2])
    play_steps(client, db, play_id, EXAMPLE_6)
    response = enter_features(client, play_id, EXAMPLE_6_FEATURES[:2])
    assert response.status_code == 400
    assert "is on no feature yet" in text_of(response.text)
    assert store.final_payload(db, play_id) is None


def test_final_tally_without_settlers_is_the_track(client, db, play_id):
    play_steps(client, db, play_id, [("west", 2), ("place", BEN, "bandit", 1)])
    complete(client, db, play_id, {"kind": "road", "tiles": 2, "settlers": [(BEN, "bandit", 1)]})
    page, version = tally_page(client, play_id)
    assert "No settler is left on the map" in text_of(page.text)
    response = client.post(f"/plays/{play_id}/mayflower/final-tally", data={"version": version})
    assert response.status_code == 302
    winner, *_ = store.play_results(db, play_id)
    assert (winner.name, winner.total, winner.rank) == ("Ben", 2, 1)
    # a finished play's tally page leads to the result
    again = client.get(f"/plays/{play_id}/mayflower/final-tally")
    assert again.status_code == 302 and again.headers["Location"].endswith("/result")


def test_the_log_of_a_finished_play_whose_result_was_corrected_tells_its_scorings(client, db, play_id):
    play_steps(client, db, play_id, [("west", 2), ("place", BEN, "bandit", 1)])
    complete(client, db, play_id, {"kind": "road", "tiles": 2, "settlers": [(BEN, "bandit", 1)]})
    _, version = tally_page(client, play_id)
    tally = client.post(f"/plays/{play_id}/mayflower/final-tally", data={"version": version})
    assert tally.status_code == 302
    corrected = {"version": str(store.get_play(db, play_id).version)}
    for seat, track in enumerate([1, 2, 0]):
        rows = {"track": track, "roads": 0, "cities": 0, "farms": 0, "plains": 0}
        corrected.update({f"seat{seat}-{row}": str(points) for row, points in rows.items()})
    assert client.post(f"/plays/{play_id}/correct", data=corrected).status_code == 302
    assert [kind for kind, _ in events(db, play_id)][-2:] == ["final", "correction"]
    log = client.get(f"/plays/{play_id}/log")
    assert log.status_code == 200
    assert "Scored: Road — tiles: 2, trading posts: 0 — worth 2: Ben +2." in text_of(log.text)


@pytest.mark.parametrize("more", [False, True], ids=["show-the-result", "and-another-feature"])
def test_final_tally_from_an_outdated_page_stores_nothing(client, db, play_id, more):
    """Settler ids are reused: one tapped on an outdated page may name another settler now."""
    play_steps(client, db, play_id, [("west", 2), ("place", BEN, "trapper", 1)])
    page, _ = tally_page(client, play_id)
    place(client, play_id, ANNA, "trapper", 2)
    response = tally_tap(client, play_id, page.text, ["1-1"], more=more, animals=2)
    assert response.status_code == 409 and "Another phone changed this play" in text_of(response.text)
    assert store.get_play(db, play_id).status == "active"
    # the refusal shows the map as it is now: taps from it are taken
    assert tally_version(response.text) == str(store.get_play(db, play_id).version)


def test_a_tally_step_keeps_the_version_its_page_was_drawn_at(client, db, play_id):
    play_steps(client, db, play_id, [("west", 2), ("place", BEN, "trapper", 1)])
    page, drawn = tally_page(client, play_id)
    place(client, play_id, ANNA, "trapper", 2)  # another phone
    response = tally_tap(client, play_id, page.text, ["1-1"], animals="lots")
    assert response.status_code == 400 and tally_version(response.text) == drawn
    response = tally_tap(client, play_id, response.text, ["1-1"], animals=2)
    assert response.status_code == 409 and "Another phone changed this play" in text_of(response.text)


# --- privacy ----------------------------------------------------------------------------------------------

# --- privacy ----------------------------------------------------------------------------------------------

def mayflower_routes(play_id: int) -> list[tuple[str, str]]:
    base = f"/plays/{play_id}/mayflower"
    return [("POST", f"{base}/place"), ("POST", f"{base}/complete"), ("POST", f"{base}/west-edge"),
            ("GET", f"{base}/final-tally"), ("POST", f"{base}/final-tally")]


def test_a_phone_that_did_not_join_gets_404_and_changes_nothing(app, client, db, play_id):
    stranger = app.test_client()
    create_group(stranger, "Elsewhere")
    for method, url in mayflower_routes(play_id):
        response = stranger.open(url, method=method, data={"place-seat": "0", "place-role": "bandit",
                                                           "place-column": "1", "west-column": "3",
                                                           "version": "0"})
        assert response.status_code == 404, (method, url)
        assert "Anna" not in response.text
    assert store.list_events(db, play_id) == [] and store.get_play(db, play_id).status == "active"


def test_the_mayflower_screens_answer_only_for_mayflower_plays(client, db):
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    ids = [p.id for p in store.list_players(db, group_id)]
    other = start_play(client, group_id, "gold-west", [(ids[0], "red"), (ids[1], "blue")])
    for method, url in mayflower_routes(other):
        assert client.open(url, method=method).status_code == 404, (method, url)
    assert client.get(f"/plays/{999999}/mayflower/final-tally").status_code == 404


@pytest.mark.parametrize("kept", ["garbage", '{"settlers": "0-1"}', "[1, 2]", '{"settlers": [1]}'])
def test_final_tally_with_garbled_features_carried_asks_to_reload_and_stores_nothing(client, db, kept):
    play_id = new_play(client, db, PLAYERS[:2])
    play_steps(client, db, play_id, EXAMPLE_6)
    _, version = tally_page(client, play_id)
    response = client.post(f"/plays/{play_id}/mayflower/final-tally",
                           data={"version": version, "kept": [kept], "settlers": ["0-1"], "more": "1"})
    assert response.status_code == 400 and "Reload the page and try again" in text_of(response.text)
    assert store.final_payload(db, play_id) is None
