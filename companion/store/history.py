"""History and statistics of a group's finished plays."""

import itertools
import json
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlite_utils import Database

from companion.store.errors import grouped, marks
from companion.store.transactions import write_transaction

HISTORY_PAGE_SIZE = 30
SCORE_PERIODS = 24  # most points per line on the scores-over-time chart (then: averages over time)


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

    @property
    def has_newer(self) -> bool:
        return self.offset > 0

    @property
    def has_older(self) -> bool:
        return self.offset + len(self.entries) < self.total


def _as_stored(moment: datetime | str | None) -> str | None:
    """An aware time (or ISO 8601 text with its offset) as the end times are stored: ISO 8601 in UTC."""
    if moment is None:
        return None
    moment = datetime.fromisoformat(moment) if isinstance(moment, str) else moment
    if moment.tzinfo is None:
        raise ValueError(f"a bound of the history needs its time zone: {moment.isoformat()}")
    return moment.astimezone(UTC).isoformat()


def _history_where(group_id: int, game: str | None, player_id: int | None, start: datetime | str | None,
                   end: datetime | str | None) -> tuple[str, list[Any]]:
    conditions = {"p.game = ?": game,
                  "EXISTS (SELECT 1 FROM seats s WHERE s.play_id = p.id AND s.player_id = ?)": player_id,
                  # ended_at is ISO 8601 in UTC, so it compares as text with a bound written the same way
                  "p.ended_at >= ?": _as_stored(start),
                  "p.ended_at < ?": _as_stored(end)}
    chosen = {condition: value for condition, value in conditions.items() if value is not None}
    return (" AND ".join(["p.group_id = ? AND p.status = 'finished' AND p.deleted_at IS NULL", *chosen]),
            [group_id, *chosen.values()])


def history(db: Database, group_id: int, game: str | None = None, player_id: int | None = None,
            start: datetime | str | None = None, end: datetime | str | None = None, offset: int = 0,
            limit: int = HISTORY_PAGE_SIZE) -> HistoryPage:
    """A page of the group's finished plays of ``game`` with ``player_id`` that ended from ``start`` up to,
    not including, ``end`` (aware times or ISO 8601 text with an offset; None: any), newest first."""
    where, params = _history_where(group_id, game, player_id, start, end)
    total = db.execute(f"SELECT COUNT(*) FROM plays p WHERE {where}", params).fetchone()[0]
    rows = db.execute(f"SELECT p.id, p.game, p.ended_at, p.counted FROM plays p WHERE {where} ORDER BY "
                      "p.ended_at DESC, p.id DESC LIMIT ? OFFSET ?", [*params, limit, offset]).fetchall()
    standings = grouped(db.execute(
        "SELECT r.play_id, r.player_id, pl.name, s.colour, s.seat, r.total, r.rank FROM results r "
        "JOIN seats s ON s.play_id = r.play_id AND s.player_id = r.player_id JOIN players pl ON "
        f"pl.id = r.player_id WHERE r.play_id IN ({marks(rows)}) ORDER BY r.rank, s.seat",
        [row[0] for row in rows]), Standing)
    entries = tuple(HistoryEntry(play_id, slug, ended_at, bool(counted), tuple(standings.get(play_id, ())))
                    for play_id, slug, ended_at, counted in rows)
    return HistoryPage(entries, total, offset)


def played_games(db: Database, group_id: int) -> list[str]:
    """The games the group has finished plays of, by slug."""
    return [game for (game,) in db.execute(
        "SELECT game FROM game_records WHERE group_id = ? AND finished > 0 ORDER BY game", [group_id])]


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


# --- the kept records -----------------------------------------------------------------------------

_RECORD_COLUMNS = ("plays, wins, points, best, worst, current_streak, longest_streak, last_ended_at, "
                   "last_play_id")


