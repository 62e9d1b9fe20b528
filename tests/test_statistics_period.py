"""The statistics over a period: its bounds in the group's time zone, its figures and refused input."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

import pytest
from werkzeug.datastructures import MultiDict

from companion import store
from companion.forms.history import Period, StatisticsFilterForm, days_period
from companion.games import GAMES
from tests.conftest import add_players, create_group
from tests.test_statistics import finish

BERLIN = ZoneInfo("Europe/Berlin")


def log(db, group_id: int, ended_at: str, scores, game: str = "mayflower") -> int:
    """A finished play of ``game`` that ended at ``ended_at`` (UTC), ``scores`` as (player id, total)."""
    ranks = [1 + sum(other > total for _, other in scores) for _, total in scores]
    return store.log_past_play(
        db, group_id, game, [(pid, colour) for (pid, _), colour in zip(scores, ("red", "blue"), strict=True)],
        {}, {}, [store.ResultInput(seat, total, rank, {"total": total})
                 for seat, ((_, total), rank) in enumerate(zip(scores, ranks, strict=True))],
        ended_at, ended_at)


@pytest.fixture
def pair(db):
    group = store.create_group(db, "Pair")
    anna, ben = store.add_player(db, group.id, "Anna", "red"), store.add_player(db, group.id, "Ben", "blue")
    return group.id, anna, ben


def chosen_period(app, query: dict[str, str], today: date, zone=UTC) -> Period | None:
    with app.test_request_context():
        form = StatisticsFilterForm(MultiDict(query), GAMES)
        assert form.validate(), form.errors
        return form.chosen_period(today, zone)


# which plays (by their end in UTC) the period takes in
PERIODS = [
    # a custom range: from the first day's midnight to the end of the last day
    ({"period": "custom", "since": "2026-03-01", "until": "2026-03-31"}, date(2026, 5, 5), UTC,
     {"2026-02-28T23:59:59+00:00": False, "2026-03-01T00:00:00+00:00": True,
      "2026-03-31T23:59:59+00:00": True, "2026-04-01T00:00:00+00:00": False}),
    # the same days in Berlin (summer time since 29 March): their midnights are 22:00 UTC before
    ({"period": "custom", "since": "2026-03-01", "until": "2026-03-31"}, date(2026, 5, 5), BERLIN,
     {"2026-02-28T22:59:59+00:00": False, "2026-02-28T23:00:00+00:00": True,
      "2026-03-31T21:59:59+00:00": True, "2026-03-31T22:00:00+00:00": False}),
    # from == to: that one day
    ({"period": "custom", "since": "2026-07-04", "until": "2026-07-04"}, date(2026, 8, 1), UTC,
     {"2026-07-03T23:59:59+00:00": False, "2026-07-04T00:00:00+00:00": True,
      "2026-07-04T23:59:59+00:00": True, "2026-07-05T00:00:00+00:00": False}),
    # this year, looked at on 1 January: the new year only
    ({"period": "year"}, date(2026, 1, 1), UTC,
     {"2025-12-31T23:59:59+00:00": False, "2026-01-01T00:00:00+00:00": True,
      "2026-12-31T23:59:59+00:00": True, "2027-01-01T00:00:00+00:00": False}),
    # the last 12 months, across the turn of the year: from the day after a year ago to today
    ({"period": "months"}, date(2026, 1, 15), UTC,
     {"2025-01-15T23:59:59+00:00": False, "2025-01-16T00:00:00+00:00": True,
      "2025-12-31T23:59:59+00:00": True, "2026-01-15T23:59:59+00:00": True,
      "2026-01-16T00:00:00+00:00": False}),
    # on 29 February the year before has no such day
    ({"period": "months"}, date(2028, 2, 29), UTC,
     {"2027-02-28T23:59:59+00:00": False, "2027-03-01T00:00:00+00:00": True,
      "2028-02-29T23:59:59+00:00": True}),
]


@pytest.mark.parametrize(("query", "today", "zone", "ends"), PERIODS)
def test_a_period_takes_in_the_plays_that_ended_on_its_days(app, db, pair, query, today, zone, ends):
    group_id, anna, ben = pair
    period = chosen_period(app, query, today, zone)
    for ended_at in ends:
        log(db, group_id, ended_at, [(anna, 10), (ben, 5)])
    expected = sum(inside for inside in ends.values())
    stats = store.statistics(db, group_id, period=period)
    assert stats.plays == expected
    assert {p.name: p.plays for p in stats.players} == (
        {"Anna": expected, "Ben": expected} if expected else {})
    assert store.statistics(db, group_id).plays == len(ends)  # all time: every one


def test_all_time_is_no_period(app):
    assert chosen_period(app, {}, date(2026, 1, 1)) is None


def test_a_period_covering_everything_gives_the_kept_figures(db):
    """Counted over a period, every figure (streaks, head to head, rows, the chart) is as the kept one."""
    group = store.create_group(db, "Club")
    a, b, c = (store.add_player(db, group.id, name, colour)
               for name, colour in (("Anna", "red"), ("Ben", "blue"), ("Cara", "green")))
    finish(db, group.id, "gold-west", [(a, 30), (b, 25), (c, 20)])
    finish(db, group.id, "gold-west", [(a, 28), (b, 28), (c, 10)])
    finish(db, group.id, "gold-west", [(a, 5), (b, 1), (c, 50)], counted=False)
    finish(db, group.id, "mayflower", [(a, 40), (b, 35)])
    deleted = finish(db, group.id, "mayflower", [(c, 90), (b, 35)])
    store.delete_play(db, deleted)
    trashed = finish(db, group.id, "gold-west", [(c, 90), (b, 35), (a, 1)])
    store.trash_play(db, trashed, "2026-01-01T00:00:00+00:00")
    everything = days_period(date(2000, 1, 1), date(2100, 1, 1), UTC)
    for game in (None, "gold-west", "mayflower"):
        assert store.statistics(db, group.id, game, period=everything) == store.statistics(db, group.id, game)
    for periods in (1, 2):  # the chart in stretches of months, as the kept sums make it
        assert store.statistics(db, group.id, "gold-west", periods, everything).periods == \
            store.statistics(db, group.id, "gold-west", periods).periods


def test_a_period_sets_every_figure_from_its_plays_alone(db, pair):
    group_id, anna, ben = pair
    log(db, group_id, "2025-12-20T20:00:00+00:00", [(anna, 90), (ben, 10)])  # before: Anna far ahead
    log(db, group_id, "2026-01-10T20:00:00+00:00", [(anna, 20), (ben, 30)])
    log(db, group_id, "2026-02-10T20:00:00+00:00", [(anna, 25), (ben, 40)])
    period = days_period(date(2026, 1, 1), date(2026, 12, 31), UTC)
    stats = store.statistics(db, group_id, "mayflower", period=period)
    ben_stats, anna_stats = stats.players
    assert (ben_stats.name, ben_stats.plays, ben_stats.wins, ben_stats.average, ben_stats.best,
            ben_stats.current_streak, ben_stats.longest_streak) == ("Ben", 2, 2, 35.0, 40, 2, 2)
    assert (anna_stats.wins, anna_stats.worst, anna_stats.current_streak) == (0, 20, 0)
    assert stats.rivalries[(ben, anna)] == store.Rivalry(ben, anna, 2, 2)
    assert stats.rivalries[(anna, ben)] == store.Rivalry(anna, ben, 0, 2)
    (game,) = stats.games
    assert (game.plays, game.best, game.best_by, game.latest) == (2, 40, "Ben", "2026-02-10T20:00:00+00:00")
    assert stats.row_averages[ben] == {"total": 35.0}
    assert [p.first for p in stats.periods] == ["2026-01-10T20:00:00+00:00", "2026-02-10T20:00:00+00:00"]


def test_a_period_reads_the_results_by_their_end(db, pair):
    """The range query uses the index on the end time, so it reads only the plays inside the period."""
    plan = db.execute(
        "EXPLAIN QUERY PLAN SELECT play_id FROM results WHERE group_id = 1 AND counted = 1 "
        "AND ended_at >= '2026' AND ended_at < '2027'").fetchall()
    assert any("results_by_end" in row[-1] and "ended_at>?" in row[-1].replace(" ", "") for row in plan), plan


# --- the page ------------------------------------------------------------------------------------

@pytest.fixture
def member(client, db):
    group_id = create_group(client)
    anna, ben = store.add_player(db, group_id, "Anna", "red"), store.add_player(db, group_id, "Ben", "blue")
    this_year = datetime.now(UTC).year
    log(db, group_id, f"{this_year - 3}-06-01T20:00:00+00:00", [(anna, 50), (ben, 10)])
    log(db, group_id, f"{this_year}-01-01T12:00:00+00:00", [(anna, 10), (ben, 30)])
    return group_id, this_year


def test_the_page_shows_the_period_chosen_and_keeps_it_for_each_game(client, member):
    group_id, this_year = member
    page = client.get(f"/groups/{group_id}/statistics?period=year")
    assert page.status_code == 200
    assert "1 play counted." in page.text
    assert f"Plays that ended from Jan 1, {this_year} to Dec 31, {this_year}." in page.text
    assert "The ratings cover all time" in page.text
    assert f"/groups/{group_id}/statistics?game=mayflower&amp;period=year" in page.text
    assert '<option selected value="year">' in page.text
    every = client.get(f"/groups/{group_id}/statistics")
    assert "2 plays counted." in every.text and "All time." in every.text
    assert "The ratings cover all time" not in every.text
    empty = client.get(f"/groups/{group_id}/statistics?period=custom&since=2001-01-01&until=2001-01-01")
    assert empty.status_code == 200 and "No counted finished plays in this period." in empty.text


@pytest.mark.parametrize(("query", "message"), [
    ("period=custom&since=2026-02-30&until=2026-03-01", "Use a date like 2024-05-31."),
    ("period=custom&since=yesterday&until=2026-03-01", "Use a date like 2024-05-31."),
    ("period=custom&since=2026-03-01&until=2026-02-28", "The last day is before the first day."),
    ("period=custom&until=2026-03-01", "Give the first day of the period."),
    ("period=custom&since=2026-03-01", "Give the last day of the period."),
    ("period=decade", "Pick one from the list."),
    ("period=custom&since=2026-03-01&until=9999-12-31", "Give a day between the years 1900 and 9000."),
    ("period=custom&since=0001-01-01&until=2026-03-01", "Give a day between the years 1900 and 9000."),
    ("game=mayflower&period=custom&since=2026-03-01&until=2026-02-01",
     "The last day is before the first day."),
])
def test_bad_periods_are_refused_with_a_message(client, db, member, query, message):
    group_id, _ = member
    before = db.execute("SELECT * FROM player_records ORDER BY 1, 2, 3").fetchall()
    page = client.get(f"/groups/{group_id}/statistics?{query}")
    assert page.status_code == 400
    assert message in page.text
    assert "Correct the period above; no statistics were counted." in page.text
    assert db.execute("SELECT * FROM player_records ORDER BY 1, 2, 3").fetchall() == before


def test_a_period_is_a_plain_value(app):
    period = chosen_period(app, {"period": "custom", "since": "2026-03-01", "until": "2026-03-01"},
                           date(2026, 3, 5), BERLIN)
    assert tuple(period) == (datetime(2026, 3, 1, tzinfo=BERLIN), datetime(2026, 3, 2, tzinfo=BERLIN))
    assert [moment.astimezone(UTC).isoformat() for moment in period] == ["2026-02-28T23:00:00+00:00",
                                                                        "2026-03-01T23:00:00+00:00"]


def shown_text(page: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", page).split())


def test_a_win_rate_of_five_in_eight_is_shown_as_63_percent(client, db):
    """5 wins of 8 plays are 62.5 %: a table rounding by hand writes 63 %, on both pages."""
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    ids = {p.name: p.id for p in store.list_players(db, group_id)}
    for day in range(1, 9):
        anna = 20 if day <= 5 else 10
        log(db, group_id, f"2024-01-0{day}T20:00:00+00:00", [(ids["Anna"], anna), (ids["Ben"], 15)])
    client.get(f"/groups/{group_id}")  # shows the pending messages
    page = shown_text(client.get(f"/groups/{group_id}/statistics").text)
    assert "Anna 8 5 63 %" in page
    player = shown_text(client.get(f"/groups/{group_id}/players/{ids['Anna']}/statistics").text)
    assert "Win rate 63 %" in player


def test_an_average_of_10_25_is_shown_as_10_3(client, db):
    """Scores 10, 10, 10 and 11 average 10.25: by hand 10.3."""
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    ids = {p.name: p.id for p in store.list_players(db, group_id)}
    for day, points in enumerate((10, 10, 10, 11), start=1):
        log(db, group_id, f"2024-01-0{day}T20:00:00+00:00", [(ids["Anna"], points), (ids["Ben"], 5)])
    client.get(f"/groups/{group_id}")  # shows the pending messages
    page = shown_text(client.get(f"/groups/{group_id}/statistics").text)
    assert "Anna 4 4 100 % 10.3" in page
