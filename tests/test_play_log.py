"""The play page shows the newest entries of its log; the whole log is on pages of its own."""

from __future__ import annotations

import re

import pytest

from companion import store
from companion.views import plays
from tests.conftest import add_players, create_group, start_play


@pytest.fixture
def play_id(client, db) -> int:
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    ids = {p.name: p.id for p in store.list_players(db, group_id)}
    return start_play(client, group_id, "gold-west", [(ids["Anna"], "red"), (ids["Ben"], "blue")])


def enter_points(client, play_id: int, count: int) -> None:
    """Anna scores 1, 2, … ``count`` points, one entry each."""
    for points in range(1, count + 1):
        response = client.post(f"/plays/{play_id}/adjust", data={"seat": "0", "points": str(points)})
        assert response.status_code == 302


def log_lines(page: str) -> list[tuple[int, str]]:
    """The log's entries as numbered on the page: (number, words), newest first."""
    listed = re.search(r'<ol class="log" reversed start="(\d+)">(.*?)</ol>', page, re.S)
    lines = [" ".join(re.sub(r"<[^>]+>", " ", item).split())
             for item in re.findall(r"<li>(.*?)</li>", listed.group(2), re.S)]
    return list(zip(range(int(listed.group(1)), 0, -1), lines, strict=False))


def earlier_link(page: str) -> str | None:
    found = re.search(r'href="(/plays/\d+/log\?before=\d+)"', page)
    return found.group(1).replace("&amp;", "&") if found else None


@pytest.mark.parametrize(("entries", "on_page", "link"), [
    (3, [(3, "Anna +3"), (2, "Anna +2"), (1, "Anna +1")], None),
    (plays.LOG_ON_PAGE, [(number, f"Anna +{number}") for number in range(plays.LOG_ON_PAGE, 0, -1)], None),
    (plays.LOG_ON_PAGE + 5, [(number, f"Anna +{number}") for number in range(plays.LOG_ON_PAGE + 5, 5, -1)],
     "The 5 entries before"),
])
def test_the_play_page_shows_the_newest_entries_and_links_to_the_earlier_ones(client, play_id, entries,
                                                                              on_page, link):
    enter_points(client, play_id, entries)
    page = client.get(f"/plays/{play_id}").text
    assert log_lines(page) == on_page
    assert (re.search(r'before=\d+">([^<]+)</a>', page).group(1) if link else earlier_link(page)) == link


def test_the_log_pages_hold_every_entry_once_newest_first(client, play_id, monkeypatch):
    monkeypatch.setattr(plays, "LOG_PAGE", 10)
    enter_points(client, play_id, plays.LOG_ON_PAGE + 25)
    page = client.get(f"/plays/{play_id}").text
    seen = log_lines(page)
    link = earlier_link(page)
    while link:
        response = client.get(link)
        assert response.status_code == 200
        seen += log_lines(response.text)
        link = earlier_link(response.text)
    assert seen == [(number, f"Anna +{number}") for number in range(plays.LOG_ON_PAGE + 25, 0, -1)]
    assert log_lines(client.get(f"/plays/{play_id}/log").text)[0] == (45, "Anna +45")


@pytest.mark.parametrize(("query", "status"), [
    ("before=abc", 400), ("before=0", 400), ("before=1", 400), ("before=-3", 400), ("before=1e3", 400),
    ("before=99999999999999999999", 400), ("before=" + "9" * 4301, 400), ("before=50", 200), ("", 200),
    ("before=3", 200),
])
def test_the_log_page_answers_a_wrong_place_in_the_log_clearly(client, play_id, query, status):
    enter_points(client, play_id, 4)
    response = client.get(f"/plays/{play_id}/log?{query}")
    assert response.status_code == status
    if status == 400:
        assert "The request could not be understood" in response.text


def test_the_log_is_shown_only_to_the_group_s_phones(app, client, play_id):
    enter_points(client, play_id, 2)
    assert client.get(f"/plays/{play_id}/log").status_code == 200
    assert app.test_client().get(f"/plays/{play_id}/log").status_code == 404
    assert client.get("/plays/999999/log").status_code == 404


@pytest.mark.parametrize("game", ["gold-west", "mayflower", "great-western-trail"])
@pytest.mark.parametrize(("language", "final", "corrected"), [
    ("en", "Final tally", "Scores corrected on "),
    ("de", "Schlusswertung", "Punkte korrigiert am "),
], ids=["english", "german"])
def test_a_finished_plays_log_names_its_final_tally_and_correction_in_words(client, db, game, language, final,
                                                                           corrected):
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    seats = [(p.id, p.colour) for p in store.list_players(db, group_id)]
    play_id = start_play(client, group_id, game, seats)
    enter_points(client, play_id, 1)
    results = [store.ResultInput(0, 30, 1, {"total": 30}), store.ResultInput(1, 20, 2, {"total": 20})]
    store.finish_play(db, play_id, {}, results)
    store.correct_results(db, play_id, results[::-1])
    lines = log_lines(client.get(f"/plays/{play_id}/log", headers={"Accept-Language": language}).text)
    assert lines[1:] == [(2, final), (1, "Anna +1")]
    assert lines[0][0] == 3 and lines[0][1].startswith(corrected), lines
