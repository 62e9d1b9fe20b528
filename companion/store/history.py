"""History and statistics of a group's finished plays, and corrections of their results."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from sqlite_utils import Database

# --- history and statistics ----------------------------------------------------------------------

HISTORY_PAGE_SIZE = 30
SCORE_PERIODS = 24  # most points per line on the scores-over-time chart (then: averages over time)


@dataclass(frozen=True)
class HistoryFilter:
    """Which finished plays the history shows; None means any."""

    game: str | None = None
    player_id: int | None = None
    since: date | None = None  # first day shown
    until: date | None = None  # last day shown


@dataclass(frozen=True)
class Standing:
    """One player's place in a finished play."""

    player_id: int
    name: str
    colour: str  # the colour played in this play
    seat: int
    total: int
    rank: int


@dataclass(frozen=True)
class HistoryEntry:
    play_id: int
    game: str
    ended_at: str
    counted: bool
    standings: tuple[Standing, ...]  # by rank, then seat


@dataclass(frozen=True)
class HistoryPage:
    entries: tuple[HistoryEntry, ...]
    total: int  # plays matching the filter
    offset: int
    limit: int

    @property
    def has_newer(self) -> bool:
        return self.offset > 0

    @property
    def has_older(self) -> bool:
        return self.offset + len(self.entries) < self.total


def _history_where(group_id: int, chosen: HistoryFilter) -> tuple[str, list[Any]]:
    where, params = ["p.group_id = ?", "p.status = 'finished'", "p.deleted_at IS NULL"], [group_id]
    if chosen.game is not None:
        where.append("p.game = ?")
        params.append(chosen.game)
    if chosen.player_id is not None:
        where.append("EXISTS (SELECT 1 FROM seats s WHERE s.play_id = p.id AND s.player_id = ?)")
        params.append(chosen.player_id)
    # ended_at is an ISO timestamp, so whole days compare as text prefixes
    if chosen.since is not None:
        where.append("p.ended_at >= ?")
        params.append(chosen.since.isoformat())
    if chosen.until is not None:
        where.append("p.ended_at < ?")
        params.append((chosen.until + timedelta(days=1)).isoformat())
    return " AND ".join(where), params


def _standings(db: Database, play_ids: Sequence[int]) -> dict[int, list[Standing]]:
    by_play: dict[int, list[Standing]] = {play_id: [] for play_id in play_ids}
    if not play_ids:
        return by_play
    marks = ",".join("?" * len(play_ids))
    rows = db.execute(
        "SELECT r.play_id, r.player_id, pl.name, s.colour, s.seat, r.total, r.rank FROM results r "
        "JOIN seats s ON s.play_id = r.play_id AND s.player_id = r.player_id "
        f"JOIN players pl ON pl.id = r.player_id WHERE r.play_id IN ({marks}) ORDER BY r.rank, s.seat",
        list(play_ids),
    ).fetchall()
    for play_id, *standing in rows:
        by_play[play_id].append(Standing(*standing))
    return by_play


def history(db: Database, group_id: int, chosen: HistoryFilter = HistoryFilter(),
            offset: int = 0, limit: int = HISTORY_PAGE_SIZE) -> HistoryPage:
    """A page of the group's finished plays matching ``chosen``, newest first."""
    where, params = _history_where(group_id, chosen)
    total = db.execute(f"SELECT COUNT(*) FROM plays p WHERE {where}", params).fetchone()[0]
    rows = db.execute(
        f"SELECT p.id, p.game, p.ended_at, p.counted FROM plays p WHERE {where} "
        "ORDER BY p.ended_at DESC, p.id DESC LIMIT ? OFFSET ?",
        [*params, limit, offset],
    ).fetchall()
    standings = _standings(db, [row[0] for row in rows])
    entries = tuple(HistoryEntry(play_id, game, ended_at, bool(counted), tuple(standings[play_id]))
                    for play_id, game, ended_at, counted in rows)
    return HistoryPage(entries, total, offset, limit)


def played_games(db: Database, group_id: int) -> list[str]:
    """The games the group has finished plays of, by slug."""
    rows = db.execute(
        "SELECT DISTINCT game FROM plays WHERE group_id = ? AND status = 'finished' AND deleted_at IS NULL "
        "ORDER BY game", [group_id]
    ).fetchall()
    return [row[0] for row in rows]


@dataclass(frozen=True)
class PlayerStatistics:
    """One player's record over the plays chosen (only the plays they took part in)."""

    player_id: int
    name: str
    colour: str
    plays: int
    wins: int  # a shared victory is a win for every winner
    average: float
    best: int
    worst: int
    current_streak: int  # wins in a row up to their latest play
    longest_streak: int

    @property
    def win_rate(self) -> float:
        return self.wins / self.plays if self.plays else 0.0


