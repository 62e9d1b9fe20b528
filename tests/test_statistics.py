"""Every statistic on a hand-built history: ties, shared victories, an uncounted play, a late joiner."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime

import pytest

from companion import store
from companion.games.common import rank_players
from companion.store.migrations.m024_row_points_results import m024_row_points_results
from companion.views.history import in_pad_order

GW_ROWS = ("track", "largest_group", "offices", "wanted", "influence")
COLOURS = ("red", "blue", "green", "yellow")


def gold_west_breakdown(total: int) -> dict[str, int]:
    """A Gold West breakdown adding up to ``total``: 8 points outside the score track."""
    return {"track": total - 8, "largest_group": 4, "offices": 3, "wanted": -1, "influence": 2}


def finish(db, group_id: int, game: str, scores, counted: bool = True) -> int:
    """Start and finish a play with ``scores`` as (player id, total) in seat order; returns its id."""
    play_id = store.start_play(db, group_id, game, [(pid, COLOURS[n]) for n, (pid, _) in enumerate(scores)])
    if game == "gold-west":
        breakdowns = [gold_west_breakdown(total) for _, total in scores]
        rows = GW_ROWS
    else:
        breakdowns = [{"total": total} for _, total in scores]
        rows = ("total",)
    result = rank_players(game, rows, [(str(pid), b) for (pid, _), b in zip(scores, breakdowns, strict=True)])
    store.finish_play(db, play_id, {"breakdowns": breakdowns},
                      [store.ResultInput(seat, p.total, p.rank, p.breakdown)
                       for seat, p in enumerate(result.players)])
    if not counted:
        store.set_play_counted(db, play_id, False)
    return play_id


@pytest.fixture
def db(tmp_path):
    connection = store.connect(tmp_path / "stats.sqlite3")
    store.migrate(connection)
    yield connection
    connection.close()


@pytest.fixture
def club(db):
    """The hand-built history (see the module's expectations below); Dan joins after play 5."""
    group = store.create_group(db, "Club")
    ids = {name: store.add_player(db, group.id, name, colour)
           for name, colour in (("Anna", "red"), ("Ben", "blue"), ("Cara", "green"))}
    a, b, c = ids["Anna"], ids["Ben"], ids["Cara"]
    plays = [
        finish(db, group.id, "gold-west", [(a, 30), (b, 25), (c, 20)]),  # 1: Anna
        finish(db, group.id, "gold-west", [(a, 28), (b, 28), (c, 10)]),  # 2: Anna and Ben share the win
        finish(db, group.id, "gold-west", [(a, 15), (b, 22), (c, 18)]),  # 3: Ben
        finish(db, group.id, "gold-west", [(a, 5), (b, 1), (c, 50)], counted=False),  # 4: left out
        finish(db, group.id, "mayflower", [(a, 40), (b, 35)]),  # 5: Anna
    ]
    ids["Dan"] = d = store.add_player(db, group.id, "Dan", "yellow")
    plays += [
        finish(db, group.id, "gold-west", [(b, 30), (c, 12), (d, 31)]),  # 6: Dan
        finish(db, group.id, "gold-west", [(b, 33), (d, 20)]),  # 7: Ben
    ]
    return group.id, ids, plays


def by_name(stats: store.Statistics) -> dict[str, store.PlayerStatistics]:
    return {p.name: p for p in stats.players}


# name: plays, wins, average, best, worst, current streak, longest streak
ALL_GAMES = {
    "Anna": (4, 3, 28.25, 40, 15, 1, 2),  # W W L W (play 4 does not count)
    "Ben": (6, 3, 173 / 6, 35, 22, 1, 2),  # L W W L L W
    "Cara": (4, 0, 15.0, 20, 10, 0, 0),
    "Dan": (2, 1, 25.5, 31, 20, 0, 1),  # joined later: W L
}
GOLD_WEST = {
    "Anna": (3, 2, 73 / 3, 30, 15, 0, 2),  # W W L
    "Ben": (5, 3, 138 / 5, 33, 22, 1, 2),  # L W W L W
    "Cara": (4, 0, 15.0, 20, 10, 0, 0),
    "Dan": (2, 1, 25.5, 31, 20, 0, 1),
}


@pytest.mark.parametrize(("game", "expected"), [(None, ALL_GAMES), ("gold-west", GOLD_WEST)],
                         ids=["all games", "gold west"])
@pytest.mark.parametrize("name", ["Anna", "Ben", "Cara", "Dan"])
def test_each_players_record(db, club, game, expected, name):
    group_id, _, _ = club
    player = by_name(store.statistics(db, group_id, game))[name]
    plays, wins, average, best, worst, current, longest = expected[name]
    assert (player.plays, player.wins, player.best, player.worst) == (plays, wins, best, worst)
    assert player.average == pytest.approx(average)
    assert player.win_rate == pytest.approx(wins / plays)
    assert (player.current_streak, player.longest_streak) == (current, longest)


def test_players_are_listed_by_wins_then_win_rate(db, club):
    group_id, _, _ = club
    assert [p.name for p in store.statistics(db, group_id).players] == ["Anna", "Ben", "Dan", "Cara"]


def test_a_shared_victory_is_a_win_for_every_winner(db, club):
    group_id, ids, _ = club
    finish(db, group_id, "mayflower", [(ids["Cara"], 9), (ids["Dan"], 9)])
    stats = by_name(store.statistics(db, group_id, "mayflower"))
    assert (stats["Cara"].wins, stats["Dan"].wins) == (1, 1)
    assert store.statistics(db, group_id, "mayflower").rivalries[ids["Cara"], ids["Dan"]].ahead == 0


def test_the_play_left_out_counts_again_when_marked(db, club):
    group_id, _, plays = club
    assert store.statistics(db, group_id).plays == 6
    store.set_play_counted(db, plays[3], True)
    cara = by_name(store.statistics(db, group_id))["Cara"]
    assert (cara.plays, cara.wins, cara.best, cara.longest_streak) == (5, 1, 50, 1)
    assert store.statistics(db, group_id).plays == 7


# (player, opponent): how often the player finished ahead, of the plays both took part in
HEAD_TO_HEAD = {
    ("Anna", "Ben"): (2, 4), ("Ben", "Anna"): (1, 4),  # play 2 was a tie: ahead for neither
    ("Anna", "Cara"): (2, 3), ("Cara", "Anna"): (1, 3),
    ("Ben", "Cara"): (4, 4), ("Cara", "Ben"): (0, 4),
    ("Ben", "Dan"): (1, 2), ("Dan", "Ben"): (1, 2),
    ("Cara", "Dan"): (0, 1), ("Dan", "Cara"): (1, 1),
}


@pytest.mark.parametrize(("pair", "expected"), HEAD_TO_HEAD.items(),
                         ids=[" vs ".join(pair) for pair in HEAD_TO_HEAD])
def test_head_to_head(db, club, pair, expected):
    group_id, ids, _ = club
    rivalry = store.statistics(db, group_id).rivalries[ids[pair[0]], ids[pair[1]]]
    assert (rivalry.ahead, rivalry.together) == expected


def test_players_who_never_met_have_no_head_to_head(db, club):
    group_id, ids, _ = club
    rivalries = store.statistics(db, group_id).rivalries
    assert (ids["Anna"], ids["Dan"]) not in rivalries and (ids["Dan"], ids["Anna"]) not in rivalries
    assert len(rivalries) == len(HEAD_TO_HEAD)


def test_games_summary(db, club):
    group_id, _, _ = club
    games = {g.game: g for g in store.statistics(db, group_id).games}
    assert [g.game for g in store.statistics(db, group_id).games] == ["gold-west", "mayflower"]
    gold = games["gold-west"]
    assert (gold.plays, gold.best, gold.best_by, gold.worst) == (5, 33, "Ben", 10)
    assert gold.average == pytest.approx(322 / 14)
    mayflower = games["mayflower"]
    assert (mayflower.plays, mayflower.best, mayflower.best_by, mayflower.worst) == (1, 40, "Anna", 35)


ALL_TIME = (datetime(2000, 1, 1, tzinfo=UTC), datetime(2200, 1, 1, tzinfo=UTC))


@pytest.mark.parametrize("period", [None, ALL_TIME], ids=["kept", "counted-over-a-period"])
def test_where_the_lowest_total_wins_the_best_score_is_the_lowest(db, club, period):
    group_id, _, _ = club
    stats = store.statistics(db, group_id, "gold-west", period=period, lowest_wins={"gold-west"})
    assert {name: (p.best, p.worst) for name, p in by_name(stats).items()} == {
        name: (worst, best) for name, (*_, best, worst, _current, _longest) in GOLD_WEST.items()}
    [gold] = stats.games
    assert (gold.best, gold.best_by, gold.worst) == (10, "Cara", 33)


@pytest.mark.parametrize(("name", "track"), [("Anna", 73 / 3 - 8), ("Ben", 138 / 5 - 8), ("Cara", 7.0),
                                             ("Dan", 17.5)])
def test_average_breakdown_per_row(db, club, name, track):
    group_id, ids, _ = club
    stats = store.statistics(db, group_id, "gold-west")
    assert stats.rows == tuple(sorted(GW_ROWS))
    assert in_pad_order(stats).rows == GW_ROWS  # the page shows them as the scoring pad lists them
    averages = stats.row_averages[ids[name]]
    assert averages["track"] == pytest.approx(track)
    assert {row: averages[row] for row in GW_ROWS[1:]} == {"largest_group": 4, "offices": 3, "wanted": -1,
                                                            "influence": 2}
    assert sum(averages.values()) == pytest.approx(by_name(stats)[name].average)


def test_scores_over_time_one_point_per_play_while_there_are_few(db, club):
    group_id, ids, _ = club
    periods = store.statistics(db, group_id, "gold-west").periods
    assert [p.averages.get(ids["Anna"]) for p in periods] == [30, 28, 15, None, None]
    assert [p.averages.get(ids["Dan"]) for p in periods] == [None, None, None, 31, 20]


def test_scores_over_time_average_stretches_of_months_when_there_are_many_plays(db, club):
    group_id, ids, plays = club
    with store.write_transaction(db):
        for play_id, month in zip(plays, (1, 2, 3, 4, 5, 10, 11), strict=True):
            db.execute("UPDATE plays SET ended_at = ? WHERE id = ?",
                       [f"2024-{month:02d}-07T21:00:00+00:00", play_id])
    periods = store.statistics(db, group_id, "gold-west", periods=2).periods
    # January to November in two stretches of months: plays 1–3, then plays 6 and 7
    assert [(p.first[:10], p.last[:10]) for p in periods] == [("2024-01-07", "2024-03-07"),
                                                              ("2024-10-07", "2024-11-07")]
    assert [p.averages.get(ids["Ben"]) for p in periods] == [pytest.approx(25), pytest.approx(31.5)]
    assert [p.averages.get(ids["Cara"]) for p in periods] == [pytest.approx(16), 12]
    assert [p.averages.get(ids["Anna"]) for p in periods] == [pytest.approx(73 / 3), None]


def test_the_all_games_view_has_no_charts_of_rows(db, club):
    group_id, _, _ = club
    stats = store.statistics(db, group_id)
    assert stats.game is None and stats.periods == () and stats.rows == ()


def test_a_group_without_plays(db):
    group = store.create_group(db, "New")
    store.add_player(db, group.id, "Anna", "red")
    stats = store.statistics(db, group.id)
    assert (stats.plays, stats.players, stats.games, dict(stats.rivalries)) == (0, (), (), {})
    assert store.statistics(db, group.id, "gold-west").periods == ()


def test_other_groups_do_not_leak_in(db, club):
    group_id, _, _ = club
    other = store.create_group(db, "Other")
    zed = store.add_player(db, other.id, "Zed", "red")
    yan = store.add_player(db, other.id, "Yan", "blue")
    finish(db, other.id, "gold-west", [(zed, 99), (yan, 1)])
    assert [p.name for p in store.statistics(db, other.id).players] == ["Zed", "Yan"]
    assert store.statistics(db, group_id).plays == 6


def test_a_correction_changes_the_statistics_and_undo_restores_them(db, club):
    group_id, ids, plays = club
    before = store.statistics(db, group_id)
    old = {r.player_id: r for r in store.play_results(db, plays[2])}
    corrected = [store.ResultInput(0, 25, 1, gold_west_breakdown(25)),  # Anna now wins play 3
                 store.ResultInput(1, 22, 2, gold_west_breakdown(22)),
                 store.ResultInput(2, 18, 3, gold_west_breakdown(18))]
    store.correct_results(db, plays[2], corrected)
    anna = by_name(store.statistics(db, group_id))["Anna"]
    assert (anna.wins, anna.longest_streak, anna.current_streak) == (4, 4, 4)
    assert store.statistics(db, group_id).rivalries[ids["Anna"], ids["Ben"]].ahead == 3
    assert store.list_events(db, plays[2])[-1].kind == store.CORRECTION_EVENT
    undone = store.undo_last_event(db, plays[2])
    assert undone.kind == store.CORRECTION_EVENT
    assert {r.player_id: r for r in store.play_results(db, plays[2])} == old
    assert store.statistics(db, group_id) == before
    assert store.get_play(db, plays[2]).status == "finished"


def test_deleting_a_play_takes_it_out_of_the_statistics(db, club):
    group_id, ids, plays = club
    store.delete_play(db, plays[5])  # Dan's win
    stats = store.statistics(db, group_id)
    dan = by_name(stats)["Dan"]
    assert (dan.plays, dan.wins) == (1, 0)
    assert (ids["Cara"], ids["Dan"]) not in stats.rivalries


NO_LONGER_COUNTED = {
    "deleted": lambda db, play_id: store.delete_play(db, play_id),
    "left-out": lambda db, play_id: store.set_play_counted(db, play_id, False),
    "in-the-trash": lambda db, play_id: store.trash_play(db, play_id, "2024-02-01T00:00:00+00:00"),
}


@pytest.mark.parametrize("change", NO_LONGER_COUNTED.values(), ids=NO_LONGER_COUNTED.keys())
def test_the_rows_of_a_play_no_longer_counted_leave_the_all_time_figures(db, club, change):
    """Mayflower play 5 was scored in totals; another, scored row by row, stops counting: its rows go from the
    breakdown and "where the winners' points come from", as over a period covering every play."""
    group_id, ids, _ = club
    by_rows = store.start_play(db, group_id, "mayflower", [(ids["Anna"], "red"), (ids["Ben"], "blue")])
    store.finish_play(db, by_rows, {}, [store.ResultInput(0, 25, 1, {"track": 20, "roads": 5}),
                                        store.ResultInput(1, 6, 2, {"track": 6, "roads": 0})])
    everything = (datetime(2000, 1, 1, tzinfo=UTC), datetime(2999, 1, 1, tzinfo=UTC))

    def kept_and_period():
        return [(store.statistics(db, group_id, "mayflower", period=period),
                 store.winners_row_points(db, group_id, "mayflower", period))
                for period in (None, everything)]
    kept, period = kept_and_period()
    assert kept == period
    assert kept[0].rows == ("roads", "total", "track")
    assert kept[0].row_averages[ids["Ben"]]["roads"] == 0  # a row of no points still counts
    change(db, by_rows)
    kept, period = kept_and_period()
    assert kept == period
    assert kept[0].rows == ("total",) and kept[1] == {"total": (75, 40)}


# --- the running sums kept by triggers always equal a recount from the results -------------------

def recount_rivalries(db, group_id):
    rows = db.execute(
        "SELECT p.game, a.player_id, b.player_id, SUM(a.rank < b.rank), COUNT(*) FROM plays p "
        "JOIN results a ON a.play_id = p.id "
        "JOIN results b ON b.play_id = p.id AND b.player_id <> a.player_id "
        "WHERE p.group_id = ? AND p.counted = 1 AND p.deleted_at IS NULL "
        "GROUP BY p.game, a.player_id, b.player_id",
        [group_id]).fetchall()
    return {(game, a, b): (ahead, together) for game, a, b, ahead, together in rows}


def kept_rivalries(db, group_id):
    rows = db.execute("SELECT game, player_id, opponent_id, ahead, together FROM rivalries "
                      "WHERE group_id = ? AND together <> 0", [group_id]).fetchall()
    return {(game, a, b): (ahead, together) for game, a, b, ahead, together in rows}


def recount_row_points(db, group_id):
    """(game, player, row) → (points, results) over the counted results: a row of 0 points is kept."""
    totals: dict = {}
    for game, player_id, breakdown in db.execute(
            "SELECT p.game, r.player_id, r.breakdown FROM plays p JOIN results r ON r.play_id = p.id "
            "WHERE p.group_id = ? AND p.counted = 1 AND p.deleted_at IS NULL", [group_id]).fetchall():
        for row, points in json.loads(breakdown).items():
            key = (game, player_id, row)
            kept_points, results = totals.get(key, (0, 0))
            totals[key] = (kept_points + points, results + 1)
    return totals


def kept_row_points(db, group_id):
    rows = db.execute("SELECT game, player_id, row, points, results FROM row_points WHERE group_id = ?",
                      [group_id]).fetchall()
    return {(game, player_id, row): (points, results) for game, player_id, row, points, results in rows}


def copies_match_their_plays(db):
    return db.execute(
        "SELECT COUNT(*) FROM results r JOIN plays p ON p.id = r.play_id "
        "WHERE r.group_id IS NOT p.group_id OR r.game IS NOT p.game "
        "OR r.counted IS NOT (p.counted AND p.deleted_at IS NULL) "
        "OR r.ended_at IS NOT p.ended_at").fetchone()[0] == 0


def kept_counts(db, group_id):
    games = db.execute("SELECT game, finished, plays, latest FROM game_records "
                       "WHERE group_id = ? AND finished > 0", [group_id]).fetchall()
    months = db.execute("SELECT game, player_id, month, results, points FROM monthly_scores "
                        "WHERE group_id = ? AND results <> 0", [group_id]).fetchall()
    return sorted(games), sorted(months)


def recount_counts(db, group_id):
    games = db.execute(
        "SELECT game, COUNT(*), SUM(counted), MAX(CASE WHEN counted THEN ended_at END) FROM plays "
        "WHERE group_id = ? AND status = 'finished' AND deleted_at IS NULL GROUP BY game",
        [group_id]).fetchall()
    months = db.execute(
        "SELECT p.game, r.player_id, substr(p.ended_at, 1, 7), COUNT(*), SUM(r.total) FROM results r "
        "JOIN plays p ON p.id = r.play_id WHERE p.group_id = ? AND p.counted = 1 AND p.deleted_at IS NULL "
        "GROUP BY p.game, r.player_id, substr(p.ended_at, 1, 7)", [group_id]).fetchall()
    return sorted(games), sorted(months)


def every_view(db, group_id):
    return [store.statistics(db, group_id, game, periods=3) for game in (None, "gold-west", "mayflower")]


def test_a_change_recounts_only_the_records_it_touches(db, club):
    group_id, ids, plays = club
    store.statistics(db, group_id)  # every record up to date
    store.delete_play(db, plays[2])  # Anna, Ben and Cara's Gold West play
    marked = db.execute("SELECT game, player_id, stale FROM player_records WHERE group_id = ? AND stale > 0",
                        [group_id]).fetchall()
    assert sorted(marked) == sorted((game, ids[name], 2) for game in ("", "gold-west")
                                    for name in ("Anna", "Ben", "Cara"))
    # a new play only continues the records of its players, from their last play
    finish(db, group_id, "mayflower", [(ids["Dan"], 10), (ids["Ben"], 12)])
    store.statistics(db, group_id)
    finish(db, group_id, "mayflower", [(ids["Dan"], 14), (ids["Ben"], 12)])
    marked = db.execute("SELECT game, player_id, pending, stale FROM player_records "
                        "WHERE group_id = ? AND stale > 0", [group_id]).fetchall()
    assert sorted(marked) == sorted((game, ids[name], 1, 1) for game in ("", "mayflower")
                                    for name in ("Ben", "Dan"))
    assert by_name(store.statistics(db, group_id, "mayflower"))["Dan"].current_streak == 1


def test_an_imported_group_has_the_same_statistics(db, club):
    group_id, _, _ = club
    copy = store.restore_group(db, store.dump_group(db, group_id))

    def shown(stats):  # the same figures under the same names (the copy's players have other ids)
        return ([(p.name, p.plays, p.wins, p.average, p.best, p.worst, p.current_streak, p.longest_streak)
                 for p in stats.players], stats.games, stats.plays,
                [(period.first, period.last, sorted(period.averages.values())) for period in stats.periods])

    for game in (None, "gold-west", "mayflower"):
        assert shown(store.statistics(db, copy.id, game)) == shown(store.statistics(db, group_id, game))


def test_running_sums_equal_a_recount_after_any_sequence_of_changes(db, club):
    group_id, ids, plays = club
    rng = random.Random(7)
    people = list(ids.values())
    for step in range(60):
        finished = [p for p in plays if store.get_play(db, p).status == "finished"]
        reopened = [p for p in plays if p not in finished]
        action = rng.choice(["finish", "finish", "count", "correct", "undo", "refinish", "trash", "delete"])
        if action == "finish" or not finished:
            table = rng.sample(people, rng.randint(2, 4))
            plays.append(finish(db, group_id, rng.choice(["gold-west", "mayflower"]),
                                [(pid, rng.randint(0, 40)) for pid in table], counted=rng.random() > 0.2))
        elif action == "count":
            play_id = rng.choice(finished)
            store.set_play_counted(db, play_id, not store.play_counted(db, play_id))
        elif action == "correct":
            play_id = rng.choice(finished)
            results = sorted(store.play_results(db, play_id), key=lambda r: r.seat)
            rows = tuple(results[0].breakdown)
            new = [{row: rng.randint(-5, 20) for row in rows} for _ in results]
            ranked = rank_players("any", rows, [(str(n), b) for n, b in enumerate(new)])
            store.correct_results(db, play_id, [store.ResultInput(seat, p.total, p.rank, p.breakdown)
                                                for seat, p in enumerate(ranked.players)])
        elif action == "undo":
            store.undo_last_event(db, rng.choice(finished))  # a correction, or the final tally: reopens
        elif action == "trash":  # into the trash: out of the statistics
            play_id = rng.choice(finished)
            db.execute("UPDATE plays SET deleted_at = '2024-02-01T00:00:00+00:00' WHERE id = ?", [play_id])
            plays.remove(play_id)
        elif action == "refinish" and reopened:
            # finished again: it keeps its first date, so it lands before later plays
            play_id = rng.choice(reopened)
            seats = store.get_play(db, play_id).seats
            totals = [rng.randint(0, 40) for _ in seats]
            store.finish_play(db, play_id, {}, [
                store.ResultInput(n, total, 1 + sum(other > total for other in totals), {"total": total})
                for n, total in enumerate(totals)])
        else:
            play_id = rng.choice(finished)
            store.delete_play(db, play_id)
            plays.remove(play_id)
        assert kept_rivalries(db, group_id) == recount_rivalries(db, group_id), step
        assert kept_row_points(db, group_id) == recount_row_points(db, group_id), step
        assert copies_match_their_plays(db), step
        assert kept_counts(db, group_id) == recount_counts(db, group_id), step
        kept = every_view(db, group_id)
        db.execute("UPDATE player_records SET stale = 2")  # count every record again from the results
        assert kept == every_view(db, group_id), step


def test_deleting_the_group_leaves_no_running_sums(db, club):
    group_id, _, _ = club
    store.delete_group(db, group_id)
    assert db.execute("SELECT COUNT(*) FROM rivalries").fetchone()[0] == 0
    assert db.execute("SELECT COUNT(*) FROM row_points").fetchone()[0] == 0


def test_the_migration_fills_the_running_sums_from_existing_results(tmp_path):
    connection = store.connect(tmp_path / "old.sqlite3")
    # a database as the first migration left it, with a finished play
    connection.execute("CREATE TABLE migrations (number INTEGER PRIMARY KEY, name TEXT, applied_at TEXT)")
    with store.write_transaction(connection):
        store.MIGRATIONS[0](connection)
        connection.execute("INSERT INTO migrations VALUES (1, 'm001_initial', '2024-01-01')")
    with store.write_transaction(connection):
        group_id = connection.execute("INSERT INTO groups (name, token, join_code, created_at) "
                                      "VALUES ('Old', 'token', 'ABCDEFGH', '2024-01-01')").lastrowid
    anna = store.add_player(connection, group_id, "Anna", "red")
    ben = store.add_player(connection, group_id, "Ben", "blue")
    play_id = store.start_play(connection, group_id, "gold-west", [(anna, "red"), (ben, "blue")])
    # finished as the code of that time did it (today's finish_play writes columns added later)
    with store.write_transaction(connection):
        connection.conn.executemany(
            "INSERT INTO results (play_id, player_id, total, rank, breakdown) VALUES (?, ?, ?, ?, ?)",
            [(play_id, anna, 20, 1, json.dumps(gold_west_breakdown(20))),
             (play_id, ben, 10, 2, json.dumps(gold_west_breakdown(10)))])
        connection.execute("UPDATE plays SET status = 'finished', ended_at = ? WHERE id = ?",
                           ["2024-01-02T20:00:00", play_id])
    assert store.migrate(connection)[0] == 2
    assert kept_rivalries(connection, group_id) == {("gold-west", anna, ben): (1, 1),
                                                    ("gold-west", ben, anna): (0, 1)}
    assert kept_row_points(connection, group_id) == recount_row_points(connection, group_id)
    assert by_name(store.statistics(connection, group_id))["Anna"].wins == 1
    connection.close()


def test_the_migration_counts_the_results_behind_each_row_and_drops_the_rows_left_at_none(tmp_path):
    connection = store.connect(tmp_path / "old.sqlite3")
    # a database of the release before: a deleted play's rows were kept at 0 points
    number = store.MIGRATIONS.index(m024_row_points_results) + 1
    connection.execute("CREATE TABLE migrations (number INTEGER PRIMARY KEY, name TEXT, applied_at TEXT)")
    for earlier, migration in enumerate(store.MIGRATIONS[:number - 1], start=1):
        migration(connection)
        connection.execute("INSERT INTO migrations VALUES (?, ?, '2024-01-01')",
                           [earlier, migration.__name__])
    group_id = store.create_group(connection, "Old").id
    anna, ben = (store.add_player(connection, group_id, name, colour) for name, colour in (("Anna", "red"),
                                                                                            ("Ben", "blue")))
    finish(connection, group_id, "gold-west", [(anna, 30), (ben, 8)])  # Ben's track: 0 points
    finish(connection, group_id, "mayflower", [(anna, 40), (ben, 35)])
    store.delete_play(connection, finish(connection, group_id, "gold-west", [(anna, 20), (ben, 25)]))
    by_rows = store.start_play(connection, group_id, "mayflower", [(anna, "red"), (ben, "blue")])
    store.finish_play(connection, by_rows, {}, [store.ResultInput(0, 25, 1, {"track": 20, "roads": 5}),
                                                store.ResultInput(1, 6, 2, {"track": 6, "roads": 0})])
    store.delete_play(connection, by_rows)
    left = connection.execute("SELECT game, row FROM row_points WHERE points = 0").fetchall()
    assert sorted(left) == [("gold-west", "track"), ("mayflower", "roads"), ("mayflower", "roads"),
                            ("mayflower", "track"), ("mayflower", "track")]
    assert store.migrate(connection) == [number]
    assert kept_row_points(connection, group_id) == recount_row_points(connection, group_id)
    assert kept_row_points(connection, group_id)["gold-west", ben, "track"] == (0, 1)
    assert store.statistics(connection, group_id, "mayflower").rows == ("total",)
    # and the triggers count the results from now on
    store.delete_play(connection, finish(connection, group_id, "gold-west", [(anna, 14), (ben, 15)]))
    left_out = finish(connection, group_id, "gold-west", [(anna, 14), (ben, 15)])
    store.set_play_counted(connection, left_out, False)
    assert kept_row_points(connection, group_id) == recount_row_points(connection, group_id)
    connection.close()


# --- the queries read indexes, not whole tables ----------------------------------------------------

def test_statistics_queries_read_indexes_only(db, club):
    group_id, _, _ = club
    plans = []
    original = db.execute

    def explain(sql, params=None):
        if sql.lstrip().upper().startswith(("SELECT", "WITH")):
            plans.extend(row[3] for row in original("EXPLAIN QUERY PLAN " + sql, params or []).fetchall())
        return original(sql, params) if params is not None else original(sql)

    db.execute = explain
    try:
        store.statistics(db, group_id)
        store.statistics(db, group_id, "gold-west")
    finally:
        del db.execute
    full_scans = [step for step in plans if step.startswith("SCAN ") and " USING " not in step
                  and step.split()[1] in ("results", "r", "plays", "p", "rivalries", "row_points")]
    assert plans and not full_scans, full_scans
    assert any("results_by_player" in step for step in plans)
    assert any("results_by_game" in step for step in plans)
