"""Carcassonne – Mayflower at a glance through the pages: the settlers the next scoring sends home are
marked on the strip, and the completion form says what Score would do (the preview's address)."""

from __future__ import annotations

import re

import pytest

from tests.conftest import create_group
from tests.test_mayflower_table_web import PLAYERS, REFERENCE, complete, place
from tests.test_mayflower_web import events, new_play, set_west_edge, text_of


@pytest.fixture
def play_id(client, db) -> int:
    return new_play(client, db, PLAYERS)


def play_up_to(client, db, play_id: int, last: int, tap_edges: bool = True, first: int = 1) -> None:
    """The reference game's steps from ``first`` to before ``last`` (1-based), through the pages."""
    for step in REFERENCE["steps"][first - 1:last - 1]:
        if step["action"] == "place":
            response = place(client, play_id, step["seat"], step["role"], step["column"],
                             **{"place-pick": f"{step['seat']}:{step['role']}"})
        elif step["action"] == "west_edge" and tap_edges:
            response = set_west_edge(client, db, play_id, step["column"])
        elif step["action"] == "complete":
            answers: list[str] = []
            while (response := complete(client, db, play_id, step["features"], answers)).status_code == 400:
                column = int(re.search(r"Is there a tile west of column (\d+)\?", response.text).group(1))
                answers.append(f"{column}:{'yes' if step['west_edge'] > column else 'no'}")
        else:
            continue
        assert response.status_code == 302, text_of(response.text)


def preview(client, play_id: int, features, answers=()):
    """The preview of a completion form filled as ``features`` (its fields as the page would send them)."""
    query = {"complete-version": "0", "complete-west_of": list(answers)}
    for number, feature in enumerate(features, start=1):
        for name, value in feature.items():
            query[f"complete-feature_{number}-{name}"] = value if name == "settlers" else str(value)
    return client.get(f"/plays/{play_id}/mayflower/preview", query_string=query)


def strip_of(page: str) -> str:
    return re.search(r'<div class="mf-strip".*?<p class="mf-legend', page, re.S).group(0)


def test_the_strip_marks_the_settler_the_next_scoring_sends_home(client, db, play_id):
    play_up_to(client, db, play_id, 13)  # Ben's bandit in column 1, surveyors in columns 2 and 1
    strip = strip_of(client.get(f"/plays/{play_id}").text)
    marked = re.findall(r'<label class="mf-marker mf-tick c-\w+ mf-leaving" title="([^"]*)"', strip)
    assert marked == ["Ben · bandit · column 1 · goes home at the next scoring"]
    assert strip.count('class="mf-home"') == 1
    assert "⌂ Goes home at the next scoring: Ben's bandit in column 1." in text_of(strip)
    # Cara's trapper east of the surveyors (step 14) stays, so it is never marked
    play_up_to(client, db, play_id, 16, first=13)
    strip = strip_of(client.get(f"/plays/{play_id}").text)
    assert "Cara · trapper · column 1 · goes home" not in strip
    assert "Goes home at the next scoring: Ben's bandit in column 1." in text_of(strip)


def test_nothing_is_marked_when_the_next_scoring_sends_nobody_home(client, db, play_id):
    play_up_to(client, db, play_id, 5)
    page = client.get(f"/plays/{play_id}").text
    assert "goes home at the next scoring" not in page and "Goes home at the next scoring" not in page


def test_the_preview_says_points_surveyor_moves_and_who_goes_home_and_stores_nothing(client, db, play_id):
    play_up_to(client, db, play_id, 23)
    before = events(db, play_id)
    response = preview(client, play_id, REFERENCE["steps"][22]["features"])
    assert response.status_code == 200
    said = text_of(response.text)
    assert said.startswith("If you score now: Anna +9, Ben +18, Cara +0.")
    assert "Ben +18 (10 + 8 surveyor bonus). The north surveyor moves west to column 3." in said
    assert "Anna +9 (5 + 4 surveyor bonus). The south surveyor moves west to column 3." in said
    assert said.endswith("Goes home: Cara's farmer in column 2.")
    assert events(db, play_id) == before


def test_an_empty_form_previews_nothing(client, db, play_id):
    response = client.get(f"/plays/{play_id}/mayflower/preview", query_string={"complete-version": "0"})
    assert response.status_code == 200 and text_of(response.text) == ""


@pytest.mark.parametrize(("features", "message"), [
    pytest.param([{"settlers": ["0-1", "1-1"]}], "Feature 1 has settlers of different roles", id="two-roles"),
    pytest.param([{"settlers": ["0-1"], "tiles": "0"}], "A road's tiles must be a whole number from 1",
                 id="no-tile"),
    pytest.param([{"settlers": ["9-9"]}], "no longer on the map", id="not-on-the-map"),
])
def test_a_preview_the_rules_refuse_says_why_with_400(client, db, play_id, features, message):
    play_up_to(client, db, play_id, 3)  # Anna's bandit 0-1 and Ben's sheriff 1-1
    before = events(db, play_id)
    response = preview(client, play_id, features)
    assert response.status_code == 400 and message in text_of(response.text)
    assert events(db, play_id) == before


def test_an_open_west_question_makes_the_preview_say_it_depends_on_it(client, db, play_id):
    play_up_to(client, db, play_id, 18, tap_edges=False)
    city = REFERENCE["steps"][17]["features"]
    said = text_of(preview(client, play_id, city).text)
    assert ("Cara +16 (8 + 8 surveyor bonus). The surveyor move, and what follows, depends on whether a tile "
            "lies west of column 2: Score asks. Goes home: Ben's bandit in column 1.") in said
    assert "No surveyor moves: no tile lies west of column 2." in text_of(preview(client, play_id, city,
                                                                                  ["2:no"]).text)
    # without the page script the question's answer page shows the preview too
    response = complete(client, db, play_id, city)
    assert response.status_code == 400
    shown = re.search(r'<div id="mf-preview".*?</div>', response.text, re.S).group(0)
    assert "depends on whether a tile lies west of column 2" in text_of(shown)


def test_a_phone_outside_the_group_gets_404_from_the_preview(app, client, db, play_id):
    stranger = app.test_client()
    create_group(stranger, "Elsewhere")
    assert stranger.get(f"/plays/{play_id}/mayflower/preview").status_code == 404


@pytest.mark.parametrize(("feature", "answers"), [
    pytest.param({"settlers": ["0-1"], "tiles": "many"}, [], id="tiles-not-a-number"),
    pytest.param({"kind": "castle"}, [], id="no-such-kind"),
    pytest.param({"settlers": ["0-1"]}, ["1:maybe"], id="garbled-answer"),
    pytest.param({"settlers": ["0-1"]}, ["0:no"], id="edge-east-of-a-settler"),
    pytest.param({"settlers": ["0-1", "0-1"]}, [], id="settler-twice"),
    pytest.param({"kind": "farm", "settlers": ["0-1"]}, [], id="bandit-on-a-farm"),
])
def test_a_garbled_preview_is_refused_with_a_reason(client, db, play_id, feature, answers):
    play_up_to(client, db, play_id, 3)
    response = preview(client, play_id, [feature], answers)
    assert response.status_code == 400 and 'class="error"' in response.text