def _record_results(db: Database, group_id: int, game: str, player_id: int,
                    after: tuple[str, int]) -> list[tuple]:
    """A player's counted results in a game ('' for all games) after ``after`` (end, play id), in order."""
    scope = "" if game == "" else "AND game = :game "
    return db.execute(
        "SELECT rank = 1, total, ended_at, play_id FROM results "
        f"WHERE group_id = :group AND counted = 1 {scope}AND player_id = :player "
        "AND (ended_at, play_id) > (:ended_at, :play_id) ORDER BY ended_at, play_id",
        {"group": group_id, "game": game, "player": player_id, "ended_at": after[0], "play_id": after[1]},
    ).fetchall()


def _continued(record: list, results: list[tuple]) -> list:
    """The record (columns as in _RECORD_COLUMNS) with ``results`` added after its last play."""
    plays, wins, points, best, worst, current, longest, last_ended_at, last_play_id = record
    for won, total, ended_at, play_id in results:
        plays, wins, points = plays + 1, wins + won, points + total
        best = total if best is None else max(best, total)
        worst = total if worst is None else min(worst, total)
        current = current + 1 if won else 0
        longest = max(longest, current)
        last_ended_at, last_play_id = ended_at, play_id
    return [plays, wins, points, best, worst, current, longest, last_ended_at, last_play_id]


_EMPTY_RECORD = [0, 0, 0, None, None, 0, 0, "", 0]


def refresh_records(db: Database, group_id: int) -> None:
    """Bring the group's player records that changes marked up to date: results added after a record's
    last play continue it (streaks go on); any other change recounts that record alone."""
    if not db.execute("SELECT 1 FROM player_records WHERE group_id = ? AND stale > 0 LIMIT 1",
                      [group_id]).fetchone():
        return
    with write_transaction(db):
        marked = db.execute(
            f"SELECT game, player_id, pending, stale, {_RECORD_COLUMNS} FROM player_records "
            "WHERE group_id = ? AND stale > 0", [group_id]).fetchall()
        for game, player_id, pending, stale, *record in marked:
            after = (record[-2], record[-1])
            later = _record_results(db, group_id, game, player_id, after) if stale == 1 else None
            if later is None or len(later) != pending:
                record, later = list(_EMPTY_RECORD), _record_results(db, group_id, game, player_id, ("", 0))
            record = _continued(record, later)
            if record[0] == 0:
                db["player_records"].delete((group_id, game, player_id))
            else:
                db["player_records"].update((group_id, game, player_id), {
                    **dict(zip(_RECORD_COLUMNS.split(", "), record, strict=True)), "pending": 0, "stale": 0})


def _periods(db: Database, params: Mapping[str, Any], plays: int, periods: int) -> tuple[ScorePeriod, ...]:
    """Each player's scores over time: one point per play while there are at most ``periods`` plays,
    else the average per stretch of equally many months (from the sums kept per month)."""
    where = ("p.group_id = :group AND p.status = 'finished' AND p.counted = 1 AND p.deleted_at IS NULL "
             "AND p.game = :game")
    if plays <= periods:
        return _per_play(db.execute(
            f"SELECT p.id, p.ended_at, r.player_id, r.total FROM plays p "
            f"JOIN results r ON r.play_id = p.id WHERE {where} ORDER BY p.ended_at, p.id", params).fetchall())
    months = db.execute(
        "SELECT month, player_id, results, points FROM monthly_scores "
        "WHERE group_id = :group AND game = :game AND results > 0", params).fetchall()
    # the first and last play of a stretch: two index lookups
    return _stretches(months, periods, lambda since, until: db.execute(
        f"SELECT (SELECT MIN(p.ended_at) FROM plays p WHERE {where} AND p.ended_at >= :since), "
        f"(SELECT MAX(p.ended_at) FROM plays p WHERE {where} AND p.ended_at < :until)",
        {**params, "since": since, "until": until}).fetchone())


