"""Storage: the SQLite schema, its numbered migrations and one function per query.

Every function takes a ``sqlite_utils.Database``; nothing here knows about Flask. A play is an
append-only event log; the table state is derived from it by the game rules, and the ``results``
table holds the final scores of finished plays for the history and statistics.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import sqlite3
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlite_utils import Database

from companion.games import GAMES
from companion.games.common import FINAL_EVENT, RulesError

# Join codes avoid letters and digits that look alike when read off a phone (0/O, 1/I/L).
JOIN_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
JOIN_CODE_LENGTH = 8
BUSY_TIMEOUT_SECONDS = 10


class StaleVersion(RulesError):
    """An edit based on a view of the play that another phone has changed since."""


class NotFound(LookupError):
    """A row that does not exist (or not in the group asked about)."""


@dataclass(frozen=True)
class Group:
    id: int
    name: str
    token: str
    join_code: str
    created_at: str


@dataclass(frozen=True)
class Player:
    id: int
    group_id: int
    name: str
    colour: str


@dataclass(frozen=True)
class SeatRow:
    seat: int
    player_id: int
    name: str
    colour: str


@dataclass(frozen=True)
class Play:
    id: int
    group_id: int
    game: str
    options: Mapping[str, Any]
    status: str  # "active" or "finished"
    started_at: str
    ended_at: str | None
    version: int
    seats: tuple[SeatRow, ...]


@dataclass(frozen=True)
class Event:
    seq: int
    kind: str
    payload: Mapping[str, Any]
    created_at: str


@dataclass(frozen=True)
class ResultRow:
    player_id: int
    name: str
    seat: int
    total: int
    rank: int
    breakdown: Mapping[str, int]


@dataclass(frozen=True)
class FinishedPlay:
    play: Play
    results: tuple[ResultRow, ...]


def now() -> str:
    """The current time as an ISO 8601 string in UTC, to the second."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


# --- connection and migrations -------------------------------------------------------------------

def connect(path: str | Path) -> Database:
    """Open the database with the settings every connection needs."""
    # the timeout is SQLite's busy timeout; a connection is opened per request, so it must be cheap:
    # no sqlite-utils plugins, no recursive triggers (the statistics triggers never recurse)
    conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_SECONDS, check_same_thread=False)
    db = Database(conn, recursive_triggers=False, execute_plugins=False)
    db.execute("PRAGMA foreign_keys = ON")
    return db


def _m001_initial(db: Database) -> None:
    db.executescript(
        """
        CREATE TABLE groups (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            token TEXT NOT NULL UNIQUE,
            join_code TEXT NOT NULL UNIQUE,
            created_at TEXT NOT NULL
        );
        CREATE TABLE players (
            id INTEGER PRIMARY KEY,
            group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            colour TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE UNIQUE INDEX players_group_name ON players(group_id, name COLLATE NOCASE);
        CREATE TABLE plays (
            id INTEGER PRIMARY KEY,
            group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
            game TEXT NOT NULL,
            options TEXT NOT NULL DEFAULT '{}',
            status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'finished')),
            counted INTEGER NOT NULL DEFAULT 1,
            started_at TEXT NOT NULL,
            ended_at TEXT,
            version INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX plays_group_status_ended ON plays(group_id, status, ended_at);
        CREATE INDEX plays_group_game_ended ON plays(group_id, game, ended_at);
        CREATE TABLE seats (
            play_id INTEGER NOT NULL REFERENCES plays(id) ON DELETE CASCADE,
            seat INTEGER NOT NULL,
            player_id INTEGER NOT NULL REFERENCES players(id),
            colour TEXT NOT NULL,
            PRIMARY KEY (play_id, seat),
            UNIQUE (play_id, player_id)
        );
        CREATE INDEX seats_player ON seats(player_id);
        CREATE TABLE events (
            id INTEGER PRIMARY KEY,
            play_id INTEGER NOT NULL REFERENCES plays(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            kind TEXT NOT NULL,
            payload TEXT NOT NULL,
            created_at TEXT NOT NULL,
            UNIQUE (play_id, seq)
        );
        CREATE TABLE results (
            play_id INTEGER NOT NULL REFERENCES plays(id) ON DELETE CASCADE,
            player_id INTEGER NOT NULL REFERENCES players(id),
            total INTEGER NOT NULL,
            rank INTEGER NOT NULL,
            breakdown TEXT NOT NULL,
            PRIMARY KEY (play_id, player_id)
        );
        CREATE INDEX results_player ON results(player_id, play_id);
        CREATE TABLE join_failures (
            id INTEGER PRIMARY KEY,
            client TEXT NOT NULL,
            at REAL NOT NULL
        );
        CREATE INDEX join_failures_client_at ON join_failures(client, at);
        """
    )


# Upserts into the statistics' running sums (row_points, rivalries): add to a row that exists.
_ADD_POINTS = "ON CONFLICT (group_id, game, player_id, row) DO UPDATE SET points = points + excluded.points"
_ADD_PAIRS = ("ON CONFLICT (group_id, game, player_id, opponent_id) DO UPDATE SET "
              "ahead = ahead + excluded.ahead, together = together + excluded.together")


