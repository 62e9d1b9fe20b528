"""Carcassonne – Mayflower through the pages: placing, completing, the west edge, the strip, the tally."""

from __future__ import annotations

import html
import re

import pytest

from companion import store
from companion.games.common import PlaySetup, Seat
from companion.games.table import fold
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
    """The visible words of the page (or of one section of it), tags removed, spaces collapsed."""
    if section_id is not None:
        found = re.search(rf'<section id="{section_id}".*?</section>', page, re.S)
        assert found, f"no section {section_id}"
        page = found.group(0)
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


def complete(client, db, play_id: int, *features):
    return client.post(f"/plays/{play_id}/mayflower/complete", data=completion_data(db, play_id, features))


def set_west_edge(client, play_id: int, column) -> object:
    return client.post(f"/plays/{play_id}/mayflower/west-edge", data={"west-column": str(column)})


def play_steps(client, db, play_id: int, steps) -> None:
    """Enter ``steps`` through the pages; each one must be accepted (a redirect back to the play)."""
    for step in steps:
        kind, *args = step
        if kind == "west":
            response = set_west_edge(client, play_id, *args)
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

def test_the_play_page_shows_settlers_surveyors_and_the_strip(client, db, play_id):
    page = client.get(f"/plays/{play_id}")
    assert page.status_code == 200
    words = text_of(page.text)
    assert "Surveyors: north in column 0, south in column 0. The map reaches column 0." in words
    assert words.count("5 settlers in the supply") == 3
    assert 'role="img" aria-labelledby="mf-strip-title"' in page.text
    assert "Surveyors in columns 0 and 0. Anna: no settler on the map." in words
    # the generic final tally button leads to the game's own
    assert f'href="/plays/{play_id}/mayflower/final-tally"' in page.text


def test_placing_a_settler_stores_it_and_draws_it(client, db, play_id):
    response = place(client, play_id, BEN, "sheriff", 1)
    assert response.status_code == 302
    assert response.headers["Location"].endswith(f"/plays/{play_id}#mf-map")
    assert events(db, play_id) == [("place", {"seat": BEN, "role": "sheriff", "column": 1})]
    page = client.get(f"/plays/{play_id}").text
    assert re.search(r'<circle class="c-blue" cx="\d+" cy="\d+" r="\d+"/>\s*<text[^>]*>S</text>', page)
    words = text_of(page)
    assert "Ben: sheriff in column 1." in words  # the strip's title
    assert "4 settlers in the supply" in words and "The map reaches column 1." in words
    assert "Ben: sheriff placed in column 1" in text_of(page, "log")