def _stretches(months: Sequence[tuple], periods: int,
               first_and_last: Callable[[str, str], tuple[str, str]]) -> tuple[ScorePeriod, ...]:
    """The average scores per stretch of equally many months with plays, in order, from (month, player,
    results, points) rows; ``first_and_last(since, until)``: the ends of its first and last play."""
    if not months:
        return ()
    index = {month: _month_number(month) for month in {month for month, *_ in months}}
    first = min(index.values())
    span = max(index.values()) - first + 1
    sums: dict[int, dict[int, list[int]]] = {}
    stretch_months: dict[int, list[int]] = {}
    for month, player_id, results, points in months:
        stretch = (index[month] - first) * min(periods, span) // span
        mine = sums.setdefault(stretch, {}).setdefault(player_id, [0, 0])
        mine[0], mine[1] = mine[0] + results, mine[1] + points
        stretch_months.setdefault(stretch, []).append(index[month])
    return tuple(ScorePeriod(*first_and_last(_month_text(min(stretch_months[stretch])),
                                             _month_text(max(stretch_months[stretch]) + 1)),
                             {pid: points / results for pid, (results, points) in players.items()})
                 for stretch, players in sorted(sums.items()))


def _month_number(month: str) -> int:
    year, number = month.split("-")
    return int(year) * 12 + int(number) - 1


def _month_text(number: int) -> str:
    return f"{number // 12:04d}-{number % 12 + 1:02d}"


def _per_play(rows: Iterable[tuple]) -> tuple[ScorePeriod, ...]:
    """A point per play from (play, end, player, score) rows in the order of their end."""
    return tuple(ScorePeriod(scores[0][0], scores[0][0], {player_id: total for _, player_id, total in scores})
                 for scores in grouped(rows).values())


@dataclass(frozen=True)
class _Sources:
    """What the statistics are assembled from, whether kept on write or counted over a period."""

    records: list[tuple]  # (game, player, plays, wins, points, best, worst, current, longest streak)
    streaks: Mapping[int, tuple[int, int]]  # player → (current, longest) over what the page shows
    game_rows: list[tuple]  # (game, counted plays, latest end)
    rivalries: Mapping[tuple[int, int], Rivalry]
    row_points: list[tuple]  # (player, row, points) of the one game shown
    periods: Any  # (plays in total) → the scores-over-time chart's periods


def _kept_sources(db: Database, group_id: int, game: str | None, periods: int) -> _Sources:
    """The sources from the records kept as plays are finished, corrected or deleted."""
    refresh_records(db, group_id)
    params = {"group": group_id, "game": game}
    scope = "" if game is None else " AND game = :game"
    records = db.execute(
        "SELECT game, player_id, plays, wins, points, best, worst, current_streak, longest_streak "
        f"FROM player_records WHERE group_id = :group AND game <> ''{scope} ORDER BY game, player_id",
        params).fetchall()
    # the streaks over what the page shows: the one game's, or all games' together (game '')
    streaks = {player_id: (current, longest) for player_id, current, longest in db.execute(
        "SELECT player_id, current_streak, longest_streak FROM player_records WHERE group_id = ? "
        "AND game = ?", [group_id, game or ""]).fetchall()}
    game_rows = db.execute(f"SELECT game, plays, latest FROM game_records WHERE group_id = :group{scope} "
                           "AND plays > 0", params).fetchall()
    row_points = [] if game is None else db.execute(
        "SELECT player_id, row, points FROM row_points WHERE group_id = :group AND game = :game",
        params).fetchall()
    # head to head: the running sums the results' triggers keep (a self-join on each play's results)
    rivalries = {(a, b): Rivalry(a, b, ahead, together) for a, b, ahead, together in db.execute(
        "SELECT player_id, opponent_id, SUM(ahead), SUM(together) FROM rivalries "
        f"WHERE group_id = :group{scope} GROUP BY player_id, opponent_id HAVING SUM(together) > 0",
        params).fetchall()}
    return _Sources(records, streaks, game_rows, rivalries, row_points,
                    lambda plays: _periods(db, params, plays, periods))


def _bounds(period: tuple[datetime, datetime]) -> dict[str, str]:
    """A period's start and end as the end times are stored (ISO 8601 in UTC), for a range query."""
    start, end = map(_as_stored, period)
    return {"start": start, "end": end}


