"""The pages write a play's day and time on the clocks of its group, as the exports do: in the zone the
group set, else in the server's own; and a page kept by the read cache follows a change of the zone."""

from __future__ import annotations

import csv
import io
import time
from collections.abc import Iterator

import pytest

from companion import store
from tests.conftest import add_players, create_group
from tests.test_page_cache import views_run

ENGLISH = {"Accept-Language": "en"}
GERMAN = {"Accept-Language": "de"}
# 2024-03-02 00:30 in Berlin (winter time, UTC+1) is still March 1 in UTC
BERLIN_HALF_PAST_MIDNIGHT = "2024-03-01T23:30:00+00:00"


def text(client, path: str, headers: dict[str, str] = ENGLISH) -> str:
    """The page's text, Babel's narrow spaces (before AM/PM) as plain ones."""
    response = client.get(path, headers=headers)
    assert response.status_code == 200, response.text
    return response.text.replace("\u202f", " ")


def set_zone(client, group_id: int, zone: str) -> None:
    """Set the group's time zone through its settings page, as a phone does."""
    response = client.post(f"/groups/{group_id}/settings", data={"time_zone": zone, "location": ""})
    assert response.status_code == 302, response.text


@pytest.fixture
def group(client, db) -> tuple[int, dict[str, int]]:
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    client.get(f"/groups/{group_id}")  # shows the pending messages
    return group_id, {p.name: p.id for p in store.list_players(db, group_id)}


def log_past_play(client, group_id: int, ids: dict[str, int], ended_on: str, ended_at: str) -> int:
    """A past play of Great Western Trail that finished on that day and time of the group's clocks."""
    response = client.post(f"/groups/{group_id}/plays/past/great-western-trail", data={
        "ended_on": ended_on, "ended_at": ended_at, "minutes": "60", "player-0": str(ids["Anna"]),
        "player-1": str(ids["Ben"]), "player-2": "0", "player-3": "0", "points-0-0": "88",
        "points-1-0": "91"})
    assert response.status_code == 302, response.text
    return int(response.headers["Location"].rsplit("/", 2)[1])


def exported_finish(client, group_id: int) -> str:
    """The finishing time of the group's one play, as the CSV export writes it."""
    exported = client.get(f"/groups/{group_id}/export/plays.csv").text.lstrip("\ufeff")
    finished = {row["finished_at"] for row in csv.DictReader(io.StringIO(exported))}
    assert len(finished) == 1, finished
    return finished.pop()


def start_a_play_at(db, group_id: int, ids: dict[str, int], started_at: str) -> int:
    play_id = store.start_play(db, group_id, "gold-west", [(ids["Anna"], "red"), (ids["Ben"], "blue")])
    db.execute("UPDATE plays SET started_at = ? WHERE id = ?", [started_at, play_id])
    return play_id


def test_a_play_shows_the_day_and_time_of_the_groups_clocks(client, db, group):
    group_id, ids = group
    set_zone(client, group_id, "Europe/Berlin")
    play_id = log_past_play(client, group_id, ids, "2024-03-02", "00:30")
    assert store.get_play(db, play_id).ended_at == BERLIN_HALF_PAST_MIDNIGHT
    assert exported_finish(client, group_id) == "2024-03-02 00:30"

    group_page = text(client, f"/groups/{group_id}")
    assert "Mar 2, 2024" in group_page and "Mar 1, 2024" not in group_page
    for page in (f"/plays/{play_id}/record", f"/groups/{group_id}/history", f"/plays/{play_id}/result"):
        shown = text(client, page)
        assert "3/2/24, 12:30 AM" in shown and "11:30 PM" not in shown, page
    assert "02.03.24, 00:30" in text(client, f"/plays/{play_id}/record", GERMAN)
    assert "02.03.2024" in text(client, f"/groups/{group_id}", GERMAN)


def test_a_live_play_shows_when_it_started_on_the_groups_clocks(client, db, group):
    group_id, ids = group
    set_zone(client, group_id, "America/New_York")
    play_id = start_a_play_at(db, group_id, ids, "2024-07-01T02:15:00+00:00")  # summer time: UTC-4
    assert "started 6/30/24, 10:15 PM" in text(client, f"/plays/{play_id}")


def server_clocks_on(monkeypatch, zone: str) -> Iterator[None]:
    """The server's own clocks on ``zone`` (in this process), back as they were afterwards."""
    monkeypatch.setenv("TZ", zone)
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def server_in_new_york(monkeypatch) -> Iterator[None]:
    yield from server_clocks_on(monkeypatch, "America/New_York")


@pytest.fixture
def server_in_utc(monkeypatch) -> Iterator[None]:
    yield from server_clocks_on(monkeypatch, "UTC")


def test_a_group_without_a_zone_shows_the_times_of_its_export(client, db, group, server_in_new_york):
    group_id, ids = group
    assert store.group_settings(db, group_id).time_zone is None
    play_id = log_past_play(client, group_id, ids, "2024-03-02", "00:30")
    assert store.get_play(db, play_id).ended_at == "2024-03-02T05:30:00+00:00"  # the server's clocks
    assert exported_finish(client, group_id) == "2024-03-02 00:30"
    assert "Mar 2, 2024" in text(client, f"/groups/{group_id}")
    for page in (f"/plays/{play_id}/record", f"/groups/{group_id}/history"):
        assert "3/2/24, 12:30 AM" in text(client, page), page
    live = start_a_play_at(db, group_id, ids, "2024-07-01T02:15:00+00:00")
    assert "started 6/30/24, 10:15 PM" in text(client, f"/plays/{live}")


def test_a_group_setting_a_zone_sees_it_at_once_on_its_kept_pages(app, client, db, group, server_in_utc):
    group_id, ids = group
    store.finish_play(db, start_a_play_at(db, group_id, ids, "2024-03-01T22:00:00+00:00"), {},
                      [store.ResultInput(0, 5, 2, {"total": 5}), store.ResultInput(1, 9, 1, {"total": 9})])
    db.execute("UPDATE plays SET ended_at = ? WHERE group_id = ?", [BERLIN_HALF_PAST_MIDNIGHT, group_id])
    live = start_a_play_at(db, group_id, ids, BERLIN_HALF_PAST_MIDNIGHT)
    pages = {f"/groups/{group_id}": ("Mar 1, 2024", "Mar 2, 2024"),
             f"/plays/{live}": ("started 3/1/24, 11:30 PM", "started 3/2/24, 12:30 AM")}
    for page, (in_utc, _) in pages.items():
        assert in_utc in text(client, page), page  # the server's clocks …
        seen = views_run(app)
        assert in_utc in text(client, page) and seen == [], page  # … kept by the read cache
    # another phone sets the zone (this one has no message pending, which the views would show)
    store.save_group_settings(db, group_id, store.GroupSettings("Europe/Berlin"))
    for page, (in_utc, in_berlin) in pages.items():
        shown = text(client, page)
        assert in_berlin in shown and in_utc not in shown, page