@pytest.mark.parametrize(("before", "data", "field", "message"), [
    pytest.param([], {"place-seat": "0", "place-role": "bandit", "place-column": "0"}, "place-column",
                 "column 1 is the first one west of the coast", id="coast-is-not-land"),
    pytest.param([("place", ANNA, "trapper", 1)] * 5, {"place-seat": "0", "place-role": "bandit",
                                                      "place-column": "1"},
                 "place-seat", "All 5 settlers of this player are on the map", id="sixth-settler"),
    pytest.param([], {"place-seat": "0", "place-role": "bandit", "place-column": "3"}, "place-column",
                 "beyond the map", id="beyond-the-west-edge"),
    pytest.param([], {"place-seat": "0", "place-role": "bandit", "place-column": ""}, "place-column",
                 "Enter the tile", id="no-column"),
    pytest.param([], {"place-seat": "0", "place-role": "bandit", "place-column": "two"}, "place-column",
                 "Not a valid integer", id="column-not-a-number"),
    pytest.param([], {"place-seat": "0", "place-role": "pirate", "place-column": "1"}, "place-role",
                 "Not a valid choice", id="unknown-role"),
    pytest.param([], {"place-seat": "3", "place-role": "bandit", "place-column": "1"}, "place-seat",
                 "Not a valid choice", id="seat-not-at-the-table"),
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
    response = set_west_edge(client, play_id, 4)
    assert response.status_code == 302 and response.headers["Location"].endswith("#mf-map")
    assert events(db, play_id) == [("west_edge", {"column": 4})]
    assert "The map reaches column 4." in text_of(client.get(f"/plays/{play_id}").text)
    place(client, play_id, ANNA, "farmer", 4)
    refused = set_west_edge(client, play_id, 2)
    assert refused.status_code == 409
    assert "at least as far west as column 4" in text_of(refused.text, "mf-west")
    assert 'id="west-column-error"' in refused.text
    assert len(events(db, play_id)) == 2
    assert set_west_edge(client, play_id, "").status_code == 400
    assert len(events(db, play_id)) == 2


def test_running_scores_show_laps_past_50(client, db, play_id):
    client.post(f"/plays/{play_id}/adjust", data={"seat": "1", "points": "57"})
    seat_card = text_of(client.get(f"/plays/{play_id}").text, "mf-settlers")
    assert "Ben 57 (lap 1 + 7)" in seat_card
    assert "Anna 0" in seat_card


def test_a_wide_map_keeps_readable_columns_and_scrolls(client, db, play_id):
    set_west_edge(client, play_id, 30)
    page = client.get(f"/plays/{play_id}").text
    width = int(re.search(r'role="img" aria-labelledby="mf-strip-title"\s+width="(\d+)"', page).group(1))
    assert width > 390
    assert '<div class="mf-strip" role="group" tabindex="0"' in page
    assert page.count('class="mf-land"') == 30 and page.count('class="mf-coast"') == 1


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
        id="example-2-majority-double-bonus-loser-nothing",
    ),
    pytest.param(
        [("west", 3), ("walk", CARA, 1), ("place", ANNA, "bandit", 1)],
        [{"kind": "farm", "settlers": []}],
        (0, 0, 0), (1, 0), [(ANNA, "bandit", 1)],
        ["Farm — worth 9", "No settler on it: nothing scored, and no surveyor moved."],
        id="example-3-farm-without-settler-nothing-happens",
    ),
    pytest.param(
        [("west", 7), ("walk", CARA, 14), ("place", BEN, "bandit", 7), ("place", ANNA, "farmer", 6)],
        [{"kind": "road", "tiles": 2, "settlers": [(BEN, "bandit", 7)]}],
        (0, 10, 0), (7, 7), [],
        ["Ben: 10 points (2 + 8 surveyor bonus)", "No surveyor moved: no tile lies west of column 7.",
         "Anna (red) · farmer · column 6"],
        id="example-4-no-move-at-the-west-edge-farmer-still-evicted",
    ),
    pytest.param(
        [*walk_to_3_2(CARA), ("place", ANNA, "bandit", 3), ("place", BEN, "sheriff", 2)],
        [{"kind": "road", "tiles": 3, "settlers": [(ANNA, "bandit", 3)]},
         {"kind": "city", "tiles": 2, "settlers": [(BEN, "sheriff", 2)]}],
        (7, 0, 0), (3, 3), [],
        ["Anna: 7 points (3 + 4 surveyor bonus)", "Ben (blue) · sheriff · column 2",
         "City — tiles: 2, flags: 0 — worth 4 No settler on it"],
        id="example-5-road-first-evicts-the-sheriff-city-not-scored",
    ),
    pytest.param(
        [*walk_to_3_2(CARA), ("place", ANNA, "bandit", 3), ("place", BEN, "sheriff", 2)],
        [{"kind": "city", "tiles": 2, "settlers": [(BEN, "sheriff", 2)]},
         {"kind": "road", "tiles": 3, "settlers": [(ANNA, "bandit", 3)]}],
        (11, 8, 0), (4, 3), [],
        ["Ben: 8 points (4 + 4 surveyor bonus)", "Anna: 11 points (3 + 8 surveyor bonus)",
         "The north surveyor moved west to column 4."],
        id="example-5-city-first-then-the-road-with-both-surveyors",
    ),
]


@pytest.mark.parametrize(("steps", "features", "gained", "surveyors", "left", "report"), EXAMPLES)
def test_worked_examples_through_the_pages(client, db, play_id, steps, features, gained, surveyors, left,
                                           report):
    play_steps(client, db, play_id, steps)
    before = table(db, play_id).running_scores
    response = complete(client, db, play_id, *features)
    assert response.status_code == 302
    assert response.headers["Location"].endswith(f"/plays/{play_id}#mf-report")
    assert events(db, play_id)[-1][0] == "complete"
    after = table(db, play_id)
    assert tuple(b - a for a, b in zip(before, after.running_scores, strict=True)) == gained
    assert after.game_state.surveyors.as_list() == list(surveyors)
    assert [(s.seat, s.role, s.column) for s in after.game_state.settlers] == left
    page = client.get(f"/plays/{play_id}").text
    shown = text_of(page, "mf-report")
    for words in report:
        assert words in shown
    kinds = ", ".join(feature["kind"] for feature in features)
    assert text_of(page, "log").startswith(f"What happened Scored: {kinds}")


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
    pytest.param([{"kind": ""}], "complete-feature_1-kind", "Pick the kind of feature the tile completed",
                 id="no-kind"),
    pytest.param([{"kind": "road", "settlers": [(ANNA, "bandit", 1)]}], "complete-feature_1-tiles",
                 "Enter how many tiles the road has", id="road-without-tiles"),
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
    pytest.param([{"kind": "road", "tiles": 2}, {"kind": "", "settlers": [(ANNA, "bandit", 1)]}],
                 "complete-feature_2-settlers", "Pick the kind of feature 2, or untick",
                 id="settlers-without-kind"),
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
    assert f'id="{field}"' in response.text
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