def _m002_statistics(db: Database) -> None:
    """Indexes, copies and running sums that turn the group statistics into plain index scans.

    - Each result row carries a copy of its play's group, game, counted flag and end time, so a
      player's results come out of one index in time order (streaks need neither sort nor join).
    - ``row_points`` keeps each player's sum per breakdown row and game over the counted plays, so the
      average breakdown needs no JSON parsing when the page is shown.
    - ``rivalries`` keeps, per game, how often each player finished ahead of each other player and how
      often they played together: the self-join on results, done once per play as it is stored.
    Triggers keep all three right on every write: finishing, correcting, undoing, counting, deleting
    and importing. A result row's triggers see its play's other results (row triggers run per row).
    """
    for statement in (
        "ALTER TABLE results ADD COLUMN group_id INTEGER",
        "ALTER TABLE results ADD COLUMN game TEXT",
        "ALTER TABLE results ADD COLUMN counted INTEGER",
        "ALTER TABLE results ADD COLUMN ended_at TEXT",
        "UPDATE results SET (group_id, game, counted, ended_at) = "
        "(SELECT group_id, game, counted, ended_at FROM plays WHERE plays.id = results.play_id)",
        "CREATE INDEX results_by_game "
        "ON results(group_id, counted, game, player_id, ended_at, play_id, rank, total)",
        "CREATE INDEX results_by_player "
        "ON results(group_id, counted, player_id, ended_at, play_id, rank, total)",
        "CREATE INDEX plays_statistics ON plays(group_id, status, counted, game, ended_at)",
        """CREATE TABLE row_points (
            group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
            game TEXT NOT NULL,
            player_id INTEGER NOT NULL REFERENCES players(id) ON DELETE CASCADE,
            row TEXT NOT NULL,
            points INTEGER NOT NULL,
            PRIMARY KEY (group_id, game, player_id, row)
        )""",
        """CREATE TABLE rivalries (
            group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
            game TEXT NOT NULL,
            player_id INTEGER NOT NULL REFERENCES players(id) ON DELETE CASCADE,
            opponent_id INTEGER NOT NULL REFERENCES players(id) ON DELETE CASCADE,
            ahead INTEGER NOT NULL,  -- plays in which player_id finished ahead of opponent_id
            together INTEGER NOT NULL,  -- plays they both took part in
            PRIMARY KEY (group_id, game, player_id, opponent_id)
        )""",
        "INSERT INTO row_points (group_id, game, player_id, row, points) "
        "SELECT r.group_id, r.game, r.player_id, j.key, SUM(j.value) "
        "FROM results r, json_each(r.breakdown) j WHERE r.counted = 1 "
        "GROUP BY r.group_id, r.game, r.player_id, j.key",
        "INSERT INTO rivalries (group_id, game, player_id, opponent_id, ahead, together) "
        "SELECT a.group_id, a.game, a.player_id, b.player_id, SUM(a.rank < b.rank), COUNT(*) "
        "FROM results a JOIN results b ON b.play_id = a.play_id AND b.player_id <> a.player_id "
        "WHERE a.counted = 1 GROUP BY a.group_id, a.game, a.player_id, b.player_id",
        f"""CREATE TRIGGER results_statistics_insert AFTER INSERT ON results
        BEGIN
            UPDATE results SET (group_id, game, counted, ended_at) =
                (SELECT group_id, game, counted, ended_at FROM plays WHERE plays.id = NEW.play_id)
            WHERE play_id = NEW.play_id AND player_id = NEW.player_id;
            INSERT INTO row_points (group_id, game, player_id, row, points)
            SELECT p.group_id, p.game, NEW.player_id, j.key, j.value
            FROM plays p, json_each(NEW.breakdown) j WHERE p.id = NEW.play_id AND p.counted = 1
            {_ADD_POINTS};
            INSERT INTO rivalries (group_id, game, player_id, opponent_id, ahead, together)
            SELECT p.group_id, p.game, pair.player_id, pair.opponent_id, pair.ahead, 1
            FROM plays p, (
                SELECT NEW.player_id AS player_id, o.player_id AS opponent_id, NEW.rank < o.rank AS ahead
                FROM results o WHERE o.play_id = NEW.play_id AND o.player_id <> NEW.player_id
                UNION ALL
                SELECT o.player_id, NEW.player_id, o.rank < NEW.rank
                FROM results o WHERE o.play_id = NEW.play_id AND o.player_id <> NEW.player_id
            ) AS pair
            WHERE p.id = NEW.play_id AND p.counted = 1
            {_ADD_PAIRS};
        END""",
        # the copies on OLD, not the play: deleting a play removes its results after the play row
        f"""CREATE TRIGGER results_statistics_delete AFTER DELETE ON results WHEN OLD.counted = 1
        BEGIN
            INSERT INTO row_points (group_id, game, player_id, row, points)
            SELECT OLD.group_id, OLD.game, OLD.player_id, j.key, -j.value FROM json_each(OLD.breakdown) j
            WHERE true
            {_ADD_POINTS};
            INSERT INTO rivalries (group_id, game, player_id, opponent_id, ahead, together)
            SELECT OLD.group_id, OLD.game, pair.player_id, pair.opponent_id, -pair.ahead, -1
            FROM (
                SELECT OLD.player_id AS player_id, o.player_id AS opponent_id, OLD.rank < o.rank AS ahead
                FROM results o WHERE o.play_id = OLD.play_id
                UNION ALL
                SELECT o.player_id, OLD.player_id, o.rank < OLD.rank
                FROM results o WHERE o.play_id = OLD.play_id
            ) AS pair
            WHERE true
            {_ADD_PAIRS};
        END""",
        f"""CREATE TRIGGER plays_statistics_update AFTER UPDATE OF group_id, game, counted, ended_at ON plays
        BEGIN
            INSERT INTO row_points (group_id, game, player_id, row, points)
            SELECT OLD.group_id, OLD.game, r.player_id, j.key, -j.value
            FROM results r, json_each(r.breakdown) j WHERE r.play_id = OLD.id AND OLD.counted = 1
            {_ADD_POINTS};
            INSERT INTO row_points (group_id, game, player_id, row, points)
            SELECT NEW.group_id, NEW.game, r.player_id, j.key, j.value
            FROM results r, json_each(r.breakdown) j WHERE r.play_id = NEW.id AND NEW.counted = 1
            {_ADD_POINTS};
            INSERT INTO rivalries (group_id, game, player_id, opponent_id, ahead, together)
            SELECT OLD.group_id, OLD.game, a.player_id, b.player_id, -(a.rank < b.rank), -1
            FROM results a JOIN results b ON b.play_id = a.play_id AND b.player_id <> a.player_id
            WHERE a.play_id = OLD.id AND OLD.counted = 1
            {_ADD_PAIRS};
            INSERT INTO rivalries (group_id, game, player_id, opponent_id, ahead, together)
            SELECT NEW.group_id, NEW.game, a.player_id, b.player_id, a.rank < b.rank, 1
            FROM results a JOIN results b ON b.play_id = a.play_id AND b.player_id <> a.player_id
            WHERE a.play_id = NEW.id AND NEW.counted = 1
            {_ADD_PAIRS};
            UPDATE results SET group_id = NEW.group_id, game = NEW.game, counted = NEW.counted,
                               ended_at = NEW.ended_at
            WHERE play_id = NEW.id;
        END""",
    ):
        db.execute(statement)


