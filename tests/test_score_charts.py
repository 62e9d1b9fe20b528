"""The game as a picture: the race of a play's scores, and where the winners' points come from."""

from __future__ import annotations

import html
import json
import re

import pytest

from companion import store
from companion.games.common import FINAL_EVENT, PlaySetup, Seat, rank_players, winners_and_others
from companion.games.table import score_race
from companion.store.migrations.m019_winner_row_points import m019_winner_row_points
from companion.views import charts
from tests.conftest import add_players, create_group, start_play
from tests.test_gold_west_web import new_play as new_gold_west_play
from tests.test_gold_west_web import tap
from tests.test_mayflower_rules import surveyors_to_3_2
from tests.test_mayflower_web import PLAYERS, play_steps
from tests.test_mayflower_web import new_play as new_mayflower_play

SEATS = (Seat("Anna", "red"), Seat("Ben", "blue"), Seat("Cara", "green"))


def setup(game: str, seats: int) -> PlaySetup:
    return PlaySetup(game, SEATS[:seats])


def adjust(seat: int, points: int) -> tuple[str, dict]:
    return "adjust", {"seat": seat, "points": points}


SUPPLY = ("supply", {"seat": 0, "section": 2})  # 2 points for Anna
INVEST = ("investment", {"seat": 1, "vp": 9})  # 9 + the top bonus tile's 3 for Ben


@pytest.mark.parametrize(("game", "seats", "events", "race"), [
    pytest.param("mayflower", 3, [], [(0, (0, 0, 0))], id="no-entries"),
    pytest.param("mayflower", 3, [("west_edge", {"column": 3}),
                                  ("place", {"seat": 2, "role": "trapper", "column": 1})],
                 [(0, (0, 0, 0))], id="entries-that-score-nothing"),
    pytest.param("mayflower", 3, surveyors_to_3_2(2),  # Cara's one-tile roads: the completions score
                 [(0, (0, 0, 0)), (3, (0, 0, 1)), (5, (0, 0, 6)), (7, (0, 0, 7)), (9, (0, 0, 12)),
                  (11, (0, 0, 21))], id="mayflower-scorings"),
    pytest.param("gold-west", 2, [SUPPLY, INVEST, adjust(0, -1)],
                 [(0, (0, 0)), (1, (2, 0)), (2, (2, 12)), (3, (1, 12))], id="gold-west-ledger-and-an-adjust"),
    pytest.param("gold-west", 2, [SUPPLY, (FINAL_EVENT, {"totals": [9, 8]}), ("correction", {})],
                 [(0, (0, 0)), (1, (2, 0))], id="up-to-the-final-tally"),
    pytest.param("great-western-trail", 2, [("delivery", {"seat": 1, "city": "Wichita", "crest_vp": 3})],
                 [(0, (0, 0)), (1, (0, 3))], id="great-western-trail-deliveries"),
    pytest.param("custom-7", 2, [adjust(1, 5), adjust(1, -5)], [(0, (0, 0)), (1, (0, 5)), (2, (0, 0))],
                 id="a-groups-own-game-with-corrections"),
])
def test_score_race(game, seats, events, race):
    assert score_race(setup(game, seats), events) == race


@pytest.mark.parametrize(("language", "ticks"), [("en", ["0", "0.5", "1"]), ("de", ["0", "0,5", "1"])])
def test_a_line_charts_axis_is_written_in_the_readers_language(app, language, ticks):
    with app.test_request_context(headers={"Accept-Language": language}):
        chart = charts.line_chart("c", "Scores", "", ["1 May", "2 May"], [charts.Line("Anna", "red", [0, 1])])
    assert re.findall(r'<text class="tick"[^>]*>([^<]*)</text>', chart) == ticks


@pytest.mark.parametrize(("row_points", "results", "wins", "averages"), [
    pytest.param({"roads": (30, 20), "farms": (10, 0)}, 4, 2, {"roads": (10, 5), "farms": (0, 5)},
                 id="two-winners-two-others"),
    pytest.param({"track": (-6, -3)}, 3, 1, {"track": (-3, -1.5)}, id="minus-points"),
    pytest.param({"track": (12, 12)}, 1, 1, {"track": (12, None)}, id="nobody-else"),
    pytest.param({"track": (12, 0)}, 2, 0, {"track": (None, 6)}, id="no-winner"),
    pytest.param({}, 0, 0, {}, id="no-rows"),
])
def test_winners_and_others(row_points, results, wins, averages):
    assert winners_and_others(row_points, results, wins) == averages


# --- the race on the result page ----------------------------------------------------------------

def finish_with_totals(client, db, play_id: int, *totals: int) -> str:
    """Close the play with totals only; the result page's text."""
    form = {"version": str(store.get_play(db, play_id).version)}
    form |= {f"total_{seat}": str(total) for seat, total in enumerate(totals)}
    assert client.post(f"/plays/{play_id}/finish", data=form).status_code == 302
    return client.get(f"/plays/{play_id}/result").text