def test_the_completion_form_lists_the_settlers_a_feature_can_hold(client, db, play_id):
    play_steps(client, db, play_id, [("west", 3), ("place", ANNA, "bandit", 1), ("place", BEN, "sheriff", 2),
                                     ("place", CARA, "trapper", 3)])
    page = client.get(f"/plays/{play_id}").text
    form = re.search(r'<section id="mf-complete".*?</section>', page, re.S).group(0)
    # the trapper lies on a plain, which is never completed
    assert form.count('name="complete-feature_1-settlers"') == 2
    words = text_of(form)
    assert "Anna · bandit · column 1" in words and "Ben · sheriff · column 2" in words
    assert 'class="check mf-pick mf-bandit"' in form and 'class="swatch c-red"' in form


# --- the final tally ----------------------------------------------------------------------------------

EXAMPLE_6 = [("west", 4), ("place", ANNA, "sheriff", 2), ("place", BEN, "farmer", 3),
             ("place", ANNA, "trapper", 1), ("place", ANNA, "trapper", 4), ("place", BEN, "trapper", 1),
             ("place", BEN, "trapper", 2)]


def tally_page(client, play_id: int):
    page = client.get(f"/plays/{play_id}/mayflower/final-tally")
    assert page.status_code == 200
    version = re.search(r'name="version" type="hidden" value="(\d+)"', page.text).group(1)
    return page, version


def test_final_tally_example_6(client, db):
    play_id = new_play(client, db, PLAYERS[:2])
    play_steps(client, db, play_id, EXAMPLE_6)
    client.post(f"/plays/{play_id}/adjust", data={"seat": "0", "points": "52"})
    page, version = tally_page(client, play_id)
    words = text_of(page.text)
    assert "Anna 52 (lap 1 + 2)" in words
    assert "Anna · sheriff · column 2 — feature" in words and "Feature A: city" in words
    assert "Feature C: plain" in words and "Feature F: plain" in words
    # the letters: A city, B farm, C–F the four trappers (west to east); the trappers share plain C
    data = {"version": version, "settler_0": "A", "settler_1": "B", "settler_2": "C", "settler_3": "C",
            "settler_4": "C", "settler_5": "C", "size_A_tiles": "3", "size_A_flags": "1",
            "size_B_neighbours": "5", "size_C_animals": "3", "size_D_animals": "", "size_E_animals": "",
            "size_F_animals": ""}
    response = client.post(f"/plays/{play_id}/mayflower/final-tally", data=data)
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


@pytest.mark.parametrize(("change", "field", "message"), [
    pytest.param({"settler_0": "C"}, "settler_0", "Feature C is a plain", id="sheriff-on-a-plain-letter"),
    pytest.param({"settler_2": "A"}, "settler_2", "Feature A is a city", id="trapper-on-a-city-letter"),
    pytest.param({"settler_1": "Q"}, "settler_1", "Pick the feature Ben's farmer in column 3 stands on",
                 id="letter-of-no-feature"),
    pytest.param({"size_A_tiles": ""}, "size_A_tiles", "Give the tiles of city A", id="city-size-missing"),
    pytest.param({"size_B_neighbours": "8"}, "size_B_neighbours", "from 0 to 7", id="eight-neighbours"),
    pytest.param({"size_C_animals": "lots"}, "size_C_animals", "Not a valid integer",
                 id="animals-not-a-number"),
])
def test_final_tally_refuses_an_inconsistent_grouping_and_stores_nothing(client, db, change, field, message):
    play_id = new_play(client, db, PLAYERS[:2])
    play_steps(client, db, play_id, EXAMPLE_6)
    _, version = tally_page(client, play_id)
    data = {"version": version, "settler_0": "A", "settler_1": "B", "settler_2": "C", "settler_3": "D",
            "settler_4": "E", "settler_5": "F", "size_A_tiles": "3", "size_B_neighbours": "5",
            "size_C_animals": "1", "size_D_animals": "1", "size_E_animals": "1", "size_F_animals": "1",
            **change}
    response = client.post(f"/plays/{play_id}/mayflower/final-tally", data=data)
    assert response.status_code == 400
    errors = re.findall(rf'<p class="error" id="{field}-error">([^<]*)</p>', response.text)
    assert errors and message in html.unescape(errors[0])
    assert store.get_play(db, play_id).status == "active"
    assert store.play_results(db, play_id) == ()
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


def test_final_tally_from_an_outdated_page_stores_nothing(client, db, play_id):
    play_steps(client, db, play_id, [("west", 2), ("place", BEN, "trapper", 1)])
    _, version = tally_page(client, play_id)
    place(client, play_id, ANNA, "trapper", 2)
    response = client.post(f"/plays/{play_id}/mayflower/final-tally",
                           data={"version": version, "settler_0": "A", "settler_1": "B",
                                 "size_A_animals": "2", "size_B_animals": "2"})
    assert response.status_code == 400 and "Another phone changed this play" in text_of(response.text)
    assert store.get_play(db, play_id).status == "active"


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