@dataclass(frozen=True)
class GameStatistics:
    game: str
    plays: int
    average: float  # of every player's score
    best: int
    best_by: str
    worst: int
    latest: str  # when it was last finished


@dataclass(frozen=True)
class Rivalry:
    """How often ``player_id`` finished ahead of ``opponent_id`` in the plays they both took part in."""

    player_id: int
    opponent_id: int
    ahead: int
    together: int


@dataclass(frozen=True)
class ScorePeriod:
    """One play of a game, or a stretch of time with several, and each player's (average) score in it."""

    first: str  # ended_at of the period's first and last play
    last: str
    averages: Mapping[int, float]  # player id → average score; players who did not play are absent


@dataclass(frozen=True)
class Statistics:
    game: str | None  # None: all games
    plays: int
    players: tuple[PlayerStatistics, ...]  # most wins first
    games: tuple[GameStatistics, ...]  # most played first
    rivalries: Mapping[tuple[int, int], Rivalry]
    periods: tuple[ScorePeriod, ...] = ()  # only for one game
    rows: tuple[str, ...] = ()  # the breakdown rows of that game, alphabetical (the page orders them)
    row_averages: Mapping[int, Mapping[str, float]] = field(default_factory=dict)  # player → row → avg


_RUN_SHIFT = 1 << 32  # more than any run of wins is long


def _chosen(game: str | None, table: str = "r") -> str:
    """Which results every statistic is over: the group's counted plays, of all games or of one.

    Two spellings rather than ``(:game IS NULL OR …)``, which would keep SQLite from using the index.
    """
    chosen = f"{table}.group_id = :group AND {table}.counted = 1"
    if table == "p":  # results.counted already leaves out plays in the trash; plays.counted does not
        chosen += " AND p.deleted_at IS NULL"
    return chosen if game is None else f"{chosen} AND {table}.game = :game"


def _game_player_records(db: Database, params: Mapping[str, Any]) -> list[tuple]:
    return db.execute(
        "SELECT r.game, r.player_id, COUNT(*), SUM(r.rank = 1), SUM(r.total), MAX(r.total), MIN(r.total) "
        f"FROM results r WHERE {_chosen(params['game'])} GROUP BY r.game, r.player_id",
        params,
    ).fetchall()


def _streaks(db: Database, params: Mapping[str, Any]) -> dict[int, tuple[int, int, int]]:
    """Player id → (longest run of wins, losses before their last run of wins, length of that run).

    Gaps and islands: counting a player's losses so far in time order, the wins of one run share the
    count. Their last run is their current streak if its count is all their losses.
    """
    rows = db.execute(
        f"""
        WITH ordered AS (
            SELECT r.player_id, r.rank = 1 AS won,
                   SUM(r.rank <> 1) OVER (PARTITION BY r.player_id ORDER BY r.ended_at, r.play_id
                                          ROWS UNBOUNDED PRECEDING) AS losses
            FROM results r WHERE {_chosen(params['game'])}
        ), runs AS (
            SELECT player_id, losses, COUNT(*) AS length FROM ordered WHERE won GROUP BY player_id, losses
        )
        SELECT player_id, MAX(length), MAX(losses * :shift + length) FROM runs GROUP BY player_id
        """,
        {**params, "shift": _RUN_SHIFT},
    ).fetchall()
    # the last run is the one with the most losses before it; one MAX finds it and keeps its length
    return {player_id: (longest, *divmod(last, _RUN_SHIFT)) for player_id, longest, last in rows}


def _rivalries(db: Database, params: Mapping[str, Any]) -> dict[tuple[int, int], Rivalry]:
    """Head to head: the running sums the results' triggers keep (a self-join on each play's results)."""
    game = "" if params["game"] is None else " AND game = :game"
    rows = db.execute(
        "SELECT player_id, opponent_id, SUM(ahead), SUM(together) FROM rivalries "
        f"WHERE group_id = :group{game} GROUP BY player_id, opponent_id HAVING SUM(together) > 0",
        params,
    ).fetchall()
    return {(a, b): Rivalry(a, b, ahead, together) for a, b, ahead, together in rows}