MIGRATIONS: tuple[Callable[[Database], None], ...] = (_m001_initial, _m002_statistics)


def migrate(db: Database) -> list[int]:
    """Apply the migrations not yet applied, in order; returns their numbers. Safe to run twice."""
    db.execute("PRAGMA journal_mode = WAL")
    db.execute(
        "CREATE TABLE IF NOT EXISTS migrations (number INTEGER PRIMARY KEY, name TEXT, applied_at TEXT)"
    )
    done = {row[0] for row in db.execute("SELECT number FROM migrations").fetchall()}
    applied = []
    for number, migration in enumerate(MIGRATIONS, start=1):
        if number in done:
            continue
        with write_transaction(db):
            migration(db)
            db.execute("INSERT INTO migrations VALUES (?, ?, ?)",
                       [number, migration.__name__.lstrip("_"), now()])
        applied.append(number)
    return applied


def schema_version(db: Database) -> int:
    """The number of the last migration applied (0 for a new database)."""
    if not db["migrations"].exists():
        return 0
    return db.execute("SELECT COALESCE(MAX(number), 0) FROM migrations").fetchone()[0]


@contextlib.contextmanager
def write_transaction(db: Database) -> Iterator[Database]:
    """A transaction that takes the write lock at once, so that read-check-write is race free."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.rollback()
        raise
    db.execute("COMMIT")


# --- groups and players --------------------------------------------------------------------------

def _new_join_code() -> str:
    return "".join(secrets.choice(JOIN_CODE_ALPHABET) for _ in range(JOIN_CODE_LENGTH))


def create_group(db: Database, name: str) -> Group:
    """Create a group with a fresh invite token and join code."""
    with write_transaction(db):
        while True:  # a clash of join codes is astronomically rare; draw again if it happens
            code = _new_join_code()
            if not db.execute("SELECT 1 FROM groups WHERE join_code = ?", [code]).fetchone():
                break
        cursor = db.execute(
            "INSERT INTO groups (name, token, join_code, created_at) VALUES (?, ?, ?, ?)",
            [name, secrets.token_urlsafe(24), code, now()],
        )
        group_id = cursor.lastrowid
    return get_group(db, group_id)


def _group(row: sqlite3.Row | tuple | None) -> Group:
    if row is None:
        raise NotFound("group")
    return Group(*row)


_GROUP_COLUMNS = "id, name, token, join_code, created_at"


def get_group(db: Database, group_id: int) -> Group:
    return _group(db.execute(f"SELECT {_GROUP_COLUMNS} FROM groups WHERE id = ?", [group_id]).fetchone())


def group_by_token(db: Database, token: str) -> Group:
    return _group(db.execute(f"SELECT {_GROUP_COLUMNS} FROM groups WHERE token = ?", [token]).fetchone())


def group_by_join_code(db: Database, code: str) -> Group:
    return _group(
        db.execute(f"SELECT {_GROUP_COLUMNS} FROM groups WHERE join_code = ?", [code]).fetchone()
    )


def groups_by_ids(db: Database, group_ids: Sequence[int]) -> list[Group]:
    """The groups that still exist among ``group_ids``, by name."""
    if not group_ids:
        return []
    marks = ",".join("?" * len(group_ids))
    rows = db.execute(
        f"SELECT {_GROUP_COLUMNS} FROM groups WHERE id IN ({marks}) ORDER BY name COLLATE NOCASE, id",
        list(group_ids),
    ).fetchall()
    return [Group(*row) for row in rows]


def rename_group(db: Database, group_id: int, name: str) -> None:
    with write_transaction(db):
        db.execute("UPDATE groups SET name = ? WHERE id = ?", [name, group_id])


def delete_group(db: Database, group_id: int) -> None:
    """Delete a group with its players, plays, events and results."""
    with write_transaction(db):
        # results and seats point at players too, so remove the plays first
        db.execute("DELETE FROM plays WHERE group_id = ?", [group_id])
        db.execute("DELETE FROM groups WHERE id = ?", [group_id])


def list_players(db: Database, group_id: int) -> list[Player]:
    rows = db.execute(
        "SELECT id, group_id, name, colour FROM players WHERE group_id = ? ORDER BY name COLLATE NOCASE",
        [group_id],
    ).fetchall()
    return [Player(*row) for row in rows]


def get_player(db: Database, group_id: int, player_id: int) -> Player:
    row = db.execute(
        "SELECT id, group_id, name, colour FROM players WHERE id = ? AND group_id = ?",
        [player_id, group_id],
    ).fetchone()
    if row is None:
        raise NotFound("player")
    return Player(*row)


class DuplicateName(RulesError):
    """A player name the group already has."""


def _check_free_name(db: Database, group_id: int, name: str, except_id: int | None = None) -> None:
    row = db.execute(
        "SELECT id FROM players WHERE group_id = ? AND name = ? COLLATE NOCASE AND id IS NOT ?",
        [group_id, name, except_id],
    ).fetchone()
    if row:
        raise DuplicateName("The group already has a player called %(name)s.", "name", name=name)


def add_player(db: Database, group_id: int, name: str, colour: str) -> int:
    """Add a player to a group; a name the group already has (ignoring case) is refused."""
    with write_transaction(db):
        _check_free_name(db, group_id, name)
        cursor = db.execute(
            "INSERT INTO players (group_id, name, colour, created_at) VALUES (?, ?, ?, ?)",
            [group_id, name, colour, now()],
        )
        return cursor.lastrowid


def update_player(db: Database, group_id: int, player_id: int, name: str, colour: str) -> None:
    with write_transaction(db):
        _check_free_name(db, group_id, name, except_id=player_id)
        db.execute("UPDATE players SET name = ?, colour = ? WHERE id = ? AND group_id = ?",
                   [name, colour, player_id, group_id])


# --- plays and their event logs -------------------------------------------------------------------

def start_play(
    db: Database,
    group_id: int,
    game: str,
    seats: Sequence[tuple[int, str]],
    options: Mapping[str, Any] | None = None,
) -> int:
    """Start a play with ``seats`` as (player id, colour) in turn order; returns the play id."""
    with write_transaction(db):
        for player_id, _ in seats:
            if not db.execute("SELECT 1 FROM players WHERE id = ? AND group_id = ?",
                              [player_id, group_id]).fetchone():
                raise NotFound("player")
        cursor = db.execute(
            "INSERT INTO plays (group_id, game, options, started_at) VALUES (?, ?, ?, ?)",
            [group_id, game, json.dumps(dict(options or {})), now()],
        )
        play_id = cursor.lastrowid
        db.conn.executemany(
            "INSERT INTO seats (play_id, seat, player_id, colour) VALUES (?, ?, ?, ?)",
            [(play_id, seat, player_id, colour) for seat, (player_id, colour) in enumerate(seats)],
        )
    return play_id


def _seats(db: Database, play_id: int) -> tuple[SeatRow, ...]:
    rows = db.execute(
        "SELECT s.seat, s.player_id, p.name, s.colour FROM seats s JOIN players p ON p.id = s.player_id "
        "WHERE s.play_id = ? ORDER BY s.seat",
        [play_id],
    ).fetchall()
    return tuple(SeatRow(*row) for row in rows)


_PLAY_COLUMNS = "id, group_id, game, options, status, started_at, ended_at, version"


def _play(db: Database, row: tuple | None) -> Play:
    if row is None:
        raise NotFound("play")
    play_id, group_id, game, options, status, started_at, ended_at, version = row
    return Play(play_id, group_id, game, json.loads(options), status, started_at, ended_at, version,
                _seats(db, play_id))


def get_play(db: Database, play_id: int) -> Play:
    return _play(db, db.execute(f"SELECT {_PLAY_COLUMNS} FROM plays WHERE id = ?", [play_id]).fetchone())


def list_plays(db: Database, group_id: int, status: str, limit: int = 20) -> list[Play]:
    """Plays of a group with this status, most recent first."""
    rows = db.execute(
        f"SELECT {_PLAY_COLUMNS} FROM plays WHERE group_id = ? AND status = ? "
        "ORDER BY COALESCE(ended_at, started_at) DESC, id DESC LIMIT ?",
        [group_id, status, limit],
    ).fetchall()
    return [_play(db, row) for row in rows]


def delete_play(db: Database, play_id: int) -> None:
    with write_transaction(db):
        db.execute("DELETE FROM plays WHERE id = ?", [play_id])


def list_events(db: Database, play_id: int, after_seq: int = 0) -> list[Event]:
    """The play's events after ``after_seq``, in order."""
    rows = db.execute(
        "SELECT seq, kind, payload, created_at FROM events WHERE play_id = ? AND seq > ? ORDER BY seq",
        [play_id, after_seq],
    ).fetchall()
    return [Event(seq, kind, json.loads(payload), created_at) for seq, kind, payload, created_at in rows]


