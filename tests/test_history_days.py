"""The history's filter takes its "from" and "until" days on the clocks of the group, as the page writes
its plays' times: from the start of the first day to the start of the day after the last, in the zone the
group set, else in the server's own (as the statistics' period has them)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from companion import store
from tests.conftest import add_players, create_group
from tests.test_group_time_zone import log_past_play, server_clocks_on, set_zone, text
from tests.test_history_views import listed_play_ids

# the group's zone ("" for none: the server's, on SERVER_ZONE) and the day whose midnight the plays are
# around: one play a quarter of an hour before it (on the eve), one a quarter of an hour after it
ZONES = {
    # UTC+1: the play after midnight is still on the eve in UTC
    "Berlin, winter": ("Europe/Berlin", "2024-03-02"),
    # UTC+2 since the clocks went forward on 31 March (a day of 23 hours)
    "Berlin, summer time just began": ("Europe/Berlin", "2024-04-01"),
    # UTC-5: the play before midnight is already on the next day in UTC
    "New York, winter": ("America/New_York", "2024-03-02"),
    "New York, summer": ("America/New_York", "2024-07-02"),  # UTC-4
    "server in Tokyo, no zone set": ("", "2024-03-02"),  # UTC+9
}
SERVER_ZONE = "Asia/Tokyo"

# the filter ({day}: the day, {eve}: the day before it) → the plays listed, newest first
FILTERS = {
    "from the day": ("since={day}", ["after"]),
    "until the eve": ("until={eve}", ["before"]),
    "the day alone": ("since={day}&until={day}", ["after"]),
    "the eve alone": ("since={eve}&until={eve}", ["before"]),
    "both days": ("since={eve}&until={day}", ["after", "before"]),
    "from the day after": ("since={next}", []),
    "until the day before the eve": ("until={before_eve}", []),
}


@pytest.fixture
def server_in_tokyo(monkeypatch) -> Iterator[None]:
    yield from server_clocks_on(monkeypatch, SERVER_ZONE)


@pytest.fixture(params=list(ZONES.values()), ids=list(ZONES))
def midnight(request, client, db, server_in_tokyo) -> tuple[int, date, dict[str, int]]:
    """A group in that zone with two plays either side of the day's midnight: (group, day, play ids)."""
    zone, day = request.param
    day = date.fromisoformat(day)
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    client.get(f"/groups/{group_id}")  # shows the pending messages
    if zone:
        set_zone(client, group_id, zone)
    ids = {p.name: p.id for p in store.list_players(db, group_id)}
    plays = {"before": log_past_play(client, group_id, ids, str(day - timedelta(days=1)), "23:45"),
             "after": log_past_play(client, group_id, ids, str(day), "00:15")}
    return group_id, day, plays


def utc_day(db, play_id: int) -> date:
    return datetime.fromisoformat(store.get_play(db, play_id).ended_at).astimezone(UTC).date()


def test_the_plays_either_side_of_midnight_are_on_the_groups_days(client, db, midnight):
    group_id, day, plays = midnight
    # one of the two plays is on another day in UTC than on the group's clocks: a UTC filter misses it
    assert {utc_day(db, plays["before"]), utc_day(db, plays["after"])} != {day - timedelta(days=1), day}
    shown = text(client, f"/groups/{group_id}/history")
    assert f"{day.month}/{day.day}/{day:%y}, 12:15 AM" in shown
    eve = day - timedelta(days=1)
    assert f"{eve.month}/{eve.day}/{eve:%y}, 11:45 PM" in shown


@pytest.mark.parametrize(("query", "expected"), list(FILTERS.values()), ids=list(FILTERS))
def test_the_filter_days_are_the_groups_days(client, midnight, query, expected):
    group_id, day, plays = midnight
    days = {"day": day, "eve": day - timedelta(days=1), "next": day + timedelta(days=1),
            "before_eve": day - timedelta(days=2)}
    page = client.get(f"/groups/{group_id}/history?{query.format(**days)}")
    assert page.status_code == 200, page.text
    assert listed_play_ids(page) == [plays[name] for name in expected]


@pytest.mark.parametrize("bound", [datetime(2024, 3, 2), "2024-03-02", "2024-03-02T00:00:00"],
                         ids=["naive time", "day", "text without offset"])
def test_the_store_refuses_a_bound_without_its_zone(db, bound):
    with pytest.raises(ValueError, match="time zone"):
        store.history(db, 1, start=bound)


def test_the_store_takes_bounds_as_aware_times_or_iso_text(client, db, midnight):
    group_id, _, plays = midnight
    start = store.get_play(db, plays["after"]).ended_at  # as stored: UTC
    aware = datetime.fromisoformat(start).astimezone(timezone(timedelta(hours=13, minutes=45)))
    for bound in (start, aware, aware.isoformat()):
        assert [e.play_id for e in store.history(db, group_id, start=bound).entries] == [plays["after"]]
        assert [e.play_id for e in store.history(db, group_id, end=bound).entries] == [plays["before"]]