def _period_sources(db: Database, group_id: int, game: str | None, period: tuple[datetime, datetime],
                    periods: int) -> _Sources:
    """The sources counted from the results of the counted plays that ended within ``period``: one range
    query on an index of their end, so the cost grows with the plays inside the period alone."""
    scope = "" if game is None else " AND game = :game"
    rows = db.execute(
        "SELECT play_id, game, player_id, ended_at, rank, total, breakdown "
        "FROM results INDEXED BY results_by_end "
        f"WHERE group_id = :group AND counted = 1 AND ended_at >= :start AND ended_at < :end{scope} "
        "ORDER BY ended_at, play_id, rank",
        {"group": group_id, "game": game, **_bounds(period)}).fetchall()
    by_record: dict[tuple[str, int], list] = {}
    by_game: dict[str, list] = {}  # plays, latest
    by_play: dict[int, list[tuple[int, int]]] = {}
    row_points: dict[tuple[int, str], int] = {}
    for play_id, game_slug, player_id, ended_at, rank, total, breakdown in rows:
        for key in ((game_slug, player_id), ("", player_id)):
            record = by_record.setdefault(key, list(_EMPTY_RECORD))
            by_record[key] = _continued(record, [(rank == 1, total, ended_at, play_id)])
        players = by_play.setdefault(play_id, [])
        if not players:
            counts = by_game.setdefault(game_slug, [0, ended_at])
            counts[0], counts[1] = counts[0] + 1, max(counts[1], ended_at)
        players.append((player_id, rank))
        if game is not None:
            for row, points in json.loads(breakdown).items():
                row_points[(player_id, row)] = row_points.get((player_id, row), 0) + points
    records = [(g, pid, *record[:7]) for (g, pid), record in sorted(by_record.items()) if g != ""]
    streaks = {pid: (record[5], record[6]) for (g, pid), record in by_record.items() if g == (game or "")}
    pairs: dict[tuple[int, int], list[int]] = {}
    for standings in by_play.values():
        for (a, rank_a), (b, rank_b) in itertools.permutations(standings, 2):
            pair = pairs.setdefault((a, b), [0, 0])
            pair[0], pair[1] = pair[0] + (rank_a < rank_b), pair[1] + 1
    rivalries = {key: Rivalry(*key, ahead, together) for key, (ahead, together) in pairs.items()}
    return _Sources(records, streaks, [(g, plays, latest) for g, (plays, latest) in by_game.items()],
                    rivalries, [(pid, row, points) for (pid, row), points in row_points.items()],
                    lambda plays: _periods_of_rows(rows, plays, periods))


def _periods_of_rows(rows: list[tuple], plays: int, periods: int) -> tuple[ScorePeriod, ...]:
    """The scores-over-time chart of a period's results, in the stretches ``_periods`` makes."""
    if plays <= periods:
        return _per_play((play_id, ended_at, player_id, total)
                         for play_id, _game, player_id, ended_at, _rank, total, _b in rows)
    months: dict[tuple[str, int], list[int]] = {}
    for _play, _game, player_id, ended_at, _rank, total, _b in rows:
        sums = months.setdefault((ended_at[:7], player_id), [0, 0])
        sums[0], sums[1] = sums[0] + 1, sums[1] + total

    def first_and_last(since: str, until: str) -> tuple[str, str]:
        ends = [row[3] for row in rows if since <= row[3] < until]
        return min(ends), max(ends)
    return _stretches([(m, pid, *sums) for (m, pid), sums in months.items()], periods, first_and_last)