def last_event(db: Database, play_id: int) -> Event | None:
    """The play's most recent event, if it has any."""
    row = db.execute(
        "SELECT seq, kind, payload, created_at FROM events WHERE play_id = ? ORDER BY seq DESC LIMIT 1",
        [play_id],
    ).fetchone()
    return Event(row[0], row[1], json.loads(row[2]), row[3]) if row else None


def _current_version(db: Database, play_id: int) -> tuple[int, str]:
    row = db.execute("SELECT version, status FROM plays WHERE id = ?", [play_id]).fetchone()
    if row is None:
        raise NotFound("play")
    return row


def _check_version(version: int, expected: int | None) -> None:
    if expected is not None and expected != version:
        raise StaleVersion(
            "Another phone changed this play since you opened it. Here is the current state: "
            "check it and try again."
        )


EventCheck = Callable[[list[Event]], None]


def append_event(
    db: Database,
    play_id: int,
    kind: str,
    payload: Mapping[str, Any],
    check: EventCheck | None = None,
    expected_version: int | None = None,
) -> int:
    """Append an event to an active play; returns the play's new version.

    ``check`` sees the events already stored (with the write lock held) and raises RulesError if the
    new event does not fit them, so two phones entering at once cannot both pass a stale check.
    ``expected_version`` refuses the event if the play changed since the phone looked at it.
    """
    with write_transaction(db):
        version, status = _current_version(db, play_id)
        _check_version(version, expected_version)
        if status != "active":
            raise RulesError("This play is finished. Undo the final tally to change it.")
        if check is not None:
            check(list_events(db, play_id))
        last = db.execute("SELECT COALESCE(MAX(seq), 0) FROM events WHERE play_id = ?", [play_id]).fetchone()
        db.execute(
            "INSERT INTO events (play_id, seq, kind, payload, created_at) VALUES (?, ?, ?, ?, ?)",
            [play_id, last[0] + 1, kind, json.dumps(dict(payload)), now()],
        )
        db.execute("UPDATE plays SET version = version + 1 WHERE id = ?", [play_id])
        return version + 1