def words(markup: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", markup)).split())


def race_of(page: str) -> tuple[str, str, list[str]]:
    """The race's description, its legend and the rows of its table, as read."""
    section = re.search(r'<section id="race".*?</section>', page, re.S).group(0)
    description = re.search(r"<desc[^>]*>(.*?)</desc>", section, re.S).group(1)
    legend = re.search(r'<ul class="legend">.*?</ul>', section, re.S).group(0)
    rows = re.findall(r"<tr><th scope=\"row\">.*?</tr>", section, re.S)
    return words(description), words(legend), [words(row) for row in rows]


def test_the_result_of_a_mayflower_play_shows_the_race_of_its_scorings(client, db):
    play_id = new_mayflower_play(client, db, PLAYERS)
    play_steps(client, db, play_id, [("west", 3), ("walk", 2, 2)])  # Cara scores two roads
    description, legend, rows = race_of(finish_with_totals(client, db, play_id, 10, 12, 30))
    assert description == ("Each player's score after each of the 2 entries that changed a score, then the "
                           "final tally: Anna 10, Ben 12, Cara 30.")
    assert legend == "Anna 10 Ben 12 Cara 30"
    assert rows == ["Start 0 0 0", "Entry 3 0 0 1", "Entry 5 0 0 6", "Final tally 10 12 30"]


def test_the_result_of_a_gold_west_play_shows_the_race_of_its_ledger(client, db):
    play_id = new_gold_west_play(client, db, "Anna", "Ben")
    for kind, data in (("supply", {"seat": "0", "section": "2"}), ("camp", {"seat": "1"}),
                       ("investment", {"seat": "1", "vp": "9"})):
        assert tap(client, play_id, kind, **data).status_code == 302
    page = finish_with_totals(client, db, play_id, 40, 38)
    description, legend, rows = race_of(page)
    assert description.endswith("the 2 entries that changed a score, then the final tally: Anna 40, Ben 38.")
    assert legend == "Anna 40 Ben 38"
    assert rows == ["Start 0 0", "Entry 1 2 0", "Entry 3 2 12", "Final tally 40 38"]
    assert 'class="series c-red"' in page and 'class="series c-blue"' in page  # the players' colours


def test_a_play_without_a_scoring_entry_has_no_race(client, db):
    play_id = new_mayflower_play(client, db, PLAYERS)
    play_steps(client, db, play_id, [("west", 3)])
    page = finish_with_totals(client, db, play_id, 10, 12, 30)
    assert 'id="race"' not in page and "Anna" in page


# --- where the winners' points come from -------------------------------------------------------------

MAYFLOWER_ROWS = ("track", "roads", "cities", "farms", "plains")
# Play 1: Anna wins; play 2: Ben and Cara share the win; play 3 is left out of the statistics.
HISTORY = [
    ([("Anna", (20, 5, 10, 3, 2)), ("Ben", (25, 2, 0, 6, 0))], True),
    ([("Anna", (10, 0, 4, 2, 0)), ("Ben", (12, 8, 6, 0, 4)), ("Cara", (30, 0, 0, 0, 0))], True),
    ([("Anna", (0, 0, 0, 0, 0)), ("Cara", (90, 90, 90, 90, 90))], False),
]
# (row label, a winner's average, everyone else's): winners Anna 1, Ben 2, Cara 2; others Ben 1, Anna 2
WINNERS_TABLE = [("Score track", "20.7", "17.5"), ("Roads", "4.3", "1"), ("Cities", "5.3", "2"),
                 ("Farms", "1", "4"), ("Plains", "2", "0")]


def finish_play(db, group_id: int, ids: dict[str, int], table, counted: bool = True, events=()) -> int:
    """A Mayflower play of ``table`` (name, points per row), with ``events`` entered, then finished."""
    colours = ("red", "blue", "green", "yellow")[:len(table)]
    seats = [(ids[name], colour) for (name, _), colour in zip(table, colours, strict=True)]
    play_id = store.start_play(db, group_id, "mayflower", seats)
    for kind, payload in events:
        store.append_event(db, play_id, kind, payload)
    breakdowns = [(name, dict(zip(MAYFLOWER_ROWS, points, strict=True))) for name, points in table]
    result = rank_players("mayflower", MAYFLOWER_ROWS, breakdowns)
    store.finish_play(db, play_id, {"breakdowns": [b for _, b in breakdowns]},
                      [store.ResultInput(seat, p.total, p.rank, p.breakdown)
                       for seat, p in enumerate(result.players)])
    if not counted:
        store.set_play_counted(db, play_id, False)
    return play_id


@pytest.fixture
def history(client, db) -> int:
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"), ("Cara", "green"))
    ids = {p.name: p.id for p in store.list_players(db, group_id)}
    for table, counted in HISTORY:
        finish_play(db, group_id, ids, table, counted)
    return group_id


def winners_table(page: str) -> list[tuple[str, ...]]:
    table = re.search(r'<table class="stats breakdown" id="winners-table">.*?</table>', page, re.S).group(0)
    return [tuple(words(cell) for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S))
            for row in re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>")[1], re.S)]


@pytest.mark.parametrize("query", ["", "&period=custom&since=2000-01-01&until=2999-12-31"],
                         ids=["all-time", "a-period"])
def test_the_statistics_say_where_the_winners_points_come_from(client, history, query):
    page = client.get(f"/groups/{history}/statistics?game=mayflower{query}").text
    assert winners_table(page) == WINNERS_TABLE
    chart = re.search(r'<svg class="chart stacks" id="winners-chart".*?</svg>', page, re.S).group(0)
    assert [words(name) for name in re.findall(r'<text class="name"[^>]*>(.*?)</text>', chart)] == [
        "Winners", "Others"]


def test_a_game_scored_in_totals_only_has_no_winners_rows(client, db):
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    ids = [p.id for p in store.list_players(db, group_id)]
    play_id = start_play(client, group_id, "mayflower", [(ids[0], "red"), (ids[1], "blue")])
    finish_with_totals(client, db, play_id, 30, 20)
    page = client.get(f"/groups/{group_id}/statistics?game=mayflower").text
    assert "Where the points come from" in page and 'id="winners-table"' not in page


# --- the winners' sums kept on write equal a recount ----------------------------------------------

def recount(db, group_id: int) -> dict[tuple[str, str], int]:
    sums: dict[tuple[str, str], int] = {}
    for game, breakdown in db.execute(
            "SELECT p.game, r.breakdown FROM plays p JOIN results r ON r.play_id = p.id WHERE p.group_id = ? "
            "AND p.counted = 1 AND p.deleted_at IS NULL AND r.rank = 1", [group_id]).fetchall():
        for row, points in json.loads(breakdown).items():
            sums[game, row] = sums.get((game, row), 0) + points
    return {key: points for key, points in sums.items() if points}


def kept(db, group_id: int) -> dict[tuple[str, str], int]:
    return {(game, row): points for game, row, points in db.execute(
        "SELECT game, row, points FROM winner_row_points WHERE group_id = ? AND points <> 0", [group_id])}


def correct(db, play_id: int, points: int) -> None:
    """Give the last seat ``points`` more in every row: the winner may change."""
    results = sorted(store.play_results(db, play_id), key=lambda r: r.seat)
    new = [dict(r.breakdown) for r in results]
    new[-1] = {row: value + points for row, value in new[-1].items()}
    ranked = rank_players("mayflower", MAYFLOWER_ROWS, [(str(n), b) for n, b in enumerate(new)])
    store.correct_results(db, play_id, [store.ResultInput(seat, p.total, p.rank, p.breakdown)
                                        for seat, p in enumerate(ranked.players)])


CHANGES = [
    ("correct", lambda db, group_id, plays: correct(db, plays[0], 10)),  # Ben now wins play 1
    ("leave-out", lambda db, group_id, plays: store.set_play_counted(db, plays[1], False)),
    ("count-again", lambda db, group_id, plays: store.set_play_counted(db, plays[2], True)),
    ("undo-the-correction", lambda db, group_id, plays: store.undo_last_event(db, plays[0])),
    ("reopen", lambda db, group_id, plays: store.undo_last_event(db, plays[0])),
    ("trash", lambda db, group_id, plays: store.trash_play(db, plays[2], "2024-02-01T00:00:00+00:00")),
    ("restore", lambda db, group_id, plays: store.restore_trashed_play(db, group_id, plays[2])),
    ("delete", lambda db, group_id, plays: store.delete_play(db, plays[1])),
]


def test_the_winners_sums_follow_every_change(client, db, history):
    plays = [play.id for play in store.list_plays(db, history, "finished")][::-1]
    assert kept(db, history) == recount(db, history) != {}
    for name, change in CHANGES:
        change(db, history, plays)
        assert kept(db, history) == recount(db, history), name
    store.delete_group(db, history)
    assert db.execute("SELECT COUNT(*) FROM winner_row_points").fetchone()[0] == 0


def test_the_migration_counts_the_winners_sums_of_the_plays_finished_before_it(app, client, db, history):
    expected = recount(db, history)
    db.execute("DROP TABLE winner_row_points")
    for trigger in ("results_winner_points_insert", "results_winner_points_delete",
                    "plays_winner_points_update"):
        db.execute(f"DROP TRIGGER {trigger}")
    number = store.MIGRATIONS.index(m019_winner_row_points) + 1
    db.execute("DELETE FROM migrations WHERE number = ?", [number])
    assert store.migrate(db) == [number]
    assert kept(db, history) == expected
