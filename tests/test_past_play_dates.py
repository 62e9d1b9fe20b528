"""The day and time of a past play: a year a backup can hold, never after now, a time as HH:MM on the
group's clocks (the app's clock is fixed: the server's own zone is UTC in the tests)."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest

from companion import store
from tests.conftest import add_players, create_group

URL = "/groups/{}/plays/past/great-western-trail"


@pytest.fixture
def group(client, db):
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    return group_id, [p.id for p in store.list_players(db, group_id)]


def post(app, client, db, group, zone, now, change):
    """Send a play of Anna and Ben with ``change`` at ``now`` (UTC) in a group on ``zone`` (None: none)."""
    group_id, (anna, ben) = group
    if zone:
        store.save_group_settings(db, group_id, store.GroupSettings(zone, "", {}))
    app.config["CLOCK"] = lambda: now
    return client.post(URL.format(group_id), data={
        "ended_on": "2024-03-01", "player-0": str(anna), "player-1": str(ben), "player-2": "0",
        "player-3": "0", "points-0-0": "88", "points-1-0": "91", **change})


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


NOW = "2024-03-02T05:50:30"  # 05:50 on the server's clocks
TOO_EARLY = "Give a day in 1900 or later."
BEGUN_TOO_EARLY = "The play would have begun before 1900: give a later day or a shorter length."
NO_DATE = "Use a date like 2024-05-31."
NO_TIME = "Use a time like 21:30."
NOT_YET = "That time has not come yet: it is 05:50 now."


@pytest.mark.parametrize(("zone", "now", "change", "message"), [
    # a year a backup can hold (the import's rule): no 500 at the calendar's start
    (None, NOW, {"ended_on": "0001-01-01"}, TOO_EARLY),
    ("Asia/Tokyo", NOW, {"ended_on": "0001-01-01", "ended_at": "00:30"}, TOO_EARLY),
    ("America/New_York", NOW, {"ended_on": "0001-01-01", "minutes": "10080"}, TOO_EARLY),
    (None, NOW, {"ended_on": "1899-12-31", "ended_at": "23:59"}, TOO_EARLY),
    # its start too: 00:30 in Tokyo is still 1899 in UTC, and so is a week before 1900-01-02
    ("Asia/Tokyo", NOW, {"ended_on": "1900-01-01", "ended_at": "00:30"}, BEGUN_TOO_EARLY),
    (None, NOW, {"ended_on": "1900-01-02", "ended_at": "20:00", "minutes": "10080"}, BEGUN_TOO_EARLY),
    # never after now, on the group's clocks
    (None, NOW, {"ended_on": "2024-03-02", "ended_at": "23:59"}, NOT_YET),
    (None, NOW, {"ended_on": "2024-03-02", "ended_at": "05:51"}, NOT_YET),
    ("Europe/Berlin", "2024-03-02T04:50:00", {"ended_on": "2024-03-02", "ended_at": "21:00"}, NOT_YET),
    ("Asia/Tokyo", "2024-03-01T20:50:00", {"ended_on": "2024-03-03"}, "That day has not come yet."),
    # 22:00 on 1 March in New York
    ("America/New_York", "2024-03-02T03:00:00", {"ended_on": "2024-03-02"}, "That day has not come yet."),
    # HH:MM only: an offset moved the end to another day
    (None, NOW, {"ended_at": "21:30-23:59"}, NO_TIME),
    (None, NOW, {"ended_at": "21:30+01:00"}, NO_TIME),
    (None, NOW, {"ended_at": "21:30Z"}, NO_TIME),
    ("Europe/Berlin", NOW, {"ended_at": "21:30:00"}, NO_TIME),
    (None, NOW, {"ended_at": "2130"}, NO_TIME),
    (None, NOW, {"ended_at": "21"}, NO_TIME),
    (None, NOW, {"ended_at": "9:30"}, NO_TIME),
    (None, NOW, {"ended_at": "24:00"}, NO_TIME),
    (None, NOW, {"ended_at": "２１:３０"}, NO_TIME),
    (None, NOW, {"ended_on": "2024-W09-5"}, NO_DATE),
    (None, NOW, {"ended_on": "20240301"}, NO_DATE),
])
def test_a_past_play_out_of_time_is_refused_with_the_reason(app, client, db, group, zone, now, change,
                                                             message):
    response = post(app, client, db, group, zone, at(now), change)
    assert response.status_code == 400 and message in response.text
    assert store.history(db, group[0]).total == 0


@pytest.mark.parametrize(("zone", "now", "change", "ended", "started"), [
    # today without a time: 21:00, or now (to the minute) if 21:00 has not come yet
    (None, NOW, {"ended_on": "2024-03-02"}, "2024-03-02T05:50:00", "2024-03-02T05:50:00"),
    (None, NOW, {"ended_on": "2024-03-02", "ended_at": "  ", "minutes": "30"}, "2024-03-02T05:50:00",
     "2024-03-02T05:20:00"),
    ("Europe/Berlin", NOW, {"ended_on": "2024-03-02"}, "2024-03-02T05:50:00", "2024-03-02T05:50:00"),
    ("Europe/Berlin", "2024-03-02T22:30:00", {"ended_on": "2024-03-02"}, "2024-03-02T20:00:00",
     "2024-03-02T20:00:00"),
    ("Asia/Tokyo", "2024-03-01T20:50:00", {"ended_on": "2024-03-02"}, "2024-03-01T20:50:00",
     "2024-03-01T20:50:00"),
    # up to now, to the minute
    (None, NOW, {"ended_on": "2024-03-02", "ended_at": "05:50"}, "2024-03-02T05:50:00",
     "2024-03-02T05:50:00"),
    ("Europe/Berlin", NOW, {"ended_on": "2024-03-02", "ended_at": "06:50"}, "2024-03-02T05:50:00",
     "2024-03-02T05:50:00"),
    # an earlier day: 21:00 on the group's clocks, or the time given
    ("Asia/Tokyo", NOW, {"ended_on": "2024-03-01", "ended_at": " "}, "2024-03-01T12:00:00",
     "2024-03-01T12:00:00"),
    (None, NOW, {"ended_on": "2024-03-01", "ended_at": "21:30", "minutes": "90"}, "2024-03-01T21:30:00",
     "2024-03-01T20:00:00"),
    ("America/New_York", NOW, {"ended_on": "2024-03-01", "ended_at": "23:59"}, "2024-03-02T04:59:00",
     "2024-03-02T04:59:00"),
    # as early as a backup can hold
    (None, NOW, {"ended_on": "1900-01-01", "ended_at": "00:00"}, "1900-01-01T00:00:00",
     "1900-01-01T00:00:00"),
    (None, NOW, {"ended_on": "1900-01-08", "ended_at": "00:00", "minutes": "10080"}, "1900-01-08T00:00:00",
     "1900-01-01T00:00:00"),
])
def test_a_past_play_is_kept_with_its_end_in_utc(app, client, db, group, zone, now, change, ended, started):
    response = post(app, client, db, group, zone, at(now), change)
    assert response.status_code == 302, response.text
    play = store.get_play(db, int(response.headers["Location"].rsplit("/", 2)[1]))
    assert (play.ended_at, play.started_at) == (f"{ended}+00:00", f"{started}+00:00")


@pytest.fixture
def server_in_berlin(monkeypatch):
    """The server's own clocks on Berlin time (the tests' default is UTC)."""
    monkeypatch.setenv("TZ", "Europe/Berlin")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


# The night of 27 October 2024 Berlin's clocks go back at 03:00 CEST to 02:00 CET: 02:30 comes twice.
@pytest.mark.parametrize(("zone", "now"), [
    (None, "2024-10-27T00:30:00"),  # the first 02:30, on the server's clocks
    (None, "2024-10-27T01:30:00"),  # the second
    ("Europe/Berlin", "2024-10-27T00:30:00"),  # on the group's clocks
    ("Europe/Berlin", "2024-10-27T01:30:00"),
])
def test_a_past_play_of_today_without_a_time_ends_now_in_the_hour_the_clocks_go_back(
        app, client, db, group, server_in_berlin, zone, now):
    response = post(app, client, db, group, zone, at(now), {"ended_on": "2024-10-27"})
    assert response.status_code == 302, response.text
    play = store.get_play(db, int(response.headers["Location"].rsplit("/", 2)[1]))
    assert play.ended_at == f"{now}+00:00"


def test_the_page_says_what_an_empty_time_means(client, group):
    page = client.get(URL.format(group[0]))
    assert "Left empty: 21:00 that day, or now if that is earlier." in page.text