def undo_last_event(db: Database, play_id: int, expected_version: int | None = None) -> Event | None:
    """Remove the play's last event and return it (None if there was none).

    Undoing the final tally reopens the play and drops its results; undoing a correction puts back
    the results it replaced.
    """
    with write_transaction(db):
        version, _ = _current_version(db, play_id)
        _check_version(version, expected_version)
        event = last_event(db, play_id)
        if event is None:
            return None
        db.execute("DELETE FROM events WHERE play_id = ? AND seq = ?", [play_id, event.seq])
        if event.kind == FINAL_EVENT:
            db.execute("DELETE FROM results WHERE play_id = ?", [play_id])
            db.execute("UPDATE plays SET status = 'active', ended_at = NULL WHERE id = ?", [play_id])
        elif event.kind == CORRECTION_EVENT:
            _restore_results(db, play_id, event.payload.get("previous"))
        db.execute("UPDATE plays SET version = version + 1 WHERE id = ?", [play_id])
        return event


@dataclass(frozen=True)
class ResultInput:
    """One seat's final score as the rules computed it."""

    seat: int
    total: int
    rank: int
    breakdown: Mapping[str, int]


def finish_play(
    db: Database,
    play_id: int,
    payload: Mapping[str, Any],
    results: Sequence[ResultInput],
    expected_version: int | None = None,
) -> None:
    """Record the final tally as the play's last event, store the results and close the play."""
    with write_transaction(db):
        version, status = _current_version(db, play_id)
        _check_version(version, expected_version)
        if status != "active":
            raise RulesError("This play is already finished.")
        seat_players = dict(db.execute("SELECT seat, player_id FROM seats WHERE play_id = ?", [play_id]))
        last = db.execute("SELECT COALESCE(MAX(seq), 0) FROM events WHERE play_id = ?", [play_id]).fetchone()
        stamp = now()
        db.execute(
            "INSERT INTO events (play_id, seq, kind, payload, created_at) VALUES (?, ?, ?, ?, ?)",
            [play_id, last[0] + 1, FINAL_EVENT, json.dumps(dict(payload)), stamp],
        )
        db.conn.executemany(
            "INSERT INTO results (play_id, player_id, total, rank, breakdown) VALUES (?, ?, ?, ?, ?)",
            [(play_id, seat_players[r.seat], r.total, r.rank, json.dumps(dict(r.breakdown)))
             for r in results],
        )
        db.execute(
            "UPDATE plays SET status = 'finished', ended_at = ?, version = version + 1 WHERE id = ?",
            [stamp, play_id],
        )