def statistics(db: Database, group_id: int, game: str | None = None,
               periods: int = SCORE_PERIODS, period: tuple[datetime, datetime] | None = None,
               lowest_wins: Collection[str] = ()) -> Statistics:
    """The group's statistics over its counted finished plays, of all games or of one, of all time (from
    the records kept on every write: the page costs the same at a hundred plays and a hundred thousand)
    or of the plays that ended within ``period`` (start, end: aware times), counted from their results.
    In the games ``lowest_wins`` names, a best score is the lowest."""
    sources = (_kept_sources(db, group_id, game, periods) if period is None
               else _period_sources(db, group_id, game, period, periods))
    # the records keep each player's highest and lowest score: the best and the worst, or the other way
    records = [(game_slug, player_id, plays, wins, points,
                *((lowest, highest) if game_slug in lowest_wins else (highest, lowest)), *streaks)
               for game_slug, player_id, plays, wins, points, highest, lowest, *streaks in sources.records]
    names = {pid: (name, colour) for pid, name, colour in db.execute(
        "SELECT id, name, colour FROM players WHERE group_id = ?", [group_id]).fetchall()}
    per_player: dict[int, list[int]] = {}  # plays, wins, points
    extremes: dict[int, list[tuple[bool, int, int]]] = {}  # (lowest wins, best, worst) per game played
    for game_slug, player_id, plays, wins, points, best, worst, _current, _longest in records:
        mine = per_player.setdefault(player_id, [0, 0, 0])
        mine[:] = mine[0] + plays, mine[1] + wins, mine[2] + points
        extremes.setdefault(player_id, []).append((game_slug in lowest_wins, best, worst))
    players = []
    for pid, (plays, wins, points) in per_player.items():
        # scores compare only within one way of winning: the highest-wins games, else the lowest-wins ones
        one_way = [e for e in extremes[pid] if not e[0]] or extremes[pid]
        low = one_way[0][0]
        best = (min if low else max)(e[1] for e in one_way)
        worst = (max if low else min)(e[2] for e in one_way)
        current, longest = sources.streaks.get(pid, (0, 0))
        players.append(PlayerStatistics(pid, *names[pid], plays, wins, points / plays, best, worst,
                                        current, longest))
    players.sort(key=lambda s: (-s.wins, -s.win_rate, s.name.casefold()))
    games = []
    for game_slug, plays, latest in sources.game_rows:
        mine = [r for r in records if r[0] == game_slug]
        low = game_slug in lowest_wins
        best = (min if low else max)(mine, key=lambda r: r[5])  # the first player holding it
        worst = (max if low else min)(r[6] for r in mine)
        games.append(GameStatistics(game_slug, plays, sum(r[4] for r in mine) / sum(r[2] for r in mine),
                                    best[5], names[best[1]][0], worst, latest))
    games.sort(key=lambda g: (-g.plays, g.game))
    total_plays = sum(g.plays for g in games)
    if game is None:
        return Statistics(None, total_plays, tuple(players), tuple(games), sources.rivalries)
    row_averages: dict[int, dict[str, float]] = {}
    for player_id, row, points in sources.row_points:
        if player_id in per_player:
            row_averages.setdefault(player_id, {})[row] = points / per_player[player_id][0]
    rows = tuple(sorted({row for averages in row_averages.values() for row in averages}))
    return Statistics(game, total_plays, tuple(players), tuple(games), sources.rivalries,
                      sources.periods(total_plays) if total_plays else (), rows, row_averages)


def winners_row_points(db: Database, group_id: int, game: str,
                       period: tuple[datetime, datetime] | None = None) -> dict[str, tuple[int, int]]:
    """Row → (everyone's points, the winners' points) over the counted results of ``game``: of all
    time from the sums kept on write, else of the plays that ended within ``period``."""
    params = {"group": group_id, "game": game, **(_bounds(period) if period else {})}
    if period is None:
        sql = ("SELECT a.row, SUM(a.points), COALESCE(MAX(w.points), 0) FROM row_points a "
               "LEFT JOIN winner_row_points w ON (w.group_id, w.game, w.row) = (a.group_id, a.game, a.row) "
               "WHERE a.group_id = :group AND a.game = :game GROUP BY a.row")
    else:
        sql = ("SELECT j.key, SUM(j.value), SUM(CASE WHEN r.rank = 1 THEN j.value ELSE 0 END) "
               "FROM results r INDEXED BY results_by_end, json_each(r.breakdown) j "
               "WHERE r.group_id = :group AND r.counted = 1 AND r.ended_at >= :start AND r.ended_at < :end "
               "AND r.game = :game GROUP BY j.key")
    return {row: (points, won) for row, points, won in db.execute(sql, params).fetchall()}