def _periods(db: Database, params: Mapping[str, Any], periods: int) -> tuple[ScorePeriod, ...]:
    """Each player's scores over time: one point per play while there are at most ``periods`` plays,
    else the average per equal stretch of time (stretches without plays are left out)."""
    where = f"p.status = 'finished' AND {_chosen(params['game'], 'p')}"
    plays, first, last = db.execute(
        f"SELECT COUNT(*), MIN(p.ended_at), MAX(p.ended_at) FROM plays p WHERE {where}", params).fetchone()
    if not plays:
        return ()
    if plays <= periods:
        rows = db.execute(
            f"SELECT p.id, p.ended_at, p.ended_at, r.player_id, r.total FROM plays p "
            f"JOIN results r ON r.play_id = p.id WHERE {where} ORDER BY p.ended_at, p.id", params).fetchall()
    else:
        rows = db.execute(
            f"""
            SELECT CASE WHEN :days > 0
                        THEN MIN(CAST((julianday(r.ended_at) - julianday(:first)) * :periods / :days
                                      AS INTEGER), :periods - 1)
                        ELSE 0 END AS period,
                   MIN(r.ended_at), MAX(r.ended_at), r.player_id, AVG(r.total)
            FROM results r WHERE {_chosen(params['game'])} GROUP BY period, r.player_id
            """,
            {**params, "periods": periods, "first": first,
             "days": _days_between(first, last)},
        ).fetchall()
    spans: dict[int, list[str]] = {}
    averages: dict[int, dict[int, float]] = {}
    for period, start, end, player_id, average in rows:
        span = spans.setdefault(period, [start, end])
        span[0], span[1] = min(span[0], start), max(span[1], end)
        averages.setdefault(period, {})[player_id] = average
    ordered = sorted(spans, key=lambda period: (spans[period][0], period))
    return tuple(ScorePeriod(spans[p][0], spans[p][1], averages[p]) for p in ordered)


def _days_between(first: str, last: str) -> float:
    return (datetime.fromisoformat(last) - datetime.fromisoformat(first)).total_seconds() / 86400


def statistics(db: Database, group_id: int, game: str | None = None,
               periods: int = SCORE_PERIODS) -> Statistics:
    """The group's statistics over its counted finished plays, of all games or of one.

    Each figure is an SQL aggregate over indexed tables; Python only combines the few rows per player
    and game that come back.
    """
    params = {"group": group_id, "game": game}
    records = _game_player_records(db, params)
    names = {pid: (name, colour) for pid, name, colour in db.execute(
        "SELECT id, name, colour FROM players WHERE group_id = ?", [group_id]).fetchall()}
    streaks = _streaks(db, params)
    per_player: dict[int, list[int]] = {}  # plays, wins, points, best, worst
    best_in_game: dict[str, tuple[int, int]] = {}
    for game_slug, player_id, plays, wins, points, best, worst in records:
        mine = per_player.setdefault(player_id, [0, 0, 0, best, worst])
        mine[0] += plays
        mine[1] += wins
        mine[2] += points
        mine[3], mine[4] = max(mine[3], best), min(mine[4], worst)
        if game_slug not in best_in_game or best > best_in_game[game_slug][0]:
            best_in_game[game_slug] = (best, player_id)
    players = []
    for pid, (plays, wins, points, best, worst) in per_player.items():
        longest, last_losses, last_length = streaks.get(pid, (0, -1, 0))
        current = last_length if last_losses == plays - wins else 0
        players.append(PlayerStatistics(pid, *names[pid], plays, wins, points / plays, best, worst,
                                        current, longest))
    players.sort(key=lambda s: (-s.wins, -s.win_rate, s.name.casefold()))
    game_rows = db.execute(
        f"SELECT p.game, COUNT(*), MAX(p.ended_at) FROM plays p "
        f"WHERE p.status = 'finished' AND {_chosen(game, 'p')} GROUP BY p.game", params
    ).fetchall()
    games = []
    for game_slug, plays, latest in game_rows:
        mine = [r for r in records if r[0] == game_slug]
        best, best_id = best_in_game[game_slug]
        games.append(GameStatistics(game_slug, plays, sum(r[4] for r in mine) / sum(r[2] for r in mine),
                                    best, names[best_id][0], min(r[6] for r in mine), latest))
    games.sort(key=lambda g: (-g.plays, g.game))
    total_plays = sum(g.plays for g in games)
    rivalries = _rivalries(db, params)
    if game is None:
        return Statistics(None, total_plays, tuple(players), tuple(games), rivalries)
    row_averages: dict[int, dict[str, float]] = {}
    for player_id, row, points in db.execute(
            "SELECT player_id, row, points FROM row_points WHERE group_id = :group AND game = :game",
            params).fetchall():
        if player_id in per_player:
            row_averages.setdefault(player_id, {})[row] = points / per_player[player_id][0]
    rows = tuple(sorted({row for averages in row_averages.values() for row in averages}))
    return Statistics(game, total_plays, tuple(players), tuple(games), rivalries,
                      _periods(db, params, periods) if total_plays else (), rows, row_averages)