def play_results(db: Database, play_id: int) -> tuple[ResultRow, ...]:
    """The final scores of a finished play, by rank then seat."""
    rows = db.execute(
        "SELECT r.player_id, p.name, s.seat, r.total, r.rank, r.breakdown FROM results r "
        "JOIN players p ON p.id = r.player_id "
        "JOIN seats s ON s.play_id = r.play_id AND s.player_id = r.player_id "
        "WHERE r.play_id = ? ORDER BY r.rank, s.seat",
        [play_id],
    ).fetchall()
    return tuple(ResultRow(pid, name, seat, total, rank, json.loads(bd))
                 for pid, name, seat, total, rank, bd in rows)


def recent_finished(db: Database, group_id: int, limit: int = 10) -> list[FinishedPlay]:
    """The group's most recently finished plays with their results."""
    return [FinishedPlay(play, play_results(db, play.id))
            for play in list_plays(db, group_id, "finished", limit)]


# --- join-code rate limit ------------------------------------------------------------------------

def record_join_failure(db: Database, client: str, at: float) -> None:
    with write_transaction(db):
        db.execute("INSERT INTO join_failures (client, at) VALUES (?, ?)", [client, at])
        # keep the table small: a day of history is more than any limit looks at
        db.execute("DELETE FROM join_failures WHERE at < ?", [at - 86400])


def count_join_failures(db: Database, client: str, since: float) -> int:
    return db.execute("SELECT COUNT(*) FROM join_failures WHERE client = ? AND at >= ?",
                      [client, since]).fetchone()[0]


# --- history and statistics ----------------------------------------------------------------------

# A finished play's tally corrected afterwards. The event follows the final event; its payload holds
# per seat the new breakdowns, totals and ranks, and under "previous" the results it replaced, so that
# undoing it puts them back exactly.
CORRECTION_EVENT = "correction"
HISTORY_PAGE_SIZE = 30
SCORE_PERIODS = 24  # most points per line on the scores-over-time chart (then: averages over time)


def _seat_players(db: Database, play_id: int) -> dict[int, int]:
    return dict(db.execute("SELECT seat, player_id FROM seats WHERE play_id = ?", [play_id]).fetchall())


def _write_results(db: Database, play_id: int, seat_players: Mapping[int, int],
                   results: Sequence[ResultInput]) -> None:
    db.execute("DELETE FROM results WHERE play_id = ?", [play_id])
    db.conn.executemany(
        "INSERT INTO results (play_id, player_id, total, rank, breakdown) VALUES (?, ?, ?, ?, ?)",
        [(play_id, seat_players[r.seat], r.total, r.rank, json.dumps(dict(r.breakdown))) for r in results],
    )


def _is_points(value: object) -> bool:
    return type(value) is int and -(10 ** 6) <= value <= 10 ** 6


def _stored_results(entries: object, seat_players: Mapping[int, int]) -> list[ResultInput] | None:
    """The results kept in a correction event, or None if they do not fit the play's seats."""
    if not isinstance(entries, list) or len(entries) != len(seat_players):
        return None
    results = []
    for entry in entries:
        if not isinstance(entry, dict):
            return None
        seat, total, rank, breakdown = (entry.get(key) for key in ("seat", "total", "rank", "breakdown"))
        if (type(seat) is not int or seat not in seat_players or not _is_points(total)
                or type(rank) is not int or not 1 <= rank <= len(seat_players)
                or not isinstance(breakdown, dict)
                or not all(isinstance(k, str) and _is_points(v) for k, v in breakdown.items())):
            return None
        results.append(ResultInput(seat, total, rank, breakdown))
    if len({r.seat for r in results}) != len(results):
        return None
    return results


def _restore_results(db: Database, play_id: int, previous: object) -> None:
    seat_players = _seat_players(db, play_id)
    results = _stored_results(previous, seat_players)
    if results is None:
        raise RulesError("This correction does not say which scores it replaced, so it cannot be undone. "
                         "Correct the scores again instead.")
    _write_results(db, play_id, seat_players, results)


def _result_dicts(db: Database, play_id: int) -> list[dict[str, Any]]:
    rows = db.execute(
        "SELECT s.seat, r.total, r.rank, r.breakdown FROM results r "
        "JOIN seats s ON s.play_id = r.play_id AND s.player_id = r.player_id "
        "WHERE r.play_id = ? ORDER BY s.seat",
        [play_id],
    ).fetchall()
    return [{"seat": seat, "total": total, "rank": rank, "breakdown": json.loads(breakdown)}
            for seat, total, rank, breakdown in rows]


def correct_results(
    db: Database,
    play_id: int,
    results: Sequence[ResultInput],
    expected_version: int | None = None,
) -> int:
    """Replace a finished play's results with a corrected tally; returns the play's new version.

    One transaction appends a "correction" event after the final event and rewrites the results.
    """
    with write_transaction(db):
        version, status = _current_version(db, play_id)
        _check_version(version, expected_version)
        if status != "finished":
            raise RulesError("Only a finished play can be corrected; finish this one with the final tally.")
        seat_players = _seat_players(db, play_id)
        by_seat = sorted(results, key=lambda r: r.seat)
        if [r.seat for r in by_seat] != sorted(seat_players):
            raise RulesError("A correction needs the scores of every player at the table.")
        payload = {
            "breakdowns": [dict(r.breakdown) for r in by_seat],
            "totals": [r.total for r in by_seat],
            "ranks": [r.rank for r in by_seat],
            "previous": _result_dicts(db, play_id),
        }
        last = db.execute("SELECT COALESCE(MAX(seq), 0) FROM events WHERE play_id = ?", [play_id]).fetchone()
        db.execute(
            "INSERT INTO events (play_id, seq, kind, payload, created_at) VALUES (?, ?, ?, ?, ?)",
            [play_id, last[0] + 1, CORRECTION_EVENT, json.dumps(payload), now()],
        )
        _write_results(db, play_id, seat_players, by_seat)
        db.execute("UPDATE plays SET version = version + 1 WHERE id = ?", [play_id])
        return version + 1


def final_payload(db: Database, play_id: int) -> Mapping[str, Any] | None:
    """The payload of the play's final event (the tally the results came from), if it has one."""
    row = db.execute(
        "SELECT payload FROM events WHERE play_id = ? AND kind = ? ORDER BY seq DESC LIMIT 1",
        [play_id, FINAL_EVENT],
    ).fetchone()
    return json.loads(row[0]) if row else None


def play_counted(db: Database, play_id: int) -> bool:
    """Whether the play counts in the group's statistics."""
    row = db.execute("SELECT counted FROM plays WHERE id = ?", [play_id]).fetchone()
    if row is None:
        raise NotFound("play")
    return bool(row[0])


def set_play_counted(db: Database, play_id: int, counted: bool) -> None:
    """Count a finished play in the statistics, or leave it out (a teaching game, a test run)."""
    with write_transaction(db):
        _, status = _current_version(db, play_id)
        if status != "finished":
            raise RulesError("Only a finished play can be left out of the statistics.")
        db.execute("UPDATE plays SET counted = ? WHERE id = ?", [int(counted), play_id])


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
    where, params = ["p.group_id = ?", "p.status = 'finished'"], [group_id]
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
        "SELECT DISTINCT game FROM plays WHERE group_id = ? AND status = 'finished' ORDER BY game", [group_id]
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
    rows: tuple[str, ...] = ()  # the breakdown rows of that game, in the scoring pad's order
    row_averages: Mapping[int, Mapping[str, float]] = field(default_factory=dict)  # player → row → avg


_RUN_SHIFT = 1 << 32  # more than any run of wins is long


def _chosen(game: str | None, table: str = "r") -> str:
    """Which results every statistic is over: the group's counted plays, of all games or of one.

    Two spellings rather than ``(:game IS NULL OR …)``, which would keep SQLite from using the index.
    """
    chosen = f"{table}.group_id = :group AND {table}.counted = 1"
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
    known = GAMES[game].rows if game in GAMES else ()
    seen = {row for averages in row_averages.values() for row in averages}
    rows = tuple(row for row in known if row in seen) + tuple(sorted(seen - set(known)))
    return Statistics(game, total_plays, tuple(players), tuple(games), rivalries,
                      _periods(db, params, periods) if total_plays else (), rows, row_averages)


# --- a whole group, for the backup and its import -------------------------------------------------

@dataclass(frozen=True)
class ArchivedPlayer:
    name: str
    colour: str
    created_at: str


@dataclass(frozen=True)
class ArchivedSeat:
    player: int  # index into GroupArchive.players
    colour: str


@dataclass(frozen=True)
class ArchivedEvent:
    seq: int
    kind: str
    payload: Mapping[str, Any]
    created_at: str


@dataclass(frozen=True)
class ArchivedResult:
    player: int  # index into GroupArchive.players
    total: int
    rank: int
    breakdown: Mapping[str, int]


@dataclass(frozen=True)
class ArchivedPlay:
    game: str
    options: Mapping[str, Any]
    status: str
    counted: bool
    started_at: str
    ended_at: str | None
    version: int
    seats: tuple[ArchivedSeat, ...]  # in seat order
    events: tuple[ArchivedEvent, ...]  # in order
    results: tuple[ArchivedResult, ...]  # in seat order; empty while the play is going on


@dataclass(frozen=True)
class GroupArchive:
    """Everything a group holds, with players referred to by their place in ``players``."""

    name: str
    players: tuple[ArchivedPlayer, ...]
    plays: tuple[ArchivedPlay, ...]


def dump_group(db: Database, group_id: int) -> GroupArchive:
    """The whole group: players, plays with options, seats, events, results and counted flags."""
    group = get_group(db, group_id)
    players = db.execute("SELECT id, name, colour, created_at FROM players WHERE group_id = ? ORDER BY id",
                         [group_id]).fetchall()
    index = {row[0]: n for n, row in enumerate(players)}
    seats: dict[int, list[ArchivedSeat]] = {}
    for play_id, player_id, colour in db.execute(
            "SELECT s.play_id, s.player_id, s.colour FROM seats s JOIN plays p ON p.id = s.play_id "
            "WHERE p.group_id = ? ORDER BY s.play_id, s.seat", [group_id]).fetchall():
        seats.setdefault(play_id, []).append(ArchivedSeat(index[player_id], colour))
    events: dict[int, list[ArchivedEvent]] = {}
    for play_id, seq, kind, payload, created_at in db.execute(
            "SELECT e.play_id, e.seq, e.kind, e.payload, e.created_at FROM events e "
            "JOIN plays p ON p.id = e.play_id WHERE p.group_id = ? ORDER BY e.play_id, e.seq",
            [group_id]).fetchall():
        events.setdefault(play_id, []).append(ArchivedEvent(seq, kind, json.loads(payload), created_at))
    results: dict[int, list[ArchivedResult]] = {}
    for play_id, player_id, total, rank, breakdown in db.execute(
            "SELECT r.play_id, r.player_id, r.total, r.rank, r.breakdown FROM results r "
            "JOIN seats s ON s.play_id = r.play_id AND s.player_id = r.player_id "
            "JOIN plays p ON p.id = r.play_id WHERE p.group_id = ? ORDER BY r.play_id, s.seat",
            [group_id]).fetchall():
        results.setdefault(play_id, []).append(
            ArchivedResult(index[player_id], total, rank, json.loads(breakdown)))
    plays = tuple(
        ArchivedPlay(game, json.loads(options), status, bool(counted), started_at, ended_at, version,
                     tuple(seats.get(play_id, ())), tuple(events.get(play_id, ())),
                     tuple(results.get(play_id, ())))
        for play_id, game, options, status, counted, started_at, ended_at, version in db.execute(
            "SELECT id, game, options, status, counted, started_at, ended_at, version FROM plays "
            "WHERE group_id = ? ORDER BY id", [group_id]).fetchall()
    )
    return GroupArchive(group.name, tuple(ArchivedPlayer(*row[1:]) for row in players), plays)


def restore_group(db: Database, archive: GroupArchive) -> Group:
    """Create a new group holding exactly what ``archive`` holds; all of it or, on any error, nothing.

    The archive must have been checked (companion.exports.parse_backup does); a clash the database
    still finds is a RulesError and leaves the database as it was.
    """
    try:
        with write_transaction(db):
            while True:
                code = _new_join_code()
                if not db.execute("SELECT 1 FROM groups WHERE join_code = ?", [code]).fetchone():
                    break
            group_id = db.execute(
                "INSERT INTO groups (name, token, join_code, created_at) VALUES (?, ?, ?, ?)",
                [archive.name, secrets.token_urlsafe(24), code, now()],
            ).lastrowid
            player_ids = [
                db.execute("INSERT INTO players (group_id, name, colour, created_at) VALUES (?, ?, ?, ?)",
                           [group_id, p.name, p.colour, p.created_at]).lastrowid
                for p in archive.players
            ]
            for play in archive.plays:
                play_id = db.execute(
                    "INSERT INTO plays (group_id, game, options, status, counted, started_at, ended_at, "
                    "version) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [group_id, play.game, json.dumps(dict(play.options)), play.status, int(play.counted),
                     play.started_at, play.ended_at, play.version],
                ).lastrowid
                db.conn.executemany(
                    "INSERT INTO seats (play_id, seat, player_id, colour) VALUES (?, ?, ?, ?)",
                    [(play_id, n, player_ids[s.player], s.colour) for n, s in enumerate(play.seats)])
                db.conn.executemany(
                    "INSERT INTO events (play_id, seq, kind, payload, created_at) VALUES (?, ?, ?, ?, ?)",
                    [(play_id, e.seq, e.kind, json.dumps(dict(e.payload)), e.created_at)
                     for e in play.events])
                db.conn.executemany(
                    "INSERT INTO results (play_id, player_id, total, rank, breakdown) VALUES (?, ?, ?, ?, ?)",
                    [(play_id, player_ids[r.player], r.total, r.rank, json.dumps(dict(r.breakdown)))
                     for r in play.results])
    except sqlite3.IntegrityError as error:
        raise RulesError("The backup does not fit together (%(error)s); nothing was imported.",
                         error=str(error)) from None
    return get_group(db, group_id)
